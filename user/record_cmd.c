// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk record`: attaches, counts for a duration, until a signal or around a command, with
 * --interval snapshots, and writes one recording (record.c's JSON, outfile.c's whole-file
 * replace), and while it records, checkpoints of it to the same file (--checkpoint). A command,
 * the top layer.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "commands.h"
#include "clock.h"
#include "cmd_common.h"
#include "kvmstats_read.h"
#include "kvmstats_rec.h"
#include "loader.h"
#include "outfile.h"
#include "probe_opts.h"
#include "record.h"
#include "sampler.h"
#include "runs.h"
#include "workload.h"

enum {
	OPT_WORKLOAD = 1200, /* the probe options are numbered from 1100 */
	OPT_CHECKPOINT,
};

/* record --checkpoint's default: a kill loses at most the last minute */
#define KW_CHECKPOINT_S 60

struct record_args {
	struct cmd_common c; /* first: cmd_parse_common reads state->input as a struct cmd_common */
	const char *workload; /* --workload-times: a file, or - for the command's stdout */
	double checkpoint;    /* --checkpoint SECS, 0: none */
};

static error_t parse_record(int key, char *arg, struct argp_state *state)
{
	struct record_args *a = state->input;

	switch (key) {
	case OPT_WORKLOAD:
		if (!*arg)
			argp_error(state, "--workload-times: a file, or - for the command's output");
		a->workload = arg;
		return 0;
	case OPT_CHECKPOINT:
		a->checkpoint = cmd_parse_secs(arg, state, "--checkpoint", 1, 86400, true);
		return 0;
	case ARGP_KEY_END:
		if (a->workload && !a->c.ncmd)
			argp_error(state, "--workload-times: the times of which command? (-- CMD)");
		if (a->workload && !strcmp(a->workload, "-") && a->c.out && !strcmp(a->c.out, "-"))
			argp_error(state, "--workload-times - passes the command's output on to "
					  "stdout: the recording cannot go there too (-o FILE)");
		if (a->c.lo.set == KW_SET_NONE && a->c.interval)
			argp_error(state, "--probe none attaches nothing: --interval has nothing to "
					  "snapshot");
		break;
	}
	return cmd_parse_common(key, arg, state);
}

