// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The header of `kvmwalk compare` (compare_env.h): each side (kernel, arch, host,
 * probe overhead), every difference of the two environments that can change the numbers, the
 * warnings (the same recording on both sides, other commands, other attach mechanisms, probe
 * overhead, lost events) and the kvmwalk command of each run. The rows are compare.c's, the
 * printers compare_print.c's.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "compare_env.h"
#include "report.h"
#include "runs.h"
#include "report_conditions.h"

bool kw_compare_listed(const char *list, const char *s, bool first_word)
{
	size_t n = first_word ? strcspn(s, " /") : strlen(s);
	const char *p = list;

	if (!list)
		return true;
	while (*p) {
		size_t k = strcspn(p, ",");

		if ((k == strlen(s) && !strncmp(p, s, k)) || (k == n && !strncmp(p, s, n)))
			return true;
		p += k + !!p[k];
	}
	return false;
}

/* The recordings of a comparison and what the header is built into. */
struct header {
	struct kw_compare *c;
	const struct kw_recording *base, *new;
	const struct kw_compare_opts *o;
};

/*
 * The value of a side: the common value of its runs, or the distinct values joined by " | ". A
 * getter returns NULL for a run that has no say (a probe a run left out by its probe set); a
 * side where no run has one is "off".
 */
static void side_value(char *dst, size_t len, const struct kw_recording *r, size_t n,
		       const char *(*get)(const struct kw_recording *, const void *),
		       const void *arg)
{
	size_t used = 0;
	bool any = false;

	dst[0] = 0;
	for (size_t i = 0; i < n; i++) {
		const char *g = get(&r[i], arg);
		char v[1024];
		bool seen = !g; /* NULL: this run has none */

		/* a copy: a getter may return the same buffer for every run */
		snprintf(v, sizeof(v), "%s", g ? g : "");
		for (size_t j = 0; j < i && !seen; j++)
			seen = get(&r[j], arg) && !strcmp(get(&r[j], arg), v);
		if (seen)
			continue;
		used += snprintf(dst + used, used < len ? len - used : 0, "%s%s",
				 any ? " | " : "", v);
		any = true;
	}
	if (!any && n)
		snprintf(dst, len, "off");
}

#define META_GETTER(field)                                                                         \
	static const char *get_##field(const struct kw_recording *r, const void *arg)              \
	{                                                                                          \
		return r->meta.field;                                                              \
	}
META_GETTER(kernel)
META_GETTER(kernel_build)
META_GETTER(hostname)
META_GETTER(cmdline)
META_GETTER(cpu)
META_GETTER(kvm_mode)
META_GETTER(thp)
META_GETTER(thp_defrag)
META_GETTER(tool_version)
META_GETTER(arch)

/* a bare run (--probe none) attached nothing: it has no say in how the others attached */
static const char *get_attach(const struct kw_recording *r, const void *arg)
{
	return kw_run_kind(r) == KW_RUN_BARE ? NULL : r->meta.attach;
}

static const char *get_visits(const struct kw_recording *r, const void *arg)
{
	return r->meta.visits ? "on" : "off (--no-visits)";
}

static const char *get_pid(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[KW_MAX_PIDS * 11];

	return kw_meta_pids(&r->meta, buf, sizeof(buf), ",") ? buf : "none";
}

static const char *get_param(const struct kw_recording *r, const void *arg)
{
	for (size_t i = 0; i < r->meta.nparams; i++)
		if (!strcmp(r->meta.params[i].name, arg))
			return r->meta.params[i].value;
	return "(not set)";
}

/*
 * How a run attached probe p; NULL where its probe set left it out (the runs of a timing or
 * bare kind beside full ones: compare takes each row from runs that have it).
 */
static const char *get_mech(const struct kw_recording *r, const void *arg)
{
	int p = *(const int *)arg;

	if (r->plan[p].mech == KW_MECH_OFF && strncmp(r->plan[p].reason, "per-entry", 9))
		return NULL;
	return r->plan[p].mech ? kw_mech_name(r->plan[p].mech) : "(none)";
}

static int add_diff(struct kw_compare *c, const char *what, const char *b, const char *n)
{
	struct kw_compare_diff *d = realloc(c->diffs, (c->ndiffs + 1) * sizeof(*d));

	if (!d)
		return -ENOMEM;
	c->diffs = d;
	d = &d[c->ndiffs++];
	snprintf(d->what, sizeof(d->what), "%s", what);
	snprintf(d->base, sizeof(d->base), "%s", b);
	snprintf(d->new, sizeof(d->new), "%s", n);
	return 0;
}

__attribute__((format(printf, 2, 3))) static int warn(struct kw_compare *c, const char *fmt, ...)
{
	char(*w)[256] = realloc(c->warnings, (c->nwarnings + 1) * sizeof(*w));
	va_list ap;

	if (!w)
		return -ENOMEM;
	c->warnings = w;
	va_start(ap, fmt);
	vsnprintf(w[c->nwarnings++], sizeof(*w), fmt, ap);
	va_end(ap);
	return 0;
}

static int diff_field(struct header *h, const char *what,
		      const char *(*get)(const struct kw_recording *, const void *),
		      const void *arg)
{
	char bv[384], nv[384];

	side_value(bv, sizeof(bv), h->base, h->c->n_base, get, arg);
	side_value(nv, sizeof(nv), h->new, h->c->n_new, get, arg);
	if (!strcmp(bv, nv) && !strstr(bv, " | "))
		return 0;
	return add_diff(h->c, what, bv, nv);
}

