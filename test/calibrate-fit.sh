#!/bin/sh
# sim/calibrate's copy model (sim/README.md, "Calibration"): the copy bandwidth is
# the memcpy sweep's slope from 64 KiB while copies still run from the cache (at
# half the 64 KiB copy's rate or more), and the cost per copy comes from the
# copies of 64 B or less; the counted CPU term (--instructions) is one fitted ns per
# instruction, and --from-compare writes a report again from its compare.csv; the
# cache's edge is the steepest fall of the every-rank copy rate (fit_cache); the
# self-message rendezvous is a jump within the 1 KiB steps (fit_mpi_self); the
# price a basic block is the median over the rows of their excess a block (fit_cpu_block).
# Synthetic sweeps and rows with known values; no MPI, no SimGrid.
top="${srcdir:-.}"
exec python3 - "$top/sim/calibrate" <<'PY'
import importlib.machinery, importlib.util, sys
loader = importlib.machinery.SourceFileLoader("mpix_calibrate", sys.argv[1])
spec = importlib.util.spec_from_loader("mpix_calibrate", loader)
cal = importlib.util.module_from_spec(spec)
loader.exec_module(cal)

sizes = [16 << i for i in range(19)]  # 16 B - 4 MiB, as calibrate-native sweeps
def sweep(rate_of):
    return [(n, 3e-9 + n / rate_of(n)) for n in sizes]

failed = []
def expect(what, got, want, rel=0.02):
    if abs(got - want) > rel * want:
        failed.append("%s: %.4g, expected %.4g" % (what, got, want))

# In the cache at 40 GB/s up to 1 MiB, 10 GB/s beyond (a 2 MiB L2): 40 GB/s.
c, bw = cal.fit_copy(sweep(lambda n: 40e9 if n <= 1 << 20 else 10e9))
expect("in-cache slope", bw, 40e9)
expect("cost per copy", c, 3e-9, rel=0.05)
# Every copy in the cache: the slope to the largest copy, as before.
c, bw = cal.fit_copy(sweep(lambda n: 30e9))
expect("all in cache", bw, 30e9)
# Out of the cache from 128 KiB: too few copies in it, the whole range's slope.
c, bw = cal.fit_copy(sweep(lambda n: 40e9 if n <= 64 << 10 else 8e9))
expect("no in-cache range", bw, (4194304 - 65536) / ((4194304 / 8e9) - (65536 / 40e9)))

# The cache's edge (fit_cache, memcpy_both of 1-64 MiB): at the steepest fall in
# rate, not where the rate crosses the middle. This machine on 2026-12-05: 21, 20,
# 10.2 and 11.3 GB/s -> the edge after 4 MiB (a working set of 16 MiB), the memory
# rate the 64 MiB copy's.
MiB = 1 << 20
def both(rates):
    return [(n * MiB, n * MiB / r) for n, r in rates]
mem, cache = cal.fit_cache(both([(1, 21e9), (4, 20e9), (16, 10.2e9), (64, 11.3e9)]), 44e9)
expect("memory rate", mem, 11.3e9)
expect("cache edge at the L3 fall", cache, 16 * MiB, rel=0)
# A day when the 1 MiB copies ran at 35 GB/s: the same edge.
mem, cache = cal.fit_cache(both([(1, 35e9), (4, 20e9), (16, 10.2e9), (64, 11.3e9)]), 44e9)
expect("the edge stays put", cache, 16 * MiB, rel=0)
# No fall of 1.5x: the middle rule (sqrt(40 * 12) = 21.9 GB/s; 1 MiB at 24 is the
# largest above it).
mem, cache = cal.fit_cache(both([(1, 24e9), (4, 21e9), (16, 16e9), (64, 12e9)]), 40e9)
expect("no clear fall: the middle rule", cache, 4 * MiB, rel=0)
mem, cache = cal.fit_cache(both([(1, 12e9), (4, 11e9), (16, 10e9), (64, 10e9)]), 40e9)
expect("all out of the cache", cache, MiB, rel=0)

# The library's counted CPU (--instructions): native = simulated + 0.1 ns per
# instruction beyond the fitted row's; the term recovers 0.1 ns and puts every
# row on its native time. A row without a count is left out of the fit.
rows, counts = [], {}
for size in (16, 1024):
    counts[("alltoall", "linear", size)] = 1000.0
    for algo, instr, sim in (("linear", 1000, 1.0), ("pairwise", 600, 0.9), ("node_bruck", 4000, 1.0),
                             ("bruck_basic", 2000, 1.2), ("uncounted", None, 5.0)):
        if instr is not None:
            counts[("alltoall", algo, size)] = float(instr)
        native = sim + 1e-4 * ((instr or 1000) - 1000) + (7.0 if instr is None else 0.0)
        rows.append({"collective": "alltoall", "algorithm": algo, "params": "default", "size": size,
                     "native_us": native, "simulated_us": sim, "ratio": sim / native, "spread": 1.0})
c, counted = cal.instruction_term(rows, counts)
expect("ns per instruction", c * 1e3, 0.1, rel=1e-6)
if counted != 8:
    failed.append("rows counted: %d, expected 8" % counted)
