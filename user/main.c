// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk: argument parsing and dispatch. `probes`, `record`, `report` and `top` are here;
 * `serve` (serve.c) and `compare` (compare_cmd.c) parse their own options. The options of the
 * commands that attach probes are one argp child (probe_opts.c).
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

#include "clock.h"
#include "compare.h"
#include "host.h"
#include "loader.h"
#include "outfile.h"
#include "probe_opts.h"
#include "record.h"
#include "report.h"
#include "serve.h"
#include "timeline.h"
#include "top.h"
#include "version.h"

/* --version of kvmwalk and of each command: the version and the commit it was built from */
const char *argp_program_version = "kvmwalk " KW_VERSION " (git " KW_COMMIT ")";

static volatile sig_atomic_t got_signal;

static void on_signal(int sig)
{
	got_signal = sig;
}

static void install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed terminal or ssh session ends a recording as cleanly as Ctrl-C. */
	sigaction(SIGHUP, &sa, NULL);
}

/* Options of the commands here (the probe options are probe_opts.c's). */
enum {
	OPT_JSON = 1000,
	OPT_INTERVAL,
	OPT_ONCE,
	OPT_COUNT,
	OPT_TIME,
	OPT_COUNT_OPT,
	OPT_TIME_OPT,
};

struct common {
	struct loader_opts lo;
	bool json;
	const char *out;
	struct kw_outfile of; /* record: out's directory, checked and opened while parsing */
	double duration, interval;
	bool once;
	char **cmd;
	int ncmd;
};

static double parse_secs(const char *arg, struct argp_state *state, const char *what, double min,
			 double max)
{
	double v = 0;

	if (kw_secs_parse(arg, min, max, &v))
		argp_error(state, "%s must be a number of seconds from %g to %.0f, not '%s'", what,
			   min, max, arg);
	return v;
}

/*
 * record -o: a file that cannot be written is found now, before anything is attached, not after
 * the recording. The directory stays open for the write at the end (outfile.h).
 */
