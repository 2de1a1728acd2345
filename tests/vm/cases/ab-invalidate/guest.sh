# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "invalidate" (patches/x86-tdp-zap-empty-hint): kvmwalk records RUNS rounds of
# kvmwalk-load --scenario invalidate in three patterns, 8 iterations of one 2 MiB range each:
#   emptyN.json  --pattern same --refault=no: the same range zapped again without being touched
#                in between: only the first zap finds present leaves, the 7 others walk the table
#                it emptied (the hint's case: they skip it);
#   sameN.json   --pattern same: the vCPUs refault the range between zaps, so every zap finds a
#                full table again (the hint must have been cleared: no skip, same work);
#   sweepN.json  --pattern sweep: a different range every iteration (nothing for the hint).
# With PATTERN-loadN files and .rc as in ab-split; a run's kvmwalk-load exits non-zero when its
# own checks fail (a page not refaulted, a page resident after MADV_DONTNEED, a guest error).
# Each pattern three times a round as in ab-split: with every probe, bare (--probe none) and
# with the timing set, the order of the kinds alternating between rounds; the bare and timing
# runs' files have bare- or timing- in front (bare-emptyN.json, bare-empty-loadN.json, ...).
RUNS=${AB_RUNS:-5}
fail=0
run() { # KIND PATTERN N
	case $2 in
	empty) opts="--pattern=same --refault=no" ;;
	*) opts="--pattern=$2" ;;
	esac
	r=$2$3 l=$2-load$3
	case $1 in
	bare) probes=none r=bare-$r l=bare-$l ;;
	timing) probes=timing r=timing-$r l=timing-$l ;;
	*) probes=all ;;
	esac
	# shellcheck disable=SC2086 # $opts is a list of options
	kvmwalk record --probe $probes -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=8 --range=2M $opts \
		--json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
}
for pattern in empty same sweep; do
	i=1
	while [ $i -le "$RUNS" ]; do
		if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
		for k in $kinds; do run $k $pattern $i; done
		i=$((i + 1))
	done
done
exit $fail
