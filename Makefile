# SPDX-License-Identifier: GPL-2.0
#
# mmc-coalesce: two jobs in one file.
#  - Under kbuild (in tree, or out of tree with make -C $KDIR M=$PWD) it
#    lists the drivers.
#  - Run directly it is the developer entry point: make help.

ifneq ($(KERNELRELEASE),)

obj-y += drivers/mmc/

else

TOP := $(CURDIR)
BUILD := $(TOP)/build
# The kernel `make modules` and `make install` build against: KDIR when
# given, else the running kernel's build tree (qemu/setup/install.sh).
# The guest's modules are built against the guest kernel, by `make guest`.
GUEST_KDIR := $(BUILD)/kernel-x86_64
CARDTRACE := $(BUILD)/host/cardtrace
# The unit tests run the analyzer built with the address and UB sanitizers.
CARDTRACE_SAN := $(BUILD)/host/cardtrace-san
HOST_CFLAGS := -O2 -g -Wall -Wextra -Wshadow -Werror
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all

.PHONY: all help cardtrace deps kernel kernel-6.12 guest guest-modules modules kernel-patch unit lint removal-test qemu-test e500-test debug-test kcsan-test crash-test soak bench bench-timed trixie-root demo check install uninstall install-test dkms clean distclean

all: modules

# One line per target. Durations are read from the measured table in
# Documentation/benchmarks.md ("How long things take"), not restated here.
D := qemu/setup/duration.sh
help:
	@echo "make demo          the seed's workload on a timed emulated SD card, the stock kernel vs ours, side by side (usually $$($(D) demo) once the kernel is built)"
	@echo "make check         every test, what CI runs; prints KTAP, the last line is 'N passed, N failed' (usually $$($(D) check))"
	@echo "make unit          host-only tests (usually $$($(D) unit))"
	@echo "make lint          checkpatch --strict on the C and on every kernel series, W=1 and sparse, shellcheck and SPDX on every file (usually $$($(D) lint))"
	@echo "make qemu-test     the x86_64 QEMU scenarios, stock and ours (usually $$($(D) qemu-test))"
	@echo "make e500-test     the e500 kernels from the kernel-patch series (our host driver; stock sdhci-of-esdhc with its fixes) booted on ppce500 (usually $$($(D) e500-test))"
	@echo "make removal-test  card pulled, controller unplugged, rmmod, unbind under load (usually $$($(D) removal-test))"
	@echo "make crash-test    kill QEMU mid-write, reboot, check nothing fsynced was lost (usually $$($(D) crash-test))"
	@echo "make soak          the same, 100 kill points per stack setting (usually $$($(D) soak))"
	@echo "make debug-test    our stack on a KASAN/lockdep/kmemleak guest kernel (usually $$($(D) debug-test) once built)"
	@echo "make kcsan-test    the driver and seed scenarios on a 6.12 guest kernel with the data race detector (a cold kernel build of its own, then about 15 minutes)"
	@echo "make bench         card-level benchmark, every scenario and elevator (usually $$($(D) bench))"
	@echo "make bench-timed   the bench on a timed card: guest MB/s, sync, fsync latency (usually $$($(D) bench-timed))"
	@echo "make modules       the drivers out of tree against the running kernel's headers (or KDIR=...); installs and boots nothing"
	@echo "make cardtrace     the card-trace analyzer alone (build/host/cardtrace), for a trace taken on a board"
	@echo "make kernel-patch  the drivers as git format-patch series against Linux 6.1 and 6.12, and fixes for stock sdhci-of-esdhc against 6.1, checked (build/kernel-patch/)"
	@echo "make install       build against the running kernel (or KDIR), modules_install, depmod, the udev rule"
	@echo "make uninstall     remove what make install put in place (the modules, the udev rule), then depmod"
	@echo "make dkms          register the scheduler with DKMS, build and install it for the running kernel (or KVER)"
	@echo "make install-test  the install group: make install staged, DKMS against Debian's 6.1 headers"
	@echo "make guest         x86_64 guest kernel + initramfs (cold: usually $$($(D) kernel-x86_64))"
	@echo "make kernel-6.12   the same guest kernel from Debian 13's linux-source-6.12 (cold: usually $$($(D) kernel-x86_64-6.12))"
	@echo "make trixie-root   the Debian 13 root with QEMU 10 (its e500 eSDHC model), under build/"
	@echo "make clean         remove every output (build/ except the kernel sources and the Debian 13 root)"
	@echo "make distclean     remove build/ entirely"

# What building and running the x86_64 guest needs; the PowerPC
# toolchain, gnuplot and nbdkit are installed by the steps that use them.
deps:
	@qemu/setup/deps.sh build qemu guest

kernel: deps
	@qemu/setup/kernel.sh x86_64

