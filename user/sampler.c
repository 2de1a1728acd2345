// SPDX-License-Identifier: GPL-2.0
/* The sampled mode's loader and map reader (sampler.h). */
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "host.h"
#include "identity.h"
#include "ksyms.h"
#include "loader.h"
#include "sample_funcs.h"
#include "sampler.h"
#include "sample.skel.h"

_Static_assert(sizeof(struct kw_sample_func) == 24, "kw_sample_func");
_Static_assert(sizeof(struct kw_sample_key) == 8, "kw_sample_key");
_Static_assert(sizeof(((struct kw_sample_row *)0)->vm) == KW_VM_NAME_LEN, "a VM name");
_Static_assert(KW_SAMPLE_MAX_FUNCS == 1 << (KW_SAMPLE_SEARCH_STEPS - 1),
	       "a search of KW_SAMPLE_SEARCH_STEPS halvings covers the table");

#define MAX_CPUS 1024
/* the processes whose names are kept: more than that are shown by pid only */
#define MAX_NAMES 256

struct name {
	__u32 pid;
	char comm[16];
	char vm[KW_VM_NAME_LEN];
	char source[8];
};

struct sampler {
	struct kw_sample_bpf *skel;
	struct kw_sample_table table;
	unsigned int hz, ncpus;
	int fds[MAX_CPUS];
	struct bpf_link *links[MAX_CPUS];
	int stats_fd;
	double start, next_names;
	struct name names[MAX_NAMES];
	unsigned int nnames;
	bool verbose;
	/* sampler__fold_exited(): the rows of exited processes, by (what, trigger, VM name) */
	bool fold;
	struct kw_sampled folded;
};

static bool quiet_libbpf = true;

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (quiet_libbpf && level != LIBBPF_WARN)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

/* /sys/devices/system/cpu/online: "0-3,5" */
static int online_cpus(bool *on, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "r");
	int a, b, n = 0;
	char sep;

	if (!f)
		return -errno;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		if (fscanf(f, "%c", &sep) == 1 && sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			if (fscanf(f, "%c", &sep) != 1)
				sep = 0;
		}
		for (int c = a; c <= b && c < max; c++, n++)
			on[c] = true;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n ? n : -ENOENT;
}

struct sampler *sampler__open(unsigned int hz, bool stats, bool verbose, int *code)
{
	struct sampler *s = calloc(1, sizeof(*s));
	struct ksyms ks = {};
	static bool on[MAX_CPUS];
	int err, n;

	*code = KW_EXIT_ERROR;
	if (!s) {
		fprintf(stderr, "kvmwalk: out of memory\n");
		return NULL;
	}
	s->hz = hz;
	s->stats_fd = -1;
	s->verbose = verbose;
	for (int i = 0; i < MAX_CPUS; i++)
		s->fds[i] = -1;
	quiet_libbpf = !verbose;
	libbpf_set_print(print_fn);
	err = ksyms__load(&ks, "/proc/kallsyms");
	if (!err)
		err = kw_sample_table_build(&s->table, kw_sample_fdefs(kw_host_arch()), &ks);
	ksyms__free(&ks);
	if (err) {
		fprintf(stderr, "kvmwalk: --sample: no KVM function in /proc/kallsyms (%s): is kvm "
				"loaded, and kvmwalk root?\n",
			strerror(-err));
		*code = KW_EXIT_NOKVM;
		goto fail;
	}
	s->skel = kw_sample_bpf__open();
	if (!s->skel) {
		fprintf(stderr, "kvmwalk: --sample: cannot open the BPF object: %s\n",
			strerror(errno));
		goto fail;
	}
	s->skel->rodata->kw_nfuncs = s->table.n;
	memcpy((void *)s->skel->rodata->kw_funcs, s->table.funcs,
	       s->table.n * sizeof(s->table.funcs[0]));
	err = kw_sample_bpf__load(s->skel);
	if (err) {
		fprintf(stderr, "kvmwalk: --sample: the kernel refused the sample program: %s%s\n",
			strerror(-err), verbose ? "" : " (-v shows the verifier's log)");
		*code = err == -EPERM ? KW_EXIT_PERM : KW_EXIT_ERROR;
		goto fail;
	}
	if (stats)
		s->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	n = online_cpus(on, MAX_CPUS);
	if (n < 0) {
		fprintf(stderr, "kvmwalk: --sample: cannot read the online CPUs: %s\n",
			strerror(-n));
		goto fail;
	}
	for (int c = 0; c < MAX_CPUS; c++) {
		struct perf_event_attr attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			/* an hrtimer event: the kernel turns the frequency into a fixed period */
			.freq = 1,
			.sample_freq = hz,
		};
		int fd;

