# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario invalidate: the same 2 MiB range three times (4 KiB pages), then a
# sweep of 1 MiB ranges over THP memory (each splits a huge page first) four times.
kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M \
	--pattern=same --json=same.json >same.txt &&
kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=4 --range=1M \
	--pattern=sweep --backing=thp --json=sweep.json >sweep.txt
