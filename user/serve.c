// SPDX-License-Identifier: GPL-2.0
/*
 * `kvmwalk serve`: Prometheus exporter over HTTP (libmicrohttpd) and node_exporter textfile.
 *
 * Order of events, and why:
 *   1. load and attach (needs CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN for kprobes on older kernels),
 *      read the maps once, with the privileges still there, for what only a privileged read gets
 *      (the RET_PF_* names come from the kvm module's BTF, found through bpf(BTF_GET_NEXT_ID));
 *   2. bind the listening socket (a port below 1024 still works) and open the textfile's
 *      directory;
 *   3. drop privileges: bounding and ambient sets emptied, --user's gid and uid, then capset() to
 *      nothing, then PR_SET_NO_NEW_PRIVS. Capabilities are per thread, so this happens before
 *      libmicrohttpd starts any thread: none of them ever held one. Reading the maps through the
 *      file descriptors we hold needs no capability since Linux 5.19 (commit "bpf:
 *      refine kernel.unprivileged_bpf_disabled behaviour" limited that sysctl to map creation
 *      and program loading; proven on Debian's 6.1 by the kw-serve vmtest case). On an older
 *      kernel with kernel.unprivileged_bpf_disabled set, every bpf() call needs CAP_BPF, so
 *      CAP_BPF alone is kept, and said so;
 *   4. every --interval, read the maps, render the exposition once, and serve that buffer: a
 *      scrape copies a buffer under a mutex and never touches the maps, so no number of scrapes
 *      can slow the probes, and served values are at most one interval old.
 *
 * A command: its options, the order above and the refresh loop. The HTTP server is
 * serve_http.c, the privilege calls privs.c, the node_exporter textfile textfile.c.
 */
#include <argp.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clock.h"
#include "kvmstats_read.h"
#include "kvmstats_rec.h"
#include "loader.h"
#include "privs.h"
#include "probe_opts.h"
#include "procself.h"
#include "prom.h"
#include "commands.h"
#include "sample_abi.h"
#include "sampler.h"
#include "serve_http.h"
#include "textfile.h"
#include "webconfig.h"

/*
 * Port 19464: the Prometheus wiki's "default port allocations" list has had every port of the
 * exporters' range, 9100-9999, taken since 2023, and 9464 in particular is the default of
 * OpenTelemetry's Prometheus exporter. The project asks exporters past the range to pick a port
 * outside it: 19464 is on neither the list nor IANA's registry, and is below Linux's ephemeral
 * range (32768-60999), so an outgoing connection never holds it. Loopback only by default.
 */
#define DEFAULT_PORT "19464"
#define DEFAULT_LISTEN "127.0.0.1:" DEFAULT_PORT

enum {
	OPT_LISTEN = 1000,
	OPT_TEXTFILE,
	OPT_INTERVAL,
	OPT_BUCKETS,
	OPT_PER_VM,
	OPT_USER,
	OPT_SERVE_KVM_STATS,
	OPT_PROBE_COST,
	OPT_WEB_CONFIG,
};

struct serve_opts {
	struct loader_opts lo;
	const char *listen; /* NULL: none (only --textfile) */
	bool listen_given;
	const char *textfile;
	double interval;
	enum prom_buckets buckets;
	bool per_vm;
	const char *user; /* NULL: keep our uid */
	uid_t uid;	  /* --user's, resolved when parsed */
	gid_t gid;
	enum kw_kvmstats_mode kvm_stats;
	bool probe_cost;
	const char *web_config; /* --web.config.file, NULL: plain HTTP, anyone may scrape */
};

/* ---- options --------------------------------------------------------------------------------- */

