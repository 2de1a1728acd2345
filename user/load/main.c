// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load: argument parsing and dispatch; see opts.c for --help, scenario.c for the work. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>

#include "load/load.h"

static int write_json(const struct load_results *r, const char *path)
{
	FILE *f;

	if (!strcmp(path, "-")) {
		results_json(r, stdout);
		return fflush(stdout) ? -errno : 0;
	}
	f = fopen(path, "w");
	if (!f)
		return load_fail(EXIT_ERROR, "cannot write %s: %s", path, strerror(errno));
	results_json(r, f);
	if (fclose(f))
		return load_fail(EXIT_ERROR, "writing %s: %s", path, strerror(errno));
	return 0;
}

int main(int argc, char **argv)
{
	struct load_results r;
	struct load_opts o;
	struct utsname u;
	int sc, err = 0;

	if (load_opts_parse(argc, argv, &o, 0))
		return EXIT_USAGE;
	/* test knob, as kvmwalk's (user/cmd_common.h): every --help example run as written */
	if (getenv("KVMWALK_TEST_ARGS_ONLY")) {
		fprintf(stderr, "kvmwalk-load: test knob KVMWALK_TEST_ARGS_ONLY: the arguments are "
				"good; nothing run\n");
		return 0;
	}
	results_init(&r, &o);
	if (!uname(&u))
		snprintf(r.kernel, sizeof(r.kernel), "%s", u.release);

	for (sc = 0; sc < SC_NR && !err; sc++)
		if (o.scenario == sc || (o.scenario == SC_ALL && scenario_in_all(sc)))
			err = scenario_run(sc, &o, &r);
	/* A count mismatch lets a scenario finish; the run still fails. */
	if (load_exit_code) {
		r.status = load_exit_code;
		snprintf(r.error, sizeof(r.error), "%s", load_error);
	} else if (err) {
		r.status = EXIT_ERROR;
		snprintf(r.error, sizeof(r.error), "%s", strerror(-err));
	}
	if (!o.json || strcmp(o.json, "-"))
		results_text(&r, stdout);
	fflush(stdout);
	if (o.json && write_json(&r, o.json) && !r.status)
		r.status = EXIT_ERROR;
	results_free(&r);
	return r.status;
}
