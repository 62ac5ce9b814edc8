#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Boot the x86_64 guest under QEMU (TCG) with an emulated SD card behind
# sdhci-pci, run one scenario, and keep what the card saw.
#
# Usage: qemu/run.sh --scenario NAME --out DIR [--stack stock|ours]
#                    [--elevator NAME] [--args a=1,b=2] [--mem MiB] [--smp N]
#                    [--card-gib N] [--timeout SECONDS] [--no-trace]
#                    [--kopt "mmcc.x=y ..."]   (more kernel command line)
#                    [--flavor debug|6.12|6.12-kcsan]  (the debug guest kernel, the 6.12 one, or that with KCSAN)
#                    [--card FILE]             (boot on this existing image)
#                    [--kill-after-marker SECONDS [--kill-when-held]]
#                    [--q35] [--qmp PATH] [--usb]
#                    [--card-profile NAME[,key=value...]]  (a timed card)
#
# Stacks: stock (sdhci-pci + mmc_block, the kernel's default elevator or
# --elevator), ours (sdhci-pci + mmc_block + the coalesce I/O scheduler,
# coalesce-iosched.ko; --args are its module parameters). ours IS the
# elevator: --elevator is refused with it (except "coalesce"). Our host
# driver runs on the e500 guest (qemu/run-e500.sh), not here: it binds
# only the eSDHC of e500 device trees.
#
# DIR receives console.log (serial console), trace.log (QEMU's sdcard and
# sdhci trace events) and result.txt (the guest's "MMCC" lines without
# "MMCC ": its KTAP document, tests/lib/ktap.sh, and its KV, STAT, MARKER
# and DONE lines, read from the guest's results port, results.log).  Exit
# 0 when the guest finished and reported no failure ("not ok" in the
# document), 1 on a reported failure or an empty results port, 3 when
# QEMU had to be killed at the time limit, 4 when it was killed as
# --kill-after-marker asked.
#
# Crash and removal testing:
#   --card FILE   use FILE as the card instead of a fresh sparse image in
#                 DIR; it is neither created, truncated nor deleted, so a
#                 second run can boot on what the first one left behind.
#                 Its size must be one QEMU accepts (power of two);
#                 --card-gib is ignored.
#   --kill-after-marker SECONDS
#                 once the console shows "MMCC MARKER 1", wait SECONDS
#                 (fractional allowed) and SIGKILL QEMU: a power cut at
#                 a chosen point of the workload.  The console log up to
#                 the kill is kept; DIR/kill.txt records when the marker
#                 was seen and when QEMU was killed.  Exit 4 when that
#                 happened; if the guest finishes or dies first, the exit
#                 code is the usual one.
#   --kill-when-held
#                 with --kill-after-marker: once those SECONDS are past,
#                 kill at the first "MMCC HELD now=N" line with N > 0
#                 (the write scenarios' sample of the coalesce window,
#                 every 0.5 s) that follows, so that the power is cut
#                 while the window holds writes.
#   --q35         machine q35 instead of pc, with sdhci-pci (id sdhci0)
#                 on a PCIe root port (id rp0), so that it can be removed.
#   --qmp PATH    a QMP server on the unix socket PATH (server, no wait).
#
# Timed card:
#   --card-profile NAME[,key=value...]
#                 serve the card image through nbdkit with the cardtime
#                 filter (qemu/cardtime/, Documentation/card-cost-model.md),
#                 so the card takes the time the modelled card would:
#                 profile NAME (cheap12, flashbench-readme, class4,
#                 class10-any, u3-any) and the filter's overrides, e.g.
#                 cheap12,open=4,order=any.
#                 DIR/cardtime.txt gets the filter's counts and the seconds
#                 it charged. Not with --usb.
#
# USB stick:
#   --usb         add a USB stick (qemu-xhci + usb-storage) on an image
#                 like the card's (--card-gib, sparse, in DIR; or --card
#                 FILE, which then is the stick's image and the SD card
#                 gets a fresh one) and run the scenario on it (/dev/sda,
#                 mmcc.disk=usb) instead of the SD card. The trace then
#                 records the stick's SCSI READ/WRITE commands (QEMU's
#                 scsi_disk_dma_command_* events), and DIR/trace.log is
#                 written in the analyzer's own command format
#                 ("<time_us> <W|R> <sector> <sectors>"; QEMU's log is
#                 kept as DIR/trace-qemu.log), so that cardtrace reads
#                 it like a card trace.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
# shellcheck source=qemu/results-port.sh
. "$here/results-port.sh"

