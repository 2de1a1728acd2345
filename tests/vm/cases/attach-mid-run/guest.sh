# SPDX-License-Identifier: GPL-2.0
# `record --pid` of a VM that is already running (issue 15): kvmwalk-load's vCPUs fault without
# pause (invalidate, refault, over and over) while kvmwalk attaches, which takes seconds under
# emulation. A fault that entered after the entry program was attached and returned before the
# exit program was left its thread's fault depth at 1 for good: every later KVM_RUN was
# attributed to vcpu_fault. The loader attaches exits first; check asserts that no ioctl is
# attributed to a fault.
kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=1000000 --range=2M \
	--pattern=same >load.txt 2>load.err &
lp=$!
# its stdout is a file, so fully buffered: no line to wait for; 2 s start the VM
sleep 2
kill -0 $lp 2>/dev/null; echo $? >load-running.rc
kvmwalk record --pid $lp -d 3 -o rec.json 2>record.err
echo $? >record.rc
kill -0 $lp 2>/dev/null; echo $? >load-still.rc
kill $lp
wait $lp
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
