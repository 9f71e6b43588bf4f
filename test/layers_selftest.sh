#!/bin/sh
# layers_selftest.sh — test/layers.sh finds what it is there to find. A copy
# of the tree's kernel/ and models/ must pass; then each violation below is
# planted in a fresh copy, one at a time, and layers.sh must exit 1 naming
# the file and the rule it breaks.
#   layers_selftest.sh    check (make check runs it)
# Environment: SRCDIR (the source tree; default: this script's parent).
set -eu
SRCDIR=${SRCDIR:-$(cd "$(dirname "$0")/.." && pwd)}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-layers-selftest.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
fails=0

fresh() {
	rm -rf "$tmp/tree"
	mkdir "$tmp/tree"
	cp -R "$SRCDIR/kernel" "$SRCDIR/models" "$tmp/tree/"
}
layers() {
	rc=0
	SRCDIR="$tmp/tree" sh "$SRCDIR/test/layers.sh" >"$tmp/out" 2>&1 || rc=$?
}
# CASE FILE LINE EXPECTED: FILE gets LINE appended; layers.sh must exit 1
# and print EXPECTED (a fixed string).
planted() {
	fresh
	echo "$3" >>"$tmp/tree/$2"
	layers
	if [ $rc -ne 1 ] || ! grep -Fq -- "$4" "$tmp/out"; then
		echo "FAIL: $1: layers.sh exited $rc; expected 1 and: $4"
		sed 's/^/  | /' "$tmp/out"
		fails=$((fails + 1))
	else
		echo "ok: $1"
	fi
}

fresh
layers
if [ $rc -ne 0 ]; then
	echo "FAIL: the clean copy: layers.sh exited $rc"
	sed 's/^/  | /' "$tmp/out"
	fails=$((fails + 1))
else
	echo "ok: the clean copy passes"
fi

planted "a model includes the loader's internals" models/nic/nic.c '#include "config_internal.h"' \
	"models/nic/nic.c:$(($(wc -l <"$SRCDIR/models/nic/nic.c") + 1)): nic includes kernel/config_internal.h, which only kernel/ files may include"
planted "a model includes the event heap" models/fabric/port.c '#include "evq_heap.h"' \
	"fabric includes kernel/evq_heap.h, which only kernel/ files may include"
planted "a path from the top of the tree" models/nic/nic.c '#include "kernel/results_internal.h"' \
	"nic includes kernel/results_internal.h, which only kernel/ files may include"
planted "a relative path into another part" models/traffic/traffic.c '#include "../fabric/switch_fwd.h"' \
	"models/traffic/traffic.c:$(($(wc -l <"$SRCDIR/models/traffic/traffic.c") + 1)): includes \"../fabric/switch_fwd.h\": a path through '..'"
planted "the fabric includes a job header" models/fabric/port.c '#include "job.h"' \
	"fabric includes job/job.h: fabric may include topo (and the kernel)"
planted "a private header of another part" models/nic/nic.c '#include "switch_fwd.h"' \
	"nic includes fabric/switch_fwd.h, which is not a public header of fabric"
planted "the kernel includes a model header" kernel/sim.c '#include "nic.h"' \
	"kernel/sim.c:$(($(wc -l <"$SRCDIR/kernel/sim.c") + 1)): the kernel includes nic/nic.h: kernel/ may include no model header"

# A source a part's Makefile.inc does not list.
fresh
: >"$tmp/tree/models/nic/nic_stray.c"
layers
if [ $rc -ne 1 ] || ! grep -Fq "models/nic/nic_stray.c: not listed in models/nic/Makefile.inc" "$tmp/out"; then
	echo "FAIL: an unlisted source: layers.sh exited $rc"
	fails=$((fails + 1))
else
	echo "ok: an unlisted source"
fi

# A private kernel header renamed away from the list.
fresh
mv "$tmp/tree/kernel/evq_heap.h" "$tmp/tree/kernel/evq_heap4.h"
layers
if [ $rc -ne 1 ] || ! grep -Fq "kernel_private names evq_heap.h, which is not in kernel/" "$tmp/out"; then
	echo "FAIL: a renamed private header: layers.sh exited $rc"
	fails=$((fails + 1))
else
	echo "ok: a renamed private header"
fi

[ $fails -eq 0 ] || { echo "layers_selftest: $fails failure(s)"; exit 1; }
echo "layers_selftest: every planted violation found"
