// SPDX-License-Identifier: GPL-2.0
/*
 * Reading KVM's per-VM statistics (kvmstats_read.h). Layer: helpers.
 *
 * Debugfs first: /sys/kernel/debug/kvm/TID-FD/NAME (kvm_create_vm_debugfs()), one folder per
 * VM, one text file per statistic, the VM's vCPUs already summed by KVM
 * (kvm_get_stat_per_vcpu()). It takes nothing from the VMM, covers every VM of the host, and
 * the kvm folder, opened while kvmwalk is root, stays readable after serve drops its privileges
 * (the folders are 0755, the files 0444 or 0644).
 *
 * Binary stats (KVM_GET_STATS_FD) are the fallback, and only through the stats fds a VMM holds
 * itself: KVM refuses every VM and vCPU ioctl from a process other than the VM's creator
 * (kvm_vm_ioctl(): kvm->mm != current->mm is -EIO), so a VM fd taken with pidfd_getfd() cannot
 * make one; the stats file's read() checks nothing. QEMU keeps one per vCPU since 8.1
 * (kvm_init_vcpu(): cpu->kvm_vcpu_stats_fd) and none for the VM; kvmwalk-load --hold keeps both.
 * They are taken with pidfd_getfd() (5.6+; ptrace access to the VMM: root, and Yama's
 * ptrace_scope 3 refuses even root), for the time of one read. auto reads them for what debugfs
 * cannot give: everything where debugfs is off (debugfs=off, not mountable), and the cumulative
 * statistics where it refuses them: lockdown=integrity (LOCKDOWN_DEBUGFS) lets only files of
 * mode 0444 open, the instant ones (pages_4k, ...), and logs each refusal, so a refused file is
 * never asked again.
 *
 * Either read holds a reference on the VM for a moment (kvm_get_kvm_safe() in the debugfs open,
 * the duplicated stats file): a VMM that drops its last one then leaves kvm_destroy_vm() to
 * kvmwalk's close. Reads are rare (the start, the end, every 0.5 s), each a few dozen files.
 *
 * A VM is named as in debugfs, TID-FD: the thread that called KVM_CREATE_VM (the VMM's main
 * thread for QEMU and kvmwalk-load) and the fd it got. Its process is TID's Tgid, 0 when that
 * thread has exited. A binary stats id says only "kvm-TID" ("kvm-TID/vcpu-N" for a vCPU): its
 * statistics go to the VM of that process whose folder starts with TID- (two VMs created by one
 * thread cannot be told apart: the binary stats go to neither), and without debugfs to
 * "TID-FD" when the process has one VM fd, else "TID-?".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "kvmstats_read.h"

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_getfd
#define SYS_pidfd_getfd 438
#endif
/* _IO(KVMIO, 0xce), as the uapi since 5.14 */
#define KW_KVM_GET_STATS_FD 0xaece
#define KW_DEBUGFS_MAGIC 0x64626720

int kw_kvmstats_mode_parse(const char *s, enum kw_kvmstats_mode *m)
{
	static const char *const names[] = { "auto", "debugfs", "binary", "off" };

	for (int i = 0; i < 4; i++)
		if (!strcmp(s, names[i])) {
			*m = i;
			return 0;
		}
	return -EINVAL;
}

/* ---- debugfs --------------------------------------------------------------------------------- */

/* The statistics of the kvm folder: its regular files (kvm_init_debug(): one per statistic). */
static int load_names(struct kw_kvmstats_reader *rd)
{
	int fd = openat(rd->dirfd, ".", O_RDONLY | O_DIRECTORY);
	struct dirent *e;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while ((e = readdir(d))) {
		enum kw_kvm_stat_type type;
		struct kw_ks_name *p;
		struct stat st;

		if (fstatat(rd->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) ||
		    !S_ISREG(st.st_mode) ||
		    !kw_kvmstats_debugfs_stat(e->d_name, st.st_mode & 0777, &type))
			continue;
		p = realloc(rd->names, (rd->nnames + 1) * sizeof(*p));
		if (!p)
			break;
		rd->names = p;
		p = &rd->names[rd->nnames++];
		memset(p, 0, sizeof(*p));
		snprintf(p->name, sizeof(p->name), "%.*s", KW_KVM_STAT_NAME - 1, e->d_name);
		p->type = type;
	}
	closedir(d);
	return rd->nnames ? 0 : -ENOENT;
}

