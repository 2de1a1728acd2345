# SPDX-License-Identifier: GPL-2.0
# One side of `kvmwalk compare` of the TDP MMU against the shadow MMU (the host's kvm.tdp_mmu
# says which): wrprotect-fault three times under kvmwalk record (run$i.json, load$i.json), and
# three times alone (bare$i.json), whose dirty-write times post compares: the recorder's probes
# cost each fault the same in both modes, but the bare runs are the workload's own time.
# 2 vCPUs x 16 MiB: 8192 pages, each write-protected and written 3 times. Not more vCPUs than
# the emulated host has CPUs: a vCPU thread preempted inside one of kvmwalk's fentry programs
# makes the next vCPU thread on that CPU skip the same program (the kernel's per-CPU recursion
# guard; recording-format.md, overhead.recursion_misses), and the counts lose exactness (4 vCPUs
# on 2 CPUs lost about 6 % of the RET_PF_FIXED).
for i in 1 2 3; do
	kvmwalk record -o run$i.json -- kvmwalk-load --scenario=wrprotect-fault --vcpus=2 \
		--mem=16M --iterations=3 --json=load$i.json >table$i.txt 2>record$i.err
	echo $? >record$i.rc
	kvmwalk-load --scenario=wrprotect-fault --vcpus=2 --mem=16M --iterations=3 \
		--json=bare$i.json >bare-table$i.txt 2>bare$i.err
	echo $? >bare$i.rc
done
cat /sys/module/kvm/parameters/tdp_mmu >tdp_mmu.txt
