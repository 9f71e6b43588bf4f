#!/bin/sh
# replay.sh — make check: each fuzz target runs once over its seed corpus
# (test/fuzz/corpus/NAME) and over every input that once crashed, leaked,
# hung or tripped UBSan in it (test/fuzz/regress/NAME), so a fixed finding
# stays fixed in every build, fuzzing or not. The targets abort on a
# broken invariant; the sanitizer builds also catch memory errors and
# leaks. Run with BUILDDIR and SRCDIR set.
set -u
B=${BUILDDIR:-.} S=${SRCDIR:-.}
status=0 ran=0
for name in fuzz_scenario fuzz_cdf fuzz_hpcc_topology fuzz_hpcc_flows fuzz_simai fuzz_chakra; do
	bin=$B/test/fuzz/$name
	[ -x "$bin" ] || continue
	files=$(find "$S/test/fuzz/corpus/$name" "$S/test/fuzz/regress/$name" -type f 2>/dev/null | sort)
	if [ -z "$files" ]; then
		echo "FAIL: $name: no seed corpus in $S/test/fuzz/corpus/$name"
		status=1
		continue
	fi
	# Run from a private folder: relative paths in inputs resolve there.
	tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-fuzz.XXXXXX") || exit 1
	# shellcheck disable=SC2086 # one argument per file; names have no blanks
	(cd "$tmp" && "$bin" $files) >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $name exited with $rc"
		tail -30 "$tmp/out"
		status=1
	else
		echo "ok: $name: $(echo "$files" | wc -l) inputs"
	fi
	rm -rf "$tmp"
	ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "replay.sh: SKIP: no fuzz target built"; exit 77; }
exit $status