static bool is_debugfs(const char *path)
{
	struct statfs s;

	return !statfs(path, &s) && (unsigned long)s.f_type == KW_DEBUGFS_MAGIC;
}

static int open_debugfs(struct kw_kvmstats_reader *rd, bool may_mount)
{
	char debug[192], kvm[200];

	snprintf(debug, sizeof(debug), "%s/sys/kernel/debug", rd->sys);
	snprintf(kvm, sizeof(kvm), "%s/kvm", debug);
	rd->dirfd = open(kvm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	/*
	 * Not mounted: as systemd's sys-kernel-debug.mount does, and left mounted (tracefs.c says
	 * why). A fake tree (the tests) is never mounted over.
	 */
	if (rd->dirfd < 0 && errno == ENOENT && may_mount && !rd->sys[0] && !is_debugfs(debug)) {
		if (!mount("debugfs", debug, "debugfs", 0, NULL))
			rd->mounted = true;
		rd->dirfd = open(kvm, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	}
	if (rd->dirfd < 0) {
		int err = -errno;

		snprintf(
			rd->why, sizeof(rd->why), "no %s: %s%s", kvm, strerror(-err),
			err == -ENOENT && !rd->sys[0] && !is_debugfs(debug)
				? " (debugfs not mounted: mount -t debugfs nodev /sys/kernel/debug)"
				: "");
		return err;
	}
	if (load_names(rd)) {
		snprintf(rd->why, sizeof(rd->why), "%s holds no statistics", kvm);
		close(rd->dirfd);
		rd->dirfd = -1;
		return -ENOENT;
	}
	return 0;
}

/* The process of thread tid (SYS/proc/TID/status Tgid), 0 if it is gone. */
static __u32 tgid_of(const struct kw_kvmstats_reader *rd, __u32 tid)
{
	char path[224], line[128];
	unsigned int tgid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/%u/status", rd->sys, tid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %u", &tgid) == 1)
			break;
	fclose(f);
	return tgid;
}

