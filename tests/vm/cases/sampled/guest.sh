# SPDX-License-Identifier: GPL-2.0
# The sampled mode (record --sample, --probe sampled) against record's measured time of the same
# operation, one operation per target, each long enough under emulation for dozens of samples:
#   arm64 VHE:    a VM teardown, kvmwalk-load --scenario teardown at the host's IPA limit (52
#                 bits with QEMU's -cpu max: 2^22 empty 1 GiB walks), 1 vCPU and 2 MiB; timed
#                 by kvm_mmu_notifier_release, sampled under the trigger vm_teardown.
#   arm64 nested: the nested unmap, --scenario nested-unmap (2 vCPUs, each a valid nested MMU,
#                 one madvise of a never-touched page: each nested MMU's whole IPA space
#                 unmapped); timed by kvm_nested_s2_unmap, sampled under nested_unmap.
#   x86:          TDP MMU zaps, --scenario invalidate --pattern sweep --refault=no (each madvise
#                 zaps a 2 MiB range of touched 4 KiB pages, a full leaf table); timed by
#                 kvm_mmu_notifier_invalidate_range_start, sampled under mmu_notifier.
# Each round, interleaved:
#   both:    record --probe timing --sample=HZ: the operation timed and sampled in one recording
#   sampled: record --probe sampled --sample=HZ (the sampled mode alone)
#   timing:  record --probe timing (timed, nothing sampled)
#   bare:    kvmwalk-load alone (the operation's phase wall time, no kvmwalk)
# --env SAMPLED_ROUNDS=N (default 3), SAMPLED_HZ=HZ (default 49; x86 999).
ROUNDS=${SAMPLED_ROUNDS:-3}
HZ=${SAMPLED_HZ:-49}
case $KW_ARCH:$KW_MODE in
arm64:nested)
	load="kvmwalk-load --scenario=nested-unmap --vcpus=2 --mem=2M --iterations=1 --timeout=300"
	echo "nested_unmap kvm_nested_s2_unmap nested-madvise" >operation ;;
x86:*)
	# A zap is quick here (a 2 MiB leaf table in about 0.13 ms under QEMU's x86 emulation):
	# 256 of them over 512 MiB take tens of ms, so this target samples at 999 Hz by default.
	HZ=${SAMPLED_HZ:-999}
	load="kvmwalk-load --scenario=invalidate --vcpus=1 --mem=512M --range=2M --pattern=sweep
		--refault=no --iterations=256"
	echo "mmu_notifier kvm_mmu_notifier_invalidate_range_start invalidate" >operation ;;
*)
	load="kvmwalk-load --scenario=teardown --ipa-bits=max --vcpus=1 --mem=2M"
	echo "vm_teardown kvm_mmu_notifier_release teardown" >operation ;;
esac
load="$load --quiet"
i=1
while [ $i -le $ROUNDS ]; do
	kvmwalk record --probe timing --sample=$HZ -o both-$i.json -- $load \
		--json=load-both-$i.json >/dev/null 2>>record.err || echo "both $i" >>failed
	kvmwalk record --probe sampled --sample=$HZ -o sampled-$i.json -- $load \
		--json=load-sampled-$i.json >/dev/null 2>>record.err || echo "sampled $i" >>failed
	kvmwalk record --probe timing -o timing-$i.json -- $load \
		--json=load-timing-$i.json >/dev/null 2>>record.err || echo "timing $i" >>failed
	$load --json=load-bare-$i.json >/dev/null 2>>bare.err || echo "bare $i" >>failed
	i=$((i + 1))
done
echo $ROUNDS >rounds
echo $HZ >hz
# the sampled mode on an idle host for 5 s: its samples and its own cost
kvmwalk record --probe sampled --sample=$HZ -d 5 -o idle.json >/dev/null 2>>record.err ||
	echo idle >>failed
nproc >cpus
[ ! -e failed ]
