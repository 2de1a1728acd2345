# SPDX-License-Identifier: GPL-2.0
# What the check scripts of tests/vm/cases share; each sources it first:
#   . "$(dirname "$0")/../../lib.sh"
# scripts/vmtest runs a check on the host under bash, in the folder of the files the guest brought
# back, with the path of the check in the source tree as $0 and KW_ARCH, KW_KERNEL, KW_MODE and
# KW_RELEASE set. So file names are relative to the results, and the case is the check's folder.
# The probe and phase helpers read the recording $r (default rec.json) and kvmwalk-load's output $l
# (default load.json) at the time they are called; their FILE forms (probe_in, phase_sum_in,
# finding_in) are shared with the host tests.

# shellcheck source=tests/json.sh
. "$(dirname "${BASH_SOURCE[0]}")/../json.sh"

name=$(basename "$(dirname "$0")")

# fail MESSAGE: says on stderr what failed, on which target, and ends the check with status 1.
# After keep_going, it counts the failure in $failures (the first one in $first_failure) and the
# check goes on, for checks where every failure is worth seeing at once; they end themselves.
failures=0 first_failure="" fail_fast=1
keep_going() { fail_fast=0; }
# The mechanism --attach auto gives a function that fentry and kprobe can both attach to, on the
# host of recording $1: kprobe on a preemptible kernel (full, lazy, rt, unknown), fentry on a
# voluntary or none one (user/loader_plan.c kprobe_first()).
auto_mech() {
	case "$(jq -r '.meta.preempt // ""' "$1")" in
	none | voluntary) echo fentry ;;
	*) echo kprobe ;;
	esac
}
fail() {
	echo "$name: $* ($KW_ARCH $KW_KERNEL $KW_MODE)" >&2
	[ "$fail_fast" = 0 ] || exit 1
	failures=$((failures + 1))
	[ -n "$first_failure" ] || first_failure=$*
}

# grouped N: N as kvmwalk's text writes a count, with thousands separators (user/fmt.c):
# 524289 -> 524,289, -2048 -> -2,048. For the checks that read report.txt.
grouped() { sed -E ':a; s/^(-?[0-9]+)([0-9]{3})/\1,\2/; ta' <<<"$1"; }

# eq WHAT GOT WANT
eq() { [ "$2" = "$3" ] || fail "$1 = $2, want $3"; }

# probe NAME JQ-PATH: that field of the recording's probe NAME (probe_in FILE NAME JQ-PATH).
probe() { probe_in "${r:-rec.json}" "$@"; }

# visits WALKER LEVEL OUTCOME: the recording's visit count of that walker, level and outcome.
visits() {
	jq -r --arg w "$1" --argjson l "$2" --arg o "$3" \
		'[.visits[] | select(.walker == $w and .level == $l and .outcome == $o) | .count] | add // 0' \
		"${r:-rec.json}"
}

# phase_sum PHASE KEY: kvmwalk-load's count KEY summed over the phases named PHASE;
# phase_sum_in FILE PHASE KEY (tests/json.sh).
phase_sum() { phase_sum_in "${l:-load.json}" "$@"; }

# median: of the numbers on stdin, one a line; nan for none.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (!NR) print "nan"; else if (NR % 2) print v[(NR + 1) / 2];
	else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# kvmwalk-load's own output FILE, for the cases that run it alone:
