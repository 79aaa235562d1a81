#!/usr/bin/env python3
"""Write the example event streams in this directory (seeded, reproducible).

    python3 examples/make_examples.py [--out DIR] [--check]

  shuffle-1024.mms     1024 receives in tag order from one peer, then the 1024
                       messages in random tag order (no wildcards, np=2):
                       mpimatch-gen shuffle:n=1024,rounds=1
  burst-1024.mms       1024 receives with one tag, then 1024 messages (np=2):
                       mpimatch-gen burst:n=1024,rounds=1
  mixed-wildcards.mms  ~20000 events: 64 processes, 4 communicators, ANY_SOURCE
                       and ANY_TAG receives, negative tags, probes, matched
                       probes, cancels, collective traffic; queues of a few hundred
  tiny.mms             a hand-annotated stream exercising every rule once
  tiny.matches         the outcome lines of tiny.mms (what --matches writes)

--check regenerates into memory and fails if a file differs from what is on
disk. Needs the standard library, python/mpimatch (model.py checks the
annotations of tiny.mms; tools.py finds mpimatch-gen) and a built mpimatch-gen:
the workload examples are its output, not a generator of their own.
"""
from __future__ import annotations

import argparse
import math
import random
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Optional, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))
from mpimatch import tools  # noqa: E402
from mpimatch.errors import MpimatchError  # noqa: E402
from mpimatch.model import HEADER, Event, Stream, outcomes, parse_stream  # noqa: E402

SEED = 20240601


def header(np: int, *notes: str) -> List[str]:
    return [HEADER, f"# np={np}", *(f"# {n}" for n in notes)]


# file -> the mpimatch-gen workload it holds
GENERATED = {"shuffle-1024.mms": "shuffle:n=1024,rounds=1", "burst-1024.mms": "burst:n=1024,rounds=1"}


def generated(spec: str) -> str:
    """The stream mpimatch-gen writes for spec, with a line naming the command."""
    try:
        exe = tools.find_tool(tools.GEN)
    except MpimatchError as err:
        raise SystemExit(f"make_examples.py: {err}") from None
    proc = subprocess.run([str(exe), spec], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"make_examples.py: {exe} {spec} failed: {proc.stderr.strip()}")
    first, np_line, rest = proc.stdout.split("\n", 2)
    return "\n".join([first, np_line, f"# made by: mpimatch-gen {spec}", rest])


# ---------------------------------------------------------------- mixed-wildcards

NP = 64
P2P_COMMS = (0, 1, 2)           # communicator 3 carries collective traffic only
COLL_COMM = 3
COLLS = (("allreduce", 11), ("bcast", 12), ("barrier", 13))   # (op, tag)
TARGET_EVENTS = 20000


class Pending:
    """One communication whose first half (R, or M) is in the stream."""

    def __init__(self, comm: int, src: int, tag: int, pattern: Tuple[Optional[int], Optional[int]],
                 attrs: Dict[str, str], recv_first: bool) -> None:
        self.comm, self.src, self.tag = comm, src, tag
        self.pattern = pattern          # (src or None, tag or None) of the receive
        self.attrs = attrs
        self.recv_first = recv_first


