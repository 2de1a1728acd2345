// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: probing. The loader's attaching (declared in loader_state.h): the fentry attach test
 * that planning asks for, the programs of each probe's and user function's plan attached and
 * detached, and the check that each fentry's trampoline is really on its function. A refusal is
 * returned as -errno; the new plan is loader_plan.c's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "host.h"
#include "loader_state.h"

/* The fd of a kernel module's BTF object, for fentry on module functions; -1 if none. */
static int module_btf_fd(const char *mod)
{
	__u32 id = 0;

	while (!bpf_btf_get_next_id(id, &id)) {
		struct bpf_btf_info info = {};
		__u32 len = sizeof(info);
		char name[64] = "";
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		info.name = (unsigned long)name;
		info.name_len = sizeof(name);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len) && !strcmp(name, mod))
			return fd;
		close(fd);
	}
	return -1;
}

/*
 * Loads a two-instruction fentry program on func and attaches it, as libbpf-tools'
 * fentry_can_attach() does the load: some kernels load a tracing program and refuse only the
 * trampoline. Debian's arm64 6.1 is one: the load succeeds, the attach fails with ENOTSUPP
 * (524), and the probes there fall back to kprobes. Returns 0 or -errno with why in @why.
 */
int loader__fentry_test(void *loader, const char *func, const char *mod, char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	struct loader *l = loader;
	struct btf *vmlinux = loader__btf(l, ""), *mbtf = NULL;
	int id, prog_fd = -1, link_fd = -1, btf_fd = -1, err = 0;

	if (!vmlinux) {
		snprintf(why, len, "no kernel BTF");
		return -ENOENT;
	}
	if (mod && *mod) {
		mbtf = loader__btf(l, mod);
		btf_fd = module_btf_fd(mod);
		if (!mbtf || btf_fd < 0) {
			snprintf(why, len, "no BTF for module %s", mod);
			err = -ENOENT;
			goto cleanup;
		}
	}
	id = btf__find_by_name_kind(mbtf ?: vmlinux, func, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(why, len, "no BTF for %s (inlined or static duplicate)", func);
		err = -ENOENT;
		goto cleanup;
	}
	LIBBPF_OPTS(bpf_prog_load_opts, popts, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = id, .attach_btf_obj_fd = btf_fd > 0 ? btf_fd : 0);
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "kw_test", "GPL", insns, 2, &popts);
	if (prog_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry load refused: %s", strerror(errno));
		goto cleanup;
	}
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry attach refused: %s", strerror(errno));
	}
cleanup:
	if (link_fd >= 0)
		close(link_fd);
	if (prog_fd >= 0)
		close(prog_fd);
	if (btf_fd >= 0)
		close(btf_fd);
	return err;
}

static void detach(struct bpf_link *links[KW_NR_ENDS])
{
	for (int k = 0; k < KW_NR_ENDS; k++) {
		bpf_link__destroy(links[k]);
		links[k] = NULL;
	}
}

/*
 * Attaches the programs names[enum kw_prog_end] (NULL or "" for none) of a plan of mechanism
 * @mech into links[]: a kprobe on @func, a raw tracepoint on @raw_tp (if not NULL), anything
 * else where its section says. 0, or -errno with none of them attached.
 */
static int attach_progs(struct loader *l, const char *const names[KW_NR_ENDS], enum kw_mech mech,
			const char *func, const char *raw_tp, struct bpf_link *links[KW_NR_ENDS])
{
	/*
	 * The exit program first (issue 15). With the entry first, a call that enters between the
	 * two attaches (attaching takes seconds under emulation, and the window exists on hardware
	 * too) bumps a depth that its exit never takes back: a vCPU thread's fault_depth stuck at 1
	 * put every later KVM_RUN, KVM_IRQ_LINE and dirty-ring write-protect of a running QEMU under
	 * vcpu_fault. An exit without its entry finds depth 0 (or no start time) and does nothing.
	 */
	for (int k = KW_EXIT; k >= KW_ENTRY; k--) {
		struct bpf_program *prog;
		struct bpf_link *link;
		int err;

		if (!names[k] || !names[k][0] ||
		    !(prog = bpf_object__find_program_by_name(l->skel->obj, names[k])))
			continue;
		if (mech == KW_MECH_KPROBE)
			link = bpf_program__attach_kprobe(prog, k == KW_EXIT, func);
		else if (raw_tp)
			link = bpf_program__attach_raw_tracepoint(prog, raw_tp);
		else
			link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			detach(links);
			return err;
		}
		links[k] = link;
	}
	return 0;
}

