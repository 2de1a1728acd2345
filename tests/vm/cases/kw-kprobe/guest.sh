# SPDX-License-Identifier: GPL-2.0
# The same workload recorded with --attach fentry and with --attach kprobe: the walker counts
# must be identical (the two mechanisms run the same BPF bodies).
eager="--eager-split=2M"
[ "$KW_KERNEL" = 6.1 ] && eager=""
if [ "$KW_ARCH" = arm64 ]; then
	load="kvmwalk-load --scenario=split --vcpus=2 --mem=8M --backing=thp --iterations=2 $eager"
else
	load="kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M"
fi
for m in fentry kprobe; do
	kvmwalk record --attach $m -o $m.json -- $load --json=load-$m.json >table-$m.txt \
		2>record-$m.err
	echo $? >record-$m.rc
done
