// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: helpers. Numbers and units for the views (report, findings, timeline, top, compare,
 * userfn's report section, the plots): one place, so that a time, a count or a size reads the
 * same everywhere. The rules (fmt.h): times in ns/us/ms/s, counts with thousands separators and
 * decimal prefixes (M, G, T, ...), sizes in bytes with binary prefixes (KiB, MiB, ...); never a
 * decimal prefix on bytes, never a binary one on a count, never a count's prefix on a time.
 */
#include <math.h>
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
const char *kw_fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 999.5)
		snprintf(buf, len, "%.0fns", ns);
	else if (ns < 999.5e3)
		fmt3(buf, len, ns / 1e3, "us");
	else if (ns < 999.5e6)
		fmt3(buf, len, ns / 1e6, "ms");
	else
		fmt3(buf, len, ns / 1e9, "s");
	return buf;
}

/* The digits of @digits ("1234567.50") into @buf with a comma every three before the point. */
static void group(char *buf, size_t len, const char *digits)
{
	const char *dot = strchr(digits, '.');
	size_t n = dot ? (size_t)(dot - digits) : strlen(digits), o = 0;
	size_t lead = n % 3 ? n % 3 : 3;

	for (size_t i = 0; digits[i] && o + 2 < len; i++) {
		if (i < n && i >= lead && (i - lead) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	if (len)
		buf[o < len ? o : len - 1] = 0;
}

static bool whole(double v)
{
	return fabs(v - round(v)) < 0.005;
}

const char *kw_fmt_count(char *buf, size_t len, double n)
{
	static const char sfx[] = "MGTPEZ";
	char digits[48];
	int i = 0;

	if (isnan(n)) {
		snprintf(buf, len, "-");
		return buf;
	}
	if (n < 0) {
		if (len > 1) {
			buf[0] = '-';
			kw_fmt_count(buf + 1, len - 1, -n);
		}
		return buf;
	}
	if (n > 0 && n < 0.005) {
		snprintf(buf, len, "<0.01");
		return buf;
	}
	if (n < 999999.5) {
		if (whole(n) || n >= 99.95)
			snprintf(digits, sizeof(digits), "%.0f", n);
		else
			snprintf(digits, sizeof(digits), "%.*f", n < 9.995 ? 2 : 1, n);
		group(buf, len, digits);
		return buf;
	}
	n /= 1e6;
	while (n >= 999.5 && i < 5) {
		n /= 1e3;
		i++;
	}
	fmt3(buf, len, n, (char[2]){ sfx[i] });
	return buf;
}

const char *kw_fmt_count_exact(char *buf, size_t len, double n)
{
	char digits[64];

	snprintf(digits, sizeof(digits), whole(n) ? "%.0f" : "%.2f", fabs(n));
	if (n < 0 && len > 1) {
		buf[0] = '-';
		group(buf + 1, len - 1, digits);
	} else {
		group(buf, len, digits);
	}
	return buf;
}

const char *kw_fmt_seconds_exact(char *buf, size_t len, __u64 ns)
{
	char frac[16];
	int n;

	n = snprintf(frac, sizeof(frac), "%09llu", (unsigned long long)(ns % 1000000000ULL));
	while (n > 0 && frac[n - 1] == '0')
		frac[--n] = '\0';
	snprintf(buf, len, "%llu%s%s", (unsigned long long)(ns / 1000000000ULL), n ? "." : "",
		 frac);
	return buf;
}

const char *kw_fmt_bytes(char *buf, size_t len, double v)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	int u = 0;

	/* the unit from the rounded value: 1023.9 KiB is "1.00MiB", not "1024KiB" */
	while (v >= 1023.5 && u < 6) {
		v /= 1024;
		u++;
	}
	if (!u)
		snprintf(buf, len, "%.0fB", v);
	else
		fmt3(buf, len, v, units[u]);
	return buf;
}

const char *kw_fmt(char *buf, size_t len, double v, enum kw_unit u)
{
	switch (u) {
	case KW_UNIT_NS:
		return kw_fmt_ns(buf, len, v);
	case KW_UNIT_BYTES:
		return kw_fmt_bytes(buf, len, v);
	default:
		return kw_fmt_count(buf, len, v);
	}
}

const char *kw_fmt_tick(char *buf, size_t len, double v, enum kw_unit u)
{
	char *dot, *end;
	size_t k;

	kw_fmt(buf, len, v, u);
	dot = strchr(buf, '.');
	if (!dot)
		return buf;
	/* the zeros after the point, and the point if nothing is left of it: "2.50" -> "2.5" */
	end = dot + 1 + strspn(dot + 1, "0123456789");
	k = end - dot;
	while (k > 1 && dot[k - 1] == '0')
		k--;
	if (k == 1)
		k = 0;
	memmove(dot + k, end, strlen(end) + 1);
	return buf;
}

void kw_fmt_wrap_width(FILE *f, int last, int indent, int col, const char *text)
{
	const int width = last - indent;

	while (*text) {
		int n = strcspn(text, " ");

		if (col > indent && col + n + 1 > last) {
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

void kw_fmt_wrap(FILE *f, int indent, int col, const char *text)
{
	kw_fmt_wrap_width(f, 78, indent, col, text);
}
