/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Layer: recording model. Which VMs' statistics (kvmstats.h) a recording keeps: the link
 * between KVM's statistics and the processes kvmwalk recorded.
 */
#ifndef KW_KVMSTATS_REC_H
#define KW_KVMSTATS_REC_H

#include "record.h"

/*
 * Keeps in r->kvmstats the VMs kvmwalk recorded: every VM of the host without a filter
 * (npids 0, nvms 0: kvmwalk counted every task), else those of the pids[npids] processes and
 * of the processes r attributed work to (r->vms: with --vm, the processes of those names).
 */
void kw_recording_kvmstats_scope(struct kw_recording *r, const __u32 *pids, __u32 npids,
				 __u32 nvms);

#endif /* KW_KVMSTATS_REC_H */
