"""`mpimatch queues DIR`: what each rank of a running or hung job waits for.

Reads the snapshots the provider writes on a signal (FI_MPIMATCH_DUMP=DIR, one
mpimatch-snap-<host>-<pid>-<ep>.json per endpoint; docs/queues.md), shows them side by side
(console, and a self-contained HTML page), and works out across ranks:

- receives that nothing can match: no unexpected message at that rank matches them and
  nothing is in flight towards it on any channel (a likely deadlock: the ranks and keys
  are named, and cycles of ranks waiting for each other are found);
- unexpected messages that no posted receive takes, with the receive they nearly match
  (another tag, another communicator, MPI_ANY_TAG against a negative tag, ...).

Keys are Open MPI's, as the provider decodes them (docs/provider.md): communicator id
(cid), source (MPI_COMM_WORLD rank, the fi_addr), tag; ACK receives are the
acknowledgements of synchronous sends."""
from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

from rich.console import Console, Group
from rich.table import Table
from rich.text import Text

from .atomic import write_atomic
from .errors import MpimatchError

SNAP_GLOB = "mpimatch-snap-*.json"
SIDE_KEYS = ("posted", "unexpected")


# ---------------------------------------------------------------- reading

def _check_rec(path: Path, where: str, i: int, r: Any) -> None:
    if not isinstance(r, dict):
        raise MpimatchError(f"{path}: {where}[{i}] is not an object")
    for k in ("src", "tag", "bytes"):
        if k not in r:
            raise MpimatchError(f"{path}: {where}[{i}] has no '{k}'")


def load_snapshot(path: Path) -> Dict[str, Any]:
    """One snapshot file, checked: a truncated or foreign file is an error naming it."""
    try:
        text = path.read_text()
    except OSError as err:
        raise MpimatchError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        snap = json.loads(text)
    except json.JSONDecodeError as err:
        raise MpimatchError(f"{path}:{err.lineno}: not a complete snapshot ({err.msg}, "
                            f"column {err.colno})") from None
    if not isinstance(snap, dict) or snap.get("kind") != "snapshot":
        raise MpimatchError(f"{path}: not a snapshot of libmpimatch-fi (no \"kind\": \"snapshot\")")
    for k in ("rank", "np", "pid", "posted", "unexpected", "channels"):
        if k not in snap:
            raise MpimatchError(f"{path}: snapshot has no '{k}'")
    for k in SIDE_KEYS:
        if not isinstance(snap[k], list):
            raise MpimatchError(f"{path}: '{k}' is not a list")
        for i, r in enumerate(snap[k]):
            _check_rec(path, k, i, r)
    if not isinstance(snap["rank"], int) or not isinstance(snap["np"], int):
        raise MpimatchError(f"{path}: 'rank' and 'np' must be integers")
    snap["file"] = path.name
    return snap


def load_dir(d: Path) -> Tuple[Dict[int, Dict[str, Any]], List[str]]:
    """The newest snapshot of every rank in d, and notes (older snapshots left aside)."""
    if not d.is_dir():
        raise MpimatchError(f"{d}: not a directory")
    files = sorted(d.glob(SNAP_GLOB))
    if not files:
        raise MpimatchError(f"{d}: no snapshots ({SNAP_GLOB}): run the job with "
                            f"FI_MPIMATCH_DUMP={d} (mpimatch run --dump {d}) and send it "
                            f"SIGUSR2 (kill -USR2 <mpirun pid>)")
    by_rank: Dict[int, Dict[str, Any]] = {}
    notes: List[str] = []
    for f in files:
        s = load_snapshot(f)
        old = by_rank.get(s["rank"])
        if old is not None:
            keep, drop = (s, old) if s.get("time", 0) >= old.get("time", 0) else (old, s)
            notes.append(f"rank {s['rank']}: {drop['file']} left aside, {keep['file']} is newer")
            s = keep
        by_rank[s["rank"]] = s
    for rank, s in sorted(by_rank.items()):
        for side in SIDE_KEYS:
            total = s.get(f"{side}_total", len(s[side]))
            if isinstance(total, int) and total > len(s[side]):
                notes.append(f"rank {rank}: the snapshot lists {len(s[side])} of {total} {side} "
                             f"(the provider writes at most 1000 per queue)")
    times = [s.get("time", 0) for s in by_rank.values()]
    if times and max(times) - min(times) > 5:
        notes.append(f"the snapshots were taken {max(times) - min(times):.0f} s apart: "
                     f"they may come from different requests (or jobs)")
    return by_rank, notes


