// SPDX-License-Identifier: GPL-2.0
/* Recordings: counter and trigger names, and the versioned JSON document (written with jansson). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "counters.h"
#include "ioctls.h"
#include "outfile.h"
#include "record.h"

const char *const kw_trigger_names[KW_NR_TRIGGERS] = {
	[KW_T_OTHER] = "other",
	[KW_T_IOCTL] = "ioctl",
	[KW_T_NOTIFIER] = "mmu_notifier",
	[KW_T_TEARDOWN] = "vm_teardown",
	[KW_T_FAULT] = "vcpu_fault",
	[KW_T_AGING] = "mmu_notifier_age",
};

const char *const kw_memslot_op_names[KW_NR_MEMSLOT_OPS] = {
	[KW_MS_NONE] = "",
	[KW_MS_CREATE] = "create",
	[KW_MS_DELETE] = "delete",
	[KW_MS_MOVE] = "move",
	[KW_MS_DIRTY_LOG_ON] = "dirty_log_on",
	[KW_MS_DIRTY_LOG_OFF] = "dirty_log_off",
	[KW_MS_FLAGS] = "flags",
};

const char *const kw_encl_names[KW_NR_ENCL] = {
	[KW_E_UNMAP] = "unmap",
	[KW_E_WRPROTECT] = "wrprotect",
	[KW_E_SPLIT] = "split",
	[KW_E_OTHER] = "other",
};

const char *const kw_walker_names[KW_NR_WALKERS] = {
	[KW_W_SPLIT] = "stage2_split_walker",
	[KW_W_UNMAP] = "stage2_unmap_walker",
};

const char *kw_outcome_name(int walker, int outcome)
{
	static const char *const split[] = { "nothing", "split", "failed" };
	static const char *const unmap[] = { "invalid", "cleared", "table" };

	if (outcome < 0 || outcome >= KW_NR_OUTCOMES)
		return "?";
	return walker == KW_W_SPLIT ? split[outcome] : unmap[outcome];
}

bool kw_plan_attached(const struct kw_plan *pl)
{
	return pl->mech == KW_MECH_FENTRY || pl->mech == KW_MECH_KPROBE ||
	       pl->mech == KW_MECH_TRACEPOINT;
}

__u64 kw_recording_lost_runs(const struct kw_recording *r)
{
	__u64 n = 0;

	for (int p = 0; p < KW_NR_PROBES; p++)
		n += r->funcs[p].lost_runs;
	return n;
}

bool kw_recording_attached(const struct kw_recording *r, kw_probe_mask need,
			   kw_probe_mask need_any)
{
	bool any = !need_any;

	for (int p = 0; p < KW_NR_PROBES; p++) {
		bool on = kw_probe_in_arch(p, r->meta.arch) && kw_plan_attached(&r->plan[p]);

		if ((need & KW_PROBE_BIT(p)) && !on)
			return false;
		any |= (need_any & KW_PROBE_BIT(p)) && on;
	}
	return any;
}

/*
 * A kvm_vcpu_ioctl row's own number is a vCPU fd's, a kvm_vm_ioctl row's a VM fd's: where two
 * names share a number (KVM_GET_ONE_REG and KVM_ARM_SET_DEVICE_ADDR are both 0x4010aeab) the
 * probe picks. Other rows keep the table's first. The table is that of the recording's arch.
 */
const char *kw_trig_ioctl(const struct kw_recording *r, const struct kw_trig *t)
{
	int fd = KW_FD_ANY;

	if (t->ioctl[0])
		return t->ioctl;
	if (t->probe == KW_P_VCPU_IOCTL)
		fd = KW_FD_VCPU;
	else if (t->probe == KW_P_VM_IOCTL)
		fd = KW_FD_VM;
	return kw_ioctl_name(r->meta.arch, t->cmd, fd);
}

__u64 kw_recording_measured_ns(const struct kw_recording *r)
{
	__u64 ns = 0;

	/* Outermost walks only: nested ones are inside their parent's time already. */
	for (size_t i = 0; i < r->ncbs; i++)
		if (r->cbs[i].depth == 0)
			ns += r->cbs[i].ns;
	ns += r->funcs[KW_P_TDP_ZAP_LEAFS].dur.sum + r->funcs[KW_P_FAST_PF].dur.sum;
	return ns;
}

void kw_func_add_percpu(struct kw_func *f, const struct kw_probe_stats *s, int n)
{
	for (int c = 0; c < n; c++) {
		f->calls += s[c].calls;
		f->missed += s[c].missed;
		f->dropped += s[c].dropped;
		f->errors += s[c].errors;
	}
}

void kw_recording_free(struct kw_recording *r)
{
	if (!r)
		return;
	free(r->meta.params);
	free(r->cbs);
	free(r->trigs);
	free(r->utrigs);
	for (size_t i = 0; i < r->nintervals; i++)
		kw_interval_free(&r->intervals[i]);
	free(r->intervals);
	free(r->vms);
	kw_kvmstats_free(&r->kvmstats);
	r->vms = NULL;
	r->nvms = 0;
	r->meta.params = NULL;
	r->cbs = NULL;
	r->trigs = NULL;
	r->utrigs = NULL;
	r->nutrigs = r->nufuncs = 0;
	r->intervals = NULL;
	r->meta.nparams = r->ncbs = r->ntrigs = r->nintervals = 0;
	kw_workload_free(&r->workload);
	kw_sampled_free(&r->sampled);
	r->sampled.hz = 0;
}

static int grow(void **arr, size_t *n, size_t elem, const void *item)
{
	void *p = realloc(*arr, (*n + 1) * elem);

	if (!p)
		return -ENOMEM;
	memcpy((char *)p + *n * elem, item, elem);
	*arr = p;
	(*n)++;
	return 0;
}

int kw_recording_add_cb(struct kw_recording *r, const struct kw_cb *cb)
{
	return grow((void **)&r->cbs, &r->ncbs, sizeof(*cb), cb);
}

int kw_recording_add_trig(struct kw_recording *r, const struct kw_trig *tr)
{
	return grow((void **)&r->trigs, &r->ntrigs, sizeof(*tr), tr);
}

int kw_recording_add_utrig(struct kw_recording *r, const struct kw_trig *tr)
{
	return grow((void **)&r->utrigs, &r->nutrigs, sizeof(*tr), tr);
}

int kw_recording_add_vm(struct kw_recording *r, const struct kw_vm *vm)
{
	return grow((void **)&r->vms, &r->nvms, sizeof(*vm), vm);
}

json_t *kw_vms_json(const struct kw_recording *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nvms; i++) {
		const struct kw_vm *v = &r->vms[i];
		char src[160], esrc[160], eager[64];
		__u32 ipa;
		json_t *o;

		o = json_pack("{sIsssssssI}", "pid", (json_int_t)v->pid, "comm", v->comm, "vm",
			      v->vm, "source", v->source, "unseen_runs", (json_int_t)v->unseen);
		/* the test conditions of its VM (since conditions): as read, then what they say */
		json_object_set_new(o, "cmdline", json_string(v->cmdline));
		json_object_set_new(o, "cmdline_truncated", json_boolean(v->cmdline_cut));
		json_object_set_new(o, "exe", json_string(v->exe));
		json_object_set_new(o, "vmm", json_string(v->vmm));
		json_object_set_new(o, "vmm_version", json_string(v->vmm_version));
		json_object_set_new(o, "ipa_option", json_string(v->ipa_opt));
		json_object_set_new(o, "eager_split_option", json_string(v->eager_opt));
		json_object_set_new(o, "ipa_debugfs", json_string(v->ipa_debugfs));
		ipa = kw_cond_vm_ipa(&r->meta.cond, r->meta.arch, r->meta.kvm_mode, v->vmm,
				     v->ipa_opt, v->ipa_debugfs, src, sizeof(src));
		json_object_set_new(o, "ipa_bits", ipa ? json_integer(ipa) : json_null());
		json_object_set_new(o, "ipa_source", json_string(src));
		kw_cond_vm_eager(&r->meta.cond, r->meta.arch, v->vmm, v->eager_opt, eager,
				 sizeof(eager), esrc, sizeof(esrc));
		json_object_set_new(o, "eager_split", eager[0] ? json_string(eager) : json_null());
		json_object_set_new(o, "eager_split_source", json_string(esrc));
		json_array_append_new(a, o);
	}
	return a;
}

const struct kw_vm *kw_recording_vm(const struct kw_recording *r, __u32 pid)
{
	for (size_t i = 0; i < r->nvms; i++)
		if (r->vms[i].pid == pid)
			return &r->vms[i];
	return NULL;
}

static int cmp_u64(__u64 a, __u64 b)
{
	return a < b ? -1 : a > b;
}

static int trig_cmp(const void *a, const void *b)
{
	const struct kw_trig *x = a, *y = b;

	return x->probe != y->probe	  ? x->probe - y->probe
	       : x->trigger != y->trigger ? x->trigger - y->trigger
	       : x->cmd != y->cmd	  ? cmp_u64(x->cmd, y->cmd)
	       : x->pid != y->pid	  ? cmp_u64(x->pid, y->pid)
					  : x->memslot_op - y->memslot_op;
}