static const struct argp_option record_options[] = {
	{ .name = "output", .key = 'o', .arg = "FILE",
	  .doc = "write the recording here (default kvmwalk.json; - for stdout). Its directory is "
		 "checked before anything is attached; the recording goes to a temporary file "
		 "there, renamed over FILE when complete, and a previous FILE is kept as FILE.old. "
		 "A failed write (a full disk) leaves FILE as it was." },
	{ .name = "checkpoint", .key = OPT_CHECKPOINT, .arg = "SECS",
	  .doc = "while recording, write the recording so far to FILE every SECS seconds (default "
		 "60; 0: never), marked as a checkpoint (report says so), as FILE itself is "
		 "written: a kill (SIGKILL, the OOM killer) or a power cut loses at most the last "
		 "SECS. With --interval, at the first snapshot SECS after the last checkpoint. The "
		 "first one keeps a previous FILE as FILE.old; the end replaces the last one with "
		 "the whole recording. Not with -o - or a device" },
	{ .name = "duration", .key = 'd', .arg = "SECS",
	  .doc = "stop after SECS seconds (default: Ctrl-C or end of CMD)" },
	{ .name = "interval", .key = OPT_INTERVAL, .arg = "SECS",
	  .doc = "also keep a snapshot every SECS seconds of everything the recording counts "
		 "(per probe calls and time, counters, visits, dirty-log ioctls; the duration "
		 "histograms of walks, range TLB flushes and MMU-notifier invalidations), as "
		 "differences that sum to the totals: kvmwalk report --timeline shows them, with "
		 "each interval's p99" },
	{ .name = "kvm-stats", .key = OPT_KVM_STATS, .arg = "MODE",
	  .doc = "KVM's own per-VM statistics (pf_fast, pages_4k, remote_tlb_flush_requests, ...) "
		 "of the recorded VMs at the start and the end, and /proc/meminfo's "
		 "SecPageTables, at no probe cost: auto (debugfs; for what it cannot give, the "
		 "binary stats fds the VMM holds, through pidfd_getfd), debugfs, binary or off "
		 "(default auto). A VM that ends before the end keeps its last read (every 0.5 s). "
		 "report shows them beside kvmwalk's counts" },
	{ .name = "workload-times", .key = OPT_WORKLOAD, .arg = "FILE",
	  .doc = "also keep the command's own phase times: FILE is what it wrote them to, read "
		 "when it has exited (kvmwalk-load --json FILE; a file the command did not write "
		 "during the recording is refused); - is its standard output, passed on to "
		 "kvmwalk's as it comes and read too (the KVM selftests print their times there: "
		 "dirty_log_perf_test, access_tracking_perf_test, kvm_page_table_test). Either "
		 "a kvmwalk-load JSON document or a selftest's \"LABEL: SECS.NNNNNNNNNs\" lines. "
		 "report and compare set them against runs with fewer probes" },
	{ .doc = "Any kernel function (at most 8 with --count and --time together):", .group = 1 },
	{ .name = "count", .key = OPT_COUNT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "also count the calls of these kernel functions, per trigger (ioctl, "
		 "mmu_notifier, mmu_notifier_age, vcpu_fault, vm_teardown, other) and per process: "
		 "fentry, else "
		 "kprobe, as the built-in probes. A name not in /proc/kallsyms (misspelt, or "
		 "inlined: a static inline helper has no symbol), not in available_filter_functions "
		 "(notrace) or that no mechanism attaches is a usage error (exit 2), said with the "
		 "reason before CMD starts" },
	{ .name = "time", .key = OPT_TIME, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --count, and time each call (a duration histogram: report's p50 ... p99.9, "
		 "compare's rows); a recursive call loses the outer call's time (counted missed)" },
	{ .name = "count-optional", .key = OPT_COUNT_OPT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --count, but a function that cannot be attached is recorded as "
		 "\"unavailable: REASON\" instead of failing (a function only a patched kernel has)" },
	{ .name = "time-optional", .key = OPT_TIME_OPT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --time, optional as --count-optional" },
	{},
};

static const struct argp record_argp = {
	.options = record_options,
	.parser = parse_record,
	.args_doc = "[-- CMD [ARGS...]]",
	.children = kw_probe_children,
	.doc = "Records walker statistics into one JSON document (schema kvmwalk-recording/1, see "
	       "docs/recording-format.md): for a duration, until Ctrl-C / SIGTERM, or around a "
	       "command, whose exit status kvmwalk then exits with. BPF run-time statistics are on "
	       "while recording, so the recording holds the probes' own cost: the time of the "
	       "programs' bodies, a lower bound (the fentry trampoline or kprobe dispatch around "
	       "each run is not in it). Around a command, the recording also holds the command's "
	       "wall time (CLOCK_MONOTONIC from its fork to its exit) and, with --workload-times, "
	       "the phase times it measured itself.\n\n"
	       "Times carry the cost of the probes that run inside them. --probe timing attaches "
	       "only the probes that time a whole operation once (VM ioctls, MMU-notifier "
	       "invalidations, nested unmaps, VM teardowns), --probe none nothing at all (no BPF; "
	       "no root needed): record the same command with each, several times, and `kvmwalk "
	       "report` of all the files says how much recording slowed it; `kvmwalk compare` "
	       "takes each time from the runs with the fewest probes that measure it and each "
	       "count from the runs with every probe.\n\n"
	       "The sampled mode (--sample, --probe sampled) costs the same whatever KVM does: "
	       "a CPU clock samples every CPU at a fixed rate and the recording's sampled section "
	       "estimates the CPU time of each walker, flush, zap or fault function under each "
	       "trigger, with its error (report's \"Sampled CPU time\"). A --probe sampled run "
	       "attaches no probe, so report and compare count it as a bare run."
	       "\vExamples:\n"
	       "  kvmwalk record -d 10 -o idle.json\n"
	       "  kvmwalk record -o split.json -- kvmwalk-load --scenario split\n"
	       "  kvmwalk record --probe none -o bare1.json --workload-times load1.json \\\n"
	       "      -- kvmwalk-load --scenario split --json load1.json\n"
	       "  kvmwalk record --probe timing -o timing1.json --workload-times - \\\n"
	       "      -- dirty_log_perf_test -i 3\n"
	       "  kvmwalk record --probe sampled -o t.json -- kvmwalk-load --scenario teardown\n"
	       "  kvmwalk record --probe timing --sample=99 -o both.json -- kvmwalk-load\n"
	       "  kvmwalk record --pid \"$(pidof qemu-system-aarch64)\" --interval 1 -o mig.json\n"
	       "  kvmwalk record --vm web01 --vm web02 -d 60 -o two-vms.json\n"
	       "  kvmwalk record --count tdp_iter_next \\\n"
	       "      -- kvmwalk-load --scenario invalidate   # x86\n"
	       "  kvmwalk record --time tdp_mmu_zap_leafs --count-optional tdp_iter_next \\\n"
	       "      -o zaps.json -- kvmwalk-load --scenario invalidate --refault=no\n\n"
	       "The command to record comes last, after --: a word before it that is no option's "
	       "value is an error (several process ids are one --pid, comma- or space-separated). "
	       "--count checks a patch's mechanism the way its author would with kprobe hit "
	       "counts: report shows the calls per trigger and process, compare a row per "
	       "function. A function the compiler inlined has no symbol and cannot be counted "
	       "(the bundled hint patch's tdp_iter_skip_children() is static inline: count "
	       "tdp_iter_next, whose calls it removes, or mark the helper noinline).\n\n"
	       "Exit status: the command's, else 0; 1 error (the recording could not be written, "
	       "...); 2 usage (a bad option value, a --pid that does not exist, an -o directory "
	       "that is missing or not writable, a --count / --time function that cannot be "
	       "traced); " KW_EXIT_STATUS_PROBES,
};

/* ---- the command's wall time and output ---------------------------------------------------- */

/* SIGCHLD: when the command exited, read in the handler (clock_gettime is async-signal-safe). */
static volatile sig_atomic_t child_exited;
static __u64 child_exit_ns;

static void on_child(int sig)
{
	(void)sig;
	if (!child_exited) {
		child_exit_ns = kw_mono_ns();
		child_exited = 1;
	}
}

/*
 * --workload-times -: the command's stdout through a pipe that a thread copies to ours as it
 * comes (the command never waits on kvmwalk's loop) and keeps, up to TEE_KEEP bytes, to be read
 * for its times when it has exited.
 */
#define TEE_KEEP (16 << 20)

struct tee {
	int fd;
	pthread_t thread;
	bool running;
	volatile sig_atomic_t stop; /* the command exited: end at the first quiet 0.1 s */
	char *buf;
	size_t len;
	bool cut, out_broken;
};

static void *tee_run(void *arg)
{
	struct tee *t = arg;
	char chunk[65536];

	for (;;) {
		struct pollfd p = { .fd = t->fd, .events = POLLIN };
		ssize_t n;
		int k = poll(&p, 1, 100);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k < 0 || t->stop)
				break;
			continue;
		}
		n = read(t->fd, chunk, sizeof(chunk));
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0)
			break;
		for (ssize_t off = 0, w; off < n && !t->out_broken; off += w) {
			w = write(STDOUT_FILENO, chunk + off, n - off);
			if (w < 0 && errno == EINTR)
				w = 0;
			else if (w < 0)
				t->out_broken = true; /* a closed stdout: keep reading for the times */
		}
		if (t->len + n > TEE_KEEP) {
			t->cut = true;
			continue;
		}
		if (!t->buf && !(t->buf = malloc(TEE_KEEP + 1)))
			t->cut = true;
		else {
			memcpy(t->buf + t->len, chunk, n);
			t->len += n;
		}
	}
	return NULL;
}

