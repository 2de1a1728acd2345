/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve's HTTP server (serve_http.c), private to serve.c: the listening socket, bound while
 * privileged; libmicrohttpd's thread, started after the privileges are gone, answering every
 * scrape with a copy of the last exposition published and never touching the maps; a deadline
 * per connection, TLS and basic authentication (webconfig.h). Part of the serve command (the top layer); only serve_http.c includes
 * <microhttpd.h>.
 */
#ifndef KW_SERVE_HTTP_H
#define KW_SERVE_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>

struct serve_http;
struct kw_webconfig;

/* Why a TLS web configuration is refused where libmicrohttpd has no TLS (the static build) */
#define SERVE_HTTP_NO_TLS                                                                          \
	"this kvmwalk cannot serve TLS: it is the static build, whose libmicrohttpd is built "     \
	"without HTTPS (a static GnuTLS needs a static p11-kit, which Debian does not ship: "      \
	"scripts/build-mhd). Use the Debian package's kvmwalk or `make STATIC=0` (Debian's "       \
	"libmicrohttpd with GnuTLS), or put a TLS proxy in front; basic_auth_users alone works "   \
	"in every build"

/*
 * "ADDR:PORT", "[V6ADDR]:PORT" or ":PORT" (every IPv4 address) into *ss and *len; numeric only
 * (inet_pton, not getaddrinfo: no NSS in a static binary). Returns 0 or -EINVAL; prints nothing.
 */
int serve_http_addr(const char *spec, struct sockaddr_storage *ss, socklen_t *len);

/*
 * Binds and listens on spec (serve_http_addr()'s syntax): a port below 1024 works while
 * privileged. No thread yet: serve_http__start() starts the server. Returns 0 and *hp, or
 * -errno (said why; *hp NULL).
 */
int serve_http__open(struct serve_http **hp, const char *spec);

/*
 * Serves text (len bytes, malloc()ed, now h's) from now on, and frees the text it replaces.
 * Before the first, /metrics answers 503 "starting".
 */
void serve_http__publish(struct serve_http *h, char *text, size_t len);

/* Whether spec (serve_http_addr()'s syntax) is a loopback address (127.0.0.0/8, ::1). */
bool serve_http_addr_is_loopback(const char *spec);

/* Whether this build's libmicrohttpd has TLS (the static build's has not: SERVE_HTTP_NO_TLS). */
bool serve_http_tls_supported(void);

/*
 * Starts libmicrohttpd's threads on the socket, with TLS and basic authentication as wc says
 * (NULL: plain HTTP, anyone may scrape; wc must outlive h). Returns 0, -EOPNOTSUPP (TLS asked
 * of a build without it) or -EIO (said why).
 */
int serve_http__start(struct serve_http *h, struct kw_webconfig *wc);

/* Ends every connection past its deadline; the main loop calls it between its waits. */
void serve_http__expire(struct serve_http *h);

/* Stops the server and closes the socket. Accepts NULL. */
void serve_http__close(struct serve_http *h);

#endif /* KW_SERVE_HTTP_H */
