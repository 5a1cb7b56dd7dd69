#!/usr/bin/env python3
"""Traffic matrices (mpix-bench --dist traffic:FILE) behind the sparse `auto` rule.

Writes P x P element counts (one row per source rank) for P ranks on nodes of
PPN consecutive ranks into DIR:
  nextnode   one message to the same local index on the next node
  4nodes     4 messages to random ranks of 4 distinct other nodes
  nodeblock  16 messages, to every rank of the next node
  hot        the first node's ranks 32 messages to random off-node ranks, others 1
  all24      every rank 24 messages to random off-node ranks
Usage: sparse-patterns.py DIR [P] [PPN] [COUNT]   (defaults 256 16 8)
"""
import random
import sys


def write(path, p, pairs):
    m = [[0] * p for _ in range(p)]
    for s, d, c in pairs:
        m[s][d] = c
    with open(path, "w") as f:
        f.write("\n".join(" ".join(map(str, row)) for row in m) + "\n")


def main():
    out = sys.argv[1]
    p = int(sys.argv[2]) if len(sys.argv) > 2 else 256
    ppn = int(sys.argv[3]) if len(sys.argv) > 3 else 16
    c = int(sys.argv[4]) if len(sys.argv) > 4 else 8
    nodes = p // ppn
    rng = random.Random(1)
    write(f"{out}/nextnode.txt", p, [(r, (r + ppn) % p, c) for r in range(p)])
    pairs = []
    for r in range(p):
        for k in rng.sample([k for k in range(nodes) if k != r // ppn], 4):
            pairs.append((r, k * ppn + rng.randrange(ppn), c))
    write(f"{out}/4nodes.txt", p, pairs)
    write(f"{out}/nodeblock.txt", p,
          [(r, ((r // ppn + 1) % nodes) * ppn + i, c) for r in range(p) for i in range(ppn)])
    rng = random.Random(3)
    off = lambda r: [k for k in range(p) if k // ppn != r // ppn]
    pairs = []
    for r in range(p):
        if r < ppn:
            pairs += [(r, d, c) for d in rng.sample(off(r), 32)]
        else:
            pairs.append((r, (r + ppn) % p, c))
    write(f"{out}/hot.txt", p, pairs)
    write(f"{out}/all24.txt", p, [(r, d, c) for r in range(p) for d in rng.sample(off(r), 24)])


if __name__ == "__main__":
    main()
