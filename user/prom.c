// SPDX-License-Identifier: GPL-2.0
/*
 * Prometheus text exposition of a recording. Every family is documented by its HELP line; the
 * list with the PromQL that uses them is in dashboards/ and README.md ("Fleet").
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "counters.h"
#include "fmt.h"
#include "kvmstats.h"
#include "prom.h"
#include "prom_sampled.h"

/*
 * Bucket boundaries. A fine bucket holds integers [lower, upper]; the Prometheus bucket
 * le=X counts values <= X, so X is always the inclusive upper bound of a fine bucket: that is
 * exact, where le=2^k would silently count a value of exactly 2^k one bucket too high. The list
 * is fixed per unit (not derived from the data), so every scrape has the same series.
 */
enum unit {
	UNIT_NS, /* exported in seconds */
	UNIT_BYTES,
	UNIT_COUNT, /* pages, gfns, leaves */
};

static const struct {
	unsigned int min_exp, max_exp; /* le = 2^k - 1 for k in [min_exp, max_exp] */
} ranges[] = {
	[UNIT_NS] = { 6, 35 },	   /* 63 ns .. 34.4 s */
	[UNIT_BYTES] = { 12, 48 }, /* 4 KiB - 1 .. 256 TiB - 1: a walk of the whole IPA space */
	[UNIT_COUNT] = { 0, 30 },
};

int prom_buckets_parse(const char *s, enum prom_buckets *b)
{
	if (!strcmp(s, "log2"))
		*b = PROM_BUCKETS_LOG2;
	else if (!strcmp(s, "fine"))
		*b = PROM_BUCKETS_FINE;
	else
		return -EINVAL;
	return 0;
}

