# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "split" (patches/arm64-split-skip-level3): kvmwalk records RUNS runs of
# kvmwalk-load --scenario split with THP and a 2 MiB eager-split chunk. Each run's recording is
# runN.json, the workload's own report loadN.json; runN.rc is kvmwalk-load's exit status (0 only
# when every count it can check, dirty pages included, came out as the workload made certain).
RUNS=${AB_RUNS:-5}
fail=0
i=1
while [ $i -le $RUNS ]; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=split --vcpus=2 --mem=8M \
		--backing=thp --eager-split=2M --iterations=2 --json=load$i.json >load$i.txt 2>run$i.err
	rc=$?
	echo $rc >run$i.rc
	[ $rc = 0 ] || fail=1
	i=$((i + 1))
done
exit $fail
