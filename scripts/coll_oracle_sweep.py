#!/usr/bin/env python3
"""Check mpimatch's collective expansions against the installed Open MPI over a grid
(python/mpimatch/oracle.py; docs/collectives.md, "Checking against Open MPI").

For every operation x communicator size x size x root x element size x algorithm
(each of oracle.OMPI_ALGS that mpimatch-coll accepts today, forced in coll/tuned, and
auto: Open MPI's own choice against mpimatch's rule), runs the call under mpirun with
pml monitoring and compares the messages and bytes per (src, dst) pair. Prints one
line per mismatch or error, then a summary table per (operation, algorithm).

  scripts/coll_oracle_sweep.py                        # the whole default grid (long)
  scripts/coll_oracle_sweep.py --ops bcast,reduce --n 2-9 --counts 1,512 --jobs 2
  scripts/coll_oracle_sweep.py --ops ibcast --algs auto

Exit status: 0 everything matched, 1 a mismatch or error, 2 bad arguments or no Open MPI.
"""
from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from mpimatch import oracle, tools  # noqa: E402

BLOCKING = ["barrier", "bcast", "reduce", "allreduce", "gather", "scatter", "allgather",
            "alltoall", "reduce_scatter", "reduce_scatter_block", "scan", "exscan"]
NONBLOCKING = ["i" + o for o in BLOCKING]


def int_list(s: str):
    out = []
    for part in s.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            out += range(int(a), int(b) + 1)
        else:
            out.append(int(part))
    return out


def grid(args, coll):
    for op in args.ops:
        algs = ["auto"] if op.startswith("i") else oracle.algorithms(op, coll)
        if args.algs:
            algs = [a for a in args.algs if a == "auto" or a in algs]
        elif not op.startswith("i"):
            algs = ["auto"] + algs
        for alg in algs:
            for n in args.n:
                roots = sorted({0, n - 1, n // 2}) if op.lstrip("i") in oracle.ROOTED else [0]
                for root in roots[: args.roots]:
                    for elem in args.elem:
                        for count in ([0] if op.endswith("barrier") else args.counts):
                            yield oracle.Call(op, n, count, elem, root, alg)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 1)[1])
    ap.add_argument("--ops", default=",".join(BLOCKING + NONBLOCKING),
                    help="operations, comma separated (default: all)")
    ap.add_argument("--algs", default="", help="only these algorithms (auto allowed)")
    ap.add_argument("--n", default="2-9", help="communicator sizes, e.g. 2-9 or 3,8")
    ap.add_argument("--counts", default="1,100,1000,10000",
                    help="element counts (bytes = count * elem)")
    ap.add_argument("--elem", default="1,8", help="element sizes (1: uint8, 8: double)")
    ap.add_argument("--roots", type=int, default=3,
                    help="rooted operations: how many of the roots 0, n/2, n-1")
    ap.add_argument("--jobs", type=int, default=1, help="mpiruns at once")
    ap.add_argument("--workdir", type=Path, default=oracle.default_workdir())
    ap.add_argument("--verbose", action="store_true", help="print matches too")
    args = ap.parse_args(argv)
    try:
        args.ops = [o for o in args.ops.split(",") if o]
        args.algs = [a for a in args.algs.split(",") if a]
        args.n, args.counts, args.elem = (int_list(args.n), int_list(args.counts),
                                          int_list(args.elem))
    except ValueError as e:
        ap.error(f"bad number list: {e}")
    if any(e not in (1, 8) for e in args.elem):
        ap.error("--elem: 1 or 8")
    why = oracle.unavailable()
    if why:
        print(f"coll_oracle_sweep: {why}", file=sys.stderr)
        return 2
    try:
        coll = tools.find_tool("mpimatch-coll")
        prog = oracle.build(args.workdir)
    except (tools.ToolNotFound, oracle.OracleError) as e:
        print(f"coll_oracle_sweep: {e}", file=sys.stderr)
        return 2
    calls = list(grid(args, coll))
    print(f"{len(calls)} calls", flush=True)
    summary = defaultdict(lambda: [0, 0, 0, set()])  # (op, alg) -> match, bad, err, examples
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for r in pool.map(lambda c: oracle.check(c, prog, coll), calls):
            key = (r.call.op, r.call.alg if r.call.alg != "auto" else f"auto->{r.alg or '?'}")
            s = summary[key]
            if r.status == "match":
                s[0] += 1
                if args.verbose:
                    print(f"match     {r.call.label()}")
                continue
            s[1 if r.status == "MISMATCH" else 2] += 1
            if len(s[3]) < 2:
                s[3].add(f"n={r.call.n} B={r.call.bytes} e={r.call.elem} r={r.call.root}")
            print(f"{r.status:9} {r.call.label()}"
                  f"{' (ours ' + r.alg + (', substitute' if r.substitute else '') + ')' if r.call.alg == 'auto' else ''}")
            for line in r.detail[:6]:
                print(f"          {line}")
            if len(r.detail) > 6:
                print(f"          ... {len(r.detail) - 6} more pair(s)")
            sys.stdout.flush()
    print()
    print(f"{'operation':22} {'algorithm':34} {'match':>6} {'differ':>6} {'error':>6}  first differing")
    bad = 0
    for (op, alg), (m, d, e, ex) in sorted(summary.items()):
        bad += d + e
        print(f"{op:22} {alg:34} {m:6} {d:6} {e:6}  {'; '.join(sorted(ex))}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
