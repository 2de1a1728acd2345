# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario teardown: the vCPUs touch their memory, then the VM is closed (phase
# "teardown"). Two VMs, each at several IPA sizes (--ipa-bits; max is the host's limit, 52 bits
# with QEMU's -cpu max, which has LPA2):
#   small: 1 vCPU, 2 MiB (a probing VM such as QEMU's scratch VMs, nearly empty)
#   big:   2 vCPUs, 64 MiB each (128 MiB populated, 32,768 4 KiB pages; the touch takes a
#          while under emulation, hence the long --timeout)
# Each under kvmwalk record once (walk counts; kvm_s2_put_page counted: the stage-2 entries the
# teardown puts and the tables it frees; the patch's kvm_pgtable_stage2_skip_empty counted where
# it exists), then bare (no kvmwalk) TEARDOWN_RUNS times for the teardown's wall time.
# SecPageTables (/proc/meminfo: the stage-2 tables KVM accounts) is read after every run.
RUNS=${TEARDOWN_RUNS:-5}
small="--vcpus=1 --mem=2M"
big="--vcpus=2 --mem=64M --timeout=600"
# stat_refresh folds the per-CPU vmstat differences first: without it meminfo lags by up to
# their thresholds (a 52-bit VM's 16-page PGD showed as 64 kB still in use after its teardown)
secpt() {
	echo 1 >/proc/sys/vm/stat_refresh 2>/dev/null
	awk '$1 == "SecPageTables:" { print $2 }' /proc/meminfo
}
grep -cE ' kvm_pgtable_stage2_skip_empty$' /proc/kallsyms >skip-kallsyms.txt
secpt >secpt-start.txt
# the host's IPA limit (the check reads it from limit.json: no jq here)
kvmwalk-load --scenario=teardown --ipa-bits=max $small --quiet --json=limit.json >/dev/null 2>limit.err
# name:ipa-bits:shape
runs="small-48:48:small small-max:max:small big-40:40:big big-48:48:big big-max:max:big"
for r in $runs; do
	name=${r%%:*} rest=${r#*:}
	bits=${rest%%:*} shape=${rest#*:}
	eval "opts=\$$shape"
	kvmwalk record -o rec-$name.json --count kvm_s2_put_page \
		--count-optional kvm_pgtable_stage2_skip_empty -- \
		kvmwalk-load --scenario=teardown --ipa-bits=$bits $opts --quiet \
		--json=load-$name.json >/dev/null 2>rec-$name.err || echo "record $name" >>failed
	secpt >secpt-rec-$name.txt
done
# bare: the teardown's own time, the shapes interleaved round by round
i=1
while [ $i -le $RUNS ]; do
	for r in small-48:48:small small-max:max:small big-48:48:big; do
		name=${r%%:*} rest=${r#*:}
		bits=${rest%%:*} shape=${rest#*:}
		eval "opts=\$$shape"
		kvmwalk-load --scenario=teardown --ipa-bits=$bits $opts --quiet \
			--json=bare-$name-$i.json >/dev/null 2>>bare.err || echo "bare $name $i" >>failed
		secpt >secpt-bare-$name-$i.txt
	done
	i=$((i + 1))
done
echo $RUNS >runs
[ ! -e failed ]