scenario='' out='' stack=stock elevator='' args='' mem=256 smp=1 card_gib=4 limit=900 trace=1 kopt='' flavor=''
card_file='' kill_after='' kill_held=0 q35=0 qmp='' usb=0 card_profile=''
while [ $# -gt 0 ]; do
	case $1 in
	--scenario) scenario=$2; shift ;;
	--out) out=$2; shift ;;
	--stack) stack=$2; shift ;;
	--elevator) elevator=$2; shift ;;
	--args) args=$2; shift ;;
	--mem) mem=$2; shift ;;
	--smp) smp=$2; shift ;;
	--card-gib) card_gib=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--no-trace) trace=0 ;;
	--kopt) kopt=$2; shift ;;
	--flavor) flavor=$2; shift ;;
	--card) card_file=$2; shift ;;
	--card-profile) card_profile=$2; shift ;;
	--kill-after-marker) kill_after=$2; shift ;;
	--kill-when-held) kill_held=1 ;;
	--q35) q35=1 ;;
	--qmp) qmp=$2; shift ;;
	--usb) usb=1 ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
if [ -z "$scenario" ] || [ -z "$out" ]; then
	echo "run.sh: --scenario and --out are required" >&2
	exit 2
fi
case $stack in
stock) ;;
ours)
	if [ -n "$elevator" ] && [ "$elevator" != coalesce ]; then
		echo "run.sh: --stack $stack is the coalesce elevator; --elevator $elevator makes no sense with it" >&2
		exit 2
	fi ;;
*) echo "run.sh: --stack must be stock or ours (not '$stack')" >&2; exit 2 ;;
esac
case $smp in
1 | 2) ;;
*) echo "run.sh: --smp must be 1 or 2 (the guest kernel's NR_CPUS)" >&2; exit 2 ;;
esac
case $card_gib in
1 | 2 | 4 | 8 | 16 | 32) ;;
*) echo "run.sh: --card-gib must be a power of two from 1 to 32 (QEMU refuses other sizes)" >&2; exit 2 ;;
esac
if [ -n "$card_file" ] && [ ! -f "$card_file" ]; then
	echo "run.sh: --card $card_file: no such file (it is never created here)" >&2
	exit 2
fi
if [ "$kill_held" = 1 ] && [ -z "$kill_after" ]; then
	echo "run.sh: --kill-when-held goes with --kill-after-marker" >&2
	exit 2
fi
if [ -n "$kill_after" ]; then
	# Whole or decimal seconds; turned into microseconds for the watcher.
	[[ $kill_after =~ ^[0-9]+(\.[0-9]+)?$ ]] || {
		echo "run.sh: --kill-after-marker wants seconds (e.g. 3 or 2.75), not '$kill_after'" >&2
		exit 2
	}
fi

kernel=$top/build/kernel-x86_64${flavor:+-$flavor}/arch/x86/boot/bzImage
initrd=$top/build/initramfs-x86_64${flavor:+-$flavor}.cpio.gz
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "run.sh: missing $f (run 'make guest' first)" >&2; exit 2; }
done

