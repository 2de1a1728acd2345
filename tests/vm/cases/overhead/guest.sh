# SPDX-License-Identifier: GPL-2.0
# Issue 6 part 3: every kvmwalk-load scenario with and without kvmwalk attached, alternating in
# this one boot (odd runs without first, even runs with first, so drift cancels). check computes
# the ratio of phase times and each recording's ns per BPF program run; docs/performance.md.
# --env OVERHEAD_PROBES=cheap records with that probe set (serve's default) instead of every
# probe (record's): `record --probe cheap`.
RUNS=${KW_OVERHEAD_RUNS:-3}
PROBES=${OVERHEAD_PROBES:-all}
args() {
	case $1 in
	split) echo "--backing=thp --eager-split=2M" ;;
	empty-unmap) echo "--range=2M --sparse=256G" ;;
	invalidate) echo "--range=2M --pattern=same" ;;
	*) echo "" ;;
	esac
}
base() {
	kvmwalk-load --scenario=$1 --vcpus=2 --mem=8M --iterations=2 $(args $1) \
		--json=$1-base-$2.json >/dev/null 2>>base.err || echo "$1 base $2" >>failed
}
with() {
	kvmwalk record --probe "$PROBES" -o $1-rec-$2.json -- kvmwalk-load --scenario=$1 --vcpus=2 --mem=8M \
		--iterations=2 $(args $1) --json=$1-kw-$2.json >/dev/null 2>>record.err ||
		echo "$1 kvmwalk $2" >>failed
}
i=1
while [ $i -le $RUNS ]; do
	for s in split empty-unmap clear invalidate wrprotect-fault; do
		if [ $((i % 2)) = 1 ]; then
			base $s $i
			with $s $i
		else
			with $s $i
			base $s $i
		fi
	done
	i=$((i + 1))
done
echo $RUNS >runs
echo "$PROBES" >probes
[ ! -e failed ]
