// SPDX-License-Identifier: GPL-2.0
/* Files replaced whole: a temporary file in the same directory, then rename(2) (outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "outfile.h"

int kw_outfile_open(struct kw_outfile *o, const char *path)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	int err;

	memset(o, 0, sizeof(*o));
	o->dirfd = -1;
	if (slash)
		snprintf(o->dir, sizeof(o->dir), "%.*s", slash == path ? 1 : (int)(slash - path),
			 path);
	else
		snprintf(o->dir, sizeof(o->dir), ".");
	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EINVAL;
	if (strlen(base) >= sizeof(o->base))
		return -ENAMETOOLONG;
	snprintf(o->base, sizeof(o->base), "%s", base);
	snprintf(o->tmp, sizeof(o->tmp), ".%s.%d.tmp", o->base, (int)getpid());
	o->dirfd = open(o->dir, O_DIRECTORY | O_RDONLY | O_CLOEXEC);
	if (o->dirfd < 0)
		return -errno;
	/* as access(2): the real uid, so a set-uid wrapper cannot write where its user cannot */
	if (faccessat(o->dirfd, ".", W_OK | X_OK, 0)) {
		err = -errno;
		kw_outfile_close(o);
		return err;
	}
	return 0;
}

void kw_outfile_close(struct kw_outfile *o)
{
	if (o && o->dirfd >= 0)
		close(o->dirfd);
	if (o)
		o->dirfd = -1;
}

/* Runs fill on f and closes it: 0, or the first -errno of fill, the flush, fsync or close. */
static int fill_and_close(FILE *f, bool sync, int (*fill)(FILE *f, void *arg), void *arg)
{
	int err, write_errno;

	errno = 0;
	err = fill(f, arg);
	write_errno = errno;
	/*
	 * A printer says -EIO for any failed write, or nothing when it ignores fprintf's result:
	 * the flush's errno, or the failed write's (ENOSPC), says more.
	 */
	if (fflush(f))
		err = err && err != -EIO ? err : -errno;
	if ((!err || err == -EIO) && ferror(f))
		err = write_errno ? -write_errno : -EIO;
	if (!err && sync && fsync(fileno(f)))
		err = -errno;
	if (fclose(f))
		err = err ?: -errno;
	return err;
}

/* A device or FIFO: written through, as fopen(path, "w") would. */
static int write_in_place(struct kw_outfile *o, int (*fill)(FILE *f, void *arg), void *arg)
{
	int fd = openat(o->dirfd, o->base, O_WRONLY | O_TRUNC | O_CLOEXEC);
	FILE *f;

	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		close(fd);
		return -ENOMEM;
	}
	return fill_and_close(f, false, fill, arg);
}

/*
 * NAME.old becomes the file NAME is now. A hard link: NAME itself stays until the rename over it,
 * so no moment is without one. Where the file system has no hard links, NAME is renamed instead.
 */
static int keep_old(struct kw_outfile *o)
{
	char old[sizeof(o->base) + 4], tmp[sizeof(o->tmp) + 4];
	int err = 0;

	snprintf(old, sizeof(old), "%s.old", o->base);
	snprintf(tmp, sizeof(tmp), ".%s.old.%d.tmp", o->base, (int)getpid());
	unlinkat(o->dirfd, tmp, 0);
	if (!linkat(o->dirfd, o->base, o->dirfd, tmp, 0)) {
		if (renameat(o->dirfd, tmp, o->dirfd, old)) {
			err = -errno;
			unlinkat(o->dirfd, tmp, 0);
		}
	} else if (errno == EPERM || errno == EOPNOTSUPP || errno == EMLINK || errno == ENOSYS) {
		if (renameat(o->dirfd, o->base, o->dirfd, old))
			err = -errno;
	} else {
		err = -errno;
	}
	o->kept_old = !err;
	return err;
}

int kw_outfile_replace(struct kw_outfile *o, mode_t mode, unsigned int flags,
		       int (*fill)(FILE *f, void *arg), void *arg)
{
	bool exists, complete = false;
	struct stat st;
	FILE *f;
	int fd, err;

	o->kept_old = o->tmp_left = false;
	exists = !fstatat(o->dirfd, o->base, &st, AT_SYMLINK_NOFOLLOW);
	if (!exists && errno != ENOENT)
		return -errno;
	if (exists && S_ISDIR(st.st_mode))
		return -EISDIR;
	/* a symbolic link is replaced (and kept as NAME.old): what it points to is left alone */
	if (exists && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode))
		return write_in_place(o, fill, arg);
	/* O_EXCL|O_NOFOLLOW: a file or link planted under the temporary name is never followed */
	unlinkat(o->dirfd, o->tmp, 0);
	fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	/* the mode asked for, whatever the umask */
	if (fchmod(fd, mode) || !(f = fdopen(fd, "w"))) {
		err = -errno;
		close(fd);
		goto cleanup;
	}
	err = fill_and_close(f, flags & KW_OUTFILE_SYNC, fill, arg);
	if (err)
		goto cleanup;
	complete = true;
	if (exists && (flags & KW_OUTFILE_KEEP_OLD) && (err = keep_old(o)))
		goto cleanup;
	if (renameat(o->dirfd, o->tmp, o->dirfd, o->base)) {
		err = -errno;
		goto cleanup;
	}
	if (flags & KW_OUTFILE_SYNC)
		fsync(o->dirfd);
cleanup:
	if (err && complete && (flags & KW_OUTFILE_KEEP_OLD))
		o->tmp_left = true;
	else if (err)
		unlinkat(o->dirfd, o->tmp, 0);
	return err;
}

int kw_outfile_write(const char *path, unsigned int flags, int (*fill)(FILE *f, void *arg),
		     void *arg, bool *kept_old)
{
	struct kw_outfile o;
	mode_t umask_now = umask(0);
	int err;

	umask(umask_now);
	if (kept_old)
		*kept_old = false;
	err = kw_outfile_open(&o, path);
	/* the mode fopen(path, "w") would give */
	if (!err)
		err = kw_outfile_replace(&o, 0666 & ~umask_now, flags, fill, arg);
	if (kept_old)
		*kept_old = o.kept_old;
	/* only the rename failed: a report can be made again, unlike a recording */
	if (err && o.tmp_left)
		unlinkat(o.dirfd, o.tmp, 0);
	kw_outfile_close(&o);
	return err;
}
