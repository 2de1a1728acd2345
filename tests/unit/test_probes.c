// SPDX-License-Identifier: GPL-2.0
/*
 * The probe catalogue (user/probes.c): every probe named and attachable some way, program names
 * unique, the --probe mask, the mechanism and attach-mode names, and the libbpf log line the
 * loader's retry depends on.
 */
#include <errno.h>

#include "test.h"
#include "probes.h"

static void test_catalogue(void)
{
	for (int p = 0; p < KW_NR_PROBES; p++) {
		const struct kw_probe_desc *d = &kw_probes[p];
		bool progs = false;

		if (!ASSERT_TRUE(d->name && d->arch && d->family && d->what, "fields"))
			return;
		ASSERT_EQ(kw_probe_by_name(d->name), p, d->name);
		for (int m = 0; m < KW_NR_PROG_MECHS; m++) {
			for (int k = 0; k < KW_NR_ENDS; k++) {
				if (!d->prog[m][k])
					continue;
				progs = true;
				/* one program belongs to one probe: its cost is counted once */
				ASSERT_EQ(kw_probe_of_prog(d->prog[m][k]), p, d->prog[m][k]);
			}
		}
		ASSERT_TRUE(progs, d->name);
		/* a function to attach to, or a tracepoint */
		ASSERT_TRUE(d->func || d->tp_name, d->name);
		if (d->tp_name)
			ASSERT_TRUE(d->tp_cat && d->prog[KW_MECH_TRACEPOINT][KW_ENTRY], d->name);
	}
	ASSERT_EQ(kw_probe_of_prog("fx_split_walker"), KW_P_SPLIT_WALKER, "exit-only program");
	ASSERT_EQ(kw_probe_of_prog("tp_ioctl_exit"), KW_P_VM_IOCTL, "tracepoint exit");
	ASSERT_EQ(kw_probe_of_prog("no_such_prog"), -1, "unknown program");
	ASSERT_TRUE(kw_probe_in_arch(KW_P_PGT_WALK, "arm64"), "arm64 probe");
	ASSERT_FALSE(kw_probe_in_arch(KW_P_PGT_WALK, "x86"), "not x86");
	ASSERT_TRUE(kw_probe_in_arch(KW_P_VM_IOCTL, "x86"), "both arches");
}

static void test_names(void)
{
	for (int m = 0; m < KW_NR_MECHS; m++)
		ASSERT_EQ(kw_mech_by_name(kw_mech_name(m)), m, kw_mech_name(m));
	for (int a = 0; a < KW_NR_ATTACH; a++)
		ASSERT_EQ(kw_attach_by_name(kw_attach_name(a)), a, kw_attach_name(a));
	ASSERT_STREQ(kw_mech_name(KW_MECH_NONE), "", "no plan");
	ASSERT_STREQ(kw_mech_name(KW_MECH_TRACEPOINT), "tracepoint", "tracepoint");
	ASSERT_EQ(kw_mech_by_name("uprobe"), -1, "unknown mechanism");
	ASSERT_EQ(kw_attach_by_name("tracepoint"), -1, "not an attach mode");
	ASSERT_STREQ(kw_mech_name(KW_NR_MECHS), "?", "out of range");
}

