// SPDX-License-Identifier: GPL-2.0
/*
 * The loader in stages (loader.h): loader__new() checks the host and reads what planning needs,
 * loader__plan() decides per probe how to attach it (from the catalogue, probes.c),
 * loader__load() sets rodata and autoload and loads, loader__attach() attaches; loader__open()
 * drives them. With the loader's other files (collect.c the map reader, events.c, and their base
 * loader_state.c) the only code that touches libbpf.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "events.h"
#include "host.h"
#include "loader.h"
#include "loader_state.h"
#include "version.h"

/* A program the kernel refuses, or a refused kprobe, means a new plan and a new load: how often. */
#define MAX_LOADS 6

static struct loader *cur_loader; /* for the libbpf print callback */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	va_list aq;

	if (!cur_loader)
		return 0;
	va_copy(aq, ap);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/*
	 * The retry depends on this line: libbpf's "prog '%s': failed to load: ..." warning in
	 * bpf_object__load_progs() names the program the kernel refused; loader__load() makes its
	 * probe unavailable and loads again.
	 */
	kw_libbpf_failed_prog(buf, cur_loader->failed_prog, sizeof(cur_loader->failed_prog));
	/* not buf: a verifier log is one message of many kilobytes */
	if (cur_loader->opts.verbose)
		vfprintf(stderr, fmt, aq);
	va_end(aq);
	return 0;
}

/* ---- planning ------------------------------------------------------------------------------- */

/*
 * Whether a line of a tracefs list starts with the word func: available_filter_functions'
 * "name" or "name [module]", enabled_functions' "name [module] (1) R ... tramp: ...".
 */
static bool listed_func(const char *text, const char *func)
{
	size_t n = strlen(func);

	for (const char *p = text; (p = strstr(p, func)); p += n)
		if ((p == text || p[-1] == '\n') &&
		    (!p[n] || p[n] == '\n' || p[n] == ' ' || p[n] == '\t'))
			return true;
	return false;
}

static bool is_traceable(const struct loader *l, const char *func)
{
	/* tracefs not mounted: let the attach decide */
	return !l->traceable || listed_func(l->traceable, func);
}

/* The fd of a kernel module's BTF object, for fentry on module functions; -1 if none. */
static int module_btf_fd(const char *mod)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(name, mod))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * Loads a two-instruction fentry program on func and attaches it, as libbpf-tools'
 * fentry_can_attach() does the load: some kernels load a tracing program and refuse only the
 * trampoline. Debian's arm64 6.1 is one: the load succeeds, the attach fails with ENOTSUPP
 * (524), and the probes there fall back to kprobes. Returns 0 or -errno with why in @why.
 */
static int fentry_test(struct loader *l, const char *func, const char *mod, char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	struct btf *vmlinux = loader__btf(l, ""), *mbtf = NULL;
	int id, prog_fd = -1, link_fd = -1, btf_fd = -1, err = 0;

	if (!vmlinux) {
		snprintf(why, len, "no kernel BTF");
		return -ENOENT;
	}
	if (mod && *mod) {
		mbtf = loader__btf(l, mod);
		btf_fd = module_btf_fd(mod);
		if (!mbtf || btf_fd < 0) {
			snprintf(why, len, "no BTF for module %s", mod);
			err = -ENOENT;
			goto cleanup;
		}
	}
	id = btf__find_by_name_kind(mbtf ?: vmlinux, func, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(why, len, "no BTF for %s (inlined or static duplicate)", func);
		err = -ENOENT;
		goto cleanup;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id, .attach_btf_obj_fd = btf_fd > 0 ? btf_fd : 0);
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "kw_test", "GPL", insns, 2, &popts);
	if (prog_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry load refused: %s", strerror(errno));
		goto cleanup;
	}
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry attach refused: %s", strerror(errno));
	}
cleanup:
	if (link_fd >= 0)
		close(link_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (btf_fd >= 0)
		close(btf_fd);
	return err;
}

static bool tracepoint_exists(const struct loader *l, const char *cat, const char *name)
{
	char path[256];

	if (!*cat)
		return true; /* raw tracepoints need no tracefs: the attach decides */
	if (!l->tracefs.root[0])
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", l->tracefs.root, cat, name);
	return !access(path, F_OK);
}

static bool wanted(const struct loader_opts *o, int probe)
{
	if (!o->visits && kw_probes[probe].per_entry && probe != KW_P_SPTE_CHANGED)
		return false;
	return o->probes & KW_PROBE_BIT(probe);
}

