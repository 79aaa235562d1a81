"""`mpimatch bench --suite polling` and `mpimatch tune`: the four benchmarks of the
MVAPICH channel polling and thresholds study (docs/bench.md#the-polling-suite), as MPI
programs on the mpimatch provider.

The program is mpimatch-pollbench (tools/mpibench/pollbench.c) at np 3 with
FI_MPIMATCH_FORCE_TCP=1: rank 1 behaves as if on another host (TCP), ranks 0 and 2
share memory, and rank 0, the measured process, polls both channels. A *config* is
one set of FI_MPIMATCH_* variables (a polling scheme, or a channel and protocol);
each config is one mpirun that runs all its measurements. The suite makes `passes`
passes over its configs in turn, so a slow minute of a shared machine lands on all
of them, and pools each measurement's samples: medians and quartiles are over all
passes, ratios are between configs of the same suite run.

  1 latency    4 B and 2 KiB ping-pong with the shared-memory and the network partner,
               and the cost of one idle MPI_Iprobe (a look at both channels), under rr,
               static with ratios 1 to 1000, and dynamic
  2 discovery  bursts of 1 to 200 messages from the two partners in turn, each
               acknowledged, under rr, static 50 and dynamic with update rates 1 to 64
  3 channels   latency and bandwidth per size under each local protocol (eager shared
               memory, segmented copy, process_vm_readv) and the network channel
  4 overlap    computation / (computation + wait) per channel for 4 B and 128 KiB

`mpimatch tune` runs benchmark 3's latencies and writes the thresholds file the
provider reads (FI_MPIMATCH_TUNING).
"""
from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

from rich.console import Console

from .. import mpistack, tools
from ..atomic import check_writable, check_writable_dir, write_atomic
from ..errors import EXIT_FAILURE, MpimatchError
from . import core
from .mpi import _quartiles, parse_lines

PROGRAM = "mpimatch-pollbench"
NP = 3
LAUNCH_TIMEOUT = 300.0
# Every config: rank 1 remote (TCP), and spinning rather than yielding: the third rank
# sleeps while it takes no part, so the two that measure have the two processors.
BASE_ENV = (("FI_MPIMATCH_FORCE_TCP", "1"), ("FI_MPIMATCH_YIELD", "never"))
EAGER_MAX = 4032   # one ring cell's payload: the largest eager message


@dataclass(frozen=True)
class Config:
    name: str                              # e.g. "static:50", "dynamic:8", "cma"
    env: Tuple[Tuple[str, str], ...]
    specs: Tuple[str, ...]                 # mpimatch-pollbench arguments
    bench: str                             # latency, discovery, channels


@dataclass
class Plan:
    name: str
    passes: int
    configs: List[Config] = field(default_factory=list)


def _poll_env(scheme: str, value: Optional[int] = None) -> Tuple[Tuple[str, str], ...]:
    env = [("FI_MPIMATCH_POLL", scheme)]
    if scheme == "static" and value is not None:
        env.append(("FI_MPIMATCH_POLL_RATIO", str(value)))
    if scheme == "dynamic" and value is not None:
        env.append(("FI_MPIMATCH_POLL_HISTORY", str(value)))
    return tuple(env)


# The local protocols, each forced for every size it can carry (docs/provider.md#thresholds).
CHANNELS: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "eager": (("FI_MPIMATCH_SHM_EAGER", str(EAGER_MAX)), ("FI_MPIMATCH_CMA_MIN", "0")),
    "segmented": (("FI_MPIMATCH_SHM_EAGER", "0"), ("FI_MPIMATCH_CMA", "0")),
    "cma": (("FI_MPIMATCH_SHM_EAGER", "0"), ("FI_MPIMATCH_CMA_MIN", "0")),
    "net": (),
}


