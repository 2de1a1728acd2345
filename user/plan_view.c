// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk probes`: the attach plan as a table, each distinct reason once, and a verdict
 * (plan_view.h). A view, on a plan only: unit-tested with made-up plans (tests/unit/test_report.c).
 */
#include <errno.h>
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "plan_view.h"
#include "probes.h"

#define NAME_W 40
#define MECH_W 15
#define WIDTH 80

/* The distinct reasons of the rows, in the order of their first row: numbered from 1. */
struct notes {
	const char *reason[KW_NR_PROBES];
	int n;
};

static int note_of(struct notes *ns, const char *reason)
{
	for (int i = 0; i < ns->n; i++)
		if (!strcmp(ns->reason[i], reason))
			return i + 1;
	ns->reason[ns->n++] = reason;
	return ns->n;
}

/*
 * Why probes cannot attach, as the planner's reasons say it (loader_plan.c), and what to do:
 * a reason holding every word of match (in order) is of that cause. The rest is "see [N]".
 */
static const struct cause {
	const char *match[2];
	const char *what; /* the fentry one takes the error after "refused: " */
	const char *todo; /* "" when nothing is to be done */
} causes[] = {
	{ { "fentry", "refused: " },
	  "fentry is refused",
	  "find why fentry is refused (kvmwalk probes --attach fentry -v)" },
	{ { "CONFIG_KPROBES" },
	  "this kernel has no kprobes (CONFIG_KPROBES is not set)",
	  "boot a kernel with CONFIG_KPROBES=y" },
	{ { "not in this kernel" },
	  "not in this kernel (absent, or inlined)",
	  "another kernel version has them (docs/kernels.md)" },
	{ { "not traceable" }, "notrace or not patchable by ftrace", "" },
	{ { "runs at EL2" }, "runs at EL2, out of sight of EL1", "" },
	{ { "tracepoint ", "mount" },
	  "tracefs is not mounted",
	  "mount it (mount -t tracefs nodev /sys/kernel/tracing)" },
	{ { "verifier refused" },
	  "the verifier refused a program",
	  "run with -v for the verifier's log" },
};
#define NR_CAUSES (sizeof(causes) / sizeof(causes[0]))

static const char *matches(const char *reason, const struct cause *c)
{
	const char *at = reason;

	for (int k = 0; k < 2 && c->match[k] && at; k++)
		if ((at = strstr(at, c->match[k])))
			at += strlen(c->match[k]);
	return at;
}

/*
 * The last line: how many probes attach and how, the names when they are few, the ones left
 * out, and for the rest each cause once with what to do about it.
 */
static void verdict(FILE *f, const struct kw_plan *plan, const char *arch, struct notes *ns)
{
	int total = 0, on = 0, off = 0, unavail = 0, by[KW_NR_MECHS] = {}, ncause[NR_CAUSES] = {};
	char text[2048], names[512] = "", fentry_err[96] = "", others[128] = "";
	size_t n = 0;
	bool any_todo = false;

	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_plan *p = &plan[i];
		bool known = false;

		if (!kw_probe_in_arch(i, arch))
			continue;
		total++;
		if (kw_plan_attached(p)) {
			on++;
			by[p->mech]++;
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 names[0] ? ", " : "", kw_probes[i].name);
			continue;
		}
		if (p->mech != KW_MECH_UNAVAILABLE) {
			off++;
			continue;
		}
		unavail++;
		for (size_t c = 0; c < NR_CAUSES; c++) {
			const char *at = matches(p->reason, &causes[c]);

			if (!at)
				continue;
			known = true;
			if (!ncause[c]++ && c == 0)
				snprintf(fentry_err, sizeof(fentry_err), "%.*s",
					 (int)strcspn(at, ";"), at);
		}
		/* a reason of no known cause: its note, once */
		if (!known && strlen(others) < sizeof(others) - 16) {
			char ref[16];

			snprintf(ref, sizeof(ref), "[%d]", note_of(ns, p->reason));
			if (!strstr(others, ref))
				snprintf(others + strlen(others), sizeof(others) - strlen(others),
					 "%s%s", others[0] ? ", " : "", ref);
		}
	}