static bool is_mitigation(const char *tok)
{
	static const char *const pfx[] = {
		"mitigations=", "spectre",    "nospectre",   "kpti",	    "nopti",
		"pti=",		"mds=",	      "tsx",	     "l1tf",	    "retbleed",
		"srbds",	"ssbd",	      "spec_",	     "gather_data", "reg_file",
		"nosmt",	"mmio_stale", "spec_rstack", "arm64.nobti", "arm64.nopauth",
		"ibt=",		"its=",
	};

	for (size_t i = 0; i < sizeof(pfx) / sizeof(pfx[0]); i++)
		if (!strncmp(tok, pfx[i], strlen(pfx[i])))
			return true;
	return false;
}

/* Words of a's command line that b's lacks, into dst; true if one concerns mitigations. */
static bool words_only_in(char *dst, size_t len, const char *a, const char *b)
{
	bool mit = false;
	size_t used = 0;

	dst[0] = 0;
	while (*a) {
		size_t k = strcspn(a, " "), blen;
		const char *p = b;
		bool found = false;

		while (*p && !found && k) {
			blen = strcspn(p, " ");
			found = blen == k && !strncmp(p, a, k);
			p += blen + !!p[blen];
		}
		if (k && !found) {
			char tok[256];

			snprintf(tok, sizeof(tok), "%.*s", (int)k, a);
			mit |= is_mitigation(tok);
			used += snprintf(dst + used, used < len ? len - used : 0, "%s%s",
					 used ? " " : "", tok);
		}
		a += k + !!a[k];
	}
	if (!dst[0])
		snprintf(dst, len, "(nothing the other side lacks)");
	return mit;
}

static int diff_cmdline(struct header *h)
{
	char bv[1024], nv[1024], bo[384], no[384];
	bool mit;

	side_value(bv, sizeof(bv), h->base, h->c->n_base, get_cmdline, NULL);
	side_value(nv, sizeof(nv), h->new, h->c->n_new, get_cmdline, NULL);
	if (!strcmp(bv, nv))
		return 0;
	if (strstr(bv, " | ") || strstr(nv, " | "))
		return add_diff(h->c, "command line (runs differ)", bv, nv);
	mit = words_only_in(bo, sizeof(bo), bv, nv);
	mit |= words_only_in(no, sizeof(no), nv, bv);
	return add_diff(h->c,
			mit ? "command line, mitigations (only here)" : "command line (only here)",
			bo, no);
}

static bool has_param(const struct kw_compare_diff *d, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(d[i].what + strlen("KVM param "), name))
			return true;
	return false;
}

/* ---- the test conditions (conditions.h) ------------------------------------------------------ */

static const char *get_recorded(const struct kw_recording *r, const void *arg)
{
	return r->meta.cond.recorded ? "recorded" : "not recorded (a recording older than them)";
}

static const char *get_host(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[128];

	kw_report_host_kind(buf, sizeof(buf), &r->meta.cond);
	return buf;
}

static const char *get_machine(const struct kw_recording *r, const void *arg)
{
	return r->meta.cond.machine[0] ? r->meta.cond.machine : "(none)";
}

static const char *get_smt(const struct kw_recording *r, const void *arg)
{
	return r->meta.cond.smt[0] ? r->meta.cond.smt : "unknown";
}

static const char *count_list(__u32 n, const char *list)
{
	static __thread char buf[96];

	if (!n)
		return "unknown";
	snprintf(buf, sizeof(buf), "%u (%s)", n, list);
	return buf;
}

static const char *get_cpus(const struct kw_recording *r, const void *arg)
{
	return count_list(r->meta.cond.cpus_online, r->meta.cond.cpus_online_list);
}

static const char *get_nodes(const struct kw_recording *r, const void *arg)
{
	return count_list(r->meta.cond.numa_nodes, r->meta.cond.numa_nodes_online);
}

static const char *get_numa_balancing(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[48];

	kw_cond_numa_balancing_text(r->meta.cond.numa_balancing, buf, sizeof(buf));
	return buf;
}

static const char *get_hugetlb(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[256];
	const struct kw_conditions *c = &r->meta.cond;
	size_t n;

	kw_cond_huge_text(c, buf, sizeof(buf));
	n = strlen(buf);
	if (c->nr_hugepages >= 0)
		snprintf(buf + n, sizeof(buf) - n, "%snr_hugepages %lld", n ? ", " : "",
			 c->nr_hugepages);
	else
		snprintf(buf + n, sizeof(buf) - n, "%snr_hugepages unknown", n ? ", " : "");
	return buf;
}

static const char *get_mitigations(const struct kw_recording *r, const void *arg)
{
	return r->meta.cond.mitigations[0] ? r->meta.cond.mitigations : "(none)";
}

static const char *get_vuln(const struct kw_recording *r, const void *arg)
{
	for (__u32 i = 0; i < r->meta.cond.nvulns; i++)
		if (!strcmp(r->meta.cond.vulns[i].name, arg))
			return r->meta.cond.vulns[i].state;
	return "(not listed)";
}

static const char *get_setting(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[160];
	const struct kw_cond_setting *s = kw_cond_setting(&r->meta.cond, arg);

	if (!s)
		return "(not read)";
	snprintf(buf, sizeof(buf), "%s (%s)", s->value[0] ? s->value : "not set", s->source);
	return buf;
}

