# SPDX-License-Identifier: GPL-2.0
# `make demo`: kvmwalk records kvmwalk-load driving a real KVM VM through every scenario; the
# phase table (what the workload did) goes to load.txt, kvmwalk's report to report.txt.
# THP backing and (arm64, from 6.4 on) a 2 MiB eager-split chunk, so that enabling dirty logging
# splits blocks.
#
# Then what recording cost the command, seen from user space: the same kvmwalk-load run again
# DEMO_RUNS times (default 3) bare (--probe none), with the timing set, the cheap set and every
# probe, in turn in this one boot, the order reversed every other run so that drift cancels;
# `kvmwalk report` of those runs (cost.txt) sets each set's wall time and phases against the
# bare runs' (medians, Hodges-Lehmann intervals).
split=""
[ "$KW_ARCH" = arm64 ] && [ "$KW_KERNEL" != 6.1 ] && split="--eager-split=2M"
# shellcheck disable=SC2086
kvmwalk record -o rec.json --workload-times load.json -- \
	kvmwalk-load --scenario=all --vcpus=2 --mem=16M --backing=thp $split --json=load.json \
	>load.txt 2>progress.txt || exit
kvmwalk report rec.json >report.txt

RUNS=${DEMO_RUNS:-3}
SETS="none timing cheap all"
files=""
i=1
while [ "$i" -le "$RUNS" ]; do
	order=$SETS
	[ $((i % 2)) = 1 ] || order="all cheap timing none"
	for set in $order; do
		echo "demo: run $i of $RUNS, --probe $set" >>progress.txt
		# shellcheck disable=SC2086
		# one command line for every run (report warns when runs ran different commands):
		# the same --json file each time, kept under the run's name afterwards
		kvmwalk record --probe "$set" -o "cost-$set-$i.json" --workload-times cost-load.json \
			-- kvmwalk-load --scenario=all --vcpus=2 --mem=16M --backing=thp $split \
			--json=cost-load.json >/dev/null 2>>progress.txt || exit
		mv cost-load.json "cost-load-$set-$i.json"
		files="$files cost-$set-$i.json"
	done
	i=$((i + 1))
done
# shellcheck disable=SC2086
kvmwalk report $files >cost.txt
