# SPDX-License-Identifier: GPL-2.0
# kvmwalk records kvmwalk-load --scenario invalidate (4 KiB pages, the same 2 MiB range three
# times): the TDP zaps must cover exactly the invalidated pages, and every first touch of a page
# must be one fast_page_fault. Then the same with --refault=no: the range is zapped three times,
# but only the first zap finds anything present (norefault.json, norefault-load.json).
kvmwalk probes >probes.txt 2>&1
echo $? >probes.rc
kvmwalk record -o rec.json -- kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M \
	--iterations=3 --range=2M --pattern=same --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk record -o norefault.json -- kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M \
	--iterations=3 --range=2M --pattern=same --refault=no --json=norefault-load.json \
	>norefault-table.txt 2>norefault.err
echo $? >norefault.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
kvmwalk report --json norefault.json >norefault-report.json 2>norefault-report.err
echo $? >norefault-report.rc
kvmwalk report norefault.json >norefault-report.txt 2>&1