def _iters(size: int, base: int) -> int:
    """Fewer round trips for large messages (about 2 MiB each way per sample at least 10)."""
    return max(10, min(base, (2 << 20) // max(1, size)))


def channel_specs(channel: str, sizes: Sequence[int], reps: int, bandwidth: bool = True,
                  overlap: Sequence[int] = (), overlap_sizes: Sequence[int] = ()) -> Tuple[str, ...]:
    peer = "net" if channel == "net" else "shm"
    out = []
    for s in sizes:
        if channel == "eager" and s > EAGER_MAX:
            continue
        out.append(f"latency:peer={peer},size={s},iters={_iters(s, 400 if peer == 'net' else 1000)},"
                   f"reps={reps}")
        if bandwidth:
            out.append(f"bandwidth:peer={peer},size={s},window=16,reps={reps}")
    for s in overlap_sizes:
        if channel == "eager" and s > EAGER_MAX:
            continue
        out += [f"overlap:peer={peer},size={s},compute_us={c},reps={reps}" for c in overlap]
    return tuple(out)


def make_plan(quick: bool, passes: Optional[int]) -> Plan:
    ratios = (1, 50, 1000) if quick else (1, 10, 50, 100, 1000)
    histories = (1, 8, 64) if quick else (1, 2, 4, 8, 16, 32, 64)
    bursts = (10, 200) if quick else (1, 10, 50, 100, 200)
    sizes = (4, 2048, 65536, 1 << 20) if quick else (4, 64, 1024, 2048, 4032, 16384, 65536,
                                                      262144, 1 << 20)
    reps = 3
    plan = Plan("polling-quick" if quick else "polling", passes or (1 if quick else 2))
    lat = tuple(f"latency:peer={p},size={s},iters={1000 if p == 'shm' else 200},reps={reps}"
                for p in ("shm", "net") for s in (4, 2048)) + (f"idle:iters=50000,reps={reps}",)
    for scheme, values in (("rr", (None,)), ("static", ratios), ("dynamic", (8,))):
        for v in values:
            name = scheme if v is None else f"{scheme}:{v}"
            plan.configs.append(Config(name, _poll_env(scheme, v), lat, "latency"))
    disc = tuple(f"discovery:burst={b},rounds=4,reps={reps}" for b in bursts)
    for scheme, values in (("rr", (None,)), ("static", (50,)), ("dynamic", histories)):
        for v in values:
            name = scheme if v is None else f"{scheme}:{v}"
            plan.configs.append(Config(name, _poll_env(scheme, v), disc, "discovery"))
    overlap = (0, 100, 1000) if quick else (0, 50, 100, 200, 500, 1000, 2000)
    for ch, env in CHANNELS.items():
        plan.configs.append(Config(ch, env, channel_specs(ch, sizes, reps, True, overlap,
                                                          (4, 131072)), "channels"))
    return plan


def spec_key(line: Mapping[str, Any]) -> str:
    p = dict(line.get("params", {}))
    p.pop("reps", None)
    p.pop("iters", None)
    return line["mode"] + ":" + ",".join(f"{k}={v}" for k, v in p.items())


def execute(plan: Plan, stack: mpistack.Stack, log: Any = None) -> Tuple[List[Dict[str, Any]],
                                                                           List[Dict[str, Any]]]:
    """Run every config `passes` times in turn; (records, failures)."""
    exe = tools.find_tool(PROGRAM)
    pooled: Dict[Tuple[str, str, str], List[float]] = {}
    failures: List[Dict[str, Any]] = []
    total = plan.passes * len(plan.configs)
    done = 0
    for p in range(plan.passes):
        for c in plan.configs:
            done += 1
            if log:
                log(f"[{done}/{total}] pass {p + 1}: {c.bench} {c.name} ({len(c.specs)} measurements)")
            with_env = mpistack.Stack(stack.name, stack.description, stack.mca,
                                      stack.env + c.env, stack.engine)
            o = mpistack.run(with_env, NP, [str(exe), *c.specs], LAUNCH_TIMEOUT)
            lines = parse_lines(o.stdout)
            if o.returncode != 0 or len(lines) != len(c.specs):
                failures.append({"config": c.name, "bench": c.bench, "reason": o.summary(),
                                 "stderr": o.stderr[-2000:], "command": o.command})
                continue
            for line in lines:
                xs = line.get("samples_ns", line.get("samples", []))
                pooled.setdefault((c.bench, c.name, spec_key(line)), []).extend(xs)
    records = []
    for (bench, config, spec), xs in pooled.items():
        records.append({"bench": bench, "config": config, "spec": spec, "samples": xs,
                        "unit": "ratio" if spec.startswith("overlap") else "ns", **_quartiles(xs),
                        "max": max(xs) if xs else None})
    return records, failures


# ---------------------------------------------------------------- tables

def _med(records: Sequence[Mapping[str, Any]], bench: str, config: str, spec: str) -> Optional[float]:
    for r in records:
        if r["bench"] == bench and r["config"] == config and r["spec"] == spec:
            return r["median"]
    return None


def _us(x: Optional[float]) -> str:
    return "-" if x is None else (f"{x / 1000:.2f} us" if x < 1e6 else f"{x / 1e6:.2f} ms")


def _rel(x: Optional[float], base: Optional[float]) -> str:
    if x is None or not base:
        return "-"
    return f"{(x / base - 1) * 100:+.0f}%"


def _configs(records: Sequence[Mapping[str, Any]], bench: str) -> List[str]:
    return list(dict.fromkeys(r["config"] for r in records if r["bench"] == bench))


def tables(records: Sequence[Mapping[str, Any]]) -> Dict[str, Tuple[List[str], List[List[str]]]]:
    """The four tables: name -> (header, rows)."""
    out: Dict[str, Tuple[List[str], List[List[str]]]] = {}
    lat_specs = [("shm", 4), ("shm", 2048), ("net", 4), ("net", 2048)]
    head = (["scheme"] + [f"{p} {s} B" for p, s in lat_specs] + ["idle Iprobe"]
            + [f"{p} {s} B vs rr" for p, s in lat_specs] + ["Iprobe vs rr"])
    rows = []
    for c in _configs(records, "latency"):
        specs = [f"latency:peer={p},size={s}" for p, s in lat_specs] + ["idle:"]
        vals = [_med(records, "latency", c, sp) for sp in specs]
        base = [_med(records, "latency", "rr", sp) for sp in specs]
        rows.append([c] + [_us(v) for v in vals] + [_rel(v, b) for v, b in zip(vals, base)])
    out["1 latency"] = (head, rows)
    bursts = sorted({int(r["spec"].split("burst=")[1].split(",")[0]) for r in records
                     if r["bench"] == "discovery"})
    head = ["scheme"] + [f"burst {b}" for b in bursts] + [f"burst {b} vs rr" for b in bursts]
    rows = []
    for c in _configs(records, "discovery"):
        vals = [_med(records, "discovery", c, f"discovery:burst={b},rounds=4") for b in bursts]
        base = [_med(records, "discovery", "rr", f"discovery:burst={b},rounds=4") for b in bursts]
        rows.append([c] + [_us(v) for v in vals] + [_rel(v, b) for v, b in zip(vals, base)])
    out["2 discovery"] = (head, rows)
    sizes = sorted({int(r["spec"].split("size=")[1].split(",")[0]) for r in records
                    if r["bench"] == "channels" and r["spec"].startswith("latency")})
    chans = _configs(records, "channels")
    head = ["size"] + [f"{c} latency" for c in chans] + [f"{c} MB/s" for c in chans]
    rows = []
    for s in sizes:
        lat = []
        bw = []
        for c in chans:
            peer = "net" if c == "net" else "shm"
            lat.append(_us(_med(records, "channels", c, f"latency:peer={peer},size={s}")))
            ns = _med(records, "channels", c, f"bandwidth:peer={peer},size={s},window=16")
            bw.append("-" if not ns else f"{s / ns * 1000:.0f}")
        rows.append([str(s)] + lat + bw)
    out["3 channels"] = (head, rows)
    ov = sorted({(int(r["spec"].split("size=")[1].split(",")[0]),
                  int(r["spec"].split("compute_us=")[1].split(",")[0]))
                 for r in records if r["bench"] == "channels" and r["spec"].startswith("overlap")})
    head = ["size", "compute"] + chans
    rows = []
    for s, cu in ov:
        row = [str(s), f"{cu} us"]
        for c in chans:
            peer = "net" if c == "net" else "shm"
            v = _med(records, "channels", c, f"overlap:peer={peer},size={s},compute_us={cu}")
            row.append("-" if v is None else f"{v:.3f}")
        rows.append(row)
    out["4 overlap"] = (head, rows)
    return out


def markdown(tabs: Mapping[str, Tuple[List[str], List[List[str]]]]) -> str:
    parts = []
    for name, (head, rows) in tabs.items():
        parts.append(f"### {name}\n")
        parts.append("| " + " | ".join(head) + " |")
        parts.append("| " + " | ".join("---" for _ in head) + " |")
        parts += ["| " + " | ".join(r) + " |" for r in rows]
        parts.append("")
    return "\n".join(parts)


# ---------------------------------------------------------------- plots

def plot(records: Sequence[Mapping[str, Any]], directory: Path) -> List[Path]:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    directory.mkdir(parents=True, exist_ok=True)
    made = []

    def save(fig: Any, name: str) -> None:
        path = directory / name
        fig.tight_layout()
        fig.savefig(path, dpi=100)
        plt.close(fig)
        made.append(path)

    # 1: latency against the static ratio, rr and dynamic as lines
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, size in zip(axes, (4, 2048)):
        for peer, colour in (("shm", "tab:blue"), ("net", "tab:red")):
            spec = f"latency:peer={peer},size={size}"
            pts = sorted((int(c.split(":")[1]), _med(records, "latency", c, spec))
                         for c in _configs(records, "latency") if c.startswith("static:"))
            pts = [(x, y) for x, y in pts if y is not None]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] / 1000 for p in pts], "o-", color=colour,
                        label=f"{peer}, static ratio")
            for c, style in (("rr", "--"), ("dynamic:8", ":")):
                y = _med(records, "latency", c, spec)
                if y is not None:
                    ax.axhline(y / 1000, color=colour, linestyle=style, label=f"{peer}, {c}")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("shared-memory polls per network poll")
        ax.set_ylabel("half round trip (us)")
        ax.set_title(f"{size} B ping-pong, network channel active")
        ax.legend(fontsize=7)
    save(fig, "polling-1-latency.png")
    # 2: discovery time per message against the burst size
    fig, ax = plt.subplots(figsize=(7, 4))
    for c in _configs(records, "discovery"):
        pts = sorted((int(r["spec"].split("burst=")[1].split(",")[0]), r["median"])
                     for r in records if r["bench"] == "discovery" and r["config"] == c)
        ax.plot([p[0] for p in pts], [p[1] / 1000 for p in pts], "o-", label=c)
    ax.set_xscale("log")
    ax.set_xlabel("burst (messages from one partner before the other's turn)")
    ax.set_ylabel("time per message, acknowledged (us)")
    ax.set_title("message discovery, mixed channels")
    ax.legend(fontsize=7, ncol=2)
    save(fig, "polling-2-discovery.png")
    # 3: latency and bandwidth per channel
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for c in _configs(records, "channels"):
        peer = "net" if c == "net" else "shm"
        lat = sorted((int(r["spec"].split("size=")[1].split(",")[0]), r["median"]) for r in records
                     if r["bench"] == "channels" and r["config"] == c
                     and r["spec"].startswith(f"latency:peer={peer}"))
        bw = sorted((int(r["spec"].split("size=")[1].split(",")[0]), r["median"]) for r in records
                    if r["bench"] == "channels" and r["config"] == c
                    and r["spec"].startswith(f"bandwidth:peer={peer}"))
        axes[0].plot([p[0] for p in lat], [p[1] / 1000 for p in lat], "o-", label=c)
        axes[1].plot([p[0] for p in bw], [p[0] / p[1] * 1000 for p in bw], "o-", label=c)
    for ax, ylabel, title in ((axes[0], "half round trip (us)", "latency"),
                              (axes[1], "MB/s", "bandwidth (window 16)")):
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_xlabel("message size (bytes)")
        ax.set_ylabel(ylabel)
        ax.set_title(title + " per channel")
        ax.legend(fontsize=7)
    save(fig, "polling-3-channels.png")
    # 4: overlap per channel
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, size in zip(axes, (4, 131072)):
        for c in _configs(records, "channels"):
            peer = "net" if c == "net" else "shm"
            pts = sorted((int(r["spec"].split("compute_us=")[1].split(",")[0]), r["median"])
                         for r in records if r["bench"] == "channels" and r["config"] == c
                         and r["spec"].startswith(f"overlap:peer={peer},size={size},"))
            if pts:
                ax.plot([max(p[0], 1) for p in pts], [p[1] for p in pts], "o-", label=c)
        ax.set_xscale("log")
        ax.set_ylim(0, 1.05)
        ax.set_xlabel("computation (us; 0 drawn at 1)")
        ax.set_ylabel("computation / total")
        ax.set_title(f"overlap, {size} B")
        ax.legend(fontsize=7)
    save(fig, "polling-4-overlap.png")
    return made


