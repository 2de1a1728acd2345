# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario split: THP-backed memory touched (2 MiB blocks), then dirty logging
# enabled (eager split: x86 always, arm64 with --eager-split from 6.4 on), written and logged;
# twice. Also the exit codes of a missing capability and of a bad option.
eager=""
if [ "$KW_ARCH" = arm64 ]; then
	if [ "$KW_KERNEL" = 6.1 ]; then
		kvmwalk-load --scenario=split --mem=2M --eager-split=2M --quiet >/dev/null 2>eager.err
		echo $? >eager.rc
	else
		eager="--eager-split=2M"
	fi
fi
kvmwalk-load --scenario=split --chunk-pages=100 >/dev/null 2>usage.err
echo $? >usage.rc
kvmwalk-load --scenario=split --vcpus=2 --mem=8M --backing=thp --iterations=2 $eager \
	--json=load.json >table.txt
