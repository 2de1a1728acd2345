# SPDX-License-Identifier: GPL-2.0
# Bounded maps filled on purpose (issue 7): the loader's test knobs shrink the trigger map to 2
# entries and the walk-callback map to 1, and kvmwalk records kvmwalk-load --scenario
# empty-unmap, which makes more distinct (probe, trigger, ioctl) keys and walk callbacks than
# that. Every call that found no room must be counted (trigger_map_full, callback_map_full), in
# the recording, in the report and in /metrics.
export KVMWALK_TEST_MAX_TRIGS=2 KVMWALK_TEST_MAX_CBS=1
load="kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M --sparse=16G"
kvmwalk record -o rec.json -- $load --json=load.json >table.txt 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
# the same through the exporter
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
# --probe cheap: keys enough to fill 2 slots on x86 too (serve's default, the notifiers set,
# makes 2 there: an invalidation and a teardown)
kvmwalk serve --probe cheap --listen 127.0.0.1:19464 --interval 1 2>serve.log &
pid=$!
i=0
until wget -q -O /dev/null http://127.0.0.1:19464/metrics; do
	i=$((i + 1))
	[ $i -gt 300 ] && break
	sleep 0.2
done
$load >/dev/null 2>serve-load.err
echo $? >serve-load.rc
sleep 2.5
wget -q -O after.prom http://127.0.0.1:19464/metrics
kill -TERM $pid
wait $pid
echo $? >serve.rc
