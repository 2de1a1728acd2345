// SPDX-License-Identifier: GPL-2.0
/* The probe options child (user/probe_opts.c): its defaults, and each option under a parent. */
#include <stdio.h>
#include <unistd.h>

#include "test.h"
#include "probe_opts.h"

struct parent {
	struct loader_opts lo;
	int other;
};

static error_t parse_parent(int key, char *arg, struct argp_state *state)
{
	struct parent *p = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &p->lo;
		return 0;
	case 'x':
		p->other = 1;
		return 0;
	}
	return ARGP_ERR_UNKNOWN;
}

static const struct argp_option parent_options[] = {
	{ .name = "other", .key = 'x', .doc = "the parent's own" },
	{},
};

static const struct argp parent_argp = {
	.options = parent_options,
	.parser = parse_parent,
	.children = kw_probe_children,
};

/*
 * A parent with serve's defaults, said before the child's INIT: the notifiers set and the sampled
 * mode at 49 Hz (--sample and --no-sample allowed).
 */
static error_t parse_serve_parent(int key, char *arg, struct argp_state *state)
{
	struct parent *p = state->input;

	if (key == ARGP_KEY_INIT) {
		p->lo.default_set = KW_SET_NOTIFIERS;
		p->lo.sample_hz = 49;
		p->lo.sample_ok = true;
	}
	return parse_parent(key, arg, state);
}

static const struct argp serve_parent_argp = {
	.options = parent_options,
	.parser = parse_serve_parent,
	.children = kw_probe_children,
};

static void test_sets(void)
{
	struct parent p = {};
	char *none[] = { "kvmwalk test", NULL };
	char *cheap[] = { "kvmwalk test", "--probe", "cheap", NULL };
	char *alias[] = { "kvmwalk test", "--probes=cheap,tdp_iter_next", NULL };
	char *all[] = { "kvmwalk test", "--probe", "all", NULL };
	char *name[] = { "kvmwalk test", "--probe", "kvm_vm_ioctl", NULL };

	ASSERT_EQ(argp_parse(&parent_argp, 3, cheap, ARGP_NO_EXIT, NULL, &p), 0, "--probe cheap");
	ASSERT_EQ(p.lo.probes, kw_probes_cheap, "the cheap set");
	ASSERT_TRUE(p.lo.cheap, "said so");
	ASSERT_EQ(p.lo.required, 0, "a set requires nothing");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&parent_argp, 2, alias, ARGP_NO_EXIT, NULL, &p), 0, "--probes alias");
	ASSERT_EQ(p.lo.probes, kw_probes_cheap | KW_PROBE_BIT(KW_P_TDP_ITER_NEXT), "set plus one");
	ASSERT_EQ(p.lo.required, KW_PROBE_BIT(KW_P_TDP_ITER_NEXT), "the one required");

	p = (struct parent){};
	ASSERT_EQ(argp_parse(&serve_parent_argp, 1, none, ARGP_NO_EXIT, NULL, &p), 0, "serve-like");
	ASSERT_EQ(p.lo.probes, kw_probes_notifiers, "its default: the notifiers set");
	ASSERT_EQ(p.lo.set, KW_SET_NOTIFIERS, "said so");
	ASSERT_FALSE(p.lo.cheap, "not the cheap set");
	ASSERT_EQ(p.lo.required, 0, "nothing required");
	ASSERT_EQ(p.lo.sample_hz, 49, "sampling at 49 Hz");
	ASSERT_FALSE(p.lo.sample_given, "not asked for: the default");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&serve_parent_argp, 3, cheap, ARGP_NO_EXIT, NULL, &p), 0, "cheap");
	ASSERT_EQ(p.lo.probes, kw_probes_cheap, "the cheap set");
	ASSERT_TRUE(p.lo.cheap, "said so");
	ASSERT_EQ(p.lo.sample_hz, 49, "still sampling");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&serve_parent_argp, 3, all, ARGP_NO_EXIT, NULL, &p), 0, "--probe all");
	ASSERT_EQ(p.lo.probes, KW_PROBES_ALL, "every probe");
	ASSERT_FALSE(p.lo.cheap, "not the cheap set");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&serve_parent_argp, 3, name, ARGP_NO_EXIT, NULL, &p), 0, "a name");
	ASSERT_EQ(p.lo.probes, KW_PROBE_BIT(KW_P_VM_IOCTL), "only it");
	ASSERT_FALSE(p.lo.cheap, "the set replaced");
	ASSERT_EQ(p.lo.required, KW_PROBE_BIT(KW_P_VM_IOCTL), "required");
}

