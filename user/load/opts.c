// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load options: parsing and cross-checks, no kernel involved (unit-tested). */
#include <argp.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "load/load.h"

#define MAX_VCPUS 256

enum {
	OPT_SCENARIO = 1000,
	OPT_VCPUS,
	OPT_MEM,
	OPT_BACKING,
	OPT_ITERATIONS,
	OPT_CHUNK_PAGES,
	OPT_RANGE,
	OPT_PATTERN,
	OPT_REFAULT,
	OPT_EAGER_SPLIT,
	OPT_SPARSE,
	OPT_JSON,
	OPT_TIMEOUT,
	OPT_QUIET,
	OPT_NAME,
	OPT_ENTER_EL1,
	OPT_CONCURRENT,
	OPT_DURATION,
	OPT_RATE,
	OPT_PRESET,
	OPT_IPA_BITS,
	OPT_HOLD,
};

#define GIVEN(opt) (1U << ((opt) - OPT_SCENARIO))

/* A number with an optional K, M, G or T suffix (powers of 1024; "KiB" and "KB" too). */
int parse_size(const char *s, uint64_t *out)
{
	unsigned long long v, mul = 1;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -EINVAL;
	switch (*end) {
	case 'k':
	case 'K':
		mul = 1ULL << 10;
		end++;
		break;
	case 'm':
	case 'M':
		mul = 1ULL << 20;
		end++;
		break;
	case 'g':
	case 'G':
		mul = 1ULL << 30;
		end++;
		break;
	case 't':
	case 'T':
		mul = 1ULL << 40;
		end++;
		break;
	default:
		break;
	}
	if (mul > 1 && (*end == 'i' || *end == 'I'))
		end++;
	if (mul > 1 && (*end == 'b' || *end == 'B'))
		end++;
	if (*end)
		return -EINVAL;
	if (v && mul > UINT64_MAX / v)
		return -ERANGE;
	*out = v * mul;
	return 0;
}

int parse_uint(const char *s, unsigned long long max, unsigned long long *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || end == s || *end)
		return -EINVAL;
	if (v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

void format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	int u = 0;

	while (u < 4 && bytes && !(bytes & 1023)) {
		bytes >>= 10;
		u++;
	}
	snprintf(buf, len, "%" PRIu64 " %s", bytes, units[u]);
}

static const char *const scenario_names[] = {
	[SC_SPLIT] = "split",
	[SC_CLEAR] = "clear",
	[SC_INVALIDATE] = "invalidate",
	[SC_WRPROTECT_FAULT] = "wrprotect-fault",
	[SC_EMPTY_UNMAP] = "empty-unmap",
	[SC_NESTED_UNMAP] = "nested-unmap",
	[SC_TEARDOWN] = "teardown",
	[SC_ALL] = "all",
};

static const char *const backing_names[] = { "anon", "thp", "hugetlb" };
static const char *const pattern_names[] = { "same", "sweep" };
static const char *const yesno_names[] = { "no", "yes" };

static int name_parse(const char *const *names, int n, const char *s)
{
	int i;

	for (i = 0; s && i < n; i++)
		if (!strcmp(names[i], s))
			return i;
	return -EINVAL;
}

const char *scenario_name(int sc)
{
	return sc >= 0 && sc <= SC_ALL ? scenario_names[sc] : "?";
}

int scenario_parse(const char *s)
{
	return name_parse(scenario_names, SC_ALL + 1, s);
}

bool scenario_in_all(int sc)
{
	return sc >= 0 && sc < SC_NR && sc != SC_NESTED_UNMAP && sc != SC_TEARDOWN;
}

const char *backing_name(int b)
{
	return b >= 0 && b < 3 ? backing_names[b] : "?";
}

int backing_parse(const char *s)
{
	return name_parse(backing_names, 3, s);
}

const char *pattern_name(int p)
{
	return p >= 0 && p < 2 ? pattern_names[p] : "?";
}

int pattern_parse(const char *s)
{
	return name_parse(pattern_names, 2, s);
}

int yesno_parse(const char *s)
{
	return name_parse(yesno_names, 2, s);
}

void load_opts_default(struct load_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->scenario = SC_ALL;
	o->vcpus = 1;
	o->mem = 16ULL << 20;
	o->backing = BACKING_ANON;
	o->iterations = 3;
	o->chunk_pages = 64;
	o->range = 2ULL << 20;
	o->pattern = PATTERN_SAME;
	o->refault = true;
	o->enter_el1 = true;
	o->sparse = 256ULL << 30;
	o->timeout = 30;
	o->rate = 100;
}