# ---------------------------------------------------------------- keys

def key_text(r: Dict[str, Any], recv: bool) -> str:
    if r.get("untagged"):
        return "untagged"
    src = "ANY_SOURCE" if r.get("src") is None else f"rank {r['src']}"
    tag = "ANY_TAG" if r.get("tag") is None else str(r["tag"])
    s = f"cid {r.get('cid')}, from {src}, tag {tag}"
    if r.get("ack"):
        s += " (ACK of a synchronous send)"
    if isinstance(r.get("tag"), int) and r["tag"] < 0:
        s += " (negative: MPI-internal)"
    return s


def matches(r: Dict[str, Any], m: Dict[str, Any]) -> bool:
    """The MPI rule on decoded keys (ANY_TAG takes tags >= 0 only)."""
    if bool(r.get("untagged")) != bool(m.get("untagged")):
        return False
    if r.get("untagged"):
        return r.get("src") is None or r.get("src") == m.get("src")
    if r.get("cid") != m.get("cid") or int(r.get("ack") or 0) != int(m.get("ack") or 0):
        return False
    if r.get("src") is not None and r.get("src") != m.get("src"):
        return False
    if r.get("tag") is None:
        return isinstance(m.get("tag"), int) and m["tag"] >= 0
    return bool(r.get("tag") == m.get("tag"))


def near_miss(r: Dict[str, Any], m: Dict[str, Any]) -> Optional[str]:
    """Why receive r does not take message m when they differ in one field only."""
    if r.get("untagged") or m.get("untagged") or int(r.get("ack") or 0) != int(m.get("ack") or 0):
        return None
    same_cid = r.get("cid") == m.get("cid")
    same_src = r.get("src") is None or r.get("src") == m.get("src")
    if r.get("tag") is None:
        tag_ok = isinstance(m.get("tag"), int) and m["tag"] >= 0
        if same_cid and same_src and not tag_ok:
            return (f"MPI_ANY_TAG never matches the negative tag {m.get('tag')} "
                    f"(tags below 0 are the MPI library's own, e.g. a collective's)")
        return None
    same_tag = r.get("tag") == m.get("tag")
    if same_cid and same_src and not same_tag:
        return f"tag {r.get('tag')} posted, tag {m.get('tag')} sent"
    if same_cid and same_tag and not same_src:
        return f"source rank {r.get('src')} posted, rank {m.get('src')} sent"
    if same_src and same_tag and not same_cid:
        return f"communicator cid {r.get('cid')} posted, cid {m.get('cid')} sent"
    return None


# ---------------------------------------------------------------- analysis

def _in_flight(snaps: Dict[int, Dict[str, Any]], dest: int) -> Dict[Optional[int], int]:
    """What is on its way to rank dest, by source: cells or bytes written and not yet
    read, seen from either end of each connection."""
    out: Dict[Optional[int], int] = {}
    for c in snaps.get(dest, {}).get("channels", []):
        n = int(c.get("cells_in") or 0) + int(c.get("rx_bytes_unparsed") or 0)
        if n:
            out[c.get("peer")] = out.get(c.get("peer"), 0) + n
    for rank, s in snaps.items():
        if rank == dest:
            continue
        for c in s.get("channels", []):
            if c.get("peer") == dest:
                n = int(c.get("cells_out") or 0) + int(c.get("tx_bytes_queued") or 0)
                if n:
                    out[rank] = out.get(rank, 0) + n
    return out


