# SPDX-License-Identifier: GPL-2.0
# One side of `kvmwalk compare` of the TDP MMU against the shadow MMU (the host's kvm.tdp_mmu
# says which): wrprotect-fault three times under kvmwalk record (run$i.json, load$i.json), and
# three times alone (bare$i.json), whose dirty-write times post compares: the recorder's probes
# cost each fault the same in both modes, but the bare runs are the workload's own time.
# 4 vCPUs x 8 MiB: 8192 pages, each write-protected and written 3 times.
for i in 1 2 3; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=wrprotect-fault --vcpus=4 \
		--mem=8M --iterations=3 --json=load$i.json >table$i.txt 2>record$i.err
	echo $? >record$i.rc
	kvmwalk-load --scenario=wrprotect-fault --vcpus=4 --mem=8M --iterations=3 \
		--json=bare$i.json >bare-table$i.txt 2>bare$i.err
	echo $? >bare$i.rc
done
cat /sys/module/kvm/parameters/tdp_mmu >tdp_mmu.txt