const char *load_opts_check(const struct load_opts *o)
{
	uint64_t total = o->mem * o->vcpus;

	if (!o->vcpus || o->vcpus > MAX_VCPUS)
		return "--vcpus must be 1 to 256";
	if (!o->mem || o->mem % SZ_2M)
		return "--mem must be a non-zero multiple of 2 MiB";
	/*
	 * The data slot spans GPA 1 GiB to at most 33 GiB, below the sparse slot at 64 GiB; x86
	 * guests address it with 32 bits, below the TSS.
	 */
	if (o->mem > (32ULL << 30) / o->vcpus)
		return "--vcpus times --mem must be at most 32 GiB";
#ifdef __x86_64__
	if (total > (2ULL << 30))
		return "--vcpus times --mem must be at most 2 GiB on x86 (32-bit guest)";
#endif
	if (!o->iterations)
		return "--iterations must be at least 1";
	if (!o->chunk_pages || o->chunk_pages % 64)
		return "--chunk-pages must be a non-zero multiple of 64 (KVM_CLEAR_DIRTY_LOG "
		       "works on 64-page words)";
	if (!o->range || o->range % SZ_4K)
		return "--range must be a non-zero multiple of 4 KiB";
	if (o->range > total)
		return "--range must not exceed --vcpus times --mem";
	if (o->backing == BACKING_HUGETLB && o->range % SZ_2M)
		return "--range must be a multiple of 2 MiB with --backing hugetlb";
	if (o->eager_split && o->eager_split != SZ_4K && o->eager_split != SZ_2M &&
	    o->eager_split != SZ_1G)
		return "--eager-split must be 4K, 2M or 1G (a block size of the stage-2 tables)";
#ifndef __aarch64__
	if (o->eager_split)
		return "--eager-split is arm64 only (x86 splits eagerly per kvm.eager_page_split)";
#endif
	if (!o->sparse || o->sparse % SZ_1G)
		return "--sparse must be a non-zero multiple of 1 GiB";
	if (o->sparse > (512ULL << 30))
		return "--sparse must be at most 512 GiB (a 40-bit guest address space)";
	if (!o->timeout)
		return "--timeout must be at least 1 second";
#ifndef __aarch64__
	if (o->scenario == SC_NESTED_UNMAP)
		return "--scenario nested-unmap is arm64 only (nested stage-2 MMUs)";
	if (o->scenario == SC_TEARDOWN)
		return "--scenario teardown is arm64 only (the stage-2 teardown walks the whole IPA "
		       "space)";
	if (o->ipa_bits)
		return "--ipa-bits is arm64 only (KVM_VM_TYPE_ARM_IPA_SIZE)";
#endif
	if (o->concurrent && o->scenario != SC_INVALIDATE)
		return "--concurrent needs --scenario invalidate";
	if (o->concurrent && !o->refault)
		return "--concurrent refaults all the time: --refault=no does not go with it";
	if (!o->concurrent && (o->given & (GIVEN(OPT_DURATION) | GIVEN(OPT_RATE))))
		return "--duration and --rate need --concurrent (or a --preset)";
	if (o->concurrent && o->duration && (o->given & GIVEN(OPT_ITERATIONS)))
		return "--concurrent stops after --duration seconds or after --iterations madvises: "
		       "give one of them";
	/* A THP-backed page: the first madvise splits the huge PMD, a second notifier. */
	if (o->scenario == SC_NESTED_UNMAP && o->backing != BACKING_ANON)
		return "--scenario nested-unmap needs --backing anon (MADV_NOHUGEPAGE: one notifier "
		       "per madvise)";
	return NULL;
}


const struct load_preset load_presets[] = {
	{ "same16", PATTERN_SAME, 16ULL << 20 },  { "same4", PATTERN_SAME, 4ULL << 20 },
	{ "sweep16", PATTERN_SWEEP, 16ULL << 20 }, { "sweep4", PATTERN_SWEEP, 4ULL << 20 },
	{ "sweep2", PATTERN_SWEEP, 2ULL << 20 },  { "sweep1", PATTERN_SWEEP, 1ULL << 20 },
};
const unsigned int load_nr_presets = sizeof(load_presets) / sizeof(load_presets[0]);

