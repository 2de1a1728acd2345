// SPDX-License-Identifier: GPL-2.0
/* serve's web configuration file: TLS and basic authentication (webconfig.h). */
#include <crypt.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "webconfig.h"

/* crypt_r() of a wrong password for an unknown user, so that a name costs what a password does */
static const char dummy_hash[] = "$2b$10$kvmwalkdummysaltdummye9b2p.w7avVzBAN8DvU/1sCRXWuhBqjW";

static int fail(char *err, size_t errlen, const yaml_node_t *n, const char *fmt, ...)
{
	va_list ap;
	int off = snprintf(err, errlen, "line %lu: ", n ? (unsigned long)n->start_mark.line + 1 : 0);

	va_start(ap, fmt);
	if (off >= 0 && (size_t)off < errlen)
		vsnprintf(err + off, errlen - off, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static const char *scalar(const yaml_node_t *n)
{
	return n && n->type == YAML_SCALAR_NODE ? (const char *)n->data.scalar.value : NULL;
}

/* A path relative to dir unless absolute; NULL when out of memory. */
static char *resolve(const char *dir, const char *path)
{
	char *s;

	if (path[0] == '/' || !dir || !*dir)
		return strdup(path);
	return asprintf(&s, "%s/%s", dir, path) < 0 ? NULL : s;
}

/* A bcrypt hash that this libcrypt can check: crypt_r() of anything returns the same prefix. */
static bool bcrypt_usable(const char *hash)
{
	struct crypt_data cd = {};
	const char *r;

	if (strncmp(hash, "$2a$", 4) && strncmp(hash, "$2b$", 4) && strncmp(hash, "$2y$", 4))
		return false;
	r = crypt_r("", hash, &cd);
	return r && !strncmp(r, hash, 7) && strlen(r) == strlen(hash);
}

static int parse_tls(yaml_document_t *doc, yaml_node_t *map, const char *dir,
		     struct kw_webconfig *wc, char *err, size_t errlen)
{
	const char *auth = NULL;

	if (map->type != YAML_MAPPING_NODE)
		return fail(err, errlen, map, "tls_server_config is a mapping");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(doc, p->value);
		const char *k = scalar(kn), *v = scalar(vn);
		char **dst = NULL;

		if (!k)
			return fail(err, errlen, kn, "a key of tls_server_config is not a string");
		if (strcmp(k, "cert_file") && strcmp(k, "key_file") && strcmp(k, "client_ca_file") &&
		    strcmp(k, "client_auth_type") && strcmp(k, "min_version"))
			return fail(err, errlen, kn,
				    "tls_server_config.%s is not supported by kvmwalk (cert_file, "
				    "key_file, client_ca_file, client_auth_type, min_version)",
				    k);
		if (!v)
			return fail(err, errlen, vn, "tls_server_config.%s takes a string", k);
		if (!strcmp(k, "cert_file"))
			dst = &wc->cert_file;
		else if (!strcmp(k, "key_file"))
			dst = &wc->key_file;
		else if (!strcmp(k, "client_ca_file"))
			dst = &wc->client_ca_file;
		else if (!strcmp(k, "client_auth_type"))
			auth = v;
		else if (!strcmp(k, "min_version")) {
			if (!strcmp(v, "TLS12"))
				wc->min_version = KW_TLS12;
			else if (!strcmp(v, "TLS13"))
				wc->min_version = KW_TLS13;
			else
				return fail(err, errlen, vn,
					    "min_version is TLS12 or TLS13, not '%s' (TLS 1.0 and 1.1 "
					    "are not offered)",
					    v);
		}
		if (dst && *dst)
			return fail(err, errlen, kn, "tls_server_config.%s given twice", k);
		if (dst && (!*v || !(*dst = resolve(dir, v))))
			return fail(err, errlen, vn, "tls_server_config.%s: an empty path", k);
	}
	if (!wc->cert_file || !wc->key_file)
		return fail(err, errlen, map, "tls_server_config needs cert_file and key_file");
	if (!auth || !strcmp(auth, "NoClientCert")) {
		if (wc->client_ca_file)
			return fail(err, errlen, map,
				    "client_ca_file without client_auth_type: "
				    "RequireAndVerifyClientCert would check nothing");
	} else if (!strcmp(auth, "RequireAndVerifyClientCert")) {
		if (!wc->client_ca_file)
			return fail(err, errlen, map,
				    "client_auth_type RequireAndVerifyClientCert needs client_ca_file");
		wc->client_cert_required = true;
	} else
		return fail(err, errlen, map,
			    "client_auth_type is NoClientCert or RequireAndVerifyClientCert, not '%s'",
			    auth);
	wc->tls = true;
	return 0;
}

static int parse_users(yaml_document_t *doc, yaml_node_t *map, struct kw_webconfig *wc, char *err,
		       size_t errlen)
{
	size_t n;

	if (map->type != YAML_MAPPING_NODE)
		return fail(err, errlen, map, "basic_auth_users maps user names to bcrypt hashes");
	n = map->data.mapping.pairs.top - map->data.mapping.pairs.start;
	wc->users = calloc(n ? n : 1, sizeof(*wc->users));
	if (!wc->users)
		return fail(err, errlen, map, "out of memory");
	for (yaml_node_pair_t *p = map->data.mapping.pairs.start; p < map->data.mapping.pairs.top;
	     p++) {
		yaml_node_t *kn = yaml_document_get_node(doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(doc, p->value);
		const char *k = scalar(kn), *v = scalar(vn);
		struct kw_webconfig_user *u = &wc->users[wc->nusers];

		if (!k || !*k || strchr(k, ':'))
			return fail(err, errlen, kn, "a user name is a string without ':'");
		for (size_t i = 0; i < wc->nusers; i++)
			if (!strcmp(wc->users[i].name, k))
				return fail(err, errlen, kn, "user '%s' twice", k);
		if (!v || !bcrypt_usable(v))
			return fail(err, errlen, vn,
				    "user '%s': not a bcrypt hash ($2a$, $2b$ or $2y$) that this "
				    "libcrypt can check",
				    k);
		u->name = strdup(k);
		u->hash = strdup(v);
		wc->nusers++;
		if (!u->name || !u->hash)
			return fail(err, errlen, kn, "out of memory");
	}
	return 0;
}

int kw_webconfig_parse(const char *text, size_t len, const char *dir, struct kw_webconfig *wc,
		       char *err, size_t errlen)
{
	yaml_parser_t parser;
	yaml_document_t doc;
	yaml_node_t *root;
	int ret = 0;

	memset(wc, 0, sizeof(*wc));
	pthread_mutex_init(&wc->lock, NULL);
	pthread_mutex_init(&wc->bcrypt, NULL);
	if (!yaml_parser_initialize(&parser))
		return fail(err, errlen, NULL, "out of memory");
	yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
	if (!yaml_parser_load(&parser, &doc)) {
		snprintf(err, errlen, "line %lu: %s", (unsigned long)parser.problem_mark.line + 1,
			 parser.problem ? parser.problem : "not YAML");
		yaml_parser_delete(&parser);
		return -EINVAL;
	}
	root = yaml_document_get_root_node(&doc);
	if (!root) /* an empty file: no TLS, no users, as for the toolkit */
		goto cleanup;
	if (root->type != YAML_MAPPING_NODE) {
		ret = fail(err, errlen, root, "the file is a mapping (tls_server_config, "
					      "basic_auth_users)");
		goto cleanup;
	}
	for (yaml_node_pair_t *p = root->data.mapping.pairs.start;
	     !ret && p < root->data.mapping.pairs.top; p++) {
		yaml_node_t *kn = yaml_document_get_node(&doc, p->key);
		yaml_node_t *vn = yaml_document_get_node(&doc, p->value);
		const char *k = scalar(kn);

		if (k && !strcmp(k, "tls_server_config") && !wc->tls)
			ret = parse_tls(&doc, vn, dir, wc, err, errlen);
		else if (k && !strcmp(k, "basic_auth_users") && !wc->users)
			ret = parse_users(&doc, vn, wc, err, errlen);
		else
			ret = fail(err, errlen, kn,
				   "'%s' is not supported by kvmwalk (tls_server_config, "
				   "basic_auth_users), or given twice",
				   k ? k : "?");
	}
cleanup:
	yaml_document_delete(&doc);
	yaml_parser_delete(&parser);
	return ret;
}

/* The whole file, NUL-terminated; NULL with errno set. */
static char *slurp(const char *path, size_t *lenp)
{
	FILE *f = fopen(path, "re");
	size_t len = 0, cap = 4096, n;
	char *buf = NULL, *nb;
	int e;

	if (!f)
		return NULL;
	do {
		if (!(nb = realloc(buf, cap + 1)))
			goto fail;
		buf = nb;
		n = fread(buf + len, 1, cap - len, f);
		len += n;
		if (len == cap) {
			if (cap >= (1u << 20)) { /* no web config or PEM file is a megabyte */
				errno = EFBIG;
				goto fail;
			}
			cap *= 2;
		}
	} while (n && !ferror(f));
	if (ferror(f))
		goto fail;
	fclose(f);
	buf[len] = '\0';
	if (lenp)
		*lenp = len;
	return buf;
fail:
	e = errno ? errno : EIO;
	fclose(f);
	free(buf);
	errno = e;
	return NULL;
}

int kw_webconfig_load(const char *path, struct kw_webconfig *wc)
{
	const char *slash = strrchr(path, '/');
	char err[256], *dir, *text;
	size_t len;
	int ret;

	memset(wc, 0, sizeof(*wc));
	if (!(text = slurp(path, &len))) {
		ret = -errno;
		fprintf(stderr, "kvmwalk serve: --web.config.file %s: %s\n", path, strerror(-ret));
		return ret;
	}
	dir = slash ? strndup(path, slash - path + (slash == path)) : strdup(".");
	ret = dir ? kw_webconfig_parse(text, len, dir, wc, err, sizeof(err)) : -ENOMEM;
	free(dir);
	free(text);
	if (ret) {
		fprintf(stderr, "kvmwalk serve: --web.config.file %s: %s\n", path,
			ret == -ENOMEM ? strerror(ENOMEM) : err);
		return ret;
	}
	struct {
		const char *file;
		char **dst;
	} pem[] = { { wc->cert_file, &wc->cert_pem },
		    { wc->key_file, &wc->key_pem },
		    { wc->client_ca_file, &wc->ca_pem } };
	for (size_t i = 0; i < sizeof(pem) / sizeof(pem[0]); i++) {
		if (!pem[i].file)
			continue;
		if (!(*pem[i].dst = slurp(pem[i].file, NULL))) {
			ret = -errno;
			fprintf(stderr, "kvmwalk serve: --web.config.file %s: %s: %s\n", path,
				pem[i].file, strerror(-ret));
			return ret;
		}
	}
	return 0;
}

void kw_webconfig_free(struct kw_webconfig *wc)
{
	if (!wc)
		return;
	for (size_t i = 0; i < wc->nusers; i++) {
		free(wc->users[i].name);
		free(wc->users[i].hash);
		free(wc->users[i].good);
	}
	free(wc->users);
	free(wc->cert_file);
	free(wc->key_file);
	free(wc->client_ca_file);
	free(wc->cert_pem);
	if (wc->key_pem)
		explicit_bzero(wc->key_pem, strlen(wc->key_pem));
	free(wc->key_pem);
	free(wc->ca_pem);
	memset(wc, 0, sizeof(*wc));
}

static int b64(char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	return c == '+' ? 62 : c == '/' ? 63 : -1;
}

int kw_basic_auth_decode(const char *header, char *user, size_t ulen, char *pass, size_t plen)
{
	char out[512], *colon;
	size_t n = 0, len;
	unsigned int acc = 0;
	int bits = 0, pad = 0;

	if (!header || strncasecmp(header, "Basic ", 6))
		return -EINVAL;
	header += 6;
	while (*header == ' ')
		header++;
	len = strlen(header);
	if (!len || len % 4)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		int v = header[i] == '=' ? (pad++, 0) : pad ? -1 : b64(header[i]);

		if (v < 0 || pad > 2)
			return -EINVAL;
		acc = acc << 6 | v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (n >= sizeof(out) - 1)
				return -EINVAL;
			out[n++] = acc >> bits & 0xff;
		}
	}
	n -= pad;
	out[n] = '\0';
	if (strlen(out) != n || !(colon = strchr(out, ':')))
		return -EINVAL; /* a NUL inside, or no ':' */
	*colon = '\0';
	if (strlen(out) >= ulen || strlen(colon + 1) >= plen)
		return -EINVAL;
	strcpy(user, out);
	strcpy(pass, colon + 1);
	explicit_bzero(out, sizeof(out));
	return 0;
}

