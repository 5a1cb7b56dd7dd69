#!/usr/bin/python3
"""The "Which algorithm when" tables (docs/algorithms.md) from the charged runs.

  bench/results/charged/readme_tables.py [CHARGED_DIR]

Prints the P = 256 and P = 1024 tables (markdown) from CHARGED_DIR/*.csv
(bench/results/charged): each cell the row's simulated µs and, in brackets,
x_bound; the fastest fixed row of each column in bold; for rows with a radix or
batch, the best parameter set at that size and which it was. Python 3, standard
library.
"""
import csv
import glob
import os
import sys

here = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = []
for path in sorted(glob.glob(os.path.join(here, "*.csv"))):
    with open(path) as f:
        rows += [r for r in csv.DictReader(f) if r.get("collective") == "alltoallv" and r["dist"] == "uniform"]


def pick(P, algorithm, size, params=None):
    """The fastest row of `algorithm` at (P, size) whose params contain every
    item of `params` (None: any): (median, x_bound, params) or None."""
    best = None
    for r in rows:
        if int(r["P"]) != P or r["algorithm"] != algorithm or int(r["size"]) != size:
            continue
        if params and not all(p in r["params"].split(";") for p in params):
            continue
        m = float(r["median_us"])
        if best is None or m < best[0]:
            best = (m, float(r["x_bound"]) if r["x_bound"] else None, r["params"])
    return best


def cell(v, bold):
    if v is None:
        return ""
    text = "%.1f" % v[0] + (" (%.2f)" % v[1] if v[1] else "")
    return "**%.1f**" % v[0] + text[len("%.1f" % v[0]):] if bold else text


def table(P, sizes, lines):
    header = "| algorithm | " + " | ".join(("%d B" % s) if s < 1024 else ("%d KiB" % (s // 1024)) for s in sizes) + " |"
    print(header)
    print("|---|" + "---|" * len(sizes))
    values = [[pick(P, *spec, size=s) if len(spec) == 1 else pick(P, spec[0], s, spec[1]) for s in sizes]
              for _, spec in lines]
    # Bold: the fastest fixed row per column (auto and the MPI baselines aside).
    fastest = []
    for j in range(len(sizes)):
        cands = [values[i][j][0] for i, (label, spec) in enumerate(lines)
                 if values[i][j] and spec[0] not in ("auto", "MPI_Alltoallv", "scattered")]
        fastest.append(min(cands) if cands else None)
    for i, (label, spec) in enumerate(lines):
        cells = [cell(values[i][j], values[i][j] is not None and values[i][j][0] == fastest[j]) for j in range(len(sizes))]
        print("| %s | %s |" % (label, " | ".join(cells)))
    print()
    for i, (label, spec) in enumerate(lines):
        if spec[0] in ("node_bruck", "parlinna_coalesced", "parlinna_staggered", "auto"):
            picks = ["%s: %s" % (("%d B" % s) if s < 1024 else ("%d KiB" % (s // 1024)), values[i][j][2])
                     for j, s in enumerate(sizes) if values[i][j]]
            print("- %s: %s" % (label, "; ".join(picks)))
    print()


print("P = 256 (16 nodes x 16), µs (x bound), copies charged:\n")
table(256, [16, 512, 1024, 8192, 16384], [
    ("`MPI_Alltoallv` (SimGrid)", ("MPI_Alltoallv",)),
    ("`scattered` (MPICH's default, batch 32)", ("scattered", ["batch_size=32"])),
    ("`node_bruck` (best radix)", ("node_bruck",)),
    ("`auto` (steady state)", ("auto",)),
    ("`two_phase_bruck`", ("two_phase_bruck",)),
    ("`parlogna` r = 2", ("parlogna", ["radix=2"])),
    ("`parlogna` r = 16 (= √P)", ("parlogna", ["radix=16"])),
    ("`node_aware`", ("node_aware",)),
    ("`parlinna_coalesced` (best r, batch)", ("parlinna_coalesced",)),
    ("`parlinna_staggered` (r 16, batch 32)", ("parlinna_staggered",)),
])
print("P = 1024 (64 nodes x 16), µs (x bound), copies charged:\n")
table(1024, [16, 512, 1024, 8192], [
    ("`scattered` (MPICH's default, batch 32)", ("scattered", ["batch_size=32"])),
    ("`node_bruck` (best radix)", ("node_bruck",)),
    ("`auto` (steady state)", ("auto",)),
    ("`node_aware`", ("node_aware",)),
    ("`parlinna_coalesced` (r 2, batch 8)", ("parlinna_coalesced",)),
    ("`parlogna` (r 2, batch 8)", ("parlogna",)),
    ("`two_phase_bruck`", ("two_phase_bruck",)),
])
