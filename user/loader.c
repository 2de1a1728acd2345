// SPDX-License-Identifier: GPL-2.0
/*
 * Open -> plan (attach test per probe) -> set rodata and autoload -> load -> attach -> read maps.
 * The only file (with the skeleton) that touches libbpf.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/capability.h>

/* Kernel strings (sysfs, /proc) are cut to the fixed-size fields of a recording on purpose. */
#pragma GCC diagnostic ignored "-Wformat-truncation"

#include "loader.h"
#include "tracefs.h"
#include "version.h"
#include "kvmwalk.skel.h"


#if defined(__aarch64__)
#define KW_ARCH "arm64"
#elif defined(__x86_64__)
#define KW_ARCH "x86"
#else
#error "kvmwalk runs on arm64 and x86_64"
#endif

const char *loader__arch(void)
{
	return KW_ARCH;
}

/* ---- the programs of each probe -----------------------------------------------------------------
 */

/* Rows name only the programs they have; the tracepoint fields stay zero for most. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
struct probe_progs {
	int probe;
	const char *func;    /* kernel function; NULL for tracepoint-only probes */
	const char *fe, *fx; /* fentry / fexit programs (either may be NULL) */
	const char *kp, *kr; /* kprobe / kretprobe programs */
	const char *tp_cat;  /* tracepoint fallback: category ("" for a raw tracepoint) */
	const char *tp_name;
	const char *tp_enter, *tp_exit;
};

static const struct probe_progs progs_table[] = {
#if defined(__aarch64__)
	{ KW_P_PGT_WALK, "kvm_pgtable_walk", "fe_walk", "fx_walk", "kp_walk", "kr_walk" },
	{ KW_P_S2_SPLIT, "kvm_pgtable_stage2_split", "fe_kvm_pgtable_stage2_split",
	  "fx_kvm_pgtable_stage2_split", "kp_kvm_pgtable_stage2_split",
	  "kr_kvm_pgtable_stage2_split" },
	{ KW_P_S2_UNMAP, "kvm_pgtable_stage2_unmap", "fe_kvm_pgtable_stage2_unmap",
	  "fx_kvm_pgtable_stage2_unmap", "kp_kvm_pgtable_stage2_unmap",
	  "kr_kvm_pgtable_stage2_unmap" },
	{ KW_P_S2_WRPROTECT, "kvm_pgtable_stage2_wrprotect", "fe_kvm_pgtable_stage2_wrprotect",
	  "fx_kvm_pgtable_stage2_wrprotect", "kp_kvm_pgtable_stage2_wrprotect",
	  "kr_kvm_pgtable_stage2_wrprotect" },
	/* Only an exit program: "did it split" needs the return value and the visit context. */
	{ KW_P_SPLIT_WALKER, "stage2_split_walker", NULL, "fx_split_walker", "kp_split_walker",
	  "kr_split_walker" },
	/* Only an entry program: the entry must be read before the walker clears it. */
	{ KW_P_UNMAP_WALKER, "stage2_unmap_walker", "fe_unmap_walker", NULL, "kp_unmap_walker",
	  NULL },
	{ KW_P_TLB_FLUSH_RANGE, "kvm_tlb_flush_vmid_range", "fe_flush", "fx_flush", "kp_flush",
	  "kr_flush" },
	{ KW_P_HYP_FLUSH_RANGE, "__kvm_tlb_flush_vmid_range", "fe_hyp_flush", "fx_hyp_flush",
	  "kp_hyp_flush", "kr_hyp_flush" },
	{ KW_P_GUEST_FAULT, "kvm_handle_guest_abort", "fe_fault", "fx_fault", "kp_fault",
	  "kr_fault" },
#else
	{ KW_P_TDP_ZAP_LEAFS, "tdp_mmu_zap_leafs", "fe_zap_leafs", "fx_zap_leafs", "kp_zap_leafs",
	  "kr_zap_leafs" },
	{ KW_P_TDP_UNMAP_GFN, "kvm_tdp_mmu_unmap_gfn_range", "fe_unmap_gfn", "fx_unmap_gfn",
	  "kp_unmap_gfn", "kr_unmap_gfn" },
	{ KW_P_TDP_ZAP_LEAFS_ALL, "kvm_tdp_mmu_zap_leafs", "fe_zap_all", "fx_zap_all", "kp_zap_all",
	  "kr_zap_all" },
	{ KW_P_FAST_PF, "fast_page_fault", "fe_fast_pf", "fx_fast_pf", "kp_fast_pf", "kr_fast_pf",
	  "", "fast_page_fault", "rt_fast_pf" },
	{ KW_P_SPTE_CHANGED, NULL, NULL, NULL, NULL, NULL, "", "kvm_tdp_mmu_spte_changed",
	  "rt_spte_changed" },
	/* Only an entry program: the visit is counted when the iteration ends. */
	{ KW_P_TDP_ITER_NEXT, "tdp_iter_next", "fe_iter_next", NULL, "kp_iter_next", NULL },
	{ KW_P_GUEST_FAULT, "kvm_mmu_page_fault", "fe_fault", "fx_fault", "kp_fault", "kr_fault" },
#endif
	{ KW_P_VM_IOCTL, "kvm_vm_ioctl", "fe_vm_ioctl", "fx_vm_ioctl", "kp_vm_ioctl", "kr_vm_ioctl",
	  "syscalls", "sys_enter_ioctl", "tp_ioctl_enter", "tp_ioctl_exit" },
	{ KW_P_VCPU_IOCTL, "kvm_vcpu_ioctl", "fe_vcpu_ioctl", "fx_vcpu_ioctl", "kp_vcpu_ioctl",
	  "kr_vcpu_ioctl" },
	{ KW_P_NOTIFIER, "kvm_mmu_notifier_invalidate_range_start", "fe_notifier", "fx_notifier",
	  "kp_notifier", "kr_notifier" },
	{ KW_P_MMU_LOCK, NULL, NULL, NULL, NULL, NULL, "lock", "contention_begin", "rt_lock_begin",
	  "rt_lock_end" },
};

