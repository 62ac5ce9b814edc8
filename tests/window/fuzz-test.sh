#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# The window engine's libFuzzer harness (fuzz.c) for a bounded time, as
# one KTAP result: `make check`'s unit group runs it. FUZZ_SECONDS
# (default 20) is libFuzzer's -max_total_time. A broken invariant aborts
# the harness: the result fails, with libFuzzer's crash report and the
# input that made it (build/host/window/crash-*) in the log.
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/lib/ktap.sh
. "$here/../lib/ktap.sh"
ktap_begin window-fuzz 1
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if make -s -C "$here" fuzz FUZZ_SECONDS="${FUZZ_SECONDS:-20}" >"$log" 2>&1; then
	diag "$(grep -a -m1 '^Done [0-9]* runs' "$log")"
	ok window_fuzz_invariants_hold
else
	sed 's/^/# /' "$log" | tail -n 40
	ko window_fuzz_invariants_hold "$(grep -a -m1 -E 'ERROR|SUMMARY|BUG|abort' "$log")"
fi
ktap_end
