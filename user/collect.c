// SPDX-License-Identifier: GPL-2.0
/*
 * The map reader: reads every BPF map of a loaded loader into a kw_recording (summed over the
 * CPUs), folds the trigger rows of exited processes, names the fast_page_fault return codes
 * from BTF and adds the probes' own cost (BPF run-time statistics). With the loader's other files
 * (loader.c, loader_load.c, loader_attach.c, events.c, loader_state.c) the only code that
 * touches libbpf.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "host.h"
#include "loader.h"
#include "loader_state.h"

static int ncpus(void)
{
	static int n;

	if (!n)
		n = libbpf_num_possible_cpus();
	return n;
}

static int read_percpu(struct bpf_map *map, const void *key, void *buf)
{
	return bpf_map_lookup_elem(bpf_map__fd(map), key, buf) ? -errno : 0;
}

/* Adds a per-CPU array of __u64 to out[0 .. nkeys), summed over the n CPUs (buf holds n). */
static int read_u64s(struct bpf_map *map, __u32 nkeys, __u64 *out, void *buf, int n)
{
	__u64 *v = buf;
	int err;

	for (__u32 i = 0; i < nkeys; i++) {
		if ((err = read_percpu(map, &i, buf)))
			return err;
		for (int c = 0; c < n; c++)
			out[i] += v[c];
	}
	return 0;
}

/*
 * kw_triggers is keyed by the VMM's pid (its tgid) and BPF never removes a row, so without help
 * a long `serve` or `record` fills its KW_MAX_TRIGS rows after some 50 short-lived VMM processes
 * and from then on every call is counted as trigger_map_full. So each collection moves the rows
 * of processes that no longer exist into l->exited: their calls and ns, summed over the CPUs,
 * are added to the row of the same (probe, trigger, cmd, memslot_op) with pid 0 there, and the
 * map row is deleted. A dead process cannot make new events, so no call is lost, and the folded
 * rows only grow, so the totals of a recording stay exact and Prometheus' counters monotonic.
 *
 * Dead means kill(pid, 0) fails with ESRCH (a zombie not yet reaped still counts as alive).
 * The corners: if the pid is reused before a collection sees it dead, the old process's
 * calls stay merged into the new process's row (attribution, not a count, is blurred); a
 * process with the pid that appears between the check and the delete would have its first
 * calls folded too (bpf_map_lookup_and_delete_elem makes reading and deleting one step, so
 * nothing is counted twice or dropped). Pids are those of the initial pid namespace: run in
 * another one, kvmwalk sees every VMM as exited and folds all rows each time (counts still
 * exact, the per-VM breakdown gone). pid 0 is also the idle task's: its rows merge with these.
 */
static bool pid_exited(__u32 pid)
{
	return pid && kill((pid_t)pid, 0) && errno == ESRCH;
}

/*
 * Adds an exited process's row to l->exited: under its own pid with opts.keep_exited (record)
 * while fewer than KW_KEEP_EXITED processes have been kept, else into pid 0 (counted in
 * exited_folded when keeping was asked for).
 */
