#!/bin/sh
# chakra.sh — Chakra execution traces as a job source ([job.NAME] workload =
# chakra), with traces written here by chakra_gen from the published schema:
#
#   dp: 4 ranks, one GPU per host on a 2 x 2 leaf-spine of 100 Gb/s links;
#       each rank computes C, all-reduces S, computes C, all-reduces S,
#       computes C. Checked: the plan's and the collective rows' bytes are
#       the trace's (2 all-reduces of S; flows: ring 2(n-1) S each); the
#       dependency order (the first all-reduce starts at C, the second C
#       after the first ends, the iteration ends C after it); the iteration
#       time equals 3 C + 2 T exactly, T the same all-reduce run alone as
#       [traffic] type = collective; compute_ps = 3 C, exposed_dp_ps = 2 T.
#   astra: one all-reduce per rank laid out as ASTRA-sim's microbenchmark
#       traces (Chakra's et_generator): the iteration is T exactly.
#   pg: the dp trace with pg_name on 4 GPUs of one host: tagged tp.
#   pp: 4 stages, 3 micro-batches, forward only; stage s receives micro-
#       batch m from s-1, computes C, sends S to s+1. Checked: every send
#       matched (P-1) x M messages of S; stage 0 sends micro-batch m at
#       (m+1) C; every later stage's send of m starts exactly C after the
#       later of its send of m-1 and the arrival of m (its compute's two
#       dependencies), with the arrivals as run; the iteration ends C after
#       the last stage's last dependency; and against the closed form
#       (M + P - 1) C + sum of the hops' times alone (T of each pair run as
#       [traffic] sendrecv), within 0.5% (ACKs of one hop share links
#       with the next hop's data).
#   errors: malformed, truncated, inconsistent traces and keys: exit 2, a
#       message naming the file and the node or byte; ranks that wait on
#       each other: exit 3, run status stalled.
#
# Run by `make check` with SIM, SRCDIR and BUILDDIR set. POSIX sh.
set -u
SIM=${SIM:-./sim}
GEN=${BUILDDIR:-.}/test/chakra_gen
command -v sqlite3 >/dev/null || { echo "chakra.sh: SKIP: sqlite3 not installed"; exit 77; }
[ -x "$GEN" ] || { echo "chakra.sh: SKIP: no $GEN"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-chakra.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
ok() { echo "ok: $*"; }
q() { sqlite3 "$1" "$2"; }
# within A B TOL: |A / B - 1| <= TOL
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { r = a / b - 1; if (r < 0) r = -r; exit !(r <= t) }'; }

fabric() { # GPUS_PER_HOST
	cat <<INI
[topology]
type = leaf_spine
leaves = 2
spines = 2
hosts_per_leaf = 2
link_rate = 100Gbps
link_delay = 1us
gpus_per_host = $1
INI
}

C_US=100
C=$((C_US * 1000000))
S=1048576
"$GEN" dp "$tmp/dp" 4 "$C_US" "$S" || exit 1

# ---- dp: bytes, order, time ----
{ fabric 1; printf '[job.dp]\nworkload = chakra\ntrace = dp\n'; } >"$tmp/dp.ini"
"$SIM" --check "$tmp/dp.ini" >"$tmp/dp.check" 2>&1 || fail "dp --check: exit $? ($(cat "$tmp/dp.check"))"
grep -q "^chakra: job=dp ranks=4 groups=1 nodes=20 comp=12 coll=8 send=0 recv=0 mem=0 other=0$" "$tmp/dp.check" ||
	fail "dp plan: node counts ($(grep '^chakra' "$tmp/dp.check"))"
grep -q "^chakra: job=dp kind=allreduce count=2 size_bytes=$((2 * S))$" "$tmp/dp.check" ||
	fail "dp plan: 2 all-reduces of $S B ($(grep '^chakra' "$tmp/dp.check"))"
# Ring all-reduce: every rank sends 2(n-1)/n of S, 2(n-1) S in all, per collective.
grep -q "^plan: job=dp parallelism=dp bytes=$((2 * 2 * 3 * S)) " "$tmp/dp.check" ||
	fail "dp plan: dp bytes ($(grep 'parallelism=dp' "$tmp/dp.check"))"
"$SIM" -q "$tmp/dp.ini" -o "$tmp/dp.db" >"$tmp/dp.out" 2>&1 || fail "dp run: exit $? ($(cat "$tmp/dp.out"))"
rows=$(q "$tmp/dp.db" "SELECT count(*), sum(size_bytes), min(group_size), max(group_size), group_concat(DISTINCT parallelism),
	group_concat(DISTINCT op), group_concat(DISTINCT job) FROM collective")
[ "$rows" = "2|$((2 * S))|4|4|dp|allreduce|dp" ] || fail "dp collectives: $rows, expected 2|$((2 * S))|4|4|dp|allreduce|dp"
fb=$(q "$tmp/dp.db" "SELECT sum(size_bytes) FROM flow WHERE source = 'job.dp'")
[ "$fb" = "$((2 * 2 * 3 * S))" ] || fail "dp flow bytes $fb, expected 2 x 2(n-1) S = $((2 * 2 * 3 * S))"
set -- $(q "$tmp/dp.db" "SELECT start_ps, end_ps FROM collective ORDER BY collective_id" | tr '|' ' ')
s1=$1 e1=$2 s2=$3 e2=$4
set -- $(q "$tmp/dp.db" "SELECT start_ps, end_ps, compute_ps, exposed_dp_ps, exposed_comm_ps, bubble_ps FROM iteration" | tr '|' ' ')
is=$1 ie=$2 icomp=$3 idp=$4 iexp=$5 ibub=$6
[ "$s1" = "$C" ] || fail "dp order: first all-reduce starts at $s1 ps, expected after the first compute, $C"
[ "$s2" = "$((e1 + C))" ] || fail "dp order: second all-reduce starts at $s2, expected C after the first ends ($((e1 + C)))"
[ "$ie" = "$((e2 + C))" ] || fail "dp order: iteration ends at $ie, expected C after the last all-reduce ($((e2 + C)))"
{ fabric 1; printf '[traffic.ar]\ntype = collective\nop = allreduce\nsize = %sB\n' "$S"; } >"$tmp/ar.ini"
"$SIM" -q "$tmp/ar.ini" -o "$tmp/ar.db" >"$tmp/ar.out" 2>&1 || fail "ar run: exit $? ($(cat "$tmp/ar.out"))"
T=$(q "$tmp/ar.db" "SELECT end_ps - start_ps FROM collective")
[ "$((ie - is))" = "$((3 * C + 2 * T))" ] ||
	fail "dp iteration $((ie - is)) ps, expected 3 C + 2 T = $((3 * C + 2 * T)) (T = $T ps alone)"
[ "$icomp" = "$((3 * C))" ] && [ "$idp" = "$((2 * T))" ] && [ "$iexp" = "$((2 * T))" ] && [ "$ibub" = 0 ] ||
	fail "dp breakdown: compute $icomp dp $idp exposed $iexp bubble $ibub, expected $((3 * C)) $((2 * T)) $((2 * T)) 0"
[ "$fails" -eq 0 ] && ok "dp: 2 all-reduces of $S B, iteration $((ie - is)) ps = 3 x $C + 2 x $T"

# Two iterations: the second starts where the first ended and takes as long.
"$SIM" -q --set job.dp.iterations=2 "$tmp/dp.ini" -o "$tmp/dp2.db" >/dev/null 2>&1 || fail "dp x2: exit $?"
it=$(q "$tmp/dp2.db" "SELECT group_concat(end_ps - start_ps), max(start_ps) FROM iteration")
[ "$it" = "$((ie - is)),$((ie - is))|$ie" ] || fail "dp x2: iterations $it, expected $((ie - is)),$((ie - is))|$ie"

# ---- astra: a trace laid out as ASTRA-sim's all-reduce microbenchmark
# (Chakra's et_generator: one COMM_COLL node per rank, id 0): the same
# all-reduce alone, so exactly T.
"$GEN" astra "$tmp/astra" 4 "$S" || exit 1
{ fabric 1; printf '[job.mb]\nworkload = chakra\ntrace = astra\n'; } >"$tmp/astra.ini"
"$SIM" -q "$tmp/astra.ini" -o "$tmp/astra.db" >"$tmp/astra.out" 2>&1 || fail "astra run: exit $? ($(cat "$tmp/astra.out"))"
mb=$(q "$tmp/astra.db" "SELECT end_ps - start_ps, compute_ps, exposed_dp_ps FROM iteration")
[ "$mb" = "$T|0|$T" ] || fail "astra microbenchmark: iteration, compute, exposed dp $mb, expected $T|0|$T"

# ---- pg: a named process group within one host is tensor-parallel ----
"$GEN" dp "$tmp/pg" 4 "$C_US" "$S" 7 || exit 1
{ fabric 4; printf '[job.pg]\nworkload = chakra\ntrace = %s\nhosts = host0\n' "$tmp/pg.%d.et"; } >"$tmp/pg.ini"
"$SIM" -q "$tmp/pg.ini" -o "$tmp/pg.db" >"$tmp/pg.out" 2>&1 || fail "pg run: exit $? ($(cat "$tmp/pg.out"))"
pg=$(q "$tmp/pg.db" "SELECT count(*), group_concat(DISTINCT parallelism), min(group_size) FROM collective;
	SELECT count(*) FROM flow WHERE transport != 'nvlink'")
[ "$pg" = "2|tp|4
0" ] || fail "pg: collectives, tag, group; network flows: $pg"

# ---- pp: matching and stage timing ----
P=4 M=3 PC_US=50 PS=262144
PC=$((PC_US * 1000000))
"$GEN" pp "$tmp/pp" "$P" "$M" "$PC_US" "$PS" || exit 1
{ fabric 1; printf '[job.pp]\nworkload = chakra\ntrace = %s\n' "$tmp"; } >"$tmp/pp_dir.ini"
# The folder form finds the one prefix there holding .0.et: dp and pg and
# pp are three, so it must refuse and name two of them.
"$SIM" --check "$tmp/pp_dir.ini" >"$tmp/ppdir.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "more than one job" "$tmp/ppdir.out" || fail "folder of several prefixes: exit $rc, $(cat "$tmp/ppdir.out")"
mkdir "$tmp/ppd" && cp "$tmp"/pp.*.et "$tmp/ppd/" || exit 1
{ fabric 1; printf '[job.pp]\nworkload = chakra\ntrace = ppd\n'; } >"$tmp/pp.ini"
"$SIM" --check "$tmp/pp.ini" >"$tmp/pp.check" 2>&1 || fail "pp --check: exit $? ($(cat "$tmp/pp.check"))"
grep -q "^chakra: job=pp kind=sendrecv count=$(((P - 1) * M)) size_bytes=$(((P - 1) * M * PS))$" "$tmp/pp.check" ||
	fail "pp plan: $(grep '^chakra' "$tmp/pp.check")"
"$SIM" -q "$tmp/pp.ini" -o "$tmp/pp.db" >"$tmp/pp.out" 2>&1 || fail "pp run: exit $? ($(cat "$tmp/pp.out"))"
n=$(q "$tmp/pp.db" "SELECT count(*), sum(size_bytes), group_concat(DISTINCT parallelism) FROM collective WHERE op = 'sendrecv'")
[ "$n" = "$(((P - 1) * M))|$(((P - 1) * M * PS))|pp" ] || fail "pp messages: $n"
# Each message: its sender's stage (host index) and its order among that
# stage's sends (= the micro-batch: a stage sends in micro-batch order).
q "$tmp/pp.db" "SELECT CAST(substr(f.src, 5) AS INTEGER), c.start_ps, c.end_ps FROM collective c
	JOIN (SELECT DISTINCT collective_id, src FROM flow) f USING (collective_id) ORDER BY 1, 2" >"$tmp/msgs"
end=$(q "$tmp/pp.db" "SELECT end_ps - start_ps FROM iteration")
awk -F'|' -v C="$PC" -v P="$P" -v M="$M" -v end="$end" '
	{ m = cnt[$1]++; st[$1, m] = $2; en[$1, m] = $3 }
	END {
		bad = 0
		for (m = 0; m < M; m++) if (st[0, m] != (m + 1) * C) { print "stage 0 sends " m " at " st[0, m]; bad++ }
		for (s = 1; s < P - 1; s++) for (m = 0; m < M; m++) {
			ready = en[s - 1, m]; if (m && st[s, m - 1] > ready) ready = st[s, m - 1]
			if (st[s, m] != ready + C) { print "stage " s " sends " m " at " st[s, m] ", expected " ready + C; bad++ }
		}
		last = en[P - 2, M - 1]; prev = en[P - 2, M - 2]  # last stage: computes after each arrival
		f = en[P - 2, 0] + C
		for (m = 1; m < M; m++) { r = en[P - 2, m]; if (f > r) r = f; f = r + C }
		if (f != end) { print "iteration ends at " end ", expected " f; bad++ }
		exit bad != 0
	}' "$tmp/msgs" || fail "pp: stage timing does not follow the dependencies ($(tr '\n' ' ' <"$tmp/msgs"))"
sum_t=0
for pair in "host0.gpu0,host1.gpu0" "host1.gpu0,host2.gpu0" "host2.gpu0,host3.gpu0"; do
	{ fabric 1; printf '[traffic.s]\ntype = collective\nop = sendrecv\nsize = %sB\ngpus = %s\n' "$PS" "$pair"; } >"$tmp/sr.ini"
	rm -f "$tmp/sr.db"
	"$SIM" -q "$tmp/sr.ini" -o "$tmp/sr.db" >/dev/null 2>&1 || fail "sendrecv $pair: exit $?"
	sum_t=$((sum_t + $(q "$tmp/sr.db" "SELECT end_ps - start_ps FROM collective")))
done
closed=$(((M + P - 1) * PC + sum_t))
within "$end" "$closed" 0.005 || fail "pp iteration $end ps, closed form (M+P-1) C + sum T = $closed"
ok "pp: iteration $end ps, closed form $closed ps"

# ---- errors: exit 2 and a located message ----
bad() { # NAME INI-TRACE EXPECT...
	name=$1 trace=$2
	shift 2
	{ fabric 1; printf '[job.bad]\nworkload = chakra\ntrace = %s\n' "$trace"; } >"$tmp/bad.ini"
	"$SIM" --check "$tmp/bad.ini" >"$tmp/bad.out" 2>&1
	rc=$?
	[ "$rc" = 2 ] || { fail "$name: exit $rc, expected 2 ($(cat "$tmp/bad.out"))"; return; }
	for e in "$@"; do
		grep -qF -- "$e" "$tmp/bad.out" || { fail "$name: no '$e' in: $(cat "$tmp/bad.out")"; return; }
	done
	ok "$name: $(head -1 "$tmp/bad.out")"
}
for d in dep cycle dup type reduce garbage unmatched; do
	mkdir "$tmp/$d" && "$GEN" bad "$tmp/$d/t" "$d" || exit 1
done
bad "unknown dependency" "dep/t" "bad.ini:" "[job.bad] trace" "t.0.et: node 1 (id 2) at byte" "depends on id 77"
bad "cycle" "dep/../cycle/t" "t.0.et: node" "form a cycle"
bad "duplicate id" "dup/t" "node 1 (id 1)" "already used by node 0"
bad "collective without comm_type" "type/t" "node 1 (id 2)" "comm_type"
bad "REDUCE" "reduce/t" "comm_type 1 (REDUCE)"
bad "not a node" "garbage/t" "node 1 at byte" "not a valid Chakra Node message"
bad "unmatched send" "unmatched/t" "rank 0" "sends 1 message to rank 1" "receives 0"
# Truncated: every cut of a valid trace inside a message is refused.
size=$(wc -c <"$tmp/dp.0.et")
mkdir "$tmp/cut"
for cut in 1 7 40 $((size - 1)); do
	head -c "$cut" "$tmp/dp.0.et" >"$tmp/cut/t.0.et"
	bad "truncated at $cut of $size bytes" "cut/t" "t.0.et:" "truncated?"
done
: >"$tmp/cut/t.0.et"
bad "empty file" "cut/t" "the file is empty"
bad "no such trace" "nothing/here" "no trace for rank 0" "nothing/here.0.et"
bad "bad pattern" "x.%s.et" "[job.bad] trace = 'x.%s.et'" "one %d"
# Too many ranks for the job's hosts (4 traces, 2 hosts of 1 GPU).
{ fabric 1; printf '[job.bad]\nworkload = chakra\ntrace = %s\nhosts = host0, host1\n' "$tmp/dp"; } >"$tmp/bad.ini"
"$SIM" --check "$tmp/bad.ini" >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "more traces (ranks) than the 2 GPUs" "$tmp/bad.out" || fail "too many ranks: exit $rc, $(cat "$tmp/bad.out")"
# Keys of the other workload are refused, and the trace key needs chakra.
{ fabric 1; printf '[job.bad]\nworkload = chakra\ntrace = %s\ntp = 2\n' "$tmp/dp"; } >"$tmp/bad.ini"
"$SIM" --check "$tmp/bad.ini" >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "tp = '2': expected unset with workload = chakra" "$tmp/bad.out" || fail "tp with chakra: exit $rc, $(cat "$tmp/bad.out")"
{ fabric 1; printf '[job.bad]\nworkload = chakr\ntrace = %s\n' "$tmp/dp"; } >"$tmp/bad.ini"
"$SIM" --check "$tmp/bad.ini" >"$tmp/bad.out" 2>&1
rc=$?
[ "$rc" = 2 ] && grep -q "did you mean 'chakra'" "$tmp/bad.out" || fail "misspelt workload: exit $rc, $(cat "$tmp/bad.out")"

# Ranks that wait on each other: the run ends stalled (exit 3), the
# iteration unfinished.
mkdir "$tmp/dl" && "$GEN" bad "$tmp/dl/t" deadlock || exit 1
{ fabric 1; printf '[job.dl]\nworkload = chakra\ntrace = dl/t\n'; } >"$tmp/dl.ini"
"$SIM" -q "$tmp/dl.ini" -o "$tmp/dl.db" >"$tmp/dl.out" 2>&1
rc=$?
dl=$(q "$tmp/dl.db" "SELECT status FROM run; SELECT count(*), count(end_ps) FROM iteration")
[ "$rc" = 3 ] && [ "$dl" = "stalled
1|0" ] && grep -q "job 'dl' finished 0 of 1 iterations" "$tmp/dl.out" ||
	fail "ranks waiting on each other: exit $rc, $dl, $(cat "$tmp/dl.out")"

[ "$fails" -eq 0 ] || { echo "chakra.sh: $fails failure(s)"; exit 1; }
echo "chakra.sh: all checks passed"