/* --sample and --no-sample: a rate, the default's off switch, and what contradicts. */
static void test_sample(void)
{
	struct parent p = {};
	char *off[] = { "kvmwalk test", "--no-sample", NULL };
	char *rate[] = { "kvmwalk test", "--sample=99", NULL };
	char *both[] = { "kvmwalk test", "--sample", "--no-sample", NULL };
	char *sampled[] = { "kvmwalk test", "--probe", "sampled", NULL };
	char *none[] = { "kvmwalk test", "--probe", "none", NULL };
	char *zero[] = { "kvmwalk test", "--sample=0", NULL };

	ASSERT_EQ(argp_parse(&serve_parent_argp, 2, off, ARGP_NO_EXIT, NULL, &p), 0, "--no-sample");
	ASSERT_EQ(p.lo.sample_hz, 0, "off");
	ASSERT_EQ(p.lo.probes, kw_probes_notifiers, "the probes kept");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&serve_parent_argp, 2, rate, ARGP_NO_EXIT, NULL, &p), 0, "--sample=99");
	ASSERT_EQ(p.lo.sample_hz, 99, "its rate");
	ASSERT_TRUE(p.lo.sample_given, "asked for");
	/* refused: contradictions, serve without anything to sample or probe, other commands */
	const struct {
		const struct argp *argp;
		int argc;
		char **argv;
		const char *why;
	} refused[] = {
		{ &serve_parent_argp, 3, both, "--sample --no-sample: a contradiction" },
		{ &serve_parent_argp, 2, zero, "--sample=0: not a rate (--no-sample is)" },
		{ &serve_parent_argp, 3, sampled, "serve --probe sampled" },
		{ &serve_parent_argp, 3, none, "serve --probe none" },
		{ &parent_argp, 2, off, "--no-sample: only record and serve" },
		{ &parent_argp, 2, rate, "--sample: only record and serve" },
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		p = (struct parent){};
		ASSERT_EQ(argp_parse(refused[i].argp, refused[i].argc, refused[i].argv,
				     ARGP_NO_EXIT | ARGP_NO_ERRS, NULL, &p),
			  EINVAL, refused[i].why);
	}
}