static int exited_add(struct loader *l, const struct kw_trig *t)
{
	struct kw_trig *n;
	__u32 pid = 0;
	bool known = false;

	if (l->opts.keep_exited) {
		for (size_t i = 0; i < l->nexited && !known; i++)
			known = l->exited[i].pid == t->pid;
		if (known || l->nexited_pids < KW_KEEP_EXITED)
			pid = t->pid;
		else
			l->exited_folded++;
	}
	for (size_t i = 0; i < l->nexited; i++) {
		struct kw_trig *e = &l->exited[i];

		if (e->probe == t->probe && e->trigger == t->trigger && e->cmd == t->cmd &&
		    e->memslot_op == t->memslot_op && e->pid == pid) {
			e->calls += t->calls;
			e->ns += t->ns;
			return 0;
		}
	}
	n = realloc(l->exited, (l->nexited + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->exited = n;
	n[l->nexited] = *t;
	n[l->nexited].pid = pid;
	l->nexited++;
	if (pid && !known)
		l->nexited_pids++;
	return 0;
}

/*
 * A snapshot of kw_triggers: every key with its per-CPU values. bpf_map_lookup_batch() (5.6+)
 * takes a few syscalls for the whole map, where get_next_key + lookup took two per row, plus one
 * more per row each for naming and for the exited check (docs/performance.md: with 1024 rows
 * that was 3-7 ms of a 256-CPU scrape). A kernel that cannot batch this map: key by key.
 */
struct trig_rows {
	struct kw_trig_key *keys;
	char *vals;   /* n x stride bytes: the ncpus values of keys[i] at vals + i * stride */
	bool *dead;   /* folded by fold_exited(): not a live row any more */
	size_t stride;
	__u32 n, cap;
};

static void trig_rows_free(struct trig_rows *t)
{
	free(t->keys);
	free(t->vals);
	free(t->dead);
}

static const struct kw_trig_val *trig_vals(const struct trig_rows *t, __u32 i)
{
	return (const struct kw_trig_val *)(t->vals + (size_t)i * t->stride);
}

static int trig_rows_one_by_one(struct loader *l, struct trig_rows *t)
{
	int fd = bpf_map__fd(l->skel->maps.kw_triggers);
	struct kw_trig_key k, *prev = NULL;

	t->n = 0;
	while (t->n < t->cap && !bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (bpf_map_lookup_elem(fd, &k, t->vals + (size_t)t->n * t->stride))
			continue;
		t->keys[t->n++] = k;
	}
	return 0;
}

static int trig_rows_read(struct loader *l, struct trig_rows *t, int ncpus)
{
	struct bpf_map *m = l->skel->maps.kw_triggers;
	int fd = bpf_map__fd(m);
	__u32 batch = 0, count;
	bool first = true;

	memset(t, 0, sizeof(*t));
	/* room past max_entries: a batch call then always has more than a hash bucket holds */
	t->cap = bpf_map__max_entries(m) + 64;
	t->stride = (size_t)ncpus * ((sizeof(struct kw_trig_val) + 7) / 8 * 8);
	t->keys = calloc(t->cap, sizeof(*t->keys));
	t->vals = calloc(t->cap, t->stride);
	t->dead = calloc(t->cap, sizeof(*t->dead));
	if (!t->keys || !t->vals || !t->dead)
		return -ENOMEM;
	while (t->n < t->cap) {
		count = t->cap - t->n;
		if (!bpf_map_lookup_batch(fd, first ? NULL : &batch, &batch, t->keys + t->n,
					  t->vals + (size_t)t->n * t->stride, &count, NULL)) {
			t->n += count;
			first = false;
			continue;
		}
		if (errno == ENOENT) { /* the end: count holds the last rows */
			t->n += count;
			return 0;
		}
		/* no batch ops for this map here (EINVAL, ENOTSUPP), or a bucket too big */
		return trig_rows_one_by_one(l, t);
	}
	return 0;
}

/*
 * Moves the rows of exited processes from kw_triggers into l->exited and marks them dead in the
 * snapshot; buf holds ncpus values.
 */
static int fold_exited(struct loader *l, struct trig_rows *rows, void *buf, int ncpus)
{
	int fd = bpf_map__fd(l->skel->maps.kw_triggers), err;

	for (__u32 i = 0; i < rows->n; i++) {
		const struct kw_trig_key *k = &rows->keys[i];
		struct kw_trig_val *v = buf;
		struct kw_trig t = {};

		if (!pid_exited(k->pid))
			continue;
		/* the value as it is now, taken out in one step (the snapshot may be older) */
		if (bpf_map_lookup_and_delete_elem(fd, k, buf)) {
			if (errno == ENOENT) {
				rows->dead[i] = true;
				continue;
			}
			/* a kernel without lookup-and-delete for per-CPU hashes: two steps */
			if (bpf_map_lookup_elem(fd, k, buf))
				continue;
			if (bpf_map_delete_elem(fd, k))
				continue; /* still in the map: read again next time */
		}
		rows->dead[i] = true;
		t.probe = k->probe < KW_NR_PROBES ? (int)k->probe : 0;
		t.trigger = k->trigger < KW_NR_TRIGGERS ? (int)k->trigger : 0;
		t.cmd = k->cmd;
		t.memslot_op = k->memslot_op < KW_NR_MEMSLOT_OPS ? (int)k->memslot_op : 0;
		t.pid = k->pid;
		for (int c = 0; c < ncpus; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		if ((err = exited_add(l, &t)))
			return err;
	}
	return 0;
}

static void pf_names(struct loader *l, struct kw_recording *r)
{
	struct btf *b;

	for (int i = 0; i < KW_NR_PF_RET; i++)
		snprintf(r->pf_ret_names[i], sizeof(r->pf_ret_names[i]), "%s",
			 i == KW_NR_PF_RET - 1 ? "other" : "");
	if (strcmp(kw_host_arch(), "x86"))
		return;
	b = loader__btf(l, "kvm") ?: loader__btf(l, "");
	/* RET_PF_* is an anonymous enum: find the one holding RET_PF_FIXED and name the values. */
	for (__u32 id = 1; b && id < btf__type_cnt(b); id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const struct btf_enum *e;
		bool found = false;

		if (!t || !btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int k = 0; k < btf_vlen(t); k++)
			if (!strcmp(btf__name_by_offset(b, e[k].name_off), "RET_PF_FIXED"))
				found = true;
		if (!found)
			continue;
		for (int k = 0; k < btf_vlen(t); k++)
			if (e[k].val >= 0 && e[k].val < KW_NR_PF_RET - 1)
				snprintf(r->pf_ret_names[e[k].val], sizeof(r->pf_ret_names[0]),
					 "%s", btf__name_by_offset(b, e[k].name_off));
		break;
	}
}

static void prog_cost(struct loader *l, struct kw_recording *r)
{
	struct bpf_program *prog;
	int p;

	bpf_object__for_each_program(prog, l->skel->obj) {
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		r->overhead.run_ns += info.run_time_ns;
		r->overhead.run_cnt += info.run_cnt;
		/*
		 * fentry/fexit programs run with migration, not preemption, disabled: on a
		 * preemptible kernel another task that hits the same program on the same CPU
		 * meanwhile is skipped by the recursion guard (bpf_prog_inc_misses_counter), and
		 * kprobe programs are skipped when another kprobe program runs on the CPU (an
		 * interrupt). A skipped entry shows up as a missed exit; the count, per probe,
		 * says how far its counts can be short (user/loader_plan.c kprobe_first()).
		 */
		r->overhead.recursion_misses += info.recursion_misses;
		p = kw_probe_of_prog(bpf_program__name(prog));
		if (p >= 0) {
			r->funcs[p].bpf_runs += info.run_cnt;
			r->funcs[p].bpf_ns += info.run_time_ns;
			r->funcs[p].lost_runs += info.recursion_misses;
		}
		/* userfn.bpf.c's fe_ufnN, kp_ufnN, ...: user function N */
		if (sscanf(bpf_program__name(prog), "%*2[a-z]_ufn%d", &p) == 1 && p >= 0 &&
		    (size_t)p < r->nufuncs) {
			r->ufuncs[p].f.bpf_runs += info.run_cnt;
			r->ufuncs[p].f.bpf_ns += info.run_time_ns;
		}
	}
	r->overhead.stats_enabled = l->stats_fd >= 0 || l->stats_sysctl_old >= 0;
}

/*
 * --count / --time: each user function's plan and statistics, and its trigger rows. The rows
 * are not folded when their process exits (kw_utrigs is read only here, and record keeps
 * every process's rows anyway); a full map counts in trigger_map_full like kw_triggers.
 */
static int collect_ufuncs(struct loader *l, struct kw_recording *r, void *buf, int n)
{
	const struct kw_ufunc_stats *v = buf;
	struct kw_trig_key k, *prev = NULL;
	int fd, err;

	r->nufuncs = l->opts.nufuncs;
	if (!r->nufuncs)
		return 0; /* the maps are not created (loader__load()) */
	fd = bpf_map__fd(l->skel->maps.kw_utrigs);
	for (__u32 s = 0; s < r->nufuncs; s++) {
		r->ufuncs[s].req = l->opts.ufuncs[s];
		r->ufuncs[s].plan = l->uplan[s];
		if ((err = read_percpu(l->skel->maps.kw_ustats, &s, buf)))
			return err;
		for (int c = 0; c < n; c++) {
			kw_func_add_percpu(&r->ufuncs[s].f, &v[c].c, 1);
			kw_hist_merge(&r->ufuncs[s].f.dur, &v[c].dur, 1);
		}
	}
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		struct kw_trig_val *v = buf;
		struct kw_trig t = {};

		prev = &k;
		if (k.probe >= r->nufuncs || read_percpu(l->skel->maps.kw_utrigs, &k, buf))
			continue;
		t.probe = k.probe;
		t.trigger = k.trigger < KW_NR_TRIGGERS ? (int)k.trigger : 0;
		t.cmd = k.cmd;
		t.memslot_op = k.memslot_op < KW_NR_MEMSLOT_OPS ? (int)k.memslot_op : 0;
		t.pid = k.pid;
		for (int c = 0; c < n; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		if ((err = loader__identify_pid(l, t.pid)) ||
		    (err = kw_recording_add_utrig(r, &t)))
			return err;
	}
	return 0;
}

/* Adds slot @slot of kw_hists, n per-CPU copies, to h. */
static int read_hist(struct loader *l, __u32 slot, struct kw_hist *h, void *buf, int n)
{
	size_t stride = bpf_map__value_size(l->skel->maps.kw_hists);
	int err;

	if (slot == KW_NO_HIST)
		return 0;
	if ((err = read_percpu(l->skel->maps.kw_hists, &slot, buf)))
		return err;
	for (int c = 0; c < n; c++) {
		const void *v = (const char *)buf + (size_t)c * stride;

		if (l->hslots.log2)
			kw_hist_merge_log2(h, v);
		else
			kw_hist_merge(h, v, 1);
	}
	return 0;
}

/* The histograms of kw_hists into the probes' and the unmap-cleared histogram of @r. */
static int read_hists(struct loader *l, struct kw_recording *r, void *buf, int n)
{
	int err;

	for (int p = 0; p < KW_NR_PROBES; p++)
		if ((err = read_hist(l, l->hslots.dur[p], &r->funcs[p].dur, buf, n)) ||
		    (err = read_hist(l, l->hslots.size[p], &r->funcs[p].size, buf, n)))
			return err;
	return read_hist(l, l->hslots.cleared, &r->unmap_cleared, buf, n);
}

static int collect(struct loader *l, struct kw_recording *r)
{
	int n = ncpus(), err = 0;
	/* the largest value read: a user function's statistics, then a fine histogram */
	size_t vsz = sizeof(struct kw_ufunc_stats);
	void *buf = calloc(n, vsz > 64 ? vsz : 64);
	struct kw_cb_key ck, *cprev = NULL;
	struct trig_rows rows = {};

	kw_recording_free(r);
	memset(r, 0, sizeof(*r));
	if (!buf)
		return -ENOMEM;
	memcpy(r->plan, l->plan, sizeof(r->plan));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "%s", kw_host_arch());

	for (__u32 p = 0; p < KW_NR_PROBES; p++) {
		if ((err = read_percpu(l->skel->maps.kw_stats, &p, buf)))
			goto cleanup;
		kw_func_add_percpu(&r->funcs[p], buf, n);
	}
	if ((err = read_u64s(l->skel->maps.kw_counters, KW_NR_COUNTERS, r->counters, buf, n)) ||
	    (err = read_u64s(l->skel->maps.kw_visits, KW_NR_VISITS, r->visits, buf, n)))
		goto cleanup;
	if ((err = read_hists(l, r, buf, n)))
		goto cleanup;
	while (!bpf_map_get_next_key(bpf_map__fd(l->skel->maps.kw_walk_cbs), cprev, &ck)) {
		struct kw_cb_val *v = buf;
		struct kw_cb cb = {};

		cprev = &ck;
		if (read_percpu(l->skel->maps.kw_walk_cbs, &ck, buf))
			continue;
		cb.addr = ck.cb;
		cb.flags = ck.flags;
		cb.depth = ck.depth;
		for (int c = 0; c < n; c++) {
			cb.calls += v[c].calls;
			cb.ns += v[c].ns;
			cb.bytes += v[c].bytes;
		}
		ksyms__describe(&l->ksyms, cb.addr, cb.sym, sizeof(cb.sym));
		if ((err = kw_recording_add_cb(r, &cb)))
			goto cleanup;
	}
	if ((err = trig_rows_read(l, &rows, n)))
		goto cleanup;
	/* names first: a process still alive now is named before its rows are folded */
	for (__u32 i = 0; i < rows.n; i++)
		if ((err = loader__identify_pid(l, rows.keys[i].pid)))
			goto cleanup;
	if ((err = fold_exited(l, &rows, buf, n)))
		goto cleanup;
	for (size_t i = 0; i < l->nexited; i++)
		if ((err = kw_recording_add_trig(r, &l->exited[i])))
			goto cleanup;
	for (__u32 i = 0; i < rows.n; i++) {
		const struct kw_trig_key *tk = &rows.keys[i];
		const struct kw_trig_val *v = trig_vals(&rows, i);
		struct kw_trig t = {};
		bool merged = false;

		if (rows.dead[i])
			continue;
		t.probe = tk->probe < KW_NR_PROBES ? (int)tk->probe : 0;
		t.trigger = tk->trigger < KW_NR_TRIGGERS ? (int)tk->trigger : 0;
		t.cmd = tk->cmd;
		t.memslot_op = tk->memslot_op < KW_NR_MEMSLOT_OPS ? (int)tk->memslot_op : 0;
		t.pid = tk->pid;
		for (int c = 0; c < n; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		/* a live pid-0 row (the idle task) shares its key with a folded row: one row */
		for (size_t j = 0; !t.pid && j < l->nexited; j++) {
			struct kw_trig *e = &r->trigs[j];

			if (!e->pid && e->probe == t.probe && e->trigger == t.trigger &&
			    e->cmd == t.cmd && e->memslot_op == t.memslot_op) {
				e->calls += t.calls;
				e->ns += t.ns;
				merged = true;
				break;
			}
		}
		if (!merged && (err = kw_recording_add_trig(r, &t)))
			goto cleanup;
	}
	if ((err = collect_ufuncs(l, r, buf, n)))
		goto cleanup;
	/* the identities of the processes the rows name (kept exited ones included) */
	for (size_t i = 0; i < l->nids; i++) {
		bool used = false;

		for (size_t j = 0; j < r->ntrigs && !used; j++)
			used = r->trigs[j].pid == l->ids[i].pid;
		for (size_t j = 0; j < r->nutrigs && !used; j++)
			used = r->utrigs[j].pid == l->ids[i].pid;
		used = used || l->ids[i].unseen;
		/*
		 * arm64 debugfs' ipa_range (CONFIG_PTDUMP_STAGE2_DEBUGFS) of the VMs it has now: read
		 * at the end, not when first seen, as QEMU's first VMs are scratch ones of the host's
		 * largest IPA size; an exited process keeps what an earlier read found.
		 */
		if (used && !strcmp(kw_host_arch(), "arm64")) {
			char ipa[sizeof(l->ids[i].ipa_debugfs)];

			kw_vm_debugfs_ipa("/sys/kernel/debug/kvm", l->ids[i].pid, ipa, sizeof(ipa));
			if (ipa[0])
				memcpy(l->ids[i].ipa_debugfs, ipa, sizeof(ipa));
		}
		if (used && (err = kw_recording_add_vm(r, &l->ids[i])))
			goto cleanup;
	}
	r->meta.exited_folded = l->exited_folded;
	kw_recording_sort(r);
	pf_names(l, r);
	prog_cost(l, r);
	r->overhead.measured_ns = kw_recording_measured_ns(r);
cleanup:
	if (err)
		fprintf(stderr, "kvmwalk: reading the BPF maps failed: %s\n", strerror(-err));
	trig_rows_free(&rows);
	free(buf);
	return err;
}

/* every map read SCHED_FIFO where kvmwalk may: loader_state.h says why */
int loader__collect(struct loader *l, struct kw_recording *r)
{
	struct kw_rt_scope rt;
	int err;

	kw_rt_enter(&rt);
	err = collect(l, r);
	kw_rt_leave(&rt);
	return err;
}
