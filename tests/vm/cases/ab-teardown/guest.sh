# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "teardown" (patches/arm64-teardown-skip-empty). 7.3 frees a VM's stage-2
# tables by walking its whole IPA space 1 GiB at a time (2^(ipa_bits - 30) walks), the patched
# kernel steps over the empty top-level entries (tests/vm/cases/teardown-walks has the
# arithmetic). kvmwalk records RUNS rounds of four workloads, the patterns of the report (each
# file name starts with one, then the run's number):
#   small48-  kvmwalk-load --scenario teardown --ipa-bits=48: a VM of 1 vCPU touching 2 MiB (a
#             nearly empty VM, as QEMU's probing VMs are), closed (the phase "teardown");
#   small52-  the same at the host's limit (--ipa-bits=max: 52 bits with QEMU's -cpu max, which
#             has LPA2; the evidence checks 52);
#   big52-    a populated VM at the host's limit: 2 vCPUs touching 256 MiB each (512 MiB, 131,072
#             4 KiB pages: half the emulated host's memory), so that the patched kernel's walks
#             over the populated range, and the reschedule points between them, are seen;
#   qemu-     a real QEMU (Debian's, from the initramfs: case.conf needs="qemu") started and
#             quit: its scratch VMs of the host's largest IPA size (QEMU probes the host's
#             limits with them: one with -cpu host, two with -cpu max) and its real VM (40 bits for a 128 MiB virt machine) are torn
#             down. -S: the vCPU never runs, so no VM maps anything; stdin holds "quit" for the
#             monitor, which QEMU reads once it is up: the command's wall time is start to quit.
# A round is three runs of each: with every probe (--count kvm_s2_put_page, the entries and
# tables the teardown frees, --count-optional kvm_pgtable_stage2_skip_empty, the patch's own
# function), bare (--probe none) and with the timing set (kvm_mmu_notifier_release times each
# teardown), the order of the kinds alternating between rounds; the bare and timing runs' files
# have bare- or timing- in front: PAT-N.json (the recording), PAT-loadN.json (kvmwalk-load's
# --json and --workload-times), PAT-N.rc, PAT-N.secpt. SecPageTables (/proc/meminfo: the stage-2
# tables KVM accounts) is read before the first run (secpt-start.txt) and after each.
RUNS=${AB_RUNS:-5}
fail=0
# stat_refresh folds the per-CPU vmstat differences first (as in teardown-walks)
secpt() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk '$1 == "SecPageTables:" { print $2 }' /proc/meminfo
}
echo quit >quit.txt
cat /qemu-package >qemu-package.txt 2>/dev/null
# the host's IPA limit, the size of QEMU's scratch VMs
dmesg | sed -n 's/.*IPA Size Limit: \([0-9]*\) bits.*/\1/p' | head -n 1 >ipa-limit.txt
run() { # KIND PAT N
	case $1 in
	bare) opts="--probe none" r=bare-$2$3 l=bare-$2load$3 ;;
	timing) opts="--probe timing" r=timing-$2$3 l=timing-$2load$3 ;;
	*) opts="--count kvm_s2_put_page --count-optional kvm_pgtable_stage2_skip_empty"
		r=$2$3 l=$2load$3 ;;
	esac
	case $2 in
	small48-) load="--ipa-bits=48 --vcpus=1 --mem=2M" ;;
	small52-) load="--ipa-bits=max --vcpus=1 --mem=2M" ;;
	big52-) load="--ipa-bits=max --vcpus=2 --mem=256M --timeout=600" ;;
	esac
	if [ "$2" = qemu- ]; then
		# shellcheck disable=SC2086 # $opts is a list of options
		kvmwalk record $opts -o "$r.json" -- /usr/bin/qemu-system-aarch64 \
			-M virt,gic-version=3 -accel kvm -cpu host -smp 1 -m 128M -nodefaults \
			-display none -S -kernel /kvmwalk/guests/dirty.elf -monitor stdio \
			<quit.txt >"$l.txt" 2>"$r.err"
	else
		# shellcheck disable=SC2086 # $opts and $load are lists of options
		kvmwalk record $opts -o "$r.json" --workload-times "$l.json" -- \
			kvmwalk-load --scenario=teardown $load --json="$l.json" >"$l.txt" 2>"$r.err"
	fi
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
	secpt >"$r.secpt"
}
secpt >secpt-start.txt
i=1
while [ $i -le "$RUNS" ]; do
	if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
	for p in small48- small52- big52- qemu-; do
		for k in $kinds; do run $k $p $i; done
	done
	i=$((i + 1))
done
exit $fail
