"""`mpimatch train`: the three models of the MPI 4.0 hints paper (section V-C) on the
dataset, their evaluation, and the model file (docs/advise.md).

Evaluations, each model fitted with its own standardisation on the training part only:
  - held out: a seeded split, 25 % of the samples for testing (stratified by label when
    every label has two samples or more);
  - leave one application out: each group (the ping-pong grid, the MadMPI workloads, each
    synthetic application, each traced application, ...) tested on models trained on all
    the others;
  - the paper's protocol: trained on the benchmarks only, tested on each traced
    application; then trained on the benchmarks plus one application, tested on the next.
The shipped models are fitted on every sample; the default is the logistic regression, unless
the SVM or the MLP beats its leave-one-application-out accuracy by 5 points or more. A fourth, "online", is a
logistic regression on the features a matcher can keep in constant time per event
(features.ONLINE), for a rule in C (c_header).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from ..errors import EXIT_FAILURE, MpimatchError
from .features import FEATURES, ONLINE, PHASE_EVENTS
from .model import KINDS, MODEL_FORMAT, PAPER_KINDS, VERSION, Model

TEST_FRACTION = 0.25
# The default model is the logistic regression (probabilities, a linear rule C can
# evaluate) unless another of the paper's models is this much better out of group.
DEFAULT_MARGIN = 0.05
NEIGHBOURS = 5


def _sklearn() -> Any:
    try:
        import sklearn  # noqa: F401
        from sklearn import linear_model, neural_network, preprocessing, svm
    except ImportError:
        raise MpimatchError("mpimatch train needs scikit-learn (pinned in requirements.txt: "
                            "pip install -r requirements.txt)", EXIT_FAILURE) from None
    return linear_model, neural_network, preprocessing, svm


def make_model(kind: str, seed: int) -> Any:
    linear_model, neural_network, _, svm = _sklearn()
    if kind in ("logistic", "online"):
        return linear_model.LogisticRegression(C=1.0, max_iter=5000)
    if kind == "svm":
        return svm.SVC(kernel="rbf", C=10.0, gamma="scale")
    return neural_network.MLPClassifier(hidden_layer_sizes=(32,), max_iter=4000,
                                        random_state=seed)


def arrays(data: Mapping[str, Any]) -> Tuple[np.ndarray, np.ndarray, List[str], List[str], List[str]]:
    samples = data["samples"]
    x = np.array([[s["features"][f] for f in FEATURES] for s in samples], dtype=float)
    y = np.array([s["label"] for s in samples])
    return x, y, [s["group"] for s in samples], [s.get("kind", "benchmark") for s in samples], \
        [s["name"] for s in samples]


def columns(kind: str) -> List[int]:
    """The features a model reads: all, or the ONLINE ones."""
    return [FEATURES.index(f) for f in ONLINE] if kind == "online" else list(range(len(FEATURES)))


def _fit(kind: str, seed: int, x: np.ndarray, y: np.ndarray) -> Tuple[Any, Any]:
    _, _, preprocessing, _ = _sklearn()
    x = x[:, columns(kind)]
    scaler = preprocessing.StandardScaler().fit(x)
    if len(set(y)) == 1:                  # one class: every prediction is that class
        return scaler, str(y[0])
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # convergence notes of tiny folds
        return scaler, make_model(kind, seed).fit(scaler.transform(x), y)


def _predict(fitted: Tuple[Any, Any], x: np.ndarray) -> np.ndarray:
    scaler, m = fitted
    if isinstance(m, str):
        return np.array([m] * len(x))
    return m.predict(scaler.transform(x))


def confusion(y: Sequence[str], p: Sequence[str], labels: Sequence[str]) -> List[List[int]]:
    idx = {c: i for i, c in enumerate(labels)}
    mat = [[0] * len(labels) for _ in labels]
    for a, b in zip(y, p):
        mat[idx[a]][idx[b]] += 1
    return mat


def _result(y: Sequence[str], p: Sequence[str], labels: Sequence[str]) -> Dict[str, Any]:
    y, p = list(y), list(p)
    binary = sum((a == "list") == (b == "list") for a, b in zip(y, p))
    return {"n": len(y), "correct": sum(a == b for a, b in zip(y, p)),
            "accuracy": (sum(a == b for a, b in zip(y, p)) / len(y)) if y else None,
            "binary_correct": binary, "binary_accuracy": binary / len(y) if y else None,
            "confusion": confusion(y, p, labels)}


def split(y: np.ndarray, seed: int) -> Tuple[np.ndarray, np.ndarray]:
    """Indices of the held-out split (train, test)."""
    from sklearn.model_selection import train_test_split
    idx = np.arange(len(y))
    counts = {c: int((y == c).sum()) for c in set(y)}
    strat = y if min(counts.values()) >= 2 else None
    try:
        return train_test_split(idx, test_size=TEST_FRACTION, random_state=seed, stratify=strat)
    except ValueError:   # too few samples per class for a stratified split
        return train_test_split(idx, test_size=TEST_FRACTION, random_state=seed)


def evaluate(data: Mapping[str, Any], seed: int) -> Dict[str, Any]:
    _sklearn()       # a clear error without scikit-learn, before anything else
    x, y, groups, kinds, _ = arrays(data)
    labels = sorted(set(y))
    g = np.array(groups)
    out: Dict[str, Any] = {"labels": labels, "samples": len(y),
                           "label_counts": {c: int((y == c).sum()) for c in labels},
                           "groups": {k: int((g == k).sum()) for k in sorted(set(groups))}}
    tr, te = split(y, seed)
    apps = sorted({grp for grp, k in zip(groups, kinds) if k == "application"})
    bench = np.array([k != "application" for k in kinds])
    for kind in KINDS:
        res: Dict[str, Any] = {}
        res["held_out"] = _result(y[te], _predict(_fit(kind, seed, x[tr], y[tr]), x[te][:, columns(kind)]), labels)
        per_group, all_y, all_p = {}, [], []
        for grp in sorted(set(groups)):
            test = g == grp
            if test.all():
                continue
            p = _predict(_fit(kind, seed, x[~test], y[~test]), x[test][:, columns(kind)])
            per_group[grp] = _result(y[test], p, labels)
            all_y += list(y[test])
            all_p += list(p)
        res["leave_one_group_out"] = {"overall": _result(all_y, all_p, labels),
                                      "groups": per_group}
        if apps and bench.any():
            paper: Dict[str, Any] = {}
            fitted = _fit(kind, seed, x[bench], y[bench])
            for app in apps:
                test = g == app
                paper[f"benchmarks -> {app}"] = _result(y[test], _predict(fitted, x[test][:, columns(kind)]),
                                                        labels)
            for first, second in zip(apps, apps[1:] + apps[:1]):
                if first == second:
                    continue
                train = bench | (g == first)
                test = g == second
                paper[f"benchmarks + {first} -> {second}"] = _result(
                    y[test], _predict(_fit(kind, seed, x[train], y[train]), x[test][:, columns(kind)]),
                    labels)
            res["paper_protocol"] = paper
        out[kind] = res
    return out


def _floats(a: Any, digits: int = 12) -> Any:
    return np.round(np.asarray(a, dtype=float), digits).tolist()


def export(kind: str, m: Any) -> Dict[str, Any]:
    if kind == "online":
        return {"features": list(ONLINE), "coef": _floats(m.coef_), "intercept": _floats(m.intercept_)}
    if kind == "logistic":
        return {"coef": _floats(m.coef_), "intercept": _floats(m.intercept_)}
    if kind == "svm":
        # libsvm's own signs (the public dual_coef_ and intercept_ flip for two classes)
        return {"support_vectors": _floats(m.support_vectors_), "dual_coef": _floats(m._dual_coef_),
                "intercept": _floats(m._intercept_), "n_support": [int(n) for n in m.n_support_],
                "gamma": float(m._gamma), "C": float(m.C)}
    return {"coefs": [_floats(w) for w in m.coefs_], "intercepts": [_floats(b) for b in m.intercepts_],
            "hidden": list(m.hidden_layer_sizes), "activation": m.activation}


def train(data: Mapping[str, Any], seed: int, evaluation: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """The model file (a JSON-ready dict) from the dataset, checked: the numpy evaluation
    (model.py) must give scikit-learn's prediction on every sample."""
    x, y, groups, _, names = arrays(data)
    labels = sorted(set(y))
    if len(labels) < 2:
        raise MpimatchError(f"the dataset has one label only ({labels[0]}): nothing to learn")
    _, _, preprocessing, _ = _sklearn()
    scaler = preprocessing.StandardScaler().fit(x)
    z = scaler.transform(x)
    fitted = {}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for kind in KINDS:
            fitted[kind] = make_model(kind, seed).fit(z[:, columns(kind)], y)
    evaluation = evaluation if evaluation is not None else evaluate(data, seed)
    loao = {k: evaluation[k]["leave_one_group_out"]["overall"]["accuracy"] or 0.0 for k in KINDS}
    best = max(PAPER_KINDS, key=lambda k: (loao[k], -KINDS.index(k)))
    default = best if loao[best] >= loao["logistic"] + DEFAULT_MARGIN else "logistic"
    scale = np.where(scaler.scale_ == 0, 1.0, scaler.scale_)
    out: Dict[str, Any] = {
        "format": MODEL_FORMAT, "version": VERSION, "seed": seed, "features": list(FEATURES),
        "classes": labels, "default": default,
        "phase_events": data.get("phase_events", PHASE_EVENTS),
        "label_rule": {k: data[k] for k in ("candidates", "preference", "gain_rule", "tie",
                                            "transfer") if k in data},
        "scaler": {"mean": _floats(scaler.mean_), "scale": _floats(scale)},
        "models": {k: export(k, fitted[k]) for k in KINDS},
        "accuracy": {k: {"held_out": evaluation[k]["held_out"]["accuracy"],
                         "leave_one_group_out": loao[k]} for k in KINDS},
        "reference": [{"name": n, "group": grp, "label": lab, "z": _floats(zz, 4),
                       "gains": {e: round(v, 4) for e, v in _gains(s).items()}}
                      for n, grp, lab, zz, s in zip(names, groups, y, z, data["samples"])],
    }
    check = Model(out, "trained model")
    for kind in KINDS:
        ours = check.predict(x, kind)
        theirs = list(fitted[kind].predict(z[:, columns(kind)]))
        if ours != theirs:
            bad = next(i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b)
            raise MpimatchError(f"internal error: the exported {kind} model predicts "
                                f"{ours[bad]} for {names[bad]}, scikit-learn {theirs[bad]}",
                                EXIT_FAILURE)
    return out