static int cb_cmp(const void *a, const void *b)
{
	const struct kw_cb *x = a, *y = b;
	int c = strcmp(x->sym, y->sym);

	return c		      ? c
	       : x->depth != y->depth ? cmp_u64(x->depth, y->depth)
				      : cmp_u64(x->flags, y->flags);
}

void kw_recording_sort(struct kw_recording *r)
{
	if (r->ntrigs)
		qsort(r->trigs, r->ntrigs, sizeof(*r->trigs), trig_cmp);
	if (r->nutrigs)
		qsort(r->utrigs, r->nutrigs, sizeof(*r->utrigs), trig_cmp);
	if (r->ncbs)
		qsort(r->cbs, r->ncbs, sizeof(*r->cbs), cb_cmp);
}

int kw_recording_add_param(struct kw_recording *r, const char *name, const char *value)
{
	struct kw_param p = {};

	snprintf(p.name, sizeof(p.name), "%s", name);
	snprintf(p.value, sizeof(p.value), "%s", value);
	return grow((void **)&r->meta.params, &r->meta.nparams, sizeof(p), &p);
}

int kw_recording_add_interval(struct kw_recording *r, const struct kw_interval *iv)
{
	return grow((void **)&r->intervals, &r->nintervals, sizeof(*iv), iv);
}

bool kw_trig_is_dirty_log(const struct kw_recording *r, const struct kw_trig *t)
{
	static const char *const names[] = { "KVM_GET_DIRTY_LOG", "KVM_CLEAR_DIRTY_LOG" };
	const char *n;

	/* kvm_vm_ioctl's own row: one per call, at its exit, under its command */
	if (t->probe != KW_P_VM_IOCTL || t->trigger != KW_T_IOCTL)
		return false;
	/* by name: an x86 recording read on arm64 (or the other way) still matches */
	n = kw_trig_ioctl(r, t);
	for (size_t i = 0; n && i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(n, names[i]))
			return true;
	return false;
}

int kw_trig_memslot_op(const struct kw_recording *r, const struct kw_trig *t)
{
	const char *n;

	if (t->probe != KW_P_VM_IOCTL || t->trigger != KW_T_IOCTL)
		return -1;
	n = kw_trig_ioctl(r, t);
	if (!n ||
	    (strcmp(n, "KVM_SET_USER_MEMORY_REGION") && strcmp(n, "KVM_SET_USER_MEMORY_REGION2")))
		return -1;
	return t->memslot_op >= 0 && t->memslot_op < KW_NR_MEMSLOT_OPS ? t->memslot_op : KW_MS_NONE;
}

void kw_memslot_ops(const struct kw_recording *r, struct kw_memslot_stat ops[KW_NR_MEMSLOT_OPS])
{
	memset(ops, 0, KW_NR_MEMSLOT_OPS * sizeof(*ops));
	for (size_t i = 0; i < r->ntrigs; i++) {
		int op = kw_trig_memslot_op(r, &r->trigs[i]);

		if (op < 0)
			continue;
		ops[op].calls += r->trigs[i].calls;
		ops[op].ns += r->trigs[i].ns;
	}
}

int kw_memslot_op_by_name(const char *name)
{
	for (int i = 1; name && i < KW_NR_MEMSLOT_OPS; i++)
		if (!strcmp(kw_memslot_op_names[i], name))
			return i;
	return KW_MS_NONE;
}

__u64 kw_dirty_log_ioctls(const struct kw_recording *r)
{
	__u64 n = 0;

	for (size_t i = 0; i < r->ntrigs; i++)
		if (kw_trig_is_dirty_log(r, &r->trigs[i]))
			n += r->trigs[i].calls;
	return n;
}

/*
 * The probes whose duration histograms an interval keeps: those report --timeline reads a p99
 * of (walks, range TLB flushes, MMU-notifier invalidations). Not every timed probe: in the
 * recording's indented JSON a bucket takes about 40 bytes, and the whole recording of the
 * kw-timeline case (tests/unit/fixtures/timeline, 2.7 s) has 231 non-empty duration buckets
 * over all probes (guest_fault alone 77), 101 over these: an interval holds at most as many.
 */
static bool interval_keeps_hist(int p)
{
	return p == KW_P_PGT_WALK || p == KW_P_TDP_ZAP_LEAFS || p == KW_P_FAST_PF ||
	       p == KW_P_TLB_FLUSH_RANGE || p == KW_P_HYP_FLUSH_RANGE || p == KW_P_NOTIFIER;
}

/*
 * The buckets of cur's duration histograms minus those of last (sorted by probe and bucket, as
 * dur_diff() writes them), non-empty ones only, into a new array. A bucket can only grow between
 * two reads of the maps; one that did not is taken as unchanged.
 */
static int dur_diff(const struct kw_recording *cur, const struct kw_interval *last,
		    struct kw_iv_bucket **out, size_t *nout)
{
	struct kw_iv_bucket *d = NULL;
	size_t n = 0, cap = 0, k = 0;

	for (int p = 0; p < KW_NR_PROBES; p++) {
		const struct kw_hist *h = &cur->funcs[p].dur;

		for (int b = 0; interval_keeps_hist(p) && h->count && b < (int)KW_HIST_NR_BUCKETS;
		     b++) {
			__u64 was = 0;

			while (k < last->ndur &&
			       (last->dur[k].probe < p ||
				(last->dur[k].probe == p && last->dur[k].bucket < b)))
				k++;
			if (k < last->ndur && last->dur[k].probe == p && last->dur[k].bucket == b)
				was = last->dur[k].count;
			if (h->buckets[b] <= was)
				continue;
			if (n == cap) {
				struct kw_iv_bucket *m;

				cap = cap ? 2 * cap : 16;
				m = realloc(d, cap * sizeof(*d));
				if (!m) {
					free(d);
					return -ENOMEM;
				}
				d = m;
			}
			d[n++] = (struct kw_iv_bucket){ .probe = p, .bucket = b,
							.count = h->buckets[b] - was };
		}
	}
	*out = d;
	*nout = n;
	return 0;
}

int kw_interval_diff(struct kw_interval *iv, const struct kw_recording *cur,
		     const struct kw_interval *last)
{
	struct kw_iv_bucket *dur;
	size_t ndur;
	int err = dur_diff(cur, last, &dur, &ndur);

	if (err)
		return err;
	iv->full = true;
	iv->dur = dur;
	iv->ndur = ndur;
	for (int p = 0; p < KW_NR_PROBES; p++) {
		iv->calls[p] = cur->funcs[p].calls - last->calls[p];
		iv->ns[p] = cur->funcs[p].dur.sum - last->ns[p];
	}
	for (int c = 0; c < KW_NR_COUNTERS; c++)
		iv->counters[c] = cur->counters[c] - last->counters[c];
	for (int i = 0; i < KW_NR_VISITS; i++)
		iv->visits[i] = cur->visits[i] - last->visits[i];
	/* sums over trigger rows: exited processes' rows are kept or folded, never dropped */
	iv->dirty_log_ioctls = kw_dirty_log_ioctls(cur) - last->dirty_log_ioctls;
	iv->measured_ns = kw_recording_measured_ns(cur) - last->measured_ns;
	return 0;
}

int kw_interval_delta(struct kw_interval *iv, const struct kw_recording *cur,
		      struct kw_interval *last)
{
	static const struct kw_interval zero;
	struct kw_interval now = {};
	int err;

	/* cur's cumulative counts: the difference to nothing */
	if ((err = kw_interval_diff(&now, cur, &zero)))
		return err;
	if ((err = kw_interval_diff(iv, cur, last))) {
		kw_interval_free(&now);
		return err;
	}
	kw_interval_free(last);
	*last = now;
	return 0;
}

void kw_interval_free(struct kw_interval *iv)
{
	free(iv->dur);
	iv->dur = NULL;
	iv->ndur = 0;
}

void kw_interval_hist(const struct kw_interval *iv, int p, struct kw_hist *h)
{
	for (size_t k = 0; k < iv->ndur; k++) {
		const struct kw_iv_bucket *e = &iv->dur[k];
		__u64 lo = kw_hist_bucket_lower(e->bucket), hi = kw_hist_bucket_upper(e->bucket);

		if (e->probe != p || !e->count)
			continue;
		if (!h->count || lo < h->min)
			h->min = lo;
		if (hi > h->max)
			h->max = hi;
		h->count += e->count;
		h->buckets[e->bucket] += e->count;
	}
	h->sum += iv->ns[p];
}

