/* SPDX-License-Identifier: GPL-2.0 */
/*
 * serve's HTTP server (serve_http.c), private to serve.c: the listening socket, bound while
 * privileged; libmicrohttpd's thread, started after the privileges are gone, answering every
 * scrape with a copy of the last exposition published and never touching the maps; a deadline
 * per connection. Part of the serve command (the top layer); only serve_http.c includes
 * <microhttpd.h>.
 */
#ifndef KW_SERVE_HTTP_H
#define KW_SERVE_HTTP_H

#include <stddef.h>
#include <sys/socket.h>

struct serve_http;

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

/* Starts libmicrohttpd's thread on the socket. Returns 0 or -EIO (said why). */
int serve_http__start(struct serve_http *h);

/* Ends every connection past its deadline; the main loop calls it between its waits. */
void serve_http__expire(struct serve_http *h);

/* Stops the server and closes the socket. Accepts NULL. */
void serve_http__close(struct serve_http *h);

#endif /* KW_SERVE_HTTP_H */
