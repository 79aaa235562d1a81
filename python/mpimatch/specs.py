"""Specs "NAME[:key=value,...]" for workloads and engines, checked against a catalogue.

A catalogue is what `mpimatch-gen --list --json` prints for workloads, or what
`mpimatch-replay --list --json` prints for engines: a list of
{name, params: [{name, doc, default, min, max, choices?}], ...}. The same
parser and checker serve both, so `--workload shuffle:n=4096` and
`--engines bins:bins=16` fail the same way: an unknown name lists the known
ones, an unknown key lists the parameters, a value out of range gives the
range (or the choices). This is the Python side's one key=value parser: suite
items, `mpimatch bench --workload` and `--param ENGINE:KEY=VALUE` all go
through parse(); the C tools parse what they are given again (mpimatch-gen,
mpimatch-replay), from the same catalogues.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple, Union

from .errors import MpimatchError

Value = Union[int, str]
Params = Tuple[Tuple[str, Value], ...]

# Every workload generator takes a seed (tools/gen/gen.h), listed or not.
SEED = {"name": "seed", "doc": "random seed", "default": 1, "min": 0, "max": 2**64 - 1}


def parse(text: str, what: str) -> Tuple[str, Dict[str, str]]:
    """Split "NAME[:k=v,...]" into the name and the raw key=value strings (syntax only)."""
    name, _, rest = text.strip().partition(":")
    if not name:
        raise MpimatchError(f"{what} '{text}': no name before ':' (expected NAME[:key=value,...])")
    raw: Dict[str, str] = {}
    for item in filter(None, (s.strip() for s in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise MpimatchError(f"{what} '{text}': '{item}' is not key=value")
        if key in raw:
            raise MpimatchError(f"{what} '{text}': '{key}' given twice")
        raw[key] = value
    return name, raw


def fmt(name: str, params: Mapping[str, Value]) -> str:
    """The spec text: "shuffle:n=4096,seed=1" (just the name when there are no params)."""
    return name + (":" + ",".join(f"{k}={v}" for k, v in params.items()) if params else "")


def find(catalogue: Sequence[Mapping[str, Any]], name: str, what: str) -> Mapping[str, Any]:
    for entry in catalogue:
        if entry.get("name") == name:
            return entry
    known = ", ".join(str(e.get("name")) for e in catalogue) or "(none)"
    raise MpimatchError(f"unknown {what} '{name}'; known: {known}")


def param_table(entry: Mapping[str, Any], with_seed: bool) -> List[Mapping[str, Any]]:
    table = list(entry.get("params") or [])
    if with_seed and not any(p.get("name") == "seed" for p in table):
        table.append(SEED)
    return table


def _describe(p: Mapping[str, Any]) -> str:
    if p.get("choices"):
        return f"{p['name']} (one of {'|'.join(map(str, p['choices']))})"
    if p.get("type") == "file":
        return f"{p['name']} (a file)"
    return f"{p['name']} ({p.get('min')}..{p.get('max')})"


def _default(p: Mapping[str, Any]) -> Value:
    choices, d = p.get("choices"), p.get("default")
    if choices and isinstance(d, int) and 0 <= d < len(choices):   # gen.h stores an index
        return str(choices[d])
    return d


def _value(p: Mapping[str, Any], raw: Any, where: str) -> Value:
    if p.get("type") == "file":             # an engine's MM_PARAM_FILE parameter: a path
        if not Path(str(raw)).is_file():
            raise MpimatchError(f"{where}: {p['name']}={raw}: no such file")
        return str(raw)
    choices = p.get("choices")
    if choices:
        if str(raw) not in map(str, choices):
            raise MpimatchError(f"{where}: {p['name']}={raw} is not one of "
                                f"{', '.join(map(str, choices))}")
        return str(raw)
    try:
        value = int(str(raw), 10)
    except ValueError:
        raise MpimatchError(f"{where}: {p['name']}={raw} is not an integer") from None
    lo, hi = p.get("min"), p.get("max")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise MpimatchError(f"{where}: {p['name']}={value} is out of range {lo}..{hi}")
    return value


def check(catalogue: Sequence[Mapping[str, Any]], name: str, given: Mapping[str, Any],
          what: str, with_seed: bool = False, fill_defaults: bool = True) -> Dict[str, Value]:
    """The checked parameters of `name`: every parameter with its default filled in
    (fill_defaults) or only the ones given, in the catalogue's order."""
    entry = find(catalogue, name, what)
    table = param_table(entry, with_seed)
    where = f"{what} '{fmt(name, given)}'"
    names = [p["name"] for p in table]
    for key in given:
        if key not in names:
            allowed = ", ".join(_describe(p) for p in table) or "none"
            raise MpimatchError(f"{where}: unknown parameter '{key}'; parameters: {allowed}")
    out: Dict[str, Value] = {}
    for p in table:
        if p["name"] in given:
            out[p["name"]] = _value(p, given[p["name"]], where)
        elif fill_defaults:
            out[p["name"]] = _default(p)
    return out


def check_text(catalogue: Sequence[Mapping[str, Any]], text: str, what: str,
               with_seed: bool = False, fill_defaults: bool = True) -> Tuple[str, Dict[str, Value]]:
    name, raw = parse(text, what)
    return name, check(catalogue, name, raw, what, with_seed, fill_defaults)


def entry_flag(catalogue: Sequence[Mapping[str, Any]], name: str, key: str) -> Optional[Any]:
    for entry in catalogue:
        if entry.get("name") == name:
            return entry.get(key)
    return None
