"""The bench report as one self-contained HTML file: inline CSS, plots embedded
as base64 PNGs, no scripts and nothing fetched from elsewhere."""
from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Tuple

from .output import RESULT_HEADERS, results_rows, target_status, target_value

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px; color: #222; }
h1 { font-size: 1.5em; } h2 { font-size: 1.2em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; } td.l, th.l { text-align: left; }
tr.first td { border-top: 2px solid #888; }
.met { color: #176f2c; font-weight: bold; } .missed { color: #b00020; font-weight: bold; }
.mixed { color: #8a6d00; font-weight: bold; }
.unmeasured { color: #8a6d00; } .note { color: #555; font-size: 0.9em; }
dl { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dt { color: #555; } dd { margin: 0; }
figure { margin: 1.5em 0; } figure img { max-width: 100%; border: 1px solid #ddd; }
figcaption { color: #444; font-size: 0.9em; }
"""


def _table(headers: Sequence[str], rows: Sequence[Tuple[str, Sequence[str]]], left: int = 1) -> str:
    """rows: (css class of the row, cells); the first `left` columns align left."""
    head = "".join(f'<th class="{"l" if i < left else ""}">{escape(h)}</th>'
                   for i, h in enumerate(headers))
    body = "".join(
        f'<tr class="{cls}">' + "".join(f'<td class="{"l" if i < left else ""}">{c}</td>'
                                        for i, c in enumerate(cells)) + "</tr>\n"
        for cls, cells in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>\n{body}</tbody></table>\n"


def _targets(doc: Mapping[str, Any]) -> str:
    rows = []
    for t in doc["targets"]:
        status = target_status(t)
        cls = {True: "met", False: "missed"}.get(t["met"], "mixed" if t.get("status") == "mixed"
                                                  else "unmeasured")
        rows.append(("", [escape(t["description"]),
                          escape(f"{t['relation']} {target_value(t, 'wanted')}"),
                          escape(target_value(t, "measured")),
                          f'<span class="{cls}">{escape(status)}</span>']))
    missed = [t for t in doc["targets"] if t["met"] is False]
    mixed = [t for t in doc["targets"] if t.get("status") == "mixed"]
    summary = (f'<p class="missed">{len(missed)} of {len(doc["targets"])} speed targets missed '
               'in every run: ' + escape(", ".join(t["name"] for t in missed)) + "</p>") if missed else ""
    summary += (f'<p class="mixed">{len(mixed)} met in some runs only: '
                + escape(", ".join(t["name"] for t in mixed)) + "</p>") if mixed else ""
    return summary + _table(["target", "wanted", "measured", "status"], rows)


# A suite's own results table: its headers, rows grouped by workload spec, the note above it.
Results = Tuple[Sequence[str], Mapping[str, Sequence[Sequence[str]]], str]
RESULTS_NOTE = ("Median ns per event over the repetitions (q1–q3: the quartiles); speed-up = "
                "list's median / the engine's, on the same workload; depths are elements "
                "inspected per search.")


def _results(doc: Mapping[str, Any], results: Optional[Results] = None) -> str:
    headers, groups, _ = results or (RESULT_HEADERS, results_rows(doc["records"]), "")
    rows: List[Tuple[str, Sequence[str]]] = []
    for spec, group in groups.items():
        for i, cells in enumerate(group):
            rows.append(("first" if i == 0 else "",
                         [escape(spec) if i == 0 else "", *(escape(c) for c in cells)]))
    return _table(["workload", *(h.replace("\n", " ") for h in headers)], rows, left=2)


def _machine(doc: Mapping[str, Any]) -> str:
    m = doc.get("machine") or {}
    items = [("suite", f"{doc['suite']}: {doc.get('suite_summary', '')}"),
             ("repetitions", str(doc["reps"])),
             ("hash seed", f"{doc.get('seed')} (seed= of the hashed engines)"),
             ("runs", f"{doc.get('runs', 1)} (times: median across runs, min–max; a comparison "
                      "or target holds only when it holds in every run)"),
             ("command", str(doc.get("command", "-"))),
             ("load average before, after", str((doc.get("load_average") or {}).get("before")) + ", "
              + str((doc.get("load_average") or {}).get("after"))),
             ("workloads built by", str(doc.get("generator"))),
             ("started", str(doc.get("started"))), ("finished", str(doc.get("finished"))),
             ("CPU", f"{m.get('cpu')} ({m.get('cores')} cores)"), ("OS", str(m.get("os"))),
             ("compiler", str(m.get("compiler"))), ("build type", str(m.get("build_type"))),
             ("tool", f"{doc['tool']} {doc['version']}")]
    return "<dl>" + "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in items) + "</dl>\n"


def _figures(plots: Sequence[Tuple[str, str]], directory: Path) -> str:
    out = []
    for name, caption in plots:
        data = base64.b64encode((directory / name).read_bytes()).decode("ascii")
        out.append(f'<figure><img alt="{escape(caption)}" src="data:image/png;base64,{data}">'
                   f"<figcaption>{escape(caption)} <span class=\"note\">({escape(name)})</span>"
                   f"</figcaption></figure>\n")
    return "".join(out) or '<p class="note">No plots: no run produced a time.</p>\n'


def html_report(doc: Mapping[str, Any], plots: Sequence[Tuple[str, str]], plot_dir: Path,
                results: Optional[Results] = None) -> str:
    """The report; `results` replaces the replay suites' results table (suite mpi)."""
    skipped = "".join(f"<li>{escape(s['engine'])} on {escape(s['workload'])}: {escape(s['reason'])}</li>"
                      for s in doc["skipped"])
    synthetic = sorted({r["workload"]["spec"] for r in doc["records"] if r["workload"]["synthetic"]})
    return "".join([
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
        f"<title>mpimatch bench: {escape(doc['suite'])}</title><style>{CSS}</style></head><body>\n",
        f"<h1>mpimatch bench: suite {escape(doc['suite'])}</h1>\n", _machine(doc),
        "<h2>Speed targets</h2>\n<p class=\"note\">Targets, not tests: a missed target is reported, "
        "the run still succeeds. Times are medians over the repetitions.</p>\n", _targets(doc),
        f"<h2>Results</h2>\n<p class=\"note\">{escape(results[2] if results else RESULTS_NOTE)}</p>\n",
        _results(doc, results),
        (f"<p class=\"note\">Synthetic application profiles (not real traces): "
         f"{escape(', '.join(synthetic))}</p>\n" if synthetic else ""),
        (f"<h2>Skipped</h2><ul>{skipped}</ul>\n" if skipped else ""),
        "<h2>Plots</h2>\n", _figures(plots, plot_dir),
        "</body></html>\n"])
