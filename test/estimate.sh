#!/bin/sh
# estimate.sh — what `--check` says a run will cost, against the run:
#   - the network packets estimated from a job's plan and layout against the
#     data packets the run sends (within 3%);
#   - the mean path against its closed form;
#   - the capture size estimated against the pcap files written (within 5%);
#   - a warning before a run (or at --check with capture on) whose capture
#     would pass 1 GB, and none below.
# A small dense job: TP 2 (inside a host) x DP 4 on a leaf-spine of 2
# leaves x 2 hosts of 2 GPUs, so every DP ring edge joins two hosts and no
# TP message leaves one.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
command -v sqlite3 >/dev/null || { echo "estimate.sh: SKIP: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-est.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# within A B TOL: |A / B - 1| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b - 1; if (r < 0) r = -r; exit !(r <= t) }'; }

job() { # HIDDEN FFN SEQ ITERATIONS
	cat <<INI
[topology]
type = leaf_spine
leaves = 2
spines = 2
hosts_per_leaf = 2
link_rate = 100Gbps
link_delay = 1us
gpus_per_host = 2
[job.gpt]
model = gpt3-175b
layers = 2
hidden = $1
heads = 8
ffn_hidden = $2
seq_len = $3
global_batch = 8
tp = 2
dp = 4
iterations = $4
INI
}
job 256 1024 256 1 >"$tmp/tiny.ini"
job 1024 4096 512 2 >"$tmp/small.ini"

# Full frames cut at 64 bytes keep the capture small; the estimate counts
# each record as 16 + min(frame, snaplen) bytes.
"$SIM" --check --set pcap.snaplen=64B "$tmp/tiny.ini" >"$tmp/check.out" 2>"$tmp/check.err" ||
	fail "--check: exit $? ($(cat "$tmp/check.err"))"
grep -q "^run time: an estimate from the jobs' plans: .* events, about .* of CPU with this build" "$tmp/check.out" ||
	fail "--check: no run-time estimate ($(cat "$tmp/check.out"))"
est_pkts=$(sed -n "s/^run time: .*: \([0-9.e+]*\) network packets.*/\1/p" "$tmp/check.out")
# Mean links between NICs of two hosts, from host0: host1 under the same
# leaf (2 links), host2 and host3 across a spine (4): (2 + 4 + 4) / 3.
grep -q "over 3.33 links each" "$tmp/check.out" || fail "mean path: expected 3.33 links ($(grep '^run time' "$tmp/check.out"))"
est_pcap=$(sed -n "s/^pcap: capturing every host port would write about \([0-9.]*\) MB .*/\1/p" "$tmp/check.out")
[ -n "$est_pcap" ] || fail "--check: no capture estimate in MB ($(grep '^pcap' "$tmp/check.out"))"

db=$tmp/tiny.db
"$SIM" -q -o "$db" --pcap "$tmp/cap" --set pcap.snaplen=64B "$tmp/tiny.ini" >/dev/null 2>"$tmp/run.err" ||
	fail "run: exit $? ($(cat "$tmp/run.err"))"
sent=$(sqlite3 "$db" "SELECT packets_sent FROM run")
within "${est_pkts:-0}" "${sent:-1}" 0.03 || fail "network packets: estimated $est_pkts, the run sent $sent"
got_b=$(cat "$tmp"/cap/*.pcap | wc -c | tr -d ' ')
within "${est_pcap:-0}e6" "$got_b" 0.05 || fail "capture: estimated $est_pcap MB, the run wrote $got_b bytes"
grep -q "capture would write" "$tmp/run.err" && fail "a small capture was warned about: $(cat "$tmp/run.err")"

# Full frames of the larger job: about 4 GB, warned about at --check with
# capture on and not without.
"$SIM" --check --pcap "$tmp/big" "$tmp/small.ini" >/dev/null 2>"$tmp/big.err" || fail "--check --pcap: exit $?"
grep -q "^sim: warning: the capture would write about [0-9.]* GB (every host port, an estimate from the jobs' plans)" \
	"$tmp/big.err" || fail "large capture: no warning ($(cat "$tmp/big.err"))"
[ ! -e "$tmp/big" ] || fail "--check created the capture folder"
"$SIM" --check "$tmp/small.ini" >/dev/null 2>"$tmp/nocap.err" || fail "--check: exit $?"
grep -q "capture would write" "$tmp/nocap.err" && fail "warned without capture: $(cat "$tmp/nocap.err")"

[ $fails = 0 ] || exit 1
echo "estimate.sh: all checks passed"
