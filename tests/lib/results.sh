# Shared by the QEMU test scripts (sourced): count results and print them
# as "PASS: name" / "FAIL: name: why"; the caller ends with
#   echo "$pass passed, $fail failed"
pass=0 fail=0
ok() { echo "PASS: $1"; pass=$((pass + 1)); }
ko() { echo "FAIL: $1: $2"; fail=$((fail + 1)); }

# guest_results PREFIX FILE: the guest's "RESULT pass|fail NAME [why]"
# lines of a result.txt, as tests named PREFIX/NAME
guest_results() {
	local word verdict test why
	while read -r word verdict test why; do
		[ "$word" = RESULT ] || continue
		if [ "$verdict" = pass ]; then
			ok "$1/$test"
		else
			ko "$1/$test" "$why"
		fi
	done <"$2"
}
