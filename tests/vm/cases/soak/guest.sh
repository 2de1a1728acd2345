# SPDX-License-Identifier: GPL-2.0
# Soak (issue 7): kvmwalk serve for SOAK_SECS (default 1800) under a continuous mixed workload
# (kvmwalk-load's scenarios in turn, one VM after another), scraped every second with wget.
# Every 5 s serve's VmRSS and open file descriptors are sampled from /proc. Each empty-unmap run
# is framed by two extra scrapes (taken 2.5 s after the previous run ended: the exposition is at
# most one --interval old), so `check` can compare kvmwalk's unmap counts with what the workload
# made certain, as kw-serve does, while the other scenarios run in between. (busybox 1.35's wget
# -T crashes: `timeout 5 wget` bounds each scrape.)
secs=${SOAK_SECS:-1800}
echo "$secs" >soak.secs
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
url=http://127.0.0.1:19464/metrics
# --probe cheap: the unmap counts need the per-walk probes; the sampled mode, serve's default
# beside them, runs too, folding the rows of each VM process as it exits
kvmwalk serve --probe cheap --listen 127.0.0.1:19464 --interval 1 --user 65534:65534 2>serve.log &
pid=$!
i=0
until timeout 5 wget -q -O first.prom $url; do
	i=$((i + 1))
	[ $i -gt 600 ] && { echo "serve never answered"; cat serve.log; exit 1; }
	sleep 0.2
done
start=$(date +%s)
end=$((start + secs))

# the scraper: one line per scrape, "SECONDS-SINCE-START STATUS"
(
	while [ "$(date +%s)" -lt $end ]; do
		t=$(($(date +%s) - start))
		timeout 5 wget -q -O /tmp/scrape.prom $url
		echo "$t $?"
		sleep 1
	done
) >scrapes.txt &
scraper=$!

# the sampler: "SECONDS-SINCE-START VMRSS-KB FDS SOCKETS"
(
	while [ "$(date +%s)" -lt $end ]; do
		t=$(($(date +%s) - start))
		rss=$(awk '$1 == "VmRSS:" { print $2 }' /proc/$pid/status)
		fds=$(ls /proc/$pid/fd | wc -l)
		socks=$(ls -l /proc/$pid/fd | grep -c 'socket:')
		echo "$t $rss $fds $socks"
		sleep 5
	done
) >samples.txt &
sampler=$!

# the workload: scenarios in turn until the time is up
split=""
[ "$KW_ARCH" = arm64 ] && [ "$KW_KERNEL" != 6.1 ] && split="--eager-split=2M"
n=0
while [ "$(date +%s)" -lt $end ]; do
	for s in empty-unmap split invalidate clear wrprotect-fault; do
		[ "$(date +%s)" -lt $end ] || break
		n=$((n + 1))
		case $s in
		empty-unmap)
			sleep 2.5
			timeout 5 wget -q -O un-$n.pre.prom $url || echo "$n pre" >>frame-fail.txt
			kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M \
				--sparse=64G --json=un-$n.json >/dev/null 2>load-$n.err
			rc=$?
			sleep 2.5
			timeout 5 wget -q -O un-$n.post.prom $url || echo "$n post" >>frame-fail.txt
			;;
		split)
			kvmwalk-load --scenario=split --vcpus=2 --mem=8M --iterations=2 --backing=thp \
				$split --json=/tmp/load.json >/dev/null 2>load-$n.err
			rc=$?
			;;
		*)
			kvmwalk-load --scenario=$s --vcpus=2 --mem=8M --iterations=2 \
				--json=/tmp/load.json >/dev/null 2>load-$n.err
			rc=$?
			;;
		esac
		echo "$n $s $rc $(($(date +%s) - start))" >>runs.txt
		[ $rc = 0 ] && rm -f load-$n.err
	done
done
wait $scraper
wait $sampler
sleep 2.5
timeout 5 wget -q -O last.prom $url
echo $? >last.rc
grep -E '^(VmRSS|VmHWM|VmSize|Threads):' /proc/$pid/status >serve.status
ls -l /proc/$pid/fd >serve.fds
kill -TERM $pid
wait $pid
echo $? >serve.rc
