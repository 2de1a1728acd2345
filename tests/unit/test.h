/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny test runner in the style of the kernel's test_progs: tests/unit/test_NAME.c defines
 * `void test_NAME(void)`; assertions return bool so a test can bail out with
 * `if (!ASSERT_EQ(a, b, "what")) goto out;`. A test fails if any assertion in it failed.
 */
#ifndef KW_TEST_H
#define KW_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

extern int kw_test_failures;
bool kw_test_report(bool ok, const char *file, int line, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

#define ASSERT_TRUE(cond, what) kw_test_report(!!(cond), __FILE__, __LINE__, what, "%s", #cond)
#define ASSERT_FALSE(cond, what) kw_test_report(!(cond), __FILE__, __LINE__, what, "!(%s)", #cond)
/*
 * As test_progs: each side is evaluated once and keeps its own type (typeof), so the comparison
 * is C's (a u64 above LLONG_MAX is not cut down to a long long); only the message casts. A plain
 * integer constant as the expected value of an unsigned field is the common case, hence
 * -Wsign-compare off for that one comparison.
 */
#define ASSERT_EQ(a, b, what)                                                                      \
	({                                                                                         \
		typeof(a) ___a = (a);                                                              \
		typeof(b) ___b = (b);                                                              \
		bool ___ok;                                                                        \
                                                                                                   \
		_Pragma("GCC diagnostic push");                                                    \
		_Pragma("GCC diagnostic ignored \"-Wsign-compare\"");                              \
		___ok = ___a == ___b;                                                              \
		_Pragma("GCC diagnostic pop");                                                     \
		kw_test_report(___ok, __FILE__, __LINE__, what, "%s = %lld, want %lld", #a,        \
			       (long long)___a, (long long)___b);                                  \
	})
#define ASSERT_NEAR(a, b, eps, what)                                                               \
	({                                                                                         \
		double __a = (a), __b = (b);                                                       \
		kw_test_report(__a - __b <= (eps) && __b - __a <= (eps), __FILE__, __LINE__, what, \
			       "%s = %g, want %g +- %g", #a, __a, __b, (double)(eps));             \
	})
#define ASSERT_STREQ(a, b, what)                                                                   \
	({                                                                                         \
		const char *__a = (a), *__b = (b);                                                 \
		kw_test_report(__a && __b && !strcmp(__a, __b), __FILE__, __LINE__, what,          \
			       "%s = \"%s\", want \"%s\"", #a, __a ? __a : "(null)",               \
			       __b ? __b : "(null)");                                              \
	})

/* Every line of the NUL-terminated text is at most @width columns (bytes). */
bool kw_test_fits(const char *buf, size_t width);

/* Compares a buffer byte for byte with a golden file under tests/unit/golden/. */
bool kw_test_golden(const char *buf, size_t len, const char *golden, const char *file, int line);
#define ASSERT_GOLDEN(buf, len, golden) kw_test_golden(buf, len, golden, __FILE__, __LINE__)

/* ---- what several tests share -------------------------------------------------------------- */

struct kw_recording;
struct kw_compare;
struct kw_compare_row;

/* A printer of a recording (report, timeline, top, ...): 0 or -errno. */
typedef int (*kw_test_printer)(FILE *f, const struct kw_recording *r);

/* fn's output of r, NUL-terminated, into a malloc()ed buffer (*len its length); NULL if fn failed. */
char *kw_test_print(const struct kw_recording *r, kw_test_printer fn, size_t *len);

/* fn's output of r is golden/NAME byte for byte and fits width columns (0: any width). */
bool kw_test_prints(const struct kw_recording *r, kw_test_printer fn, const char *golden,
		    size_t width, const char *file, int line);
#define ASSERT_PRINTS(r, fn, golden, width) kw_test_prints(r, fn, golden, width, __FILE__, __LINE__)

/* A small arm64 recording with every section filled (test_record.c). */
void kw_test_recording_fixture(struct kw_recording *r);

/* compare's row of group g and metric m, NULL if none (test_compare.c). */
const struct kw_compare_row *kw_test_row_of(const struct kw_compare *c, const char *g,
					    const char *m);
/* Frees n recordings of one side (test_compare.c). */
void kw_test_free_side(struct kw_recording *r, size_t n);

#endif
