# SPDX-License-Identifier: GPL-2.0
# Shared by the scripts in this folder: the download cache and a private apt configuration.
#
# Kernels and busybox are fetched with `apt-get download` through a private apt configuration that
# lives in the cache. The user's own apt sources are never changed: the mirror is read from the
# machine's configuration at run time, and bookworm-backports / trixie-backports are added only in the
# private sources list.

KW_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
KW_CACHE=${KVMWALK_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/kvmwalk}
KW_QUIET=${KW_QUIET:-0}

kw_say() { [ "$KW_QUIET" = 1 ] || printf '%s\n' "$*" >&2; }
kw_die() { printf '%s: %s\n' "${0##*/}" "$*" >&2; exit 1; }

# Debian architecture name for a kvmwalk ARCH.
kw_debarch() {
	case "$1" in
	x86 | x86_64 | amd64) echo amd64 ;;
	arm64 | aarch64) echo arm64 ;;
	*) kw_die "unknown arch '$1' (x86 or arm64)" ;;
	esac
}

# The first Debian mirror the machine's own apt configuration names (deb822 or one-line format).
kw_mirror() {
	local m
	m=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
		awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i !~ /security/) { print $i; exit } }')
	[ -n "$m" ] || m=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		awk '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { if ($i !~ /security/) { print $i; exit } } }')
	[ -n "$m" ] || kw_die "no Debian mirror found in /etc/apt"
	echo "${m%/}"
}

KW_APT_DIR=$KW_CACHE/apt
# One apt at a time (flock): it runs unlocked here (Debug::NoLocking), and two vmtest runs on a
# fresh cache (make vmtest beside make ab) renamed each other's package lists half-way.
kw_apt() {
	mkdir -p "$KW_APT_DIR"
	flock "$KW_APT_DIR/lock" "$@" -o Dir::Etc::SourceList="$KW_APT_DIR/sources.list" -o Dir::Etc::SourceParts=/dev/null \
		-o Dir::State::Lists="$KW_APT_DIR/lists" -o Dir::Cache="$KW_APT_DIR/cache" \
		-o APT::Architectures::=amd64 -o APT::Architectures::=arm64 -o Debug::NoLocking=1 \
		-o Dir::State::status="$KW_APT_DIR/status"
}

# Create (once a day) the private package lists for bookworm, bookworm-backports, trixie-backports.
kw_apt_init() {
	local m keyring=/usr/share/keyrings/debian-archive-keyring.gpg
	mkdir -p "$KW_APT_DIR/lists/partial" "$KW_APT_DIR/cache/archives/partial"
	# An empty dpkg status: what this machine has installed must not pick the versions downloaded.
	[ -f "$KW_APT_DIR/status" ] || : >"$KW_APT_DIR/status"
	if [ -z "$(find "$KW_APT_DIR/lists" -maxdepth 1 -name '*Packages*' -mmin -1440 2>/dev/null | head -1)" ]; then
		m=$(kw_mirror)
		{
			for s in bookworm bookworm-backports trixie-backports; do
				echo "deb [signed-by=$keyring arch=amd64,arm64] $m $s main"
			done
		} >"$KW_APT_DIR/sources.list"
		kw_say "fetching package lists (bookworm, bookworm-backports, trixie-backports)"
		kw_apt apt-get -q update >"$KW_APT_DIR/update.log" 2>&1 ||
			kw_die "apt-get update failed, see $KW_APT_DIR/update.log"
	fi
}

# Newest package whose name matches the extended regex $1.
kw_newest_pkg() {
	kw_apt apt-cache pkgnames 2>/dev/null | grep -E "$1" | sort -V | tail -n 1
}

# Download package $1 for Debian arch $2 into the cache, print the .deb's path. With $3 (a suite:
# bookworm, ...) the version comes from that suite, not the newest of all three.
kw_download() {
	local dir=$KW_CACHE/debs spec="$1:$2" deb
	if [ -n "${3:-}" ]; then
		dir=$dir/$3
		spec="$spec/$3"
	fi
	mkdir -p "$dir"
	deb=$(ls "$dir/$1"_*_"$2".deb 2>/dev/null | tail -n 1)
	if [ -z "$deb" ]; then
		local size
		size=$(kw_apt apt-cache show "$spec" 2>/dev/null | awk '/^Size:/ { print int($2 / 1048576); exit }')
		kw_say "downloading $1 ($2${3:+, $3}, ${size:-?} MiB)"
		(cd "$dir" && kw_apt apt-get -q download "$spec" >/dev/null 2>"$dir/download.err") ||
			kw_die "download of $spec failed: $(tail -n 2 "$dir/download.err")"
		deb=$(ls "$dir/$1"_*_"$2".deb | tail -n 1)
	fi
	echo "$deb"
}

