#!/bin/sh
# run.sh SECONDS FUZZDIR TARGET... — `make fuzz`: runs each libFuzzer
# target for SECONDS, one after another, from the build folder.
#
# Each target starts from its seed corpus FUZZDIR/corpus/NAME and the inputs
# that once crashed it (FUZZDIR/regress/NAME), and writes what it finds new
# to fuzz-work/NAME (never into the source tree). A crash, leak, UBSan
# report, hang (-timeout) or out-of-memory leaves the input in
# fuzz-work/artifacts/ and stops with a failure. The last lines of each log
# (fuzz-work/NAME.log) give executions (#N, stat::number_of_executed_units)
# and coverage (cov:, ft:).
#
# Per format: -max_len just above the largest shipped file of that kind
# (googlerpc2008.cdf is 12 KB; scenarios are under 2 KB), -dict with the
# keys and syntax of the format where one exists.
set -u
seconds=$1 dir=$2
shift 2
mkdir -p fuzz-work/artifacts || exit 1
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	case $name in
	fuzz_scenario) opts="-max_len=8192 -dict=$dir/scenario.dict" ;;
	fuzz_cdf) opts="-max_len=16384 -dict=$dir/cdf.dict" ;;
	fuzz_simai) opts="-max_len=8192 -dict=$dir/simai.dict" ;;
	*) opts="-max_len=8192" ;;
	esac
	mkdir -p "fuzz-work/$name"
	seeds=
	for d in "$dir/corpus/$name" "$dir/regress/$name"; do
		[ -d "$d" ] && seeds="$seeds $d"
	done
	echo "== $name: $seconds s"
	# shellcheck disable=SC2086 # opts and seeds are word lists
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="fuzz-work/artifacts/$name-" $opts "fuzz-work/$name" $seeds \
		>"fuzz-work/$name.log" 2>&1
	rc=$?
	grep -E '^#[0-9]+.*(DONE|cov:)' "fuzz-work/$name.log" | tail -1
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "fuzz-work/$name.log"
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $name exited with $rc; see fuzz-work/$name.log and fuzz-work/artifacts/"
		grep -E '^==[0-9]+==ERROR|runtime error|^SUMMARY|ALARM|fuzz_[a-z_]+:' "fuzz-work/$name.log" | head -5
		status=1
	fi
done
exit $status
