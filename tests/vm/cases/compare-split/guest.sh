# SPDX-License-Identifier: GPL-2.0
# Three recordings of the same split scenario (one 2 MiB eager-split chunk per THP block), the
# runs of one side of `kvmwalk compare`; post compares the 6.12 runs against the 7.3 runs.
for i in 1 2 3; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=split --backing=thp \
		--eager-split=2M --vcpus=2 --mem=8M --iterations=1 --json=load$i.json \
		>table$i.txt 2>record$i.err
	echo $? >record$i.rc
done
