"""Reference model of MPI message matching, in plain Python.

Written from the rules of the event-stream format (docs/semantics.md), not
from the C engines, so that the engines can be checked against it. It favours
being obviously correct over being fast: two Python lists and linear scans.

Rules:
  * communicators never match across;
  * ANY_SOURCE matches any source;
  * ANY_TAG matches any tag >= 0 and never a negative tag;
  * an arriving message takes the earliest-posted matching receive;
  * a receive or probe takes the earliest-arrived matching message;
  * an R or M with no partner is queued; P reports without removing;
    X removes; C removes a still-queued receive ('ok') or reports 'miss'.

Outcome lines, in the order they happen:
  "<R-id> <M-id>", "P <id> <M-id|->", "X <id> <M-id|->", "C <id> ok|miss".
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterable, List, Optional

HEADER = "# mpimatch stream v1"
KINDS = ("R", "M", "P", "X", "C")

# A wildcard is represented by None in Event.src / Event.tag.
ANY = None


class StreamError(ValueError):
    """A stream is not valid; the message starts with 'file:line: '."""


@dataclass
class Event:
    kind: str                      # one of KINDS
    id: int
    comm: int = 0                  # unused for C
    src: Optional[int] = 0         # None: ANY_SOURCE
    tag: Optional[int] = 0         # None: ANY_TAG
    attrs: Dict[str, str] = field(default_factory=dict)
    line: int = 0                  # 1-based line in the stream text, 0 if built in code

    def to_line(self) -> str:
        """This event as one line of the text format."""
        if self.kind == "C":
            return f"C {self.id}"
        src = "*" if self.src is None else str(self.src)
        tag = "*" if self.tag is None else str(self.tag)
        words = [self.kind, str(self.id), str(self.comm), src, tag]
        words += [f"{k}={v}" for k, v in self.attrs.items()]
        return " ".join(words)


@dataclass
class Stream:
    events: List[Event]
    np: Optional[int] = None       # from '# np=<n>', None if the stream does not say

    def to_text(self) -> str:
        lines = [HEADER]
        if self.np is not None:
            lines.append(f"# np={self.np}")
        lines += [e.to_line() for e in self.events]
        return "\n".join(lines) + "\n"

    @property
    def uses_any_source(self) -> bool:
        return any(e.kind in "RPX" and e.src is None for e in self.events)

    @property
    def uses_any_tag(self) -> bool:
        return any(e.kind in "RPX" and e.tag is None for e in self.events)


# ---------------------------------------------------------------- parsing

def _int(word: str, what: str, where: str) -> int:
    try:
        return int(word, 10)
    except ValueError:
        raise StreamError(f"{where}: {what} is not an integer: {word!r}") from None


def _src_or_tag(word: str, what: str, where: str) -> Optional[int]:
    return None if word == "*" else _int(word, what, where)


def parse_stream(text: str, name: str = "<stream>") -> Stream:
    """Parse the text format. Raises StreamError naming name:line on bad input."""
    lines = text.splitlines()
    if not lines or lines[0].strip() != HEADER:
        raise StreamError(f"{name}:1: first line must be {HEADER!r}")
    np: Optional[int] = None
    events: List[Event] = []
    seen_ids = set()
    receive_ids = set()
    for lineno, raw in enumerate(lines[1:], start=2):
        where = f"{name}:{lineno}"
        stripped = raw.strip()
        if not stripped:
            continue
        if stripped.startswith("#"):
            body = stripped[1:].strip()
            if body.startswith("np="):
                np = _int(body[3:], "np", where)
                if np < 1:
                    raise StreamError(f"{where}: np must be >= 1")
            continue
        words = stripped.split()
        kind = words[0]
        if kind not in KINDS:
            raise StreamError(f"{where}: unknown event {kind!r}")
        if kind == "C":
            if len(words) != 2:
                raise StreamError(f"{where}: C takes exactly one id")
            rid = _int(words[1], "id", where)
            if rid not in receive_ids:
                raise StreamError(f"{where}: C names {rid}, which is no earlier receive")
            events.append(Event("C", rid, line=lineno))
            continue
        if len(words) < 5:
            raise StreamError(f"{where}: {kind} needs <id> <comm> <src> <tag>")
        eid = _int(words[1], "id", where)
        comm = _int(words[2], "comm", where)
        src = _src_or_tag(words[3], "source", where)
        tag = _src_or_tag(words[4], "tag", where)
        attrs: Dict[str, str] = {}
        for word in words[5:]:
            key, eq, value = word.partition("=")
            if not eq or not key:
                raise StreamError(f"{where}: attribute is not key=value: {word!r}")
            attrs[key] = value
        if kind in "PX" and attrs:
            raise StreamError(f"{where}: {kind} takes no attributes")
        if eid < 0 or comm < 0:
            raise StreamError(f"{where}: ids and communicators are non-negative")
        if eid in seen_ids:
            raise StreamError(f"{where}: duplicate id {eid}")
        if kind == "M" and (src is None or tag is None):
            raise StreamError(f"{where}: a message needs a concrete source and tag")
        if src is not None and (src < 0 or (np is not None and src >= np)):
            raise StreamError(f"{where}: source {src} out of range")
        seen_ids.add(eid)
        if kind == "R":
            receive_ids.add(eid)
        events.append(Event(kind, eid, comm, src, tag, attrs, lineno))
    return Stream(events, np)


# ---------------------------------------------------------------- matching

def matches(receive: Event, message: Event) -> bool:
    """Does a receive (or probe) pattern match a message?"""
    if receive.comm != message.comm:
        return False
    if receive.src is not None and receive.src != message.src:
        return False
    if receive.tag is None:
        return message.tag >= 0
    return receive.tag == message.tag


class Model:
    """One process's matching state: the posted-receive and unexpected queues."""

    def __init__(self) -> None:
        self.prq: List[Event] = []   # posted receives, in posting order
        self.umq: List[Event] = []   # unexpected messages, in arrival order

    def _earliest_message(self, pattern: Event) -> Optional[Event]:
        for message in self.umq:
            if matches(pattern, message):
                return message
        return None

    def _earliest_receive(self, message: Event) -> Optional[Event]:
        for receive in self.prq:
            if matches(receive, message):
                return receive
        return None

    def step(self, event: Event) -> Optional[str]:
        """Apply one event; return its outcome line, or None if it was queued."""
        if event.kind == "R":
            message = self._earliest_message(event)
            if message is None:
                self.prq.append(event)
                return None
            self.umq.remove(message)
            return f"{event.id} {message.id}"
        if event.kind == "M":
            receive = self._earliest_receive(event)
            if receive is None:
                self.umq.append(event)
                return None
            self.prq.remove(receive)
            return f"{receive.id} {event.id}"
        if event.kind in ("P", "X"):
            message = self._earliest_message(event)
            if message is None:
                return f"{event.kind} {event.id} -"
            if event.kind == "X":
                self.umq.remove(message)
            return f"{event.kind} {event.id} {message.id}"
        if event.kind == "C":
            for receive in self.prq:
                if receive.id == event.id:
                    self.prq.remove(receive)
                    return f"C {event.id} ok"
            return f"C {event.id} miss"
        raise ValueError(f"unknown event kind {event.kind!r}")


def outcomes(events: Iterable[Event]) -> List[str]:
    """The outcome lines of a whole stream, in the order they happen."""
    model = Model()
    lines = []
    for event in events:
        line = model.step(event)
        if line is not None:
            lines.append(line)
    return lines


def outcomes_of_text(text: str, name: str = "<stream>") -> List[str]:
    return outcomes(parse_stream(text, name).events)
