#!/usr/bin/env bash
# run.sh SECONDS FUZZDIR TARGET... — `make fuzz`: runs each libFuzzer
# target for SECONDS, FUZZ_JOBS (2) at a time, from the build folder.
#
# Each target starts from its seed corpus FUZZDIR/corpus/NAME and the inputs
# that once crashed it (FUZZDIR/regress/NAME), and writes what it finds new
# to fuzz-work/NAME (never into the source tree). A crash, leak, UBSan
# report, hang (-timeout) or out-of-memory leaves the input in
# fuzz-work/artifacts/ and stops with a failure. The last lines of each log
# (fuzz-work/NAME.log) give executions (#N, stat::number_of_executed_units)
# and coverage (cov:, ft:); they are printed in the order of the targets.
set -u
seconds=$1 dir=$2
shift 2
mkdir -p fuzz-work/artifacts || exit 1

# one BIN: runs a target; its exit status is in fuzz-work/NAME.rc.
one() {
	local bin=$1 name opts seeds d
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
	# shellcheck disable=SC2086 # opts and seeds split on purpose
	"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="fuzz-work/artifacts/$name-" $opts "fuzz-work/$name" $seeds \
		>"fuzz-work/$name.log" 2>&1
	echo $? >"fuzz-work/$name.rc"
}

jobs=${FUZZ_JOBS:-2}
running=0
for bin in "$@"; do
	echo "== $(basename "$bin"): $seconds s"
	one "$bin" &
	running=$((running + 1))
	if [ $running -ge "$jobs" ]; then wait -n; running=$((running - 1)); fi
done
wait
status=0
for bin in "$@"; do
	name=$(basename "$bin")
	echo "-- $name"
	grep -E '^#[0-9]+.*(DONE|cov:)' "fuzz-work/$name.log" | tail -1
	grep -E '^stat::number_of_executed_units|^stat::peak_rss_mb' "fuzz-work/$name.log"
	rc=$(cat "fuzz-work/$name.rc" 2>/dev/null || echo 1)
	if [ "$rc" -ne 0 ]; then
		echo "FAIL: $name exited with $rc; see fuzz-work/$name.log and fuzz-work/artifacts/"
		grep -E '^==[0-9]+==ERROR|runtime error|^SUMMARY|ALARM|fuzz_[a-z_]+:' "fuzz-work/$name.log" | head -5
		status=1
	fi
done
exit $status
