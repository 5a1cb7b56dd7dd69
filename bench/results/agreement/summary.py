#!/usr/bin/env python3
"""auto beside the row it picked, per point, from an mpix-bench CSV
(regenerate.sh, part agreement): what auto's agreement costs a call, and auto's
time over the exchange's lower bound (sim/run: the library's copies charged at
the platform's rates)."""
import csv
import sys


def main(path):
    rows = list(csv.DictReader(open(path)))
    fixed = {}
    for r in rows:
        if r["algorithm"] not in ("auto", "MPI_Alltoallv") and r["params"] == "default":
            fixed[(r["P"], r["dist"], r["size"], r["algorithm"])] = float(r["median_us"])
    print("| P | dist | S | auto picked | auto us | that row us | auto / row | fastest row | auto / fastest | auto x bound |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        if r["algorithm"] != "auto":
            continue
        picked = r["params"].split("picked=")[-1].split(";")[0]
        key = (r["P"], r["dist"], r["size"])
        mine = float(r["median_us"])
        row = fixed.get(key + (picked,))
        best = min((v, a) for (p, d, s, a), v in fixed.items() if (p, d, s) == key)
        print("| %s | %s | %s | `%s` | %.2f | %s | %s | `%s` %.2f | %.3f | %s |" % (
            r["P"], r["dist"], r["size"], picked, mine, "%.2f" % row if row else "-",
            "%.3f" % (mine / row) if row else "-", best[1], best[0], mine / best[0], r["x_bound"] or "-"))


if __name__ == "__main__":
    main(sys.argv[1])
