# SPDX-License-Identifier: GPL-2.0
# `make demo`: every scenario of kvmwalk-load in turn, its phase table kept as report.txt.
# THP backing and (arm64) a 2 MiB eager-split chunk, so that enabling dirty logging splits blocks.
split=""
# Eager splitting (KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE) exists from 6.4 on.
[ "$KW_ARCH" = arm64 ] && [ "$KW_KERNEL" != 6.1 ] && split="--eager-split=2M"
kvmwalk-load --scenario=all --vcpus=2 --mem=16M --backing=thp $split --json=load.json >report.txt 2>progress.txt
