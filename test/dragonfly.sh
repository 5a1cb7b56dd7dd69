#!/bin/sh
# sim/dragonfly: every committed dragonfly platform (.xml and .hosts) is what the
# generator writes now, and check does fail on a changed file.  Skipped (77)
# only without /usr/bin/python3.
set -u
top="${srcdir:-.}"
python=/usr/bin/python3
if [ ! -x "$python" ]; then
    echo "SKIP: $python not found (sim/dragonfly is a Python 3 script)"
    exit 77
fi
fail() { echo "FAIL: $*"; exit 1; }
"$python" "$top/sim/dragonfly" check --dir "$top/sim/platforms" || fail "sim/platforms out of date (sim/dragonfly xml NAME)"

tmp="$(mktemp -d "${TMPDIR:-/tmp}/dragonfly-test.XXXXXX")" || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT
"$python" "$top/sim/dragonfly" xml dragonfly-128x128 -o "$tmp/dragonfly-128x128.xml" || fail "xml dragonfly-128x128"
[ "$(grep -c -x node-127 "$tmp/dragonfly-128x128.hosts")" = 128 ] || fail "node-127 not listed 128 times"
sed 's/bw="200GBps"/bw="100GBps"/' "$top/sim/platforms/dragonfly-128x128.xml" > "$tmp/dragonfly-128x128.xml"
if "$python" "$top/sim/dragonfly" check --dir "$tmp" dragonfly-128x128 2>/dev/null; then
    fail "check passed a platform with a changed bandwidth"
fi
echo "PASS: sim/dragonfly platforms up to date"