		if (!on[c])
			continue;
		fd = syscall(SYS_perf_event_open, &attr, -1, c, -1, PERF_FLAG_FD_CLOEXEC);
		if (fd < 0) {
			fprintf(stderr, "kvmwalk: --sample: perf_event_open(cpu-clock, CPU %d): %s\n",
				c, strerror(errno));
			*code = errno == EACCES || errno == EPERM ? KW_EXIT_PERM : KW_EXIT_ERROR;
			goto fail;
		}
		s->fds[c] = fd;
		s->links[c] = bpf_program__attach_perf_event(s->skel->progs.kw_sample, fd);
		if (!s->links[c]) {
			fprintf(stderr, "kvmwalk: --sample: cannot attach to CPU %d's clock: %s\n", c,
				strerror(errno));
			goto fail;
		}
		s->ncpus++;
	}
	s->start = kw_mono_s();
	return s;
fail:
	sampler__destroy(s);
	return NULL;
}

static struct name *name_of(struct sampler *s, __u32 pid)
{
	for (unsigned int i = 0; i < s->nnames; i++)
		if (s->names[i].pid == pid)
			return &s->names[i];
	return NULL;
}

void sampler__fold_exited(struct sampler *s)
{
	s->fold = true;
}

/* Reaped: no thread of it can be sampled again (a zombie's pid still answers kill(0)). */
static bool exited(__u32 tgid)
{
	return tgid && kill((pid_t)tgid, 0) && errno == ESRCH;
}

/*
 * Folds the map's rows of the processes that exited: each row's count read, the row deleted
 * from the map (after the walk over its keys: deleting the key a walk stands on restarts it),
 * added to s->folded under the process's VM name, and the name's slot freed. A sample the
 * program adds between the read and the delete is lost; none can, as the process is gone.
 */
static int fold_exited(struct sampler *s, const struct kw_sample_key *dead, size_t ndead)
{
	int fd = bpf_map__fd(s->skel->maps.kw_sample_rows);
	int err = 0;

	for (size_t i = 0; !err && i < ndead; i++) {
		struct kw_sample_row row = {};
		struct name *n = name_of(s, dead[i].tgid);
		__u64 v;

		if (bpf_map_lookup_elem(fd, &dead[i], &v) || bpf_map_delete_elem(fd, &dead[i]))
			continue;
		row.samples = v;
		snprintf(row.what, sizeof(row.what), "%s",
			 dead[i].what < s->table.nwhats ? s->table.whats[dead[i].what] : "?");
		snprintf(row.trigger, sizeof(row.trigger), "%s",
			 dead[i].trigger < KW_NR_SAMPLE_TRIGGERS
				 ? kw_sample_trigger_names[dead[i].trigger]
				 : "?");
		err = kw_sampled_fold(&s->folded, &row, n ? n->vm : "");
	}
	/* the names of the processes folded: their slots for new ones */
	for (size_t i = 0; i < ndead; i++) {
		struct name *n = name_of(s, dead[i].tgid);

		if (n)
			*n = s->names[--s->nnames];
	}
	return err;
}

void sampler__poll(struct sampler *s)
{
	struct kw_sample_key key, next, *prev = NULL;
	int fd;

	if (!s || kw_mono_s() < s->next_names)
		return;
	s->next_names = kw_mono_s() + 1;
	fd = bpf_map__fd(s->skel->maps.kw_sample_rows);
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct kw_identity *id;

		key = next;
		prev = &key;
		if (!key.tgid || name_of(s, key.tgid) || s->nnames == MAX_NAMES)
			continue;
		id = calloc(1, sizeof(*id));
		if (id && !kw_identity_read(key.tgid, "/proc", id)) {
			struct name *n = &s->names[s->nnames++];

			n->pid = key.tgid;
			snprintf(n->comm, sizeof(n->comm), "%s", id->comm);
			snprintf(n->vm, sizeof(n->vm), "%s", id->vm);
			snprintf(n->source, sizeof(n->source), "%s", id->source ? id->source : "");
		}
		free(id);
	}
}