#pragma GCC diagnostic pop

#define NR_PROGS_TABLE (sizeof(progs_table) / sizeof(progs_table[0]))

/* ---- kallsyms -----------------------------------------------------------------------------------
 */

struct ksym {
	unsigned long long addr;
	char *name;
	char *mod; /* "" for vmlinux */
};

struct ksyms {
	struct ksym *syms;
	size_t n;
};

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int ksyms_load(struct ksyms *ks)
{
	FILE *f = fopen("/proc/kallsyms", "r");
	char line[512], name[256], mod[128];
	unsigned long long addr;
	char type;
	size_t cap = 0;

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		mod[0] = 0;
		if (sscanf(line, "%llx %c %255s [%127[^]]]", &addr, &type, name, mod) < 3)
			continue;
		if (type != 't' && type != 'T')
			continue;
		if (ks->n == cap) {
			struct ksym *p =
				realloc(ks->syms, (cap = cap ? cap * 2 : 65536) * sizeof(*p));

			if (!p) {
				fclose(f);
				return -ENOMEM;
			}
			ks->syms = p;
		}
		ks->syms[ks->n].addr = addr;
		ks->syms[ks->n].name = strdup(name);
		ks->syms[ks->n].mod = strdup(mod);
		ks->n++;
	}
	fclose(f);
	qsort(ks->syms, ks->n, sizeof(*ks->syms), ksym_cmp);
	return 0;
}

static void ksyms_free(struct ksyms *ks)
{
	for (size_t i = 0; i < ks->n; i++) {
		free(ks->syms[i].name);
		free(ks->syms[i].mod);
	}
	free(ks->syms);
	ks->syms = NULL;
	ks->n = 0;
}

static const struct ksym *ksyms_by_name(const struct ksyms *ks, const char *name)
{
	for (size_t i = 0; i < ks->n; i++)
		if (!strcmp(ks->syms[i].name, name))
			return &ks->syms[i];
	return NULL;
}

/* The symbol holding addr, as "name" or "name+0xoff". */
static void ksyms_describe(const struct ksyms *ks, unsigned long long addr, char *buf, size_t len)
{
	size_t lo = 0, hi = ks->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (ks->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !addr) {
		snprintf(buf, len, "0x%llx", addr);
		return;
	}
	if (ks->syms[lo - 1].addr == addr)
		snprintf(buf, len, "%s", ks->syms[lo - 1].name);
	else
		snprintf(buf, len, "%s+0x%llx", ks->syms[lo - 1].name,
			 addr - ks->syms[lo - 1].addr);
}

/* ---- the loader ---------------------------------------------------------------------------------
 */

struct loader {
	struct loader_opts opts;
	struct kvmwalk_bpf *skel;
	struct ksyms ksyms;
	struct kw_plan plan[KW_NR_PROBES];
	struct bpf_link *links[NR_PROGS_TABLE][2];
	struct kw_tracefs tracefs;
	char *traceable;      /* available_filter_functions, NULL if unreadable */
	int stats_fd;	      /* from bpf_enable_stats(), -1 if off */
	int stats_sysctl_old; /* fallback: previous kernel.bpf_stats_enabled, -1 if untouched */
	char failed_prog[64]; /* the program libbpf reported as refused by the verifier */
	struct timespec started;
	struct btf *vmlinux_btf; /* cached for the attach tests */
	struct btf *mod_btf;
	char mod_name[32];
	/*
	 * Trigger rows of exited processes, folded by (probe, trigger, cmd) with pid 0 and deleted
	 * from kw_triggers (see fold_exited()). Only grows, so the rows stay monotonic.
	 */
	struct kw_trig *exited;
	size_t nexited;
};

static struct loader *cur_loader; /* for the libbpf print callback */

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	char buf[1024];
	const char *p;

	vsnprintf(buf, sizeof(buf), fmt, ap);
	/* "libbpf: prog 'NAME': failed to load: -13": remember NAME to plan around it */
	if (cur_loader && (p = strstr(buf, "prog '")) && strstr(buf, "failed to load"))
		sscanf(p, "prog '%63[^']'", cur_loader->failed_prog);
	if (cur_loader && (cur_loader->opts.verbose || level == LIBBPF_WARN) &&
	    (cur_loader->opts.verbose || !strstr(buf, "failed to load")))
		return cur_loader->opts.verbose ? fputs(buf, stderr) : 0;
	return 0;
}

static char *read_file(const char *path)
{
	size_t len = 0, cap = 0, n;
	char *buf = NULL, *p;
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return NULL;
	for (;;) {
		if (len + 4096 >= cap) {
			p = realloc(buf, cap = cap ? cap * 2 : 65536);
			if (!p) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = p;
		}
		n = read(fd, buf + len, cap - len - 1);
		if ((ssize_t)n <= 0)
			break;
		len += n;
	}
	close(fd);
	buf[len] = 0;
	return buf;
}

static void read_line(const char *path, char *dst, size_t len)
{
	char *s = read_file(path), *nl;

	snprintf(dst, len, "%s", s ? s : "");
	free(s);
	nl = strchr(dst, '\n');
	if (nl)
		*nl = 0;
}