# The newest version of package $1 in the private lists (any of the three suites) that matches the
# extended regex $2 ("^7\.3\."), or nothing. apt-cache madison lists the newest first.
kw_newest_version() {
	kw_apt apt-cache madison "$1" 2>/dev/null | awk -F'|' '{ gsub(/ /, "", $2); print $2 }' |
		grep -E "$2" | head -n 1
}

# Download version $2 of package $1 into the cache (whatever its arch: linux-libc-dev from 6.x
# on is Architecture: all), print the .deb's path.
kw_download_version() {
	local dir=$KW_CACHE/debs/versions deb
	mkdir -p "$dir"
	# apt names the file PKG_VERSION_ARCH.deb, an epoch's colon written %3a
	deb=$(ls "$dir/${1}_${2//:/%3a}_"*.deb 2>/dev/null | tail -n 1)
	if [ -z "$deb" ]; then
		kw_say "downloading $1 $2"
		(cd "$dir" && kw_apt apt-get -q download "$1=$2" >/dev/null 2>"$dir/download.err") ||
			kw_die "download of $1 $2 failed: $(tail -n 2 "$dir/download.err")"
		deb=$(ls "$dir/${1}_${2//:/%3a}_"*.deb | tail -n 1)
	fi
	echo "$deb"
}

# Debian's linux-source-SERIES (7.3: trixie-backports, 6.12: bookworm-backports; the source of the
# kernels the emulated hosts boot), downloaded through the private apt configuration and unpacked
# once into $KW_CACHE/ab/src/linux-source-SERIES, which is never modified afterwards: scripts/ab-kernel
# hard-links its build trees to it, scripts/build-selftests builds out of tree from it. Prints the
# folder. Locked: ab-kernel and build-selftests may unpack the same series at once.
kw_linux_source() {
	local series=$1 dir deb t
	dir=$KW_CACHE/ab/src/linux-source-$series
	if [ ! -f "$dir/Makefile" ]; then
		mkdir -p "$KW_CACHE/ab/src"
		exec 8>"$KW_CACHE/ab/src/.lock-$series"
		flock 8
		if [ ! -f "$dir/Makefile" ]; then
			kw_apt_init
			# linux-source-X is Architecture: all; kw_download takes the Debian arch as given.
			deb=$(kw_download "linux-source-$series" all) || exit 1
			t=$(mktemp -d "$KW_CACHE/ab/src/unpack.XXXXXX")
			kw_say "unpacking $(basename "$deb")"
			dpkg-deb -x "$deb" "$t"
			tar -xf "$t"/usr/src/linux-source-*.tar.* -C "$t"
			[ -f "$t/linux-source-$series/Makefile" ] ||
				kw_die "$(basename "$deb"): no linux-source-$series/ in its tarball"
			rm -rf "$dir"
			mv "$t/linux-source-$series" "$dir"
			dpkg-deb -f "$deb" Package Version | paste -sd' ' >"$dir.package"
			rm -rf "$t"
		fi
		exec 8>&-
	fi
	echo "$dir"
}

# Static busybox for a kvmwalk ARCH, from Debian's busybox-static (downloaded, never installed).
kw_busybox() {
	local da bin deb tmp
	da=$(kw_debarch "$1")
	bin=$KW_CACHE/busybox/$da/busybox
	if [ ! -x "$bin" ]; then
		kw_apt_init
		deb=$(kw_download busybox-static "$da" bookworm) || exit 1
		tmp=$(mktemp -d)
		dpkg-deb -x "$deb" "$tmp"
		mkdir -p "${bin%/*}"
		cp "$tmp/bin/busybox" "$bin"
		rm -rf "$tmp"
	fi
	echo "$bin"
}

