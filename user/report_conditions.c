// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The test conditions in `kvmwalk report` (report_conditions.h): the report's
 * header names the host only, so that the findings stay near the top; "Test conditions",
 * further down, has them all (the kernel command line, every KVM parameter).
 */
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "report_conditions.h"

/* "  label            text" of the full list, text wrapped under itself */
static void item(FILE *f, const char *label, const char *text)
{
	fprintf(f, "  %-17s", label);
	kw_fmt_wrap(f, 19, 19, text[0] ? text : "unknown");
}

void kw_report_host_kind(char *dst, size_t len, const struct kw_conditions *c)
{
	static const struct {
		const char *kind, *text;
	} t[] = {
		{ "bare-metal", "bare metal" },
		{ "vm", "a VM" },
		{ "emulated", "emulated" },
		{ "virtual", "a VM or emulated" },
	};
	const char *k = "not known whether bare metal";

	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		if (!strcmp(c->host_kind, t[i].kind))
			k = t[i].text;
	snprintf(dst, len, "%s%s%s%s", k, c->hypervisor[0] ? " (" : "", c->hypervisor,
		 c->hypervisor[0] ? ")" : "");
}

static void hugetlb(char *dst, size_t len, const struct kw_conditions *c)
{
	char pools[256];

	kw_cond_huge_text(c, pools, sizeof(pools));
	snprintf(dst, len, "%s", pools[0] ? pools : "no pools");
}

static void mitigations(char *dst, size_t len, const struct kw_conditions *c)
{
	snprintf(dst, len, "%s",
		 c->mitigations[0] ? c->mitigations
				   : "the default (no mitigation option on the command "
				     "line)");
}

static void print_vm(FILE *f, const struct kw_recording *r, const struct kw_vm *v)
{
	const struct kw_meta *m = &r->meta;
	char src[160], eager[64], buf[512];
	__u32 ipa;

	fprintf(f, "  %u %s%s%s%s\n", v->pid, v->comm, v->vm[0] ? " (vm " : "", v->vm,
		v->vm[0] ? ")" : "");
	if (!strcmp(v->vmm, "qemu"))
		snprintf(buf, sizeof(buf), "QEMU %s",
			 v->vmm_version[0] ? v->vmm_version
					   : "(no version string found in its binary)");
	else
		snprintf(buf, sizeof(buf), "%s", v->vmm[0] ? v->vmm : "not QEMU or kvmwalk-load");
	fprintf(f, "    %-15s", "vmm");
	kw_fmt_wrap(f, 19, 19, buf);
	if (v->exe[0]) {
		fprintf(f, "    %-15s", "binary");
		kw_fmt_wrap(f, 19, 19, v->exe);
	}
	ipa = kw_cond_vm_ipa(&m->cond, m->arch, m->kvm_mode, v->vmm, v->ipa_opt, v->ipa_debugfs,
			     src, sizeof(src));
	if (ipa)
		snprintf(buf, sizeof(buf), "%u bits: %s", ipa, src);
	else
		snprintf(buf, sizeof(buf), "%s", src);
	fprintf(f, "    %-15s", "IPA size");
	kw_fmt_wrap(f, 19, 19, buf);
	kw_cond_vm_eager(&m->cond, m->arch, v->vmm, v->eager_opt, eager, sizeof(eager), src,
			 sizeof(src));
	if (eager[0])
		snprintf(buf, sizeof(buf), "%s: %s", eager, src);
	else
		snprintf(buf, sizeof(buf), "%s", src);
	fprintf(f, "    %-15s", "eager split");
	kw_fmt_wrap(f, 19, 19, buf);
	fprintf(f, "    %-15s", v->cmdline_cut ? "command (cut)" : "command");
	kw_fmt_wrap(f, 19, 19, v->cmdline[0] ? v->cmdline : "(none read)");
}

/* every KVM module parameter, "a=b" items wrapped under one another */
static void params(FILE *f, const struct kw_meta *m)
{
	char buf[4096];
	size_t used = 0;

	buf[0] = 0;
	for (size_t i = 0; i < m->nparams; i++)
		used += snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0, "%s%s=%s",
				 i ? " " : "", m->params[i].name, m->params[i].value);
	item(f, "KVM parameters", m->nparams ? buf : "none");
}

/* A recording made before kvmwalk read the test conditions: what its meta has of them. */
static void older(FILE *f, const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	char buf[256];

	/* nothing known (a hand-made recording): no section */
	if (!m->cmdline[0] && !m->cpu[0] && !m->thp[0] && !m->nparams && !m->preempt[0])
		return;
	fprintf(f, "\nTest conditions (a recording from before kvmwalk read them all)\n");
	item(f, "cmdline", m->cmdline);
	item(f, "cpu", m->cpu);
	snprintf(buf, sizeof(buf), "%s, defrag %s", m->thp, m->thp_defrag);
	item(f, "THP", m->thp[0] ? buf : "");
	if (m->preempt[0]) {
		snprintf(buf, sizeof(buf), "%s%s%s%s", m->preempt, m->preempt_src[0] ? " (" : "",
			 m->preempt_src, m->preempt_src[0] ? ")" : "");
		item(f, "preemption", buf);
	}
	params(f, m);
}

