# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario wrprotect-fault: dirty logging on, three write passes, each one
# write-protection fault per page, each logged. On x86 the same again under kvmwalk record
# (rec.json, rec-load.json): fast_page_fault's outcomes (check says which counts are exact).
kvmwalk-load --scenario=wrprotect-fault --vcpus=2 --mem=8M --iterations=3 --json=load.json \
	>table.txt
[ "$KW_ARCH" = x86 ] || exit 0
kvmwalk record -o rec.json -- kvmwalk-load --scenario=wrprotect-fault --vcpus=2 --mem=8M \
	--iterations=3 --json=rec-load.json >rec-table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
cat /sys/module/kvm/parameters/tdp_mmu >tdp_mmu.txt
