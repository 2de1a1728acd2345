# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "empty-unmap" (patches/arm64-unmap-tlbi-only-if-unmapped): kvmwalk records
# RUNS rounds of kvmwalk-load --scenario empty-unmap: madvise of never-touched memory, deletion
# and re-creation of the never-touched data slot, a 256 GiB sparse slot added and deleted (256
# one-GiB unmap calls that clear nothing): runN.json / loadN.json / runN.rc as in ab-split. Then
# of --scenario invalidate (madvise of touched memory: unmaps that do clear leaves, whose range
# flushes the series must keep): clearN.json, clear-loadN.json, clearN.rc. Each scenario three
# times a round as in ab-split: with every probe, bare (--probe none) and with the timing set,
# alternating the order of the kinds between rounds; the bare and timing runs' files have bare-
# or timing- in front (bare-runN.json, timing-clear-loadN.json, ...).
RUNS=${AB_RUNS:-5}
fail=0
run() { # KIND PATTERN N
	case $2 in
	run) r=run$3 l=load$3
		load="--scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M --sparse=256G" ;;
	*) r=clear$3 l=clear-load$3
		load="--scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M" ;;
	esac
	case $1 in
	bare) probes=none r=bare-$r l=bare-$l ;;
	timing) probes=timing r=timing-$r l=timing-$l ;;
	*) probes=all ;;
	esac
	# shellcheck disable=SC2086 # $load is a list of options
	kvmwalk record --probe $probes -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load $load --json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
}
i=1
while [ $i -le "$RUNS" ]; do
	if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
	for pattern in run clear; do
		for k in $kinds; do run $k $pattern $i; done
	done
	i=$((i + 1))
done
exit $fail
