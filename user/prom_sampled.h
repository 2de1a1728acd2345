/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: views. The sampled mode's Prometheus families (serve's default; sampled.h), written
 * after prom.c's: the rate and CPUs sampled, the samples, and per (what, trigger) the samples
 * and the estimated CPU seconds, per VM name (vm="" for the processes without one), with a pid
 * label too under --per-vm. The families exist only
 * when the recording was sampled.
 */
#ifndef KW_PROM_SAMPLED_H
#define KW_PROM_SAMPLED_H

#include <stdbool.h>
#include <stdio.h>

#include "record.h"

/* 0 or -ENOMEM */
int prom_put_sampled(FILE *f, const struct kw_recording *r, bool per_vm);

#endif /* KW_PROM_SAMPLED_H */
