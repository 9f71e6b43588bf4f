#!/bin/sh
# api_python.sh — the Python module (python/rocesim.py) on the build's
# librocesim.so: test/api_python.py's checks against batch runs of sim.
# Environment (make check sets them): SIM, SRCDIR, BUILDDIR.
set -eu
: "${SIM:?}" "${SRCDIR:?}" "${BUILDDIR:?}"
command -v python3 >/dev/null || { echo "python3 not found (install-deps.sh installs it)"; exit 1; }
lib=$BUILDDIR/.libs/librocesim.so
[ -f "$lib" ] || { echo "no $lib"; exit 1; }
TMP=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-py.XXXXXX")
trap 'rm -rf "$TMP"' EXIT
# A sanitizer build's library needs its runtime loaded first: python3 is
# not built with it. Leaks are the interpreter's, not ours: not reported.
asan=$(ldd "$lib" | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -n 1)
if [ -n "$asan" ]; then
	LD_PRELOAD=$asan
	ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
	export LD_PRELOAD ASAN_OPTIONS
fi
ROCESIM_LIBRARY=$lib SIM=$SIM SRCDIR=$SRCDIR TMP=$TMP python3 "$SRCDIR/test/api_python.py"
