#!/bin/sh
# build_scale.sh: how building a fabric scales. For fat trees of k = 16, 24,
# 32, 48, 64 and 74 (1,024 to 101,306 hosts), runs `sim --check` (topology,
# routing, ports, buffers, NICs and traffic set up, nothing simulated) on a
# web-search scenario (100 Gb/s, 1 us links, PFC + ECN, DCQCN, Poisson
# web-search at 30 %) and prints one line per k: hosts, switches, links,
# wall seconds, peak RSS (MB, GNU time's %M) and peak RSS per host (KB).
# With a second binary (an older build), each k runs on both, side by side.
# Not run by make check (k = 74 takes seconds and hundreds of MB);
# `make bench-build` runs it with ./sim. Figures: test/bench/RESULTS.md.
#
# With RANKS=N (a sim built with MPI), each k also runs under
# `mpirun -np N`: the slowest rank's seconds and the largest rank's peak
# RSS (a rank builds the ports and buffers of its own nodes and of its cut
# links' far ends; the topology, routes and NICs of all: docs/parallel.md).
#
# Usage: [RANKS=N] build_scale.sh SIM [SIM_BEFORE] [k ...]
set -eu
[ $# -ge 1 ] || { echo "usage: build_scale.sh SIM [SIM_BEFORE] [k ...]" >&2; exit 2; }
SIM=$1
shift
BEFORE=
if [ $# -ge 1 ] && [ -x "$1" ]; then
	BEFORE=$1
	shift
fi
KS=${*:-16 24 32 48 64 74}
TIME=/usr/bin/time
[ -x "$TIME" ] || { echo "build_scale.sh: needs GNU time ($TIME)" >&2; exit 2; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-build-scale.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

# One --check of $2 by binary $1: "seconds rss_kb" on stdout.
measure() {
	if ! "$TIME" -f "%e %M" -o "$tmp/time" "$1" --check "$2" >"$tmp/out" 2>"$tmp/err"; then
		echo "build_scale.sh: $1 --check $2 failed: $(cat "$tmp/err")" >&2
		exit 1
	fi
	cat "$tmp/time"
}

# The same under mpirun -np $RANKS: "seconds rss_kb" of the slowest and largest rank.
measure_ranks() {
	rm -f "$tmp"/rt.*
	OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "${MPIRUN:-mpirun}" -np "$RANKS" \
		sh -c '"$0" -f "%e %M" -o "$1.${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-0}}" "$2" --check "$3" >/dev/null 2>&1' \
		"$TIME" "$tmp/rt" "$1" "$2" || { echo "build_scale.sh: mpirun -np $RANKS $1 --check failed" >&2; exit 1; }
	cat "$tmp"/rt.* | awk '$1 > s { s = $1 } $2 > m { m = $2 } END { print s, m }'
}

printf '%-4s %8s %8s %8s  %8s %8s %8s' k hosts switches links check_s rss_MB KB/host
[ -n "$BEFORE" ] && printf '  %9s %9s %9s' before_s before_MB KB/host
[ -n "${RANKS:-}" ] && printf '  %9s %9s' "r${RANKS}_s" "r${RANKS}_MB"
printf '\n'
for k in $KS; do
	# the benchmark scenario k16_websearch.ini with this k
	sed "s/^k = 16$/k = $k/" "$(dirname "$0")/k16_websearch.ini" >"$tmp/k.ini"
	hosts=$((k * k * k / 4)) switches=$((5 * k * k / 4)) links=$((3 * k * k * k / 4))
	set -- $(measure "$SIM" "$tmp/k.ini")
	printf '%-4s %8d %8d %8d  %8.2f %8.1f %8.2f' "$k" "$hosts" "$switches" "$links" "$1" \
		"$(echo "$2" | awk '{ print $1 / 1024 }')" "$(echo "$2 $hosts" | awk '{ print $1 / $2 }')"
	if [ -n "$BEFORE" ]; then
		set -- $(measure "$BEFORE" "$tmp/k.ini")
		printf '  %9.2f %9.1f %9.2f' "$1" "$(echo "$2" | awk '{ print $1 / 1024 }')" \
			"$(echo "$2 $hosts" | awk '{ print $1 / $2 }')"
	fi
	if [ -n "${RANKS:-}" ]; then
		set -- $(measure_ranks "$SIM" "$tmp/k.ini")
		printf '  %9.2f %9.1f' "$1" "$(echo "$2" | awk '{ print $1 / 1024 }')"
	fi
	printf '\n'
done
