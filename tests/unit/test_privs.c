// SPDX-License-Identifier: GPL-2.0
/* serve --user: a name from a passwd file, or UID[:GID] (privs.h). */
#include <errno.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "privs.h"

static void expect_user(const char *name, const char *passwd, uid_t want_uid, gid_t want_gid)
{
	uid_t uid = 1;
	gid_t gid = 1;

	if (!ASSERT_EQ(kw_user_parse(name, passwd, &uid, &gid), 0, name))
		return;
	ASSERT_EQ(uid, want_uid, name);
	ASSERT_EQ(gid, want_gid, name);
}

static void expect_bad(const char *name, const char *passwd)
{
	uid_t uid = 1;
	gid_t gid = 1;

	ASSERT_EQ(kw_user_parse(name, passwd, &uid, &gid), -EINVAL, name);
}

void test_privs(void)
{
	char path[] = "/tmp/kw-test-passwd.XXXXXX";
	const char text[] = "root:x:0:0:root:/root:/bin/bash\n"
			    "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
			    "prometheus:x:112:119::/var/lib/prometheus:/usr/sbin/nologin\n";
	int fd = mkstemp(path);

	if (!ASSERT_TRUE(fd >= 0, "mkstemp"))
		return;
	ASSERT_EQ(write(fd, text, sizeof(text) - 1), sizeof(text) - 1, "write");
	close(fd);

	expect_user("nobody", path, 65534, 65534);
	expect_user("prometheus", path, 112, 119);
	expect_user("root", path, 0, 0);
	expect_bad("nob", path);	  /* a prefix is no name */
	expect_bad("prometheus2", path);
	expect_bad("", path);

	/* numbers are taken as they are, with or without the file */
	expect_user("1000", path, 1000, 1000);
	expect_user("1000:27", path, 1000, 27);
	expect_user("65534", "/nonexistent/passwd", 65534, 65534);
	expect_bad("12:abc", path);
	expect_bad("12x", path);
	expect_bad(":12", path);

	unlink(path);
	expect_bad("nobody", path); /* an unreadable file has no names */
}
