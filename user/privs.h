/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Giving up privileges once the probes are attached (serve): the capability sets, --user's uid
 * and gid, no_new_privs. A helper (the bottom layer): plain functions on the process itself,
 * no libbpf; kw_user_parse() takes the passwd file's path, so it is unit-tested without
 * /etc/passwd. Capabilities are per thread: call these before any thread exists.
 */
#ifndef KW_PRIVS_H
#define KW_PRIVS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include <linux/capability.h>
#include <linux/types.h>

/* A capability as a bit of the masks kw_caps_set() takes. */
#define KW_CAP(cap) (1ULL << (cap))

/*
 * NAME, looked up in passwd (a file in /etc/passwd's format, read directly: no NSS in a static
 * binary), or UID[:GID] (GID defaults to UID). Returns 0, or -EINVAL for a name passwd does not
 * have (or cannot be read); prints nothing.
 */
int kw_user_parse(const char *name, const char *passwd, uid_t *uid, gid_t *gid);

/*
 * Empties the ambient and bounding sets (verbose: says which bounding capability could not be
 * dropped); with user (NULL: stay who we are), drops the supplementary groups and becomes
 * uid:gid, keeping the permitted set across setuid(); then nothing is effective and only keep
 * stays permitted (nothing at all if capset() refuses that). Returns 0 or -errno; a failure to
 * become user or to capset() is printed.
 */
int kw_privs_drop(const char *user, uid_t uid, gid_t gid, __u64 keep, bool verbose);

/* capset(2) of the calling thread: the effective and permitted sets as masks. 0 or -errno. */
int kw_caps_set(__u64 eff, __u64 prm);

/*
 * Ends a kw_privs_drop(): permitted capabilities no longer survive a setuid() (keepcaps off),
 * and execve() can grant none (no_new_privs). Returns 0 or -errno.
 */
int kw_privs_seal(void);

/* "uid U gid G, CapEff E CapPrm P CapBnd B", the sets as /proc/self/status shows them. */
void kw_privs_describe(char *dst, size_t len);

#endif /* KW_PRIVS_H */