/* 0, -ENOENT (the VM is going: keep its last read), -EPERM (debugfs refuses), -errno */
static int read_file(int dirfd, const char *rel, __u64 *v)
{
	char buf[32];
	ssize_t n;
	int fd = openat(dirfd, rel, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = 0;
	return kw_kvmstats_parse_value(buf, v);
}

static unsigned int read_gen;

static struct kw_kvm_vm *seen(struct kw_kvmstats *ks, const char *id, __u64 key, double t,
			      enum kw_kvmstats_when when)
{
	struct kw_kvm_vm *v = NULL;

	for (size_t i = 0; i < ks->nvms && !v; i++)
		if (!strcmp(ks->vms[i].id, id) && ks->vms[i].key == key)
			v = &ks->vms[i];
	if (!v) {
		v = kw_kvmstats_vm(ks, id, key);
		if (!v)
			return NULL;
		v->at_start = when == KW_KSR_START;
		v->first_t = t;
	}
	v->last_t = t;
	v->ended = false;
	v->gen = read_gen;
	return v;
}

static int put(struct kw_kvm_vm *v, const char *name, enum kw_kvm_stat_type type, __u64 val,
	       enum kw_kvmstats_when when)
{
	size_t n = v->nstats;
	struct kw_kvm_stat *s = kw_kvm_vm_stat(v, name, type);

	if (!s)
		return -ENOMEM;
	/* new: its start is now at the start, else 0 (a vCPU created since starts at 0 too) */
	if (v->nstats > n)
		s->start = when == KW_KSR_START ? val : 0;
	s->end = val;
	return 0;
}

static int read_debugfs(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t,
			enum kw_kvmstats_when when)
{
	int fd = openat(rd->dirfd, ".", O_RDONLY | O_DIRECTORY);
	struct dirent *e;
	int err = 0;
	DIR *d;

	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -errno;
	}
	while (!err && (e = readdir(d))) {
		struct kw_kvm_vm tmp = {}, *v;
		__u32 tid, vfd;
		struct stat st;
		size_t i;

		if (kw_kvmstats_parse_dirname(e->d_name, &tid, &vfd) ||
		    fstatat(rd->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) || !S_ISDIR(st.st_mode))
			continue;
		/* read into tmp first: a VM that goes away meanwhile keeps its last whole read */
		for (i = 0; i < rd->nnames && !err; i++) {
			char rel[2 * KW_KVM_STAT_NAME + 32];
			__u64 val;
			int r;

			if (rd->names[i].refused)
				continue;
			snprintf(rel, sizeof(rel), "%.31s/%.47s", e->d_name, rd->names[i].name);
			r = read_file(rd->dirfd, rel, &val);
			if (r == -EPERM || r == -EACCES) {
				/* lockdown: never again (it logs each); binary fills in */
				rd->names[i].refused = true;
				rd->nrefused++;
				snprintf(rd->why, sizeof(rd->why),
					 "debugfs refused %zu of its %zu statistics (%s: kernel "
					 "lockdown lets only the 0444 files open)",
					 rd->nrefused, rd->nnames, strerror(-r));
			} else if (r == -ENOENT) {
				/* folder gone: the VM is being destroyed; else a file is */
				if (fstatat(rd->dirfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW))
					break;
			} else if (!r && put(&tmp, rd->names[i].name, rd->names[i].type, val,
					     KW_KSR_START)) {
				err = -ENOMEM;
			}
		}
		if (err || i < rd->nnames) {
			free(tmp.stats);
			continue;
		}
		v = seen(ks, e->d_name, st.st_ino, t, when);
		if (!v) {
			free(tmp.stats);
			err = -ENOMEM;
			break;
		}
		if (!v->pid)
			v->pid = tgid_of(rd, tid);
		snprintf(v->source, sizeof(v->source), "debugfs");
		for (i = 0; i < tmp.nstats && !err; i++)
			err = put(v, tmp.stats[i].name, tmp.stats[i].type, tmp.stats[i].end, when);
		free(tmp.stats);
	}
	closedir(d);
	return err;
}

/* ---- binary stats ---------------------------------------------------------------------------- */

static int bin_put(void *arg, const char *name, enum kw_kvm_stat_type type, __u64 v)
{
	struct kw_kvm_vm *vm = arg;
	struct kw_kvm_stat *s = kw_kvm_vm_stat(vm, name, type);

	if (!s)
		return -ENOMEM;
	s->end += v; /* vCPUs summed, as debugfs does */
	return 0;
}

/* One stats fd of the process pidfd into acc, its stats id into id. */
static int read_stats_fd(int pidfd, int fd, struct kw_kvm_vm *acc, char *id, size_t idlen)
{
	size_t len = 0, cap = 0;
	char *buf = NULL;
	int sfd, err;
	ssize_t n;

	sfd = syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	if (sfd < 0)
		return -errno;
	do {
		if (len + 4096 > cap) {
			char *p = realloc(buf, cap = cap ? 2 * cap : 16384);

			if (!p) {
				err = -ENOMEM;
				goto out;
			}
			buf = p;
		}
		n = pread(sfd, buf + len, cap - len, len);
		if (n < 0) {
			err = -errno;
			goto out;
		}
		len += n;
	} while (n > 0 && len < (1 << 20));
	err = kw_kvmstats_parse_binary(buf, len, id, idlen, bin_put, acc);
out:
	free(buf);
	close(sfd);
	return err;
}

