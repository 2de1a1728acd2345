# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "nested-unmap" (patches/arm64-unmap-tlbi-only-if-unmapped on the nested
# host): kvmwalk records RUNS rounds of kvmwalk-load --scenario nested-unmap with one vCPU (one
# valid nested stage-2 MMU: a single ERET to vEL1) and 2 madvises of one never-touched page.
# Each madvise's notifier unmaps the whole 48-bit IPA space of that nested MMU, 262,144 calls of
# 1 GiB: the first clears the one leaf the vEL1 code fetch mapped, the second clears nothing.
# runN.json / loadN.json / runN.rc as in ab-split, and as there a round is three runs: with every
# probe, bare (--probe none) and with the timing set (which times each nested unmap once), the
# order of the kinds alternating between rounds; the bare and timing runs' files have bare- or
# timing- in front (bare-runN.json, bare-loadN.json, ...). A recorded madvise with every probe
# takes 30 s or more under emulation, a bare one a few seconds. nv2.txt: the banner that says the
# kernel runs KVM in VHE+NV2 mode (an A/B kernel's configuration must allow
# kvm-arm.mode=nested).
RUNS=${AB_RUNS:-3}
dmesg | grep -m1 -o 'VHE+NV2 mode initialized successfully' >nv2.txt
dmesg | grep -m1 -o 'IPA Size Limit: [0-9]* bits' >ipa.txt
fail=0
run() { # KIND N
	case $1 in
	bare) probes=none r=bare-run$2 l=bare-load$2 ;;
	timing) probes=timing r=timing-run$2 l=timing-load$2 ;;
	*) probes=all r=run$2 l=load$2 ;;
	esac
	kvmwalk record --probe $probes -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load --scenario=nested-unmap --vcpus=1 --mem=2M --iterations=2 --timeout=300 \
		--json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
}
i=1
while [ $i -le "$RUNS" ]; do
	if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
	for k in $kinds; do run $k $i; done
	i=$((i + 1))
done
exit $fail