mkdir -p "$out"
rm -f "$out/trace.log" "$out/trace-qemu.log" "$out/console.log" "$out/result.txt" "$out/kill.txt" "$out/results.log"
# The disk under test is the card, or with --usb the stick; the other one
# (the card, with --usb) is a fresh sparse image.
stick=
if [ "$usb" = 1 ]; then
	if [ -n "$card_file" ]; then
		stick=$card_file
	else
		stick=$out/stick.img
		rm -f "$stick"
		truncate -s "${card_gib}G" "$stick"
	fi
	card_file=
fi
if [ -n "$card_file" ]; then
	card=$card_file
else
	card=$out/card.img
	rm -f "$card"
	truncate -s "${card_gib}G" "$card"
fi

# QEMU's default aio=threads hands each of the card's 512-byte block
# accesses to a worker thread and waits for it: the seed scenario spends
# half its run there under TCG. io_uring does the same I/O without the
# thread round trip. A host that refuses io_uring (a container's seccomp
# filter, kernel.io_uring_disabled) would stop QEMU at start: keep the
# default there, and say so.
aio=,aio=io_uring
if ! echo q | qemu-system-x86_64 -M none -nodefaults -display none -monitor stdio \
	-drive "if=none,file=$card,format=raw$aio" >/dev/null 2>&1; then
	echo "run.sh: QEMU cannot use io_uring here; the card's I/O goes through worker threads (slower)" >&2
	aio=
fi
# The timed card: nbdkit serves the image on a Unix socket in DIR through
# the cardtime filter, and QEMU's card reads its drive from there.
card_drive=(-drive "if=none,id=card0,file=$card,format=raw,cache=unsafe$aio")
nbdkit_pid=
if [ -n "$card_profile" ]; then
	[ "$usb" = 0 ] || { echo "run.sh: --card-profile times the SD card; not with --usb" >&2; exit 2; }
	"$here/setup/deps.sh" cardtime
	make -s -C "$here/cardtime" || { echo "run.sh: building the cardtime filter failed" >&2; exit 2; }
	sock=$out/card.sock
	rm -f "$sock" "$out/nbdkit.pid" "$out/cardtime.txt"
	IFS=, read -r -a cp_args <<<"$card_profile"
	cp_args[0]=profile=${cp_args[0]}
	# --exit-with-parent: an interrupted run.sh leaves no server behind
	nbdkit --exit-with-parent -U "$sock" -P "$out/nbdkit.pid" \
		--filter="$top/build/cardtime/nbdkit-cardtime-filter.so" \
		file "$card" "${cp_args[@]}" stats="$out/cardtime.txt" \
		2>"$out/nbdkit.log" &
	nbdkit_pid=$!
	# the pid file appears once the socket accepts connections
	for _ in $(seq 100); do
		[ -s "$out/nbdkit.pid" ] && break
		kill -0 "$nbdkit_pid" 2>/dev/null || break
		sleep 0.1
	done
	if ! [ -s "$out/nbdkit.pid" ] || ! kill -0 "$nbdkit_pid" 2>/dev/null; then
		echo "run.sh: nbdkit did not start for --card-profile $card_profile:" >&2
		cat "$out/nbdkit.log" >&2
		exit 2
	fi
	card_drive=(-drive "if=none,id=card0,file=nbd:unix:$sock,format=raw,cache=unsafe")
fi
# Stop nbdkit (it writes its stats on the way out) and wait for it.
stop_nbdkit() {
	[ -n "$nbdkit_pid" ] || return 0
	kill -TERM "$nbdkit_pid" 2>/dev/null
	for _ in $(seq 100); do
		kill -0 "$nbdkit_pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$nbdkit_pid" 2>/dev/null
	nbdkit_pid=
}

if [ "$scenario" = fio ] || [ "$scenario" = load ] || [ "$scenario" = nullblk ]; then
	cat "$initrd" "$top/build/initramfs-x86_64-fio.cpio.gz" >"$out/initrd.gz"
	initrd=$out/initrd.gz
	fio_mem=256	# the fio archive itself lives in guest RAM
