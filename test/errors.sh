#!/bin/sh
# errors.sh — bad input through the real `sim` binary (docs/scenario.md
# "Command line"): every class of scenario error must exit with status 2, print one
# line on stderr naming file:line (or --set) and the key, and write nothing:
# no result database appears, and an existing one is left byte-identical.
#
# Run by `make check` with SIM (path to ./sim), SRCDIR and BUILDDIR set.
# POSIX sh only.

set -u
SIM=${SIM:-./sim}
if [ ! -x "$SIM" ]; then
	echo "errors.sh: SKIP: $SIM is not built"
	exit 77
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-errors.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
cases=0

fail() {
	echo "FAIL: $*"
	fails=$((fails + 1))
}

# A valid scenario; bad ones are variations of it.
good='[topology]
type = star
hosts = 4
link_rate = 100Gbps
link_delay = 1us
[traffic.f]
type = flows
flow = host0 host1 10KB 0us
'

# bad NAME TEXT WANT1 WANT2 [sim options...]
# Writes TEXT to bad.ini, runs sim on it, checks status, stderr and output.
bad() {
	name=$1 text=$2 want1=$3 want2=$4
	shift 4
	cases=$((cases + 1))
	printf '%s' "$text" >"$tmp/bad.ini"
	rm -f "$tmp/out.db"
	"$SIM" -q -o "$tmp/out.db" "$@" "$tmp/bad.ini" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	msg=$(cat "$tmp/stderr")
	lines=$(wc -l <"$tmp/stderr" | tr -d ' ')
	[ "$rc" -eq 2 ] || fail "$name: exit status $rc, expected 2 (stderr: $msg)"
	[ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr, expected 1: $msg"
	case $msg in
	"sim: "*) ;;
	*) fail "$name: message does not start with 'sim: ': $msg" ;;
	esac
	case $msg in
	*"$want1"*) ;;
	*) fail "$name: message lacks '$want1': $msg" ;;
	esac
	case $msg in
	*"$want2"*) ;;
	*) fail "$name: message lacks '$want2': $msg" ;;
	esac
	[ ! -e "$tmp/out.db" ] || fail "$name: $tmp/out.db was written"
}

# The good scenario must pass, or every check below proves nothing.
printf '%s' "$good" >"$tmp/good.ini"
if ! "$SIM" -q --check "$tmp/good.ini" >"$tmp/stdout" 2>"$tmp/stderr"; then
	fail "the valid scenario is rejected: $(cat "$tmp/stderr")"
fi

bad "unknown section" "$good[swtch]
pfc = on
" "bad.ini:9:" "unknown section [swtch]"

bad "unknown key" "$good[switch]
pfx = on
" "bad.ini:10:" "[switch] unknown key 'pfx'"

bad "key of another topology type" "$good" "bad.ini:3:" "hosts = '4'" --set topology.type=dumbbell

bad "key of another traffic type" "$good[traffic.in]
type = incast
load = 0.5
" "bad.ini:11:" "[traffic.in] load = '0.5'"

bad "missing required key" "[topology]
type = star
hosts = 4
link_delay = 1us
" "bad.ini:1:" "missing required key 'link_rate'"

bad "missing type-specific key" "$good[traffic.in]
type = incast
senders = host0 host1
receiver = host2
" "bad.ini:9:" "missing required key 'size'"

bad "missing [topology]" "[simulation]
seed = 3
" "bad.ini" "[topology]"

bad "missing unit" "[topology]
type = star
hosts = 4
link_rate = 100
link_delay = 1us
" "bad.ini:4:" "link_rate = '100': expected a rate with a unit"

bad "fraction of a picosecond" "$good[nic]
rto = 0.5ps
" "bad.ini:10:" "rto = '0.5ps'"

bad "out of range" "$good[nic]
mtu = 100
" "bad.ini:10:" "mtu = '100': expected an integer from 256 to 9000"

bad "bad word" "$good[dcqcn]
variant = fancy
" "bad.ini:10:" "variant = 'fancy'"

