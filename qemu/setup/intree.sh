#!/usr/bin/env bash
# Carry mmc-coalesce inside a kernel tree, the way a board vendor would:
# copy the project to drivers/mmc-coalesce/ and hook its Kconfig and
# Makefile into drivers/Kconfig and drivers/Makefile. Idempotent: run it
# again after changing the project to refresh the copy.
# Usage: qemu/setup/intree.sh KERNEL_SOURCE_DIR
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ksrc=${1:?usage: intree.sh KERNEL_SOURCE_DIR}
[ -f "$ksrc/drivers/Kconfig" ] && [ -f "$ksrc/drivers/Makefile" ] || {
	echo "intree.sh: $ksrc does not look like a kernel source tree" >&2
	exit 2
}
dest=$ksrc/drivers/mmc-coalesce
rm -rf "$dest"
mkdir -p "$dest"
# Sources only: no build products from out-of-tree builds.
tar -C "$top" -cf - --exclude='*.o' --exclude='*.ko' --exclude='*.mod*' \
	--exclude='.*.cmd' --exclude='modules.order' \
	Kconfig Makefile drivers include | tar -C "$dest" -xf -

# Files are replaced, never edited in place, so a tree that shares its
# files with another through hard links (cp -al) leaves the other alone.
if ! grep -q 'drivers/mmc-coalesce/Kconfig' "$ksrc/drivers/Kconfig"; then
	# before the final endmenu of drivers/Kconfig
	{ sed '$ d' "$ksrc/drivers/Kconfig"
	  printf 'source "drivers/mmc-coalesce/Kconfig"\n\nendmenu\n'; } >"$ksrc/drivers/Kconfig.new"
	mv "$ksrc/drivers/Kconfig.new" "$ksrc/drivers/Kconfig"
fi
# obj-y: the I/O scheduler needs only the block layer, not MMC.
hook='obj-y				+= mmc-coalesce/'
if ! grep -qxF "$hook" "$ksrc/drivers/Makefile"; then
	{ grep -v 'mmc-coalesce/' "$ksrc/drivers/Makefile"
	  echo "$hook"; } >"$ksrc/drivers/Makefile.new"
	mv "$ksrc/drivers/Makefile.new" "$ksrc/drivers/Makefile"
fi
echo "intree: project copied to ${dest#$ksrc/} and hooked into drivers/Kconfig, drivers/Makefile"
