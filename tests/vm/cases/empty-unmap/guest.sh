# SPDX-License-Identifier: GPL-2.0
# kvmwalk-load --scenario empty-unmap: unmaps of never-touched memory (madvise in 2 MiB calls),
# deletion and re-creation of the never-touched data slot, and a 256 GiB sparse slot added and
# deleted (arm64: 256 one-GiB unmap calls); twice.
kvmwalk-load --scenario=empty-unmap --vcpus=2 --mem=8M --iterations=2 --range=2M --sparse=256G \
	--json=load.json >table.txt
