"""`mpimatch advise` and `mpimatch train` (docs/advise.md)."""
from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Optional

from rich.console import Console

from .. import tools
from ..atomic import check_writable, write_atomic
from ..command import add_command
from ..errors import EXIT_FAILURE, MpimatchError
from ..replay_dir import load_dir
from . import dataset as ds
from . import model as mdl
from .features import FEATURES, PHASE_EVENTS, Pool, profile_stream, profile_workload

DATASET = Path(__file__).with_name("dataset.json")
OUTSIDE = 3.0     # a feature this many standard deviations out: the advice extrapolates


def register(sub: Any) -> None:
    p = add_command(sub, "advise", cmd_advise,
                    help="recommend an engine for a stream, a stream directory or a trace",
                    description="Profile TARGET with list semantics (mpimatch-replay "
                                "--match-profile; every rank pooled for a directory), then "
                                "print the engine the trained classifier recommends, its "
                                "confidence, the features behind it and the gain measured on "
                                "the most similar training samples (docs/advise.md). TARGET: "
                                "a stream file, a directory of per-rank streams (mpimatch "
                                "convert), a trace directory (rank-*.mmt: converted first), or "
                                "the directory FI_MPIMATCH_PROFILE named in a run on the "
                                "provider (mpimatch-fi-*.mms).")
    p.add_argument("target", nargs="?", metavar="TRACE|STREAMS",
                   help="stream file, stream directory or trace directory")
    p.add_argument("--workload", metavar="SPEC", help="a generated workload instead of TARGET")
    p.add_argument("--model", metavar="FILE", help="model file (default: the shipped one)")
    p.add_argument("--kind", choices=mdl.KINDS, help="which model of the file (default: its default)")
    p.add_argument("--per-rank", action="store_true", help="also advise every rank on its own")
    p.add_argument("--json", metavar="FILE", help="write the advice as JSON ('-': standard output)")
    p.add_argument("--phase-events", type=int, default=PHASE_EVENTS, metavar="W",
                   help=f"events per profiling phase (default {PHASE_EVENTS})")

    q = add_command(sub, "train", cmd_train,
                    help="rebuild the advise model (and, with --build, its dataset)",
                    description="Fit logistic regression, SVM and MLP (scikit-learn, seeded) "
                                "on the dataset, evaluate them (held-out split, leave one "
                                "application out, the paper's protocol) and write the model "
                                "file. --build first remakes the dataset: the ping-pong grid "
                                "and the bench workloads are generated, profiled and replayed "
                                "through every candidate engine, and each --app STREAM_DIR "
                                "adds one sample per rank (docs/advise.md).")
    q.add_argument("--dataset", metavar="FILE", default=None,
                   help=f"dataset file (default: the shipped {DATASET.name})")
    q.add_argument("--build", action="store_true", help="remake the dataset first (about a minute)")
    q.add_argument("--quick", action="store_true",
                   help="with --build: a 6-sample dataset (seconds; for tests)")
    q.add_argument("--app", action="append", default=[], metavar="APP[:RUN]=STREAM_DIR",
                   help="with --build: a traced application's stream directory (repeatable; "
                        "runs of one APP form one group of leave-one-application-out)")
    q.add_argument("--e2e", action="store_true",
                   help="with --build: also the end-to-end group, the ping-pong grid run as an "
                        "MPI program on the libfabric provider with every candidate engine, "
                        "labelled from those runs (a few minutes; needs Open MPI and the "
                        "provider)")
    q.add_argument("--e2e-apps", action="store_true",
                   help="with --build: also the end-to-end application group, LAMMPS and HPCC "
                        "run unmodified on the libfabric provider with every candidate engine "
                        "in turn, labelled from their timings (about 10 minutes; needs Open "
                        "MPI, the provider, lmp and hpcc)")
    q.add_argument("--only", metavar="GROUP[,GROUP...]",
                   help="with --build: remake these groups only and keep every other sample "
                        "of --dataset (e.g. --only e2e,miniamr)")
    q.add_argument("--reps", type=int, default=5, metavar="R",
                   help="with --build: timed repetitions of each replay (default 5)")
    q.add_argument("--seed", type=int, default=1, metavar="N", help="training seed (default 1)")
    q.add_argument("--out", metavar="FILE", help="model file (default: the shipped one)")
    q.add_argument("--report", metavar="FILE", help="write the evaluation as Markdown")
    q.add_argument("--eval-json", metavar="FILE", help="write the evaluation as JSON")
    q.add_argument("--c-header", metavar="FILE",
                   help="write the online model as C constants (docs/advise.md, \"A rule in C\")")


# ---------------------------------------------------------------- advise

