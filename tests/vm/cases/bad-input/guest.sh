# SPDX-License-Identifier: GPL-2.0
# Bad input (issue 7): each gives one clear line and a distinct exit code, never a crash.
#   - unknown options and out-of-range option values, for every subcommand (2);
#   - running without privileges: uid 65534 with no capability (3);
#   - recordings of another schema version (report 9, compare 9) or arch (compare 10), corrupt (8);
#   - a kernel without BTF (its /sys/kernel/btf hidden) (4);
#   - x86: a kernel where none of the functions exist, the kvm modules unloaded (5), then loaded
#     again for the cases that follow.
# Each attempt leaves NAME.rc and NAME.err; `check` holds the expected codes.
try() { # NAME CMD...: run, keep exit status and stderr
	n=$1
	shift
	"$@" >"$n.out" 2>"$n.err" </dev/null
	echo $? >"$n.rc"
}
# usage errors, every subcommand
try probes-bogus kvmwalk probes --bogus
try record-bogus kvmwalk record --bogus
try report-bogus kvmwalk report --bogus x.json
try top-bogus kvmwalk top --bogus
try compare-bogus kvmwalk compare --bogus a -- b
try serve-bogus kvmwalk serve --bogus
try nocmd kvmwalk frobnicate
try record-d0 kvmwalk record -d 0 -o x.json
try record-dneg kvmwalk record -d -5 -o x.json
try record-dtext kvmwalk record -d soon -o x.json
try record-inf kvmwalk record -d 1e999 -o x.json
try record-nan kvmwalk record -d nan -o x.json
try record-i0 kvmwalk record --interval 0 -o x.json
try record-pid0 kvmwalk record --pid 0 -o x.json
try record-pidbig kvmwalk record --pid 99999999999999999999 -o x.json
try record-pidmax kvmwalk record --pid 99999999 -o x.json
try record-pidlist kvmwalk record --pid 1,notapid -o x.json
try record-pidempty kvmwalk record --pid 1, -o x.json
# a process that has exited (4194303 if its pid was given out again meanwhile)
true &
gone=$!
wait $gone
[ ! -e /proc/$gone ] || gone=4194303
echo $gone >gone.pid
try record-pidgone kvmwalk record --pid 1,$gone -o x.json
try top-pidgone kvmwalk top --pid $gone --once
try serve-pidgone kvmwalk serve --pid $gone
try record-outdir kvmwalk record -d 1 -o /nonexistent/dir/x.json
try record-attach kvmwalk record --attach sideways -o x.json
try record-probe kvmwalk record --probe no_such_function -o x.json
try top-i0 kvmwalk top --interval 0 --once
try top-ineg kvmwalk top --interval -1 --once
try serve-i0 kvmwalk serve --interval 0
try serve-port kvmwalk serve --listen 127.0.0.1:99999
try serve-addr kvmwalk serve --listen localhost:19464
try serve-buckets kvmwalk serve --buckets decimal
try compare-level kvmwalk compare --level 1.5 a -- b
try compare-method kvmwalk compare --method guess a -- b
try compare-format kvmwalk compare --format pdf a -- b
try compare-metric kvmwalk compare --metric nonsense a -- b
try compare-function kvmwalk compare --function nope a -- b
try compare-oneside kvmwalk compare a.json
try report-two kvmwalk report --timeline a.json b.json
try report-none kvmwalk report

# without privileges: nobody (uid 65534) through su, which leaves no capability (busybox's
# setpriv cannot change uids)
grep -q '^nobody:' /etc/passwd 2>/dev/null ||
	echo 'nobody:x:65534:65534:nobody:/:/bin/sh' >>/etc/passwd
grep -q '^nogroup:' /etc/group 2>/dev/null || echo 'nogroup:x:65534:' >>/etc/group
as_nobody() { su -s /bin/sh nobody -c "$*"; }
try noperm-id as_nobody 'id -u; grep CapEff /proc/self/status'
try noperm-record as_nobody kvmwalk record -d 1 -o /tmp/np.json
try noperm-probes as_nobody kvmwalk probes
try noperm-serve as_nobody kvmwalk serve --listen 127.0.0.1:9465

# recordings: a real one, then the same with another schema version, another arch, cut short
kvmwalk record -d 1 -o good.json >/dev/null 2>good.err
echo $? >good.rc
sed 's#"kvmwalk-recording/1"#"kvmwalk-recording/2"#' good.json >schema2.json
if [ "$KW_ARCH" = arm64 ]; then other=x86; else other=arm64; fi
sed "s#\"arch\": *\"$KW_ARCH\"#\"arch\": \"$other\"#" good.json >otherarch.json
head -c 300 good.json >truncated.json
printf '\0\1\2\3garbage' >binary.json
try report-good kvmwalk report good.json
try report-schema kvmwalk report schema2.json
try report-truncated kvmwalk report truncated.json
try report-binary kvmwalk report binary.json
try report-missing kvmwalk report /nonexistent.json
try compare-schema kvmwalk compare good.json -- schema2.json
try compare-arch kvmwalk compare good.json -- otherarch.json
try compare-truncated kvmwalk compare good.json -- truncated.json
try compare-missing kvmwalk compare good.json -- /nonexistent.json

# A kernel without BTF: every Debian kernel has it, so hide /sys/kernel/btf under an empty folder.
mkdir -p /tmp/nobtf
if mount -o bind /tmp/nobtf /sys/kernel/btf; then
	try nobtf-record kvmwalk record -d 1 -o /tmp/nb.json
	try nobtf-probes kvmwalk probes
	umount /sys/kernel/btf
	echo $? >nobtf-umount.rc
fi

# x86: no kvm module loaded, so none of the functions exist (arm64's KVM is built in)
if [ "$KW_ARCH" = x86 ]; then
	rmmod kvm_amd && rmmod kvm
	echo $? >rmmod.rc
	try nokvm-record kvmwalk record -d 1 -o /tmp/nk.json
	try nokvm-probes kvmwalk probes
	try nokvm-serve kvmwalk serve --listen 127.0.0.1:9466
	insmod /modules/kvm.ko && insmod /modules/kvm-amd.ko
	echo $? >insmod.rc
	[ -e /dev/kvm ] && echo yes >kvm-back.txt
fi
