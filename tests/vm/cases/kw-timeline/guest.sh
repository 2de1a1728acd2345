# SPDX-License-Identifier: GPL-2.0
# kvmwalk record --interval 1 around kvmwalk-load --scenario split: the intervals must place the
# eager-split burst in the dirty-log-enable phases (kvmwalk-load's start_ns, on the recording's
# clock) and sum to the recording's totals; report --timeline, --csv and --plot show them.
# The load takes 0.7 to 3 s in the emulated host: 1.5 s idle after it make at least two intervals
# whatever its speed (the last ones empty, which must sum as well); its exit status is kept.
kvmwalk record --interval 1 -o rec.json -- sh -c 'kvmwalk-load --scenario=split --vcpus=2 \
	--mem=8M --backing=thp --iterations=2 --eager-split=2M --json=load.json; rc=$?; sleep 1.5
	exit $rc' >table.txt 2>record.err
echo $? >record.rc
kvmwalk report --timeline rec.json >timeline.txt 2>timeline.err
echo $? >timeline.rc
kvmwalk report --csv rec.json >timeline.csv 2>>timeline.err
echo $? >csv.rc
kvmwalk report --timeline --plot timeline.svg rec.json >/dev/null 2>>timeline.err
echo $? >plot.rc
kvmwalk report --json rec.json >report.json 2>>timeline.err
echo $? >json.rc
