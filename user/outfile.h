/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Files replaced whole, never seen half-written: the content goes to a temporary file in the same
 * directory (".NAME.PID.tmp": hidden, and matching no pattern NAME matches, such as node_exporter's
 * *.prom), which is renamed over NAME once it is complete. A failed write (a full disk) removes
 * the temporary file and leaves NAME as it was. Used by `record -o` (and its checkpoints),
 * `serve --textfile`, `compare --output` and `--plot`, `report --plot`.
 */
#ifndef KW_OUTFILE_H
#define KW_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct kw_outfile {
	int dirfd; /* the directory, opened once: a later rename of a parent cannot redirect us */
	char dir[4096];
	char base[256];
	char tmp[300];
	bool kept_old; /* set by kw_outfile_replace(): the previous NAME is now NAME.old */
	bool tmp_left; /* set by kw_outfile_replace(): complete, but could not be renamed */
};

enum {
	KW_OUTFILE_SYNC = 1, /* fsync the file before the rename and the directory after */
	KW_OUTFILE_KEEP_OLD =
		2, /* a previous NAME becomes NAME.old (as perf keeps perf.data.old) */
};

/*
 * Splits path into its directory and name, opens the directory and checks that files can be
 * created in it (access(2) W_OK|X_OK). Returns 0, -EINVAL if path names no file ("dir/", ".."),
 * or the -errno of opening or accessing the directory (o->dir names it). o->dirfd is -1 on
 * failure; kw_outfile_close() accepts either.
 */
int kw_outfile_open(struct kw_outfile *o, const char *path);

/*
 * Writes NAME through fill(f, arg), which returns 0 or -errno: into the temporary file, with
 * mode, then renamed over NAME. A device or FIFO (/dev/null) cannot be renamed over and is
 * written in place; a directory is -EISDIR. Returns 0 or -errno; on failure NAME is untouched
 * and the temporary file removed, unless it was complete and only the rename failed with
 * KW_OUTFILE_KEEP_OLD (a recording is never thrown away): then o->tmp_left says it is still there.
 */
int kw_outfile_replace(struct kw_outfile *o, mode_t mode, unsigned int flags,
		       int (*fill)(FILE *f, void *arg), void *arg);

void kw_outfile_close(struct kw_outfile *o);

/*
 * The three steps at once, for a file written at the end of a command (compare --output and
 * --plot, report --plot): NAME replaced whole with the mode fopen(path, "w") gives, flags as
 * kw_outfile_replace()'s. Returns 0 or -errno; on failure NAME is as it was and no temporary file
 * is left. *kept_old (if not NULL): the previous NAME is now NAME.old.
 */
int kw_outfile_write(const char *path, unsigned int flags, int (*fill)(FILE *f, void *arg),
		     void *arg, bool *kept_old);

#endif /* KW_OUTFILE_H */
