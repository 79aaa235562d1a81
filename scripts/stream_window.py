#!/usr/bin/env python3
"""Cut a window of events out of an event stream, starting where both queues are empty.

usage: scripts/stream_window.py STREAM OUT --from N --events K [--stream-tool PATH]

Reads STREAM (text or binary, through `mpimatch-stream cat`), replays it through the
project's model of MPI's matching rules (python/mpimatch/model.py, docs/semantics.md: the
tests' independent model), and finds the first event at or after the N-th after which no receive and no
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
from typing import List, Optional, Sequence

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from mpimatch.model import Model, parse_stream  # noqa: E402  (the rules, once)


def window(text: str, start: int, count: int, name: str = "<stream>") -> List[str]:
    """The header lines of stream text and its count records after the first record, at
    or after the start-th (1-based), after which both queues of the model
    (mpimatch.model) are empty. ValueError (StreamError for bad text) if none is."""
    lines = text.splitlines()
    events = parse_stream(text, name).events
    model = Model()
    at = None
    for i, event in enumerate(events):
        model.step(event)
        if i + 1 >= start and not model.prq and not model.umq:
            at = i
            break
    if at is None:
        raise ValueError(f"no event at or after event {start} leaves both queues empty "
                         f"({len(events)} events)")
    if at + 1 >= len(events):
        raise ValueError(f"the queues are empty first after event {at + 1}, the last one")
    header = [ln for ln in lines if ln.startswith("#")]
    return header + [lines[e.line - 1] for e in events[at + 1:at + 1 + count]]


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
        lines = window(cat.stdout, a.start, a.events, a.stream)
    except ValueError as err:  # (StreamError too)
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
