/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `serve --web.config.file`: TLS and basic authentication configured the way Prometheus's
 * exporters are (the exporter-toolkit's web configuration file), a subset of its YAML:
 *
 *   tls_server_config:
 *     cert_file: server.crt          # PEM; relative paths are relative to the file's folder
 *     key_file: server.key
 *     client_ca_file: ca.crt         # optional, with client_auth_type below
 *     client_auth_type: RequireAndVerifyClientCert   # or NoClientCert (the default)
 *     min_version: TLS12             # TLS12 (default) or TLS13
 *   basic_auth_users:
 *     prometheus: $2y$10$...         # bcrypt hashes only ($2a$, $2b$, $2y$)
 *
 * Any other key is an error (the toolkit is as strict). A helper (the bottom layer): libyaml and
 * libcrypt's crypt_r() only, no libmicrohttpd, so it is unit-tested; serve_http.c applies it.
 */
#ifndef KW_WEBCONFIG_H
#define KW_WEBCONFIG_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

enum kw_tls_version { KW_TLS12, KW_TLS13 };

struct kw_webconfig_user {
	char *name;
	char *hash; /* bcrypt, checked when loaded */
	char *good; /* the last password that matched (NULL: none yet): scrapes skip bcrypt */
};

struct kw_webconfig {
	bool tls; /* a tls_server_config section */
	char *cert_file, *key_file, *client_ca_file; /* resolved paths */
	bool client_cert_required;
	enum kw_tls_version min_version;
	char *cert_pem, *key_pem, *ca_pem; /* the files' contents, read by kw_webconfig_load() */
	struct kw_webconfig_user *users;
	size_t nusers;
	pthread_mutex_t lock;	    /* users[].good */
	pthread_mutex_t bcrypt; /* at most one bcrypt at a time (kw_webconfig_auth) */
};

/*
 * Parses the YAML text (len bytes) into *wc; dir is the folder relative paths start from. Reads
 * no file. Returns 0, or -EINVAL with why in err (as "LINE: what").
 */
int kw_webconfig_parse(const char *text, size_t len, const char *dir, struct kw_webconfig *wc,
		       char *err, size_t errlen);

/*
 * Reads path, parses it and reads the certificate, key and CA files it names (while serve is
 * still privileged: a key is usually readable by root only). Returns 0, or -errno said once on
 * stderr, naming the file.
 */
int kw_webconfig_load(const char *path, struct kw_webconfig *wc);

/* Accepts a zeroed or half-filled *wc. */
void kw_webconfig_free(struct kw_webconfig *wc);

/*
 * "Basic BASE64(user:password)" into user and pass (NUL-terminated, truncated inputs refused).
 * Returns 0, or -EINVAL for anything else.
 */
int kw_basic_auth_decode(const char *header, char *user, size_t ulen, char *pass, size_t plen);

enum kw_auth {
	KW_AUTH_OK,
	KW_AUTH_DENIED, /* no, wrong or unknown credentials: 401 */
	KW_AUTH_BUSY,	/* another bcrypt is running: 429, try again */
};

/*
 * Checks an Authorization header (NULL: none) against basic_auth_users; KW_AUTH_OK when there
 * are none. bcrypt costs tens of milliseconds on purpose: a password that matched once is kept
 * in memory and compared directly afterwards (as the exporter-toolkit's cache does), so a
 * scraper pays bcrypt once per process; and only one bcrypt runs at a time, the others answered
 * KW_AUTH_BUSY at once, so a flood of wrong passwords holds at most one of serve's HTTP threads
 * (the others go on serving). An unknown user costs a bcrypt too (no timing oracle on names).
 */
enum kw_auth kw_webconfig_auth(struct kw_webconfig *wc, const char *header);

#endif /* KW_WEBCONFIG_H */
