// SPDX-License-Identifier: GPL-2.0
/*
 * serve --web.config.file (webconfig.h): the exporter-toolkit's YAML subset, what is refused and
 * how it is said, relative paths, the Authorization header, bcrypt through crypt_r().
 */
#include <errno.h>
#include <string.h>

#include "test.h"
#include "webconfig.h"

/* "s3cret" at bcrypt's lowest cost (4), so that the test is quick */
#define HASH "$2b$04$2vSOVhMmehxTBr/bqo/9DexdNwASI8bVfSbVdF5RweGg7lcdDJ9p2"

static int parse(const char *yaml, struct kw_webconfig *wc, char *err, size_t errlen)
{
	err[0] = '\0';
	return kw_webconfig_parse(yaml, strlen(yaml), "/etc/kvmwalk", wc, err, errlen);
}

static bool refused(const char *yaml, const char *want)
{
	struct kw_webconfig wc;
	char err[256];
	bool ok;

	ok = ASSERT_EQ(parse(yaml, &wc, err, sizeof(err)), -EINVAL, yaml) &&
	     ASSERT_STREQ(err, want, yaml);
	kw_webconfig_free(&wc);
	return ok;
}

bool test_webconfig(void)
{
	struct kw_webconfig wc = {};
	char err[256], user[64], pass[64];
	bool ok = false;

	if (!ASSERT_EQ(parse("tls_server_config:\n"
			     "  cert_file: server.crt\n"
			     "  key_file: /secret/server.key\n"
			     "  client_ca_file: ca.crt\n"
			     "  client_auth_type: RequireAndVerifyClientCert\n"
			     "  min_version: TLS13\n"
			     "basic_auth_users:\n"
			     "  prometheus: '" HASH "'\n"
			     "  other: $2y$04$2vSOVhMmehxTBr/bqo/9DexdNwASI8bVfSbVdF5RweGg7lcdDJ9p2\n",
			     &wc, err, sizeof(err)),
		       0, err))
		goto out;
	if (!ASSERT_TRUE(wc.tls, "tls") ||
	    !ASSERT_STREQ(wc.cert_file, "/etc/kvmwalk/server.crt", "relative to the file's folder") ||
	    !ASSERT_STREQ(wc.key_file, "/secret/server.key", "absolute as given") ||
	    !ASSERT_STREQ(wc.client_ca_file, "/etc/kvmwalk/ca.crt", "CA") ||
	    !ASSERT_TRUE(wc.client_cert_required, "client certificates") ||
	    !ASSERT_EQ(wc.min_version, KW_TLS13, "min_version") ||
	    !ASSERT_EQ(wc.nusers, 2, "users") ||
	    !ASSERT_STREQ(wc.users[0].name, "prometheus", "first user"))
		goto out;

	/* the Authorization header */
	if (!ASSERT_EQ(kw_basic_auth_decode("Basic cHJvbTpzM2NyZXQ=", user, sizeof(user), pass,
					    sizeof(pass)),
		       0, "decode") ||
	    !ASSERT_STREQ(user, "prom", "user") || !ASSERT_STREQ(pass, "s3cret", "password") ||
	    !ASSERT_EQ(kw_basic_auth_decode("Basic bm9jb2xvbg==", user, sizeof(user), pass,
					    sizeof(pass)),
		       -EINVAL, "no colon") ||
	    !ASSERT_EQ(kw_basic_auth_decode("Basic cHJvbTpzM2NyZXQ", user, sizeof(user), pass,
					    sizeof(pass)),
		       -EINVAL, "not a multiple of 4") ||
	    !ASSERT_EQ(kw_basic_auth_decode("Basic cHJv!TpzM2NyZXQ=", user, sizeof(user), pass,
					    sizeof(pass)),
		       -EINVAL, "not base64") ||
	    !ASSERT_EQ(kw_basic_auth_decode("Bearer cHJvbTpzM2NyZXQ=", user, sizeof(user), pass,
					    sizeof(pass)),
		       -EINVAL, "another scheme") ||
	    !ASSERT_EQ(kw_basic_auth_decode("Basic cHJvbTpzM2NyZXQ=", user, 4, pass, sizeof(pass)),
		       -EINVAL, "a user longer than the buffer"))
		goto out;

	/* cHJvbWV0aGV1czpzM2NyZXQ= is prometheus:s3cret */
	if (!ASSERT_EQ(kw_webconfig_auth(&wc, NULL), KW_AUTH_DENIED, "no header") ||
	    !ASSERT_EQ(kw_webconfig_auth(&wc, "Basic cHJvbWV0aGV1czpzM2NyZXQ="), KW_AUTH_OK,
		       "right password") ||
	    !ASSERT_STREQ(wc.users[0].good, "s3cret", "remembered") ||
	    !ASSERT_EQ(kw_webconfig_auth(&wc, "Basic cHJvbWV0aGV1czpzM2NyZXQ="), KW_AUTH_OK,
		       "right password, remembered") ||
	    /* prometheus:s3cre, prometheus:s3cret2, root:s3cret */
	    !ASSERT_EQ(kw_webconfig_auth(&wc, "Basic cHJvbWV0aGV1czpzM2NyZQ=="), KW_AUTH_DENIED,
		       "a prefix of the password") ||
	    !ASSERT_EQ(kw_webconfig_auth(&wc, "Basic cHJvbWV0aGV1czpzM2NyZXQy"), KW_AUTH_DENIED,
		       "the password and more") ||
	    !ASSERT_EQ(kw_webconfig_auth(&wc, "Basic cm9vdDpzM2NyZXQ="), KW_AUTH_DENIED,
		       "unknown user"))
		goto out;
	kw_webconfig_free(&wc);

	/* an empty file: neither TLS nor users; users alone */
	if (!ASSERT_EQ(parse("", &wc, err, sizeof(err)), 0, err) ||
	    !ASSERT_FALSE(wc.tls || wc.nusers, "empty") ||
	    !ASSERT_EQ(kw_webconfig_auth(&wc, NULL), KW_AUTH_OK, "no users: anyone"))
		goto out;
	kw_webconfig_free(&wc);

	if (!refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  cipher_suites: [x]\n",
		     "line 4: tls_server_config.cipher_suites is not supported by kvmwalk "
		     "(cert_file, key_file, client_ca_file, client_auth_type, min_version)") ||
	    !refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  key_file: c\n",
		     "line 4: tls_server_config.key_file given twice") ||
	    !refused("tls_server_config:\n  cert_file: a\n",
		     "line 2: tls_server_config needs cert_file and key_file") ||
	    !refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS10\n",
		     "line 4: min_version is TLS12 or TLS13, not 'TLS10' (TLS 1.0 and 1.1 are not "
		     "offered)") ||
	    !refused("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n",
		     "line 2: client_ca_file without client_auth_type: RequireAndVerifyClientCert "
		     "would check nothing") ||
	    !refused("basic_auth_users:\n  prometheus: s3cret\n",
		     "line 2: user 'prometheus': not a bcrypt hash ($2a$, $2b$ or $2y$) that this "
		     "libcrypt can check") ||
	    !refused("basic_auth_users:\n  prometheus: '$1$abc$def'\n",
		     "line 2: user 'prometheus': not a bcrypt hash ($2a$, $2b$ or $2y$) that this "
		     "libcrypt can check") ||
	    !refused("http_server_config:\n  http2: false\n",
		     "line 1: 'http_server_config' is not supported by kvmwalk (tls_server_config, "
		     "basic_auth_users), or given twice") ||
	    !refused("- a\n- b\n",
		     "line 1: the file is a mapping (tls_server_config, basic_auth_users)") ||
	    !refused("basic_auth_users: [\n", "line 2: did not find expected node content"))
		goto out;
	ok = true;
out:
	kw_webconfig_free(&wc);
	return ok;
}