static void family(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* Label values escape backslash, double quote and line feed (exposition format 0.0.4). */
static void put_escaped(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '"')
			fputs("\\\"", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* kv: label names and values alternating, NULL-terminated; extra: one more pair or NULL. */
static void put_labels(FILE *f, const char *const *kv, const char *ek, const char *ev)
{
	bool first = true;

	for (; kv && kv[0]; kv += 2) {
		fprintf(f, "%s%s=\"", first ? "{" : ",", kv[0]);
		put_escaped(f, kv[1]);
		fputc('"', f);
		first = false;
	}
	if (ek) {
		fprintf(f, "%s%s=\"", first ? "{" : ",", ek);
		put_escaped(f, ev);
		fputc('"', f);
		first = false;
	}
	if (!first)
		fputc('}', f);
}

static void put_u64(FILE *f, const char *name, const char *const *kv, __u64 v)
{
	fputs(name, f);
	put_labels(f, kv, NULL, NULL);
	fprintf(f, " %llu\n", (unsigned long long)v);
}

static void put_ns(FILE *f, const char *name, const char *const *kv, __u64 ns)
{
	char buf[32];

	fputs(name, f);
	put_labels(f, kv, NULL, NULL);
	fprintf(f, " %s\n", kw_fmt_seconds_exact(buf, sizeof(buf), ns));
}

static void put_double(FILE *f, const char *name, const char *const *kv, double v)
{
	fputs(name, f);
	put_labels(f, kv, NULL, NULL);
	fprintf(f, " %.15g\n", v);
}

static void le_str(char *buf, size_t len, enum unit u, __u64 v)
{
	if (u == UNIT_NS)
		kw_fmt_seconds_exact(buf, len, v);
	else
		snprintf(buf, len, "%llu", (unsigned long long)v);
}

/*
 * The fine buckets that end a Prometheus bucket: in log2 mode the last one below each power of
 * two of the unit's range, in fine mode every one in that range. Returns how many.
 */
static size_t bucket_ends(enum unit u, enum prom_buckets mode, __u32 *ends)
{
	__u32 first = kw_hist_bucket(1ULL << ranges[u].min_exp) - 1;
	__u32 last = kw_hist_bucket(1ULL << ranges[u].max_exp) - 1;
	size_t n = 0;

	if (mode == PROM_BUCKETS_FINE) {
		for (__u32 b = first; b <= last; b++)
			ends[n++] = b;
		return n;
	}
	for (unsigned int k = ranges[u].min_exp; k <= ranges[u].max_exp; k++)
		ends[n++] = kw_hist_bucket(1ULL << k) - 1;
	return n;
}

static void put_hist(FILE *f, const char *name, const char *const *kv, const struct kw_hist *h,
		     enum unit u, enum prom_buckets mode)
{
	__u32 ends[KW_HIST_NR_BUCKETS];
	size_t n = bucket_ends(u, mode, ends);
	char series[128], le[32];
	__u64 cum = 0, total = 0;
	__u32 b = 0;

	/* +Inf and _count from the buckets, not h->count: they can differ by a lost update. */
	for (__u32 i = 0; i < KW_HIST_NR_BUCKETS; i++)
		total += h->buckets[i];
	snprintf(series, sizeof(series), "%s_bucket", name);
	for (size_t i = 0; i < n; i++) {
		for (; b <= ends[i]; b++)
			cum += h->buckets[b];
		le_str(le, sizeof(le), u, kw_hist_bucket_upper(ends[i]));
		fputs(series, f);
		put_labels(f, kv, "le", le);
		fprintf(f, " %llu\n", (unsigned long long)cum);
	}
	fputs(series, f);
	put_labels(f, kv, "le", "+Inf");
	fprintf(f, " %llu\n", (unsigned long long)total);
	snprintf(series, sizeof(series), "%s_sum", name);
	if (u == UNIT_NS)
		put_ns(f, series, kv, h->sum);
	else
		put_u64(f, series, kv, h->sum);
	snprintf(series, sizeof(series), "%s_count", name);
	put_u64(f, series, kv, total);
}

static const char *rec_arch(const struct kw_recording *r)
{
	return r->meta.arch;
}

static bool in_arch(const struct kw_recording *r, int p)
{
	return kw_probe_in_arch(p, rec_arch(r));
}

/*
 * Series exist only for probes that attached: a probe that is unavailable or off has no
 * counters (Grafana shows "No data", not "0/s"), only its kvmwalk_probe_info line.
 */
static bool exported(const struct kw_recording *r, int p)
{
	return in_arch(r, p) && kw_plan_attached(&r->plan[p]);
}

/* ---- families ------------------------------------------------------------------------------- */

/*
 * The process_* families of the Prometheus client libraries (their names, types and units), so
 * the exporter's own CPU, memory and descriptors are read as every other exporter's are.
 */
static void put_process(FILE *f, const struct kw_procself *p)
{
	family(f, "process_cpu_seconds_total", "counter",
	       "Total user and system CPU time spent in seconds.");
	put_double(f, "process_cpu_seconds_total", NULL, p->cpu_seconds);
	family(f, "process_open_fds", "gauge", "Number of open file descriptors.");
	put_u64(f, "process_open_fds", NULL, p->open_fds);
	family(f, "process_max_fds", "gauge", "Maximum number of open file descriptors.");
	put_u64(f, "process_max_fds", NULL, p->max_fds);
	family(f, "process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.");
	put_u64(f, "process_virtual_memory_bytes", NULL, p->virtual_bytes);
	family(f, "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.");
	put_u64(f, "process_resident_memory_bytes", NULL, p->resident_bytes);
	family(f, "process_start_time_seconds", "gauge",
	       "Start time of the process since unix epoch in seconds.");
	put_double(f, "process_start_time_seconds", NULL, p->start_time);
}

static void put_info(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	const struct prom_facts *fa = o->facts;
	const char *tool = fa && fa->version && *fa->version ? fa->version : r->meta.tool_version;
	char version[64], revision[64] = "unknown";
	const char *git = strstr(tool, " (git ");
	int n = 0;

	/* "0.2 (git 177fee1a2b3c-dirty)": version 0.2, revision the commit (the Makefile's KW_COMMIT) */
	snprintf(version, sizeof(version), "%.*s", git ? (int)(git - tool) : (int)strlen(tool), tool);
	if (git && strchr(git, ')'))
		snprintf(revision, sizeof(revision), "%.*s", (int)(strchr(git, ')') - git - 6),
			 git + 6);
	family(f, "kvmwalk_build_info", "gauge",
	       "Always 1; the labels say which kvmwalk this is: its version, the git commit it was "
	       "built from (revision, -dirty with uncommitted changes), the arch it was built for and "
	       "the libbpf it runs with.");
	put_u64(f, "kvmwalk_build_info",
		(const char *const[]){ "version", version, "revision", revision, "arch", rec_arch(r),
				       fa && fa->libbpf_version ? "libbpf_version" : NULL,
				       fa ? fa->libbpf_version : NULL, NULL },
		1);
	family(f, "kvmwalk_kernel_info", "gauge",
	       "Always 1; the running kernel's release and KVM mode (vhe, nvhe, protected, tdp, "
	       "...).");
	put_u64(f, "kvmwalk_kernel_info",
		(const char *const[]){ "release", r->meta.kernel, "kvm_mode", r->meta.kvm_mode,
				       NULL },
		1);
	if (fa) {
		family(f, "kvmwalk_start_time_seconds", "gauge",
		       "Unix time at which the exporter started counting.");
		put_double(f, "kvmwalk_start_time_seconds", NULL, fa->start_time);
		family(f, "kvmwalk_collect_duration_seconds", "gauge",
		       "Time the last read of the BPF maps took.");
		put_double(f, "kvmwalk_collect_duration_seconds", NULL, fa->collect_seconds);
		family(f, "kvmwalk_collect_errors_total", "counter",
		       "Reads of the BPF maps that failed (the previous values were served).");
		put_u64(f, "kvmwalk_collect_errors_total", NULL, fa->collect_errors);
		if (fa->proc)
			put_process(f, fa->proc);
	}

	family(f, "kvmwalk_probe_info", "gauge",
	       "Always 1; how each probe is attached: fentry, kprobe, tracepoint, unavailable or "
	       "off. target is the kernel function or tracepoint actually used; reason, for a "
	       "probe not attached, why (off: not in the set asked for, notifiers by default, "
	       "not selected, --no-visits).");
	for (int p = 0; p < KW_NR_PROBES; p++) {
		bool why = !kw_plan_attached(&r->plan[p]) && r->plan[p].reason[0];

		if (!in_arch(r, p))
			continue;
		/* the reason only where there is one: an attached probe's is empty */
		put_u64(f, "kvmwalk_probe_info",
			(const char *const[]){ "function", kw_probes[p].name, "mechanism",
					       r->plan[p].mech ? kw_mech_name(r->plan[p].mech)
							       : "unknown",
					       "target", r->plan[p].func, why ? "reason" : NULL,
					       r->plan[p].reason, NULL },
			1);
		n += kw_plan_attached(&r->plan[p]);
	}
	family(f, "kvmwalk_probes_attached", "gauge", "Number of probes attached to the kernel.");
	put_u64(f, "kvmwalk_probes_attached", NULL, n);
}

static void put_funcs(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	static const struct {
		const char *name, *type, *help;
	} fams[] = {
		{ "kvmwalk_calls_total", "counter", "Calls of each probed kernel function." },
		{ "kvmwalk_missed_exits_total", "counter",
		  "Returns seen without their entry (probe attached mid-call, nesting overflow)." },
		{ "kvmwalk_dropped_calls_total", "counter",
		  "Calls that could not be tracked (the task map was full)." },
		{ "kvmwalk_call_errors_total", "counter", "Calls that returned a negative errno." },
	};

	for (size_t k = 0; k < sizeof(fams) / sizeof(fams[0]); k++) {
		family(f, fams[k].name, fams[k].type, fams[k].help);
		for (int p = 0; p < KW_NR_PROBES; p++) {
			const struct kw_func *fn = &r->funcs[p];
			__u64 v = k == 0   ? fn->calls
				  : k == 1 ? fn->missed
				  : k == 2 ? fn->dropped
					   : fn->errors;

			if (exported(r, p))
				put_u64(f, fams[k].name,
					(const char *const[]){ "function", kw_probes[p].name,
							       NULL },
					v);
		}
	}

	family(f, "kvmwalk_duration_seconds", "histogram",
	       "Time from entry to return of each probed function, inclusive of nested probed "
	       "calls.");
	for (int p = 0; p < KW_NR_PROBES; p++)
		if (exported(r, p) && kw_probes[p].timed && p != KW_P_MMU_LOCK)
			put_hist(f, "kvmwalk_duration_seconds",
				 (const char *const[]){ "function", kw_probes[p].name, NULL },
				 &r->funcs[p].dur, UNIT_NS, o->buckets);

	/*
	 * A wait is no function's entry to return: its own family (put_hist's buckets, as every
	 * timing), where the dashboard's panel and the README look for it. Its count, missed exits
	 * and lost runs stay in the per-function families above, under function="mmu_lock_wait".
	 */
	if (exported(r, KW_P_MMU_LOCK)) {
		family(f, "kvmwalk_mmu_lock_wait_seconds", "histogram",
		       "Time vCPU faults waited for their VM's mmu_lock, per contended acquisition "
		       "(lock:contention_begin to _end; a fault that took it at once is not counted): "
		       "only with the mmu_lock_wait probe, which serve leaves out by default "
		       "(--probe cheap,mmu_lock_wait adds it, with guest_fault).");
		put_hist(f, "kvmwalk_mmu_lock_wait_seconds", NULL, &r->funcs[KW_P_MMU_LOCK].dur,
			 UNIT_NS, o->buckets);
	}

	for (int bytes = 1; bytes >= 0; bytes--) {
		const char *name = bytes ? "kvmwalk_range_bytes" : "kvmwalk_range_pages";
		bool any = false;

		for (int p = 0; p < KW_NR_PROBES; p++) {
			const char *su = kw_probes[p].unit;

			if (!exported(r, p) || !su || (strcmp(su, "bytes") == 0) != bytes)
				continue;
			if (!any)
				family(f, name, "histogram",
				       bytes ? "Size of the IPA range each call walks."
					     : "Pages (TLB flushes) or guest frames (TDP zaps) in "
					       "the range of each call.");
			any = true;
			put_hist(f, name,
				 (const char *const[]){ "function", kw_probes[p].name, NULL },
				 &r->funcs[p].size, bytes ? UNIT_BYTES : UNIT_COUNT, o->buckets);
		}
	}
}

struct trig_row {
	int probe, trigger;
	__u32 cmd, pid;
	__u64 calls, ns;
	const char *ioctl; /* kw_trig_ioctl() of the row, NULL if unknown */
};

static int trig_cmp(const void *a, const void *b)
{
	const struct trig_row *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	if (x->trigger != y->trigger)
		return x->trigger < y->trigger ? -1 : 1;
	if (x->cmd != y->cmd)
		return x->cmd < y->cmd ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return 0;
}

static int put_triggers(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	struct trig_row *rows;
	size_t n = 0;

	if (!r->ntrigs)
		return 0;
	rows = calloc(r->ntrigs, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < r->ntrigs; i++) {
		const struct kw_trig *t = &r->trigs[i];

		rows[n] = (struct trig_row){ t->probe,
					     t->trigger,
					     t->trigger == KW_T_IOCTL ? t->cmd : 0,
					     o->per_vm ? t->pid : 0,
					     t->calls,
					     t->ns,
					     kw_trig_ioctl(r, t) };
		if (rows[n].probe < 0 || rows[n].probe >= KW_NR_PROBES)
			rows[n].probe = 0;
		if (rows[n].trigger < 0 || rows[n].trigger >= KW_NR_TRIGGERS)
			rows[n].trigger = KW_T_OTHER;
		n++;
	}
	qsort(rows, n, sizeof(*rows), trig_cmp);
	/* Without --per-vm the pid is 0 everywhere: merge the rows that now share a key. */
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (m && !trig_cmp(&rows[m - 1], &rows[i])) {
			rows[m - 1].calls += rows[i].calls;
			rows[m - 1].ns += rows[i].ns;
		} else {
			rows[m++] = rows[i];
		}
	}

	for (int k = 0; k < 2; k++) {
		const char *name =
			k ? "kvmwalk_trigger_seconds_total" : "kvmwalk_trigger_calls_total";

		family(f, name, "counter",
		       k ? "Time in each probed function by what caused the call (ioctl: which "
			   "one)."
			 : "Calls of each probed function by what caused them: a KVM ioctl (ioctl "
			   "says which), an MMU-notifier invalidation, a vCPU fault, or other.");
		for (size_t i = 0; i < m; i++) {
			const struct trig_row *t = &rows[i];
			char cmd[16], pid[16];
			const char *ioctl = "none";

			if (t->trigger == KW_T_IOCTL) {
				ioctl = t->ioctl;
				if (!ioctl) {
					snprintf(cmd, sizeof(cmd), "0x%08x", t->cmd);
					ioctl = cmd;
				}
			}
			snprintf(pid, sizeof(pid), "%u", t->pid);
			const struct kw_vm *vm = kw_recording_vm(r, t->pid);
			/* --per-vm: the VM's name next to its pid ("" when it has none, or exited) */
			const char *kv[] = { "function",
					     kw_probes[t->probe].name,
					     "trigger",
					     kw_trigger_names[t->trigger],
					     "ioctl",
					     ioctl,
					     o->per_vm ? "pid" : NULL,
					     pid,
					     "vm",
					     vm ? vm->vm : "",
					     NULL };
			if (k)
				put_ns(f, name, kv, t->ns);
			else
				put_u64(f, name, kv, t->calls);
		}
	}
	free(rows);
	return 0;
}

/*
 * The memslot ioctls (KVM_SET_USER_MEMORY_REGION(2)) by what each changed, every operation of
 * kw_memslot_op_names[] from the start (0 until one happens), when both probes that make them
 * attached: without kvm_arch_prepare_memory_region no call has an operation, without
 * kvm_vm_ioctl none is counted. The calls without one are in kvmwalk_trigger_calls_total.
 */
static void put_memslot_ops(FILE *f, const struct kw_recording *r)
{
	struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS];

	if (!exported(r, KW_P_MEMSLOT) || !exported(r, KW_P_VM_IOCTL))
		return;
	kw_memslot_ops(r, ops);
	for (int k = 0; k < 2; k++) {
		const char *name =
			k ? "kvmwalk_memslot_op_seconds_total" : "kvmwalk_memslot_ops_total";

		family(f, name, "counter",
		       k ? "Time in the KVM_SET_USER_MEMORY_REGION(2) ioctls of each memslot "
			   "operation, entry to return (dirty_log_on: enabling dirty logging, "
			   "with its write-protection or eager split)."
			 : "KVM_SET_USER_MEMORY_REGION(2) ioctls by what each changed: create, "
			   "delete, move, dirty_log_on, dirty_log_off or other flags "
			   "(kvm_arch_prepare_memory_region's change); a refused call counts "
			   "under the operation it asked for.");
		for (int op = 1; op < KW_NR_MEMSLOT_OPS; op++) {
			const char *kv[] = { "op", kw_memslot_op_names[op], NULL };

			if (k)
				put_ns(f, name, kv, ops[op].ns);
			else
				put_u64(f, name, kv, ops[op].calls);
		}
	}
}