static void test_mask(void)
{
	struct kw_probe_sel m = { 42, 42, false, KW_SET_LIST };
	char err[160] = "";

	ASSERT_EQ(kw_probe_sel_parse("fast_page_fault,kvm_vm_ioctl", &m, err, sizeof(err)), 0,
		  "two names");
	ASSERT_EQ(m.probes, KW_PROBE_BIT(KW_P_FAST_PF) | KW_PROBE_BIT(KW_P_VM_IOCTL), "their bits");
	ASSERT_EQ(m.named, m.probes, "both required");
	ASSERT_FALSE(m.cheap, "no set");
	ASSERT_EQ(kw_probe_sel_parse("guest_fault,,guest_fault", &m, err, sizeof(err)), 0,
		  "empty item, twice");
	ASSERT_EQ(m.probes, KW_PROBE_BIT(KW_P_GUEST_FAULT), "one bit");
	ASSERT_EQ(kw_probe_sel_parse("", &m, err, sizeof(err)), 0, "empty list");
	ASSERT_EQ(m.probes, 0, "no probe");
	m.probes = 42;
	ASSERT_EQ(kw_probe_sel_parse("kvm_vm_ioctl,kvm_vm_ioct", &m, err, sizeof(err)), -EINVAL,
		  "a prefix is no name");
	ASSERT_STREQ(err,
		     "--probe: no probe or set named 'kvm_vm_ioct' (see `kvmwalk probes`; sets: "
		     "cheap, all, timing, notifiers, none)",
		     "message");
	ASSERT_EQ(m.probes, 42, "unchanged on error");
	/* the sets by name: the largest named wins, none takes nothing beside it */
	ASSERT_EQ(kw_probe_sel_parse("timing", &m, err, sizeof(err)), 0, "timing");
	ASSERT_EQ(m.probes, kw_probes_timing, "the timing set");
	ASSERT_EQ(m.set, KW_SET_TIMING, "named");
	ASSERT_EQ(kw_probe_sel_parse("timing,cheap", &m, err, sizeof(err)), 0, "timing, cheap");
	ASSERT_EQ(m.set, KW_SET_CHEAP, "the larger set");
	ASSERT_EQ(m.probes, kw_probes_cheap | kw_probes_timing, "both sets' probes");
	ASSERT_EQ(kw_probe_sel_parse("none", &m, err, sizeof(err)), 0, "none");
	ASSERT_EQ(m.probes, 0, "none: no probe");
	ASSERT_EQ(m.set, KW_SET_NONE, "none: named");
	ASSERT_EQ(kw_probe_sel_parse("kvm_vm_ioctl", &m, err, sizeof(err)), 0, "a name alone");
	ASSERT_EQ(m.set, KW_SET_LIST, "a list, no set");
	m.probes = 42;
	ASSERT_EQ(kw_probe_sel_parse("none,kvm_vm_ioctl", &m, err, sizeof(err)), -EINVAL,
		  "none and a probe");
	ASSERT_STREQ(err, "--probe: none attaches nothing; it takes no other probe or set (got "
			  "'none,kvm_vm_ioctl')",
		     "none's message");
	ASSERT_EQ(kw_probe_sel_parse("timing,none", &m, err, sizeof(err)), -EINVAL,
		  "none and a set");
	ASSERT_EQ(m.probes, 42, "unchanged on error");
	ASSERT_EQ(kw_probe_by_name(KW_PROBE_SET_TIMING), -1, "timing is no probe");
	ASSERT_EQ(kw_probe_by_name(KW_PROBE_SET_NONE), -1, "none is no probe");
	ASSERT_STREQ(kw_probe_set_name(KW_SET_TIMING), "timing", "a set's name");
	ASSERT_EQ(kw_probe_set_mask(KW_SET_NONE), 0, "none's probes");
	ASSERT_TRUE(KW_PROBES_ALL & KW_PROBE_BIT(KW_NR_PROBES - 1), "all has the last");
	ASSERT_FALSE(KW_PROBES_ALL & KW_PROBE_BIT(KW_NR_PROBES), "and no more");
}

static void test_libbpf_line(void)
{
	char name[64] = "";

	/* libbpf before 1.5 prints the errno as a number, later as a name */
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: prog 'fe_walk': failed to load: -13\n", name,
					sizeof(name)),
		  0, "number");
	ASSERT_STREQ(name, "fe_walk", "name");
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: prog 'kr_fast_pf': failed to load: -EACCES\n",
					name, sizeof(name)),
		  0, "errno name");
	ASSERT_STREQ(name, "kr_fast_pf", "name");
	/* the verifier log that comes before it names the program too, but is not the refusal */
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: prog 'fe_walk': BPF program load failed: "
					"Permission denied\n",
					name, sizeof(name)),
		  -ENOENT, "load failed line");
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: failed to load object 'kvmwalk_bpf'\n", name,
					sizeof(name)),
		  -ENOENT, "object line");
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: prog '': failed to load: -22\n", name,
					sizeof(name)),
		  -ENOENT, "no name");
	ASSERT_EQ(kw_libbpf_failed_prog("libbpf: prog 'fe_walk", name, sizeof(name)), -ENOENT,
		  "cut line");
}

void test_probes(void)
{
	test_catalogue();
	test_names();
	test_mask();
	test_libbpf_line();
}
