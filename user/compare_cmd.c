// SPDX-License-Identifier: GPL-2.0
/* `kvmwalk compare`: its options, loading and checking the recordings, one-line errors. */
/* argp tables are positional; their trailing fields are meant to stay zero */
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "compare.h"
#include "outfile.h"

/* "--" between the sides reaches the parser as this word, so options may follow it. */
#define SIDE_SEPARATOR "\001--"

enum {
	OPT_FORMAT = 1000,
	OPT_METRIC,
	OPT_FUNCTION,
	OPT_PLOT,
	OPT_LEVEL,
	OPT_METHOD,
	OPT_OUTPUT,
};

struct compare_args {
	enum kw_compare_format fmt;
	struct kw_compare_opts o;
	const char *plot, *output;
	const char **paths[2];
	size_t n[2];
	int side;
};

static const struct argp_option options[] = {
	{ "format", OPT_FORMAT, "FMT", 0,
	  "text (default: at most 72 columns, no tabs, no colour: paste-ready for a mailing list), "
	  "markdown or json (schema kvmwalk-compare/1)" },
	{ "function", OPT_FUNCTION, "LIST", 0,
	  "only the rows of these functions (comma-separated probe names as `kvmwalk probes` shows "
	  "them, 'counters', 'command' for the wall time or 'phases' for the command's own "
	  "phases); also limits --plot" },
	{ "metric", OPT_METRIC, "LIST", 0,
	  "only these metrics (comma-separated): calls, median (or p50), p90, p99, p99.9, mean, L3 "
	  "(visits per walk at a level), cleared, flushes, empty, gfns, zapped, wall, a counter's "
	  "name; a word matches a metric's first word" },
	{ "plot", OPT_PLOT, "FILE.svg", 0,
	  "also write the before and after duration histograms of each function, overlaid on a log "
	  "time axis with the medians marked, as a plain SVG file" },
	{ "output", OPT_OUTPUT, "FILE", 0,
	  "write the report here instead of stdout. This file and --plot's are written to a "
	  "temporary file next to them, renamed over FILE when complete, a previous FILE kept as "
	  "FILE.old: a failed write (a full disk) leaves FILE as it was" },
	{ "level", OPT_LEVEL, "CONF", 0,
	  "confidence asked for the intervals (default 0.95); with few runs the exact level "
	  "reached is shown" },
	{ "method", OPT_METHOD, "METHOD", 0,
	  "hodges-lehmann (default: exact Mann-Whitney coverage at any number of runs) or "
	  "bootstrap (seeded percentile bootstrap of the ratio of medians)" },
	{},
};

