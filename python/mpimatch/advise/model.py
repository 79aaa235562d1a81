"""The shipped classifier, evaluated with numpy alone (no scikit-learn, no pickle): a JSON
file of coefficients written by `mpimatch train` (docs/advise.md, "The model file").

Three models share one standardisation (z = (x - mean) / scale on the feature vector of
features.py): multinomial logistic regression (softmax of W z + b), an RBF support vector
machine (one-vs-one votes, as libsvm) and a multilayer perceptron (ReLU hidden layers,
softmax or, for two classes, logistic output).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from ..errors import MpimatchError
from .features import FEATURES, ONLINE, load_checked

MODEL_FORMAT = "mpimatch-advise-model"
VERSION = 1
SHIPPED = Path(__file__).with_name("model.json")
PAPER_KINDS = ("logistic", "svm", "mlp")     # the paper's three
KINDS = PAPER_KINDS + ("online",)           # online: logistic on the ONLINE features only


def _softmax(a: np.ndarray) -> np.ndarray:
    a = a - a.max(axis=-1, keepdims=True)
    e = np.exp(a)
    return e / e.sum(axis=-1, keepdims=True)


def _sigmoid(a: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-a))


def _two_class(p1: np.ndarray) -> np.ndarray:
    return np.stack([1.0 - p1, p1], axis=-1)


class Model:
    """One loaded model file."""

    def __init__(self, data: Mapping[str, Any], where: str = "model") -> None:
        self.where = where
        self.data = data
        self.classes: List[str] = list(data["classes"])
        self.mean = np.array(data["scaler"]["mean"], dtype=float)
        self.scale = np.array(data["scaler"]["scale"], dtype=float)
        self.models = data["models"]
        self.default: str = data["default"]
        if self.mean.shape != (len(FEATURES),) or self.scale.shape != (len(FEATURES),):
            raise MpimatchError(f"{where}: the scaler does not have {len(FEATURES)} features")
        for kind in self.models:
            if kind not in KINDS:
                raise MpimatchError(f"{where}: unknown model kind '{kind}'")
        if self.default not in self.models:
            raise MpimatchError(f"{where}: default model '{self.default}' is not in the file")

    def standardise(self, x: Sequence[float]) -> np.ndarray:
        return (np.asarray(x, dtype=float) - self.mean) / self.scale

    def scores(self, x: Sequence[float], kind: Optional[str] = None) -> np.ndarray:
        """Per class, in self.classes order: probabilities (logistic, mlp, online) or, for
        svm, the share of its one-vs-one contests the class won (the winner of every one
        scores 1). x: one raw feature vector, or a matrix of them."""
        kind = kind or self.default
        m = self.models[kind]
        z = self.standardise(x)
        if "features" in m:     # a model on a subset of the vector (online)
            z = z[..., [FEATURES.index(f) for f in m["features"]]]
        if kind in ("logistic", "online"):
            a = z @ np.array(m["coef"]).T + np.array(m["intercept"])
            return _two_class(_sigmoid(a[..., 0])) if len(self.classes) == 2 else _softmax(a)
        if kind == "mlp":
            h = z
            layers = list(zip(m["coefs"], m["intercepts"]))
            for w, b in layers[:-1]:
                h = np.maximum(h @ np.array(w) + np.array(b), 0.0)
            w, b = layers[-1]
            a = h @ np.array(w) + np.array(b)
            return _two_class(_sigmoid(a[..., 0])) if len(self.classes) == 2 else _softmax(a)
        return self._svm_votes(z, m)

    def _svm_votes(self, z: np.ndarray, m: Mapping[str, Any]) -> np.ndarray:
        single = z.ndim == 1
        z = np.atleast_2d(z)
        sv = np.array(m["support_vectors"])
        dual = np.array(m["dual_coef"])
        n_sv = m["n_support"]
        k = np.exp(-m["gamma"] * ((z[:, None, :] - sv[None, :, :]) ** 2).sum(-1))
        starts = np.concatenate([[0], np.cumsum(n_sv)])
        nc = len(self.classes)
        votes = np.zeros((z.shape[0], nc))
        p = 0
        for i in range(nc):
            for j in range(i + 1, nc):
                si = slice(starts[i], starts[i + 1])
                sj = slice(starts[j], starts[j + 1])
                dec = k[:, si] @ dual[j - 1, si] + k[:, sj] @ dual[i, sj] + m["intercept"][p]
                votes[:, i] += dec > 0
                votes[:, j] += dec <= 0
                p += 1
        votes /= max(nc - 1, 1)          # the share of its contests each class won
        return votes[0] if single else votes

    def predict(self, x: Sequence[float], kind: Optional[str] = None) -> List[str]:
        s = np.atleast_2d(self.scores(x, kind))
        return [self.classes[i] for i in s.argmax(axis=1)]


def load(path: Optional[Path] = None) -> Model:
    """The model at path, or the shipped one."""
    path = Path(path) if path else SHIPPED
    data = load_checked(path, MODEL_FORMAT, VERSION, "model", "mpimatch train")
    try:
        return Model(data, str(path))
    except (KeyError, TypeError, ValueError) as err:
        raise MpimatchError(f"{path}: malformed model: {err!r}") from None


def nearest_gain(model: Model, x: Sequence[float], engine: str, k: int = 5) -> Optional[Dict[str, Any]]:
    """The measured gains of `engine` over list (the fraction of list's total time saved) on
    the k training samples nearest to x (in the standardised feature space): median, range,
    and the samples' names. For engine list: the gains of each sample's best other engine."""
    ref = model.data.get("reference")
    if not ref:
        return None
    z = model.standardise(x)
    def gain(r: Mapping[str, Any]) -> Optional[float]:
        if engine == "list":
            return max((v for e, v in r["gains"].items() if e != "list"), default=None)
        return r["gains"].get(engine)

    rows = [(float(np.linalg.norm(np.array(r["z"]) - z)), gain(r), r) for r in ref]
    rows = sorted((t for t in rows if t[1] is not None), key=lambda t: t[0])
    if not rows:
        return None
    near = rows[:k]
    gains = [g for _, g, _ in near]
    return {"median": float(np.median(gains)), "min": min(gains), "max": max(gains),
            "samples": [r["name"] for _, _, r in near]}
