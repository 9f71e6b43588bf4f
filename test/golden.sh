#!/bin/sh
# Golden flow tables: each case of test/golden/cases.txt runs and its `flow`
# table (CSV, ordered by flow_id) must hash to the digest stored in
# test/golden/NAME.sha256. This guards equivalence under refactoring and
# optimisation (issue 7); correctness is the physics tests' job.
#   golden.sh            check (make check runs it)
#   golden.sh --update   rewrite the digests after an intended change
# Environment (make check sets them): SIM, SRCDIR.
set -eu
: "${SIM:?}" "${SRCDIR:?}"
update=no
[ "${1:-}" = --update ] && update=yes
command -v sqlite3 >/dev/null || { echo "golden: sqlite3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
fail=0
while read -r name scenario sets; do
	case $name in '#'* | '') continue ;; esac
	# shellcheck disable=SC2086 # the --set words split on purpose
	if ! "$SIM" -q -o "$tmp/$name.db" "$SRCDIR/scenarios/$scenario" $sets >"$tmp/out" 2>&1; then
		echo "FAIL $name: sim failed"; cat "$tmp/out"; fail=1; continue
	fi
	sqlite3 -csv "$tmp/$name.db" "SELECT * FROM flow ORDER BY run_id, flow_id" >"$tmp/$name.csv"
	got="$(sha256sum <"$tmp/$name.csv" | cut -d' ' -f1) $(wc -l <"$tmp/$name.csv" | tr -d ' ')"
	file="$SRCDIR/test/golden/$name.sha256"
	if [ $update = yes ]; then
		echo "$got" >"$file"; echo "wrote $name: $got"
	elif [ ! -f "$file" ]; then
		echo "FAIL $name: no digest $file (run golden.sh --update)"; fail=1
	elif [ "$got" != "$(cat "$file")" ]; then
		echo "FAIL $name: flow table changed: digest rows $got, expected $(cat "$file")"; fail=1
	else
		echo "ok $name ($(echo "$got" | cut -d' ' -f2) flows)"
	fi
done <"$SRCDIR/test/golden/cases.txt"
exit $fail
