# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=dash
# blktests, the upstream block layer test suite, on the card (device tests
# with TEST_DEVS=$DEV: /dev/mmcblk0, or the USB stick with run.sh --usb).
# Driven by tests/blktests.sh; needs the archive that qemu/run.sh
# appends for this scenario (qemu/blktests-archive.sh: the blktests tree,
# bash, GNU tools, xfs_io; fio comes from the fio archive).
#
# Kernel command line (qemu/run.sh --kopt):
#   mmcc.blktests=block/003,block/012  the tests (default: the four below)
#   mmcc.blktests_timeout=N            blktests' TIMEOUT: bounds each fio
#                                      run to N s (default 25)
#
# One result per test, named after it ("block/003"): pass when blktests
# says passed; fail when it says failed (output, exit status or a kernel
# warning in dmesg) and also when it says "not run", with blktests'
# reasons, since each of these tests can run on this card.

BT_ROOT=/opt/blktests
BT_OUT=/tmp/blktests-results
BT_LOG=/tmp/blktests.log

# bt_field FILE KEY: a value of a blktests result file ("key<TAB>value")
bt_field() { awk -F '\t' -v k="$2" '$1 == k { print $2 }' "$1"; }

# bt_skip_reasons TEST: the indented lines under "TEST ... [not run]"
bt_skip_reasons() {
	awk -v t="$1" '
		index($0, t " ") == 1 && /\[not run\]/ { f = 1; next }
		f && /^    / { sub(/^ +/, ""); r = r (r ? "; " : "") $0; next }
		{ f = 0 }
		END { print r }' $BT_LOG
}

scenario_blktests() {
	local tests timeout t res status reason key val name sysq f
	if [ ! -x $BT_ROOT/check ] || [ ! -x /bin/bash ]; then
		fail blktests "no blktests tree in the guest (blktests archive not appended?)"
		return
	fi
	tests=$(arg blktests | tr ',' ' ')
	tests=${tests:-block/003 block/004 block/005 block/012}
	timeout=$(arg blktests_timeout)
	timeout=${timeout:-25}

	# bash's process substitution (<(...), all over ./check) needs
	# /dev/fd, which devtmpfs does not make.
	[ -e /dev/fd ] || ln -s /proc/self/fd /dev/fd
	for f in stdin:0 stdout:1 stderr:2; do
		[ -e /dev/${f%:*} ] || ln -s /proc/self/fd/${f#*:} /dev/${f%:*}
	done

	# What the tests look at on the card.
	sysq=/sys/block/$DISK/queue
	kv blktests_commit="$(cut -c1-12 $BT_ROOT/UPSTREAM-COMMIT 2>/dev/null)"
	kv "blktests_timeout=$timeout"
	kv "discard_max_bytes=$(cat "$sysq/discard_max_bytes")"
	kv "discard_granularity=$(cat "$sysq/discard_granularity")"
	kv "write_cache=$(cat "$sysq/write_cache")"
	kv "rotational=$(cat "$sysq/rotational")"
	kv "schedulers=$(cat "$sysq/scheduler")"

	cat >$BT_ROOT/config <<-EOF
	TEST_DEVS=($DEV)
	TIMEOUT=$timeout
	OUTPUT=$BT_OUT
	LOGGER_PROG=true
	EOF
	# Live on the console (a hang shows where), and kept for the reasons.
	# shellcheck disable=SC2086 # the tests, a word each
	(cd $BT_ROOT && PATH=$BT_ROOT/bin:$PATH bash ./check $tests) 2>&1 |
		tee $BT_LOG
	kv "scheduler_after=$(cat "$sysq/scheduler")"
	kv "ro_after=$(cat "/sys/block/$DISK/ro")"

	for t in $tests; do
		res=$BT_OUT/$DISK/$t
		name=$(echo "$t" | tr '/' '_')
		if [ ! -f "$res" ]; then
			fail "$t" "blktests wrote no result for it"
			continue
		fi
		# runtime and the fio figures the test recorded, as KV lines
		while IFS="$(printf '\t')" read -r key val; do
			case $key in
			status | reason | date | description | exit_status) ;;
			*) kv "blktests_${name}_$(echo "$key" | tr ' ' '_')=$val" ;;
			esac
		done <"$res"
		status=$(bt_field "$res" status)
		case $status in
		pass)
			pass "$t"
			;;
		fail)
			reason=$(bt_field "$res" reason)
			case $reason in
			output)
				echo "--- $t: expected output vs what ran"
				diff -u "$BT_ROOT/tests/$t.out" "$res.out.bad"
				val=$(diff -u "$BT_ROOT/tests/$t.out" "$res.out.bad" |
					grep '^+[^+]' | head -n 1 | cut -c2-)
				reason="output differs: $val"
				;;
			exit)
				reason="exit status $(bt_field "$res" exit_status)"
				;;
			dmesg)
				echo "--- $t: kernel log"
				cat "$res.dmesg"
				val=$(grep -m 1 -e 'BUG' -e 'WARNING' -e 'Oops' \
					-e 'general protection' "$res.dmesg")
				reason="kernel log: $val"
				;;
			esac
			[ -f "$res.full" ] && { echo "--- $t: $res.full"; tail -n 20 "$res.full"; }
			fail "$t" "$reason"
			;;
		"not run")
			fail "$t" "not run: $(bt_skip_reasons "$t")"
			;;
		*)
			fail "$t" "unknown blktests status '$status'"
			;;
		esac
	done
}
