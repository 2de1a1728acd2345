// SPDX-License-Identifier: GPL-2.0
/*
 * The sampled mode (bpf/sample_abi.h): one perf_event program, attached by the loader
 * (user/sampler.c) to a PERF_COUNT_SW_CPU_CLOCK event at a fixed rate on every online CPU. Its
 * own object and skeleton: it shares no map with the per-call probes, so it can run alone.
 *
 * Per sample: bpf_get_stack() of the kernel stack (0 frames: the sample was in user mode), then
 * each frame from the innermost looked up in kw_funcs (a binary search of at most
 * KW_SAMPLE_SEARCH_STEPS halvings). The frame loop is a bpf_loop() callback: verified once, where
 * a plain loop of 64 frames around a 9-step search would be verified path by path.
 */
/* as bpf/kw.bpf.h: bpftool 7.1 writes anonymous members as `struct ns_tree;` */
#pragma clang diagnostic ignored "-Wmissing-declarations"
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

#include "sample_abi.h"

/* filled by user space before load (frozen rodata: constant while the program runs) */
const volatile __u32 kw_nfuncs = 0;
const volatile struct kw_sample_func kw_funcs[KW_SAMPLE_MAX_FUNCS] = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, KW_SAMPLE_MAX_ROWS);
	__type(key, struct kw_sample_key);
	__type(value, __u64);
} kw_sample_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, KW_NR_SAMPLE_COUNTERS);
	__type(key, __u32);
	__type(value, __u64);
} kw_sample_counts SEC(".maps");

struct stack {
	__u64 ip[KW_SAMPLE_MAX_FRAMES];
};

/* the stack buffer: 512 bytes, the whole BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct stack);
} kw_sample_stack SEC(".maps");

static __always_inline void count(__u32 c)
{
	__u64 *v = bpf_map_lookup_elem(&kw_sample_counts, &c);

	if (v)
		*v += 1;
}

/* the index of the function holding ip, -1 if none */
static __always_inline int lookup(__u64 ip)
{
	__u32 lo = 0, hi = kw_nfuncs;

	if (hi > KW_SAMPLE_MAX_FUNCS)
		hi = KW_SAMPLE_MAX_FUNCS;
	for (int i = 0; i < KW_SAMPLE_SEARCH_STEPS && lo < hi; i++) {
		__u32 mid = ((lo + hi) / 2) & (KW_SAMPLE_MAX_FUNCS - 1);

		if (ip < kw_funcs[mid].start)
			hi = mid;
		else if (ip >= kw_funcs[mid].end)
			lo = mid + 1;
		else
			return mid;
	}
	return -1;
}

struct walk {
	struct stack *st;
	__u32 n;
	__u16 what;
	__u16 trigger;
};

static long frame(__u64 i, void *arg)
{
	struct walk *w = arg;
	int f;

	if (i >= w->n || i >= KW_SAMPLE_MAX_FRAMES)
		return 1;
	f = lookup(w->st->ip[i]);
	if (f < 0)
		return 0;
	f &= KW_SAMPLE_MAX_FUNCS - 1;
	if (!w->what && kw_funcs[f].what)
		w->what = kw_funcs[f].what;
	if (!w->trigger && kw_funcs[f].trigger)
		w->trigger = kw_funcs[f].trigger;
	/* the trigger is the last thing looked for: what is inside it */
	return w->trigger ? 1 : 0;
}

SEC("perf_event")
int kw_sample(struct bpf_perf_event_data *ctx)
{
	struct kw_sample_key key = {};
	struct walk w = {};
	__u32 zero = 0;
	__u64 one = 1, *v;
	long n;

	count(KW_SC_SAMPLES);
	w.st = bpf_map_lookup_elem(&kw_sample_stack, &zero);
	if (!w.st)
		return 0;
	/* kernel frames only: none when the sample interrupted user mode */
	n = bpf_get_stack(ctx, w.st->ip, sizeof(w.st->ip), 0);
	if (n <= 0)
		return 0;
	count(KW_SC_KERNEL);
	w.n = n / sizeof(__u64);
	if (w.n == KW_SAMPLE_MAX_FRAMES)
		count(KW_SC_DEEP);
	bpf_loop(KW_SAMPLE_MAX_FRAMES, frame, &w, 0);
	if (!w.what && !w.trigger) {
		count(KW_SC_NO_KVM);
		return 0;
	}
	key.tgid = bpf_get_current_pid_tgid() >> 32;
	key.what = w.what;
	key.trigger = w.trigger;
	v = bpf_map_lookup_elem(&kw_sample_rows, &key);
	if (v) {
		__sync_fetch_and_add(v, 1);
		return 0;
	}
	/* BPF_NOEXIST: another CPU may have made the row meanwhile */
	if (bpf_map_update_elem(&kw_sample_rows, &key, &one, BPF_NOEXIST)) {
		v = bpf_map_lookup_elem(&kw_sample_rows, &key);
		if (v)
			__sync_fetch_and_add(v, 1);
		else
			count(KW_SC_DROPPED);
	}
	return 0;
}

char LICENSE[] SEC("license") = "GPL";
