#!/bin/sh
# partition.sh — `sim --check --ranks N` and the [parallel] section through
# the real binary (docs/parallel.md "Partitioning"): the partition printed
# for a k = 4 fat tree against its closed form, and bad input refused with
# exit status 2, one located line on stderr and no database written.
#
# k = 4 fat tree in 4 ranks by pod: one pod per rank; each of the 4 cores
# has one link to every pod, 3 of them to other ranks: 12 cut links of 48
# (k^3/4 hosts + k^3/4 ToR-agg + k^3/4 agg-core), 1200 Gb/s of 4800 =
# 25.0%; each rank 4 hosts, 2 ToRs, 2 aggs, 1 core; 16 hosts in 4 ranks of
# 4: 1 - 4 x 4 x 3 / (16 x 15) = 80.0% of uniform flows cross ranks.
#
# Run by `make check` with SIM set. POSIX sh only.
set -u
SIM=${SIM:-./sim}
if [ ! -x "$SIM" ]; then
	echo "partition.sh: SKIP: $SIM is not built"
	exit 77
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-partition.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
cases=0
fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

cat >"$tmp/ft.ini" <<'EOF'
[topology]
type = fat_tree
k = 4
link_rate = 100Gbps
link_delay = 1500ns
[traffic.p]
type = permutation
size = 10KB
[parallel]
partition = pod
EOF

# has FILE TEXT: the file holds the line fragment TEXT.
has() {
	grep -F -q -- "$2" "$1" || fail "$3: output lacks '$2'"
}

cases=$((cases + 1))
"$SIM" -q --check --ranks 4 -o "$tmp/out.db" "$tmp/ft.ini" >"$tmp/out" 2>"$tmp/err"
rc=$?
[ $rc -eq 0 ] || fail "check --ranks 4: exit $rc: $(cat "$tmp/err")"
has "$tmp/out" "partition: 4 ranks by pod, 4 pods dealt in blocks; 12 of 48 links cut (1200Gbps, 25.0% of the link capacity); lookahead 1500ns" "ranks 4"
for r in 0 1 2 3; do
	has "$tmp/out" "partition: rank $r: 9 nodes (4 hosts, 5 switches), 24 ports, 6 cut links; builds 30 ports" "ranks 4"
done
has "$tmp/out" "at least 80.0% of the flows cross ranks" "ranks 4"
[ ! -e "$tmp/out.db" ] || fail "check --ranks 4 wrote a database"

# Without --ranks, --check prints no partition.
cases=$((cases + 1))
"$SIM" -q --check "$tmp/ft.ini" >"$tmp/out" 2>&1 || fail "check: exit $?"
! grep -q '^partition:' "$tmp/out" || fail "check without --ranks printed a partition"

# bad NAME WANT [sim options...]: exit 2, one line "sim: ..." holding WANT,
# no database. A usage error (usage NAME WANT ...) adds the --help hint.
lines=1
usage() {
	lines=2
	bad "$@"
	lines=1
}
bad() {
	name=$1 want=$2
	shift 2
	cases=$((cases + 1))
	rm -f "$tmp/out.db"
	"$SIM" -q -o "$tmp/out.db" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 2 ] || fail "$name: exit $rc, expected 2"
	[ "$(wc -l <"$tmp/err" | tr -d ' ')" -eq $lines ] || fail "$name: not $lines line(s) on stderr: $(cat "$tmp/err")"
	[ $lines -eq 1 ] || grep -q "^Try 'sim --help'" "$tmp/err" || fail "$name: no --help hint"
	grep -F -q -- "$want" "$tmp/err" || fail "$name: stderr lacks '$want': $(cat "$tmp/err")"
	[ ! -e "$tmp/out.db" ] || fail "$name: wrote a database"
	[ ! -s "$tmp/out" ] || fail "$name: printed on stdout: $(head -3 "$tmp/out")"
}

bad "more ranks than pods" \
	"sim: $tmp/ft.ini:10: [parallel] partition = 'pod': 5 ranks but the fabric has only 4 pods; use partition = leaf or metis, or fewer ranks" \
	--check --ranks 5 "$tmp/ft.ini"
