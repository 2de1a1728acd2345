# SPDX-License-Identifier: GPL-2.0
# The kernel's dirty_log_perf_test (tools/testing/selftests/kvm, built from the booted kernel's
# own Debian source) under kvmwalk record, with the kernel's own count of the same run (ftrace
# kprobe events, /kvmwalk/selftests/lib.sh) as the second witness. check derives what both must
# count from the test's and KVM's source.
#   2 vCPUs x 8 MiB (4,096 pages of 4 KiB), 3 iterations, one slot; arm64: -m 6 only (PA 40 /
#   VA 48 / 4K), else all 13 guest modes of QEMU's -cpu max would run.
#   DLPT_ARGS (the selftest-dirty-log-g case: -g): more options for the test.
#   ATTACH (vmtest --env ATTACH=kprobe): record --attach ATTACH (default: kvmwalk's own choice).
# Files: test.txt (the test's output), rec.json, report.json, report.txt, witness*.txt, rc files,
# ipa-limit.txt (arm64: the host's IPA limit, the size of the test's probe VMs).
. /kvmwalk/selftests/lib.sh
args="-v 2 -b 8M -i 3${DLPT_ARGS:+ $DLPT_ARGS}"
[ "$KW_ARCH" = arm64 ] && args="$args -m 6"
echo "$args" >args.txt
echo "${ATTACH:-auto}" >attach.txt
dmesg | sed -n 's/.*IPA Size Limit: \([0-9]*\) bits.*/\1/p' | head -n 1 >ipa-limit.txt

# Both arches: every ioctl by command (the KVM ioctls, KVM_CREATE_VM included;
# tests/vm/selftests.sh says why not a kprobe event on kvm_vm_ioctl), the VMs torn down (the MMU
# notifier's release, kvmwalk's vm_teardown probe), and the per-64-page-word dirty-log step both
# GET and CLEAR call.
witness_hist ioctl syscalls/sys_enter_ioctl cmd.hex
witness_add release 'p kvm_mmu_notifier_release'
witness_add masked 'p kvm_arch_mmu_enable_log_dirty_pt_masked'
case $KW_ARCH in
x86)
	witness_add fpf 'r fast_page_fault ret=$retval:s32' ret
	witness_add clrdirty 'p kvm_tdp_mmu_clear_dirty_pt_masked'
	witness_add fault 'p kvm_mmu_page_fault'
	;;
arm64)
	witness_add wrprotect 'p kvm_pgtable_stage2_wrprotect'
	witness_add relax 'p kvm_pgtable_stage2_relax_perms'
	witness_add mkyoung 'p kvm_pgtable_stage2_mkyoung'
	witness_add abort 'p kvm_handle_guest_abort'
	witness_add flush 'p kvm_tlb_flush_vmid_range'
	;;
esac
# shellcheck disable=SC2086
kvmwalk record ${ATTACH:+--attach $ATTACH} -o rec.json -- /kvmwalk/selftests/dirty_log_perf_test \
	$args >test.txt 2>record.err
echo $? >record.rc
witness_save
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
exit 0
