"""Interim workload generators in Python, used by `mpimatch bench` when the C
generators (`mpimatch-gen`, `mpimatch-replay --workload`) are not built.

They write text streams (docs/stream-format.md) for three of the paper 002
micro-benchmarks, with the parameter names the C generators use, so a suite
names its workloads the same way whichever side builds them. Their streams are
seeded with Python's generator, not the C splitmix64: the same spec gives the
same stream here, but not the C tool's stream, so records say which built it.

  shuffle   n receives from rank 1 with tags 0..n-1 in order, then the n
            messages in a random tag order (MadMPI shuffle; paper 002 fig. 3)
  burst     the same, messages in the order of the receives: every match is
            at the head of the queue (MadMPI burst; paper 002 fig. 5)
  any       n receives over np-1 peers, every other one ANY_SOURCE, then the
            messages in random order: engines that need no-wildcard hints
            cannot run it
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable, Dict, List, Mapping

from .model import HEADER

N_PARAM = {"name": "n", "doc": "receives posted (= messages sent)", "default": 1024,
           "min": 1, "max": 1 << 22}

CATALOGUE: List[Dict] = [
    {"name": "shuffle", "summary": "n receives in tag order, then the messages in random tag order",
     "origin": "paper 002 fig. 3 (MadMPI shuffle)", "synthetic": False, "params": [N_PARAM]},
    {"name": "burst", "summary": "n receives, then the n messages in the same order (head matches)",
     "origin": "paper 002 fig. 5 (MadMPI burst)", "synthetic": False, "params": [N_PARAM]},
    {"name": "any", "summary": "n receives, half ANY_SOURCE, then the messages in random order",
     "origin": "wildcard receives (paper 001 PRQ_ANY)", "synthetic": False,
     "params": [N_PARAM, {"name": "np", "doc": "processes (np-1 senders)", "default": 8,
                          "min": 2, "max": 1 << 20}]},
]


def _lines(np: int, recvs: List[str], msgs: List[str], note: str) -> str:
    head = [HEADER, f"# np={np}", f"# {note}"]
    body = [f"R {i} 0 {r}" for i, r in enumerate(recvs)]
    body += [f"M {len(recvs) + i} 0 {m} bytes=1" for i, m in enumerate(msgs)]
    return "\n".join(head + body) + "\n"


def shuffle(p: Mapping[str, int]) -> str:
    n, rng = p["n"], random.Random(p["seed"])
    tags = list(range(n))
    rng.shuffle(tags)
    return _lines(2, [f"1 {t}" for t in range(n)], [f"1 {t}" for t in tags],
                  f"shuffle n={n} seed={p['seed']} (Python generator)")


def burst(p: Mapping[str, int]) -> str:
    n = p["n"]
    return _lines(2, [f"1 {t}" for t in range(n)], [f"1 {t}" for t in range(n)],
                  f"burst n={n} (Python generator)")


def any_source(p: Mapping[str, int]) -> str:
    n, np, rng = p["n"], p["np"], random.Random(p["seed"])
    peers = np - 1
    pairs = [(1 + i % peers, i // peers) for i in range(n)]          # (source, tag)
    recvs = [f"{'*' if i % 2 == 0 else s} {t}" for i, (s, t) in enumerate(pairs)]
    order = list(pairs)
    rng.shuffle(order)
    return _lines(np, recvs, [f"{s} {t}" for s, t in order],
                  f"any n={n} np={np} seed={p['seed']} (Python generator)")


GENERATORS: Dict[str, Callable[[Mapping[str, int]], str]] = {
    "shuffle": shuffle, "burst": burst, "any": any_source}


def write(name: str, params: Mapping[str, int], path: Path) -> Path:
    """Write the stream of the checked workload (name, params) to path."""
    path.write_text(GENERATORS[name](params))
    return path