int loader__attach_probe(struct loader *l, int probe)
{
	const struct kw_probe_desc *pp = &kw_probes[probe];
	const struct kw_plan *pl = &l->plan[probe];
	const char *const *names = kw_plan_progs(pl, probe);

	if (!names)
		return 0;
	return attach_progs(l, names, pl->mech, pp->func,
			    pl->mech == KW_MECH_TRACEPOINT && !*pp->tp_cat ? pp->tp_name : NULL,
			    l->links[probe]);
}

int loader__attach_ufunc(struct loader *l, unsigned int s)
{
	const struct kw_plan *pl = &l->uplan[s];
	char names[KW_NR_ENDS][16];

	if (!kw_plan_ufunc_progs(pl, s, l->opts.ufuncs[s].timed, names))
		return 0;
	return attach_progs(l, (const char *const[]){ names[KW_ENTRY], names[KW_EXIT] }, pl->mech,
			    l->opts.ufuncs[s].name, NULL, l->ulinks[s]);
}

void loader__detach(struct loader *l)
{
	for (int i = 0; i < KW_NR_PROBES; i++)
		detach(l->links[i]);
	for (unsigned int s = 0; s < KW_MAX_UFUNCS; s++)
		detach(l->ulinks[s]);
}

/*
 * An fentry link can exist without its trampoline being on the function: on Debian's x86 6.12
 * kernel, fentry on kvm_vm_ioctl (kvm.ko) attaches without an error, but the function is not in
 * tracing/enabled_functions, where every other fentry target of kvmwalk is listed with its
 * "direct-->bpf_trampoline", and the program never runs (0 calls through a real QEMU's 12,554
 * VM ioctls, counted by kprobes and by the syscall tracepoint; kvm_vcpu_ioctl is fine). So after
 * attaching, each fentry target must be in enabled_functions, once it is known that that file
 * lists kvmwalk's trampolines at all (some other target is there); one that is not is attached
 * again as a kprobe (--attach auto) or reported unavailable (--attach fentry). The line must
 * name a BPF trampoline: an ftrace kprobe event on the same function lists it too (seen when
 * the selftest cases' kernel witness put one on kvm_vm_ioctl on 6.12: kvmwalk kept the dead
 * fentry and counted 0 ioctls).
 */
bool loader__check_trampolines(struct loader *l)
{
	char path[192], *text;
	bool listed = false, replan = false;

	if (!l->tracefs.root[0])
		return false;
	snprintf(path, sizeof(path), "%s/enabled_functions", l->tracefs.root);
	text = kw_read_file(path);
	if (!text)
		return false;
	for (int i = 0; i < KW_NR_PROBES && !listed; i++)
		listed = l->plan[i].mech == KW_MECH_FENTRY &&
			 kw_plan_tramp_listed(text, l->plan[i].func);
	for (int i = 0; i < KW_NR_PROBES && listed; i++) {
		struct kw_plan *pl = &l->plan[i];

		if (pl->mech != KW_MECH_FENTRY || kw_plan_tramp_listed(text, pl->func))
			continue;
		detach(l->links[i]);
		replan |= kw_plan_no_trampoline(&l->planner, i, pl);
	}
	/* the user functions, by the same rule */
	for (unsigned int s = 0; s < l->opts.nufuncs && listed; s++) {
		struct kw_plan *pl = &l->uplan[s];

		if (pl->mech != KW_MECH_FENTRY || kw_plan_tramp_listed(text, l->opts.ufuncs[s].name))
			continue;
		detach(l->ulinks[s]);
		replan |= kw_plan_ufunc_no_trampoline(&l->planner, s, pl);
	}
	free(text);
	return replan;
}