void kw_meta_set_command(struct kw_meta *m, int argc, char **argv)
{
	size_t n = 0, len = sizeof(m->kvmwalk_command);
	char *d = m->kvmwalk_command;

	d[0] = 0;
	for (int i = 0; i < argc && n < len; i++) {
		const char *a = argv[i];
		/* argv[0] is "kvmwalk record" as main() rewrote it: not quoted */
		bool plain = i == 0 || (*a && !a[strspn(a, "abcdefghijklmnopqrstuvwxyz"
							   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
							   "@%+=:,./_-")]);

		if (i)
			n += snprintf(d + n, len - n, " ");
		if (plain) {
			n += snprintf(d + n, n < len ? len - n : 0, "%s", a);
			continue;
		}
		n += snprintf(d + n, n < len ? len - n : 0, "'");
		for (; *a && n < len; a++)
			n += snprintf(d + n, len - n, *a == '\'' ? "'\\''" : "%c", *a);
		n += snprintf(d + n, n < len ? len - n : 0, "'");
	}
}

/* ---- JSON out -------------------------------------------------------------------------------- */

static json_t *hist_json(const struct kw_hist *h)
{
	json_t *o = json_object(), *b = json_array();

	json_object_set_new(o, "count", json_integer(h->count));
	json_object_set_new(o, "sum", json_integer(h->sum));
	json_object_set_new(o, "min", json_integer(h->count ? h->min : 0));
	json_object_set_new(o, "max", json_integer(h->max));
	/*
	 * Sparse: [bucket index, count] pairs of the non-empty buckets, bucket maths in bpf/hist_abi.h.
	 */
	for (unsigned int i = 0; i < KW_HIST_NR_BUCKETS; i++)
		if (h->buckets[i])
			json_array_append_new(b, json_pack("[iI]", i, (json_int_t)h->buckets[i]));
	json_object_set_new(o, "buckets", b);
	return o;
}

/* The non-zero visits of a KW_NR_VISITS array: the recording's "visits" and an interval's. */
static json_t *visits_json(const __u64 *visits)
{
	json_t *a = json_array();

	for (int w = 0; w < KW_NR_WALKERS; w++)
		for (int l = 0; l < KW_NR_LEVELS; l++)
			for (int oc = 0; oc < KW_NR_OUTCOMES; oc++) {
				__u64 n = visits[KW_VISIT_IDX(w, l, oc)];

				if (!n)
					continue;
				json_array_append_new(a,
						      json_pack("{sssiss sI}", "walker",
								kw_walker_names[w], "level", l - 1,
								"outcome", kw_outcome_name(w, oc),
								"count", (json_int_t)n));
			}
	return a;
}

/*
 * Only what happened: probes with calls, time or duration buckets ([index, count], as a
 * histogram's), non-zero counters and visits.
 */
json_t *kw_interval_json(const struct kw_interval *iv)
{
	json_t *o = json_object(), *p = json_object(), *c;
	size_t d = 0;

	for (int k = 0; k < KW_NR_PROBES; k++) {
		json_t *po, *b = json_array();

		for (; d < iv->ndur && iv->dur[d].probe <= k; d++)
			if (iv->dur[d].probe == k)
				json_array_append_new(b, json_pack("[iI]", iv->dur[d].bucket,
								   (json_int_t)iv->dur[d].count));
		if (!iv->calls[k] && !iv->ns[k] && !json_array_size(b)) {
			json_decref(b);
			continue;
		}
		po = json_pack("{sIsI}", "calls", (json_int_t)iv->calls[k], "ns",
			       (json_int_t)iv->ns[k]);
		if (json_array_size(b))
			json_object_set_new(po, "buckets", b);
		else
			json_decref(b);
		json_object_set_new(p, kw_probes[k].name, po);
	}
	json_object_set_new(o, "t", json_real(iv->t));
	json_object_set_new(o, "probes", p);
	if (!iv->full)
		return o;
	c = json_object();
	for (int k = 0; k < KW_NR_COUNTERS; k++)
		if (iv->counters[k])
			json_object_set_new(c, kw_counters[k].name, json_integer(iv->counters[k]));
	json_object_set_new(o, "counters", c);
	json_object_set_new(o, "visits", visits_json(iv->visits));
	json_object_set_new(o, "dirty_log_ioctls", json_integer(iv->dirty_log_ioctls));
	json_object_set_new(o, "measured_ns", json_integer(iv->measured_ns));
	return o;
}

static json_t *meta_json(const struct kw_meta *m)
{
	json_t *o = json_object(), *p = json_object(), *a;

	json_object_set_new(o, "tool_version", json_string(m->tool_version));
	json_object_set_new(o, "arch", json_string(m->arch));
	json_object_set_new(o, "kernel", json_string(m->kernel));
	json_object_set_new(o, "kernel_build", json_string(m->kernel_build));
	json_object_set_new(o, "hostname", json_string(m->hostname));
	json_object_set_new(o, "cmdline", json_string(m->cmdline));
	json_object_set_new(o, "cpu", json_string(m->cpu));
	json_object_set_new(o, "kvm_mode", json_string(m->kvm_mode));
	json_object_set_new(o, "thp", json_string(m->thp));
	json_object_set_new(o, "thp_defrag", json_string(m->thp_defrag));
	json_object_set_new(o, "started", json_string(m->started));
	json_object_set_new(o, "duration_s", json_real(m->duration_s));
	json_object_set_new(o, "start_monotonic_ns", json_integer(m->start_monotonic_ns));
	if (m->start_realtime_ns) /* optional: absent in older recordings and hand-made ones */
		json_object_set_new(o, "start_realtime_ns", json_integer(m->start_realtime_ns));
	json_object_set_new(o, "command", json_string(m->command));
	json_object_set_new(o, "kvmwalk_command", json_string(m->kvmwalk_command));
	json_object_set_new(o, "exit_status", json_integer(m->exit_status));
	json_object_set_new(o, "exited_folded", json_integer(m->exited_folded));
	a = json_array();
	for (__u32 i = 0; i < m->npid_filter && i < KW_MAX_PIDS; i++)
		json_array_append_new(a, json_integer(m->pid_filter[i]));
	json_object_set_new(o, "pid_filter", a);
	a = json_array();
	for (__u32 i = 0; i < m->nvm_filter && i < KW_MAX_VMS; i++)
		json_array_append_new(a, json_string(m->vm_filter[i]));
	json_object_set_new(o, "vm_filter", a);
	if (m->vm_unseen_known) {
		a = json_array();
		for (__u32 i = 0; i < m->nvm_unseen && i < KW_MAX_VMS; i++)
			json_array_append_new(a, json_string(m->vm_unseen[i]));
		json_object_set_new(o, "vm_filter_unseen", a);
	}
	json_object_set_new(o, "visits", json_boolean(m->visits));
	json_object_set_new(o, "attach", json_string(m->attach));
	/* since the preemption model decides the attach mechanism; absent where not known */
	if (m->preempt[0]) {
		json_object_set_new(o, "preempt", json_string(m->preempt));
		json_object_set_new(o, "preempt_source", json_string(m->preempt_src));
	}
	/* since the timing set and bare runs; absent in older recordings (and when unknown) */
	if (m->probe_set[0])
		json_object_set_new(o, "probe_set", json_string(m->probe_set));
	if (m->wall_ns)
		json_object_set_new(o, "wall_ns", json_integer(m->wall_ns));
	/* only while recording: the whole recording that replaces it has none */
	if (m->checkpoint)
		json_object_set_new(o, "checkpoint", json_true());
	for (size_t i = 0; i < m->nparams; i++)
		json_object_set_new(p, m->params[i].name, json_string(m->params[i].value));
	json_object_set_new(o, "kvm_params", p);
	/* the test conditions (conditions.h); absent in recordings made before them */
	if (m->cond.recorded)
		json_object_set_new(o, "conditions", kw_conditions_json(&m->cond));
	return o;
}

/* A row's kw_memslot_op_names[] entry, "" for none or a value out of range. */
static const char *memslot_op_name(const struct kw_trig *t)
{
	return t->memslot_op > 0 && t->memslot_op < KW_NR_MEMSLOT_OPS
		       ? kw_memslot_op_names[t->memslot_op]
		       : "";
}