static const char *get_ipa_limit(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[32];

	if (!r->meta.cond.ipa_limit)
		return "unknown";
	snprintf(buf, sizeof(buf), "%u bits", r->meta.cond.ipa_limit);
	return buf;
}

static const char *get_preempt(const struct kw_recording *r, const void *arg)
{
	return r->meta.preempt[0] ? r->meta.preempt : "unknown";
}

/*
 * the distinct values of one fact of r's VM processes, ", " between them, "(no VM process)";
 * NULL for a bare run
 */
static const char *vm_values(const struct kw_recording *r,
			     void (*fact)(const struct kw_recording *, const struct kw_vm *, char *,
					  size_t))
{
	static __thread char buf[384];
	size_t used = 0;

	/* a bare run (--probe none) knows no VM process: no say, not "(no VM process)" */
	if (!r->nvms && kw_run_kind(r) == KW_RUN_BARE)
		return NULL;
	buf[0] = 0;
	for (size_t i = 0; i < r->nvms; i++) {
		char v[160], w[160];
		bool seen = false;

		fact(r, &r->vms[i], v, sizeof(v));
		for (size_t j = 0; j < i && !seen; j++) {
			fact(r, &r->vms[j], w, sizeof(w));
			seen = !strcmp(v, w);
		}
		if (!seen)
			used += snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0,
					 "%s%s", used ? ", " : "", v);
	}
	return buf[0] ? buf : "(no VM process)";
}

static void vmm_fact(const struct kw_recording *r, const struct kw_vm *v, char *d, size_t len)
{
	if (!strcmp(v->vmm, "qemu"))
		snprintf(d, len, "QEMU %s", v->vmm_version[0] ? v->vmm_version : "(version unknown)");
	else
		snprintf(d, len, "%s", v->vmm[0] ? v->vmm : v->comm);
}

static void ipa_fact(const struct kw_recording *r, const struct kw_vm *v, char *d, size_t len)
{
	char src[160];
	__u32 bits = kw_cond_vm_ipa(&r->meta.cond, r->meta.arch, r->meta.kvm_mode, v->vmm,
				    v->ipa_opt, v->ipa_debugfs, src, sizeof(src));

	if (bits)
		snprintf(d, len, "%u bits", bits);
	else
		snprintf(d, len, "unknown");
}

static void eager_fact(const struct kw_recording *r, const struct kw_vm *v, char *d, size_t len)
{
	char src[160], val[64];

	kw_cond_vm_eager(&r->meta.cond, r->meta.arch, v->vmm, v->eager_opt, val, sizeof(val), src,
			 sizeof(src));
	snprintf(d, len, "%s", val[0] ? val : "unknown");
}

static const char *get_vmm(const struct kw_recording *r, const void *arg)
{
	return vm_values(r, vmm_fact);
}

static const char *get_vm_ipa(const struct kw_recording *r, const void *arg)
{
	return vm_values(r, ipa_fact);
}

static const char *get_vm_eager(const struct kw_recording *r, const void *arg)
{
	return vm_values(r, eager_fact);
}

/* every VM process's command line of a side, one after the other (words_only_in() reads it) */
static void vm_cmdlines(char *dst, size_t len, const struct kw_recording *r, size_t n)
{
	size_t used = 0;

	dst[0] = 0;
	for (size_t i = 0; i < n; i++)
		for (size_t v = 0; v < r[i].nvms; v++)
			used += snprintf(dst + used, used < len ? len - used : 0, "%s%s",
					 used ? " " : "", r[i].vms[v].cmdline);
}

static bool all_recorded(const struct kw_recording *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!r[i].meta.cond.recorded)
			return false;
	return true;
}

/* the names of r's CPU vulnerabilities not in names yet, appended */
static size_t vuln_names(char (*names)[40], size_t n, size_t max, const struct kw_recording *r,
			 size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		for (__u32 v = 0; v < r[i].meta.cond.nvulns; v++) {
			size_t k = 0;

			while (k < n && strcmp(names[k], r[i].meta.cond.vulns[v].name))
				k++;
			if (k == n && n < max)
				snprintf(names[n++], sizeof(names[0]), "%s",
					 r[i].meta.cond.vulns[v].name);
		}
	return n;
}

/*
 * Every test condition that differs between the sides (or between the runs of a side). A side
 * with a recording made before them has one line saying so, and nothing is compared.
 */
