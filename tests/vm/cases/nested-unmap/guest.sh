# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario nested-unmap: 2 vCPUs with EL2 each make a nested stage-2 MMU valid
# (one ERET to vEL1, VMIDs 1 and 2); each madvise of one page then unmaps both nested MMUs'
# whole IPA space. The control: the vCPUs stay at vEL2, no nested MMU becomes valid.
kvmwalk-load --scenario=nested-unmap --vcpus=2 --mem=2M --iterations=1 --json=load.json \
	>table.txt 2>load.err
echo $? >load.rc
kvmwalk-load --scenario=nested-unmap --vcpus=2 --mem=2M --iterations=1 --enter-el1=no \
	--json=control.json >control.txt 2>control.err
echo $? >control.rc
dmesg | grep -m1 -o 'IPA Size Limit: [0-9]* bits' >ipa.txt
# kvmwalk around one more run (1 madvise): every probe, visits included
kvmwalk record -o rec.json -- kvmwalk-load --scenario=nested-unmap --vcpus=2 --mem=2M \
	--iterations=1 --timeout=120 --json=rec-load.json >rec-table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