static int tee_start(struct tee *t, int fd)
{
	sigset_t all, old;
	int err;

	t->fd = fd;
	/* the signals stay with the main thread, whose waits they must interrupt */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	err = pthread_create(&t->thread, NULL, tee_run, t);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (err) {
		fprintf(stderr, "kvmwalk: cannot pass the command's output on: %s\n", strerror(err));
		return -err;
	}
	t->running = true;
	return 0;
}

static void tee_stop(struct tee *t)
{
	if (t->running) {
		t->stop = 1;
		pthread_join(t->thread, NULL);
		t->running = false;
	}
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
	if (t->buf)
		t->buf[t->len] = 0;
}

/* A file the command wrote during the recording (modified at or after start_real), as text. */
static char *read_times_file(const char *path, double start_real)
{
	struct stat st;
	char *text;
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f) {
		fprintf(stderr, "kvmwalk: --workload-times %s: %s; no phase times kept\n", path,
			strerror(errno));
		return NULL;
	}
	if (fstat(fileno(f), &st) || !S_ISREG(st.st_mode) || st.st_size > TEE_KEEP) {
		fprintf(stderr, "kvmwalk: --workload-times %s: not a regular file of at most %d "
				"MiB; no phase times kept\n",
			path, TEE_KEEP >> 20);
		fclose(f);
		return NULL;
	}
	/* a file left by an earlier run would give its times to this one */
	if (st.st_mtim.tv_sec + st.st_mtim.tv_nsec / 1e9 < start_real - 1) {
		fprintf(stderr, "kvmwalk: --workload-times %s was not written during the recording "
				"(it is older); no phase times kept\n",
			path);
		fclose(f);
		return NULL;
	}
	text = malloc(st.st_size + 1);
	n = text ? fread(text, 1, st.st_size, f) : 0;
	fclose(f);
	if (text)
		text[n] = 0;
	return text;
}