static void set_plan(struct kw_plan *pl, enum kw_mech mech, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_plan(struct kw_plan *pl, enum kw_mech mech, const char *func, const char *fmt, ...)
{
	va_list ap;

	pl->mech = mech;
	snprintf(pl->func, sizeof(pl->func), "%s", func ? func : "");
	va_start(ap, fmt);
	vsnprintf(pl->reason, sizeof(pl->reason), fmt, ap);
	va_end(ap);
}

/* Appends "; what" (or "what" to an empty reason) to a reason being built. */
static void add_reason(char *why, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_reason(char *why, size_t len, const char *fmt, ...)
{
	size_t n = strlen(why);
	va_list ap;

	if (n && n + 2 < len) {
		snprintf(why + n, len - n, "; ");
		n += 2;
	}
	va_start(ap, fmt);
	vsnprintf(why + n, len - n, fmt, ap);
	va_end(ap);
}

/* The plan of one probe of this arch, the mechanisms in the order --attach allows them. */
static void plan_probe(struct loader *l, int i, bool *ioctl_tp)
{
	const struct kw_probe_desc *pp = &kw_probes[i];
	struct kw_plan *pl = &l->plan[i];
	const struct ksym *ks = pp->func ? ksyms__find(&l->ksyms, pp->func) : NULL;
	enum kw_attach attach = l->opts.attach;
	bool try_fentry = attach != KW_ATTACH_KPROBE, try_kprobe = attach != KW_ATTACH_FENTRY;
	char why[384] = "";

	if (!wanted(&l->opts, i)) {
		set_plan(pl, KW_MECH_OFF, pp->func, "%s",
			 !(l->opts.probes & KW_PROBE_BIT(i))
				 ? (l->opts.cheap ? "not in the cheap set (--probe all attaches it)"
						  : "not selected (--probe)")
				 : "per-entry callback left out (--no-visits)");
		return;
	}
	if (i == KW_P_VCPU_IOCTL && *ioctl_tp) {
		set_plan(pl, KW_MECH_OFF, pp->func, "counted with kvm_vm_ioctl's ioctl tracepoint");
		return;
	}
	if (pp->func && !ks) {
		snprintf(why, sizeof(why),
			 "not in this kernel (/proc/kallsyms): absent or inlined");
	} else if (i == KW_P_HYP_FLUSH_RANGE && l->kvm_mode[0] && strcmp(l->kvm_mode, "vhe") &&
		   strcmp(l->kvm_mode, "nested")) {
		/* not for nested (VHE+NV2): a VHE host, where the EL2 side is a plain call */
		set_plan(pl, KW_MECH_UNAVAILABLE, pp->func,
			 "runs at EL2 (%s): never called at EL1; kvm_tlb_flush_vmid_range counts",
			 l->kvm_mode);
		return;
	} else if (pp->func) {
		const char *const *fe = pp->prog[KW_MECH_FENTRY];

		if (try_fentry && (fe[KW_ENTRY] || fe[KW_EXIT]) &&
		    !fentry_test(l, pp->func, ks->mod, why, sizeof(why))) {
			set_plan(pl, KW_MECH_FENTRY, pp->func, "%s", "");
			return;
		}
		if (try_kprobe && pp->prog[KW_MECH_KPROBE][KW_ENTRY]) {
			if (is_traceable(l, pp->func)) {
				set_plan(pl, KW_MECH_KPROBE, pp->func, "%s", why);
				return;
			}
			add_reason(why, sizeof(why), "not traceable");
		}
		if (!try_fentry && !pp->prog[KW_MECH_KPROBE][KW_ENTRY])
			snprintf(why, sizeof(why), "no kprobe program");
	}
	if (pp->tp_name && attach == KW_ATTACH_AUTO &&
	    tracepoint_exists(l, pp->tp_cat, pp->tp_name)) {
		set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", why);
		if (i == KW_P_VM_IOCTL)
			*ioctl_tp = true;
		return;
	}
	if (pp->tp_name && !pp->func) { /* tracepoint-only probes under a forced mode */
		set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", "");
		return;
	}
	if (pp->tp_name && *pp->tp_cat && !l->tracefs.root[0] && attach == KW_ATTACH_AUTO)
		add_reason(why, sizeof(why), "tracepoint %s:%s: %s", pp->tp_cat, pp->tp_name,
			   l->tracefs.why);
	set_plan(pl, KW_MECH_UNAVAILABLE, pp->func, "%s", why[0] ? why : "no mechanism allowed");
}

/*
 * The plan of user function @s (--count / --time): the rules of the built-in probes, said in
 * the user's terms. A function must be in /proc/kallsyms (else it does not exist, or the
 * compiler inlined it into every caller: a `static inline` helper such as the hint patch's
 * tdp_iter_skip_children() has no symbol of its own), and in available_filter_functions (else
 * it is notrace, or ftrace cannot patch it: neither fentry nor kprobes can attach). Then
 * fentry/fexit after a real attach test (it needs the function in BTF: a function inlined at
 * some call sites and kept at others may lack it), else kprobe/kretprobe.
 */
static void plan_ufunc(struct loader *l, unsigned int s)
{
	const struct kw_ufunc_req *q = &l->opts.ufuncs[s];
	const struct ksym *ks = ksyms__find(&l->ksyms, q->name);
	struct kw_plan *pl = &l->uplan[s];
	enum kw_attach attach = l->opts.attach;
	char why[384] = "";

	if (!ks) {
		set_plan(pl, KW_MECH_UNAVAILABLE, q->name,
			 "not in this kernel: not in /proc/kallsyms (a misspelt name, a function of a "
			 "module that is not loaded, or one inlined into every caller)");
		return;
	}
	if (!is_traceable(l, q->name)) {
		set_plan(pl, KW_MECH_UNAVAILABLE, q->name,
			 "not traceable: in /proc/kallsyms but not in "
			 "tracing/available_filter_functions (notrace, or not patchable by ftrace)");
		return;
	}
	if (attach != KW_ATTACH_KPROBE &&
	    !fentry_test(l, q->name, ks->mod, why, sizeof(why))) {
		set_plan(pl, KW_MECH_FENTRY, q->name, "%s", "");
		return;
	}
	if (attach != KW_ATTACH_FENTRY) {
		set_plan(pl, KW_MECH_KPROBE, q->name, "%s", why);
		return;
	}
	set_plan(pl, KW_MECH_UNAVAILABLE, q->name, "%s (--attach fentry)", why);
}

void loader__plan(struct loader *l)
{
	bool ioctl_tp = false;

	for (int i = 0; i < KW_NR_PROBES; i++)
		if (kw_probe_in_arch(i, kw_host_arch()))
			plan_probe(l, i, &ioctl_tp);
	for (unsigned int s = 0; s < l->opts.nufuncs; s++)
		plan_ufunc(l, s);
}

/*
 * The programs of user function @s's plan (userfn.bpf.c: fe_ufnN, fx_ufnN, kp_ufnN, kr_ufnN)
 * into names[enum kw_prog_end], "" for none: only the entry one with --count. False if the
 * plan has none.
 */
static bool ufunc_progs(const struct loader *l, unsigned int s, char names[KW_NR_ENDS][16])
{
	enum kw_mech m = l->uplan[s].mech;
	bool fe = m == KW_MECH_FENTRY;

	if (!fe && m != KW_MECH_KPROBE)
		return false;
	snprintf(names[KW_ENTRY], 16, "%s_ufn%u", fe ? "fe" : "kp", s);
	snprintf(names[KW_EXIT], 16, "%s_ufn%u", fe ? "fx" : "kr", s);
	if (!l->opts.ufuncs[s].timed)
		names[KW_EXIT][0] = 0;
	return true;
}

/* The user function a program of userfn.bpf.c belongs to ("fe_ufn3": 3), or -1. */
static int ufunc_of_prog(const char *prog)
{
	unsigned int s;
	char end;

	if (strlen(prog) < 7 || strncmp(prog + 2, "_ufn", 4) ||
	    sscanf(prog + 6, "%u%c", &s, &end) != 1 || s >= KW_MAX_UFUNCS)
		return -1;
	return s;
}

/* ---- loading -------------------------------------------------------------------------------- */

/* The programs of a probe's plan, by enum kw_prog_end; NULL if the plan has none. */
static const char *const *plan_progs(const struct loader *l, int probe)
{
	enum kw_mech m = l->plan[probe].mech;

	return m == KW_MECH_FENTRY || m == KW_MECH_KPROBE || m == KW_MECH_TRACEPOINT
		       ? kw_probes[probe].prog[m]
		       : NULL;
}

static void set_autoload(struct loader *l)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const char *const *names = plan_progs(l, i);

		for (int k = 0; names && k < KW_NR_ENDS; k++) {
			if (!names[k])
				continue;
			prog = bpf_object__find_program_by_name(l->skel->obj, names[k]);
			if (!prog)
				continue;
			bpf_program__set_autoload(prog, true);
			if (l->plan[i].mech == KW_MECH_FENTRY)
				bpf_program__set_attach_target(prog, 0, kw_probes[i].func);
		}
	}
	if (l->opts.nvms)
		bpf_program__set_autoload(l->skel->progs.rt_exec, true);
	for (unsigned int s = 0; s < l->opts.nufuncs; s++) {
		char names[KW_NR_ENDS][16];

		if (!ufunc_progs(l, s, names))
			continue;
		for (int k = 0; k < KW_NR_ENDS; k++) {
			if (!names[k][0])
				continue;
			prog = bpf_object__find_program_by_name(l->skel->obj, names[k]);
			if (!prog)
				continue;
			bpf_program__set_autoload(prog, true);
			if (l->uplan[s].mech == KW_MECH_FENTRY)
				bpf_program__set_attach_target(prog, 0, l->opts.ufuncs[s].name);
		}
	}
}

