# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario clear: manual dirty-log protect with the log initially set, cleared in
# 64-page chunks (4 KiB pages) and, with THP, in 192-page chunks (the last one 64 pages).
kvmwalk-load --scenario=clear --vcpus=2 --mem=8M --iterations=2 --json=load.json >table.txt &&
kvmwalk-load --scenario=clear --vcpus=2 --mem=8M --iterations=2 --backing=thp \
	--chunk-pages=192 --json=load-192.json >table-192.txt
