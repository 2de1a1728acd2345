// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: probing. The loader in stages (loader.h): loader__new() checks the host and reads what
 * planning needs, loader__plan() decides per probe how to attach it (loader_plan.c, from the
 * catalogue, probes.c), loader__load() sets up the object (loader_load.c) and loads it,
 * loader__attach() attaches (loader_attach.c) and replans what the kernel refused;
 * loader__open() drives them, again while the plan changes. With loader_load.c,
 * loader_attach.c, collect.c (the map reader), events.c and their base loader_state.c, the only
 * code that touches libbpf (not loader_plan.c: plain C, unit-tested).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

#include "events.h"
#include "host.h"
#include "loader.h"
#include "loader_state.h"
#include "version.h"

/* A program the kernel refuses, or a refused kprobe, means a new plan and a new load: how often. */
#define MAX_LOADS 6

static struct loader *cur_loader; /* for the libbpf print callback */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	va_list aq;

	if (!cur_loader)
		return 0;
	va_copy(aq, ap);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	/*
	 * The retry depends on this line: libbpf's "prog '%s': failed to load: ..." warning in
	 * bpf_object__load_progs() names the program the kernel refused; loader__load() makes its
	 * probe unavailable and loads again.
	 */
	kw_libbpf_failed_prog(buf, cur_loader->failed_prog, sizeof(cur_loader->failed_prog));
	/* not buf: a verifier log is one message of many kilobytes */
	if (cur_loader->opts.verbose)
		vfprintf(stderr, fmt, aq);
	va_end(aq);
	return 0;
}

/* ---- the stages ----------------------------------------------------------------------------- */

static int check_privileges(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};
	long r;

	if (geteuid() == 0)
		return 0;
	r = syscall(SYS_capget, &hdr, data);
	/* CAP_BPF = 39, CAP_PERFMON = 38, both in the second word */
	if (!r && (data[1].effective & (1U << (39 - 32))) &&
	    (data[1].effective & (1U << (38 - 32))))
		return 0;
	return -EPERM;
}

struct loader *loader__new(const struct loader_opts *opts, int *exit_code)
{
	struct loader *l = calloc(1, sizeof(*l));
	const char *arch = kw_host_arch();
	int err;

	*exit_code = KW_EXIT_ERROR;
	if (!l) {
		fprintf(stderr, "kvmwalk: out of memory\n");
		return NULL;
	}
	l->opts = *opts;
	l->stats_fd = -1;
	l->stats_sysctl_old = -1;
	cur_loader = l;
	libbpf_set_print(libbpf_print);

	/* --probe: every name must be a probe of this arch (a typo must not record nothing). */
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!(opts->required & KW_PROBE_BIT(i)) || kw_probe_in_arch(i, arch))
			continue;
		fprintf(stderr,
			"kvmwalk: requested probe %s does not exist on %s (see kvmwalk probes)\n",
			kw_probes[i].name, arch);
		*exit_code = KW_EXIT_NOFUNC;
		goto fail;
	}
	if (check_privileges()) {
		fprintf(stderr, "kvmwalk: needs root, or CAP_BPF and CAP_PERFMON (try sudo)\n");
		*exit_code = KW_EXIT_PERM;
		goto fail;
	}
	if (access("/sys/kernel/btf/vmlinux", R_OK)) {
		fprintf(stderr, "kvmwalk: this kernel has no BTF (/sys/kernel/btf/vmlinux); "
				"it needs CONFIG_DEBUG_INFO_BTF=y\n");
		*exit_code = KW_EXIT_NOBTF;
		goto fail;
	}
	if (access("/dev/kvm", F_OK) && access("/sys/module/kvm", F_OK)) {
		fprintf(stderr, "kvmwalk: not a KVM host: no /dev/kvm and no kvm module loaded "
				"(modprobe kvm-intel, kvm-amd, or boot arm64 at EL2)\n");
		*exit_code = KW_EXIT_NOKVM;
		goto fail;
	}
	err = ksyms__load(&l->ksyms, "/proc/kallsyms");
	if (err) {
		fprintf(stderr, "kvmwalk: cannot read /proc/kallsyms: %s\n", strerror(-err));
		goto fail;
	}
	/* The tracepoint fallbacks and the traceable check need tracefs (mounted if it is not). */
	if (!kw_tracefs_find(&l->tracefs, "", true) && l->tracefs.mounted)
		fprintf(stderr, "kvmwalk: tracefs was not mounted; mounted it at %s\n",
			l->tracefs.root);
	if (l->tracefs.root[0]) {
		char path[192];

		snprintf(path, sizeof(path), "%s/available_filter_functions", l->tracefs.root);
		l->traceable = kw_read_file(path);
	}
	if (!strcmp(arch, "arm64"))
		kw_host_arm64_mode(l->kvm_mode, sizeof(l->kvm_mode));
	kw_host_preempt(l->preempt, sizeof(l->preempt), l->preempt_src, sizeof(l->preempt_src));
	l->planner = (struct kw_planner){
		.opts = &l->opts,
		.ksyms = &l->ksyms,
		.tracefs = &l->tracefs,
		.traceable = l->traceable,
		.kvm_mode = l->kvm_mode,
		.preempt = l->preempt,
		/*
		 * kernel/kprobes.c is built only with CONFIG_KPROBES: without register_kprobe()
		 * no kprobe attaches (libbpf says ENOENT: no kprobe PMU, no kprobe_events)
		 */
		.no_kprobes = l->ksyms.n && !ksyms__find(&l->ksyms, "register_kprobe"),
		.fentry_test = loader__fentry_test,
		.ctx = l,
	};
	*exit_code = KW_EXIT_OK;
	return l;
