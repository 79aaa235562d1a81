"""docs/RESULTS.md tables from the per-path timings of a paper-suite run
(records with a "paths" object, mpimatch-replay --paths): the MPC-MPI hints paper's Table I
(hash against NewMadeleine, path by path) and Schonbein et al.'s (Euro-Par 2018) queue drain times
(figs. 1b-4b), each beside the numbers the papers print.

Used by results_tables.py (`path_tables`). Nothing is computed that is not in
the JSON or in the papers' text quoted below.
"""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpimatch.bench import runs as multi        # noqa: E402  (the every-run rule)

# The MPC-MPI hints paper, Table I: time per request in µs (HT: the hash table, NM: NewMadeleine).
TABLE1_PATHS = ("fail_from_recv", "success_from_recv", "fail_from_send", "success_from_send")
TABLE1_NAMES = ("fail from recv", "success from recv", "fail from send", "success from send")
TABLE1_PAPER = {"hash": (0.44, 0.30, 0.44, 0.30), "nm": (0.44, 0.42, 1.25, 0.30)}

# Schonbein et al., Euro-Par 2018, section 4.2: (workload, params that identify the run) -> (label, M_t as the
# paper states it, mean search depth, drain time in µs, the drain time as printed).
# None where the text gives no number. "147147 ms" is as printed (likely 147.147 ms).
P003_PAPER: List[Tuple[str, Dict[str, Any], str, Optional[int], Any, Optional[float], str]] = [
    ("stencil_naive", {"msgs": 26, "threads": 64}, "naive 27-pt, 64 threads", 1664, None, None,
     "> 4 ms"),
    ("stencil_naive", {"msgs": 26, "threads": 256}, "naive 27-pt, 256 threads", 6656,
     "> 1000", None, "147147 ms (sic)"),
    ("stencil_naive", {"msgs": 512, "threads": 64}, "naive 512 msgs, 64 threads", 32768,
     "> 3000", None, "-"),
    ("stencil2d", {"lx": 32, "ly": 32, "points": "5pt"}, "2D 32x32 5-pt", 128, 35.512, 91.78,
     "91.78 µs"),
    ("stencil2d", {"lx": 32, "ly": 32, "points": "9pt"}, "2D 32x32 9-pt", 380, 85.18, 486.54,
     "486.54 µs"),
    ("stencil3d", {"lx": 4, "ly": 4, "lz": 4, "points": "7pt"}, "3D 4x4x4 7-pt", 96, 25.1,
     41.02, "41.02 µs"),
    ("stencil3d", {"lx": 4, "ly": 4, "lz": 4, "points": "27pt"}, "3D 4x4x4 27-pt", 728, 135.86,
     1044.17, "1044.17 µs"),
    ("stencil3d", {"lx": 8, "ly": 8, "lz": 4, "points": "7pt"}, "3D 8x8x4 7-pt", 256, 65.85,
     479.15, "479.15 µs"),
    ("stencil3d", {"lx": 8, "ly": 8, "lz": 4, "points": "27pt"}, "3D 8x8x4 27-pt", 2072, 410.02,
     14860.0, "14.86 ms"),
    ("stencil_linear", {"lz": 256, "points": "7pt"}, "linear 1x1x256 7-pt", 576, 114.81, 3290.0,
     "3.29 ms"),
    ("stencil_linear", {"lz": 256, "points": "27pt"}, "linear 1x1x256 27-pt", 6146, 967.27,
     163050.0, "163.05 ms"),
]


def _f(v: Any, digits: int = 1) -> str:
    return f"{v:.{digits}f}" if isinstance(v, (int, float)) and not isinstance(v, bool) else "-"


