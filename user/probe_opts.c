// SPDX-License-Identifier: GPL-2.0
/* --attach, --probe, --pid, --no-visits, -v: the argp child of the probe commands (probe_opts.h). */
#include <argp.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pids.h"
#include "probe_opts.h"
#include "sample_abi.h"

enum {
	OPT_ATTACH = 1100, /* the parents number theirs from 1000 */
	OPT_PROBE,
	OPT_NO_VISITS,
	OPT_VM,
	OPT_SAMPLE,
	OPT_NO_SAMPLE,
};

static const struct argp_option options[] = {
	{ .name = "attach", .key = OPT_ATTACH, .arg = "MODE",
	  .doc = "auto (default): fentry/fexit where an attach test passes, else kprobe, else a "
		 "tracepoint; on a kernel that can preempt a BPF program (preempt=full, lazy, rt, "
		 "or unknown) kprobe first: a preempted fentry program makes other runs of it "
		 "skip, and counts would be short (a recording says how many runs were lost); "
		 "fentry or kprobe: only that mechanism" },
	{ .name = "probe", .key = OPT_PROBE, .arg = "LIST",
	  .doc = "only these probes: comma-separated names from `kvmwalk probes` (exit 6 if one "
		 "cannot be attached) and sets: all (record's and top's default), cheap (what "
		 "dashboards/ reads, the per-walk counters among it, without the probes that run "
		 "per KVM_RUN, per fault or per TDP iterator step; serve's --help says which), "
		 "timing (only the probes that time a whole operation once per call: kvm_vm_ioctl, "
		 "kvm_arch_prepare_memory_region, kvm_mmu_notifier_invalidate_range_start, "
		 "kvm_nested_s2_unmap, kvm_mmu_notifier_release; for times that carry almost none "
		 "of kvmwalk's cost), notifiers (serve's default: the MMU-notifier callbacks of "
		 "those, kvm_mmu_notifier_invalidate_range_start, kvm_nested_s2_unmap, "
		 "kvm_mmu_notifier_release), "
		 "none (record only: no BPF at all, the command's wall time and the host), sampled "
		 "(record only: none of these probes, the sampled mode alone, as --probe none "
		 "--sample). A set's "
		 "probes that this kernel lacks are unavailable, not an error; probes left out show "
		 "as off" },
	{ .name = "probes", .key = OPT_PROBE, .flags = OPTION_ALIAS },
	{ .name = "sample", .key = OPT_SAMPLE, .arg = "HZ", .flags = OPTION_ARG_OPTIONAL,
	  .doc = "record and serve: also the sampled mode, at a fixed cost whatever KVM does: a "
		 "software CPU clock at HZ samples per second on every online CPU (default 49, "
		 "1 to 999) whose kernel stack a BPF program classifies in the kernel: which "
		 "walker, flush, zap or fault function (the innermost on the stack) under which "
		 "trigger (ioctl, notifier, fault, teardown, nested unmap), per process. The "
		 "recording's sampled section estimates each one's CPU time as samples / HZ, "
		 "+- 1.96 sqrt(samples) / HZ (95 %); serve exports it as "
		 "kvmwalk_sampled_cpu_seconds_total. It samples every process: --pid and --vm "
		 "filter only the probes. serve samples at 49 Hz unless told --no-sample" },
	{ .name = "no-sample", .key = OPT_NO_SAMPLE,
	  .doc = "serve: without the sampled mode (serve's default samples at 49 Hz)" },
	{ .name = "pid", .key = 'p', .arg = "PID[,PID...]",
	  .doc = "only these processes (the VMMs), every thread of each: process ids, "
		 "comma-separated, space-separated as pidof prints them (--pid \"$(pidof "
		 "qemu-system-x86_64)\") or in several --pid, at most 64; each must exist when "
		 "kvmwalk starts (else exit 2)" },
	{ .name = "vm", .key = OPT_VM, .arg = "NAME",
	  .doc = "only the VMs named NAME (QEMU's -name guest=NAME or -name NAME, libvirt's "
		 "machine-qemu-N-NAME.scope), found as they start; one name per --vm, at most "
		 "16; with --pid, those processes too. A VM's probe runs before kvmwalk read its "
		 "name are counted as unseen, not lost silently" },
	{ .name = "no-visits", .key = OPT_NO_VISITS,
	  .doc = "leave out the per-entry callback probes (stage2_split_walker, "
		 "stage2_unmap_walker, tdp_iter_next), the costly ones" },
	{ .name = "verbose", .key = 'v',
	  .doc = "show libbpf's messages (verifier logs); serve also says each privilege step" },
	{},
};

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct loader_opts *lo = state->input;
	struct kw_probe_sel sel;
	char err[160];

	switch (key) {
	case ARGP_KEY_INIT:
		/* lo->default_set: the parent's, set in its ARGP_KEY_INIT (probe_opts.h) */
		lo->attach = KW_ATTACH_AUTO;
		lo->set = lo->default_set;
		lo->probes = kw_probe_set_mask(lo->set);
		lo->cheap = lo->set == KW_SET_CHEAP;
		lo->probe_arg = NULL;
		lo->visits = true;
		break;
	case OPT_ATTACH:
		if (kw_attach_by_name(arg) < 0)
			argp_error(state, "--attach is auto, fentry or kprobe, not '%s'", arg);
		lo->attach = kw_attach_by_name(arg);
		break;
	case OPT_SAMPLE:
		if (arg) {
			char *end;
			unsigned long hz = strtoul(arg, &end, 10);

			if (*end || !*arg || hz < 1 || hz > KW_SAMPLE_MAX_HZ) {
				argp_error(state, "--sample: a rate of 1 to %d per second, not '%s' "
						  "(--no-sample: none)",
					   KW_SAMPLE_MAX_HZ, arg);
				return EINVAL;
			}
			lo->sample_hz = hz;
		} else {
			lo->sample_hz = KW_SAMPLE_DEFAULT_HZ;
		}
		lo->sample_given = true;
		break;
	case OPT_NO_SAMPLE:
		lo->sample_hz = 0;
		lo->no_sample = true;
		break;
	case OPT_PROBE:
		/* the sampled mode alone: no per-call probe */
		if (!strcmp(arg, "sampled")) {
			lo->probes = 0;
			lo->required = 0;
			lo->cheap = false;
			lo->set = KW_SET_NONE;
			lo->probe_arg = arg;
			if (!lo->sample_given)
				lo->sample_hz = KW_SAMPLE_DEFAULT_HZ;
			lo->sample_given = true;
			break;
		}
		/* A misspelt name must not silently record nothing. */
		if (kw_probe_sel_parse(arg, &sel, err, sizeof(err)))
			argp_error(state, "%s", err);
		lo->probes = sel.probes;
		lo->required = sel.named;
		lo->cheap = sel.cheap;
		lo->set = sel.set;
		lo->probe_arg = arg;
		break;
	case 'p':
		if (kw_pids_parse(arg, lo->pids, &lo->npids, err, sizeof(err)))
			argp_error(state, "%s", err);
		break;
	case OPT_VM:
		if (!*arg || strlen(arg) >= sizeof(lo->vms[0]))
			argp_error(state, "--vm: a VM name of 1 to %zu characters, not '%s'",
				   sizeof(lo->vms[0]) - 1, arg);
		if (lo->nvms == KW_MAX_VMS)
			argp_error(state, "--vm: at most %d names", KW_MAX_VMS);
		snprintf(lo->vms[lo->nvms++], sizeof(lo->vms[0]), "%s", arg);
		break;
	case OPT_NO_VISITS:
		lo->visits = false;
		break;
	case 'v':
		lo->verbose = true;
		break;
	case ARGP_KEY_END:
		/* argp_error() returns under ARGP_NO_EXIT (the unit tests): an error then */
		if ((lo->sample_given || lo->no_sample) && !lo->sample_ok) {
			argp_error(state, "--sample and --no-sample: only record and serve take them");
			return EINVAL;
		}
		if (lo->sample_given && lo->no_sample) {
			argp_error(state, "--no-sample contradicts --sample and --probe sampled");
			return EINVAL;
		}
		if (lo->set != KW_SET_NONE)
			break;
		if (!lo->none_ok && lo->probe_arg && !strcmp(lo->probe_arg, "sampled")) {
			argp_error(state, "--probe sampled: only record takes it (serve samples by "
					  "default, beside the timing set's probes)");
			return EINVAL;
		}
		if (!lo->none_ok) {
			argp_error(state, "--probe none attaches nothing: only record takes it (the "
					  "command's wall time and the host, without BPF)");
			return EINVAL;
		}
		if (lo->npids || lo->nvms) {
			argp_error(state, "--probe none attaches nothing: --pid and --vm have "
					  "nothing to filter (the sampled mode samples every process)");
			return EINVAL;
		}
		if (lo->nufuncs) {
			argp_error(state, "--probe none loads no BPF: --count and --time need it "
					  "(--probe timing keeps the fewest probes)");
			return EINVAL;
		}
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

const struct argp kw_probe_argp = {
	.options = options,
	.parser = parse_opt,
};

const struct argp_child kw_probe_children[] = {
	{ .argp = &kw_probe_argp, .header = "Attaching the probes:" },
	{},
};