# Debian's bpftool for a kvmwalk ARCH with the shared libraries it needs, laid out as a root
# folder (usr/sbin/bpftool, lib/TRIPLET/*.so*, the dynamic loader) to copy into an initramfs, so
# the emulated-host tests check attachments with the same tool a person would use.
kw_bpftool_root() {
	local da root tmp p deb
	da=$(kw_debarch "$1")
	root=$KW_CACHE/bpftool/$da
	if [ ! -x "$root/usr/sbin/bpftool" ]; then
		kw_apt_init
		tmp=$(mktemp -d)
		for p in bpftool libelf1 zlib1g libcap2 libssl3 libc6; do
			# bookworm's: its libc is the one shipped beside it (trixie's bpftool needs a newer one).
			deb=$(kw_download "$p" "$da" bookworm) || exit 1
			dpkg-deb -x "$deb" "$tmp"
		done
		rm -rf "$root.new"
		mkdir -p "$root.new/usr/sbin"
		cp "$tmp/usr/sbin/bpftool" "$root.new/usr/sbin/"
		# Only shared objects and the loader: no gconv modules, no docs.
		(cd "$tmp" && find lib lib64 usr/lib -maxdepth 2 \( -name '*.so*' -o -name 'ld-linux*' \) \
			\( -type f -o -type l \) 2>/dev/null) | while read -r p; do
			mkdir -p "$root.new/$(dirname "$p")"
			cp -a "$tmp/$p" "$root.new/$p"
		done
		rm -rf "$tmp" "$root"
		mv "$root.new" "$root"
	fi
	echo "$root"
}