bad "duplicate key" "$good[switch]
pfc = on
pfc = off
" "bad.ini:11:" "first at line 10"

bad "duplicate section" "$good[switch]
[switch]
" "bad.ini:10:" "[switch] given twice"

bad "bad per-rate map" "$good[switch]
ecn_kmin = 100Gbps:400KB 400Gbps
" "bad.ini:10:" "ecn_kmin = '100Gbps:400KB 400Gbps'"

bad "bad flow line" "$good""flow = host1 host2 1MB
" "bad.ini:9:" "flow = 'host1 host2 1MB'"

bad "job rule" "$good[job.j]
model = llama2-7b
global_batch = 8
dp = 4
ep = 3
" "bad.ini:13:" "ep = '3': expected a divisor of dp"

bad "syntax" "$good""no equals sign here
" "bad.ini:9:" "no equals sign here"

bad "line too long" "$good[pcap]
taps = $(printf '%0250d' 0)
" "bad.ini:10:" "expected at most"

bad "--set bad value" "$good" "--set:" "[switch] pfc = 'maybe'" --set switch.pfc=maybe

bad "--set unknown key" "$good" "--set:" "unknown key 'pfx'" --set switch.pfx=1

bad "--set unknown section" "$good" "--set:" "unknown section [swtch]" --set swtch.pfc=1

bad "--set negative seed" "$good" "--set:" "[simulation] seed = '-1'" --set simulation.seed=-1

bad "missing input file" "[topology]
type = hpcc
file = no-such-topology.txt
link_rate = 100Gbps
link_delay = 1us
" "bad.ini:3:" "file = 'no-such-topology.txt'"

# Errors found after loading (building the world) are located the same way.
bad "unknown host in a flow" "$good""flow = host0 nobody 1KB 0us
" "bad.ini:9:" "nobody"

# Buffers too small for what PFC must absorb, located on their key.
bad "switch buffer below headroom and reserves" "$good[switch]
buffer = 20KB
" "bad.ini:10:" "[switch] buffer = '20KB': smaller than sw0's headroom and reserves (4 ports)"
# ... refused from the topology's shape alone, before routes and buffers are
# built: a spine of 20,000 ports (their auto headroom alone is ~540 MB)
# within 2 s (it took minutes when the refusal came after building).
t0=$(date +%s)
bad "spine too big for its buffer, refused early" '[topology]
type = leaf_spine
leaves = 20000
hosts_per_leaf = 1
spines = 1
link_rate = 100Gbps
link_delay = 1us
[switch]
pfc = on
[traffic.f]
type = flows
flow = host0 host1 10KB 0us
' "bad.ini:" "[switch] buffer (default): smaller than spine0's headroom and reserves (20000 ports)"
t1=$(date +%s)
[ $((t1 - t0)) -le 2 ] || fail "spine too big for its buffer: refused after $((t1 - t0)) s, expected <= 2 s"
bad "NIC receive buffer below its headroom" "$good[nic]
rx_rate = 10Gbps
rx_buffer = 10KB
" "bad.ini:11:" "[nic] rx_buffer = '10KB': too small for host0:p0's link"

# Misspellings: the closest name within max(1, len/3) edits (optimal
# string alignment distance, a transposition counting 1) is suggested.
bad "misspelt key in the file" "$(printf '%s' "$good" | sed 's/^link_rate/link_rte/')" "bad.ini:4:" \
	"[topology] unknown key 'link_rte' (did you mean 'link_rate'?): expected one of type, link_rate,"
bad "--set misspelt key" "$good" "--set:" \
	"[topology] unknown key 'link_rte' (did you mean 'link_rate'?): expected" --set topology.link_rte=1Gbps
bad "misspelt section" "$good[swtch]
pfc = on
" "bad.ini:9:" "unknown section [swtch] (did you mean 'switch'?): expected one of"
bad "--set misspelt named section" "$good" "--set:" \
	"unknown section [trafic.f] (did you mean 'traffic.f'?)" --set trafic.f.type=flows