static error_t parse(int key, char *arg, struct argp_state *state)
{
	struct compare_args *a = state->input;
	const char **p;
	char *end;

	switch (key) {
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			a->fmt = KW_COMPARE_TEXT;
		else if (!strcmp(arg, "markdown") || !strcmp(arg, "md"))
			a->fmt = KW_COMPARE_MARKDOWN;
		else if (!strcmp(arg, "json"))
			a->fmt = KW_COMPARE_JSON;
		else
			argp_error(state, "--format is text, markdown or json, not '%s'", arg);
		break;
	case OPT_FUNCTION:
		a->o.functions = arg;
		break;
	case OPT_METRIC:
		a->o.metrics = arg;
		break;
	case OPT_PLOT:
		a->plot = arg;
		break;
	case OPT_OUTPUT:
		a->output = arg;
		break;
	case OPT_LEVEL:
		a->o.level = strtod(arg, &end);
		if (*end || !(a->o.level > 0 && a->o.level < 1))
			argp_error(state, "--level is a confidence between 0 and 1, not '%s'", arg);
		break;
	case OPT_METHOD:
		if (!strcmp(arg, "hodges-lehmann"))
			a->o.method = KW_CI_HODGES_LEHMANN;
		else if (!strcmp(arg, "bootstrap"))
			a->o.method = KW_CI_BOOTSTRAP;
		else
			argp_error(state, "--method is hodges-lehmann or bootstrap, not '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		if (!strcmp(arg, SIDE_SEPARATOR)) {
			if (a->side)
				argp_error(state, "one -- between the sides, not two");
			a->side = 1;
			break;
		}
		p = realloc(a->paths[a->side], (a->n[a->side] + 1) * sizeof(*p));
		if (!p)
			argp_failure(state, KW_CMP_EXIT_ERROR, ENOMEM, "compare");
		p[a->n[a->side]++] = arg;
		a->paths[a->side] = p;
		break;
	case ARGP_KEY_END:
		if (!a->side)
			argp_error(state, "no -- between the base and the new recordings");
		if (!a->n[0])
			argp_error(state, "no base recording before --");
		if (!a->n[1])
			argp_error(state, "no new recording after --");
		{
			char msg[3072];

			if (kw_compare_check_names(a->o.functions, a->o.metrics, msg, sizeof(msg)))
				argp_error(state, "%s", msg);
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	options, parse, "BASE.json... -- NEW.json...",
	"Compares recordings before and after a change (several per side: repeated runs) and "
	"prints a report that can be pasted into a patch review thread as it is:\n"
	"- a header naming both sides (kernel release, arch, host, runs) and every difference of "
	"their environments that can change the numbers: kernel command line (mitigations), KVM "
	"module parameters, THP, CPU, KVM mode, the test conditions (bare metal, VM or emulated; "
	"online CPUs, SMT, NUMA nodes and balancing; hugetlb pages; preemption model; mitigation "
	"options and each CPU vulnerability's state; kvm-arm.mode and the IPA size limit; the VM "
	"processes' VMM and version, IPA size, eager split and command lines), attach mechanism of "
	"each probe, probe overhead; \"measurement boundary changed: FUNC\" when a function the "
	"report shows was measured otherwise on the two sides (another mechanism, another symbol "
	"or tracepoint, absent, inlined or off in some runs); warnings when the probe overhead "
	"differs by more than a "
	"change measured, a base run and a new run are the same recording (one file, or files of "
	"identical content), or the recorded commands differ (both shown, shortened);\n"
	"- a section per known kernel change whose quantity the recordings hold: split visits that "
	"did nothing per block (arm64 eager split), entries visited and zapped per TDP zap (x86), "
	"flushes by unmaps that cleared nothing (arm64), fast page faults by outcome and the "
	"time in fast_page_fault and in the whole fault handler per run (x86; the TDP MMU "
	"against the shadow MMU: compare recordings made with kvm.tdp_mmu=N as the base);\n"
	"- per function: calls per run, median, p90, p99, p99.9 and mean duration, work per call "
	"(visits per walk by level, leaves cleared and flushes per unmap, entries zapped per zap), "
	"each as the median over runs with the change in percent and its confidence interval "
	"across runs; 'n.s.' (no significant change) when the interval holds 0. With one run on a "
	"side no interval can be given, and the report says so. 3 runs per side reach 90 %, 4 reach "
	"97 %. A run's quantile comes from its histogram, whose buckets are 12.5 % wide: a change "
	"smaller than that in a tail is not resolved. A run with fewer than 1000 calls has no p99.9 "
	"of its own: it is that run's slowest call (to within its bucket), so the p99.9 row then "
	"compares maxima;\n"
	"- the kvmwalk commands that made the recordings.\n\n"
	"A side may hold runs of different kinds, by what they attached: bare (record --probe "
	"none: no BPF, the command's wall time and, with --workload-times, its own phase times), "
	"timing (--probe timing: only probes that time a whole operation once), cheap, full (every "
	"probe). Every probe that runs inside a time is in it, so each time row is taken from the "
	"runs with the fewest probes that measure it (the wall time and the phases from bare runs, "
	"an ioctl's or a notifier's time from timing runs, a walk's time from full runs), each count "
	"from the runs with the most, the same kind on both sides where one has runs on both (else "
	"a warning); the header lists the runs of each kind and how much recording slowed each "
	"side's command, each group says the runs its rows come from, and a time only cheap or "
	"full runs carry is marked ~. The probe overhead is the BPF run time of the programs' "
	"bodies: a lower bound, without the fentry trampoline or kprobe dispatch."
	"\vExamples:\n"
	"  kvmwalk compare base1.json base2.json base3.json -- new1.json new2.json\n"
	"  kvmwalk compare 6.12/run*.json -- 7.3/run*.json --format markdown\n"
	"  kvmwalk compare a*.json -- b*.json --function fast_page_fault --metric p99\n"
	"  kvmwalk compare base*.json -- new*.json --plot split.svg --format json\n"
	"  (record each side with the same command, e.g. 3 times:\n"
	"   kvmwalk record -o base1.json -- kvmwalk-load --scenario=split)\n"
	"  (times apart from counts: also 3 of each of\n"
	"   kvmwalk record --probe none -o bare1.json --workload-times - \\\n"
	"       -- kvmwalk-load --scenario=split --json\n"
	"   kvmwalk record --probe timing -o timing1.json ...)\n\n"
	"Exit status: 0; 1 error (out of memory, cannot write: said on stderr); 2 usage; 7 a file "
	"cannot be read; "
	"8 a file is truncated or corrupt (not JSON, not a recording); 9 a recording of another "
	"schema version (this kvmwalk reads kvmwalk-recording/1); 10 recordings of different "
	"arches. The message names the file."
};

static int classify(int err)
{
	switch (err) {
	case -EPROTO:
		return KW_CMP_EXIT_SCHEMA;
	case -EINVAL:
		return KW_CMP_EXIT_CORRUPT;
	case -ENOMEM:
		return KW_CMP_EXIT_ERROR;
	default:
		return KW_CMP_EXIT_UNREADABLE;
	}
}

int kw_compare_load(const char *const *paths, size_t n, struct kw_recording *out,
		    const char *arch_of, const char *arch_path, char *err, size_t errlen)
{
	char why[256];
	size_t i;
	int ret = 0, e;

	for (i = 0; i < n; i++) {
		e = kw_recording_load(&out[i], paths[i], why, sizeof(why));
		if (e) {
			ret = classify(e);
			snprintf(err, errlen, "%s: %s%s", paths[i],
				 ret == KW_CMP_EXIT_CORRUPT ? "truncated or corrupt recording: "
				 : ret == KW_CMP_EXIT_UNREADABLE ? "cannot read: "
								 : "",
				 why);
			break;
		}
		/* comparable, but of a record that did not finish: its runs are short */
		if (out[i].meta.checkpoint)
			fprintf(stderr,
				"kvmwalk: %s is a checkpoint at %.1f s: record did not finish it\n",
				paths[i], out[i].meta.duration_s);
		if (!out[i].meta.arch[0]) {
			kw_recording_free(&out[i]);
			ret = KW_CMP_EXIT_CORRUPT;
			snprintf(err, errlen, "%s: truncated or corrupt recording: no meta.arch",
				 paths[i]);
			break;
		}
		if (!arch_of) {
			arch_of = out[i].meta.arch;
			arch_path = paths[i];
		} else if (strcmp(arch_of, out[i].meta.arch)) {
			ret = KW_CMP_EXIT_ARCH;
			snprintf(err, errlen,
				 "%s: a recording of %s, but %s is of %s: a comparison "
				 "needs one arch",
				 paths[i], out[i].meta.arch, arch_path, arch_of);
			kw_recording_free(&out[i]);
			break;
		}
	}
	if (ret)
		while (i--)
			kw_recording_free(&out[i]);
	return ret;
}

struct print_arg {
	const struct kw_compare *c;
	enum kw_compare_format fmt;
};

static int put_report(FILE *f, void *arg)
{
	const struct print_arg *pa = arg;

	return kw_compare_print(f, pa->c, pa->fmt);
}

struct plot_arg {
	const struct kw_recording *base;
	size_t nbase;
	const struct kw_recording *new;
	size_t nnew;
	const char *functions;
};

static int put_plot(FILE *f, void *arg)
{
	const struct plot_arg *pl = arg;

	return kw_compare_plot(f, pl->base, pl->nbase, pl->new, pl->nnew, pl->functions);
}

/*
 * --output and --plot: a temporary file next to FILE, renamed over it when complete, the previous
 * FILE kept as FILE.old (as record -o): a full disk leaves the previous file whole.
 */
static int write_file(const char *path, int (*fill)(FILE *f, void *arg), void *arg)
{
	bool kept;
	int err = kw_outfile_write(path, KW_OUTFILE_KEEP_OLD, fill, arg, &kept);

	if (err)
		fprintf(stderr, "kvmwalk compare: cannot write %s: %s (%s is left as it was)\n",
			path, strerror(-err), path);
	else if (kept)
		fprintf(stderr, "kvmwalk compare: kept the previous %s as %s.old\n", path, path);
	return err;
}

int compare_main(int argc, char **argv)
{
	struct compare_args a = { .o = { .level = 0.95, .method = KW_CI_HODGES_LEHMANN } };
	struct kw_recording *base = NULL, *new = NULL;
	struct kw_compare c = {};
	char **args, err[768];
	int ret = 0, e, i;

	args = calloc(argc + 1, sizeof(*args));
	if (!args)
		return KW_CMP_EXIT_ERROR;
	for (i = 0; i < argc; i++)
		args[i] = argv[i];
	/* the first "--" separates the sides; getopt would swallow it */
	for (i = 1; i < argc; i++)
		if (!strcmp(args[i], "--")) {
			args[i] = (char *)SIDE_SEPARATOR;
			break;
		}
	argp_parse(&argp, argc, args, ARGP_IN_ORDER, NULL, &a);
	if (cmd_args_only())
		goto cleanup;

	base = calloc(a.n[0], sizeof(*base));
	new = calloc(a.n[1], sizeof(*new));
	if (!base || !new) {
		ret = KW_CMP_EXIT_ERROR;
		goto cleanup;
	}
	ret = kw_compare_load(a.paths[0], a.n[0], base, NULL, NULL, err, sizeof(err));
	if (!ret) {
		ret = kw_compare_load(a.paths[1], a.n[1], new, base[0].meta.arch, a.paths[0][0],
				      err, sizeof(err));
		if (ret)
			for (size_t k = 0; k < a.n[0]; k++)
				kw_recording_free(&base[k]);
	}
	if (ret) {
		fprintf(stderr, "kvmwalk compare: %s\n", err);
		goto cleanup;
	}
	a.o.base_paths = a.paths[0];
	a.o.new_paths = a.paths[1];
	e = kw_compare_build(&c, base, a.n[0], new, a.n[1], &a.o);
	if (e) {
		fprintf(stderr, "kvmwalk compare: %s\n", strerror(-e));
		ret = KW_CMP_EXIT_ERROR;
		goto free_recordings;
	}
	if (!a.output) {
		/* a failed write is said by main(), which flushes stdout and checks it */
		e = kw_compare_print(stdout, &c, a.fmt);
		if (e && !ferror(stdout))
			fprintf(stderr, "kvmwalk compare: %s\n", strerror(-e));
		if (e)
			ret = KW_CMP_EXIT_ERROR;
	} else {
		struct print_arg pa = { &c, a.fmt };

		ret = write_file(a.output, put_report, &pa) ? KW_CMP_EXIT_ERROR : 0;
	}
	if (a.plot) {
		struct plot_arg pl = { base, a.n[0], new, a.n[1], a.o.functions };

		if (write_file(a.plot, put_plot, &pl))
			ret = KW_CMP_EXIT_ERROR;
	}
free_recordings:
	for (size_t k = 0; k < a.n[0]; k++)
		kw_recording_free(&base[k]);
	for (size_t k = 0; k < a.n[1]; k++)
		kw_recording_free(&new[k]);
cleanup:
	kw_compare_free(&c);
	free(base);
	free(new);
	free(a.paths[0]);
	free(a.paths[1]);
	free(args);
	return ret;
}
