# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario clear (first touches: a vCPU fault per page; dirty logging and its
# clears: KVM ioctls) recorded twice: as it is, and with every 7th exit of the guest_fault probe
# lost on purpose (KVMWALK_TEST_LOSE_EXIT, a test knob: the exit program acts as a run the
# kernel skipped). check: a lost fault exit leaves no later ioctl, KVM_RUN included, filed under
# the fault, and each lost exit ended its context exactly once (stale_contexts).
load="kvmwalk-load --scenario=clear --vcpus=2 --mem=8M --iterations=3"
kvmwalk record -o base.json -- $load --json=base-load.json >base.txt 2>base.err
echo $? >base.rc
KVMWALK_TEST_LOSE_EXIT=guest_fault:7 kvmwalk record -o lose.json -- $load \
	--json=lose-load.json >lose.txt 2>lose.err
echo $? >lose.rc
kvmwalk report lose.json >lose-report.txt 2>&1
echo $? >lose-report.rc
