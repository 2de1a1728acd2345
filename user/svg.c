// SPDX-License-Identifier: GPL-2.0
/* Layer: helpers. The SVG that compare --plot and report --plot share (svg.h). */
#include <math.h>
#include <string.h>

#include "svg.h"

void kw_svg_begin(FILE *f, int width, int height)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"%d\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height, KW_SVG_FONT);
}

void kw_svg_end(FILE *f)
{
	fprintf(f, "</svg>\n");
}

void kw_svg_text(FILE *f, const char *s)
{
	for (; *s; s++)
		fputs(*s == '<'	  ? "&lt;"
		      : *s == '>' ? "&gt;"
		      : *s == '&' ? "&amp;"
				  : (char[2]){ *s },
		      f);
}

/*
 * Advance widths of ' ' to '~' in thousandths of an em, from the hmtx tables of Debian's
 * DejaVuSans.ttf and DejaVuSans-Bold.ttf (fonts-dejavu-core 2.37).
 */
/* clang-format off */
static const unsigned short dejavu[2][95] = {
	{
		318, 401, 460, 838, 636, 950, 780, 275, 390, 390, 500, 838, 318, 361, 318, 337,
		636, 636, 636, 636, 636, 636, 636, 636, 636, 636, 337, 337, 838, 838, 838, 531,
		1000, 684, 686, 698, 770, 632, 575, 775, 752, 295, 295, 656, 557, 863, 748, 787,
		603, 787, 695, 635, 611, 732, 684, 989, 685, 611, 685, 390, 337, 390, 838, 500,
		500, 613, 635, 550, 635, 615, 352, 635, 634, 278, 278, 579, 278, 974, 634, 612,
		635, 635, 411, 521, 392, 634, 592, 818, 592, 592, 525, 636, 337, 636, 838,
	},
	{
		348, 456, 521, 838, 696, 1002, 872, 306, 457, 457, 523, 838, 380, 415, 380, 365,
		696, 696, 696, 696, 696, 696, 696, 696, 696, 696, 400, 400, 838, 838, 838, 580,
		1000, 774, 762, 734, 830, 683, 683, 821, 837, 372, 372, 775, 637, 995, 837, 850,
		733, 850, 770, 720, 682, 812, 774, 1103, 771, 724, 725, 457, 365, 457, 838, 500,
		500, 675, 716, 593, 716, 678, 435, 716, 712, 343, 343, 665, 343, 1042, 712, 687,
		716, 716, 493, 595, 478, 712, 652, 924, 645, 652, 582, 712, 365, 712, 838,
	},
};
/* clang-format on */

static double char_width(unsigned char c, double size, bool bold)
{
	if (c >= ' ' && c <= '~')
		return dejavu[bold][c - ' '] * size / 1000;
	/* a UTF-8 continuation byte adds nothing to its character's 1 em */
	return (c & 0xc0) == 0x80 ? 0 : size;
}

double kw_svg_text_width(const char *s, double size, bool bold)
{
	double w = 0;

	for (; *s; s++)
		w += char_width(*s, size, bold);
	return w;
}

const char *kw_svg_fit(char *buf, size_t len, const char *s, double size, bool bold, double maxw)
{
	double w = 0, dots = kw_svg_text_width("...", size, bold);
	size_t n = 0, keep = 0;

	snprintf(buf, len, "%s", s);
	if (kw_svg_text_width(buf, size, bold) <= maxw)
		return buf;
	/* the longest start that leaves room for "...", not cutting a UTF-8 character */
	for (; buf[n] && w + char_width(buf[n], size, bold) + dots <= maxw; n++) {
		w += char_width(buf[n], size, bold);
		if ((buf[n + 1] & 0xc0) != 0x80)
			keep = n + 1;
	}
	if (keep + 4 <= len)
		memcpy(buf + keep, "...", 4);
	return buf;
}

int kw_svg_lines(FILE *f, double x, double y, double size, double line_h, double maxw,
		 const char *attrs, const char *s)
{
	char line[512], word[256];
	int n = 0;

	line[0] = 0;
	while (*s || line[0]) {
		size_t k = strcspn(s, " ");
		char next[sizeof(line) + sizeof(word)];

		snprintf(word, sizeof(word), "%.*s", (int)k, s);
		snprintf(next, sizeof(next), "%s%s%s", line, line[0] ? " " : "", word);
		if (*s && strlen(next) < sizeof(line) &&
		    (!line[0] || kw_svg_text_width(next, size, false) <= maxw)) {
			memcpy(line, next, strlen(next) + 1);
			s += k;
			s += strspn(s, " ");
			continue;
		}
		/* the line is full (or s is done): write it */
		kw_svg_fit(next, sizeof(next), line, size, false, maxw);
		fprintf(f, "<text x=\"%.0f\" y=\"%.0f\" %s>", x, y + n++ * line_h, attrs);
		kw_svg_text(f, next);
		fprintf(f, "</text>\n");
		line[0] = 0;
	}
	return n;
}

double kw_svg_nice_ceil(double v)
{
	double p = pow(10, floor(log10(v))), m = v / p;

	/* 1e-9: the floating point of v / p must not turn an exact 2 into 5 */
	return (m <= 1 + 1e-9 ? 1 : m <= 2 + 1e-9 ? 2 : m <= 5 + 1e-9 ? 5 : 10) * p;
}
