// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: helpers. Numbers and units for the views (report, findings, timeline, top, compare,
 * userfn's report section): one place, so that a time or a size reads the same everywhere.
 */
#include <stdio.h>
#include <string.h>

#include "fmt.h"

double kw_ratio(double a, double b)
{
	return b ? a / b : 0;
}

/* @v in @unit with 3 significant digits; the precision is chosen from the rounded value */
static void fmt3(char *buf, size_t len, double v, const char *unit)
{
	snprintf(buf, len, "%.*f%s", v < 9.995 ? 2 : v < 99.95 ? 1 : 0, v, unit);
}

/*
 * At most 6 characters up to 99999 s (report's columns rely on it). The thresholds are those of
 * the rounded value: 9.996 ms printed with 2 decimals would be "10.00ms", one too wide.
 */
void kw_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 999.5)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 999.5e3)
		fmt3(buf, len, ns / 1e3, "us");
	else if (ns < 999.5e6)
		fmt3(buf, len, ns / 1e6, "ms");
	else
		fmt3(buf, len, ns / 1e9, "s");
}

void kw_fmt_count(char *buf, size_t len, double n)
{
	if (n < 1e6)
		snprintf(buf, len, "%.0f", n);
	else if (n < 1e9)
		snprintf(buf, len, "%.2fM", n / 1e6);
	else if (n < 1e12)
		snprintf(buf, len, "%.2fG", n / 1e9);
	else
		snprintf(buf, len, "%.2fT", n / 1e12);
}

void kw_fmt_bytes(char *buf, size_t len, __u64 v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double d = v;
	int u = 0;

	while (d >= 1024 && u < 6) {
		d /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%lluB", (unsigned long long)v);
	else
		snprintf(buf, len, "%.*f%s", d < 10 ? 2 : d < 100 ? 1 : 0, d, units[u]);
}

void kw_fmt_wrap(FILE *f, int indent, int col, const char *text)
{
	const int width = 78 - indent;

	while (*text) {
		int n = strcspn(text, " ");

		if (col > indent && col + n + 1 > 78) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		}
		if (n > width)
			n = width;
		col += fprintf(f, "%s%.*s", col > indent ? " " : "", n, text);
		text += n;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}