def mixed_wildcards(rng: random.Random) -> str:
    events: List[Event] = []
    next_id = [0]

    def new_id() -> int:
        next_id[0] += 1
        return next_id[0] - 1

    def emit(kind: str, comm: int, src: Optional[int], tag: Optional[int],
             attrs: Optional[Dict[str, str]] = None) -> Event:
        e = Event(kind, new_id(), comm, src, tag, dict(attrs or {}))
        events.append(e)
        return e

    pending: List[Pending] = []
    parked: List[int] = []          # receive ids that nothing will match: cancelled later
    matched_recvs: List[int] = []   # receive ids posted as a second half: a cancel of one may miss
    coll_calls = {op: 0 for op, _ in COLLS}

    def new_communication() -> Pending:
        if rng.random() < 0.12:     # a collective: concrete source and tag, no wildcards
            op, tag = rng.choice(COLLS)
            coll_calls[op] += 1
            attrs = {"coll": op, "np": str(NP), "call": str(coll_calls[op]), "bytes": "8"}
            src = rng.randrange(NP)
            return Pending(COLL_COMM, src, tag, (src, tag), attrs, rng.random() < 0.5)
        comm = rng.choices(P2P_COMMS, weights=(5, 3, 2))[0]
        me = 17
        src = (me + rng.choice((-8, -1, 1, 8))) % NP if rng.random() < 0.7 else rng.randrange(NP)
        if rng.random() < 0.08:
            tag = -rng.randint(1, 8)        # library-internal traffic: never ANY_TAG
            pattern = (None if rng.random() < 0.1 else src, tag)
        else:
            tag = min(int(rng.expovariate(1 / 12)), 199)
            r = rng.random()
            pattern = ((None, tag) if r < 0.10 else (src, None) if r < 0.15
                       else (None, None) if r < 0.17 else (src, tag))
        attrs = {"bytes": str(rng.choice((0, 8, 64, 512, 4096, 65536)))}
        return Pending(comm, src, tag, pattern, attrs, rng.random() < 0.55)

    def recv_attrs(p: Pending) -> Dict[str, str]:
        """A receive names the collective and the size, not the call instance."""
        return {k: v for k, v in p.attrs.items() if k != "call"}

    def first_half(p: Pending) -> None:
        if p.recv_first:
            emit("R", p.comm, p.pattern[0], p.pattern[1], recv_attrs(p))
        else:
            emit("M", p.comm, p.src, p.tag, p.attrs)

    def second_half(p: Pending) -> None:
        if p.recv_first:
            emit("M", p.comm, p.src, p.tag, p.attrs)
            return
        if rng.random() < 0.10:
            emit("P", p.comm, *p.pattern)
        if p.comm != COLL_COMM and rng.random() < 0.15:
            emit("X", p.comm, *p.pattern)
        else:
            r = emit("R", p.comm, p.pattern[0], p.pattern[1], recv_attrs(p))
            matched_recvs.append(r.id)

    step = 0
    while len(events) < TARGET_EVENTS - 2 * len(pending):
        step += 1
        # The number of half-done communications swings between ~100 and ~500.
        target = 300 + 200 * math.sin(step / 900)
        r = rng.random()
        if r < 0.02:                                   # probe for anything from someone
            comm = rng.choice(P2P_COMMS)
            emit("P", comm, None if rng.random() < 0.5 else rng.randrange(NP),
                 None if rng.random() < 0.5 else rng.randint(0, 30))
        elif r < 0.035:                                # a receive that will be cancelled
            parked.append(emit("R", rng.choice(P2P_COMMS), rng.randrange(NP), 1000 + rng.randrange(50)).id)
        elif r < 0.05 and (parked or matched_recvs):   # cancel: usually ok, sometimes too late
            if parked and rng.random() < 0.8:
                events.append(Event("C", parked.pop(rng.randrange(len(parked)))))
            elif matched_recvs:
                events.append(Event("C", rng.choice(matched_recvs[-200:])))
        elif pending and rng.random() > 0.5 + 0.45 * (target - len(pending)) / target:
            # Complete a communication; older ones are likelier, as in real traffic.
            i = min(int(rng.expovariate(1 / max(1, len(pending) / 3))), len(pending) - 1)
            second_half(pending.pop(i))
        else:
            p = new_communication()
            first_half(p)
            pending.append(p)
    rng.shuffle(pending)
    for p in pending:                                  # drain: finish every communication
        second_half(p)
    for rid in parked:
        events.append(Event("C", rid))

    stream = Stream(events, NP)
    notes = ["~20000 events on one process (rank 17) of 64: communicators 0-2 point-to-point,",
             "3 collective traffic; ANY_SOURCE/ANY_TAG receives, negative tags, probes (P),",
             "matched probes (X) and cancels (C). Generated by make_examples.py."]
    text = stream.to_text()
    first, rest = text.split("\n", 1)
    np_line, body = rest.split("\n", 1)
    return "\n".join([first, np_line] + [f"# {n}" for n in notes]) + "\n" + body


