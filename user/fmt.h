/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers, under the recording model and the views. Numbers and units as every view
 * writes them: times, counts and sizes in a few columns, and the ratio that is 0 when there is
 * nothing to divide by. Pure functions.
 */
#ifndef KW_FMT_H
#define KW_FMT_H

#include <stddef.h>
#include <stdio.h>

#include <linux/types.h>

/* a / b, 0 when b is 0. */
double kw_ratio(double a, double b);

/* Human-readable duration in at most 7 columns: "950ns", "12.3us", "1.20ms", "3.40s". */
void kw_fmt_ns(char *buf, size_t len, double ns);
/* Count in at most 7 columns: exact below a million, then with an M, G or T suffix. */
void kw_fmt_count(char *buf, size_t len, double n);
/* Binary units without a space, as kw_fmt_ns writes times (so they never wrap): "1.00GiB". */
void kw_fmt_bytes(char *buf, size_t len, __u64 v);

/*
 * Words of text, the cursor at column col, continued lines at column indent, wrapped before
 * column 79 (a word longer than a line is cut), then a newline.
 */
void kw_fmt_wrap(FILE *f, int indent, int col, const char *text);

#endif /* KW_FMT_H */