def analyse(snaps: Dict[int, Dict[str, Any]]) -> Dict[str, Any]:
    np_ = max([s["np"] for s in snaps.values()] + [max(snaps) + 1])
    missing = [r for r in range(np_) if r not in snaps]
    stuck: List[Dict[str, Any]] = []       # receives nothing can match
    pending: List[Dict[str, Any]] = []     # receives something in flight may match
    orphans: List[Dict[str, Any]] = []     # unexpected messages no posted receive takes
    waits: Dict[int, Set[int]] = {}
    for rank, s in sorted(snaps.items()):
        flight = _in_flight(snaps, rank)
        for r in s["posted"]:
            hits = [m for m in s["unexpected"] if matches(r, m)]
            src = r.get("src")
            inflight = sum(flight.values()) if src is None else flight.get(src, 0)
            item = {"rank": rank, "recv": r, "key": key_text(r, True),
                    "near": [{"msg": m, "why": w} for m in s["unexpected"]
                             for w in [near_miss(r, m)] if w]}
            if hits:
                item["state"] = "matchable now (a message arrived as the snapshot was taken)"
                pending.append(item)
            elif inflight:
                item["state"] = f"{inflight} cell(s)/byte(s) in flight towards rank {rank} may match"
                pending.append(item)
            else:
                item["state"] = "no queued or in-flight message can match"
                stuck.append(item)
                if src is not None:
                    waits.setdefault(rank, set()).add(int(src))
                else:
                    waits.setdefault(rank, set()).update(x for x in range(np_) if x != rank)
        for m in s["unexpected"]:
            if any(matches(r, m) for r in s["posted"]):
                continue
            orphans.append({"rank": rank, "msg": m, "key": key_text(m, False),
                            "near": [{"recv": r, "why": w} for r in s["posted"]
                                     for w in [near_miss(r, m)] if w]})
    cycles = _cycles(waits, set(snaps))
    in_flight_total = sum(sum(_in_flight(snaps, r).values()) for r in snaps)
    deadlock = bool(stuck) and in_flight_total == 0 and not pending
    return {"np": np_, "ranks": sorted(snaps), "missing": missing, "stuck": stuck,
            "pending": pending, "orphans": orphans, "cycles": cycles,
            "in_flight": in_flight_total, "deadlock": deadlock,
            "stuck_ranks": sorted({x["rank"] for x in stuck})}


def _cycles(waits: Dict[int, Set[int]], have: Set[int]) -> List[List[int]]:
    """Cycles of ranks each waiting (with a receive nothing can match) for the next:
    every elementary cycle once, smallest rank first; ANY_SOURCE waits count for every
    rank that is itself stuck."""
    edges = {r: sorted(x for x in ws if x in waits) for r, ws in waits.items()}
    found: List[List[int]] = []
    seen: Set[Tuple[int, ...]] = set()

    def walk(start: int, node: int, path: List[int]) -> None:
        for nxt in edges.get(node, []):
            if nxt == start:
                key = tuple(path)
                if key not in seen:
                    seen.add(key)
                    found.append(list(path))
            elif nxt > start and nxt not in path and len(path) < 16 and len(found) < 32:
                walk(start, nxt, path + [nxt])
    for r in sorted(edges):
        walk(r, r, [r])
    return found


# ---------------------------------------------------------------- console

def _fmt_age(a: Any) -> str:
    return f"{a:.2f} s" if isinstance(a, (int, float)) and a >= 0 else "-"


def findings_lines(a: Dict[str, Any]) -> List[Tuple[str, str]]:
    """(style, line) pairs: the diagnosis in words."""
    out: List[Tuple[str, str]] = []
    if a["deadlock"]:
        out.append(("bold red", f"LIKELY DEADLOCK: rank(s) {', '.join(map(str, a['stuck_ranks']))} "
                                f"wait for receives that no queued or in-flight message can match"))
    elif a["stuck"]:
        out.append(("bold yellow", "receives that nothing queued can match (traffic is still in "
                                   "flight elsewhere: take another snapshot)"))
    else:
        out.append(("bold green", "no receive is stuck: every posted receive has a message in "
                                  "flight that may match, or none is posted"))
    for c in a["cycles"]:
        out.append(("red", "cycle: " + " -> ".join(f"rank {r}" for r in c + [c[0]])
                           + " (each waits for the next)"))
    for x in a["stuck"]:
        out.append(("red", f"rank {x['rank']} waits for {x['key']}: {x['state']}"))
        for n in x["near"]:
            m = n["msg"]
            out.append(("yellow", f"    unexpected at rank {x['rank']} from rank {m.get('src')}, "
                                  f"cid {m.get('cid')}, tag {m.get('tag')}: {n['why']}"))
    for x in a["pending"]:
        out.append(("", f"rank {x['rank']} waits for {x['key']}: {x['state']}"))
    for x in a["orphans"]:
        why = "; ".join(n["why"] for n in x["near"])
        out.append(("magenta", f"rank {x['rank']}: unexpected message {x['key']}, "
                               f"{x['msg'].get('bytes')} B, no posted receive takes it"
                               + (f" ({why})" if why else "")))
    for r in a["missing"]:
        out.append(("yellow", f"rank {r}: no snapshot (not in an MPI call when signalled: "
                              f"computing, blocked outside MPI, finished, or not started)"))
    return out


