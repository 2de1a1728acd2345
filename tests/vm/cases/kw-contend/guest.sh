# SPDX-License-Identifier: GPL-2.0
# kvmwalk records kvmwalk-load --scenario invalidate --concurrent twice: 2 vCPUs keep writing
# their 16 MiB each while the host madvises 4 MiB of it, the same range 100 times (same.json), or
# rolling 2 MiB chunks 100 times (sweep.json), 50 a second. The vCPUs' refaults take mmu_lock for
# read while the notifiers' zaps hold it for write: their waits are kvmwalk's mmu_lock_wait.
kvmwalk record -o same.json -- kvmwalk-load --scenario=invalidate --concurrent --vcpus=2 \
	--mem=16M --range=4M --pattern=same --iterations=100 --rate=50 --name=contend \
	--json=same-load.json >same-table.txt 2>same.err
echo $? >same.rc
kvmwalk report same.json >same-report.txt 2>&1
echo $? >same-report.rc
kvmwalk record -o sweep.json -- kvmwalk-load --scenario=invalidate --concurrent --vcpus=2 \
	--mem=16M --range=2M --pattern=sweep --iterations=100 --rate=50 --name=contend \
	--json=sweep-load.json >sweep-table.txt 2>sweep.err
echo $? >sweep.rc
kvmwalk report sweep.json >sweep-report.txt 2>&1
echo $? >sweep-report.rc