static const struct argp_option options[] = {
	{ .name = "listen", .key = OPT_LISTEN, .arg = "ADDR:PORT",
	  .doc = "serve HTTP here (default " DEFAULT_LISTEN ", loopback only; [::1]:" DEFAULT_PORT
		 " for IPv6, 0.0.0.0:" DEFAULT_PORT " to expose it, best with --web.config.file: "
		 "an address other than loopback without TLS is warned about; without --listen, "
		 "--textfile alone serves no HTTP)" },
	{ .name = "web.config.file", .key = OPT_WEB_CONFIG, .arg = "FILE",
	  .doc = "TLS and/or basic authentication, configured as Prometheus's exporters are "
		 "(their --web.config.file): a YAML file with tls_server_config (cert_file, "
		 "key_file, client_ca_file, client_auth_type, min_version) and basic_auth_users "
		 "(user: bcrypt hash). Read once, at start, while still privileged. See "
		 "\"HTTP, TLS and authentication\" above" },
	{ .name = "web-config", .key = OPT_WEB_CONFIG, .arg = "FILE", .flags = OPTION_ALIAS },
	{ .name = "textfile", .key = OPT_TEXTFILE, .arg = "PATH",
	  .doc = "also write the metrics to PATH (for node_exporter's textfile collector, PATH "
		 "ends in .prom) every interval: a temporary file in the same directory, then "
		 "rename()" },
	{ .name = "interval", .key = OPT_INTERVAL, .arg = "SECS",
	  .doc = "read the maps every SECS seconds (default 5); served values are at most this "
		 "old" },
	{ .name = "buckets", .key = OPT_BUCKETS, .arg = "log2|fine",
	  .doc = "histogram resolution: a bucket per power of two (default; the kernel then keeps "
		 "log2 histograms, 552 bytes per histogram and CPU), or per 12.5 % sub-bucket "
		 "(the kernel keeps fine ones, 4000 bytes)" },
	{ .name = "per-vm", .key = OPT_PER_VM,
	  .doc = "a pid label (the VMM's process) on the trigger series: one series per VM, so "
		 "mind the cardinality; pid=\"0\" sums the processes that have exited" },
	{ .name = "kvm-stats", .key = OPT_SERVE_KVM_STATS, .arg = "MODE",
	  .doc = "also serve KVM's own per-VM statistics (kvmwalk_kvm_stat_total, "
		 "kvmwalk_kvm_stat: pf_fast, pages_4k, remote_tlb_flush_requests, ...) and "
		 "SecPageTables, read at every refresh at no probe cost: auto or debugfs (its folder "
		 "is opened before the privileges are dropped), or off (default auto). Binary stats, "
		 "record's fallback, need the privileges serve drops" },
	{ .name = "probe-cost", .key = OPT_PROBE_COST,
	  .doc = "also serve what the probes cost (kvmwalk_bpf_run_seconds_total, "
		 "kvmwalk_bpf_runs_total): turns BPF run-time statistics on for as long as serve "
		 "runs, with BPF_ENABLE_STATS (the kernel turns them off when serve ends, even "
		 "killed). They then time every BPF program of the host, not only kvmwalk's (a "
		 "clock read per run). Off by default: those two families are absent, "
		 "kvmwalk_bpf_stats_enabled is 0. Kernels before 5.8 have no BPF_ENABLE_STATS: "
		 "serve then says so and does not flip kernel.bpf_stats_enabled" },
	{ .name = "user", .key = OPT_USER, .arg = "NAME",
	  .doc = "after attaching, also switch to this user (a name from /etc/passwd, or "
		 "UID[:GID])" },
	{},
};