# count FILE SCENARIO PHASE ITERATION KEY: the count of the one matching phase.
count() {
	jq -r --arg s "$2" --arg p "$3" --argjson i "$4" --arg k "$5" '
		[.phases[] | select(.scenario == $s and .phase == $p and .iteration == $i)]
		| if length == 1 then (.[0].counts[$k] // "absent") else "\(length) phases" end' "$1"
}
expect() { # FILE SCENARIO PHASE ITERATION KEY WANT
	local got
	got=$(count "$1" "$2" "$3" "$4" "$5")
	[ "$got" = "$6" ] || fail "$1: $2 $3 $4 $5 = $got, want $6"
}
ok() { # FILE: kvmwalk-load succeeded and recorded that
	[ "$(jq -r .status "$1")" = ok ] || fail "$1: status $(jq -r "\(.status) \(.error)" "$1")"
	[ "$(jq -r .kernel "$1")" = "$KW_RELEASE" ] || fail "$1: kernel $(jq -r .kernel "$1")"
}
nphases() { # FILE WANT
	local got
	got=$(jq ".phases | length" "$1")
	[ "$got" = "$2" ] || fail "$1: $got phases, want $2"
}

# finding KIND JQ-PATH: that field of the finding KIND (empty_flushes, split_level3_visits,
# empty_zaps, teardown_walks) in `kvmwalk report --json`'s output $j (default report.json);
# finding_in FILE KIND JQ-PATH (tests/json.sh).
finding() { finding_in "${j:-report.json}" "$@"; }

# teardown_finding GIB: kvmwalk-load's one VM (KVM_CREATE_VM type 0: the default 40-bit IPA) torn
# down at its exit, GIB of its 1 GiB ranges holding a mapping then. 7.3 frees a VM's stage-2
# tables in 1 GiB chunks (one stage2_free_walker walk each, in the MMU notifier's release):
# 2^(40-30) = 1024 walks of 1 GiB, all in vm_teardown. The migrate case's QEMUs add two 52-bit
# scratch VMs each (2 x 2^(52-30) + 1024 per QEMU). Earlier kernels free a VM in one walk: no
# finding. The teardown series' patched kernel (AB_SERIES=arm64-teardown-skip-empty, exported by
# vmtest --kernel-image) walks only the GIB populated ranges: a finding when that is more than one.
teardown_finding() {
	local gib=${1:?teardown_finding: how many 1 GiB ranges are populated at teardown}
	local series=${AB_SERIES:-}
	if [ "$KW_KERNEL" = 7.3 ] && [ "$series" = arm64-teardown-skip-empty ] && [ "$gib" -le 1 ]; then
		eq "teardown finding (teardown series)" "$(finding teardown_walks .status)" none
		eq "teardown finding: walks (teardown series)" "$(finding teardown_walks .walks)" "$gib"
	elif [ "$KW_KERNEL" = 7.3 ]; then
		local n=1024
		[ "$series" != arm64-teardown-skip-empty ] || n=$gib
		eq "teardown finding" "$(finding teardown_walks .status)" found
		eq "teardown finding: walks" "$(finding teardown_walks .count)" $n
		eq "teardown finding: bytes" "$(finding teardown_walks .bytes)" $((n << 30))
		eq "teardown finding: VMs torn down" "$(finding teardown_walks .vms_torn_down)" 1
		eq "teardown finding: walks in vm_teardown" \
			"$(finding teardown_walks .vm_teardown_walks)" $n
	else
		eq "teardown finding" "$(finding teardown_walks .status)" none
		eq "teardown finding: walks" "$(finding teardown_walks .walks)" 1
	fi
}

# The cases that run the kernel's KVM selftests (needs="selftests") keep the kernel's own count
# of the run next to kvmwalk's recording (tests/vm/selftests.sh, guest side): witness.txt
# ("NAME HITS MISSED" per ftrace kprobe event) and witness-NAME.txt ("KEY COUNT" of its hist).
# w NAME: the event's hits ("absent" without the event); wn NAME: the same for arithmetic (-1
# and a message when absent, which makes the sum it is in wrong).
w() { awk -v n="$1" '$1 == n { print $2; f = 1 } END { if (!f) print "absent" }' witness.txt; }
wn() {
	local v
	v=$(w "$1")
	[ "$v" != absent ] || { echo "witness $1 absent" >&2; v=-1; }
	echo "$v"
}
# wkey NAME KEY: the hist's count of KEY as the kernel prints it (hex without 0x for .hex keys).
wkey() { awk -v k="$2" '$1 == k { n += $2 } END { print n + 0 }' "witness-$1.txt"; }
# witness_complete: no event missed a hit (a kprobe misses one only when its handler nests:
# kretprobe instances exhausted, a kprobe inside another; the kernel's count would be short).
witness_complete() {
	local n hits missed
	while read -r n hits missed; do
		eq "witness $n missed" "$missed" 0
	done <witness.txt
}
# kioctl CMD: kvmwalk's calls of the VM ioctl of command number CMD (hex without 0x): the
# kvm_vm_ioctl probe's own trigger rows, one per call at its exit, matched by number (kvmwalk
# does not name every command yet: KVM_SET_USER_MEMORY_REGION2 is `ioctl 0x40a0ae49`).
kioctl() {
	jq --argjson c "$((16#$1))" '[.triggers[] | select(.probe == "kvm_vm_ioctl" and .trigger == "ioctl"
		and .cmd == $c) | .calls] | add // 0' "${r:-rec.json}"
}
# same WHAT KVMWALK KERNEL WANT: kvmwalk's count, the kernel's and the derived value are equal
# ("-": not counted by that side); one line of summary.txt either way (a failed run's numbers
# are the interesting ones). Use with keep_going.
same() {
	printf '%-50s kvmwalk %9s  kernel %9s  want %9s\n' "$1" "$2" "$3" "$4" >>summary.txt
	[ "$2" = - ] || eq "$1: kvmwalk" "$2" "$4"
	[ "$3" = - ] || eq "$1: kernel" "$3" "$4"
}
# finish_keep_going SUMMARY: after keep_going, prints summary.txt and ends the check: status 1
# with the count and the first failure as the last line, or SUMMARY.
finish_keep_going() {
	[ -f summary.txt ] && cat summary.txt
	if [ "$failures" != 0 ]; then
		echo "$name: $failures failed, the first: $first_failure ($KW_ARCH $KW_KERNEL $KW_MODE)" >&2
		exit 1
	fi
	echo "$name: $1"
}

