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

#endif /* KW_COMMANDS_H */
