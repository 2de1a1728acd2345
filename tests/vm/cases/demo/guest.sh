# SPDX-License-Identifier: GPL-2.0
# `make demo`: kvmwalk records kvmwalk-load driving a real KVM VM through every scenario; the
# phase table (what the workload did) goes to load.txt, kvmwalk's report to report.txt.
# THP backing and (arm64, from 6.4 on) a 2 MiB eager-split chunk, so that enabling dirty logging
# splits blocks.
split=""
[ "$KW_ARCH" = arm64 ] && [ "$KW_KERNEL" != 6.1 ] && split="--eager-split=2M"
kvmwalk record -o rec.json -- kvmwalk-load --scenario=all --vcpus=2 --mem=16M --backing=thp \
	$split --json=load.json >load.txt 2>progress.txt || exit
kvmwalk report rec.json >report.txt
