"""The clustering phase of the kmeans engine (Ghazimirsaeed and Afsahi, HPCS 2017, section 4; docs/clustering.md).

A profile (written by mpimatch-profile) says, for each receiving process, how many
queue elements every peer added and which peers' elements the searches on behalf
of each peer walked over. K-means groups the peers of each receiver into k
clusters by the elements they added (the paper's feature); the cluster file gives
every cluster a queue in the kmeans engine.

The pairwise counts give a cost model: in the kmeans engine a search for peer s
compares only the elements of peers in s's cluster (plus ANY_SOURCE receives, and
an ANY_SOURCE search visits all k queues), so for a clustering the modelled
number of compared elements is

    sum over pairs (s, o, c): c if s, o share a cluster or either is ANY_SOURCE
  + k * (ANY_SOURCE searches of the UMQ)

which equals the single list's count at k = 1. `--k auto` runs K-means for every
candidate k and keeps the smallest k whose modelled cost is within AUTO_SLACK of
the best candidate's: fewer queues (fewer queue heads for ANY_SOURCE searches,
less memory) unless more queues really shorten the walks.
"""
from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .atomic import write_atomic
from .errors import MpimatchError

PROFILE_FORMAT = "mpimatch-profile"
PROFILE_VERSION = 1
CLUSTERS_MAGIC = "mpimatch-clusters"
CLUSTERS_VERSION = 1
MAX_K = 65535            # cluster ids are 16-bit in the engine
AUTO_SLACK = 0.05        # --k auto: within 5% of the best modelled cost
AUTO_MAX_K = 64          # --k auto: candidates 1..min(np, 64)
PER_PEER = ("prq_added", "umq_added", "prq_searches", "prq_traversed",
            "umq_searches", "umq_traversed")


# ------------------------------------------------------------------ profile

def _fail(path: Path, what: str) -> MpimatchError:
    return MpimatchError(f"{path}: {what}")


def _count(path: Path, where: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int) or v < 0:
        raise _fail(path, f"{where}: expected a count (an integer >= 0), got {v!r}")
    return v


def load_profile(path: Path) -> Dict[str, Any]:
    """Read and validate a profile; errors name the file and the field."""
    try:
        text = path.read_text()
    except OSError as err:
        raise _fail(path, f"cannot read: {err.strerror}") from None
    try:
        data = json.loads(text)
    except ValueError as err:
        raise _fail(path, f"not JSON: {err}") from None
    if not isinstance(data, dict) or data.get("format") != PROFILE_FORMAT:
        raise _fail(path, f"not a profile: expected \"format\": \"{PROFILE_FORMAT}\" "
                          "(write one with `mpimatch profile`)")
    if data.get("version") != PROFILE_VERSION:
        raise _fail(path, f"profile version {data.get('version')!r} is not supported "
                          f"(this tool reads version {PROFILE_VERSION})")
    n = data.get("np")
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise _fail(path, f"np: expected an integer >= 1, got {n!r}")
    receivers = data.get("receivers")
    if not isinstance(receivers, list) or not receivers:
        raise _fail(path, "receivers: expected a non-empty list")
    last = -1
    for i, r in enumerate(receivers):
        where = f"receivers[{i}]"
        if not isinstance(r, dict):
            raise _fail(path, f"{where}: expected an object")
        rid = _count(path, f"{where}.receiver", r.get("receiver"))
        if rid <= last:
            raise _fail(path, f"{where}.receiver: {rid} after {last}: receivers must increase")
        last = rid
        for key in PER_PEER:
            v = r.get(key)
            if not isinstance(v, list) or len(v) != n:
                raise _fail(path, f"{where}.{key}: expected a list of np={n} counts")
            for j, x in enumerate(v):
                _count(path, f"{where}.{key}[{j}]", x)
        anys = r.get("any_source")
        if not isinstance(anys, dict):
            raise _fail(path, f"{where}.any_source: expected an object")
        for key in ("prq_added", "umq_searches", "umq_traversed"):
            _count(path, f"{where}.any_source.{key}", anys.get(key))
        pairs = r.get("pairs")
        if not isinstance(pairs, list):
            raise _fail(path, f"{where}.pairs: expected a list of [searcher, owner, count]")
        for j, p in enumerate(pairs):
            if (not isinstance(p, list) or len(p) != 3
                    or not all(isinstance(x, int) and not isinstance(x, bool) for x in p)
                    or not (-1 <= p[0] < n and -1 <= p[1] < n) or p[2] < 0):
                raise _fail(path, f"{where}.pairs[{j}]: expected [searcher, owner, count] with "
                                  f"peers from -1 (ANY_SOURCE) to {n - 1}, got {p!r}")
    return data


# ------------------------------------------------------------------ K-means

def features(receiver: Dict[str, Any]) -> np.ndarray:
    """The paper's feature of each peer: elements it added to the PRQ and to the UMQ."""
    return np.column_stack([np.asarray(receiver["prq_added"], dtype=float),
                            np.asarray(receiver["umq_added"], dtype=float)])


def kmeans(x: np.ndarray, k: int, seed: int = 1, iters: int = 100) -> np.ndarray:
    """Lloyd's algorithm with k-means++ seeding and a fixed seed: the same input
    gives the same labels. Labels are renumbered in order of first appearance
    (peer 0's cluster is 0), and only non-empty clusters get a number."""
    n = len(x)
    k = max(1, min(k, n))
    rng = np.random.default_rng(seed)
    centers = np.empty((k, x.shape[1]))
    centers[0] = x[rng.integers(n)]
    d2 = ((x - centers[0]) ** 2).sum(axis=1)
    for c in range(1, k):
        total = d2.sum()
        i = rng.choice(n, p=d2 / total) if total > 0 else rng.integers(n)
        centers[c] = x[i]
        d2 = np.minimum(d2, ((x - centers[c]) ** 2).sum(axis=1))
    labels = np.zeros(n, dtype=np.int64)
    for it in range(iters):
        dist = ((x[:, None, :] - centers[None, :, :]) ** 2).sum(axis=2)
        new = dist.argmin(axis=1)
        if it and np.array_equal(new, labels):
            break
        labels = new
        for c in range(k):
            members = x[labels == c]
            if len(members):
                centers[c] = members.mean(axis=0)
    _, first, inverse = np.unique(labels, return_index=True, return_inverse=True)
    order = np.argsort(np.argsort(first))   # rank of each cluster's first peer
    return order[inverse].astype(np.int64)


