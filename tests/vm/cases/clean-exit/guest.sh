# SPDX-License-Identifier: GPL-2.0
# kvmwalk leaves nothing behind: after SIGINT, SIGTERM, SIGHUP or SIGKILL, after the VMM it records
# around crashes, and after a refused attach, `bpftool prog/link/map show` list exactly what they
# listed before kvmwalk started, and kernel.bpf_stats_enabled has its old value.
snap() { # NAME: what is loaded in the kernel now
	bpftool -j prog show >"$1.progs.json"
	bpftool -j link show >"$1.links.json"
	bpftool -j map show >"$1.maps.json"
	cat /proc/sys/kernel/bpf_stats_enabled >"$1.stats"
}
# Waits until kvmwalk says it records (everything attached), at most 120 s.
attached() {
	i=0
	while [ $i -lt 1200 ]; do
		grep -q '^kvmwalk: recording' "$1" && return 0
		sleep 0.1
		i=$((i + 1))
	done
	return 1
}
count() { bpftool $1 show | grep -c '^[0-9]'; }
# Freeing links, programs and maps is deferred (RCU, workqueues): wait, at most 20 s, until the
# counts are back to what they were before kvmwalk ran. The check then compares the ids.
settle() {
	i=0
	while [ $i -lt 200 ]; do
		[ "$(count prog)" = "$progs0" ] && [ "$(count link)" = "$links0" ] &&
			[ "$(count map)" = "$maps0" ] && return 0
		sleep 0.1
		i=$((i + 1))
	done
}

snap before
progs0=$(count prog) links0=$(count link) maps0=$(count map)
for sig in INT TERM HUP KILL; do
	kvmwalk record -o rec-$sig.json >$sig.log 2>&1 &
	pid=$!
	if attached $sig.log; then echo yes >$sig.attached; else echo no >$sig.attached; fi
	snap during-$sig
	kill -$sig $pid
	wait $pid
	echo $? >$sig.rc
	settle
	snap after-$sig
done

# The VMM dies under kvmwalk: record around a shell whose kvmwalk-load is killed mid-run.
kvmwalk record -o rec-crash.json -- sh -c 'kvmwalk-load --scenario=invalidate --iterations=1000 \
	--quiet >/dev/null & sleep 3; kill -9 $!; wait $!' >crash.log 2>&1
echo $? >crash.rc
settle
snap after-crash

# An attach refused half-way: --attach=fentry and, besides kvm_pgtable_walk (attached first), a
# probe this kernel cannot give by fentry. Not every kernel has one.
case "$KW_ARCH-$KW_KERNEL-$KW_MODE" in
arm64-6.1-*) refuse=kvm_pgtable_walk,stage2_split_walker ;;
arm64-*-nvhe) refuse=kvm_pgtable_walk,__kvm_tlb_flush_vmid_range ;;
x86-6.1-*) refuse=tdp_mmu_zap_leafs,fast_page_fault ;;
*) refuse="" ;;
esac
if [ -n "$refuse" ]; then
	kvmwalk record -o rec-refused.json --attach=fentry --probe=$refuse -d 1 >refused.log 2>&1
	echo $? >refused.rc
	settle
	snap after-refused
fi
