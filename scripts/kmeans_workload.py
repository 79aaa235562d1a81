#!/usr/bin/env python3
"""Write the `hot-peers` stream used as evidence for `mpimatch cluster --k auto`
(docs/clustering.md). Seeded: the same arguments give the same file.

    python3 scripts/kmeans_workload.py OUT.mms [--np 256] [--phases 40] [--hot 4]

One receiving process of NP. In each phase a few hot peers each send 60 messages
(tags 0..59, arrivals interleaved) that the receiver then takes with specific
receives in random tag order (deep searches of the hot peers' messages); every
other peer sends one message, taken by ANY_SOURCE receives, and 50 cold peers
have a specific receive posted before their message arrives.
"""
from __future__ import annotations

import argparse
import random


def hot_peers(np_: int, phases: int, hot: int, seed: int = 7) -> str:
    rng = random.Random(seed)
    peers = list(range(1, np_))
    hots = sorted(rng.sample(peers, hot))
    colds = [p for p in peers if p not in hots]
    lines = ["# mpimatch stream v1", f"# np={np_}",
             f"# hot-peers: {hot} hot peers {hots} of {np_}, {phases} phases"]
    ident = 0

    def emit(kind: str, src: int, tag: int) -> None:
        nonlocal ident
        src_s = "*" if src < 0 else str(src)
        lines.append(f"{kind} {ident} 0 {src_s} {tag}")
        ident += 1

    for _ in range(phases):
        early = rng.sample(colds, 50)
        for p in early:                       # pre-posted specific receives
            emit("R", p, 1)
        for t in range(60):                   # hot bursts, interleaved
            for h in hots:
                emit("M", h, t)
        order = colds[:]
        rng.shuffle(order)
        for p in order:                       # one message from each cold peer
            emit("M", p, 1 if p in early else 0)
        for h in hots:                        # hot messages in random tag order
            tags = list(range(60))
            rng.shuffle(tags)
            for t in tags:
                emit("R", h, t)
        for _ in range(len(colds) - len(early)):
            emit("R", -1, 0)                  # ANY_SOURCE drains the rest
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out")
    ap.add_argument("--np", type=int, default=256)
    ap.add_argument("--phases", type=int, default=40)
    ap.add_argument("--hot", type=int, default=4)
    a = ap.parse_args()
    with open(a.out, "w") as f:
        f.write(hot_peers(a.np, a.phases, a.hot))


if __name__ == "__main__":
    main()
