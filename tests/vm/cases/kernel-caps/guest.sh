# SPDX-License-Identifier: GPL-2.0
# Which walker functions exist in this kernel and how each can be probed, without kvmwalk:
# present (in /proc/kallsyms, under its own name or a compiler-suffixed one such as .isra.0),
# traceable (in available_filter_functions: what fentry needs) and kprobe (a kprobe on it is
# accepted by tracefs). Writes caps.tsv, tracepoints.tsv, mode.txt and kvm-params.txt.
T=/sys/kernel/tracing
case "$KW_ARCH" in
arm64) funcs="kvm_pgtable_walk kvm_pgtable_stage2_split kvm_pgtable_stage2_unmap
	kvm_pgtable_stage2_map kvm_pgtable_stage2_wrprotect stage2_split_walker stage2_unmap_walker
	__kvm_tlb_flush_vmid_range kvm_tlb_flush_vmid_range kvm_arch_flush_remote_tlbs_range
	kvm_nested_s2_unmap" ;;
x86) funcs="tdp_mmu_zap_leafs kvm_tdp_mmu_unmap_gfn_range kvm_tdp_mmu_zap_leafs fast_page_fault
	tdp_mmu_split_huge_page kvm_tdp_mmu_map kvm_tdp_mmu_clear_dirty_slot tdp_iter_next" ;;
esac
funcs="$funcs kvm_mmu_notifier_invalidate_range_start kvm_vm_ioctl kvm_vcpu_ioctl"

printf 'function\tpresent\ttraceable\tkprobe\tsymbol\n' >caps.tsv
for f in $funcs; do
	# The exact name wins; a .cold part is never the function's entry.
	sym=$(awk -v f="$f" '$3 == f { print $3; found = 1; exit }
		!alt && index($3, f ".") == 1 && $3 !~ /\.cold$/ { alt = $3 }
		END { if (!found && alt) print alt }' /proc/kallsyms)
	present=no traceable=no kprobe=no
	if [ -n "$sym" ]; then
		present=yes
		grep -q "^$sym\( \|\$\)" $T/available_filter_functions && traceable=yes
		if echo "p:vmtest/probe $sym" >>$T/kprobe_events 2>/dev/null; then
			kprobe=yes
			echo "-:vmtest/probe" >>$T/kprobe_events
		fi
	fi
	printf '%s\t%s\t%s\t%s\t%s\n' "$f" $present $traceable $kprobe "${sym:--}" >>caps.tsv
done

printf 'tracepoint\tpresent\n' >tracepoints.tsv
for tp in kvm/kvm_unmap_hva_range kvm/kvm_age_hva kvmmmu/fast_page_fault kvmmmu/kvm_mmu_set_spte \
	kvmmmu/kvm_tdp_mmu_spte_changed kvmmmu/kvm_mmu_split_huge_page lock/contention_begin \
	lock/contention_end; do
	[ -d $T/events/$tp ] && p=yes || p=no
	printf '%s\t%s\n' "$tp" $p >>tracepoints.tsv
done

# How KVM initialised: arm64 says "VHE mode initialized", "Hyp mode initialized" (nVHE) or
# "VHE+NV2 mode initialized" (kvm-arm.mode=nested).
dmesg | grep -i -m1 -E 'kvm \[[0-9]+\]: (vhe|hyp|protected).*mode initiali[sz]ed|kvm.*initiali[sz]ed' >mode.txt
# arm64: the IPA size limit (kvm_ipa_limit, what a nested MMU spans) and whether the CPU has NV.
dmesg | grep -m1 -o 'IPA Size Limit: [0-9]* bits' >ipa.txt
dmesg | grep -m1 -o 'detected: Nested Virtualization Support' >nv.txt
for p in /sys/module/kvm/parameters/* /sys/module/kvm_amd/parameters/*; do
	[ -f "$p" ] && echo "${p#/sys/module/}=$(cat $p 2>/dev/null)"
done >kvm-params.txt
uname -r >release.txt
cat caps.tsv
