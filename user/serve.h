/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `kvmwalk serve`: the Prometheus exporter. Loads and attaches like `record`, then drops every
 * capability (and with --user its uid) before any thread or network code runs, and serves the
 * exposition of user/prom.c over HTTP (libmicrohttpd) and/or as a node_exporter textfile.
 */
#ifndef KW_SERVE_H
#define KW_SERVE_H

/* The whole subcommand: its own argp parser; argv[0] is "kvmwalk serve". Returns an exit code. */
int serve_main(int argc, char **argv);

#endif /* KW_SERVE_H */
