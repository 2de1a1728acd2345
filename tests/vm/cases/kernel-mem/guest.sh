# SPDX-License-Identifier: GPL-2.0
# Issue 18: what kvmwalk's maps hold in the kernel while `kvmwalk record` (default probes, no
# --vm) is attached: `bpftool map show` (bytes_memlock: the kernel's own bpf_map_memory_usage()
# from 6.4) and the number of possible CPUs, for check to set against the map definitions.
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
