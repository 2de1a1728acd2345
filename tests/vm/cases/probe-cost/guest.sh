# SPDX-License-Identifier: GPL-2.0
# Issue 6 part 2: the same workload (an eager split, then unmaps of a sparse 256 GiB slot)
# under kvmwalk record and under empty fentry/fexit programs on the functions kvmwalk times,
# alternating in this one boot (odd runs kvmwalk first, even runs empty first). check sets each
# probe's BPF ns per call against the empty programs' on the same function. More runs:
# scripts/vmtest --case probe-cost --arch arm64 --kernel 7.3 --mode vhe --env PROBE_COST_RUNS=9
RUNS=${PROBE_COST_RUNS:-5}
FUNCS="kvm_pgtable_walk stage2_split_walker kvm_tlb_flush_vmid_range __kvm_tlb_flush_vmid_range"
cat >work.sh <<'EOT'
kvmwalk-load --scenario=split --vcpus=2 --mem=8M --iterations=2 --backing=thp \
	--eager-split=2M --json=$1-split.json >/dev/null || exit 1
kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M \
	--sparse=256G --json=$1-unmap.json >/dev/null
EOT
kw() {
	kvmwalk record -o rec-$1.json -- sh work.sh kw-$1 >/dev/null 2>>record.err ||
		echo "kvmwalk $1" >>failed
}
empty() {
	kvmwalk-bench empty $(for f in $FUNCS; do echo --func $f; done) -- sh work.sh empty-$1 \
		>empty-$1.txt 2>>empty.err || echo "empty $1" >>failed
}
i=1
while [ $i -le $RUNS ]; do
	if [ $((i % 2)) = 1 ]; then
		kw $i
		empty $i
	else
		empty $i
		kw $i
	fi
	i=$((i + 1))
done
echo $RUNS >runs
echo $FUNCS >funcs
[ ! -e failed ]
