# SPDX-License-Identifier: GPL-2.0
# What `make demo` shows: kvmwalk recording every scenario of kvmwalk-load, with per-second
# snapshots, then its report. Nothing may be lost, and the report must fit 80 columns.
split=""
[ "$KW_ARCH" = arm64 ] && [ "$KW_KERNEL" != 6.1 ] && split="--eager-split=2M"
kvmwalk record --interval 1 -o rec.json -- kvmwalk-load --scenario=all --vcpus=2 --mem=16M \
	--backing=thp $split --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
