# SPDX-License-Identifier: GPL-2.0
# kvmwalk's command line on a real KVM host: exit codes, Ctrl-C, nothing left attached, the
# BPF statistics sysctl restored, --pid, --no-visits, --interval, top --once, the command's exit
# status passed through, the test conditions a recording has.
rc() { echo $? >"$1.rc"; }
cat /proc/sys/kernel/bpf_stats_enabled >stats-before.txt
kvmwalk --help >help.txt; rc help
for c in probes record report top; do kvmwalk $c --help >help-$c.txt; echo $? >>help.rcs; done
kvmwalk record --attach bogus -o x.json 2>attach.err; rc attach
kvmwalk report /nonexistent.json 2>report-missing.err; rc report-missing
if [ "$KW_ARCH" = arm64 ]; then other=fast_page_fault; missing=stage2_split_walker
else other=kvm_pgtable_walk; missing=none; fi
kvmwalk record --probe $other -d 1 -o other.json 2>other-arch.err; rc other-arch
if [ "$missing" != none ]; then
	kvmwalk record --probe $missing -d 1 -o m.json 2>missing.err; rc missing
fi
# a set names probes of both arches and kernels: those this one lacks are not an error
kvmwalk record --probe cheap -d 1 -o cheap.json 2>cheap.err; rc cheap
kvmwalk record -o exit.json -- sh -c 'exit 7' 2>exit.err; rc exit
# Ctrl-C during a timed recording: the file is written and everything detached
kvmwalk record -d 60 -o sigint.json 2>sigint.err &
pid=$!
# attach first (seconds under emulation): a Ctrl-C while loading aborts the start, by design
i=0
while ! grep -q "Ctrl-C" sigint.err 2>/dev/null && [ $i -lt 60 ]; do sleep 0.5; i=$((i + 1)); done
sleep 3
kill -INT $pid
wait $pid; rc sigint
# Programs are freed after an RCU grace period, not at close(): give them up to 5 s to go.
i=0
while bpftool prog show >progs-after.txt 2>&1 &&
	grep -Eq 'name (fe|fx|kp|kr|tp|rt)_' progs-after.txt && [ $i -lt 10 ]; do
	sleep 0.5
	i=$((i + 1))
done
echo $i >progs-wait.txt
bpftool link show >links-after.txt 2>&1
cat /proc/sys/kernel/bpf_stats_enabled >stats-after.txt
load="kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=1 --range=2M --sparse=16G"
kvmwalk record --no-visits --interval 0.05 -o nv.json -- $load --json=nv-load.json >nv.txt 2>nv.err
rc nv
kvmwalk record --pid 1 -o pid1.json -- $load --json=pid1-load.json >pid1.txt 2>pid1.err
rc pid1
kvmwalk top --once --interval 1 >top.txt 2>top.err; rc top
kvmwalk report nv.json >nv-report.txt; rc nv-report
kvmwalk report --json nv.json >nv-report.json; rc nv-report-json
# the test conditions as the host's files say them, for the check to hold the recording's to
mkdir -p cond
for f in /sys/devices/system/cpu/online /sys/devices/system/cpu/smt/control \
	/sys/devices/system/node/online /proc/sys/kernel/numa_balancing /proc/sys/vm/nr_hugepages \
	/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages \
	/sys/module/kvm/parameters/tdp_mmu /sys/module/kvm_amd/parameters/npt; do
	[ -r "$f" ] && cat "$f" >"cond/$(echo "$f" | tr / _)"
done
ls /sys/devices/system/cpu/vulnerabilities | wc -l >cond/vulnerabilities
dmesg | grep -o "IPA Size Limit: [0-9]*" >cond/ipa-limit
true
