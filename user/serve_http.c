// SPDX-License-Identifier: GPL-2.0
/*
 * serve's HTTP server (serve_http.h): the listening socket, libmicrohttpd, TLS and basic
 * authentication (webconfig.h), connection deadlines and a bounded log. Part of the serve
 * command; the one file that includes <microhttpd.h>.
 *
 * What a peer can take, and why these numbers (tests/host/test-serve-load measures them):
 *   - MAX_CONNECTIONS at once, MAX_PER_IP from one address: 500 idle sockets from 50 addresses
 *     plus wrk's flood leave room for every scrape (16 in all, 10 s each, used to fail 8 of 11
 *     scrapes against 16 idle sockets);
 *   - REQUEST_TIMEOUT_S from accept (or from the end of the previous response) until the request
 *     headers are in, TLS handshake included: an idle or trickling socket is gone within
 *     seconds. Then RESPONSE_TIMEOUT_S to read the answer (a slow reader of a large
 *     exposition);
 *   - libmicrohttpd's own idle timeout as well (no progress at all for IDLE_TIMEOUT_S).
 * Refused connections and other libmicrohttpd messages are logged at most LOG_BURST lines per
 * LOG_PERIOD_S, with the number left out (20 s of wrk used to write 980,000 lines).
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <microhttpd.h>
#ifdef KW_HAVE_GNUTLS
#include <gnutls/gnutls.h>
#endif

#include "clock.h"
#include "prom.h"
#include "serve_http.h"
#include "webconfig.h"

#define MAX_CONNECTIONS 1000
#define MAX_PER_IP 32
#define REQUEST_TIMEOUT_S 3
#define RESPONSE_TIMEOUT_S 10
#define IDLE_TIMEOUT_S 5
/* libmicrohttpd's threads: one busy checking a bcrypt hash (webconfig.h) leaves the others */
#define THREADS 4
/* Request line and headers must fit here (libmicrohttpd answers 431/413 beyond it). */
#define CONN_MEMORY (16 * 1024)
/* Our own socket's queue: libmicrohttpd accepts from it quickly, a flood waits here. */
#define LISTEN_BACKLOG 1024
/* What the fd table may need: sockets, and what serve holds besides (maps, files) */
#define FD_RESERVE 64
#define FD_WANTED (MAX_CONNECTIONS + 2 * FD_RESERVE)
#define LOG_PERIOD_S 10.0
#define LOG_BURST 3

struct serve_http {
	struct MHD_Daemon *d; /* NULL until serve_http__start() */
	int lfd;	      /* the listening socket, -1 once the daemon has it */
	unsigned int max_conns;
	struct kw_webconfig *wc; /* NULL: plain HTTP, no users */
	struct {
		pthread_mutex_t lock;
		char *text; /* the latest exposition, NULL before the first */
		size_t len;
	} cache;
	/*
	 * libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT counts idle time only: a client sending
	 * one header byte a second would hold a connection for ever (tests/host/test-serve-abuse).
	 * So each connection also gets a deadline (see the top of this file), which the main loop
	 * enforces with shutdown(2). Indexed by fd (below the RLIMIT_NOFILE set in
	 * serve_http__open()). The close notification comes before libmicrohttpd closes the
	 * socket, and both sides hold the lock: a reused fd is never shut.
	 */
	struct {
		pthread_mutex_t lock;
		double *deadline; /* [fd]: 0 when fd is no connection of ours */
		int nfds;
	} conns;
};

/* ---- a bounded log ----------------------------------------------------------------------------- */

static struct {
	pthread_mutex_t lock;
	double start; /* of the current period */
	unsigned int lines;
	unsigned long suppressed;
} logger = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void log_suppressed(double now)
{
	if (logger.suppressed)
		fprintf(stderr,
			"kvmwalk serve: http: %lu more messages in the last %.0f s not logged\n",
			logger.suppressed, now - logger.start);
	logger.suppressed = 0;
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	double now = kw_mono_s();

	(void)cls;
	pthread_mutex_lock(&logger.lock);
	if (now - logger.start >= LOG_PERIOD_S) {
		log_suppressed(now);
		logger.start = now;
		logger.lines = 0;
	}
	if (logger.lines < LOG_BURST) {
		logger.lines++;
		fputs("kvmwalk serve: http: ", stderr);
		vfprintf(stderr, fmt, ap);
	} else
		logger.suppressed++;
	pthread_mutex_unlock(&logger.lock);
}

