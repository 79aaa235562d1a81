"""Bench runs whose cluster file the bench writes before timing (docs/bench.md).

Ghazimirsaeed and Afsahi's (HPCS 2017) Fig. 3 sets hand-made assignments of peer groups to queues (its
Table 1) beside one queue, four queues and K-means. The kmeans engine takes an
assignment as a cluster file (`kmeans:clusters=FILE`, docs/clustering.md), so
a suite item lists such runs as ClusterRun values:

    hand("clustering 3", "Ps Pvl", "Pm Pl")   queue 1: groups Ps and Pvl; queue 2: Pm and Pl
    learned(2)                                K-means, k = 2, on a profile of the item's source
                                              (`mpimatch profile` + `mpimatch cluster --k 2`)

A queue names peers by group (a group of the workload, GROUPS below: the four
groups of reverse_groups), by rank ("3") or by rank range ("1-8"); peers no
queue names go to the first queue. plan() checks the names (check()); before
any run is timed, prepare() writes, per source, the stream's profile and one
cluster file per run (atomically) and sets the run's file parameter to it.
The run's name in the records is its title ("clustering 3: {Ps,Pvl}|{Pm,Pl}",
"kmeans (learned) k=2"), and the record's "clustering" object says which
peers share a queue (for a learned run: what K-means found) and where the
file is.
"""
from __future__ import annotations

import hashlib
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from .. import clustering, tools
from ..atomic import write_atomic
from ..errors import MpimatchError

Peers = Dict[str, range]


@dataclass(frozen=True)
class ClusterRun:
    name: str                                  # "clustering 3"; "kmeans (learned)"
    queues: Tuple[Tuple[str, ...], ...] = ()   # hand-made: the peer groups of each queue
    k: int = 0                                 # learned: the clusters K-means is asked for
    engine: str = "kmeans"
    param: str = "clusters"                    # the engine's file parameter

    @property
    def title(self) -> str:
        """The run's name in tables, plots, JSON and CSV."""
        return f"{self.name} k={self.k}" if self.k else f"{self.name}: {describe(self.queues)}"


def hand(name: str, *queues: str) -> ClusterRun:
    """A hand-made clustering: one string per queue, its groups separated by spaces or commas."""
    return ClusterRun(name, tuple(tuple(t for t in re.split(r"[\s,]+", q) if t) for q in queues))


def learned(k: int, name: str = "kmeans (learned)") -> ClusterRun:
    return ClusterRun(name, k=k)


def describe(queues: Sequence[Sequence[str]]) -> str:
    return "|".join("{" + ",".join(q) + "}" for q in queues)


# ---------------------------------------------------------------- named groups

def _reverse_groups(params: Mapping[str, Any]) -> Peers:
    """tools/gen/gen_reverse.c: ranks 1..g send `small` messages each, g+1..2g `medium`, ..."""
    g = int(params["per_group"])
    return {name: range(1 + i * g, 1 + (i + 1) * g) for i, name in enumerate(("Ps", "Pm", "Pl", "Pvl"))}


# workload name -> its named peer groups, from the workload's checked parameters
GROUPS: Dict[str, Callable[[Mapping[str, Any]], Peers]] = {"reverse_groups": _reverse_groups}


def groups_of(source: Any) -> Peers:
    make = GROUPS.get(source.name) if source.is_workload else None
    return make(source.params) if make else {}


def _peers(token: str, groups: Peers, source: Any, where: str) -> range:
    if token in groups:
        return groups[token]
    m = re.fullmatch(r"(\d+)(?:-(\d+))?", token)
    if m and (m.group(2) is None or int(m.group(2)) >= int(m.group(1))):
        return range(int(m.group(1)), int(m.group(2) or m.group(1)) + 1)
    named = (f"groups of {source.name}: {', '.join(groups)}" if groups
             else f"{source.name} has no named groups")
    raise MpimatchError(f"{where}: '{token}' is neither a peer group ({named}) nor a rank or "
                        f"rank range A-B")


def _assignment(run: ClusterRun, source: Any, where: str) -> Dict[int, int]:
    """Hand-made clustering: peer -> queue for every peer a queue names."""
    groups, queue_of = groups_of(source), {}
    for q, tokens in enumerate(run.queues):
        if not tokens:
            raise MpimatchError(f"{where}: queue {q + 1} names no peers")
        for token in tokens:
            for p in _peers(token, groups, source, where):
                if p in queue_of:
                    raise MpimatchError(f"{where}: peer {p} ('{token}') is in queue "
                                        f"{queue_of[p] + 1} and queue {q + 1}")
                queue_of[p] = q
    return queue_of


def check(run: ClusterRun, source: Any, engines: Sequence[Mapping[str, Any]],
          given: Mapping[str, Any]) -> None:
    """Plan time: the engine has the file parameter, the parameters do not set it, and
    the clustering is either hand-made with valid peer names or learned with k >= 1."""
    where = _where(run, source)
    entry = next((e for e in engines if e.get("name") == run.engine), None)
    if entry is None or not any(p.get("name") == run.param and p.get("type") == "file"
                                for p in entry.get("params") or []):
        raise MpimatchError(f"{where}: engine '{run.engine}' has no file parameter '{run.param}'")
    if run.param in given:
        raise MpimatchError(f"{where}: the bench writes the {run.param} file of this run; "
                            f"do not set {run.engine}:{run.param}")
    if bool(run.queues) == bool(run.k):
        raise MpimatchError(f"{where}: give the queues (hand-made) or k (learned), not "
                            f"{'both' if run.k else 'neither'}")
    if run.k and not 1 <= run.k <= clustering.MAX_K:
        raise MpimatchError(f"{where}: k={run.k} is out of range 1..{clustering.MAX_K}")
    if run.queues:
        _assignment(run, source, where)