json_t *kw_ufuncs_json(const struct kw_recording *r)
{
	json_t *a = json_array();

	for (size_t i = 0; i < r->nufuncs; i++) {
		const struct kw_ufunc *u = &r->ufuncs[i];
		json_t *o = json_object(), *ta = json_array();

		json_object_set_new(o, "name", json_string(u->req.name));
		json_object_set_new(o, "mode", json_string(u->req.timed ? "time" : "count"));
		json_object_set_new(o, "optional", json_boolean(u->req.optional));
		json_object_set_new(o, "mechanism", json_string(kw_mech_name(u->plan.mech)));
		json_object_set_new(o, "reason", json_string(u->plan.reason));
		json_object_set_new(o, "calls", json_integer(u->f.calls));
		json_object_set_new(o, "missed", json_integer(u->f.missed));
		json_object_set_new(o, "dropped", json_integer(u->f.dropped));
		json_object_set_new(o, "bpf_runs", json_integer(u->f.bpf_runs));
		json_object_set_new(o, "bpf_ns", json_integer(u->f.bpf_ns));
		if (u->req.timed)
			json_object_set_new(o, "duration_ns", hist_json(&u->f.dur));
		for (size_t k = 0; k < r->nutrigs; k++) {
			const struct kw_trig *t = &r->utrigs[k];
			const char *n = kw_trig_ioctl(r, t);
			char buf[32];

			if ((size_t)t->probe != i)
				continue;
			if (!n) {
				snprintf(buf, sizeof(buf), "0x%x", t->cmd);
				n = buf;
			}
			json_array_append_new(
				ta, json_pack("{sssIsssssIsIsI}", "trigger",
					      kw_trigger_names[t->trigger], "cmd", (json_int_t)t->cmd,
					      "ioctl", t->trigger == KW_T_IOCTL ? n : "", "memslot_op",
					      memslot_op_name(t), "pid", (json_int_t)t->pid, "calls",
					      (json_int_t)t->calls, "ns", (json_int_t)t->ns));
		}
		json_object_set_new(o, "triggers", ta);
		json_array_append_new(a, o);
	}
	return a;
}

static json_t *recording_json(const struct kw_recording *r)
{
	json_t *root = json_object(), *a, *o;

	json_object_set_new(root, "schema", json_string(KW_SCHEMA));
	json_object_set_new(root, "meta", meta_json(&r->meta));

	a = json_array();
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_probe_desc *d = &kw_probes[i];
		const struct kw_func *f = &r->funcs[i];

		if (!kw_probe_in_arch(i, r->meta.arch))
			continue;
		o = json_object();
		json_object_set_new(o, "name", json_string(d->name));
		json_object_set_new(o, "family", json_string(d->family));
		json_object_set_new(o, "mechanism", json_string(kw_mech_name(r->plan[i].mech)));
		json_object_set_new(o, "function", json_string(r->plan[i].func));
		json_object_set_new(o, "reason", json_string(r->plan[i].reason));
		json_object_set_new(o, "calls", json_integer(f->calls));
		json_object_set_new(o, "missed", json_integer(f->missed));
		json_object_set_new(o, "dropped", json_integer(f->dropped));
		json_object_set_new(o, "errors", json_integer(f->errors));
		json_object_set_new(o, "bpf_runs", json_integer(f->bpf_runs));
		json_object_set_new(o, "bpf_ns", json_integer(f->bpf_ns));
		json_object_set_new(o, "lost_runs", json_integer(f->lost_runs));
		if (d->timed)
			json_object_set_new(o, "duration_ns", hist_json(&f->dur));
		if (d->unit) {
			json_object_set_new(o, "size_unit", json_string(d->unit));
			json_object_set_new(o, "size", hist_json(&f->size));
		}
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "probes", a);

	o = json_object();
	for (int i = 0; i < KW_NR_COUNTERS; i++)
		json_object_set_new(o, kw_counters[i].name, json_integer(r->counters[i]));
	json_object_set_new(root, "counters", o);

	json_object_set_new(root, "visits", visits_json(r->visits));
	json_object_set_new(root, "unmap_cleared_per_call", hist_json(&r->unmap_cleared));

	a = json_array();
	for (int i = 0; i < KW_NR_PF_RET; i++)
		json_array_append_new(a,
				      json_pack("{sisssI}", "code", i, "name", r->pf_ret_names[i],
						"count", (json_int_t)r->counters[KW_C_PF_RET + i]));
	json_object_set_new(root, "fast_page_fault_returns", a);

	a = json_array();
	for (size_t i = 0; i < r->ncbs; i++) {
		const struct kw_cb *c = &r->cbs[i];

		json_array_append_new(a, json_pack("{sssIsisisIsIsI}", "symbol", c->sym, "address",
						   (json_int_t)c->addr, "flags", (int)c->flags,
						   "depth", (int)c->depth, "calls",
						   (json_int_t)c->calls, "ns", (json_int_t)c->ns,
						   "bytes", (json_int_t)c->bytes));
	}
	json_object_set_new(root, "walk_callbacks", a);

	a = json_array();
	for (size_t i = 0; i < r->ntrigs; i++) {
		const struct kw_trig *t = &r->trigs[i];
		const char *n = kw_trig_ioctl(r, t);
		char buf[32];

		if (!n) {
			snprintf(buf, sizeof(buf), "0x%x", t->cmd);
			n = buf;
		}
		o = json_pack("{sssssIsIsIsI}", "probe", kw_probes[t->probe].name, "trigger",
			      kw_trigger_names[t->trigger], "cmd", (json_int_t)t->cmd, "pid",
			      (json_int_t)t->pid, "calls", (json_int_t)t->calls, "ns",
			      (json_int_t)t->ns);
		json_object_set_new(o, "ioctl", json_string(t->trigger == KW_T_IOCTL ? n : ""));
		json_object_set_new(o, "memslot_op", json_string(memslot_op_name(t)));
		json_array_append_new(a, o);
	}
	json_object_set_new(root, "triggers", a);
	/* --count / --time; absent without them, so older recordings stay as they were */
	if (r->nufuncs)
		json_object_set_new(root, "user_functions", kw_ufuncs_json(r));

	json_object_set_new(root, "vms", kw_vms_json(r));
	/* KVM's own statistics: absent when they were not asked for (older recordings too) */
	if (r->kvmstats.source[0] || r->kvmstats.why[0])
		json_object_set_new(root, "kvm_stats", kw_kvmstats_json(&r->kvmstats));
	/* record --workload-times; absent without it */
	if (r->workload.nphases)
		json_object_set_new(root, "workload", kw_workload_json(&r->workload));
	/* record --sample; absent without it */
	if (r->sampled.hz)
		json_object_set_new(root, "sampled", kw_sampled_json(&r->sampled));

	o = json_object();
	json_object_set_new(o, "stats_enabled", json_boolean(r->overhead.stats_enabled));
	json_object_set_new(o, "run_ns", json_integer(r->overhead.run_ns));
	json_object_set_new(o, "run_count", json_integer(r->overhead.run_cnt));
	json_object_set_new(o, "measured_ns", json_integer(r->overhead.measured_ns));
	json_object_set_new(o, "recursion_misses", json_integer(r->overhead.recursion_misses));
	/* since the timing set: the share record said, a lower bound (the programs' bodies only) */
	if (r->overhead.share_of[0]) {
		json_object_set_new(o, "share_lower_bound", json_real(r->overhead.share));
		json_object_set_new(o, "share_of", json_string(r->overhead.share_of));
	}
	json_object_set_new(root, "overhead", o);

	a = json_array();
	for (size_t i = 0; i < r->nintervals; i++)
		json_array_append_new(a, kw_interval_json(&r->intervals[i]));
	json_object_set_new(root, "intervals", a);
	return root;
}

int kw_recording_write(const struct kw_recording *r, FILE *f)
{
	json_t *root = recording_json(r);
	int err;

	errno = 0;
	err = json_dumpf(root, f, JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(9));
	json_decref(root);
	/* the write's errno (ENOSPC) says more than "I/O error" */
	if (err || fputc('\n', f) == EOF)
		return errno ? -errno : -EIO;
	return 0;
}

static int put_recording(FILE *f, void *arg)
{
	return kw_recording_write(arg, f);
}

/* The mode fopen(path, "w") would give. */
static mode_t file_mode(void)
{
	mode_t umask_now = umask(0);

	umask(umask_now);
	return 0666 & ~umask_now;
}

int kw_recording_save(const struct kw_recording *r, const char *path, struct kw_outfile *of,
		      bool checkpointed)
{
	int err;

	if (!strcmp(path, "-")) {
		err = kw_recording_write(r, stdout);
		if (fflush(stdout))
			err = err ?: -errno;
		if (err)
			fprintf(stderr, "kvmwalk: writing the recording to stdout failed: %s\n",
				strerror(-err));
		return err;
	}
	/* synced: a recording is worth a disk flush */
	err = kw_outfile_replace(of, file_mode(),
				 KW_OUTFILE_SYNC | (checkpointed ? 0 : KW_OUTFILE_KEEP_OLD),
				 put_recording, (void *)r);
	if (of->kept_old)
		fprintf(stderr, "kvmwalk: kept the previous %s as %s.old\n", path, path);
	if (err && of->tmp_left)
		fprintf(stderr, "kvmwalk: writing %s failed: %s; the recording is in %s/%s\n", path,
			strerror(-err), of->dir, of->tmp);
	else if (err && checkpointed)
		fprintf(stderr, "kvmwalk: writing %s failed: %s (%s is the last checkpoint)\n",
			path, strerror(-err), path);
	else if (err)
		fprintf(stderr, "kvmwalk: writing %s failed: %s (%s is left as it was)\n", path,
			strerror(-err), path);
	return err;
}

