// SPDX-License-Identifier: GPL-2.0
/*
 * serve --textfile (textfile.h): what is refused at open and at each write, with serve's
 * message; the content, replaced whole, mode 0644 whatever the umask; the removal at exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test.h"
#include "host.h"
#include "textfile.h"

/* stderr goes to a file from quiet() to said(), which returns what was written there. */
static char said_path[64];
static int saved_stderr = -1;

static void quiet(void)
{
	int fd;

	snprintf(said_path, sizeof(said_path), "/tmp/kw-test-textfile-err.XXXXXX");
	fd = mkstemp(said_path);
	fflush(stderr);
	saved_stderr = dup(STDERR_FILENO);
	dup2(fd, STDERR_FILENO);
	close(fd);
}

static char *said(void)
{
	char *s;

	fflush(stderr);
	dup2(saved_stderr, STDERR_FILENO);
	close(saved_stderr);
	s = kw_read_file(said_path);
	unlink(said_path);
	return s;
}

static void expect_refused(const char *path, int err, const char *msg)
{
	struct textfile *t = NULL;
	char *s;

	quiet();
	ASSERT_EQ(textfile__open(&t, path), err, path);
	s = said();
	ASSERT_STREQ(s, msg, "message");
	ASSERT_TRUE(!t, "no textfile");
	textfile__close(t);
	free(s);
}

void test_textfile(void)
{
	char dir[] = "/tmp/kw-test-textfile.XXXXXX", open_dir[64], path[128], msg[256], *s;
	struct textfile *t = NULL;
	mode_t umask_was = umask(077);
	struct stat st;

	if (!ASSERT_TRUE(mkdtemp(dir), "mkdtemp"))
		goto out;
	snprintf(path, sizeof(path), "%s/kvmwalk.prom", dir);

	/* written whole, 0644 whatever the umask */
	if (!ASSERT_EQ(textfile__open(&t, path), 0, "open"))
		goto out;
	ASSERT_EQ(textfile__write(t, "a 1\n", 4), 0, "write");
	ASSERT_EQ(textfile__write(t, "b 2\n", 4), 0, "write again");
	s = kw_read_file(path);
	ASSERT_STREQ(s, "b 2\n", "replaced whole");
	free(s);
	ASSERT_EQ(stat(path, &st), 0, "stat");
	ASSERT_EQ(st.st_mode & 07777, 0644, "mode");

	/* a symbolic link planted after the open: refused at the next write, and left alone */
	unlink(path);
	ASSERT_EQ(symlink("/etc/hostname", path), 0, "symlink");
	snprintf(msg, sizeof(msg), "kvmwalk serve: %s is a symbolic link: refusing to replace it\n",
		 path);
	quiet();
	ASSERT_EQ(textfile__write(t, "c 3\n", 4), -ELOOP, "write over a symlink");
	s = said();
	ASSERT_STREQ(s, msg, "symlink message");
	free(s);
	ASSERT_EQ(lstat(path, &st), 0, "lstat");
	ASSERT_TRUE(S_ISLNK(st.st_mode), "still the link");
	expect_refused(path, -ELOOP, msg);
	unlink(path);

	/* removed at exit */
	ASSERT_EQ(textfile__write(t, "d 4\n", 4), 0, "write");
	textfile__remove(t);
	ASSERT_TRUE(access(path, F_OK) && errno == ENOENT, "removed");
	textfile__close(t);
	t = NULL;
	textfile__remove(NULL);
	textfile__close(NULL);

	/* what open refuses */
	ASSERT_EQ(mkdir(path, 0755), 0, "mkdir");
	snprintf(msg, sizeof(msg), "kvmwalk serve: %s is not a regular file\n", path);
	expect_refused(path, -EINVAL, msg);
	rmdir(path);
	snprintf(path, sizeof(path), "%s/", dir);
	snprintf(msg, sizeof(msg), "kvmwalk serve: --textfile %s names no file\n", path);
	expect_refused(path, -EINVAL, msg);
	expect_refused("/nonexistent/dir/k.prom", -ENOENT,
		       "kvmwalk serve: --textfile directory /nonexistent/dir: No such file or "
		       "directory\n");
	/* a world-writable directory, unless sticky (as /tmp) */
	snprintf(open_dir, sizeof(open_dir), "%s/open", dir);
	ASSERT_EQ(mkdir(open_dir, 0777), 0, "mkdir");
	ASSERT_EQ(chmod(open_dir, 0777), 0, "chmod");
	snprintf(path, sizeof(path), "%s/kvmwalk.prom", open_dir);
	snprintf(msg, sizeof(msg),
		 "kvmwalk serve: %s is world-writable: choose another directory\n", open_dir);
	expect_refused(path, -EPERM, msg);
	ASSERT_EQ(chmod(open_dir, 01777), 0, "chmod +t");
	ASSERT_EQ(textfile__open(&t, path), 0, "sticky: accepted");
	textfile__close(t);
	rmdir(open_dir);
out:
	umask(umask_was);
	rmdir(dir);
}
