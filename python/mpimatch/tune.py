"""`mpimatch tune`: measure where the provider's local protocols cross over on this
machine and write the file the provider reads (FI_MPIMATCH_TUNING; docs/provider.md
#thresholds). The MVAPICH channel study picks its thresholds by hand from latency and
bandwidth plots; here they are picked by measurement, by the rule below.

Half round trips (mpimatch-pollbench latency, the shared-memory partner of rank 0, with
the network channel active as in the polling suite) for each size under each local
protocol, forced: eager shared memory (one ring cell, to 4032 bytes), the segmented copy
through the ring, and process_vm_readv. Passes over the three protocols in turn; per size
and protocol the least of all samples (each sample a mean over many round trips): on a
shared machine the neighbours only ever add time, so the least sample is the one they
disturbed least, and a single slow sample cannot move a threshold (the medians are shown
beside it and written into the file's comments).

  shm_eager  the largest measured size at which eager is at least as fast as the better
             rendezvous (0 if it never is): eager's lead shrinks as the size grows (one
             copy into the cell, one out, against a fixed handshake), so its last win is
             the crossover, and a noisy loss at a small size does not cut it short
  cma_min    the smallest measured size from which process_vm_readv is at least as fast as
             the segmented copy at every larger measured size (never: 2^40)
"""
from __future__ import annotations

import argparse
import datetime
import socket
import sys
import time
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

from rich.console import Console
from rich.table import Table

from . import tools
from .atomic import check_writable, write_atomic
from .bench import polling
from .command import add_command
from .errors import EXIT_FAILURE, MpimatchError

EAGER_SIZES = (64, 256, 1024, 2048, 3072, 4032)
LARGE_SIZES = (4096, 8192, 16384, 32768, 65536, 262144, 1 << 20)
QUICK_EAGER = (256, 2048, 4032)
QUICK_LARGE = (8192, 65536, 1 << 20)
NEVER = 1 << 40
DEFAULT_FILE = "mpimatch-tuning.conf"


def tune_plan(quick: bool, passes: Optional[int]) -> polling.Plan:
    eager = QUICK_EAGER if quick else EAGER_SIZES
    large = QUICK_LARGE if quick else LARGE_SIZES
    plan = polling.Plan("tune-quick" if quick else "tune", passes or (1 if quick else 3))
    for ch in ("eager", "segmented", "cma"):
        sizes = eager if ch == "eager" else (*eager, *large)
        plan.configs.append(polling.Config(ch, polling.CHANNELS[ch],
                                           polling.channel_specs(ch, sizes, 3, bandwidth=False),
                                           "channels"))
    return plan


def latencies(records: Sequence[Mapping[str, Any]], stat: str = "min") -> Dict[str, Dict[int, float]]:
    """protocol -> size -> half round trip (ns): the least sample ("min") or the "median"."""
    out: Dict[str, Dict[int, float]] = {}
    for r in records:
        if r["spec"].startswith("latency:") and r[stat] is not None:
            size = int(r["spec"].split("size=")[1].split(",")[0])
            out.setdefault(r["config"], {})[size] = r[stat]
    return out


def crossovers(lat: Mapping[str, Mapping[int, float]]) -> Tuple[int, int]:
    """(shm_eager, cma_min) by the rule of the module's docstring."""
    eager, seg, cma = lat.get("eager", {}), lat.get("segmented", {}), lat.get("cma", {})
    shm_eager = 0
    for s in sorted(eager):
        rdv = [x for x in (seg.get(s), cma.get(s)) if x is not None]
        if not rdv or eager[s] <= min(rdv):
            shm_eager = s
    both = sorted(set(seg) & set(cma))
    cma_min = NEVER
    for s in reversed(both):
        if cma[s] > seg[s]:
            break
        cma_min = s
    return shm_eager, cma_min


def tuning_text(shm_eager: int, cma_min: int, command: str, passes: int,
                lat: Mapping[str, Mapping[int, float]], med: Mapping[str, Mapping[int, float]]) -> str:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    lines = [f"# written by `{command}` on {socket.gethostname()}, {when}",
             f"# {passes} pass(es); half round trips in ns per size, least sample / median:"]
    for proto in ("eager", "segmented", "cma"):
        pts, mids = lat.get(proto, {}), med.get(proto, {})
        lines.append(f"#   {proto}: " + ", ".join(f"{s}={pts[s]:.0f}/{mids.get(s, 0):.0f}"
                                                  for s in sorted(pts)))
    lines += ["# FI_MPIMATCH_TUNING=<this file> makes these the provider's defaults;",
              "# FI_MPIMATCH_SHM_EAGER / FI_MPIMATCH_CMA_MIN in the environment still win.",
              f"shm_eager = {shm_eager}", f"cma_min = {cma_min}", ""]
    return "\n".join(lines)


def cmd_tune(args: argparse.Namespace, out: Console) -> int:
    if args.passes is not None and args.passes < 1:
        raise MpimatchError("--passes must be >= 1")
    target = Path(args.out)
    check_writable(target)
    tools.find_tool(polling.PROGRAM)
    stack = polling.provider()
    plan = tune_plan(args.quick, args.passes)
    t0 = time.perf_counter()
    log = None if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    records, failures = polling.execute(plan, stack, log)
    if failures:
        raise MpimatchError(f"{len(failures)} run(s) failed, nothing written: "
                            + "; ".join(f"{f['config']}: {f['reason']}" for f in failures),
                            EXIT_FAILURE)
    lat, med = latencies(records), latencies(records, "median")
    shm_eager, cma_min = crossovers(lat)
    command = "mpimatch " + " ".join(getattr(args, "argv", sys.argv[1:]))
    write_atomic(target, tuning_text(shm_eager, cma_min, command, plan.passes, lat, med))
    t = Table(title="half round trip per size and local protocol: least sample (median)",
              title_justify="left")
    for h in ("size", "eager", "segmented", "process_vm_readv"):
        t.add_column(h, justify="right")
    for s in sorted({s for pts in lat.values() for s in pts}):
        t.add_row(str(s), *(f"{polling._us(lat.get(p, {}).get(s))} ({polling._us(med.get(p, {}).get(s))})"
                            for p in ("eager", "segmented", "cma")))
    out.print(t)
    never = " (never)" if cma_min == NEVER else ""
    out.print(f"shm_eager = {shm_eager}, cma_min = {cma_min}{never}: written to {target} in "
              f"{time.perf_counter() - t0:.0f} s. Use it with FI_MPIMATCH_TUNING={target.resolve()}",
              highlight=False)
    return 0


def register(sub: Any) -> None:
    p = add_command(sub, "tune", cmd_tune,
                    help="measure the provider's thresholds on this machine and write them to a "
                         "file (FI_MPIMATCH_TUNING)",
                    description="Ping-pong every size under each local protocol of the mpimatch "
                                "provider (eager shared memory, segmented copy, process_vm_readv), "
                                "at np 3 with the network channel active, and write the crossovers "
                                "as shm_eager and cma_min to FILE (docs/provider.md#thresholds).")
    p.add_argument("--out", default=DEFAULT_FILE, metavar="FILE",
                   help=f"the tuning file to write (default: {DEFAULT_FILE})")
    p.add_argument("--passes", type=int, metavar="N",
                   help="passes over the protocols (default 3; quick 1)")
    p.add_argument("--quick", action="store_true", help="fewer sizes, one pass (about 20 s)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
