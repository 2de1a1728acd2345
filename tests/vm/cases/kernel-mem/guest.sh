# SPDX-License-Identifier: GPL-2.0
# Issue 18: what kvmwalk's maps hold in the kernel while it is attached, no --vm: `bpftool map show`
# (bytes_memlock: the kernel's own bpf_map_memory_usage() from 6.4) and the number of possible CPUs,
# for check to set against the map definitions. Twice: `kvmwalk record` (every probe, fine
# histograms) and `kvmwalk serve` (its defaults: the notifiers set, the sampled mode, log2 histograms),
# with a scrape of serve's metrics to show it serves while the maps are read.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
cat /sys/devices/system/cpu/possible >possible
bpftool -j map show >before.maps.json
kvmwalk record -o rec.json -d 4 >rec.log 2>&1 &
pid=$!
i=0
while [ $i -lt 1200 ] && ! grep -q '^kvmwalk: recording' rec.log; do
	sleep 0.1
	i=$((i + 1))
done
bpftool -j map show >during.maps.json
wait $pid
echo $? >rec.rc
bpftool -j map show >before-serve.maps.json
kvmwalk serve --listen 127.0.0.1:19464 --interval 1 2>serve.log &
pid=$!
i=0
until wget -q -O serve.prom http://127.0.0.1:19464/metrics; do
	i=$((i + 1))
	[ $i -gt 300 ] && break
	sleep 0.2
done
bpftool -j map show >serve.maps.json
kill -TERM $pid
wait $pid
echo $? >serve.rc