int kw_recording_checkpoint(const struct kw_recording *r, const char *path, struct kw_outfile *of,
			    bool first)
{
	int err = kw_outfile_replace(of, file_mode(),
				     KW_OUTFILE_SYNC | (first ? KW_OUTFILE_KEEP_OLD : 0),
				     put_recording, (void *)r);

	if (of->kept_old)
		fprintf(stderr, "kvmwalk: kept the previous %s as %s.old\n", path, path);
	/* the next checkpoint, or the end, writes it again */
	if (err && of->tmp_left)
		unlinkat(of->dirfd, of->tmp, 0);
	if (err)
		fprintf(stderr, "kvmwalk: checkpoint of %.1f s to %s failed: %s; recording on\n",
			r->meta.duration_s, path, strerror(-err));
	return err;
}

/* ---- JSON in --------------------------------------------------------------------------------- */

/*
 * The reader checks a recording against docs/recording-format.md as it reads it: a member of the
 * wrong type ("calls": "x"), a negative count or time, an arch other than arm64 or x86 is an
 * error that names the member (probes[kvm_pgtable_walk].calls), never a 0 or a wrapped-around
 * unsigned number. What the format allows to be absent (a member older recordings lack, or a
 * name a newer kvmwalk added) reads as before: 0, "", or ignored. The first error is kept.
 */
struct rd {
	char *err;
	size_t errlen;
	bool bad;
};

static void __attribute__((format(printf, 2, 3))) rd_bad(struct rd *rd, const char *fmt, ...)
{
	va_list ap;

	if (rd->bad)
		return;
	rd->bad = true;
	va_start(ap, fmt);
	vsnprintf(rd->err, rd->errlen, fmt, ap);
	va_end(ap);
}

/* v as JSON, cut to fit an error line */
static const char *shown(json_t *v, char *buf, size_t len)
{
	char *s = json_dumps(v, JSON_ENCODE_ANY | JSON_COMPACT);

	if (s && strlen(s) > 40)
		snprintf(buf, len, "%.37s...", s);
	else
		snprintf(buf, len, "%s", s ?: "?");
	free(s);
	return buf;
}

static const char *type_name(json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	default:
		return "null";
	}
}

/* Member k of o (at @where), or NULL if absent; present with another type is an error. */
static json_t *rd_get(struct rd *rd, json_t *o, const char *where, const char *k, json_type t)
{
	json_t *v = json_object_get(o, k);
	char buf[48];

	if (!v || json_typeof(v) == t || (t == JSON_TRUE && json_is_boolean(v)) ||
	    (t == JSON_REAL && json_is_number(v)))
		return v;
	rd_bad(rd, "%s%s%s is %s (%s), not %s", where, *where ? "." : "", k, type_name(v),
	       shown(v, buf, sizeof(buf)),
	       t == JSON_OBJECT	  ? "an object"
	       : t == JSON_ARRAY  ? "an array"
	       : t == JSON_STRING ? "a string"
	       : t == JSON_TRUE	  ? "true or false"
				  : "a number");
	return NULL;
}

/* A count, a size or a time in ns: an integer >= 0 (absent: 0). */
static __u64 rd_count(struct rd *rd, json_t *v, const char *where, const char *k)
{
	char buf[48];

	if (!v)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 0)
		return json_integer_value(v);
	rd_bad(rd, "%s%s%s is %s, not a count (an integer >= 0)", where, *where && *k ? "." : "", k,
	       shown(v, buf, sizeof(buf)));
	return 0;
}

static __u64 get_u64(struct rd *rd, json_t *o, const char *where, const char *k)
{
	return rd_count(rd, json_object_get(o, k), where, k);
}

/* Seconds: a number >= 0 (absent: 0). */
static double get_secs(struct rd *rd, json_t *o, const char *where, const char *k)
{
	json_t *v = json_object_get(o, k);
	char buf[48];

	if (!v)
		return 0;
	if (json_is_number(v) && json_number_value(v) >= 0)
		return json_number_value(v);
	rd_bad(rd, "%s.%s is %s, not a time in seconds (a number >= 0)", where, k,
	       shown(v, buf, sizeof(buf)));
	return 0;
}

static void get_str(struct rd *rd, json_t *o, const char *where, const char *k, char *dst,
		    size_t len)
{
	const char *s = json_string_value(rd_get(rd, o, where, k, JSON_STRING));

	snprintf(dst, len, "%s", s ? s : "");
}

static bool get_bool(struct rd *rd, json_t *o, const char *where, const char *k)
{
	return json_is_true(rd_get(rd, o, where, k, JSON_TRUE));
}

/* An object or an array where the format has one; absent (or null, for a HIST) reads as none. */
static json_t *get_obj(struct rd *rd, json_t *o, const char *where, const char *k)
{
	return rd_get(rd, o, where, k, JSON_OBJECT);
}

static json_t *get_arr(struct rd *rd, json_t *o, const char *where, const char *k)
{
	return rd_get(rd, o, where, k, JSON_ARRAY);
}

/* "where.k" into buf, for the members of a member. */
static const char *sub(char *buf, size_t len, const char *where, const char *k)
{
	snprintf(buf, len, "%s%s%s", where, *where ? "." : "", k);
	return buf;
}

static void hist_from(struct rd *rd, json_t *parent, const char *where, const char *k,
		      struct kw_hist *h)
{
	json_t *o = get_obj(rd, parent, where, k), *b, *pair;
	char at[160], bat[200];
	size_t i;

	memset(h, 0, sizeof(*h));
	if (!o)
		return;
	sub(at, sizeof(at), where, k);
	h->count = get_u64(rd, o, at, "count");
	h->sum = get_u64(rd, o, at, "sum");
	h->min = get_u64(rd, o, at, "min");
	h->max = get_u64(rd, o, at, "max");
	b = get_arr(rd, o, at, "buckets");
	json_array_foreach(b, i, pair)
	{
		json_t *idx = json_array_get(pair, 0);
		char buf[48];

		snprintf(bat, sizeof(bat), "%s.buckets[%zu]", at, i);
		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(idx) ||
		    json_integer_value(idx) < 0 ||
		    json_integer_value(idx) >= (json_int_t)KW_HIST_NR_BUCKETS) {
			rd_bad(rd, "%s is %s, not [INDEX, COUNT] with INDEX 0..%d", bat,
			       shown(pair, buf, sizeof(buf)), KW_HIST_NR_BUCKETS - 1);
			return;
		}
		h->buckets[json_integer_value(idx)] =
			rd_count(rd, json_array_get(pair, 1), bat, "");
	}
	if (h->count && h->min > h->max)
		rd_bad(rd, "%s: min %llu is above max %llu", at, (unsigned long long)h->min,
		       (unsigned long long)h->max);
}

static int index_of(const char *const *names, int n, const char *s)
{
	for (int i = 0; i < n; i++)
		if (s && !strcmp(names[i], s))
			return i;
	return -1;
}

static void visits_from(struct rd *rd, json_t *a, const char *where, __u64 *visits)
{
	char at[160];
	json_t *o;
	size_t i;

	json_array_foreach(a, i, o)
	{
		const char *wn, *oc;
		json_t *lv;
		int w, l;

		snprintf(at, sizeof(at), "%s[%zu]", where, i);
		if (!json_is_object(o)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(o));
			return;
		}
		wn = json_string_value(rd_get(rd, o, at, "walker", JSON_STRING));
		oc = json_string_value(rd_get(rd, o, at, "outcome", JSON_STRING));
		lv = rd_get(rd, o, at, "level", JSON_INTEGER);
		w = index_of(kw_walker_names, KW_NR_WALKERS, wn);
		l = json_integer_value(lv) + 1;
		if (lv && (l < 0 || l >= KW_NR_LEVELS)) {
			rd_bad(rd, "%s.level is %lld, not -1..%d", at, (long long)(l - 1),
			       KW_NR_LEVELS - 2);
			return;
		}
		/* a walker or an outcome of a newer kvmwalk: not this one's to show */
		if (w < 0 || !lv || !oc)
			continue;
		for (int x = 0; x < KW_NR_OUTCOMES; x++)
			if (!strcmp(kw_outcome_name(w, x), oc))
				visits[KW_VISIT_IDX(w, l, x)] = get_u64(rd, o, at, "count");
	}
}

/* A list of process ids; recordings before lists hold one number, 0 for every task. */
static void pid_filter_from(struct rd *rd, json_t *v, struct kw_meta *m)
{
	char buf[48];
	json_t *pv;
	size_t i;

	m->npid_filter = 0;
	if (!v)
		return;
	if (!json_is_integer(v) && !json_is_array(v)) {
		rd_bad(rd, "meta.pid_filter is %s, not a list of process ids", type_name(v));
		return;
	}
	if (json_is_integer(v) && json_integer_value(v) > 0 &&
	    json_integer_value(v) <= (json_int_t)UINT32_MAX)
		m->pid_filter[m->npid_filter++] = json_integer_value(v);
	else if (json_is_integer(v) && json_integer_value(v))
		rd_bad(rd, "meta.pid_filter is %s, not a process id", shown(v, buf, sizeof(buf)));
	json_array_foreach(v, i, pv)
	{
		json_int_t pid = json_integer_value(pv);

		if (!json_is_integer(pv) || pid <= 0 || pid > (json_int_t)UINT32_MAX) {
			rd_bad(rd, "meta.pid_filter[%zu] is %s, not a process id", i,
			       shown(pv, buf, sizeof(buf)));
			return;
		}
		if (m->npid_filter < KW_MAX_PIDS)
			m->pid_filter[m->npid_filter++] = pid;
	}
}