# selftest_teardown: arm64 7.3, a selftest run with -m 6 (PA 40, 4K) under record: 7.3 frees a
# VM's stage 2 in one stage2_free_walker walk per 1 GiB of its IPA space, all under vm_teardown
# (the MMU notifier's release): the two probe VMs of the host's IPA limit (ipa-limit.txt, from
# the boot log; 52 bits with QEMU's -cpu max) 2 x 2^(IPA - 30) walks, the vgic probe's barebones
# VM (type 0: 40 bits) and the test's VM 2^10 each. Earlier kernels free a VM in one walk.
# The teardown series' patched kernel (AB_SERIES=arm64-teardown-skip-empty) walks only the
# top-level entries still valid at release: none here, as the probe VMs never map anything and
# the test's VM has its memory unmapped (kvm_vm_free munmaps each slot: the MMU notifier's
# invalidation frees the emptied tables) before the VM's last fd closes. 0 walks.
selftest_teardown() {
	local ipa tw
	[ "$KW_ARCH:$KW_KERNEL" = arm64:7.3 ] || return 0
	ipa=$(cat ipa-limit.txt)
	[ -n "$ipa" ] || { fail "no IPA limit in the host's boot log"; ipa=52; }
	tw=$((2 * (1 << (ipa - 30)) + 2 * (1 << 10)))
	[ "${AB_SERIES:-}" != arm64-teardown-skip-empty ] || tw=0
	same "teardown walks (stage2_free_walker, 1 GiB)" "$(finding teardown_walks .count)" - $tw
	same "teardown walks under vm_teardown" "$(finding teardown_walks .vm_teardown_walks)" - $tw
	same "teardown bytes" "$(finding teardown_walks .bytes)" - $((tw << 30))
}

# memslot_ioctls SLOTS TOGGLES: KVM_SET_USER_MEMORY_REGION2 calls of a selftest VM with SLOTS
# memslots whose dirty logging was turned on or off TOGGLES times: one per slot created
# (vm_create's slot 0, vm_userspace_mem_region_add), one per toggle (vm_mem_region_set_flags),
# and on 6.12 one more per slot at kvm_vm_free (__vm_mem_region_delete sets memory_size 0 before
# the munmap; 7.3 only munmaps).
memslot_ioctls() {
	local n=$(($1 + $2))
	[ "$KW_KERNEL" = 6.12 ] && n=$((n + $1))
	echo $n
}