def _stream_files(target: Path, tmp: Path) -> List[Path]:
    """The per-rank streams of TARGET (a trace directory is converted into tmp)."""
    if target.is_file():
        return [target]
    if not target.is_dir():
        raise MpimatchError(f"{target}: no such file or directory")
    if any(target.glob("rank-*.mmt")):
        exe = tools.find_tool(tools.CONVERT)
        out = tmp / "streams"
        proc = subprocess.run([str(exe), str(target), "--out", str(out), "--quiet"],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise MpimatchError(proc.stderr.strip() or f"{exe} failed", proc.returncode or 2)
        target = out
    provider = sorted(target.glob("mpimatch-fi-*.mms"))
    if provider and not (target / "index.json").exists() and not any(target.glob("rank-*.mms")):
        return provider     # FI_MPIMATCH_PROFILE=DIR of the provider (docs/provider.md)
    _, files = load_dir(target)
    return files


def advise_pool(model: mdl.Model, pool: Pool, kind: Optional[str]) -> Dict[str, Any]:
    named = pool.named_features()
    x = [named[f] for f in FEATURES]
    kind = kind or model.default
    try:
        scores = model.scores(x, kind)
    except (ValueError, KeyError, IndexError, TypeError) as err:
        raise MpimatchError(f"{model.where}: malformed {kind} model: {err}") from None
    probs = {c: float(s) for c, s in zip(model.classes, scores)}
    notes = []
    if not pool.hints_hold() and probs.get("hash", 0) > 0:
        notes.append("hash is not eligible: receives or probes use MPI_ANY_SOURCE or "
                     "MPI_ANY_TAG (its hints do not hold)")
        probs["hash"] = 0.0
        if kind != "svm":   # probabilities: the others' share of what is left
            total = sum(probs.values()) or 1.0
            probs = {c: v / total for c, v in probs.items()}
    best = max(model.classes, key=lambda c: (probs[c], -model.classes.index(c)))
    gain = mdl.nearest_gain(model, x, best)
    z = model.standardise(x)
    top = sorted(range(len(FEATURES)), key=lambda i: -abs(z[i]))[:6]
    if abs(z[top[0]]) > OUTSIDE:
        notes.append(f"the profile lies outside the training data ({FEATURES[top[0]]} is "
                     f"{z[top[0]]:+.1f} standard deviations from its mean): the advice "
                     f"extrapolates")
    return {"engine": best, "confidence": probs[best], "model": kind,
            "scores": dict(sorted(probs.items(), key=lambda kv: -kv[1])),
            "expected_gain": gain, "notes": notes, "profile": pool.summary(),
            "features": named,
            "salient": [{"feature": FEATURES[i], "value": named[FEATURES[i]],
                         "z": float(z[i])} for i in top]}


def _print_advice(out: Console, what: str, a: Dict[str, Any]) -> None:
    st = a["profile"]["distributions"]
    c = a["profile"]["counts"]
    out.print(f"{what}: recommended engine [bold]{a['engine']}[/bold] "
              f"(confidence {a['confidence']:.2f}, model {a['model']})", highlight=False)
    g = a["expected_gain"]
    if g is None:
        out.print("  expected gain: unknown (the model file has no reference samples)")
    elif a["engine"] == "list":
        out.print(f"  expected gain: none from switching: on the {len(g['samples'])} nearest "
                  f"training samples the best other engine saved {100 * g['median']:.1f}% "
                  f"(median; {100 * g['min']:.1f}% to {100 * g['max']:.1f}%), under the 5% "
                  f"that counts", highlight=False)
    else:
        out.print(f"  expected gain: {100 * g['median']:.1f}% less total time than list "
                  f"(median of the {len(g['samples'])} nearest training samples; "
                  f"{100 * g['min']:.1f}% to {100 * g['max']:.1f}%)", highlight=False)
    others = ", ".join(f"{k} {v:.2f}" for k, v in a["scores"].items() if k != a["engine"])
    out.print(f"  other engines: {others}", highlight=False)
    for n in a["notes"]:
        out.print(f"  note: {n}", highlight=False)
    out.print(f"  profile ({a['profile']['ranks']} rank(s), list semantics): {c['events']} events, "
              f"{c['attempts']} attempts ({c['successes']} successes, {c['failures']} failures); "
              f"elements traversed per success mean {st['depth_success']['mean']:.1f} "
              f"(median {st['depth_success']['median']:g}, q3 {st['depth_success']['q3']:g}), "
              f"per failure mean {st['depth_failure']['mean']:.1f}; message bytes median "
              f"{st['bytes']['median']:g}; PRQ length mean {st['prq_length']['mean']:.1f} "
              f"(max {st['prq_length']['max']:g}), UMQ mean {st['umq_length']['mean']:.1f} "
              f"(max {st['umq_length']['max']:g}); hints hold: "
              f"{'yes' if a['profile']['hints_hold'] else 'no'}", highlight=False)
    out.print("  features furthest from the training mean (z-score): " + ", ".join(
        f"{s['feature']} {s['z']:+.1f}" for s in a["salient"]), highlight=False)


def cmd_advise(args: argparse.Namespace, out: Console) -> int:
    if (args.target is None) == (args.workload is None):
        raise MpimatchError("give TRACE|STREAMS or --workload SPEC (one of them)")
    if args.phase_events < 1:
        raise MpimatchError("--phase-events must be at least 1")
    if args.json and args.json != "-":
        check_writable(Path(args.json))
    model = mdl.load(Path(args.model) if args.model else None)
    if args.kind and args.kind not in model.models:
        raise MpimatchError(f"{model.where}: has no {args.kind} model")
    ranks: List[Any] = []
    with tempfile.TemporaryDirectory(prefix="mpimatch-advise-") as tmp:
        if args.workload:
            what = args.workload
            ranks.append((what, profile_workload(args.workload, args.phase_events)))
        else:
            what = args.target
            for f in _stream_files(Path(args.target), Path(tmp)):
                ranks.append((f.name, profile_stream(f, args.phase_events)))
    pool = Pool()
    for _, prof in ranks:
        pool.add(prof)
    result = {"target": what, **advise_pool(model, pool, args.kind)}
    trained = model.data.get("phase_events", PHASE_EVENTS)
    if args.phase_events != trained:
        result["notes"].append(f"--phase-events {args.phase_events}: the model was trained on "
                               f"phases of {trained} events, so the phase features differ")
    if args.per_rank:
        result["ranks"] = [{"stream": name, **advise_pool(model, Pool().add(prof), args.kind)}
                           for name, prof in ranks]
    if args.json == "-":
        print(json.dumps(result, indent=2))
        return 0
    if args.json:     # before the text: a closed standard output must not lose the file
        write_atomic(Path(args.json), json.dumps(result, indent=2) + "\n")
    _print_advice(out, what, result)
    for r in result.get("ranks", []):
        _print_advice(out, f"  {r['stream']}", r)
    return 0


# ---------------------------------------------------------------- train

def _apps(specs: List[str]) -> Dict[str, Path]:
    apps: Dict[str, Path] = {}
    for spec in specs:
        name, sep, directory = spec.partition("=")
        if not sep or not name or not directory:
            raise MpimatchError(f"--app {spec!r}: expected APP[:RUN]=STREAM_DIR")
        if name in apps:
            raise MpimatchError(f"--app {name}: given twice")
        if not Path(directory).is_dir():
            raise MpimatchError(f"--app {name}: {directory} is not a directory")
        apps[name] = Path(directory)
    return apps


def cmd_train(args: argparse.Namespace, out: Console) -> int:
    from . import train as tr
    if (args.quick or args.app or args.e2e or args.e2e_apps or args.only) and not args.build:
        raise MpimatchError("--quick, --app, --e2e, --e2e-apps and --only describe the dataset "
                            "to build: add --build")
    if args.reps < 1:
        raise MpimatchError("--reps must be at least 1")
    dataset_path = Path(args.dataset) if args.dataset else DATASET
    model_path = Path(args.out) if args.out else mdl.SHIPPED
    for p in [model_path] + [Path(f) for f in (args.report, args.eval_json, args.c_header) if f] + \
            ([dataset_path] if args.build else []):
        check_writable(p)
    if args.build:
        apps = _apps(args.app)
        only = None
        if args.only:
            only = [g for g in args.only.split(",") if g]
            known = ds.groups_of(apps, args.quick, args.e2e, args.e2e_apps)
            unknown = [g for g in only if g not in known]
            if not only or unknown:
                raise MpimatchError(f"--only {args.only}: no group {', '.join(unknown) or ''} "
                                    f"in this build (its groups: {', '.join(known)})")
            old = ds.load(dataset_path)
            if old.get("reps") != args.reps:
                raise MpimatchError(f"{dataset_path}: built with --reps {old.get('reps')}; "
                                    f"remake groups of it with the same --reps")
        tr._sklearn()   # fail before minutes of replays, not after
        data = ds.build(apps, args.reps, args.quick,
                        progress=lambda m: out.print(m, highlight=False), e2e=args.e2e,
                        only=only, e2e_apps=args.e2e_apps)
        if only is not None:
            data = ds.replace_groups(old, data, only)
        write_atomic(dataset_path, ds.dumps(data))
        out.print(f"dataset: {len(data['samples'])} samples -> {dataset_path}", highlight=False)
    else:
        data = ds.load(dataset_path)
    evaluation = tr.evaluate(data, args.seed)
    model = tr.train(data, args.seed, evaluation)
    write_atomic(model_path, tr.dumps(model))
    report = tr.markdown(evaluation)
    grid = tr.pingpong_grid(data)
    if grid:
        report += "\nLabels of the preposted ping-pong samples (dead receives by message size):\n\n" + grid
    grid = tr.pingpong_grid(data, "e2e")
    if grid:
        report += ("\nLabels of the end-to-end ping-pong samples (on the provider; dead receives "
                   "by message size):\n\n" + grid)
    table = tr.e2e_apps_table(data)
    if table:
        report += ("\nThe end-to-end application samples (on the provider; median seconds over "
                   "the rounds):\n\n" + table)
    if args.report:
        write_atomic(Path(args.report), report)
    if args.c_header:
        write_atomic(Path(args.c_header), tr.c_header(model))
    if args.eval_json:
        write_atomic(Path(args.eval_json), json.dumps(evaluation, indent=2) + "\n")
    out.print(report, highlight=False, markup=False)
    out.print(f"model ({model['default']} by default) -> {model_path}", highlight=False)
    return 0
