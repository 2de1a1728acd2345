/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host a recording was made on: kernel, command line, CPU, KVM mode and module parameters,
 * THP, from uname(), /proc and /sys. Plain functions (kw_*), no libbpf: the parsers take the
 * text, so they are unit-tested without the files.
 */
#ifndef KW_HOST_H
#define KW_HOST_H

#include <stdbool.h>
#include <stddef.h>

#include "record.h"

/* The arch this binary was built for: "arm64" or "x86". */
const char *kw_host_arch(void);

/*
 * Fills m with this host's facts, and m->attach with attach (the --attach mode, "" for none);
 * m->tool_version is the caller's.
 */
void kw_host_meta(struct kw_meta *m, const char *attach);

/* arm64: "vhe", "nvhe", "protected" (boot log, else kvm-arm.mode=), "" if unknown. */
void kw_host_arm64_mode(char *mode, size_t len);

/*
 * The kernel's preemption model, which decides whether a BPF trampoline (fentry/fexit) program
 * can be preempted: "none", "voluntary", "full", "lazy" or "rt", with where it came from in src
 * ("sched/preempt", "preempt=", "config", "uname"); "" when a PREEMPT_DYNAMIC kernel's mode
 * cannot be read (debugfs unmounted, no config). kw_host_preemptible() says what planning
 * assumes of it.
 */
void kw_host_preempt(char *model, size_t len, char *src, size_t srclen);
bool kw_host_preemptible(const char *model);
/*
 * The parser behind kw_host_preempt(): uname -v (PREEMPT_RT, PREEMPT_DYNAMIC, PREEMPT), the
 * text of debugfs' sched/preempt ("none voluntary (full) lazy"), /proc/cmdline and the kernel
 * config (each may be NULL).
 */
void kw_host_preempt_of(const char *uname_v, const char *sched_preempt, const char *cmdline,
			const char *config, char *model, size_t len, char *src, size_t srclen);

/* A whole file, NUL-terminated (free() it); NULL if it cannot be read. */
char *kw_read_file(const char *path);
/* The first line of a file without its newline; "" if it cannot be read. */
void kw_read_line(const char *path, char *dst, size_t len);

/* The parsers behind them. */
/* The CPU from /proc/cpuinfo's text: x86 "model name", arm64 "implementer 0x41 part 0xd0c". */
void kw_host_cpu(const char *cpuinfo, char *dst, size_t len);
/* The [bracketed] choice of a sysfs multiple-choice line ("always [madvise] never"). */
void kw_host_choice(const char *line, char *dst, size_t len);
/* The arm64 KVM mode from the kernel log and the command line (either may be NULL). */
void kw_host_arm64_mode_of(const char *log, const char *cmdline, char *mode, size_t len);

#endif /* KW_HOST_H */