fi
# blktests: the fio archive and the blktests one (qemu/blktests-archive.sh:
# the tree, bash, GNU tools, xfs_io), both unpacked into guest RAM, plus
# room for block/004's 64 fio processes.
if [ "$scenario" = blktests ]; then
	bt_archive=$top/build/initramfs-x86_64-blktests.cpio.gz
	[ -f "$bt_archive" ] || {
		echo "run.sh: missing $bt_archive (BLKTESTS_DIR=... qemu/blktests-archive.sh)" >&2
		exit 2
	}
	cat "$initrd" "$top/build/initramfs-x86_64-fio.cpio.gz" "$bt_archive" >"$out/initrd.gz"
	initrd=$out/initrd.gz
	fio_mem=384
fi

# loglevel=5: warnings (KERN_WARNING) reach the console, where the host
# suites look for WARN_ON and lockdep reports (tests/lib/kernel-reports.sh);
# at 4 only errors did, and a WARN_ON was invisible.
cmdline="console=ttyS0 panic=-1 loglevel=5 mmcc.scenario=$scenario mmcc.stack=$stack mmcc.mem_mib=$mem"
# The boot's check that the IO-APIC timer ticks counts ticks against a
# busy loop: a TCG vCPU starved by a loaded host fails it and the kernel
# panics ("IO-APIC + timer doesn't work!", seen with two guests and a
# kernel build on two cores). Virtual machines skip it.
cmdline+=" no_timer_check"
# The guest's results also go to a second serial port, which printk does
# not share (qemu/guest/init, mmcc.results): DIR/results.log.
cmdline+=" mmcc.results=ttyS1"
# q35: without MSI (not in the guest config) the firmware keeps PCIe
# services for itself; pcie_ports=native lets pciehp drive the root port.
[ "$q35" = 1 ] && cmdline+=" pcie_ports=native"
# pc: interrupts routed by the BIOS's PIRQ table, not ACPI's _PRT, whose
# AML the KASAN guest runs too slowly (AE_AML_LOOP_TIMEOUT, no IRQs).
[ "$q35" = 1 ] || cmdline+=" acpi=noirq"
[ -n "$elevator" ] && cmdline+=" mmcc.elevator=$elevator"
[ -n "$args" ] && cmdline+=" mmcc.args=$args"
[ "$usb" = 1 ] && cmdline+=" mmcc.disk=usb"
# Stall detectors under TCG: QEMU emulates the card in the vCPU thread,
# so the guest stops while the host does the card's work and its clocks
# jump afterwards. An RCU stall is reported after 60 s, not the kernel's
# 21 s: one report at 21 s came in one of six blktests runs on ours
# (block/004, 64 processes fsyncing a 1 GiB card, TCG with one vCPU) and
# not in the five reruns; a real stall lasts past 60 s too. The timed card
# adds its charges to that stop: soft lockup after 2 x 60 s and an RCU
# stall after 120 s there. The hung-task detector keeps its 120 s: a
# task must sleep that long, not merely be stopped. The soft-lockup limit
# stays the kernel's 20 s on the untimed card: QEMU's longest stop there,
# an erase, is under 2 s, and the guest kernel preempts voluntarily
# (qemu/x86_64.config) so that a batch of them does not add up.
if [ -n "$card_profile" ]; then
	cmdline+=" watchdog_thresh=60 rcupdate.rcu_cpu_stall_timeout=120"
else
	cmdline+=" rcupdate.rcu_cpu_stall_timeout=60"
fi
[ -n "$kopt" ] && cmdline+=" $kopt"

tracing=()
if [ "$trace" = 1 ] && [ "$usb" = 1 ]; then
	# The stick: one line per SCSI READ/WRITE (start and length in
	# 512-byte blocks), converted after the run.
	tracing=(-msg timestamp=on -D "$out/trace-qemu.log"
		 -trace enable=scsi_disk_dma_command_READ
		 -trace enable=scsi_disk_dma_command_WRITE)