# ---------------------------------------------------------------- commands

def provider() -> mpistack.Stack:
    stack = mpistack.provider_stack(name="mpimatch-polling", env_extra=BASE_ENV)
    why = mpistack.unavailable(stack)
    if why:
        raise MpimatchError(f"the polling suite runs on the mpimatch provider: {why}")
    return stack


def _print_tables(out: Console, tabs: Mapping[str, Tuple[List[str], List[List[str]]]]) -> None:
    from rich.table import Table
    for name, (head, rows) in tabs.items():
        t = Table(title=name, title_justify="left")
        for h in head:
            t.add_column(h)
        for r in rows:
            t.add_row(*r)
        out.print(t)


def cmd_polling(args: argparse.Namespace, out: Console) -> int:
    """mpimatch bench --suite polling [--quick] [--reps PASSES] [--out DIR] [--json FILE]."""
    if args.reps is not None and args.reps < 1:
        raise MpimatchError("--reps must be >= 1")
    plan = make_plan(args.quick, args.reps)
    tools.find_tool(PROGRAM)
    stack = provider()
    outdir = Path(args.out)
    check_writable_dir(outdir, create=True)
    json_copy = Path(args.json) if args.json else None
    if json_copy is not None:
        check_writable(json_copy)
    started, t0, load0 = core.now(), time.perf_counter(), core.load_average()
    log = None if args.quiet else (lambda m: print(m, file=sys.stderr, flush=True))
    records, failures = execute(plan, stack, log)
    tabs = tables(records)
    command = "mpimatch " + " ".join(shlex.quote(str(a)) for a in getattr(args, "argv", sys.argv[1:]))
    doc = {"suite": plan.name, "command": command, "started": started, "finished": core.now(),
           "passes": plan.passes, "np": NP, "environment": dict(BASE_ENV),
           "load_average": {"before": load0, "after": core.load_average()},
           "configs": [{"name": c.name, "bench": c.bench, "env": dict(c.env), "specs": list(c.specs)}
                       for c in plan.configs],
           "records": records, "failures": failures}
    text = json.dumps(doc, indent=1) + "\n"
    write_atomic(outdir / "results.json", text)
    write_atomic(outdir / "tables.md", f"Command: `{command}`\n\n" + markdown(tabs))
    plots = plot(records, outdir / "plots")
    if json_copy is not None:
        write_atomic(json_copy, text)
    _print_tables(out, tabs)
    out.print(f"\n{len(records)} records from {plan.passes * len(plan.configs)} mpirun launches in "
              f"{time.perf_counter() - t0:.0f} s. Outputs in {outdir}/: results.json, tables.md, "
              f"plots/ ({len(plots)} PNG)", highlight=False)
    if failures:
        raise MpimatchError(f"{len(failures)} run(s) failed: "
                            + "; ".join(f"{f['config']}: {f['reason']}" for f in failures),
                            EXIT_FAILURE)
    return 0
