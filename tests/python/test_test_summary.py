"""scripts/test_summary.py, the end of `make test`: which skips are allowed, the total
time against the budget, the ten slowest tests of ctest and pytest merged."""
from __future__ import annotations

import subprocess
import sys

import pytest

from conftest import REPO, skip_unavailable

SCRIPT = REPO / "scripts" / "test_summary.py"

CTEST = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="(empty)" tests="3">
  <testcase name="test_primitives" classname="test_primitives" time="0.5" status="run">
    <system-out>test_primitives: 10 passed, 0 failed</system-out></testcase>
  <testcase name="test_simd512" classname="test_simd512" time="0.1" status="skipped">
    <skipped message="SKIP_RETURN_CODE=77"/>
    <system-out>unavailable on this machine (cpu): no AVX-512F</system-out></testcase>
  <testcase name="gen.cli" classname="gen.cli" time="40.25" status="run"/>
</testsuite>
"""


def pytest_xml(skip_message: str) -> str:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="3">
  <testcase classname="tests.python.test_trace" name="test_ring[openmpi]" time="12.5"/>
  <testcase classname="tests.python.test_trace" name="test_ring[mpich]" time="0.01">
    <skipped type="pytest.skip" message="{skip_message}">why</skipped></testcase>
  <testcase classname="tests.python.test_cli.TestX" name="test_y" time="3.0"/>
</testsuite></testsuites>
"""


def summarize(tmp_path, skip_message, elapsed="754", budget=None, strict=False):
    (tmp_path / "c.xml").write_text(CTEST)
    (tmp_path / "p.xml").write_text(pytest_xml(skip_message))
    cmd = [sys.executable, SCRIPT, "--elapsed", elapsed, f"ctest:build=c.xml", "pytest=p.xml",
           "ctest:build-tsan=missing.xml"]
    if budget:
        cmd += ["--budget-min", budget]
    if strict:
        cmd += ["--strict-budget"]
    return subprocess.run([str(c) for c in cmd], cwd=tmp_path, capture_output=True, text=True)


def test_allowed_skips_pass_and_are_listed_with_the_slowest_tests(tmp_path):
    p = summarize(tmp_path, "unavailable on this machine (kernel): perf_event_paranoid is 3")
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == ("skips: 2 allowed (test_simd512: cpu: no AVX-512F; "
                        "tests/python/test_trace.py::test_ring[mpich]: kernel: "
                        "perf_event_paranoid is 3)")
    assert lines[1] == "total time 12m34s (budget 30m); 10 slowest tests:"
    assert [ln.split()[0] for ln in lines[2:]] == ["40.2s", "12.5s", "3.0s", "0.5s", "0.1s", "0.0s"]
    assert lines[3].split()[1:] == ["pytest", "tests/python/test_trace.py::test_ring[openmpi]"]
    assert lines[4].endswith("tests/python/test_cli.py::TestX::test_y")


def test_a_skip_for_an_installable_package_fails(tmp_path):
    p = summarize(tmp_path, "mpich: the tracer or mm_ring_probe is not built")
    assert p.returncode == 1
    assert "1 NOT ALLOWED" in p.stdout and "mpich: the tracer" in p.stdout
    assert "1 allowed (test_simd512: cpu: no AVX-512F)" in p.stdout


def test_over_budget_is_reported_and_fails_only_when_strict(tmp_path):
    p = summarize(tmp_path, "unavailable on this machine (cpu): x", elapsed="1900")
    assert p.returncode == 0 and "OVER BUDGET" in p.stdout
    p = summarize(tmp_path, "unavailable on this machine (cpu): x", elapsed="1900",
                  strict=True)
    assert p.returncode == 1 and "OVER BUDGET" in p.stdout
    p = summarize(tmp_path, "unavailable on this machine (cpu): x", elapsed="1900",
                  budget="40", strict=True)
    assert p.returncode == 0 and "OVER BUDGET" not in p.stdout


def test_skip_unavailable_takes_only_cpu_or_kernel():
    with pytest.raises(ValueError, match="setup.sh"):
        skip_unavailable("mpich not installed", "package")
    with pytest.raises(pytest.skip.Exception, match=r"^unavailable on this machine \(cpu\): no AVX"):
        skip_unavailable("no AVX-512F", "cpu")


XFAIL = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" tests="4">
  <testcase classname="tests.python.test_conformance" name="test_c[a]" time="1.0">
    <skipped type="pytest.xfail" message="Open MPI 4.1.4 mtl ofi: a hang" /></testcase>
  <testcase classname="tests.python.test_conformance" name="test_c[b]" time="1.0">
    <skipped type="pytest.xfail" message="Open MPI 4.1.4 mtl ofi: a hang" /></testcase>
  <testcase classname="tests.python.test_conformance" name="test_c[c]" time="1.0">
    <skipped type="pytest.xfail" message="{third}" /></testcase>
  <testcase classname="tests.python.test_cli" name="test_y" time="3.0"/>
</testsuite></testsuites>
"""


def test_expected_failures_are_not_skips_and_are_counted_by_reason(tmp_path):
    """The CI failure of stop 21: 22 xfails (Open MPI bugs) were counted as skips."""
    (tmp_path / "p.xml").write_text(XFAIL.format(third="tcp;ofi_rxm: another"))
    p = subprocess.run([sys.executable, str(SCRIPT), "--elapsed", "10", "pytest=p.xml"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert lines[0] == "skips: none"
    assert lines[1] == ("expected failures: 3 (2 x Open MPI 4.1.4 mtl ofi: a hang; "
                        "1 x tcp;ofi_rxm: another)")


def test_an_expected_failure_without_a_reason_fails(tmp_path):
    (tmp_path / "p.xml").write_text(XFAIL.format(third=""))
    p = subprocess.run([sys.executable, str(SCRIPT), "--elapsed", "10", "pytest=p.xml"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert p.returncode == 1 and "1 x no reason given" in p.stdout
