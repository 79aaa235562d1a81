#!/usr/bin/env python3
"""The last lines of `make test`: skipped tests and why, total time, ten slowest tests.

    scripts/test_summary.py --elapsed SECONDS [--budget-min M] LABEL=JUNIT.xml ...

Reads the JUnit XML files ctest (--output-junit) and pytest (--junitxml) wrote, one per
run, labelled (e.g. ctest:build-asan, pytest). Prints

    skips: none | skips: N allowed (cpu: why; kernel: why) | ... N NOT ALLOWED (...)
    expected failures: N (K x reason; ...)        [only when some test xfailed]
    total time 12m34s (budget 30m); ten slowest tests:
      123.4s  pytest  tests/python/test_trace.py::test_x[mpich]
      ...

and exits 1 when a test skipped for something other than what this machine cannot have,
or when the total time is over the budget. A test may skip only through
skip_unavailable(reason, kind) (tests/python/conftest.py; a C test prints the same line
and exits with its SKIP_RETURN_CODE), whose reason reads
"unavailable on this machine (cpu|kernel): ...": a CPU feature or a kernel permission.
Any other skip names something scripts/setup.sh --dev installs (an MPI, libfabric, a
built tool) and counts as a failure.

An expected failure (pytest.mark.xfail; JUnit writes it as <skipped type="pytest.xfail">)
is not a skip: the test ran and failed the way its reason says, a known bug outside
mpimatch (Open MPI's mtl ofi, tcp;ofi_rxm). Expected failures are counted on a line of
their own, grouped by reason, and do not fail the run; one without a reason does.
"""
from __future__ import annotations

import argparse
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import List, NamedTuple, Optional, Tuple

ALLOWED = re.compile(r"unavailable on this machine \((cpu|kernel)\): (.*)")
SLOWEST = 10


class Case(NamedTuple):
    run: str            # the label given on the command line
    name: str
    seconds: float
    skipped: Optional[str]   # the skip reason, or None when the test ran
    xfailed: Optional[str] = None   # the expected failure's reason, or None


def _name(case: ET.Element, run: str) -> str:
    name, cls = case.get("name", "?"), case.get("classname", "")
    if run.startswith("ctest") or not cls:
        return name
    # pytest: classname "tests.python.test_x" or "tests.python.test_x.TestY"
    parts = cls.split(".")
    mods = [p for p in parts if p[:1].islower()]
    klass = [p for p in parts if p[:1].isupper()]
    return "/".join(mods) + ".py::" + "::".join(klass + [name])


def read(run: str, path: Path) -> List[Case]:
    """The test cases of one JUnit file."""
    root = ET.parse(path).getroot()
    out = []
    for case in root.iter("testcase"):
        skip = case.find("skipped")
        reason: Optional[str] = None
        xfail: Optional[str] = None
        if skip is not None and skip.get("type") == "pytest.xfail":
            xfail = skip.get("message", "").strip() or "no reason given"
        elif skip is not None or case.get("status") in ("skipped", "disabled"):
            message = skip.get("message", "") if skip is not None else ""
            # a C test says why in its output; pytest in the message
            output = (case.findtext("system-out") or "").strip()
            m = ALLOWED.search(message) or ALLOWED.search(output)
            if m:
                reason = m.group(0)
            else:
                reason = message or (output.splitlines() or ["no reason given"])[-1]
        try:
            seconds = float(case.get("time") or 0)
        except ValueError:
            seconds = 0.0
        out.append(Case(run, _name(case, run), seconds, reason, xfail))
    return out


def _clock(seconds: float) -> str:
    m, s = divmod(int(round(seconds)), 60)
    return f"{m}m{s:02d}s"


def summary(cases: List[Case], elapsed: float, budget_min: float,
            strict_budget: bool = False) -> Tuple[List[str], bool]:
    """(the lines to print, whether the policy holds)."""
    ok = True
    allowed, refused = [], []
    for c in cases:
        if c.skipped is None:
            continue
        m = ALLOWED.search(c.skipped)
        (allowed if m else refused).append((c, m))
    lines = []
    if not allowed and not refused:
        lines.append("skips: none")
    else:
        bits = []
        if allowed:
            bits.append(f"{len(allowed)} allowed (" + "; ".join(
                f"{c.name}: {m.group(1)}: {m.group(2)}" for c, m in allowed) + ")")
        if refused:
            ok = False
            bits.append(f"{len(refused)} NOT ALLOWED, scripts/setup.sh --dev should provide "
                        "what they need (" + "; ".join(f"{c.name}: {c.skipped}"
                                                       for c, _ in refused) + ")")
        lines.append("skips: " + ", ".join(bits))
    xfails: dict = {}
    for c in cases:
        if c.xfailed is not None:
            xfails[c.xfailed] = xfails.get(c.xfailed, 0) + 1
    if xfails:
        ok = ok and "no reason given" not in xfails
        lines.append(f"expected failures: {sum(xfails.values())} (" + "; ".join(
            f"{n} x {why}" for why, n in sorted(xfails.items(), key=lambda kv: -kv[1]))
            + ")")
    # Over budget is reported loudly; it fails the run only with --strict-budget:
    # wall time on a shared 2-core machine depends on what else runs there, and
    # a test that fails on time alone is a timed test (speed is for benchmarks).
    over = elapsed > budget_min * 60
    ok = ok and not (over and strict_budget)
    lines.append(f"total time {_clock(elapsed)} (budget {budget_min:g}m"
                 + (", OVER BUDGET: find what grew in the slowest tests below" if over else "")
                 + f"); {SLOWEST} slowest tests:")
    ran = sorted(cases, key=lambda c: c.seconds, reverse=True)[:SLOWEST]
    width = max((len(c.run) for c in ran), default=0)
    lines += [f"  {c.seconds:7.1f}s  {c.run:<{width}}  {c.name}" for c in ran]
    return lines, ok


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--elapsed", type=float, required=True, help="seconds the whole run took")
    ap.add_argument("--budget-min", type=float, default=30.0, help="minutes allowed (default 30)")
    ap.add_argument("--strict-budget", action="store_true",
                    help="fail when the run took longer than the budget (default: report it)")
    ap.add_argument("runs", nargs="*", metavar="LABEL=JUNIT.xml")
    args = ap.parse_args(argv)
    cases: List[Case] = []
    for spec in args.runs:
        label, _, path = spec.partition("=")
        if not Path(path).is_file():        # the run did not get that far
            continue
        try:
            cases += read(label, Path(path))
        except ET.ParseError as err:
            print(f"test_summary: {path}: {err}", file=sys.stderr)
            return 1
    lines, ok = summary(cases, args.elapsed, args.budget_min, args.strict_budget)
    print("\n".join(lines))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
