#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# Removal under load (Documentation/reliability.md): the guest's "remove"
# scenario writes through ext4 (a large stream and a small fsync loop),
# then the card goes away while writes are held and in flight:
#   eject   QEMU pulls the card out (QMP eject), as a user pulling it
#   pci     the SDHCI controller is unplugged from a q35 PCIe root port
#           (QMP device_del; the guest's pciehp removes it after its
#           5-second attention-button delay)
#   rmhost  rmmod of the host controller driver inside the guest
#   unbind  mmc_block is unbound from the card through sysfs
#   unbindhost  the host driver is unbound from the controller's PCI
#           device through sysfs
# Each must end the writers with an error, leave no task stuck, print no
# oops or warning, and let mmc_block's module (and on ours the coalesce
# scheduler's) unload.
# Ours (the coalesce scheduler on sdhci-pci + mmc_block) on all five; the
# stock drivers as the control on eject and pci. How long: the removal-test row
# of Documentation/benchmarks.md.
# Prints KTAP (tests/lib/ktap.sh): each run's guest document as subtest
# removal/HOW/STACK, the host's checks of it after it.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
runs=$top/build/runs
# shellcheck source=tests/lib/ktap.sh
. "$top/tests/lib/ktap.sh"
# shellcheck source=tests/lib/kernel-reports.sh
. "$top/tests/lib/kernel-reports.sh"
ktap_begin removal

OURS=ours

# removal HOW STACK
removal() {
	local how=$1 stack=$2 out sock pid i rc q35=() args=() reply
	out=$runs/removal-$how-$stack
	sock=$out/qmp.sock
	mkdir -p "$out"
	# a console log left from an earlier run must not trigger the removal
	rm -f "$sock" "$out/console.log"
	diag "remove=$how on the $stack stack"
	[ "$how" = pci ] && q35=(--q35)
	# ours: long hold and idle times, no pause in holding after the fsync
	# loop's sync writes, so that writes are held when the
	# card goes (the guest reports how many: held_at_removal)
	[ "$stack" = stock ] || args=(--args "hold_ms=10000,idle_ms=1000,sync_grace_ms=0")
	"$top/qemu/run.sh" --scenario remove --stack "$stack" --out "$out" \
		--no-trace --timeout 400 --qmp "$sock" "${q35[@]}" "${args[@]}" \
		--kopt "mmcc.remove=$how" >"$out/run.log" 2>&1 &
	pid=$!
	if [ "$how" = eject ] || [ "$how" = pci ]; then
		# Act when the guest says its writers are running.
		i=0
		while kill -0 $pid 2>/dev/null &&
		      ! grep -aq '^MMCC REMOVE_NOW' "$out/console.log" 2>/dev/null; do
			sleep 0.2
			i=$((i + 1))
		done
		if grep -aq '^MMCC REMOVE_NOW' "$out/console.log" 2>/dev/null; then
			if [ "$how" = eject ]; then
				reply=$("$top/qemu/qmp.py" "$sock" eject \
					'{"device": "card0", "force": true}' 2>&1)
			else
				reply=$("$top/qemu/qmp.py" "$sock" device_del \
					'{"id": "sdhci0"}' 2>&1)
			fi
			# shellcheck disable=SC2181 # the status of either branch
			if [ $? = 0 ]; then
				ok "removal/$how/$stack/qmp_accepted"
			else
				ko "removal/$how/$stack/qmp_accepted" "$reply"
			fi
		fi
	fi
	wait $pid
	rc=$?
	sed 's/^/# /' "$out/run.log"
	ktap_nest -q "removal/$how/$stack" "$out/result.txt"
	kernel_reports "removal/$how/$stack/no_kernel_reports" "$out/console.log"
	held=$(sed -n 's/^KV held_at_removal=//p' "$out/result.txt")
	if [ "$stack" != stock ]; then
		if [ "${held:-0}" -gt 0 ] 2>/dev/null; then
			ok "removal/$how/$stack/writes_held_at_removal"
		else
			ko "removal/$how/$stack/writes_held_at_removal" "held_at_removal=${held:-missing}: the test did not exercise held writes"
		fi
	fi
	if [ "$rc" != 0 ] && [ "$rc" != 1 ]; then
		ko "removal/$how/$stack/finished" "run.sh exit $rc (see $out/console.log)"
	elif grep -q '^DONE' "$out/result.txt"; then
		ok "removal/$how/$stack/finished"
	else
		ko "removal/$how/$stack/finished" "guest did not finish (see $out/console.log)"
	fi
}

for how in eject pci rmhost unbind unbindhost; do
	removal $how $OURS
done
removal eject stock
removal pci stock

ktap_end
