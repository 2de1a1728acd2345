# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "contend" (patches/x86-tdp-zap-empty-hint under the workload the empty-leaf hint was measured with):
# kvmwalk records RUNS rounds of kvmwalk-load --scenario invalidate --concurrent in two patterns,
# 2 vCPUs writing 16 MiB each in a loop while the host madvises 100 times, 50 a second:
#   sameN.json   the same 16 MiB range (that measurement's same16; half the guest's 32 MiB);
#   sweepN.json  rolling 2 MiB chunks (its sweep2).
# same16, not same4: on the A/B kernels (a small configuration, faster than Debian's) 4 of 5
# base runs of same4 saw no fault wait on mmu_lock at all (zaps of 1,024 pages every 20 ms,
# 0-5 waits a run); same16 waited 4-10 times a run (AB_SAME_RANGE=4M gives the old shape).
# Compared: tdp_mmu_zap_leafs' time and the fault-side mmu_lock_wait (p50, p99.9). The mechanism,
# as that measurement checked it: --count-optional of the patch's own tdp_iter_skip_children() (one call
# per 4K table a zap steps over; not in the base kernel, recorded there as unavailable).
# Each pattern three times a round as in ab-split: with every probe (and that --count-optional),
# bare (--probe none) and with the timing set, the order of the kinds alternating between
# rounds; the bare and timing runs' files have bare- or timing- in front (bare-sameN.json, ...).
RUNS=${AB_RUNS:-5}
fail=0
run() { # KIND PATTERN N
	case $2 in
	same) range=${AB_SAME_RANGE:-16M} ;;
	*) range=2M ;;
	esac
	r=$2$3 l=$2-load$3
	case $1 in
	bare) opts="--probe none" r=bare-$r l=bare-$l ;;
	timing) opts="--probe timing" r=timing-$r l=timing-$l ;;
	*) opts="--count-optional tdp_iter_skip_children" ;;
	esac
	# shellcheck disable=SC2086 # $opts is a list of options
	kvmwalk record $opts -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load --scenario=invalidate --concurrent --vcpus=2 --mem=16M --range="$range" \
		--pattern="$2" --iterations=100 --rate=50 --json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
}
for pattern in same sweep; do
	i=1
	while [ $i -le "$RUNS" ]; do
		if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
		for k in $kinds; do run $k $pattern $i; done
		i=$((i + 1))
	done
done
exit $fail
