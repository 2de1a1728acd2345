// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `kvmwalk report` of an untrusted recording. Whatever the reader accepts
 * (recording.c checks it against docs/recording-format.md) must print as text and as --json, and
 * as the report of several runs (runs.h: what recording cost the command), without a crash, a
 * leak or undefined behaviour: huge counts, zero durations, probes of the other arch, empty
 * histograms, intervals of any t.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "report.h"
#include "runs.h"

static void report(const struct kw_recording *r)
{
	const char *paths[2] = { "a.json", "b.json" };
	struct kw_recording two[2];
	struct kw_cost c = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return;
	kw_report_text(f, r, "fuzz.json");
	kw_report_json(f, r);
	/* report A B: the same recording twice, as two runs of one command */
	two[0] = *r;
	two[1] = *r;
	if (!kw_cost_build(&c, two, 2, 0.95, KW_CI_HODGES_LEHMANN)) {
		kw_cost_print(f, &c, paths);
		kw_cost_json(f, &c, two, paths);
	}
	kw_cost_free(&c);
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_recording r = {};
	char err[256], *text = malloc(size + 1);

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (kw_recording_parse(&r, text, err, sizeof(err)) == 0)
		report(&r);
	else if (!err[0] || strchr(err, '\n'))
		abort(); /* an error is one line that says something */
	kw_recording_free(&r);
	free(text);
	return 0;
}
