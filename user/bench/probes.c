// SPDX-License-Identifier: GPL-2.0
/*
 * Probe-body cost (issue 6 part 1): program pairs on syscalls:sys_{enter,exit}_getppid around a
 * tight getppid() loop, one pair attached at a time, alternating over rounds, timed by the
 * kernel's BPF run-time statistics.
 *
 * bpftrace's pair: bpftrace loads the one-liner; we take its two programs by id (from
 * /proc/PID/fdinfo), stop bpftrace, and attach those same programs ourselves the way bpftrace
 * does (a tracepoint perf event with PERF_EVENT_IOC_SET_BPF), so they can alternate with the
 * others instead of running through every round.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "probes.h"
#include "empty.h"
#include "kvmwalk_abi.h" /* struct kw_hist_slots, in the skeleton's rodata */
#include "bench.skel.h"

#define BPFTRACE_PROG                                                                              \
	"tracepoint:syscalls:sys_enter_getppid { @s[tid] = nsecs } "                               \
	"tracepoint:syscalls:sys_exit_getppid /@s[tid]/ { @h = hist(nsecs - @s[tid]); "            \
	"delete(@s[tid]) }"

enum { V_NONE, V_EMPTY, V_CLOCK, V_KW, V_TASK, V_ACCT, V_KWI, V_BT, NR_V };

static struct bench_variant variants[NR_V] = {
	[V_NONE] = { .key = "-", .name = "no probes (loop ns/call)" },
	[V_EMPTY] = { .key = "a", .name = "empty pair" },
	[V_CLOCK] = { .key = "b", .name = "clock pair (floor)" },
	[V_KW] = { .key = "c", .name = "kvmwalk kw_enter/kw_exit" },
	[V_TASK] = { .key = "t", .name = "b + task-local storage lookups", .breakdown = true },
	[V_ACCT] = { .key = "h", .name = "b + stats, 2 hists, trigger", .breakdown = true },
	[V_KWI] = { .key = "i", .name = "c inside a KVM ioctl (row kept)", .breakdown = true },
	[V_BT] = { .key = "d", .name = "bpftrace hist() one-liner" },
};

/* Both programs of a pair: skeleton programs, or bpftrace's by fd. */
struct pair {
	struct bpf_program *prog[2];
	int fd[2];
	struct bpf_link *link[2];
	int pfd[2];
};

static struct pair pairs[NR_V];

/* /proc/loadavg's first field, -1 when it cannot be read */
static double loadavg1(void)
{
	FILE *f = fopen("/proc/loadavg", "r");
	double l = -1;

	if (f) {
		if (fscanf(f, "%lf", &l) != 1)
			l = -1;
		fclose(f);
	}
	return l;
}

static int read_tp_id(const char *name)
{
	static const char *const roots[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	char path[128];
	unsigned int i;
	int id = -1;
	FILE *f;

	for (i = 0; i < sizeof(roots) / sizeof(roots[0]) && id < 0; i++) {
		snprintf(path, sizeof(path), "%s/events/syscalls/%s/id", roots[i], name);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%d", &id) != 1)
			id = -1;
		fclose(f);
	}
	if (id < 0)
		fprintf(stderr, "bench: no tracepoint syscalls:%s (is tracefs mounted? "
				"mount -t tracefs nodev /sys/kernel/tracing)\n", name);
	return id;
}

/* As libbpf's bpf_program__attach_tracepoint() does it, for a program we only have an fd of. */
static int attach_fd(int prog_fd, int tp_id)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(attr),
		.config = tp_id,
		.sample_period = 1,
		.wakeup_events = 1,
	};
	int pfd;

	pfd = syscall(SYS_perf_event_open, &attr, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0) {
		fprintf(stderr, "bench: perf_event_open(tracepoint %d): %s\n", tp_id, strerror(errno));
		return -errno;
	}
	if (ioctl(pfd, PERF_EVENT_IOC_SET_BPF, prog_fd) || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;

		fprintf(stderr, "bench: attach bpftrace program: %s\n", strerror(errno));
		close(pfd);
		return err;
	}
	return pfd;
}

static int tp_ids[2];

static int pair_attach(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (p->prog[i]) {
			p->link[i] = bpf_program__attach(p->prog[i]);
			if (!p->link[i]) {
				fprintf(stderr, "bench: attach %s: %s\n", bpf_program__name(p->prog[i]),
					strerror(errno));
				return -errno;
			}
		} else if (p->fd[i] >= 0) {
			p->pfd[i] = attach_fd(p->fd[i], tp_ids[i]);
			if (p->pfd[i] < 0)
				return p->pfd[i];
		}
	}
	return 0;
}

static void pair_detach(struct pair *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		bpf_link__destroy(p->link[i]);
		p->link[i] = NULL;
		if (p->pfd[i] >= 0)
			close(p->pfd[i]);
		p->pfd[i] = -1;
	}
}

static int pair_fd(const struct pair *p, int i)
{
	return p->prog[i] ? bpf_program__fd(p->prog[i]) : p->fd[i];
}

struct snap {
	__u64 ns[2], cnt[2];
};