/* The KVM files of a process: VM fds, and the stats fds of its VMs and vCPUs. */
struct proc_fds {
	int *fd;
	char *kind; /* 'v' VM, 's' VM stats, 'c' vCPU stats */
	int n;
};

static int scan_fds(const char *fddir, struct proc_fds *p)
{
	DIR *d = opendir(fddir);
	struct dirent *e;
	int nstats = 0;

	memset(p, 0, sizeof(*p));
	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char link[64], kind;
		ssize_t n;
		int *f;
		char *k;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		/* anon_inode_getfile() names: "kvm-vm", "kvm-vm-stats", "kvm-vcpu-stats:%d" */
		if (!strcmp(link, "anon_inode:kvm-vm"))
			kind = 'v';
		else if (!strcmp(link, "anon_inode:kvm-vm-stats"))
			kind = 's';
		else if (!strncmp(link, "anon_inode:kvm-vcpu-stats:", 26))
			kind = 'c';
		else
			continue;
		f = realloc(p->fd, (p->n + 1) * sizeof(*f));
		if (f)
			p->fd = f;
		k = realloc(p->kind, p->n + 1);
		if (k)
			p->kind = k;
		if (!f || !k)
			break;
		p->fd[p->n] = atoi(e->d_name);
		p->kind[p->n++] = kind;
		nstats += kind != 'v';
	}
	closedir(d);
	return nstats;
}

/* /proc/PID/stat's starttime: with the pid, what tells a VM from a later one */
static __u64 start_time(const char *sys, unsigned int pid)
{
	char path[224], buf[1024], *p;
	unsigned long long st = 0;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/%u/stat", sys, pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	/* after "(comm) ": state is field 3, starttime field 22 */
	if (p && sscanf(p + 2,
			"%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d "
			"%*d %*d %*d %llu",
			&st) == 1)
		return st;
	return 0;
}

/* What one process's stats fds say, per creating thread (a VM). */
struct bin_vm {
	__u32 tid;
	struct kw_kvm_vm acc;
};

static struct bin_vm *bin_vm_of(struct bin_vm **vms, size_t *n, __u32 tid)
{
	struct bin_vm *p;

	for (size_t i = 0; i < *n; i++)
		if ((*vms)[i].tid == tid)
			return &(*vms)[i];
	p = realloc(*vms, (*n + 1) * sizeof(*p));
	if (!p)
		return NULL;
	*vms = p;
	p = &p[(*n)++];
	memset(p, 0, sizeof(*p));
	p->tid = tid;
	return p;
}

/* The debugfs name is one refused, or not one debugfs has: binary stats may fill it in. */
static bool from_binary(const struct kw_kvmstats_reader *rd, const char *name)
{
	for (size_t i = 0; i < rd->nnames; i++)
		if (!strcmp(rd->names[i].name, name))
			return rd->names[i].refused;
	return true;
}

static int merge_binary(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, unsigned int pid,
			const struct proc_fds *p, const struct bin_vm *b, double t,
			enum kw_kvmstats_when when)
{
	struct kw_kvm_vm *v = NULL;
	char prefix[16], id[32];
	int n = 0, vmfd = -1, err = 0;
	bool debugfs;

