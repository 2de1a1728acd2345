# SPDX-License-Identifier: GPL-2.0
# kvmwalk records kvmwalk-load --scenario empty-unmap: unmaps of memory that was never mapped at
# stage 2 (madvise, slot deletion, a 256 GiB sparse slot): each one flushes, none clears a leaf.
kvmwalk record -o rec.json -- kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M \
	--iterations=2 --range=2M --sparse=256G --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