/* ---- answers --------------------------------------------------------------------------------- */

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
	if (status == MHD_HTTP_UNAUTHORIZED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE,
					"Basic realm=\"kvmwalk\", charset=\"UTF-8\"");
	if (status == MHD_HTTP_TOO_MANY_REQUESTS)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

#define TEXT_PLAIN "text/plain; charset=utf-8"
#define ANSWER(conn, status, msg)                                                                  \
	answer(conn, status, TEXT_PLAIN, msg, sizeof(msg) - 1, MHD_RESPMEM_PERSISTENT)

/*
 * client_auth_type RequireAndVerifyClientCert: libmicrohttpd asks for a certificate (its CA
 * list is the trust list) but leaves checking it to us. Without GnuTLS's API (the static build
 * has no TLS at all) nothing gets here.
 */
static bool client_cert_ok(struct MHD_Connection *conn)
{
#ifdef KW_HAVE_GNUTLS
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_GNUTLS_SESSION);
	unsigned int status = ~0u;

	return ci && gnutls_certificate_get_peers(ci->tls_session, &(unsigned int){ 0 }) &&
	       !gnutls_certificate_verify_peers2(ci->tls_session, &status) && !status;
#else
	(void)conn;
	return false;
#endif
}

static void conn_deadline(struct serve_http *h, struct MHD_Connection *conn, double secs);

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
				  const char *method, const char *version, const char *upload,
				  size_t *upload_size, void **con_cls)
{
	static int first_call;
	struct serve_http *h = cls;
	enum MHD_Result ret;

	(void)version, (void)upload;
	if (!*con_cls) {
		/* the headers are in: from now on the time to read the answer */
		conn_deadline(h, conn, RESPONSE_TIMEOUT_S);
		if (h->wc && h->wc->client_cert_required && !client_cert_ok(conn))
			return ANSWER(conn, MHD_HTTP_FORBIDDEN,
				      "a client certificate signed by the configured CA is needed\n");
		if (h->wc) {
			switch (kw_webconfig_auth(
				h->wc, MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
								   MHD_HTTP_HEADER_AUTHORIZATION))) {
			case KW_AUTH_OK:
				break;
			case KW_AUTH_BUSY:
				return ANSWER(conn, MHD_HTTP_TOO_MANY_REQUESTS,
					      "checking another password: try again\n");
			default:
				return ANSWER(conn, MHD_HTTP_UNAUTHORIZED, "unauthorized\n");
			}
		}
	}
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return ANSWER(conn, MHD_HTTP_METHOD_NOT_ALLOWED, "GET or HEAD only\n");
	/* libmicrohttpd calls once with the headers, then with any body: refuse bodies */
	if (!*con_cls) {
		*con_cls = &first_call;
		return MHD_YES;
	}
	if (*upload_size)
		return ANSWER(conn, MHD_HTTP_CONTENT_TOO_LARGE, "no body expected\n");
	if (!strcmp(url, "/"))
		return answer(conn, MHD_HTTP_OK, "text/html; charset=utf-8", landing,
			      sizeof(landing) - 1, MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/metrics"))
		return ANSWER(conn, MHD_HTTP_NOT_FOUND, "not found: try /metrics\n");
	pthread_mutex_lock(&h->cache.lock);
	if (h->cache.text)
		ret = answer(conn, MHD_HTTP_OK, PROM_CONTENT_TYPE, h->cache.text, h->cache.len,
			     MHD_RESPMEM_MUST_COPY);
	else
		ret = ANSWER(conn, MHD_HTTP_SERVICE_UNAVAILABLE, "starting\n");
	pthread_mutex_unlock(&h->cache.lock);
	return ret;
}

void serve_http__publish(struct serve_http *h, char *text, size_t len)
{
	char *old;

	pthread_mutex_lock(&h->cache.lock);
	old = h->cache.text;
	h->cache.text = text;
	h->cache.len = len;
	pthread_mutex_unlock(&h->cache.lock);
	free(old);
}