static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_opts *o = state->input;
	struct sockaddr_storage ss;
	socklen_t len;

	switch (key) {
	case OPT_LISTEN:
		if (serve_http_addr(arg, &ss, &len))
			argp_error(state,
				   "--listen takes a numeric ADDR:PORT ([ADDR]:PORT for IPv6), not '%s'",
				   arg);
		o->listen = arg;
		o->listen_given = true;
		break;
	case OPT_TEXTFILE:
		if (!*arg)
			argp_error(state, "--textfile needs a path");
		o->textfile = arg;
		break;
	case OPT_INTERVAL:
		if (kw_secs_parse(arg, 0.1, 86400, &o->interval))
			argp_error(state, "--interval takes seconds between 0.1 and 86400, not '%s'",
				   arg);
		break;
	case OPT_BUCKETS:
		if (prom_buckets_parse(arg, &o->buckets))
			argp_error(state, "--buckets is log2 or fine, not '%s'", arg);
		break;
	case OPT_PER_VM:
		o->per_vm = true;
		break;
	case OPT_PROBE_COST:
		o->probe_cost = true;
		break;
	case OPT_SERVE_KVM_STATS:
		if (kw_kvmstats_mode_parse(arg, &o->kvm_stats) || o->kvm_stats == KW_KSM_BINARY)
			argp_error(state, "--kvm-stats is auto, debugfs or off, not '%s'", arg);
		break;
	case OPT_WEB_CONFIG:
		if (!*arg)
			argp_error(state, "--web.config.file needs a path");
		o->web_config = arg;
		break;
	case OPT_USER:
		/* a wrong name is a usage error, found before anything is loaded */
		if (kw_user_parse(arg, "/etc/passwd", &o->uid, &o->gid)) {
			fprintf(stderr,
				"kvmwalk serve: --user %s: no such user in /etc/passwd (or UID[:GID])\n",
				arg);
			exit(KW_EXIT_USAGE);
		}
		o->user = arg;
		break;
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &o->lo;
		/* the defaults, before the child's ARGP_KEY_INIT (probe_opts.h): a fixed cost */
		o->lo.default_set = KW_SET_NOTIFIERS;
		o->lo.sample_hz = KW_SAMPLE_DEFAULT_HZ;
		o->lo.sample_ok = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->listen_given && !o->textfile)
			o->listen = DEFAULT_LISTEN;
		if (o->web_config && !o->listen)
			argp_error(state, "--web.config.file configures the HTTP server: --textfile "
					  "alone serves none (add --listen)");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp argp = {
	.options = options,
	.parser = parse_opt,
	.children = kw_probe_children,
	.doc = "Prometheus exporter: attaches the probes, then serves their counters and histograms "
	       "in the text exposition format (0.0.4) on http://ADDR:PORT/metrics (a landing page "
	       "on /), and/or writes them for node_exporter's textfile collector. Metric names, "
	       "labels and buckets are listed in dashboards/README.md; dashboards/ has a Grafana "
	       "dashboard and alert rules. SIGINT or SIGTERM stop it: everything is detached and "
	       "the textfile removed.\n\n"
	       "Privileges: loading and attaching need root (or CAP_BPF, CAP_PERFMON, "
	       "CAP_SYS_ADMIN). Right after, before any network code runs, kvmwalk empties its "
	       "capability bounding, ambient, inheritable, permitted and effective sets, switches "
	       "to --user if given, and sets no_new_privs. On kernels before 5.19 with "
	       "kernel.unprivileged_bpf_disabled set, reading the maps needs CAP_BPF on every call, "
	       "so that one capability is kept (and reported). The unit kvmwalk installs runs it as a "
	       "dynamic user (DynamicUser=yes, --user is then not needed).\n\n"
	       "HTTP, TLS and authentication: by default serve listens on 127.0.0.1 only, over plain "
	       "HTTP, and anyone on the host may scrape. --web.config.file adds TLS "
	       "(tls_server_config) and/or basic authentication (basic_auth_users: 401 without "
	       "the right user and password; bcrypt hashes, e.g. from `htpasswd -nBC 10 USER`; a "
	       "password that matched once is not checked with bcrypt again), in the format of "
	       "Prometheus's exporter-toolkit. Builds: the Debian package and `make STATIC=0` link "
	       "Debian's libmicrohttpd with GnuTLS: TLS 1.2 and 1.3, client certificates, basic "
	       "authentication. The static build (make's default, the one the emulated hosts run) "
	       "has no TLS, since Debian ships no static p11-kit for a static GnuTLS: a "
	       "tls_server_config is refused at start, naming why; basic authentication works "
	       "there too, but its passwords then cross the network in clear. Listening on "
	       "anything but loopback without TLS is warned about on stderr. The server accepts "
	       "GET and HEAD only, 16 KiB of request; at most 1000 connections (32 per address), "
	       "each given 3 s from its accept or its previous response until its request "
	       "headers are in (TLS handshake included), then 10 s to read the answer, so idle "
	       "or trickling sockets cannot crowd out scrapes. libmicrohttpd's messages (refused "
	       "connections among them) are logged at most 3 lines per 10 s, with the number "
	       "left out.\n\n"
	       "What it measures, by default: a fixed cost, whatever KVM does (docs/performance.md, "
	       "\"The sampled mode\"). The sampled mode at 49 Hz on every CPU (--sample=HZ another "
	       "rate, --no-sample none): the CPU time in each walker, flush, zap and fault function "
	       "under each trigger, per VM, estimated from samples with its error "
	       "(kvmwalk_sampled_cpu_seconds_total, kvmwalk_sampled_samples_total). Beside it the "
	       "notifiers set (--probe notifiers): exact calls and times of the MMU-notifier "
	       "callbacks, each once per invalidation, nested unmap (arm64 NV) or VM teardown. "
	       "--probe timing adds VM ioctls by command and memslot changes by kind, at a cost "
	       "per ioctl (dirty logging makes one per KVM_GET_DIRTY_LOG and per "
	       "KVM_CLEAR_DIRTY_LOG chunk: the walker-heavy phases ran 1.24x as long with it, "
	       "measured).\n\n"
	       "The exact per-walk counters (walks by callback, split and unmap visits, empty TLB "
	       "flushes, TDP zaps and their leaves, fast page faults) need --probe cheap: every "
	       "probe that feeds a panel or rule of dashboards/, at a cost per walk, visit and "
	       "flush, highest exactly when the host is busiest. Left out of it too, as each runs on "
	       "every call of something frequent: kvm_vcpu_ioctl (every KVM_RUN), guest_fault "
	       "(every vCPU fault: walks and fast faults inside one count under trigger=\"other\"), "
	       "mmu_lock_wait (every contended lock of the kernel: kvmwalk_mmu_lock_wait_seconds, "
	       "the fault-side wait for the VM's mmu_lock; --probe cheap,mmu_lock_wait adds it and "
	       "guest_fault, which it needs), tdp_iter_next (every TDP MMU iterator step: "
	       "kvmwalk_zap_4k_visits_total, kvmwalk_zap_yields_total) and "
	       "kvm_tdp_mmu_clear_dirty_pt_masked (every 64-page word of a dirty-log clear). Probes "
	       "a set leaves out are served as kvmwalk_probe_info{mechanism=\"off\",reason=\"not in "
	       "the notifiers set ...\"} (or cheap, timing), with no series. --probe all attaches "
	       "every probe, as record does; --probe cheap,tdp_iter_next adds one."
	       "\vExamples:\n"
	       "  kvmwalk serve\n"
	       "  kvmwalk serve --listen 0.0.0.0:" DEFAULT_PORT " --user nobody \\\n"
	       "      --web.config.file /etc/kvmwalk/web.yml\n"
	       "  kvmwalk serve --probe cheap      # and the exact per-walk counters, at their cost\n"
	       "  kvmwalk serve --probe all        # every probe, as record attaches\n"
	       "  kvmwalk serve --probe-cost       # and what the probes cost\n"
	       "  kvmwalk serve --sample=99        # the sampled mode at 99 Hz per CPU\n"
	       "  kvmwalk serve --interval 15 \\\n"
	       "      --textfile /var/lib/prometheus/node-exporter/kvmwalk.prom\n"
	       "  curl -s http://127.0.0.1:" DEFAULT_PORT "/metrics | grep kvmwalk_sampled_cpu_seconds_total\n\n"
	       "Exit status: 0; 1 error; 2 usage (a bad option value, a --pid that does not "
	       "exist); " KW_EXIT_STATUS_PROBES,
};

