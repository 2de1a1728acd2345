# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "empty-unmap" (patches/arm64-unmap-tlbi-only-if-unmapped): kvmwalk records
# RUNS runs of kvmwalk-load --scenario empty-unmap: madvise of never-touched memory, deletion and
# re-creation of the never-touched data slot, a 256 GiB sparse slot added and deleted (256
# one-GiB unmap calls that clear nothing): runN.json / loadN.json / runN.rc as in ab-split.
# Then RUNS runs of --scenario invalidate (madvise of touched memory: unmaps that do clear
# leaves, whose range flushes the series must keep): clearN.json, clear-loadN.json, clearN.rc.
RUNS=${AB_RUNS:-5}
fail=0
i=1
while [ $i -le $RUNS ]; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M \
		--iterations=2 --range=2M --sparse=256G --json=load$i.json >load$i.txt 2>run$i.err
	rc=$?
	echo $rc >run$i.rc
	[ $rc = 0 ] || fail=1
	kvmwalk record -o clear$i.json -- kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M \
		--iterations=3 --range=2M --json=clear-load$i.json >clear-load$i.txt 2>clear$i.err
	rc=$?
	echo $rc >clear$i.rc
	[ $rc = 0 ] || fail=1
	i=$((i + 1))
done
exit $fail