/* A trigger row's members (triggers[], user_functions[].triggers[]); false: skip it. */
static bool trig_from(struct rd *rd, json_t *o, const char *at, struct kw_trig *t)
{
	const char *tn, *io;
	json_t *v;

	if (!json_is_object(o)) {
		rd_bad(rd, "%s is %s, not an object", at, type_name(o));
		return false;
	}
	tn = json_string_value(rd_get(rd, o, at, "trigger", JSON_STRING));
	t->trigger = index_of(kw_trigger_names, KW_NR_TRIGGERS, tn);
	t->cmd = get_u64(rd, o, at, "cmd");
	if (get_u64(rd, o, at, "cmd") > UINT32_MAX)
		rd_bad(rd, "%s.cmd is above 0xffffffff: no ioctl number", at);
	/* a name, not the hex that stands for an unknown number */
	io = json_string_value(rd_get(rd, o, at, "ioctl", JSON_STRING));
	if (io && !strncmp(io, "KVM_", 4))
		snprintf(t->ioctl, sizeof(t->ioctl), "%s", io);
	/* a name of a newer kvmwalk, or none in an older recording: none */
	v = rd_get(rd, o, at, "memslot_op", JSON_STRING);
	t->memslot_op = kw_memslot_op_by_name(json_string_value(v));
	t->pid = get_u64(rd, o, at, "pid");
	if (get_u64(rd, o, at, "pid") > UINT32_MAX)
		rd_bad(rd, "%s.pid is above %u: no process id", at, UINT32_MAX);
	t->calls = get_u64(rd, o, at, "calls");
	t->ns = get_u64(rd, o, at, "ns");
	/* a trigger of a newer kvmwalk: ignored */
	return t->trigger >= 0;
}

/* The recording's "user_functions" (--count / --time), absent from older recordings. */
static int ufuncs_from(struct rd *rd, json_t *a, struct kw_recording *r)
{
	size_t i, k;
	json_t *o, *t;

	json_array_foreach(a, i, o)
	{
		const char *name, *mode, *mech, *why;
		struct kw_ufunc *u;
		size_t slot = r->nufuncs;
		char at[64], tat[96];

		snprintf(at, sizeof(at), "user_functions[%zu]", i);
		if (!json_is_object(o)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(o));
			return 0;
		}
		name = json_string_value(rd_get(rd, o, at, "name", JSON_STRING));
		mode = json_string_value(rd_get(rd, o, at, "mode", JSON_STRING));
		mech = json_string_value(rd_get(rd, o, at, "mechanism", JSON_STRING));
		why = json_string_value(rd_get(rd, o, at, "reason", JSON_STRING));
		if (!name || r->nufuncs == KW_MAX_UFUNCS)
			continue;
		u = &r->ufuncs[r->nufuncs++];
		memset(u, 0, sizeof(*u));
		snprintf(u->req.name, sizeof(u->req.name), "%s", name);
		u->req.timed = mode && !strcmp(mode, "time");
		u->req.optional = get_bool(rd, o, at, "optional");
		u->plan.mech = mech && kw_mech_by_name(mech) >= 0 ? kw_mech_by_name(mech)
								   : KW_MECH_NONE;
		snprintf(u->plan.func, sizeof(u->plan.func), "%s", name);
		snprintf(u->plan.reason, sizeof(u->plan.reason), "%s", why ?: "");
		u->f.calls = get_u64(rd, o, at, "calls");
		u->f.missed = get_u64(rd, o, at, "missed");
		u->f.dropped = get_u64(rd, o, at, "dropped");
		u->f.bpf_runs = get_u64(rd, o, at, "bpf_runs");
		u->f.bpf_ns = get_u64(rd, o, at, "bpf_ns");
		hist_from(rd, o, at, "duration_ns", &u->f.dur);
		json_array_foreach(get_arr(rd, o, at, "triggers"), k, t)
		{
			struct kw_trig tr = { .probe = (int)slot, .trigger = -1 };

			snprintf(tat, sizeof(tat), "%s.triggers[%zu]", at, k);
			if (trig_from(rd, t, tat, &tr) && kw_recording_add_utrig(r, &tr))
				return -ENOMEM;
		}
	}
	return 0;
}

int kw_meta_pids(const struct kw_meta *m, char *buf, size_t len, const char *sep)
{
	size_t used = 0;

	buf[0] = 0;
	for (__u32 i = 0; i < m->npid_filter && i < KW_MAX_PIDS; i++)
		used += snprintf(buf + used, used < len ? len - used : 0, "%s%u", i ? sep : "",
				 m->pid_filter[i]);
	return m->npid_filter;
}

static void meta_from(struct rd *rd, json_t *m, struct kw_recording *r)
{
	struct kw_meta *meta = &r->meta;
	json_t *v, *ex;
	const char *k;
	size_t i;

	get_str(rd, m, "meta", "tool_version", meta->tool_version, sizeof(meta->tool_version));
	get_str(rd, m, "meta", "arch", meta->arch, sizeof(meta->arch));
	get_str(rd, m, "meta", "kernel", meta->kernel, sizeof(meta->kernel));
	get_str(rd, m, "meta", "kernel_build", meta->kernel_build, sizeof(meta->kernel_build));
	get_str(rd, m, "meta", "hostname", meta->hostname, sizeof(meta->hostname));
	get_str(rd, m, "meta", "cmdline", meta->cmdline, sizeof(meta->cmdline));
	get_str(rd, m, "meta", "cpu", meta->cpu, sizeof(meta->cpu));
	get_str(rd, m, "meta", "kvm_mode", meta->kvm_mode, sizeof(meta->kvm_mode));
	get_str(rd, m, "meta", "thp", meta->thp, sizeof(meta->thp));
	get_str(rd, m, "meta", "thp_defrag", meta->thp_defrag, sizeof(meta->thp_defrag));
	get_str(rd, m, "meta", "started", meta->started, sizeof(meta->started));
	get_str(rd, m, "meta", "command", meta->command, sizeof(meta->command));
	get_str(rd, m, "meta", "kvmwalk_command", meta->kvmwalk_command,
		sizeof(meta->kvmwalk_command));
	get_str(rd, m, "meta", "attach", meta->attach, sizeof(meta->attach));
	get_str(rd, m, "meta", "preempt", meta->preempt, sizeof(meta->preempt));
	get_str(rd, m, "meta", "preempt_source", meta->preempt_src, sizeof(meta->preempt_src));
	get_str(rd, m, "meta", "probe_set", meta->probe_set, sizeof(meta->probe_set));
	meta->wall_ns = get_u64(rd, m, "meta", "wall_ns");
	meta->duration_s = get_secs(rd, m, "meta", "duration_s");
	meta->start_monotonic_ns = get_u64(rd, m, "meta", "start_monotonic_ns");
	meta->start_realtime_ns = get_u64(rd, m, "meta", "start_realtime_ns");
	meta->exit_status = -1;
	ex = rd_get(rd, m, "meta", "exit_status", JSON_INTEGER);
	if (ex && (json_integer_value(ex) < -1 || json_integer_value(ex) > 255))
		rd_bad(rd, "meta.exit_status is %lld, not -1 (no command) or 0..255",
		       (long long)json_integer_value(ex));
	else if (ex)
		meta->exit_status = json_integer_value(ex);
	meta->exited_folded = get_u64(rd, m, "meta", "exited_folded");
	pid_filter_from(rd, json_object_get(m, "pid_filter"), meta);
	meta->nvm_filter = 0;
	json_array_foreach(get_arr(rd, m, "meta", "vm_filter"), i, v)
	{
		if (!json_is_string(v)) {
			rd_bad(rd, "meta.vm_filter[%zu] is %s, not a VM's name", i, type_name(v));
			break;
		}
		if (meta->nvm_filter < KW_MAX_VMS)
			snprintf(meta->vm_filter[meta->nvm_filter++], 64, "%s",
				 json_string_value(v));
	}
	v = get_arr(rd, m, "meta", "vm_filter_unseen");
	meta->vm_unseen_known = v != NULL;
	meta->nvm_unseen = 0;
	json_array_foreach(v, i, ex)
	{
		if (!json_is_string(ex)) {
			rd_bad(rd, "meta.vm_filter_unseen[%zu] is %s, not a VM's name", i,
			       type_name(ex));
			break;
		}
		if (meta->nvm_unseen < KW_MAX_VMS)
			snprintf(meta->vm_unseen[meta->nvm_unseen++], 64, "%s",
				 json_string_value(ex));
	}
	meta->visits = get_bool(rd, m, "meta", "visits");
	meta->checkpoint = get_bool(rd, m, "meta", "checkpoint");
	kw_conditions_from_json(&meta->cond, get_obj(rd, m, "meta", "conditions"));
	json_object_foreach(get_obj(rd, m, "meta", "kvm_params"), k, v)
	{
		if (!json_is_string(v)) {
			rd_bad(rd, "meta.kvm_params.%s is %s, not a string", k, type_name(v));
			break;
		}
		if (kw_recording_add_param(r, k, json_string_value(v)))
			rd_bad(rd, "out of memory");
	}
	/* the probe set and every view depend on it: no guess */
	if (!json_object_get(m, "arch"))
		rd_bad(rd, "no meta.arch");
	else if (!rd->bad && strcmp(meta->arch, "arm64") && strcmp(meta->arch, "x86"))
		rd_bad(rd, "meta.arch is \"%s\", not arm64 or x86", meta->arch);
}