static void keep_times(struct kw_recording *r, const char *text, const char *from,
		       const char *what)
{
	char err[192];

	if (!text)
		return;
	if (kw_workload_parse(&r->workload, text, err, sizeof(err))) {
		fprintf(stderr, "kvmwalk: --workload-times %s: %s\n", what, err);
		return;
	}
	snprintf(r->workload.from, sizeof(r->workload.from), "%s", from);
}

/* --probe none: no loader; every probe of this arch planned off, as the loader would say it. */
static void plan_none(struct kw_recording *r)
{
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, r->meta.arch))
			continue;
		r->plan[i].mech = KW_MECH_OFF;
		snprintf(r->plan[i].func, sizeof(r->plan[i].func), "%s",
			 kw_probes[i].func ?: kw_probes[i].tp_name ?: "");
		snprintf(r->plan[i].reason, sizeof(r->plan[i].reason), "not selected (--probe none)");
	}
}

/*
 * What a recording says besides the maps: the host, the options, the command. For the
 * checkpoints and the end alike.
 */
static void fill_meta(struct kw_recording *r, const struct loader *l, const struct cmd_common *cc,
		      int argc, char **argv, double duration, __u64 start_ns, double start_real)
{
	const char *of;
	double share;

	loader__meta(l, &r->meta);
	r->meta.duration_s = duration;
	r->meta.start_monotonic_ns = start_ns;
	r->meta.start_realtime_ns = start_real * 1e9; /* the same moment on the wall clock */
	memcpy(r->meta.pid_filter, cc->lo.pids, sizeof(r->meta.pid_filter));
	r->meta.npid_filter = cc->lo.npids;
	memcpy(r->meta.vm_filter, cc->lo.vms, sizeof(r->meta.vm_filter));
	r->meta.nvm_filter = cc->lo.nvms;
	r->meta.visits = cc->lo.visits;
	r->meta.exit_status = -1;
	snprintf(r->meta.probe_set, sizeof(r->meta.probe_set), "%s",
		 cc->lo.probe_arg ?: kw_probe_set_name(cc->lo.set));
	kw_meta_set_command(&r->meta, argc, argv);
	r->meta.command[0] = 0;
	for (int i = 0; i < cc->ncmd; i++) {
		size_t n = strlen(r->meta.command);

		snprintf(r->meta.command + n, sizeof(r->meta.command) - n, "%s%s", i ? " " : "",
			 cc->cmd[i]);
	}
	share = kw_run_cost_share(r, &of);
	if (!isnan(share)) {
		r->overhead.share = share;
		snprintf(r->overhead.share_of, sizeof(r->overhead.share_of), "%s", of);
	}
}

/* The checkpoints of one recording (--checkpoint). */
struct checkpoints {
	double every; /* seconds, 0: none */
	double next;  /* CLOCK_MONOTONIC s of the next one */
	bool written; /* one is in the -o FILE now (the later ones and the end replace it) */
	double start_real; /* CLOCK_REALTIME s at the recording's start */
};

/*
 * The recording so far into the -o FILE, marked as a checkpoint. snap holds the maps as they are
 * when @fresh (the snapshot just taken, which the intervals so far end with), else it is read
 * now and a last partial interval runs from the last snapshot to now. No KVM statistics (read at
 * the end) and no workload times (the command's, when it has exited).
 */
