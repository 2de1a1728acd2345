# SPDX-License-Identifier: GPL-2.0
# The same kvmwalk-load scenario recorded bare (record --probe none), with the timing set and with
# every probe, two of each per side of a comparison, alternating (the order reversed every other
# round), the command's own phase times taken from its --json on stdout (--workload-times -).
# Then what each set loads: a run of each of none and timing lists the BPF programs from inside
# the recorded command (bpftool), its phase times read from a file (--workload-times FILE); a
# stale file is refused. check asserts the plans, the programs and compare's choice of runs.
LOAD="kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M --pattern=same"
count() { bpftool prog show | grep -c '^[0-9]'; }
count >progs-before.count
bpftool -j prog show >progs-before.json
cat /proc/sys/kernel/bpf_stats_enabled >stats-before
run() { # KIND SET N
	# shellcheck disable=SC2086
	kvmwalk record --probe "$2" -o "$1$3.json" --workload-times - -- $LOAD --json \
		>"load-$1$3.json" 2>"$1$3.err"
	echo $? >"$1$3.rc"
}
i=1
while [ $i -le 4 ]; do
	if [ $((i % 2)) = 1 ]; then
		run bare none $i; run timing timing $i; run full all $i
	else
		run full all $i; run timing timing $i; run bare none $i
	fi
	i=$((i + 1))
done
cat /proc/sys/kernel/bpf_stats_enabled >stats-after

# what each set has loaded while its command runs
for set in none timing; do
	# shellcheck disable=SC2086
	kvmwalk record --probe $set -o bpf-$set.json --workload-times file-$set.json -- sh -c \
		"bpftool -j prog show >progs-$set.json; exec $LOAD --json=file-$set.json >/dev/null" \
		2>bpf-$set.err
	echo $? >bpf-$set.rc
done
count >progs-after.count

# a file the command did not write is not taken for its times
echo '{"tool": "kvmwalk-load", "phases": [{"phase": "touch", "wall_ns": 1}]}' >stale.json
touch -d '2001-01-01 00:00:00' stale.json
kvmwalk record --probe none -o stale-rec.json --workload-times stale.json -- true 2>stale.err
echo $? >stale.rc

# what recording cost the command, and the comparison (runs 1-2 against 3-4)
kvmwalk report bare1.json timing1.json full1.json bare2.json timing2.json full2.json \
	bare3.json timing3.json full3.json bare4.json timing4.json full4.json >cost.txt 2>cost.err
echo $? >cost.rc
kvmwalk report --json bare1.json timing1.json full1.json bare2.json timing2.json full2.json \
	bare3.json timing3.json full3.json bare4.json timing4.json full4.json >cost.json 2>>cost.err
B="bare1.json timing1.json full1.json bare2.json timing2.json full2.json"
N="bare3.json timing3.json full3.json bare4.json timing4.json full4.json"
# shellcheck disable=SC2086
kvmwalk compare $B -- $N >compare.txt 2>compare.err
echo $? >compare.rc
# shellcheck disable=SC2086
kvmwalk compare $B -- $N --format json >compare.json 2>>compare.err
kvmwalk report timing1.json >report-timing.txt 2>&1
kvmwalk report bare1.json >report-bare.txt 2>&1
exit 0
