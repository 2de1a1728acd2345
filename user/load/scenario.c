// SPDX-License-Identifier: GPL-2.0
/*
 * kvmwalk-load's scenarios. Each phase's wall time covers only the operation that makes KVM
 * walk (a guest run, one ioctl or madvise series); the host's verification runs outside it and
 * never faults: it reads only pages that are resident, and uses mincore() for the others.
 * Reading an invalidated page to see it zeroed would map the shared zero page; the guest's
 * write fault would then copy it on write, one more MMU-notifier invalidation per page that
 * the probes would count and the workload did not intend.
 */
#include <errno.h>
#include <inttypes.h>
#include <sys/ioctl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "load/kvm.h"

struct ctx {
	const struct load_opts *o;
	struct load_results *r;
	struct vm *vm;
	int sc;
	uint64_t gen;	  /* a new guest value per run */
	uint64_t pages;	  /* data pages, all vCPUs */
	uint64_t *bitmap; /* dirty log of the data slot */
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The phase's operation ran from t0 to now. start_ns is CLOCK_MONOTONIC, the clock kvmwalk
 * record's meta.start_monotonic_ns is on: report --timeline and the checks place phases in the
 * recording's intervals with it.
 */
static void phase_end(struct load_phase *p, uint64_t t0)
{
	p->start_ns = t0;
	p->wall_ns = now_ns() - t0;
}

static struct load_phase *phase(struct ctx *c, const char *name, unsigned int iter)
{
	struct load_phase *p = results_add(c->r, c->sc, name, iter);