elif [ "$trace" = 1 ]; then
	# Lean event set: one line per command and per DMA descriptor.
	tracing=(-msg timestamp=on -D "$out/trace.log"
		 -trace enable=sdcard_normal_command -trace enable=sdhci_adma_loop)
fi
usb_opt=()
if [ "$usb" = 1 ]; then
	usb_opt=(-device qemu-xhci
		 -drive "if=none,id=stick,file=$stick,format=raw,cache=unsafe$aio"
		 -device "usb-storage,drive=stick")
fi

# The machine and where the SD host controller sits.  On q35 it goes
# behind a PCIe root port so that it can be unplugged (device_del sdhci0).
machine=(-M pc) host=(-device sdhci-pci) qmp_opt=()
if [ "$q35" = 1 ]; then
	# ACPI hotplug off: the guest's pciehp drives the root port natively
	machine=(-M q35 -global ICH9-LPC.acpi-pci-hotplug-with-bridge-support=off)
	host=(-device "pcie-root-port,id=rp0,bus=pcie.0,chassis=1,slot=1"
	      -device "sdhci-pci,id=sdhci0,bus=rp0")
fi
[ -n "$qmp" ] && qmp_opt=(-qmp "unix:$qmp,server=on,wait=off")

# The card is cache=unsafe: QEMU never fsyncs the image, but every write
# the card acknowledges is already in the host's page cache, so killing
# QEMU (not the host) loses nothing the card acknowledged.
qemu=(qemu-system-x86_64
	"${machine[@]}" -accel tcg -smp "$smp" -m "$((mem + ${fio_mem:-0}))"
	-nographic -no-reboot
	-serial mon:stdio -serial "file:$out/results.log"
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline"
	"${host[@]}"
	"${card_drive[@]}"
	-device "sd-card,drive=card0"
	"${usb_opt[@]}" "${qmp_opt[@]}" "${tracing[@]}")