	/* the VM debugfs read now, of this process, whose folder is TID-FD */
	snprintf(prefix, sizeof(prefix), "%u-", b->tid);
	for (size_t i = 0; i < ks->nvms; i++) {
		struct kw_kvm_vm *x = &ks->vms[i];

		if (x->gen == read_gen && x->pid == pid &&
		    !strncmp(x->id, prefix, strlen(prefix)) && !strstr(x->source, "binary")) {
			v = x;
			n++;
		}
	}
	if (n > 1)
		return 0;
	debugfs = v;
	if (!v) {
		for (int i = 0; i < p->n; i++)
			if (p->kind[i] == 'v')
				vmfd = vmfd == -1 ? p->fd[i] : -2;
		if (vmfd >= 0)
			snprintf(id, sizeof(id), "%u-%d", b->tid, vmfd);
		else
			snprintf(id, sizeof(id), "%u-?", b->tid);
		v = seen(ks, id, start_time(rd->sys, pid) * 4194304ULL + pid, t, when);
		if (!v)
			return -ENOMEM;
		v->pid = pid;
	}
	for (size_t s = 0; s < b->acc.nstats && !err; s++) {
		const struct kw_kvm_stat *x = &b->acc.stats[s];

		if (!debugfs || from_binary(rd, x->name))
			err = put(v, x->name, x->type, x->end, when);
	}
	snprintf(v->source, sizeof(v->source), debugfs ? "debugfs+binary" : "binary");
	return err;
}

static int read_process(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, unsigned int pid,
			const struct proc_fds *p, double t, enum kw_kvmstats_when when)
{
	struct bin_vm *vms = NULL;
	size_t nvms = 0;
	int pidfd, err = 0, first_err = 0;

	pidfd = syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0)
		return errno == ESRCH ? 0 : -errno;
	for (int i = 0; i < p->n && !err; i++) {
		struct kw_kvm_vm one = {};
		struct bin_vm *b;
		char id[64] = "";
		bool vcpu;
		__u32 tid;
		int r;

		if (p->kind[i] == 'v')
			continue;
		r = read_stats_fd(pidfd, p->fd[i], &one, id, sizeof(id));
		if (!r && kw_kvmstats_parse_id(id, &tid, &vcpu))
			r = -EINVAL;
		if (r) {
			first_err = first_err ?: r;
			free(one.stats);
			continue;
		}
		b = bin_vm_of(&vms, &nvms, tid);
		for (size_t s = 0; b && s < one.nstats && !err; s++)
			err = bin_put(&b->acc, one.stats[s].name, one.stats[s].type,
				      one.stats[s].end);
		if (!b)
			err = -ENOMEM;
		free(one.stats);
	}
	close(pidfd);
	for (size_t i = 0; i < nvms && !err; i++)
		err = merge_binary(rd, ks, pid, p, &vms[i], t, when);
	for (size_t i = 0; i < nvms; i++)
		free(vms[i].acc.stats);
	free(vms);
	return err ?: (nvms ? 0 : first_err);
}

static int read_binary(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t,
		       enum kw_kvmstats_when when)
{
	char path[224];
	struct dirent *e;
	int err = 0, first_err = 0, nread = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/proc", rd->sys);
	d = opendir(path);
	if (!d)
		return -errno;
	while (!err && (e = readdir(d))) {
		struct proc_fds p;
		unsigned int pid;
		int r;

		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    (pid = atoi(e->d_name)) == (unsigned int)getpid())
			continue;
		snprintf(path, sizeof(path), "%s/proc/%u/fd", rd->sys, pid);
		r = scan_fds(path, &p) ? read_process(rd, ks, pid, &p, t, when) : 0;
		free(p.fd);
		free(p.kind);
		if (r == -ENOMEM)
			err = r;
		else if (r)
			first_err = first_err ?: r;
		else
			nread++;
	}
	closedir(d);
	rd->bin_why[0] = 0;
	if (first_err)
		snprintf(rd->bin_why, sizeof(rd->bin_why), "binary stats: %s%s",
			 strerror(-first_err),
			 first_err == -EPERM	? " (pidfd_getfd: no ptrace access to the VMM)"
			 : first_err == -ENOSYS ? " (pidfd_getfd: Linux 5.6+)"
						: "");
	return err;
}

/* ---- the reader ------------------------------------------------------------------------------ */

