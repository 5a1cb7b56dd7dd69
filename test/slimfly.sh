#!/bin/sh
# sim/slimfly: the Slim Fly graphs (router count, degree, diameter 2, every host
# pair within 2 router-to-router hops in the XML), that verify does fail on a
# broken graph or platform, and that the committed slimfly-200x16 platform is
# exactly what the generator writes now.  Skipped (77) only without /usr/bin/python3.
set -u
top="${srcdir:-.}"
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "SKIP: $python not found (sim/slimfly is a Python 3 script)"
    exit 77
fi
slimfly="$top/sim/slimfly"
platform="$top/sim/platforms/slimfly-200x16"
fail() { echo "FAIL: $*"; exit 1; }

for q in 5 7 13; do
    "$python" "$slimfly" verify --q "$q" || fail "verify --q $q"
done
"$python" "$slimfly" verify --q 5 --xml "$platform.xml" || fail "verify of $platform.xml"

# verify must be able to fail: one router link less (graph), one route less (XML),
# a platform read with the wrong node count.
if "$python" "$slimfly" verify --q 5 --drop-edge 0 2>/dev/null; then
    fail "verify passed a graph with an edge removed"
fi
tmp="$(mktemp -d "${TMPDIR:-/tmp}/slimfly-test.XXXXXX")" || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
grep -v '<route src="router-0" dst="router-1">' "$platform.xml" > "$tmp/broken.xml"
if "$python" "$slimfly" verify --q 5 --xml "$tmp/broken.xml" 2>/dev/null; then
    fail "verify passed a platform without the router-0 - router-1 route"
fi
if "$python" "$slimfly" verify --q 5 --nodes-per-router 3 --xml "$platform.xml" 2>/dev/null; then
    fail "verify passed 200 hosts as 150"
fi

# The committed platform is the generator's current output.
"$python" "$slimfly" xml --q 5 --nodes-per-router 4 -o "$tmp/slimfly-200x16.xml" || fail "xml --q 5"
for ext in xml hosts; do
    if ! cmp -s "$platform.$ext" "$tmp/slimfly-200x16.$ext"; then
        diff -u "$platform.$ext" "$tmp/slimfly-200x16.$ext" | head -20
        fail "sim/platforms/slimfly-200x16.$ext differs from 'sim/slimfly xml --q 5 -o ...' (regenerate it)"
    fi
done
echo "PASS: sim/slimfly graphs q = 5, 7, 13; slimfly-200x16 up to date"