static int diff_conditions(struct header *h)
{
	struct kw_compare *c = h->c;
	bool b = all_recorded(h->base, c->n_base), n = all_recorded(h->new, c->n_new);
	char names[2 * KW_COND_VULNS][40], *bv, *nv, bo[384], no[384];
	size_t nnames = 0;
	int err = 0;

	if (!b || !n)
		return diff_field(h, "test conditions", get_recorded, NULL);
	err = err ?: diff_field(h, "host", get_host, NULL);
	err = err ?: diff_field(h, "machine", get_machine, NULL);
	err = err ?: diff_field(h, "online CPUs", get_cpus, NULL);
	err = err ?: diff_field(h, "SMT", get_smt, NULL);
	err = err ?: diff_field(h, "NUMA nodes", get_nodes, NULL);
	err = err ?: diff_field(h, "NUMA balancing", get_numa_balancing, NULL);
	err = err ?: diff_field(h, "hugetlb pages", get_hugetlb, NULL);
	err = err ?: diff_field(h, "preemption model", get_preempt, NULL);
	err = err ?: diff_field(h, "mitigations (command line)", get_mitigations, NULL);
	nnames = vuln_names(names, 0, 2 * KW_COND_VULNS, h->base, c->n_base);
	nnames = vuln_names(names, nnames, 2 * KW_COND_VULNS, h->new, c->n_new);
	for (size_t i = 0; i < nnames && !err; i++) {
		char what[48];

		snprintf(what, sizeof(what), "CPU bug %.39s", names[i]);
		err = diff_field(h, what, get_vuln, names[i]);
	}
	/* the settings that are no module parameter ("KVM param" lines have those) */
	for (__u32 i = 0; i < h->base[0].meta.cond.nsettings && !err; i++) {
		const struct kw_cond_setting *s = &h->base[0].meta.cond.settings[i];
		char what[48];

		if (s->param)
			continue;
		snprintf(what, sizeof(what), "KVM %.40s", s->name);
		err = diff_field(h, what, get_setting, s->name);
	}
	err = err ?: diff_field(h, "IPA size limit", get_ipa_limit, NULL);
	err = err ?: diff_field(h, "VMM", get_vmm, NULL);
	err = err ?: diff_field(h, "VM IPA size", get_vm_ipa, NULL);
	err = err ?: diff_field(h, "VM eager split", get_vm_eager, NULL);
	if (err)
		return err;
	/* the VM processes' command lines: the words one side's have and the other's lack */
	bv = malloc(KW_VM_CMDLINE_LEN * 32);
	nv = malloc(KW_VM_CMDLINE_LEN * 32);
	if (bv && nv) {
		vm_cmdlines(bv, KW_VM_CMDLINE_LEN * 32, h->base, c->n_base);
		vm_cmdlines(nv, KW_VM_CMDLINE_LEN * 32, h->new, c->n_new);
		words_only_in(bo, sizeof(bo), bv, nv);
		words_only_in(no, sizeof(no), nv, bv);
		if (strcmp(bo, no))
			err = add_diff(c, "VM command lines (only here)", bo, no);
	} else {
		err = -ENOMEM;
	}
	free(bv);
	free(nv);
	return err;
}

/* ---- measurement boundaries --------------------------------------------------------------- */

/* How a plan measures: "fentry", "kprobe on NAME.isra.0", "tracepoint fast_page_fault", ... */
static void plan_text(char *dst, size_t len, const struct kw_plan *pl, const char *func)
{
	const char *m = pl->mech ? kw_mech_name(pl->mech) : "no plan";

	if (pl->mech == KW_MECH_UNAVAILABLE)
		snprintf(dst, len, "unavailable (%s)",
			 strstr(pl->reason, "inlined")	? "absent or inlined"
			 : strstr(pl->reason, "EL2")	? "runs at EL2"
			 : strstr(pl->reason, "refused") ? "attach refused"
							 : "no mechanism");
	else if (kw_plan_attached(pl) && pl->func[0] && strcmp(pl->func, func))
		snprintf(dst, len, "%s on %s", m, pl->func);
	else
		snprintf(dst, len, "%s", m);
}

/* arg: a probe's index as an int, or a user function's name */
struct boundary {
	int probe;
	const char *ufunc;
};

/*
 * A probe the run's probe set left out (a bare or timing run beside full ones): the run has no
 * say in the probe's boundary, as it gives none of its rows (compare takes each row from the
 * runs that have it). "per-entry" (--no-visits) is a choice that changes what is measured.
 */
static bool set_left_out(const struct kw_plan *pl)
{
	return pl->mech == KW_MECH_OFF && strncmp(pl->reason, "per-entry", 9);
}

static const char *get_plan(const struct kw_recording *r, const void *arg)
{
	static __thread char buf[160];
	const struct boundary *b = arg;

	if (b->probe >= 0 && set_left_out(&r->plan[b->probe]))
		return NULL;
	if (b->probe >= 0) {
		plan_text(buf, sizeof(buf), &r->plan[b->probe], kw_probes[b->probe].func
									 ? kw_probes[b->probe].func
									 : kw_probes[b->probe].name);
		return buf;
	}
	for (size_t i = 0; i < r->nufuncs; i++)
		if (!strcmp(r->ufuncs[i].req.name, b->ufunc)) {
			plan_text(buf, sizeof(buf), &r->ufuncs[i].plan, b->ufunc);
			return buf;
		}
	return "not asked for";
}

/* name is a word of where ("arm64 kvm_pgtable_stage2_split, stage2_split_walker") */
static bool names(const char *where, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = where; (p = strstr(p, name)); p += n)
		if ((p == where || strchr(" ,(", p[-1])) && (!p[n] || strchr(" ,)", p[n])))
			return true;
	return false;
}

static bool shown(const struct kw_compare *c, const char *group)
{
	for (size_t i = 0; i < c->nrows; i++)
		if (!strcmp(c->rows[i].group, group))
			return true;
	for (size_t i = 0; i < c->nsections; i++)
		if (c->sections[i].where && names(c->sections[i].where, group))
			return true;
	return false;
}

static const struct kw_plan *plan_of(const struct kw_recording *r, const struct boundary *b)
{
	if (b->probe >= 0)
		return &r->plan[b->probe];
	for (size_t i = 0; i < r->nufuncs; i++)
		if (!strcmp(r->ufuncs[i].req.name, b->ufunc))
			return &r->ufuncs[i].plan;
	return NULL;
}

/*
 * Every run of both sides that has a say attached it, and each side has one such run at least;
 * *same_func: all on one function (or tracepoint)
 */
