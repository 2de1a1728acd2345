# SPDX-License-Identifier: GPL-2.0
# kvmwalk records a live migration of a real QEMU (migrate.sh) in the emulated host; check
# compares it with the kernel's hist trigger and with what the dirtying guest makes certain.
cat /qemu-package >qemu-package.txt
kvmwalk record --interval 1 -o rec.json -- sh /cases/migrate/migrate.sh >migrate.out 2>record.err
echo $? >record.rc
kvmwalk report rec.json >report.txt 2>&1
echo $? >report.rc
kvmwalk report --json rec.json >report.json 2>/dev/null