def rank_table(s: Dict[str, Any]) -> Table:
    t = Table(title=f"rank {s['rank']} (pid {s['pid']}, {s.get('host', '?')}, "
                    f"engine {s.get('engine', '?')})", title_justify="left", show_lines=False)
    for col in ("queue", "cid", "src", "tag", "bytes", "age"):
        t.add_column(col, justify="left" if col == "queue" else "right", no_wrap=True)
    for side, label in (("posted", "posted"), ("unexpected", "unexpected")):
        for r in s[side]:
            tag = "ANY" if r.get("tag") is None and not r.get("untagged") else str(r.get("tag"))
            src = "ANY" if r.get("src") is None else str(r.get("src"))
            t.add_row(label + (" ack" if r.get("ack") else ""), str(r.get("cid")), src, tag,
                      str(r.get("bytes")), _fmt_age(r.get("age_s")))
    st = s.get("stats", {})
    prq, umq = st.get("prq", {}), st.get("umq", {})
    t.caption = (f"PRQ {len(s['posted'])} (max {prq.get('max_length', '-')}, mean depth "
                 f"{prq.get('mean_depth', 0):.2f}), UMQ {len(s['unexpected'])} (max "
                 f"{umq.get('max_length', '-')}, mean depth {umq.get('mean_depth', 0):.2f}); "
                 f"{len(s.get('sending', []))} rendezvous send(s), "
                 f"{len(s.get('receiving', []))} receive(s) taking data")
    t.caption_justify = "left"
    return t


def console_view(snaps: Dict[int, Dict[str, Any]], a: Dict[str, Any], notes: List[str]) -> Group:
    parts: List[Any] = [Text(f"{len(snaps)} of {a['np']} ranks' snapshots", style="bold")]
    parts += [Text(line, style=style) for style, line in findings_lines(a)]
    parts += [Text(n, style="dim") for n in notes]
    parts.append(Text(""))
    grid = Table.grid(padding=(0, 3))
    row: List[Any] = []
    for rank in sorted(snaps):
        row.append(rank_table(snaps[rank]))
        if len(row) == 2:
            grid.add_row(*row)
            row = []
    if row:
        grid.add_row(*row)
    parts.append(grid)
    return Group(*parts)


