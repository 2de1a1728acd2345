# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "nested-unmap" (patches/arm64-unmap-tlbi-only-if-unmapped on the nested
# host): kvmwalk records RUNS runs of kvmwalk-load --scenario nested-unmap with one vCPU (one
# valid nested stage-2 MMU: a single ERET to vEL1) and 2 madvises of one never-touched page.
# Each madvise's notifier unmaps the whole 48-bit IPA space of that nested MMU, 262,144 calls of
# 1 GiB: the first clears the one leaf the vEL1 code fetch mapped, the second clears nothing.
# runN.json / loadN.json / runN.rc as in ab-split. nv2.txt: the banner that says the kernel runs
# KVM in VHE+NV2 mode (an A/B kernel's configuration must allow kvm-arm.mode=nested).
RUNS=${AB_RUNS:-3}
dmesg | grep -m1 -o 'VHE+NV2 mode initialized successfully' >nv2.txt
dmesg | grep -m1 -o 'IPA Size Limit: [0-9]* bits' >ipa.txt
fail=0
i=1
while [ $i -le $RUNS ]; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=nested-unmap --vcpus=1 --mem=2M \
		--iterations=2 --timeout=300 --json=load$i.json >load$i.txt 2>run$i.err
	rc=$?
	echo $rc >run$i.rc
	[ $rc = 0 ] || fail=1
	i=$((i + 1))
done
exit $fail