static void probes_from(struct rd *rd, json_t *a, struct kw_recording *r)
{
	char at[96];
	json_t *o;
	size_t i;

	json_array_foreach(a, i, o)
	{
		const char *name;
		struct kw_func *f;
		char mech[16];
		int p;

		snprintf(at, sizeof(at), "probes[%zu]", i);
		if (!json_is_object(o)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(o));
			return;
		}
		name = json_string_value(rd_get(rd, o, at, "name", JSON_STRING));
		p = name ? kw_probe_by_name(name) : -1;
		if (p < 0)
			continue; /* a probe of a newer kvmwalk: ignored */
		snprintf(at, sizeof(at), "probes[%s]", name);
		f = &r->funcs[p];
		get_str(rd, o, at, "mechanism", mech, sizeof(mech));
		/* a mechanism of a newer kvmwalk reads as none */
		r->plan[p].mech = kw_mech_by_name(mech) < 0 ? KW_MECH_NONE : kw_mech_by_name(mech);
		get_str(rd, o, at, "function", r->plan[p].func, sizeof(r->plan[p].func));
		get_str(rd, o, at, "reason", r->plan[p].reason, sizeof(r->plan[p].reason));
		f->calls = get_u64(rd, o, at, "calls");
		f->missed = get_u64(rd, o, at, "missed");
		f->dropped = get_u64(rd, o, at, "dropped");
		f->errors = get_u64(rd, o, at, "errors");
		f->bpf_runs = get_u64(rd, o, at, "bpf_runs");
		f->bpf_ns = get_u64(rd, o, at, "bpf_ns");
		f->lost_runs = get_u64(rd, o, at, "lost_runs");
		hist_from(rd, o, at, "duration_ns", &f->dur);
		hist_from(rd, o, at, "size", &f->size);
	}
}

/* A "counters" object (the recording's, an interval's): names of a newer kvmwalk ignored. */
static void counters_from(struct rd *rd, json_t *o, const char *where, __u64 *counters)
{
	const char *k;
	json_t *v;

	json_object_foreach(o, k, v)
	{
		int c = kw_counter_by_name(k);
		__u64 n = rd_count(rd, v, where, k);

		if (c >= 0)
			counters[c] = n;
	}
}

static int iv_bucket_cmp(const void *a, const void *b)
{
	const struct kw_iv_bucket *x = a, *y = b;

	if (x->probe != y->probe)
		return x->probe < y->probe ? -1 : 1;
	return x->bucket < y->bucket ? -1 : x->bucket > y->bucket;
}

/*
 * An interval's probe's "buckets": [INDEX, COUNT] pairs, indexes increasing (so each once),
 * counts non-zero, appended to iv->dur (probe p after those before it). 0 or -ENOMEM.
 */
static int iv_buckets_from(struct rd *rd, json_t *a, const char *where, int p,
			   struct kw_interval *iv)
{
	struct kw_iv_bucket *d;
	json_int_t prev = -1;
	char at[200], buf[48];
	json_t *pair;
	size_t i;

	if (!json_array_size(a))
		return 0;
	d = realloc(iv->dur, (iv->ndur + json_array_size(a)) * sizeof(*d));
	if (!d)
		return -ENOMEM;
	iv->dur = d;
	json_array_foreach(a, i, pair)
	{
		json_t *idx = json_array_get(pair, 0);
		__u64 n;

		snprintf(at, sizeof(at), "%s.buckets[%zu]", where, i);
		if (!json_is_array(pair) || json_array_size(pair) != 2 || !json_is_integer(idx) ||
		    json_integer_value(idx) <= prev ||
		    json_integer_value(idx) >= (json_int_t)KW_HIST_NR_BUCKETS) {
			rd_bad(rd, "%s is %s, not [INDEX, COUNT] with INDEX %lld..%d, above the "
				   "one before",
			       at, shown(pair, buf, sizeof(buf)), (long long)prev + 1,
			       KW_HIST_NR_BUCKETS - 1);
			return 0;
		}
		n = rd_count(rd, json_array_get(pair, 1), at, "");
		if (rd->bad)
			return 0;
		if (!n) {
			rd_bad(rd, "%s has a count of 0: only non-empty buckets are listed", at);
			return 0;
		}
		prev = json_integer_value(idx);
		iv->dur[iv->ndur++] =
			(struct kw_iv_bucket){ .probe = p, .bucket = prev, .count = n };
	}
	return 0;
}

static int intervals_from(struct rd *rd, json_t *a, struct kw_recording *r)
{
	char at[64], pat[160];
	json_t *o, *pv;
	const char *k;
	size_t i;

	json_array_foreach(a, i, o)
	{
		struct kw_interval iv = {};

		snprintf(at, sizeof(at), "intervals[%zu]", i);
		if (!json_is_object(o)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(o));
			return 0;
		}
		iv.t = get_secs(rd, o, at, "t");
		json_object_foreach(get_obj(rd, o, at, "probes"), k, pv)
		{
			int p = kw_probe_by_name(k);

			snprintf(pat, sizeof(pat), "%s.probes.%s", at, k);
			if (!json_is_object(pv)) {
				rd_bad(rd, "%s is %s, not an object", pat, type_name(pv));
				kw_interval_free(&iv);
				return 0;
			}
			if (p < 0)
				continue;
			iv.calls[p] = get_u64(rd, pv, pat, "calls");
			iv.ns[p] = get_u64(rd, pv, pat, "ns");
			if (iv_buckets_from(rd, get_arr(rd, pv, pat, "buckets"), pat, p, &iv)) {
				kw_interval_free(&iv);
				return -ENOMEM;
			}
		}
		/* the writer's order, whatever the order of the probes in the file */
		if (iv.ndur)
			qsort(iv.dur, iv.ndur, sizeof(*iv.dur), iv_bucket_cmp);
		/* since the timelines (December 2026); older intervals hold only the probes */
		iv.full = get_obj(rd, o, at, "counters") != NULL;
		counters_from(rd, get_obj(rd, o, at, "counters"),
			      sub(pat, sizeof(pat), at, "counters"), iv.counters);
		visits_from(rd, get_arr(rd, o, at, "visits"), sub(pat, sizeof(pat), at, "visits"),
			    iv.visits);
		iv.dirty_log_ioctls = get_u64(rd, o, at, "dirty_log_ioctls");
		iv.measured_ns = get_u64(rd, o, at, "measured_ns");
		if (rd->bad || kw_recording_add_interval(r, &iv)) {
			kw_interval_free(&iv);
			return rd->bad ? 0 : -ENOMEM;
		}
	}
	return 0;
}

/*
 * kvm_stats and workload are read by their own modules (kvmstats.c, workload.c), which also
 * read what is not a recording: their members are checked here first, as the rest.
 */
static void check_kvm_stats(struct rd *rd, json_t *o)
{
	json_t *pt, *vo, *so;
	const char *name;
	char at[64], sat[160];
	size_t i;

	if (!o)
		return;
	get_str(rd, o, "kvm_stats", "source", at, sizeof(at));
	rd_get(rd, o, "kvm_stats", "reason", JSON_STRING);
	pt = get_obj(rd, o, "kvm_stats", "sec_page_tables_kb");
	/* KiB, null where /proc/meminfo had no SecPageTables */
	for (const char *const *k = (const char *const[]){ "start", "end", NULL }; *k; k++)
		if (!json_is_null(json_object_get(pt, *k)))
			get_u64(rd, pt, "kvm_stats.sec_page_tables_kb", *k);
	json_array_foreach(get_arr(rd, o, "kvm_stats", "vms"), i, vo)
	{
		snprintf(at, sizeof(at), "kvm_stats.vms[%zu]", i);
		if (!json_is_object(vo)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(vo));
			return;
		}
		rd_get(rd, vo, at, "id", JSON_STRING);
		if (get_u64(rd, vo, at, "pid") > UINT32_MAX)
			rd_bad(rd, "%s.pid is above %u: no process id", at, UINT32_MAX);
		get_secs(rd, vo, at, "first_t");
		get_secs(rd, vo, at, "last_t");
		json_object_foreach(get_obj(rd, vo, at, "stats"), name, so)
		{
			snprintf(sat, sizeof(sat), "%s.stats.%s", at, name);
			if (!json_is_object(so)) {
				rd_bad(rd, "%s is %s, not an object", sat, type_name(so));
				return;
			}
			rd_get(rd, so, sat, "type", JSON_STRING);
			get_u64(rd, so, sat, "start");
			get_u64(rd, so, sat, "end");
		}
	}
}