	if (!p)
		load_fail(EXIT_ERROR, "out of memory");
	return p;
}

static void progress(struct ctx *c, const char *name, unsigned int iter)
{
	if (!c->o->quiet)
		fprintf(stderr, "kvmwalk-load: %s: %s %u\n", scenario_name(c->sc), name, iter);
}

static int mismatch(struct ctx *c, const char *what, unsigned int iter, uint64_t got, uint64_t want)
{
	return load_fail(EXIT_MISMATCH, "%s: iteration %u: %s is %" PRIu64 ", expected %" PRIu64,
			 scenario_name(c->sc), iter, what, got, want);
}

static uint64_t new_value(struct ctx *c)
{
	/* "kvmwalk" and a run number: never 0, never what a page held before. */
	return 0x6b766d77616c6b00ULL ^ (++c->gen << 16);
}

static uint64_t count_value(struct ctx *c, uint64_t value)
{
	uint64_t n = 0;
	unsigned int i;

	for (i = 0; i < c->o->vcpus; i++)
		n += vm__count_value(c->vm, i, value);
	return n;
}

/* Every vCPU writes every page of its part; @key counts the pages verified to hold the value. */
static int guest_write(struct ctx *c, const char *name, unsigned int iter, int key)
{
	struct load_phase *p = phase(c, name, iter);
	uint64_t value = new_value(c), t0, n;
	int err;

	if (!p)
		return -ENOMEM;
	progress(c, name, iter);
	t0 = now_ns();
	err = vm__run(c->vm, c->o->mem / SZ_4K, value);
	phase_end(p, t0);
	if (err)
		return err;
	n = count_value(c, value);
	counts_set(&p->counts, key, n);
	if (n != c->pages)
		mismatch(c, load_count_names[key], iter, n, c->pages);
	return 0;
}

static int touch(struct ctx *c, unsigned int iter)
{
	struct load_phase *p;
	uint64_t blocks;
	int err;

	err = guest_write(c, "touch", iter, LC_PAGES_TOUCHED);
	if (err)
		return err;
	p = &c->r->phases[c->r->nr - 1];
	err = vm__blocks_2m(c->vm, &blocks);
	if (err)
		return err;
	counts_set(&p->counts, LC_BLOCKS_2M, blocks);
	return 0;
}

static int set_logging(struct ctx *c, bool on, unsigned int iter)
{
	const char *name = on ? "dirty-log-enable" : "dirty-log-disable";
	struct load_phase *p = phase(c, name, iter);
	uint64_t t0;
	int err;

	if (!p)
		return -ENOMEM;
	progress(c, name, iter);
	t0 = now_ns();
	err = vm__set_data_flags(c->vm, on ? KVM_MEM_LOG_DIRTY_PAGES : 0);
	phase_end(p, t0);
	counts_set(&p->counts, LC_SLOT_PAGES, c->pages);
	return err;
}

/* KVM_GET_DIRTY_LOG; the bitmap must hold exactly @want pages (all written ones). */
static int dirty_get(struct ctx *c, unsigned int iter, uint64_t want)
{
	struct load_phase *p = phase(c, "dirty-log-get", iter);
	uint64_t t0, n;
	int err;

	if (!p)
		return -ENOMEM;
	progress(c, "dirty-log-get", iter);
	memset(c->bitmap, 0, bitmap_bytes(c->pages));
	t0 = now_ns();
	err = vm__get_dirty_log(c->vm, c->bitmap);
	phase_end(p, t0);
	if (err)
		return err;
	n = bitmap_weight(c->bitmap, c->pages);
	counts_set(&p->counts, LC_GET_IOCTLS, 1);
	counts_set(&p->counts, LC_DIRTY_PAGES, n);
	if (n != want)
		mismatch(c, "dirty_pages", iter, n, want);
	return 0;
}

/*
 * KVM_CLEAR_DIRTY_LOG over the whole slot in --chunk-pages chunks (first_page must be a multiple
 * of 64, num_pages too unless the chunk ends the slot), passing the bits the last get returned.
 */
static int dirty_clear(struct ctx *c, unsigned int iter)
{
	struct load_phase *p = phase(c, "dirty-log-clear", iter);
	uint64_t chunk = c->o->chunk_pages, first, calls = 0, cleared = 0, t0;
	int err = 0;

	if (!p)
		return -ENOMEM;
	progress(c, "dirty-log-clear", iter);
	for (first = 0; first < c->pages; first += chunk)
		cleared += bitmap_weight_range(c->bitmap, first,
					       first + chunk > c->pages ? c->pages - first : chunk);
	t0 = now_ns();
	for (first = 0; first < c->pages && !err; first += chunk, calls++)
		err = vm__clear_dirty_log(c->vm, c->bitmap, first,
					  first + chunk > c->pages ? c->pages - first : chunk);
	phase_end(p, t0);
	counts_set(&p->counts, LC_CLEAR_IOCTLS, calls);
	counts_set(&p->counts, LC_PAGES_CLEARED, cleared);
	if (!err && calls != plan_chunks(c->pages, chunk))
		mismatch(c, "clear_ioctls", iter, calls, plan_chunks(c->pages, chunk));
	return err;
}

static int slot_op(struct ctx *c, const char *name, unsigned int iter)
{
	bool sparse = !strncmp(name, "sparse", 6), add = strstr(name, "-add");
	struct load_phase *p = phase(c, name, iter);
	uint64_t t0;
	int err;

	if (!p)
		return -ENOMEM;
	progress(c, name, iter);
	t0 = now_ns();
	if (sparse)
		err = add ? vm__add_sparse_slot(c->vm, c->o->sparse)
			  : vm__delete_sparse_slot(c->vm);
	else
		err = add ? vm__add_data_slot(c->vm) : vm__delete_data_slot(c->vm);
	phase_end(p, t0);
	counts_set(&p->counts, add ? LC_SLOTS_ADDED : LC_SLOTS_DELETED, 1);
	if (sparse)
		counts_set(&p->counts, LC_SPARSE_BYTES, c->o->sparse);
	else
		counts_set(&p->counts, LC_SLOT_BYTES, c->vm->data_size);
	return err;
}

/*
 * split: the first touch maps 2 MiB blocks (thp/hugetlb); enabling dirty logging splits them
 * eagerly (x86: kvm.eager_page_split, default on; arm64: only with --eager-split, else the
 * split happens on the write faults). Disabling logging does not bring the blocks back on arm64
 * (x86 zaps collapsible SPTEs), so each later iteration re-creates the slot: its stage-2 is
 * unmapped and the next touch maps blocks again from the still-huge host memory.
 */
static int run_split(struct ctx *c)
{
	unsigned int it;
	int err = 0;

	for (it = 0; it < c->o->iterations && !err; it++) {
		if (it)
			err = slot_op(c, "slot-delete", it) ?: slot_op(c, "slot-add", it);
		err = err ?: touch(c, it);
		err = err ?: set_logging(c, true, it);
		err = err ?: guest_write(c, "dirty-write", it, LC_PAGES_WRITTEN);
		err = err ?: dirty_get(c, it, c->pages);
		err = err ?: set_logging(c, false, it);
	}
	return err;
}

/*
 * clear: with KVM_DIRTY_LOG_INITIALLY_SET, enabling logging sets every bit and protects
 * nothing, so iteration 0's get reports every page although none was written since, and its
 * clear is what write-protects (arm64: and splits) the slot, chunk by chunk. From then on a
 * get reports exactly the pages written since the previous clear, and does not reset the
 * bitmap itself (manual protect: only KVM_CLEAR_DIRTY_LOG does).
 */
static int run_clear(struct ctx *c)
{
	unsigned int it;
	int err;

	err = touch(c, 0);
	err = err ?: set_logging(c, true, 0);
	err = err ?: dirty_get(c, 0, c->pages);
	err = err ?: dirty_clear(c, 0);
	for (it = 1; it <= c->o->iterations && !err; it++) {
		err = guest_write(c, "dirty-write", it, LC_PAGES_WRITTEN);
		err = err ?: dirty_get(c, it, c->pages);
		err = err ?: dirty_clear(c, it);
	}
	return err ?: set_logging(c, false, c->o->iterations);
}

static int count_resident(struct ctx *c, uint64_t off, uint64_t len, unsigned char *vec,
			  uint64_t *n)
{
	uint64_t i;

	if (mincore(c->vm->data + off, len, vec))
		return load_fail(EXIT_ERROR, "mincore: %s", strerror(errno));
	for (*n = 0, i = 0; i < len / SZ_4K; i++)
		*n += vec[i] & 1;
	return 0;
}

/*
 * invalidate: MADV_DONTNEED of one range per iteration (each call one MMU-notifier
 * invalidation over that range), then every vCPU writes its whole part again: the invalidated
 * pages refault (host: a fresh zeroed page; KVM: a new stage-2/TDP mapping), the others do not.
 * With THP, a range smaller than 2 MiB first splits the huge PMD, and that split invalidates
 * the whole 2 MiB block once more before the range itself.
 * --refault=no leaves the range unmapped: with --pattern same each iteration after the first
 * invalidates a range that maps nothing, and KVM's zap walks tables the previous zap emptied
 * (what a patch that skips empty tables shows).
 */
static int run_invalidate(struct ctx *c)
{
	uint64_t range = c->o->range, npages = range / SZ_4K, total = c->vm->data_size;
	unsigned char *before = NULL, *after = NULL;
	unsigned int it;
	int err;

	before = malloc(npages);
	after = malloc(npages);
	if (!before || !after) {
		err = load_fail(EXIT_ERROR, "out of memory");
		goto cleanup;
	}
	err = touch(c, 0);
	for (it = 1; it <= c->o->iterations && !err; it++) {
		uint64_t off = plan_range_offset(total, range, c->o->pattern, it - 1);
		struct load_phase *p = phase(c, "invalidate", it);
		uint64_t t0, resident, value, i, refaulted = 0;

		if (!p) {
			err = -ENOMEM;
			break;
		}
		progress(c, "invalidate", it);
		t0 = now_ns();
		err = madvise(c->vm->data + off, range, MADV_DONTNEED);
		phase_end(p, t0);
		if (err) {
			err = load_fail(EXIT_MEMORY,
					"madvise(MADV_DONTNEED) at offset %" PRIu64 ": %s", off,
					strerror(errno));
			break;
		}
		counts_set(&p->counts, LC_MADVISE_CALLS, 1);
		counts_set(&p->counts, LC_BYTES_INVALIDATED, range);
		err = count_resident(c, off, range, before, &resident);
		if (err)
			break;
		if (resident)
			mismatch(c, "pages resident after MADV_DONTNEED", it, resident, 0);
		if (!c->o->refault)
			continue;

		p = phase(c, "refault", it);
		if (!p) {
			err = -ENOMEM;
			break;
		}
		progress(c, "refault", it);
		value = new_value(c);
		t0 = now_ns();
		err = vm__run(c->vm, c->o->mem / SZ_4K, value);
		phase_end(p, t0);
		if (err)
			break;
		counts_set(&p->counts, LC_PAGES_WRITTEN, count_value(c, value));
		err = count_resident(c, off, range, after, &resident);
		if (err)
			break;
		for (i = 0; i < npages; i++) {
			uint64_t page = off / SZ_4K + i;
			unsigned int vcpu = page / (c->o->mem / SZ_4K);
			volatile uint64_t *w = (void *)(c->vm->data + page * SZ_4K);

			if ((before[i] & 1) || !(after[i] & 1))
				continue;
			guest_cache_sync((const void *)w);
			refaulted += *w == vm__value(value, vcpu);
		}
		counts_set(&p->counts, LC_PAGES_REFAULTED, refaulted);
		if (p->counts.v[LC_PAGES_WRITTEN] != c->pages)
			mismatch(c, "pages_written", it, p->counts.v[LC_PAGES_WRITTEN], c->pages);
		if (refaulted != npages)
			mismatch(c, "pages_refaulted", it, refaulted, npages);
	}
cleanup:
	free(before);
	free(after);
	return err;
}

/*
 * invalidate --concurrent: after the touch, the vCPUs keep writing every page of their part
 * (vm__start(loop)) while this thread madvises one range on a fixed schedule: madvise i starts
 * at t0 + i / rate (at once when the previous one ran late), so the zaps (mmu_lock held for
 * write inside the MMU notifier) and the vCPUs' refaults (mmu_lock held for read) overlap.
 * What the workload knows exactly: the madvises and their bytes (each one MMU-notifier
 * invalidation with --backing anon), the vCPUs' complete passes, and their host page faults.
 * What it cannot know: how many vCPU faults KVM took (a fault that races an invalidation
 * returns to the guest and faults again) and how often they waited for mmu_lock.
 */
static int run_invalidate_concurrent(struct ctx *c)
{
	uint64_t range = c->o->range, total = c->vm->data_size, per_vcpu = c->o->mem / SZ_4K;
	uint64_t t0, next, end = 0, calls = 0, passes = 0, faults = 0, value, n;
	uint64_t pf0 = 0, pf1 = 0, pf2 = 0;
	bool have_pf;
	uint64_t period = c->o->rate ? 1000000000ULL / c->o->rate : 0;
	unsigned char *vec = NULL;
	struct load_phase *p;
	unsigned int i;
	int err;

	/*
	 * x86 counts every kvm_mmu_do_page_fault() in the vCPU stat pf_taken (not prefetches):
	 * the vCPU faults of each phase, which the workload cannot see otherwise. arm64 has no such
	 * stat: the count is left out there.
	 */
	have_pf = !vm__vcpu_stat(c->vm, "pf_taken", &pf0);
	err = touch(c, 0);
	if (err)
		return err;
	if (have_pf && !vm__vcpu_stat(c->vm, "pf_taken", &pf1))
		counts_set(&c->r->phases[c->r->nr - 1].counts, LC_KVM_PF_TAKEN, pf1 - pf0);
	p = phase(c, "concurrent", 1);
	if (!p)
		return -ENOMEM;
	progress(c, "concurrent", 1);
	value = new_value(c);
	t0 = now_ns();
	vm__start(c->vm, per_vcpu, value, true);
	if (c->o->duration)
		end = t0 + c->o->duration * 1000000000ULL;
	for (next = t0;; next += period) {
		uint64_t now = now_ns(), off;

		if (end ? now >= end : calls >= c->o->iterations)
			break;
		/* a vCPU whose loop ended failed: stop and report it (vm__wait) */
		if (vm__ndone(c->vm))
			break;
		if (now < next) {
			struct timespec ts = { .tv_sec = next / 1000000000ULL,
					       .tv_nsec = next % 1000000000ULL };

			if (end && next >= end)
				break;
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		} else {
			next = now; /* late: no burst to catch up */
		}
		off = plan_range_offset(total, range, c->o->pattern, calls);
		if (madvise(c->vm->data + off, range, MADV_DONTNEED)) {
			err = load_fail(EXIT_MEMORY, "madvise(MADV_DONTNEED) at offset %" PRIu64 ": %s",
					off, strerror(errno));
			break;
		}
		calls++;
	}
	err = vm__wait(c->vm) ?: err;
	phase_end(p, t0);
	for (i = 0; i < c->vm->nr_vcpus; i++) {
		passes += c->vm->vcpus[i].passes;
		faults += c->vm->vcpus[i].host_faults;
	}
	counts_set(&p->counts, LC_MADVISE_CALLS, calls);
	counts_set(&p->counts, LC_BYTES_INVALIDATED, calls * range);
	counts_set(&p->counts, LC_PAGES_INVALIDATED, calls * range / SZ_4K);
	counts_set(&p->counts, LC_PASSES, passes);
	counts_set(&p->counts, LC_PAGES_WRITTEN, passes * per_vcpu);
	counts_set(&p->counts, LC_HOST_FAULTS, faults);
	if (have_pf && !vm__vcpu_stat(c->vm, "pf_taken", &pf2))
		counts_set(&p->counts, LC_KVM_PF_TAKEN, pf2 - pf1);
	if (err)
		return err;
	if (!calls)
		return load_fail(EXIT_USAGE, "invalidate --concurrent: no madvise in the time given");
	/* the last pass of each vCPU began after the last madvise: every page is back */
	n = count_value(c, value);
	if (n != c->pages)
		mismatch(c, "pages holding the value after the last pass", 1, n, c->pages);
	vec = malloc(total / SZ_4K);
	if (!vec)
		return load_fail(EXIT_ERROR, "out of memory");
	err = count_resident(c, 0, total, vec, &n);
	free(vec);
	if (!err && n != c->pages)
		mismatch(c, "pages resident after the last pass", 1, n, c->pages);
	return err;
}

/*
 * wrprotect-fault: without manual protect, each KVM_GET_DIRTY_LOG re-protects what it
 * reports, so every write pass takes one write-protection fault per page (x86: the TDP MMU's
 * fast_page_fault fixes them without mmu_lock; with Intel PML there are none).
 */
static int run_wrprotect(struct ctx *c)
{
	unsigned int it;
	int err;

	err = touch(c, 0);
	err = err ?: set_logging(c, true, 0);
	for (it = 1; it <= c->o->iterations && !err; it++) {
		err = guest_write(c, "dirty-write", it, LC_PAGES_WRITTEN);
		err = err ?: dirty_get(c, it, c->pages);
	}
	return err ?: set_logging(c, false, c->o->iterations);
}

/*
 * empty-unmap: nothing is ever mapped in the data slot (the vCPUs run once, storing nothing,
 * so that x86 has loaded its MMU roots), so each madvise, slot delete and sparse-slot delete
 * walks empty tables. arm64 unmaps a range in 1 GiB chunks, each call ending in a TLB
 * invalidation whether or not it cleared anything: deleting the --sparse slot shows one call
 * per GiB.
 */
static int run_empty_unmap(struct ctx *c)
{
	uint64_t total = c->vm->data_size, range = c->o->range;
	struct load_phase *p;
	unsigned int it;
	uint64_t t0;
	int err;

	p = phase(c, "guest-start", 0);
	if (!p)
		return -ENOMEM;
	progress(c, "guest-start", 0);
	t0 = now_ns();
	err = vm__run(c->vm, 0, new_value(c));
	phase_end(p, t0);
	counts_set(&p->counts, LC_PAGES_WRITTEN, 0);
	for (it = 1; it <= c->o->iterations && !err; it++) {
		uint64_t off, calls = 0;

		p = phase(c, "empty-madvise", it);
		if (!p)
			return -ENOMEM;
		progress(c, "empty-madvise", it);
		t0 = now_ns();
		for (off = 0; off < total && !err; off += range, calls++)
			if (madvise(c->vm->data + off, off + range > total ? total - off : range,
				    MADV_DONTNEED))
				err = load_fail(EXIT_MEMORY, "madvise(MADV_DONTNEED): %s",
						strerror(errno));
		phase_end(p, t0);
		counts_set(&p->counts, LC_MADVISE_CALLS, calls);
		counts_set(&p->counts, LC_BYTES_INVALIDATED, total);
		err = err ?: slot_op(c, "slot-delete", it);
		err = err ?: slot_op(c, "slot-add", it);
		err = err ?: slot_op(c, "sparse-add", it);
		err = err ?: slot_op(c, "sparse-delete", it);
	}
	return err;
}

#ifdef __aarch64__
/*
 * The phase "teardown": closes the VM (c->vm is NULL after), timed. Returns the phase for the
 * caller's counts, NULL when out of memory (the VM is then still open).
 */
static struct load_phase *teardown(struct ctx *c)
{
	struct load_phase *p = phase(c, "teardown", 0);
	uint64_t t0;

