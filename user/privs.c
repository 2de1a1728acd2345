// SPDX-License-Identifier: GPL-2.0
/* Capabilities, --user, no_new_privs: giving up privileges once attached (privs.h). A helper. */
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "privs.h"

int kw_user_parse(const char *name, const char *passwd, uid_t *uid, gid_t *gid)
{
	unsigned long u, g;
	struct passwd *pw;
	char *end;
	FILE *f;

	u = strtoul(name, &end, 10);
	if (end != name && (!*end || *end == ':')) {
		g = *end ? strtoul(end + 1, &end, 10) : u;
		if (*end)
			return -EINVAL;
		*uid = u;
		*gid = g;
		return 0;
	}
	f = fopen(passwd, "r");
	while (f && (pw = fgetpwent(f)))
		if (!strcmp(pw->pw_name, name)) {
			*uid = pw->pw_uid;
			*gid = pw->pw_gid;
			fclose(f);
			return 0;
		}
	if (f)
		fclose(f);
	return -EINVAL;
}

int kw_caps_set(__u64 eff, __u64 prm)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {
		{ (__u32)eff, (__u32)prm, 0 },
		{ (__u32)(eff >> 32), (__u32)(prm >> 32), 0 },
	};

	return syscall(SYS_capset, &hdr, data) ? -errno : 0;
}

int kw_privs_drop(const char *user, uid_t uid, gid_t gid, __u64 keep, bool verbose)
{
	int err;

	/* Keep the permitted set across setuid() until capset() below empties it. */
	if (user && prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0))
		return -errno;
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	for (int cap = 0; cap <= 63; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) && errno != EINVAL && verbose)
			fprintf(stderr,
				"kvmwalk serve: cannot drop capability %d from the bounding "
				"set: %s\n",
				cap, strerror(errno));
	if (user) {
		if (setgroups(0, NULL) || setgid(gid) || setuid(uid)) {
			err = -errno;
			fprintf(stderr, "kvmwalk serve: cannot become %s (%u:%u): %s\n", user,
				(unsigned)uid, (unsigned)gid, strerror(-err));
			return err;
		}
	}
	if ((err = kw_caps_set(0, keep)) && (err = kw_caps_set(0, 0))) {
		fprintf(stderr, "kvmwalk serve: capset: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

int kw_privs_seal(void)
{
	prctl(PR_SET_KEEPCAPS, 0, 0, 0, 0);
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ? -errno : 0;
}

static void status_line(const char *key, char *dst, size_t len)
{
	char line[256];
	FILE *f = fopen("/proc/self/status", "r");

	snprintf(dst, len, "?");
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key))) {
			snprintf(dst, len, "%s", line + strlen(key));
			dst[strcspn(dst, "\n")] = '\0';
			break;
		}
	if (f)
		fclose(f);
}

void kw_privs_describe(char *dst, size_t len)
{
	char eff[32], prm[32], bnd[32];

	status_line("CapEff:\t", eff, sizeof(eff));
	status_line("CapPrm:\t", prm, sizeof(prm));
	status_line("CapBnd:\t", bnd, sizeof(bnd));
	snprintf(dst, len, "uid %u gid %u, CapEff %s CapPrm %s CapBnd %s", (unsigned)getuid(),
		 (unsigned)getgid(), eff, prm, bnd);
}