/*
 * Test knob, not a feature: KVMWALK_TEST_MAX_TRIGS / KVMWALK_TEST_MAX_CBS=N shrink the bounded
 * hash maps (triggers, walk callbacks) so that a test can fill them on purpose and see the
 * drops counted (tests/vm/cases/kw-map-full). Said on stderr whenever it is used.
 */
static void test_map_size(struct bpf_map *m, const char *env, bool say)
{
	const char *v = getenv(env);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return;
	n = strtoul(v, &end, 10);
	if (*end || !n || n > bpf_map__max_entries(m) || bpf_map__set_max_entries(m, n)) {
		if (say)
			fprintf(stderr, "kvmwalk: test knob %s=%s ignored (1..%u)\n", env, v,
				bpf_map__max_entries(m));
		return;
	}
	if (say)
		fprintf(stderr, "kvmwalk: test knob %s: %s holds %lu entries\n", env,
			bpf_map__name(m), n);
}

/* A probe the plan attaches (or tries to): it may produce its histograms. */
static bool planned(const struct kw_plan *pl)
{
	return pl->mech == KW_MECH_FENTRY || pl->mech == KW_MECH_KPROBE ||
	       pl->mech == KW_MECH_TRACEPOINT;
}

/*
 * Numbers the histograms the planned probes can produce (kw_hslots, bpf/kvmwalk_abi.h) and sizes
 * kw_hists to them: a probe that is off, unavailable, of the other arch, untimed or without a
 * size gets no slot, so no memory. The catalogue's timed and unit say which; the recording shows
 * a duration and a size histogram for exactly those (record.c), and kw-all asserts that each one
 * an attached probe has is filled.
 */
