// SPDX-License-Identifier: GPL-2.0
/*
 * user/svg.c, and what every plot of kvmwalk must be to be read at a glance, checked on the SVG
 * text by kw_test_svg_problem() (test_compare.c and test_timeline.c run it on their plots):
 * every text inside the page, no two texts on each other, no text inside a plot area (where it
 * would cover the bars or steps), and a y axis for every plot area. Text is measured with the
 * font metrics the plots lay themselves out by (kw_svg_text_width()).
 */
#include <stdlib.h>

#include "svg.h"
#include "test.h"

struct box {
	double x0, y0, x1, y1;
	char text[96];
};

/* The value of attribute name in the tag that starts at tag (up to its '>'), or def. */
static double attr_num(const char *tag, const char *name, double def)
{
	char key[32];
	const char *end = strchr(tag, '>'), *p;

	snprintf(key, sizeof(key), " %s=\"", name);
	p = strstr(tag, key);
	return p && (!end || p < end) ? atof(p + strlen(key)) : def;
}

static bool attr_is(const char *tag, const char *name, const char *value)
{
	char key[64];
	const char *end = strchr(tag, '>'), *p;

	snprintf(key, sizeof(key), " %s=\"%s\"", name, value);
	p = strstr(tag, key);
	return p && (!end || p < end);
}

/* The text of an element's content up to "</tag>", entities decoded; its width. */
static const char *content(const char *p, const char *close, double size, bool bold, char *out,
			   size_t len, double *w)
{
	size_t o = strlen(out);
	char one[2] = "";

	while (*p && strncmp(p, close, strlen(close))) {
		if (*p == '<') {
			/* a tspan: its own weight and size */
			const char *gt = strchr(p, '>');
			bool b = attr_is(p, "font-weight", "bold") || bold;
			double sz = attr_num(p, "font-size", size);

			if (!gt)
				return p;
			p = content(gt + 1, "</tspan>", sz, b, out, len, w);
			p += strlen("</tspan>");
			o = strlen(out);
			continue;
		}
		one[0] = *p;
		if (!strncmp(p, "&lt;", 4))
			one[0] = '<', p += 3;
		else if (!strncmp(p, "&gt;", 4))
			one[0] = '>', p += 3;
		else if (!strncmp(p, "&amp;", 5))
			one[0] = '&', p += 4;
		*w += kw_svg_text_width(one, size, bold);
		if (o + 1 < len) {
			out[o++] = one[0];
			out[o] = 0;
		}
		p++;
	}
	return p;
}

static bool overlap(const struct box *a, const struct box *b)
{
	/* half a pixel of slack: touching is not covering */
	return a->x0 < b->x1 - 0.5 && b->x0 < a->x1 - 0.5 && a->y0 < b->y1 - 0.5 &&
	       b->y0 < a->y1 - 0.5;
}

const char *kw_test_svg_problem(const char *svg);

const char *kw_test_svg_problem(const char *svg)
{
	static char msg[512];
	const char *root = strstr(svg, "<svg "), *p;
	struct box *t = NULL, plots[64];
	size_t n = 0, nplots = 0, naxes = 0;
	double W, H, font;

	if (!root)
		return "no <svg> element";
	W = attr_num(root, "width", 0);
	H = attr_num(root, "height", 0);
	font = attr_num(root, "font-size", 16);
	msg[0] = 0;
	for (p = root; (p = strstr(p + 1, "class=\"plot\"")) && nplots < 64;) {
		const char *tag = p;

		while (tag > svg && *tag != '<')
			tag--;
		plots[nplots++] =
			(struct box){ attr_num(tag, "x", 0), attr_num(tag, "y", 0),
				      attr_num(tag, "x", 0) + attr_num(tag, "width", 0),
				      attr_num(tag, "y", 0) + attr_num(tag, "height", 0), "" };
	}
	for (p = root; (p = strstr(p + 1, "class=\"y-axis\""));)
		naxes++;
	if (!nplots)
		return "no plot area (class=\"plot\")";
	if (naxes < nplots) {
		snprintf(msg, sizeof(msg), "%zu plot areas, %zu y axes (class=\"y-axis\")", nplots,
			 naxes);
		return msg;
	}
	for (p = root; (p = strstr(p + 1, "<text "));) {
		double x = attr_num(p, "x", 0), y = attr_num(p, "y", 0), w = 0;
		double size = attr_num(p, "font-size", font);
		bool bold = attr_is(p, "font-weight", "bold");
		struct box *b, *nt = realloc(t, (n + 1) * sizeof(*t));

		if (!nt)
			break;
		t = nt;
		b = &t[n++];
		b->text[0] = 0;
		content(strchr(p, '>') + 1, "</text>", size, bold, b->text, sizeof(b->text), &w);
		b->x0 = attr_is(p, "text-anchor", "end")      ? x - w
			: attr_is(p, "text-anchor", "middle") ? x - w / 2
							      : x;
		b->x1 = b->x0 + w;
		b->y0 = y - KW_SVG_ASCENT * size;
		b->y1 = y + KW_SVG_DESCENT * size;
		if (b->x0 < 0 || b->y0 < 0 || b->x1 > W || b->y1 > H) {
			snprintf(msg, sizeof(msg),
				 "\"%s\" at %.0f..%.0f x %.0f..%.0f: outside the page %.0f x %.0f",
				 b->text, b->x0, b->x1, b->y0, b->y1, W, H);
			break;
		}
		for (size_t k = 0; k < nplots && !msg[0]; k++)
			if (overlap(b, &plots[k]))
				snprintf(msg, sizeof(msg), "\"%s\" inside the plot area at y %.0f",
					 b->text, plots[k].y0);
		for (size_t k = 0; k + 1 < n && !msg[0]; k++)
			if (overlap(b, &t[k]))
				snprintf(msg, sizeof(msg), "\"%s\" covers \"%s\"", b->text,
					 t[k].text);
		if (msg[0])
			break;
	}
	free(t);
	if (!n)
		return "no text";
	return msg[0] ? msg : NULL;
}

