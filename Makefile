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
KDIR ?= $(BUILD)/kernel-x86_64
CARDTRACE := $(BUILD)/host/cardtrace
# The unit tests run the analyzer built with the address and UB sanitizers.
CARDTRACE_SAN := $(BUILD)/host/cardtrace-san
HOST_CFLAGS := -O2 -g -Wall -Wextra -Wshadow -Werror
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all

.PHONY: all help deps kernel guest modules unit lint removal-test qemu-test e500-test debug-test crash-test soak bench bench-timed trixie-root demo check clean

all: modules

help:
	@echo "make demo       the seed's workload on a timed emulated SD card, stock vs ours"
	@echo "make check      every test (what CI runs); last line: N passed, N failed"
	@echo "make unit       host-only tests (seconds)"
	@echo "make qemu-test  the QEMU scenarios (minutes)"
	@echo "make e500-test  e500 kernel with our drivers built in, booted on ppce500"
	@echo "make debug-test our stack on a KASAN/lockdep/kmemleak guest kernel (long)"
	@echo "make lint       checkpatch --strict, W=1 and sparse on our code (a minute)"
	@echo "make removal-test  card pulled, controller unplugged, rmmod, unbind under load (~3 min)"
	@echo "make crash-test kill QEMU mid-write, reboot, check nothing fsynced was lost (~7 min)"
	@echo "make soak       the same, 100 kill points per stack setting (~70 min)"
	@echo "make bench      card-level benchmark, every scenario and elevator (40-75 minutes)"
	@echo "make bench-timed  the bench on a timed card: guest MB/s, sync, fsync latency (65 min-2 h)"
	@echo "make modules    build the drivers out of tree against build/kernel-x86_64"
	@echo "make guest      guest kernel + initramfs (first time 10-15 minutes)"
	@echo "make trixie-root  the Debian 13 root with QEMU 10 (its e500 eSDHC model), under build/"

deps:
	@qemu/setup/deps.sh build qemu guest ppc plot

kernel: deps
	@qemu/setup/kernel.sh x86_64

modules: kernel
	@mkdir -p $(BUILD)/modules-x86_64
	@$(MAKE) -s -C $(KDIR) M=$(TOP) modules
	@find $(TOP)/drivers -name '*.ko' -exec cp {} $(BUILD)/modules-x86_64/ \;

guest: modules
	@qemu/initramfs.sh

$(CARDTRACE): tests/tools/cardtrace/cardtrace.c tests/tools/cardtrace/card-model.c tests/tools/cardtrace/card-model.h
	@mkdir -p $(dir $@)
	$(CC) $(HOST_CFLAGS) -o $@ $(filter %.c,$^)

$(CARDTRACE_SAN): tests/tools/cardtrace/cardtrace.c tests/tools/cardtrace/card-model.c tests/tools/cardtrace/card-model.h
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

lint: kernel
	@tests/check.sh lint

removal-test: guest
	@tests/check.sh removal

crash-test: guest
	@tests/check.sh crash

soak: guest
	@tests/crash-tests.sh --soak 100

check: deps
	@$(MAKE) -s guest $(CARDTRACE) $(CARDTRACE_SAN)
	@tests/check.sh unit lint qemu e500 crash removal blktests

trixie-root:
	@qemu/setup/trixie-root.sh qemu-system-ppc

bench-timed: guest $(CARDTRACE)
	@qemu/bench-timed.sh

bench: guest $(CARDTRACE)
	@qemu/bench.sh

demo: guest $(CARDTRACE)
	@qemu/demo.sh

clean:
	@$(MAKE) -s -C $(KDIR) M=$(TOP) clean 2>/dev/null || true
	rm -rf $(BUILD)/host $(BUILD)/runs

endif