/* Constant time in the length of b: a known password is not found byte by byte. */
static bool same(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char d = la != lb;

	for (size_t i = 0; i < lb; i++)
		d |= (unsigned char)(i < la ? a[i] : 0) ^ (unsigned char)b[i];
	return !d;
}

enum kw_auth kw_webconfig_auth(struct kw_webconfig *wc, const char *header)
{
	char user[256], pass[256];
	struct kw_webconfig_user *u = NULL;
	struct crypt_data *cd;
	enum kw_auth ret = KW_AUTH_DENIED;
	const char *r;
	bool cached;

	if (!wc->nusers)
		return KW_AUTH_OK;
	if (kw_basic_auth_decode(header, user, sizeof(user), pass, sizeof(pass)))
		return KW_AUTH_DENIED;
	for (size_t i = 0; i < wc->nusers; i++)
		if (!strcmp(wc->users[i].name, user))
			u = &wc->users[i];
	pthread_mutex_lock(&wc->lock);
	cached = u && u->good && same(u->good, pass);
	pthread_mutex_unlock(&wc->lock);
	if (cached) {
		ret = KW_AUTH_OK;
		goto out;
	}
	if (pthread_mutex_trylock(&wc->bcrypt)) {
		ret = KW_AUTH_BUSY;
		goto out;
	}
	/* struct crypt_data is 32 KiB: not on an HTTP thread's stack */
	cd = calloc(1, sizeof(*cd));
	if (cd) {
		r = crypt_r(pass, u ? u->hash : dummy_hash, cd);
		if (u && r && same(r, u->hash)) {
			char *good = strdup(pass);

			pthread_mutex_lock(&wc->lock);
			free(u->good);
			u->good = good;
			pthread_mutex_unlock(&wc->lock);
			ret = KW_AUTH_OK;
		}
		explicit_bzero(cd, sizeof(*cd));
		free(cd);
	}
	pthread_mutex_unlock(&wc->bcrypt);
out:
	explicit_bzero(pass, sizeof(pass));
	return ret;
}