static void check_workload(struct rd *rd, json_t *o)
{
	json_t *ph;
	char at[64];
	size_t i;

	if (!o)
		return;
	rd_get(rd, o, "workload", "source", JSON_STRING);
	rd_get(rd, o, "workload", "from", JSON_STRING);
	json_array_foreach(get_arr(rd, o, "workload", "phases"), i, ph)
	{
		snprintf(at, sizeof(at), "workload.phases[%zu]", i);
		if (!json_is_object(ph)) {
			rd_bad(rd, "%s is %s, not an object", at, type_name(ph));
			return;
		}
		rd_get(rd, ph, at, "scenario", JSON_STRING);
		rd_get(rd, ph, at, "phase", JSON_STRING);
		get_u64(rd, ph, at, "iteration");
		get_u64(rd, ph, at, "wall_ns");
	}
}

int kw_recording_parse(struct kw_recording *r, const char *text, char *err, size_t errlen)
{
	struct rd rd = { .err = err, .errlen = errlen };
	json_t *root, *a, *o;
	json_error_t je;
	const char *schema;
	char at[64];
	size_t i;
	int ret = 0;

	memset(r, 0, sizeof(*r));
	root = json_loads(text, 0, &je);
	if (!root) {
		snprintf(err, errlen, "not JSON (line %d: %s)", je.line, je.text);
		return -EINVAL;
	}
	if (!json_is_object(root)) {
		snprintf(err, errlen, "%s, not an object: not a recording", type_name(root));
		ret = -EINVAL;
		goto cleanup;
	}
	schema = json_string_value(json_object_get(root, "schema"));
	if (!schema || strcmp(schema, KW_SCHEMA)) {
		snprintf(err, errlen, "schema is '%s', this kvmwalk reads '%s'",
			 schema ? schema : "(none)", KW_SCHEMA);
		ret = -EPROTO;
		goto cleanup;
	}

	meta_from(&rd, get_obj(&rd, root, "", "meta"), r);
	probes_from(&rd, get_arr(&rd, root, "", "probes"), r);
	counters_from(&rd, get_obj(&rd, root, "", "counters"), "counters", r->counters);
	visits_from(&rd, get_arr(&rd, root, "", "visits"), "visits", r->visits);
	hist_from(&rd, root, "", "unmap_cleared_per_call", &r->unmap_cleared);

	json_array_foreach(get_arr(&rd, root, "", "fast_page_fault_returns"), i, o)
	{
		json_t *c = rd_get(&rd, o, "fast_page_fault_returns", "code", JSON_INTEGER);

		snprintf(at, sizeof(at), "fast_page_fault_returns[%zu]", i);
		if (c && json_integer_value(c) >= 0 && json_integer_value(c) < KW_NR_PF_RET)
			get_str(&rd, o, at, "name", r->pf_ret_names[json_integer_value(c)],
				sizeof(r->pf_ret_names[0]));
	}

	json_array_foreach(get_arr(&rd, root, "", "walk_callbacks"), i, o)
	{
		struct kw_cb c = {};

		snprintf(at, sizeof(at), "walk_callbacks[%zu]", i);
		get_str(&rd, o, at, "symbol", c.sym, sizeof(c.sym));
		/* a kernel address: all 64 bits, written as a signed integer */
		c.addr = json_integer_value(rd_get(&rd, o, at, "address", JSON_INTEGER));
		c.flags = get_u64(&rd, o, at, "flags");
		c.depth = get_u64(&rd, o, at, "depth");
		c.calls = get_u64(&rd, o, at, "calls");
		c.ns = get_u64(&rd, o, at, "ns");
		c.bytes = get_u64(&rd, o, at, "bytes");
		if (kw_recording_add_cb(r, &c))
			goto nomem;
	}

	json_array_foreach(get_arr(&rd, root, "", "triggers"), i, o)
	{
		const char *pn =
			json_string_value(rd_get(&rd, o, "triggers", "probe", JSON_STRING));
		struct kw_trig t = {};

		snprintf(at, sizeof(at), "triggers[%zu]", i);
		t.probe = pn ? kw_probe_by_name(pn) : -1;
		/* a probe or a trigger of a newer kvmwalk: ignored */
		if (trig_from(&rd, o, at, &t) && t.probe >= 0 && kw_recording_add_trig(r, &t))
			goto nomem;
	}

	if (ufuncs_from(&rd, get_arr(&rd, root, "", "user_functions"), r))
		goto nomem;

	json_array_foreach(get_arr(&rd, root, "", "vms"), i, o)
	{
		struct kw_vm v = {};

		snprintf(at, sizeof(at), "vms[%zu]", i);
		v.pid = get_u64(&rd, o, at, "pid");
		get_str(&rd, o, at, "comm", v.comm, sizeof(v.comm));
		get_str(&rd, o, at, "vm", v.vm, sizeof(v.vm));
		get_str(&rd, o, at, "source", v.source, sizeof(v.source));
		v.unseen = get_u64(&rd, o, at, "unseen_runs");
		get_str(&rd, o, at, "cmdline", v.cmdline, sizeof(v.cmdline));
		v.cmdline_cut = get_bool(&rd, o, at, "cmdline_truncated");
		get_str(&rd, o, at, "exe", v.exe, sizeof(v.exe));
		get_str(&rd, o, at, "vmm", v.vmm, sizeof(v.vmm));
		get_str(&rd, o, at, "vmm_version", v.vmm_version, sizeof(v.vmm_version));
		get_str(&rd, o, at, "ipa_option", v.ipa_opt, sizeof(v.ipa_opt));
		get_str(&rd, o, at, "eager_split_option", v.eager_opt, sizeof(v.eager_opt));
		get_str(&rd, o, at, "ipa_debugfs", v.ipa_debugfs, sizeof(v.ipa_debugfs));
		if (v.pid && kw_recording_add_vm(r, &v))
			goto nomem;
	}

	check_kvm_stats(&rd, get_obj(&rd, root, "", "kvm_stats"));
	if (kw_kvmstats_from_json(&r->kvmstats, get_obj(&rd, root, "", "kvm_stats")))
		goto nomem;
	check_workload(&rd, get_obj(&rd, root, "", "workload"));
	if (kw_workload_from_json(&r->workload, get_obj(&rd, root, "", "workload")))
		goto nomem;

	o = json_object_get(root, "sampled");
	if (o) {
		char serr[128];
		int e = kw_sampled_from_json(&r->sampled, o, serr, sizeof(serr));

		if (e == -ENOMEM)
			goto nomem;
		if (e)
			rd_bad(&rd, "%s", serr);
	}

	o = get_obj(&rd, root, "", "overhead");
	r->overhead.stats_enabled = get_bool(&rd, o, "overhead", "stats_enabled");
	r->overhead.run_ns = get_u64(&rd, o, "overhead", "run_ns");
	r->overhead.run_cnt = get_u64(&rd, o, "overhead", "run_count");
	r->overhead.measured_ns = get_u64(&rd, o, "overhead", "measured_ns");
	r->overhead.recursion_misses = get_u64(&rd, o, "overhead", "recursion_misses");

	a = get_arr(&rd, root, "", "intervals");
	if (intervals_from(&rd, a, r))
		goto nomem;
	if (rd.bad)
		ret = -EINVAL;
	goto cleanup;
nomem:
	snprintf(err, errlen, "out of memory");
	ret = -ENOMEM;
cleanup:
	if (ret)
		kw_recording_free(r);
	json_decref(root);
	return ret;
}

int kw_recording_load(struct kw_recording *r, const char *path, char *err, size_t errlen)
{
	char *text = NULL;
	size_t len = 0, cap = 0, n;
	FILE *f = strcmp(path, "-") ? fopen(path, "r") : stdin;
	int ret;

	if (!f) {
		snprintf(err, errlen, "%s", strerror(errno));
		return -errno;
	}
	do {
		if (len + 65536 + 1 > cap) {
			char *p = realloc(text, cap = (cap ? cap * 2 : 1 << 20));

			if (!p) {
				free(text);
				if (f != stdin)
					fclose(f);
				snprintf(err, errlen, "out of memory");
				return -ENOMEM;
			}
			text = p;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	text[len] = 0;
	if (f != stdin)
		fclose(f);
	ret = kw_recording_parse(r, text, err, errlen);
	free(text);
	return ret;
}
