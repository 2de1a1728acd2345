/* SPDX-License-Identifier: GPL-2.0 */
/*
 * `serve --textfile`: the exposition written for node_exporter's textfile collector, replaced
 * whole every interval (outfile.h). A helper, under the commands: it writes bytes it is given and
 * knows nothing of metrics. Its messages name the path as given on the command line.
 */
#ifndef KW_TEXTFILE_H
#define KW_TEXTFILE_H

#include <stddef.h>

struct textfile;

/*
 * Opens path's directory, while privileged (the directory stays open when they are gone), and
 * checks it: a world-writable directory without the sticky bit is refused, and so is a path that
 * is a symbolic link or not a regular file. Returns 0 and *tp, or -errno (said why; *tp NULL).
 */
int textfile__open(struct textfile **tp, const char *path);

/*
 * Replaces the file with buf: a temporary file in the same directory, mode 0644 whatever the
 * umask, then rename(). The target is checked again first. Returns 0 or -errno (said why).
 */
int textfile__write(struct textfile *t, const char *buf, size_t len);

/* Removes the file: a stale textfile would look like a quiet host. Accepts NULL. */
void textfile__remove(struct textfile *t);

/* Accepts NULL. */
void textfile__close(struct textfile *t);

#endif /* KW_TEXTFILE_H */
