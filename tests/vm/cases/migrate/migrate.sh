# SPDX-License-Identifier: GPL-2.0
# Run by guest.sh under `kvmwalk record -- sh migrate.sh`: a live migration of a real QEMU (Debian's,
# from the initramfs) over a unix socket, between two QEMUs named src and dst, with the kernel's
# own count of every ioctl (a hist trigger on syscalls:sys_enter_ioctl, keys pid and cmd) over the
# same window. Both kvmwalk's probes and the trigger are active before the first QEMU starts and
# after the last one ended, so both see every ioctl of both QEMUs. Files: src.serial, dst.serial
# (the guest's pass counter), src.mon.log, dst.mon.log (the monitors), migrate.txt (the last
# `info migrate`), hist.txt, pids.txt (name pid), steps.txt (what happened when); on x86
# clrdirty.txt, every kvm_tdp_mmu_clear_dirty_pt_masked call as an ftrace kprobe event with its
# mask, and clrdirty-stats.txt (the ring buffer's per-CPU stats: nothing may be overrun).
set -u
trig=/sys/kernel/tracing/events/syscalls/sys_enter_ioctl/trigger
hist='hist:keys=common_pid,cmd.hex:vals=hitcount:sort=common_pid,cmd:size=4096'
step() { echo "$(cut -d' ' -f1 /proc/uptime) $*" >>steps.txt; }
lines() { [ -f "$1" ] && wc -l <"$1" || echo 0; }
# wait_for SECS CMD...: polls CMD every 0.5 s
wait_for() {
	local n=$(($1 * 2))
	shift
	while [ $n -gt 0 ]; do
		"$@" && return 0
		sleep 0.5
		n=$((n - 1))
	done
	return 1
}
mon() { echo "$2" >"$1.mon.in"; }
# the hist trigger counts by thread: which QEMU each thread belongs to (tasks.txt: name tgid tid),
# sampled while they run (the migration thread lives only while migrating)
tasks() {
	local n p t
	for n in src dst; do
		p=$(eval echo "\${$n:-}")
		[ -n "$p" ] && [ -d "/proc/$p/task" ] || continue
		for t in /proc/$p/task/*; do echo "$n $p ${t##*/}"; done
	done >>tasks.txt
}

case $KW_ARCH in
arm64)
	qemu=/usr/bin/qemu-system-aarch64
	# eager split (QEMU >= 8.1): the 2 MiB blocks are split inside KVM_CLEAR_DIRTY_LOG
	machine="-M virt,gic-version=3 -accel kvm,eager-split-size=2M -cpu host"
	;;
x86)
	qemu=/usr/bin/qemu-system-x86_64
	machine="-M pc -accel kvm -cpu host"
	;;
esac
common="$machine -smp 1 -m 128M -nodefaults -display none -kernel /kvmwalk/guests/dirty.elf"

# arm64: the host's IPA limit, the size of QEMU's scratch VMs (their teardown walks it all)
dmesg | sed -n 's/.*IPA Size Limit: \([0-9]*\) bits.*/\1/p' | head -n 1 >ipa-limit.txt
echo "$hist" >"$trig" || { echo "migrate: cannot set the hist trigger"; exit 10; }
# x86: the kernel's own record of every 64-page word KVM_CLEAR_DIRTY_LOG write-protects (an
# ftrace kprobe event next to kvmwalk's BPF program on the same function, mask = $arg4)
tr=/sys/kernel/tracing
if [ "$KW_ARCH" = x86 ]; then
	echo 8192 >$tr/buffer_size_kb
	echo 'p:kwmig/clrdirty kvm_tdp_mmu_clear_dirty_pt_masked gfn=$arg3:u64 mask=$arg4:x64' \
		>>$tr/kprobe_events || { echo "migrate: cannot add the kprobe event"; exit 10; }
	echo 1 >$tr/events/kwmig/clrdirty/enable
	: >$tr/trace
fi
step "hist trigger on"
cats=
for n in src dst; do
	mkfifo "$n.mon.in" "$n.mon.out"
	cat "$n.mon.out" >"$n.mon.log" &
	cats="$cats $!"
done
# shellcheck disable=SC2086
$qemu $common -name guest=src -serial file:src.serial -chardev pipe,id=m,path=src.mon \
	-mon chardev=m,mode=readline >src.err 2>&1 &
src=$!
echo "src $src" >pids.txt
step "src started (pid $src)"
# two passes: every page of the guest is written, then written again
wait_for 600 sh -c '[ "$(wc -l <src.serial 2>/dev/null || echo 0)" -ge 2 ]' ||
	{ echo "migrate: the source guest did not count to 2: $(head -c 300 src.err)"; }
tasks
step "src counted to $(lines src.serial)"
# shellcheck disable=SC2086
$qemu $common -name guest=dst -serial file:dst.serial -chardev pipe,id=m,path=dst.mon \
	-mon chardev=m,mode=readline -incoming unix:/tmp/mig.sock >dst.err 2>&1 &
dst=$!
echo "dst $dst" >>pids.txt
# a QEMU start with kvmwalk attached walks its two scratch VMs' 52-bit IPA spaces (8 million 1 GiB
# walks on 7.3 arm64): 60-75 s on a quiet machine, over 120 s on a loaded one
wait_for 600 test -S /tmp/mig.sock || echo "migrate: no incoming socket: $(head -c 300 dst.err)"
step "dst listening (pid $dst)"
# a downtime limit that the dirtying guest cannot miss: the migration converges in few rounds
mon src "migrate_set_parameter max-bandwidth 1073741824"
mon src "migrate_set_parameter downtime-limit 20000"
mon src "migrate -d unix:/tmp/mig.sock"
step "migrate issued"
done_=0
for i in $(seq 600); do
	mon src "info migrate"
	sleep 1
	tasks
	if grep -q 'Migration status: *completed\|Status: *completed' src.mon.log; then done_=1; break; fi
	grep -q 'Migration status: *failed\|Status: *failed' src.mon.log && break
done
step "migration ended (completed=$done_) after $i polls"
mon src "info migrate"
sleep 1
tac src.mon.log | awk '/info migrate/ { exit } { print }' | tac >migrate.txt
at=$(lines dst.serial)
# the guest runs on at the destination: two more passes
wait_for 300 sh -c "[ \"\$(wc -l <dst.serial 2>/dev/null || echo 0)\" -ge $((at + 2)) ]"
tasks
step "dst counted from $at to $(lines dst.serial)"
mon src quit
mon dst quit
wait $src
echo "src exit $?" >>pids.txt
wait $dst
echo "dst exit $?" >>pids.txt
step "both quit"
sort -u tasks.txt -o tasks.txt
cat "${trig%trigger}hist" >hist.txt
echo "!$hist" >"$trig"
if [ "$KW_ARCH" = x86 ]; then
	echo 0 >$tr/events/kwmig/clrdirty/enable
	grep -v '^#' $tr/trace >clrdirty.txt
	cat $tr/per_cpu/cpu*/stats >clrdirty-stats.txt
	echo '-:kwmig/clrdirty' >>$tr/kprobe_events
fi
step "hist trigger off"
kill $cats 2>/dev/null
[ $done_ = 1 ]
