# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# What the test scripts that run on the build machine share (tests/host, tests/pkg, tests/build,
# tests/prom/test-check-names); each sources it first:
#   . "$(dirname "$0")/../lib.sh"
# Each check prints "  ok: WHAT" or "  FAIL: WHAT" and is counted; `finish` prints the last line,
# "test-NAME: N passed, N failed" (the Makefile shows it with `tail -n 1` and, when the test
# failed, its FAIL lines with `grep FAIL`), and exits 1 if anything failed.
# The emulated-host checks have helpers of their own (tests/vm/lib.sh): they print nothing when
# all is well and stop at the first failure, naming the target. The readers of kvmwalk's JSON
# are shared (tests/json.sh).

# shellcheck source=tests/json.sh
. "$(dirname "${BASH_SOURCE[0]}")/json.sh"

test_name=${0##*/}
top=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
arch=$(uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
pass=0 fail=0

ok() { echo "  ok: $*"; pass=$((pass + 1)); }
bad() { echo "  FAIL: $*"; fail=$((fail + 1)); }
# check WHAT CMD...: ok when the command succeeds (its output is not hidden)
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else bad "$what"; fi
}
# eq WHAT GOT WANT (a value of several lines is left out of the ok line)
eq() {
	if [ "$2" != "$3" ]; then
		bad "$1 = $2, want $3"
	elif [[ $2 == *$'\n'* ]]; then
		ok "$1"
	else
		ok "$1 ($2)"
	fi
}
# finish: the summary line, then exit (1 if a check failed)
finish() {
	echo "$test_name: $pass passed, $fail failed"
	exit $((fail > 0))
}
# die MESSAGE: before any check (not root, nothing built): says why, exits 1
die() {
	echo "$test_name: $*"
	exit 1
}
need_root() { [ "$(id -u)" = 0 ] || die "needs root ($*)"; }
need_file() { [ -x "$1" ] || die "no $1 (make first)"; }

# stop PID: ends one of our children: TERM, at most 10 s, then KILL
stop() {
	kill "$1" 2>/dev/null || return 0
	for _ in $(seq 100); do kill -0 "$1" 2>/dev/null || break; sleep 0.1; done
	kill -KILL "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# nprogs: how many BPF programs are loaded now
nprogs() { bpftool prog show 2>/dev/null | grep -c '^[0-9]*:'; }

# refused NAME WANT CMD...: CMD exits 2 within a second, says WANT on stderr and leaves no BPF
# program loaded: a usage error found before anything is attached. Its output is kept in
# $work/NAME.out and NAME.err. Another engineer's tool may load a program meanwhile, so the count
# is taken again, at most 3 times.
refused() {
	local name=$1 want=$2 before after t0 t1 rc ms
	shift 2
	for _ in 1 2 3; do
		before=$(nprogs)
		t0=$(date +%s%N)
		"$@" >"$work/$name.out" 2>"$work/$name.err" </dev/null
		rc=$?
		t1=$(date +%s%N)
		after=$(nprogs)
		[ "$before" = "$after" ] && break
	done
	ms=$(((t1 - t0) / 1000000))
	eq "$name: exit status" "$rc" 2
	check "$name: says '$want'" grep -qF -- "$want" "$work/$name.err"
	check "$name: returned before attaching (${ms} ms < 1000 ms)" [ "$ms" -lt 1000 ]
	eq "$name: BPF programs loaded, after = before" "$after" "$before"
}
