# SPDX-License-Identifier: GPL-2.0
# kvmwalk: `make` builds for the host arch, `make ARCH=arm64` cross-builds, `V=1` shows commands.
# The binaries are linked statically (the same files run on a host and inside the emulated hosts'
# busybox initramfs); STATIC=0 links them against the system's shared libraries instead, into
# build/ARCH-dynamic (the Debian package, `make deb`). `make install PREFIX=... DESTDIR=...`.

VERSION := 0.2
# The commit a build is made from, in --version and in every recording: git's (with -dirty for
# uncommitted changes), else KW_COMMIT from the environment (make deb passes it into its copy of
# the tree), else "unknown".
ifndef KW_COMMIT
KW_COMMIT := $(shell c=$$(git rev-parse --short=12 HEAD 2>/dev/null) && \
	{ git diff --quiet HEAD 2>/dev/null || c=$$c-dirty; }; echo $${c:-unknown})
endif
export KW_COMMIT
STATIC ?= 1
ifeq ($(filter $(STATIC),0 1),)
$(error STATIC must be 1 (static binaries, the default) or 0 (shared libraries), not '$(STATIC)')
endif

HOST_ARCH := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ARCH ?= $(HOST_ARCH)
override ARCH := $(patsubst x86_64,x86,$(patsubst aarch64,arm64,$(ARCH)))
ifeq ($(filter $(ARCH),x86 arm64),)
$(error ARCH must be x86 or arm64, not '$(ARCH)')
endif

OUT := build/$(ARCH)$(if $(filter 0,$(STATIC)),-dynamic)
HOSTOUT := build/host

ifeq ($(ARCH),$(HOST_ARCH))
CC := gcc
else ifeq ($(ARCH),arm64)
CC := aarch64-linux-gnu-gcc
else
CC := x86_64-linux-gnu-gcc
endif
CLANG ?= clang
BPFTOOL ?= bpftool
HOSTCC ?= gcc

ifeq ($(V),1)
Q :=
msg :=
else
Q := @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

CFLAGS ?= -O2 -g
WARN := -Wall -Wextra -Werror -Wno-unused-parameter
ALL_CFLAGS := $(CPPFLAGS) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iuser -Ibpf -I$(OUT)
LDLIBS_LOAD := -lpthread
# libyaml and libcrypt: serve --web.config.file (user/webconfig.c); Debian ships both as .a too
LDLIBS := -lbpf -lelf -lz -lzstd -ljansson -lyaml -lcrypt -lpthread -lm
# LDFLAGS from the environment too (dpkg-buildflags' hardening: relro, now)
LDSTATIC := $(if $(filter 1,$(STATIC)),-static)

.DELETE_ON_ERROR:
.PHONY: FORCE safety all setup deps-build test unit vmtest vmtest-quick demo clean vmlinux

all: deps-build $(OUT)/kvmwalk-load $(OUT)/kvmwalk

# A plain build installs nothing: it checks that the build dependencies are there (a few
# dpkg-query calls) and, if not, says which and how to install them. A cross build needs the
# cross group too.
DEPS_GROUPS := build $(if $(filter 1,$(STATIC)),static) $(if $(filter-out $(HOST_ARCH),$(ARCH)),cross)
deps-build:
	$(Q)scripts/setup --check $(DEPS_GROUPS)

# Each goal listed here (not only test and demo) installs what it needs itself, as root, when
# something is missing: `setup` installs the groups of the goals on the command line
# (scripts/setup says which groups hold what).
SETUP_GROUPS_demo := build cross vm
SETUP_GROUPS_unit := build
SETUP_GROUPS_buildcheck := build
SETUP_GROUPS_safety := build cross
SETUP_GROUPS_promcheck := build prom
SETUP_GROUPS_servecheck := build prom
SETUP_GROUPS_vmtest := build cross vm
SETUP_GROUPS_vmtest-quick := build cross vm
SETUP_GROUPS_soak := build cross vm
SETUP_GROUPS_ab := build cross vm
SETUP_GROUPS_vmlinux := build vm
SETUP_GROUPS_bench := build bench
SETUP_GROUPS_fuzz := build fuzz
SETUP_GROUPS_deb := build man deb
SETUP_GROUPS_pkgcheck := build man deb
SETUP_GROUPS_test := build cross vm prom man deb
SETUP_GROUPS := $(sort build static $(foreach g,$(MAKECMDGOALS),$(SETUP_GROUPS_$(g))))
setup:
	$(Q)scripts/setup --if-missing $(SETUP_GROUPS)
