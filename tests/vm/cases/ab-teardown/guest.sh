# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "teardown" (patches/arm64-teardown-skip-empty): kvmwalk records RUNS rounds of
# kvmwalk-load --scenario teardown: a VM of 1 vCPU touching 2 MiB (a nearly empty VM, as QEMU's
# probing VMs are), its IPA space the host's limit (--ipa-bits=max: 52 bits with QEMU's -cpu max,
# which has LPA2), closed; the close is the phase "teardown". 7.3 frees the stage-2 tables by
# walking the whole IPA space 1 GiB at a time (2^22 walks at 52 bits), the patched kernel steps
# over the empty top-level entries (tests/vm/cases/teardown-walks has the arithmetic).
# runN.json / loadN.json / runN.rc as in ab-split, and as there a round is three runs: with every
# probe (and --count kvm_s2_put_page, the entries and tables the teardown frees,
# --count-optional kvm_pgtable_stage2_skip_empty, the patch's own function), bare (--probe none)
# and with the timing set (kvm_mmu_notifier_release times the teardown once), the order of the
# kinds alternating between rounds; the bare and timing runs' files have bare- or timing- in
# front (bare-runN.json, bare-loadN.json, ...). SecPageTables (/proc/meminfo: the stage-2 tables
# KVM accounts) is read before the first run (secpt-start.txt) and after each (runN.secpt, ...).
RUNS=${AB_RUNS:-5}
fail=0
# stat_refresh folds the per-CPU vmstat differences first (as in teardown-walks)
secpt() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk '$1 == "SecPageTables:" { print $2 }' /proc/meminfo
}
run() { # KIND N
	case $1 in
	bare) opts="--probe none" r=bare-run$2 l=bare-load$2 ;;
	timing) opts="--probe timing" r=timing-run$2 l=timing-load$2 ;;
	*) opts="--count kvm_s2_put_page --count-optional kvm_pgtable_stage2_skip_empty"
		r=run$2 l=load$2 ;;
	esac
	# shellcheck disable=SC2086 # $opts is a list of options
	kvmwalk record $opts -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load --scenario=teardown --ipa-bits=max --vcpus=1 --mem=2M \
		--json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
	secpt >"$r.secpt"
}
secpt >secpt-start.txt
i=1
while [ $i -le "$RUNS" ]; do
	if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
	for k in $kinds; do run $k $i; done
	i=$((i + 1))
done
exit $fail
