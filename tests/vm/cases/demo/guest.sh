# SPDX-License-Identifier: GPL-2.0
# `make demo`: every scenario of kvmwalk-load in turn, its phase table kept as report.txt.
kvmwalk-load --scenario all --vcpus 2 --mem 32M --json load.json >report.txt 2>&1
