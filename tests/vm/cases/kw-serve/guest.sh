# SPDX-License-Identifier: GPL-2.0
# kvmwalk serve in the emulated host, unprivileged after attaching (uid 65534), with its default
# probe set (cheap), around kvmwalk-load --scenario empty-unmap (arm64) or invalidate (x86):
# /metrics scraped before and after, the textfile kept, the process's capabilities and uid saved;
# `check` compares the deltas with what the workload did. Then one scrape of `serve --probe all`:
# the probes the cheap set leaves out attach again.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mkdir tf && chown 65534:65534 tf && chmod 755 tf
url=http://127.0.0.1:19464
kvmwalk serve --listen 127.0.0.1:19464 --interval 1 --user 65534:65534 \
	--textfile "$PWD/tf/kvmwalk.prom" 2>serve.log &
pid=$!
i=0
until wget -q -O before.prom $url/metrics; do
	i=$((i + 1))
	[ $i -gt 300 ] && break
	sleep 0.2
done
grep -E '^(Uid|Gid|Cap[A-Za-z]+|NoNewPrivs):' /proc/$pid/status >serve.status
for t in /proc/$pid/task/*; do grep '^CapEff:' $t/status; done >serve.threads
if [ "$KW_ARCH" = x86 ]; then
	kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M \
		--pattern=same --json=load.json >table.txt 2>load.err
else
	kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M \
		--sparse=256G --json=load.json >table.txt 2>load.err
fi
echo $? >load.rc
# the served values are at most one interval (1 s) old
sleep 2.5
wget -q -O after.prom $url/metrics
echo $? >wget.rc
wget -q -O landing.html $url/
wget -S -O /dev/null --post-data=x $url/metrics >post.txt 2>&1
cp tf/kvmwalk.prom textfile.prom
ls -l tf >textfile.ls
kill -TERM $pid
wait $pid
echo $? >serve.rc
ls tf >textfile-after-exit.ls
kvmwalk probes --probe cheap >probes-cheap.txt 2>&1
echo $? >probes-cheap.rc
kvmwalk serve --probe all --listen 127.0.0.1:19465 --interval 1 2>serve-all.log &
pid=$!
i=0
until wget -q -O all.prom http://127.0.0.1:19465/metrics; do
	i=$((i + 1))
	[ $i -gt 300 ] && break
	sleep 0.2
done
kill -TERM $pid
wait $pid
echo $? >serve-all.rc
