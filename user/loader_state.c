// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: the loader's base, under loader.c and its stages' files, collect.c and events.c. What
 * they keep in struct loader (loader_state.h) and more than one of them reads: the kernel's BTF
 * (planning's attach test, loader_attach.c, and the RET_PF_* names of the map reader) and the
 * identities of the processes seen (the map reader names the processes of its rows, the
 * kw_events reader each new one and --vm's).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "identity.h"
#include "loader_state.h"

/* ---- BTF ------------------------------------------------------------------------------------- */

struct btf *loader__btf(struct loader *l, const char *mod)
{
	if (!l->vmlinux_btf)
		l->vmlinux_btf = btf__load_vmlinux_btf();
	if (!mod || !*mod || !l->vmlinux_btf)
		return l->vmlinux_btf;
	if (!l->mod_btf && strlen(mod) < sizeof(l->mod_name)) {
		l->mod_btf = btf__load_module_btf(mod, l->vmlinux_btf);
		snprintf(l->mod_name, sizeof(l->mod_name), "%s", mod);
	}
	return strcmp(l->mod_name, mod) ? NULL : l->mod_btf;
}

/* ---- the processes seen: l->ids -------------------------------------------------------------- */

struct kw_vm *loader__ids_find(struct loader *l, __u32 pid)
{
	for (size_t i = 0; i < l->nids; i++)
		if (l->ids[i].pid == pid)
			return &l->ids[i];
	return NULL;
}

int loader__ids_put(struct loader *l, const struct kw_identity *id)
{
	struct kw_vm *n = loader__ids_find(l, id->pid);

	if (!n) {
		n = realloc(l->ids, (l->nids + 1) * sizeof(*n));
		if (!n)
			return -ENOMEM;
		l->ids = n;
		n = &l->ids[l->nids++];
	}
	memset(n, 0, sizeof(*n));
	n->pid = id->pid;
	snprintf(n->comm, sizeof(n->comm), "%s", id->comm);
	snprintf(n->vm, sizeof(n->vm), "%s", id->vm);
	snprintf(n->source, sizeof(n->source), "%s", id->source ? id->source : "");
	snprintf(n->cmdline, sizeof(n->cmdline), "%s", id->cmdline);
	n->cmdline_cut = id->cmdline_cut;
	snprintf(n->exe, sizeof(n->exe), "%s", id->exe);
	snprintf(n->vmm, sizeof(n->vmm), "%s", id->opts.vmm);
	snprintf(n->ipa_opt, sizeof(n->ipa_opt), "%s", id->opts.ipa_opt);
	snprintf(n->eager_opt, sizeof(n->eager_opt), "%s", id->opts.eager_opt);
	/* QEMU's version from its binary, read once per binary (only a process kvmwalk records) */
	if (!strcmp(id->opts.vmm, "qemu")) {
		char exe[64];

		snprintf(exe, sizeof(exe), "/proc/%u/exe", id->pid);
		kw_vmm_version_file(exe, n->vmm_version, sizeof(n->vmm_version));
	}
	return 0;
}

int loader__identify_pid(struct loader *l, __u32 pid)
{
	struct kw_identity id;

	if (!pid || loader__ids_find(l, pid) || kw_identity_read(pid, "/proc", &id))
		return 0;
	return loader__ids_put(l, &id);
}

int loader__identify(struct loader *l)
{
	int fd = bpf_map__fd(l->skel->maps.kw_triggers), err;
	struct kw_trig_key k, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if ((err = loader__identify_pid(l, k.pid)))
			return err;
	}
	return 0;
}

void kw_rt_enter(struct kw_rt_scope *s)
{
	struct sched_param fifo = { .sched_priority = 1 };

	s->set = false;
	s->policy = sched_getscheduler(0);
	if (s->policy < 0 || sched_getparam(0, &s->sp))
		return;
	/* already real-time (run under chrt): leave it as the user chose */
	if ((s->policy & ~SCHED_RESET_ON_FORK) != SCHED_OTHER)
		return;
	/* SCHED_RESET_ON_FORK: a command record starts later gets the normal class back */
	s->set = !sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &fifo);
}

void kw_rt_leave(const struct kw_rt_scope *s)
{
	if (s->set)
		sched_setscheduler(0, s->policy, &s->sp);
}
