# SPDX-License-Identifier: GPL-2.0
# Two VMs at once, named as QEMU names them (kvmwalk-load --name shows `-name guest=NAME` in its
# cmdline): alpha with 1 vCPU and one iteration, beta with 2 vCPUs and two, so that a swapped or
# merged attribution cannot match. Both exit before the recording ends: record must keep their
# rows under their own pids and names (issue 14). arm64: the split scenario; x86: invalidate.
# Then the same pair again under `record --vm beta`: only beta, from its first probe run.
if [ "$KW_ARCH" = arm64 ]; then
	eager="--eager-split=2M"
	load="--scenario=split --mem=8M --backing=thp"
else
	load="--scenario=invalidate --mem=8M --range=2M --pattern=same"
fi
# both.sh SUFFIX: the pair, their outputs in alphaSUFFIX.json, betaSUFFIX.json, ...
cat >both.sh <<EOT
kvmwalk-load --name alpha $load --vcpus=1 --iterations=1 ${eager:-} --json=alpha\$1.json >alpha\$1.txt 2>alpha\$1.err &
a=\$!
kvmwalk-load --name beta $load --vcpus=2 --iterations=2 ${eager:-} --json=beta\$1.json >beta\$1.txt 2>beta\$1.err
echo \$? >beta\$1.rc
wait \$a
echo \$? >alpha\$1.rc
EOT
kvmwalk record -o rec.json -- sh both.sh "" 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>report-json.err
echo $? >report-json.rc
kvmwalk record --vm beta -o only-beta.json -- sh both.sh -2 2>only-beta.err
echo $? >only-beta.rc
kvmwalk report only-beta.json >only-beta.txt 2>&1
