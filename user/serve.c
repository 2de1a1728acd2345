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
 */
#include <argp.h>
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "host.h"
#include "loader.h"
#include "privs.h"
#include "probe_opts.h"
#include "prom.h"
#include "serve.h"
#include "textfile.h"

#define DEFAULT_LISTEN "127.0.0.1:9464"
#define MAX_CONNECTIONS 16
#define MAX_PER_IP 8
#define CONN_TIMEOUT_S 10
/* Request line and headers must fit here (libmicrohttpd answers 431/413 beyond it). */
#define CONN_MEMORY (16 * 1024)

enum {
	OPT_LISTEN = 1000,
	OPT_TEXTFILE,
	OPT_INTERVAL,
	OPT_BUCKETS,
	OPT_PER_VM,
	OPT_USER,
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
};

/* ---- options --------------------------------------------------------------------------------- */

static const struct argp_option options[] = {
	{ .name = "listen", .key = OPT_LISTEN, .arg = "ADDR:PORT",
	  .doc = "serve HTTP here (default " DEFAULT_LISTEN "; [::1]:9464 for IPv6, 0.0.0.0:9464 to "
		 "expose it; without --listen, --textfile alone serves no HTTP)" },
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
	{ .name = "user", .key = OPT_USER, .arg = "NAME",
	  .doc = "after attaching, also switch to this user (a name from /etc/passwd, or "
		 "UID[:GID])" },
	{},
};

static double parse_secs(const char *arg, struct argp_state *state)
{
	char *end;
	double v = strtod(arg, &end);

	if (*end || !(v >= 0.1) || v > 86400)
		argp_error(state, "--interval takes seconds between 0.1 and 86400, not '%s'", arg);
	return v;
}

static int listen_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

static error_t parse_opt(int key, char *arg, struct argp_state *state)
{
	struct serve_opts *o = state->input;
	struct sockaddr_storage ss;
	socklen_t len;

	switch (key) {
	case OPT_LISTEN:
		if (listen_addr(arg, &ss, &len))
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
		o->interval = parse_secs(arg, state);
		break;
	case OPT_BUCKETS:
		if (prom_buckets_parse(arg, &o->buckets))
			argp_error(state, "--buckets is log2 or fine, not '%s'", arg);
		break;
	case OPT_PER_VM:
		o->per_vm = true;
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
		o->lo.cheap = true; /* the default probe set: before the child's ARGP_KEY_INIT */
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!o->listen_given && !o->textfile)
			o->listen = DEFAULT_LISTEN;
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
	       "so that one capability is kept (and reported). The HTTP server accepts GET and HEAD "
	       "only, at most 16 connections (8 per address), 16 KiB of request and 10 s per "
	       "connection.\n\n"
	       "Probes: by default the cheap set (--probe cheap), meant to stay on: every probe "
	       "that feeds a panel or rule of dashboards/ (walks and their callbacks, split and "
	       "unmap visits, unmaps, range TLB flushes, nested unmaps, TDP zaps and their leaves, "
	       "fast page faults, VM ioctls, MMU-notifier invalidations and teardowns). Left out, "
	       "as each runs on every call of something frequent and feeds no panel or rule: "
	       "kvm_vcpu_ioctl (every KVM_RUN), guest_fault (every vCPU fault: walks and fast "
	       "faults inside one count under trigger=\"other\"), mmu_lock_wait (every contended "
	       "lock of the kernel; not exported yet), tdp_iter_next (every TDP MMU iterator step: "
	       "kvmwalk_zap_4k_visits_total, kvmwalk_zap_yields_total) and "
	       "kvm_tdp_mmu_clear_dirty_pt_masked (every 64-page word of a dirty-log clear). They "
	       "are served as kvmwalk_probe_info{mechanism=\"off\",reason=\"not in the cheap "
	       "set ...\"}, with no series. --probe all attaches every probe, as record does; "
	       "--probe cheap,tdp_iter_next adds one."
	       "\vExamples:\n"
	       "  kvmwalk serve\n"
	       "  kvmwalk serve --listen 0.0.0.0:9464 --user nobody\n"
	       "  kvmwalk serve --probe all        # every probe, as record attaches\n"
	       "  kvmwalk serve --interval 15 \\\n"
	       "      --textfile /var/lib/prometheus/node-exporter/kvmwalk.prom\n"
	       "  curl -s http://127.0.0.1:9464/metrics | grep kvmwalk_unmap_tlb_flushes_total\n\n"
	       "Exit status: 0; 1 error; 2 usage (a bad option value, a --pid that does not "
	       "exist); " KW_EXIT_STATUS_PROBES,
};