bad "misspelt value" "$good[nic]
cc = dcqnc
" "bad.ini:10:" "[nic] cc = 'dcqnc': expected one of none, dcqcn, hpcc, swift, timely or dctcp (did you mean 'dcqcn'?)"
bad "misspelt type" "$good" "--set:" \
	"[topology] type = 'strr': expected one of fat_tree, leaf_spine, rail_optimized, dumbbell, star, hpcc, ring or dragonfly (did you mean 'star'?)" \
	--set topology.type=strr
bad "nothing close: no suggestion" "$good" "--set:" \
	"[switch] unknown key 'zzzz': expected one of" --set switch.zzzz=1
grep -q "did you mean" "$tmp/stderr" && fail "nothing close: suggested $(cat "$tmp/stderr")"
# A --set to a job the scenario does not have: a misspelt job name.
bad "--set to a misspelt job" "$good[job.gpt]
model = llama2-7b
global_batch = 8
dp = 4
" "--set:" "no job 'gtp' (jobs: gpt): did you mean 'gpt'? A job added by --set needs its required key 'model'" \
	--set job.gtp.tp=4
bad "--set to an unknown job" "$good[job.gpt]
model = llama2-7b
global_batch = 8
dp = 4
" "--set:" "no job 'bert' (jobs: gpt); a job added by --set needs its required key 'model'" \
	--set job.bert.tp=4

# A job's layout is checked against the built fabric, located.
bad "job needs more GPUs than its hosts have" "$good[job.moe]
model = mixtral-8x7b
global_batch = 8
dp = 8
" "bad.ini:12:" "[job.moe] dp = '8': the job needs tp x pp x dp = 8 GPUs; its hosts have 4"

# Placement: a misspelt policy (with a suggestion), a rank order in both
# placement and rank_order, explicit lists that share a host, too few
# hosts left.
bad "misspelt placement policy" "$good[job.a]
model = bert-large
global_batch = 2
dp = 2
placement = spraed
" "bad.ini:13:" "[job.a] placement = 'spraed': expected one of packed, spread, random, fragmented, hosts, or a rank order (a permutation of tp, ep, dp, pp) (did you mean 'spread'?)"
bad "placement and rank_order both as rank orders" "$good[job.a]
model = bert-large
global_batch = 2
dp = 2
placement = tp,dp,ep,pp
rank_order = tp,ep,dp,pp
" "bad.ini:13:" "[job.a] placement = 'tp,dp,ep,pp': expected a policy (packed, spread, random, fragmented or hosts) when rank_order is given"
bad "jobs sharing a host" "$good[job.a]
model = bert-large
global_batch = 2
dp = 2
hosts = host0 host1
[job.b]
model = bert-large
global_batch = 2
dp = 2
hosts = host1 host2
" "bad.ini:18:" "[job.b] hosts = 'host1 host2': host 'host1' is already used by [job.a]; jobs on one fabric share no GPU"
bad "too few free hosts" "$good[job.a]
model = bert-large
global_batch = 3
dp = 3
[job.b]
model = bert-large
global_batch = 2
dp = 2
placement = spread
" "bad.ini:17:" "[job.b] placement = 'spread': the job needs 2 hosts (tp x cp x pp x dp = 2 GPUs, 1 per host); of the fabric's 1 is free"

# Findings of the fuzz targets (test/fuzz/regress/), through the real sim.
# fuzz_scenario: a cdf path that is not readable and long enough that its
# message outgrew the 160-byte buffer it was written into (stack overflow).
long=$(printf '%0170d' 0 | tr 0 x)
bad "long unreadable cdf path" "$good[traffic.ws]
type = poisson
load = 0.3
cdf = $long
" "bad.ini:12:" "cdf = '$long': expected websearch, hadoop, alistorage2019, googlerpc2008 or a readable file"
# fuzz_scenario: a value with ';' did not read back from run.config.
bad "';' in a value" "$good[pcap]
taps = host0,;host1
" "bad.ini:10:" "[pcap] taps = 'host0,;host1': expected a value without ';'"
# fuzz_cdf: sizes whose mean overflowed to inf; refused at the file's line.
printf '1e308 50\n1.7e308 100\n' >"$tmp/huge.cdf"
bad "CDF sizes above 2^53 bytes" "$good[traffic.ws]
type = poisson
load = 0.3
cdf = huge.cdf
stop = 1ms
" "bad.ini:12:" "huge.cdf:1: size '1e308' is above 2^53 bytes"
rm -f "$tmp/huge.cdf"

