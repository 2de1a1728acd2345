# SPDX-License-Identifier: GPL-2.0
# The same workload recorded with --attach fentry and with --attach kprobe: the walker counts
# must be identical (the two mechanisms run the same BPF bodies).
eager="--eager-split=2M"
[ "$KW_KERNEL" = 6.1 ] && eager=""
for m in fentry kprobe; do
	kvmwalk record --attach $m -o $m.json -- kvmwalk-load --scenario=split --vcpus=2 --mem=8M \
		--backing=thp --iterations=2 $eager --json=load-$m.json >table-$m.txt 2>record-$m.err
	echo $? >record-$m.rc
done
