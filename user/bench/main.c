// SPDX-License-Identifier: GPL-2.0
/* kvmwalk-bench: what kvmwalk's probes and its user space cost (issue 6, docs/performance.md). */
#include <argp.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "empty.h"
#include "probes.h"
#include "userspace.h"

const char *argp_program_version = "kvmwalk-bench 0.1";

static const char doc[] =
	"kvmwalk-bench -- what kvmwalk's probe bodies cost\n\n"
	"USAGE: kvmwalk-bench [probes] [OPTIONS]\n"
	"       kvmwalk-bench user [--cpus LIST] [--rows LIST] [--reps N]\n"
	"       kvmwalk-bench empty --func FUNC [--func FUNC ...] -- CMD [ARG ...]\n\n"
	"probes (the default):\n"
	"Attaches program pairs to syscalls:sys_enter_getppid / sys_exit_getppid, one pair at a "
	"time, alternating over rounds, and runs getppid() in a tight loop under each:\n"
	"  a  an empty pair\n"
	"  b  a pair that reads the clock on each side (the floor of any duration probe)\n"
	"  c  kvmwalk's own duration probe: kw_enter()/kw_exit()/kw_exit_done() of bpf/kw.bpf.h\n"
	"  t  breakdown of c: b plus the per-task state (kw_task_get, task-local storage)\n"
	"  h  breakdown of c: b plus the statistics slot, two histogram updates, trigger lookup\n"
	"  i  c inside a KVM ioctl: the trigger row kept in the task, added per ioctl\n"
	"  d  the bpftrace hist() one-liner, its programs taken by id\n"
	"ns/event is run_time_ns/run_cnt of both programs summed (BPF run-time statistics, enabled "
	"for the run); the loop column is ns per call over the no-probe loop of the same round. "
	"Prints medians over rounds, and the ratios c/b (target <= 1.5) and c/d (target <= 0.5). "
	"Needs root (CAP_BPF + CAP_PERFMON) and a mounted tracefs.\n\n"
	"user: what reading every map into a recording and rendering it costs (the recording JSON, "
	"its parse, the text report, the Prometheus scrape), as the per-CPU map width (--cpus) and "
	"the keyed rows (walker callbacks and trigger rows, --rows) grow. Synthetic contents; the "
	"map read is simulated (copy + the loader's merge), the lookup syscalls are timed once on "
	"real maps at this machine's width.\n\n"
	"empty: attaches an empty fentry and an empty fexit program to each FUNC (at most 4), "
	"runs CMD with BPF run-time statistics on and prints, per program, `FUNC fentry|fexit "
	"RUNS RUN_TIME_NS NS_PER_RUN` (or `FUNC unavailable REASON`): the floor that kvmwalk's "
	"probes on the same functions are set against (the probe-cost vmtest case). Exits with "
	"CMD's status."
	"\v"
	"EXAMPLES:\n"
	"  kvmwalk-bench                      all variants, 11 rounds of 200000 calls\n"
	"  kvmwalk-bench -r 21 -n 500000 --cpu 1\n"
	"  kvmwalk-bench --variants abc --no-bpftrace\n"
	"  kvmwalk-bench --raw                also print every round's values\n"
	"  kvmwalk-bench user --cpus 2,64,512 --rows 16,1024\n"
	"  kvmwalk-bench empty --func kvm_pgtable_walk -- kvmwalk-load --scenario=split\n";

enum {
	OPT_CPU = 1000,
	OPT_VARIANTS,
	OPT_BPFTRACE,
	OPT_NO_BPFTRACE,
	OPT_RAW,
	OPT_PROBE,
	OPT_CPUS,
	OPT_ROWS,
	OPT_REPS,
	OPT_FUNC,
};

static const struct argp_option options[] = {
	{ "rounds", 'r', "N", 0, "Rounds, each variant once per round (default 11, odd is best)", 0 },
	{ "calls", 'n', "N", 0, "getppid() calls per variant per round (default 200000)", 0 },
	{ "cpu", OPT_CPU, "CPU", 0, "Pin the loop to CPU (default: not pinned)", 0 },
	{ "variants", OPT_VARIANTS, "KEYS", 0, "Only these variants, e.g. abcd (default: all)", 0 },
	{ "bpftrace", OPT_BPFTRACE, "PATH", 0, "bpftrace binary (default: bpftrace in PATH)", 0 },
	{ "no-bpftrace", OPT_NO_BPFTRACE, NULL, 0, "Leave out the bpftrace pair (d)", 0 },
	{ "probe", OPT_PROBE, "IDX", 0, "kvmwalk probe index the c/t/h pairs update (default 8)", 0 },
	{ "raw", OPT_RAW, NULL, 0, "Also print each round's values", 0 },
	{ "verbose", 'v', NULL, 0, "Progress on stderr", 0 },
	{ "cpus", OPT_CPUS, "LIST", 0, "user: per-CPU widths (default 2,16,64,256,1024)", 0 },
	{ "rows", OPT_ROWS, "LIST", 0, "user: keyed rows (default 16,256,1024)", 0 },
	{ "reps", OPT_REPS, "N", 0, "user: repetitions per configuration (default 7)", 0 },
	{ "func", OPT_FUNC, "FUNC", 0, "empty: a kernel function to attach to (repeatable, up to 4)", 0 },
	{},
};

