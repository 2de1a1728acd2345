# SPDX-License-Identifier: GPL-2.0
# Three recordings of the empty-unmap scenario (unmaps of memory never mapped at stage 2, a
# 256 GiB sparse slot), the runs of one side of `kvmwalk compare`; post compares VHE with nVHE.
for i in 1 2 3; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M \
		--iterations=1 --range=2M --sparse=256G --json=load$i.json >table$i.txt 2>record$i.err
	echo $? >record$i.rc
done
