// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-load's VM: /dev/kvm, memslots, dirty logs, and one thread per vCPU. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/mman.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "load/kvm.h"

#ifndef MAP_HUGE_2MB
#define MAP_HUGE_2MB (21 << MAP_HUGE_SHIFT)
#endif

static int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return 0;
}

static void kick_handler(int sig)
{
	(void)sig;
}

static int vcpu_run_once(struct vcpu *v)
{
	struct vm *vm = v->vm;
	size_t n;

	for (;;) {
		if (ioctl(v->fd, KVM_RUN, 0) < 0) {
			int err = errno;

			if (err == EINTR && !v->kicked)
				continue;
			n = snprintf(v->why, sizeof(v->why), "vCPU %u: %s: ", v->id,
				     v->kicked ? "no exit within --timeout" : strerror(err));
			guest_dump(v, v->why + n, sizeof(v->why) - n);
			return -EINTR;
		}
		if (guest_exit_ok(v))
			return 0;
		n = snprintf(v->why, sizeof(v->why), "vCPU %u: unexpected exit: ", v->id);
		guest_dump(v, v->why + n, sizeof(v->why) - n);
		(void)vm;
		return -EIO;
	}
}

static uint64_t thread_faults(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return 0;
	return ru.ru_minflt + ru.ru_majflt;
}

/*
 * A loop of passes until vm->loop_stop. loop_stop is read before the KVM_RUN: a pass that saw
 * it set started after the host's last madvise returned, so it rewrote every page. The
 * thread's faults (getrusage) are KVM's get_user_pages faults on pages the madvises freed:
 * mm_account_fault() charges a GUP fault to current's min_flt/maj_flt like any other. Nothing
 * in the loop itself faults (the kvm_run page and the stack are resident from earlier runs).
 */
static int vcpu_run_loop(struct vcpu *v)
{
	uint64_t f0 = thread_faults();
	int err = 0;

	v->passes = 0;
	for (;;) {
		int last = __atomic_load_n(&v->vm->loop_stop, __ATOMIC_ACQUIRE);

		err = vcpu_run_once(v);
		if (err)
			break;
		v->passes++;
		if (last)
			break;
	}
	v->host_faults = thread_faults() - f0;
	return err;
}

static void *vcpu_thread(void *arg)
{
	struct vcpu *v = arg;
	struct vm *vm = v->vm;
	int err;

	pthread_mutex_lock(&vm->lock);
	for (;;) {
		while (v->gen_seen == vm->gen && !vm->stop)
			pthread_cond_wait(&vm->go, &vm->lock);
		if (vm->stop)
			break;
		v->gen_seen = vm->gen;
		pthread_mutex_unlock(&vm->lock);
		err = vm->loop ? vcpu_run_loop(v) : vcpu_run_once(v);
		pthread_mutex_lock(&vm->lock);
		v->failed = err;
		v->gen_done = v->gen_seen;
		vm->ndone++;
		pthread_cond_broadcast(&vm->done);
	}
	pthread_mutex_unlock(&vm->lock);
	return NULL;
}

static int set_slot(struct vm *vm, uint32_t slot, uint32_t flags, uint64_t gpa, uint64_t size,
		    void *hva)
{
	struct kvm_userspace_memory_region r = {
		.slot = slot,
		.flags = flags,
		.guest_phys_addr = gpa,
		.memory_size = size,
		.userspace_addr = (uintptr_t)hva,
	};

	if (ioctl(vm->vm_fd, KVM_SET_USER_MEMORY_REGION, &r) < 0)
		return -errno;
	return 0;
}

