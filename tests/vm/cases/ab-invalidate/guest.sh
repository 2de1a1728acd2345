# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "invalidate" (patches/x86-tdp-zap-empty-hint): kvmwalk records RUNS runs of
# kvmwalk-load --scenario invalidate with --pattern same (the same 2 MiB range every iteration)
# and RUNS with --pattern sweep (a different range every iteration): sameN.json / sweepN.json,
# with loadN files and .rc as in ab-split.
RUNS=${AB_RUNS:-5}
fail=0
for pattern in same sweep; do
	i=1
	while [ $i -le $RUNS ]; do
		kvmwalk record -o $pattern$i.json -- kvmwalk-load --scenario=invalidate --vcpus=2 \
			--mem=8M --iterations=8 --range=2M --pattern=$pattern \
			--json=$pattern-load$i.json >$pattern-load$i.txt 2>$pattern$i.err
		rc=$?
		echo $rc >$pattern$i.rc
		[ $rc = 0 ] || fail=1
		i=$((i + 1))
	done
done
exit $fail
