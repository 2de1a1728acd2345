/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the commands probes, record and top share (cmd_common.c): their options and the signals
 * that end a recording or a top. Layer: commands (their entry points are in commands.h).
 */
#ifndef KW_CMD_COMMON_H
#define KW_CMD_COMMON_H

#include <argp.h>
#include <signal.h>
#include <stdbool.h>

#include "kvmstats_read.h"
#include "loader.h"
#include "outfile.h"

/*
 * The options cmd_parse_common() parses (the probe options are probe_opts.c's); a command's own
 * are numbered from 1100.
 */
enum {
	OPT_JSON = 1000,
	OPT_INTERVAL,
	OPT_ONCE,
	OPT_COUNT,
	OPT_TIME,
	OPT_COUNT_OPT,
	OPT_TIME_OPT,
	OPT_KVM_STATS,
};

struct cmd_common {
	struct loader_opts lo;
	bool json;
	const char *out;
	struct kw_outfile of; /* record: out's directory, checked and opened while parsing */
	double duration, interval;
	bool once;
	bool takes_cmd; /* record: a command after -- */
	char **cmd;
	int ncmd;
	enum kw_kvmstats_mode kvm_stats; /* record --kvm-stats (default auto) */
};

/*
 * The argp parser of probes and record, and the one top's parser hands the rest to:
 * state->input is a struct cmd_common, or starts with one. It gives c->lo to the probe options
 * (kw_probe_children) and opens record's -o before anything is attached (outfile.h).
 */
error_t cmd_parse_common(int key, char *arg, struct argp_state *state);

/*
 * An option's seconds, min to max (a usage error naming what otherwise); with zero_off, "0" is
 * 0 too: the option's off.
 */
double cmd_parse_secs(const char *arg, struct argp_state *state, const char *what, double min,
		      double max, bool zero_off);

/*
 * SIGINT, SIGTERM and SIGHUP end a recording or top: after cmd_install_signals(), the handler
 * only stores the signal in cmd_got_signal (0 until one comes).
 */
extern volatile sig_atomic_t cmd_got_signal;
void cmd_install_signals(void);

#endif /* KW_CMD_COMMON_H */
