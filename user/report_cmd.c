// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk report`: reads one recording (record.c) and prints it through the report view
 * (report.c, findings.c) or, with --timeline, --csv and --plot, the timeline view (timeline.c).
 * A command, the top layer; no kernel, no libbpf.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "commands.h"
#include "cmd_common.h"
#include "compare.h"
#include "loader.h"
#include "outfile.h"
#include "record.h"
#include "report.h"
#include "runs.h"
#include "timeline.h"

enum {
	OPT_TIMELINE = 1100,
	OPT_CSV,
	OPT_PLOT,
};

struct report_args {
	const char *path; /* the recording (the first one) */
	const char **paths;
	size_t n;
	bool json, timeline, csv;
	const char *plot;
};

static const struct argp_option report_options[] = {
	{ .name = "json", .key = OPT_JSON,
	  .doc = "derived numbers as JSON (schema kvmwalk-report/1; its \"intervals\" are the "
		 "recording's with length_s and the --timeline rates); with --timeline only the "
		 "intervals" },
	{ .name = "timeline", .key = OPT_TIMELINE,
	  .doc = "one row per interval of a `record --interval SECS` recording: its end in UTC (to "
		 "line up with libvirt's logs; ~ when the recording knows it to about a second) and "
		 "in s since the start, then each column per second of that interval's own length: "
		 "walks, split visits, range TLB flushes, empty flushes, dirty-log ioctls "
		 "(KVM_GET_DIRTY_LOG, KVM_CLEAR_DIRTY_LOG) and the time in walks in ms per s (1000: "
		 "one CPU busy); then the interval's mean walk duration; - where not measured" },
	{ .name = "csv", .key = OPT_CSV,
	  .doc = "the timeline as CSV (implies --timeline): t, length and UTC, the rates and "
		 "the mean walk duration, the raw counts, then every probe's calls and ns, every "
		 "counter and visit of each interval" },
	{ .name = "plot", .key = OPT_PLOT, .arg = "FILE.svg",
	  .doc = "also write the timeline's rates over time as an SVG, one panel per column "
		 "(implies --timeline); written to a temporary file renamed over FILE.svg, a "
		 "previous one kept as FILE.svg.old" },
	{},
};

