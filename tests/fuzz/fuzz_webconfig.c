// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: what serve's --web.config.file (webconfig.h) takes from outside. The first
 * byte picks the input: an Authorization header, which any peer of the exporter sends (decoded,
 * then checked against a user at bcrypt's lowest cost only when it decodes to that user, to
 * keep the fuzzer fast), or a web configuration file. Neither may crash, leak or read out of
 * bounds.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "webconfig.h"

/* "s3cret" at cost 4 */
#define HASH "$2b$04$2vSOVhMmehxTBr/bqo/9DexdNwASI8bVfSbVdF5RweGg7lcdDJ9p2"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kw_webconfig wc;
	char err[256], user[256], pass[256];
	char *s;

	if (!size)
		return 0;
	s = malloc(size);
	if (!s)
		return 0;
	memcpy(s, data + 1, size - 1);
	s[size - 1] = '\0';
	if (data[0] & 1) {
		kw_webconfig_parse(s, size - 1, "/etc/kvmwalk", &wc, err, sizeof(err));
		kw_webconfig_free(&wc);
	} else if (!kw_basic_auth_decode(s, user, sizeof(user), pass, sizeof(pass)) &&
		   !strcmp(user, "p")) {
		static const char yaml[] = "basic_auth_users:\n  p: '" HASH "'\n";

		if (!kw_webconfig_parse(yaml, sizeof(yaml) - 1, NULL, &wc, err, sizeof(err)))
			kw_webconfig_auth(&wc, s);
		kw_webconfig_free(&wc);
	}
	free(s);
	return 0;
}