/* ---- reading the maps ------------------------------------------------------------------------ */

static struct kw_meta meta0;		 /* filled once, while privileged */
static struct kw_kvmstats_reader ksr0 = { .dirfd = -1 }; /* its debugfs folder: opened then */
static char pf_names0[KW_NR_PF_RET][32]; /* the RET_PF_* names: need the kvm module's BTF */

static struct sampler *smp0; /* --sample: the sampled mode (sampler.h), NULL without */

static int collect(struct loader *l, struct kw_recording *r)
{
	int err = loader__collect(l, r);

	if (!err && smp0)
		err = sampler__collect(smp0, r);
	if (err)
		return err;
	r->meta = meta0;
	r->meta.params = NULL;
	r->meta.nparams = 0;
	for (int i = 0; i < KW_NR_PF_RET; i++)
		if (pf_names0[i][0])
			memcpy(r->pf_ret_names[i], pf_names0[i], sizeof(pf_names0[i]));
	return 0;
}

/* ---- privileges ------------------------------------------------------------------------------ */

/*
 * Leaves the process with no capability (or CAP_BPF alone where the kernel needs it to read
 * maps), optionally as another user. Called before any thread exists.
 */
static int drop_privileges(const struct serve_opts *o, struct loader *l, struct kw_recording *r)
{
	const __u64 bpf = KW_CAP(CAP_BPF);
	bool keep_bpf = false;
	char now[160];
	int err;

	/* Nothing effective, CAP_BPF still permitted: try a read of the maps without it. */
	if ((err = kw_privs_drop(o->user, o->uid, o->gid, bpf, o->lo.verbose)))
		return err;
	if (collect(l, r) == -EPERM) {
		if (kw_caps_set(bpf, bpf) || (err = collect(l, r))) {
			fprintf(stderr,
				"kvmwalk serve: cannot read the BPF maps without privileges "
				"on this kernel\n");
			return err ? err : -EPERM;
		}
		keep_bpf = true;
	} else if ((err = kw_caps_set(0, 0))) {
		fprintf(stderr, "kvmwalk serve: capset: %s\n", strerror(-err));
		return err;
	}
	if ((err = kw_privs_seal()))
		return err;
	kw_privs_describe(now, sizeof(now));
	fprintf(stderr, "kvmwalk serve: privileges dropped: %s%s\n", now,
		keep_bpf ? " (CAP_BPF kept: this kernel checks it on every bpf() call)" : "");
	return 0;
}