/* available_filter_functions lines are "name" or "name [module]". */
static bool is_traceable(const struct loader *l, const char *func)
{
	size_t n = strlen(func);
	const char *p = l->traceable;

	if (!p)
		return true; /* tracefs not mounted: let the attach decide */
	while ((p = strstr(p, func))) {
		if ((p == l->traceable || p[-1] == '\n') && (p[n] == '\n' || p[n] == ' ' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

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
 * A real fentry attach test, as libbpf-tools' fentry_can_attach() does it, plus the attach
 * itself: some kernels load a tracing program and refuse only the trampoline. Debian's arm64
 * 6.1 is one: the load succeeds, the attach fails with ENOTSUPP (524), so every probe there
 * falls back to kprobes. Returns 0 or -errno with why in @why.
 */
static int fentry_test(struct loader *l, const char *func, const char *mod, char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 }, /* r0 = 0 */
		{ .code = 0x95 },			  /* exit */
	};
	struct btf *vmlinux, *mbtf = NULL;
	int id, prog_fd = -1, link_fd = -1, btf_fd = -1, err = 0;

	/* Parsed once: under emulation each parse of the kernel's BTF takes most of a second. */
	if (!l->vmlinux_btf)
		l->vmlinux_btf = btf__load_vmlinux_btf();
	vmlinux = l->vmlinux_btf;
	if (!vmlinux) {
		snprintf(why, len, "no kernel BTF");
		return -ENOENT;
	}
	if (mod && *mod) {
		if (!l->mod_btf && strlen(mod) < sizeof(l->mod_name)) {
			l->mod_btf = btf__load_module_btf(mod, vmlinux);
			snprintf(l->mod_name, sizeof(l->mod_name), "%s", mod);
		}
		mbtf = strcmp(l->mod_name, mod) ? NULL : l->mod_btf;
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

static bool tracepoint_exists(const struct loader *l, const char *cat, const char *name)
{
	char path[256];

	if (!*cat)
		return true; /* raw tracepoints need no tracefs: the attach decides */
	if (!l->tracefs.root[0])
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s", l->tracefs.root, cat, name);
	return !access(path, F_OK);
}

static bool wanted(const struct loader_opts *o, int probe)
{
	const char *p = o->probes, *name = kw_probe_descs[probe].name;
	size_t n = strlen(name);

	if (!o->visits && kw_probe_descs[probe].visits && probe != KW_P_SPTE_CHANGED)
		return false;
	if (!p)
		return true;
	while ((p = strstr(p, name))) {
		if ((p == o->probes || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
		p += n;
	}
	return false;
}

static void set_plan(struct kw_plan *pl, const char *mech, const char *func, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set_plan(struct kw_plan *pl, const char *mech, const char *func, const char *fmt, ...)
{
	va_list ap;

	snprintf(pl->mech, sizeof(pl->mech), "%s", mech);
	snprintf(pl->func, sizeof(pl->func), "%s", func ? func : "");
	va_start(ap, fmt);
	vsnprintf(pl->reason, sizeof(pl->reason), fmt, ap);
	va_end(ap);
}

/* arm64: "vhe", "nvhe", "protected" from the boot log, else the command line. */
static void arm64_kvm_mode(char *mode, size_t len)
{
	char cmdline[1024], *p;
	int n = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *log = n > 0 ? malloc(n + 1) : NULL;

	mode[0] = 0;
	if (log && (n = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, log, n)) > 0) {
		log[n] = 0;
		/* "Protected nVHE mode", "Hyp nVHE mode" and "VHE mode initialized successfully":
		 * test the longer ones first, "VHE mode" is a substring of both. */
		if (strstr(log, "Protected nVHE mode initialized"))
			snprintf(mode, len, "protected");
		else if (strstr(log, "nVHE mode initialized") ||
			 strstr(log, "Hyp mode initialized"))
			snprintf(mode, len, "nvhe");
		else if (strstr(log, "VHE mode initialized"))
			snprintf(mode, len, "vhe");
	}
	free(log);
	if (mode[0])
		return;
	read_line("/proc/cmdline", cmdline, sizeof(cmdline));
	p = strstr(cmdline, "kvm-arm.mode=");
	if (p)
		sscanf(p + 13, "%15s", mode);
}

/* Decides how to attach every probe; programs of the chosen mechanism get autoload. */
static void plan_probes(struct loader *l, const char *kvm_mode)
{
	struct bpf_object *obj = l->skel->obj;
	const char *attach = l->opts.attach ?: "auto";
	bool try_fentry = strcmp(attach, "kprobe"), try_kprobe = strcmp(attach, "fentry");
	bool ioctl_tp = false;

	for (int i = 0; i < KW_NR_PROBES; i++)
		if (kw_probe_in_arch(i, KW_ARCH))
			set_plan(&l->plan[i], "unavailable", NULL, "not built for this arch");

	for (size_t i = 0; i < NR_PROGS_TABLE; i++) {
		const struct probe_progs *pp = &progs_table[i];
		struct kw_plan *pl = &l->plan[pp->probe];
		const struct ksym *ks = pp->func ? ksyms_by_name(&l->ksyms, pp->func) : NULL;
		char why[384] = "";

		if (!wanted(&l->opts, pp->probe)) {
			set_plan(pl, "off", pp->func, "%s",
				 l->opts.visits ? "not selected (--probe)"
						: "per-entry callback left out (--no-visits)");
			continue;
		}
		if (pp->probe == KW_P_VCPU_IOCTL && ioctl_tp) {
			set_plan(pl, "off", pp->func,
				 "counted with kvm_vm_ioctl's ioctl tracepoint");
			continue;
		}
		if (pp->func && !ks) {
			snprintf(why, sizeof(why),
				 "not in this kernel (/proc/kallsyms): absent or inlined");
		} else if (pp->probe == KW_P_HYP_FLUSH_RANGE && kvm_mode[0] &&
			   strcmp(kvm_mode, "vhe")) {
			set_plan(pl, "unavailable", pp->func,
				 "runs at EL2 (%s): never called at EL1; kvm_tlb_flush_vmid_range "
				 "counts",
				 kvm_mode);
			continue;
		} else if (pp->func) {
			if (try_fentry && (pp->fe || pp->fx)) {
				if (!fentry_test(l, pp->func, ks->mod, why, sizeof(why))) {
					set_plan(pl, "fentry", pp->func, "%s", "");
					continue;
				}
			}
			if (try_kprobe && pp->kp) {
				if (is_traceable(l, pp->func)) {
					set_plan(pl, "kprobe", pp->func, "%s", why);
					continue;
				}
				snprintf(why + strlen(why), sizeof(why) - strlen(why),
					 "%snot traceable", why[0] ? "; " : "");
			}
			if (!try_fentry && !pp->kp)
				snprintf(why, sizeof(why), "no kprobe program");
		}
		if (pp->tp_name && strcmp(attach, "fentry") && strcmp(attach, "kprobe") &&
		    tracepoint_exists(l, pp->tp_cat, pp->tp_name)) {
			set_plan(pl, "tracepoint", pp->tp_name, "%s", why);
			if (pp->probe == KW_P_VM_IOCTL)
				ioctl_tp = true;
			continue;
		}
		if (pp->tp_name && !pp->func) { /* tracepoint-only probes under a forced mode */
			set_plan(pl, "tracepoint", pp->tp_name, "%s", "");
			continue;
		}
		if (pp->tp_name && *pp->tp_cat && !l->tracefs.root[0] && strcmp(attach, "fentry") &&
		    strcmp(attach, "kprobe"))
			snprintf(why + strlen(why), sizeof(why) - strlen(why),
				 "%stracepoint %s:%s: %s", why[0] ? "; " : "", pp->tp_cat,
				 pp->tp_name, l->tracefs.why);
		set_plan(pl, "unavailable", pp->func, "%s", why[0] ? why : "no mechanism allowed");
	}
	(void)obj;
}

/* The entry and exit programs of a probe under a mechanism; false if it uses none. */
static bool plan_progs(const struct probe_progs *pp, const char *mech, const char *names[2])
{
	names[0] = names[1] = NULL;
	if (!strcmp(mech, "fentry")) {
		names[0] = pp->fe;
		names[1] = pp->fx;
	} else if (!strcmp(mech, "kprobe")) {
		names[0] = pp->kp;
		names[1] = pp->kr;
	} else if (!strcmp(mech, "tracepoint")) {
		names[0] = pp->tp_enter;
		names[1] = pp->tp_exit;
	} else {
		return false;
	}
	return true;
}

static void set_autoload(struct loader *l)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->skel->obj) bpf_program__set_autoload(prog, false);
	for (size_t i = 0; i < NR_PROGS_TABLE; i++) {
		const struct probe_progs *pp = &progs_table[i];
		const struct kw_plan *pl = &l->plan[pp->probe];
		const char *names[2];

		plan_progs(pp, pl->mech, names);
		for (int k = 0; k < 2; k++) {
			if (!names[k])
				continue;
			prog = bpf_object__find_program_by_name(l->skel->obj, names[k]);
			if (!prog)
				continue;
			bpf_program__set_autoload(prog, true);
			if (!strcmp(pl->mech, "fentry"))
				bpf_program__set_attach_target(prog, 0, pp->func);
		}
	}
}

static int attach_probe(struct loader *l, size_t i)
{
	const struct probe_progs *pp = &progs_table[i];
	struct kw_plan *pl = &l->plan[pp->probe];
	const char *names[2];
	int err = 0;

	if (!plan_progs(pp, pl->mech, names))
		return 0;
	/*
	 * The exit program first (issue 15). With the entry first, a call that enters between the
	 * two attaches (attaching takes seconds under emulation, and the window exists on hardware
	 * too) bumps a depth that its exit never takes back: a vCPU thread's fault_depth stuck at 1
	 * put every later KVM_RUN, KVM_IRQ_LINE and dirty-ring write-protect of a running QEMU under
	 * vcpu_fault. An exit without its entry finds depth 0 (or no start time) and does nothing.
	 */
	for (int k = 1; k >= 0 && !err; k--) {
		struct bpf_program *prog;
		struct bpf_link *link;

		if (!names[k])
			continue;
		prog = bpf_object__find_program_by_name(l->skel->obj, names[k]);
		if (!prog)
			continue;
		if (!strcmp(pl->mech, "kprobe"))
			link = bpf_program__attach_kprobe(prog, k == 1 && pp->kr == names[k],
							  pp->func);
		else if (!strcmp(pl->mech, "tracepoint") && !*pp->tp_cat)
			link = bpf_program__attach_raw_tracepoint(prog, pp->tp_name);
		else
			link = bpf_program__attach(prog);
		if (!link) {
			err = -errno;
			break;
		}
		l->links[i][k] = link;
	}
	if (err) {
		for (int k = 0; k < 2; k++) {
			bpf_link__destroy(l->links[i][k]);
			l->links[i][k] = NULL;
		}
		char mech[16], func[64], why[384];

		/* copies: set_plan() writes the fields it would otherwise read */
		snprintf(mech, sizeof(mech), "%s", pl->mech);
		snprintf(func, sizeof(func), "%s", pl->func);
		snprintf(why, sizeof(why), "%s", pl->reason);
		set_plan(pl, "unavailable", func, "%s%s%s attach refused: %s", why,
			 why[0] ? "; " : "", mech, strerror(-err));
	}
	return err;
}

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

/*
 * Test knob, not a feature: KVMWALK_TEST_MAX_TRIGS / KVMWALK_TEST_MAX_CBS=N shrink the bounded
 * hash maps (triggers, walk callbacks) so that a test can fill them on purpose and see the
 * drops counted (tests/vm/cases/kw-map-full). Said on stderr whenever it is used.
 */
static void test_map_size(struct bpf_map *m, const char *env, bool say)
{
	const char *v = getenv(env);
	char *end;
	unsigned long n;

	if (!v || !*v)
		return;
	n = strtoul(v, &end, 10);
	if (*end || !n || n > bpf_map__max_entries(m) || bpf_map__set_max_entries(m, n)) {
		if (say)
			fprintf(stderr, "kvmwalk: test knob %s=%s ignored (1..%u)\n", env, v,
				bpf_map__max_entries(m));
		return;
	}
	if (say)
		fprintf(stderr, "kvmwalk: test knob %s: %s holds %lu entries\n", env,
			bpf_map__name(m), n);
}

struct loader *loader__open(const struct loader_opts *opts, int *exit_code)
{
	struct loader *l = calloc(1, sizeof(*l));
	char kvm_mode[16] = "";
	int err, tries;

	*exit_code = KW_EXIT_ERROR;
	if (!l) {
		fprintf(stderr, "kvmwalk: out of memory\n");
		return NULL;
	}
	l->opts = *opts;
	l->stats_fd = -1;
	l->stats_sysctl_old = -1;
	clock_gettime(CLOCK_MONOTONIC, &l->started);
	cur_loader = l;
	libbpf_set_print(libbpf_print);

	/* --probe: every name must be a probe of this arch (a typo must not record nothing). */
	for (const char *p = opts->probes; p && *p;) {
		size_t n = strcspn(p, ",");
		char name[64];
		int id;

		snprintf(name, sizeof(name), "%.*s", (int)n, p);
		id = kw_probe_by_name(name);
		if (id < 0 || !kw_probe_in_arch(id, KW_ARCH)) {
			fprintf(stderr,
				"kvmwalk: requested probe %s does not exist on %s "
				"(see kvmwalk probes)\n",
				name, KW_ARCH);
			*exit_code = KW_EXIT_NOFUNC;
			goto fail;
		}
		p += n + (p[n] == ',');
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
	err = ksyms_load(&l->ksyms);
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
		l->traceable = read_file(path);
	}
	if (!strcmp(KW_ARCH, "arm64"))
		arm64_kvm_mode(kvm_mode, sizeof(kvm_mode));

	/* A program the verifier refuses makes its probe unavailable; up to a few retries. */
	/*
	 * A program the verifier refuses makes its probe unavailable; a kprobe the kernel refuses
	 * at attach time (no kprobes at all, a blacklisted function) moves its probe to its
	 * tracepoint fallback if it has one. Either way: start over with the new plan, a few times.
	 */
	for (tries = 0; tries < 6; tries++) {
		bool replan = false;

		l->skel = kvmwalk_bpf__open();
		if (!l->skel) {
			fprintf(stderr, "kvmwalk: cannot open the BPF object: %s\n",
				strerror(errno));
			goto fail;
		}
		l->skel->rodata->kw_filter_pids = opts->npids > 0;
		/* on every try: each opens the object afresh */
		test_map_size(l->skel->maps.kw_triggers, "KVMWALK_TEST_MAX_TRIGS", tries == 0);
		test_map_size(l->skel->maps.kw_walk_cbs, "KVMWALK_TEST_MAX_CBS", tries == 0);
		if (tries == 0)
			plan_probes(l, kvm_mode);
#if defined(__aarch64__)
		l->skel->rodata->kw_flush_primary =
			strcmp(l->plan[KW_P_TLB_FLUSH_RANGE].mech, "unavailable")
				? KW_P_TLB_FLUSH_RANGE
				: KW_P_HYP_FLUSH_RANGE;
#endif
		set_autoload(l);
		l->failed_prog[0] = 0;
		err = kvmwalk_bpf__load(l->skel);
		if (err && !l->failed_prog[0]) {
			fprintf(stderr, "kvmwalk: loading the BPF object failed: %s\n",
				strerror(-err));
			goto fail;
		}
		/* --pid: in the map before the first program is attached */
		for (__u32 i = 0; !err && i < opts->npids; i++) {
			err = loader__add_pid(l, opts->pids[i]);
			if (err) {
				fprintf(stderr, "kvmwalk: cannot set the --pid filter: %s\n",
					strerror(-err));
				goto fail;
			}
		}
		for (size_t i = 0; err && i < NR_PROGS_TABLE; i++) {
			const struct probe_progs *pp = &progs_table[i];
			const char *n[] = { pp->fe, pp->fx,	  pp->kp,
					    pp->kr, pp->tp_enter, pp->tp_exit };

			for (size_t k = 0; k < 6; k++)
				if (n[k] && !strcmp(n[k], l->failed_prog))
					set_plan(&l->plan[pp->probe], "unavailable", pp->func,
						 "verifier refused %s: %s (run with -v)", n[k],
						 strerror(-err));
		}
		for (size_t i = 0; !err && i < NR_PROGS_TABLE; i++) {
			const struct probe_progs *pp = &progs_table[i];
			struct kw_plan *pl = &l->plan[pp->probe];
			bool was_kprobe = !strcmp(pl->mech, "kprobe");
			int aerr = attach_probe(l, i);

			if (aerr && was_kprobe && pp->tp_name &&
			    !strcmp(opts->attach ?: "auto", "auto") &&
			    tracepoint_exists(l, pp->tp_cat, pp->tp_name)) {
				char why[384];

				snprintf(why, sizeof(why), "%s", pl->reason);
				set_plan(pl, "tracepoint", pp->tp_name, "%s", why);
				replan = true;
			} else if (aerr && was_kprobe && pp->tp_name && *pp->tp_cat &&
				   !l->tracefs.root[0]) {
				char why[384];

				/* the fallback exists but cannot be used: say why, and the fix */
				snprintf(why, sizeof(why), "%s", pl->reason);
				set_plan(pl, "unavailable", pp->func, "%s; tracepoint %s:%s: %s", why,
					 pp->tp_cat, pp->tp_name, l->tracefs.why);
			}
		}
		if (!strcmp(l->plan[KW_P_VM_IOCTL].mech, "tracepoint") &&
		    strcmp(l->plan[KW_P_VCPU_IOCTL].mech, "off")) {
			set_plan(&l->plan[KW_P_VCPU_IOCTL], "off", "kvm_vcpu_ioctl",
				 "counted with kvm_vm_ioctl's ioctl tracepoint");
			replan = true;
		}
		if (!err && !replan)
			break;
		for (size_t i = 0; i < NR_PROGS_TABLE; i++)
			for (int k = 0; k < 2; k++) {
				bpf_link__destroy(l->links[i][k]);
				l->links[i][k] = NULL;
			}
		kvmwalk_bpf__destroy(l->skel);
		l->skel = NULL;
	}
	if (!l->skel) {
		fprintf(stderr, "kvmwalk: the verifier refused too many programs (run with -v)\n");
		goto fail;
	}

	/* --probe: every named probe must be attached. */
	for (int i = 0; opts->probes && i < KW_NR_PROBES; i++) {
		if (!kw_probe_in_arch(i, KW_ARCH) || !wanted(opts, i) ||
		    strcmp(l->plan[i].mech, "unavailable"))
			continue;
		fprintf(stderr, "kvmwalk: requested probe %s is unavailable: %s\n",
			kw_probe_descs[i].name, l->plan[i].reason);
		*exit_code = KW_EXIT_NOFUNC;
		goto fail;
	}
	*exit_code = KW_EXIT_OK;
	return l;
fail:
	loader__destroy(l);
	return NULL;
}

int loader__add_pid(struct loader *l, __u32 pid)
{
	__u8 one = 1;

	return bpf_map__update_elem(l->skel->maps.kw_pids, &pid, sizeof(pid), &one, sizeof(one),
				    BPF_ANY);
}

const struct kw_plan *loader__plan(const struct loader *l)
{
	return l->plan;
}

int loader__stats_start(struct loader *l)
{
	char old[8] = "";
	int fd;

	l->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (l->stats_fd >= 0)
		return 0;
	/* Kernels without BPF_ENABLE_STATS: flip the sysctl and put it back on destroy. */
	read_line("/proc/sys/kernel/bpf_stats_enabled", old, sizeof(old));
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
	for (size_t i = 0; i < NR_PROGS_TABLE; i++)
		for (int k = 0; k < 2; k++)
			bpf_link__destroy(l->links[i][k]);
	kvmwalk_bpf__destroy(l->skel);
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
	ksyms_free(&l->ksyms);
	free(l->exited);
	free(l->traceable);
	btf__free(l->mod_btf);
	btf__free(l->vmlinux_btf);
	if (cur_loader == l)
		cur_loader = NULL;
	free(l);
}

/* ---- reading the maps
 * ----------------------------------------------------------------------------- */

static int ncpus(void)
{
	static int n;

	if (!n)
		n = libbpf_num_possible_cpus();
	return n;
}

static int read_percpu(struct bpf_map *map, const void *key, void *buf)
{
	return bpf_map_lookup_elem(bpf_map__fd(map), key, buf) ? -errno : 0;
}

/*
 * kw_triggers is keyed by the VMM's pid (its tgid) and BPF never removes a row, so without help
 * a long `serve` or `record` fills its KW_MAX_TRIGS rows after some 50 short-lived VMM processes
 * and from then on every call is counted as trigger_map_full. So each collection moves the rows
 * of processes that no longer exist into l->exited: their calls and ns, summed over the CPUs,
 * are added to the row of the same (probe, trigger, cmd) with pid 0 there, and the map row is
 * deleted. A dead process cannot make new events, so no call is lost, and the folded rows only
 * grow, so the totals of a recording stay exact and Prometheus' counters monotonic.
 *
 * Dead means kill(pid, 0) fails with ESRCH (a zombie not yet reaped still counts as alive).
 * The corners: if the pid is reused before a collection sees it dead, the old process's
 * calls stay merged into the new process's row (attribution, not a count, is blurred); a
 * process with the pid that appears between the check and the delete would have its first
 * calls folded too (bpf_map_lookup_and_delete_elem makes reading and deleting one step, so
 * nothing is counted twice or dropped). Pids are those of the initial pid namespace: run in
 * another one, kvmwalk sees every VMM as exited and folds all rows each time (counts still
 * exact, the per-VM breakdown gone). pid 0 is also the idle task's: its rows merge with these.
 */
static bool pid_exited(__u32 pid)
{
	return pid && kill((pid_t)pid, 0) && errno == ESRCH;
}

static int exited_add(struct loader *l, const struct kw_trig *t)
{
	struct kw_trig *n;

	for (size_t i = 0; i < l->nexited; i++) {
		struct kw_trig *e = &l->exited[i];

		if (e->probe == t->probe && e->trigger == t->trigger && e->cmd == t->cmd) {
			e->calls += t->calls;
			e->ns += t->ns;
			return 0;
		}
	}
	n = realloc(l->exited, (l->nexited + 1) * sizeof(*n));
	if (!n)
		return -ENOMEM;
	l->exited = n;
	n[l->nexited] = *t;
	n[l->nexited].pid = 0;
	l->nexited++;
	return 0;
}

/* Moves the rows of exited processes from kw_triggers into l->exited; buf holds ncpus values. */
static int fold_exited(struct loader *l, void *buf, int ncpus)
{
	int fd = bpf_map__fd(l->skel->maps.kw_triggers), err = 0;
	struct kw_trig_key k, *prev = NULL, *dead = NULL;
	size_t ndead = 0;

	/* first the keys (deleting while walking would restart the walk), then each one */
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		prev = &k;
		if (!pid_exited(k.pid))
			continue;
		struct kw_trig_key *d = realloc(dead, (ndead + 1) * sizeof(*d));

		if (!d) {
			err = -ENOMEM;
			goto out;
		}
		dead = d;
		dead[ndead++] = k;
	}
	for (size_t i = 0; i < ndead; i++) {
		struct kw_trig_val *v = buf;
		struct kw_trig t = {};

		if (bpf_map_lookup_and_delete_elem(fd, &dead[i], buf)) {
			if (errno == ENOENT)
				continue;
			/* a kernel without lookup-and-delete for per-CPU hashes: two steps */
			if (bpf_map_lookup_elem(fd, &dead[i], buf))
				continue;
			if (bpf_map_delete_elem(fd, &dead[i]))
				continue; /* still in the map: read again next time */
		}
		t.probe = dead[i].probe < KW_NR_PROBES ? (int)dead[i].probe : 0;
		t.trigger = dead[i].trigger < KW_NR_TRIGGERS ? (int)dead[i].trigger : 0;
		t.cmd = dead[i].cmd;
		for (int c = 0; c < ncpus; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		if ((err = exited_add(l, &t)))
			goto out;
	}
out:
	free(dead);
	return err;
}

static void pf_names(struct loader *l, struct kw_recording *r)
{
	struct btf *b;

	for (int i = 0; i < KW_NR_PF_RET; i++)
		snprintf(r->pf_ret_names[i], sizeof(r->pf_ret_names[i]), "%s",
			 i == KW_NR_PF_RET - 1 ? "other" : "");
	if (strcmp(KW_ARCH, "x86"))
		return;
	/* Cached: parsing the kernel's BTF on every --interval snapshot is far too slow. */
	if (!l->vmlinux_btf)
		l->vmlinux_btf = btf__load_vmlinux_btf();
	if (!l->mod_btf && l->vmlinux_btf && !strcmp(KW_ARCH, "x86")) {
		l->mod_btf = btf__load_module_btf("kvm", l->vmlinux_btf);
		snprintf(l->mod_name, sizeof(l->mod_name), "kvm");
	}
	b = l->mod_btf ?: l->vmlinux_btf;
	for (int i = 0; i < KW_NR_PF_RET; i++)
		snprintf(r->pf_ret_names[i], sizeof(r->pf_ret_names[i]), "%s",
			 i == KW_NR_PF_RET - 1 ? "other" : "");
	/* RET_PF_* is an anonymous enum: find the one holding RET_PF_FIXED and name the values. */
	for (__u32 id = 1; b && id < btf__type_cnt(b); id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const struct btf_enum *e;
		bool found = false;

		if (!t || !btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (int k = 0; k < btf_vlen(t); k++)
			if (!strcmp(btf__name_by_offset(b, e[k].name_off), "RET_PF_FIXED"))
				found = true;
		if (!found)
			continue;
		for (int k = 0; k < btf_vlen(t); k++)
			if (e[k].val >= 0 && e[k].val < KW_NR_PF_RET - 1)
				snprintf(r->pf_ret_names[e[k].val], sizeof(r->pf_ret_names[0]),
					 "%s", btf__name_by_offset(b, e[k].name_off));
		break;
	}
}

static void prog_cost(struct loader *l, struct kw_recording *r)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, l->skel->obj)
	{
		struct bpf_prog_info info = {};
		__u32 len = sizeof(info);
		int fd = bpf_program__fd(prog);

		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		r->overhead.run_ns += info.run_time_ns;
		r->overhead.run_cnt += info.run_cnt;
		/*
		 * fentry/fexit and raw_tp programs run with migration, not preemption, disabled:
		 * another task that hits the same program on the same CPU meanwhile is skipped by
		 * the recursion guard (bpf_prog_inc_misses_counter). Such a skipped entry shows up
		 * as a missed exit; the count explains it.
		 */
		r->overhead.recursion_misses += info.recursion_misses;
		for (size_t i = 0; i < NR_PROGS_TABLE; i++) {
			const struct probe_progs *pp = &progs_table[i];
			const char *n[] = { pp->fe, pp->fx, pp->kp, pp->kr, pp->tp_enter, pp->tp_exit };

			for (size_t k = 0; k < 6; k++) {
				if (!n[k] || strcmp(n[k], bpf_program__name(prog)))
					continue;
				r->funcs[pp->probe].bpf_runs += info.run_cnt;
				r->funcs[pp->probe].bpf_ns += info.run_time_ns;
			}
		}
	}
	r->overhead.stats_enabled = l->stats_fd >= 0 || l->stats_sysctl_old >= 0;
}

int loader__collect(struct loader *l, struct kw_recording *r)
{
	int n = ncpus(), err = 0;
	size_t vsz = sizeof(struct kw_probe_stats);
	void *buf = calloc(n, vsz > 64 ? vsz : 64);
	struct kw_trig_key tk, *tprev = NULL;
	struct kw_cb_key ck, *cprev = NULL;

	kw_recording_free(r);
	memset(r, 0, sizeof(*r));
	if (!buf)
		return -ENOMEM;
	memcpy(r->plan, l->plan, sizeof(r->plan));
	snprintf(r->meta.arch, sizeof(r->meta.arch), "%s", KW_ARCH);

	for (__u32 p = 0; p < KW_NR_PROBES; p++) {
		struct kw_probe_stats *s = buf;
		struct kw_func *f = &r->funcs[p];

		if ((err = read_percpu(l->skel->maps.kw_stats, &p, buf)))
			goto cleanup;
		for (int c = 0; c < n; c++) {
			f->calls += s[c].calls;
			f->missed += s[c].missed;
			f->dropped += s[c].dropped;
			f->errors += s[c].errors;
			kw_hist_merge(&f->dur, &s[c].dur, 1);
			kw_hist_merge(&f->size, &s[c].size, 1);
		}
	}
	for (__u32 i = 0; i < KW_NR_COUNTERS; i++) {
		__u64 *v = buf;

		if ((err = read_percpu(l->skel->maps.kw_counters, &i, buf)))
			goto cleanup;
		for (int c = 0; c < n; c++)
			r->counters[i] += v[c];
	}
	for (__u32 i = 0; i < KW_NR_VISITS; i++) {
		__u64 *v = buf;

		if ((err = read_percpu(l->skel->maps.kw_visits, &i, buf)))
			goto cleanup;
		for (int c = 0; c < n; c++)
			r->visits[i] += v[c];
	}
	{
		__u32 zero = 0;

		if ((err = read_percpu(l->skel->maps.kw_unmap_cleared, &zero, buf)))
			goto cleanup;
		kw_hist_merge(&r->unmap_cleared, buf, n);
	}
	while (!bpf_map_get_next_key(bpf_map__fd(l->skel->maps.kw_walk_cbs), cprev, &ck)) {
		struct kw_cb_val *v = buf;
		struct kw_cb cb = {};

		cprev = &ck;
		if (read_percpu(l->skel->maps.kw_walk_cbs, &ck, buf))
			continue;
		cb.addr = ck.cb;
		cb.flags = ck.flags;
		cb.depth = ck.depth;
		for (int c = 0; c < n; c++) {
			cb.calls += v[c].calls;
			cb.ns += v[c].ns;
			cb.bytes += v[c].bytes;
		}
		ksyms_describe(&l->ksyms, cb.addr, cb.sym, sizeof(cb.sym));
		if ((err = kw_recording_add_cb(r, &cb)))
			goto cleanup;
	}
	if ((err = fold_exited(l, buf, n)))
		goto cleanup;
	for (size_t i = 0; i < l->nexited; i++)
		if ((err = kw_recording_add_trig(r, &l->exited[i])))
			goto cleanup;
	while (!bpf_map_get_next_key(bpf_map__fd(l->skel->maps.kw_triggers), tprev, &tk)) {
		struct kw_trig_val *v = buf;
		struct kw_trig t = {};
		bool merged = false;

		tprev = &tk;
		if (read_percpu(l->skel->maps.kw_triggers, &tk, buf))
			continue;
		t.probe = tk.probe < KW_NR_PROBES ? (int)tk.probe : 0;
		t.trigger = tk.trigger < KW_NR_TRIGGERS ? (int)tk.trigger : 0;
		t.cmd = tk.cmd;
		t.pid = tk.pid;
		for (int c = 0; c < n; c++) {
			t.calls += v[c].calls;
			t.ns += v[c].ns;
		}
		/* a live pid-0 row (the idle task) shares its key with a folded row: one row */
		for (size_t i = 0; !t.pid && i < l->nexited; i++) {
			struct kw_trig *e = &r->trigs[i];

			if (e->probe == t.probe && e->trigger == t.trigger && e->cmd == t.cmd) {
				e->calls += t.calls;
				e->ns += t.ns;
				merged = true;
				break;
			}
		}
		if (!merged && (err = kw_recording_add_trig(r, &t)))
			goto cleanup;
	}
	kw_recording_sort(r);
	pf_names(l, r);
	prog_cost(l, r);
	r->overhead.measured_ns = kw_recording_measured_ns(r);
cleanup:
	if (err)
		fprintf(stderr, "kvmwalk: reading the BPF maps failed: %s\n", strerror(-err));
	free(buf);
	return err;
}

/* ---- metadata
 * ------------------------------------------------------------------------------------- */

static void add_params(struct kw_meta *m, const char *mod)
{
	char dir[128], path[384], val[64];
	struct kw_recording tmp = { .meta = *m };
	DIR *d;
	struct dirent *e;

	snprintf(dir, sizeof(dir), "/sys/module/%s/parameters", mod);
	d = opendir(dir);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char name[96];

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		read_line(path, val, sizeof(val));
		snprintf(name, sizeof(name), "%s.%s", mod, e->d_name);
		kw_recording_add_param(&tmp, name, val);
	}
	closedir(d);
	*m = tmp.meta;
}

/* The [bracketed] choice of a sysfs multiple-choice file. */
static void sysfs_choice(const char *path, char *dst, size_t len)
{
	char line[256], *a, *b;

	read_line(path, line, sizeof(line));
	a = strchr(line, '[');
	b = a ? strchr(a, ']') : NULL;
	if (a && b) {
		*b = 0;
		snprintf(dst, len, "%s", a + 1);
	} else {
		snprintf(dst, len, "%s", line);
	}
}

void loader__meta(struct loader *l, struct kw_meta *m)
{
	struct utsname u;
	char *cpuinfo, *p;
	time_t now = time(NULL);
	struct tm tm;
	DIR *d;
	struct dirent *e;

	snprintf(m->tool_version, sizeof(m->tool_version), "%s (git %s)", KW_VERSION, KW_COMMIT);
	snprintf(m->arch, sizeof(m->arch), "%s", KW_ARCH);
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->kernel_build, sizeof(m->kernel_build), "%s", u.version);
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	}
	read_line("/proc/cmdline", m->cmdline, sizeof(m->cmdline));
	cpuinfo = read_file("/proc/cpuinfo");
	m->cpu[0] = 0;
	if (cpuinfo) {
		const char *keys[] = { "model name", "CPU implementer" };

		for (int k = 0; k < 2 && !m->cpu[0]; k++) {
			p = strstr(cpuinfo, keys[k]);
			if (p && (p = strchr(p, ':'))) {
				char *nl = strchr(p, '\n');

				if (nl)
					*nl = 0;
				snprintf(m->cpu, sizeof(m->cpu), "%s%s", k ? "implementer " : "",
					 p + 2);
				if (k) { /* arm64: add the part number */
					char *q = nl ? strstr(nl + 1, "CPU part") : NULL;

					if (q && (q = strchr(q, ':'))) {
						char *nl2 = strchr(q, '\n');

						if (nl2)
							*nl2 = 0;
						snprintf(m->cpu + strlen(m->cpu),
							 sizeof(m->cpu) - strlen(m->cpu),
							 " part %s", q + 2);
					}
				}
			}
		}
		free(cpuinfo);
	}
	sysfs_choice("/sys/kernel/mm/transparent_hugepage/enabled", m->thp, sizeof(m->thp));
	sysfs_choice("/sys/kernel/mm/transparent_hugepage/defrag", m->thp_defrag,
		     sizeof(m->thp_defrag));
	gmtime_r(&now, &tm);
	strftime(m->started, sizeof(m->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	d = opendir("/sys/module");
	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "kvm", 3))
			add_params(m, e->d_name);
	if (d)
		closedir(d);
	if (!strcmp(KW_ARCH, "arm64")) {
		arm64_kvm_mode(m->kvm_mode, sizeof(m->kvm_mode));
	} else {
		char v[16] = "";

		read_line("/sys/module/kvm/parameters/tdp_mmu", v, sizeof(v));
		snprintf(m->kvm_mode, sizeof(m->kvm_mode), "%s", v[0] == 'Y' ? "tdp" : "shadow");
	}
	m->attach[0] = 0;
	if (l)
		snprintf(m->attach, sizeof(m->attach), "%s", l->opts.attach ?: "auto");
}
