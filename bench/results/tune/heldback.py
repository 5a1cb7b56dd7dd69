#!/usr/bin/env python3
"""Held-back points of an mpix-tune --check-table run, as a Markdown table.

    bench/results/tune/heldback.py FILE.csv [FILE.csv ...]

For every point (collective, P, size, distribution) that has an `auto,table`
row: the fastest fixed row measured there, what auto picked with the table and
its time, auto / best, and auto's time over the platform's lower bound (simulated
runs). The last line gives the worst ratio. Standard library only."""
import csv
import sys
from collections import defaultdict


def main(paths):
    rows = [r for p in paths for r in csv.DictReader(open(p, newline=""))]
    fixed, auto = defaultdict(list), {}
    for r in rows:
        if r["verified"] == "FAILED" or r["algorithm"] == "agreement":
            continue
        key = (r["collective"], int(r["P"]), int(r["ppn"]), int(r["size"]), r["dist"])
        if r["algorithm"] == "auto":
            auto[key] = r
        else:
            fixed[key].append(r)
    print("| collective | P | ppn | S | dist | best fixed row | µs | auto picked | µs | auto / best | auto x bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    worst, worst_at = 0.0, ""
    for key in sorted(auto):
        if not fixed[key]:
            continue
        best = min(fixed[key], key=lambda r: float(r["median_us"]))
        a = auto[key]
        ratio = float(a["median_us"]) / float(best["median_us"])
        if ratio > worst:
            worst, worst_at = ratio, "%s P=%d S=%d %s" % (key[0], key[1], key[3], key[4])
        picked = a["params"]
        xb = a.get("x_bound") or ""
        print("| %s | %d | %d | %d | %s | `%s` %s | %.1f | `%s` | %.1f | %.3f | %s |" % (
            key[0], key[1], key[2], key[3], key[4], best["algorithm"], best["params"],
            float(best["median_us"]), picked, float(a["median_us"]), ratio, xb))
    print("\nworst auto / best: %.3f at %s (%d points)" % (worst, worst_at, len(auto)))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
