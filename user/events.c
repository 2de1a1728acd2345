// SPDX-License-Identifier: GPL-2.0
/*
 * The kw_events reader (a BPF ring buffer of tgids) and --vm.
 *
 * Naming: each process's first trigger row sends its tgid; loader__poll() wakes and reads its
 * identity (identity.h) at once, while it is alive: even a VM that lives for 20 ms is named from
 * its cmdline (a zombie's cmdline is empty). A task's later new rows send it without a wakeup
 * (bpf/kw.bpf.h kw_trig_add_n()); a sweep every 0.2 s reads those, and names what a full buffer
 * lost.
 *
 * --vm NAME: record only the processes whose VM name (QEMU's -name, libvirt's scope) is one of
 * the names, found as they appear. The BPF side applies the decisions (kw_pids):
 * - at start, every process of /proc is read once; those with a matching name are recorded;
 * - at each exec rt_exec (sched_process_exec) parses the new program's -name itself and records a
 *   wanted one at once (kw_vm_names): a QEMU started with -name is counted from its first ioctl,
 *   whatever the speed of user space (an emulated host once let a VM reach KVM_CREATE_VM before
 *   user space had read its exec event); the exec is also reported and read at once, and user
 *   space's decision (from the cmdline or libvirt's scope: libvirt moves QEMU into its machine
 *   scope before the exec) is the last word;
 * - a process that runs a probe before a decision about it (one faster than us, or an exec event
 *   lost) is left out and its program runs are counted in kw_undecided; loader__poll() then reads
 *   its name and records it or ignores it from then on, and the runs it missed stay in its
 *   identity (kw_vm.unseen, "unseen_runs"): a loss said, never hidden.
 * Decisions about processes that exited are dropped every second so the map stays bounded.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clock.h"
#include "events.h"
#include "host.h"
#include "identity.h"
#include "loader_state.h"

/* a counted process's runs are read this long after the decision: no program still in flight */
#define SETTLE_S 0.1
#define SWEEP_S 1.0
/* how often the processes of new trigger rows are named: a short-lived VM must be seen alive */
#define IDENTIFY_S 0.2

static bool name_wanted(const struct loader *l, const char *vm)
{
	for (unsigned int i = 0; vm[0] && i < l->opts.nvms; i++)
		if (!strcmp(l->opts.vms[i], vm))
			return true;
	return false;
}

static struct kw_vmf_pid *decision_of(struct loader *l, __u32 pid)
{
	for (size_t i = 0; i < l->nvmf; i++)
		if (l->vmf[i].pid == pid)
			return &l->vmf[i];
	return NULL;
}

/*
 * Reads pid's name and writes the decision into kw_pids; @undecided: it ran probes before, its
 * count is read SETTLE_S later. A process that is gone is ignored.
 */