# The same x86_64 guest from Debian 13's linux-source-6.12 (taken from the
# Debian 13 root under build/)
kernel-6.12: deps
	@qemu/setup/kernel.sh x86_64-6.12

# For a user's own kernel: no packages installed, no guest kernel built.
modules:
	@qemu/setup/install.sh --build-only

# For the guests: against the guest kernel, which this builds first.
guest-modules: kernel
	@mkdir -p $(BUILD)/modules-x86_64
	@$(MAKE) -s -C $(GUEST_KDIR) M=$(TOP) modules
	@find $(TOP)/drivers -name '*.ko' -exec cp {} $(BUILD)/modules-x86_64/ \;
	@# the guest test module both kernels take (flushrace needs 6.5+)
	@$(MAKE) -s -C $(GUEST_KDIR) M=$(TOP)/qemu/guest/syncstarve W=1 modules
	@cp $(TOP)/qemu/guest/syncstarve/syncstarve.ko $(BUILD)/modules-x86_64/

# The series in build/kernel-patch/6.1/ and 6.12/, made from the
# project's files, checked (applies with git apply, patch -p1 and git am;
# checkpatch).
kernel-patch:
	@qemu/setup/kernel-source.sh 6.1
	@qemu/setup/kernel-source.sh 6.12
	@qemu/setup/kernel-patch.sh --check
	@qemu/setup/kernel-patch.sh --check --base $(BUILD)/linux-6.12

guest: guest-modules
	@qemu/initramfs.sh

# The trace analyzer alone, for a trace taken on a board (admin-guide.md,
# "Measure your own card")
cardtrace: $(CARDTRACE)

$(CARDTRACE): tests/tools/cardtrace/cardtrace.c tests/tools/cardtrace/card-model.c tests/tools/cardtrace/card-model.h tests/tools/cardtrace/card-floor.c tests/tools/cardtrace/card-floor.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $(filter %.c,$^)

$(CARDTRACE_SAN): tests/tools/cardtrace/cardtrace.c tests/tools/cardtrace/card-model.c tests/tools/cardtrace/card-model.h tests/tools/cardtrace/card-floor.c tests/tools/cardtrace/card-floor.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) $(SAN_FLAGS) -o $@ $(filter %.c,$^)

# A fresh clone: the build packages and build/linux-6.1 (tests/window
# builds the kernel's rbtree) first, then the analyzer.
unit:
	@qemu/setup/kernel-source.sh
	@$(MAKE) -s $(CARDTRACE) $(CARDTRACE_SAN)
	@tests/check.sh unit

qemu-test: guest $(CARDTRACE)
	@tests/check.sh qemu

e500-test: deps $(CARDTRACE)
	@tests/check.sh e500

debug-test: deps $(CARDTRACE)
	@tests/check.sh debug

kcsan-test: deps
	@tests/kcsan-tests.sh

lint: kernel kernel-6.12
	@tests/check.sh lint

removal-test: guest
	@tests/check.sh removal

crash-test: guest
	@tests/check.sh crash

soak: guest
	@tests/crash-tests.sh --soak 100

check: deps
	@tests/check.sh --guest unit install qemu crash removal blktests e500 6.12 lint

trixie-root:
	@qemu/setup/trixie-root.sh qemu-system-ppc

bench-timed: guest $(CARDTRACE)
	@qemu/bench-timed.sh

bench: guest $(CARDTRACE)
	@qemu/bench.sh

demo: guest $(CARDTRACE)
	@qemu/demo.sh

install:
	@qemu/setup/install.sh

uninstall:
	@qemu/setup/install.sh --uninstall

dkms:
	@qemu/setup/dkms.sh

install-test: kernel
	@tests/check.sh install

# Outputs live under build/ (and kbuild's objects beside the sources).
# The extracted kernel sources and the Debian 13 root are inputs, kept by
# clean (remaking them takes minutes); distclean removes them too.
KEEP := linux-6.1 linux-6.12 trixie-root
clean:
	@$(MAKE) -s -C $(GUEST_KDIR) M=$(TOP) clean 2>/dev/null || true
	@find $(TOP)/drivers \( -name '*.o' -o -name '*.ko' -o -name '*.mod' \
		-o -name '*.mod.c' -o -name '.*.cmd' -o -name 'modules.order' \) -delete
	@rm -f $(TOP)/modules.order $(TOP)/Module.symvers
	@mkdir -p $(BUILD)
	@find $(BUILD) -mindepth 1 -maxdepth 1 $(foreach k,$(KEEP),! -name $(k)) \
		-exec rm -rf {} +
	@echo "clean: build/ holds only $(KEEP) (make distclean removes them too)"

distclean: clean
	@! mountpoint -q $(BUILD)/trixie-root/proc || umount $(BUILD)/trixie-root/proc
	rm -rf $(BUILD)

endif