/* ---- state shared with the HTTP threads ------------------------------------------------------ */

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = sig;
}

static struct {
	pthread_mutex_t lock;
	char *text; /* the latest exposition, NULL before the first */
	size_t len;
} cache = { .lock = PTHREAD_MUTEX_INITIALIZER };

static const char landing[] =
	"<!DOCTYPE html>\n<html><head><title>kvmwalk exporter</title></head><body>\n<h1>kvmwalk "
	"exporter</h1>\n<p>What KVM's page-table walkers cost on this host.</p>\n"
	"<p><a href=\"/metrics\">Metrics</a></p>\n</body></html>\n";

static enum MHD_Result answer(struct MHD_Connection *conn, unsigned int status, const char *type,
			      const void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(len, (void *)body, mode);
	enum MHD_Result ret;

	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static const char text_plain[] = "text/plain; charset=utf-8";
	static int first_call;
	enum MHD_Result ret;

	(void)cls, (void)version, (void)upload;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, text_plain, "GET or HEAD only\n",
			      17, MHD_RESPMEM_PERSISTENT);
	/* libmicrohttpd calls once with the headers, then with any body: refuse bodies */
	if (!*con_cls) {
		*con_cls = &first_call;
		return MHD_YES;
	}
	if (*upload_size)
		return answer(conn, MHD_HTTP_CONTENT_TOO_LARGE, text_plain, "no body expected\n",
			      17, MHD_RESPMEM_PERSISTENT);
	if (!strcmp(url, "/"))
		return answer(conn, MHD_HTTP_OK, "text/html; charset=utf-8", landing,
			      sizeof(landing) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return answer(conn, MHD_HTTP_NOT_FOUND, text_plain, "not found: try /metrics\n", 24,
			      MHD_RESPMEM_PERSISTENT);
	pthread_mutex_lock(&cache.lock);
	if (cache.text)
		ret = answer(conn, MHD_HTTP_OK, PROM_CONTENT_TYPE, cache.text, cache.len,
			     MHD_RESPMEM_MUST_COPY);
	else
		ret = answer(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text_plain, "starting\n", 9,
			     MHD_RESPMEM_PERSISTENT);
	pthread_mutex_unlock(&cache.lock);
	return ret;
}

/*
 * libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT counts idle time only: a client sending one
 * header byte a second would hold a connection for ever (tests/prom/test-serve-abuse). So each
 * connection also gets a deadline, CONN_TIMEOUT_S after it opened or after its last complete
 * request, which the main loop enforces with shutdown(2). The close notification comes before
 * libmicrohttpd closes the socket, and both sides hold the lock: a reused fd is never shut.
 */
static struct {
	pthread_mutex_t lock;
	struct {
		int fd; /* -1: free */
		double deadline;
	} c[MAX_CONNECTIONS];
} conns = { .lock = PTHREAD_MUTEX_INITIALIZER };

