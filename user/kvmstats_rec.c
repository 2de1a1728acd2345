// SPDX-License-Identifier: GPL-2.0
/* Layer: recording model. Which VMs' statistics a recording keeps (kvmstats_rec.h). */
#include <stdlib.h>

#include "kvmstats_rec.h"

void kw_recording_kvmstats_scope(struct kw_recording *r, const __u32 *pids, __u32 npids, __u32 nvms)
{
	__u32 *keep;
	size_t n = 0;

	if (!npids && !nvms)
		return;
	keep = calloc(npids + r->nvms + 1, sizeof(*keep));
	if (!keep)
		return;
	for (__u32 i = 0; i < npids; i++)
		keep[n++] = pids[i];
	for (size_t i = 0; i < r->nvms; i++)
		keep[n++] = r->vms[i].pid;
	kw_kvmstats_keep(&r->kvmstats, keep, n);
	free(keep);
}