static const struct load_preset *preset_find(const char *name)
{
	unsigned int i;

	for (i = 0; name && i < load_nr_presets; i++)
		if (!strcmp(load_presets[i].name, name))
			return &load_presets[i];
	return NULL;
}

/*
 * --preset NAME: --scenario invalidate --concurrent with the preset's --pattern and --range, and
 * the emulated-host shape (--vcpus 2 --mem 64M --duration 5 --rate 100) for every option not
 * given on the command line, whatever the order of the options. --iterations given: that many
 * madvises instead of --duration.
 */
void load_opts_apply_preset(struct load_opts *o)
{
	const struct load_preset *p = preset_find(o->preset);

	if (!p)
		return;
	o->scenario = SC_INVALIDATE;
	o->concurrent = true;
	if (!(o->given & GIVEN(OPT_PATTERN)))
		o->pattern = p->pattern;
	if (!(o->given & GIVEN(OPT_RANGE)))
		o->range = p->range;
	if (!(o->given & GIVEN(OPT_VCPUS)))
		o->vcpus = PRESET_VCPUS;
	if (!(o->given & GIVEN(OPT_MEM)))
		o->mem = PRESET_MEM;
	if (!(o->given & GIVEN(OPT_RATE)))
		o->rate = PRESET_RATE;
	if (!(o->given & (GIVEN(OPT_DURATION) | GIVEN(OPT_ITERATIONS))))
		o->duration = PRESET_DURATION;
}

