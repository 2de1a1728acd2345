# SPDX-License-Identifier: GPL-2.0
# kvmwalk records kvmwalk-load --scenario split (THP, 2 MiB eager-split chunk): every probe of the
# arm64 family must count what the kernel source says the workload makes it do (see check).
kvmwalk probes >probes.txt 2>&1
echo $? >probes.rc
eager="--eager-split=2M"
[ "$KW_KERNEL" = 6.1 ] && eager=""
kvmwalk record -o rec.json -- kvmwalk-load --scenario=split --vcpus=2 --mem=8M --backing=thp \
	--iterations=2 $eager --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
