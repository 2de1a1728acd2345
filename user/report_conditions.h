/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. The test conditions of a recording in `kvmwalk report` (report_conditions.c):
 * a few lines in the header (the host, CPUs, memory, CPU bugs, KVM's paths, the VMMs), the full
 * list in the "Test conditions" section further down, and its --json twin.
 */
#ifndef KW_REPORT_CONDITIONS_H
#define KW_REPORT_CONDITIONS_H

#include <stdio.h>

#include "record.h"

/* The header's lines from "host" to "kvm" (and "vmm"), for a recording with conditions. */
void kw_report_conditions_head(FILE *f, const struct kw_recording *r);
/* "Test conditions": everything recorded (nothing for a recording without conditions). */
void kw_report_conditions(FILE *f, const struct kw_recording *r);
/* report --json "conditions": null for a recording without them (jansson: the caller owns it) */
struct json_t *kw_report_conditions_json(const struct kw_recording *r);

/* "emulated, QEMU TCG": the host's kind and hypervisor (compare's too) */
void kw_report_host_kind(char *dst, size_t len, const struct kw_conditions *c);

#endif /* KW_REPORT_CONDITIONS_H */
