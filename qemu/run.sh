#!/usr/bin/env bash
# Boot the x86_64 guest under QEMU (TCG) with an emulated SD card behind
# sdhci-pci, run one scenario, and keep what the card saw.
#
# Usage: qemu/run.sh --scenario NAME --out DIR [--stack stock|ours]
#                    [--elevator NAME] [--args a=1,b=2] [--mem MiB]
#                    [--card-gib N] [--timeout SECONDS] [--no-trace]
#                    [--kopt "mmcc.x=y ..."]   (more kernel command line)
#                    [--flavor debug]          (the debug guest kernel)
#
# DIR receives console.log (serial console), trace.log (QEMU's sdcard and
# sdhci trace events) and result.txt (the guest's "MMCC" lines).  Exit 0
# when the guest finished and reported no failure, 1 on a reported
# failure, 3 when QEMU had to be killed at the time limit.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)

scenario= out= stack=stock elevator= args= mem=256 card_gib=4 limit=900 trace=1 kopt= flavor=
while [ $# -gt 0 ]; do
	case $1 in
	--scenario) scenario=$2; shift ;;
	--out) out=$2; shift ;;
	--stack) stack=$2; shift ;;
	--elevator) elevator=$2; shift ;;
	--args) args=$2; shift ;;
	--mem) mem=$2; shift ;;
	--card-gib) card_gib=$2; shift ;;
	--timeout) limit=$2; shift ;;
	--no-trace) trace=0 ;;
	--kopt) kopt=$2; shift ;;
	--flavor) flavor=$2; shift ;;
	*) echo "run.sh: unknown argument '$1'" >&2; exit 2 ;;
	esac
	shift
done
[ -n "$scenario" ] && [ -n "$out" ] || {
	echo "run.sh: --scenario and --out are required" >&2
	exit 2
}
case $card_gib in
1 | 2 | 4 | 8 | 16 | 32) ;;
*) echo "run.sh: --card-gib must be a power of two from 1 to 32 (QEMU refuses other sizes)" >&2; exit 2 ;;
esac

kernel=$top/build/kernel-x86_64${flavor:+-$flavor}/arch/x86/boot/bzImage
initrd=$top/build/initramfs-x86_64${flavor:+-$flavor}.cpio.gz
for f in "$kernel" "$initrd"; do
	[ -f "$f" ] || { echo "run.sh: missing $f (run 'make guest' first)" >&2; exit 2; }
done

mkdir -p "$out"
card=$out/card.img
rm -f "$card" "$out/trace.log" "$out/console.log" "$out/result.txt"
truncate -s "${card_gib}G" "$card"

if [ "$scenario" = fio ]; then
	cat "$initrd" "$top/build/initramfs-x86_64-fio.cpio.gz" >"$out/initrd.gz"
	initrd=$out/initrd.gz
	fio_mem=256	# the fio archive itself lives in guest RAM
fi

cmdline="console=ttyS0 panic=-1 loglevel=4 mmcc.scenario=$scenario mmcc.stack=$stack mmcc.mem_mib=$mem"
[ -n "$elevator" ] && cmdline+=" mmcc.elevator=$elevator"
[ -n "$args" ] && cmdline+=" mmcc.args=$args"
[ -n "$kopt" ] && cmdline+=" $kopt"

tracing=()
if [ "$trace" = 1 ]; then
	# Lean event set: one line per command and per DMA descriptor.
	tracing=(-msg timestamp=on -D "$out/trace.log"
		 -trace enable=sdcard_normal_command -trace enable=sdhci_adma_loop)
fi

set +e
timeout --kill-after=10 "$limit" qemu-system-x86_64 \
	-M pc -accel tcg -smp 1 -m "$((mem + ${fio_mem:-0}))" -nographic -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$cmdline" \
	-device sdhci-pci \
	-drive if=none,id=card0,file="$card",format=raw,cache=unsafe \
	-device sd-card,drive=card0 \
	"${tracing[@]}" </dev/null >"$out/console.log" 2>&1
rc=$?
set -e
rm -f "$card" "$out/initrd.gz"

tr -d '\r' <"$out/console.log" | grep '^MMCC ' | sed 's/^MMCC //' >"$out/result.txt" || true
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "run.sh: $scenario: QEMU killed after ${limit} s (hung guest?); see $out/console.log" >&2
	exit 3
fi
if ! grep -q '^DONE' "$out/result.txt"; then
	echo "run.sh: $scenario: guest did not finish (QEMU exit $rc); see $out/console.log" >&2
	tail -n 15 "$out/console.log" >&2
	exit 1
fi
if grep -q '^RESULT fail' "$out/result.txt"; then
	exit 1
fi
exit 0
