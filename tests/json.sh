# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Readers of what kvmwalk and kvmwalk-load write as JSON, shared by the host tests (tests/lib.sh)
# and the emulated-host checks (tests/vm/lib.sh, which adds forms that default to the case's own
# files).

# probe_in FILE NAME JQ-PATH: that field of probe NAME in a recording (`kvmwalk record`).
probe_in() { jq -r --arg p "$2" ".probes[] | select(.name == \$p) | $3" "$1"; }

# phase_sum_in FILE PHASE KEY: kvmwalk-load's count KEY summed over its phases named PHASE
# (`kvmwalk-load --json`); 0 when there is none.
phase_sum_in() {
	jq -r --arg p "$2" --arg k "$3" '[.phases[] | select(.phase == $p) | .counts[$k]] | add // 0' "$1"
}

# finding_in FILE KIND JQ-PATH: that field of the finding KIND in `kvmwalk report --json`.
finding_in() { jq -r --arg k "$2" ".findings[] | select(.kind == \$k) | $3" "$1"; }
