# SPDX-License-Identifier: GPL-2.0
# Guest-side helpers of the cases that run the kernel's KVM selftests (needs="selftests" in their
# case.conf): scripts/vmtest copies this file to /kvmwalk/selftests/lib.sh beside the static test
# binaries (/kvmwalk/selftests/NAME, started by that absolute path: a test loads its own ELF into
# its guest). A guest.sh sources it (busybox sh).
#
# The kernel's own count of a run, the second witness next to kvmwalk's recording: ftrace kprobe
# events in the group kwst, on the functions kvmwalk probes (or the callers that decide how often
# those run), with hist triggers where a count is wanted per key (ioctl command, return value).
# Ioctls are counted at the syscall (syscalls/sys_enter_ioctl keyed by cmd: KVM_GET_DIRTY_LOG and
# the memslot ioctls exist only on a VM fd, KVM_CREATE_VM only on /dev/kvm), not by a kprobe
# event on kvm_vm_ioctl: on Debian's x86 6.12 kvmwalk's fentry on kvm_vm_ioctl attaches but its
# trampoline is not installed, which kvmwalk detects (the function is missing from
# tracing/enabled_functions) and falls back to a kprobe; a kprobe event there puts the function
# into enabled_functions, kvmwalk keeps the fentry, and it counts nothing.
# ftrace and kvmwalk's BPF programs share the other functions: a kprobe event next to a BPF fentry
# trampoline (the ftrace ops of the two are separate) or next to BPF kprobes (one aggregated
# kprobe) counts every call whichever kvmwalk attaches. x86's KVM is a module: its functions take
# kprobe events once it is loaded (tests/vm/init loads it before any case).
#
#   witness_add NAME 'p|r FUNC [FETCHARGS]' [HIST-KEYS [FILTER]]
#                      adds the event kwst/NAME and enables it; with HIST-KEYS also a hist
#                      trigger keyed so (e.g. "cmd", "ret"), which with FILTER counts only the
#                      hits that match it (the hits of witness.txt are all of them); fails the
#                      case (exit 10) when the kernel refuses, with the reason from
#                      tracing/error_log
#   witness_hist NAME EVENT KEYS [FILTER]
#                      a hist trigger keyed by KEYS on an existing event (e.g.
#                      syscalls/sys_enter_ioctl), saved as witness-NAME.txt like the others;
#                      with FILTER it counts only the events that match it (ftrace's filter
#                      syntax, "if FILTER" of the trigger)
#   witness_save       disables the events and writes what they counted into the working folder:
#                        witness.txt       NAME HITS MISSED, one event a line (kprobe_profile:
#                                          a kretprobe's hits are its returns; MISSED must be 0)
#                        witness-NAME.txt  the hist of events that have one, as "KEY COUNT" lines
#                                          (KEY as the kernel prints it: hex without 0x for
#                                          a .hex key, e.g. "4010ae42 3")
#                      then removes the events
WITNESS_TR=/sys/kernel/tracing
witness_names=""
witness_hists=""
witness_events=""

witness_add() {
	name=$1
	if ! echo "${2%% *}:kwst/$name ${2#* }" >>$WITNESS_TR/kprobe_events; then
		echo "witness: the kernel refused kprobe event $name ($2): $(tail -n 2 $WITNESS_TR/error_log)"
		exit 10
	fi
	witness_names="$witness_names $name"
	if [ -n "${3:-}" ]; then
		eval "witness_filter_$name=\${4:-}"
		if ! echo "hist:keys=$3:vals=hitcount:sort=${3%.*}:size=1024${4:+ if $4}" \
			>$WITNESS_TR/events/kwst/$name/trigger; then
			echo "witness: no hist trigger on kwst/$name ($3): $(tail -n 2 $WITNESS_TR/error_log)"
			exit 10
		fi
		witness_hists="$witness_hists $name:$3"
	fi
	echo 1 >$WITNESS_TR/events/kwst/$name/enable
}

witness_hist() {
	if ! echo "hist:keys=$3:vals=hitcount:sort=${3%.*}:size=1024${4:+ if $4}" \
		>$WITNESS_TR/events/$2/trigger; then
		echo "witness: no hist trigger on $2 ($3 ${4:-}): $(tail -n 2 $WITNESS_TR/error_log)"
		exit 10
	fi
	witness_events="$witness_events $1:$2:$3"
	# the filter has spaces: kept aside, by name (removing the trigger needs it too)
	eval "witness_filter_$1=\${4:-}"
}

witness_save() {
	for n in $witness_names; do echo 0 >$WITNESS_TR/events/kwst/$n/enable; done
	# kprobe_profile: "EVENT HITS MISSED", EVENT matched with or without its group
	: >witness.txt
	for n in $witness_names; do
		awk -v n="$n" '$1 == n || $1 == "kwst/" n { print n, $2, $3 }' $WITNESS_TR/kprobe_profile \
			>>witness.txt
	done
	for nk in $witness_hists; do
		n=${nk%%:*} k=${nk#*:}
		eval "f=\${witness_filter_$n:-}"
		# "{ ret:          5 } hitcount:       8192" -> "5 8192"
		sed -n 's/^{ *[a-z_0-9.]*: *\([^ }]*\) *} *hitcount: *\([0-9]*\).*/\1 \2/p' \
			$WITNESS_TR/events/kwst/$n/hist >"witness-$n.txt"
		cp $WITNESS_TR/events/kwst/$n/hist "witness-$n.hist"
		echo "!hist:keys=$k:vals=hitcount:sort=${k%.*}:size=1024${f:+ if $f}" \
			>$WITNESS_TR/events/kwst/$n/trigger
	done
	for n in $witness_names; do echo "-:kwst/$n" >>$WITNESS_TR/kprobe_events; done
	for nek in $witness_events; do
		n=${nek%%:*} e=${nek#*:}
		k=${e#*:} e=${e%%:*}
		eval "f=\${witness_filter_$n:-}"
		sed -n 's/^{ *[a-z_0-9.]*: *\([^ }]*\) *} *hitcount: *\([0-9]*\).*/\1 \2/p' \
			$WITNESS_TR/events/$e/hist >"witness-$n.txt"
		cp $WITNESS_TR/events/$e/hist "witness-$n.hist"
		echo "!hist:keys=$k:vals=hitcount:sort=${k%.*}:size=1024${f:+ if $f}" \
			>$WITNESS_TR/events/$e/trigger
	done
	witness_names="" witness_hists="" witness_events=""
}
