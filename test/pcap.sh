#!/bin/sh
# pcap.sh — packet capture through the real `sim` binary, read back with
# tshark (docs/protocol.md "Packet capture"): every RoCE frame dissects as InfiniBand BTH
# with contiguous PSNs and the opcode sequence first/middle.../last per QP;
# timestamps follow serialisation and propagation; PFC pauses are
# class-based pause frames of class 3 with 65535/0 quanta; CE appears
# behind a congested port and not before it; TTL falls by one per switch;
# a NAK is followed by the retransmission of the PSN it names; same seed,
# same bytes; bad taps and unwritable folders exit 2 and write nothing.
#
# Run by `make check` with SIM and SRCDIR set. POSIX sh. Skips (77) without
# tshark or sqlite3.
set -u
SIM=${SIM:-./sim}
SRCDIR=${SRCDIR:-.}
command -v tshark >/dev/null || { echo "pcap.sh: SKIP: tshark not installed"; exit 77; }
command -v sqlite3 >/dev/null || { echo "pcap.sh: SKIP: sqlite3 not installed"; exit 77; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-pcap.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
trap 'exit 1' INT TERM
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# ts FILE [tshark args...]: tshark quietly (it warns when run as root)
ts() { f=$1; shift; tshark -n -r "$f" "$@" 2>/dev/null; }
count() { ts "$@" | wc -l | tr -d ' '; }
q() { sqlite3 "$1" "$2"; }
# eq NAME GOT WANT
eq() { [ "$2" = "$3" ] || fail "$1: got '$2', want '$3'"; }

# ---- incast_pfc: 8 x 1 MB into host8 over a star, PFC on, ECN off ---------
# 1000 B payload: 1000 packets per flow, 8000 in all; WRITE first = 1074 B,
# middle/last = 1058 B captured (no FCS); 100 Gb/s = 80 ps per byte and
# 24 B of preamble, gap and FCS per frame on the wire; link delay 1 us.
cap=$tmp/pfc
db=$tmp/pfc.db
"$SIM" -q -o "$db" --pcap "$cap" "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>"$tmp/err" ||
	fail "incast_pfc --pcap: exit $? ($(cat "$tmp/err"))"
eq "every host port, nothing else" "$(cd "$cap" && ls | tr '\n' ' ')" \
	"host0-p0.pcap host1-p0.pcap host2-p0.pcap host3-p0.pcap host4-p0.pcap host5-p0.pcap host6-p0.pcap host7-p0.pcap host8-p0.pcap "
[ -s "$tmp/err" ] && fail "incast_pfc --pcap warned: $(cat "$tmp/err")"
rx=$cap/host8-p0.pcap

# The issue's one-liner lists the data frames (and the ACKs going out).
eq "receiver: data frames" "$(count "$rx" -Y 'infiniband && ip.dst == 11.0.8.1')" 8000
eq "receiver: ACKs sent" "$(count "$rx" -Y 'infiniband.aeth.syndrome == 0x1f && ip.src == 11.0.8.1')" 8000
eq "every RoCE frame dissects as BTH" "$(count "$rx" -Y 'udp.dstport == 4791 && !infiniband.bth')" 0
eq "no malformed frame" "$(count "$rx" -Y '_ws.malformed || _ws.expert.severity >= "Warning"')" 0
eq "IPv4 checksums good" "$(count "$rx" -o ip.check_checksum:TRUE -Y 'ip.checksum.status != "Good"')" 0

# Per QP (source address, destination QP): PSN 0, 1, ..., 999 in order, one
# WRITE first (6), 998 middles (7), one last (8); TTL 63 after the one
# switch; DMA length 1 MB in the RETH.
ts "$rx" -Y 'ip.dst == 11.0.8.1' -T fields -e ip.src -e infiniband.bth.destqp \
	-e infiniband.bth.psn -e infiniband.bth.opcode -e ip.ttl -e frame.len -e infiniband.reth.dmalen >"$tmp/rx.txt"
bad=$(awk '{ k = $1 "/" $2
	if ($3 != n[k] + 0) { print "QP " k " PSN " $3 " after " n[k] - 1; exit }
	want = $3 == 0 ? 6 : $3 == 999 ? 8 : 7
	if ($4 != want) { print "QP " k " PSN " $3 " opcode " $4; exit }
	if ($5 != 63) { print "TTL " $5; exit }
	if ($6 != (want == 6 ? 1074 : 1058)) { print "length " $6 " of opcode " $4; exit }
	if (want == 6 && $7 != 1000000) { print "DMA length " $7; exit }
	n[k] = $3 + 1 }
	END { for (k in n) { qps++; if (n[k] != 1000) print "QP " k " ends at " n[k] }
	      if (qps != 8) print qps " QPs" }' "$tmp/rx.txt")
eq "receiver: contiguous PSNs and opcodes per QP" "$bad" ""

# Timing (ns, truncated): the first frame lands after two hops of a 1074 B
# frame and two link delays: 2 x 1098 x 80 ps + 2 us = 2175.68 ns; frames
# reach the host at least one serialisation apart ((len + 24) x 80 ps); the
# last one is the database's last recv_end.
ts "$rx" -Y 'ip.dst == 11.0.8.1' -T fields -e frame.time_epoch -e frame.len >"$tmp/t.txt"
bad=$(awk '{ t = int($1 * 1e9 + 0.5); if (NR == 1 && t != 2175) print "first at " t
	if (NR > 1 && t - p < int(($2 + 24) * 0.08)) { print "frame " NR " " t - p " ns after the previous"; exit }
	p = t } END { print "last " p }' "$tmp/t.txt")
eq "receiver: serialisation and propagation" "$bad" "last $(q "$db" 'SELECT max(recv_end_ps) / 1000 FROM flow')"

# The sender's own capture: its data leaves with TTL 64, back to back at
# line rate at first ((1074 + 24) x 80 ps = 87.84 ns apart).
ts "$cap/host0-p0.pcap" -Y 'ip.src == 11.0.0.1 && infiniband.bth.opcode <= 10' -T fields \
	-e frame.time_epoch -e ip.ttl -e ip.dsfield.dscp -e ip.dsfield.ecn >"$tmp/tx.txt"
bad=$(awk '{ t = int($1 * 1e9 + 0.5); if ($2 != 64 || $3 != 26 || $4 != 2) { print "ttl/dscp/ecn " $2 "/" $3 "/" $4; exit }
	if (NR == 2 && t != 87) print "second frame at " t } END { print NR }' "$tmp/tx.txt")
eq "sender: TTL 64, DSCP 26, ECT(0), line rate" "$bad" 1000

# PFC: host0's link is upstream of the congested switch; what it receives
# are class-based pauses of class 3 (bit 3 = 0x08) from the switch port's
# MAC, as many as port_stats counted: XOFF 65535 quanta (repeated while the
# pause lasts), XON 0 (never twice in a row), first a pause, last a resume.
ts "$cap/host0-p0.pcap" -Y 'macc.opcode == 0x0101' -T fields -e macc.cbfc.enbv \
	-e macc.cbfc.pause_time.c3 -e eth.src -e eth.dst >"$tmp/pfc.txt"
n=$(wc -l <"$tmp/pfc.txt" | tr -d ' ')
[ "$n" -gt 0 ] || fail "no PFC frame on host0's link"
eq "PFC frames = port_stats" "$n" "$(q "$db" "SELECT pause_frames_rx FROM port_stats WHERE node = 'host0'")"
bad=$(awk '{ if ($1 != "0x0008" || ($2 != 65535 && $2 != 0) || (NR == 1 && $2 != 65535) || ($2 == 0 && p == 0) ||
	$3 != "02:00:00:09:00:00" || $4 != "01:80:c2:00:00:01") { print NR ": " $0; exit } p = $2 }
	END { if (p != 0) print "ends paused" }' "$tmp/pfc.txt")