void kw_report_conditions(FILE *f, const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	const struct kw_conditions *c = &m->cond;
	char buf[4096], a[256], d[32];

	if (!c->recorded) {
		older(f, r);
		return;
	}
	fprintf(f, "\nTest conditions\n");
	kw_report_host_kind(a, sizeof(a), c);
	item(f, "host", a);
	item(f, "  because", c->host_evidence);
	item(f, "machine", c->machine[0] ? c->machine : "no DMI, no device tree model");
	item(f, "cmdline", m->cmdline);
	item(f, "cpu", m->cpu);
	snprintf(buf, sizeof(buf), "%u (%s)", c->cpus_online, c->cpus_online_list);
	item(f, "online CPUs", c->cpus_online ? buf : "");
	item(f, "SMT", c->smt);
	snprintf(buf, sizeof(buf), "%u (%s)", c->numa_nodes, c->numa_nodes_online);
	item(f, "NUMA nodes", c->numa_nodes ? buf : "");
	kw_cond_numa_balancing_text(c->numa_balancing, a, sizeof(a));
	item(f, "NUMA balancing", a);
	snprintf(buf, sizeof(buf), "%s, defrag %s", m->thp, m->thp_defrag);
	item(f, "THP", buf);
	hugetlb(a, sizeof(a), c);
	snprintf(d, sizeof(d), "%lld", c->nr_hugepages);
	snprintf(buf, sizeof(buf), "pools %s; nr_hugepages %s%s%s%s", a,
		 c->nr_hugepages >= 0 ? d : "unknown", c->hugepagesz[0] ? " of the default " : "",
		 c->hugepagesz, c->hugepagesz[0] ? "" : " (default size unknown)");
	item(f, "hugetlb", buf);
	snprintf(buf, sizeof(buf), "%s%s%s%s", m->preempt, m->preempt_src[0] ? " (" : "",
		 m->preempt_src, m->preempt_src[0] ? ")" : "");
	item(f, "preemption", buf);
	mitigations(a, sizeof(a), c);
	item(f, "mitigations", a);
	kw_cond_vulns_summary(c, a, sizeof(a));
	item(f, "CPU bugs", a);
	for (__u32 i = 0; i < c->nvulns; i++) {
		if (!strcmp(c->vulns[i].state, "Not affected"))
			continue;
		snprintf(buf, sizeof(buf), "%s: %s", c->vulns[i].name, c->vulns[i].state);
		item(f, "", buf);
	}
	for (__u32 i = 0; i < c->nsettings; i++) {
		const struct kw_cond_setting *s = &c->settings[i];

		snprintf(buf, sizeof(buf), "%s%s%s (%s)", s->name,
			 !s->value[0]		? " not set"
			 : strchr(s->name, ' ') ? " "
						: "=",
			 s->value, s->source);
		item(f, i ? "" : "KVM settings", buf);
	}
	if (!strcmp(m->arch, "arm64")) {
		snprintf(buf, sizeof(buf), "%u bits (boot log)", c->ipa_limit);
		item(f, "IPA size limit", c->ipa_limit ? buf : "");
	}
	params(f, m);
	if (!r->nvms)
		return;
	fprintf(f, "\nVM processes (their command lines cut to %d bytes, secrets hidden)\n",
		KW_VM_CMDLINE_LEN - 1);
	for (size_t i = 0; i < r->nvms; i++)
		print_vm(f, r, &r->vms[i]);
}

json_t *kw_report_conditions_json(const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	json_t *o, *p;

	if (!m->cond.recorded)
		return json_null();
	o = kw_conditions_json(&m->cond);
	/* with the conditions meta always had, so that this object is the whole list */
	json_object_set_new(o, "cpu", json_string(m->cpu));
	json_object_set_new(o, "cmdline", json_string(m->cmdline));
	json_object_set_new(o, "kvm_mode", json_string(m->kvm_mode));
	json_object_set_new(o, "thp", json_string(m->thp));
	json_object_set_new(o, "thp_defrag", json_string(m->thp_defrag));
	json_object_set_new(o, "preempt", json_string(m->preempt));
	p = json_object();
	for (size_t i = 0; i < m->nparams; i++)
		json_object_set_new(p, m->params[i].name, json_string(m->params[i].value));
	json_object_set_new(o, "kvm_params", p);
	return o;
}