def modelled_cost(receiver: Dict[str, Any], labels: np.ndarray, k: int) -> int:
    """Elements the kmeans engine is modelled to compare on this receiver's stream
    with this clustering (the module docstring gives the model)."""
    pairs = _pairs_array(receiver)
    s, o, c = pairs[:, 0], pairs[:, 1], pairs[:, 2]
    lab = np.append(labels, -1)          # index -1 (ANY_SOURCE) -> its own label
    charged = (s < 0) | (o < 0) | (lab[s] == lab[o])
    return int(k * receiver["any_source"]["umq_searches"] + c[charged].sum())


def _pairs_array(receiver: Dict[str, Any]) -> np.ndarray:
    """The pairs as an (n, 3) int64 array, cached on the receiver."""
    cached = receiver.get("_pairs")
    if cached is None:
        cached = np.asarray(receiver["pairs"], dtype=np.int64).reshape(-1, 3)
        receiver["_pairs"] = cached
    return cached


@dataclass
class Clustering:
    k: int                      # clusters written (non-empty ones)
    k_asked: int
    labels: List[np.ndarray]    # per receiver
    cost: int                   # modelled elements compared, all receivers
    list_cost: int              # the same at k = 1 (single list)


def cluster_profile(data: Dict[str, Any], k: int, seed: int = 1) -> Clustering:
    """K-means with k clusters for every receiver of the profile."""
    receivers = data["receivers"]
    labels = [kmeans(features(r), k, seed) for r in receivers]
    written = max(int(lab.max()) + 1 for lab in labels)
    cost = sum(modelled_cost(r, lab, written) for r, lab in zip(receivers, labels))
    one = [np.zeros(data["np"], dtype=np.int64)] * len(receivers)
    list_cost = sum(modelled_cost(r, lab, 1) for r, lab in zip(receivers, one))
    return Clustering(written, k, labels, cost, list_cost)


def choose_k(data: Dict[str, Any], seed: int = 1,
             candidates: Optional[Sequence[int]] = None) -> List[Clustering]:
    """--k auto: K-means for every candidate k; the first element of the result is
    the choice (smallest k within AUTO_SLACK of the best modelled cost), the rest
    are all candidates in order of k, for the report."""
    top = min(data["np"], AUTO_MAX_K)
    ks = list(candidates) if candidates else list(range(1, top + 1))
    runs = [cluster_profile(data, k, seed) for k in ks]
    best = min(r.cost for r in runs)
    chosen = next(r for r in runs if r.cost <= best * (1 + AUTO_SLACK))
    return [chosen] + runs


# ------------------------------------------------------------------ output

def clusters_file_text(np_: int, k: int, sections: Sequence[Tuple[int, Sequence[int]]],
                       comments: Sequence[str] = ()) -> str:
    """A cluster file (format in docs/clustering.md and src/engines/kmeans_clusters.h):
    sections are (receiver, the cluster of every peer 0..np-1), in increasing receiver order."""
    lines = [f"{CLUSTERS_MAGIC} {CLUSTERS_VERSION}", *(f"# {c}" for c in comments),
             f"np {np_}", f"k {k}"]
    for receiver, labels in sections:
        lines.append(f"receiver {receiver}")
        lines += [f"{p} {int(labels[p])}" for p in range(np_)]
    return "\n".join(lines) + "\n"


def cluster_text(data: Dict[str, Any], c: Clustering, source: str) -> str:
    """The cluster file of a K-means clustering of a profile."""
    return clusters_file_text(
        data["np"], c.k, [(r["receiver"], lab) for r, lab in zip(data["receivers"], c.labels)],
        [f"from {source}: K-means on elements added per peer, k asked {c.k_asked}",
         f"modelled elements compared: {c.cost} (single list: {c.list_cost})"])


def plot_heatmaps(data: Dict[str, Any], out: Path) -> None:
    """Ghazimirsaeed and Afsahi, HPCS 2017, Fig. 6: receivers (rows) by source peers (columns), coloured by the
    elements each peer added and by the mean search depth on its behalf."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    added = np.asarray(data["added"], dtype=float)
    depth = np.asarray(data["mean_traversal"], dtype=float)
    rows = len(added)
    fig, axes = plt.subplots(2, 1, figsize=(max(6.0, min(16.0, data["np"] / 8)),
                                            2.0 + 2 * min(8.0, 0.3 * rows + 1)))
    for ax, m, title in ((axes[0], added, "queue elements added"),
                         (axes[1], depth, "mean elements compared per search")):
        im = ax.imshow(m, aspect="auto", interpolation="nearest", cmap="RdYlGn_r")
        ax.set_title(title)
        ax.set_xlabel("source peer")
        ax.set_ylabel("receiver")
        ax.set_yticks(range(rows), [str(r["receiver"]) for r in data["receivers"]])
        fig.colorbar(im, ax=ax)
    fig.tight_layout()
    suffix = out.suffix.lstrip(".") or "png"
    write_atomic(out, lambda f: fig.savefig(f, format=suffix))
    plt.close(fig)