static bool attached_in_all(struct header *h, const struct boundary *b, bool *same_func)
{
	const struct kw_plan *first = NULL;
	size_t said[2] = { 0, 0 };

	*same_func = true;
	for (size_t i = 0; i < h->c->n_base + h->c->n_new; i++) {
		bool is_new = i >= h->c->n_base;
		const struct kw_recording *r = is_new ? &h->new[i - h->c->n_base] : &h->base[i];
		const struct kw_plan *pl = plan_of(r, b);

		if (pl && b->probe >= 0 && set_left_out(pl))
			continue;
		if (!pl || !kw_plan_attached(pl))
			return false;
		first = first ?: pl;
		said[is_new]++;
		*same_func &= !strcmp(pl->func, first->func);
	}
	return said[0] && said[1];
}

/* a run of either side attached probe p */
static bool attached_somewhere(struct header *h, int p)
{
	for (size_t i = 0; i < h->c->n_base + h->c->n_new; i++) {
		const struct kw_recording *r =
			i < h->c->n_base ? &h->base[i] : &h->new[i - h->c->n_base];

		if (kw_plan_attached(&r->plan[p]))
			return true;
	}
	return false;
}

static int boundary_warning(struct header *h, const char *name, const struct boundary *b)
{
	char bv[384], nv[384];
	const char *why;
	bool same_func;

	side_value(bv, sizeof(bv), h->base, h->c->n_base, get_plan, b);
	side_value(nv, sizeof(nv), h->new, h->c->n_new, get_plan, b);
	if (!strcmp(bv, nv) && !strstr(bv, " | "))
		return 0;
	if (!attached_in_all(h, b, &same_func))
		why = "not measured in every run: a count of 0 there means not measured";
	else if (!same_func)
		why = "another function or tracepoint is measured";
	else
		why = "its numbers include different probe costs";
	return warn(h->c, "measurement boundary changed: %s: %s in base, %s in new: %s", name, bv,
		    nv, why);
}

/*
 * "measurement boundary changed: FUNC" for each function the comparison shows (a row or a
 * section) whose plan differs between runs: another mechanism, another function (a renamed or
 * suffixed symbol, a tracepoint), or attached in some runs only (absent, inlined, off).
 */
static int boundary_warnings(struct header *h)
{
	struct kw_compare *c = h->c;
	int err = 0;

	for (int p = 0; p < KW_NR_PROBES && !err; p++) {
		struct boundary b = { .probe = p };

		/*
		 * shown, or left without rows because a side never measured it (compare shows a
		 * function's rows only where both sides do): the reviewer must hear of it
		 */
		if (kw_probe_in_arch(p, h->base[0].meta.arch) &&
		    (shown(c, kw_probes[p].name) ||
		     (attached_somewhere(h, p) &&
		      kw_compare_listed(h->o->functions, kw_probes[p].name, false))))
			err = boundary_warning(h, kw_probes[p].name, &b);
	}
	for (size_t i = 0; i < h->base[0].nufuncs && !err; i++) {
		struct boundary b = { .probe = -1, .ufunc = h->base[0].ufuncs[i].req.name };
		char g[96];

		snprintf(g, sizeof(g), "%.63s (user)", b.ufunc);
		if (shown(c, g))
			err = boundary_warning(h, b.ufunc, &b);
	}
	return err;
}

static int build_diffs(struct header *h)
{
	struct kw_compare *c = h->c;
	size_t first;
	int err = 0, p;

	err = err ?: diff_field(h, "kernel build", get_kernel_build, NULL);
	err = err ?: diff_cmdline(h);
	err = err ?: diff_field(h, "KVM mode", get_kvm_mode, NULL);
	/* every KVM module parameter either side knows */
	first = c->ndiffs;
	for (int side = 0; side < 2 && !err; side++) {
		const struct kw_recording *r = side ? h->new : h->base;
		size_t n = side ? c->n_new : c->n_base;

		for (size_t i = 0; i < n && !err; i++)
			for (size_t j = 0; j < r[i].meta.nparams && !err; j++) {
				const char *name = r[i].meta.params[j].name;
				char what[48];

				/* no diff yet: diffs may be NULL, and NULL + 0 is undefined */
				if (c->ndiffs > first &&
				    has_param(c->diffs + first, c->ndiffs - first, name))
					continue;
				snprintf(what, sizeof(what), "KVM param %.37s", name);
				/* a name that does not fit is compared but cannot be found again */
				err = diff_field(h, what, get_param, name);
			}
	}
	err = err ?: diff_field(h, "THP enabled", get_thp, NULL);
	err = err ?: diff_field(h, "THP defrag", get_thp_defrag, NULL);
	err = err ?: diff_field(h, "CPU", get_cpu, NULL);
	err = err ?: diff_conditions(h);
	err = err ?: diff_field(h, "attach option", get_attach, NULL);
	for (p = 0; p < KW_NR_PROBES && !err; p++) {
		char what[48];

		if (!kw_probe_in_arch(p, h->base[0].meta.arch))
			continue;
		snprintf(what, sizeof(what), "attach %.40s", kw_probes[p].name);
		err = diff_field(h, what, get_mech, &p);
	}
	err = err ?: boundary_warnings(h);
	err = err ?: diff_field(h, "visit probes", get_visits, NULL);
	err = err ?: diff_field(h, "pid filter", get_pid, NULL);
	err = err ?: diff_field(h, "kvmwalk version", get_tool_version, NULL);
	return err;
}

