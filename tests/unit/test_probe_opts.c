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

void test_probe_opts(void)
{
	struct parent p = {};
	char pid[16], *none[] = { "kvmwalk test", NULL };
	char *all[] = { "kvmwalk test", "--attach", "kprobe", "--probe", "fast_page_fault,guest_fault",
			"--no-visits", "-v", "-x", "--pid", pid, NULL };

	ASSERT_EQ(argp_parse(&parent_argp, 1, none, ARGP_NO_EXIT, NULL, &p), 0, "no options");
	ASSERT_EQ(p.lo.attach, KW_ATTACH_AUTO, "default attach");
	ASSERT_EQ(p.lo.probes, KW_PROBES_ALL, "default: every probe");
	ASSERT_FALSE(p.lo.probes_required, "none required");
	ASSERT_TRUE(p.lo.visits, "visits on");
	ASSERT_FALSE(p.lo.verbose, "quiet");
	ASSERT_EQ(p.lo.npids, 0, "every task");

	snprintf(pid, sizeof(pid), "%d", getpid());
	ASSERT_EQ(argp_parse(&parent_argp, 10, all, ARGP_NO_EXIT, NULL, &p), 0, "every option");
	ASSERT_EQ(p.lo.attach, KW_ATTACH_KPROBE, "--attach");
	ASSERT_EQ(p.lo.probes, KW_PROBE_BIT(KW_P_FAST_PF) | KW_PROBE_BIT(KW_P_GUEST_FAULT),
		  "--probe");
	ASSERT_TRUE(p.lo.probes_required, "--probe requires");
	ASSERT_FALSE(p.lo.visits, "--no-visits");
	ASSERT_TRUE(p.lo.verbose, "-v");
	ASSERT_EQ(p.lo.npids, 1, "--pid");
	ASSERT_EQ(p.lo.pids[0], getpid(), "--pid value");
	ASSERT_EQ(p.other, 1, "the parent's option");
}
