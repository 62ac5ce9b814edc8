#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Fresh-machine check: does a make target work on a clean Debian 12 with
# nothing but git and make? Builds a minimal bookworm root with debootstrap
# under build/fresh-machine/, clones the committed HEAD of this repository
# into it (not the working tree), runs `make TARGET` there as root, and
# reports whether it worked with the log and the time taken. Everything else
# (compilers, kernel source, QEMU, ...) must be installed by the project's
# own scripts (qemu/setup/deps.sh). The verdict comes last, as a KTAP
# document of one test (tests/lib/ktap.sh): "make TARGET on a fresh
# Debian 12 root", or the step that failed before it.
#
# Usage: tests/fresh-machine.sh [--target TARGET | --ci] [--from GITDIR] [--keep]
#                               [--ccache DIR] [--mirror URL] [--root DIR]
#        tests/fresh-machine.sh --clean [--root DIR]
#
#   --target T    the make target(s), quoted if several (default: demo)
#   --ci          what CI runs instead, `bash .ci/run` (make check with
#                 MMCC_CI=1), with the blktests snapshot beside the source
#                 (../shared/blktests) bind-mounted beside the clone
#   --from DIR    clone this repository's HEAD instead of this one's (e.g.
#                 a scratch clone with uncommitted changes committed)
#   --keep        keep the root afterwards (for inspection: chroot DIR bash;
#                 /proc, /sys and /dev are unmounted all the same)
#   --ccache DIR  share this ccache directory (bind-mounted as the root's
#                 /var/cache/mmc-coalesce-ccache); default: none, a cold
#                 build like a new machine's
#   --mirror URL  the Debian mirror (default: the host's apt sources, else
#                 http://deb.debian.org/debian)
#   --root DIR    where the root goes (default build/fresh-machine/root);
#                 a previous root there is removed first: nothing is reused
#   --clean       unmount and remove a kept root, then exit
#
# Needs root on the host (debootstrap, chroot, mount); installs
# debootstrap with apt-get when it is missing. How long each target takes
# in a fresh root: the fresh-root, unit-fresh, demo-fresh and trixie-root
# rows of Documentation/benchmarks.md ("How long things take").
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"

target=demo from=$top keep=0 ccache='' mirror='' root=$top/build/fresh-machine/root clean=0
while [ $# -gt 0 ]; do
	case $1 in
	--target) target=$2; shift ;;
	--ci) target=ci ;;
	--from) from=$2; shift ;;
	--keep) keep=1 ;;
	--ccache) ccache=$2; shift ;;
	--mirror) mirror=$2; shift ;;
	--root) root=$2; shift ;;
	--clean) clean=1 ;;
	-h | --help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
	*) echo "fresh-machine.sh: unknown argument '$1' (--help)" >&2; exit 2 ;;
	esac
	shift
done

die() { echo "fresh-machine.sh: $*" >&2; exit 2; }
# verdict STEP WHY: a step before make failed, as the one test's result
verdict() {
	ktap_begin fresh-machine 1
	ko "$1" "$2"
	ktap_end || :
}
[ "$(id -u)" = 0 ] || die "needs root (debootstrap, chroot, mount)"
mkdir -p "$(dirname "$root")"
root=$(cd "$(dirname "$root")" && pwd)/$(basename "$root")
case $root in
/ | *[[:space:]]*) die "--root '$root': not a usable path" ;;
esac
marker=$root/.fresh-machine-root
logs=$(dirname "$root")/logs
# The clone sits at this repository's own path inside the root: the
# kernel's command lines carry absolute source paths, which ccache hashes,
# so only the same path lets --ccache hit.
guest_src=$top

t_start=$(date +%s)
t_step=$t_start
step() { # what is done next, and how long it usually takes
	local now
	now=$(date +%s)
	echo "== [$(date +%H:%M:%S), +$((now - t_start)) s] $*"
	t_step=$now
}
took() { echo "   done in $(($(date +%s) - t_step)) s"; }

# Mounts below the root, deepest first.
mounts_below() {
	awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/self/mounts |
		sort -r
}