/* Paths are matched as sent: "/metrics%00x" must not become "/metrics". */
static size_t no_unescape(void *cls, struct MHD_Connection *conn, char *s)
{
	(void)cls, (void)conn;
	return strlen(s);
}

/* ---- connection deadlines -------------------------------------------------------------------- */

static int conn_fd(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

/* fd's deadline secs from now; secs < 0: fd is closing, forget it */
static void deadline_set(struct serve_http *h, int fd, double secs)
{
	if (fd < 0 || fd >= h->conns.nfds)
		return;
	pthread_mutex_lock(&h->conns.lock);
	h->conns.deadline[fd] = secs < 0 ? 0 : kw_mono_s() + secs;
	pthread_mutex_unlock(&h->conns.lock);
}

static void conn_deadline(struct serve_http *h, struct MHD_Connection *conn, double secs)
{
	deadline_set(h, conn_fd(conn), secs);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	(void)socket_context;
	conn_deadline(cls, conn,
		      code == MHD_CONNECTION_NOTIFY_STARTED ? REQUEST_TIMEOUT_S : -1);
}

/* a response sent: the next request's headers must come as quickly as the first's */
static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)con_cls, (void)toe;
	conn_deadline(cls, conn, REQUEST_TIMEOUT_S);
}

void serve_http__expire(struct serve_http *h)
{
	double now = kw_mono_s();

	pthread_mutex_lock(&h->conns.lock);
	for (int fd = 0; fd < h->conns.nfds; fd++)
		if (h->conns.deadline[fd] && now > h->conns.deadline[fd]) {
			shutdown(fd, SHUT_RDWR);
			h->conns.deadline[fd] = now + 1; /* once a second at most, until it closes */
		}
	pthread_mutex_unlock(&h->conns.lock);
}

/* ---- the listening socket and the daemon ----------------------------------------------------- */

int serve_http_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len)
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

bool serve_http_addr_is_loopback(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t len;

	if (serve_http_addr(spec, &ss, &len))
		return false;
	if (ss.ss_family == AF_INET6)
		return IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)&ss)->sin6_addr);
	return (ntohl(((struct sockaddr_in *)&ss)->sin_addr.s_addr) >> 24) == 127;
}

bool serve_http_tls_supported(void)
{
	return MHD_is_feature_supported(MHD_FEATURE_TLS) == MHD_YES;
}

/* Returns a listening fd or -errno (said why). */
static int listen_on(const char *spec)
{
	struct sockaddr_storage ss;
	socklen_t len;
	int fd, one = 1, err;

	if (serve_http_addr(spec, &ss, &len)) {
		fprintf(stderr,
			"kvmwalk serve: --listen takes a numeric ADDR:PORT ([ADDR]:PORT for IPv6), "
			"not '%s'\n",
			spec);
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, LISTEN_BACKLOG)) {
		err = -errno;
		fprintf(stderr, "kvmwalk serve: cannot listen on %s: %s\n", spec, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

/*
 * Raises the soft RLIMIT_NOFILE towards FD_WANTED (no privilege needed up to the hard limit;
 * systemd's default soft limit is 1024) and returns the number of fds we may use.
 */
static int fd_budget(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl))
		return 1024;
	if (rl.rlim_cur < FD_WANTED) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max > FD_WANTED ? FD_WANTED
											 : rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
		getrlimit(RLIMIT_NOFILE, &rl);
	}
	return rl.rlim_cur > 65536 ? 65536 : (int)rl.rlim_cur;
}

int serve_http__open(struct serve_http **hp, const char *spec)
{
	struct serve_http *h = calloc(1, sizeof(*h));
	int err, nfds = fd_budget();

	*hp = NULL;
	if (!h || !(h->conns.deadline = calloc(nfds, sizeof(double)))) {
		free(h);
		fprintf(stderr, "kvmwalk serve: out of memory\n");
		return -ENOMEM;
	}
	h->conns.nfds = nfds;
	h->max_conns = nfds - FD_RESERVE < MAX_CONNECTIONS ? nfds - FD_RESERVE : MAX_CONNECTIONS;
	if (nfds <= 2 * FD_RESERVE)
		h->max_conns = nfds / 2;
	if (h->max_conns < MAX_CONNECTIONS)
		fprintf(stderr,
			"kvmwalk serve: at most %u connections: RLIMIT_NOFILE is %d "
			"(LimitNOFILE= in a unit)\n",
			h->max_conns, nfds);
	pthread_mutex_init(&h->cache.lock, NULL);
	pthread_mutex_init(&h->conns.lock, NULL);
	h->lfd = listen_on(spec);
	if (h->lfd < 0) {
		err = h->lfd;
		serve_http__close(h);
		return err;
	}
	*hp = h;
	return 0;
}

