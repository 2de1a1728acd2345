// SPDX-License-Identifier: GPL-2.0
/*
 * serve's HTTP server (serve_http.h): the listening socket, libmicrohttpd and its connection
 * deadlines. Part of the serve command; the one file that includes <microhttpd.h>.
 */
#include <errno.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <microhttpd.h>

#include "clock.h"
#include "prom.h"
#include "serve_http.h"

#define MAX_CONNECTIONS 16
#define MAX_PER_IP 8
#define CONN_TIMEOUT_S 10
/* Request line and headers must fit here (libmicrohttpd answers 431/413 beyond it). */
#define CONN_MEMORY (16 * 1024)

struct serve_http {
	struct MHD_Daemon *d; /* NULL until serve_http__start() */
	int lfd;	      /* the listening socket, -1 once the daemon has it */
	struct {
		pthread_mutex_t lock;
		char *text; /* the latest exposition, NULL before the first */
		size_t len;
	} cache;
	/*
	 * libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT counts idle time only: a client sending
	 * one header byte a second would hold a connection for ever (tests/host/test-serve-abuse).
	 * So each connection also gets a deadline, CONN_TIMEOUT_S after it opened or after its
	 * last complete request, which the main loop enforces with shutdown(2). The close
	 * notification comes before libmicrohttpd closes the socket, and both sides hold the lock:
	 * a reused fd is never shut.
	 */
	struct {
		pthread_mutex_t lock;
		struct {
			int fd; /* -1: free */
			double deadline;
		} c[MAX_CONNECTIONS];
	} conns;
};

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
	struct serve_http *h = cls;
	enum MHD_Result ret;

	(void)version, (void)upload;
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
	pthread_mutex_lock(&h->cache.lock);
	if (h->cache.text)
		ret = answer(conn, MHD_HTTP_OK, PROM_CONTENT_TYPE, h->cache.text, h->cache.len,
			     MHD_RESPMEM_MUST_COPY);
	else
		ret = answer(conn, MHD_HTTP_SERVICE_UNAVAILABLE, text_plain, "starting\n", 9,
			     MHD_RESPMEM_PERSISTENT);
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

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fputs("kvmwalk serve: http: ", stderr);
	vfprintf(stderr, fmt, ap);
}

/* ---- connection deadlines -------------------------------------------------------------------- */

static int conn_fd(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *ci =
		MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	return ci ? ci->connect_fd : -1;
}

/* Sets the deadline of fd's slot (taking a free one for a new fd when add), or frees it. */
static void conns_set(struct serve_http *h, int fd, bool add, bool close)
{
	int i, free_slot = -1;

	if (fd < 0)
		return;
	pthread_mutex_lock(&h->conns.lock);
	for (i = 0; i < MAX_CONNECTIONS; i++) {
		if (h->conns.c[i].fd == fd)
			break;
		if (h->conns.c[i].fd < 0 && free_slot < 0)
			free_slot = i;
	}
	if (i == MAX_CONNECTIONS && add)
		i = free_slot;
	if (i >= 0 && i < MAX_CONNECTIONS) {
		h->conns.c[i].fd = close ? -1 : fd;
		h->conns.c[i].deadline = kw_mono_s() + CONN_TIMEOUT_S;
	}
	pthread_mutex_unlock(&h->conns.lock);
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
			  enum MHD_ConnectionNotificationCode code)
{
	(void)socket_context;
	conns_set(cls, conn_fd(conn), code == MHD_CONNECTION_NOTIFY_STARTED,
		  code == MHD_CONNECTION_NOTIFY_CLOSED);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **con_cls,
			 enum MHD_RequestTerminationCode toe)
{
	(void)con_cls, (void)toe;
	conns_set(cls, conn_fd(conn), false, false);
}

void serve_http__expire(struct serve_http *h)
{
	double now = kw_mono_s();

	pthread_mutex_lock(&h->conns.lock);
	for (int i = 0; i < MAX_CONNECTIONS; i++)
		if (h->conns.c[i].fd >= 0 && now > h->conns.c[i].deadline) {
			shutdown(h->conns.c[i].fd, SHUT_RDWR);
			h->conns.c[i].deadline = now + CONN_TIMEOUT_S; /* once per period at most */
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
	    bind(fd, (struct sockaddr *)&ss, len) || listen(fd, 64)) {
		err = -errno;
		fprintf(stderr, "kvmwalk serve: cannot listen on %s: %s\n", spec, strerror(-err));
		if (fd >= 0)
			close(fd);
		return err;
	}
	return fd;
}

int serve_http__open(struct serve_http **hp, const char *spec)
{
	struct serve_http *h = calloc(1, sizeof(*h));
	int err;

	*hp = NULL;
	if (!h) {
		fprintf(stderr, "kvmwalk serve: out of memory\n");
		return -ENOMEM;
	}
	pthread_mutex_init(&h->cache.lock, NULL);
	pthread_mutex_init(&h->conns.lock, NULL);
	for (int i = 0; i < MAX_CONNECTIONS; i++)
		h->conns.c[i].fd = -1;
	h->lfd = listen_on(spec);
	if (h->lfd < 0) {
		err = h->lfd;
		serve_http__close(h);
		return err;
	}
	*hp = h;
	return 0;
}

int serve_http__start(struct serve_http *h)
{
	h->d = MHD_start_daemon(
		MHD_USE_AUTO_INTERNAL_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL, on_request, h,
		MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
		MHD_OPTION_LISTEN_SOCKET, h->lfd,
		MHD_OPTION_CONNECTION_LIMIT, (unsigned int)MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int)MAX_PER_IP,
		MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)CONN_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY,
		MHD_OPTION_NOTIFY_CONNECTION, on_connection, h,
		MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
		MHD_OPTION_UNESCAPE_CALLBACK, no_unescape, NULL,
		MHD_OPTION_END);
	if (!h->d) {
		fprintf(stderr, "kvmwalk serve: cannot start the HTTP server\n");
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
	free(h->cache.text);
	pthread_mutex_destroy(&h->cache.lock);
	pthread_mutex_destroy(&h->conns.lock);
	free(h);
}
