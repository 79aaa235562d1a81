#!/usr/bin/env python3
"""Cut a window of events out of an event stream, starting where both queues are empty.

usage: scripts/stream_window.py STREAM OUT --from N --events K [--stream-tool PATH]

Reads STREAM (text or binary, through `mpimatch-stream cat`), replays it under MPI's
matching rules (docs/semantics.md: the earliest matching receive or message, ANY_SOURCE,
ANY_TAG never matching a negative tag, MPI_Improbe taking its message, a cancel removing
its receive), and finds the first event at or after the N-th after which no receive and no
message is queued. The K events after it go to OUT, with the stream's header lines and the
records' ids, attributes and times unchanged: no event of the window has a partner before
it, so the window replays as the traced run did from that point (its own last events may be
left queued). OUT is text for a name ending in .txt, else binary (`mpimatch-stream
convert`). A stream with no such point after the N-th event is an error (exit 2).

Made for examples/apps/hpcc-mpich-np8-rank1-window.mms (docs/APPLICATIONS.md, "HPCC under
MPICH in the bench"): the default bench suite replays a probe-heavy traced window."""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

Key = Tuple[int, int, int]                      # comm, src, tag; -1: the wildcard '*'
ANY = -1


def _field(text: str) -> int:
    return ANY if text == "*" else int(text)


def accepts(r: Key, m: Key) -> bool:
    """Does receive (or probe) key r accept message key m?"""
    return (r[0] == m[0] and (r[1] == m[1] or r[1] == ANY)
            and (r[2] == m[2] or (r[2] == ANY and m[2] >= 0)))


def empty_after(records: Sequence[str]) -> List[bool]:
    """For each record, whether both queues are empty after it."""
    prq: List[Tuple[int, Key]] = []            # (id, key) in posting order
    umq: List[Key] = []
    out = []
    for line in records:
        f = line.split()
        kind = f[0]
        if kind in "RMPX":
            key = (_field(f[2]), _field(f[3]), _field(f[4]))
        if kind == "R":
            hit = next((i for i, m in enumerate(umq) if accepts(key, m)), None)
            if hit is None:
                prq.append((int(f[1]), key))
            else:
                del umq[hit]
        elif kind == "M":
            hit = next((i for i, (_, r) in enumerate(prq) if accepts(r, key)), None)
            if hit is None:
                umq.append(key)
            else:
                del prq[hit]
        elif kind == "X":
            hit = next((i for i, m in enumerate(umq) if accepts(key, m)), None)
            if hit is not None:
                del umq[hit]
        elif kind == "C":
            rid = int(f[1])
            prq = [(i, r) for i, r in prq if i != rid]
        out.append(not prq and not umq)
    return out


def window(lines: Sequence[str], start: int, count: int) -> List[str]:
    """The header lines and the count records after the first record, at or after the
    start-th (1-based), after which both queues are empty. ValueError if none is."""
    header = [ln for ln in lines if ln.startswith("#")]
    records = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    empty = empty_after(records)
    at = next((i for i in range(max(start, 1) - 1, len(records)) if empty[i]), None)
    if at is None:
        raise ValueError(f"no event at or after event {start} leaves both queues empty "
                         f"({len(records)} events)")
    if at + 1 >= len(records):
        raise ValueError(f"the queues are empty first after event {at + 1}, the last one")
    return header + records[at + 1:at + 1 + count]


def _tool(given: Optional[str]) -> str:
    if given:
        return given
    root = Path(__file__).resolve().parents[1]
    built = root / "build" / "bin" / "mpimatch-stream"
    return str(built) if built.exists() else shutil.which("mpimatch-stream") or str(built)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("stream")
    ap.add_argument("out")
    ap.add_argument("--from", dest="start", type=int, required=True,
                    help="cut after the first event at or after this one (1-based) that "
                         "leaves both queues empty")
    ap.add_argument("--events", type=int, required=True, help="events in the window")
    ap.add_argument("--stream-tool", help="mpimatch-stream (default: build/bin's)")
    a = ap.parse_args(argv)
    if a.events < 1 or a.start < 1:
        ap.error("--from and --events must be at least 1")
    tool = _tool(a.stream_tool)
    cat = subprocess.run([tool, "cat", a.stream], capture_output=True, text=True)
    if cat.returncode != 0:
        sys.stderr.write(f"stream_window: {a.stream}: {cat.stderr.strip()}\n")
        return 2
    try:
        lines = window(cat.stdout.splitlines(), a.start, a.events)
    except ValueError as err:
        sys.stderr.write(f"stream_window: {a.stream}: {err}\n")
        return 2
    out = Path(a.out)
    fd, tmp = tempfile.mkstemp(prefix=".stream_window-", suffix=".txt", dir=out.parent or ".")
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        if out.suffix == ".txt":
            os.replace(tmp, out)
            return 0
        conv = subprocess.run([tool, "convert", tmp, str(out), "--to", "binary"],
                              capture_output=True, text=True)
        if conv.returncode != 0:
            sys.stderr.write(f"stream_window: {out}: {conv.stderr.strip()}\n")
            return conv.returncode
        return 0
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


if __name__ == "__main__":
    sys.exit(main())
