#!/bin/sh
# mpix-bench's outputs for the visualizer: --auto-map (auto's picks over a grid,
# from the library's rule, checked at points derived from docs/algorithms.md, "Algorithms")
# and --workload-out (the bytes of every block a run moved, with the node of each
# rank), plus their refusals. Skipped (77) only without python3 (it reads the JSON).
set -u
bench=bench/mpix-bench
run="${MPIEXEC:-mpiexec} -n 4 $bench"
python=$(command -v python3) || { echo "SKIP: python3 not found (the checks read JSON)"; exit 77; }
fail() { echo "FAIL: $*"; exit 1; }
tmp="$(mktemp -d "${TMPDIR:-/tmp}/mpix-bench-vis.XXXXXX")" || fail "mktemp"
trap 'rm -rf "$tmp"' EXIT

# (a) --auto-map: one process, no mpiexec; picks against the documented rule:
# 2 ranks pairwise (alltoall up to 32 KiB blocks), else below 8 ranks pmpi; one node of 8-16 ranks: alltoall pmpi up to 64 B
# on 8 ranks, bruck_zero_rotation up to 1 KiB, randomized_sendrecv up to 8 KiB, pmpi above, alltoallv
# pmpi to a 96 B mean, randomized_sendrecv above; from 8, a larger node or nodes of 4+ ranks: node_bruck; on
# nodes of 1-3 ranks fattree-64x16.json's rules at one rank per node: alltoall
# pmpi to 66-69 B, bruck_zerocopy_dt (above 64 ranks to 632 B), from 33 ranks bruck_radix and
# randomized_sendrecv, then nonblocking up to 64 ranks and pmpi above; alltoallv
# (agreed mean) two_phase_bruck, parlogna, then nonblocking up to 64 ranks and pmpi
# above.
$bench --auto-map >"$tmp/map.json" || fail "--auto-map exited non-zero"
$bench --auto-map --map-ranks 64,4,8,64 --map-sizes 1024,16 --map-ppn 2 >"$tmp/small.json" ||
    fail "--auto-map with a grid exited non-zero"
"$python" - "$tmp/map.json" "$tmp/small.json" <<'EOF' || fail "--auto-map picks"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["rule"] == "auto" and "agreed largest per-rank mean" in m["note"], m.get("note")
cs = m["collectives"]
assert sorted(cs) == ["alltoall", "alltoallv"], sorted(cs)
ranks = [2 ** k for k in range(1, 13)]
sizes = [2 ** k for k in range(0, 21)]
def pick(coll, ppn, p, b):
    g = cs[coll]["ppn"][str(ppn)]
    return g["pick"][g["P"].index(p)][g["bytes"].index(b)]
for coll, c in cs.items():
    assert sorted(c["ppn"]) == ["1", "16", "4"], sorted(c["ppn"])
    names = set()
    for g in c["ppn"].values():
        assert g["P"] == ranks and g["bytes"] == sizes, (g["P"], g["bytes"])
        assert len(g["pick"]) == len(ranks) and all(len(r) == len(sizes) for r in g["pick"])
        names.update(n for r in g["pick"] for n in r)
    assert set(c["algorithms"]) == names, (coll, c["algorithms"], names)
    for ppn in (1, 4, 16):
        for b in (1, 1024, 32768, 65536, 1048576):
            assert pick(coll, ppn, 4, b) == "pmpi", (coll, ppn, 4, b)
            want = "pairwise" if coll == "alltoallv" or b <= 32768 else "pmpi"
            assert pick(coll, ppn, 2, b) == want, (coll, ppn, 2, b, pick(coll, ppn, 2, b), want)
    for b in (1, 256, 1024, 2048, 8192, 16384, 1048576):  # one node of 8-16 ranks
        for p in (8, 16):
            want = (("pmpi" if b <= 96 else "randomized_sendrecv") if coll == "alltoallv" else
                    "pmpi" if p == 8 and b <= 64 else
                    "bruck_zero_rotation" if b <= 1024 else "randomized_sendrecv" if b <= 8192 else "pmpi")
            assert pick(coll, 16, p, b) == want, (coll, p, b, pick(coll, 16, p, b), want)
    for ppn, p in ((4, 64), (16, 4096)):  # nodes of 4+ ranks
        for b in (1, 256, 4096, 1048576):
            assert pick(coll, ppn, p, b) == "node_bruck", (coll, ppn, p, b)
# Nodes of one rank at P = 8, 64 and 4096 (up to 32 ranks, 33-64, above 64).
expect = {("alltoall", 16): ("pmpi", "pmpi", "pmpi"),
          ("alltoall", 128): ("bruck_zerocopy_dt",) * 3,
          ("alltoall", 512): ("bruck_zerocopy_dt",) * 3,
          ("alltoall", 1024): ("bruck_zerocopy_dt", "bruck_zerocopy_dt", "bruck_radix"),  # above 64: to 632 B
          ("alltoall", 2048): ("bruck_zerocopy_dt", "bruck_radix", "bruck_radix"),
          ("alltoall", 8192): ("nonblocking", "randomized_sendrecv", "randomized_sendrecv"),
          ("alltoall", 32768): ("nonblocking", "nonblocking", "pmpi"),
          ("alltoallv", 16): ("two_phase_bruck",) * 3,
          ("alltoallv", 256): ("two_phase_bruck",) * 3,
          ("alltoallv", 512): ("parlogna",) * 3,
          ("alltoallv", 4096): ("parlogna",) * 3,
          ("alltoallv", 8192): ("nonblocking", "nonblocking", "pmpi")}