def _c_array(values: Sequence[float]) -> str:
    return "{" + ", ".join(repr(float(v)) for v in values) + "}"


def c_header(model: Mapping[str, Any]) -> str:
    """The online model as C constants: z_i = (x_i - mean[i]) / scale[i] on the ONLINE
    features (docs/advise.md, "Features"), a_c = intercept[c] + sum_i coef[c][i] z_i, the
    class with the largest a_c (two classes: one row, a_0 > 0 means classes[1])."""
    m = model["models"]["online"]
    idx = [FEATURES.index(f) for f in m["features"]]
    mean = [model["scaler"]["mean"][i] for i in idx]
    scale = [model["scaler"]["scale"][i] for i in idx]
    rows = m["coef"]
    lines = [
        "/* Generated by `mpimatch train --c-header` (seed %d): the advise model's \"online\""
        % model["seed"],
        " * logistic regression on features a matcher keeps in constant time per event",
        " * (docs/advise.md, \"Features\" and \"A rule in C\"). Do not edit. */",
        "#define MM_ADVISE_NCLASSES %d" % len(model["classes"]),
        "#define MM_ADVISE_NROWS %d /* rows of coef: 1 for two classes */" % len(rows),
        "#define MM_ADVISE_NFEATURES %d" % len(idx),
        "static const char *const mm_advise_classes[] = {%s};"
        % ", ".join(f'"{c}"' for c in model["classes"]),
        "static const char *const mm_advise_features[] = {%s};"
        % ", ".join(f'"{f}"' for f in m["features"]),
        "static const double mm_advise_mean[] = %s;" % _c_array(mean),
        "static const double mm_advise_scale[] = %s;" % _c_array(scale),
        "static const double mm_advise_coef[][%d] = {%s};" % (len(idx), ", ".join(
            _c_array(r) for r in rows)),
        "static const double mm_advise_intercept[] = %s;" % _c_array(m["intercept"]),
    ]
    return "\n".join(lines) + "\n"


