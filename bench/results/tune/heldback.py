#!/usr/bin/env python3
"""Held-back points of an mpix-tune --check-table run, as a Markdown table.

    bench/results/tune/heldback.py CHECK.csv [MORE.csv ...]

For every point (collective, P, size, distribution) where CHECK.csv has an
`auto` row (mpix-tune --check-table): the fastest fixed row measured there (in
any of the files), what auto picked with the table and its time (the median of
its timed calls), auto / best, its largest timed call (since 2026-12-02 a check
times auto over agreement_period calls of a steady run: the largest is the call
that agrees), and auto's time over the platform's lower bound (simulated runs).
The last line gives the worst ratio. Standard library only."""
import csv
import sys
from collections import defaultdict


def point_of(row):
    return (row["collective"], int(row["P"]), int(row["ppn"]), int(row["size"]), row["dist"])


def read(paths):
    """Fixed rows from every file, auto rows from the first: {point: [rows]}, {point: row}."""
    fixed, auto = defaultdict(list), {}
    for i, path in enumerate(paths):
        with open(path, newline="") as f:
            for row in csv.DictReader(f):
                if row["verified"] == "FAILED" or row["algorithm"] == "agreement":
                    continue
                if row["algorithm"] != "auto":
                    fixed[point_of(row)].append(row)
                elif i == 0:
                    auto[point_of(row)] = row
    return fixed, auto


def main(paths):
    fixed, auto = read(paths)
    print("| collective | P | ppn | S | dist | best fixed row | µs | auto picked | µs | auto / best | auto's largest call, µs | auto x bound |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    worst, worst_at, points = 0.0, "", 0
    for key in sorted(auto):
        if not fixed[key]:
            continue
        points += 1
        best = min(fixed[key], key=lambda r: float(r["median_us"]))
        mine = auto[key]
        ratio = float(mine["median_us"]) / float(best["median_us"])
        if ratio > worst:
            worst, worst_at = ratio, "%s P=%d S=%d %s" % (key[0], key[1], key[3], key[4])
        print("| %s | %d | %d | %d | %s | `%s` %s | %.1f | `%s` | %.1f | %.3f | %.1f | %s |" % (
            key[0], key[1], key[2], key[3], key[4], best["algorithm"], best["params"],
            float(best["median_us"]), mine["params"], float(mine["median_us"]), ratio,
            float(mine["max_us"]), mine.get("x_bound") or ""))
    print("\nworst auto / best: %.3f at %s (%d points)" % (worst, worst_at, points))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