static void checkpoint(struct checkpoints *ck, struct loader *l, struct cmd_common *cc, int argc,
		       char **argv, struct kw_recording *snap, bool fresh,
		       const struct kw_interval *ivs, size_t nivs, const struct kw_interval *last,
		       double now, __u64 start_ns)
{
	struct kw_interval *copy = NULL;

	if (!fresh && loader__collect(l, snap))
		return;
	fill_meta(snap, l, cc, argc, argv, now, start_ns, ck->start_real);
	snap->meta.checkpoint = true;
	if (cc->interval && fresh) {
		snap->intervals = (struct kw_interval *)ivs; /* borrowed until the write is done */
		snap->nintervals = nivs;
	} else if (cc->interval && (copy = malloc((nivs + 1) * sizeof(*copy)))) {
		/* the intervals so far, borrowed, then the partial one, which is the copy's own */
		memcpy(copy, ivs, nivs * sizeof(*copy));
		copy[nivs] = (struct kw_interval){ .t = now };
		snap->intervals = copy;
		snap->nintervals = nivs + !kw_interval_diff(&copy[nivs], snap, last);
	}
	if (!kw_recording_checkpoint(snap, cc->out, &cc->of, !ck->written))
		ck->written = true;
	if (copy)
		kw_interval_free(&copy[nivs]);
	snap->intervals = NULL;
	snap->nintervals = 0;
	free(copy);
}

/*
 * Without probes (--probe sampled, --probe none) nothing needs the loop more often than the KVM
 * statistics (every KW_KVMSTATS_TICK) and the sampler's process names (every second): it sleeps
 * up to 250 ms, or until the end of -d. Waking every 20 ms instead cost the workload 5-10 % of
 * its time in the emulated hosts (a vCPU of theirs woken 50 times a second; measured with
 * `record --probe none` against bare runs, docs/performance.md, "The sampled mode"); the
 * command's exit (SIGCHLD) and Ctrl-C end the sleep at once.
 */
static int idle_wait_ms(double now, double end)
{
	double s = 0.25;

	if (end > 0 && end - now < s)
		s = end - now > 0.001 ? end - now : 0.001;
	return (int)(s * 1000);
}

