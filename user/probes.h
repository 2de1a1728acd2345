/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probe catalogue: everything user space knows about each enum kw_probe (bpf/kvmwalk_abi.h) in
 * one designated-initializer table, kw_probes[] (probes.c): its name, arch, family and units
 * for the recording, report and metrics, and for the loader the kernel function and the BPF
 * programs of each mechanism. Adding a probe is its enum value, its BPF wrappers and one entry
 * there. Also the names of the attach modes and mechanisms, shared by text, JSON and Prometheus
 * output. Plain C, no libbpf: unit-tested.
 */
#ifndef KW_PROBES_H
#define KW_PROBES_H

#include <stdbool.h>
#include <stddef.h>

#include "kvmwalk_abi.h"

/* --attach: which mechanisms the loader may try. */
enum kw_attach {
	KW_ATTACH_AUTO,	  /* fentry/fexit after an attach test, else kprobe, else a tracepoint */
	KW_ATTACH_FENTRY, /* only fentry/fexit */
	KW_ATTACH_KPROBE, /* only kprobe/kretprobe */
	KW_NR_ATTACH,
};

/* How a probe is attached (the plan of a probe). */
enum kw_mech {
	KW_MECH_NONE, /* no plan: a recording that does not name one ("" in JSON) */
	KW_MECH_FENTRY,
	KW_MECH_KPROBE,
	KW_MECH_TRACEPOINT,
	KW_MECH_UNAVAILABLE,
	KW_MECH_OFF, /* left out: --probe, --no-visits, or counted by another probe */
	KW_NR_MECHS,
};

/* The mechanisms that have programs: the first index of kw_probe_desc.prog[][]. */
#define KW_NR_PROG_MECHS (KW_MECH_TRACEPOINT + 1)

/* The programs of one mechanism: the second index of kw_probe_desc.prog[][]. */
enum kw_prog_end {
	KW_ENTRY, /* fentry, kprobe, tracepoint (or raw tracepoint) program */
	KW_EXIT,  /* fexit, kretprobe, the closing tracepoint's program */
	KW_NR_ENDS,
};

/* The names of recordings, reports and metrics: "auto", ...; "fentry", ..., "" for NONE. */
extern const char *const kw_attach_names[KW_NR_ATTACH];
extern const char *const kw_mech_names[KW_NR_MECHS];
/* The value of a name, or -1. */
int kw_attach_by_name(const char *name);
int kw_mech_by_name(const char *name);
/* Names out of range as "?". */
const char *kw_attach_name(enum kw_attach a);
const char *kw_mech_name(enum kw_mech m);

struct kw_probe_desc {
	const char *name;   /* the probe's name: the kernel function it is named after */
	const char *arch;   /* "arm64", "x86" or "" (both) */
	const char *family; /* "pgtable", "tdp", "trigger", "lock" */
	const char *unit;   /* what the size histogram counts, NULL if none */
	bool timed;	    /* has a duration */
	bool per_entry;	    /* a per-entry callback: left out by --no-visits */
	const char *what;   /* one line for `kvmwalk probes` */
	/* Attaching it, on the arch kvmwalk was built for: */
	const char *func;			/* kernel function; NULL: tracepoint only */
	/* BPF programs by name in the skeleton, NULL for none: [enum kw_mech][enum kw_prog_end] */
	const char *prog[KW_NR_PROG_MECHS][KW_NR_ENDS];
	const char *tp_cat;			/* tracepoint: category, "" for a raw one */
	const char *tp_name;			/* tracepoint name, NULL if none */
};

extern const struct kw_probe_desc kw_probes[KW_NR_PROBES];

/* The probe of a name, or -1. */
int kw_probe_by_name(const char *name);
/* A probe of this arch (its plan is meaningful). */
bool kw_probe_in_arch(int probe, const char *arch);
/* The probe a BPF program (by name) belongs to, or -1. */
int kw_probe_of_prog(const char *prog);

/* A set of probes, bit (1 << enum kw_probe). */
typedef unsigned long long kw_probe_mask;
#define KW_PROBE_BIT(p) (1ULL << (p))
#define KW_PROBES_ALL (KW_PROBE_BIT(KW_NR_PROBES) - 1)
_Static_assert(KW_NR_PROBES < 64, "kw_probe_mask holds every probe");

/*
 * The named probe sets --probe takes besides probe names: "all", "cheap", what the dashboard's
 * per-walk panels read, "timing", the probes that time a whole operation once per call,
 * "notifiers", the MMU-notifier callbacks among them (serve's default, with the sampled mode;
 * the definitions and the reasoning behind them are in probes.c), and "none", nothing at all
 * (record then loads no BPF).
 * A set holds the probes of both arches; the loader plans only this arch's.
 */
extern const kw_probe_mask kw_probes_cheap;
extern const kw_probe_mask kw_probes_timing;
extern const kw_probe_mask kw_probes_notifiers;
#define KW_PROBE_SET_CHEAP "cheap"
#define KW_PROBE_SET_ALL "all"
#define KW_PROBE_SET_TIMING "timing"
#define KW_PROBE_SET_NOTIFIERS "notifiers"
#define KW_PROBE_SET_NONE "none"

/* A named set, largest first; KW_SET_LIST: probe names only. */
enum kw_probe_set {
	KW_SET_ALL,
	KW_SET_CHEAP,
	KW_SET_TIMING,
	KW_SET_NOTIFIERS,
	KW_SET_NONE,
	KW_SET_LIST,
};

/* The probes of a set (0 for none and a list), and its name ("" for a list). */
kw_probe_mask kw_probe_set_mask(enum kw_probe_set set);
const char *kw_probe_set_name(enum kw_probe_set set);

/* What --probe LIST selects. */
struct kw_probe_sel {
	kw_probe_mask probes; /* to attach: the probes named and the sets' */
	kw_probe_mask named;  /* the probes named one by one: each must attach */
	bool cheap;	      /* the largest set named is cheap */
	enum kw_probe_set set; /* the largest set named; KW_SET_NONE for none or an empty list */
};

/*
 * --probe LIST: comma-separated probe names and set names into *sel; mmu_lock_wait brings
 * guest_fault with it (it counts only inside a vCPU fault). Returns 0, or -EINVAL with
 * the unknown name, or none beside another name, in a one-line message in err (*sel unchanged).
 */
int kw_probe_sel_parse(const char *list, struct kw_probe_sel *sel, char *err, size_t errlen);

/*
 * The program named by one of libbpf's log lines "prog 'NAME': failed to load: ...", the
 * warning bpf_object__load_progs() prints for the program the kernel refused (the loader plans
 * around it). Returns 0 with NAME in name, or -ENOENT for any other line.
 */
int kw_libbpf_failed_prog(const char *line, char *name, size_t len);

#endif /* KW_PROBES_H */
