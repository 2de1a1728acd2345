# SPDX-License-Identifier: GPL-2.0
# The kernel's kvm_page_table_test under kvmwalk record, with the kernel's own count of the same
# run (/kvmwalk/selftests/lib.sh) as the second witness: one vCPU (it writes: even vCPU ids
# write, odd ones read, and two would race for the same first touches), 8 MiB of anonymous 4 KiB
# memory (the test's default backing; MADV_NOHUGEPAGE), arm64 -m 6. The stages: create mappings
# (a write per page), dirty logging on, update them (a write per page), dirty logging off,
# adjust (a read per page), then the VM freed (munmap of its memory, close).
# ATTACH (vmtest --env ATTACH=kprobe): record --attach ATTACH.
. /kvmwalk/selftests/lib.sh
args="-v 1 -b 8M"
[ "$KW_ARCH" = arm64 ] && args="$args -m 6"
echo "$args" >args.txt
echo "${ATTACH:-auto}" >attach.txt
dmesg | sed -n 's/.*IPA Size Limit: \([0-9]*\) bits.*/\1/p' | head -n 1 >ipa-limit.txt

witness_hist ioctl syscalls/sys_enter_ioctl cmd.hex
witness_add release 'p kvm_mmu_notifier_release'
witness_add invalidate 'p kvm_mmu_notifier_invalidate_range_start'
case $KW_ARCH in
x86)
	witness_add fpf 'r fast_page_fault ret=$retval:s32' ret
	witness_add fault 'p kvm_mmu_page_fault'
	witness_add unmap_gfn 'p kvm_tdp_mmu_unmap_gfn_range'
	witness_add zap_leafs 'p tdp_mmu_zap_leafs'
	;;
arm64)
	witness_add map 'p kvm_pgtable_stage2_map'
	witness_add wrprotect 'p kvm_pgtable_stage2_wrprotect'
	witness_add relax 'p kvm_pgtable_stage2_relax_perms'
	witness_add mkyoung 'p kvm_pgtable_stage2_mkyoung'
	witness_add unmap 'p kvm_pgtable_stage2_unmap'
	witness_add abort 'p kvm_handle_guest_abort'
	witness_add flush 'p kvm_tlb_flush_vmid_range'
	;;
esac
# shellcheck disable=SC2086
kvmwalk record ${ATTACH:+--attach $ATTACH} -o rec.json -- \
	/kvmwalk/selftests/kvm_page_table_test $args >test.txt 2>record.err
echo $? >record.rc
witness_save
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
exit 0