static const char doc[] =
	"kvmwalk-load -- drive a real KVM VM through known page-table-walk scenarios.\n"
	"\n"
	"USAGE: kvmwalk-load [--scenario NAME] [--vcpus N] [--mem SIZE] [OPTION...]\n"
	"\n"
	"A VM (x86_64: flat 32-bit protected mode; arm64: MMU off) gets a code slot at\n"
	"GPA 0x10000, never invalidated, and a data slot at GPA 1 GiB with --mem bytes\n"
	"per vCPU. Each vCPU (a thread) stores one 64-bit word per 4 KiB page of its\n"
	"own part, then exits (x86: out; arm64: MMIO store). Each phase's wall time and\n"
	"the exact quantities it caused are printed, so that kvmwalk's probe counts\n"
	"can be checked against them.\n"
	"\n"
	"Scenarios (a fresh VM each; \"all\", the default, runs them in turn and stops\n"
	"at the first that fails):\n"
	"  split            touch (2 MiB blocks with thp or hugetlb), enable dirty\n"
	"                   logging (eager split; arm64 only with --eager-split),\n"
	"                   write, get the log, disable; re-create the slot, repeat.\n"
	"  clear            KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 with INITIALLY_SET:\n"
	"                   iteration 0 gets the all-set log and clears it; then each\n"
	"                   iteration writes, gets, clears in --chunk-pages chunks.\n"
	"  invalidate       touch; each iteration madvise(MADV_DONTNEED)s one --range\n"
	"                   (--pattern same, or sweep) and the vCPUs refault; with\n"
	"                   --refault=no they do not, so with --pattern same every\n"
	"                   later madvise zaps a range whose tables are already empty.\n"
	"                   --concurrent: touch, then the vCPUs write every page of\n"
	"                   their part in a loop (one KVM_RUN per pass) while the host\n"
	"                   thread madvises one --range --rate times a second (same or\n"
	"                   sweep) for --duration seconds, or --iterations madvises;\n"
	"                   faults and zaps at the same time, so vCPU faults wait for\n"
	"                   mmu_lock (kvmwalk's mmu_lock_wait). After the last madvise\n"
	"                   each vCPU makes one more whole pass, so every page holds\n"
	"                   the guest's value at the end (checked). Reported in one\n"
	"                   \"concurrent\" phase: madvise_calls, bytes_invalidated,\n"
	"                   pages_invalidated (repeats included), passes (complete\n"
	"                   ones; every pass is whole), pages_written (passes times\n"
	"                   the pages of a vCPU), vcpu_host_faults (the vCPU threads'\n"
	"                   minor + major faults, getrusage(RUSAGE_THREAD): KVM's GUP\n"
	"                   faults in the pages the madvises freed, one per page\n"
	"                   invalidated and written again), and on x86 kvm_pf_taken\n"
	"                   (the vCPUs' binary stat pf_taken: KVM's vCPU faults, in\n"
	"                   the touch phase too; arm64 has no such stat). Not known\n"
	"                   to it: how long the faults waited for mmu_lock, nor on\n"
	"                   arm64 how many faults KVM took (a refault racing an\n"
	"                   invalidation is retried); kvmwalk's mmu_lock_wait and\n"
	"                   guest_fault count those.\n"
	"  wrprotect-fault  touch, enable dirty logging; each iteration writes (one\n"
	"                   write-protection fault per page) and gets the log.\n"
	"  empty-unmap      unmaps of nothing: madvise of never-touched memory in\n"
	"                   --range calls, delete and re-add the never-touched data\n"
	"                   slot, add and delete a --sparse slot (never touched).\n"
	"  nested-unmap     arm64, on a host booted with kvm-arm.mode=nested (not in\n"
	"                   \"all\"): vCPUs with EL2 (KVM_ARM_VCPU_HAS_EL2, in-kernel\n"
	"                   vGICv3) start at vEL2 and ERET once to vEL1, each with a\n"
	"                   VMID of its own, so each makes one nested stage-2 MMU\n"
	"                   valid (until the VM is destroyed); then each iteration\n"
	"                   madvise(MADV_DONTNEED)s one never-touched 4 KiB page. KVM\n"
	"                   unmaps the whole IPA space of every valid nested MMU per\n"
	"                   notifier (kvm_nested_s2_unmap): 2^(ipa_bits - 30) calls\n"
	"                   of 1 GiB each. Teardown (the VM's destruction) is timed\n"
	"                   as a phase of its own. --enter-el1=no: the vCPUs exit\n"
	"                   from vEL2 and no nested MMU becomes valid (the control).\n"
	"  teardown         arm64 (not in \"all\"): touch, then close the VM, timed as\n"
	"                   the phase teardown. KVM frees the stage-2 tables by walking\n"
	"                   the VM's whole IPA space (2^ipa_bits bytes; 7.3 walks it in\n"
	"                   1 GiB chunks: 2^(ipa_bits - 30) kvm_pgtable_walk calls, all\n"
	"                   but the few over the data slot finding nothing). --ipa-bits\n"
	"                   sets the VM's IPA size (default 40; max: the host's limit).\n"
	"\n"
	"Phases (JSON \"phase\"): touch, dirty-log-enable, dirty-write, dirty-log-get,\n"
	"dirty-log-clear, dirty-log-disable, invalidate, refault, guest-start,\n"
	"empty-madvise, slot-delete, slot-add, sparse-add, sparse-delete, el1-entry,\n"
	"nested-madvise, teardown, concurrent.\n"
	"Counts (JSON \"counts\"): pages_touched, pages_written, dirty_pages,\n"
	"pages_refaulted, get_ioctls, clear_ioctls, pages_cleared, madvise_calls,\n"
	"bytes_invalidated, blocks_2m, slot_pages, slots_added, slots_deleted,\n"
	"slot_bytes, sparse_bytes, nested_mmus (vCPUs whose exit came from vEL1, each a\n"
	"valid nested MMU), ipa_bits (nested-unmap: the host's IPA limit,\n"
	"KVM_CAP_ARM_VM_IPA_SIZE; teardown: the VM's IPA size),\n"
	"pages_invalidated, passes, vcpu_host_faults, kvm_pf_taken. A count that is\n"
	"reported is exact.\n"
	"\n"
	"Presets (--preset NAME): the six invalidation patterns the TDP empty-leaf hint\n"
	"was measured with (4 vCPUs, 1 GiB guest): same16, same4 (the same 16 or 4 MiB\n"
	"range each time), sweep16, sweep4, sweep2, sweep1 (rolling chunks of 16, 4, 2,\n"
	"1 MiB over the guest). Each is --scenario invalidate --concurrent with its\n"
	"--pattern and --range, scaled to the emulated host (2 CPUs, 1 GiB RAM): the\n"
	"range sizes are those of that measurement (they decide how many 2 MiB leaf\n"
	"tables a zap covers), the guest has 1/8 of its memory and half its vCPUs:\n"
	"--vcpus 2 --mem 64M (128 MiB), --duration 5 --rate 100. Options given on the\n"
	"command line win, in any order (--iterations N: N madvises, no --duration).\n"
	"\n"
	"Exit status:\n"
	"  0  success\n"
	"  1  an unexpected system-call failure\n"
	"  2  bad options\n"
	"  3  no usable /dev/kvm\n"
	"  4  a missing KVM capability or host feature (THP, free huge pages, EL2 for\n"
	"     nested-unmap: KVM_CAP_ARM_EL2)\n"
	"  5  the guest failed or timed out (exit reason and registers printed)\n"
	"  6  memory or memslot setup failed\n"
	"  7  a count differed from what the workload made certain\n"
	"\vExamples:\n"
	"  kvmwalk-load --scenario split --backing thp --vcpus 2 --mem 32M\n"
	"  kvmwalk-load --scenario split --backing thp --eager-split 2M   # arm64\n"
	"  kvmwalk-load --scenario clear --chunk-pages 64 --iterations 5\n"
	"  kvmwalk-load --scenario invalidate --pattern sweep --range 1M --json r.json\n"
	"  kvmwalk-load --scenario invalidate --refault=no --iterations 10\n"
	"  kvmwalk-load --scenario invalidate --concurrent --vcpus 2 --mem 16M \\\n"
	"      --pattern sweep --range 4M --rate 50 --duration 10\n"
	"  kvmwalk-load --preset same16 --json r.json\n"
	"  kvmwalk-load --preset sweep1 --vcpus 4 --mem 256M   # the measured guest\n"
	"  kvmwalk-load --scenario empty-unmap --sparse 256G --json\n"
	"  kvmwalk-load --scenario nested-unmap --vcpus 2 --mem 2M   # arm64\n"
	"  kvmwalk-load --scenario teardown --ipa-bits 48   # arm64\n"
	"\n"
	"SIZE takes a K, M, G or T suffix (powers of 1024). Needs read-write access to\n"
	"/dev/kvm (root).";

