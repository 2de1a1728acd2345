// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: `kvmwalk compare` of untrusted recordings. The input is two recordings, the
 * base and the new one, separated by a NUL byte (JSON text holds none); without one, the
 * recording is compared with itself. Whatever the reader accepts must compare, one run against
 * one and two against two, and print as text, markdown and JSON and plot as SVG without a crash,
 * a leak or undefined behaviour: sides with nothing in common, zero or huge values, probes of the
 * other arch.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "record.h"

static void compare(const struct kw_recording *base, size_t nb, const struct kw_recording *new,
		    size_t nn)
{
	static const char *const paths[2] = { "a.json", "b.json" };
	struct kw_compare_opts o = { .level = 0.95,
				     .method = KW_CI_HODGES_LEHMANN,
				     .base_paths = paths,
				     .new_paths = paths };
	struct kw_compare c = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (kw_compare_build(&c, base, nb, new, nn, &o)) {
		kw_compare_free(&c);
		return;
	}
	f = open_memstream(&buf, &len);
	if (f) {
		kw_compare_print(f, &c, KW_COMPARE_TEXT);
		kw_compare_print(f, &c, KW_COMPARE_MARKDOWN);
		kw_compare_print(f, &c, KW_COMPARE_JSON);
		kw_compare_plot(f, base, nb, new, nn, NULL);
		fclose(f);
	}
	free(buf);
	kw_compare_free(&c);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_recording r[2] = {}, two[2][2];
	char err[256], *text = malloc(size + 2), *second;
	bool ok[2];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = text[size + 1] = '\0';
	second = memchr(text, '\0', size);
	second = second ? second + 1 : text;
	ok[0] = !kw_recording_parse(&r[0], text, err, sizeof(err));
	ok[1] = ok[0] && !kw_recording_parse(&r[1], second, err, sizeof(err));
	/* compare refuses recordings of two arches before it builds anything (exit 10) */
	if (ok[0] && ok[1] && !strcmp(r[0].meta.arch, r[1].meta.arch)) {
		compare(&r[0], 1, &r[1], 1);
		two[0][0] = two[1][1] = r[0];
		two[0][1] = two[1][0] = r[1];
		compare(two[0], 2, two[1], 2);
	}
	kw_recording_free(&r[0]);
	kw_recording_free(&r[1]);
	free(text);
	return 0;
}