static int conn_fd(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

/* Sets the deadline of fd's slot (taking a free one for a new fd when add), or frees it. */
static void conns_set(int fd, bool add, bool close)
{
	int i, free_slot = -1;

	if (fd < 0)
		return;
	pthread_mutex_lock(&conns.lock);
	for (i = 0; i < MAX_CONNECTIONS; i++) {
		if (conns.c[i].fd == fd)
			break;
		if (conns.c[i].fd < 0 && free_slot < 0)
			free_slot = i;
	}
	if (i == MAX_CONNECTIONS && add)
		i = free_slot;
	if (i >= 0 && i < MAX_CONNECTIONS) {
		conns.c[i].fd = close ? -1 : fd;
		conns.c[i].deadline = kw_mono_s() + CONN_TIMEOUT_S;
	}
	pthread_mutex_unlock(&conns.lock);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	(void)cls, (void)socket_context;
	conns_set(conn_fd(conn), code == MHD_CONNECTION_NOTIFY_STARTED,
		  code == MHD_CONNECTION_NOTIFY_CLOSED);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)cls, (void)con_cls, (void)toe;
	conns_set(conn_fd(conn), false, false);
}

/* Called by the main loop: ends every connection past its deadline. */
static void conns_expire(void)
{
	double now = kw_mono_s();

	pthread_mutex_lock(&conns.lock);
	for (int i = 0; i < MAX_CONNECTIONS; i++)
		if (conns.c[i].fd >= 0 && now > conns.c[i].deadline) {
			shutdown(conns.c[i].fd, SHUT_RDWR);
			conns.c[i].deadline = now + CONN_TIMEOUT_S; /* once per period at most */
		}
	pthread_mutex_unlock(&conns.lock);
}

/* Paths are matched as sent: "/metrics%00x" must not become "/metrics". */
static size_t no_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls, (void)conn;
	return strlen(s);
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("kvmwalk serve: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* ---- listening socket ------------------------------------------------------------------------ */

/*
 * "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (every IPv4 address); numeric only (inet_pton, not
 * getaddrinfo: no NSS in a static binary). Returns a listening fd or -errno.
 */
static int listen_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *in4 = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
	const char *colon = strrchr(spec, ':');
	char host[64], *end;
	unsigned long port;

	memset(ss, 0, sizeof(*ss));
	if (!colon || (size_t)(colon - spec) >= sizeof(host))
		return -EINVAL;
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (!colon[1] || *end || errno || !port || port > 65535 || colon[1] == '-')
		return -EINVAL;
	snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
	if (host[0] == '[' && host[strlen(host) - 1] == ']') {
		host[strlen(host) - 1] = '\0';
		if (inet_pton(AF_INET6, host + 1, &in6->sin6_addr) != 1)
			return -EINVAL;
		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(port);
		*len = sizeof(*in6);
	} else {
		if (host[0] && inet_pton(AF_INET, host, &in4->sin_addr) != 1)
			return -EINVAL;
		in4->sin_family = AF_INET;
		in4->sin_port = htons(port);
		*len = sizeof(*in4);
	}
	return 0;
}

