#!/usr/bin/env bash
# The e500 boot test for `make check`: build (incrementally) the e500
# kernel with our drivers built in, boot it under qemu-system-ppc, and
# count the guest's results, the built-in KUnit cases and the host-side
# e2fsck of the card. First build about 7 minutes on 2 cores (ccache
# makes later ones quick); the boot test about 2-4 minutes under TCG.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
out=$top/build/runs/e500
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }

if ! "$top/qemu/kernel.sh" ppc; then
	ko e500/kernel_build "see build/kernel-ppc/build.log"
	echo "$pass passed, $fail failed"
	exit 1
fi
ok e500/kernel_build
"$top/qemu/run-e500.sh" --out "$out" --timeout 900
rc=$?
kunit=0
while read -r kind verdict name why; do
	case $kind in
	RESULT) ;;
	KUNIT) kunit=$((kunit + 1)); name=kunit/$name ;;
	*) continue ;;
	esac
	if [ "$verdict" = pass ]; then
		ok "e500/$name"
	else
		ko "e500/$name" "${why:-see $out/console.log}"
	fi
done <"$out/result.txt"
[ $kunit -gt 0 ] && ok e500/kunit_ran || ko e500/kunit_ran "no KUnit case reported on the console"
[ $rc = 0 ] && ok e500/finished || ko e500/finished "guest did not finish (exit $rc)"
echo "$pass passed, $fail failed"
[ $fail = 0 ]
