// SPDX-License-Identifier: GPL-2.0
/* `serve --textfile`: node_exporter's textfile, replaced whole every interval (textfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"
#include "textfile.h"

struct textfile {
	struct kw_outfile out;
	char *path; /* as given: messages name it */
};

/* The target may be missing or a regular file; a symlink or anything else is refused. */
static int check_target(const struct textfile *t)
{
	struct stat st;

	if (fstatat(t->out.dirfd, t->out.base, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno == ENOENT)
			return 0;
		fprintf(stderr, "kvmwalk serve: %s: %s\n", t->path, strerror(errno));
		return -errno;
	}
	if (S_ISLNK(st.st_mode)) {
		fprintf(stderr, "kvmwalk serve: %s is a symbolic link: refusing to replace it\n",
			t->path);
		return -ELOOP;
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "kvmwalk serve: %s is not a regular file\n", t->path);
		return -EINVAL;
	}
	return 0;
}

static int open_checked(struct textfile *t)
{
	struct stat st;
	int err;

	/* the temporary name does not end in .prom: node_exporter never reads a partial file */
	err = kw_outfile_open(&t->out, t->path);
	if (err == -EINVAL) {
		fprintf(stderr, "kvmwalk serve: --textfile %s names no file\n", t->path);
		return err;
	}
	if (err || fstat(t->out.dirfd, &st)) {
		err = err ?: -errno;
		fprintf(stderr, "kvmwalk serve: --textfile directory %s: %s\n", t->out.dir,
			strerror(-err));
		return err;
	}
	/* Anyone could swap the file under us in a world-writable directory without sticky bit. */
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX)) {
		fprintf(stderr, "kvmwalk serve: %s is world-writable: choose another directory\n",
			t->out.dir);
		return -EPERM;
	}
	return check_target(t);
}

int textfile__open(struct textfile **tp, const char *path)
{
	struct textfile *t = calloc(1, sizeof(*t));
	int err;

	*tp = NULL;
	if (!t || !(t->path = strdup(path))) {
		free(t);
		fprintf(stderr, "kvmwalk serve: out of memory\n");
		return -ENOMEM;
	}
	t->out.dirfd = -1;
	if ((err = open_checked(t))) {
		textfile__close(t);
		return err;
	}
	*tp = t;
	return 0;
}

struct span {
	const char *buf;
	size_t len;
};

static int put_span(FILE *f, void *arg)
{
	const struct span *s = arg;

	return fwrite(s->buf, 1, s->len, f) == s->len ? 0 : -(errno ?: EIO);
}

int textfile__write(struct textfile *t, const char *buf, size_t len)
{
	struct span s = { buf, len };
	int err;

	if ((err = check_target(t)))
		return err;
	/* 0644 whatever the umask: readable by node_exporter, writable by us only */
	err = kw_outfile_replace(&t->out, 0644, 0, put_span, &s);
	if (err)
		fprintf(stderr, "kvmwalk serve: writing %s: %s\n", t->path, strerror(-err));
	return err;
}

void textfile__remove(struct textfile *t)
{
	if (t && t->out.dirfd >= 0)
		unlinkat(t->out.dirfd, t->out.base, 0);
}

void textfile__close(struct textfile *t)
{
	if (!t)
		return;
	kw_outfile_close(&t->out);
	free(t->path);
	free(t);
}