# When a goal installs, the build check comes after the install (also under make -j).
ifneq ($(filter $(patsubst SETUP_GROUPS_%,%,$(filter SETUP_GROUPS_%,$(.VARIABLES))),$(MAKECMDGOALS)),)
deps-build: setup
endif

# --- kvmwalk-load: the workload driver -----------------------------------------------------------
LOAD_SRCS := $(wildcard user/load/*.c)
LOAD_OBJS := $(patsubst user/%.c,$(OUT)/%.o,$(LOAD_SRCS))

$(OUT)/%.o: user/%.c $(wildcard user/*.h user/load/*.h bpf/*.h) | deps-build
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(ALL_CFLAGS) -c $< -o $@

$(OUT)/kvmwalk-load: $(LOAD_OBJS)
	$(call msg,LINK,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(LDSTATIC) $(LDFLAGS) $^ -o $@ $(LDLIBS_LOAD)

# --- kvmwalk: probes, loader, record / report / top -----------------------------------------------
# One BPF object per arch: the arch's probe family plus the trigger family and the user-named
# functions (--count/--time, userfn.bpf.c), linked into one object
# (the shared maps are __weak in bpf/kw.bpf.h, so the linker merges them).
BPF_FAMILIES_arm64 := pgtable trigger userfn
BPF_FAMILIES_x86 := tdp trigger userfn
BPF_OBJS := $(patsubst %,$(OUT)/bpf/%.bpf.o,$(BPF_FAMILIES_$(ARCH)))
# Every user/*.c is part of kvmwalk (kvmwalk-load is user/load/, kvmwalk-bench user/bench/).
KVMWALK_SRCS := $(sort $(wildcard user/*.c))
KVMWALK_OBJS := $(patsubst user/%.c,$(OUT)/%.o,$(KVMWALK_SRCS))

$(OUT)/bpf/%.bpf.o: bpf/%.bpf.c $(wildcard bpf/*.h) vmlinux/$(ARCH)/vmlinux.h | deps-build
	$(call msg,BPF,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Wall -Werror -I vmlinux/$(ARCH) -Ibpf \
		-c $< -o $@

$(OUT)/kvmwalk.bpf.o: $(BPF_OBJS)
	$(call msg,GEN-OBJ,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUT)/kvmwalk.skel.h: $(OUT)/kvmwalk.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name kvmwalk_bpf > $@

# The sampled mode (--sample) is an object of its own: it shares no map with the probes.
$(OUT)/sample.skel.h: $(OUT)/bpf/sample.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name kw_sample_bpf > $@
$(OUT)/sampler.o: $(OUT)/sample.skel.h

$(OUT)/loader.o $(OUT)/loader_load.o $(OUT)/loader_attach.o $(OUT)/loader_state.o $(OUT)/collect.o \
	$(OUT)/events.o: $(OUT)/kvmwalk.skel.h

# version.h: VERSION and KW_COMMIT, rewritten only when they change (make unit has its own copy).
define gen_version
	$(Q)mkdir -p $(@D)
	$(Q)printf '/* generated by the Makefile */\n#define KW_VERSION "%s"\n#define KW_COMMIT "%s"\n' \
		'$(VERSION)' '$(KW_COMMIT)' > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@
endef
$(OUT)/version.h: FORCE
	$(gen_version)
$(OUT)/main.o $(OUT)/loader.o $(LOAD_OBJS): $(OUT)/version.h

$(OUT)/kvmwalk: $(KVMWALK_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDSTATIC) $(LDFLAGS) $^ -o $@ $(LDLIBS)

# --- the dirtying guest a real QEMU runs inside the emulated hosts (tests/vm/guests) -------------
# Bare metal, given to QEMU with -kernel: arm64 virt with the MMU off, x86 multiboot (32-bit).
GUEST_LDFLAGS_arm64 := -Wl,-Ttext=0x40080000
GUEST_LDFLAGS_x86 := -m32 -Wl,-Ttext=0x100000
$(OUT)/guests/dirty.elf: tests/vm/guests/dirty-$(ARCH).S | deps-build
	$(call msg,GUEST,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) -nostdlib -static -Wl,-N -Wl,--build-id=none -Wl,--no-warn-rwx-segments \
		$(GUEST_LDFLAGS_$(ARCH)) $< -o $@

# --- unit tests: built and run on the build machine ---------------------------------------------
# Every user/ and user/load/ file except the ones holding main() or touching a kernel (the loader,
# but not its planning, loader_plan.c, and the commands that attach through it) or libmicrohttpd
# is linked in.
UNIT_LIB_SRCS := $(filter-out user/main.c user/loader.c user/loader_load.c user/loader_attach.c \
	user/collect.c user/events.c user/serve.c user/serve_http.c user/probes_cmd.c \
	user/record_cmd.c user/top_cmd.c user/loader_state.c user/sampler.c \
	user/load/main.c user/load/kvm.c user/load/guest_%.c user/load/scenario.c, \
	$(wildcard user/*.c user/load/*.c))
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_TESTS := $(patsubst tests/unit/test_%.c,%,$(UNIT_SRCS))

# The list of tests is rewritten only when it changes (a test added or removed).
$(HOSTOUT)/unit/tests.h: FORCE
	$(Q)mkdir -p $(@D)
	$(Q)printf 'DEFINE_TEST(%s)\n' $(UNIT_TESTS) > $@.tmp
	$(Q)cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

UNIT_DEPS := tests/unit/runner.c tests/unit/test.h $(HOSTOUT)/unit/tests.h $(HOSTOUT)/unit/version.h \
	$(UNIT_SRCS) $(UNIT_LIB_SRCS) \
	$(wildcard user/*.h user/load/*.h bpf/*.h)
UNIT_CC = $(HOSTCC) $(CFLAGS) $(WARN) -std=gnu11 -D_GNU_SOURCE -Iuser -Ibpf -Itests/unit -I$(HOSTOUT)/unit \
	tests/unit/runner.c $(UNIT_SRCS) $(UNIT_LIB_SRCS) -o $@ $(UNIT_LDLIBS)
UNIT_LDLIBS := -ljansson -lyaml -lcrypt -lpthread -lm
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer

$(HOSTOUT)/unit/version.h: FORCE
	$(gen_version)

$(HOSTOUT)/unit/runner: $(UNIT_DEPS) | deps-build
	$(call msg,CC,$@)
	$(Q)$(UNIT_CC)

# The same tests once more under AddressSanitizer and UBSan.
$(HOSTOUT)/unit/runner-san: $(UNIT_DEPS) | deps-build
	$(call msg,CC,$@)
	$(Q)$(UNIT_CC) $(SAN_FLAGS)

unit: setup $(HOSTOUT)/unit/runner $(HOSTOUT)/unit/runner-san
	$(Q)cd tests/unit && ../../$(HOSTOUT)/unit/runner
	$(Q)echo "unit tests under ASan+UBSan:"
	$(Q)cd tests/unit && ASAN_OPTIONS=detect_leaks=1 ../../$(HOSTOUT)/unit/runner-san

# --- make test: everything CI runs -------------------------------------------------------------
# Installs the packages first (scripts/setup says what it will install and upgrade, and how much,
# before apt-get runs; make test-plan says it without installing anything), makes each goal in
# turn and ends with one line of totals (scripts/make-test).
TEST_GOALS := unit includecheck buildcheck pkgcheck promcheck safety vmtest-quick
.PHONY: test-plan
test:
	$(Q)scripts/make-test "$(SETUP_GROUPS)" $(TEST_GOALS)
test-plan:
	$(Q)scripts/setup --plan $(sort build static $(SETUP_GROUPS_test))

# --- emulated hosts -----------------------------------------------------------------------------

# No include loop between the units (a .c and its .h) of user/ and bpf/, and no include from a
# lower layer to a higher one (the layers: scripts/include-layers; scripts/check-includes).
.PHONY: includecheck
includecheck:
	$(Q)scripts/check-includes --layers

# A plain build installs nothing; the test targets install their groups (tests/build/test-deps).
# make demo prints the report first (tests/build/test-demo). Each tests/build/test-* in name order.
BUILD_TESTS := $(sort $(wildcard tests/build/test-*))
.PHONY: buildcheck
buildcheck:
	$(Q)mkdir -p $(HOSTOUT)
	$(Q)for t in $(BUILD_TESTS); do n=$${t##*/}; \
		$$t > $(HOSTOUT)/$$n.log 2>&1 || { cat $(HOSTOUT)/$$n.log; exit 1; }; \
		tail -n 1 $(HOSTOUT)/$$n.log; \
	done

vmtest-quick: setup
	$(Q)scripts/vmtest --suite quick $(VMTEST_ARGS)

vmtest: setup
	$(Q)scripts/vmtest --suite full $(VMTEST_ARGS)

# A/B of the bundled kernel series (patches/): builds kernels, so not part of `make test`.
# Reports in docs/ab/. AB_ARGS, e.g. AB_ARGS='--change split --runs 8 --boots 2'.
.PHONY: ab
ab: setup
	$(Q)scripts/ab $(AB_ARGS)

# The BPF programs of both arches are read-only observers (docs/safety.md).
safety: setup
	$(Q)$(MAKE) -s ARCH=x86 build/x86/kvmwalk.bpf.o build/x86/bpf/sample.bpf.o
	$(Q)$(MAKE) -s ARCH=arm64 build/arm64/kvmwalk.bpf.o build/arm64/bpf/sample.bpf.o
	$(Q)tests/safety/check-readonly build/x86/kvmwalk.bpf.o build/arm64/kvmwalk.bpf.o \
		build/x86/bpf/sample.bpf.o build/arm64/bpf/sample.bpf.o

demo: setup
	$(Q)scripts/demo

vmlinux: setup
	$(Q)scripts/gen-vmlinux

clean:
	$(Q)rm -rf build

# --- fuzzing: `make fuzz` runs each target for FUZZ_SECS under ASan+UBSan (not part of make test) ---
FUZZ_SECS ?= 60
FUZZ_TARGETS := $(patsubst tests/fuzz/fuzz_%.c,%,$(wildcard tests/fuzz/fuzz_*.c))
FUZZ_LIB_SRCS := $(filter-out user/load/%,$(UNIT_LIB_SRCS))

$(HOSTOUT)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c $(FUZZ_LIB_SRCS) $(wildcard user/*.h bpf/*.h) \
		$(HOSTOUT)/unit/version.h | setup
	$(call msg,CLANG,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CLANG) -g -O1 -std=gnu11 -D_GNU_SOURCE -Iuser -Ibpf -I$(HOSTOUT)/unit \
		-fsanitize=fuzzer,address,undefined \
		-fno-sanitize-recover=all $< $(FUZZ_LIB_SRCS) -o $@ -ljansson -lyaml -lcrypt -lpthread -lm

.PHONY: fuzz
fuzz: $(patsubst %,$(HOSTOUT)/fuzz/fuzz_%,$(FUZZ_TARGETS))
	$(Q)for t in $(FUZZ_TARGETS); do \
		mkdir -p $(HOSTOUT)/fuzz/new-$$t; \
		echo "fuzz $$t for $(FUZZ_SECS)s (corpus tests/fuzz/corpus/$$t)"; \
		$(HOSTOUT)/fuzz/fuzz_$$t -max_total_time=$(FUZZ_SECS) -max_len=262144 -print_final_stats=1 \
			$$([ -f tests/fuzz/$$t.dict ] && echo -dict=tests/fuzz/$$t.dict) \
			$(HOSTOUT)/fuzz/new-$$t tests/fuzz/corpus/$$t > $(HOSTOUT)/fuzz/$$t.log 2>&1; \
		rc=$$?; tail -n 12 $(HOSTOUT)/fuzz/$$t.log; \
		[ $$rc = 0 ] || { echo "fuzz $$t: failed (exit $$rc), see $(HOSTOUT)/fuzz/$$t.log"; exit 1; }; \
	done

# --- make bench: probe-body cost table (issue 6, docs/performance.md) ------------------------------
# kvmwalk-bench: its own BPF object and skeleton (bpf/bench.bpf.c includes bpf/kw.bpf.h, so the
# benchmark always times the current probe bodies). scripts/bench installs bpftrace and mounts
# tracefs when needed, then runs it; BENCH_ARGS are passed on (e.g. BENCH_ARGS="-r 21 --cpu 1").
BENCH_SRCS := user/bench/main.c user/bench/probes.c user/bench/empty.c user/bench/table.c \
	user/bench/userspace.c user/stats.c user/hist.c user/probes.c user/record.c user/outfile.c user/report.c \
	user/findings.c user/prom.c user/timeline.c user/svg.c user/userfn.c user/counters.c user/fmt.c \
	user/userfn_opts.c user/ioctls.c user/kvmstats.c user/kvmstats_view.c user/workload.c user/runs.c \
	user/conditions.c user/vmm.c user/report_conditions.c user/sampled.c user/sampled_view.c \
	user/prom_sampled.c
BENCH_OBJS := $(patsubst user/%.c,$(OUT)/%.o,$(BENCH_SRCS))

$(OUT)/bench.skel.h: $(OUT)/bpf/bench.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name bench_bpf > $@

$(BENCH_OBJS): $(wildcard user/bench/*.h)
$(OUT)/bench/probes.o $(OUT)/bench/empty.o: $(OUT)/bench.skel.h

$(OUT)/kvmwalk-bench: $(BENCH_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(CC) $(LDSTATIC) $(LDFLAGS) $^ -o $@ -lbpf -lelf -lz -lzstd -ljansson -lm

.PHONY: bench
bench: setup $(OUT)/kvmwalk-bench
	$(Q)scripts/bench $(OUT)/kvmwalk-bench $(BENCH_ARGS)
# The table printer is plain C: unit-tested with the rest (tests/unit/test_bench.c).
UNIT_LIB_SRCS += user/bench/table.c
$(HOSTOUT)/unit/runner $(HOSTOUT)/unit/runner-san: user/bench/table.c user/bench/bench.h

# --- kvmwalk serve: a static libmicrohttpd without HTTPS (scripts/build-mhd says why) ------------
# So the static kvmwalk serves plain HTTP (and basic authentication), never TLS: serve refuses a
# tls_server_config there, naming why (user/serve_http.h SERVE_HTTP_NO_TLS).
ifeq ($(STATIC),1)
MHD := $(OUT)/mhd
$(MHD)/lib/libmicrohttpd.a: scripts/build-mhd | deps-build
	$(call msg,MHD,$@)
	$(Q)scripts/build-mhd $(ARCH) $(MHD)

# every object that includes <microhttpd.h>
$(OUT)/serve_http.o: ALL_CFLAGS += -I$(MHD)/include
$(OUT)/serve_http.o: $(MHD)/lib/libmicrohttpd.a
# a prerequisite, so it lands in the link line after the objects and before $(LDLIBS)
$(OUT)/kvmwalk: $(MHD)/lib/libmicrohttpd.a
else
# Debian's shared libmicrohttpd, with HTTPS (GnuTLS): serve --web.config.file's TLS. GnuTLS's own
# API checks client certificates (client_auth_type RequireAndVerifyClientCert).
$(OUT)/serve_http.o: ALL_CFLAGS += -DKW_HAVE_GNUTLS
LDLIBS += -lmicrohttpd -lgnutls
endif

# --- make install, make deb -----------------------------------------------------------------------
# Debian's layout under PREFIX (default /usr/local): kvmwalk in bin, where every user's PATH finds
# it (report and compare need no privilege; the commands that attach say so when run without),
# linked from sbin (root's scripts, the unit); kvmwalk-load in sbin (it needs /dev/kvm), man
# pages in section 8 made from each command's --help by help2man (dist/man/*.h2m add what --help
# has no room for), bash completion, the systemd unit with its ExecStart pointing into PREFIX, the
# Grafana dashboard and the Prometheus rules in share/kvmwalk. DESTDIR for staging.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
SBINDIR ?= $(PREFIX)/sbin
MANDIR ?= $(PREFIX)/share/man
DATADIR ?= $(PREFIX)/share/kvmwalk
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
SYSTEMDUNITDIR ?= $(PREFIX)/lib/systemd/system
DOCDIR ?= $(PREFIX)/share/doc/kvmwalk
KW_COMMANDS := probes record report top serve compare
MAN_PAGES := $(OUT)/man/kvmwalk.8 $(patsubst %,$(OUT)/man/kvmwalk-%.8,$(KW_COMMANDS)) \
	$(OUT)/man/kvmwalk-load.8
.PHONY: install man deb pkgcheck
man: $(MAN_PAGES)

# scripts/gen-man: help2man on each command's --help (a cross build's binaries do not run here)
$(OUT)/man/kvmwalk-%.8: $(OUT)/kvmwalk dist/man/kvmwalk-%.h2m dist/man/common.h2m scripts/gen-man
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/gen-man $(VERSION) $@ $< $*
$(OUT)/man/kvmwalk.8 $(OUT)/man/kvmwalk-load.8: $(OUT)/man/%.8: $(OUT)/% dist/man/%.h2m \
		dist/man/common.h2m scripts/gen-man
	$(call msg,MAN,$@)
	$(Q)mkdir -p $(@D)
	$(Q)scripts/gen-man $(VERSION) $@ $<

$(OUT)/kvmwalk-serve.service: dist/kvmwalk-serve.service.in
	$(Q)sed 's|@SBINDIR@|$(SBINDIR)|g' $< > $@

install: deps-install all man $(OUT)/kvmwalk-serve.service
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(SBINDIR) $(DESTDIR)$(MANDIR)/man8 \
		$(DESTDIR)$(DATADIR)/dashboards $(DESTDIR)$(BASHCOMPDIR) $(DESTDIR)$(SYSTEMDUNITDIR)
	install -m 0755 $(OUT)/kvmwalk $(DESTDIR)$(BINDIR)/
	ln -sfr $(DESTDIR)$(BINDIR)/kvmwalk $(DESTDIR)$(SBINDIR)/kvmwalk
	install -m 0755 $(OUT)/kvmwalk-load $(DESTDIR)$(SBINDIR)/
	install -m 0644 $(MAN_PAGES) $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 dist/kvmwalk.bash-completion $(DESTDIR)$(BASHCOMPDIR)/kvmwalk
	ln -sf kvmwalk $(DESTDIR)$(BASHCOMPDIR)/kvmwalk-load
	install -m 0644 $(OUT)/kvmwalk-serve.service $(DESTDIR)$(SYSTEMDUNITDIR)/
	install -m 0644 dashboards/kvmwalk.json $(DESTDIR)$(DATADIR)/dashboards/
	install -m 0644 dashboards/kvmwalk.rules.yml $(DESTDIR)$(DATADIR)/
	install -d $(DESTDIR)$(DOCDIR)
	install -m 0644 README.md docs/recording-format.md docs/performance.md $(DESTDIR)$(DOCDIR)/
	install -m 0644 dashboards/README.md $(DESTDIR)$(DOCDIR)/dashboards.md

.PHONY: deps-install
deps-install:
	$(Q)scripts/setup --check $(DEPS_GROUPS) man

# The Debian package, built the Debian way (debian/, debhelper, dpkg-buildpackage -b) in a copy
# of the tree under build/deb, so that the .deb, .buildinfo and .changes land there and not in
# the parent of the checkout. Dynamically linked (STATIC=0, debian/rules). lintian runs after.
DEB_ARCH := $(shell dpkg --print-architecture 2>/dev/null)
DEB := build/deb/kvmwalk_$(VERSION)_$(DEB_ARCH).deb
deb: setup
	$(Q)rm -rf build/deb && mkdir -p build/deb/kvmwalk-$(VERSION)
	$(Q)tar --exclude=./build --exclude=./.git -cf - . | tar -xf - -C build/deb/kvmwalk-$(VERSION)
	$(Q)cd build/deb/kvmwalk-$(VERSION) && dpkg-buildpackage -b -us -uc > ../build.log 2>&1 || \
		{ tail -n 40 ../build.log; exit 1; }
	$(Q)echo "  DEB      $(DEB)"
	$(Q)lintian --info --display-info $(DEB) build/deb/*.changes > build/deb/lintian.log 2>&1; \
		grep -E '^[EWIP]: ' build/deb/lintian.log; \
		! grep -Eq '^[EW]: ' build/deb/lintian.log || \
		{ echo "deb: lintian found errors or warnings (build/deb/lintian.log)"; exit 1; }; \
		echo "  LINTIAN  no errors, no warnings, no info tags left unexplained (debian/*.lintian-overrides)"

# The package installed on this machine, used, removed (tests/pkg/test-deb; root), and make
# install into a staging folder (tests/pkg/test-install). Part of make test.
pkgcheck: setup
	$(Q)mkdir -p $(HOSTOUT)
	$(Q)tests/pkg/test-install > $(HOSTOUT)/test-install.log 2>&1 || { cat $(HOSTOUT)/test-install.log; exit 1; }
	$(Q)tail -n 1 $(HOSTOUT)/test-install.log
	$(Q)if [ "$$(id -u)" != 0 ]; then echo "pkgcheck: test-deb skipped (needs root)"; else \
		$(MAKE) -s deb > $(HOSTOUT)/make-deb.log 2>&1 || { cat $(HOSTOUT)/make-deb.log; exit 1; }; \
		tests/pkg/test-deb $(DEB) > $(HOSTOUT)/test-deb.log 2>&1 || { cat $(HOSTOUT)/test-deb.log; exit 1; }; \
		tail -n 1 $(HOSTOUT)/test-deb.log; \
	fi

# --- make promcheck: metric names in dashboards/ vs the exposition, promtool on rules and metrics --
.PHONY: promcheck
# (the golden expositions it checks against are kept in step with user/prom.c by `make unit`)
promcheck: setup
	$(Q)tests/prom/check-names
	$(Q)tests/prom/test-check-names
	$(Q)promtool test rules tests/prom/rules.test.yml

# --- make soak: kvmwalk serve for SOAK_SECS under a mixed workload, scraped every second (issue 7) --
# The `soak` case of tests/vm/cases in the arm64 7.3 VHE emulated host; not part of make test.
SOAK_SECS ?= 1800
.PHONY: soak
soak: setup
	$(Q)scripts/vmtest --case soak --arch arm64 --kernel 7.3 --mode vhe --env SOAK_SECS=$(SOAK_SECS) $(VMTEST_ARGS)

# --- the host tests, tests/host/test-*: kvmwalk against this machine's kernel (root: they load BPF
# programs; skipped otherwise), run in name order, each given the kvmwalk binary and ending with
# "test-NAME: N passed, N failed" (a new tests/host/test-NAME runs with them):
# - test-checkpoint (~20 s): record --checkpoint: killed with SIGKILL, its FILE is a checkpoint
#   that report reads; ended normally, FILE is the whole recording and FILE.old the file from
#   before;
# - test-cli (~5 s): every --help example runs as written (KVMWALK_TEST_ARGS_ONLY), record's free
#   word before -- refused, did you mean, --vm that matched nothing said, probes' verdict,
#   corrupt recordings exit 8 naming the member;
# - test-pid-filter (~2 s): record --pid A and --pid A,B count exactly the KVM ioctls of those
#   kvmwalk-load processes; bad lists refused before attaching;
# - test-prometheus (~15 s): a real Prometheus server scrapes serve on loopback while kvmwalk-load
#   makes KVM ioctls; its HTTP API's trigger counts equal the load's --json;
# - test-record-output (~3 s): record -o refuses an unwritable output before attaching, keeps
#   FILE.old, survives a full disk;
# - test-serve: serve on loopback: privileges, exposition, textfile;
# - test-serve-abuse: malformed and oversized requests, a slow client, connection floods while a
#   well-behaved client scrapes;
# - test-serve-load (~25 s): 500 idle connections from 50 addresses and wrk's flood for 20 s while
#   a client scrapes every 0.5 s: no scrape fails, the log stays at a few lines;
# - test-serve-tls (~15 s): --web.config.file: the static build refuses TLS and does basic auth;
#   the shared build (STATIC=0, made here too) with curl over TLS (passwords, TLS versions,
#   client certificates) and a real Prometheus scraping it over https with basic auth;
# - test-top (~10 s): top in a tmux terminal, its keys sent and its screens read back, the
#   terminal's settings restored after q, Ctrl-C and SIGTERM; its lines without a terminal;
# - test-tracefs (~5 s): the tracepoint fallback with tracefs unmounted, mountable or not, in a
#   private mount namespace;
# - test-write-errors (~3 s): report, probes and compare into /dev/full fail with a message;
#   compare --output and --plot, report --plot keep FILE.old and survive a full disk.
# Part of promcheck, so of make test.
HOST_TESTS := $(sort $(wildcard tests/host/test-*))
.PHONY: servecheck
servecheck: setup
	$(Q)$(MAKE) -s ARCH=$(HOST_ARCH) build/$(HOST_ARCH)/kvmwalk build/$(HOST_ARCH)/kvmwalk-load
	$(Q)$(MAKE) -s ARCH=$(HOST_ARCH) STATIC=0 build/$(HOST_ARCH)-dynamic/kvmwalk
	$(Q)mkdir -p $(HOSTOUT)
	$(Q)if [ "$$(id -u)" != 0 ]; then echo "servecheck: skipped (needs root)"; else \
		for t in $(HOST_TESTS); do \
			n=$${t##*/}; \
			$$t build/$(HOST_ARCH)/kvmwalk > $(HOSTOUT)/$$n.log 2>&1; rc=$$?; \
			tail -n 1 $(HOSTOUT)/$$n.log; \
			[ $$rc = 0 ] || { grep FAIL $(HOSTOUT)/$$n.log; exit 1; }; \
		done; \
	fi
promcheck: servecheck