static void check_output(struct common *c, struct argp_state *state)
{
	char old[sizeof(c->of.base) + 4];
	struct stat st;
	int err = kw_outfile_open(&c->of, c->out);

	if (err == -EINVAL || err == -ENAMETOOLONG)
		argp_error(state, "-o %s names no file%s", c->out,
			   err == -ENAMETOOLONG ? " (the name is too long)" : "");
	if (err)
		argp_error(state, "-o %s: cannot create files in %s: %s", c->out, c->of.dir,
			   strerror(-err));
	if (!fstatat(c->of.dirfd, c->of.base, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		argp_error(state, "-o %s is a directory", c->out);
	snprintf(old, sizeof(old), "%s.old", c->of.base);
	if (!fstatat(c->of.dirfd, old, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		argp_error(state, "-o %s: %s.old (for the previous recording) is a directory",
			   c->out, c->out);
}

static error_t parse_common(int key, char *arg, struct argp_state *state)
{
	struct common *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->lo;
		break;
	case OPT_JSON:
		c->json = true;
		break;
	case 'o':
		c->out = arg;
		break;
	case 'd':
		c->duration = parse_secs(arg, state, "--duration", 0.001, 31 * 86400);
		break;
	case 'i':
	case OPT_INTERVAL:
		c->interval = parse_secs(arg, state, "--interval", 0.01, 86400);
		break;
	case OPT_ONCE:
		c->once = true;
		break;
	case OPT_COUNT:
	case OPT_TIME:
	case OPT_COUNT_OPT:
	case OPT_TIME_OPT: {
		char err[160];

		if (kw_ufunc_parse(arg, key == OPT_TIME || key == OPT_TIME_OPT,
				   key == OPT_COUNT_OPT || key == OPT_TIME_OPT, c->lo.ufuncs,
				   &c->lo.nufuncs, err, sizeof(err)))
			argp_error(state, "%s", err);
		break;
	}
	case ARGP_KEY_ARG:
		/* record: everything from the first non-option (after --) is the command */
		c->cmd = &state->argv[state->next - 1];
		c->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (c->out && strcmp(c->out, "-"))
			check_output(c, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

/* ---- probes ---------------------------------------------------------------------------------- */

static const struct argp_option probes_options[] = {
	{ .name = "json", .key = OPT_JSON, .doc = "print JSON" },
	{},
};

static const struct argp probes_argp = {
	.options = probes_options,
	.parser = parse_common,
	.children = kw_probe_children,
	.doc = "Shows how each probe attaches on this kernel: fentry, kprobe, tracepoint, or "
	       "unavailable with the reason (not in this kernel, not traceable, runs at EL2, "
	       "refused with an errno). The plan comes from really loading and attaching, then "
	       "detaching. The tracepoint fallbacks need tracefs: when /sys/kernel/tracing is not "
	       "mounted, kvmwalk uses debugfs's tracing/ if debugfs is mounted, else mounts tracefs "
	       "at /sys/kernel/tracing (as systemd does at boot); where it cannot (a container "
	       "without CAP_SYS_ADMIN), the reason says so and names the command that fixes it."
	       "\vExamples:\n"
	       "  kvmwalk probes\n"
	       "  kvmwalk probes --attach kprobe --json\n\n"
	       "Exit status: 0; 1 error; 2 usage; " KW_EXIT_STATUS_PROBES,
};

static int cmd_probes(int argc, char **argv)
{
	struct common c = {};
	struct loader *l;
	int code;

	argp_parse(&probes_argp, argc, argv, ARGP_IN_ORDER, NULL, &c);
	l = loader__open(&c.lo, &code);
	if (!l)
		return code;
	kw_plan_print(stdout, loader__get_plan(l), kw_host_arch(), c.json);
	loader__destroy(l);
	return 0;
}

/* ---- record ---------------------------------------------------------------------------------- */

static const struct argp_option record_options[] = {
	{ .name = "output", .key = 'o', .arg = "FILE",
	  .doc = "write the recording here (default kvmwalk.json; - for stdout). Its directory is "
		 "checked before anything is attached; the recording goes to a temporary file "
		 "there, renamed over FILE when complete, and a previous FILE is kept as FILE.old. "
		 "A failed write (a full disk) leaves FILE as it was." },
	{ .name = "duration", .key = 'd', .arg = "SECS",
	  .doc = "stop after SECS seconds (default: Ctrl-C or end of CMD)" },
	{ .name = "interval", .key = OPT_INTERVAL, .arg = "SECS",
	  .doc = "also keep a snapshot every SECS seconds of everything the recording counts "
		 "(per probe calls and time, counters, visits, dirty-log ioctls), as differences "
		 "that sum to the totals: kvmwalk report --timeline shows them" },
	{ .doc = "Any kernel function (at most 8 with --count and --time together):", .group = 1 },
	{ .name = "count", .key = OPT_COUNT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "also count the calls of these kernel functions, per trigger (ioctl, "
		 "mmu_notifier, vcpu_fault, vm_teardown, other) and per process: fentry, else "
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
	.parser = parse_common,
	.args_doc = "[-- CMD [ARGS...]]",
	.children = kw_probe_children,
	.doc = "Records walker statistics into one JSON document (schema kvmwalk-recording/1, see "
	       "docs/recording-format.md): for a duration, until Ctrl-C / SIGTERM, or around a "
	       "command, whose exit status kvmwalk then exits with. BPF run-time statistics are on "
	       "while recording, so the recording holds the probes' own cost."
	       "\vExamples:\n"
	       "  kvmwalk record -d 10 -o idle.json\n"
	       "  kvmwalk record -o split.json -- kvmwalk-load --scenario split\n"
	       "  kvmwalk record --pid $(pidof qemu-system-aarch64) --interval 1 -o mig.json\n"
	       "  kvmwalk record --pid 4242,4243 -d 60 -o two-vms.json\n"
	       "  kvmwalk record --count tdp_iter_skip_children \\\n"
	       "      -- kvmwalk-load --scenario invalidate\n"
	       "  kvmwalk record --time tdp_mmu_zap_leafs --count-optional tdp_iter_next \\\n"
	       "      -o zaps.json -- kvmwalk-load --scenario invalidate --refault=no\n\n"
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

static int cmd_record(int argc, char **argv)
{
	struct common c = { .out = "kvmwalk.json", .of = { .dirfd = -1 } };
	struct kw_recording r = {}, snap = {};
	struct kw_interval *ivs = NULL, last = {};
	size_t nivs = 0;
	struct loader *l;
	pid_t child = 0;
	int code, status = 0, ret = 0;
	double start, next_iv;
	__u64 start_ns;

	argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &c);
	install_signals();
	/* every process keeps its rows after it exits: a recording attributes them all */
	c.lo.keep_exited = true;
	l = loader__open(&c.lo, &code);
	if (!l) {
		kw_outfile_close(&c.of);
		return code;
	}
	if (loader__stats_start(l))
		fprintf(stderr,
			"kvmwalk: BPF run-time statistics unavailable; no overhead figures\n");

	if (!c.ncmd)
		fprintf(stderr, "kvmwalk: recording; Ctrl-C to stop\n");
	/* CLOCK_MONOTONIC, as kvmwalk-load's phase start_ns: report --timeline can place them */
	start_ns = kw_mono_ns();
	start = start_ns / 1e9;
	next_iv = start + c.interval;
	if (c.ncmd) {
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
			execvp(c.cmd[0], c.cmd);
			fprintf(stderr, "kvmwalk: cannot run %s: %s\n", c.cmd[0], strerror(errno));
			_exit(127);
		}
	}
	for (;;) {
		double t = kw_mono_s();

		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (got_signal) {
			if (child <= 0)
				break;
			/*
			 * the command got Ctrl-C too (same process group); SIGTERM is ours: pass it
			 */
			if (got_signal == SIGTERM)
				kill(child, SIGTERM);
			got_signal = 0;
		}
		if (c.duration && t - start >= c.duration)
			break;
		if (c.interval && t >= next_iv) {
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
				kw_interval_delta(&ivs[nivs++], &snap, &last);
			}
			/* a read slower than the interval (emulation) skips ticks: no pile-up */
			do
				next_iv += c.interval;
			while (next_iv <= kw_mono_s());
		}
		loader__poll(l, 20); /* wakes at each new process (its name) and, with --vm, exec */
	}

	if (loader__collect(l, &r)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	loader__meta(l, &r.meta);
	r.meta.duration_s = kw_mono_s() - start;
	r.meta.start_monotonic_ns = start_ns;
	memcpy(r.meta.pid_filter, c.lo.pids, sizeof(r.meta.pid_filter));
	r.meta.npid_filter = c.lo.npids;
	memcpy(r.meta.vm_filter, c.lo.vms, sizeof(r.meta.vm_filter));
	r.meta.nvm_filter = c.lo.nvms;
	r.meta.visits = c.lo.visits;
	r.meta.exit_status = -1;
	kw_meta_set_command(&r.meta, argc, argv);
	if (c.interval) {
		struct kw_interval iv = { .t = r.meta.duration_s };

		kw_interval_delta(&iv, &r, &last);
		r.intervals = ivs; /* the snapshots so far, then the last partial interval */
		r.nintervals = nivs;
		ivs = NULL;
		if (kw_recording_add_interval(&r, &iv))
			fprintf(stderr, "kvmwalk: out of memory: the last interval is missing\n");
	}
	for (int i = 0; i < c.ncmd; i++) {
		size_t n = strlen(r.meta.command);

		snprintf(r.meta.command + n, sizeof(r.meta.command) - n, "%s%s", i ? " " : "",
			 c.cmd[i]);
	}
	/* Detach before writing: nothing stays attached even if the write is slow. */
	loader__destroy(l);
	l = NULL;
	if (child == -1) {
		r.meta.exit_status = WIFEXITED(status)	   ? WEXITSTATUS(status)
				     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
							   : 1;
		ret = r.meta.exit_status;
	} else if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	if (kw_recording_save(&r, c.out, &c.of))
		ret = ret ?: KW_EXIT_ERROR;
	else if (strcmp(c.out, "-"))
		fprintf(stderr, "kvmwalk: wrote %s (%.1f s)\n", c.out, r.meta.duration_s);
cleanup:
	loader__destroy(l);
	kw_outfile_close(&c.of);
	kw_recording_free(&r);
	kw_recording_free(&snap);
	free(ivs);
	return ret;
}

/* ---- report ---------------------------------------------------------------------------------- */

enum {
	OPT_TIMELINE = 1100,
	OPT_CSV,
	OPT_PLOT,
};

struct report_args {
	struct common c; /* c.out: the recording */
	bool timeline, csv;
	const char *plot;
};

static const struct argp_option report_options[] = {
	{ .name = "json", .key = OPT_JSON,
	  .doc = "derived numbers as JSON (schema kvmwalk-report/1; its \"intervals\" are the "
		 "recording's with length_s and the --timeline rates); with --timeline only the "
		 "intervals" },
	{ .name = "timeline", .key = OPT_TIMELINE,
	  .doc = "one row per interval of a `record --interval SECS` recording, each column per "
		 "second of that interval's own length: walks, split visits, range TLB flushes, "
		 "empty flushes, dirty-log ioctls (KVM_GET_DIRTY_LOG, KVM_CLEAR_DIRTY_LOG) and the "
		 "time in walks in ms per s (1000: one CPU busy); - where not measured" },
	{ .name = "csv", .key = OPT_CSV,
	  .doc = "the timeline as CSV (implies --timeline): the rates, the raw counts, then "
		 "every probe's calls and ns, every counter and visit of each interval" },
	{ .name = "plot", .key = OPT_PLOT, .arg = "FILE.svg",
	  .doc = "also write the timeline's rates over time as an SVG, one panel per column "
		 "(implies --timeline)" },
	{},
};

static error_t parse_report(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->c.json = true;
		return 0;
	case OPT_TIMELINE:
		a->timeline = true;
		return 0;
	case OPT_CSV:
		a->csv = a->timeline = true;
		return 0;
	case OPT_PLOT:
		a->plot = arg;
		a->timeline = true;
		return 0;
	case ARGP_KEY_ARG:
		if (a->c.out)
			argp_error(state, "one recording at a time");
		a->c.out = arg;
		return 0;
	case ARGP_KEY_END:
		if (!a->c.out)
			argp_error(state, "which recording? (kvmwalk report FILE)");
		if (a->csv && a->c.json)
			argp_error(state, "--csv or --json, not both");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp report_argp = {
	.options = report_options,
	.parser = parse_report,
	.args_doc = "FILE",
	.doc = "Prints a recording: the host (kernel, command line, CPU, KVM parameters, THP), its "
	       "findings (each waste the recording proves, with its count, time and share, and the "
	       "bundled change in patches/ that removes it; what was checked when none), the "
	       "attach plan, per function calls, total, mean, p50/p90/p99/p99.9/max and a histogram, "
	       "walks by callback, visits by level and outcome, flushes per unmap and empty flushes, "
	       "calls per trigger, and the probes' own cost. Text fits 80 columns.\n\n"
	       "Quantiles come from the histogram's buckets, at most 12.5 % wide, interpolated and "
	       "clamped to the exact min and max: each is known to within 12.5 %. p99.9 of fewer "
	       "than 1000 calls is the slowest call (to within its bucket), not a tail of its own. "
	       "In --json the key is \"p99.9\" (jq: .\"p99.9\").\n\n"
	       "--timeline prints the snapshots of `kvmwalk record --interval SECS` instead: one "
	       "row per interval (t is its end, in seconds since the start; the last interval is "
	       "partial and its rates use its real length), the columns an operator reads during "
	       "a migration. Dirty-log ioctls are KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG calls "
	       "that returned (exact: kvm_vm_ioctl's own trigger rows); dirty logging's enable, "
	       "a KVM_SET_USER_MEMORY_REGION(2), shows as the split visits it causes. A recording "
	       "without intervals is an error (exit 1) that says to record with --interval."
	       "\vExamples:\n"
	       "  kvmwalk report split.json\n"
	       "  kvmwalk report split.json --json | jq .visits\n"
	       "  kvmwalk report split.json --json | jq '.findings[] | [.kind, .count]'\n"
	       "  kvmwalk record --interval 1 -o mig.json --pid $(pidof qemu-system-aarch64)\n"
	       "  kvmwalk report --timeline mig.json\n"
	       "  kvmwalk report --csv mig.json > mig.csv\n"
	       "  kvmwalk report --timeline --plot mig.svg mig.json\n"
	       "  kvmwalk report --json mig.json | jq '.intervals[].rates.split_visits_per_s'\n\n"
	       "Exit status: 0; 1 the file cannot be read, --timeline of a recording without "
	       "intervals, the plot cannot be written, or an error; 2 usage; 8 a truncated or "
	       "corrupt recording; 9 a recording of another schema version (as kvmwalk compare).",
};

/* --timeline, --csv, --plot and --timeline --json: the intervals of r. */
static int report_timeline(const struct report_args *a, const struct kw_recording *r)
{
	int err = 0;

	if (!r->nintervals) {
		fprintf(stderr,
			"kvmwalk: %s has no intervals: record with --interval SECS for a timeline "
			"(kvmwalk record --interval 1 -o FILE -- CMD)\n",
			a->c.out);
		return KW_EXIT_ERROR;
	}
	if (a->plot) {
		FILE *svg = fopen(a->plot, "w");

		err = svg ? kw_timeline_svg(svg, r, a->c.out) : -errno;
		if (svg && fclose(svg))
			err = err ?: -errno;
		if (err) {
			fprintf(stderr, "kvmwalk: cannot write %s: %s\n", a->plot, strerror(-err));
			return KW_EXIT_ERROR;
		}
	}
	if (a->csv) {
		err = kw_timeline_csv(stdout, r);
	} else if (a->c.json) {
		json_t *o = json_pack("{ssso}", "schema", "kvmwalk-report/1", "intervals",
				      kw_timeline_json(r));

		err = json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
						    JSON_REAL_PRECISION(6)) ? -EIO : 0;
		json_decref(o);
		putchar('\n');
	} else {
		err = kw_timeline_text(stdout, r, a->c.out);
	}
	return err ? KW_EXIT_ERROR : 0;
}

static int cmd_report(int argc, char **argv)
{
	struct report_args a = {};
	struct kw_recording r;
	char err[256];
	int ret;

	argp_parse(&report_argp, argc, argv, 0, NULL, &a);
	ret = kw_recording_load(&r, a.c.out, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kvmwalk: cannot read recording %s: %s\n", a.c.out, err);
		/* compare's codes for a damaged file (8) and another schema (9); unreadable: 1 */
		return ret == -EPROTO	? KW_CMP_EXIT_SCHEMA
		       : ret == -EINVAL ? KW_CMP_EXIT_CORRUPT
					: KW_EXIT_ERROR;
	}
	if (a.timeline)
		ret = report_timeline(&a, &r);
	else
		ret = (a.c.json ? kw_report_json(stdout, &r) : kw_report_text(stdout, &r, a.c.out))
			      ? KW_EXIT_ERROR
			      : 0;
	kw_recording_free(&r);
	return ret;
}

/* ---- top ------------------------------------------------------------------------------------- */

enum {
	OPT_TOP_FILTER = 1100, /* top's own, parsed by parse_top */
};

struct top_args {
	struct common c; /* first: parse_common reads state->input as a struct common */
	char filter[KW_TOP_FILTER_LEN];
};

static error_t parse_top(int key, char *arg, struct argp_state *state)
{
	struct top_args *t = state->input;

	switch (key) {
	case OPT_TOP_FILTER:
		if (strlen(arg) >= sizeof(t->filter))
			argp_error(state, "--filter: at most %zu characters",
				   sizeof(t->filter) - 1);
		snprintf(t->filter, sizeof(t->filter), "%s", arg);
		return 0;
	case ARGP_KEY_END:
		if (t->c.once && t->c.duration)
			argp_error(state, "--once or --duration, not both");
		break;
	}
	return parse_common(key, arg, state);
}

static const struct argp_option top_options[] = {
	{ .name = "interval", .key = 'i', .arg = "SECS",
	  .doc = "refresh every SECS seconds (default 2; + and - change it live, from 0.1 to 60)" },
	{ .name = "once", .key = OPT_ONCE,
	  .doc = "print the table of one interval and exit (no escapes, no keys; the table "
		 "also into a pipe)" },
	{ .name = "duration", .key = 'd', .arg = "SECS", .doc = "stop after SECS seconds" },
	{ .name = "filter", .key = OPT_TOP_FILTER, .arg = "TEXT",
	  .doc = "only the probes whose name contains TEXT (any case); the f key changes it" },
	{},
};

static const struct argp top_argp = {
	.options = top_options,
	.parser = parse_top,
	.children = kw_probe_children,
	.doc = "Live per-probe call rates, totals and latencies, refreshed every interval, like "
	       "kvm_stat. On a terminal, a full-screen table: per probe the calls/s over the "
	       "interval, the total calls since top started, the interval's mean, p50 and p99, and "
	       "the maximum since the start. Nothing stays attached after it ends, and the "
	       "terminal's settings are restored however it ends (q, Ctrl-C, SIGTERM, a "
	       "hangup).\n\n"
	       "Keys, read without Enter when stdin is a terminal:\n"
	       "  q    quit (exit status 0, as Ctrl-C)\n"
	       "  s    sort by the next column: calls/s (the default), total, mean, p50,\n"
	       "       p99, max, function; the header names it and marks its heading *\n"
	       "  v    rows per VM and back: each process the probes' trigger rows attribute\n"
	       "       work to, named by its VM (QEMU's -name, libvirt's scope), else its\n"
	       "       comm, else its pid (\"exited\": processes that ended meanwhile), with\n"
	       "       calls/s, total, probe time per second, mean and total time, then the\n"
	       "       same for each of its probes (sorts by calls/s, total, mean, name)\n"
	       "  f    filter by probe name: type part of a name (any case) on the bottom\n"
	       "       line; Enter applies it, an empty one clears it, Esc cancels\n"
	       "  + -  a longer or shorter interval: 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60 s\n"
	       "       (the header shows it, and (min) or (max) at the bounds)\n\n"
	       "When stdout is not a terminal (a pipe, a file), no escapes: as kvm_stat -l, one "
	       "heading line, then per interval one line per attached probe, in the catalogue's "
	       "order, as these two (in aligned columns):\n\n"
	       "  t probe calls/s total mean_ns p50_ns p99_ns max_ns\n\n"
	       "  2.00 kvm_vm_ioctl 4786.9 9574 200170 1452 7295229 12567476\n\n"
	       "t: the seconds since the start at the end of the interval; total: the calls "
	       "since the start; times: the interval's, in ns (max: since the start; - when the "
	       "interval had no timed call). With these lines only q, + and - are read."
	       "\vExamples:\n"
	       "  kvmwalk top\n"
	       "  kvmwalk top --once --interval 5\n"
	       "  kvmwalk top -i 1 -d 600 --filter ioctl > top.log\n"
	       "  kvmwalk top --pid $(pidof qemu-system-x86_64 | tr ' ' ,)\n\n"
	       "Exit status: 0 (q, Ctrl-C, --duration, the reader of a pipe gone); 1 error; 2 "
	       "usage (a bad option value, a --pid that does not exist); " KW_EXIT_STATUS_PROBES,
};

static volatile sig_atomic_t top_winch, top_tstp;

static void on_top_signal(int sig)
{
	if (sig == SIGWINCH)
		top_winch = 1;
	else
		top_tstp = 1;
}

/* What top did to the terminal, undone by top_term_restore() on every way out. */
static struct termios top_saved;
static bool top_cbreak, top_screen;

static void top_term_restore(void)
{
	if (top_screen) {
		/* the cursor back, and the screen that was there before top */
		fputs("\033[?25h\033[?1049l", stdout);
		fflush(stdout);
		top_screen = false;
	}
	if (top_cbreak) {
		tcsetattr(STDIN_FILENO, TCSANOW, &top_saved);
		top_cbreak = false;
	}
}

/* Keys without Enter: no canonical mode, no echo. Signals (Ctrl-C) stay on. */
static int top_term_setup(bool keys, bool screen)
{
	struct termios t;

	if (keys) {
		if (tcgetattr(STDIN_FILENO, &top_saved))
			return -errno;
		t = top_saved;
		t.c_lflag &= ~(ICANON | ECHO);
		t.c_cc[VMIN] = 1;
		t.c_cc[VTIME] = 0;
		if (tcsetattr(STDIN_FILENO, TCSANOW, &t))
			return -errno;
		top_cbreak = true;
	}
	if (screen) {
		fputs("\033[?1049h\033[?25l", stdout);
		top_screen = true;
	}
	return 0;
}

/*
 * One screen, over the last: each line cleared to its end, cut to the terminal's width, then
 * everything below cleared, in one write (stdout is fully buffered): no flicker.
 */
static void top_paint(const char *buf, int cols)
{
	fputs("\033[H", stdout);
	while (*buf) {
		size_t n = strcspn(buf, "\n");

		fwrite(buf, 1, cols > 0 && n > (size_t)cols ? (size_t)cols : n, stdout);
		fputs("\033[K", stdout);
		if (buf[n] == '\n')
			fputc('\n', stdout);
		buf += n + (buf[n] == '\n');
	}
	fputs("\033[J", stdout);
}

static int top_draw(const struct kw_recording *prev, const struct kw_recording *cur, double secs,
		    struct kw_top_view *v, bool screen)
{
	struct winsize ws = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *m;
	int ret;

	if (!screen) {
		ret = kw_top_render(stdout, prev, cur, secs, v);
		return ret ?: fflush(stdout) ? -errno : 0;
	}
	if (!ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_row)
		v->rows = ws.ws_row;
	m = open_memstream(&buf, &len);
	if (!m)
		return -ENOMEM;
	ret = kw_top_render(m, prev, cur, secs, v);
	if (fclose(m) && !ret)
		ret = -ENOMEM;
	if (!ret)
		top_paint(buf, ws.ws_col);
	free(buf);
	return ret ?: fflush(stdout) ? -errno : 0;
}

/* When the next interval ends: iv after from, or at the end of --duration. */
static double top_due(double from, double iv, const struct common *c, double start)
{
	return c->duration && from + iv > start + c->duration ? start + c->duration : from + iv;
}

static int cmd_top(int argc, char **argv)
{
	struct top_args a = { .c = { .interval = 2 } };
	struct common *c = &a.c;
	struct kw_recording prev = {}, cur = {}, next = {};
	struct kw_top_view v = {};
	struct sigaction sa = { .sa_handler = on_top_signal };
	struct loader *l;
	bool screen, keys, lines, quit = false, have_prev = false;
	double start, last, due, secs;
	int code, ret = 0, err = 0;

	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &a);
	install_signals();
	/* the reader of the log lines may go (| head): a failed write ends top, not SIGPIPE */
	signal(SIGPIPE, SIG_IGN);
	l = loader__open(&c->lo, &code);
	if (!l)
		return code;
	screen = !c->once && isatty(STDOUT_FILENO);
	lines = !c->once && !screen;
	/* a background `kvmwalk top &` must not take the terminal's keys (nor stop on SIGTTOU) */
	keys = !c->once && isatty(STDIN_FILENO) && tcgetpgrp(STDIN_FILENO) == getpgrp();
	v.interval = c->interval;
	v.keys = screen && keys;
	snprintf(v.filter, sizeof(v.filter), "%s", a.filter);
	if (screen)
		setvbuf(stdout, NULL, _IOFBF, 1 << 16);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGWINCH, &sa, NULL);
	if (keys || screen)
		sigaction(SIGTSTP, &sa, NULL);
	atexit(top_term_restore);
	if ((err = top_term_setup(keys, screen))) {
		fprintf(stderr, "kvmwalk: cannot set up the terminal: %s\n", strerror(-err));
		err = 0;
		keys = v.keys = false;
	}

	/* the start: every later interval is the change from the snapshot before it */
	if (loader__collect(l, &cur)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	loader__meta(NULL, &cur.meta);
	start = last = kw_mono_s();
	due = top_due(start, c->interval, c, start);
	secs = c->interval;
	if (screen)
		err = top_draw(&cur, &cur, secs, &v, screen);
	else if (lines)
		err = kw_top_lines_header(stdout, &cur) ?: fflush(stdout) ? -errno : 0;
	while (!got_signal && !quit && !err) {
		double t = kw_mono_s();
		bool redraw = false;

		if (t >= due) {
			if (loader__collect(l, &next)) {
				ret = KW_EXIT_ERROR;
				break;
			}
			loader__meta(NULL, &next.meta);
			kw_recording_free(&prev);
			prev = cur;
			cur = next;
			memset(&next, 0, sizeof(next));
			have_prev = true;
			secs = t - last;
			last = t;
			/* on the grid of the start, unless top fell a whole interval behind */
			due = top_due(due + v.interval > t ? due : t, v.interval, c, start);
			if (lines)
				err = kw_top_lines(stdout, &prev, &cur, secs, t - start, &v) ?:
				      fflush(stdout) ? -errno : 0;
			else
				err = top_draw(&prev, &cur, secs, &v, screen);
			if (c->once || (c->duration && t - start >= c->duration - 1e-3))
				break;
			continue;
		}
		if (top_tstp) {
			/* Ctrl-Z: the shell gets its terminal back as it was; top goes on after fg */
			top_tstp = 0;
			top_term_restore();
			signal(SIGTSTP, SIG_DFL);
			raise(SIGTSTP);
			sigaction(SIGTSTP, &sa, NULL);
			top_term_setup(keys, screen);
			redraw = true;
		}
		if (top_winch) {
			top_winch = 0;
			redraw = true;
		}
		if (keys) {
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
			double wait = due - t < 0.25 ? due - t : 0.25;
			unsigned char buf[64];
			ssize_t n = 0;

			if (!redraw && poll(&pfd, 1, (int)(wait * 1000) + 1) > 0)
				n = read(STDIN_FILENO, buf, sizeof(buf));
			/* the terminal went (a hangup, EIO): the keys with it, not a busy loop */
			if ((n == 0 && pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) ||
			    (n < 0 && errno != EINTR && errno != EAGAIN))
				keys = v.keys = false;
			for (ssize_t i = 0; i < n && !quit; i++) {
				/* the log lines have no prompt, no sort, no VM view */
				if (lines && (!buf[i] || !strchr("qQ+=-", buf[i])))
					continue;
				switch (kw_top_key(&v, buf[i])) {
				case KW_TOP_QUIT:
					quit = true;
					break;
				case KW_TOP_INTERVAL:
					due = top_due(last, v.interval, c, start);
					redraw = true;
					break;
				case KW_TOP_REDRAW:
					redraw = true;
					break;
				case KW_TOP_NONE:
					break;
				}
			}
		} else if (!redraw) {
			double w = due - t < 0.05 ? due - t : 0.05;

			loader__poll(l, w > 0 ? (int)(w * 1000) + 1 : 0);
		}
		/* with keys the wait was on stdin: the loader's events (names, --vm) now */
		if (keys)
			loader__poll(l, 0);
		if (redraw && screen && !quit)
			err = top_draw(have_prev ? &prev : &cur, &cur, secs, &v, screen);
	}
	/* the reader of the lines went away (| head): that is the end, not an error */
	if (err && err != -EPIPE) {
		fprintf(stderr, "kvmwalk: writing the table: %s\n", strerror(-err));
		ret = KW_EXIT_ERROR;
	}
cleanup:
	top_term_restore();
	loader__destroy(l);
	kw_recording_free(&prev);
	kw_recording_free(&cur);
	kw_recording_free(&next);
	return ret;
}

/* ---- dispatch -------------------------------------------------------------------------------- */

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} cmds[] = {
	{ "probes", cmd_probes, "what can be attached on this kernel, and how" },
	{ "record", cmd_record, "record for a time, until Ctrl-C, or around a command" },
	{ "report", cmd_report, "print a recording (text <= 80 columns, or --json)" },
	{ "top", cmd_top, "live per-function rates and latencies" },
	{ "serve", serve_main, "Prometheus exporter (HTTP on loopback, or a textfile)" },
	{ "compare", compare_main, "before/after report of recordings, for patch reviews" },
};

static void usage(FILE *f)
{
	fprintf(f, "Usage: kvmwalk COMMAND [OPTIONS]\n\n"
		   "Measures what KVM's page-table walkers cost on this host.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
	fprintf(f, "\nOptions:\n  -h, --help     this list\n"
		   "  -V, --version  the version and the git commit kvmwalk was built from\n"
		   "\n`kvmwalk COMMAND --help` is the manual of each command.\n");
}

int main(int argc, char **argv)
{
	argp_err_exit_status = KW_EXIT_USAGE;
	if (argc < 2) {
		usage(stderr);
		return KW_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", argp_program_version);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		argv[1] = (char[32]){};
		snprintf(argv[1], 32, "kvmwalk %s", cmds[i].name);
		return cmds[i].fn(argc - 1, argv + 1);
	}
	fprintf(stderr, "kvmwalk: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return KW_EXIT_USAGE;
}