for r in rows:
    if r["algorithm"] == "uncounted":
        if "with_cpu_us" in r:
            failed.append("a row without a count was charged")
    else:
        expect("%s with the CPU" % r["algorithm"], r["with_cpu_us"], r["native_us"], rel=1e-6)
import argparse, os, tempfile
# The MPI library's message to itself (fit_mpi_self): the copy alone doubles from
# 1 to 4 KiB (the sweep's one 4x step), which is not the rendezvous; the jump
# within the 1 KiB steps (7 -> 8 KiB) is.
selfs = [(1024, 0.07e-6), (4096, 0.15e-6), (5120, 0.17e-6), (6144, 0.19e-6), (7168, 0.21e-6),
         (8192, 3.9e-6), (16384, 4.2e-6), (65536, 6.0e-6), (1048576, 57e-6)]
spec = cal.fit_mpi_self(selfs)
if not spec or not spec.startswith("8192:"):
    failed.append("fit_mpi_self put the rendezvous at %s, expected 8192" % spec)
# The library's CPU a basic block (--cpu-block fit): a row's blocks on its path are
# its time at 1 ns a block less its time at 0; the price is the median over the
# rows up to 4 KiB (not pmpi or MPI's own) of (native - uncharged) per block beyond
# the fitted row's. Native here = uncharged + 0.5 ns a block beyond linear's, one
# row off by far (a noisy native run), pmpi far off too: the median holds 0.5.
blocks_of = {"linear": 300, "pairwise": 250, "bruck_basic": 450, "node_bruck": 750, "multileader": 720,
             "noisy": 500, "pmpi": 20, "few": 320}
def fake_simulate(args, bench, colls, algo, csv_path):
    out = {}
    for coll in colls:
        for a, b in blocks_of.items():
            for size in (16, 1024, 65536):
                out[(coll, a, "default", size)] = 1.0 + cal.CPU_BLOCK[0] * 1e-3 * b
    return out
cal.simulate = fake_simulate
native = {}
for coll in ("alltoall", "alltoallv"):
    for a, b in blocks_of.items():
        for size in (16, 1024, 65536):
            extra = 0.5e-3 * (b - 300) + (3.0 if a in ("noisy", "pmpi") else 0.0) + (9.0 if size == 65536 else 0.0)
            native[(coll, a, "default", size)] = [1.0 + extra]
with tempfile.TemporaryDirectory() as d:
    t0, price = cal.fit_cpu_block(argparse.Namespace(), "bench", native, d)
    expect("ns a basic block", price, 0.5, rel=1e-6)
    if abs(t0[("alltoall", "linear", "default", 16)] - 1.0) > 1e-12:
        failed.append("fit_cpu_block's uncharged times are not the 0 ns run's")
    if not os.path.exists(os.path.join(d, "blocks.csv")):
        failed.append("fit_cpu_block wrote no blocks.csv")
# --from-compare: a report written from these rows, read back and written again
# with the counts, gives the same rows and the term fitted above.
import argparse, csv, os, tempfile
with tempfile.TemporaryDirectory() as d:
    args = argparse.Namespace(np=2, runs=5, iters=50, name="synthetic", machine="no machine", fit="latency",
                              write_send=False, instructions=None)
    plain = [{k: v for k, v in r.items() if k not in ("instructions", "with_cpu_us")} for r in rows]
    cal.report(plain, d, args)
    back = cal.load_compare(os.path.join(d, "compare.csv"))
    if len(back) != len(plain):
        failed.append("--from-compare read %d rows of %d" % (len(back), len(plain)))
    for a, b in zip(plain, back):
        for k in ("collective", "algorithm", "params", "size"):
            if a[k] != b[k]:
                failed.append("--from-compare: %s %r read back as %r" % (k, a[k], b[k]))
        expect("native read back", b["native_us"], a["native_us"], rel=1e-3)
        expect("simulated read back", b["simulated_us"], a["simulated_us"], rel=1e-3)
    with open(os.path.join(d, "counts.csv"), "w") as f:
        f.write("collective,algorithm,size,np,mpix,cpp,allocator,total\n")
        for (coll, algo, size), n in counts.items():
            f.write("%s,%s,%d,2,%d,0,0,%d\n" % (coll, algo, size, n, n))
    args.instructions = os.path.join(d, "counts.csv")
    cal.report(back, d, args)
    with open(os.path.join(d, "compare.csv")) as f:
        charged = [r for r in csv.DictReader(f) if r["with_cpu_us"]]
    if len(charged) != 8:
        failed.append("--from-compare with counts: %d rows charged, expected 8" % len(charged))
    for r in charged:
        expect("%s with the CPU, rewritten" % r["algorithm"], float(r["with_cpu_us"]), float(r["native_us"]),
               rel=2e-3)
    with open(os.path.join(d, "compare.md")) as f:
        if "0.1000 ns per instruction" not in f.read():
            failed.append("--from-compare: compare.md does not give the fitted 0.1000 ns")
if failed:
    print("FAIL: " + "; ".join(failed))
    sys.exit(1)
print("PASS: sim/calibrate fits the copy bandwidth in the cache and the counted CPU term")
PY
