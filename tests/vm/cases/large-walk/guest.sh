# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario teardown --ipa-bits 48: one vCPU touches 2 MiB, then the VM is closed
# (phase "teardown"): KVM frees its stage-2 tables with 2^18 kvm_pgtable_walk calls of 1 GiB
# each (stage2_free_walker), nearly all of them over nothing. RUNS rounds of three: bare, under
# kvmwalk record, and under empty programs on kvm_pgtable_walk, the order rotating each round
# (drift cancels); check takes the medians.
RUNS=${KW_LARGE_WALK_RUNS:-5}
load="kvmwalk-load --scenario=teardown --ipa-bits=48 --vcpus=1 --mem=2M --quiet"
bare() { $load --json=bare$1.json >/dev/null 2>>bare.err || echo "bare $1" >>failed; }
with() {
	kvmwalk record -o rec$1.json -- $load --json=load$1.json >/dev/null 2>>record.err ||
		echo "recorded $1" >>failed
}
# the floor: empty fentry/fexit programs on kvm_pgtable_walk (kvmwalk-bench empty), the
# trampoline and two program runs per walk with nothing in them
empty() {
	kvmwalk-bench empty --func kvm_pgtable_walk -- $load --json=empty$1.json >empty$1.txt \
		2>>empty.err || echo "empty $1" >>failed
}
i=1
while [ $i -le $RUNS ]; do
	case $((i % 3)) in
	1) bare $i; with $i; empty $i ;;
	2) with $i; empty $i; bare $i ;;
	*) empty $i; bare $i; with $i ;;
	esac
	i=$((i + 1))
done
echo $RUNS >runs
[ ! -e failed ]
