"""Benchmark suites: what `mpimatch bench --suite NAME` runs.

A suite is a list of items. An item is
  - a source: a workload spec ("shuffle:n=4096", built in memory by the
    generators) or a stream file;
  - the engines to run: "all" (every registered engine that accepts the
    source) or a tuple of engine specs ("list", "bins:bins=16");
  - optional parameters per engine ({"bins": {"bins": 64}}), applied to
    every run of that engine in the item;
  - a figure/tag label ("p002-fig3"): records carry it, plots group by it;
  - x: for sweeps, the workload parameter the figure puts on its x axis;
  - clusterings: kmeans runs whose cluster file the bench writes before
    timing, from a peer group -> queue mapping or K-means on a profile of
    the source (clusters.py: hand(), learned()).
  - paths: also time each matching path (mpimatch-replay --paths); the
    records then carry a "paths" object.
  - classes: also time each path split by element class, collective or
    point-to-point, and count each class's searches and compared elements
    (mpimatch-replay --classes); the records then carry a "classes" object.
  - paired: every run also times list in the same process, the two
    engines' repetitions taken in turn (mpimatch-replay --interleave); the
    records carry "paired_list" and the speed targets use it.
`sweep()` makes one item per value of x. Items naming the same source and
engine run are run once; the record carries every label.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Tuple, Union

from .clusters import ClusterRun, hand, learned
from ..tools import REPO_ROOT

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
    clusterings: Tuple[ClusterRun, ...] = ()
    paths: bool = False                     # per-path timing (mpimatch-replay --paths)
    paired: bool = False                    # each run also times list, interleaved (--interleave)
    classes: bool = False                   # per element class (mpimatch-replay --classes)


@dataclass
class Suite:
    name: str
    summary: str
    reps: int
    items: List[Item]
    runs: int = 3               # independent runs of the whole suite (--runs): runs.py


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


def with_paths(items: Iterable[Item]) -> List[Item]:
    """The items, each timing its matching paths (mpimatch-replay --paths)."""
    return [replace(i, paths=True) for i in items]


TARGET_TAG = "targets"       # items that the speed targets (core.TARGETS) read
HINTED = ("list", "hash", "nm")
POW2 = [64, 256, 1024, 4096, 16384]
# The speed targets' workloads (docs/bench.md), in every suite.
# Paired: every engine's run also times list, repetitions taken in turn in one
# process, so a target's ratio compares two engines under the same load.
TARGET_ITEMS = [Item("shuffle:n=4096", figure=TARGET_TAG, x="n", paired=True),
                Item("burst:n=4096", figure=TARGET_TAG, x="n", paired=True)]
# The collide-seeded targets' runs (default suite): keys colliding under the fixed key
# hash, as many rounds as shuffle n=4096, each engine within 2x of its own shuffle time.
COLLIDE_ITEMS = [Item("collide:n=4096,rounds=8,kind=tags", ("list", "hash", "nm"),
                      figure=TARGET_TAG, x="n", paired=True),
                 Item("collide:n=4096,rounds=8,kind=bins", ("list", "bins"),
                      figure=TARGET_TAG, x="n", paired=True)]

# One run by default: CI runs it and must stay under a minute (--runs K for more).
QUICK = Suite("quick", "the speed targets and one wildcard workload, all engines; < 1 min", 5, [
    *TARGET_ITEMS,
    Item("any:n=1024", figure="wildcards", x="n"),
], runs=1)

# MadMPI workloads (every generator has them): 2 rounds keep n=16384 short.
DEFAULT = Suite("default", "shuffle, burst, tags and a wildcard receive swept over the queue "
                           "length, all engines; bins sizes; the mixed example stream, a "
                           "traced LAMMPS rank and a window of HPCC under MPICH; < 5 min a run", 5, [
    *TARGET_ITEMS,
    *COLLIDE_ITEMS,
    *sweep("shuffle", "n", POW2, "shuffle", rounds=2),
    *sweep("burst", "n", POW2, "burst", rounds=2),
    *sweep("tags", "n", POW2, "tags", rounds=2),
    *sweep("any", "n", POW2, "wildcards", rounds=2),
    *sweep("shuffle", "n", POW2, "bins-size", rounds=2,
           engines=("list", "bins:bins=16", "bins", "bins:bins=4096")),
    Item(StreamFile(REPO_ROOT / "examples" / "mixed-wildcards.mms"), figure="mixed"),
    # A traced application (issue 18's auto target covers "every traced application"):
    # rank 0 of LAMMPS lj on 8 ranks (docs/APPLICATIONS.md), 3030 events.
    Item(StreamFile(REPO_ROOT / "examples" / "apps" / "lammps-lj-np8-rank0.mms"), figure="traced"),
    # and a window of HPCC under MPICH, rank 1 (80% MPI_Iprobe, where auto's probe once cost
    # 1.09-1.12x list's): 4000 events cut where both queues are empty (scripts/stream_window.py)
    Item(StreamFile(REPO_ROOT / "examples" / "apps" / "hpcc-mpich-np8-rank1-window.mms"),
         figure="traced"),
])

# The papers' figures, with the C generators' workloads (docs/workloads.md,
# docs/collectives.md). docs/RESULTS.md sets them beside the papers' numbers
# (scripts/results_tables.py).
PAPER_ENGINES = ("list", "pnp", "col+pnp", "col+ll", "ll+pnp")

# Ghazimirsaeed and Afsahi, HPCS 2017 fig. 3 (sec. 3, Table 1): the four groups Ps, Pm, Pl, Pvl send 2, 10,
# 50, 100 messages each to P0, which receives from the bottom of the queue. The
# paper does not give the group sizes: equal groups of 16 (64 senders, Fig. 2's
# n = 64), nor how the senders' messages interleave: random (p001-fig3) and one
# sender after the other (p001-fig3-seq). One queue (list; and the kmeans engine
# with one queue), Table 1's seven two-queue clusterings in the paper's order,
# four queues (one per group), what K-means learns from a profile (k = 2, 4),
# and a queue per peer (rank).
# Every run is timed path by path too: a receive that takes an unexpected message
# (success_from_recv) is the paper's measure, "the time P0 spends in searching each one
# of the elements in the queue", averaged over the receives.
def p001_fig3(figure: str, arrival: str) -> List[Item]:
    spec = f"reverse_groups:per_group=16,arrival={arrival}"
    return [Item(spec, ("list",), figure=figure, paths=True, clusterings=(
        hand("1 queue (kmeans engine)", "Ps Pm Pl Pvl"),
        hand("clustering 1", "Ps Pm", "Pl Pvl"),
        hand("clustering 2", "Ps Pl", "Pm Pvl"),
        hand("clustering 3", "Ps Pvl", "Pm Pl"),
        hand("clustering 4", "Ps Pm Pl", "Pvl"),
        hand("clustering 5", "Pm Pl Pvl", "Ps"),
        hand("clustering 6", "Ps Pm Pvl", "Pl"),
        hand("clustering 7", "Ps Pl Pvl", "Pm"),
        hand("4 queues", "Ps", "Pm", "Pl", "Pvl"),
        learned(2), learned(4))),
        Item(spec, ("rank",), figure=figure, paths=True)]


# Ghazimirsaeed and Afsahi, HPCS 2017 fig. 2 as the paper defines it (sec. 3): P1..Pn-1 "first
# send m data each" to P0, which dequeues "from the bottom of the queue"; with two queues,
# "half of the incoming messages at the end of the queue" go to the second one; the measure
# is the time of each UMQ search, averaged. Senders one after the other (sequential), so the
# last half of the queue is the last half of the senders: an even number of them (16, 64,
# 256; np one more) makes it exactly half. Timed per path: success_from_recv is the search.
def p001_fig2_paper(m: int) -> List[Item]:
    items = []
    for senders in (16, 64, 256):
        half = senders // 2
        items.append(Item(f"reverse:n={senders + 1},m={m},arrival=sequential,rounds=2", ("list",),
                          figure=f"p001-fig2-paper-m{m}", x="n", paths=True, clusterings=(
                              hand("2 queues (last half of the queue)", f"1-{half}",
                                   f"{half + 1}-{senders}"),)))
    return items


PROCS = [1024, 2048, 4096]
PAPER = Suite("paper", "the papers' figures (needs the C generators, mpimatch-gen); < 5 min a run", 5, [
    *TARGET_ITEMS,
    # the MPC-MPI hints paper: shuffle (fig. 3) and burst (fig. 5a) against N; list, hash, nm
    *sweep("shuffle", "n", [2 ** k for k in range(4, 15)], "p002-fig3", engines=HINTED, rounds=2),
    *sweep("burst", "n", [2 ** k for k in range(4, 15)], "p002-fig5", engines=HINTED, rounds=2),
    # the MPC-MPI hints paper's fig. 6: preposted ping-pong, 0..200 dead receives
    *sweep("pingpong", "n", [0, 25, 50, 100, 150, 200], "p002-fig6", engines=("list", "hash")),
    # the MPC-MPI hints paper's table I: one matching operation on each of the four paths, hash
    # against NewMadeleine's four tables (nm), on the paper's random fully
    # specified keys (0 <= comm, tag <= 100, 0 <= source <= 500); receives first
    # and messages first in alternate rounds, timed path by path (--paths)
    Item("random_keys:n=1024,rounds=8", ("hash", "nm"), figure="p002-table1", paths=True),
    # Ghazimirsaeed et al., ParCo 2019 fig. 5 (sec. 5.2): gather, allreduce, iallgather at 1024/2048/4096
    # processes, COL+PNP with k = 1; rank 0's PRQs must reach floor(sqrt(n)).
    *sweep("gather", "n", PROCS, "p000-fig5a", engines=("list", "col+pnp"),
           engine_params={"col+pnp": {"kc": 1, "kp": 0}}, alg="direct", calls=20),
    *sweep("allreduce", "n", PROCS, "p000-fig5b", engines=("list", "col+pnp"),
           engine_params={"col+pnp": {"kc": 1, "kp": 0}}, calls=50),
    *sweep("allgather", "n", PROCS, "p000-fig5c", engines=("list", "col+pnp"),
           engine_params={"col+pnp": {"kc": 1, "kp": 0}}, nonblocking=1, calls=10),
    # Ghazimirsaeed et al., ParCo 2019 figs. 7-8 (sec. 5.3): the four approaches on the application
    # profiles (synthetic), k_C = k_P = 8 (the engines' defaults); fig. 9
    # (sec. 5.4): the queues they open; FDS rank 0 at 1024 processes: 8*sqrt(1024)
    # Timed per element class (--classes): the paper's figs. 6-8 give the search time of
    # collective and of point-to-point elements apart; Table 2 divides the engines'
    # overhead (adaptive work) by the search time. miniamr at its defaults is the fitted
    # profile (allreduces on MVAPICH2's k-nomial reduce_p2p, mv2_radix=120); the real-code
    # model, one receive per step, is miniamr:mv2_radix=0 (docs/workloads.md).
    *(Item(w, PAPER_ENGINES, figure="p000-fig7-8", classes=True)
      for w in ("radix", "nbody", "miniamr", "fds")),
    Item("fds:n=1024", PAPER_ENGINES, figure="p000-fig9", classes=True),
    # Ghazimirsaeed and Afsahi, HPCS 2017 fig. 2: reverse search, M = 10 and 50 messages per sender, one
    # queue (list) against two (kmeans k=2), per peer (rank); fig. 3 below
    *sweep("reverse", "n", [16, 64, 256], "p001-fig2-m10",
           engines=("list", "kmeans:k=2", "kmeans:k=4", "rank"), m=10, rounds=2),
    *sweep("reverse", "n", [16, 64, 256], "p001-fig2-m50",
           engines=("list", "kmeans:k=2", "kmeans:k=4", "rank"), m=50, rounds=2),
    *p001_fig2_paper(10), *p001_fig2_paper(50),
    *p001_fig3("p001-fig3", "random"), *p001_fig3("p001-fig3-seq", "sequential"),
    # Schonbein et al., Euro-Par 2018 figs. 1-4: the four thread decompositions; the paper measures
    # the MPICH-style list's search depth (list), hash shows the constant case.
    # Timed path by path: a phase's success-from-send segment is the time to
    # drain the M_t preposted receives (figs. 1b-4b).
    *with_paths(i for m, t in ((8, [16, 64, 256]), (26, [16, 64, 256]), (512, [8, 16, 32, 64]))
                for i in sweep("stencil_naive", "threads", t, f"p003-fig1-m{m}",
                               engines=("list", "hash"), msgs=m, phases=2)),
    *with_paths(Item(f"stencil2d:lx={x},ly={x},points={p}", ("list", "hash"),
                     figure=f"p003-fig2-{p}", x="lx")
                for p in ("5pt", "9pt") for x in (2, 4, 8, 16, 32)),
    *with_paths(Item(f"stencil3d:lx={x},ly={x},lz={z},points={p}", ("list", "hash"),
                     figure=f"p003-fig3-{p}")
                for p in ("7pt", "27pt") for x, z in ((2, 2), (4, 4), (8, 4))),
    *with_paths(i for p in ("7pt", "27pt")
                for i in sweep("stencil_linear", "lz", [32, 64, 128, 256], f"p003-fig4-{p}",
                               engines=("list", "hash"), points=p)),
])

SUITES: Dict[str, Suite] = {s.name: s for s in (QUICK, DEFAULT, PAPER)}
