# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "empty-unmap" (patches/arm64-unmap-tlbi-only-if-unmapped): kvmwalk records
# RUNS runs of kvmwalk-load --scenario empty-unmap: madvise of never-touched memory, deletion and
# re-creation of the never-touched data slot, a 256 GiB sparse slot added and deleted (256
# one-GiB unmap calls that clear nothing). runN.json / loadN.json / runN.rc as in ab-split.
RUNS=5
fail=0
i=1
while [ $i -le $RUNS ]; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M \
		--iterations=2 --range=2M --sparse=256G --json=load$i.json >load$i.txt 2>run$i.err
	rc=$?
	echo $rc >run$i.rc
	[ $rc = 0 ] || fail=1
	i=$((i + 1))
done
exit $fail