# ---------------------------------------------------------------- HTML

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,sans-serif;margin:1.2em;color:#222}
h1{font-size:1.3em;margin:0 0 .4em} h2{font-size:1.05em;margin:.2em 0}
.find{margin:.8em 0;padding:.6em .8em;border-radius:6px;background:#f6f6f6}
.find p{margin:.15em 0;font-family:ui-monospace,monospace;font-size:.85em}
.red{color:#b00020}.yellow{color:#8a6d00}.magenta{color:#8e24aa}.green{color:#1b7f3b}
.bold{font-weight:bold}
.ranks{display:flex;flex-wrap:wrap;gap:14px;align-items:flex-start}
.rank{border:1px solid #ccc;border-radius:6px;padding:.5em .7em;min-width:280px;max-width:430px}
.rank.stuck{border-color:#b00020;box-shadow:0 0 0 2px #f4c7cf}
table{border-collapse:collapse;font-size:.8em;font-family:ui-monospace,monospace}
th,td{padding:2px 7px;text-align:right;border-bottom:1px solid #eee}
th:first-child,td:first-child{text-align:left}
tr.stuck td{background:#fde8ec} tr.orphan td{background:#f3e5f5}
.meta{color:#666;font-size:.78em;margin:.3em 0}
"""


def _cell(v: Any) -> str:
    return html.escape("-" if v is None else str(v))


def render_html(snaps: Dict[int, Dict[str, Any]], a: Dict[str, Any], notes: List[str],
                title: str) -> str:
    stuck_ids = {(x["rank"], id(x["recv"])) for x in a["stuck"]}
    orphan_ids = {(x["rank"], id(x["msg"])) for x in a["orphans"]}
    out = [f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{html.escape(title)}"
           f"</title><style>{CSS}</style></head><body>",
           f"<h1>{html.escape(title)}</h1>",
           f"<div class='meta'>{len(snaps)} of {a['np']} ranks' snapshots; "
           f"{a['in_flight']} cell(s)/byte(s) in flight</div><div class='find'>"]
    for style, line in findings_lines(a):
        cls = " ".join(style.split()) if style else ""
        out.append(f"<p class='{cls}'>{html.escape(line)}</p>")
    for n in notes:
        out.append(f"<p class='meta'>{html.escape(n)}</p>")
    out.append("</div><div class='ranks'>")
    for rank in sorted(snaps):
        s = snaps[rank]
        cls = "rank stuck" if rank in a["stuck_ranks"] else "rank"
        out.append(f"<div class='{cls}'><h2>rank {rank}</h2><div class='meta'>pid {s['pid']} on "
                   f"{_cell(s.get('host'))}, engine {_cell(s.get('engine'))}, "
                   f"{_cell(s.get('path'))} path, up {s.get('uptime_s', 0):.1f} s</div>")
        out.append("<table><tr><th>queue</th><th>cid</th><th>src</th><th>tag</th>"
                   "<th>bytes</th><th>age</th></tr>")
        for side in SIDE_KEYS:
            for r in s[side]:
                rid = (rank, id(r))
                rc = "stuck" if rid in stuck_ids else "orphan" if rid in orphan_ids else ""
                tag = "ANY" if r.get("tag") is None and not r.get("untagged") else r.get("tag")
                src = "ANY" if r.get("src") is None else r.get("src")
                out.append(f"<tr class='{rc}'><td>{side}{' ack' if r.get('ack') else ''}</td>"
                           f"<td>{_cell(r.get('cid'))}</td><td>{_cell(src)}</td>"
                           f"<td>{_cell(tag)}</td><td>{_cell(r.get('bytes'))}</td>"
                           f"<td>{html.escape(_fmt_age(r.get('age_s')))}</td></tr>")
        if not s["posted"] and not s["unexpected"]:
            out.append("<tr><td colspan='6'>(both queues empty)</td></tr>")
        out.append("</table>")
        st = s.get("stats", {})
        prq, umq = st.get("prq", {}), st.get("umq", {})
        chans = ", ".join(
            f"{c.get('channel')}→{c.get('peer')}: in {c.get('cells_in', c.get('rx_bytes_unparsed', 0))}"
            f" out {c.get('cells_out', c.get('tx_bytes_queued', 0))}" for c in s["channels"])
        out.append(f"<div class='meta'>PRQ max {_cell(prq.get('max_length'))}, mean depth "
                   f"{prq.get('mean_depth', 0):.2f}; UMQ max {_cell(umq.get('max_length'))}, "
                   f"mean depth {umq.get('mean_depth', 0):.2f}; "
                   f"matches {_cell(s.get('counters', {}).get('matches'))}</div>"
                   f"<div class='meta'>channels: {html.escape(chans) or 'none'}</div></div>")
    for r in a["missing"]:
        out.append(f"<div class='rank'><h2>rank {r}</h2><div class='meta'>no snapshot</div></div>")
    out.append("</div></body></html>\n")
    return "".join(out)


# ---------------------------------------------------------------- the command

def cmd_queues(args: Any, out: Console) -> int:
    d = Path(args.dir)
    snaps, notes = load_dir(d)
    a = analyse(snaps)
    if args.json:
        doc = {"dir": str(d), "analysis": a, "notes": notes, "snapshots": [
            snaps[r]["file"] for r in sorted(snaps)]}
        text = json.dumps(doc, indent=1, default=str) + "\n"
        if args.json == "-":
            print(text, end="")
        else:
            write_atomic(Path(args.json), text)
    if args.html:
        write_atomic(Path(args.html), render_html(snaps, a, notes, f"mpimatch queues: {d}"))
    if args.json != "-":
        out.print(console_view(snaps, a, notes))
        if args.html:
            out.print(f"HTML view: {args.html}", highlight=False)
    return 0


def register(sub: Any) -> None:
    from .command import add_command
    p = add_command(
        sub, "queues", cmd_queues,
        help="show what every rank of a running or hung job waits for (snapshots)",
        description="Read the snapshots in DIR (written by the provider on a signal: "
                    "FI_MPIMATCH_DUMP=DIR, or mpimatch run --dump DIR; then kill -USR2 "
                    "<mpirun pid>), show every rank's posted receives and unexpected messages "
                    "side by side, and name the receives nothing can match (a likely "
                    "deadlock: ranks, communicators, sources, tags) and the unexpected "
                    "messages no posted receive takes. docs/queues.md.",
        exit_one="internal error")
    p.add_argument("dir", metavar="DIR", help="the snapshots' directory (FI_MPIMATCH_DUMP)")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML page")
    p.add_argument("--json", metavar="FILE", help="write the analysis as JSON ('-': standard "
                                                  "output, no table)")
