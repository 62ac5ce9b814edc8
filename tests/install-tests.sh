#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# make install, staged: build against the x86_64 guest kernel's tree and
# install into a scratch root (INSTALL_MOD_PATH, DESTDIR), then check what
# landed where; and that bad input (no such KDIR, an unbuilt tree) stops
# with a clear message and installs nothing.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
kdir=$top/build/kernel-x86_64
stage=$top/build/install-stage
ktap_begin install

if [ ! -f "$kdir/include/config/kernel.release" ]; then
	ko install/setup "no built kernel in build/kernel-x86_64 (make kernel)"
	ktap_end
	exit
fi
release=$(cat "$kdir/include/config/kernel.release")
rm -rf "$stage"
log=$stage.log
if KDIR=$kdir INSTALL_MOD_PATH=$stage make -s -C "$top" install >"$log" 2>&1; then
	ok install/make_install
else
	ko install/make_install "exit $?; see $log"
fi
mods=$stage/lib/modules/$release
for m in drivers/mmc/coalesce/coalesce-iosched.ko drivers/mmc/host/sdhci_esdhc_e500_test.ko; do
	name=$(basename "$m" .ko)
	if [ -f "$mods/updates/$m" ]; then
		ok "install/module_installed/$name"
	else
		ko "install/module_installed/$name" "no $mods/updates/$m"
	fi
	if grep -q "^updates/$m:" "$mods/modules.dep" 2>/dev/null; then
		ok "install/depmod_lists/$name"
	else
		ko "install/depmod_lists/$name" "updates/$m not in modules.dep"
	fi
done
# the host driver binds only e500 device trees: an x86_64 kernel has no
# device tree, so nothing of it but its KUnit tests is built or installed
if [ -z "$(find "$mods" -name 'sdhci-esdhc-e500.ko' 2>/dev/null)" ]; then
	ok install/no_host_driver_without_device_tree
else
	ko install/no_host_driver_without_device_tree "$(find "$mods" -name 'sdhci-esdhc-e500.ko')"
fi
rule=$stage/etc/udev/rules.d/60-coalesce-iosched.rules
if cmp -s "$rule" "$top/Documentation/60-coalesce-iosched.rules"; then
	ok install/udev_rule
else
	ko install/udev_rule "$rule missing or not the one in Documentation/"
fi
# the scheduler module names its tunables (module parameters)
if /sbin/modinfo -F parm "$mods/updates/drivers/mmc/coalesce/coalesce-iosched.ko" 2>/dev/null |
	grep -q '^hold_ms:'; then
	ok install/modinfo_parameters
else
	ko install/modinfo_parameters "modinfo shows no hold_ms parameter"
fi

# make uninstall takes out what make install put in, and only that
touch "$mods/updates/keep-me"
if KDIR=$kdir INSTALL_MOD_PATH=$stage make -s -C "$top" uninstall >>"$log" 2>&1 &&
	[ -z "$(find "$stage" -name '*.ko' -o -name '60-coalesce-iosched.rules')" ] &&
	[ -e "$mods/updates/keep-me" ] && ! grep -q '^updates/drivers/mmc/' "$mods/modules.dep"; then
	ok install/make_uninstall
else
	ko install/make_uninstall "left: $(find "$stage" -name '*.ko' -o -name '60-coalesce-iosched.rules' | tr '\n' ' '); see $log"
fi

