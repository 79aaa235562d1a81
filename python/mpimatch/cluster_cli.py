"""`mpimatch profile` and `mpimatch cluster`: the two phases before the kmeans engine
(docs/clustering.md)."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any, List

from rich.console import Console
from rich.table import Table
from rich.text import Text

from . import tools
from .command import add_command
from .errors import MpimatchError
from .replay import run_tool


def register(sub: Any) -> None:
    p = add_command(
        sub, "profile", cmd_profile,
        help="profile streams for the kmeans engine (per-peer queue counts)",
        description="Replay each STREAM (one receiving process each) with single-list "
                    "matching and write the profile the kmeans engine's clustering needs: per "
                    "receiver and peer, the queue elements added, the searches and the "
                    "elements they compared, and pairwise counts (mpimatch-profile). --plot "
                    "draws the per-peer counts as heat maps (Ghazimirsaeed and Afsahi, HPCS 2017, Fig. 6).")
    p.add_argument("streams", nargs="+", metavar="STREAM", help="event stream(s)")
    p.add_argument("--out", required=True, metavar="FILE", help="profile to write (JSON)")
    p.add_argument("--np", type=int, metavar="N", help="number of processes (overrides the streams')")
    p.add_argument("--receiver", type=int, metavar="R",
                   help="number of the first receiver (default 0); streams are R, R+1, ...")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the heat maps to FILE.png")

    p = add_command(
        sub, "cluster", cmd_cluster,
        help="cluster a profile's peers with K-means into a cluster file",
        description="Group each receiver's peers into k clusters by the elements they added "
                    "to the queues (K-means, k-means++ seeding, fixed seed) and write the "
                    "cluster file for `--engine kmeans --param kmeans:clusters=FILE`. "
                    "--k auto picks k with a cost model built from the profile's pairwise "
                    "counts (docs/clustering.md).")
    p.add_argument("profile", metavar="PROFILE", help="profile from `mpimatch profile`")
    p.add_argument("--k", required=True, metavar="K|auto",
                   help="number of clusters (1..np), or 'auto'")
    p.add_argument("--out", required=True, metavar="FILE", help="cluster file to write")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="K-means seed (default 1; the same seed gives the same file)")


def cmd_profile(args: argparse.Namespace, out: Console) -> int:
    if args.plot and args.out == "-":
        raise MpimatchError("--plot needs the profile in a file: give --out FILE, not '-'")
    argv: List[str] = [*args.streams, "--out", args.out]
    if args.np is not None:
        argv += ["--np", str(args.np)]
    if args.receiver is not None:
        argv += ["--receiver", str(args.receiver)]
    code = run_tool(tools.PROFILE, argv)
    if code != 0 or args.out == "-":
        return code
    from .clustering import load_profile, plot_heatmaps
    data = load_profile(Path(args.out))
    out.print(Text(f"wrote {args.out}: np {data['np']}, {len(data['receivers'])} receiver(s)"))
    if args.plot:
        plot_heatmaps(data, Path(args.plot))
        out.print(Text(f"wrote {args.plot}"))
    return 0


def cmd_cluster(args: argparse.Namespace, out: Console) -> int:
    from .clustering import (AUTO_SLACK, MAX_K, choose_k, cluster_profile, cluster_text,
                             load_profile, write_atomic)
    path = Path(args.profile)
    data = load_profile(path)
    top = min(data["np"], MAX_K)
    if args.k == "auto":
        runs = choose_k(data, args.seed)
        chosen = runs[0]
        table = Table(title=Text(f"--k auto on {path.name}: modelled elements compared "
                                 f"(smallest k within {AUTO_SLACK:.0%} of the best)"),
                      title_justify="left")
        for col in ("k asked", "k", "modelled cost", "vs single list"):
            table.add_column(col, justify="right")
        for r in runs[1:]:
            style = "bold" if r is chosen else None
            table.add_row(str(r.k_asked), str(r.k), str(r.cost),
                          f"{r.cost / r.list_cost:.3f}" if r.list_cost else "-", style=style)
        out.print(table)
    else:
        try:
            k = int(args.k)
        except ValueError:
            k = 0
        if not 1 <= k <= top:
            raise MpimatchError(f"--k {args.k}: expected an integer from 1 to {top} "
                                f"(np {data['np']}) or 'auto'")
        chosen = cluster_profile(data, k, args.seed)
    text = cluster_text(data, chosen, path.name)
    write_atomic(Path(args.out), text)
    ratio = f"{chosen.cost / chosen.list_cost:.3f}" if chosen.list_cost else "-"
    out.print(Text(f"wrote {args.out}: k {chosen.k} (asked {chosen.k_asked}), modelled elements "
                   f"compared {chosen.cost} = {ratio} of the single list's"))
    return 0
