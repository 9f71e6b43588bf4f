#!/bin/sh
# install.sh — `make install DESTDIR=...` installs librocesim.so, rocesim.h,
# rocesim.pc and the Python module, and they work from there, outside the
# tree: a C program built with `pkg-config --cflags --libs rocesim` posts a
# 1 MB message host0 -> host1 at 10 us on test/api_fabric.ini's fabric and
# its completion time equals the batch run's recv_end_ps of the same flow
# ([traffic] flows); the installed Python module, found by path with no
# ROCESIM_LIBRARY, finds the installed library and gives the same time.
# The shared library exports nothing but rocesim_* names.
# Environment (make check sets them): SIM, SRCDIR, BUILDDIR.
set -eu
: "${SIM:?}" "${SRCDIR:?}" "${BUILDDIR:?}"
T=$(mktemp -d "${TMPDIR:-/tmp}/rocesim-install.XXXXXX")
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

${MAKE:-make} -s -C "$BUILDDIR" install DESTDIR="$T/root" >"$T/install.log" 2>&1 ||
	{ cat "$T/install.log"; fail "make install"; }
pc=$(find "$T/root" -name rocesim.pc | head -n 1)
so=$(find "$T/root" -name 'librocesim.so.*' | head -n 1)
hdr=$(find "$T/root" -name rocesim.h | head -n 1)
py=$(find "$T/root" -name rocesim.py | head -n 1)
for f in "$pc" "$so" "$hdr" "$py"; do [ -n "$f" ] || fail "not installed: pc='$pc' so='$so' h='$hdr' py='$py'"; done
echo "installed: ${pc#$T/root} ${so#$T/root} ${hdr#$T/root} ${py#$T/root}"

# Only the API is exported.
others=$(nm -D --defined-only "$so" | awk '$2 ~ /^[TDBR]$/ && $3 !~ /^rocesim_/ { print $3 }' | grep -v '^_' || true)
[ -z "$others" ] || fail "exported besides rocesim_*: $(echo $others | head -c 300)"

# The batch run of the same message.
"$SIM" "$SRCDIR/test/api_fabric.ini" -q -o "$T/batch.db" \
	--set traffic.f.type=flows --set 'traffic.f.flow=host0 host1 1MB 10us' >/dev/null
want=$(sqlite3 "$T/batch.db" "SELECT recv_end_ps FROM flow")
[ -n "$want" ] || fail "no batch flow"

# A sanitizer build's library needs its runtime first in programs built without it.
asan=$(ldd "$so" | sed -n 's/.*=> \(\/[^ ]*libasan[^ ]*\).*/\1/p' | head -n 1)
cat > "$T/drive.c" <<'C'
#include <inttypes.h>
#include <stdio.h>
#include <rocesim.h>
int main(int argc, char **argv)
{
	rocesim *h = rocesim_open(argv[1], NULL, 0, NULL);
	if (!h) {
		fprintf(stderr, "%s\n", rocesim_last_error(NULL));
		return 2;
	}
	struct rocesim_completion c;
	if (rocesim_post_msg(h, rocesim_endpoint(h, "host0"), rocesim_endpoint(h, "host1"), 1000000, 10000000, 1) ||
	    rocesim_next(h, INT64_MAX, &c) != 1) {
		fprintf(stderr, "%s\n", rocesim_last_error(h));
		return 1;
	}
	printf("%" PRId64 "\n", c.time_ps);
	return rocesim_close(h, NULL) ? 1 : 0;
}
C
flags=$(PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR="$T/root" pkg-config --cflags --libs rocesim) ||
	fail "pkg-config --cflags --libs rocesim"
echo "pkg-config: $flags"
${CC:-cc} -o "$T/drive" "$T/drive.c" $flags || fail "building a program with pkg-config's flags"
libdir=$(dirname "$so")
got=$(cd "$T" && env LD_LIBRARY_PATH="$libdir" ${asan:+LD_PRELOAD=$asan} ./drive "$SRCDIR/test/api_fabric.ini") ||
	fail "the installed program"
[ "$got" = "$want" ] || fail "C program: completion $got ps, batch recv_end_ps $want ps"
echo "C program (installed library): $got ps = batch $want ps"

got=$(cd "$T" && env -u ROCESIM_LIBRARY ${asan:+LD_PRELOAD=$asan ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0} python3 -c "
import sys
sys.path.insert(0, '$(dirname "$py")')
import rocesim
assert rocesim.__file__.startswith('$T/root'), rocesim.__file__
with rocesim.Fabric('$SRCDIR/test/api_fabric.ini') as f:
    f.post_msg('host0', 'host1', 1000000, 10000000, 1)
    print(f.next().time_ps)
") || fail "the installed Python module"
[ "$got" = "$want" ] || fail "Python module: completion $got ps, batch recv_end_ps $want ps"
echo "Python module (installed): $got ps = batch $want ps"