def _path(rec: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    return ((rec.get("paths") or {}).get("by_path") or {}).get(name) or {}


def _ns(rec: Optional[Mapping[str, Any]], name: str) -> Optional[float]:
    return (_path(rec, name).get("ns_per_event") or {}).get("median") if rec else None


def _flag(rec: Optional[Mapping[str, Any]], name: str) -> str:
    return " *" if rec and _path(rec, name).get("timer_dominated") else ""


def table1(recs: Sequence[Mapping[str, Any]]) -> Optional[str]:
    """The MPC-MPI hints paper's Table I beside ours: one row per path, HT/NM ratios side by side."""
    mine = [r for r in recs if "p002-table1" in r.get("figures", []) and r.get("paths")]
    by = {r["run"]: r for r in mine}
    if not mine:
        return None
    ht, nm = by.get("hash"), by.get("nm")
    lines = ["| path | paper HT µs | paper NM µs | paper HT/NM | hash ns (q1-q3) | nm ns (q1-q3) "
             "| ours hash/nm | events, segments |", "|" + "---|" * 8]
    for i, (name, label) in enumerate(zip(TABLE1_PATHS, TABLE1_NAMES)):
        ph, pn = TABLE1_PAPER["hash"][i], TABLE1_PAPER["nm"][i]
        cells = [label, f"{ph:.2f}", f"{pn:.2f}", f"{ph / pn:.2f}"]
        for r in (ht, nm):
            q = _path(r, name).get("ns_per_event") or {} if r else {}
            cells.append(f"{_f(q.get('median'))} ({_f(q.get('q1'))}-{_f(q.get('q3'))})"
                         f"{_flag(r, name)}" if q else "-")
        cells.append(_ratio_cell(ht, nm, name))
        p = _path(ht or nm, name)
        cells.append(f"{p.get('events', '-')}, {p.get('segments', '-')}")
        lines.append("| " + " | ".join(cells) + " |")
    spec = mine[0]["workload"]["spec"]
    clock = ", ".join(f"{r['run']} {_f((r.get('paths') or {}).get('clock_ns'))} ns"
                      for r in (ht, nm) if r)
    lines.append("")
    lines.append(f"Workload `{spec}`; one clock read ({clock}) subtracted per segment; "
                 "`*`: timer-dominated.")
    if ht and nm:
        lines.append("")
        lines += [_verdict(ht, nm, name, label) for name, label in zip(TABLE1_PATHS, TABLE1_NAMES)]
    return "\n".join(lines)


def _hash_over_nm(ht: Mapping[str, Any], nm: Mapping[str, Any], name: str) -> List[Optional[float]]:
    """hash's time over nm's on one path, run by run (one value without per_run)."""
    return multi.pair_ratios(nm, ht, lambda run: _ns(run, name))


def _ratio_cell(ht: Optional[Mapping[str, Any]], nm: Optional[Mapping[str, Any]], name: str) -> str:
    if not ht or not nm:
        return "-"
    sp = multi.span(_hash_over_nm(ht, nm, name))
    if not sp:
        return "-"
    return _f(sp["median"], 2) + (f" ({sp['min']:.2f}–{sp['max']:.2f})" if len(sp["values"]) > 1 else "")


def _verdict(ht: Mapping[str, Any], nm: Mapping[str, Any], name: str, label: str) -> str:
    """hash against nm on one path, stated only when it holds in every run."""
    ratios = _hash_over_nm(ht, nm, name)
    d = multi.direction(ratios)         # of hash/nm: "slower" (below 1) means hash is faster
    k = len(ratios)
    runs = f"in every one of the {k} runs" if k > 1 else "in the one run"
    word = {multi.FASTER: "slower", multi.SLOWER: "faster"}.get(d or "")
    return (f"- {label}: hash is {word} than nm {runs}" if word else
            f"- {label}: hash against nm: {'within noise' if d else 'not measured in every run'}")


def _matches(rec: Mapping[str, Any], name: str, params: Mapping[str, Any]) -> bool:
    wl = rec["workload"]
    got = wl.get("params") or {}
    return wl.get("name") == name and all(got.get(k) == v for k, v in params.items())


def _paper_row(rec: Mapping[str, Any]):
    return next((p for p in P003_PAPER if _matches(rec, p[0], p[1])), None)


def _row_name(rec: Mapping[str, Any]) -> str:
    wl, params = rec["workload"], rec["workload"].get("params") or {}
    keys = [k for k in ("threads", "msgs", "lx", "ly", "lz", "points") if k in params]
    return wl["name"] + " " + ",".join(f"{k}={params[k]}" for k in keys)


def drain(recs: Sequence[Mapping[str, Any]]) -> Optional[str]:
    """Schonbein et al., Euro-Par 2018 drain times: per BSP phase, the time of the success-from-send segment
    (the arrivals that drain the M_t preposted receives), for list and hash."""
    mine = [r for r in recs if r.get("paths")
            and any(f.startswith("p003") for f in r.get("figures", []))]
    if not mine:
        return None
    rows: Dict[str, Dict[str, Mapping[str, Any]]] = {}
    for r in mine:
        rows.setdefault(r["workload"]["spec"], {})[r["run"]] = r
    lines = ["| workload | M_t | list depth | list drain µs | list ns/elem | hash drain µs "
             "| paper M_t | paper depth | paper drain | paper ns/elem |", "|" + "---|" * 10]
    for spec, by in rows.items():
        lst, hsh = by.get("list"), by.get("hash")
        any_rec = lst or hsh
        s = _path(any_rec, "success_from_send")
        mt = s["events"] / s["segments"] if s.get("segments") else None
        depth = (lst or {}).get("prq", {}).get("mean_depth")
        d_list = _path(lst, "success_from_send").get("ns_per_segment") if lst else None
        d_hash = _path(hsh, "success_from_send").get("ns_per_segment") if hsh else None
        per_elem = d_list / (mt * depth) if d_list is not None and mt and depth else None
        paper = _paper_row(any_rec)
        pmt = pdepth = pdrain = pelem = "-"
        if paper:
            _, _, _, p_mt, p_depth, p_us, p_text = paper
            pmt, pdepth, pdrain = str(p_mt), str(p_depth) if p_depth is not None else "-", p_text
            if isinstance(p_depth, float) and p_us is not None:
                pelem = _f(p_us * 1e3 / (p_mt * p_depth))
        lines.append("| " + " | ".join([
            _row_name(any_rec), _f(mt, 0), _f(depth),
            _f(d_list / 1e3 if d_list is not None else None, 2) + _flag(lst, "success_from_send"),
            _f(per_elem, 2),
            _f(d_hash / 1e3 if d_hash is not None else None, 2) + _flag(hsh, "success_from_send"),
            pmt, pdepth, pdrain, pelem]) + " |")
    lines.append("")
    lines.append("Drain = `ns_per_segment` of `success_from_send` (one segment per phase: the "
                 "M_t arrivals), median run; ns/elem = drain / (M_t × list's mean PRQ depth); "
                 "`*`: timer-dominated.")
    return "\n".join(lines)


def path_tables(recs: Iterable[Mapping[str, Any]]) -> List[Tuple[str, str]]:
    """(title, Markdown) for each per-path table the run has data for."""
    recs = list(recs)
    out = [("p002-table1 by path (the MPC-MPI hints paper's Table I)", table1(recs)),
           ("p003 drain times (Schonbein et al., Euro-Par 2018 figs. 1b-4b)", drain(recs))]
    return [(title, text) for title, text in out if text]