for (coll, b), wants in expect.items():
    for p, want in zip((8, 64, 4096), wants):
        got = pick(coll, 1, p, b)
        assert got == want, (coll, p, b, got, want)
assert sorted(cs["alltoall"]["algorithms"]) == ["bruck_radix", "bruck_zero_rotation", "bruck_zerocopy_dt", "node_bruck",
                                                "nonblocking", "pairwise", "pmpi", "randomized_sendrecv"], cs["alltoall"]["algorithms"]
assert sorted(cs["alltoallv"]["algorithms"]) == ["node_bruck", "nonblocking", "pairwise", "parlogna", "pmpi",
                                                 "randomized_sendrecv", "two_phase_bruck"], cs["alltoallv"]["algorithms"]
# A given grid: sorted, duplicates dropped; ppn 2 at P=64 is 32 nodes of 2.
s = json.load(open(sys.argv[2]))["collectives"]
g = s["alltoall"]["ppn"]["2"]
assert list(s["alltoall"]["ppn"]) == ["2"] and g["P"] == [4, 8, 64] and g["bytes"] == [16, 1024], g
assert g["pick"][2] == ["pmpi", "bruck_zerocopy_dt"], g["pick"]
assert s["alltoallv"]["ppn"]["2"]["pick"][2] == ["two_phase_bruck", "parlogna"], s["alltoallv"]
EOF
for bad in "--map-ranks 8" "--auto-map --map-sizes 1,x" "--auto-map --map-ppn 0"; do
    if $bench $bad >/dev/null 2>"$tmp/err"; then fail "accepted: $bad"; fi
    grep -q 'map-' "$tmp/err" || fail "no message for: $bad"
done

# (b) --workload-out at 4 ranks on emulated nodes of 2.
common="--ppn 2 --algo pairwise --iters 1 --warmup 0"
$run --coll alltoallv --dist uniform --size 64 $common --workload-out "$tmp/v.json" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "alltoallv --workload-out"; }
$run --coll alltoall --size 64 $common --workload-out "$tmp/a.json" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "alltoall --workload-out"; }
# Sparse: every rank sends one message of 16 B to one other rank (graph:1), 0 elsewhere.
$run --coll alltoall_crs --dist graph:1 --size 16 --ppn 2 --algo nonblocking --iters 1 --warmup 0 --workload-out "$tmp/c.json" >/dev/null 2>"$tmp/err" ||
    { cat "$tmp/err"; fail "alltoall_crs --workload-out"; }
"$python" - "$tmp" <<'EOF' || fail "--workload-out contents"
import json, sys
d = sys.argv[1]
def load(name, coll, dist, size):
    w = json.load(open(d + "/" + name))
    head = {k: w[k] for k in ("collective", "P", "ppn", "nodes", "dist", "size", "seed", "node_of")}
    assert head == {"collective": coll, "P": 4, "ppn": 2, "nodes": 2, "dist": dist, "size": size, "seed": 1,
                    "node_of": [0, 0, 1, 1]}, head
    b = w["bytes"]
    assert len(b) == 4 and all(len(r) == 4 and all(type(x) is int for x in r) for r in b), b
    return b
v = load("v.json", "alltoallv", "uniform", 64)
assert all(0 <= x <= 64 for r in v for x in r), v
assert len({x for r in v for x in r}) > 1, v  # uniform in 0..64, not one value
a = load("a.json", "alltoall", "uniform", 64)
assert a == [[64] * 4] * 4, a
c = load("c.json", "alltoall_crs", "graph:1", 16)
for s, r in enumerate(c):
    assert r[s] == 0 and sorted(r) == [0, 0, 0, 16], (s, r)
EOF

# Refusals: an unwritable file (non-zero exit and a message), several sizes.
if $run --coll alltoall --size 64 $common --workload-out "$tmp/no/such/dir/w.json" >/dev/null 2>"$tmp/err"; then
    fail "--workload-out into a missing directory exited 0"
fi
grep -q 'workload-out: cannot write' "$tmp/err" || { cat "$tmp/err"; fail "no message for an unwritable file"; }
if $run --size 16,64 $common --workload-out "$tmp/w.json" >/dev/null 2>"$tmp/err"; then
    fail "--workload-out with two sizes accepted"
fi
grep -q 'workload-out writes one size' "$tmp/err" || fail "no message for two sizes"
echo "mpix-bench vis outputs: 1 passed, 0 failed"
