// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: recordings are untrusted input (they travel between hosts and into patch
 * review threads), so the reader must turn any byte string into a clean error or a valid
 * recording, never a crash, a leak or undefined behaviour. A recording it accepts must survive
 * a write and a second read unchanged (the writer and reader agree). Its intervals must render
 * (report --timeline: text, CSV, SVG) whatever their t: zero or negative lengths, huge counts.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"
#include "timeline.h"

static void timeline(const struct kw_recording *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (!r->nintervals || !(f = open_memstream(&buf, &len)))
		return;
	kw_timeline_text(f, r, "fuzz.json");
	kw_timeline_csv(f, r);
	kw_timeline_svg(f, r, "fuzz.json");
	fclose(f);
	free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_recording r = {}, r2 = {};
	char err[256], *text, *out = NULL, *out2 = NULL;
	size_t len = 0, len2 = 0;
	FILE *f;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (kw_recording_parse(&r, text, err, sizeof(err)) == 0) {
		timeline(&r);
		f = open_memstream(&out, &len);
		if (f && kw_recording_write(&r, f) == 0) {
			fclose(f);
			f = NULL;
			if (kw_recording_parse(&r2, out, err, sizeof(err)))
				abort(); /* we wrote something we cannot read back */
			f = open_memstream(&out2, &len2);
			if (f && kw_recording_write(&r2, f) == 0) {
				fclose(f);
				f = NULL;
				if (len != len2 || memcmp(out, out2, len))
					abort(); /* a round trip changed the recording */
			}
		}
		if (f)
			fclose(f);
	}
	kw_recording_free(&r);
	kw_recording_free(&r2);
	free(out);
	free(out2);
	free(text);
	return 0;
}
