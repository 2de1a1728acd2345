// SPDX-License-Identifier: GPL-2.0
/*
 * What the commands probes, record and top share (cmd_common.h): their options and the signals
 * that end a recording or a top. Part of the commands, the top layer.
 */
#include <argp.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "clock.h"
#include "cmd_common.h"
#include "commands.h"
#include "outfile.h"
#include "userfn.h"

volatile sig_atomic_t cmd_got_signal;

static void on_signal(int sig)
{
	cmd_got_signal = sig;
}

void cmd_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };

	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* A closed terminal or ssh session ends a recording as cleanly as Ctrl-C. */
	sigaction(SIGHUP, &sa, NULL);
}

bool cmd_args_only(void)
{
	if (!getenv("KVMWALK_TEST_ARGS_ONLY"))
		return false;
	fprintf(stderr, "kvmwalk: test knob KVMWALK_TEST_ARGS_ONLY: the arguments are good; "
			"nothing run\n");
	return true;
}

double cmd_parse_secs(const char *arg, struct argp_state *state, const char *what, double min,
		      double max, bool zero_off)
{
	double v = 0;

	if (zero_off && !strcmp(arg, "0"))
		return 0;
	if (kw_secs_parse(arg, min, max, &v))
		argp_error(state, "%s must be %sa number of seconds from %g to %.0f, not '%s'", what,
			   zero_off ? "0 (none) or " : "", min, max, arg);
	return v;
}

/*
 * record -o: a file that cannot be written is found now, before anything is attached, not after
 * the recording. The directory stays open for the write at the end (outfile.h).
 */
static void check_output(struct cmd_common *c, struct argp_state *state)
{
	char old[sizeof(c->of.base) + 4];
	struct stat st;
	int err = kw_outfile_open(&c->of, c->out);

	if (err == -EINVAL || err == -ENAMETOOLONG)
		argp_error(state, "-o %s names no file%s", c->out,
			   err == -ENAMETOOLONG ? " (the name is too long)" : "");
	if (err)
		argp_error(state, "-o %s: cannot create files in %s: %s", c->out, c->of.dir,
			   strerror(-err));
	if (!fstatat(c->of.dirfd, c->of.base, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		argp_error(state, "-o %s is a directory", c->out);
	snprintf(old, sizeof(old), "%s.old", c->of.base);
	if (!fstatat(c->of.dirfd, old, &st, AT_SYMLINK_NOFOLLOW) && S_ISDIR(st.st_mode))
		argp_error(state, "-o %s: %s.old (for the previous recording) is a directory",
			   c->out, c->out);
}

error_t cmd_parse_common(int key, char *arg, struct argp_state *state)
{
	struct cmd_common *c = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &c->lo;
		break;
	case OPT_JSON:
		c->json = true;
		break;
	case 'o':
		c->out = arg;
		break;
	case 'd':
		c->duration = cmd_parse_secs(arg, state, "--duration", 0.001, 31 * 86400, false);
		break;
	case 'i':
	case OPT_INTERVAL:
		c->interval = cmd_parse_secs(arg, state, "--interval", 0.01, 86400, false);
		break;
	case OPT_ONCE:
		c->once = true;
		break;
	case OPT_COUNT:
	case OPT_TIME:
	case OPT_COUNT_OPT:
	case OPT_TIME_OPT: {
		char err[160];

		if (kw_ufunc_parse(arg, key == OPT_TIME || key == OPT_TIME_OPT,
				   key == OPT_COUNT_OPT || key == OPT_TIME_OPT, c->lo.ufuncs,
				   &c->lo.nufuncs, err, sizeof(err)))
			argp_error(state, "%s", err);
		break;
	}
	case OPT_KVM_STATS:
		if (kw_kvmstats_mode_parse(arg, &c->kvm_stats))
			argp_error(state, "--kvm-stats is auto, debugfs, binary or off, not '%s'", arg);
		break;
	case ARGP_KEY_ARG:
		if (!c->takes_cmd)
			argp_error(state, "takes no arguments, not '%s'", arg);
		/*
		 * record: everything after -- is the command; a free word before it is no command
		 * but a mistake, such as --pid $(pidof qemu) with two QEMUs ("--pid 4242 4243"),
		 * which once ran 4243 as the command and gave it the options after it.
		 */
		if (!state->quoted || state->next - 1 < state->quoted)
			argp_error(state,
				   "'%s' is not an option's value, and the command to record goes "
				   "after -- (kvmwalk record [OPTION...] -- CMD [ARG...]); several "
				   "process ids are one --pid: --pid 4242,4243 or --pid \"$(pidof "
				   "qemu-system-x86_64)\"",
				   arg);
		c->cmd = &state->argv[state->next - 1];
		c->ncmd = state->argc - state->next + 1;
		state->next = state->argc;
		break;
	case ARGP_KEY_END:
		if (c->out && strcmp(c->out, "-"))
			check_output(c, state);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

