"""Benchmark suites: what `mpimatch bench --suite NAME` runs.

A suite is a list of items. An item is
  - a source: a workload spec ("shuffle:n=4096", built in memory by the
    generators) or a stream file;
  - the engines to run: "all" (every registered engine that accepts the
    source) or a tuple of engine specs ("list", "bins:bins=16");
  - optional parameters per engine ({"bins": {"bins": 64}}), applied to
    every run of that engine in the item;
  - a figure/tag label ("p002-fig3"): records carry it, plots group by it;
  - x: for sweeps, the workload parameter the figure puts on its x axis.
`sweep()` makes one item per value of x. Items naming the same source and
engine run are run once; the record carries every label.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .tools import REPO_ROOT

Engines = Union[str, Tuple[str, ...]]


@dataclass(frozen=True)
class StreamFile:
    path: Path


@dataclass
class Item:
    source: Union[str, StreamFile]          # workload spec, or a stream file
    engines: Engines = "all"
    engine_params: Dict[str, Dict[str, int]] = field(default_factory=dict)
    figure: str = ""
    x: Optional[str] = None


@dataclass
class Suite:
    name: str
    summary: str
    reps: int
    items: List[Item]


def sweep(workload: str, x: str, values: Sequence[int], figure: str, engines: Engines = "all",
          engine_params: Optional[Mapping[str, Dict[str, int]]] = None,
          **fixed: Union[int, str]) -> List[Item]:
    """One item per value of the workload parameter x, the other parameters fixed."""
    items = []
    for v in values:
        params = {**fixed, x: v}
        spec = workload + ":" + ",".join(f"{k}={p}" for k, p in params.items())
        items.append(Item(spec, engines, dict(engine_params or {}), figure, x))
    return items


TARGET_TAG = "targets"       # items that the speed targets (bench.TARGETS) read
HINTED = ("list", "hash", "nm")
POW2 = [64, 256, 1024, 4096, 16384]
# The speed targets' workloads (docs/bench.md), in every suite.
TARGET_ITEMS = [Item("shuffle:n=4096", figure=TARGET_TAG, x="n"),
                Item("burst:n=4096", figure=TARGET_TAG, x="n")]

QUICK = Suite("quick", "the speed targets and one wildcard workload, all engines; < 1 min", 5, [
    *TARGET_ITEMS,
    Item("any:n=1024", figure="wildcards", x="n"),
])

# MadMPI workloads (every generator has them): 2 rounds keep n=16384 short.
DEFAULT = Suite("default", "shuffle, burst, tags and a wildcard receive swept over the queue "
                           "length, all engines; bins sizes; the mixed example stream; < 5 min", 5, [
    *TARGET_ITEMS,
    *sweep("shuffle", "n", POW2, "shuffle", rounds=2),
    *sweep("burst", "n", POW2, "burst", rounds=2),
    *sweep("tags", "n", POW2, "tags", rounds=2),
    *sweep("any", "n", POW2, "wildcards", rounds=2),
    *sweep("shuffle", "n", POW2, "bins-size", rounds=2,
           engines=("list", "bins:bins=16", "bins", "bins:bins=4096")),
    Item(StreamFile(REPO_ROOT / "examples" / "mixed-wildcards.mms"), figure="mixed"),
])

# The papers' figures, with the C generators' workloads (docs/workloads.md,
# docs/collectives.md). Provisional: the lead finalises the contents.
PAPER = Suite("paper", "the papers' figures (needs the C generators, mpimatch-gen)", 5, [
    *TARGET_ITEMS,
    # paper 002: shuffle (fig. 3) and burst (fig. 5a) against N; list, hash, nm
    *sweep("shuffle", "n", [2 ** k for k in range(4, 15)], "p002-fig3", engines=HINTED, rounds=2),
    *sweep("burst", "n", [2 ** k for k in range(4, 15)], "p002-fig5", engines=HINTED, rounds=2),
    # paper 002 fig. 6: preposted ping-pong, 0..200 dead receives
    *sweep("pingpong", "n", [0, 25, 50, 100, 150, 200], "p002-fig6", engines=("list", "hash")),
    # paper 002 table I: hash against NewMadeleine's four tables on each path
    *(Item(w, ("hash", "nm"), figure="p002-table1") for w in ("shuffle", "burst", "tags")),
    # paper 000 fig. 5 and section 5.4: application profiles (synthetic), collectives
    *(Item(w, figure="p000-fig5") for w in ("radix", "nbody", "miniamr", "fds")),
    *(Item(f"{c}:alg={a}", figure="p000-s5.4") for c, a in (
        ("gather", "linear"), ("gather", "binomial"), ("allreduce", "recursive_doubling"),
        ("allreduce", "ring"), ("allgather", "ring"), ("allgather", "bruck"))),
    Item("allgather:nonblocking=1", figure="p000-s5.4"),
    # paper 001 fig. 2: reverse search, M = 10 and 50 messages per sender; fig. 3: groups
    *sweep("reverse", "n", [16, 64, 256], "p001-fig2-m10", m=10, rounds=2),
    *sweep("reverse", "n", [16, 64, 256], "p001-fig2-m50", m=50, rounds=2),
    Item("reverse_groups", figure="p001-fig3"),
    # paper 003 figs. 1-4: the four thread decompositions
    *sweep("stencil_naive", "threads", [8, 16, 32, 64, 128], "p003-fig1"),
    *(Item(f"stencil2d:points={p}", figure="p003-fig2") for p in ("5pt", "9pt")),
    *(Item(f"stencil3d:points={p}", figure="p003-fig3") for p in ("7pt", "27pt")),
    *(Item(f"stencil3d:lx=8,ly=8,lz=4,points={p}", figure="p003-fig3") for p in ("7pt", "27pt")),
    *(i for p in ("7pt", "27pt")
      for i in sweep("stencil_linear", "lz", [32, 64, 128, 256], f"p003-fig4-{p}", points=p)),
])

SUITES: Dict[str, Suite] = {s.name: s for s in (QUICK, DEFAULT, PAPER)}