bad "misspelt method" \
	"sim: --set: [parallel] partition = 'rial': expected one of auto, pod, leaf, rail, metis, round_robin or hosts (did you mean 'rail'?)" \
	--check --ranks 2 --set parallel.partition=rial "$tmp/ft.ini"
bad "unknown key" "[parallel]" --check --set parallel.partitions=pod "$tmp/ft.ini"
bad "more ranks than nodes" \
	"[parallel] partition = 'auto': 37 ranks but the fabric has only 36 nodes (hosts and switches); use at most 36 ranks" \
	--check --ranks 37 --set parallel.partition=auto "$tmp/ft.ini"
sed -e 's/fat_tree/ring/' -e 's/^k = 4/switches = 4\nhosts_per_switch = 1/' "$tmp/ft.ini" >"$tmp/ring.ini"
bad "no pods in a ring" \
	"[parallel] partition = 'pod': the fabric has no pods: without its top tier (tier 1, such as sw0) its hosts are left without a switch; use partition = metis" \
	--check --ranks 2 "$tmp/ring.ini"
# A training job: every host on rank 0 unless it reacts at least the
# lookahead late (endpoint_delay): then it runs on every rank, its hosts
# spread (round_robin by auto: 8 hosts a rank).
cat >"$tmp/job.ini" <<'EOF'
[topology]
type = fat_tree
k = 4
link_rate = 100Gbps
link_delay = 1500ns
[job.g]
model = custom
layers = 2
hidden = 64
heads = 1
vocab = 100
seq_len = 16
global_batch = 16
dp = 16
EOF
# job_check NAME DELAY: --check --ranks 2 of job.ini with that endpoint_delay.
job_check() {
	cases=$((cases + 1))
	"$SIM" -q --check --ranks 2 --set job.g.endpoint_delay="$2" "$tmp/job.ini" >"$tmp/out" 2>&1 ||
		fail "$1: exit $?"
}
job_check "job" 0s
has "$tmp/out" "partition: 2 ranks by hosts (auto)" "job"
has "$tmp/out" "partition: every host is rank 0's, with the jobs and collectives" "job"
job_check "late job" 1500ns
has "$tmp/out" "partition: 2 ranks by round_robin (auto)" "late job"
has "$tmp/out" "partition: rank 1: 18 nodes (8 hosts, 10 switches)" "late job"
has "$tmp/out" "partition: the jobs and collectives run on every rank, each rank posting its own hosts' messages; they see a piece 1500ns after it arrived (endpoint_delay), at least the lookahead" "late job"
job_check "early job" 1us
has "$tmp/out" "partition: 2 ranks by round_robin (auto)" "early job"
has "$tmp/out" "lookahead 1us" "early job"
has "$tmp/out" "they see a piece 1us after it arrived (endpoint_delay), sooner than the shortest cut link's 1500ns, so the ranks synchronise every 1us" "early job"
job_check "too early job" 700ns
has "$tmp/out" "partition: 2 ranks by hosts (auto)" "too early job"
has "$tmp/out" "partition: the jobs see a piece 700ns after it arrived (endpoint_delay), under half the delay of the links spreading them would cut" "too early job"
cases=$((cases + 1))
"$SIM" -q --check --ranks 2 --set job.g.endpoint_delay=100ns --set parallel.partition=pod "$tmp/job.ini" \
	>"$tmp/out" 2>&1 || fail "early job by pod: exit $?"
has "$tmp/out" "partition: 2 ranks by pod" "early job by pod"
has "$tmp/out" "so the ranks synchronise every 100ns" "early job by pod"
usage "ranks without check" "sim: --ranks goes with --check" --ranks 2 "$tmp/ft.ini"
usage "ranks not a number" "sim: --ranks expects an integer from 1 to 1000000, got 'x'" --check --ranks x "$tmp/ft.ini"
usage "ranks zero" "sim: --ranks expects an integer from 1 to 1000000, got '0'" --check --ranks 0 "$tmp/ft.ini"

if [ "$fails" -ne 0 ]; then
	echo "partition.sh: $fails failure(s) in $cases cases"
	exit 1
fi
echo "partition.sh: all $cases cases passed"
exit 0
