// SPDX-License-Identifier: GPL-2.0
/*
 * Layer: views. The test conditions in `kvmwalk report` (report_conditions.h): the header keeps
 * them to a few lines so that the findings stay near the top; "Test conditions" has them all.
 */
#include <string.h>

#include <jansson.h>

#include "fmt.h"
#include "report_conditions.h"

/* "  label     text", wrapped at 78 columns under the text */
static void head(FILE *f, const char *label, const char *text)
{
	fprintf(f, "  %-10s", label);
	kw_fmt_wrap(f, 12, 12, text);
}

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

static void smt_nodes(char *dst, size_t len, const struct kw_conditions *c)
{
	char cpus[32] = "online CPUs unknown", nodes[32] = "NUMA nodes unknown";

	if (c->cpus_online)
		snprintf(cpus, sizeof(cpus), "%u online", c->cpus_online);
	if (c->numa_nodes)
		snprintf(nodes, sizeof(nodes), "%u NUMA node%s", c->numa_nodes,
			 c->numa_nodes == 1 ? "" : "s");
	snprintf(dst, len, "%s, SMT %s, %s", cpus, c->smt[0] ? c->smt : "unknown", nodes);
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

/* the distinct VMMs of the VM processes with their counts: "kvmwalk-load x2; QEMU 10.0.2 x1" */
static void vmms(char *dst, size_t len, const struct kw_recording *r)
{
	size_t used = 0;

	dst[0] = 0;
	for (size_t i = 0; i < r->nvms; i++) {
		const struct kw_vm *v = &r->vms[i];
		char name[160];
		size_t n = 0;
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(r->vms[j].vmm, v->vmm) && !strcmp(r->vms[j].comm, v->comm) &&
			       !strcmp(r->vms[j].vmm_version, v->vmm_version);
		if (seen)
			continue;
		for (size_t j = i; j < r->nvms; j++)
			n += !strcmp(r->vms[j].vmm, v->vmm) && !strcmp(r->vms[j].comm, v->comm) &&
			     !strcmp(r->vms[j].vmm_version, v->vmm_version);
		if (!strcmp(v->vmm, "qemu"))
			snprintf(name, sizeof(name), "QEMU %s",
				 v->vmm_version[0] ? v->vmm_version : "(version not read)");
		else
			snprintf(name, sizeof(name), "%s", v->vmm[0] ? v->vmm : v->comm);
		used += snprintf(dst + used, used < len ? len - used : 0, "%s%s x%zu",
				 used ? "; " : "", name, n);
	}
}

void kw_report_conditions_head(FILE *f, const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	const struct kw_conditions *c = &m->cond;
	char buf[1024], a[256], b[256], d[64];
	size_t used = 0;

	kw_report_host_kind(a, sizeof(a), c);
	snprintf(buf, sizeof(buf), "%s, %s", m->hostname[0] ? m->hostname : "(no name)", a);
	head(f, "host", buf);
	head(f, "cmdline", m->cmdline);
	smt_nodes(a, sizeof(a), c);
	snprintf(buf, sizeof(buf), "%s; %s", m->cpu[0] ? m->cpu : "model unknown", a);
	head(f, "cpu", buf);
	/* the pools that have pages (Test conditions lists them all) */
	a[0] = 0;
	for (__u32 i = 0, n = 0; i < c->nhuge; i++)
		if (c->huge[i].pages > 0)
			n += snprintf(a + n, n < sizeof(a) ? sizeof(a) - n : 0, "%s%lld x %s",
				      n ? ", " : "", c->huge[i].pages, c->huge[i].size);
	if (!a[0])
		snprintf(a, sizeof(a), "%s", c->nhuge ? "no pages" : "unknown");
	kw_cond_numa_balancing_text(c->numa_balancing, d, sizeof(d));
	/* "0 (off)": the word only */
	if (strchr(d, '(') && d[strlen(d) - 1] == ')') {
		d[strlen(d) - 1] = 0;
		memmove(d, strchr(d, '(') + 1, strlen(strchr(d, '(')));
	}
	snprintf(buf, sizeof(buf), "THP %s (defrag %s); hugetlb %s; NUMA balancing %s", m->thp,
		 m->thp_defrag, a, d);
	head(f, "memory", buf);
	kw_cond_vulns_summary(c, b, sizeof(b));
	snprintf(buf, sizeof(buf), "%s; %s",
		 c->mitigations[0] ? c->mitigations : "default mitigations", b);
	head(f, "cpu bugs", buf);
	/* the settings that change KVM's paths: the loaded modules' and arm64's own */
	buf[0] = 0;
	for (__u32 i = 0; i < c->nsettings; i++) {
		const struct kw_cond_setting *s = &c->settings[i];

		if (s->param && !strcmp(s->source, "module not loaded"))
			continue;
		/* "kvm.tdp_mmu=Y", "eager split per VM", "kvm-arm.mode not set" */
		used += snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0,
				 "%s%s%s%s", used ? ", " : "", s->name,
				 !s->value[0]		? " not set"
				 : strchr(s->name, ' ') ? " "
							: "=",
				 s->value);
	}
	if (c->ipa_limit)
		used += snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0,
				 "%sIPA limit %u bits", used ? ", " : "", c->ipa_limit);
	head(f, "kvm", buf[0] ? buf : "no KVM setting read");
	if (r->nvms) {
		vmms(buf, sizeof(buf), r);
		head(f, "vmm", buf);
	}
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

void kw_report_conditions(FILE *f, const struct kw_recording *r)
{
	const struct kw_meta *m = &r->meta;
	const struct kw_conditions *c = &m->cond;
	char buf[4096], a[256], d[32];
	size_t used = 0;

	if (!c->recorded)
		return;
	fprintf(f, "\nTest conditions\n");
	kw_report_host_kind(a, sizeof(a), c);
	item(f, "host", a);
	item(f, "  because", c->host_evidence);
	item(f, "machine", c->machine[0] ? c->machine : "no DMI, no device tree model");
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
	buf[0] = 0;
	for (size_t i = 0; i < m->nparams; i++)
		used += snprintf(buf + used, used < sizeof(buf) ? sizeof(buf) - used : 0, "%s%s=%s",
				 i ? " " : "", m->params[i].name, m->params[i].value);
	item(f, "KVM parameters", m->nparams ? buf : "none");
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
