# SPDX-License-Identifier: GPL-2.0
# kvmwalk serve in the emulated host, unprivileged after attaching (uid 65534), around
# kvmwalk-load --scenario empty-unmap (arm64) or invalidate (x86), twice: first with its default
# (the notifiers set and the sampled mode at 49 Hz), then with --probe cheap (the exact per-walk
# counters). Each time /metrics is scraped before and after the workload; the default's textfile,
# capabilities and uid are saved, and the uptime at each scrape (for the sample count). `check`
# compares the deltas with what the workload did. Then one scrape of `serve --probe all`: the
# probes the sets leave out attach again.
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
mkdir tf && chown 65534:65534 tf && chmod 755 tf
nproc >cpus.txt
# scrape URL FILE: until it answers (serve loads for a few seconds)
scrape() {
	i=0
	until wget -q -O "$2" "$1"; do
		i=$((i + 1))
		[ $i -gt 300 ] && break
		sleep 0.2
	done
}
load() {
	if [ "$KW_ARCH" = x86 ]; then
		kvmwalk-load --scenario=invalidate --vcpus=2 --mem=8M --iterations=3 --range=2M \
			--pattern=same --json=$1.json >$1.txt 2>$1.err
	else
		kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M \
			--sparse=256G --json=$1.json >$1.txt 2>$1.err
	fi
	echo $? >$1.rc
}
uptime_s() { cut -d' ' -f1 /proc/uptime; }

# 1. the default, as the systemd unit runs it
url=http://127.0.0.1:19464
kvmwalk serve --listen 127.0.0.1:19464 --interval 1 --user 65534:65534 \
	--textfile "$PWD/tf/kvmwalk.prom" 2>serve.log &
pid=$!
scrape $url/metrics before.prom
uptime_s >before.uptime
grep -E '^(Uid|Gid|Cap[A-Za-z]+|NoNewPrivs):' /proc/$pid/status >serve.status
for t in /proc/$pid/task/*; do grep '^CapEff:' $t/status; done >serve.threads
load load
# the served values are at most one interval (1 s) old
sleep 2.5
wget -q -O after.prom $url/metrics
echo $? >wget.rc
uptime_s >after.uptime
wget -q -O landing.html $url/
wget -S -O /dev/null --post-data=x $url/metrics >post.txt 2>&1
cp tf/kvmwalk.prom textfile.prom
ls -l tf >textfile.ls
kill -TERM $pid
wait $pid
echo $? >serve.rc
ls tf >textfile-after-exit.ls

# 2. --probe cheap: the same workload again
kvmwalk serve --probe cheap --listen 127.0.0.1:19464 --interval 1 --user 65534:65534 \
	2>serve-cheap.log &
pid=$!
scrape $url/metrics cheap-before.prom
load cheap-load
sleep 2.5
wget -q -O cheap-after.prom $url/metrics
echo $? >cheap-wget.rc
kill -TERM $pid
wait $pid
echo $? >serve-cheap.rc
kvmwalk probes --probe cheap >probes-cheap.txt 2>&1
echo $? >probes-cheap.rc

# 3. --probe all: one scrape
kvmwalk serve --probe all --listen 127.0.0.1:19465 --interval 1 2>serve-all.log &
pid=$!
scrape http://127.0.0.1:19465/metrics all.prom
kill -TERM $pid
wait $pid
echo $? >serve-all.rc
