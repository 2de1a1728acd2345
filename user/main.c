// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk: dispatch to the commands, one file each (probes_cmd.c, record_cmd.c, report_cmd.c,
 * top_cmd.c, serve.c, compare_cmd.c), which parse their own options; and what every command
 * shares: the exit status of a usage error and --version. The top layer, with the commands.
 */
#include <argp.h>
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd_common.h"
#include "commands.h"
#include "loader.h"
#include "version.h"

/* --version of kvmwalk and of each command: the version and the commit it was built from */
const char *argp_program_version = "kvmwalk " KW_VERSION " (git " KW_COMMIT ")";

static const struct {
	const char *name;
	int (*fn)(int, char **);
	const char *what;
} cmds[] = {
	{ "probes", probes_main, "what can be attached on this kernel, and how" },
	{ "record", record_main, "record for a time, until Ctrl-C, or around a command" },
	{ "report", report_main, "print a recording (text <= 80 columns, or --json)" },
	{ "top", top_main, "live per-function rates and latencies" },
	{ "serve", serve_main, "Prometheus exporter (HTTP on loopback, or a textfile)" },
	{ "compare", compare_main, "before/after report of recordings, for patch reviews" },
};

/*
 * The edit distance of a and b, a swap of two neighbours counting one ("recrod"): Damerau's
 * optimal string alignment, on names of at most 31 characters.
 */
static int distance(const char *a, const char *b)
{
	int la = strlen(a), lb = strlen(b), d[32][32];

	if (la > 31 || lb > 31)
		return 99;
	for (int i = 0; i <= la; i++)
		d[i][0] = i;
	for (int j = 0; j <= lb; j++)
		d[0][j] = j;
	for (int i = 1; i <= la; i++)
		for (int j = 1; j <= lb; j++) {
			int v = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	return d[la][lb];
}

/*
 * The command a mistyped name was meant to be: within 2 edits (1 for names of 4 letters or
 * fewer), else the one command it begins ("prob"), or NULL.
 */
static const char *closest_command(const char *name)
{
	const char *best = NULL, *prefix_of = NULL;
	int bd = 99, nprefix = 0;

	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		int d = distance(name, cmds[i].name);

		if (d < bd)
			bd = d, best = cmds[i].name;
		if (strlen(name) >= 2 && !strncmp(cmds[i].name, name, strlen(name)))
			nprefix++, prefix_of = cmds[i].name;
	}
	if (bd <= (strlen(name) <= 4 ? 1 : 2))
		return best;
	return nprefix == 1 ? prefix_of : NULL;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: kvmwalk COMMAND [OPTIONS]\n\n"
		   "Measures what KVM's page-table walkers cost on this host.\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].what);
	fprintf(f, "\nOptions:\n  -h, --help     this list\n"
		   "  -V, --version  the version and the git commit kvmwalk was built from\n"
		   "\n`kvmwalk COMMAND --help` is the manual of each command.\n");
}

/*
 * What a command wrote to stdout reached it: a full disk (`kvmwalk report x > /dev/full`) or
 * an I/O error is a message and a non-zero exit, never a silent success. The
 * stdio buffer is flushed here, so a failure the command could not see (its last block) is
 * caught too. A stdout that was closed before kvmwalk started and was never written to is no
 * error (EBADF with nothing pending), as coreutils' close_stdout() has it.
 * A reader that went away (EPIPE: `kvmwalk top | head`) took what it wanted: no error, as a
 * pipeline's writer killed by SIGPIPE would say nothing either.
 */
static bool stdout_closed;

static int close_stdout(int ret)
{
	bool failed = ferror(stdout), pending = __fpending(stdout);
	/* the failed write's own errno, when a flush now has nothing left to fail on */
	int err = 0, last = errno;

	stdout_closed = true;
	errno = 0;
	if (fflush(stdout))
		err = errno, failed = true;
	if (fclose(stdout) && !(errno == EBADF && !pending && !failed))
		err = err ?: errno, failed = true;
	if (!failed || err == EPIPE || (!err && last == EPIPE))
		return ret;
	if (!err && (last == ENOSPC || last == EDQUOT || last == EFBIG || last == EIO ||
		     last == EBADF))
		err = last;
	fprintf(stderr, "kvmwalk: cannot write to standard output: %s\n",
		err ? strerror(err) : "write error");
	return ret ?: KW_EXIT_ERROR;
}

/* The exits that do not return through main(): argp's --help, --version and usage errors. */
static void close_stdout_at_exit(void)
{
	if (!stdout_closed && close_stdout(0))
		_exit(KW_EXIT_ERROR);
}

int main(int argc, char **argv)
{
	argp_err_exit_status = KW_EXIT_USAGE;
	atexit(close_stdout_at_exit);
	if (argc < 2) {
		usage(stderr);
		return KW_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return close_stdout(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("%s\n", argp_program_version);
		return close_stdout(0);
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strcmp(argv[1], cmds[i].name))
			continue;
		argv[1] = (char[32]){};
		snprintf(argv[1], 32, "kvmwalk %s", cmds[i].name);
		return close_stdout(cmds[i].fn(argc - 1, argv + 1));
	}
	{
		const char *near = closest_command(argv[1]);

		if (near)
			fprintf(stderr, "kvmwalk: unknown command '%s'; did you mean '%s'?\n",
				argv[1], near);
		else
			fprintf(stderr, "kvmwalk: unknown command '%s'\n", argv[1]);
	}
	usage(stderr);
	return KW_EXIT_USAGE;
}
