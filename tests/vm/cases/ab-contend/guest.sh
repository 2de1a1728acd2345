# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "contend" (patches/x86-tdp-zap-empty-hint under the workload the empty-leaf hint was measured with):
# kvmwalk records RUNS runs of kvmwalk-load --scenario invalidate --concurrent in two patterns,
# 2 vCPUs writing 16 MiB each in a loop while the host madvises 100 times, 50 a second:
#   sameN.json   the same 16 MiB range (that measurement's same16; half the guest's 32 MiB);
#   sweepN.json  rolling 2 MiB chunks (its sweep2).
# same16, not same4: on the A/B kernels (a small configuration, faster than Debian's) 4 of 5
# base runs of same4 saw no fault wait on mmu_lock at all (zaps of 1,024 pages every 20 ms,
# 0-5 waits a run); same16 waited 4-10 times a run (AB_SAME_RANGE=4M gives the old shape).
# Compared: tdp_mmu_zap_leafs' time and the fault-side mmu_lock_wait (p50, p99.9). The mechanism,
# as that measurement checked it: --count-optional of the patch's own tdp_iter_skip_children() (one call
# per 4K table a zap steps over; not in the base kernel, recorded there as unavailable).
RUNS=${AB_RUNS:-5}
fail=0
for pattern in same sweep; do
	case $pattern in
	same) range=${AB_SAME_RANGE:-16M} ;;
	*) range=2M ;;
	esac
	i=1
	while [ $i -le $RUNS ]; do
		kvmwalk record -o $pattern$i.json --count-optional tdp_iter_skip_children -- kvmwalk-load --scenario=invalidate --concurrent \
			--vcpus=2 --mem=16M --range=$range --pattern=$pattern --iterations=100 --rate=50 \
			--json=$pattern-load$i.json >$pattern-load$i.txt 2>$pattern$i.err
		rc=$?
		echo $rc >$pattern$i.rc
		[ $rc = 0 ] || fail=1
		i=$((i + 1))
	done
done
exit $fail