static int hist_slots(struct loader *l)
{
	struct kw_hist_slots *hs = &l->hslots;
	__u32 n = 0, nb = l->opts.hist_log2 ? KW_HIST_LOG2_BUCKETS : KW_HIST_NR_BUCKETS;
	int err;

	memset(hs, KW_NO_HIST, sizeof(*hs));
	hs->log2 = l->opts.hist_log2;
	for (int p = 0; p < KW_NR_PROBES; p++) {
		if (!planned(&l->plan[p]))
			continue;
		/* an exit-only tracepoint (fast_page_fault's on 6.1) times nothing */
		if (kw_probes[p].timed && (l->plan[p].mech != KW_MECH_TRACEPOINT ||
					   kw_probes[p].prog[KW_MECH_TRACEPOINT][KW_EXIT]))
			hs->dur[p] = n++;
		if (kw_probes[p].unit)
			hs->size[p] = n++;
	}
	if (planned(&l->plan[KW_P_S2_UNMAP]))
		hs->cleared = n++;
	l->nhists = n;
	memcpy((void *)&l->skel->rodata->kw_hslots, hs, sizeof(*hs));
	if ((err = bpf_map__set_max_entries(l->skel->maps.kw_hists, n ? n : 1)) ||
	    (err = bpf_map__set_value_size(l->skel->maps.kw_hists, KW_HIST_VALUE_SIZE(nb)))) {
		fprintf(stderr, "kvmwalk: cannot size kw_hists: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

int loader__load(struct loader *l)
{
	int err, p;

	l->skel = kvmwalk_bpf__open();
	if (!l->skel) {
		err = -errno;
		fprintf(stderr, "kvmwalk: cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	l->skel->rodata->kw_filter_pids = l->opts.npids > 0 || l->opts.nvms > 0;
	l->skel->rodata->kw_filter_vms = l->opts.nvms > 0;
	for (unsigned int s = 0; s < l->opts.nufuncs; s++)
		if (l->opts.ufuncs[s].timed)
			l->skel->rodata->kw_ufunc_timed |= 1U << s;
	/*
	 * Only rt_exec (loaded with --vm alone) uses these: without --vm they are not created, which
	 * saves kw_exec_buf's 4160 bytes per CPU (docs/performance.md, kernel memory).
	 */
	if (!l->opts.nvms) {
		bpf_map__set_autocreate(l->skel->maps.kw_exec_buf, false);
		bpf_map__set_autocreate(l->skel->maps.kw_vm_names, false);
	}
	/*
	 * --count / --time: a statistics slot (4032 bytes per CPU) per function named, and no maps
	 * at all without them (their programs are not loaded then, set_autoload()).
	 */
	if (!l->opts.nufuncs) {
		bpf_map__set_autocreate(l->skel->maps.kw_ustats, false);
		bpf_map__set_autocreate(l->skel->maps.kw_utrigs, false);
	} else if ((err = bpf_map__set_max_entries(l->skel->maps.kw_ustats, l->opts.nufuncs))) {
		fprintf(stderr, "kvmwalk: cannot size kw_ustats: %s\n", strerror(-err));
		return err;
	}
	/* on every load: each opens the object afresh (said the first time) */
	test_map_size(l->skel->maps.kw_triggers, "KVMWALK_TEST_MAX_TRIGS", l->loads == 0);
	test_map_size(l->skel->maps.kw_walk_cbs, "KVMWALK_TEST_MAX_CBS", l->loads == 0);
	l->loads++;
#if defined(__aarch64__)
	l->skel->rodata->kw_flush_primary =
		l->plan[KW_P_TLB_FLUSH_RANGE].mech != KW_MECH_UNAVAILABLE ? KW_P_TLB_FLUSH_RANGE
									  : KW_P_HYP_FLUSH_RANGE;
#endif
	if ((err = hist_slots(l)))
		return err;
	set_autoload(l);
	l->failed_prog[0] = 0;
	err = kvmwalk_bpf__load(l->skel);
	if (err && !l->failed_prog[0]) {
		fprintf(stderr, "kvmwalk: loading the BPF object failed: %s\n", strerror(-err));
		return err;
	}
	if (err) {
		p = kw_probe_of_prog(l->failed_prog);
		if (p >= 0)
			set_plan(&l->plan[p], KW_MECH_UNAVAILABLE, kw_probes[p].func,
				 "verifier refused %s: %s (run with -v)", l->failed_prog,
				 strerror(-err));
		p = ufunc_of_prog(l->failed_prog);
		if (p >= 0)
			set_plan(&l->uplan[p], KW_MECH_UNAVAILABLE, l->opts.ufuncs[p].name,
				 "verifier refused %s: %s (run with -v)", l->failed_prog,
				 strerror(-err));
		return -EAGAIN;
	}
	/* --pid: in the map before the first program is attached */
	for (__u32 i = 0; i < l->opts.npids; i++) {
		err = loader__add_pid(l, l->opts.pids[i]);
		if (err) {
			fprintf(stderr, "kvmwalk: cannot set the --pid filter: %s\n",
				strerror(-err));
			return err;
		}
	}
	return events_start(l);
}

/* ---- attaching ------------------------------------------------------------------------------ */

static void detach_probe(struct loader *l, int i)
{
	for (int k = 0; k < KW_NR_ENDS; k++) {
		bpf_link__destroy(l->links[i][k]);
		l->links[i][k] = NULL;
	}
}

static int attach_probe(struct loader *l, int i)
{
	const struct kw_probe_desc *pp = &kw_probes[i];
	struct kw_plan *pl = &l->plan[i];
	const char *const *names = plan_progs(l, i);
	char func[64], why[384];
	int err = 0;

	if (!names)
		return 0;
	/*
	 * The exit program first (issue 15). With the entry first, a call that enters between the
	 * two attaches (attaching takes seconds under emulation, and the window exists on hardware
	 * too) bumps a depth that its exit never takes back: a vCPU thread's fault_depth stuck at 1
	 * put every later KVM_RUN, KVM_IRQ_LINE and dirty-ring write-protect of a running QEMU under
	 * vcpu_fault. An exit without its entry finds depth 0 (or no start time) and does nothing.
	 */
	for (int k = KW_EXIT; k >= KW_ENTRY && !err; k--) {
		struct bpf_program *prog;
		struct bpf_link *link;

		if (!names[k])
			continue;
		prog = bpf_object__find_program_by_name(l->skel->obj, names[k]);
		if (!prog)
			continue;
		if (pl->mech == KW_MECH_KPROBE)
			link = bpf_program__attach_kprobe(prog, k == KW_EXIT, pp->func);
		else if (pl->mech == KW_MECH_TRACEPOINT && !*pp->tp_cat)
			link = bpf_program__attach_raw_tracepoint(prog, pp->tp_name);
		else
			link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			break;
		}
		l->links[i][k] = link;
	}
	if (!err)
		return 0;
	detach_probe(l, i);
	/* copies: set_plan() writes the fields it would otherwise read */
	snprintf(func, sizeof(func), "%s", pl->func);
	snprintf(why, sizeof(why), "%s", pl->reason);
	set_plan(pl, KW_MECH_UNAVAILABLE, func, "%s%s%s attach refused: %s", why,
		 why[0] ? "; " : "", kw_mech_name(pl->mech), strerror(-err));
	return err;
}

static void detach_ufunc(struct loader *l, unsigned int s)
{
	for (int k = 0; k < KW_NR_ENDS; k++) {
		bpf_link__destroy(l->ulinks[s][k]);
		l->ulinks[s][k] = NULL;
	}
}

/*
 * Attaches user function @s, the exit program first (as attach_probe()). A refused fentry
 * attach moves it to kprobes under --attach auto (true: load again); any other refusal makes
 * it unavailable, with the reason.
 */
static bool attach_ufunc(struct loader *l, unsigned int s)
{
	struct kw_plan *pl = &l->uplan[s];
	const char *func = l->opts.ufuncs[s].name;
	char names[KW_NR_ENDS][16];
	int err = 0;

	if (!ufunc_progs(l, s, names))
		return false;
	for (int k = KW_EXIT; k >= KW_ENTRY && !err; k--) {
		struct bpf_program *prog;
		struct bpf_link *link;

		if (!names[k][0] ||
		    !(prog = bpf_object__find_program_by_name(l->skel->obj, names[k])))
			continue;
		link = pl->mech == KW_MECH_KPROBE ? bpf_program__attach_kprobe(prog, k == KW_EXIT, func)
						  : bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			break;
		}
		l->ulinks[s][k] = link;
	}
	if (!err)
		return false;
	detach_ufunc(l, s);
	if (pl->mech == KW_MECH_FENTRY && l->opts.attach == KW_ATTACH_AUTO) {
		set_plan(pl, KW_MECH_KPROBE, func, "fentry attach refused: %s", strerror(-err));
		return true;
	}
	{
		char why[384];

		snprintf(why, sizeof(why), "%s", pl->reason);
		set_plan(pl, KW_MECH_UNAVAILABLE, func, "%s%s%s attach refused: %s", why,
			 why[0] ? "; " : "", kw_mech_name(pl->mech), strerror(-err));
	}
	return false;
}

/* Replan a detached fentry whose trampoline is missing: as a kprobe if it can be one. */
static bool trampoline_missing(struct kw_plan *pl, const char *func, bool as_kprobe)
{
	set_plan(pl, as_kprobe ? KW_MECH_KPROBE : KW_MECH_UNAVAILABLE, func,
		 "fentry attached but its trampoline is not on %s (not in "
		 "tracing/enabled_functions)", func);
	return as_kprobe;
}

/*
 * An fentry link can exist without its trampoline being on the function: on Debian's x86 6.12
 * kernel, fentry on kvm_vm_ioctl (kvm.ko) attaches without an error, but the function is not in
 * tracing/enabled_functions, where every other fentry target of kvmwalk is listed with its
 * "direct-->bpf_trampoline", and the program never runs (0 calls through a real QEMU's 12,554
 * VM ioctls, counted by kprobes and by the syscall tracepoint; kvm_vcpu_ioctl is fine). So after
 * attaching, each fentry target must be in enabled_functions, once it is known that that file
 * lists kvmwalk's trampolines at all (some other target is there); one that is not is attached
 * again as a kprobe (--attach auto) or reported unavailable (--attach fentry).
 */
static bool check_fentry_sites(struct loader *l)
{
	char path[192], *text;
	bool listed = false, replan = false;

	if (!l->tracefs.root[0])
		return false;
	snprintf(path, sizeof(path), "%s/enabled_functions", l->tracefs.root);
	text = kw_read_file(path);
	if (!text)
		return false;
	for (int i = 0; i < KW_NR_PROBES && !listed; i++)
		listed = l->plan[i].mech == KW_MECH_FENTRY && listed_func(text, l->plan[i].func);
	for (int i = 0; i < KW_NR_PROBES && listed; i++) {
		struct kw_plan *pl = &l->plan[i];
		char func[64];

		if (pl->mech != KW_MECH_FENTRY || listed_func(text, pl->func))
			continue;
		detach_probe(l, i);
		snprintf(func, sizeof(func), "%s", pl->func);
		replan |= trampoline_missing(pl, func, l->opts.attach == KW_ATTACH_AUTO &&
						 kw_probes[i].prog[KW_MECH_KPROBE][KW_ENTRY] &&
						 is_traceable(l, func));
	}
	/* the user functions, by the same rule */
	for (unsigned int s = 0; s < l->opts.nufuncs && listed; s++) {
		struct kw_plan *pl = &l->uplan[s];
		const char *func = l->opts.ufuncs[s].name;

		if (pl->mech != KW_MECH_FENTRY || listed_func(text, func))
			continue;
		detach_ufunc(l, s);
		replan |= trampoline_missing(pl, func, l->opts.attach == KW_ATTACH_AUTO);
	}
	free(text);
	return replan;
}

int loader__attach(struct loader *l)
{
	bool replan = false;

	for (int i = 0; i < KW_NR_PROBES; i++) {
		const struct kw_probe_desc *pp = &kw_probes[i];
		struct kw_plan *pl = &l->plan[i];
		bool was_kprobe = pl->mech == KW_MECH_KPROBE;
		char why[384];

		if (!attach_probe(l, i) || !was_kprobe || !pp->tp_name)
			continue;
		snprintf(why, sizeof(why), "%s", pl->reason);
		if (l->opts.attach == KW_ATTACH_AUTO &&
		    tracepoint_exists(l, pp->tp_cat, pp->tp_name)) {
			set_plan(pl, KW_MECH_TRACEPOINT, pp->tp_name, "%s", why);
			replan = true;
		} else if (*pp->tp_cat && !l->tracefs.root[0]) {
			/* the fallback exists but cannot be used: say why, and the fix */
			set_plan(pl, KW_MECH_UNAVAILABLE, pp->func, "%s; tracepoint %s:%s: %s", why,
				 pp->tp_cat, pp->tp_name, l->tracefs.why);
		}
	}
	for (unsigned int s = 0; s < l->opts.nufuncs; s++)
		replan |= attach_ufunc(l, s);
	replan |= check_fentry_sites(l);
	if (l->plan[KW_P_VM_IOCTL].mech == KW_MECH_TRACEPOINT &&
	    l->plan[KW_P_VCPU_IOCTL].mech != KW_MECH_OFF) {
		set_plan(&l->plan[KW_P_VCPU_IOCTL], KW_MECH_OFF, "kvm_vcpu_ioctl",
			 "counted with kvm_vm_ioctl's ioctl tracepoint");
		replan = true;
	}
	return replan ? -EAGAIN : 0;
}

/* Back to before loader__load(): detached, no BPF object. */
static void unload(struct loader *l)
{
	for (int i = 0; i < KW_NR_PROBES; i++)
		detach_probe(l, i);
	for (unsigned int s = 0; s < KW_MAX_UFUNCS; s++)
		detach_ufunc(l, s);
	events_stop(l);
	kvmwalk_bpf__destroy(l->skel);
	l->skel = NULL;
}

/* ---- the stages ----------------------------------------------------------------------------- */

static int check_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	long r;

	if (geteuid() == 0)
		return 0;
	r = syscall(SYS_capget, &hdr, data);
	/* CAP_BPF = 39, CAP_PERFMON = 38, both in the second word */
	if (!r && (data[1].effective & (1U << (39 - 32))) &&
	    (data[1].effective & (1U << (38 - 32))))
		return 0;
	return -EPERM;
}

struct loader *loader__new(const struct loader_opts *opts, int *exit_code)
{
	struct loader *l = calloc(1, sizeof(*l));
	const char *arch = kw_host_arch();
	int err;

	*exit_code = KW_EXIT_ERROR;
	if (!l) {
		fprintf(stderr, "kvmwalk: out of memory\n");
		return NULL;
	}
	l->opts = *opts;
	l->stats_fd = -1;
	l->stats_sysctl_old = -1;
	cur_loader = l;
	libbpf_set_print(libbpf_print);

	/* --probe: every name must be a probe of this arch (a typo must not record nothing). */
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!(opts->required & KW_PROBE_BIT(i)) || kw_probe_in_arch(i, arch))
			continue;
		fprintf(stderr,
			"kvmwalk: requested probe %s does not exist on %s (see kvmwalk probes)\n",
			kw_probes[i].name, arch);
		*exit_code = KW_EXIT_NOFUNC;
		goto fail;
	}
	if (check_privileges()) {
		fprintf(stderr, "kvmwalk: needs root, or CAP_BPF and CAP_PERFMON (try sudo)\n");
		*exit_code = KW_EXIT_PERM;
		goto fail;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "kvmwalk: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
				"it needs CONFIG_DEBUG_INFO_BTF=y\n");
		*exit_code = KW_EXIT_NOBTF;
		goto fail;
	}
	if (access("/dev/kvm", F_OK) && access("/sys/module/kvm", F_OK)) {
		fprintf(stderr, "kvmwalk: not a KVM host: no /dev/kvm and no kvm module loaded "
				"(modprobe kvm-intel, kvm-amd, or boot arm64 at EL2)\n");
		*exit_code = KW_EXIT_NOKVM;
		goto fail;
	}
	err = ksyms__load(&l->ksyms, "/proc/kallsyms");
	if (err) {
		fprintf(stderr, "kvmwalk: cannot read /proc/kallsyms: %s\n", strerror(-err));
		goto fail;
	}
	/* The tracepoint fallbacks and the traceable check need tracefs (mounted if it is not). */
	if (!kw_tracefs_find(&l->tracefs, "", true) && l->tracefs.mounted)
		fprintf(stderr, "kvmwalk: tracefs was not mounted; mounted it at %s\n",
			l->tracefs.root);
	if (l->tracefs.root[0]) {
		char path[192];

		snprintf(path, sizeof(path), "%s/available_filter_functions", l->tracefs.root);
		l->traceable = kw_read_file(path);
	}
	if (!strcmp(arch, "arm64"))
		kw_host_arm64_mode(l->kvm_mode, sizeof(l->kvm_mode));
	*exit_code = KW_EXIT_OK;
	return l;