/*
 * The probes' cost of the side's most instrumented runs that measured it (their times carry
 * the most of it), as a share of what they measured (runs.h: a lower bound).
 */
static double overhead_of(const struct kw_recording *r, size_t n, bool *known,
			  enum kw_run_kind *kind)
{
	double v[n ?: 1];
	size_t k = 0;

	*known = false;
	for (int kk = KW_NR_RUN_KINDS - 1; kk >= 0 && !k; kk--)
		for (size_t i = 0; i < n; i++) {
			double s = kw_run_kind(&r[i]) == (enum kw_run_kind)kk
					   ? kw_run_cost_share(&r[i], NULL)
					   : NAN;

			if (!isnan(s)) {
				v[k++] = s;
				*kind = (enum kw_run_kind)kk;
			}
		}
	*known = k > 0;
	return k ? kw_median(v, k) : 0;
}

static int overhead_warning(struct kw_compare *c)
{
	double d = 100 * fabs(c->new.overhead_share - c->base.overhead_share);
	const struct kw_compare_row *worst = NULL;
	size_t n = 0;

	/*
	 * A difference the warning would print as 0.0 points is none to its reader ("differs by
	 * 0.0 points" was printed for 0.02 points against rows of +0.0 %).
	 */
	if (!c->base.overhead_known || !c->new.overhead_known || d < 0.05)
		return 0;
	for (size_t i = 0; i < c->nrows; i++) {
		const struct kw_compare_row *r = &c->rows[i];

		/* a time from runs without probes inside it does not carry their cost */
		if (r->unit != KW_U_NS || !r->runs.instrumented || isnan(r->change.delta_pct) ||
		    fabs(r->change.delta_pct) >= d)
			continue;
		n++;
		if (!worst || fabs(r->change.delta_pct) < fabs(worst->change.delta_pct))
			worst = r;
	}
	if (!n)
		return 0;
	return warn(c,
		    "probe overhead differs by %.1f points (base %.1f%%, new %.1f%%), more than "
		    "%zu duration change%s measured (smallest: %s %s %+.1f%%)",
		    d, 100 * c->base.overhead_share, 100 * c->new.overhead_share, n,
		    n == 1 ? "" : "s", worst->group, worst->metric, worst->change.delta_pct);
}

/*
 * A row whose sides come from runs of different kinds (no kind measured it on both): once per
 * group, since the rows of a group share their runs.
 */
static int runs_warnings(struct kw_compare *c)
{
	const char *last = NULL;
	int err = 0;

	for (size_t i = 0; i < c->nrows && !err; i++) {
		const struct kw_compare_runs *ru = &c->rows[i].runs;

		if (ru->base == ru->new || (last && !strcmp(last, c->rows[i].group)))
			continue;
		last = c->rows[i].group;
		err = warn(c,
			   "%s %s: base from %s runs, new from %s runs (no kind of run measured it "
			   "on both sides): its sides carry different probe costs",
			   c->rows[i].group, c->rows[i].metric, kw_run_kind_names[ru->base],
			   kw_run_kind_names[ru->new]);
	}
	return err;
}

static int lost_warning(struct kw_compare *c, const struct kw_recording *r, size_t n,
			const char *side)
{
	__u64 lost = 0, full = 0, runs = 0;

	for (size_t i = 0; i < n; i++) {
		for (int p = 0; p < KW_NR_PROBES; p++)
			lost += r[i].funcs[p].missed + r[i].funcs[p].dropped;
		for (int k = KW_C_TASK_FULL; k <= KW_C_TRIG_FULL; k++)
			full += r[i].counters[k];
		runs += kw_recording_lost_runs(&r[i]);
	}
	if (!lost && !full && !runs)
		return 0;
	if (runs)
		return warn(c,
			    "%s runs lost events: %llu program runs skipped by the kernel (counts are "
			    "lower bounds), %llu calls missed or dropped, %llu map-full counts",
			    side, (unsigned long long)runs, (unsigned long long)lost,
			    (unsigned long long)full);
	return warn(c, "%s runs lost events: %llu calls missed or dropped, %llu map-full counts",
		    side, (unsigned long long)lost, (unsigned long long)full);
}