fail:
	loader__destroy(l);
	return NULL;
}

void loader__plan(struct loader *l)
{
	kw_plan_all(&l->planner, l->plan, l->uplan);
}

int loader__load(struct loader *l)
{
	int err;

	l->skel = kvmwalk_bpf__open();
	if (!l->skel) {
		err = -errno;
		fprintf(stderr, "kvmwalk: cannot open the BPF object: %s\n", strerror(-err));
		return err;
	}
	if ((err = loader__configure(l)))
		return err;
	l->failed_prog[0] = 0;
	err = kvmwalk_bpf__load(l->skel);
	if (err && !l->failed_prog[0]) {
		fprintf(stderr, "kvmwalk: loading the BPF object failed: %s\n", strerror(-err));
		return err;
	}
	if (err) {
		kw_plan_load_refused(&l->planner, l->plan, l->uplan, l->failed_prog, err);
		return -EAGAIN;
	}
	/* --pid: in the map before the first program is attached */
	for (__u32 i = 0; i < l->opts.npids; i++) {
		err = loader__add_pid(l, l->opts.pids[i]);
		if (err) {
			fprintf(stderr, "kvmwalk: cannot set the --pid filter: %s\n",
				strerror(-err));
			return err;
		}
	}
	return events_start(l);
}

int loader__attach(struct loader *l)
{
	bool replan = false;
	int err;

	for (int i = 0; i < KW_NR_PROBES; i++)
		if ((err = loader__attach_probe(l, i)))
			replan |= kw_plan_attach_refused(&l->planner, i, &l->plan[i], err);
	for (unsigned int s = 0; s < l->opts.nufuncs; s++)
		if ((err = loader__attach_ufunc(l, s)))
			replan |= kw_plan_ufunc_attach_refused(&l->planner, s, &l->uplan[s], err);
	replan |= loader__check_trampolines(l);
	replan |= kw_plan_ioctl_tracepoint(l->plan);
	return replan ? -EAGAIN : 0;
}

/* Back to before loader__load(): detached, no BPF object. */
static void unload(struct loader *l)
{
	loader__detach(l);
	events_stop(l);
	kvmwalk_bpf__destroy(l->skel);
	l->skel = NULL;
}

/*
 * A user function asked for without -optional that is unavailable: said with its reason, and
 * KW_EXIT_USAGE (the name given is what is wrong, as with a --pid that does not exist).
 */
static bool ufuncs_required(const struct loader *l, int *exit_code)
{
	for (unsigned int s = 0; s < l->opts.nufuncs; s++) {
		const struct kw_ufunc_req *q = &l->opts.ufuncs[s];

		if (q->optional || l->uplan[s].mech != KW_MECH_UNAVAILABLE)
			continue;
		fprintf(stderr, "kvmwalk: %s %s: %s (%s-optional records it as unavailable)\n",
			kw_ufunc_option(q), q->name, l->uplan[s].reason,
			q->timed ? "--time" : "--count");
		*exit_code = KW_EXIT_USAGE;
		return true;
	}
	return false;
}

struct loader *loader__open(const struct loader_opts *opts, int *exit_code)
{
	struct loader *l = loader__new(opts, exit_code);
	int err = -EAGAIN;

