# SPDX-License-Identifier: GPL-2.0
# record --count / --time of user-named functions (user/userfn.c, bpf/userfn.bpf.c) around
# kvmwalk-load --scenario invalidate (4 KiB pages, one 2 MiB range, 3 iterations, 2 vCPUs).
# What each run asserts is in the check. On Debian's stock kernel: the user counts of built-in
# probe functions against the built-in probes, the usage errors, --count-optional. On the
# bundled hint A/B kernels (release *-kvmwalk-base / *-kvmwalk-patched, booted with
# --kernel-image): the hint's mechanism, counted.
rc() { echo $? >"$1.rc"; }
load="kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M --pattern=same"
kvmwalk probes >probes.txt 2>&1
rc probes
# is the patch's helper a symbol, and traceable? (only in the patched kernel)
tr=/sys/kernel/tracing
[ -f $tr/available_filter_functions ] || tr=/sys/kernel/debug/tracing
grep -cE ' tdp_iter_skip_children(	|$)' /proc/kallsyms >skip-kallsyms.txt
grep -cE '^tdp_iter_skip_children( |$)' $tr/available_filter_functions >skip-traceable.txt
# a nonexistent name and a notrace one: usage errors before the command runs (no ran-* file)
kvmwalk record -o bad.json --count kw_no_such_function -- touch ran-bad >bad.out 2>bad.err
rc bad
notrace=none
for f in sched_clock native_sched_clock debug_smp_processor_id rcu_is_watching; do
	grep -q " [tT] $f$" /proc/kallsyms || continue
	grep -qE "^$f( |$)" $tr/available_filter_functions && continue
	notrace=$f
	break
done
echo $notrace >notrace.txt
if [ $notrace != none ]; then
	kvmwalk record -o notrace.json --time $notrace -- touch ran-notrace >notrace.out 2>notrace.err
	rc notrace
fi
kvmwalk record -o skip.json --count tdp_iter_skip_children -- touch ran-skip >skip.out 2>skip.err
rc skip
case "$KW_ARCH:$KW_RELEASE" in
x86:*-kvmwalk-base | x86:*-kvmwalk-patched)
	# the hint A/B (the bundled x86 series; the arm64 A/B kernels run the stock cases):
	# --refault=no, so zaps 2 and 3 find the table zap 1 emptied. A zap that yields mmu_lock
	# inside the table does not set the hint (the check says why that is then a bound): up to
	# 3 attempts for a run without a yield, the last one is kept.
	for attempt in 1 2 3; do
		kvmwalk record -o hint.json --count tdp_iter_next,tdp_mmu_zap_leafs \
			--count-optional tdp_iter_skip_children -- $load --refault=no \
			--json=hint-load.json >hint-table.txt 2>hint.err
		rc hint
		echo $attempt >hint-attempts.txt
		grep -q '"zap_yields": 0,' hint.json && break
	done
	kvmwalk report hint.json >hint-report.txt 2>&1
	rc hint-report
	kvmwalk report --json hint.json >hint-report.json 2>hint-report-json.err
	rc hint-report-json
	exit 0
	;;
esac
if [ "$KW_ARCH" = arm64 ]; then
	# arm64: the stage-2 unmap of each madvise, timed, and the guest aborts, counted
	kvmwalk record -o arm.json --time kvm_pgtable_stage2_unmap --count kvm_handle_guest_abort \
		-- $load --json=arm-load.json >arm-table.txt 2>arm.err
	rc arm
	kvmwalk report arm.json >arm-report.txt 2>&1
	rc arm-report
	exit 0
fi
kvmwalk record -o count.json --count tdp_mmu_zap_leafs,fast_page_fault,kvm_arch_vcpu_ioctl_run \
	--count-optional kw_no_such_function -- $load --json=count-load.json \
	>count-table.txt 2>count.err
rc count
kvmwalk record -o time.json --time tdp_mmu_zap_leafs --count tdp_iter_next -- $load \
	--refault=no --json=time-load.json >time-table.txt 2>time.err
rc time
# the same with kprobes (--attach kprobe: the fallback mechanism)
kvmwalk record --attach kprobe -o kp.json --time tdp_mmu_zap_leafs -- $load --refault=no \
	--json=kp-load.json >kp-table.txt 2>kp.err
rc kp
for f in count time kp; do
	kvmwalk report $f.json >$f-report.txt 2>&1
	echo $? >$f-report.rc
	kvmwalk report --json $f.json >$f-report.json 2>$f-report-json.err
	echo $? >$f-report-json.rc
done
kvmwalk compare time.json -- kp.json >compare.txt 2>compare.err
rc compare
exit 0
