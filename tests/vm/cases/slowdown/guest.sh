# SPDX-License-Identifier: GPL-2.0
# What recording costs the command: every kvmwalk-load scenario recorded bare (--probe none), with
# the timing set, the cheap set and every probe, in turn in this one boot, the order reversed
# every other run so that drift cancels; each recording keeps the command's wall time and its
# phases (--workload-times -, kvmwalk-load --json on stdout). Then `kvmwalk report` of each
# scenario's recordings: the change of each set's wall time and phases against the bare runs.
# --env SLOWDOWN_RUNS=N: N runs of each (default 5).
RUNS=${SLOWDOWN_RUNS:-5}
SETS="none timing cheap all"
args() {
	case $1 in
	split) echo "--backing=thp --eager-split=2M" ;;
	empty-unmap) echo "--range=2M --sparse=256G" ;;
	invalidate) echo "--range=2M --pattern=same" ;;
	*) echo "" ;;
	esac
}
rec() { # SCENARIO SET RUN
	# shellcheck disable=SC2046
	kvmwalk record --probe "$2" -o "$1-$2-$3.json" --workload-times - -- kvmwalk-load \
		--scenario="$1" --vcpus=2 --mem=8M --iterations=2 $(args "$1") --json \
		>"load-$1-$2-$3.json" 2>>record.err || echo "$1 $2 $3" >>failed
}
rev() { for w in "$@"; do r="$w $r"; done; echo $r; unset r; }
i=1
while [ $i -le "$RUNS" ]; do
	for s in split empty-unmap clear invalidate wrprotect-fault; do
		if [ $((i % 2)) = 1 ]; then order=$SETS; else order=$(rev $SETS); fi
		for set in $order; do rec $s $set $i; done
	done
	i=$((i + 1))
done
for s in split empty-unmap clear invalidate wrprotect-fault; do
	files=""
	for set in $SETS; do
		j=1
		while [ $j -le "$RUNS" ]; do files="$files $s-$set-$j.json"; j=$((j + 1)); done
	done
	# shellcheck disable=SC2086
	kvmwalk report $files >cost-$s.txt 2>>report.err
	# shellcheck disable=SC2086
	kvmwalk report --json $files >cost-$s.json 2>>report.err || echo "report $s" >>failed
done
echo "$RUNS" >runs
uptime >load.txt
[ ! -e failed ]