fail:
	loader__destroy(l);
	return NULL;
}

/*
 * A user function asked for without -optional that is unavailable: said with its reason, and
 * KW_EXIT_USAGE (the name given is what is wrong, as with a --pid that does not exist).
 */
static bool ufuncs_required(const struct loader *l, int *exit_code)
{
	for (unsigned int s = 0; s < l->opts.nufuncs; s++) {
		const struct kw_ufunc_req *q = &l->opts.ufuncs[s];

		if (q->optional || l->uplan[s].mech != KW_MECH_UNAVAILABLE)
			continue;
		fprintf(stderr, "kvmwalk: %s %s: %s (%s-optional records it as unavailable)\n",
			kw_ufunc_option(q), q->name, l->uplan[s].reason,
			q->timed ? "--time" : "--count");
		*exit_code = KW_EXIT_USAGE;
		return true;
	}
	return false;
}

struct loader *loader__open(const struct loader_opts *opts, int *exit_code)
{
	struct loader *l = loader__new(opts, exit_code);
	int err = -EAGAIN;

	if (!l)
		return NULL;
	*exit_code = KW_EXIT_ERROR;
	loader__plan(l);
	/* --count / --time: a function that cannot be traced is a usage error, before anything runs */
	if (ufuncs_required(l, exit_code))
		goto fail;
	/*
	 * A program the verifier refuses makes its probe unavailable; a kprobe the kernel refuses
	 * at attach time (no kprobes at all, a blacklisted function) moves its probe to its
	 * tracepoint fallback if it has one. Either way: start over with the new plan, a few times.
	 */
	for (int loads = 0; err == -EAGAIN && loads < MAX_LOADS; loads++) {
		if (loads)
			unload(l);
		err = loader__load(l);
		if (!err)
			err = loader__attach(l);
	}
	if (err == -EAGAIN)
		fprintf(stderr, "kvmwalk: the verifier refused too many programs (run with -v)\n");
	if (err)
		goto fail;

