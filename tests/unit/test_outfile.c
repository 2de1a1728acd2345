// SPDX-License-Identifier: GPL-2.0
/*
 * Files replaced whole (outfile.h), as compare --output and --plot and report --plot write them:
 * a failed write leaves the previous file whole and no temporary file; a previous file
 * is kept as FILE.old; a device (/dev/full) is written in place and its ENOSPC is the error, also
 * for a printer that ignores its writes' results.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "host.h"
#include "outfile.h"

static int put_text(FILE *f, void *arg)
{
	fputs(arg, f);
	return 0;
}

/* A printer that fails half-way as one on a full disk would, and says only -EIO. */
static int put_then_fail(FILE *f, void *arg)
{
	fputs(arg, f);
	return -EIO;
}

/* The names in dir, sorted, space-separated (hidden ones too: a temporary file shows). */
static void names(const char *dir, char *buf, size_t len)
{
	struct dirent **e;
	int n = scandir(dir, &e, NULL, alphasort);
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < n; i++) {
		if (strcmp(e[i]->d_name, ".") && strcmp(e[i]->d_name, ".."))
			used += snprintf(buf + used, used < len ? len - used : 0, "%s ",
					 e[i]->d_name);
		free(e[i]);
	}
	free(e);
}

static bool has(const char *path, const char *want)
{
	char *s = kw_read_file(path);
	bool ok = s && !strcmp(s, want);

	free(s);
	return ok;
}

void test_outfile(void)
{
	char dir[] = "/tmp/kvmwalk-test-outfile.XXXXXX", path[64], old[80], ls[256];
	bool kept = true;
	FILE *f;

	if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp"))
		return;
	snprintf(path, sizeof(path), "%s/out.txt", dir);
	snprintf(old, sizeof(old), "%s.old", path);

	/* a new file: written, nothing kept */
	ASSERT_EQ(kw_outfile_write(path, KW_OUTFILE_KEEP_OLD, put_text, "first\n", &kept), 0,
		  "new file");
	ASSERT_FALSE(kept, "nothing to keep");
	ASSERT_TRUE(has(path, "first\n"), "new file: content");

	/* a failed write: the previous file whole, no temporary, no .old */
	ASSERT_EQ(kw_outfile_write(path, KW_OUTFILE_KEEP_OLD, put_then_fail, "half", &kept), -EIO,
		  "failed write");
	ASSERT_TRUE(has(path, "first\n"), "failed write: previous file whole");
	names(dir, ls, sizeof(ls));
	ASSERT_STREQ(ls, "out.txt ", "failed write: no temporary file, no .old");

	/* a second write keeps the first as FILE.old */
	ASSERT_EQ(kw_outfile_write(path, KW_OUTFILE_KEEP_OLD, put_text, "second\n", &kept), 0,
		  "replace");
	ASSERT_TRUE(kept, "kept the previous file");
	ASSERT_TRUE(has(path, "second\n"), "replace: content");
	ASSERT_TRUE(has(old, "first\n"), "replace: FILE.old is the previous file");
	names(dir, ls, sizeof(ls));
	ASSERT_STREQ(ls, "out.txt out.txt.old ", "replace: no temporary file");

	/* a device is written in place; a full one is ENOSPC, not success */
	if ((f = fopen("/dev/full", "w"))) {
		char big[70000];

		fclose(f);
		memset(big, 'x', sizeof(big) - 1);
		big[sizeof(big) - 1] = 0;
		ASSERT_EQ(kw_outfile_write("/dev/full", KW_OUTFILE_KEEP_OLD, put_text, big, &kept),
			  -ENOSPC, "/dev/full");
		ASSERT_EQ(kw_outfile_write("/dev/full", 0, put_text, "short\n", NULL), -ENOSPC,
			  "/dev/full, a write that fits the buffer");
	}

	/* a directory that does not exist */
	ASSERT_EQ(kw_outfile_write("/nonexistent-kvmwalk/x", 0, put_text, "x", NULL), -ENOENT,
		  "no directory");
	unlink(old);
	unlink(path);
	rmdir(dir);
}
