#!/bin/sh
# serve.sh — the line protocol of `sim --serve` (models/run/serve.c,
# docs/library.md): one reply line per request, in order; a collective's
# completion time equals the batch run's collective.end_ps of the same
# [traffic] collective; a chained post (after:TAG) starts at its
# predecessor's completion; errors are `error CODE ...` lines and change
# nothing; end of input closes the run and -o's database has the run row
# complete; a bad scenario exits 2 with nothing on stdout.
# Environment (make check sets them): SIM, SRCDIR.
set -eu
: "${SIM:?}" "${SRCDIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-serve.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
FABRIC=$SRCDIR/test/api_fabric.ini
GPUS="host0.gpu0 host0.gpu1 host1.gpu0 host1.gpu1 host2.gpu0 host2.gpu1 host3.gpu0 host3.gpu1"

"$SIM" "$FABRIC" -q -o "$T/batch.db" --set traffic.ar.type=collective --set traffic.ar.op=allreduce \
	--set traffic.ar.size=1MiB --set traffic.ar.start=10us >/dev/null
want=$(sqlite3 "$T/batch.db" "SELECT end_ps FROM collective")
[ -n "$want" ] || fail "no batch collective"

cat >"$T/in.txt" <<EOF2
# a comment, and an empty line: no reply

now
post coll allreduce ring 1MiB 10us 7 $GPUS
post msg host0 host1 4KB after:7 8
pending
next
next
post msg host0.gpu0 host1.gpu0 1000 1us 9
advance 1ms
advance 5
post coll allreduse ring 1KB 2ms 10 host0.gpu0 host1.gpu0
post msg host0.gpu0 host9.gpu0 1000 2ms 11
post msg host0.gpu0 host1.gpu0 lots 2ms 12
frobnicate
next
now
EOF2
"$SIM" --serve "$FABRIC" -o "$T/serve.db" <"$T/in.txt" >"$T/out.txt" 2>"$T/err.txt" || {
	cat "$T/err.txt"; fail "sim --serve exited $?"; }
n_req=$(grep -cv '^#\|^$' "$T/in.txt")
n_out=$(wc -l <"$T/out.txt")
[ "$n_out" -eq $((n_req + 1)) ] || { cat "$T/out.txt"; fail "$n_req requests and end of input: $n_out replies"; }
line() { sed -n "${1}p" "$T/out.txt"; }
[ "$(line 1)" = "ok 0" ] || fail "now: $(line 1)"
[ "$(line 2)" = "ok" ] && [ "$(line 3)" = "ok" ] || fail "posts: $(line 2) / $(line 3)"
[ "$(line 4)" = "ok 2" ] || fail "pending: $(line 4)"
set -- $(line 5)
[ "$1 $2 $3 $4 $5 $6" = "done 7 $want 1048576 coll 10000000" ] || fail "collective: $(line 5) (batch end_ps $want)"
set -- $(line 6)
[ "$1 $2 $4 $5 $6" = "done 8 4000 msg $want" ] && [ "$3" -gt "$want" ] ||
	fail "chained message: $(line 6) (posted at the collective's end $want)"
case $(line 7) in "error past "*) ;; *) fail "post in the past: $(line 7)" ;; esac
[ "$(line 8)" = "ok 1000000000" ] || fail "advance: $(line 8)"
case $(line 9) in "error past "*) ;; *) fail "advance backwards: $(line 9)" ;; esac
case $(line 10) in "error arg unknown collective op 'allreduse'"*) ;; *) fail "bad op: $(line 10)" ;; esac
case $(line 11) in "error name unknown GPU or host 'host9.gpu0'"*) ;; *) fail "bad GPU: $(line 11)" ;; esac
case $(line 12) in "error syntax BYTES"*) ;; *) fail "bad size: $(line 12)" ;; esac
case $(line 13) in "error syntax unknown request 'frobnicate'"*) ;; *) fail "bad request: $(line 13)" ;; esac
case $(line 14) in "error idle "*) ;; *) fail "next with nothing pending: $(line 14)" ;; esac
[ "$(line 15)" = "ok 1000000000" ] || fail "now after errors: $(line 15)"
[ "$(line 16)" = "ok complete" ] || fail "end of input: $(line 16)"
[ "$(sqlite3 "$T/serve.db" "SELECT status, sim_end_ps FROM run")" = "complete|1000000000" ] ||
	fail "run row: $(sqlite3 "$T/serve.db" "SELECT status, sim_end_ps FROM run")"
[ "$(sqlite3 "$T/serve.db" "SELECT end_ps FROM collective")" = "$want" ] || fail "collective row"

# A bad scenario: exit 2, the located message on stderr, nothing on stdout.
printf '[topology]\ntype = star\nhosts = 2\nlink_rate = 100Gbps\nlink_delay = soon\n' >"$T/bad.ini"
rc=0
echo now | "$SIM" --serve "$T/bad.ini" >"$T/out2.txt" 2>"$T/err2.txt" || rc=$?
[ "$rc" -eq 2 ] || fail "bad scenario: exit $rc"
[ ! -s "$T/out2.txt" ] || fail "bad scenario wrote on stdout: $(cat "$T/out2.txt")"
grep -q "bad.ini:5.*link_delay" "$T/err2.txt" || fail "bad scenario message: $(cat "$T/err2.txt")"
echo "serve: $n_req requests, $n_out replies; collective $want ps = batch; errors as lines; run row complete"
