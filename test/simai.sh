#!/bin/sh
# simai.sh — `sim --check` on SimAI/AICB workload files: the bytes per
# parallelism of the plan lines equal the sums of the file's own collective
# sizes times their repeat factors and algorithm factors, computed from the
# file alone by simai_bytes.awk (the rules are stated there), exactly, for
# GPT-7B on 64 GPUs, GPT-13B on 128 GPUs (pp 2, vpp 20, ga 16: PP too),
# the MoE example (TP, EP, expert-DP) and the micro all-reduce;
# scenarios/simai_gpt7b.ini checks; and analysis/simai_analytical.awk
# gives the micro all-reduce's closed form.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
SRCDIR=$(cd "${SRCDIR:-..}" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-simai.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

scenario() { # FILE HOSTS
	cat <<INI
[topology]
type = leaf_spine
leaves = 2
spines = 2
hosts_per_leaf = $2
link_rate = 400Gbps
link_delay = 1us
gpus_per_host = 8
[job.s]
workload = simai
file = $SRCDIR/data/simai/$1
INI
}

for case in workload_gpt7b_64g.txt:4 workload_gpt13b_128g.txt:8 workload_ep_test.txt:2 microAllReduce_16g.txt:1; do
	file=${case%%:*}
	hosts=${case##*:}
	scenario "$file" "$hosts" >"$tmp/s.ini"
	if ! "$SIM" --check "$tmp/s.ini" >"$tmp/check.out" 2>&1; then
		fail "$file: --check failed"; cat "$tmp/check.out"; continue
	fi
	awk -f "$SRCDIR/test/simai_bytes.awk" "$SRCDIR/data/simai/$file" >"$tmp/want"
	sed -n 's/^plan: job=s parallelism=\([a-z]*\) bytes=\([0-9]*\) .*/\1 \2/p' "$tmp/check.out" >"$tmp/got"
	if cmp -s "$tmp/want" "$tmp/got"; then
		echo "ok: $file: $(tr '\n' ' ' <"$tmp/got")"
	else
		fail "$file: plan bytes differ from the file's sums"
		echo "  file's sums:"; sed 's/^/    /' "$tmp/want"
		echo "  plan:"; sed 's/^/    /' "$tmp/got"
	fi
done

# The SimAI scenario checks, and a file that does not exist is bad input.
"$SIM" --check "$SRCDIR/scenarios/simai_gpt7b.ini" >"$tmp/check.out" 2>&1 ||
	{ fail "scenarios/simai_gpt7b.ini: --check failed"; cat "$tmp/check.out"; }
grep -q '^plan: job=gpt7b parallelism=dp bytes=171286986752 ' "$tmp/check.out" ||
	fail "scenarios/simai_gpt7b.ini: no DP plan line of 7 x 8 x 3058696192 B"
"$SIM" --check "$SRCDIR/scenarios/simai_gpt7b.ini" --set job.gpt7b.file=/nonexistent/w.txt >"$tmp/err" 2>&1
rc=$?
[ "$rc" -eq 2 ] || fail "a missing workload file: exit $rc, not 2"
grep -q '/nonexistent/w.txt' "$tmp/err" || { fail "a missing workload file is not named"; cat "$tmp/err"; }

# SimAI's analytical prediction (analysis/simai_analytical.awk) for the
# micro all-reduce, by hand: compute 2 x (556000 + 1 + 1) ns; two TP
# all-reduces over 8 GPUs at 300 GB/s (GB = 2^30 B): 2 x 7/8 x 16 MiB / 300
# = 91145.83 ns and 2 x 7/8 x 64 MiB / 300 = 364583.33 ns; total
# 1567733.17 ns.
got=$(awk -f "$SRCDIR/analysis/simai_analytical.awk" "$SRCDIR/data/simai/busbw.yaml" \
	"$SRCDIR/data/simai/microAllReduce.txt")
[ "$got" = "compute_ns 1112004 exposed_ns 455729 bubble_ns 0 pp_ns 0 total_ns 1567733" ] ||
	fail "SimAI analytical prediction of the micro all-reduce: $got"

[ "$fails" -eq 0 ] || exit 1
echo "simai.sh: all checks passed"