	if (ufuncs_required(l, exit_code))
		goto fail;
	/* --probe: every named probe must be attached. */
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!(opts->required & KW_PROBE_BIT(i)) || !kw_probe_in_arch(i, kw_host_arch()) ||
		    !wanted(opts, i) || l->plan[i].mech != KW_MECH_UNAVAILABLE)
			continue;
		fprintf(stderr, "kvmwalk: requested probe %s is unavailable: %s\n",
			kw_probes[i].name, l->plan[i].reason);
		*exit_code = KW_EXIT_NOFUNC;
		goto fail;
	}
	*exit_code = KW_EXIT_OK;
	return l;
fail:
	loader__destroy(l);
	return NULL;
}

/* ---- while attached ------------------------------------------------------------------------- */

int loader__add_pid(struct loader *l, __u32 pid)
{
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.kw_pids, &pid, sizeof(pid), &one, sizeof(one),
				    BPF_ANY);
}

const struct kw_plan *loader__get_plan(const struct loader *l)
{
	return l->plan;
}

void loader__meta(const struct loader *l, struct kw_meta *m)
{
	snprintf(m->tool_version, sizeof(m->tool_version), "%s (git %s)", KW_VERSION, KW_COMMIT);
	kw_host_meta(m, l ? kw_attach_name(l->opts.attach) : "");
}