static int pair_stats(const struct pair *p, struct snap *s)
{
	int i;

	for (i = 0; i < 2; i++) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (bpf_obj_get_info_by_fd(pair_fd(p, i), &info, &len)) {
			fprintf(stderr, "bench: program info: %s\n", strerror(errno));
			return -errno;
		}
		s->ns[i] = info.run_time_ns;
		s->cnt[i] = info.run_cnt;
	}
	return 0;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double loop(long n)
{
	double t0 = now_ns();
	long i;

	for (i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (now_ns() - t0) / n;
}

/* One variant, one round: attach, warm up, time the loop, read the statistics, detach. */
static int measure(int v, int round, long calls, double none_loop)
{
	struct bench_variant *x = &variants[v];
	struct pair *p = &pairs[v];
	struct snap a = {}, b = {};
	int err = 0, i;
	double ev = 0;

	if (v != V_NONE) {
		err = pair_attach(p);
		if (err)
			goto cleanup;
	}
	loop(calls / 20 + 1);
	if (v != V_NONE && (err = pair_stats(p, &a)))
		goto cleanup;
	x->loop[round] = loop(calls);
	if (v != V_NONE) {
		err = pair_stats(p, &b);
		if (err)
			goto cleanup;
		for (i = 0; i < 2; i++) {
			__u64 cnt = b.cnt[i] - a.cnt[i];

			if (cnt < (__u64)calls) {
				fprintf(stderr, "bench: %s: program %d ran %llu times for %ld calls "
						"(are BPF run-time statistics on?)\n",
					x->name, i, (unsigned long long)cnt, calls);
				err = -EIO;
				goto cleanup;
			}
			ev += (double)(b.ns[i] - a.ns[i]) / cnt;
		}
	}
	x->ev[round] = ev;
	x->over[round] = v == V_NONE ? 0 : x->loop[round] - none_loop;
cleanup:
	if (v != V_NONE)
		pair_detach(p);
	return err;
}

static pid_t bt_pid = -1;

static void bt_stop(void)
{
	if (bt_pid > 0) {
		kill(bt_pid, SIGKILL);
		waitpid(bt_pid, NULL, 0);
	}
	bt_pid = -1;
}

/* Program ids of a process's BPF program fds, by program name prefix. */
static int find_bt_progs(pid_t pid, __u32 ids[2])
{
	char dir[64], path[320], line[128];
	struct dirent *de;
	int found = 0;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fdinfo", pid);
	d = opendir(dir);
	if (!d)
		return 0;
	while ((de = readdir(d))) {
		unsigned int id = 0;
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &id) == 1)
				break;
		fclose(f);
		if (id) {
			struct bpf_prog_info info = {};
			__u32 len = sizeof(info);
			int fd = bpf_prog_get_fd_by_id(id);

			if (fd < 0)
				continue;
			if (!bpf_obj_get_info_by_fd(fd, &info, &len) &&
			    info.type == BPF_PROG_TYPE_TRACEPOINT) {
				/* bpftrace names them after the tracepoint, cut to 15 characters. */
				if (!strncmp(info.name, "sys_enter_getpp", 15) && !ids[0])
					ids[0] = id, found++;
				else if (!strncmp(info.name, "sys_exit_getppi", 15) && !ids[1])
					ids[1] = id, found++;
			}
			close(fd);
		}
	}
	closedir(d);
	return found;
}

/* Loads the bpftrace one-liner and keeps its two programs; 0, or a negative errno. */
static int bt_load(const char *bpftrace, struct pair *p)
{
	__u32 ids[2] = {};
	int i, tries;

	bt_pid = fork();
	if (bt_pid < 0)
		return -errno;
	if (!bt_pid) {
		int null = open("/dev/null", O_RDWR);

		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execlp(bpftrace, bpftrace, "-e", BPFTRACE_PROG, (char *)NULL);
		fprintf(stderr, "bench: exec %s: %s\n", bpftrace, strerror(errno));
		_exit(127);
	}
	for (tries = 0; tries < 600; tries++) {
		int status;

		if (waitpid(bt_pid, &status, WNOHANG) == bt_pid) {
			fprintf(stderr, "bench: %s exited before loading its programs\n", bpftrace);
			bt_pid = -1;
			return -ENOENT;
		}
		if (find_bt_progs(bt_pid, ids) == 2 || (ids[0] && ids[1]))
			break;
		usleep(50000);
	}
	if (!ids[0] || !ids[1]) {
		fprintf(stderr, "bench: bpftrace loaded no getppid programs in 30 s\n");
		bt_stop();
		return -ETIMEDOUT;
	}
	for (i = 0; i < 2; i++) {
		p->fd[i] = bpf_prog_get_fd_by_id(ids[i]);
		if (p->fd[i] < 0) {
			fprintf(stderr, "bench: bpftrace program %u: %s\n", ids[i], strerror(errno));
			bt_stop();
			return -errno;
		}
	}
	/* Our fds keep the programs and their maps; bpftrace's own attachments go with it. */
	bt_stop();
	return 0;
}

static bool want(const char *sel, const char *key)
{
	return !sel || strchr(sel, key[0]);
}