#define SAY(...) (n += snprintf(text + n, n < sizeof(text) ? sizeof(text) - n : 0, __VA_ARGS__))
	if (on)
		SAY("Verdict: %d of the %d probes of %s attach on this kernel", on, total, arch);
	else
		SAY("Verdict: none of the %d probes of %s attaches on this kernel", total, arch);
	if (on) {
		const char *sep = " (";

		for (int m = KW_MECH_FENTRY; m <= KW_MECH_TRACEPOINT; m++)
			if (by[m]) {
				SAY("%s%d by %s", sep, by[m], kw_mech_name(m));
				sep = ", ";
			}
		SAY(")");
		if (on <= 6)
			SAY(": %s", names);
	}
	if (off)
		SAY("; %d off", off);
	if (!unavail) {
		SAY("; every probe asked for attaches.");
		kw_fmt_wrap_width(f, WIDTH - 1, 2, 0, text);
		return;
	}
	SAY("; %d cannot:", unavail);
	for (size_t c = 0, said = 0; c < NR_CAUSES; c++) {
		if (!ncause[c])
			continue;
		SAY("%s", said++ ? ";" : "");
		if (ncause[c] < unavail)
			SAY(" %d:", ncause[c]);
		SAY(" %s", causes[c].what);
		if (c == 0 && fentry_err[0])
			SAY(" (%s)", fentry_err);
		any_todo |= causes[c].todo[0] != 0;
	}
	if (others[0])
		SAY("%s see %s", n && text[n - 1] == ':' ? "" : ";", others);
	SAY(".");
	if (any_todo) {
		const char *sep = " For them: ";

		for (size_t c = 0; c < NR_CAUSES; c++)
			if (ncause[c] && causes[c].todo[0]) {
				SAY("%s%s", sep, causes[c].todo);
				sep = c == 0 && ncause[1] ? ", or " : "; ";
			}
		SAY(".");
	}
#undef SAY
	kw_fmt_wrap_width(f, WIDTH - 1, 2, 0, text);
}

static int print_text(FILE *f, const struct kw_plan *plan, const char *arch)
{
	struct notes ns = {};

	fprintf(f, "%-*s %-*s %s\n", NAME_W, "PROBE", MECH_W, "MECHANISM", "DETAIL");
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_plan *p = &plan[i];
		char mech[32];

		if (!kw_probe_in_arch(i, arch))
			continue;
		if (p->reason[0])
			snprintf(mech, sizeof(mech), "%s [%d]", kw_mech_name(p->mech),
				 note_of(&ns, p->reason));
		else
			snprintf(mech, sizeof(mech), "%s", kw_mech_name(p->mech));
		fprintf(f, "%-*s %-*s %s\n", NAME_W, kw_probes[i].name, MECH_W, mech,
			kw_probes[i].what);
		if (strcmp(p->func, kw_probes[i].name) && p->func[0])
			fprintf(f, "%-*s %-*s on %s\n", NAME_W, "", MECH_W, "", p->func);
	}
	/* each reason once, however many probes share it */
	if (ns.n)
		fputc('\n', f);
	for (int k = 0; k < ns.n; k++) {
		char ref[16];
		int w = snprintf(ref, sizeof(ref), "[%d] ", k + 1);

		fputs(ref, f);
		kw_fmt_wrap_width(f, WIDTH - 1, w, w, ns.reason[k]);
	}
	fputc('\n', f);
	verdict(f, plan, arch, &ns);
	return ferror(f) ? -EIO : 0;
}

int kw_plan_print(FILE *f, const struct kw_plan *plan, const char *arch, bool json)
{
	json_t *a;
	int err;

	if (!json)
		return print_text(f, plan, arch);
	a = json_array();
	for (int i = 0; i < KW_NR_PROBES; i++) {
		json_t *o;

		if (!kw_probe_in_arch(i, arch))
			continue;
		/* json_pack returns NULL on a format/argument mismatch: an element lost here
		 * once made `probes --json` print [] */
		o = json_pack("{ssssssssssss}", "name", kw_probes[i].name, "family",
			      kw_probes[i].family, "mechanism", kw_mech_name(plan[i].mech),
			      "function", plan[i].func, "reason", plan[i].reason, "what",
			      kw_probes[i].what);
		if (!o || json_array_append_new(a, o)) {
			json_decref(a);
			return -ENOMEM;
		}
	}
	err = json_dumpf(a, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
	json_decref(a);
	fputc('\n', f);
	return err ? -EIO : 0;
}
