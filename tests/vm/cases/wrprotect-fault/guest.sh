# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario wrprotect-fault: dirty logging on, three write passes, each one
# write-protection fault per page, each logged.
kvmwalk-load --scenario=wrprotect-fault --vcpus=2 --mem=8M --iterations=3 --json=load.json \
	>table.txt