	if (!p)
		return NULL;
	progress(c, "teardown", 0);
	t0 = now_ns();
	vm__close(c->vm);
	phase_end(p, t0);
	c->vm = NULL;
	return p;
}

/*
 * nested-unmap (a host in kvm-arm.mode=nested): each vCPU, created with EL2, starts at vEL2
 * and ERETs once to vEL1 with VTTBR_EL2's VMID = its id + 1 and stage 2 off. Loading vEL1
 * makes KVM pick a nested stage-2 MMU for that VMID (get_s2_mmu_nested): one per vCPU, valid
 * from then until the VM is destroyed. Each madvise of one never-touched page of the data slot
 * (MADV_NOHUGEPAGE) is one MMU-notifier invalidation: kvm_unmap_gfn_range() unmaps the page
 * in the canonical MMU, then kvm_nested_s2_unmap() unmaps [0, 2^ipa_bits) of every valid
 * nested MMU in 1 GiB chunks. Nothing here needs the vCPUs to run again, and nothing faults
 * the madvised page back in. The VM's destruction, timed as "teardown", frees every MMU's
 * page tables.
 */
static int run_nested_unmap(struct ctx *c)
{
	struct load_phase *p;
	uint64_t t0, at_el1 = 0, want = c->o->enter_el1 ? c->o->vcpus : 0;
	unsigned int i, it;
	int err, ipa;

	p = phase(c, "el1-entry", 0);
	if (!p)
		return -ENOMEM;
	progress(c, "el1-entry", 0);
	t0 = now_ns();
	err = vm__run(c->vm, 0, new_value(c));
	p->wall_ns = now_ns() - t0;
	if (err)
		return err;
	for (i = 0; i < c->vm->nr_vcpus; i++) {
		int r = guest_vcpu_at_el1(&c->vm->vcpus[i]);

		if (r < 0)
			return load_fail(EXIT_ERROR, "vCPU %u: KVM_GET_ONE_REG(pstate): %s", i,
					 strerror(-r));
		at_el1 += r;
	}
	counts_set(&p->counts, LC_NESTED_MMUS, at_el1);
	/* kvm_ipa_limit: what kvm_get_pa_bits() gives a nested MMU in 7.3 */
	ipa = ioctl(c->vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_VM_IPA_SIZE);
	if (ipa > 0)
		counts_set(&p->counts, LC_IPA_BITS, ipa);
	if (at_el1 != want)
		mismatch(c, "nested_mmus (vCPUs that exited from vEL1)", 0, at_el1, want);

	for (it = 1; it <= c->o->iterations && !err; it++) {
		p = phase(c, "nested-madvise", it);
		if (!p)
			return -ENOMEM;
		progress(c, "nested-madvise", it);
		t0 = now_ns();
		if (madvise(c->vm->data, SZ_4K, MADV_DONTNEED))
			err = load_fail(EXIT_MEMORY, "madvise(MADV_DONTNEED): %s", strerror(errno));
		p->wall_ns = now_ns() - t0;
		counts_set(&p->counts, LC_MADVISE_CALLS, 1);
		counts_set(&p->counts, LC_BYTES_INVALIDATED, SZ_4K);
		counts_set(&p->counts, LC_NESTED_MMUS, at_el1);
	}
	if (err)
		return err;

	p = teardown(c);
	if (!p)
		return -ENOMEM;
	counts_set(&p->counts, LC_NESTED_MMUS, at_el1);
	return 0;
}
#endif

#ifdef __aarch64__
/*
 * teardown: the vCPUs touch their memory, then the VM is closed, timed as "teardown". The last
 * reference to the VM (close of the VM fd, after the vCPU fds) destroys it before close()
 * returns (the file's release runs as task work on the way back to user space), and with it
 * the stage-2 tables: kvm_stage2_destroy() walks [0, 2^ipa_bits), 1 GiB at a time in 7.3
 * (stage2_destroy_range(), cond_resched() in between), so a 48-bit VM makes 2^18 walks, all
 * but the ones over the data slot of nothing. Large walks that visit nothing are what the
 * walk probe's cost against the walk is measured on (tests/vm/cases/large-walk).
 */
static int run_teardown(struct ctx *c)
{
	struct load_phase *p;
	int err, bits = c->vm->ipa_bits;

	err = touch(c, 0);
	if (err)
		return err;
	p = teardown(c);
	if (!p)
		return -ENOMEM;
	counts_set(&p->counts, LC_IPA_BITS, bits);
	return 0;
}
#endif

/*
 * --hold: the VM stays open until FILE, created here, is removed (polled every 20 ms), so that
 * a reader of KVM's statistics (kvmwalk record, serve) sees the VM's final values while it lives.
 * Meanwhile it holds a binary stats fd of the VM and of each vCPU, as QEMU 8.1+ holds one per
 * vCPU: KVM refuses KVM_GET_STATS_FD from any process but the VM's, so kvmwalk's binary stats
 * reader can read only the stats fds a VMM holds.
 */
static void hold(const char *path, struct vm *vm)
{
	int *fds = calloc(vm->nr_vcpus + 1, sizeof(*fds));
	FILE *f;

	for (unsigned int i = 0; fds && i <= vm->nr_vcpus; i++)
		fds[i] = ioctl(i ? vm->vcpus[i - 1].fd : vm->vm_fd, KVM_GET_STATS_FD, NULL);
	f = fopen(path, "w");
	if (!f) {
		load_fail(EXIT_ERROR, "--hold: cannot create %s: %s", path, strerror(errno));
	} else {
		fclose(f);
		while (!access(path, F_OK))
			usleep(20000);
	}
	for (unsigned int i = 0; fds && i <= vm->nr_vcpus; i++)
		if (fds[i] >= 0)
			close(fds[i]);
	free(fds);
}

int scenario_run(int sc, const struct load_opts *o, struct load_results *r)
{
	struct vm_config cfg = { .manual_protect = sc == SC_CLEAR, .nested = sc == SC_NESTED_UNMAP };
	struct ctx c = { .o = o, .r = r, .sc = sc };
	int err;

	c.pages = o->mem / SZ_4K * o->vcpus;
	c.bitmap = calloc(1, bitmap_bytes(c.pages));
	if (!c.bitmap)
		return load_fail(EXIT_ERROR, "out of memory");
	if (!o->quiet)
		fprintf(stderr, "kvmwalk-load: %s: %u vCPUs, %" PRIu64 " pages\n",
			scenario_name(sc), o->vcpus, c.pages);
	err = vm__open(o, &cfg, &c.vm);
	if (err)
		goto cleanup;
	switch (sc) {
	case SC_SPLIT:
		err = run_split(&c);
		break;
	case SC_CLEAR:
		err = run_clear(&c);
		break;
	case SC_INVALIDATE:
		err = o->concurrent ? run_invalidate_concurrent(&c) : run_invalidate(&c);
		break;
	case SC_WRPROTECT_FAULT:
		err = run_wrprotect(&c);
		break;
	case SC_EMPTY_UNMAP:
		err = run_empty_unmap(&c);
		break;
#ifdef __aarch64__
	case SC_NESTED_UNMAP:
		err = run_nested_unmap(&c);
		break;
	case SC_TEARDOWN:
		err = run_teardown(&c);
		break;
#endif
	default:
		err = load_fail(EXIT_USAGE, "unknown scenario %d", sc);
	}
cleanup:
	if (o->hold && c.vm)
		hold(o->hold, c.vm);
	vm__close(c.vm);
	free(c.bitmap);
	return err;
}