static const struct argp_option options[] = {
	{ "scenario", OPT_SCENARIO, "NAME", 0,
	  "split, clear, invalidate, wrprotect-fault, empty-unmap, nested-unmap (arm64), teardown "
	  "(arm64) or all (default all: every one but nested-unmap and teardown)",
	  0 },
	{ "vcpus", OPT_VCPUS, "N", 0, "vCPUs, one thread each (default 1, at most 256)", 0 },
	{ "mem", OPT_MEM, "SIZE", 0,
	  "data memory per vCPU, a multiple of 2 MiB (default 16M); x86: vcpus*mem <= 2G", 0 },
	{ "backing", OPT_BACKING, "TYPE", 0,
	  "anon (4 KiB pages, MADV_NOHUGEPAGE), thp (MADV_HUGEPAGE, 2 MiB aligned) or hugetlb "
	  "(MAP_HUGETLB 2 MiB pages from vm.nr_hugepages) (default anon)",
	  0 },
	{ "iterations", OPT_ITERATIONS, "N", 0, "repetitions of each scenario's loop (default 3)",
	  0 },
	{ "chunk-pages", OPT_CHUNK_PAGES, "N", 0,
	  "clear: pages per KVM_CLEAR_DIRTY_LOG, a multiple of 64 (default 64)", 0 },
	{ "range", OPT_RANGE, "SIZE", 0,
	  "invalidate, empty-unmap: bytes per madvise(MADV_DONTNEED) (default 2M)", 0 },
	{ "pattern", OPT_PATTERN, "same|sweep", 0,
	  "invalidate: the same range each iteration, or consecutive ranges (default same)", 0 },
	{ "refault", OPT_REFAULT, "yes|no", 0,
	  "invalidate: the vCPUs refault the range after each madvise (default yes; no: the next "
	  "zap of it walks empty tables)",
	  0 },
	{ "eager-split", OPT_EAGER_SPLIT, "SIZE", 0,
	  "arm64: KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE (4K, 2M or 1G) set before any memslot "
	  "(default: leave the kernel's 0, no eager split)",
	  0 },
	{ "sparse", OPT_SPARSE, "SIZE", 0,
	  "empty-unmap: size of the never-touched MAP_NORESERVE slot at GPA 64 GiB (default 256G)",
	  0 },
	{ "enter-el1", OPT_ENTER_EL1, "yes|no", 0,
	  "nested-unmap: the vCPUs ERET from vEL2 to vEL1 before they exit (default yes; no: no "
	  "nested MMU becomes valid)",
	  0 },
	{ "ipa-bits", OPT_IPA_BITS, "N|max", 0,
	  "arm64: the VM's IPA size in bits, 32 to 52 (KVM_VM_TYPE_ARM_IPA_SIZE), or max: the "
	  "host's limit (KVM_CAP_ARM_VM_IPA_SIZE) (default: KVM's 40)",
	  0 },
	{ "concurrent", OPT_CONCURRENT, NULL, 0,
	  "invalidate: the vCPUs write their memory in a loop while the host madvises (see above)",
	  0 },
	{ "duration", OPT_DURATION, "SECS", 0,
	  "--concurrent: madvise for SECS seconds (default: --iterations madvises)", 0 },
	{ "rate", OPT_RATE, "N", 0,
	  "--concurrent: madvises per second, on a fixed schedule; one that takes longer than "
	  "1/N starts the next at once (default 100; 0: back to back)",
	  0 },
	{ "preset", OPT_PRESET, "NAME", 0,
	  "same16, same4, sweep16, sweep4, sweep2 or sweep1: the TDP empty-leaf hint's "
	  "measurement patterns (see above)", 0 },
	{ "json", OPT_JSON, "FILE", OPTION_ARG_OPTIONAL,
	  "also write the results as one JSON document to FILE (--json FILE works too); "
	  "without FILE (or with -) JSON replaces the table on stdout",
	  0 },
	{ "timeout", OPT_TIMEOUT, "SECS", 0,
	  "per guest run; a vCPU still running then is kicked out and reported (default 30)", 0 },
	{ "quiet", OPT_QUIET, NULL, 0, "no progress lines on stderr", 0 },
	{ "name", OPT_NAME, "NAME", 0,
	  "a name for this VM, as QEMU's -name: it is on the command line (/proc/PID/cmdline), "
	  "where kvmwalk reads it to attribute this process's work to NAME (kvmwalk report's "
	  "By VM)",
	  0 },
	{ "hold", OPT_HOLD, "FILE", 0,
	  "after each scenario's last phase, with its VM still open, create FILE and wait until "
	  "it is removed, then close the VM: kvmwalk can read KVM's statistics of the live VM "
	  "meanwhile (record ended by a signal, serve), from debugfs or from the binary stats "
	  "fds of the VM and its vCPUs that it holds while it waits",
	  0 },
	{ 0 },
};

