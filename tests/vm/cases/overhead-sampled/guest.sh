# SPDX-License-Identifier: GPL-2.0
# The overhead case (its guest.sh and check) made to decide one claim: walker-heavy phases run
# at most 1.05x as long with `record --probe sampled` (49 Hz) as without kvmwalk. The scenarios
# lengthened (OVERHEAD_LONG: their walker-heavy phases last 50-300 ms here instead of 1-20 ms)
# and 8 runs of each, alternating (an even number: as many pairs with the bare run first as
# last). The cheap set is not run here (the overhead case sets them side by side:
# OVERHEAD_PROBES=sampled:cheap); its runs are 1.5-2x longer. --env OVERHEAD_RUNS=N and
# OVERHEAD_PROBES=... override.
OVERHEAD_PROBES=${OVERHEAD_PROBES:-sampled}
OVERHEAD_RUNS=${OVERHEAD_RUNS:-8}
OVERHEAD_LONG=1
OVERHEAD_LIMITS=sampled=1.05
. /cases/overhead/guest.sh