/* The timing set, and none: a set of its own that only record (none_ok) takes. */
static void test_timing_none(void)
{
	struct parent p = {};
	char *timing[] = { "kvmwalk test", "--probe", "timing", NULL };
	char *plus[] = { "kvmwalk test", "--probe", "timing,kvm_vcpu_ioctl", NULL };
	char *none[] = { "kvmwalk test", "--probe", "none", NULL };
	char *empty[] = { "kvmwalk test", "--probe=", NULL };
	char *pid[] = { "kvmwalk test", "--probe", "none", "--pid", "1", NULL };

	ASSERT_EQ(argp_parse(&parent_argp, 3, timing, ARGP_NO_EXIT, NULL, &p), 0, "timing");
	ASSERT_EQ(p.lo.probes, kw_probes_timing, "the timing set");
	ASSERT_EQ(p.lo.set, KW_SET_TIMING, "said so");
	ASSERT_FALSE(p.lo.cheap, "not the cheap set");
	ASSERT_EQ(p.lo.required, 0, "a set requires nothing");
	ASSERT_STREQ(p.lo.probe_arg, "timing", "as given, for the recording");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&parent_argp, 3, plus, ARGP_NO_EXIT, NULL, &p), 0, "timing + one");
	ASSERT_EQ(p.lo.probes, kw_probes_timing | KW_PROBE_BIT(KW_P_VCPU_IOCTL), "set plus one");
	ASSERT_EQ(p.lo.set, KW_SET_TIMING, "the set named");
	ASSERT_EQ(p.lo.required, KW_PROBE_BIT(KW_P_VCPU_IOCTL), "the one required");
	/* notifiers: the timing set's MMU-notifier callbacks, a set of its own */
	char *notif[] = { "kvmwalk test", "--probe", "notifiers", NULL };
	char *both[] = { "kvmwalk test", "--probe", "notifiers,timing", NULL };

	p = (struct parent){};
	ASSERT_EQ(argp_parse(&parent_argp, 3, notif, ARGP_NO_EXIT, NULL, &p), 0, "notifiers");
	ASSERT_EQ(p.lo.probes, KW_PROBE_BIT(KW_P_NOTIFIER) | KW_PROBE_BIT(KW_P_NESTED_UNMAP) |
				       KW_PROBE_BIT(KW_P_MM_RELEASE), "three probes");
	ASSERT_EQ(p.lo.probes & ~kw_probes_timing, 0, "all of the timing set");
	ASSERT_EQ(p.lo.set, KW_SET_NOTIFIERS, "said so");
	ASSERT_EQ(p.lo.required, 0, "a set requires nothing");
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&parent_argp, 3, both, ARGP_NO_EXIT, NULL, &p), 0, "with timing");
	ASSERT_EQ(p.lo.set, KW_SET_TIMING, "the larger set named");
	ASSERT_EQ(p.lo.probes, kw_probes_timing, "the timing set");

	/* none: refused where nothing attached means nothing to show (top, serve, probes) */
	p = (struct parent){};
	ASSERT_EQ(argp_parse(&parent_argp, 3, none, ARGP_NO_EXIT | ARGP_NO_ERRS, NULL, &p), EINVAL,
		  "none: not for every command");
	p = (struct parent){ .lo.none_ok = true };
	ASSERT_EQ(argp_parse(&parent_argp, 3, none, ARGP_NO_EXIT, NULL, &p), 0, "none: record");
	ASSERT_EQ(p.lo.probes, 0, "no probe");
	ASSERT_EQ(p.lo.set, KW_SET_NONE, "the none set");
	p = (struct parent){ .lo.none_ok = true };
	ASSERT_EQ(argp_parse(&parent_argp, 2, empty, ARGP_NO_EXIT, NULL, &p), 0, "empty list");
	ASSERT_EQ(p.lo.set, KW_SET_NONE, "an empty list is none");
	p = (struct parent){ .lo.none_ok = true };
	ASSERT_EQ(argp_parse(&parent_argp, 5, pid, ARGP_NO_EXIT | ARGP_NO_ERRS, NULL, &p), EINVAL,
		  "none with --pid: nothing to filter");
}

void test_probe_opts(void)
{
	struct parent p = {};
	char pid[16], *none[] = { "kvmwalk test", NULL };
	char *all[] = { "kvmwalk test", "--attach", "kprobe", "--probe", "fast_page_fault,guest_fault",
			"--no-visits", "-v", "-x", "--pid", pid, NULL };

	ASSERT_EQ(argp_parse(&parent_argp, 1, none, ARGP_NO_EXIT, NULL, &p), 0, "no options");
	ASSERT_EQ(p.lo.attach, KW_ATTACH_AUTO, "default attach");
	ASSERT_EQ(p.lo.probes, KW_PROBES_ALL, "default: every probe");
	ASSERT_EQ(p.lo.required, 0, "none required");
	ASSERT_FALSE(p.lo.cheap, "not the cheap set");
	ASSERT_TRUE(p.lo.visits, "visits on");
	ASSERT_FALSE(p.lo.verbose, "quiet");
	ASSERT_EQ(p.lo.npids, 0, "every task");

	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(argp_parse(&parent_argp, 10, all, ARGP_NO_EXIT, NULL, &p), 0, "every option");
	ASSERT_EQ(p.lo.attach, KW_ATTACH_KPROBE, "--attach");
	ASSERT_EQ(p.lo.probes, KW_PROBE_BIT(KW_P_FAST_PF) | KW_PROBE_BIT(KW_P_GUEST_FAULT),
		  "--probe");
	ASSERT_EQ(p.lo.required, p.lo.probes, "--probe requires the names");
	ASSERT_FALSE(p.lo.visits, "--no-visits");
	ASSERT_TRUE(p.lo.verbose, "-v");
	ASSERT_EQ(p.lo.npids, 1, "--pid");
	ASSERT_EQ(p.lo.pids[0], getpid(), "--pid value");
	ASSERT_EQ(p.other, 1, "the parent's option");
	test_sets();
	test_timing_none();
	test_sample();
}