int kw_kvmstats_open(struct kw_kvmstats_reader *rd, enum kw_kvmstats_mode mode, const char *sys,
		     bool may_mount)
{
	char kvm[192];
	int err;

	memset(rd, 0, sizeof(*rd));
	rd->dirfd = -1;
	rd->mode = mode;
	snprintf(rd->sys, sizeof(rd->sys), "%s", sys ? sys : "");
	if (mode == KW_KSM_OFF) {
		snprintf(rd->why, sizeof(rd->why), "not read (--kvm-stats off)");
		return -ENOENT;
	}
	snprintf(kvm, sizeof(kvm), "%s/sys/module/kvm", rd->sys);
	if (access(kvm, F_OK)) {
		snprintf(rd->why, sizeof(rd->why), "KVM is not loaded (no %s)", kvm);
		return -ENOENT;
	}
	if (mode == KW_KSM_BINARY)
		return 0;
	err = open_debugfs(rd, may_mount);
	return err && mode == KW_KSM_DEBUGFS ? err : 0;
}

void kw_kvmstats_close(struct kw_kvmstats_reader *rd)
{
	if (rd->dirfd >= 0)
		close(rd->dirfd);
	rd->dirfd = -1;
	free(rd->names);
	rd->names = NULL;
	rd->nnames = 0;
}

static void read_meminfo(const struct kw_kvmstats_reader *rd, long long *kb)
{
	char path[224], buf[8192];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/proc/meminfo", rd->sys);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	*kb = kw_kvmstats_parse_meminfo(buf);
}

static const char *source_of(const struct kw_kvmstats_reader *rd)
{
	if (rd->mode == KW_KSM_BINARY || (rd->dirfd < 0 && rd->mode == KW_KSM_AUTO))
		return "binary";
	if (rd->dirfd < 0)
		return "";
	return rd->mode == KW_KSM_AUTO && rd->nrefused ? "debugfs+binary" : "debugfs";
}

int kw_kvmstats_read(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t,
		     enum kw_kvmstats_when when)
{
	const char *src = source_of(rd);
	int err = 0;

	/* SecPageTables even when no VM's statistics can be read */
	if (rd->mode != KW_KSM_OFF && when == KW_KSR_START)
		read_meminfo(rd, &ks->sec_pt_start_kb);
	else if (rd->mode != KW_KSM_OFF && when == KW_KSR_END)
		read_meminfo(rd, &ks->sec_pt_end_kb);
	if (rd->mode == KW_KSM_OFF || !src[0]) {
		snprintf(ks->why, sizeof(ks->why), "%s", rd->why);
		return -ENOENT;
	}
	read_gen++;
	if (rd->dirfd >= 0 && rd->mode != KW_KSM_BINARY)
		err = read_debugfs(rd, ks, t, when);
	src = source_of(rd); /* debugfs may have refused a file just now */
	if (!err && strstr(src, "binary"))
		err = read_binary(rd, ks, t, when);
	snprintf(ks->source, sizeof(ks->source), "%s", src);
	if (rd->bin_why[0] && !strstr(rd->why, rd->bin_why))
		snprintf(ks->why, sizeof(ks->why), "%.250s%s%s", rd->why, rd->why[0] ? "; " : "",
			 rd->bin_why);
	else
		snprintf(ks->why, sizeof(ks->why), "%s", rd->why);
	if (when == KW_KSR_END)
		for (size_t i = 0; i < ks->nvms; i++)
			if (ks->vms[i].gen != read_gen)
				ks->vms[i].ended = true;
	return err;
}

void kw_kvmstats_tick(struct kw_kvmstats_reader *rd, struct kw_kvmstats *ks, double t)
{
	if (rd->mode == KW_KSM_OFF || !source_of(rd)[0] || t < rd->next_tick)
		return;
	kw_kvmstats_read(rd, ks, t, KW_KSR_TICK);
	rd->next_tick = t + KW_KVMSTATS_TICK;
}
