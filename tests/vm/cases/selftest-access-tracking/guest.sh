# SPDX-License-Identifier: GPL-2.0
# The kernel's access_tracking_perf_test under kvmwalk record, with the kernel's own count of the
# same run (/kvmwalk/selftests/lib.sh) as the second witness: 2 vCPUs x 8 MiB, arm64 -m 6.
# 7.3's test ages memory through MGLRU (lib/lru_gen_util.c), not page_idle: it needs cgroup2 with
# the memory controller (it runs itself in a child cgroup, access_tracking_perf_test) and MGLRU
# with its mm walk (/sys/kernel/mm/lru_gen/enabled bits 0x1 and 0x2; Debian builds it in, off).
# ATTACH (vmtest --env ATTACH=kprobe): record --attach ATTACH.
. /kvmwalk/selftests/lib.sh
args="-v 2 -b 8M"
[ "$KW_ARCH" = arm64 ] && args="$args -m 6"
echo "$args" >args.txt
echo "${ATTACH:-auto}" >attach.txt
dmesg | sed -n 's/.*IPA Size Limit: \([0-9]*\) bits.*/\1/p' | head -n 1 >ipa-limit.txt
mkdir -p /sys/fs/cgroup
mount -t cgroup2 cgroup2 /sys/fs/cgroup || { echo "cannot mount cgroup2"; exit 10; }
echo +memory >/sys/fs/cgroup/cgroup.subtree_control || { echo "no memory controller"; exit 10; }
echo y >/sys/kernel/mm/lru_gen/enabled || { echo "cannot turn MGLRU on"; exit 10; }
cat /sys/kernel/mm/lru_gen/enabled >lru_gen.txt

witness_hist ioctl syscalls/sys_enter_ioctl cmd.hex
witness_add release 'p kvm_mmu_notifier_release'
# the aging notifiers and KVM's arch hooks they call per memslot range
witness_add clear_young 'p kvm_mmu_notifier_clear_young'
witness_add clear_flush_young 'p kvm_mmu_notifier_clear_flush_young'
witness_add test_young 'p kvm_mmu_notifier_test_young'
witness_add age_gfn 'p kvm_age_gfn'
witness_add test_age_gfn 'p kvm_test_age_gfn'
case $KW_ARCH in
x86)
	witness_add tdp_age 'p kvm_tdp_mmu_age_gfn_range'
	witness_add tdp_test_age 'p kvm_tdp_mmu_test_age_gfn'
	# the calls that found a young SPTE (bool: 1)
	witness_add tdp_age_ret 'r kvm_tdp_mmu_age_gfn_range ret=$retval:u8' ret
	witness_add tdp_test_age_ret 'r kvm_tdp_mmu_test_age_gfn ret=$retval:u8' ret
	# SPTEs made old: a present SPTE that keeps its present bit (SPTE_MMU_PRESENT_MASK, bit
	# 11) and loses the Accessed bit (NPT: PT_ACCESSED_MASK, bit 5). Only aging does that here:
	# a zap clears the present bit, nothing else in the run clears the Accessed bit.
	witness_hist age_old kvmmmu/kvm_tdp_mmu_spte_changed level \
		'old_spte & 32 && new_spte & 2048 && !(new_spte & 32)'
	witness_add fpf 'r fast_page_fault ret=$retval:s32' ret
	witness_add fault 'p kvm_mmu_page_fault'
	;;
arm64)
	witness_add s2_young 'p kvm_pgtable_stage2_test_clear_young mkold=$arg4:u8' mkold
	witness_add s2_young_ret 'r kvm_pgtable_stage2_test_clear_young ret=$retval:u8' ret
	# stage2_age_walker(ctx, visit): each visit, by the call's mkold (ctx->arg is its struct
	# stage2_age_data, mkold first), by the low 11 bits of ctx->old (the visit is young when
	# bits 0, valid, and 10, the Access Flag, are both set), and by return value
	witness_add age_visit 'p stage2_age_walker mkold=+0(+16($arg1)):u8' mkold
	witness_add age_visit_pte 'p stage2_age_walker lo=+8($arg1):b11@0/64' lo
	witness_add age_visit_ret 'r stage2_age_walker ret=$retval:s32' ret
	# the young visits of mkold calls: the leaves an age call makes old unless it returns an error
	witness_add age_young_mkold 'p stage2_age_walker mkold=+0(+16($arg1)):u8 lo=+8($arg1):b11@0/64' \
		mkold 'mkold == 1 && lo & 1 && lo & 1024'
	witness_add mkyoung 'p kvm_pgtable_stage2_mkyoung'
	witness_add abort 'p kvm_handle_guest_abort'
	;;
esac
# shellcheck disable=SC2086
kvmwalk record ${ATTACH:+--attach $ATTACH} -o rec.json -- \
	/kvmwalk/selftests/access_tracking_perf_test $args >test.txt 2>record.err
echo $? >record.rc
witness_save
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
exit 0
