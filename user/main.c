// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk: argument parsing and dispatch. `probes`, `record`, `report` and `top` are here;
 * `serve` (serve.c) and `compare` (compare_cmd.c) parse their own options. The options of the
 * commands that attach probes are one argp child (probe_opts.c).
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

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

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static double now_s(void)
{
	return now_ns() / 1e9;
}

/* Options of the commands here (the probe options are probe_opts.c's). */
enum {
	OPT_JSON = 1000,
	OPT_INTERVAL,
	OPT_ONCE,
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

/* Seconds in [min, max]: "inf", "nan" and 1e999 would make a recording that never ends. */
static double parse_secs(const char *arg, struct argp_state *state, const char *what, double min,
			 double max)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || end == arg || !(v >= min && v <= max))
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
	       "  kvmwalk record --pid 4242,4243 -d 60 -o two-vms.json\n\n"
	       "Exit status: the command's, else 0; 1 error (the recording could not be written, "
	       "...); 2 usage (a bad option value, a --pid that does not exist, an -o directory "
	       "that is missing or not writable); " KW_EXIT_STATUS_PROBES,
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
	start_ns = now_ns();
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
		double t = now_s();

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
			while (next_iv <= now_s());
		}
		loader__poll(l, 20); /* --vm: wakes at each exec */
	}

	if (loader__collect(l, &r)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	loader__meta(l, &r.meta);
	r.meta.duration_s = now_s() - start;
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
	       "attach plan, per function calls, total, mean, p50/p90/p99/max and a histogram, walks "
	       "by callback, visits by level and outcome, flushes per unmap and empty flushes, calls "
	       "per trigger, and the probes' own cost. Text fits 80 columns.\n\n"
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

static const struct argp_option top_options[] = {
	{ .name = "interval", .key = 'i', .arg = "SECS",
	  .doc = "refresh every SECS seconds (default 2)" },
	{ .name = "once", .key = OPT_ONCE,
	  .doc = "print one interval and exit (no screen clearing)" },
	{},
};

static const struct argp top_argp = {
	.options = top_options,
	.parser = parse_common,
	.children = kw_probe_children,
	.doc = "Live per-function call rates and latencies, refreshed every interval, like "
	       "kvm_stat. Ctrl-C ends it; nothing stays attached."
	       "\vExamples:\n"
	       "  kvmwalk top\n"
	       "  kvmwalk top --once --interval 5\n"
	       "  kvmwalk top --pid $(pidof qemu-system-x86_64 | tr ' ' ,)\n\n"
	       "Exit status: 0; 1 error; 2 usage (a bad option value, a --pid that does not "
	       "exist); " KW_EXIT_STATUS_PROBES,
};

static int cmd_top(int argc, char **argv)
{
	struct common c = { .interval = 2 };
	struct kw_recording prev = {}, cur = {};
	struct loader *l;
	int code, ret = 0;
	bool have_prev = false;

	argp_parse(&top_argp, argc, argv, ARGP_IN_ORDER, NULL, &c);
	install_signals();
	l = loader__open(&c.lo, &code);
	if (!l)
		return code;
	while (!got_signal) {
		double t0 = now_s();

		while (!got_signal && now_s() - t0 < c.interval)
			loader__poll(l, 50);
		if (loader__collect(l, &cur)) {
			ret = KW_EXIT_ERROR;
			break;
		}
		loader__meta(NULL, &cur.meta);
		if (!c.once)
			fputs("\033[H\033[2J", stdout);
		kw_top_render(stdout, have_prev ? &prev : NULL, &cur, now_s() - t0);
		fflush(stdout);
		kw_recording_free(&prev);
		prev = cur;
		memset(&cur, 0, sizeof(cur));
		have_prev = true;
		if (c.once)
			break;
	}
	loader__destroy(l);
	kw_recording_free(&prev);
	kw_recording_free(&cur);
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
