/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: helpers. The hand-written SVG that compare --plot and report --plot share: a white page
 * of fixed size, 13 px sans-serif, text from a recording escaped for XML, and the width a text
 * takes, so that a plot lays its text out inside the page and apart from other text. Opens in
 * any browser.
 */
#ifndef KW_SVG_H
#define KW_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The page's font size, where an element sets none. */
#define KW_SVG_FONT 13

/* The XML declaration, the <svg> element of width x height and its white background. */
void kw_svg_begin(FILE *f, int width, int height);
void kw_svg_end(FILE *f);
/* s inside a text element: < > & escaped. */
void kw_svg_text(FILE *f, const char *s);

/*
 * The width in px of s at size px, bold or not, in DejaVu Sans: the sans-serif of Debian and
 * of most Linux desktops, and wider than Arial, Helvetica or Liberation Sans, so that a text
 * that fits in it fits in those too. A character outside ASCII counts 1 em.
 */
double kw_svg_text_width(const char *s, double size, bool bold);
/* The vertical extent of a line of text at size px around its baseline y: y - ascent ... */
#define KW_SVG_ASCENT 0.80
/* ... y + descent (DejaVu Sans: 0.76 em above the baseline for capitals and digits, 0.24 below) */
#define KW_SVG_DESCENT 0.24

/* s into buf, cut to at most maxw px with "..." at the end where it had to be cut. */
const char *kw_svg_fit(char *buf, size_t len, const char *s, double size, bool bold, double maxw);

/*
 * The words of s as <text> elements at x, one line of at most maxw px each, the first at
 * baseline y and the next line_h px lower; attrs are the elements' other attributes
 * ("font-size=\"11\""; size must be that font size). A word wider than a line is cut. Returns
 * the number of lines.
 */
int kw_svg_lines(FILE *f, double x, double y, double size, double line_h, double maxw,
		 const char *attrs, const char *s);

/* The smallest 1, 2 or 5 times a power of ten that is >= v (v > 0): the top of an axis. */
double kw_svg_nice_ceil(double v);

#endif /* KW_SVG_H */