# Processes whose root directory is the chroot: ours (make, QEMU, ...).
chroot_pids() {
	local p
	for p in /proc/[0-9]*; do
		[ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && echo "${p#/proc/}"
	done
	return 0
}

unmount_all() {
	local pids m
	pids=$(chroot_pids)
	if [ -n "$pids" ]; then
		# shellcheck disable=SC2086,SC2116 # the PIDs on one line
		echo "fresh-machine: stopping processes left in the root: $(echo $pids)"
		# shellcheck disable=SC2086 # the PIDs, a word each
		kill -TERM $pids 2>/dev/null || true
		sleep 2
		pids=$(chroot_pids)
		# shellcheck disable=SC2086 # the PIDs, a word each
		[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
		sleep 1
	fi
	for _ in 1 2 3; do
		for m in $(mounts_below); do
			umount "$m" 2>/dev/null || true
		done
		[ -z "$(mounts_below)" ] && return 0
		sleep 1
	done
	for m in $(mounts_below); do
		echo "fresh-machine: $m busy; detaching it (umount -l)" >&2
		umount -l "$m" || true
	done
	[ -z "$(mounts_below)" ] || {
		echo "fresh-machine: still mounted below $root:" >&2
		mounts_below >&2
		return 1
	}
}

# Remove a root made by this script: never with anything mounted below it,
# never a directory without our marker, never across file systems.
remove_root() {
	[ -e "$root" ] || return 0
	unmount_all || { echo "fresh-machine: not removing $root: mounts remain" >&2; return 1; }
	[ -f "$marker" ] || {
		echo "fresh-machine: $root was not made by this script (no $(basename "$marker")); not removing it" >&2
		return 1
	}
	rm -rf --one-file-system "$root"
}

if [ $clean = 1 ]; then
	remove_root && echo "fresh-machine: removed $root"
	exit
fi

# --- the Debian mirror: --mirror, the host's apt sources, deb.debian.org
host_mirrors() {
	local f
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
		[ -f "$f" ] && awk '$1 == "deb" && $0 !~ /security/ {
			for (i = 2; i <= NF; i++) if ($i ~ /^https?:\/\//) { print $i; break } }' "$f"
	done
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && awk '/^URIs:/ { for (i = 2; i <= NF; i++) print $i }' "$f"
	done
	return 0
}
reachable() { # URL: its bookworm Release file answers (unknown without curl/wget)
	if command -v curl >/dev/null; then
		curl -sfI --max-time 15 "$1/dists/bookworm/Release" >/dev/null
	elif command -v wget >/dev/null; then
		wget -q --spider --timeout=15 "$1/dists/bookworm/Release"
	else
		return 0
	fi
}
if [ -z "$mirror" ]; then
	for m in $(host_mirrors | grep -v security | grep -E '/debian/?$'; echo http://deb.debian.org/debian); do
		m=${m%/}
		if reachable "$m"; then mirror=$m; break; fi
	done
	[ -n "$mirror" ] || die "no Debian mirror answers (tried the host's apt sources and deb.debian.org); use --mirror"
fi
security=$(host_mirrors | grep -E 'security' | head -n 1)
security=${security:-http://deb.debian.org/debian-security}
security=${security%/}

if [ ! -d "$from" ] || ! git -C "$from" rev-parse --verify -q HEAD >/dev/null; then
	die "--from $from: not a git repository with a commit"
fi
[ -z "$ccache" ] || { mkdir -p "$ccache" && ccache=$(cd "$ccache" && pwd); }

stamp=$(date +%Y%m%d-%H%M%S)
logdir=$logs/$stamp-$(echo "$target" | tr -c 'A-Za-z0-9_.-' '_' | sed 's/_*$//')
mkdir -p "$logdir"
log=$logdir/make.log
echo "fresh-machine: make $target on a clean Debian 12 root"
echo "  root:   $root ($([ $keep = 1 ] && echo kept afterwards || echo removed afterwards))"
echo "  source: $(git -C "$from" log -1 --format='%h %s' | cut -c1-70) (HEAD of $from)"
echo "  mirror: $mirror (security: $security)"
echo "  ccache: ${ccache:-none (cold build)}"
echo "  logs:   $logdir/"

# Always: unmount, then remove the root unless --keep.
cleanup() {
	unmount_all
	if [ $keep = 0 ]; then
		echo "fresh-machine: removing the root (usually $("$top/qemu/setup/duration.sh" fresh-root))"
		remove_root
	else
		echo "fresh-machine: root kept in $root (chroot $root bash; remove with $0 --clean)"
	fi
}
finish() {
	local rc=$?
	trap - EXIT INT TERM
	set +e
	cleanup
	exit $rc
}
trap finish EXIT
trap 'echo "fresh-machine: interrupted" >&2; exit 130' INT TERM

# --- host tools
for c in chroot mount umount git; do
	command -v $c >/dev/null || die "the host lacks '$c'"
done
if ! command -v debootstrap >/dev/null; then
	step "installing debootstrap on the host (apt-get, under a minute)"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -qq --no-install-recommends debootstrap >"$logdir/host-apt.log" 2>&1 || {
		apt-get update -qq >>"$logdir/host-apt.log" 2>&1 || true
		apt-get install -y -qq --no-install-recommends debootstrap >>"$logdir/host-apt.log" 2>&1 ||
			die "could not install debootstrap; see $logdir/host-apt.log"
	}
	took
fi

# --- a clean root
if [ -e "$root" ]; then
	step "removing the previous root $root"
	remove_root || exit 1
	took
fi
mkdir -p "$root"
touch "$marker"
step "debootstrap --variant=minbase bookworm (usually $("$top/qemu/setup/duration.sh" fresh-root))"
if ! debootstrap --variant=minbase bookworm "$root" "$mirror" >"$logdir/debootstrap.log" 2>&1; then
	echo "fresh-machine: debootstrap failed; last lines of $logdir/debootstrap.log:" >&2
	tail -n 15 "$logdir/debootstrap.log" >&2
	verdict debootstrap "failed (log: $logdir/debootstrap.log)"
	exit 1
fi
took

# As on an installed machine: the release, its updates and security.
cat >"$root/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# No service started by a package's postinst in the host's namespaces
# (it would also keep the mounts busy).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"

mount --bind /proc "$root/proc"
mount --rbind /sys "$root/sys"
mount --make-rslave "$root/sys"
mount --rbind /dev "$root/dev"
mount --make-rslave "$root/dev"
if [ -n "$ccache" ]; then
	mkdir -p "$root/var/cache/mmc-coalesce-ccache"
	mount --bind "$ccache" "$root/var/cache/mmc-coalesce-ccache"
fi

# in_root CMD...: a login-like environment, nothing from the host's
in_root() {
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin "$@"
}

step "installing git and make in the root, nothing else (apt-get, about 30 s)"
if ! in_root sh -c 'export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq && apt-get install -y -qq --no-install-recommends git make' \
	>"$logdir/bootstrap-apt.log" 2>&1; then
	tail -n 15 "$logdir/bootstrap-apt.log" >&2
	verdict "apt-get in the root" "failed (log: $logdir/bootstrap-apt.log)"
	exit 1
fi
took

step "cloning HEAD of $from into the root's $guest_src (seconds)"
mkdir -p "$root/mnt/origin"
mount --bind "$from" "$root/mnt/origin"
mount -o remount,bind,ro "$root/mnt/origin"
in_root git clone -q --no-hardlinks /mnt/origin "$guest_src" >"$logdir/clone.log" 2>&1 || {
	cat "$logdir/clone.log" >&2
	verdict "git clone" "failed (log: $logdir/clone.log)"
	exit 1
}
umount "$root/mnt/origin"
echo "   $(in_root git -C "$guest_src" log -1 --format='%h %s' | cut -c1-70)"
took

blktests=$(cd "$from/.." && pwd)/shared/blktests
if [ "$target" = ci ] && [ -d "$blktests" ]; then
	mkdir -p "$root$blktests"
	mount --bind "$blktests" "$root$blktests"
	mount -o remount,bind,ro "$root$blktests"
fi

case $target in
ci) how="CI's make check, about an hour cold" ;;
unit) how="usually $("$top/qemu/setup/duration.sh" unit-fresh): the build packages, the kernel source, then the tests" ;;
demo) how="usually $("$top/qemu/setup/duration.sh" demo-fresh) with a warm ccache: the demo's packages, the kernel, two guest runs" ;;
check) how="about an hour cold" ;;
*) how="see README.md for its time; add the first-time package installs and a cold kernel build" ;;
esac
step "make $target in the root ($how); output also in $log"
set +e
if [ "$target" = ci ]; then
	# shellcheck disable=SC2016 # $1 is the inner bash's
	in_root bash -c 'cd "$1" && exec bash .ci/run' ci "$guest_src" 2>&1 | tee "$log"
else
	# shellcheck disable=SC2016,SC2086 # $1 and $@ are the inner bash's; the targets, a word each
	in_root bash -c 'cd "$1" && shift && exec make "$@"' make "$guest_src" $target 2>&1 | tee "$log"
fi
rc=${PIPESTATUS[0]}
set -e
took

make_s=$(($(date +%s) - t_step))
elapsed=$(($(date +%s) - t_start))
trap - EXIT INT TERM
set +e
# the suites' logs and the second lane's kernels.log, for the per-group times
cp -r "$root$guest_src/build/test-logs" "$logdir/" 2>/dev/null
cleanup
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
echo
ktap_begin fresh-machine 1
diag "log: $log"
diag "elapsed: $((elapsed / 60)) min $((elapsed % 60)) s from start to the end of make (make alone: $make_s s)"
[ -z "$summary" ] || diag "make $target: $summary"
if [ "$rc" = 0 ]; then
	ok "make $target on a fresh Debian 12 root"
else
	ko "make $target on a fresh Debian 12 root" "exit $rc"
fi
ktap_end
