/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. The sampled mode in the report (record --sample, sampled.h): the section
 * "Sampled CPU time" and its JSON twin.
 */
#ifndef KW_SAMPLED_VIEW_H
#define KW_SAMPLED_VIEW_H

#include <stdio.h>

#include "record.h"

/* Nothing when the recording was not sampled. */
void kw_sampled_print(FILE *f, const struct kw_recording *r);
/* NULL when the recording was not sampled. */
struct json_t *kw_sampled_report_json(const struct kw_recording *r);

#endif /* KW_SAMPLED_VIEW_H */