static int map_data(struct vm *vm)
{
	const struct load_opts *o = vm->o;
	uint64_t size = vm->data_size;
	char buf[256];
	uint8_t *p;

	if (o->backing == BACKING_HUGETLB) {
		unsigned long long free_pages = 0;

		if (!read_file("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", buf,
			       sizeof(buf)))
			free_pages = strtoull(buf, NULL, 10);
		if (free_pages < size / SZ_2M)
			return load_fail(EXIT_NO_CAP,
					 "hugetlb: %llu free 2 MiB huge pages, %" PRIu64
					 " needed (echo %" PRIu64 " > /proc/sys/vm/nr_hugepages)",
					 free_pages, size / SZ_2M, size / SZ_2M);
		p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB | MAP_HUGE_2MB, -1, 0);
		if (p == MAP_FAILED)
			return load_fail(EXIT_MEMORY,
					 "mmap of %" PRIu64 " bytes of hugetlb memory: %s", size,
					 strerror(errno));
		vm->data_map = p;
		vm->data_map_len = size;
		vm->data = p;
		return 0;
	}
	if (o->backing == BACKING_THP &&
	    (read_file("/sys/kernel/mm/transparent_hugepage/enabled", buf, sizeof(buf)) ||
	     !thp_enabled_parse(buf)))
		return load_fail(EXIT_NO_CAP,
				 "--backing thp: transparent huge pages are not "
				 "available (/sys/kernel/mm/transparent_hugepage/enabled)");
	/*
	 * KVM maps a 2 MiB block only when the host address and the GPA are equally aligned
	 * within 2 MiB and the host maps a huge page there: align the host memory to 2 MiB.
	 */
	p = mmap(NULL, size + SZ_2M, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return load_fail(EXIT_MEMORY, "mmap of %" PRIu64 " bytes: %s", size,
				 strerror(errno));
	vm->data_map = p;
	vm->data_map_len = size + SZ_2M;
	vm->data = (uint8_t *)(((uintptr_t)p + SZ_2M - 1) & ~(uintptr_t)(SZ_2M - 1));
	/* Both advices are explicit: with THP "always", anon memory would be huge otherwise. */
	if (madvise(vm->data, size, o->backing == BACKING_THP ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		return load_fail(o->backing == BACKING_THP ? EXIT_NO_CAP : EXIT_MEMORY,
				 "madvise(%s): %s",
				 o->backing == BACKING_THP ? "MADV_HUGEPAGE" : "MADV_NOHUGEPAGE",
				 strerror(errno));
	return 0;
}

static int check_cap(struct vm *vm, long cap, const char *name, int *value)
{
	int r = ioctl(vm->vm_fd, KVM_CHECK_EXTENSION, cap);

	if (r <= 0)
		return load_fail(EXIT_NO_CAP, "the kernel lacks %s", name);
	if (value)
		*value = r;
	return 0;
}

int vm__open(const struct load_opts *o, const struct vm_config *cfg, struct vm **out)
{
	const void *code;
	struct vm *vm;
	size_t len;
	unsigned int i;
	unsigned long vm_type;
	int err, r;

	*out = NULL;
	vm = calloc(1, sizeof(*vm));
	if (!vm)
		return load_fail(EXIT_ERROR, "out of memory");
	vm->o = o;
	vm->kvm_fd = vm->vm_fd = vm->vgic_fd = -1;
	vm->nested = cfg && cfg->nested;
	vm->data_size = o->mem * o->vcpus;
	pthread_mutex_init(&vm->lock, NULL);
	pthread_cond_init(&vm->go, NULL);
	pthread_cond_init(&vm->done, NULL);
	*out = vm;

	vm->kvm_fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
	if (vm->kvm_fd < 0)
		return load_fail(EXIT_NO_KVM, "cannot open /dev/kvm: %s", strerror(errno));
	r = ioctl(vm->kvm_fd, KVM_GET_API_VERSION, 0);
	if (r < 0)
		return load_fail(EXIT_NO_KVM, "/dev/kvm is not KVM: KVM_GET_API_VERSION: %s",
				 strerror(errno));
	if (r != KVM_API_VERSION)
		return load_fail(EXIT_NO_KVM, "/dev/kvm: API version %d, want %d", r,
				 KVM_API_VERSION);
	vm->run_size = ioctl(vm->kvm_fd, KVM_GET_VCPU_MMAP_SIZE, 0);
	if (vm->run_size <= 0)
		return load_fail(EXIT_NO_KVM, "KVM_GET_VCPU_MMAP_SIZE: %s", strerror(errno));
	/* Type 0: x86's default VM, arm64's default IPA size (40 bits). */
	vm_type = 0;
	vm->ipa_bits = 40;
#ifdef __aarch64__
	if (o->ipa_bits) {
		int limit = ioctl(vm->kvm_fd, KVM_CHECK_EXTENSION, KVM_CAP_ARM_VM_IPA_SIZE);

		if (limit <= 0)
			return load_fail(EXIT_NO_CAP, "--ipa-bits: no KVM_CAP_ARM_VM_IPA_SIZE");
		if (o->ipa_bits > limit)
			return load_fail(EXIT_NO_CAP, "--ipa-bits %d: this host's IPA limit is %d bits",
					 o->ipa_bits, limit);
		vm->ipa_bits = o->ipa_bits < 0 ? limit : o->ipa_bits;
		vm_type = KVM_VM_TYPE_ARM_IPA_SIZE(vm->ipa_bits);
	}
#endif
	do
		vm->vm_fd = ioctl(vm->kvm_fd, KVM_CREATE_VM, vm_type);
	while (vm->vm_fd < 0 && errno == EINTR);
	if (vm->vm_fd < 0)
		return load_fail(EXIT_NO_KVM, "KVM_CREATE_VM: %s", strerror(errno));

	if (check_cap(vm, KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY", NULL) ||
	    check_cap(vm, KVM_CAP_IMMEDIATE_EXIT, "KVM_CAP_IMMEDIATE_EXIT", NULL))
		return -EOPNOTSUPP;
	/* Before any memslot: arm64 rejects KVM_CAP_ARM_EAGER_SPLIT_CHUNK_SIZE afterwards. */
	err = guest_vm_setup(vm);
	if (err)
		return err;
	if (cfg && cfg->manual_protect) {
		/*
		 * KVM_CHECK_EXTENSION returns the flags the kernel accepts. With
		 * INITIALLY_SET, enabling dirty logging sets every bit of the slot's bitmap
		 * and write-protects nothing (arm64 and x86 also skip the eager split):
		 * protection (and on arm64 the split) happens chunk by chunk in
		 * KVM_CLEAR_DIRTY_LOG. KVM_GET_DIRTY_LOG then only copies the bitmap.
		 */
		struct kvm_enable_cap cap = {
			.cap = KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
			.args[0] =
				KVM_DIRTY_LOG_MANUAL_PROTECT_ENABLE | KVM_DIRTY_LOG_INITIALLY_SET,
		};
		int flags = 0;

		if (check_cap(vm, KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2,
			      "KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2", &flags))
			return -EOPNOTSUPP;
		if (!(flags & KVM_DIRTY_LOG_INITIALLY_SET))
			return load_fail(EXIT_NO_CAP,
					 "the kernel lacks KVM_DIRTY_LOG_INITIALLY_SET "
					 "(KVM_CAP_MANUAL_DIRTY_LOG_PROTECT2 = %d)",
					 flags);
		if (ioctl(vm->vm_fd, KVM_ENABLE_CAP, &cap) < 0)
			return load_fail(EXIT_NO_CAP,
					 "KVM_ENABLE_CAP(MANUAL_DIRTY_LOG_PROTECT2): %s",
					 strerror(errno));
	}

	vm->code =
		mmap(NULL, CODE_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (vm->code == MAP_FAILED) {
		vm->code = NULL;
		return load_fail(EXIT_MEMORY, "mmap of the code slot: %s", strerror(errno));
	}
	code = guest_code(&len);
	memcpy(vm->code, code, len);
	err = set_slot(vm, SLOT_CODE, 0, CODE_GPA, CODE_SIZE, vm->code);
	if (err)
		return load_fail(EXIT_MEMORY, "memslot %d (code) at GPA %#" PRIx64 ": %s",
				 SLOT_CODE, CODE_GPA, strerror(-err));
	err = map_data(vm);
	if (err)
		return err;
	err = vm__add_data_slot(vm);
	if (err)
		return err;

	vm->vcpus = calloc(o->vcpus, sizeof(*vm->vcpus));
	if (!vm->vcpus)
		return load_fail(EXIT_ERROR, "out of memory");
	for (i = 0; i < o->vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		v->vm = vm;
		v->id = i;
		v->fd = ioctl(vm->vm_fd, KVM_CREATE_VCPU, i);
		if (v->fd < 0)
			return load_fail(EXIT_ERROR, "KVM_CREATE_VCPU %u: %s", i, strerror(errno));
		v->run = mmap(NULL, vm->run_size, PROT_READ | PROT_WRITE, MAP_SHARED, v->fd, 0);
		if (v->run == MAP_FAILED) {
			v->run = NULL;
			return load_fail(EXIT_ERROR, "mmap of vCPU %u's kvm_run: %s", i,
					 strerror(errno));
		}
		vm->nr_vcpus++;
		err = guest_vcpu_setup(vm, v);
		if (err)
			return err;
	}
	{
		/* No SA_RESTART: the kick must make KVM_RUN return EINTR. */
		struct sigaction sa = { .sa_handler = kick_handler };

		sigemptyset(&sa.sa_mask);
		sigaction(SIGUSR1, &sa, NULL);
	}
	for (i = 0; i < vm->nr_vcpus; i++) {
		err = pthread_create(&vm->vcpus[i].thread, NULL, vcpu_thread, &vm->vcpus[i]);
		if (err)
			return load_fail(EXIT_ERROR, "pthread_create: %s", strerror(err));
		vm->vcpus[i].started = true;
	}
	return 0;
}

void vm__close(struct vm *vm)
{
	unsigned int i;

	if (!vm)
		return;
	pthread_mutex_lock(&vm->lock);
	vm->stop = true;
	pthread_cond_broadcast(&vm->go);
	pthread_mutex_unlock(&vm->lock);
	for (i = 0; vm->vcpus && i < vm->nr_vcpus; i++) {
		struct vcpu *v = &vm->vcpus[i];

		if (v->started)
			pthread_join(v->thread, NULL);
		if (v->run)
			munmap(v->run, vm->run_size);
		if (v->fd >= 0)
			close(v->fd);
	}
	free(vm->vcpus);
	if (vm->vgic_fd >= 0)
		close(vm->vgic_fd);
	if (vm->vm_fd >= 0)
		close(vm->vm_fd);
	if (vm->kvm_fd >= 0)
		close(vm->kvm_fd);
	if (vm->code)
		munmap(vm->code, CODE_SIZE);
	if (vm->data_map)
		munmap(vm->data_map, vm->data_map_len);
	if (vm->sparse)
		munmap(vm->sparse, vm->sparse_size);
	pthread_cond_destroy(&vm->go);
	pthread_cond_destroy(&vm->done);
	pthread_mutex_destroy(&vm->lock);
	free(vm);
}

uint64_t vm__value(uint64_t value, unsigned int vcpu)
{
	return value ^ vcpu;
}

int vm__run(struct vm *vm, uint64_t pages, uint64_t value)
{
	vm__start(vm, pages, value, false);
	return vm__wait(vm);
}

unsigned int vm__ndone(struct vm *vm)
{
	unsigned int n;

	pthread_mutex_lock(&vm->lock);
	n = vm->ndone;
	pthread_mutex_unlock(&vm->lock);
	return n;
}

void vm__start(struct vm *vm, uint64_t pages, uint64_t value, bool loop)
{
	unsigned int i;

	for (i = 0; i < vm->nr_vcpus; i++) {
		struct mailbox *mb =
			(void *)(vm->code + (MAILBOX_GPA - CODE_GPA) + i * MAILBOX_STRIDE);

		mb->start = DATA_GPA + i * vm->o->mem;
		mb->pages = pages;
		mb->stride = SZ_4K;
		mb->value = vm__value(value, i);
		mb->exit_gpa = EXIT_GPA;
		guest_cache_sync(mb);
		vm->vcpus[i].kicked = 0;
		vm->vcpus[i].run->immediate_exit = 0;
		vm->vcpus[i].passes = vm->vcpus[i].host_faults = 0;
	}
	pthread_mutex_lock(&vm->lock);
	vm->loop = loop;
	__atomic_store_n(&vm->loop_stop, 0, __ATOMIC_RELEASE);
	++vm->gen;
	vm->ndone = 0;
	pthread_cond_broadcast(&vm->go);
	pthread_mutex_unlock(&vm->lock);
}

int vm__wait(struct vm *vm)
{
	unsigned int i, want = vm->nr_vcpus;
	struct timespec deadline;
	int err = 0, r = 0;
	uint64_t gen;

	__atomic_store_n(&vm->loop_stop, 1, __ATOMIC_RELEASE);
	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += vm->o->timeout;

	pthread_mutex_lock(&vm->lock);
	gen = vm->gen;
	while (vm->ndone < want && r != ETIMEDOUT)
		r = pthread_cond_timedwait(&vm->done, &vm->lock, &deadline);
	if (vm->ndone < want) {
		/*
		 * immediate_exit covers a thread that has not entered KVM_RUN yet; the signal
		 * one that is inside it.
		 */
		for (i = 0; i < vm->nr_vcpus; i++) {
			struct vcpu *v = &vm->vcpus[i];

			if (v->gen_done == gen)
				continue;
			v->kicked = 1;
			v->run->immediate_exit = 1;
			pthread_kill(v->thread, SIGUSR1);
		}
		clock_gettime(CLOCK_REALTIME, &deadline);
		deadline.tv_sec += 10;
		r = 0;
		while (vm->ndone < want && r != ETIMEDOUT)
			r = pthread_cond_timedwait(&vm->done, &vm->lock, &deadline);
		if (vm->ndone < want) {
			pthread_mutex_unlock(&vm->lock);
			load_fail(EXIT_GUEST,
				  "a vCPU thread stays in KVM_RUN after a kick; giving up");
			fflush(NULL);
			_exit(EXIT_GUEST);
		}
	}
	pthread_mutex_unlock(&vm->lock);
	for (i = 0; i < vm->nr_vcpus; i++) {
		if (!vm->vcpus[i].failed)
			continue;
		load_fail(EXIT_GUEST, "%s", vm->vcpus[i].why);
		err = -EIO;
	}
	return err;
}

int vm__set_data_flags(struct vm *vm, uint32_t flags)
{
	int err = set_slot(vm, SLOT_DATA, flags, DATA_GPA, vm->data_size, vm->data);

	if (err)
		return load_fail(err == -EINVAL ? EXIT_NO_CAP : EXIT_MEMORY,
				 "memslot %d flags %#x: %s", SLOT_DATA, flags, strerror(-err));
	vm->data_flags = flags;
	return 0;
}

int vm__delete_data_slot(struct vm *vm)
{
	int err = set_slot(vm, SLOT_DATA, 0, DATA_GPA, 0, vm->data);

	if (err)
		return load_fail(EXIT_MEMORY, "deleting memslot %d: %s", SLOT_DATA, strerror(-err));
	vm->data_present = false;
	vm->data_flags = 0;
	return 0;
}

int vm__add_data_slot(struct vm *vm)
{
	int err = set_slot(vm, SLOT_DATA, 0, DATA_GPA, vm->data_size, vm->data);

	if (err)
		return load_fail(EXIT_MEMORY,
				 "memslot %d (data) at GPA %#" PRIx64 ", %" PRIu64 " bytes: %s",
				 SLOT_DATA, DATA_GPA, vm->data_size, strerror(-err));
	vm->data_present = true;
	vm->data_flags = 0;
	return 0;
}

int vm__add_sparse_slot(struct vm *vm, uint64_t size)
{
	int err;

	if (!vm->sparse) {
		/* MAP_NORESERVE: never touched, so never charged to the commit limit. */
		void *p = mmap(NULL, size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

		if (p == MAP_FAILED)
			return load_fail(EXIT_MEMORY,
					 "mmap of the %" PRIu64 "-byte sparse slot: %s", size,
					 strerror(errno));
		vm->sparse = p;
		vm->sparse_size = size;
	}
	err = set_slot(vm, SLOT_SPARSE, 0, SPARSE_GPA, size, vm->sparse);
	if (err)
		return load_fail(EXIT_MEMORY,
				 "memslot %d (sparse) at GPA %#" PRIx64 ", %" PRIu64
				 " bytes: %s (beyond the guest physical address space?)",
				 SLOT_SPARSE, SPARSE_GPA, size, strerror(-err));
	return 0;
}

int vm__delete_sparse_slot(struct vm *vm)
{
	int err = set_slot(vm, SLOT_SPARSE, 0, SPARSE_GPA, 0, vm->sparse);

	if (err)
		return load_fail(EXIT_MEMORY, "deleting memslot %d: %s", SLOT_SPARSE,
				 strerror(-err));
	return 0;
}

int vm__get_dirty_log(struct vm *vm, uint64_t *bitmap)
{
	struct kvm_dirty_log log = { .slot = SLOT_DATA, .dirty_bitmap = bitmap };

	if (ioctl(vm->vm_fd, KVM_GET_DIRTY_LOG, &log) < 0)
		return load_fail(EXIT_ERROR, "KVM_GET_DIRTY_LOG: %s", strerror(errno));
	return 0;
}

/* @first must be a multiple of 64; bit 0 of the bitmap passed is page @first. */
int vm__clear_dirty_log(struct vm *vm, uint64_t *bitmap, uint64_t first, uint64_t n)
{
	struct kvm_clear_dirty_log log = {
		.slot = SLOT_DATA,
		.first_page = first,
		.num_pages = n,
		.dirty_bitmap = bitmap + first / 64,
	};

	if (ioctl(vm->vm_fd, KVM_CLEAR_DIRTY_LOG, &log) < 0)
		return load_fail(EXIT_ERROR,
				 "KVM_CLEAR_DIRTY_LOG pages %" PRIu64 "+%" PRIu64 ": %s", first, n,
				 strerror(errno));
	return 0;
}

uint64_t vm__count_value(struct vm *vm, unsigned int vcpu, uint64_t value)
{
	uint64_t pages = vm->o->mem / SZ_4K, i, n = 0, want = vm__value(value, vcpu);
	uint8_t *base = vm->data + vcpu * vm->o->mem;

	for (i = 0; i < pages; i++) {
		volatile uint64_t *w = (void *)(base + i * SZ_4K);

		guest_cache_sync((const void *)w);
		n += *w == want;
	}
	return n;
}

int vm__blocks_2m(struct vm *vm, uint64_t *blocks)
{
	const char *key = vm->o->backing == BACKING_HUGETLB ? "Private_Hugetlb" : "AnonHugePages";
	size_t cap = 1 << 20, len = 0;
	long long bytes;
	char *buf;
	ssize_t n;
	int fd;

	fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return load_fail(EXIT_ERROR, "/proc/self/smaps: %s", strerror(errno));
	buf = malloc(cap);
	while (buf && (n = read(fd, buf + len, cap - len - 1)) > 0) {
		len += n;
		if (len + 1 == cap) {
			char *nb = realloc(buf, cap * 2);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
			cap *= 2;
		}
	}
	close(fd);
	if (!buf)
		return load_fail(EXIT_ERROR, "out of memory");
	buf[len] = 0;
	bytes = smaps_sum_kb_bytes(buf, (uintptr_t)vm->data, (uintptr_t)vm->data + vm->data_size,
				   key);
	free(buf);
	if (bytes < 0)
		return load_fail(EXIT_ERROR, "no smaps entry for the data memory");
	*blocks = bytes / SZ_2M;
	return 0;
}

/*
 * The sum over the vCPUs of the cumulative binary statistic @name (KVM_GET_STATS_FD, 5.14+; one
 * u64 for a plain counter): -ENOENT when this KVM has no such statistic (arm64 counts no page
 * faults), -ENOTTY without binary stats.
 */
int vm__vcpu_stat(struct vm *vm, const char *name, uint64_t *sum)
{
	unsigned int i;
	int err = 0;

	*sum = 0;
	for (i = 0; i < vm->nr_vcpus && !err; i++) {
		struct kvm_stats_header h;
		struct kvm_stats_desc *d = NULL;
		size_t dsz;
		uint64_t v;
		uint32_t k;
		int fd;

		fd = ioctl(vm->vcpus[i].fd, KVM_GET_STATS_FD, NULL);
		if (fd < 0)
			return -errno;
		err = -ENOENT;
		if (pread(fd, &h, sizeof(h), 0) != sizeof(h))
			goto next;
		dsz = sizeof(*d) + h.name_size;
		d = malloc(dsz);
		if (!d)
			goto next;
		for (k = 0; k < h.num_desc; k++) {
			if (pread(fd, d, dsz, h.desc_offset + (uint64_t)k * dsz) != (ssize_t)dsz)
				break;
			d->name[h.name_size - 1] = 0;
			if (strcmp(d->name, name))
				continue;
			if (d->size == 1 && pread(fd, &v, 8, h.data_offset + d->offset) == 8) {
				*sum += v;
				err = 0;
			}
			break;
		}
next:
		free(d);
		close(fd);
	}
	return err;
}
