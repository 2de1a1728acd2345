# SPDX-License-Identifier: GPL-2.0
# Issue 6 part 3: every kvmwalk-load scenario with and without kvmwalk attached, alternating in
# this one boot (odd runs without first, even runs with first, so drift cancels). check computes
# the ratio of phase times and each recording's ns per BPF program run; docs/performance.md.
# --env OVERHEAD_PROBES=cheap records with that probe set (serve's default) instead of every
# probe (record's), `record --probe cheap`; OVERHEAD_PROBES=all:cheap (sets separated by ':')
# records with each in turn, alternating with the run without in the same boot. --env
# OVERHEAD_RUNS=N: N runs (default 3). OVERHEAD_PROBES=sampled:cheap: the sampled mode alone
# (`record --probe sampled`, 49 Hz) against the cheap set (docs/performance.md, "The sampled mode").
RUNS=${OVERHEAD_RUNS:-${KW_OVERHEAD_RUNS:-3}}
PROBES=$(echo "${OVERHEAD_PROBES:-all}" | tr : ' ')
# the chunk size of eager splitting: an arm64 capability; x86 splits eagerly by itself
# (kvm.eager_page_split, on by default), and kvmwalk-load refuses the option there
eager=
[ "$KW_ARCH" = arm64 ] && eager=--eager-split=2M
# --env OVERHEAD_LONG=1: each scenario made 4-16 times longer (more memory, more iterations), so
# that its walker-heavy phases last 50-300 ms under emulation instead of 1-20 ms (overhead-sampled).
args() {
	if [ "${OVERHEAD_LONG:-0}" = 1 ]; then
		case $1 in
		split) echo "--mem=32M --iterations=4 --backing=thp $eager" ;;
		empty-unmap) echo "--mem=8M --iterations=16 --range=2M --sparse=256G" ;;
		clear) echo "--mem=32M --iterations=4" ;;
		invalidate) echo "--mem=8M --iterations=32 --range=2M --pattern=same" ;;
		wrprotect-fault) echo "--mem=32M --iterations=6" ;;
		esac
		return
	fi
	case $1 in
	split) echo "--mem=8M --iterations=2 --backing=thp $eager" ;;
	empty-unmap) echo "--mem=8M --iterations=2 --range=2M --sparse=256G" ;;
	invalidate) echo "--mem=8M --iterations=2 --range=2M --pattern=same" ;;
	*) echo "--mem=8M --iterations=2" ;;
	esac
}
base() {
	kvmwalk-load --scenario=$1 --vcpus=2 $(args $1) \
		--json=$1-base-$2.json >/dev/null 2>>base.err || echo "$1 base $2" >>failed
}
# a set named sampledHZ is the sampled mode at HZ (`--probe sampled --sample=HZ`),
# timingsampled the timing set's probes with the sampled mode at 49 Hz, notifierssampled
# serve's default: the notifiers set's probes with it
with() {
	case $3 in
	sampled[0-9]*) set_args="--probe sampled --sample=${3#sampled}" ;;
	timingsampled) set_args="--probe timing --sample" ;;
	notifierssampled) set_args="--probe notifiers --sample" ;; # serve's default
	*) set_args="--probe $3" ;;
	esac
	kvmwalk record $set_args -o $1-rec-$3-$2.json -- kvmwalk-load --scenario=$1 --vcpus=2 \
		$(args $1) --json=$1-kw-$3-$2.json >/dev/null 2>>record.err ||
		echo "$1 kvmwalk $3 $2" >>failed
}
rev() { for w in "$@"; do r="$w $r"; done; echo $r; unset r; }
i=1
while [ $i -le $RUNS ]; do
	for s in split empty-unmap clear invalidate wrprotect-fault; do
		if [ $((i % 2)) = 1 ]; then
			base $s $i
			for p in $PROBES; do with $s $i $p; done
		else
			for p in $(rev $PROBES); do with $s $i $p; done
			base $s $i
		fi
	done
	i=$((i + 1))
done
echo $RUNS >runs
echo $PROBES >probes
for s in split empty-unmap clear invalidate wrprotect-fault; do echo "$s $(args $s)"; done >args
# OVERHEAD_LIMITS="SET=RATIO SET@49=RATIO ..." (space- or colon-separated): check asserts the
# walker-heavy phases against them; an entry without = fails the case rather than vanish.
: >limits
for l in $(echo "${OVERHEAD_LIMITS:-}" | tr ':' ' '); do
	case $l in
	?*=?*) echo "$l" >>limits ;;
	*) echo "OVERHEAD_LIMITS: '$l' is not SET=RATIO" >&2; echo "limits $l" >>failed ;;
	esac
done
[ ! -e failed ]
