#!/usr/bin/env python3
"""Calibrate the stencil generators' scheduling model on real threads (docs/workloads.md).

The generators interleave the threads of Schonbein et al. (Euro-Par 2018) with a seeded random
scheduler: the drawn thread issues a run of 1 + Geometric operations of mean `burst`. This script
measures the mean PRQ search depth of each case with real pthreads (build/bin/mpimatch-threads,
list engine, one lock), models the same case at every burst in BURSTS
(build/bin/mpimatch-replay --workload SPEC,phases=P,burst=B --engine list), and reports, per case,
the burst whose modelled depth is closest to the measured one (in log ratio), and the one burst
that fits all cases best (least mean squared log ratio), with each case's residual at it.

Depths with real threads depend on the machine's cores and scheduler, so the calibration is
of this machine; the modelled depths do not depend on the machine.

usage: scripts/threads_calibrate.py [--phases N] [--case SPEC]... [--json FILE]
"""
import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BIN = Path(os.environ.get("MPIMATCH_BIN_DIR", ROOT / "build" / "bin"))
BURSTS = (1, 2, 4, 8, 16, 32, 64, 128)
CASES = ("stencil_naive:threads=64,msgs=512", "stencil_naive:threads=256,msgs=26",
         "stencil2d:lx=32,ly=32,points=5pt", "stencil2d:lx=32,ly=32,points=9pt",
         "stencil3d:lx=8,ly=8,lz=4,points=7pt", "stencil3d:lx=8,ly=8,lz=4,points=27pt",
         "stencil3d:lx=4,ly=4,lz=4,points=7pt", "stencil3d:lx=4,ly=4,lz=4,points=27pt",
         "stencil_linear:lz=256,points=7pt", "stencil_linear:lz=256,points=27pt")


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        sys.exit(f"threads_calibrate: {' '.join(map(str, cmd))}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def real_depths(cases, phases):
    out = {}
    for c in cases:
        r = json.loads(run([BIN / "mpimatch-threads", "--case", c, "--phases", str(phases),
                            "--json", "-"]))["cases"][0]
        out[c] = dict(r["threads"], msgs=r["msgs"])
    return out


def model_depth(spec, phases, burst, tmp):
    js = Path(tmp) / "r.json"
    run([BIN / "mpimatch-replay", "--workload", f"{spec},phases={phases},burst={burst}",
         "--engine", "list", "--reps", "1", "--json", js])
    return json.loads(js.read_text())["results"][0]["stats"]["prq"]["mean_depth"]


def lr(model, real):
    return math.log(max(model, 1e-9) / max(real, 1e-9))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--phases", type=int, default=10, help="phases per case, real and modelled")
    ap.add_argument("--case", action="append", help="a stencil spec (repeatable; default: "
                    "the paper's ten cases)")
    ap.add_argument("--json", help="also write the results as JSON")
    a = ap.parse_args()
    if a.phases < 1:
        ap.error("--phases must be >= 1")
    cases = a.case or list(CASES)
    real = real_depths(cases, a.phases)
    model = {}
    with tempfile.TemporaryDirectory() as tmp:
        for c in cases:
            model[c] = {b: model_depth(c, a.phases, b, tmp) for b in BURSTS}
    fit = {b: sum(lr(model[c][b], real[c]["depth"]) ** 2 for c in cases) / len(cases)
           for b in BURSTS}
    best = min(BURSTS, key=lambda b: fit[b])
    head = ["case", "real (min-max)"] + [f"b={b}" for b in BURSTS] + ["best b", f"at b={best}"]
    print("| " + " | ".join(head) + " |")
    print("|" + " --- |" * len(head))
    rows = []
    for c in cases:
        rc = real[c]
        own = min(BURSTS, key=lambda b: abs(lr(model[c][b], rc["depth"])))
        resid = model[c][best] / rc["depth"] - 1
        rows.append({"case": c, "real": rc, "model": model[c], "best_burst": own,
                     "residual_at_fit": resid})
        print(f"| {c} | {rc['depth']:.1f} ({rc['depth_min']:.1f}-{rc['depth_max']:.1f}) | "
              + " | ".join(f"{model[c][b]:.1f}" for b in BURSTS)
              + f" | {own} | {resid:+.0%} |")
    print(f"\none burst for all cases: {best} (mean squared log ratio "
          + ", ".join(f"b={b}: {fit[b]:.3f}" for b in BURSTS) + ")")
    if a.json:
        tmpf = Path(a.json + ".tmp")
        tmpf.write_text(json.dumps({"phases": a.phases, "cpus": os.cpu_count(), "bursts": BURSTS,
                                    "best_burst": best, "fit": fit, "cases": rows}, indent=1))
        tmpf.replace(a.json)


if __name__ == "__main__":
    main()
