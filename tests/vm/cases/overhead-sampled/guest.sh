# SPDX-License-Identifier: GPL-2.0
# The overhead case (its guest.sh and check) made to decide one claim: walker-heavy phases run
# at most 1.05x as long with `record --probe sampled` (49 Hz) as without kvmwalk. The scenarios
# lengthened (OVERHEAD_LONG: their walker-heavy phases last 20-200 ms here instead of 1-20 ms),
# 8 runs of each (an even number: as many pairs with the bare run first as last), each beside a
# run at 49 Hz and one at 999 Hz. The 49 Hz ratio is within the emulated host's noise (a few
# percent between boots), so the limit is asserted on the 999 Hz ratio extrapolated to 49 Hz
# (a fixed cost per sample: 1 + (ratio - 1) x 49 / 999), and the direct 49 Hz ratio only
# against 1.10. Beside them serve's default (notifierssampled: the notifiers set's probes, once
# per MMU-notifier invalidation, nested unmap or teardown, with the sampled mode at 49 Hz), held
# to 1.10 as directly measured (timingsampled, the timing set with it, measured 1.24x: see
# docs/performance.md, "The sampled mode"). The cheap set is not run here (the overhead case sets them side by side:
# OVERHEAD_PROBES=sampled:cheap). --env OVERHEAD_RUNS=N and OVERHEAD_PROBES=... override.
OVERHEAD_PROBES=${OVERHEAD_PROBES:-sampled:sampled999:notifierssampled}
OVERHEAD_RUNS=${OVERHEAD_RUNS:-8}
OVERHEAD_LONG=1
OVERHEAD_LIMITS="sampled999@49=1.05 sampled=1.10 notifierssampled=1.10"
. /cases/overhead/guest.sh