# bad input: a clear message, a non-zero exit, nothing installed
bad=$stage-bad
rm -rf "$bad"
out=$(KDIR=/nonexistent INSTALL_MOD_PATH=$bad make -s -C "$top" install 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q 'not a kernel build tree' && [ ! -e "$bad" ]; then
	ok install/bad_kdir_refused
else
	ko install/bad_kdir_refused "rc=$rc, output: $out"
fi
mkdir -p "$bad/empty" && touch "$bad/empty/Makefile"
out=$(KDIR=$bad/empty INSTALL_MOD_PATH=$bad/root make -s -C "$top" install 2>&1)
rc=$?
if [ $rc != 0 ] && echo "$out" | grep -q 'not configured and built' && [ ! -e "$bad/root" ]; then
	ok install/unbuilt_kdir_refused
else
	ko install/unbuilt_kdir_refused "rc=$rc, output: $out"
fi
rm -rf "$bad"

# DKMS, the way Debian users install out-of-tree modules: make dkms
# against Debian's own current linux-headers-amd64 (and linux-source-6.1
# for the block layer's private headers), into a scratch root, then
# modprobe there must find the module for that kernel.
dk=$stage-dkms
rm -rf "$dk"
if "$top/qemu/setup/deps.sh" dkms >"$stage-deps.log" 2>&1; then
	hdr=$(find /usr/src -maxdepth 1 -name 'linux-headers-*-amd64' | sort -V | tail -n 1)
	kver=${hdr#/usr/src/linux-headers-}
	if [ -z "$hdr" ]; then
		ko install/dkms_install "no /usr/src/linux-headers-*-amd64 after deps.sh dkms"
	elif DKMS_ROOT=$dk KVER=$kver make -s -C "$top" dkms >"$dk.log" 2>&1; then
		ok install/dkms_install
		diag "dkms: built and installed for Debian's $kver"
	else
		ko install/dkms_install "make dkms KVER=$kver failed; see ${dk#"$top"/}.log"
	fi
	# the staged source and DKMS's build carry the scheduler only
	if [ -n "$hdr" ] && [ -d "$dk/usr/src" ] &&
		[ -z "$(find "$dk/usr/src" "$dk/var/lib/dkms" \( -path '*/mmc/host*' -o -name 'sdhci*' \) -print -quit)" ]; then
		ok install/dkms_ships_scheduler_only
	else
		ko install/dkms_ships_scheduler_only "host driver files under ${dk#"$top"/}: $(find "$dk" -path '*/mmc/host*' -print -quit)"
	fi
	# a kernel without its linux-source: one line naming the package,
	# and nothing staged, registered or installed
	nosrc=$stage-dkms-nosrc
	rm -rf "$nosrc"
	mkdir -p "$nosrc/no-sources"
	out=$(DKMS_ROOT=$nosrc/root LINUX_SOURCE_DIR=$nosrc/no-sources KVER=$kver \
		make -s -C "$top" dkms 2>&1)
	rc=$?
	# (make's own "make: ***" line, "make[1]:" under make install-test)
	said=$(printf '%s\n' "$out" | grep -Ev '^make(\[[0-9]+\])?: ')
	if [ -n "$hdr" ] && [ $rc != 0 ] && [ "$(printf '%s\n' "$said" | grep -c .)" = 1 ] &&
		printf '%s\n' "$said" | grep -q "install Debian's linux-source-$(echo "$kver" | cut -d. -f1,2) " &&
		[ ! -e "$nosrc/root" ]; then
		ok install/dkms_no_linux_source_refused
	else
		ko install/dkms_no_linux_source_refused "rc=$rc, output: $out; $(find "$nosrc/root" -print -quit 2>/dev/null)"
	fi
	rm -rf "$nosrc"
	# make install against the same headers (no block/ in them)
	rm -rf "$dk-install"
	if [ -n "$hdr" ] && KDIR=/lib/modules/$kver/build INSTALL_MOD_PATH=$dk-install \
		make -s -C "$top" install >"$dk-install.log" 2>&1 &&
		[ -f "$dk-install/lib/modules/$kver/updates/drivers/mmc/coalesce/coalesce-iosched.ko" ]; then
		ok install/make_install_distribution_headers
	else
		ko install/make_install_distribution_headers "make install KDIR=/lib/modules/$kver/build; see ${dk#"$top"/}-install.log"
	fi
	depmod -b "$dk" "$kver" 2>/dev/null
	if [ -n "$hdr" ] && modprobe -d "$dk" -S "$kver" --dry-run coalesce-iosched >>"$dk.log" 2>&1 &&
		[ "$(modinfo -b "$dk" -k "$kver" -F vermagic coalesce-iosched 2>/dev/null | cut -d' ' -f1)" = "$kver" ]; then
		ok install/dkms_modprobe_finds_module
	else
		ko install/dkms_modprobe_finds_module "modprobe -d $dk -S $kver --dry-run coalesce-iosched found no module built for $kver"
	fi
else
	ko install/dkms_install "qemu/setup/deps.sh dkms failed; see ${stage#"$top"/}-deps.log"
fi
ktap_end