# An output path that cannot be written fails before the run, in one line.
cases=$((cases + 1))
printf 'a file, not a folder\n' >"$tmp/afile"
printf '%s' "$good" >"$tmp/bad.ini"
"$SIM" -q -o "$tmp/afile/out.db" "$tmp/bad.ini" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] || fail "unwritable output: exit status $rc, expected 2"
[ "$(wc -l <"$tmp/stderr" | tr -d ' ')" -eq 1 ] || fail "unwritable output: not one line: $(cat "$tmp/stderr")"
grep -q "cannot write results to $tmp/afile/out.db" "$tmp/stderr" || fail "unwritable output: $(cat "$tmp/stderr")"

# --fct FILE: an unwritable one fails before the run, naming the option;
# a writable one gets the file [output] hpcc_fct would have written.
bad "unwritable --fct" "$good" "--fct '$tmp/afile/fct.txt'" "cannot write: Not a directory" --fct "$tmp/afile/fct.txt"
rm -f "$tmp/afile"
cases=$((cases + 1))
printf '%s' "$good" >"$tmp/good.ini"
"$SIM" -q -o "$tmp/fct1.db" --fct "$tmp/fct.opt" "$tmp/good.ini" >/dev/null 2>&1 || fail "--fct: exit $?"
"$SIM" -q -o "$tmp/fct2.db" --set output.hpcc_fct="$tmp/fct.key" "$tmp/good.ini" >/dev/null 2>&1 ||
	fail "[output] hpcc_fct: exit $?"
{ [ "$(wc -l <"$tmp/fct.opt")" -eq 1 ] && cmp -s "$tmp/fct.opt" "$tmp/fct.key"; } ||
	fail "--fct: not the file [output] hpcc_fct writes: $(cat "$tmp/fct.opt")"
rm -f "$tmp"/fct*

# An unreadable scenario.
cases=$((cases + 1))
rm -f "$tmp/out.db"
"$SIM" -q -o "$tmp/out.db" "$tmp/no-such.ini" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ "$rc" -eq 2 ] || fail "unreadable file: exit status $rc, expected 2"
grep -q "no-such.ini: cannot read" "$tmp/stderr" || fail "unreadable file: $(cat "$tmp/stderr")"
[ ! -e "$tmp/out.db" ] || fail "unreadable file: out.db was written"

# A failing run leaves an existing database untouched, replaced or appended.
cases=$((cases + 1))
printf 'previous results, not a real database\n' >"$tmp/keep.db"
cp "$tmp/keep.db" "$tmp/keep.orig"
printf '%s[nic]\nmtu = 1\n' "$good" >"$tmp/bad.ini"
for mode in replace append; do
	if [ "$mode" = append ]; then
		"$SIM" -q --append -o "$tmp/keep.db" "$tmp/bad.ini" >/dev/null 2>"$tmp/stderr"
	else
		"$SIM" -q -o "$tmp/keep.db" "$tmp/bad.ini" >/dev/null 2>"$tmp/stderr"
	fi
	rc=$?
	[ "$rc" -eq 2 ] || fail "existing database ($mode): exit status $rc, expected 2"
	cmp -s "$tmp/keep.db" "$tmp/keep.orig" || fail "existing database ($mode): changed by a failing run"
done
leftover=$(ls "$tmp" | grep -v -e '^keep\.db$' -e '^keep\.orig$' -e '^bad\.ini$' -e '^good\.ini$' \
	-e '^stdout$' -e '^stderr$')
