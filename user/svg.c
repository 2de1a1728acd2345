// SPDX-License-Identifier: GPL-2.0
/* The SVG that compare --plot and report --plot share (svg.h). */
#include "svg.h"

void kw_svg_begin(FILE *f, int width, int height)
{
	fprintf(f,
		"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
		"viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"13\">\n"
		"<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
		width, height, width, height);
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