int serve_http__start(struct serve_http *h, struct kw_webconfig *wc)
{
	bool tls = wc && wc->tls;
	/* the exporter-toolkit's defaults: TLS 1.2 and 1.3, or 1.3 only */
	const char *prio = wc && wc->min_version == KW_TLS13 ? "NORMAL:-VERS-ALL:+VERS-TLS1.3"
							     : "NORMAL:-VERS-ALL:+VERS-TLS1.3:+VERS-TLS1.2";
	struct MHD_OptionItem opts[] = {
		{ MHD_OPTION_EXTERNAL_LOGGER, (intptr_t)mhd_log, NULL },
		{ MHD_OPTION_LISTEN_SOCKET, h->lfd, NULL },
		{ MHD_OPTION_THREAD_POOL_SIZE, THREADS, NULL },
		{ MHD_OPTION_CONNECTION_LIMIT, h->max_conns, NULL },
		{ MHD_OPTION_PER_IP_CONNECTION_LIMIT, MAX_PER_IP, NULL },
		{ MHD_OPTION_CONNECTION_TIMEOUT, IDLE_TIMEOUT_S, NULL },
		{ MHD_OPTION_CONNECTION_MEMORY_LIMIT, CONN_MEMORY, NULL },
		{ MHD_OPTION_NOTIFY_CONNECTION, (intptr_t)on_connection, h },
		{ MHD_OPTION_NOTIFY_COMPLETED, (intptr_t)on_completed, h },
		{ MHD_OPTION_UNESCAPE_CALLBACK, (intptr_t)no_unescape, NULL },
		/* the TLS ones last: cut off below when there is no TLS */
		{ MHD_OPTION_HTTPS_PRIORITIES, 0, (void *)prio },
		{ MHD_OPTION_HTTPS_MEM_CERT, 0, tls ? wc->cert_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_KEY, 0, tls ? wc->key_pem : NULL },
		{ MHD_OPTION_HTTPS_MEM_TRUST, 0, tls ? wc->ca_pem : NULL },
		{ MHD_OPTION_END, 0, NULL },
	};
	size_t n = sizeof(opts) / sizeof(opts[0]);

	if (tls && !serve_http_tls_supported()) {
		fprintf(stderr, "kvmwalk serve: %s\n", SERVE_HTTP_NO_TLS);
		return -EOPNOTSUPP;
	}
	if (!tls)
		opts[n - 5] = opts[n - 1];
	else if (!wc->ca_pem)
		opts[n - 2] = opts[n - 1];
	h->wc = wc && (tls || wc->nusers) ? wc : NULL;
	h->d = MHD_start_daemon(MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG |
					(tls ? MHD_USE_TLS : 0),
				0, NULL, NULL, on_request, h, MHD_OPTION_ARRAY, opts,
				MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "kvmwalk serve: cannot start the HTTP%s server%s\n",
			tls ? "S" : "", tls ? " (are cert_file and key_file a PEM pair?)" : "");
		return -EIO;
	}
	h->lfd = -1; /* the daemon's now */
	return 0;
}

void serve_http__close(struct serve_http *h)
{
	if (!h)
		return;
	if (h->d)
		MHD_stop_daemon(h->d);
	if (h->lfd >= 0)
		close(h->lfd);
	pthread_mutex_lock(&logger.lock);
	log_suppressed(kw_mono_s());
	pthread_mutex_unlock(&logger.lock);
	free(h->cache.text);
	free(h->conns.deadline);
	pthread_mutex_destroy(&h->cache.lock);
	pthread_mutex_destroy(&h->conns.lock);
	free(h);
}
