# SPDX-License-Identifier: GPL-2.0
# The sampled mode (record --sample, --probe sampled) on a VM teardown: kvmwalk-load --scenario
# teardown at the host's IPA limit (52 bits with QEMU's -cpu max: 2^22 empty 1 GiB walks, most
# of a second of one CPU under emulation), 1 vCPU and 2 MiB. Each round, interleaved:
#   both:    record --probe timing --sample=HZ: the teardown timed by kvm_mmu_notifier_release
#            and sampled, the same operation in one recording
#   sampled: record --probe sampled --sample=HZ (the sampled mode alone)
#   timing:  record --probe timing (the teardown timed, nothing sampled)
#   bare:    kvmwalk-load alone (the teardown phase's wall time, no kvmwalk)
# --env SAMPLED_ROUNDS=N (default 3), SAMPLED_HZ=HZ (default 49).
ROUNDS=${SAMPLED_ROUNDS:-3}
HZ=${SAMPLED_HZ:-49}
load="kvmwalk-load --scenario=teardown --ipa-bits=max --vcpus=1 --mem=2M --quiet"
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
