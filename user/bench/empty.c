// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk-bench empty` (issue 6 part 2): empty fentry/fexit programs on the functions kvmwalk
 * probes, around a command (kvmwalk-load in the emulated host), with BPF run-time statistics on.
 * Their ns per run is the floor that kvmwalk's real probes on the same functions are set
 * against (tests/vm/cases/probe-cost). Only kernels that allow trampolines can run it.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "empty.h"
#include "kvmwalk_abi.h" /* struct kw_hist_slots, in the skeleton's rodata */
#include "bench.skel.h"

static void slots(struct bench_bpf *skel, struct bpf_program *fe[], struct bpf_program *fx[])
{
	fe[0] = skel->progs.empty_fe0;
	fe[1] = skel->progs.empty_fe1;
	fe[2] = skel->progs.empty_fe2;
	fe[3] = skel->progs.empty_fe3;
	fx[0] = skel->progs.empty_fx0;
	fx[1] = skel->progs.empty_fx1;
	fx[2] = skel->progs.empty_fx2;
	fx[3] = skel->progs.empty_fx3;
}

void bench_empty_slots_off(struct bench_bpf *skel)
{
	struct bpf_program *fe[BENCH_EMPTY_SLOTS], *fx[BENCH_EMPTY_SLOTS];
	int i;

	slots(skel, fe, fx);
	for (i = 0; i < BENCH_EMPTY_SLOTS; i++) {
		bpf_program__set_autoload(fe[i], false);
		bpf_program__set_autoload(fx[i], false);
	}
}

static int run(char **argv)
{
	int status;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		fprintf(stderr, "bench: fork: %s\n", strerror(errno));
		return -errno;
	}
	if (!pid) {
		execvp(argv[0], argv);
		fprintf(stderr, "bench: run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, 0) < 0) {
		fprintf(stderr, "bench: wait for %s: %s\n", argv[0], strerror(errno));
		return -errno;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static void print_stats(const char *func, const char *kind, struct bpf_program *p)
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	if (bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len)) {
		printf("%s %s unavailable program-info:%d\n", func, kind, errno);
		return;
	}
	printf("%s %s %llu %llu %.1f\n", func, kind, (unsigned long long)info.run_cnt,
	       (unsigned long long)info.run_time_ns,
	       info.run_cnt ? (double)info.run_time_ns / info.run_cnt : 0.0);
}

int bench_empty(const struct bench_empty_opts *o)
{
	struct bpf_program *fe[BENCH_EMPTY_SLOTS], *fx[BENCH_EMPTY_SLOTS];
	struct bpf_link *links[2 * BENCH_EMPTY_SLOTS] = {};
	bool used[BENCH_EMPTY_SLOTS] = {};
	struct bench_bpf *skel = NULL;
	struct bpf_program *p;
	int stats_fd = -1, err = 0, i;

	skel = bench_bpf__open();
	if (!skel) {
		err = -errno;
		fprintf(stderr, "bench: open BPF object: %s\n", strerror(errno));
		goto cleanup;
	}
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, false);
	slots(skel, fe, fx);
	for (i = 0; i < o->nfuncs; i++) {
		/* libbpf resolves the target here: a function not in this kernel fails now */
		if (bpf_program__set_attach_target(fe[i], 0, o->funcs[i]) ||
		    bpf_program__set_attach_target(fx[i], 0, o->funcs[i])) {
			printf("%s unavailable not-in-btf\n", o->funcs[i]);
			continue;
		}
		bpf_program__set_autoload(fe[i], true);
		bpf_program__set_autoload(fx[i], true);
		used[i] = true;
	}
	err = bench_bpf__load(skel);
	if (err) {
		fprintf(stderr, "bench: load BPF object: %s\n", strerror(-err));
		goto cleanup;
	}
	for (i = 0; i < o->nfuncs; i++) {
		if (!used[i])
			continue;
		links[2 * i] = bpf_program__attach_trace(fe[i]);
		links[2 * i + 1] = links[2 * i] ? bpf_program__attach_trace(fx[i]) : NULL;
		if (!links[2 * i] || !links[2 * i + 1]) {
			err = -errno;
			fprintf(stderr, "bench: attach to %s: %s\n", o->funcs[i], strerror(errno));
			goto cleanup;
		}
	}
	/* Restored when the fd is closed (kernel.bpf_stats_enabled counts its holders). */
	stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (stats_fd < 0) {
		err = -errno;
		fprintf(stderr, "bench: enable BPF run-time statistics: %s\n", strerror(errno));
		goto cleanup;
	}
	err = run(o->argv);
	if (err < 0)
		goto cleanup;
	printf("# function program runs run_time_ns ns_per_run\n");
	for (i = 0; i < o->nfuncs; i++) {
		if (!used[i])
			continue;
		print_stats(o->funcs[i], "fentry", fe[i]);
		print_stats(o->funcs[i], "fexit", fx[i]);
	}
cleanup:
	if (stats_fd >= 0)
		close(stats_fd);
	for (i = 0; i < 2 * BENCH_EMPTY_SLOTS; i++)
		bpf_link__destroy(links[i]);
	bench_bpf__destroy(skel);
	return err;
}
