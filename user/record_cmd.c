// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk record`: attaches, counts for a duration, until a signal or around a command, with
 * --interval snapshots, and writes one recording (record.c's JSON, outfile.c's whole-file
 * replace). A command, the top layer.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "commands.h"
#include "clock.h"
#include "cmd_common.h"
#include "kvmstats_read.h"
#include "kvmstats_rec.h"
#include "loader.h"
#include "outfile.h"
#include "probe_opts.h"
#include "record.h"

static const struct argp_option record_options[] = {
	{ .name = "output", .key = 'o', .arg = "FILE",
	  .doc = "write the recording here (default kvmwalk.json; - for stdout). Its directory is "
		 "checked before anything is attached; the recording goes to a temporary file "
		 "there, renamed over FILE when complete, and a previous FILE is kept as FILE.old. "
		 "A failed write (a full disk) leaves FILE as it was." },
	{ .name = "duration", .key = 'd', .arg = "SECS",
	  .doc = "stop after SECS seconds (default: Ctrl-C or end of CMD)" },
	{ .name = "interval", .key = OPT_INTERVAL, .arg = "SECS",
	  .doc = "also keep a snapshot every SECS seconds of everything the recording counts "
		 "(per probe calls and time, counters, visits, dirty-log ioctls), as differences "
		 "that sum to the totals: kvmwalk report --timeline shows them" },
	{ .name = "kvm-stats", .key = OPT_KVM_STATS, .arg = "MODE",
	  .doc = "KVM's own per-VM statistics (pf_fast, pages_4k, remote_tlb_flush_requests, ...) "
		 "of the recorded VMs at the start and the end, and /proc/meminfo's "
		 "SecPageTables, at no probe cost: auto (debugfs; for what it cannot give, the "
		 "binary stats fds the VMM holds, through pidfd_getfd), debugfs, binary or off "
		 "(default auto). A VM that ends before the end keeps its last read (every 0.5 s). "
		 "report shows them beside kvmwalk's counts" },
	{ .doc = "Any kernel function (at most 8 with --count and --time together):", .group = 1 },
	{ .name = "count", .key = OPT_COUNT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "also count the calls of these kernel functions, per trigger (ioctl, "
		 "mmu_notifier, mmu_notifier_age, vcpu_fault, vm_teardown, other) and per process: "
		 "fentry, else "
		 "kprobe, as the built-in probes. A name not in /proc/kallsyms (misspelt, or "
		 "inlined: a static inline helper has no symbol), not in available_filter_functions "
		 "(notrace) or that no mechanism attaches is a usage error (exit 2), said with the "
		 "reason before CMD starts" },
	{ .name = "time", .key = OPT_TIME, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --count, and time each call (a duration histogram: report's p50 ... p99.9, "
		 "compare's rows); a recursive call loses the outer call's time (counted missed)" },
	{ .name = "count-optional", .key = OPT_COUNT_OPT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --count, but a function that cannot be attached is recorded as "
		 "\"unavailable: REASON\" instead of failing (a function only a patched kernel has)" },
	{ .name = "time-optional", .key = OPT_TIME_OPT, .arg = "FUNC[,FUNC...]", .group = 1,
	  .doc = "as --time, optional as --count-optional" },
	{},
};

static const struct argp record_argp = {
	.options = record_options,
	.parser = cmd_parse_common,
	.args_doc = "[-- CMD [ARGS...]]",
	.children = kw_probe_children,
	.doc = "Records walker statistics into one JSON document (schema kvmwalk-recording/1, see "
	       "docs/recording-format.md): for a duration, until Ctrl-C / SIGTERM, or around a "
	       "command, whose exit status kvmwalk then exits with. BPF run-time statistics are on "
	       "while recording, so the recording holds the probes' own cost."
	       "\vExamples:\n"
	       "  kvmwalk record -d 10 -o idle.json\n"
	       "  kvmwalk record -o split.json -- kvmwalk-load --scenario split\n"
	       "  kvmwalk record --pid $(pidof qemu-system-aarch64) --interval 1 -o mig.json\n"
	       "  kvmwalk record --pid 4242,4243 -d 60 -o two-vms.json\n"
	       "  kvmwalk record --count tdp_iter_skip_children \\\n"
	       "      -- kvmwalk-load --scenario invalidate\n"
	       "  kvmwalk record --time tdp_mmu_zap_leafs --count-optional tdp_iter_next \\\n"
	       "      -o zaps.json -- kvmwalk-load --scenario invalidate --refault=no\n\n"
	       "--count checks a patch's mechanism the way its author would with kprobe hit "
	       "counts: report shows the calls per trigger and process, compare a row per "
	       "function. A function the compiler inlined has no symbol and cannot be counted "
	       "(the bundled hint patch's tdp_iter_skip_children() is static inline: count "
	       "tdp_iter_next, whose calls it removes, or mark the helper noinline).\n\n"
	       "Exit status: the command's, else 0; 1 error (the recording could not be written, "
	       "...); 2 usage (a bad option value, a --pid that does not exist, an -o directory "
	       "that is missing or not writable, a --count / --time function that cannot be "
	       "traced); " KW_EXIT_STATUS_PROBES,
};

int record_main(int argc, char **argv)
{
	struct cmd_common c = { .out = "kvmwalk.json", .of = { .dirfd = -1 } };
	struct kw_recording r = {}, snap = {};
	struct kw_kvmstats_reader ksr = { .dirfd = -1 };
	struct kw_kvmstats ks;
	struct kw_interval *ivs = NULL, last = {};
	size_t nivs = 0;
	struct loader *l;
	pid_t child = 0;
	int code, status = 0, ret = 0;
	double start, next_iv;
	__u64 start_ns;

	argp_parse(&record_argp, argc, argv, ARGP_IN_ORDER, NULL, &c);
	cmd_install_signals();
	kw_kvmstats_init(&ks);
	/* every process keeps its rows after it exits: a recording attributes them all */
	c.lo.keep_exited = true;
	l = loader__open(&c.lo, &code);
	if (!l) {
		kw_outfile_close(&c.of);
		return code;
	}
	if (loader__stats_start(l))
		fprintf(stderr,
			"kvmwalk: BPF run-time statistics unavailable; no overhead figures\n");

	/* after attaching: the probes see all that KVM's statistics count from here to the end */
	kw_kvmstats_open(&ksr, c.kvm_stats, "", true);
	kw_kvmstats_read(&ksr, &ks, 0, KW_KSR_START);
	if (!c.ncmd)
		fprintf(stderr, "kvmwalk: recording; Ctrl-C to stop\n");
	/* CLOCK_MONOTONIC, as kvmwalk-load's phase start_ns: report --timeline can place them */
	start_ns = kw_mono_ns();
	start = start_ns / 1e9;
	next_iv = start + c.interval;
	if (c.ncmd) {
		child = fork();
		if (child < 0) {
			fprintf(stderr, "kvmwalk: fork: %s\n", strerror(errno));
			ret = KW_EXIT_ERROR;
			goto cleanup;
		}
		if (!child) {
			signal(SIGINT, SIG_DFL);
			signal(SIGTERM, SIG_DFL);
			signal(SIGHUP, SIG_DFL);
			execvp(c.cmd[0], c.cmd);
			fprintf(stderr, "kvmwalk: cannot run %s: %s\n", c.cmd[0], strerror(errno));
			_exit(127);
		}
	}
	for (;;) {
		double t = kw_mono_s();

		if (child && waitpid(child, &status, WNOHANG) == child) {
			child = -1;
			break;
		}
		if (cmd_got_signal) {
			if (child <= 0)
				break;
			/*
			 * the command got Ctrl-C too (same process group); SIGTERM is ours: pass it
			 */
			if (cmd_got_signal == SIGTERM)
				kill(child, SIGTERM);
			cmd_got_signal = 0;
		}
		if (c.duration && t - start >= c.duration)
			break;
		if (c.interval && t >= next_iv) {
			struct kw_interval *p = realloc(ivs, (nivs + 1) * sizeof(*ivs));

			/*
			 * No room or no read: no snapshot now, and the next interval covers both
			 * (its t says so), so the intervals still sum to the totals.
			 */
			if (p)
				ivs = p;
			if (p && !loader__collect(l, &snap)) {
				/* t: when the read began (it takes a while: the maps, /proc) */
				ivs[nivs] = (struct kw_interval){ .t = t - start };
				kw_interval_delta(&ivs[nivs++], &snap, &last);
			}
			/* a read slower than the interval (emulation) skips ticks: no pile-up */
			do
				next_iv += c.interval;
			while (next_iv <= kw_mono_s());
		}
		kw_kvmstats_tick(&ksr, &ks, t - start);
		loader__poll(l, 20); /* wakes at each new process (its name) and, with --vm, exec */
	}
	kw_kvmstats_read(&ksr, &ks, kw_mono_s() - start, KW_KSR_END);

	if (loader__collect(l, &r)) {
		ret = KW_EXIT_ERROR;
		goto cleanup;
	}
	loader__meta(l, &r.meta);
	r.kvmstats = ks; /* moved into the recording */
	kw_kvmstats_init(&ks);
	kw_recording_kvmstats_scope(&r, c.lo.pids, c.lo.npids, c.lo.nvms);
	kw_kvmstats_sort(&r.kvmstats);
	r.meta.duration_s = kw_mono_s() - start;
	r.meta.start_monotonic_ns = start_ns;
	memcpy(r.meta.pid_filter, c.lo.pids, sizeof(r.meta.pid_filter));
	r.meta.npid_filter = c.lo.npids;
	memcpy(r.meta.vm_filter, c.lo.vms, sizeof(r.meta.vm_filter));
	r.meta.nvm_filter = c.lo.nvms;
	r.meta.visits = c.lo.visits;
	r.meta.exit_status = -1;
	kw_meta_set_command(&r.meta, argc, argv);
	if (c.interval) {
		struct kw_interval iv = { .t = r.meta.duration_s };

		kw_interval_delta(&iv, &r, &last);
		r.intervals = ivs; /* the snapshots so far, then the last partial interval */
		r.nintervals = nivs;
		ivs = NULL;
		if (kw_recording_add_interval(&r, &iv))
			fprintf(stderr, "kvmwalk: out of memory: the last interval is missing\n");
	}
	for (int i = 0; i < c.ncmd; i++) {
		size_t n = strlen(r.meta.command);

		snprintf(r.meta.command + n, sizeof(r.meta.command) - n, "%s%s", i ? " " : "",
			 c.cmd[i]);
	}
	/* Detach before writing: nothing stays attached even if the write is slow. */
	loader__destroy(l);
	l = NULL;
	if (child == -1) {
		r.meta.exit_status = WIFEXITED(status)	   ? WEXITSTATUS(status)
				     : WIFSIGNALED(status) ? 128 + WTERMSIG(status)
							   : 1;
		ret = r.meta.exit_status;
	} else if (child > 0) {
		kill(child, SIGTERM);
		waitpid(child, &status, 0);
	}
	if (kw_recording_save(&r, c.out, &c.of))
		ret = ret ?: KW_EXIT_ERROR;
	else if (strcmp(c.out, "-"))
		fprintf(stderr, "kvmwalk: wrote %s (%.1f s)\n", c.out, r.meta.duration_s);
cleanup:
	kw_kvmstats_close(&ksr);
	kw_kvmstats_free(&ks);
	loader__destroy(l);
	kw_outfile_close(&c.of);
	kw_recording_free(&r);
	kw_recording_free(&snap);
	free(ivs);
	return ret;
}
