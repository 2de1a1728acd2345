/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. The test conditions of a recording in `kvmwalk report` (report_conditions.c):
 * the full list in the "Test conditions" section, after the findings, and its --json twin (the
 * header names the host and its kind only).
 */
#ifndef KW_REPORT_CONDITIONS_H
#define KW_REPORT_CONDITIONS_H

#include <stdio.h>

#include "record.h"

/*
 * "Test conditions": everything recorded; for a recording made before conditions were, what its
 * meta has (the kernel command line, the CPU, THP, every KVM parameter).
 */
void kw_report_conditions(FILE *f, const struct kw_recording *r);
/* report --json "conditions": null for a recording without them (jansson: the caller owns it) */
struct json_t *kw_report_conditions_json(const struct kw_recording *r);

/* "emulated, QEMU TCG": the host's kind and hypervisor (compare's too) */
void kw_report_host_kind(char *dst, size_t len, const struct kw_conditions *c);

#endif /* KW_REPORT_CONDITIONS_H */
