/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry points of kvmwalk's commands, which main.c dispatches to: one file each
 * (NAME_cmd.c, serve.c), with its argp options and its --help. Layer: commands, the top one
 * (commands -> probing -> views -> the recording model -> helpers; docs/HACKING.md).
 *
 * Each takes argv[0] "kvmwalk NAME", parses the rest with its own argp parser, and returns the
 * exit status.
 */
#ifndef KW_COMMANDS_H
#define KW_COMMANDS_H

#include <stdbool.h>

int probes_main(int argc, char **argv);
int record_main(int argc, char **argv);
int report_main(int argc, char **argv);
int top_main(int argc, char **argv);
/*
 * The Prometheus exporter: loads and attaches like record, then drops every capability (and
 * with --user its uid) before any thread or network code runs, and serves user/prom.c's
 * exposition over HTTP (libmicrohttpd) and/or as a node_exporter textfile.
 */
int serve_main(int argc, char **argv);
int compare_main(int argc, char **argv);

/*
 * Test knob, not a feature (cmd_common.c): with KVMWALK_TEST_ARGS_ONLY=1 in the environment, a
 * command returns 0 right after its command line was parsed and checked as for a usage error
 * (record's -o directory, --pid processes), and says so on stderr, so that a test runs every
 * example of every --help as written without attaching anything (tests/host/test-cli). Each
 * command's main() calls it after argp_parse(): true means return 0.
 */
bool cmd_args_only(void);

#endif /* KW_COMMANDS_H */
