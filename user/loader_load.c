// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: probing. The loader's loading (declared in loader_state.h): the opened BPF object set
 * up for the plan before it is loaded: its rodata, which maps are created and how large (the
 * histogram slots, the test knobs), which programs load and where each fentry attaches.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "loader_state.h"

/* Loads program @name if the object has it; an fentry one on @fentry_func (NULL otherwise). */
static void autoload(struct loader *l, const char *name, const char *fentry_func)
{
	struct bpf_program *prog = bpf_object__find_program_by_name(l->skel->obj, name);

	if (!prog)
		return;
	bpf_program__set_autoload(prog, true);
	if (fentry_func)
		bpf_program__set_attach_target(prog, 0, fentry_func);
}

static void set_autoload(struct loader *l)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->skel->obj)
		bpf_program__set_autoload(prog, false);
	for (int i = 0; i < KW_NR_PROBES; i++) {
		const char *const *names = kw_plan_progs(&l->plan[i], i);
		bool fe = l->plan[i].mech == KW_MECH_FENTRY;

		for (int k = 0; names && k < KW_NR_ENDS; k++)
			if (names[k])
				autoload(l, names[k], fe ? kw_probes[i].func : NULL);
	}
	if (l->opts.nvms)
		bpf_program__set_autoload(l->skel->progs.rt_exec, true);
	for (unsigned int s = 0; s < l->opts.nufuncs; s++) {
		const struct kw_ufunc_req *q = &l->opts.ufuncs[s];
		bool fe = l->uplan[s].mech == KW_MECH_FENTRY;
		char names[KW_NR_ENDS][16];

		if (!kw_plan_ufunc_progs(&l->uplan[s], s, q->timed, names))
			continue;
		for (int k = 0; k < KW_NR_ENDS; k++)
			if (names[k][0])
				autoload(l, names[k], fe ? q->name : NULL);
	}
}

/*
 * Test knob, not a feature: KVMWALK_TEST_MAX_TRIGS / KVMWALK_TEST_MAX_CBS=N shrink the bounded
 * hash maps (triggers, walk callbacks) so that a test can fill them on purpose and see the
 * drops counted (tests/vm/cases/kw-map-full). Said on stderr whenever it is used.
 */
/*
 * Test knob, not a feature: KVMWALK_TEST_LOSE_EXIT=PROBE:N makes every Nth exit of a context
 * probe (an ioctl, guest_fault, an MMU notifier, kvm_mmu_notifier_release) act as a run the
 * kernel skipped (bpf/trigger.bpf.c kw_test_lost()), so that tests/vm/cases/kw-heal can see the
 * context end at the next boundary. Said on stderr whenever it is used.
 */
static void test_lose_exit(struct loader *l, bool say)
{
	const char *v = getenv("KVMWALK_TEST_LOSE_EXIT"), *colon;
	char name[64];
	unsigned long n = 0;
	int p = -1;

	if (!v || !*v)
		return;
	colon = strchr(v, ':');
	if (colon && (size_t)(colon - v) < sizeof(name)) {
		snprintf(name, sizeof(name), "%.*s", (int)(colon - v), v);
		p = kw_probe_by_name(name);
		n = strtoul(colon + 1, NULL, 10);
	}
	if (p < 0 || !n || strcmp(kw_probes[p].family, "trigger")) {
		if (say)
			fprintf(stderr, "kvmwalk: test knob KVMWALK_TEST_LOSE_EXIT=%s ignored "
					"(PROBE:N, PROBE a trigger probe)\n", v);
		return;
	}
	l->skel->rodata->kw_test_lose_probe = p + 1;
	l->skel->rodata->kw_test_lose_every = n;
	if (say)
		fprintf(stderr, "kvmwalk: test knob KVMWALK_TEST_LOSE_EXIT: every %luth exit of %s "
				"is lost\n", n, kw_probes[p].name);
}

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
		/* a probe the plan attaches (or tries to): it may produce its histograms */
		if (!kw_plan_attached(&l->plan[p]))
			continue;
		/* an exit-only tracepoint (fast_page_fault's on 6.1) times nothing */
		if (kw_probes[p].timed && (l->plan[p].mech != KW_MECH_TRACEPOINT ||
					   kw_probes[p].prog[KW_MECH_TRACEPOINT][KW_EXIT]))
			hs->dur[p] = n++;
		if (kw_probes[p].unit)
			hs->size[p] = n++;
	}
	if (kw_plan_attached(&l->plan[KW_P_S2_UNMAP]))
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

int loader__configure(struct loader *l)
{
	int err;

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
	test_lose_exit(l, l->loads == 0);
	l->loads++;
#if defined(__aarch64__)
	l->skel->rodata->kw_flush_primary =
		l->plan[KW_P_TLB_FLUSH_RANGE].mech != KW_MECH_UNAVAILABLE ? KW_P_TLB_FLUSH_RANGE
									  : KW_P_HYP_FLUSH_RANGE;
#endif
	if ((err = hist_slots(l)))
		return err;
	set_autoload(l);
	return 0;
}