/* Walks of kvm_pgtable_walk by callback, outermost or nested. */
static int put_walks(FILE *f, const struct kw_recording *r)
{
	struct {
		const char *sym;
		int nested;
		__u64 calls, ns, bytes;
	} * rows;
	size_t n = 0;

	if (!r->ncbs)
		return 0;
	rows = calloc(r->ncbs, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	for (size_t i = 0; i < r->ncbs; i++) {
		const struct kw_cb *cb = &r->cbs[i];
		int nested = cb->depth != 0;
		size_t j;

		for (j = 0; j < n; j++)
			if (rows[j].nested == nested && !strcmp(rows[j].sym, cb->sym))
				break;
		if (j == n) {
			/* keep them sorted: callback name, then outermost before nested */
			for (j = 0; j < n; j++) {
				int c = strcmp(cb->sym, rows[j].sym);

				if (c < 0 || (c == 0 && nested < rows[j].nested))
					break;
			}
			memmove(&rows[j + 1], &rows[j], (n - j) * sizeof(*rows));
			memset(&rows[j], 0, sizeof(*rows));
			rows[j].sym = cb->sym;
			rows[j].nested = nested;
			n++;
		}
		rows[j].calls += cb->calls;
		rows[j].ns += cb->ns;
		rows[j].bytes += cb->bytes;
	}
	static const char *const names[] = { "kvmwalk_walks_total", "kvmwalk_walk_seconds_total",
					     "kvmwalk_walk_bytes_total" };
	static const char *const helps[] = {
		"kvm_pgtable_walk calls by walker callback; nested walks run inside another walk.",
		"Time in kvm_pgtable_walk by walker callback (inclusive of nested walks).",
		"Bytes of IPA space walked by kvm_pgtable_walk by walker callback.",
	};
	for (int k = 0; k < 3; k++) {
		family(f, names[k], "counter", helps[k]);
		for (size_t i = 0; i < n; i++) {
			const char *kv[] = { "callback", rows[i].sym[0] ? rows[i].sym : "unknown",
					     "nested", rows[i].nested ? "true" : "false", NULL };

			if (k == 1)
				put_ns(f, names[k], kv, rows[i].ns);
			else
				put_u64(f, names[k], kv, k ? rows[i].bytes : rows[i].calls);
		}
	}
	free(rows);
	return 0;
}

/* The stage-2 walkers' per-entry visits, by level and outcome (arm64). */
static void put_visits(FILE *f, const struct kw_recording *r)
{
	if (!exported(r, KW_P_SPLIT_WALKER) && !exported(r, KW_P_UNMAP_WALKER))
		return;
	family(f, "kvmwalk_visits_total", "counter",
	       "Entries visited by the stage-2 walker callbacks, by level (-1..3) and "
	       "outcome: split walker nothing/split/failed, unmap walker "
	       "invalid/cleared/table.");
	for (int w = 0; w < KW_NR_WALKERS; w++) {
		if (!exported(r, w == KW_W_SPLIT ? KW_P_SPLIT_WALKER : KW_P_UNMAP_WALKER))
			continue;
		for (int l = 0; l < KW_NR_LEVELS; l++) {
			char lvl[8];

			snprintf(lvl, sizeof(lvl), "%d", l - 1);
			for (int out = 0; out < KW_NR_OUTCOMES; out++)
				put_u64(f, "kvmwalk_visits_total",
					(const char *const[]){ "walker", kw_walker_names[w], "level",
							       lvl, "outcome", kw_outcome_name(w, out),
							       NULL },
					r->visits[KW_VISIT_IDX(w, l, out)]);
		}
	}
}

static void put_counter(FILE *f, const struct kw_prom_counter_family *fam, const char *label,
			const char *value, __u64 v)
{
	const char *const kv[] = { label, value, NULL };

	if (fam->seconds)
		put_ns(f, fam->name, label ? kv : NULL, v);
	else
		put_u64(f, fam->name, label ? kv : NULL, v);
}

/* The families of kw_prom_counter_families[] (counters.c) whose probes attached. */
static void put_counters(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	const __u64 *c = r->counters;

	for (const struct kw_prom_counter_family *fam = kw_prom_counter_families; fam->name;
	     fam++) {
		if (!kw_recording_attached(r, fam->need, fam->need_any))
			continue;
		family(f, fam->name, fam->kind == KW_PF_HIST_LEAVES ? "histogram" : "counter",
		       fam->help);
		switch (fam->kind) {
		case KW_PF_SAMPLES:
			for (int i = 0; i < KW_PROM_SAMPLES && fam->s[i].c; i++) {
				const struct kw_prom_sample *s = &fam->s[i];
				__u64 v = c[s->c - 1], m = s->minus ? c[s->minus - 1] : 0;

				put_counter(f, fam, s->label, s->value, v > m ? v - m : 0);
			}
			break;
		case KW_PF_BY_ENCL:
			for (int e = 0; e < KW_NR_ENCL; e++)
				put_counter(f, fam, "call", kw_encl_names[e], c[fam->base - 1 + e]);
			break;
		case KW_PF_BY_PF_RET:
			for (int i = 0; i < KW_NR_PF_RET; i++) {
				char name[40];

				if (r->pf_ret_names[i][0])
					snprintf(name, sizeof(name), "%s", r->pf_ret_names[i]);
				else if (i == KW_NR_PF_RET - 1)
					snprintf(name, sizeof(name), "other");
				else
					snprintf(name, sizeof(name), "ret_%d", i);
				put_counter(f, fam, "outcome", name, c[fam->base - 1 + i]);
			}
			break;
		case KW_PF_HIST_LEAVES:
			put_hist(f, fam->name, NULL, &r->unmap_cleared, UNIT_COUNT, o->buckets);
			break;
		}
	}
}

/* The probes' cost, from BPF run-time statistics: per program when the exporter has them. */
static void put_bpf_cost(FILE *f, const struct kw_recording *r, const struct prom_facts *fa)
{
	family(f, "kvmwalk_bpf_run_seconds_total", "counter",
	       "Time the kernel spent running each of kvmwalk's BPF programs: their bodies, a "
	       "lower bound of their cost (the fentry trampoline or kprobe dispatch is not in it).");
	if (fa && fa->nprogs) {
		for (size_t i = 0; i < fa->nprogs; i++)
			put_ns(f, "kvmwalk_bpf_run_seconds_total",
			       (const char *const[]){ "program", fa->progs[i].name, NULL },
			       fa->progs[i].run_ns);
	} else {
		put_ns(f, "kvmwalk_bpf_run_seconds_total",
		       (const char *const[]){ "program", "all", NULL }, r->overhead.run_ns);
	}
	family(f, "kvmwalk_bpf_runs_total", "counter", "Runs of each of kvmwalk's BPF programs.");
	if (fa && fa->nprogs) {
		for (size_t i = 0; i < fa->nprogs; i++)
			put_u64(f, "kvmwalk_bpf_runs_total",
				(const char *const[]){ "program", fa->progs[i].name, NULL },
				fa->progs[i].run_cnt);
	} else {
		put_u64(f, "kvmwalk_bpf_runs_total",
			(const char *const[]){ "program", "all", NULL }, r->overhead.run_cnt);
	}
}

static void put_health(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	const struct prom_facts *fa = o->facts;

	/* a bound, not a count: the series kvmwalk counted can be short by this many runs */
	family(f, "kvmwalk_lost_runs_total", "counter",
	       "Runs of each probe's programs the kernel skipped (its recursion guard): that "
	       "probe's counts are lower bounds by up to this many.");
	for (int i = 0; i < KW_NR_PROBES; i++)
		if (exported(r, i))
			put_u64(f, "kvmwalk_lost_runs_total",
				(const char *const[]){ "function", kw_probes[i].name, NULL },
				r->funcs[i].lost_runs);
	family(f, "kvmwalk_bpf_stats_enabled", "gauge",
	       "1 if kvmwalk turned BPF run-time statistics on (serve --probe-cost), so the probe "
	       "cost is measured and served; 0: kvmwalk_bpf_run_seconds_total and "
	       "kvmwalk_bpf_runs_total are absent.");
	put_u64(f, "kvmwalk_bpf_stats_enabled", NULL, r->overhead.stats_enabled);
	/*
	 * Absent, not 0, when not measured: a 0 would read as "free", and the kernel counts nothing
	 * while the statistics are off (or someone else's window, when another tool turned them on).
	 */
	if (r->overhead.stats_enabled)
		put_bpf_cost(f, r, fa);
	family(f, "kvmwalk_measured_seconds_total", "counter",
	       "Time inside the outermost measured kernel work (walks at depth 0, x86 zaps and "
	       "fast faults): the denominator of the probes' relative cost.");
	put_ns(f, "kvmwalk_measured_seconds_total", NULL, r->overhead.measured_ns);
}

/*
 * KVM's own statistics of each VM (serve reads them at every refresh, kvmstats_read.h), those
 * of kw_kvm_stat_defs[] that this arch has: the cumulative ones as counters, the levels
 * (pages_*) as gauges, with the VM's process, name and debugfs id (TID-FD: a process can hold
 * several VMs). A series disappears with its VM; none when they could not be read. Then
 * SecPageTables, when /proc/meminfo has it.
 */
static void put_kvm_stats(FILE *f, const struct kw_recording *r)
{
	const struct kw_kvmstats *ks = &r->kvmstats;
	static const struct {
		const char *name, *type, *help;
		bool instant;
	} fams[] = {
		{ "kvmwalk_kvm_stat_total", "counter",
		  "KVM's own cumulative statistic stat of one VM (its binary stats, vCPUs summed), "
		  "read at no probe cost: pf_fast, pf_taken, remote_tlb_flush_requests, ...",
		  false },
		{ "kvmwalk_kvm_stat", "gauge",
		  "KVM's own statistic stat of one VM that is a level: pages_4k, pages_2m, pages_1g "
		  "(leaf SPTEs mapped).",
		  true },
	};

	for (size_t k = 0; ks->source[0] && k < sizeof(fams) / sizeof(fams[0]); k++) {
		bool head = false;

		for (size_t v = 0; v < ks->nvms; v++) {
			const struct kw_kvm_vm *vm = &ks->vms[v];
			const struct kw_vm *id = vm->pid ? kw_recording_vm(r, vm->pid) : NULL;
			char pid[16];

			snprintf(pid, sizeof(pid), "%u", vm->pid);
			for (size_t d = 0; d < kw_nr_kvm_stat_defs; d++) {
				const struct kw_kvm_stat *s = kw_kvm_vm_find(vm, kw_kvm_stat_defs[d].name);

				if (!s || (s->type == KW_KST_INSTANT) != fams[k].instant ||
				    s->type == KW_KST_PEAK)
					continue;
				if (!head)
					family(f, fams[k].name, fams[k].type, fams[k].help);
				head = true;
				put_u64(f, fams[k].name,
					(const char *const[]){ "pid", pid, "vm", id ? id->vm : "",
							       "vm_id", vm->id, "stat", s->name,
							       NULL },
					s->end);
			}
		}
	}
	if (ks->sec_pt_end_kb >= 0) {
		family(f, "kvmwalk_secondary_page_tables_bytes", "gauge",
		       "The host's secondary page tables (/proc/meminfo SecPageTables): KVM's stage-2 "
		       "and TDP tables, and the IOMMU's.");
		put_u64(f, "kvmwalk_secondary_page_tables_bytes", NULL,
			(__u64)ks->sec_pt_end_kb * 1024);
	}
}

int prom_write(FILE *f, const struct kw_recording *r, const struct prom_opts *o)
{
	int err;

	put_info(f, r, o);
	put_funcs(f, r, o);
	if ((err = put_triggers(f, r, o)))
		return err;
	put_memslot_ops(f, r);
	if ((err = put_walks(f, r)))
		return err;
	put_visits(f, r);
	put_counters(f, r, o);
	put_kvm_stats(f, r);
	put_health(f, r, o);
	if ((err = prom_put_sampled(f, r, o->per_vm)))
		return err;
	return ferror(f) ? -EIO : 0;
}

int prom_render(const struct kw_recording *r, const struct prom_opts *o, char **buf, size_t *len)
{
	FILE *f;
	int err;

	*buf = NULL;
	*len = 0;
	f = open_memstream(buf, len);
	if (!f)
		return -errno;
	err = prom_write(f, r, o);
	if (fclose(f) && !err)
		err = -ENOMEM;
	if (err) {
		free(*buf);
		*buf = NULL;
		*len = 0;
	}
	return err;
}