/* The recording as its JSON text: two recordings with the same text are the same recording. */
static char *recording_text(const struct kw_recording *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = kw_recording_write(r, f);
	if (fclose(f) || err) {
		free(buf);
		return NULL;
	}
	return buf;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	/* stat follows symbolic links: "a.json", "./a.json" and a link to it are one file */
	return a && b && !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/* "run 2 (PATH)", or "run 2" without paths; a long path keeps its end */
static void run_name(char *dst, size_t len, size_t i, const char *const *paths)
{
	const char *p = paths ? paths[i] : NULL;
	size_t n = p ? strlen(p) : 0;

	if (!p)
		snprintf(dst, len, "run %zu", i + 1);
	else
		snprintf(dst, len, "run %zu (%s%s)", i + 1, n > 48 ? "..." : "",
			 n > 48 ? p + n - 45 : p);
}

/*
 * A base run that is also a new run, as the same file or as a copy: what compare shows is then a
 * recording against itself. At most 3 such pairs are named, then how many more there are.
 */
static int same_recording_warnings(struct header *h)
{
	struct kw_compare *c = h->c;
	const struct kw_compare_opts *o = h->o;
	size_t n = c->n_base + c->n_new, *len = calloc(n, sizeof(*len)), pairs = 0;
	char **text = calloc(n, sizeof(*text)), bn[80], nn[80];
	int err = 0;

	if (!len || !text) {
		err = -ENOMEM;
		goto cleanup;
	}
	for (size_t i = 0; i < n && !err; i++) {
		text[i] = recording_text(i < c->n_base ? &h->base[i] : &h->new[i - c->n_base],
					 &len[i]);
		if (!text[i])
			err = -ENOMEM;
	}
	for (size_t i = 0; i < c->n_base && !err; i++)
		for (size_t j = 0; j < c->n_new && !err; j++) {
			bool file = o->base_paths && o->new_paths &&
				    same_file(o->base_paths[i], o->new_paths[j]);
			size_t k = c->n_base + j;

			if (!file && (len[i] != len[k] || memcmp(text[i], text[k], len[i])))
				continue;
			if (++pairs > 3)
				continue;
			run_name(bn, sizeof(bn), i, o->base_paths);
			run_name(nn, sizeof(nn), j, o->new_paths);
			err = file ? warn(c,
					  "base %s and new %s are the same file: the report "
					  "compares a recording with itself",
					  bn, nn)
				   : warn(c,
					  "base %s and new %s are the same recording (identical "
					  "content): the report compares it with itself",
					  bn, nn);
		}
	if (!err && pairs > 3)
		err = warn(c,
			   "and %zu more pair%s of base and new runs that are the same recording",
			   pairs - 3, pairs == 4 ? "" : "s");
cleanup:
	for (size_t i = 0; text && i < n; i++)
		free(text[i]);
	free(text);
	free(len);
	return err;
}

static const char *get_command(const struct kw_recording *r, const void *arg)
{
	return r->meta.command[0] ? r->meta.command : "(no command: -d or Ctrl-C)";
}

static bool has_command(const struct kw_recording *r, size_t n, const char *cmd)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(r[i].meta.command, cmd))
			return true;
	return false;
}

/*
 * At most max characters: about two thirds of the beginning of s and a third of its end around
 * " ... ", cut between words where a word boundary is near enough.
 */
static void shorten(char *dst, size_t len, const char *s, size_t max)
{
	size_t n = strlen(s), hb = (max - 5) * 2 / 3, tb = max - 5 - hb, head = hb, tail = n - tb;

	if (n <= max) {
		snprintf(dst, len, "%s", s);
		return;
	}
	for (size_t i = hb; i > hb / 2; i--)
		if (s[i] == ' ') {
			head = i;
			break;
		}
	for (size_t i = n - tb; i < n - tb / 2; i++)
		if (s[i - 1] == ' ') {
			tail = i;
			break;
		}
	snprintf(dst, len, "%.*s ... %s", (int)head, s, s + tail);
}

/*
 * Two commands at most max characters each: in full if both fit; else the words both begin with
 * after the program's name become "...", so what differs stays; then shorten() if need be.
 */
static void shorten_pair(char *bs, char *ns, size_t len, const char *bv, const char *nv, size_t max)
{
	size_t ib = 0, in = 0, prog = 0, words = 0;
	char b[2100], n[2100]; /* "PROG ... " and the rest of a 1024-byte value */

	snprintf(b, sizeof(b), "%s", bv);
	snprintf(n, sizeof(n), "%s", nv);
	if (strlen(bv) > max || strlen(nv) > max) {
		/* the last word of either is never elided */
		for (;;) {
			size_t kb = strcspn(bv + ib, " "), kn = strcspn(nv + in, " ");

			if (kb != kn || strncmp(bv + ib, nv + in, kb) || !bv[ib + kb] ||
			    !nv[in + kn])
				break;
			ib += kb + 1;
			in += kn + 1;
			if (!words++)
				prog = kb;
		}
		/* "..." for the common words after the program's, where that is shorter */
		if (words >= 2 && ib > prog + 1 + 4) {
			snprintf(b, sizeof(b), "%.*s ... %s", (int)prog, bv, bv + ib);
			snprintf(n, sizeof(n), "%.*s ... %s", (int)prog, nv, nv + in);
		}
	}
	shorten(bs, len, b, max);
	shorten(ns, len, n, max);
}

/*
 * The recorded commands (meta.command) of the two sides are not the same set: the runs may have
 * measured different workloads. Each side's commands are shortened to 56 characters, so the
 * warning stays a few lines of the 72-column text; "Recorded with" has them in full.
 */
static int command_warning(struct header *h)
{
	struct kw_compare *c = h->c;
	char bv[1024], nv[1024], bs[64], ns[64];
	bool differ = false;

	for (size_t i = 0; i < c->n_base && !differ; i++)
		differ = !has_command(h->new, c->n_new, h->base[i].meta.command);
	for (size_t i = 0; i < c->n_new && !differ; i++)
		differ = !has_command(h->base, c->n_base, h->new[i].meta.command);
	if (!differ)
		return 0;
	side_value(bv, sizeof(bv), h->base, c->n_base, get_command, NULL);
	side_value(nv, sizeof(nv), h->new, c->n_new, get_command, NULL);
	shorten_pair(bs, ns, sizeof(bs), bv, nv, 56);
	return warn(c,
		    "the recorded commands differ, so the runs may not have measured the same "
		    "workload: base ran %s; new ran %s",
		    bs, ns);
}