# ---------------------------------------------------------------- files

def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=]+", "-", text).strip("-") or "run"


def _tool(name: str, args: Sequence[str], what: str) -> None:
    exe = tools.find_tool(name)
    proc = subprocess.run([str(exe), *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True)
    if proc.returncode != 0:
        raise MpimatchError(f"{what}: {name} failed (exit {proc.returncode}): "
                            f"{proc.stderr.strip()}", proc.returncode)


def _stream_file(source: Any, path: Path) -> Path:
    """The source as a stream file, for the profile."""
    if source.generator == tools.GEN:
        _tool(tools.GEN, [source.spec, "-o", str(path), "--format", "binary"], source.spec)
        return path
    return source.path


def _queues_found(labels: np.ndarray, k: int, groups: Peers) -> List[List[str]]:
    """What each cluster holds: the groups wholly in it, the ranks of split groups in it;
    peers of no group only where a cluster holds nothing else (or there are no groups)."""
    n = len(labels)
    out: List[List[str]] = [[] for _ in range(k)]
    placed = set()
    for name, g in groups.items():
        found = {int(labels[p]) for p in g if p < n}
        if len(found) == 1:
            out[found.pop()].append(name)
            placed.update(g)
    member = {p for g in groups.values() for p in g}
    for c in range(k):
        mine = [p for p in range(n) if int(labels[p]) == c and p not in placed]
        out[c] += _ranges([p for p in mine if p in member])
        if not out[c]:
            out[c] = _ranges(mine)
    return out


def _ranges(ranks: Sequence[int]) -> List[str]:
    """[1, 2, 3, 7] -> ["1-3", "7"]"""
    spans: List[List[int]] = []
    for p in ranks:
        if spans and spans[-1][1] == p - 1:
            spans[-1][1] = p
        else:
            spans.append([p, p])
    return [str(a) if a == b else f"{a}-{b}" for a, b in spans]


def _write(path: Path, text: str) -> None:
    write_atomic(path, text)


def prepare(runs: Sequence[Any], directory: Path, tmp: Path, keep: bool = True) -> None:
    """Write the cluster file of every run with a ClusterRun (run.cluster) into
    directory/<source>/, set run.params[file parameter] and run.clustering. A
    source's profile (mpimatch-profile on its stream) is made once, and its runs'
    clusterings are all checked against it before any file is written. keep=False:
    directory is temporary, the records name no file."""
    by_source: Dict[str, List[Any]] = {}
    for r in runs:
        by_source.setdefault(r.source.spec, []).append(r)
    for i, rs in enumerate(by_source.values()):
        src = rs[0].source
        where = directory / _slug(f"{src.name}-{hashlib.sha1(src.spec.encode()).hexdigest()[:8]}")
        where.mkdir(parents=True, exist_ok=True)
        stream = _stream_file(src, tmp / f"clusters-stream{i}.mms")
        profile = where / "profile.json"
        _tool(tools.PROFILE, [str(stream), "--out", str(profile)], f"profile of {src.spec}")
        data = clustering.load_profile(profile)
        made = [(r, *_labels(r.cluster, src, data)) for r in rs]
        used: Dict[Path, int] = {}
        for r, labels, k, comment in made:
            _write_run(r, data["np"], labels, k, comment, where, used, profile if keep else None)


def _where(cr: ClusterRun, source: Any) -> str:
    return f"{source.spec}: clustering '{cr.name}'"


def _labels(cr: ClusterRun, source: Any, data: Dict[str, Any]) -> Tuple[np.ndarray, int, str]:
    """The cluster of every peer 0..np-1, the number of clusters, a comment for the file."""
    n = data["np"]
    if cr.k:
        c = clustering.cluster_profile(data, min(cr.k, n))
        return c.labels[0], c.k, f"{cr.title}: K-means on the elements each peer added"
    queue_of = _assignment(cr, source, _where(cr, source))
    high = max(queue_of)
    if high >= n:
        raise MpimatchError(f"{_where(cr, source)}: peer {high} is out of range: the stream has "
                            f"np {n} (peers 0..{n - 1})")
    labels = np.array([queue_of.get(p, 0) for p in range(n)], dtype=np.int64)
    return labels, len(cr.queues), f"{cr.title} (peers no queue names are in queue 1)"


def _write_run(run: Any, n: int, labels: np.ndarray, k: int, comment: str, where: Path,
               used: Dict[Path, int], profile: Optional[Path]) -> None:
    """Write the file, point the run at it and set the record's "clustering" (which
    names no file when profile is None: the directory is temporary)."""
    cr: ClusterRun = run.cluster
    path = (where / f"{_slug(cr.title.split(':')[0])}.clusters").resolve()
    used[path] = used.get(path, 0) + 1           # two runs of one name: name-2, name-3, ...
    if used[path] > 1:
        path = path.with_name(f"{path.stem}-{used[path]}.clusters")
    receiver = int(run.params.get("receiver", 0))
    _write(path, clustering.clusters_file_text(n, k, [(receiver, labels)],
                                               [comment, "written by mpimatch bench"]))
    run.params[cr.param] = str(path)
    queues = (_queues_found(labels, k, groups_of(run.source)) if cr.k
              else [list(q) for q in cr.queues])
    run.clustering = {"name": cr.name, "learned": bool(cr.k), "k_asked": cr.k or None, "k": k,
                      "queues": queues, "description": describe(queues),
                      "file": str(path) if profile else None,
                      "profile": str(profile) if profile else None}