static int listen_on(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	if (listen_addr(spec, &ss, &len)) {
		fprintf(stderr,
			"kvmwalk serve: --listen takes a numeric ADDR:PORT ([ADDR]:PORT for IPv6), "
			"not '%s'\n",
			spec);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		err = -errno;
		fprintf(stderr, "kvmwalk serve: cannot listen on %s: %s\n", spec, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

/* ---- privileges ------------------------------------------------------------------------------ */

static int collect(struct loader *l, struct kw_recording *r);

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

static struct kw_meta meta0;		 /* filled once, while privileged */
static char pf_names0[KW_NR_PF_RET][32]; /* the RET_PF_* names: need the kvm module's BTF */

static int collect(struct loader *l, struct kw_recording *r)
{
	int err = loader__collect(l, r);

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

static double now_s(int clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* One read of the maps and one rendering; on a failed read the previous text stays served. */
static void refresh(struct loader *l, const struct serve_opts *o, struct prom_facts *facts,
		    struct textfile *tf)
{
	struct kw_recording r = {};
	struct prom_opts po = { .buckets = o->buckets, .per_vm = o->per_vm, .facts = facts };
	double t0 = now_s(CLOCK_MONOTONIC);
	char *text, *old;
	size_t len;

	if (collect(l, &r)) {
		facts->collect_errors++;
		goto cleanup;
	}
	facts->collect_seconds = now_s(CLOCK_MONOTONIC) - t0;
	if (prom_render(&r, &po, &text, &len)) {
		fprintf(stderr, "kvmwalk serve: out of memory rendering the metrics\n");
		goto cleanup;
	}
	if (tf)
		textfile__write(tf, text, len);
	pthread_mutex_lock(&cache.lock);
	old = cache.text;
	cache.text = text;
	cache.len = len;
	pthread_mutex_unlock(&cache.lock);
	free(old);
cleanup:
	kw_recording_free(&r);
}

int serve_main(int argc, char **argv)
{
	struct serve_opts o = { .interval = 5 };
	struct prom_facts facts = { .version = NULL };
	struct sigaction sa = { .sa_handler = on_signal };
	struct MHD_Daemon *d = NULL;
	struct textfile *tf = NULL;
	struct kw_recording r = {};
	struct loader *l = NULL;
	int code, ret = KW_EXIT_ERROR, lfd = -1;

	argp_parse(&argp, argc, argv, 0, NULL, &o);
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);

	/* log2 buckets are all serve exports then: the kernel keeps no more (docs/performance.md) */
	o.lo.hist_log2 = o.buckets == PROM_BUCKETS_LOG2;
	l = loader__open(&o.lo, &code);
	if (!l)
		return code;
	if (loader__stats_start(l))
		fprintf(stderr,
			"kvmwalk serve: BPF run-time statistics unavailable: no probe cost\n");
	loader__meta(l, &meta0);
	free(meta0.params);
	meta0.params = NULL;
	meta0.nparams = 0;
	if (loader__collect(l, &r))
		goto cleanup;
	memcpy(pf_names0, r.pf_ret_names, sizeof(pf_names0));
	facts.start_time = now_s(CLOCK_REALTIME);

	if (o.listen && (lfd = listen_on(o.listen)) < 0)
		goto cleanup;
	if (o.textfile && textfile__open(&tf, o.textfile))
		goto cleanup;
	if (drop_privileges(&o, l, &r))
		goto cleanup;

	refresh(l, &o, &facts, tf);
	if (lfd >= 0) {
		for (int i = 0; i < MAX_CONNECTIONS; i++)
			conns.c[i].fd = -1;
		d = MHD_start_daemon(
			MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request,
			NULL, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_LISTEN_SOCKET,
			lfd, MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
			MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)MAX_PER_IP,
			MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
			MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
			MHD_OPTION_NOTIFY_CONNECTION, on_connection, NULL,
			MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
			MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL, MHD_OPTION_END);
		if (!d) {
			fprintf(stderr, "kvmwalk serve: cannot start the HTTP server\n");
			goto cleanup;
		}
		lfd = -1; /* the daemon's now */
		fprintf(stderr, "kvmwalk serve: http://%s/metrics\n", o.listen);
	}
	if (tf)
		fprintf(stderr, "kvmwalk serve: writing %s every %g s\n", o.textfile, o.interval);

	for (double next = now_s(CLOCK_MONOTONIC) + o.interval; !stop;) {
		loader__poll(l, 50); /* names each new process at once; --vm: each exec */
		if (d)
			conns_expire();
		if (now_s(CLOCK_MONOTONIC) < next)
			continue;
		next += o.interval;
		refresh(l, &o, &facts, tf);
	}
	ret = 0;
cleanup:
	if (d)
		MHD_stop_daemon(d);
	if (lfd >= 0)
		close(lfd);
	/* a stale textfile would look like a quiet host: remove it */
	if (!ret)
		textfile__remove(tf);
	textfile__close(tf);
	loader__destroy(l);
	kw_recording_free(&r);
	free(cache.text);
	cache.text = NULL;
	return ret;
}