/* argp_error() exits unless ARGP_NO_EXIT (unit tests) is given: then stop at the first error. */
#define OPT_ERROR(state, ...)                                                                      \
	do {                                                                                       \
		argp_error(state, __VA_ARGS__);                                                    \
		return EINVAL;                                                                     \
	} while (0)

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct load_opts *o = state->input;
	unsigned long long v;
	const char *msg;
	int r;

	if (key >= OPT_SCENARIO && key < OPT_SCENARIO + 32)
		o->given |= GIVEN(key);
	switch (key) {
	case OPT_CONCURRENT:
		o->concurrent = true;
		break;
	case OPT_DURATION:
		if (parse_uint(arg, 86400, &v) || !v)
			OPT_ERROR(state, "--duration: '%s' is not a number of seconds from 1 to 86400",
				  arg);
		o->duration = v;
		break;
	case OPT_RATE:
		if (parse_uint(arg, 100000, &v))
			OPT_ERROR(state, "--rate: '%s' is not a number of madvises per second up to "
					 "100000",
				  arg);
		o->rate = v;
		break;
	case OPT_PRESET:
		if (!preset_find(arg))
			OPT_ERROR(state, "--preset is same16, same4, sweep16, sweep4, sweep2 or sweep1, "
					 "not '%s'",
				  arg);
		o->preset = arg;
		break;
	case OPT_SCENARIO:
		r = scenario_parse(arg);
		if (r < 0) {
			char names[160] = "";

			/* every name, so the next try is not a guess */
			for (int i = 0; i <= SC_ALL; i++) {
				size_t n = strlen(names);

				snprintf(names + n, sizeof(names) - n, "%s%s",
					 i == 0	       ? ""
					 : i == SC_ALL ? " or "
						       : ", ",
					 scenario_names[i]);
			}
			OPT_ERROR(state, "unknown scenario '%s': --scenario is %s", arg, names);
		}
		o->scenario = r;
		break;
	case OPT_VCPUS:
		if (parse_uint(arg, MAX_VCPUS, &v))
			OPT_ERROR(state, "--vcpus: '%s' is not a number from 1 to %d", arg,
				  MAX_VCPUS);
		o->vcpus = v;
		break;
	case OPT_ITERATIONS:
		if (parse_uint(arg, 1000000, &v))
			OPT_ERROR(state, "--iterations: '%s' is not a number up to 1000000", arg);
		o->iterations = v;
		break;
	case OPT_CHUNK_PAGES:
		if (parse_uint(arg, 1ULL << 31, &v))
			OPT_ERROR(state, "--chunk-pages: '%s' is not a number", arg);
		o->chunk_pages = v;
		break;
	case OPT_NAME:
		if (!*arg || strlen(arg) > 63)
			OPT_ERROR(state, "--name: 1 to 63 characters, not '%s'", arg);
		o->name = arg;
		break;
	case OPT_HOLD:
		if (!*arg)
			OPT_ERROR(state, "--hold needs a file name");
		o->hold = arg;
		break;
	case OPT_TIMEOUT:
		if (parse_uint(arg, 86400, &v))
			OPT_ERROR(state, "--timeout: '%s' is not a number of seconds", arg);
		o->timeout = v;
		break;
	case OPT_MEM:
	case OPT_RANGE:
	case OPT_EAGER_SPLIT:
	case OPT_SPARSE: {
		uint64_t *dst = &o->eager_split;

		if (key == OPT_MEM)
			dst = &o->mem;
		else if (key == OPT_RANGE)
			dst = &o->range;
		else if (key == OPT_SPARSE)
			dst = &o->sparse;

		if (parse_size(arg, dst))
			OPT_ERROR(state, "'%s' is not a size (a number with K, M, G or T)", arg);
		break;
	}
	case OPT_BACKING:
		r = backing_parse(arg);
		if (r < 0)
			OPT_ERROR(state, "--backing is anon, thp or hugetlb, not '%s'", arg);
		o->backing = r;
		break;
	case OPT_PATTERN:
		r = pattern_parse(arg);
		if (r < 0)
			OPT_ERROR(state, "--pattern is same or sweep, not '%s'", arg);
		o->pattern = r;
		break;
	case OPT_REFAULT:
		r = yesno_parse(arg);
		if (r < 0)
			OPT_ERROR(state, "--refault is yes or no, not '%s'", arg);
		o->refault = r;
		break;
	case OPT_IPA_BITS:
		if (!strcmp(arg, "max"))
			o->ipa_bits = -1;
		else if (parse_uint(arg, 52, &v) || v < 32)
			OPT_ERROR(state, "--ipa-bits: '%s' is not max or a number from 32 to 52", arg);
		else
			o->ipa_bits = v;
		break;
	case OPT_ENTER_EL1:
		r = yesno_parse(arg);
		if (r < 0)
			OPT_ERROR(state, "--enter-el1 is yes or no, not '%s'", arg);
		o->enter_el1 = r;
		break;
	case OPT_JSON:
		o->json = arg ? arg : "-";
		o->json_bare = !arg;
		break;
	case OPT_QUIET:
		o->quiet = true;
		break;
	case ARGP_KEY_ARG:
		/*
		 * argp only takes an optional argument written --json=FILE; getopt moves the
		 * FILE of "--json FILE" behind the options, so accept it here.
		 */
		if (o->json_bare) {
			o->json = arg;
			o->json_bare = false;
			break;
		}
		OPT_ERROR(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (o->preset && (o->given & GIVEN(OPT_SCENARIO)) && o->scenario != SC_INVALIDATE)
			OPT_ERROR(state, "--preset runs --scenario invalidate, not %s",
				  scenario_name(o->scenario));
		load_opts_apply_preset(o);
		msg = load_opts_check(o);
		if (msg)
			OPT_ERROR(state, "%s", msg);
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const char *argp_program_version = "kvmwalk-load " KW_VERSION " (git " KW_COMMIT ")";

int load_opts_parse(int argc, char **argv, struct load_opts *o, unsigned int argp_flags)
{
	struct argp argp = { options, parse_opt, NULL, doc, NULL, NULL, NULL };
	int err;

	load_opts_default(o);
	argp_err_exit_status = EXIT_USAGE;
	err = argp_parse(&argp, argc, argv, argp_flags, NULL, o);
	return err ? EXIT_USAGE : 0;
}
