# SPDX-License-Identifier: GPL-2.0
# scripts/ab, change "split" (patches/arm64-split-skip-level3): kvmwalk records RUNS rounds of
# kvmwalk-load --scenario split with THP and a 2 MiB eager-split chunk. A round is three runs of
# it: with every probe (runN.json: the counts the evidence reads), bare (record --probe none:
# nothing attached; the command's wall time) and with the timing set (--probe timing), in the
# order bare, timing, full in odd rounds and full, timing, bare in even ones, so that drift
# cancels. Every recording keeps kvmwalk-load's own phase times (--workload-times of its --json,
# loadN.json). A bare or timing run's files are the full run's names with bare- or timing- in
# front (bare-runN.json, bare-loadN.json, ...). runN.rc is kvmwalk-load's exit status (0 only
# when every count it can check, dirty pages included, came out as the workload made certain).
RUNS=${AB_RUNS:-5}
fail=0
run() { # KIND N
	case $1 in
	bare) probes=none r=bare-run$2 l=bare-load$2 ;;
	timing) probes=timing r=timing-run$2 l=timing-load$2 ;;
	*) probes=all r=run$2 l=load$2 ;;
	esac
	kvmwalk record --probe $probes -o "$r.json" --workload-times "$l.json" -- \
		kvmwalk-load --scenario=split --vcpus=2 --mem=8M --backing=thp --eager-split=2M \
		--iterations=2 --json="$l.json" >"$l.txt" 2>"$r.err"
	rc=$?
	echo $rc >"$r.rc"
	[ $rc = 0 ] || fail=1
}
i=1
while [ $i -le "$RUNS" ]; do
	if [ $((i % 2)) = 1 ]; then kinds="bare timing full"; else kinds="full timing bare"; fi
	for k in $kinds; do run $k $i; done
	i=$((i + 1))
done
exit $fail