eq "PFC class 3, XOFF and XON" "$bad" ""
eq "PFC none sent by a host" "$(count "$cap/host0-p0.pcap" -Y 'macc && eth.src == 02:00:00:00:00:00')" 0

# Same seed, same bytes.
"$SIM" -q -o "$tmp/pfc2.db" --pcap "$tmp/pfc2" "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>&1 ||
	fail "second run: exit $?"
for f in "$cap"/*.pcap; do
	cmp -s "$f" "$tmp/pfc2/${f##*/}" || fail "${f##*/} differs between two runs of one seed"
done

# A switch port: sw0:8 sends what host8 receives, each frame one
# serialisation plus one link delay earlier ((len + 24) x 80 ps + 1 us).
"$SIM" -q -o "$tmp/sw.db" --set pcap.taps=sw0:8 --set pcap.dir="$tmp/sw" \
	"$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>&1 || fail "taps = sw0:8: exit $?"
eq "one file for one port" "$(ls "$tmp/sw")" "sw0-p8.pcap"
ts "$tmp/sw/sw0-p8.pcap" -Y 'ip.dst == 11.0.8.1' -T fields -e frame.time_epoch -e ip.src \
	-e infiniband.bth.psn -e eth.src -e ip.ttl >"$tmp/sw.txt"
bad=$(paste "$tmp/sw.txt" "$tmp/t.txt" | awk '{ tx = $1 * 1e9; rx = $6 * 1e9; d = rx - tx - (($7 + 24) * 0.08 + 1000)
	if (d > 1.01 || d < -1.01 || $4 != "02:00:00:09:00:08" || $5 != 63) { print NR ": " $0; exit } } END { print NR }')
eq "switch tx = host rx - serialisation - delay" "$bad" 8000

# snaplen cuts frames but keeps their length.
"$SIM" -q -o "$tmp/snap.db" --pcap "$tmp/snap" --set pcap.taps=host8 --set pcap.snaplen=100B \
	"$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>&1 || fail "snaplen: exit $?"
eq "snaplen 100" "$(ts "$tmp/snap/host8-p0.pcap" -Y 'ip.dst == 11.0.8.1' -T fields -e frame.cap_len -e frame.len | sort -u | tr '\t\n' ': ')" \
	"100:1058 100:1074 "

# ---- incast: 15 x 1 MB into host0 of a k = 4 fat tree, ECN on ---------------
# CE is set by the switch in front of host0: host0 receives CE-marked frames,
# one per ecn_marked count of the flows, and answers each with a CNP
# (opcode 0x81, cnp_interval 0); a sender's own frames leave unmarked. TTL:
# host1 shares host0's ToR (1 switch: 63), host2-3 its pod (3: 61), the
# others cross the core (5: 59).
cap=$tmp/ce
"$SIM" -q -o "$tmp/ce.db" --pcap "$cap" --set pcap.taps="host0 host5" "$SRCDIR/scenarios/incast.ini" \
	>/dev/null 2>&1 || fail "incast: exit $?"
ce=$(count "$cap/host0-p0.pcap" -Y 'ip.dst == 11.0.0.1 && ip.dsfield.ecn == 3')
[ "$ce" -gt 0 ] || fail "no CE-marked frame behind the congested port"
eq "CE frames = flows' ecn_marked" "$ce" "$(q "$tmp/ce.db" 'SELECT sum(ecn_marked) FROM flow')"
eq "a CNP per CE frame" "$(count "$cap/host0-p0.pcap" -Y 'infiniband.bth.opcode == 129 && ip.src == 11.0.0.1')" "$ce"
eq "CNP: not ECN-capable, DSCP 48" "$(ts "$cap/host0-p0.pcap" -Y 'infiniband.bth.opcode == 129' -T fields -e ip.dsfield.dscp -e ip.dsfield.ecn -e frame.len | sort -u | tr '\t\n' ':;')" "48:0:74;"
eq "no CE leaving a sender" "$(ts "$cap/host5-p0.pcap" -Y 'ip.src == 11.0.5.1 && infiniband.bth.opcode <= 10' -T fields -e ip.dsfield.ecn | sort | uniq -c | tr -s ' ')" " 1000 2"
eq "TTL per hop count" "$(ts "$cap/host0-p0.pcap" -Y 'ip.dst == 11.0.0.1' -T fields -e ip.src -e ip.ttl |
	awk '{ split($1, a, "."); h = a[3]; want = h == 1 ? 63 : h < 4 ? 61 : 59; if ($2 != want) { print $0; exit } }
	END { print NR }')" 15000

# ---- incast_lossy: drops, go-back-N -----------------------------------------
# A NAK (AETH syndrome 0x60) names the PSN the receiver expected; the next
# data frame the sender starts is that PSN again; the frames sent twice are
# the flow's retx_packets.
"$SIM" -q -o "$tmp/lossy.db" --pcap "$tmp/lossy" --set pcap.taps=host0 "$SRCDIR/scenarios/incast_lossy.ini" \
	>/dev/null 2>&1 || fail "incast_lossy: exit $?"
ts "$tmp/lossy/host0-p0.pcap" -Y 'infiniband' -T fields -e ip.src -e infiniband.bth.opcode \
	-e infiniband.bth.psn -e infiniband.aeth.syndrome >"$tmp/lossy.txt"
bad=$(awk '$1 == "11.0.8.1" && $4 == 96 && !nak { nak = 1; want = $3; naks++; next }
	$1 == "11.0.0.1" && $2 <= 10 { if (seen[$3]++) rtx++; if (nak == 1) { nak = 2; if ($3 != want) print "after NAK " want ": PSN " $3 } }
	END { if (!naks) print "no NAK"; print "rtx " rtx + 0 }' "$tmp/lossy.txt")
eq "go-back-N after a NAK" "$bad" "rtx $(q "$tmp/lossy.db" "SELECT retx_packets FROM flow WHERE src = 'host0'")"

# ---- where files go, and bad input --------------------------------------------
# Taps without a folder: beside the database, named after it.
"$SIM" -q -o "$tmp/d/x.db" --set pcap.taps=host0 "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>&1 ||
	fail "default folder: exit $?"
[ -s "$tmp/d/x/host0-p0.pcap" ] || fail "taps without dir: no $tmp/d/x/host0-p0.pcap"

# bad NAME WANT [sim args]: exit 2, WANT in the one-line message, no database, no capture.
bad() {
	name=$1 want=$2
	shift 2
	rm -rf "$tmp/out" "$tmp/out.db"
	"$SIM" -q -o "$tmp/out.db" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc = 2 ] || fail "$name: exit $rc, want 2"
	grep -qF -- "$want" "$tmp/err" || fail "$name: stderr '$(cat "$tmp/err")' lacks '$want'"
	[ "$(wc -l <"$tmp/err")" = 1 ] || fail "$name: more than one line: $(cat "$tmp/err")"
	[ ! -e "$tmp/out.db" ] || fail "$name: wrote a database"
	[ ! -e "$tmp/out" ] || fail "$name: created the capture folder"
}
{ cat "$SRCDIR/scenarios/incast_pfc.ini"; printf '\n[pcap]\ntaps = host0 sw7\ndir = out\n'; } >"$tmp/t.ini"
line=$(grep -n '^taps' "$tmp/t.ini" | cut -d: -f1)
bad "unknown node" "t.ini:$line: [pcap] taps = 'host0 sw7': 'sw7' is not a node" "$tmp/t.ini" --pcap "$tmp/out"
bad "port out of range" "[pcap] taps = 'sw0:9': 'sw0:9': sw0 has ports 0 to 8" \
	"$SRCDIR/scenarios/incast_pfc.ini" --set pcap.taps=sw0:9 --pcap "$tmp/out"
bad "a GPU is not a port" "'host0.gpu0' is not a node" \
	"$SRCDIR/scenarios/incast_pfc.ini" --set pcap.taps=host0.gpu0 --pcap "$tmp/out"
: >"$tmp/file"
bad "unwritable folder" "--pcap '$tmp/file/cap': cannot create folder $tmp/file: Not a directory" \
	"$SRCDIR/scenarios/incast_pfc.ini" --pcap "$tmp/file/cap"
bad "unwritable [pcap] dir" "[pcap] dir = '$tmp/file/cap': cannot create folder" \
	"$SRCDIR/scenarios/incast_pfc.ini" --set pcap.dir="$tmp/file/cap"
# --check validates the taps and writes nothing.
"$SIM" -q --check --pcap "$tmp/out" "$SRCDIR/scenarios/incast_pfc.ini" >/dev/null 2>&1 || fail "--check: exit $?"
[ ! -e "$tmp/out" ] || fail "--check created the capture folder"

# ---- interrupted: the files are closed whole -----------------------------------
"$SIM" -q -o "$tmp/ws.db" --pcap "$tmp/ws" --set pcap.taps=tor0 --set simulation.stop=1s \
	--set traffic.ws.stop=1s "$SRCDIR/scenarios/websearch.ini" >/dev/null 2>&1 &
pid=$!
sleep 2
kill -INT $pid
wait $pid || fail "interrupted run: exit $?"
eq "interrupted run" "$(q "$tmp/ws.db" 'SELECT status FROM run')" interrupted
eq "interrupted: one file per port of tor0" "$(ls "$tmp/ws" | wc -l | tr -d ' ')" 8
n=0
for f in "$tmp/ws"/*.pcap; do
	n=$((n + $(tshark -n -r "$f" 2>>"$tmp/err" | wc -l)))
done
[ "$n" -gt 0 ] || fail "interrupted capture: no frames"
grep -qi 'cut short\|damaged\|corrupt' "$tmp/err" && fail "interrupted capture damaged: $(cat "$tmp/err")"

[ $fails = 0 ] && echo "pcap.sh: all passed"
exit $((fails > 0))
