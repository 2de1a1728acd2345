# SPDX-License-Identifier: GPL-2.0
# KVM's own statistics beside kvmwalk's counts. kvmwalk records (until SIGTERM, with --count
# kvm_flush_remote_tlbs) while kvmwalk-load runs one scenario and then holds its VM open
# (--hold): the recording's end read sees the live VM, idle, with its final values. x86:
# wrprotect-fault (fast page faults, dirty-log flushes, 4 KiB leaves); arm64: empty-unmap (range
# TLB flushes that no statistic counts). While the VM is still held, a second short recording
# reads the same VM through its binary stats fds (--kvm-stats binary): the same values.
case $KW_ARCH in
x86) load="--scenario=wrprotect-fault --vcpus=2 --mem=8M --iterations=3" ;;
*) load="--scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M --sparse=256G" ;;
esac
# wait_for FILE PATTERN PID: until FILE holds PATTERN (or exists, PATTERN ""), PID alive, 120 s
wait_for() {
	i=0
	while [ $i -lt 1200 ]; do
		if [ -z "$2" ]; then [ -e "$1" ] && return 0; else grep -q "$2" "$1" 2>/dev/null && return 0; fi
		kill -0 "$3" 2>/dev/null || return 1
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
kvmwalk record -o rec.json --count kvm_flush_remote_tlbs >record.out 2>record.err &
rec=$!
wait_for record.err "recording; Ctrl-C" $rec || echo "record did not start" >&2
# shellcheck disable=SC2086
kvmwalk-load $load --json=load.json --hold=held >load.txt 2>load.err &
load_pid=$!
wait_for held "" $load_pid || echo "kvmwalk-load did not reach --hold" >&2
echo $load_pid >load.pid
kill -TERM $rec
wait $rec
echo $? >record.rc
# the same VM, still held: its binary stats fds (one probe only: a short attach)
kvmwalk record -o bin.json --kvm-stats=binary --probe kvm_vm_ioctl -d 0.2 >bin.out 2>bin.err
echo $? >bin.rc
rm -f held
wait $load_pid
echo $? >load.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
grep -E "^SecPageTables" /proc/meminfo >meminfo-after.txt
