#!/usr/bin/env bash
# Golden result tables: each case of test/golden/cases.txt runs, and every
# table of its database (flow, collective, iteration, pfc_pause,
# port_stats, node, link, multicast_group, deadlock, the sampled tables and
# `run` less its wall-clock, path and version columns: a new version
# number changes no result) must hash to the digests in
# test/golden/NAME.sha256, one line per table: "TABLE SHA256 ROWS". Rows
# are compared sorted by every column, so only content counts, not the
# order rows were inserted in. run.config has the source folder replaced
# by @SRCDIR@, so the digests hold in any build tree.
# This guards equivalence under refactoring and optimisation: a change
# meant to keep results must keep every digest. Correctness is the physics
# tests' job.
#   golden.sh [NAME...]            check (make check runs every case)
#   golden.sh --update [NAME...]   rewrite digests after an intended change
# Environment (make check sets them): SIM, SRCDIR. GOLDEN_JOBS (2): cases
# run at once. GOLDEN_SKIP: names of cases not to run (CI's sanitizer and
# distcheck builds skip the full headline scenario, which the optimised
# build checks; each skipped case is listed in the output).
set -eu
: "${SIM:?}" "${SRCDIR:?}"
update=no
[ "${1:-}" = --update ] && { update=yes; shift; }
command -v sqlite3 >/dev/null || { echo "golden: sqlite3 not found"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-golden.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM
src=$(cd "$SRCDIR" && pwd -P)

# dump DB OUT: "TABLE SHA ROWS" per table, tables by name.
dump() {
	for t in $(sqlite3 "$1" "SELECT name FROM sqlite_master WHERE type = 'table'
	                         AND name NOT LIKE 'sqlite_%' ORDER BY name"); do
		if [ "$t" = run ]; then
			cols="run_id, replace(config, '$src', '@SRCDIR@'), seed, sim_end_ps,
			      events, packets_sent, packets_delivered, packets_dropped, status"
		else
			cols='*'
		fi
		# Sorted by every column of cols: as many as a view of them has.
		n=$(sqlite3 "$1" "CREATE TEMP VIEW golden_cols AS SELECT $cols FROM \"$t\";
		                  SELECT count(*) FROM pragma_table_info('golden_cols')")
		order=$(seq -s, 1 "$n")
		sqlite3 -csv "$1" "SELECT $cols FROM \"$t\" ORDER BY $order" >"$1.$t.csv"
		echo "$t $(sha256sum <"$1.$t.csv" | cut -d' ' -f1) $(wc -l <"$1.$t.csv" | tr -d ' ')"
	done >"$2"
}

# one NAME SCENARIO [SETS...]: runs a case, writes $tmp/NAME.result.
one() {
	name=$1 scenario=$2
	shift 2
	status=0
	"$SIM" -q -o "$tmp/$name.db" "$SRCDIR/scenarios/$scenario" "$@" >"$tmp/$name.out" 2>&1 || status=$?
	# 3: a deadlock or stall the scenario is built to show; the database is written.
	if [ $status -ne 0 ] && [ $status -ne 3 ]; then
		{ echo "FAIL $name: sim exited $status"; cat "$tmp/$name.out"; } >"$tmp/$name.result"
		return
	fi
	dump "$tmp/$name.db" "$tmp/$name.got"
	file="$SRCDIR/test/golden/$name.sha256"
	if [ $update = yes ]; then
		cp "$tmp/$name.got" "$file"
		echo "wrote $name ($(wc -l <"$file" | tr -d ' ') tables)" >"$tmp/$name.result"
	elif [ ! -f "$file" ]; then
		echo "FAIL $name: no digests in $file (run golden.sh --update $name)" >"$tmp/$name.result"
	elif ! cmp -s "$tmp/$name.got" "$file"; then
		{ echo "FAIL $name: tables changed (expected, then got):"
		  diff "$file" "$tmp/$name.got" | grep '^[<>]'; } >"$tmp/$name.result"
	else
		echo "ok $name ($(awk '$1 == "flow" { print $3 }' "$file") flows, $(wc -l <"$file" | tr -d ' ') tables)" >"$tmp/$name.result"
	fi
}

grep -v '^#' "$SRCDIR/test/golden/cases.txt" | grep -v '^[[:space:]]*$' >"$tmp/cases"
if [ $# -gt 0 ]; then
	for n in "$@"; do grep "^$n " "$tmp/cases" || { echo "golden: no case $n"; exit 2; }; done >"$tmp/sel"
	mv "$tmp/sel" "$tmp/cases"
fi
for n in ${GOLDEN_SKIP:-}; do
	grep -q "^$n " "$tmp/cases" || { echo "golden: GOLDEN_SKIP names no case $n"; exit 2; }
	grep -v "^$n " "$tmp/cases" >"$tmp/sel" || true
	mv "$tmp/sel" "$tmp/cases"
	echo "skipped $n (GOLDEN_SKIP)"
done
# Cases run GOLDEN_JOBS at a time (the longest first, as listed).
jobs=${GOLDEN_JOBS:-2}
running=0
while read -r line; do
	# shellcheck disable=SC2086 # the --set words split on purpose
	one $line &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done <"$tmp/cases"
wait
fail=0
while read -r name _; do
	cat "$tmp/$name.result"
	grep -q '^FAIL' "$tmp/$name.result" && fail=1
done <"$tmp/cases"
exit $fail
