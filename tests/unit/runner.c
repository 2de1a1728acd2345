// SPDX-License-Identifier: GPL-2.0
/*
 * Usage: runner [-v] [NAME...]
 * Runs every test (or those named: NAME is test_NAME.c's), prints one line per test and ends with
 * `N passed, N failed`; a NAME that is no test is an error (exit 2), not a run of nothing.
 * -v prints the passing assertions too. KW_UPDATE_GOLDEN=1 rewrites golden files instead of
 * comparing them. Run from tests/unit (golden/ and fixtures/ are relative paths).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "test.h"

#define DEFINE_TEST(name) void test_##name(void);
#include "tests.h"
#undef DEFINE_TEST

static const struct {
	const char *name;
	void (*fn)(void);
} tests[] = {
#define DEFINE_TEST(name) { #name, test_##name },
#include "tests.h"
#undef DEFINE_TEST
};

int kw_test_failures;
static int verbose;

bool kw_test_report(bool ok, const char *file, int line, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (ok && !verbose)
		return true;
	printf("  %s:%d: %s: %s: ", file, line, ok ? "ok" : "FAIL", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (!ok)
		kw_test_failures++;
	return ok;
}

/* The length of the line that starts at @s, without its newline, within @end. */
static int line_len(const char *s, const char *end)
{
	const char *nl = memchr(s, '\n', end - s);

	return (nl ? nl : end) - s;
}

/* Says where @buf first differs from the golden @want: the line, its number, both versions. */
static void golden_diff(const char *buf, size_t len, const char *want, size_t wlen,
			const char *path, const char *file, int line, const char *golden)
{
	size_t i = 0, start = 0;
	int lineno = 1;

	for (; i < len && i < wlen && want[i] == buf[i]; i++) {
		if (buf[i] == '\n') {
			lineno++;
			start = i + 1;
		}
	}
	kw_test_report(false, file, line, golden,
		       "output differs from %s at line %d (got %zu bytes, want %zu):\n"
		       "    got:  %.*s%s\n    want: %.*s%s\ngot:\n%.*s",
		       path, lineno, len, wlen, line_len(buf + start, buf + len), buf + start,
		       start < len ? "" : "(end of output)", line_len(want + start, want + wlen),
		       want + start, start < wlen ? "" : "(end of file)", (int)len, buf);
}

bool kw_test_fits(const char *buf, size_t width)
{
	for (const char *p = buf; *p;) {
		size_t n = strcspn(p, "\n");

		if (n > width)
			return false;
		p += n + (p[n] == '\n');
	}
	return true;
}

char *kw_test_print(const struct kw_recording *r, kw_test_printer fn, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	int err;

	if (!f)
		return NULL;
	err = fn(f, r);
	fclose(f);
	if (err) {
		free(buf);
		return NULL;
	}
	return buf;
}

bool kw_test_prints(const struct kw_recording *r, kw_test_printer fn, const char *golden,
		    size_t width, const char *file, int line)
{
	size_t len = 0;
	char *buf = kw_test_print(r, fn, &len);
	bool ok = kw_test_report(buf != NULL, file, line, golden, "the printer failed");

	ok = ok && kw_test_golden(buf, len, golden, file, line);
	if (ok && width)
		ok = kw_test_report(kw_test_fits(buf, width), file, line, golden,
				    "a line wider than %zu columns", width);
	free(buf);
	return ok;
}

bool kw_test_golden(const char *buf, size_t len, const char *golden, const char *file, int line)
{
	char path[512], *want = NULL;
	size_t wlen = 0;
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "golden/%s", golden);
	if (getenv("KW_UPDATE_GOLDEN")) {
		f = fopen(path, "w");
		ok = f && fwrite(buf, 1, len, f) == len;
		if (f)
			fclose(f);
		return kw_test_report(ok, file, line, golden, "rewrote %s", path);
	}
	f = fopen(path, "r");
	if (f) {
		want = malloc(1 << 20);
		wlen = fread(want, 1, 1 << 20, f);
		fclose(f);
	}
	ok = want && wlen == len && !memcmp(want, buf, len);
	if (!ok && !want)
		kw_test_report(false, file, line, golden, "cannot read %s; got:\n%.*s", path,
			       (int)len, buf);
	else if (!ok)
		golden_diff(buf, len, want, wlen, path, file, line, golden);
	free(want);
	return ok;
}

int main(int argc, char **argv)
{
	int passed = 0, failed = 0;
	size_t i;
	int a;

	if (argc > 1 && !strcmp(argv[1], "-v")) {
		verbose = 1;
		argc--;
		argv++;
	}
	for (a = 1; a < argc; a++) {
		for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++)
			if (!strcmp(argv[a], tests[i].name))
				break;
		if (i == sizeof(tests) / sizeof(tests[0])) {
			fprintf(stderr, "runner: no test '%s' (tests/unit/test_%s.c)\n", argv[a], argv[a]);
			return 2;
		}
	}
	for (i = 0; i < sizeof(tests) / sizeof(tests[0]); i++) {
		int before = kw_test_failures;
		int selected = argc < 2;

		for (a = 1; a < argc; a++)
			selected |= !strcmp(argv[a], tests[i].name);
		if (!selected)
			continue;
		tests[i].fn();
		if (kw_test_failures == before) {
			printf("PASS %s\n", tests[i].name);
			passed++;
		} else {
			printf("FAIL %s\n", tests[i].name);
			failed++;
		}
	}
	printf("%d passed, %d failed\n", passed, failed);
	return failed ? 1 : 0;
}
