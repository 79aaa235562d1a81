#!/usr/bin/env python3
"""What the UMQ searches of Ghazimirsaeed and Afsahi's (HPCS 2017) fig. 3 walk, queue by queue.

    python scripts/p001_queue_contents.py [--per-group 16] [--arrival sequential]

Builds the `reverse_groups` stream (mpimatch-gen) the paper suite's p001-fig3 items
replay, then matches it with one linked list per queue for each clustering of the
four sender groups (Ps, Pm, Pl, Pvl: 2, 10, 50 and 100 messages per sender) that
the suite times: one queue, Table 1's clusterings 3 and 4 (the paper's best
two-queue ones) and 5 (its bad one), four queues. Every receive walks its queue
from the head to the first match, as the kmeans engine's lists do. Printed per
clustering and queue: the queue's length when the round's first receive is
posted, the elements compared (exact), and whose elements they were (the share
of each group), then the mean per UMQ search. A coarser clustering's queue
holds the union of finer queues' elements in arrival order, so no search of it
compares fewer elements: the four-queue split compares fewest by construction.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from collections import Counter, deque
from pathlib import Path
from typing import Dict, List, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpimatch import tools  # noqa: E402

GROUPS = ("Ps", "Pm", "Pl", "Pvl")
CLUSTERINGS: Sequence[Tuple[str, Sequence[str]]] = (
    ("one queue", ("Ps Pm Pl Pvl",)),
    ("clustering 3", ("Ps Pvl", "Pm Pl")),
    ("clustering 4", ("Ps Pm Pl", "Pvl")),
    ("clustering 5", ("Pm Pl Pvl", "Ps")),
    ("4 queues", ("Ps", "Pm", "Pl", "Pvl")),
)


def events(per_group: int, arrival: str) -> List[Tuple[str, int, int]]:
    spec = f"reverse_groups:per_group={per_group},arrival={arrival}"
    out = subprocess.run([str(tools.find_tool("mpimatch-gen")), spec, "-o", "-"],
                         capture_output=True, text=True, check=True).stdout
    evs = []
    for line in out.splitlines():
        w = line.split()
        if w and w[0] in ("R", "M"):
            evs.append((w[0], int(w[3]), int(w[4])))   # type, source, tag (comm 0)
    return evs


def walk(evs, per_group: int, queues: Sequence[str]):
    group_of = {r: GROUPS[(r - 1) // per_group] for r in range(1, 4 * per_group + 1)}
    queue_of = {g: i for i, q in enumerate(queues) for g in q.split()}
    umq: List[deque] = [deque() for _ in queues]
    compared = [Counter() for _ in queues]
    searches = [0] * len(queues)
    first_len: List[int] = []
    prev = None
    for kind, src, tag in evs:
        q = queue_of[group_of[src]]
        if kind == "M":
            umq[q].append((src, tag))
        else:
            if prev == "M" and not first_len:
                first_len = [len(u) for u in umq]
            searches[q] += 1
            for i, (s, t) in enumerate(umq[q]):
                compared[q][group_of[s]] += 1
                if s == src and t == tag:
                    del umq[q][i]
                    break
            else:
                raise SystemExit(f"receive from {src} tag {tag} found nothing")
        prev = kind
    return first_len, compared, searches


def table(per_group: int = 16, arrival: str = "sequential") -> str:
    """The walk, queue by queue, as a Markdown table (with the stream's name above it)."""
    evs = events(per_group, arrival)
    out = [f"reverse_groups:per_group={per_group},arrival={arrival}: {len(evs)} events", "",
           "| run | queue | length at the first receive | elements compared | of them Ps / Pm / Pl / Pvl "
           "| UMQ searches | mean per search |", "|---|---|---|---|---|---|---|"]
    for name, queues in CLUSTERINGS:
        first, compared, searches = walk(evs, per_group, queues)
        for i, q in enumerate(queues):
            tot = sum(compared[i].values())
            share = " / ".join(f"{100 * compared[i][g] / tot:.0f}%" if tot else "-" for g in GROUPS)
            out.append(f"| {name} | {{{q.replace(' ', ',')}}} | {first[i]} | {tot} | {share} | {searches[i]} "
                       f"| {tot / searches[i]:.1f} |")
        total = sum(sum(c.values()) for c in compared)
        out.append(f"| {name} | all | {sum(first)} | {total} | | {sum(searches)} | "
                   f"{total / sum(searches):.1f} |")
    return "\n".join(out)


def main(argv: Sequence[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--per-group", type=int, default=16)
    ap.add_argument("--arrival", default="sequential", choices=("random", "roundrobin", "sequential"))
    a = ap.parse_args(argv)
    print(table(a.per_group, a.arrival))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
