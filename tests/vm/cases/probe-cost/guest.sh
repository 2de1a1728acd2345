# SPDX-License-Identifier: GPL-2.0
# The same workload (an eager split, then unmaps of a sparse 256 GiB slot) bare, under kvmwalk
# record with --attach fentry and with --attach kprobe (what --attach auto takes on a preemptible
# kernel), and under empty fentry/fexit programs on the functions kvmwalk times, in this one
# boot, the order rotating each round (drift cancels). check sets each probe's BPF ns per call
# against the empty programs' on the same function, and the workload's own time under each
# mechanism against the bare runs'. More runs:
# scripts/vmtest --case probe-cost --arch arm64 --kernel 7.3 --mode vhe --env PROBE_COST_RUNS=9
RUNS=${PROBE_COST_RUNS:-5}
FUNCS="kvm_pgtable_walk stage2_split_walker kvm_tlb_flush_vmid_range __kvm_tlb_flush_vmid_range"
cat >work.sh <<'EOT'
kvmwalk-load --scenario=split --vcpus=2 --mem=8M --iterations=2 --backing=thp \
	--eager-split=2M --json=$1-split.json >/dev/null || exit 1
kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M \
	--sparse=256G --json=$1-unmap.json >/dev/null
EOT
bare() { sh work.sh bare-$1 2>>bare.err || echo "bare $1" >>failed; }
# rec-N.json: fentry (the BPF run-time figures of check's first table); kp-N.json: kprobe
kw() {
	kvmwalk record --attach fentry -o rec-$1.json -- sh work.sh kw-$1 >/dev/null \
		2>>record.err || echo "kvmwalk fentry $1" >>failed
}
kp() {
	kvmwalk record --attach kprobe -o kp-$1.json -- sh work.sh kp-$1 >/dev/null \
		2>>record.err || echo "kvmwalk kprobe $1" >>failed
}
empty() {
	kvmwalk-bench empty $(for f in $FUNCS; do echo --func $f; done) -- sh work.sh empty-$1 \
		>empty-$1.txt 2>>empty.err || echo "empty $1" >>failed
}
i=1
while [ $i -le $RUNS ]; do
	case $((i % 4)) in
	1) bare $i; kw $i; kp $i; empty $i ;;
	2) kw $i; kp $i; empty $i; bare $i ;;
	3) kp $i; empty $i; bare $i; kw $i ;;
	*) empty $i; bare $i; kw $i; kp $i ;;
	esac
	i=$((i + 1))
done
echo $RUNS >runs
echo $FUNCS >funcs
[ ! -e failed ]