/* ---- the loop -------------------------------------------------------------------------------- */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

/*
 * One read of the maps and one rendering, written to tf and served by h (either may be NULL);
 * on a failed read the previous text stays served.
 */
static void refresh(struct loader *l, const struct serve_opts *o, struct prom_facts *facts,
		    struct textfile *tf, struct serve_http *h)
{
	struct kw_recording r = {};
	struct prom_opts po = { .buckets = o->buckets, .per_vm = o->per_vm, .facts = facts };
	static struct kw_procself self;
	double t0 = kw_mono_s();
	size_t len;
	char *text;

	if (collect(l, &r)) {
		facts->collect_errors++;
		goto cleanup;
	}
	kw_kvmstats_init(&r.kvmstats);
	kw_kvmstats_read(&ksr0, &r.kvmstats, 0, KW_KSR_END);
	kw_recording_kvmstats_scope(&r, o->lo.pids, o->lo.npids, o->lo.nvms);
	kw_kvmstats_sort(&r.kvmstats);
	facts->collect_seconds = kw_mono_s() - t0;
	facts->proc = kw_procself_read(&self) ? NULL : &self;
	if (prom_render(&r, &po, &text, &len)) {
		fprintf(stderr, "kvmwalk serve: out of memory rendering the metrics\n");
		goto cleanup;
	}
	if (tf)
		textfile__write(tf, text, len);
	if (h)
		serve_http__publish(h, text, len);
	else
		free(text);
cleanup:
	kw_recording_free(&r);
}