def dumps(model: Mapping[str, Any]) -> str:
    """The model file's text (compact: coefficients and reference rows are most of it)."""
    import json
    return json.dumps(model, separators=(",", ":")) + "\n"


def pingpong_grid(data: Mapping[str, Any], group: str = "pingpong") -> str:
    """The labels of the preposted ping-pong samples, dead receives by message size (the
    MPI 4.0 hints paper's figure 6, as labels), as Markdown; "" without such samples.
    group "pingpong": the replayed grid (pingpong:n=N,bytes=B,...); "e2e": the end-to-end
    one (mpibench pingpong:dead=N,size=B,...)."""
    keys = ("dead", "size") if group == "e2e" else ("n", "bytes")
    grid: Dict[Tuple[int, int], str] = {}
    for s in data["samples"]:
        if s["group"] == group and ":" in s["name"]:
            kv = dict(p.split("=", 1) for p in s["name"].split(":", 1)[1].split(","))
            grid[(int(kv[keys[0]]), int(kv[keys[1]]))] = s["label"]
    if not grid:
        return ""
    ns = sorted({n for n, _ in grid})
    sizes = sorted({b for _, b in grid})
    lines = ["| dead receives N \\ bytes | " + " | ".join(str(b) for b in sizes) + " |",
             "| --- |" + " --- |" * len(sizes)]
    for n in ns:
        lines.append(f"| {n} | " + " | ".join(grid.get((n, b), "") for b in sizes) + " |")
    return "\n".join(lines) + "\n"


