"""Interim workload generators in Python, used by `mpimatch bench` only when the
C generators (`mpimatch-gen`, `mpimatch-replay --workload`) are not built.

They write text streams (docs/stream-format.md) for the MadMPI request
benchmarks with the C generators' names, parameters and shapes
(docs/workloads.md), so a suite means the same workloads whichever side
builds them. The permutation comes from Python's generator, not splitmix64:
the same spec gives the same stream here, but not the C tool's stream, so the
records say which built it. Seen from the server, one round is N receives
from rank 1, then the peer's N messages; the permutation is drawn once and
reused in every round.

  burst     receives and messages all tag 0: every match at the queue head
  tags      tags 0..N-1, messages in the same order
  shuffle   tags 0..N-1, messages in a random permutation (paper 002 fig. 3)
  any       first an ANY_SOURCE receive with tag N+1, then as shuffle, then
            one message with tag N+1 that completes the wildcard receive
"""
from __future__ import annotations

import random
from pathlib import Path
from typing import Callable, Dict, Iterable, List, Mapping, Tuple

from .model import HEADER

PARAMS = [{"name": "n", "doc": "requests per round", "default": 1024, "min": 1, "max": 1 << 20},
          {"name": "rounds", "doc": "rounds; each reuses the same tags", "default": 8,
           "min": 1, "max": 65536}]


def _entry(name: str, summary: str, origin: str) -> Dict:
    return {"name": name, "summary": summary, "origin": origin, "synthetic": False,
            "params": PARAMS}


CATALOGUE: List[Dict] = [
    _entry("burst", "N receives and N messages, all tag 0", "MadMPI reqs_burst; paper 002, fig. 5a"),
    _entry("tags", "tags 0..N-1, messages in posting order", "MadMPI request benchmarks"),
    _entry("shuffle", "tags 0..N-1, messages in a random permutation",
           "MadMPI reqs_shuffle; paper 002, figure 3"),
    _entry("any", "an ANY_SOURCE receive first, then as shuffle", "MadMPI request benchmarks"),
]

Round = Tuple[List[str], List[str]]       # receives, messages: "src tag [attrs]"


def _rounds(p: Mapping[str, int], one: Callable[[int, List[int]], Round], note: str) -> str:
    n = p["n"]
    perm = list(range(n))
    random.Random(p["seed"]).shuffle(perm)
    lines = [HEADER, "# np=2", f"# {note} (Python generator)"]
    ident = 1
    for _ in range(p["rounds"]):
        recvs, msgs = one(n, perm)
        for kind, items in (("R", recvs), ("M", msgs)):
            for item in items:
                lines.append(f"{kind} {ident} 0 {item}")
                ident += 1
    return "\n".join(lines) + "\n"


def _one(tags: Iterable[int]) -> List[str]:
    return [f"1 {t} bytes=1" for t in tags]


GENERATORS: Dict[str, Callable[[int, List[int]], Round]] = {
    "burst": lambda n, perm: (_one([0] * n), _one([0] * n)),
    "tags": lambda n, perm: (_one(range(n)), _one(range(n))),
    "shuffle": lambda n, perm: (_one(range(n)), _one(perm)),
    # The wildcard receive and the zero-byte message that completes it.
    "any": lambda n, perm: ([f"* {n + 1}", *_one(range(n))], [*_one(perm), f"1 {n + 1}"]),
}


def write(name: str, params: Mapping[str, int], path: Path) -> Path:
    """Write the stream of the checked workload (name, params) to path."""
    note = f"{name} " + " ".join(f"{k}={v}" for k, v in params.items())
    path.write_text(_rounds(params, GENERATORS[name], note))
    return path