static void sleep_ms(int ms)
{
	struct timespec ts = { .tv_sec = ms / 1000, .tv_nsec = (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL); /* a signal (the command's exit) ends it early */
}

int record_main(int argc, char **argv)
{
	struct record_args a = {
		.c = { .out = "kvmwalk.json", .of = { .dirfd = -1 }, .lo = { .none_ok = true, .sample_ok = true } },
		.checkpoint = KW_CHECKPOINT_S,
	};
	a.c.takes_cmd = true;
	struct checkpoints ck = {};
	struct cmd_common *cc = &a.c;
	struct kw_recording r = {}, snap = {};
	struct kw_kvmstats_reader ksr = { .dirfd = -1 };
	struct kw_kvmstats ks;
	struct kw_interval *ivs = NULL, last = {};
	struct tee tee = { .fd = -1 };
	size_t nivs = 0;
	struct loader *l = NULL;
	struct sampler *smp = NULL;
	pid_t child = 0;
	int code, status = 0, ret = 0, pfd[2] = { -1, -1 };
	double start, next_iv, start_real;
	__u64 start_ns, fork_ns = 0, end_ns = 0;
	bool bare, tee_out;
	char *times = NULL;

	argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	if (cmd_args_only()) {
		kw_outfile_close(&cc->of);
		return 0;
	}
	bare = cc->lo.set == KW_SET_NONE;
	tee_out = a.workload && !strcmp(a.workload, "-");
	cmd_install_signals();
	kw_kvmstats_init(&ks);
	/* every process keeps its rows after it exits: a recording attributes them all */
	cc->lo.keep_exited = true;
	/* --probe none: nothing is loaded, so nothing needs privileges or BTF */
	if (!bare) {
		l = loader__open(&cc->lo, &code);
		if (!l) {
			kw_outfile_close(&cc->of);
			return code;
		}
		/* for the run only: its overhead figures (report's "cost" section) need them */
		if (loader__stats_start(l, true))
			fprintf(stderr,
				"kvmwalk: BPF run-time statistics unavailable; no overhead figures\n");
	}
	if (cc->lo.sample_hz) {
		smp = sampler__open(cc->lo.sample_hz, true, cc->lo.verbose, &code);
		if (!smp) {
			loader__destroy(l);
			kw_outfile_close(&cc->of);
			return code;
		}
	}

	/* after attaching: the probes see all that KVM's statistics count from here to the end */
	kw_kvmstats_open(&ksr, cc->kvm_stats, "", true);
	kw_kvmstats_read(&ksr, &ks, 0, KW_KSR_START);
	if (!cc->ncmd)
		fprintf(stderr, "kvmwalk: recording; Ctrl-C to stop\n");
	/* CLOCK_MONOTONIC, as kvmwalk-load's phase start_ns: report --timeline can place them */
	start_ns = kw_mono_ns();
	start = start_ns / 1e9;
	start_real = kw_real_s();
	ck.start_real = start_real;
	next_iv = start + cc->interval;
	/* nothing to checkpoint without probes; -o - and a device (/dev/null) take one document */
	if (l && a.checkpoint && strcmp(cc->out, "-")) {
		struct stat st;

		if (fstatat(cc->of.dirfd, cc->of.base, &st, AT_SYMLINK_NOFOLLOW) ||
		    S_ISREG(st.st_mode) || S_ISLNK(st.st_mode))
			ck.every = a.checkpoint;
	}
	ck.next = start + ck.every;
	if (cc->ncmd) {
		struct sigaction sa = { .sa_handler = on_child, .sa_flags = SA_NOCLDSTOP };

		if (tee_out && pipe2(pfd, O_CLOEXEC)) {
			fprintf(stderr, "kvmwalk: pipe: %s\n", strerror(errno));
			ret = KW_EXIT_ERROR;
			goto cleanup;
		}
		sigemptyset(&sa.sa_mask);
		sigaction(SIGCHLD, &sa, NULL);
		fork_ns = kw_mono_ns();
		child = fork();
		if (child < 0) {
			fprintf(stderr, "kvmwalk: fork: %s\n", strerror(errno));
			ret = KW_EXIT_ERROR;
			goto cleanup;
		}
		if (!child) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			signal(SIGCHLD, SIG_DFL);
			if (tee_out && dup2(pfd[1], STDOUT_FILENO) < 0)
				_exit(127);
			execvp(cc->cmd[0], cc->cmd);
			fprintf(stderr, "kvmwalk: cannot run %s: %s\n", cc->cmd[0], strerror(errno));
			_exit(127);
		}
		if (tee_out) {
			close(pfd[1]);
			pfd[1] = -1;
			/* a reader of our output that goes away must not end the recording */
			signal(SIGPIPE, SIG_IGN);
			if (tee_start(&tee, pfd[0]))
				close(pfd[0]);
			pfd[0] = -1;
		}
	}
	for (;;) {
		double t = kw_mono_s();
		bool snapped = false;

		if (child > 0 && waitpid(child, &status, WNOHANG) == child) {
			end_ns = child_exited ? child_exit_ns : kw_mono_ns();
			child = -1;
			break;
		}
		if (cmd_got_signal) {
			if (child <= 0)
				break;
			/*
			 * the command got Ctrl-C too (same process group); SIGTERM is ours: pass it
			 */
			if (cmd_got_signal == SIGTERM)
				kill(child, SIGTERM);
			cmd_got_signal = 0;
		}
		if (cc->duration && t - start >= cc->duration)
			break;
		if (l && cc->interval && t >= next_iv) {
			struct kw_interval *p = realloc(ivs, (nivs + 1) * sizeof(*ivs));

			/*
			 * No room or no read: no snapshot now, and the next interval covers both
			 * (its t says so), so the intervals still sum to the totals.
			 */
			if (p)
				ivs = p;
			if (p && !loader__collect(l, &snap)) {
				/* t: when the read began (it takes a while: the maps, /proc) */
				ivs[nivs] = (struct kw_interval){ .t = t - start };
				snapped = !kw_interval_delta(&ivs[nivs], &snap, &last);
				nivs += snapped;
			}
			/* a read slower than the interval (emulation) skips ticks: no pile-up */
			do
				next_iv += cc->interval;
			while (next_iv <= kw_mono_s());
		}
		/*
		 * A checkpoint when one is due: with --interval, at the snapshot that ends the
		 * stretch (its intervals sum to its totals), unless the snapshots are further
		 * apart. The next is due SECS after this one is written, so a slow write cannot
		 * pile up.
		 */
		if (ck.every && t >= ck.next &&
		    (snapped || !cc->interval || cc->interval > ck.every)) {
			checkpoint(&ck, l, cc, argc, argv, &snap, snapped, ivs, nivs, &last,
				   t - start, start_ns);
			ck.next = kw_mono_s() + ck.every;
		}
		kw_kvmstats_tick(&ksr, &ks, t - start);
		/* wakes at each new process (its name) and, with --vm, exec; or at SIGCHLD */
		sampler__poll(smp);
		if (l)
			loader__poll(l, 20);
		else
			sleep_ms(idle_wait_ms(t, cc->duration ? start + cc->duration : 0));
	}
	kw_kvmstats_read(&ksr, &ks, kw_mono_s() - start, KW_KSR_END);

	if (l && loader__collect(l, &r)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	fill_meta(&r, l, cc, argc, argv, kw_mono_s() - start, start_ns, start_real);
	r.kvmstats = ks; /* moved into the recording */
	kw_kvmstats_init(&ks);
	kw_recording_kvmstats_scope(&r, cc->lo.pids, cc->lo.npids, cc->lo.nvms);
	kw_kvmstats_sort(&r.kvmstats);
	if (!l)
		plan_none(&r);
	if (smp && sampler__collect(smp, &r))
		fprintf(stderr, "kvmwalk: the sampled section could not be read whole\n");
	if (end_ns > fork_ns && fork_ns)
		r.meta.wall_ns = end_ns - fork_ns;
	if (l && cc->interval) {
		struct kw_interval iv = { .t = r.meta.duration_s };

		r.intervals = ivs; /* the snapshots so far, then the last partial interval */
		r.nintervals = nivs;
		ivs = NULL;
		nivs = 0;
		if (kw_interval_delta(&iv, &r, &last) || kw_recording_add_interval(&r, &iv)) {
			kw_interval_free(&iv);
			fprintf(stderr, "kvmwalk: out of memory: the last interval is missing\n");
		}
	}
	/* Detach before writing: nothing stays attached even if the write is slow. */
	loader__destroy(l);
	l = NULL;
	sampler__destroy(smp);
	smp = NULL;
	if (child == -1) {
		r.meta.exit_status = WIFEXITED(status)	   ? WEXITSTATUS(status)
				     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
							   : 1;
		ret = r.meta.exit_status;
	} else if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	if (tee_out) {
		tee_stop(&tee);
		if (tee.cut)
			fprintf(stderr, "kvmwalk: the command wrote more than %d MiB: its times were "
					"read from the first %d MiB\n",
				TEE_KEEP >> 20, TEE_KEEP >> 20);
		keep_times(&r, tee.buf, "stdout", "- (the command's output)");
	} else if (a.workload && child == -1) {
		times = read_times_file(a.workload, start_real);
		keep_times(&r, times, "file", a.workload);
	}
	if (kw_recording_save(&r, cc->out, &cc->of, ck.written)) {
		ret = ret ?: KW_EXIT_ERROR;
	} else if (strcmp(cc->out, "-")) {
		fprintf(stderr, "kvmwalk: wrote %s (%.1f s)\n", cc->out, r.meta.duration_s);
		/* what the set cost against what it timed: the bodies' run time, a lower bound */
		if (r.overhead.share_of[0])
			fprintf(stderr,
				"kvmwalk: %s run (--probe %s): the probes' BPF run time is >= %.3g %% "
				"of the time they measured (%s); a lower bound, without the "
				"trampoline or kprobe dispatch\n",
				kw_run_kind_names[kw_run_kind(&r)], r.meta.probe_set, 100 * r.overhead.share,
				r.overhead.share_of);
	}
	/* a --vm that matched nothing recorded nothing: said last, where it is read */
	for (__u32 i = 0; i < r.meta.nvm_unseen; i++)
		fprintf(stderr,
			"kvmwalk: --vm %s: no VM of that name was seen while recording, so nothing "
			"of it is in the recording (a VM's name is QEMU's -name or libvirt's "
			"domain)\n",
			r.meta.vm_unseen[i]);
cleanup:
	kw_kvmstats_close(&ksr);
	kw_kvmstats_free(&ks);
	tee_stop(&tee);
	for (int i = 0; i < 2; i++)
		if (pfd[i] >= 0)
			close(pfd[i]);
	loader__destroy(l);
	sampler__destroy(smp);
	kw_outfile_close(&cc->of);
	kw_recording_free(&r);
	kw_recording_free(&snap);
	for (size_t i = 0; i < nivs; i++)
		kw_interval_free(&ivs[i]);
	free(ivs);
	kw_interval_free(&last);
	free(times);
	free(tee.buf);
	return ret;
}