static int decide(struct loader *l, __u32 pid, bool undecided)
{
	struct kw_identity id;
	struct kw_vmf_pid *d = decision_of(l, pid);
	__u8 v;

	if (kw_identity_read(pid, "/proc", &id))
		id.vm[0] = 0;
	v = name_wanted(l, id.vm) ? KW_PID_RECORD : KW_PID_IGNORE;
	/*
	 * An exec that does not match leaves the process undecided: no entry per host process. But
	 * rt_exec may have recorded it from a -name that user space reads differently (or that the
	 * process changed since): user space's reading wins.
	 */
	if (!undecided && v == KW_PID_IGNORE && !d) {
		/* without a decision of ours, an entry can only be rt_exec's */
		bpf_map__delete_elem(l->skel->maps.kw_pids, &pid, sizeof(pid), 0);
		return 0;
	}
	if (!d) {
		d = realloc(l->vmf, (l->nvmf + 1) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		l->vmf = d;
		d = &l->vmf[l->nvmf++];
		memset(d, 0, sizeof(*d));
		d->pid = pid;
	}
	d->decision = v;
	if (undecided && !d->settle_at)
		d->settle_at = kw_mono_s() + SETTLE_S;
	/* the identity read at the decision: a VM that exits early is still named */
	if (v == KW_PID_RECORD)
		loader__ids_put(l, &id);
	return bpf_map__update_elem(l->skel->maps.kw_pids, &pid, sizeof(pid), &v, sizeof(v),
				    BPF_ANY);
}

static int on_event(void *ctx, void *data, size_t size)
{
	struct loader *l = ctx;
	struct kw_tgid_event e;

	if (size < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	if (e.kind == KW_EV_EXEC && l->opts.nvms && !l->test_no_decisions)
		decide(l, e.tgid, false);
	else if (e.kind == KW_EV_NEW_ROW)
		loader__identify_pid(l, e.tgid);
	return 0;
}

int events_start(struct loader *l)
{
	struct dirent *e;
	DIR *d;
	int err;

	l->events = ring_buffer__new(bpf_map__fd(l->skel->maps.kw_events), on_event, l, NULL);
	if (!l->events) {
		err = -errno;
		fprintf(stderr, "kvmwalk: cannot read the BPF ring buffer: %s\n", strerror(-err));
		return err;
	}
	if (!l->opts.nvms)
		return 0;
	_Static_assert(KW_VM_KEY_LEN == KW_VM_NAME_LEN, "kw_vm_names keys are identity names");
	/*
	 * Test knob, not a feature: KVMWALK_TEST_NO_DECISIONS=1 makes user space decide nothing
	 * after the start (exec events and undecided processes are not read), as if it were too slow,
	 * so that a test sees rt_exec's own -name match alone (tests/host/test-pid-filter). Said on
	 * stderr whenever it is used.
	 */
	l->test_no_decisions = getenv("KVMWALK_TEST_NO_DECISIONS") != NULL;
	if (l->test_no_decisions)
		fprintf(stderr, "kvmwalk: test knob KVMWALK_TEST_NO_DECISIONS: no decisions after the start\n");
	for (unsigned int i = 0; i < l->opts.nvms; i++) {
		struct kw_vm_key k = { 0 };
		__u8 one = 1;

		snprintf(k.name, sizeof(k.name), "%s", l->opts.vms[i]);
		err = bpf_map__update_elem(l->skel->maps.kw_vm_names, &k, sizeof(k), &one, sizeof(one),
					   BPF_ANY);
		if (err) {
			fprintf(stderr, "kvmwalk: --vm: cannot fill the names map: %s\n", strerror(-err));
			return err;
		}
	}
	l->exec_link = bpf_program__attach(l->skel->progs.rt_exec);
	if (!l->exec_link) {
		err = -errno;
		fprintf(stderr, "kvmwalk: --vm: cannot attach to sched:sched_process_exec: %s\n",
			strerror(-err));
		return err;
	}
	/* after the exec program is attached: a process exec'ing now is seen by one or the other */
	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (!*end && pid && (err = decide(l, pid, false))) {
			closedir(d);
			return err;
		}
	}
	closedir(d);
	l->vmf_sweep_at = kw_mono_s() + SWEEP_S;
	return 0;
}

void events_stop(struct loader *l)
{
	bpf_link__destroy(l->exec_link);
	l->exec_link = NULL;
	ring_buffer__free(l->events);
	l->events = NULL;
}

/* The processes that ran probes undecided: decide now; the counts of settled ones are read. */
static void undecided(struct loader *l, double now)
{
	int fd = bpf_map__fd(l->skel->maps.kw_undecided);
	__u32 k, *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, &k)) {
		struct kw_vmf_pid *d = decision_of(l, k);

		prev = &k;
		if ((!d || !d->settle_at) && !l->test_no_decisions)
			decide(l, k, true);
	}
	for (size_t i = 0; i < l->nvmf; i++) {
		struct kw_vmf_pid *d = &l->vmf[i];
		struct kw_vm *id;
		__u64 n = 0;

		if (!d->settle_at || now < d->settle_at)
			continue;
		d->settle_at = 0;
		if (bpf_map_lookup_and_delete_elem(fd, &d->pid, &n))
			continue;
		id = loader__ids_find(l, d->pid);
		if (d->decision == KW_PID_RECORD && id)
			id->unseen += n;
	}
}

/* Drops the decisions of processes that exited (a reused pid starts undecided again). */
static void sweep(struct loader *l)
{
	size_t j = 0;

	for (size_t i = 0; i < l->nvmf; i++) {
		struct kw_vmf_pid *d = &l->vmf[i];

		if (!d->settle_at && kill((pid_t)d->pid, 0) && errno == ESRCH) {
			bpf_map__delete_elem(l->skel->maps.kw_pids, &d->pid, sizeof(d->pid), 0);
			continue;
		}
		l->vmf[j++] = *d;
	}
	l->nvmf = j;
}

static void poll_work(struct loader *l)
{
	double now;

	now = kw_mono_s();
	/* and a sweep, for the events sent without a wakeup and those a full ring buffer lost */
	if (now >= l->identify_at) {
		if (l->events)
			ring_buffer__consume(l->events);
		loader__identify(l);
		l->identify_at = now + IDENTIFY_S;
	}
	if (!l->opts.nvms)
		return;
	undecided(l, now);
	if (now >= l->vmf_sweep_at) {
		sweep(l);
		l->vmf_sweep_at = now + SWEEP_S;
	}
}

void loader__poll(struct loader *l, int timeout_ms)
{
	struct kw_rt_scope rt;

	/*
	 * The event handlers and the sweeps update maps: SCHED_FIFO where kvmwalk may
	 * (loader_state.h), also while it sleeps in poll(), so that it runs them as soon as it wakes
	 */
	kw_rt_enter(&rt);
	/* wakes at each event: a new process is named while it is alive */
	if (!l->events || ring_buffer__poll(l->events, timeout_ms) < 0)
		poll(NULL, 0, timeout_ms);
	poll_work(l);
	kw_rt_leave(&rt);
}