static const char *problem_of(const char *body)
{
	static char buf[2048];

	snprintf(buf, sizeof(buf),
		 "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"200\" height=\"100\" "
		 "font-size=\"13\">\n<rect class=\"plot\" x=\"40\" y=\"40\" width=\"150\" "
		 "height=\"40\"/><g class=\"y-axis\"></g>\n%s</svg>\n",
		 body);
	return kw_test_svg_problem(buf);
}

void test_svg(void)
{
	char buf[64];
	const char *p;
	char *out = NULL;
	size_t len = 0;
	FILE *f;

	ASSERT_NEAR(kw_svg_text_width("ab", 10, false), (613 + 635) / 100.0, 1e-9, "ab at 10 px");
	ASSERT_TRUE(kw_svg_text_width("ab", 10, true) > kw_svg_text_width("ab", 10, false),
		    "bold is wider");
	ASSERT_STREQ(kw_svg_fit(buf, sizeof(buf), "short", 13, false, 100), "short", "fits");
	kw_svg_fit(buf, sizeof(buf), "7.3.4-kvmwalk-a-very-long-kernel-release-name", 13, false,
		   100);
	ASSERT_TRUE(strlen(buf) > 3 && !strcmp(buf + strlen(buf) - 3, "..."), buf);
	ASSERT_TRUE(kw_svg_text_width(buf, 13, false) <= 100, "cut to the width");

	f = open_memstream(&out, &len);
	if (ASSERT_TRUE(f, "open_memstream")) {
		ASSERT_EQ(kw_svg_lines(f, 10, 20, 11, 14, 120, "font-size=\"11\"",
				       "one two three four five six seven eight"),
			  2, "two lines of 120 px");
		fclose(f);
		ASSERT_TRUE(strstr(out, "<text x=\"10\" y=\"34\" font-size=\"11\">five six seven "
					"eight</text>") != NULL,
			    out);
	}
	free(out);

	/* the checker itself: what it must catch */
	p = problem_of("<text x=\"5\" y=\"20\">ok</text>");
	ASSERT_FALSE(p, p ?: "");
	ASSERT_TRUE(problem_of("<text x=\"150\" y=\"20\">clipped title</text>"), "clipped");
	ASSERT_TRUE(
		problem_of("<text x=\"5\" y=\"20\">one</text><text x=\"20\" y=\"24\">two</text>"),
		"overlap");
	ASSERT_TRUE(problem_of("<text x=\"5\" y=\"20\"><tspan font-weight=\"bold\">a</tspan> "
			       "long heading</text><text x=\"100\" y=\"20\" text-anchor=\"end\">"
			       "max</text>"),
		    "overlap, ending at x");
	ASSERT_TRUE(problem_of("<text x=\"60\" y=\"60\">in the plot</text>"), "text in the plot");
	ASSERT_TRUE(kw_test_svg_problem("<svg width=\"10\" height=\"10\"><rect class=\"plot\" "
					"x=\"1\" y=\"1\" width=\"2\" height=\"2\"/>"
					"<text x=\"5\" y=\"9\" font-size=\"2\">a</text></svg>"),
		    "no y axis");
}