/* A shell word: quoted when it has anything but the safe characters. */
static size_t append_word(char *d, size_t used, size_t len, const char *w)
{
	bool plain = *w && !w[strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					"0123456789@%+=:,./_-")];

	if (plain)
		return used + snprintf(d + used, used < len ? len - used : 0, " %s", w);
	used += snprintf(d + used, used < len ? len - used : 0, " '");
	for (; *w; w++)
		used += snprintf(d + used, used < len ? len - used : 0, *w == '\'' ? "'\\''" : "%c",
				 *w);
	return used + snprintf(d + used, used < len ? len - used : 0, "'");
}

static int side_commands(struct kw_compare_side *s, const struct kw_recording *r, size_t n,
			 const char *const *paths)
{
	s->cmds = calloc(n, sizeof(*s->cmds));
	if (!s->cmds)
		return -ENOMEM;
	s->ncmds = n;
	for (size_t i = 0; i < n; i++) {
		const struct kw_meta *m = &r[i].meta;
		size_t len = 2048, used;
		char *d = malloc(len), num[KW_MAX_PIDS * 11];

		if (!d)
			return -ENOMEM;
		s->cmds[i] = d;
		if (m->kvmwalk_command[0]) {
			snprintf(d, len, "%s", m->kvmwalk_command);
			continue;
		}
		/* an older recording: rebuilt from what its metadata says */
		s->reconstructed = true;
		used = snprintf(d, len, "kvmwalk record");
		if (m->attach[0] && strcmp(m->attach, "auto"))
			used += snprintf(d + used, len - used, " --attach %s", m->attach);
		if (m->probe_set[0] && strcmp(m->probe_set, KW_PROBE_SET_ALL)) {
			used += snprintf(d + used, len - used, " --probe");
			used = append_word(d, used, len, m->probe_set);
		}
		if (!m->visits)
			used += snprintf(d + used, len - used, " --no-visits");
		if (m->npid_filter) {
			kw_meta_pids(m, num, sizeof(num), ",");
			used += snprintf(d + used, len - used, " --pid %s", num);
		}
		if (paths) {
			const char *base = strrchr(paths[i], '/');

			used += snprintf(d + used, len - used, " -o");
			used = append_word(d, used, len, base ? base + 1 : paths[i]);
		}
		if (m->command[0]) {
			used += snprintf(d + used, used < len ? len - used : 0, " -- %s",
					 m->command);
		} else if (m->duration_s > 0) {
			snprintf(num, sizeof(num), "%.0f", m->duration_s);
			snprintf(d + used, used < len ? len - used : 0, " -d %s", num);
		}
	}
	return 0;
}

/* What recording cost the side's command: each kind's wall time against its fewest probes. */
static int side_slowdown(struct kw_compare *c, struct kw_compare_side *s,
			 const struct kw_recording *r, size_t n)
{
	const struct kw_cost_row *wall;
	struct kw_cost cost;
	int err = kw_cost_build(&cost, r, n, c->level, c->method);

	if (err)
		return err;
	s->ref = cost.ref;
	wall = kw_cost_wall(&cost);
	for (int k = 0; wall && k < KW_NR_RUN_KINDS; k++) {
		if (!wall->has[k])
			continue;
		s->has_slow[k] = true;
		s->slow[k] = wall->vs[k];
		s->n_slow[k] = wall->n[k];
		s->n_ref = wall->n[cost.ref];
		kw_cost_sentence(s->slow_text[k], sizeof(s->slow_text[k]), &cost, wall,
				 (enum kw_run_kind)k);
	}
	kw_cost_free(&cost);
	return 0;
}

static void describe_side(struct kw_compare_side *s, const struct kw_recording *r, size_t n)
{
	s->runs = n;
	side_value(s->kernel, sizeof(s->kernel), r, n, get_kernel, NULL);
	side_value(s->arch, sizeof(s->arch), r, n, get_arch, NULL);
	side_value(s->host, sizeof(s->host), r, n, get_hostname, NULL);
	s->overhead_share = overhead_of(r, n, &s->overhead_known, &s->overhead_kind);
}

static void free_cmds(struct kw_compare_side *s)
{
	for (size_t i = 0; i < s->ncmds; i++)
		free(s->cmds[i]);
	free(s->cmds);
	s->cmds = NULL;
	s->ncmds = 0;
}

int kw_compare_env_build(struct kw_compare *c, const struct kw_recording *base,
			 const struct kw_recording *new, const struct kw_compare_opts *o)
{
	struct header h = { .c = c, .base = base, .new = new, .o = o };
	int err = 0;

	describe_side(&c->base, base, c->n_base);
	describe_side(&c->new, new, c->n_new);
	err = err ?: side_slowdown(c, &c->base, base, c->n_base);
	err = err ?: side_slowdown(c, &c->new, new, c->n_new);
	err = err ?: same_recording_warnings(&h);
	err = err ?: command_warning(&h);
	err = err ?: build_diffs(&h);
	err = err ?: overhead_warning(c);
	err = err ?: runs_warnings(c);
	err = err ?: lost_warning(c, base, c->n_base, "base");
	err = err ?: lost_warning(c, new, c->n_new, "new");
	err = err ?: side_commands(&c->base, base, c->n_base, o->base_paths);
	err = err ?: side_commands(&c->new, new, c->n_new, o->new_paths);
	return err;
}

void kw_compare_env_free(struct kw_compare *c)
{
	free(c->diffs);
	free(c->warnings);
	free_cmds(&c->base);
	free_cmds(&c->new);
	c->diffs = NULL;
	c->warnings = NULL;
	c->ndiffs = c->nwarnings = 0;
}