[ -z "$leftover" ] || fail "a failing run left files behind: $leftover"

# Silent mismatches are said: valid scenarios (exit 0) that warn once,
# before the run, and the `fabric:` line that says what was built.
# warns NAME TEXT WANT [sim options...]
warns() {
	name=$1 text=$2 want=$3
	shift 3
	cases=$((cases + 1))
	printf '%s' "$text" >"$tmp/warn.ini"
	"$SIM" -q --check "$@" "$tmp/warn.ini" >"$tmp/stdout" 2>"$tmp/stderr"
	rc=$?
	[ "$rc" -eq 0 ] || fail "$name: exit status $rc, expected 0 ($(cat "$tmp/stderr"))"
	grep -qF -- "$want" "$tmp/stderr" "$tmp/stdout" || fail "$name: lacks '$want': $(cat "$tmp/stdout" "$tmp/stderr")"
}
ft='[topology]
type = fat_tree
k = 4
link_rate = 400Gbps
link_delay = 1us
gpus_per_host = 8
'
# k = 4: 8 ToRs of k/2 = 2 hosts; 8 NICs each on the ToR: 16 down ports
# on 2 uplinks, 8:1.
warns "nics on one ToR" "$ft" "sim: warning: [topology] nics_per_host = 8 on fat_tree links every NIC of a host to its tor: a tor has 16 host and 2 switch ports, oversubscription 8:1" \
	--set topology.nics_per_host=8
warns "fabric line" "$ft" "fabric: fat_tree, 16 hosts x 1 NIC (400Gbps); 8 tor switches with 2 host and 2 switch ports each, oversubscription 1:1 (non-blocking); k = 4: 4 pods, 4 cores"
# oversubscription 2: (k/2) x 2 = 4 hosts per ToR, 8 x 4 = 32 hosts.
warns "oversubscription adds hosts" "$ft" "4 hosts per tor on its k/2 = 2 uplinks, 32 hosts in all instead of k^3/4 = 16" \
	--set topology.oversubscription=2
# tp 2 x dp 4 = 8 ranks = host0 of the 16 hosts x 8 GPUs (128).
warns "job on a subset" "$ft[job.gpt]
model = llama2-7b
global_batch = 8
tp = 2
dp = 4
" "sim: warning: [job.gpt] uses 8 of the 128 GPUs of the fabric (tp x pp x dp = 2 x 1 x 4): its ranks run on host0, idle: host1..host15"
# Explicit hosts whose GPUs are all used: nothing to say.
cases=$((cases + 1))
printf '%s[job.gpt]\nmodel = llama2-7b\nglobal_batch = 8\ntp = 2\ndp = 4\nhosts = host3\n' "$ft" >"$tmp/warn.ini"
"$SIM" -q --check "$tmp/warn.ini" >/dev/null 2>"$tmp/stderr" || fail "job on its hosts: exit $?"
[ ! -s "$tmp/stderr" ] || fail "job on its hosts: warned: $(cat "$tmp/stderr")"

# A sim built without MPI, started by mpirun on two ranks (its launcher's
# variables stand in for it): refused with a way out, not run twice.
if [ -z "${MPIRUN:-}" ]; then
	cases=$((cases + 1))
	st=0
	OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_RANK=0 "$SIM" -q -o "$tmp/nompi.db" \
		"$SRCDIR/scenarios/permutation.ini" >/dev/null 2>"$tmp/stderr" || st=$?
	[ "$st" -eq 2 ] || fail "built without MPI under mpirun: exit $st, expected 2"
	grep -q "this sim was built without MPI: configure --with-mpi" "$tmp/stderr" ||
		fail "built without MPI under mpirun: $(cat "$tmp/stderr")"
	[ ! -e "$tmp/nompi.db" ] || fail "built without MPI under mpirun: a database was written"
fi

if [ "$fails" -ne 0 ]; then
	echo "errors.sh: $fails failure(s) in $cases cases"
	exit 1
fi
echo "errors.sh: all $cases cases passed"
exit 0