int serve_main(int argc, char **argv)
{
	struct serve_opts o = { .interval = 5 };
	struct prom_facts facts = { .libbpf_version = loader__libbpf_version() };
	struct sigaction sa = { .sa_handler = on_signal };
	struct serve_http *h = NULL;
	struct textfile *tf = NULL;
	struct kw_recording r = {};
	struct kw_webconfig wc = {};
	struct loader *l = NULL;
	int code, ret = KW_EXIT_ERROR;

	argp_parse(&argp, argc, argv, 0, NULL, &o);
	if (cmd_args_only())
		return 0;
	/* before anything is loaded: a wrong file is a usage error, found at once */
	if (o.web_config && kw_webconfig_load(o.web_config, &wc)) {
		kw_webconfig_free(&wc);
		return KW_EXIT_USAGE;
	}
	if (wc.tls && !serve_http_tls_supported()) {
		fprintf(stderr, "kvmwalk serve: --web.config.file %s asks for TLS, but %s\n",
			o.web_config, SERVE_HTTP_NO_TLS);
		kw_webconfig_free(&wc);
		return KW_EXIT_USAGE;
	}
	if (o.listen && !wc.tls && !serve_http_addr_is_loopback(o.listen))
		fprintf(stderr,
			"kvmwalk serve: warning: serving %s without TLS: whoever can reach it reads "
			"the metrics%s (--web.config.file: TLS and basic authentication)\n",
			o.listen,
			wc.nusers ? ", and the basic authentication passwords cross the network "
				    "in clear"
				  : "");
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* log2 buckets are all serve exports then: the kernel keeps no more (docs/performance.md) */
	o.lo.hist_log2 = o.buckets == PROM_BUCKETS_LOG2;
	l = loader__open(&o.lo, &code);
	if (!l)
		return code;
	/* not the sysctl: a killed serve would leave every program of the host timed */
	if (o.probe_cost && loader__stats_start(l, false))
		fprintf(stderr, "kvmwalk serve: --probe-cost: BPF_ENABLE_STATS refused (kernels "
				"before 5.8 have none): no probe cost\n");
	if (o.lo.sample_hz && !(smp0 = sampler__open(o.lo.sample_hz, false, o.lo.verbose, &code))) {
		if (!o.lo.sample_given)
			fprintf(stderr, "kvmwalk serve: the sampled mode is on by default; --no-sample "
					"serves the probes without it\n");
		loader__destroy(l);
		return code;
	}
	/* bounded however many VMs come and go (as the probes' rows: loader_opts keep_exited) */
	if (smp0)
		sampler__fold_exited(smp0);
	/* debugfs auto only: the binary stats need privileges dropped below (kvmstats_read.c) */
	kw_kvmstats_open(&ksr0, o.kvm_stats == KW_KSM_AUTO ? KW_KSM_DEBUGFS : o.kvm_stats, "",
			 true);
	loader__meta(l, &meta0);
	free(meta0.params);
	meta0.params = NULL;
	meta0.nparams = 0;
	if (loader__collect(l, &r))
		goto cleanup;
	memcpy(pf_names0, r.pf_ret_names, sizeof(pf_names0));
	facts.start_time = kw_real_s();

	if (o.listen && serve_http__open(&h, o.listen))
		goto cleanup;
	if (o.textfile && textfile__open(&tf, o.textfile))
		goto cleanup;
	if (drop_privileges(&o, l, &r))
		goto cleanup;

	refresh(l, &o, &facts, tf, h);
	if (h) {
		if (serve_http__start(h, &wc))
			goto cleanup;
		fprintf(stderr, "kvmwalk serve: %s://%s/metrics%s\n", wc.tls ? "https" : "http",
			o.listen, wc.nusers ? " (basic authentication)" : "");
	}
	if (tf)
		fprintf(stderr, "kvmwalk serve: writing %s every %g s\n", o.textfile, o.interval);

	for (double next = kw_mono_s() + o.interval; !stop;) {
		loader__poll(l, 50); /* names each new process at once; --vm: each exec */
		sampler__poll(smp0);
		if (h)
			serve_http__expire(h);
		if (kw_mono_s() < next)
			continue;
		next += o.interval;
		refresh(l, &o, &facts, tf, h);
	}
	ret = 0;
cleanup:
	serve_http__close(h);
	/* a stale textfile would look like a quiet host: remove it */
	if (!ret)
		textfile__remove(tf);
	textfile__close(tf);
	kw_kvmstats_close(&ksr0);
	sampler__destroy(smp0);
	loader__destroy(l);
	kw_recording_free(&r);
	kw_webconfig_free(&wc);
	return ret;
}
