/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers, under the recording model and the views. Numbers and units as every view
 * writes them: times, counts and sizes in a few columns, and the ratio that is 0 when there is
 * nothing to divide by. Pure functions.
 */
#ifndef KW_FMT_H
#define KW_FMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include <linux/types.h>

/* a / b, 0 when b is 0. */
double kw_ratio(double a, double b);

/*
 * The units of the human-readable numbers, one format each (every view, text and SVG):
 *   KW_UNIT_NS     a time in ns: "950ns", "12.3us", "1.20ms", "3.40s" (3 significant digits);
 *   KW_UNIT_COUNT  a count, or a count per something (a mean, a ratio): all digits with
 *                  thousands separators below a million ("524,290", "0.50", "12.5"), then 3
 *                  significant digits with a decimal prefix ("1.05M", "17.2G", "137T");
 *   KW_UNIT_BYTES  a size in bytes: "512B", then 3 significant digits with a binary prefix
 *                  ("4.00KiB", "2.00MiB", "513TiB").
 * A count never has a binary prefix nor a size a decimal one. Each writes at most 7
 * characters for values up to 999 of its largest prefix (report's and compare's columns rely
 * on it), 8 for a negative count.
 */
enum kw_unit {
	KW_UNIT_COUNT,
	KW_UNIT_NS,
	KW_UNIT_BYTES,
};

/* v in unit u, as above. Each of these returns buf. */
const char *kw_fmt(char *buf, size_t len, double v, enum kw_unit u);
/* An axis tick's round value: as kw_fmt() without trailing zeros ("2.5", "1ms", "1GiB"). */
const char *kw_fmt_tick(char *buf, size_t len, double v, enum kw_unit u);

/* kw_fmt() of each unit. */
const char *kw_fmt_ns(char *buf, size_t len, double ns);
const char *kw_fmt_count(char *buf, size_t len, double n);
const char *kw_fmt_bytes(char *buf, size_t len, double bytes);
/*
 * A count in full, for a line that proves a number rather than a table cell: every digit with
 * thousands separators, 2 decimals when it is not whole ("1,048,576", "262,143.50").
 */
const char *kw_fmt_count_exact(char *buf, size_t len, double n);

/*
 * ns as exact decimal seconds, for machines (Prometheus's base unit): 1023 -> "0.000001023",
 * 2000000000 -> "2".
 */
const char *kw_fmt_seconds_exact(char *buf, size_t len, __u64 ns);

/* The same as printf arguments, each in a buffer of its own that lives to the end of the block. */
#define KW_FMT_LEN 32
#define KW_COUNT(n) kw_fmt_count((char[KW_FMT_LEN]){ 0 }, KW_FMT_LEN, (n))
#define KW_EXACT(n) kw_fmt_count_exact((char[KW_FMT_LEN]){ 0 }, KW_FMT_LEN, (n))
#define KW_BYTES(n) kw_fmt_bytes((char[KW_FMT_LEN]){ 0 }, KW_FMT_LEN, (n))
#define KW_NS(n) kw_fmt_ns((char[KW_FMT_LEN]){ 0 }, KW_FMT_LEN, (n))

/*
 * Words of text, the cursor at column col, continued lines at column indent, no line longer
 * than last columns (a word longer than a line is cut), then a newline.
 */
void kw_fmt_wrap_width(FILE *f, int last, int indent, int col, const char *text);
/* The same, lines of at most 78 columns: report's width. */
void kw_fmt_wrap(FILE *f, int indent, int col, const char *text);

#endif /* KW_FMT_H */
