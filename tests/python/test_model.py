"""Unit tests of the pure-Python reference model: one test per matching rule."""
from __future__ import annotations

import pytest

from mpimatch.model import Event, Model, StreamError, matches, outcomes, parse_stream


def run(*lines: str, np: int = 8):
    """Outcome lines of a stream given as event lines."""
    text = "\n".join(["# mpimatch stream v1", f"# np={np}", *lines]) + "\n"
    return outcomes(parse_stream(text, "t.mms").events)


def test_unmatched_receive_and_message_are_queued():
    model = Model()
    assert model.step(Event("R", 1, 0, 2, 5)) is None
    assert model.step(Event("M", 2, 0, 3, 5)) is None
    assert [e.id for e in model.prq] == [1] and [e.id for e in model.umq] == [2]


def test_communicators_never_match_across():
    assert run("R 1 0 2 5", "M 2 1 2 5") == []
    assert run("M 1 1 2 5", "R 2 0 * *", "P 3 0 * *", "X 4 0 2 5") == ["P 3 -", "X 4 -"]
    assert run("R 1 0 2 5", "M 2 1 2 5", "M 3 0 2 5", "R 4 1 2 5") == ["1 3", "4 2"]


def test_any_source_matches_any_source_but_not_another_tag():
    assert run("R 1 0 * 5", "M 2 0 3 6", "M 3 0 7 5") == ["1 3"]
    assert run("M 1 0 6 5", "R 2 0 * 5") == ["2 1"]


def test_any_tag_matches_non_negative_tags():
    assert run("R 1 0 2 *", "M 2 0 2 0") == ["1 2"]
    assert run("M 1 0 2 12345", "R 2 0 2 *") == ["2 1"]


def test_any_tag_never_matches_a_negative_tag():
    assert run("R 1 0 2 *", "M 2 0 2 -1") == []
    assert run("M 1 0 2 -1", "R 2 0 * *", "P 3 0 2 *", "X 4 0 * *") == ["P 3 -", "X 4 -"]
    # ... but a concrete negative tag matches
    assert run("R 1 0 2 *", "M 2 0 2 -1", "R 3 0 2 -1") == ["3 2"]


def test_earliest_posted_receive_wins():
    assert run("R 1 0 * 5", "R 2 0 3 5", "M 3 0 3 5", "M 4 0 3 5") == ["1 3", "2 4"]
    assert run("R 1 0 3 5", "R 2 0 * *", "M 3 0 3 5") == ["1 3"]
    # a receive that does not match is skipped, not blocking later ones
    assert run("R 1 0 4 5", "R 2 0 3 5", "M 3 0 3 5") == ["2 3"]


def test_earliest_arrived_message_wins():
    assert run("M 1 0 3 5", "M 2 0 4 5", "R 3 0 * 5") == ["3 1"]
    assert run("M 1 0 3 6", "M 2 0 4 5", "R 3 0 * 5", "R 4 0 * *") == ["3 2", "4 1"]


def test_probe_reports_and_leaves_the_message():
    assert run("M 1 0 3 5", "P 2 0 3 5", "P 3 0 * *", "R 4 0 3 5", "P 5 0 3 5") == [
        "P 2 1", "P 3 1", "4 1", "P 5 -"]


def test_matched_probe_removes_the_message():
    assert run("M 1 0 3 5", "X 2 0 * 5", "X 3 0 3 5", "R 4 0 3 5") == ["X 2 1", "X 3 -"]
    assert run("M 1 0 3 5", "M 2 0 3 6", "X 3 0 3 *", "R 4 0 3 *") == ["X 3 1", "4 2"]


def test_cancel_ok_then_miss():
    assert run("R 1 0 3 5", "C 1", "M 2 0 3 5", "C 1") == ["C 1 ok", "C 1 miss"]
    # a receive that already matched cannot be cancelled
    assert run("M 1 0 3 5", "R 2 0 3 5", "C 2") == ["2 1", "C 2 miss"]
    assert run("R 1 0 3 5", "M 2 0 3 5", "C 1") == ["1 2", "C 1 miss"]
    # cancelling one of two receives leaves the other to match
    assert run("R 1 0 3 5", "R 2 0 3 5", "C 1", "M 3 0 3 5") == ["C 1 ok", "2 3"]


def test_non_overtaking_per_sender():
    assert run("M 1 0 2 7", "M 2 0 2 7", "M 3 0 2 7",
               "R 4 0 2 7", "R 5 0 2 *", "R 6 0 * *") == ["4 1", "5 2", "6 3"]
    # receives posted first are matched in posting order by one sender's messages
    assert run("R 1 0 2 7", "R 2 0 2 7", "M 3 0 2 7", "M 4 0 2 7") == ["1 3", "2 4"]


def test_outcomes_follow_stream_order():
    assert run("M 1 0 0 1", "P 2 0 0 1", "R 3 0 0 2", "C 3", "R 4 0 0 1") == [
        "P 2 1", "C 3 ok", "4 1"]


def test_matches_predicate():
    msg = Event("M", 1, comm=2, src=3, tag=4)
    assert matches(Event("R", 2, 2, None, None), msg)
    assert not matches(Event("R", 2, 1, None, None), msg)
    assert not matches(Event("R", 2, 2, 0, None), msg)
    assert not matches(Event("R", 2, 2, None, 5), msg)
    assert not matches(Event("R", 2, 2, None, None), Event("M", 3, 2, 3, -4))


@pytest.mark.parametrize("line, reason", [
    ("R 1 0 2", "needs"),
    ("Q 1 0 2 5", "unknown event"),
    ("R x 0 2 5", "not an integer"),
    ("R 1 0 2 5 bytes", "key=value"),
    ("M 1 0 * 5", "concrete"),
    ("M 1 0 2 *", "concrete"),
    ("R 1 0 9 5", "out of range"),
    ("C 42", "no earlier receive"),
])
def test_parser_rejects_bad_lines_naming_the_line(line, reason):
    text = f"# mpimatch stream v1\n# np=4\nR 0 0 1 1\n{line}\n"
    with pytest.raises(StreamError, match=f"^bad.mms:4: .*{reason}"):
        parse_stream(text, "bad.mms")


def test_parser_rejects_duplicate_ids_and_missing_header():
    with pytest.raises(StreamError, match="^d.mms:3: duplicate id 1"):
        parse_stream("# mpimatch stream v1\nR 1 0 0 0\nM 1 0 0 0\n", "d.mms")
    with pytest.raises(StreamError, match="^h.mms:1: "):
        parse_stream("R 1 0 0 0\n", "h.mms")


def test_text_round_trip():
    text = ("# mpimatch stream v1\n# np=3\nR 5 0 * * bytes=8\nM 3 1 2 -2 coll=bcast np=3\n"
            "P 7 0 1 *\nX 9 1 * 4\nC 5\n")
    stream = parse_stream(text)
    assert stream.np == 3 and stream.uses_any_source and stream.uses_any_tag
    assert stream.to_text() == text