# ---------------------------------------------------------------- tiny

# (annotation, event line, expected outcome line or None if it queues)
TINY: List[Tuple[str, str, Optional[str]]] = [
    ("A receive with nothing to match is queued (posted-receive queue, PRQ).",
     "R 1 0 2 5", None),
    ("A message on another communicator never matches it: queued as unexpected (UMQ).",
     "M 2 1 2 5 bytes=64", None),
    ("A message matching the receive takes it.",
     "M 3 0 2 5 bytes=64", "1 3"),
    ("ANY_SOURCE: a receive takes the earliest-arrived matching message, 2.",
     "R 4 1 * 5", "4 2"),
    ("Two messages from rank 3 queue: tag 7, then tag -1 (negative: library-internal).",
     "M 5 0 3 7", None),
    ("", "M 6 0 3 -1", None),
    ("A probe with ANY_TAG reports message 5 and leaves it queued.",
     "P 7 0 3 *", "P 7 5"),
    ("A receive with ANY_TAG takes message 5.",
     "R 8 0 3 *", "8 5"),
    ("ANY_TAG never matches a negative tag: this receive is queued although 6 waits.",
     "R 9 0 * *", None),
    ("A matched probe for tag -1 removes message 6.",
     "X 10 0 3 -1", "X 10 6"),
    ("A probe for tag -1 now finds nothing.",
     "P 11 0 3 -1", "P 11 -"),
    ("A second receive that also matches rank 1, tag 4 ...",
     "R 12 0 1 4", None),
    ("... but a message takes the earliest-posted matching receive: 9 (wildcards) wins over 12.",
     "M 13 0 1 4", "9 13"),
    ("Cancel receive 12 while it is still queued.",
     "C 12", "C 12 ok"),
    ("Cancel receive 1, which was matched long ago: too late.",
     "C 1", "C 1 miss"),
    ("Non-overtaking: two messages from rank 0 with tag 2 ...",
     "M 14 2 0 2", None),
    ("", "M 15 2 0 2", None),
    ("... are received in the order they arrived.",
     "R 16 2 0 2", "16 14"),
    ("", "R 17 2 0 2", "17 15"),
]


def tiny() -> Tuple[str, str]:
    lines = header(4, "tiny.mms: each matching rule once. '->' gives the outcome line that",
                   "'mpimatch-replay --matches' writes for the event below it.")
    expected = []
    for note, event, outcome in TINY:
        if note or outcome:
            arrow = f"  -> {outcome}" if outcome else "  -> (queued)"
            lines.append(f"# {note}{arrow}" if note else f"#{arrow}")
        lines.append(event)
        if outcome:
            expected.append(outcome)
    text = "\n".join(lines) + "\n"
    got = outcomes(parse_stream(text, "tiny.mms").events)
    if got != expected:
        raise SystemExit(f"tiny.mms annotations disagree with the model:\n{got}\n{expected}")
    return text, "\n".join(expected) + "\n"


def generate() -> Dict[str, str]:
    files = {name: generated(spec) for name, spec in GENERATED.items()}
    rng = random.Random(SEED)
    # The shuffle example used to draw its permutation from this generator first; the same
    # draw keeps mixed-wildcards.mms (and the numbers docs/clustering.md quotes) as it was.
    rng.shuffle(list(range(1024)))
    files["mixed-wildcards.mms"] = mixed_wildcards(rng)
    files["tiny.mms"], files["tiny.matches"] = tiny()
    for name, text in files.items():
        if name.endswith(".mms"):
            parse_stream(text, name)           # every example is valid
    return files


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE, help="directory to write (default: here)")
    ap.add_argument("--check", action="store_true", help="only compare with the files on disk")
    args = ap.parse_args()
    files = generate()
    stale = []
    for name, text in files.items():
        path = args.out / name
        if args.check:
            if not path.is_file() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
            print(f"wrote {path} ({len(text)} bytes)")
    if stale:
        print(f"out of date: {', '.join(stale)} (run examples/make_examples.py)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
