// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk probes`: how each probe attaches on this kernel, found by really attaching (loader.c)
 * and printed by plan_view.c's kw_plan_print(). A command, the top layer.
 */
#include <argp.h>
#include <stdio.h>

#include "commands.h"
#include "cmd_common.h"
#include "host.h"
#include "loader.h"
#include "probe_opts.h"
#include "plan_view.h"

static const struct argp_option probes_options[] = {
	{ .name = "json", .key = OPT_JSON, .doc = "print JSON" },
	{},
};

static const struct argp probes_argp = {
	.options = probes_options,
	.parser = cmd_parse_common,
	.children = kw_probe_children,
	.doc = "Shows how each probe attaches on this kernel: fentry, kprobe, tracepoint, or "
	       "unavailable with the reason (not in this kernel, not traceable, runs at EL2, "
	       "refused with an errno). The plan comes from really loading and attaching, then "
	       "detaching. The tracepoint fallbacks need tracefs: when /sys/kernel/tracing is not "
	       "mounted, kvmwalk uses debugfs's tracing/ if debugfs is mounted, else mounts tracefs "
	       "at /sys/kernel/tracing (as systemd does at boot); where it cannot (a container "
	       "without CAP_SYS_ADMIN), the reason says so and names the command that fixes it."
	       "\vExamples:\n"
	       "  kvmwalk probes\n"
	       "  kvmwalk probes --attach kprobe --json\n\n"
	       "Exit status: 0; 1 error (the output cannot be written: said on stderr); 2 usage; "
	       KW_EXIT_STATUS_PROBES,
};

int probes_main(int argc, char **argv)
{
	struct cmd_common c = {};
	struct loader *l;
	int code;

	argp_parse(&probes_argp, argc, argv, ARGP_IN_ORDER, NULL, &c);
	if (cmd_args_only())
		return 0;
	l = loader__open(&c.lo, &code);
	if (!l)
		return code;
	/* a failed write is said by main(), which flushes stdout and checks it */
	code = kw_plan_print(stdout, loader__get_plan(l), kw_host_arch(), c.json);
	code = code ? KW_EXIT_ERROR : 0;
	loader__destroy(l);
	return code;
}