static error_t parse_report(int key, char *arg, struct argp_state *state)
{
	struct report_args *a = state->input;

	switch (key) {
	case OPT_JSON:
		a->json = true;
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
	case ARGP_KEY_ARG: {
		const char **p = realloc(a->paths, (a->n + 1) * sizeof(*p));

		if (!p)
			argp_failure(state, KW_EXIT_ERROR, ENOMEM, "report");
		a->paths = p;
		p[a->n++] = arg;
		a->path = a->paths[0];
		return 0;
	}
	case ARGP_KEY_END:
		if (!a->path)
			argp_error(state, "which recording? (kvmwalk report FILE)");
		if (a->csv && a->json)
			argp_error(state, "--csv or --json, not both");
		if (a->n > 1 && a->timeline)
			argp_error(state, "--timeline, --csv and --plot take one recording");
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp report_argp = {
	.options = report_options,
	.parser = parse_report,
	.args_doc = "FILE...",
	.doc = "Prints a recording: a header of a few lines (kernel and arch, the host, when and "
	       "how long, the command), its findings (each waste the recording proves, with its "
	       "count, time and share, and the bundled change in patches/ that removes it; what "
	       "was checked when none), the attach plan, per function calls, total, mean, "
	       "p50/p90/p99/p99.9/max and a histogram, walks by callback, visits by level and "
	       "outcome, flushes per unmap and empty flushes, calls per trigger, how it was "
	       "recorded, the test conditions (the kernel command line, every KVM parameter), and "
	       "the probes' own cost. A section with nothing to show is left out. Text fits 80 "
	       "columns.\n\n"
	       "The test conditions (recordings since December 2026), in \"Test conditions\" "
	       "after the findings, each with what it was read from: bare metal, a VM or "
	       "emulated, and by which hypervisor (also in the header); online CPUs, SMT, NUMA "
	       "nodes; THP, hugetlb pages, NUMA balancing; the mitigation options and the CPU "
	       "vulnerabilities' states; the settings that change KVM's paths; and each VM "
	       "process's command line (cut to 1023 bytes, secrets hidden), "
	       "QEMU version (read from its binary), IPA size and eager split where kvmwalk can know "
	       "them; --json has them as \"conditions\" and \"vms\". What could not be read is "
	       "said unknown, never guessed.\n\n"
	       "Quantiles come from the histogram's buckets, at most 12.5 % wide, interpolated and "
	       "clamped to the exact min and max: each is known to within 12.5 %. p99.9 of fewer "
	       "than 1000 calls is the slowest call (to within its bucket), not a tail of its own. "
	       "In --json the key is \"p99.9\" (jq: .\"p99.9\").\n\n"
	       "--timeline prints the snapshots of `kvmwalk record --interval SECS` instead: one "
	       "row per interval (its end in UTC, and t in seconds since the start; the last "
	       "interval is partial and its rates use its real length), the columns an operator "
	       "reads during a migration as rates; then a second table of its durations: the mean "
	       "walk, and the p99 of the walks, the range TLB flushes and the MMU-notifier "
	       "invalidations, from each interval's own histograms (to within 12.5 %; a recording "
	       "made before 7 December 2026 keeps none, and shows -). Dirty-log ioctls are "
	       "KVM_GET_DIRTY_LOG and KVM_CLEAR_DIRTY_LOG calls "
	       "that returned (exact: kvm_vm_ioctl's own trigger rows); dirty logging's enable, "
	       "a KVM_SET_USER_MEMORY_REGION(2), shows as the split visits it causes. A recording "
	       "without intervals is an error (exit 1) that says to record with --interval.\n\n"
	       "Several FILEs: runs of one command made with different probe sets (record --probe "
	       "none, timing, cheap, all), and instead of a report of each, what recording cost "
	       "the command: its wall time and its own phase times (record --workload-times) for "
	       "each kind of run (bare: --probe none; timing; cheap; full: more), medians over "
	       "runs, and each kind's change against the least instrumented runs with its "
	       "Hodges-Lehmann interval: \"record with every probe slowed the command by X % "
	       "(medians of N runs against M bare runs, interval)\". The probes' own cost (BPF "
	       "run time) of each kind is said too, as the lower bound it is: it times the "
	       "programs' bodies, not the fentry trampoline or kprobe dispatch."
	       "\vExamples:\n"
	       "  kvmwalk report split.json\n"
	       "  kvmwalk report split.json --json | jq .visits\n"
	       "  kvmwalk report split.json --json | jq '.findings[] | [.kind, .count]'\n"
	       "  kvmwalk record --interval 1 -o mig.json --pid \"$(pidof qemu-system-aarch64)\"\n"
	       "  kvmwalk report --timeline mig.json\n"
	       "  kvmwalk report --csv mig.json > mig.csv\n"
	       "  kvmwalk report --timeline --plot mig.svg mig.json\n"
	       "  kvmwalk report --json mig.json | jq '.intervals[].rates.split_visits_per_s'\n"
	       "  kvmwalk report bare*.json timing*.json full*.json\n\n"
	       "Exit status: 0; 1 the file cannot be read, --timeline of a recording without "
	       "intervals, the output or the plot cannot be written (a full disk: said on "
	       "stderr), or an error; 2 usage; 8 a truncated or "
	       "corrupt recording; 9 a recording of another schema version (as kvmwalk compare).",
};

struct plot_arg {
	const struct kw_recording *r;
	const char *name;
};

static int put_plot(FILE *f, void *arg)
{
	const struct plot_arg *pa = arg;

	return kw_timeline_svg(f, pa->r, pa->name);
}

/*
 * A checkpoint (record --checkpoint) is the recording so far, of a record that was killed or is
 * still running: said in one line before the text, and on stderr where the output is data.
 */
static void say_checkpoint(FILE *f, const struct kw_recording *r, const char *path)
{
	if (!r->meta.checkpoint)
		return;
	if (f == stderr)
		fprintf(f,
			"kvmwalk: %s is a checkpoint at %.1f s: record did not finish it "
			"(killed, or still running)\n",
			path, r->meta.duration_s);
	else
		fprintf(f, "Checkpoint at %.1f s: record did not finish (killed, or still "
			   "running).\n\n",
			r->meta.duration_s);
}

/* --timeline, --csv, --plot and --timeline --json: the intervals of r. */
static int report_timeline(const struct report_args *a, const struct kw_recording *r)
{
	int err = 0;

	if (!r->nintervals) {
		fprintf(stderr,
			"kvmwalk: %s has no intervals: record with --interval SECS for a timeline "
			"(kvmwalk record --interval 1 -o FILE -- CMD)\n",
			a->path);
		return KW_EXIT_ERROR;
	}
	if (a->plot) {
		struct plot_arg pa = { r, a->path };
		bool kept;

		/* a temporary file renamed over FILE: a full disk leaves the previous plot whole */
		err = kw_outfile_write(a->plot, KW_OUTFILE_KEEP_OLD, put_plot, &pa, &kept);
		if (err) {
			fprintf(stderr, "kvmwalk: cannot write %s: %s (%s is left as it was)\n",
				a->plot, strerror(-err), a->plot);
			return KW_EXIT_ERROR;
		}
		if (kept)
			fprintf(stderr, "kvmwalk: kept the previous %s as %s.old\n", a->plot,
				a->plot);
	}
	if (a->csv) {
		say_checkpoint(stderr, r, a->path);
		err = kw_timeline_csv(stdout, r);
	} else if (a->json) {
		json_t *o = json_pack("{ssso}", "schema", "kvmwalk-report/1", "intervals",
				      kw_timeline_json(r));

		if (r->meta.checkpoint)
			json_object_set_new(o, "checkpoint", json_true());

		err = json_dumpf(o, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER |
						    JSON_REAL_PRECISION(6)) ? -EIO : 0;
		json_decref(o);
		putchar('\n');
	} else {
		say_checkpoint(stdout, r, a->path);
		err = kw_timeline_text(stdout, r, a->path);
	}
	return err ? KW_EXIT_ERROR : 0;
}

/* Several recordings: what recording cost their command (runs.h). */
static int report_runs(const struct report_args *a)
{
	struct kw_recording *r = calloc(a->n, sizeof(*r));
	struct kw_cost c = {};
	char err[768];
	int ret, e;

	if (!r)
		return KW_EXIT_ERROR;
	ret = kw_compare_load(a->paths, a->n, r, NULL, NULL, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kvmwalk: %s\n", err);
		/* as for one recording: unreadable is 1 */
		free(r);
		return ret == KW_CMP_EXIT_UNREADABLE ? KW_EXIT_ERROR : ret;
	}
	e = kw_cost_build(&c, r, a->n, 0.95, KW_CI_HODGES_LEHMANN);
	if (!e)
		e = a->json ? kw_cost_json(stdout, &c, r, a->paths)
			    : kw_cost_print(stdout, &c, a->paths);
	ret = e ? KW_EXIT_ERROR : 0;
	kw_cost_free(&c);
	for (size_t i = 0; i < a->n; i++)
		kw_recording_free(&r[i]);
	free(r);
	return ret;
}

int report_main(int argc, char **argv)
{
	struct report_args a = {};
	struct kw_recording r;
	char err[256];
	int ret;

	argp_parse(&report_argp, argc, argv, 0, NULL, &a);
	if (cmd_args_only()) {
		free(a.paths);
		return 0;
	}
	if (a.n > 1) {
		ret = report_runs(&a);
		free(a.paths);
		return ret;
	}
	ret = kw_recording_load(&r, a.path, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "kvmwalk: cannot read recording %s: %s\n", a.path, err);
		free(a.paths);
		/* compare's codes for a damaged file (8) and another schema (9); unreadable: 1 */
		return ret == -EPROTO	? KW_CMP_EXIT_SCHEMA
		       : ret == -EINVAL ? KW_CMP_EXIT_CORRUPT
					: KW_EXIT_ERROR;
	}
	if (!a.timeline && !a.json)
		say_checkpoint(stdout, &r, a.path);
	if (a.timeline)
		ret = report_timeline(&a, &r);
	else
		ret = (a.json ? kw_report_json(stdout, &r) : kw_report_text(stdout, &r, a.path))
			      ? KW_EXIT_ERROR
			      : 0;
	kw_recording_free(&r);
	free(a.paths);
	return ret;
}
