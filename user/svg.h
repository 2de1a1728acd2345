/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The hand-written SVG that compare --plot and report --plot share: a white page of fixed size,
 * 13 px sans-serif, and text from a recording escaped for XML. Opens in any browser.
 */
#ifndef KW_SVG_H
#define KW_SVG_H

#include <stdio.h>

/* The XML declaration, the <svg> element of width x height and its white background. */
void kw_svg_begin(FILE *f, int width, int height);
void kw_svg_end(FILE *f);
/* s inside a text element: < > & escaped. */
void kw_svg_text(FILE *f, const char *s);

#endif /* KW_SVG_H */
