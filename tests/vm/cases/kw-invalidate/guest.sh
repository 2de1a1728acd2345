# SPDX-License-Identifier: GPL-2.0
# kvmwalk records kvmwalk-load --scenario invalidate (4 KiB pages, the same 2 MiB range three
# times): the TDP zaps must cover exactly the invalidated pages, and every first touch of a page
# must be one fast_page_fault.
kvmwalk probes >probes.txt 2>&1
echo $? >probes.rc
kvmwalk record -o rec.json -- kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M \
	--iterations=3 --range=2M --pattern=same --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