def e2e_apps_table(data: Mapping[str, Any]) -> str:
    """The end-to-end application samples (group e2e_apps) as Markdown: each engine's median
    time over the rounds (seconds), the label and why; "" without such samples."""
    rows = [s for s in data["samples"] if s["group"] == "e2e_apps"]
    if not rows:
        return ""
    engines = [e for e in data.get("candidates", []) if any(e in s["times_ns"] for s in rows)]
    lines = ["| application | timer | " + " | ".join(engines) + " | label | why |",
             "| --- | --- |" + " --- |" * len(engines) + " --- | --- |"]
    for s in rows:
        cells = [f"{s['times_ns'][e] / 1e9:.3f}" if e in s["times_ns"] else "-" for e in engines]
        lines.append(f"| {s['name']} | {s.get('timer', '')} | " + " | ".join(cells)
                     + f" | {s['label']} | {s.get('note', '')} |")
    return "\n".join(lines) + "\n"


def _gains(sample: Mapping[str, Any]) -> Dict[str, float]:
    t = sample["times_ns"]
    return {e: 1.0 - v / t["list"] for e, v in t.items()}


def markdown(evaluation: Mapping[str, Any]) -> str:
    """The evaluation as Markdown tables (docs/RESULTS.md, docs/advise.md)."""
    labels = evaluation["labels"]
    lines = [f"{evaluation['samples']} samples; labels: "
             + ", ".join(f"{c} {n}" for c, n in evaluation["label_counts"].items()), ""]
    lines += ["| model | held out | leave one group out |" + "".join(
        f" {k} |" for k in evaluation["logistic"].get("paper_protocol", {})),
        "| --- | --- | --- |" + " --- |" * len(evaluation["logistic"].get("paper_protocol", {}))]

    def pct(r: Mapping[str, Any]) -> str:
        return "-" if r["accuracy"] is None else f"{100 * r['accuracy']:.0f}% ({r['correct']}/{r['n']})"

    def pct2(r: Mapping[str, Any]) -> str:
        return "-" if r["binary_accuracy"] is None else \
            f"{100 * r['binary_accuracy']:.0f}% ({r['binary_correct']}/{r['n']})"

    for kind in KINDS:
        r = evaluation[kind]
        lines.append(f"| {kind} | {pct(r['held_out'])} | {pct(r['leave_one_group_out']['overall'])} |"
                     + "".join(f" {pct(v)} |" for v in r.get("paper_protocol", {}).values()))
    lines += ["", "The paper's binary question (list, or switch to another engine), same predictions:",
              "", "| model | held out | leave one group out |", "| --- | --- | --- |"]
    for kind in KINDS:
        r = evaluation[kind]
        lines.append(f"| {kind} | {pct2(r['held_out'])} | {pct2(r['leave_one_group_out']['overall'])} |")
    lines += ["", "Leave one group out, accuracy per held-out group:", "",
              "| group | samples |" + "".join(f" {k} |" for k in KINDS),
              "| --- | --- |" + " --- |" * len(KINDS)]
    for grp, n in evaluation["groups"].items():
        row = [evaluation[k]["leave_one_group_out"]["groups"].get(grp) for k in KINDS]
        lines.append(f"| {grp} | {n} |" + "".join(f" {pct(r) if r else '-'} |" for r in row))
    for kind in KINDS:
        for title, r in (("held out", evaluation[kind]["held_out"]),
                         ("leave one group out", evaluation[kind]["leave_one_group_out"]["overall"])):
            lines += ["", f"Confusion matrix, {kind}, {title} (rows: measured label, columns: "
                          f"predicted):", "", "| | " + " | ".join(labels) + " |",
                      "| --- |" + " --- |" * len(labels)]
            for c, row in zip(labels, r["confusion"]):
                lines.append(f"| {c} | " + " | ".join(str(v) for v in row) + " |")
    return "\n".join(lines) + "\n"
