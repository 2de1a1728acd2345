# SPDX-License-Identifier: GPL-2.0
# `make demo`: every scenario of kvmwalk-load in turn, its phase table kept as report.txt.
# THP backing and (arm64) a 2 MiB eager-split chunk, so that enabling dirty logging splits blocks.
split=""
[ "$KW_ARCH" = arm64 ] && split="--eager-split=2M"
kvmwalk-load --scenario=all --vcpus=2 --mem=16M --backing=thp $split --json=load.json >report.txt 2>progress.txt
