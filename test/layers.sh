#!/bin/sh
# layers.sh — the arrows between the parts of rocesim, checked on every
# #include "..." of kernel/ and models/ (docs/architecture.md draws them),
# and every source of a part listed in its Makefile.inc.
#
# Each folder of models/ is a part; a part may include the kernel, its own
# headers and the public headers of the parts it is allowed to see, and
# nothing else. The allowed arrows and each part's public headers are the
# two tables below: changing an arrow is a change of this file, said in
# its commit. A violation is printed as FILE:LINE and what is wrong, and
# the script exits 1.
#   layers.sh             check (make check runs it)
# Environment: SRCDIR (the source tree; default: this script's parent).
set -eu
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$SRCDIR"

# Part: the parts it may include, besides the kernel and itself.
allowed() {
	case $1 in
	kernel) echo "" ;;
	topo) echo "" ;;
	cc) echo "" ;;
	fabric) echo "topo" ;;
	nic) echo "fabric topo cc" ;;
	coll) echo "nic" ;;
	job) echo "coll nic" ;;
	traffic) echo "coll nic" ;;
	observe) echo "fabric nic cc topo traffic" ;;
	parallel) echo "fabric nic topo" ;;
	run) echo "fabric topo nic cc coll job traffic observe parallel" ;;
	*) echo "?" ;;
	esac
}
# Part: its public headers (what other parts may include). The kernel's
# headers are all public but the ones its own files share (each says so in
# its opening comment); a name listed here that is not in kernel/ is an
# error, so a renamed header cannot leave its files unguarded.
public() {
	case $1 in
	kernel) echo "*" ;;
	fabric) echo "fabric.h path.h" ;;
	topo) echo "topology.h" ;;
	nic) echo "nic.h" ;;
	cc) echo "cc.h" ;;
	coll) echo "collective.h" ;;
	job) echo "job.h" ;;
	traffic) echo "traffic.h" ;;
	observe) echo "observe.h" ;;
	run) echo "run.h" ;;
	parallel) echo "parallel.h" ;;
	esac
}
kernel_private="results_internal.h config_internal.h evq_heap.h"

parts="kernel $(cd models && for d in */; do printf '%s ' "${d%/}"; done)"

# The part a header name resolves to, as the compiler's search would find
# it (the -I flags of Makefile.am): beside the including file, then a path
# from the top of the tree ("kernel/name.h", "models/part/name.h"), then
# the kernel, then any part (bare names of other parts' headers). A bare
# name at the top of the tree is configure's autoconfig.h (an in-tree
# build writes it there): generated, like a system header.
# Sets them (the part; empty when not found: a generated or system header)
# and hdr (the header's file name). No subshells: it runs for every include.
resolve() { # FROM_DIR NAME
	them= hdr=${2##*/} top=
	case $2 in */*) top=$2 ;; esac
	for p in "$1/$2" $top "kernel/$2" models/*/"$2"; do
		if [ -f "$p" ]; then
			part_of "$p"
			them=$part
			return
		fi
	done
}
part_of() { # PATH: sets part
	case $1 in
	kernel/*) part=kernel ;;
	models/*/*) part=${1#models/}; part=${part%%/*} ;;
	*) part="?" ;;
	esac
}

fail=0
for h in $kernel_private; do
	if [ ! -f "kernel/$h" ]; then
		echo "test/layers.sh: kernel_private names $h, which is not in kernel/"
		fail=1
	fi
done
out=$(mktemp "${TMPDIR:-/tmp}/rocesim-layers.XXXXXX")
stray=$(find models -maxdepth 1 -name '*.[ch]')
if [ -n "$stray" ]; then
	for f in $stray; do echo "$f: a source file directly in models/; it belongs to a part's folder"; done
	fail=1
fi
# Every source of a part is built: listed in the part's Makefile.inc.
for d in models/*/; do
	for f in "$d"*.c "$d"*.h; do
		[ -e "$f" ] || continue
		grep -Fq -- "$f" "${d}Makefile.inc" ||
			echo "$f: not listed in ${d}Makefile.inc (every source of a part is listed there)" >>"$out"
	done
done
for f in $(find kernel models -name '*.[ch]' | sort); do
	part_of "$f"
	me=$part
	ok=$(allowed "$me")
	grep -n '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' "$f" | while IFS= read -r line; do
		n=${line%%:*}
		name=${line#*\"}; name=${name%%\"*}
		# "../fabric/x.h" would resolve beside the including file and be
		# taken for a header of its own part.
		case /$name/ in
		*/../*) echo "$f:$n: includes \"$name\": a path through '..'; include a header by its name"; continue ;;
		esac
		resolve "${f%/*}" "$name"
		[ -z "$them" ] && continue
		[ "$them" = "$me" ] && continue
		if [ "$them" = kernel ]; then
			case " $kernel_private " in
			*" $hdr "*) echo "$f:$n: $me includes kernel/$hdr, which only kernel/ files may include" ;;
			esac
			[ "$me" = kernel ] || continue
		fi
		if [ "$me" = kernel ]; then
			echo "$f:$n: the kernel includes $them/$hdr: kernel/ may include no model header"
			continue
		fi
		case " $ok " in
		*" $them "*) ;;
		*) echo "$f:$n: $me includes $them/$hdr: $me may include ${ok:-only the kernel}${ok:+ (and the kernel)}"; continue ;;
		esac
		case " $(public "$them") " in
		*" $hdr "*) ;;
		*) echo "$f:$n: $me includes $them/$hdr, which is not a public header of $them ($(public "$them"))" ;;
		esac
	done
done >>"$out" 2>&1 || true
if [ -s "$out" ]; then
	cat "$out"
	echo "layers: $(wc -l <"$out") problem(s): includes across the parts' arrows (the tables above in test/layers.sh) or unlisted sources"
	fail=1
fi
rm -f "$out"
[ $fail -eq 0 ] && echo "layers: $(echo $parts | wc -w) parts, every include within the arrows"
exit $fail