int loader__stats_start(struct loader *l)
{
	char old[8] = "";
	int fd;

	l->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (l->stats_fd >= 0)
		return 0;
	/* Kernels without BPF_ENABLE_STATS: flip the sysctl and put it back on destroy. */
	kw_read_line("/proc/sys/kernel/bpf_stats_enabled", old, sizeof(old));
	if (!old[0])
		return -ENOENT;
	l->stats_sysctl_old = atoi(old);
	fd = open("/proc/sys/kernel/bpf_stats_enabled", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		if (fd >= 0)
			close(fd);
		l->stats_sysctl_old = -1;
		return -errno;
	}
	close(fd);
	return 0;
}

void loader__destroy(struct loader *l)
{
	if (!l)
		return;
	unload(l);
	if (l->stats_fd >= 0)
		close(l->stats_fd);
	if (l->stats_sysctl_old >= 0) {
		int fd = open("/proc/sys/kernel/bpf_stats_enabled", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, l->stats_sysctl_old ? "1" : "0", 1) != 1)
				fprintf(stderr, "kvmwalk: could not restore bpf_stats_enabled\n");
			close(fd);
		}
	}
	ksyms__free(&l->ksyms);
	free(l->exited);
	free(l->ids);
	free(l->vmf);
	free(l->traceable);
	btf__free(l->mod_btf);
	btf__free(l->vmlinux_btf);
	if (cur_loader == l)
		cur_loader = NULL;
	free(l);
}
