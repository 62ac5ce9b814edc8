#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# How long a step usually takes, from the one table of measured durations
# ("How long things take" in Documentation/benchmarks.md): the "usually"
# column of the row whose key is KEY. Scripts print it instead of
# restating a figure that would go stale.
# Usage: qemu/setup/duration.sh KEY       e.g. kernel-x86_64 -> "17 minutes"
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
key=${1:?usage: duration.sh KEY}
table=$top/Documentation/benchmarks.md
found=$(awk -F'|' -v key="\`$key\`" '
	/^## How long things take/ { on = 1; next }
	/^## / { on = 0 }
	on && NF > 4 {
		k = $2; gsub(/^ +| +$/, "", k)
		if (k == key) { u = $4; gsub(/^ +| +$/, "", u); print u; exit }
	}' "$table")
if [ -z "$found" ]; then
	echo "duration.sh: no row '$key' in ${table#"$top"/}" >&2
	echo "an unknown time"
	exit 1
fi
echo "$found"
