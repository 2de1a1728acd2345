# SPDX-License-Identifier: GPL-2.0
# dirty_log_perf_test -g (no manual dirty-log protect: KVM_GET_DIRTY_LOG write-protects what it
# reports, enabling dirty logging write-protects the whole slot): selftest-dirty-log's run and
# witnesses with that one option more; its check says what changes.
DLPT_ARGS=-g
. /cases/selftest-dirty-log/guest.sh
