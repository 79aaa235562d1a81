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
          engine_params: Optional[Mapping[str, Dict[str, int]]] = None, **fixed: int) -> List[Item]:
    """One item per value of the workload parameter x, the other parameters fixed."""
    items = []
    for v in values:
        params = {**fixed, x: v}
        spec = workload + ":" + ",".join(f"{k}={p}" for k, p in params.items())
        items.append(Item(spec, engines, dict(engine_params or {}), figure, x))
    return items


TARGET_TAG = "targets"       # items that the speed targets (bench.TARGETS) read
HINTED = ("list", "hash", "nm")
POW2 = [64, 256, 1024, 4096]

QUICK = Suite("quick", "the speed targets and one wildcard workload, all engines; < 1 min", 5, [
    Item("shuffle:n=4096", figure=TARGET_TAG, x="n"),
    Item("burst:n=4096", figure=TARGET_TAG, x="n"),
    Item("any:n=1024", figure="wildcards", x="n"),
])

DEFAULT = Suite("default", "sweeps of shuffle, burst and wildcard receives over the queue "
                           "length, all engines, plus the mixed example stream; < 5 min", 5, [
    *sweep("shuffle", "n", POW2 + [16384], "shuffle"),
    *sweep("burst", "n", POW2 + [16384], "burst"),
    *sweep("any", "n", POW2 + [16384], "wildcards"),
    Item("shuffle:n=4096", figure=TARGET_TAG, x="n"),
    Item("burst:n=4096", figure=TARGET_TAG, x="n"),
    *sweep("shuffle", "n", POW2 + [16384], "bins-size",
           engines=("list", "bins:bins=16", "bins", "bins:bins=4096")),
    Item(StreamFile(REPO_ROOT / "examples" / "mixed-wildcards.mms"), figure="mixed"),
])

# The papers' figures. Sweeps over a workload's own parameters wait for the C
# generators' parameter names; until then an item runs the generator's defaults.
PAPER = Suite("paper", "the papers' figures (needs the C generators, mpimatch-gen)", 5, [
    Item("shuffle:n=4096", figure=TARGET_TAG, x="n"),
    Item("burst:n=4096", figure=TARGET_TAG, x="n"),
    *sweep("shuffle", "n", [2 ** k for k in range(4, 15)], "p002-fig3", engines=HINTED),
    *sweep("burst", "n", [2 ** k for k in range(4, 15)], "p002-fig5", engines=HINTED),
    Item("pingpong", engines=("list", "hash"), figure="p002-fig6"),
    Item("shuffle:n=1024", engines=("hash", "nm"), figure="p002-table1"),
    Item("burst:n=1024", engines=("hash", "nm"), figure="p002-table1"),
    *(Item(w, figure="p000-fig5") for w in ("radix", "nbody", "miniamr", "fds")),
    *(Item(w, figure="p000-s5.4") for w in ("gather", "allreduce", "allgather")),
    Item("reverse", figure="p001-fig2"),
    Item("reverse", figure="p001-fig3"),
    Item("stencil", figure="p003-fig1-4"),
])

SUITES: Dict[str, Suite] = {s.name: s for s in (QUICK, DEFAULT, PAPER)}