usec() { # seconds (decimal) -> microseconds, without floating point
	local s=$1 frac
	case $s in
	*.*) frac=${s#*.}000000; echo $(( ${s%%.*} * 1000000 + 10#${frac:0:6} )) ;;
	*) echo $(( s * 1000000 )) ;;
	esac
}
now_us() { local t=$EPOCHREALTIME; echo $(( ${t%.*} * 1000000 + 10#${t#*.} )); }

# held_samples: how many "MMCC HELD now=N" lines with N > 0 the console has
held_samples() { grep -acE $'^MMCC HELD now=[1-9][0-9]* ' "$out/console.log" || true; }

# kill_watch PID: the QEMU in the background; SIGKILL it $kill_after s
# after the console shows "MMCC MARKER 1" (with --kill-when-held, at the
# first sample of held writes after that), or at the time limit.
# Sets watch_result to killed, timeout or exited.
kill_watch() {
	local pid=$1 t0 now marker_at='' deadline='' limit_at held_seen=''
	t0=$(now_us)
	limit_at=$(( t0 + limit * 1000000 ))
	watch_result=exited
	while kill -0 "$pid" 2>/dev/null; do
		now=$(now_us)
		if [ -z "$marker_at" ] &&
		   grep -aqE $'^MMCC MARKER 1\r?$' "$out/console.log"; then
			marker_at=$now
			deadline=$(( now + $(usec "$kill_after") ))
		fi
		if [ -n "$marker_at" ] && [ "$now" -ge "$deadline" ] &&
		   [ "$kill_held" = 1 ]; then
			# the samples seen at the deadline, then wait for one more
			[ -n "$held_seen" ] || held_seen=$(held_samples)
			if [ "$(held_samples)" -le "$held_seen" ]; then
				[ "$now" -lt "$limit_at" ] || {
					kill -KILL "$pid" 2>/dev/null && watch_result=timeout
					return
				}
				sleep 0.02
				continue
			fi
		fi
		if [ -n "$marker_at" ] && [ "$now" -ge "$deadline" ]; then
			kill -KILL "$pid" 2>/dev/null && watch_result=killed
			{
				echo "marker_seen_ms=$(( (marker_at - t0) / 1000 ))"
				echo "kill_after_s=$kill_after"
				echo "killed_after_marker_ms=$(( (now - marker_at) / 1000 ))"
			} >"$out/kill.txt"
			return
		fi
		if [ "$now" -ge "$limit_at" ]; then
			kill -KILL "$pid" 2>/dev/null && watch_result=timeout
			return
		fi
		# Poll finely only while the kill is near: console greps are
		# not free on a 2-core machine running two guests.
		if [ -n "$marker_at" ] && [ $(( deadline - now )) -lt 200000 ]; then
			sleep 0.005
		else
			sleep 0.05
		fi
	done
}

set +e
if [ -z "$kill_after" ]; then
	timeout --kill-after=10 "$limit" "${qemu[@]}" </dev/null >"$out/console.log" 2>&1
	rc=$?
else
	"${qemu[@]}" </dev/null >"$out/console.log" 2>&1 &
	qpid=$!
	# An interrupted run.sh must not leave a guest running.
	trap 'kill -KILL $qpid 2>/dev/null' EXIT
	trap 'exit 130' INT TERM
	kill_watch "$qpid"
	wait "$qpid" 2>/dev/null	# no "Killed" job notice: we did it
	rc=$?
	trap - EXIT INT TERM
	[ "$watch_result" = timeout ] && rc=124
fi
set -e
stop_nbdkit
[ -n "$card_file" ] || rm -f "$card"
[ "$usb" = 1 ] && [ "$stick" = "$out/stick.img" ] && rm -f "$stick"
rm -f "$out/initrd.gz"
if [ "$usb" = 1 ] && [ -f "$out/trace-qemu.log" ]; then
	# "PID@SEC.USEC:scsi_disk_dma_command_WRITE Write (sector S, count N)"
	# and "..._READ Read (sector S, count N)" -> "USEC W|R S N"
	awk '
		/scsi_disk_dma_command_(READ|WRITE)/ {
			if (!match($0, /@[0-9]+\.[0-9]+:/)) next
			t = substr($0, RSTART + 1, RLENGTH - 2)
			split(t, p, ".")
			if (!match($0, /sector [0-9]+, count [0-9]+/)) next
			split(substr($0, RSTART, RLENGTH), f, /[ ,]+/)
			if (f[4] == 0) next
			printf "%s%06d %s %s %s\n", p[1], p[2],
				(index($0, "_WRITE") ? "W" : "R"), f[2], f[4]
		}' "$out/trace-qemu.log" >"$out/trace.log"
fi

# The results come from their own port only (qemu/results-port.sh; a
# killed run's caller checks what it needs of them).
results=$out/results.log
results_read "$out"
if [ -n "$kill_after" ] && [ "$watch_result" = killed ]; then
	# The kill can cut a line ("FSYNCED f12 3fa" or "DELETED f1" of
	# f12): a last line without its newline is dropped.
	if [ -s "$results" ] &&
	   [ "$(tail -c 1 "$results" | od -An -c | tr -d ' ')" != '\n' ] &&
	   tail -n 1 "$results" | grep -aq '^MMCC '; then
		sed -i '$d' "$out/result.txt"
	fi
	exit 4
fi
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "run.sh: $scenario: QEMU killed after ${limit} s (hung guest?); see $out/console.log" >&2
	exit 3
fi
results_required "run.sh: $scenario" "$out" || exit 1
if ! grep -q '^DONE' "$out/result.txt"; then
	echo "run.sh: $scenario: guest did not finish (QEMU exit $rc); see $out/console.log" >&2
	tail -n 15 "$out/console.log" >&2
	exit 1
fi
if grep -Eq '^ *not ok [0-9]+ ' "$out/result.txt"; then
	exit 1
fi
exit 0