int sampler__collect(struct sampler *s, struct kw_recording *r)
{
	struct kw_sampled *out = &r->sampled;
	struct kw_sample_key key, next, *prev = NULL;
	int ncpu = libbpf_num_possible_cpus(), fd;
	__u64 *vals;
	int err = 0;

	sampler__poll(s);
	kw_sampled_free(out);
	memset(out, 0, sizeof(*out));
	out->hz = s->hz;
	out->ncpus = s->ncpus;
	out->seconds = kw_mono_s() - s->start;
	out->nfuncs = s->table.n;
	out->nmissing = s->table.missing;
	if (ncpu <= 0)
		return -EINVAL;
	vals = calloc(ncpu, sizeof(*vals));
	if (!vals)
		return -ENOMEM;
	fd = bpf_map__fd(s->skel->maps.kw_sample_counts);
	for (__u32 c = 0; c < KW_NR_SAMPLE_COUNTERS; c++) {
		__u64 sum = 0;

		if (bpf_map_lookup_elem(fd, &c, vals))
			continue;
		for (int i = 0; i < ncpu; i++)
			sum += vals[i];
		switch (c) {
		case KW_SC_SAMPLES: out->samples = sum; break;
		case KW_SC_KERNEL: out->kernel = sum; break;
		case KW_SC_NO_KVM: out->no_kvm = sum; break;
		case KW_SC_DROPPED: out->dropped = sum; break;
		case KW_SC_DEEP: out->deep = sum; break;
		}
	}
	free(vals);
	fd = bpf_map__fd(s->skel->maps.kw_sample_rows);
	if (s->fold) {
		struct kw_sample_key *dead = NULL;
		size_t ndead = 0;

		while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
			key = next;
			prev = &key;
			if (!exited(key.tgid))
				continue;
			struct kw_sample_key *more = realloc(dead, (ndead + 1) * sizeof(*dead));

			if (!more) {
				err = -ENOMEM;
				break;
			}
			dead = more;
			dead[ndead++] = key;
		}
		if (!err)
			err = fold_exited(s, dead, ndead);
		free(dead);
		prev = NULL;
		for (size_t i = 0; !err && i < s->folded.nrows; i++)
			err = kw_sampled_add_row(out, &s->folded.rows[i]);
	}
	while (!err && !bpf_map_get_next_key(fd, prev, &next)) {
		struct kw_sample_row row = {};
		__u64 n;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n))
			continue;
		row.pid = key.tgid;
		row.samples = n;
		snprintf(row.what, sizeof(row.what), "%s",
			 key.what < s->table.nwhats ? s->table.whats[key.what] : "?");
		snprintf(row.trigger, sizeof(row.trigger), "%s",
			 key.trigger < KW_NR_SAMPLE_TRIGGERS ? kw_sample_trigger_names[key.trigger]
							     : "?");
		err = kw_sampled_add_row(out, &row);
	}
	kw_sampled_sort(out);
	/* the processes' names, for those the per-call probes did not name already */
	for (size_t i = 0; !err && i < out->nrows; i++) {
		const struct name *n = name_of(s, out->rows[i].pid);
		struct kw_vm v = {};

		if (!n || kw_recording_vm(r, n->pid))
			continue;
		v.pid = n->pid;
		snprintf(v.comm, sizeof(v.comm), "%s", n->comm);
		snprintf(v.vm, sizeof(v.vm), "%s", n->vm);
		snprintf(v.source, sizeof(v.source), "%s", n->source);
		err = kw_recording_add_vm(r, &v);
	}
	/* the program's own cost */
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);

		if (!bpf_obj_get_info_by_fd(bpf_program__fd(s->skel->progs.kw_sample), &info,
					    &len)) {
			out->run_ns = info.run_time_ns;
			out->run_cnt = info.run_cnt;
		}
	}
	return err;
}

void sampler__destroy(struct sampler *s)
{
	if (!s)
		return;
	for (int c = 0; c < MAX_CPUS; c++) {
		bpf_link__destroy(s->links[c]);
		if (s->fds[c] >= 0)
			close(s->fds[c]);
	}
	kw_sample_bpf__destroy(s->skel);
	if (s->stats_fd >= 0)
		close(s->stats_fd);
	kw_sampled_free(&s->folded);
	free(s);
}