	if (!l)
		return NULL;
	*exit_code = KW_EXIT_ERROR;
	loader__plan(l);
	/* --count / --time: a function that cannot be traced is a usage error, before anything runs */
	if (ufuncs_required(l, exit_code))
		goto fail;
	/*
	 * A program the verifier refuses makes its probe unavailable; a kprobe the kernel refuses
	 * at attach time (no kprobes at all, a blacklisted function) moves its probe to its
	 * tracepoint fallback if it has one. Either way: start over with the new plan, a few times.
	 */
	for (int loads = 0; err == -EAGAIN && loads < MAX_LOADS; loads++) {
		if (loads)
			unload(l);
		err = loader__load(l);
		if (!err)
			err = loader__attach(l);
	}
	if (err == -EAGAIN)
		fprintf(stderr, "kvmwalk: the verifier refused too many programs (run with -v)\n");
	if (err)
		goto fail;

	if (ufuncs_required(l, exit_code))
		goto fail;
	/* --probe: every named probe must be attached. */
	for (int i = 0; i < KW_NR_PROBES; i++) {
		if (!(opts->required & KW_PROBE_BIT(i)) || !kw_probe_in_arch(i, kw_host_arch()) ||
		    !kw_plan_wanted(opts, i) || l->plan[i].mech != KW_MECH_UNAVAILABLE)
			continue;
		fprintf(stderr, "kvmwalk: requested probe %s is unavailable: %s\n",
			kw_probes[i].name, l->plan[i].reason);
		*exit_code = KW_EXIT_NOFUNC;
		goto fail;
	}
	*exit_code = KW_EXIT_OK;
	return l;
fail:
	loader__destroy(l);
	return NULL;
}

/* ---- while attached ------------------------------------------------------------------------- */

int loader__add_pid(struct loader *l, __u32 pid)
{
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.kw_pids, &pid, sizeof(pid), &one, sizeof(one),
				    BPF_ANY);
}

const struct kw_plan *loader__get_plan(const struct loader *l)
{
	return l->plan;
}

void loader__meta(const struct loader *l, struct kw_meta *m)
{
	snprintf(m->tool_version, sizeof(m->tool_version), "%s (git %s)", KW_VERSION, KW_COMMIT);
	kw_host_meta(m, l ? kw_attach_name(l->opts.attach) : "");
	/* --vm: the names no process carried (a process recorded has its identity in ids) */
	m->nvm_unseen = 0;
	m->vm_unseen_known = l && l->opts.nvms;
	for (unsigned int i = 0; m->vm_unseen_known && i < l->opts.nvms; i++) {
		bool seen = false;

		for (size_t k = 0; k < l->nids && !seen; k++)
			seen = !strcmp(l->ids[k].vm, l->opts.vms[i]);
		if (!seen)
			snprintf(m->vm_unseen[m->nvm_unseen++], sizeof(m->vm_unseen[0]), "%s",
				 l->opts.vms[i]);
	}
}

const char *loader__libbpf_version(void)
{
	const char *v = libbpf_version_string();

	return v[0] == 'v' ? v + 1 : v;
}

int loader__stats_start(struct loader *l, bool sysctl_ok)
{
	char old[8] = "";
	int fd;

	l->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (l->stats_fd >= 0)
		return 0;
	if (!sysctl_ok)
		return -EOPNOTSUPP;
	/* Kernels without BPF_ENABLE_STATS: flip the sysctl and put it back on destroy. */
	kw_read_line("/proc/sys/kernel/bpf_stats_enabled", old, sizeof(old));
	if (!old[0])
		return -ENOENT;
	l->stats_sysctl_old = atoi(old);
	fd = open("/proc/sys/kernel/bpf_stats_enabled", O_WRONLY);
	if (fd < 0 || write(fd, "1", 1) != 1) {
		if (fd >= 0)
			close(fd);
		l->stats_sysctl_old = -1;
		return -errno;
	}
	close(fd);
	return 0;
}

void loader__destroy(struct loader *l)
{
	if (!l)
		return;
	unload(l);
	if (l->stats_fd >= 0)
		close(l->stats_fd);
	if (l->stats_sysctl_old >= 0) {
		int fd = open("/proc/sys/kernel/bpf_stats_enabled", O_WRONLY);

		if (fd >= 0) {
			if (write(fd, l->stats_sysctl_old ? "1" : "0", 1) != 1)
				fprintf(stderr, "kvmwalk: could not restore bpf_stats_enabled\n");
			close(fd);
		}
	}
	ksyms__free(&l->ksyms);
	free(l->exited);
	free(l->ids);
	free(l->vmf);
	free(l->traceable);
	btf__free(l->mod_btf);
	btf__free(l->vmlinux_btf);
	if (cur_loader == l)
		cur_loader = NULL;
	free(l);
}