int bench_probes(const struct bench_probe_opts *o)
{
	struct bench_bpf *skel = NULL;
	int stats_fd = -1, err = 0, i, r, n = 0;
	int order[NR_V];
	struct bench_header h = {};
	struct utsname u;
	cpu_set_t set;

	for (i = 0; i < NR_V; i++)
		pairs[i].fd[0] = pairs[i].fd[1] = pairs[i].pfd[0] = pairs[i].pfd[1] = -1;
	if (o->cpu >= 0) {
		CPU_ZERO(&set);
		CPU_SET(o->cpu, &set);
		if (sched_setaffinity(0, sizeof(set), &set)) {
			fprintf(stderr, "bench: pin to CPU %d: %s\n", o->cpu, strerror(errno));
			return -errno;
		}
	}
	tp_ids[0] = read_tp_id("sys_enter_getppid");
	tp_ids[1] = read_tp_id("sys_exit_getppid");
	if (tp_ids[0] < 0 || tp_ids[1] < 0)
		return -ENOENT;

	/* Restored when the fd is closed (kernel.bpf_stats_enabled counts its holders). */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		fprintf(stderr, "bench: enable BPF run-time statistics: %s\n", strerror(errno));
		return -errno;
	}

	skel = bench_bpf__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench: open BPF object: %s\n", strerror(errno));
		goto cleanup;
	}
	skel->rodata->bench_probe = o->probe;
	/* as the loader numbers a timed probe with a size: its duration and its size histogram */
	skel->rodata->kw_hslots.dur[o->probe] = 0;
	skel->rodata->kw_hslots.size[o->probe] = 1;
	bench_empty_slots_off(skel);
	err = bench_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bench: load BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	pairs[V_EMPTY].prog[0] = skel->progs.empty_enter;
	pairs[V_EMPTY].prog[1] = skel->progs.empty_exit;
	pairs[V_CLOCK].prog[0] = skel->progs.clock_enter;
	pairs[V_CLOCK].prog[1] = skel->progs.clock_exit;
	pairs[V_KW].prog[0] = skel->progs.kw_enter_prog;
	pairs[V_KW].prog[1] = skel->progs.kw_exit_prog;
	pairs[V_TASK].prog[0] = skel->progs.task_enter;
	pairs[V_TASK].prog[1] = skel->progs.task_exit;
	pairs[V_ACCT].prog[0] = skel->progs.acct_enter;
	pairs[V_ACCT].prog[1] = skel->progs.acct_exit;
	pairs[V_KWI].prog[0] = skel->progs.kw_ioctl_enter_prog;
	pairs[V_KWI].prog[1] = skel->progs.kw_ioctl_exit_prog;

	for (i = 0; i < NR_V; i++)
		variants[i].on = i == V_NONE || want(o->variants, variants[i].key);
	if (variants[V_BT].on) {
		if (!o->bpftrace) {
			variants[V_BT].on = false;
		} else if (bt_load(o->bpftrace, &pairs[V_BT])) {
			fprintf(stderr, "bench: bpftrace's pair (d) left out\n");
			variants[V_BT].on = false;
		}
	}

	h.load_before = loadavg1();
	for (i = 1; i < NR_V; i++)
		if (variants[i].on)
			order[n++] = i;
	for (r = 0; r < o->rounds; r++) {
		/* The no-probe loop first, then the pairs, starting one further each round. */
		err = measure(V_NONE, r, o->calls, 0);
		if (err)
			goto cleanup;
		variants[V_NONE].rounds++;
		for (i = 0; i < n; i++) {
			int v = order[(i + r) % n];

			err = measure(v, r, o->calls, variants[V_NONE].loop[r]);
			if (err)
				goto cleanup;
			variants[v].rounds++;
		}
		if (o->verbose)
			fprintf(stderr, "bench: round %d/%d done\n", r + 1, o->rounds);
	}

	h.load_after = loadavg1();
	h.has_load = h.load_before >= 0 && h.load_after >= 0;
	uname(&u);
	h.kernel = u.release;
	h.rounds = o->rounds;
	h.calls = o->calls;
	h.cpu = o->cpu;
	h.ncpus = libbpf_num_possible_cpus();
	h.probe = o->probe;
	/* Print order: the loop, the pairs a..d, then the breakdown under c. */
	{
		static const int print[] = { V_NONE, V_EMPTY, V_CLOCK, V_KW, V_TASK, V_ACCT, V_KWI,
					      V_BT };
		struct bench_variant out[NR_V];

		for (i = 0; i < NR_V; i++)
			out[i] = variants[print[i]];
		bench_print_table(stdout, &h, out, NR_V);
		if (o->raw) {
			printf("\n");
			bench_print_raw(stdout, out, NR_V);
		}
	}
cleanup:
	bt_stop();
	for (i = 0; i < NR_V; i++) {
		pair_detach(&pairs[i]);
		if (pairs[i].fd[0] >= 0)
			close(pairs[i].fd[0]);
		if (pairs[i].fd[1] >= 0)
			close(pairs[i].fd[1]);
	}
	bench_bpf__destroy(skel);
	if (stats_fd >= 0)
		close(stats_fd);
	return err;
}