static struct bench_probe_opts opts = {
	.rounds = 11,
	.calls = 200000,
	.cpu = -1,
	.bpftrace = "bpftrace",
	.probe = 8, /* KW_P_TDP_ZAP_LEAFS */
};

#define MAX_LIST 16

static bool user_mode, empty_mode;
static struct bench_empty_opts eopts;
static int cpus[MAX_LIST] = { 2, 16, 64, 256, 1024 }, rows[MAX_LIST] = { 16, 256, 1024 };
static struct bench_user_opts uopts = {
	.ncpus = cpus, .ncpus_n = 5, .rows = rows, .rows_n = 3, .reps = 7,
};

static long num_arg(struct argp_state *state, const char *arg, long min, long max)
{
	char *end;
	long v;

	v = strtol(arg, &end, 0);
	if (!*arg || *end || v < min || v > max)
		argp_error(state, "'%s' is not a number in [%ld, %ld]", arg, min, max);
	return v;
}

static int list_arg(struct argp_state *state, char *arg, int *out, long max)
{
	char *tok, *save = NULL;
	int n = 0;

	for (tok = strtok_r(arg, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (n == MAX_LIST)
			argp_error(state, "at most %d values", MAX_LIST);
		out[n++] = num_arg(state, tok, 1, max);
	}
	if (!n)
		argp_error(state, "an empty list");
	return n;
}

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	switch (key) {
	case 'r':
		opts.rounds = num_arg(state, arg, 1, BENCH_MAX_ROUNDS);
		break;
	case 'n':
		opts.calls = num_arg(state, arg, 100, 100000000);
		break;
	case OPT_CPU:
		opts.cpu = num_arg(state, arg, 0, 4095);
		break;
	case OPT_VARIANTS:
		if (strspn(arg, "abcdthi") != strlen(arg) || !*arg)
			argp_error(state, "--variants takes letters of abcdthi");
		opts.variants = arg;
		break;
	case OPT_BPFTRACE:
		opts.bpftrace = arg;
		break;
	case OPT_NO_BPFTRACE:
		opts.bpftrace = NULL;
		break;
	case OPT_PROBE:
		opts.probe = num_arg(state, arg, 0, 31);
		break;
	case OPT_RAW:
		opts.raw = true;
		break;
	case 'v':
		opts.verbose = true;
		break;
	case OPT_CPUS:
		uopts.ncpus_n = list_arg(state, arg, cpus, 8192);
		break;
	case OPT_ROWS:
		uopts.rows_n = list_arg(state, arg, rows, KW_BENCH_MAX_ROWS);
		break;
	case OPT_REPS:
		uopts.reps = num_arg(state, arg, 1, BENCH_MAX_ROUNDS);
		break;
	case OPT_FUNC:
		if (eopts.nfuncs == BENCH_EMPTY_SLOTS)
			argp_error(state, "at most %d --func", BENCH_EMPTY_SLOTS);
		eopts.funcs[eopts.nfuncs++] = arg;
		break;
	case ARGP_KEY_ARG:
		if (state->arg_num == 0 && !strcmp(arg, "user")) {
			user_mode = true;
		} else if (state->arg_num == 0 && !strcmp(arg, "empty")) {
			empty_mode = true;
		} else if (empty_mode) {
			/* the command and its arguments: everything from here on */
			eopts.argv = &state->argv[state->next - 1];
			state->next = state->argc;
		} else if (state->arg_num != 0 || strcmp(arg, "probes")) {
			argp_usage(state);
		}
		break;
	case ARGP_KEY_END:
		if (empty_mode && (!eopts.nfuncs || !eopts.argv))
			argp_error(state, "empty needs --func FUNC and -- CMD");
		if (!empty_mode && eopts.nfuncs)
			argp_error(state, "--func is an option of empty");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct argp argp = { .options = options, .parser = parse_opt, .doc = doc };
	int err;

	err = argp_parse(&argp, argc, argv, 0, NULL, NULL);
	if (err)
		return 1;
	if (user_mode)
		return bench_user(&uopts) ? 1 : 0;
	if (empty_mode) {
		err = bench_empty(&eopts);
		return err < 0 ? 1 : err;
	}
	return bench_probes(&opts) ? 1 : 0;
}
