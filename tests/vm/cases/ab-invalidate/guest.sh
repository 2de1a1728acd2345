# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "invalidate" (patches/x86-tdp-zap-empty-hint): kvmwalk records RUNS runs of
# kvmwalk-load --scenario invalidate in three patterns, 8 iterations of one 2 MiB range each:
#   emptyN.json  --pattern same --refault=no: the same range zapped again without being touched
#                in between: only the first zap finds present leaves, the 7 others walk the table
#                it emptied (the hint's case: they skip it);
#   sameN.json   --pattern same: the vCPUs refault the range between zaps, so every zap finds a
#                full table again (the hint must have been cleared: no skip, same work);
#   sweepN.json  --pattern sweep: a different range every iteration (nothing for the hint).
# With loadN files and .rc as in ab-split; a run's kvmwalk-load exits non-zero when its own
# checks fail (a page not refaulted, a page resident after MADV_DONTNEED, a guest error).
RUNS=${AB_RUNS:-5}
fail=0
for pattern in empty same sweep; do
	case $pattern in
	empty) opts="--pattern=same --refault=no" ;;
	*) opts="--pattern=$pattern" ;;
	esac
	i=1
	while [ $i -le $RUNS ]; do
		kvmwalk record -o $pattern$i.json -- kvmwalk-load --scenario=invalidate --vcpus=2 \
			--mem=8M --iterations=8 --range=2M $opts \
			--json=$pattern-load$i.json >$pattern-load$i.txt 2>$pattern$i.err
		rc=$?
		echo $rc >$pattern$i.rc
		[ $rc = 0 ] || fail=1
		i=$((i + 1))
	done
done
exit $fail