# Debian's QEMU for a kvmwalk ARCH (bookworm-backports' 10: `-accel kvm,eager-split-size=`
# needs 8.1+, bookworm has 7.2), laid out as a root folder to copy into an initramfs: the one
# system emulator, the shared objects it needs (the DT_NEEDED closure, resolved in the unpacked
# multiarch folders, plus the ELF interpreter: not the 83 packages' 170 MiB) and, for x86, the
# firmware QEMU loads even with -kernel (seabios' bios-256k.bin, qemu-system-data's option ROMs).
# The packages come with their dependencies through the private apt configuration, for an empty
# system (kw_apt's status file). Cached; prints the root folder.
KW_QEMU_SUITE=bookworm-backports
kw_qemu_root() {
	local da root tmp bin pkg triplet f n found d
	da=$(kw_debarch "$1")
	case "$da" in
	arm64) bin=qemu-system-aarch64 pkg=qemu-system-arm triplet=aarch64-linux-gnu ;;
	amd64) bin=qemu-system-x86_64 pkg=qemu-system-x86 triplet=x86_64-linux-gnu ;;
	esac
	root=$KW_CACHE/qemu/$da-$KW_QEMU_SUITE
	if [ ! -x "$root/usr/bin/$bin" ]; then
		kw_apt_init
		tmp=$(mktemp -d "$KW_CACHE/unpack.XXXXXX")
		mkdir -p "$KW_CACHE/qemu/debs/$da/partial"
		kw_say "downloading Debian's $pkg ($da, $KW_QEMU_SUITE) and its dependencies"
		kw_apt apt-get -q -y --download-only --no-install-recommends \
			-o Dir::Cache::archives="$KW_CACHE/qemu/debs/$da" -o APT::Architecture="$da" \
			-t "$KW_QEMU_SUITE" install "$pkg:$da" $([ "$da" = amd64 ] && echo seabios) \
			>"$KW_CACHE/qemu/debs/$da/download.log" 2>&1 ||
			kw_die "download of $pkg failed: $(tail -n 3 "$KW_CACHE/qemu/debs/$da/download.log")"
		for f in "$KW_CACHE/qemu/debs/$da"/*.deb; do dpkg-deb -x "$f" "$tmp"; done
		rm -rf "$root.new"
		mkdir -p "$root.new/usr/bin" "$root.new/lib/$triplet"
		cp "$tmp/usr/bin/$bin" "$root.new/usr/bin/"
		# breadth-first over DT_NEEDED; every library lands in lib/TRIPLET under its soname
		local -a todo=("$tmp/usr/bin/$bin")
		local -A seen=()
		while [ ${#todo[@]} -gt 0 ]; do
			f=${todo[0]}
			todo=("${todo[@]:1}")
			for n in $(readelf -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
				[ -n "${seen[$n]:-}" ] && continue
				seen[$n]=1
				found=
				for d in "lib/$triplet" "usr/lib/$triplet" lib usr/lib; do
					[ -e "$tmp/$d/$n" ] && { found=$tmp/$d/$n; break; }
				done
				[ -n "$found" ] || kw_die "$bin: $n is in none of the downloaded packages"
				cp -L "$found" "$root.new/lib/$triplet/$n"
				todo+=("$found")
			done
		done
		# The interpreter: Debian's amd64 /lib64/ld-linux-x86-64.so.2 is an absolute symlink. In
		# the initramfs root an absolute link points at the build machine's own loader, and a
		# later cp onto it writes through it (it did: every running program crashed while the
		# host's ld.so was rewritten). The real file goes to lib/TRIPLET, the link is relative.
		n=$(readelf -l "$tmp/usr/bin/$bin" | sed -n 's/.*interpreter: \(.*\)\]/\1/p')
		f=lib/$triplet/$(basename "$n")
		[ -f "$tmp/$f" ] || kw_die "$bin: its interpreter $n is not $f in the packages"
		cp "$tmp/$f" "$root.new/$f"
		if [ "$n" != "/$f" ]; then
			mkdir -p "$root.new/$(dirname "$n")"
			ln -s "$(realpath -m --relative-to="$(dirname "/$n")" "/$f")" "$root.new$n"
		fi
		if [ "$da" = amd64 ]; then
			mkdir -p "$root.new/usr/share/qemu"
			# bios-256k.bin is seabios' own (in usr/share/seabios); the ROMs are qemu-system-data's
			for f in bios-256k.bin multiboot_dma.bin linuxboot_dma.bin kvmvapic.bin pvh.bin; do
				found=
				for d in usr/share/qemu usr/share/seabios; do
					[ -f "$tmp/$d/$f" ] && { found=$tmp/$d/$f; break; }
				done
				[ -n "$found" ] || kw_die "$pkg: no $f in usr/share/qemu or usr/share/seabios"
				cp -L "$found" "$root.new/usr/share/qemu/"
			done
		fi
		dpkg-deb -f "$(ls "$KW_CACHE/qemu/debs/$da/${pkg}_"*.deb | tail -n 1)" Package Version |
			paste -sd' ' >"$root.new/qemu-package"
		rm -rf "$tmp" "$root"
		mv "$root.new" "$root"
		kw_say "QEMU for $da: $(cat "$root/qemu-package"), $(du -sm "$root" | cut -f1) MiB"
	fi
	echo "$root"
}

# bookworm-backports' QEMU 10 system emulator for THIS machine (amd64), to run the emulated host
# itself where Debian 12's QEMU 7.2 cannot: arm64 nested virtualization needs FEAT_NV2, which
# 7.2's `-cpu max` lacks (vmtest --mode nested). qemu-system-arm, -common and -data of that
# version, unpacked (never installed); they run with the libraries Debian 12 already has.
# Prints the qemu-system-aarch64 path. It still searches 7.2's module folder (QEMU_MODULE_DIR
# does not stop that): run it with -audio none, which needs none of them.
kw_qemu10_host() {
	local dir=$KW_CACHE/qemu10-host tmp p ver deb
	if [ ! -x "$dir/usr/bin/qemu-system-aarch64" ]; then
		kw_apt_init
		tmp=$(mktemp -d "$KW_CACHE/unpack.XXXXXX")
		for p in qemu-system-arm:amd64 qemu-system-common:amd64 qemu-system-data:all; do
			deb=$(kw_download "${p%:*}" "${p#*:}" "$KW_QEMU_SUITE") || exit 1
			dpkg-deb -x "$deb" "$tmp"
		done
		mkdir -p "$tmp/no-modules"
		rm -rf "$dir"
		mv "$tmp" "$dir"
		kw_say "QEMU for the emulated host: $("$dir/usr/bin/qemu-system-aarch64" --version | head -n 1)"
	fi
	echo "$dir/usr/bin/qemu-system-aarch64"
}
