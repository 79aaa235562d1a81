"""Shared fixtures: the C executables, the engine list, helpers to run tools.

The C executables are found as the `mpimatch` command finds them
($MPIMATCH_BIN_DIR, then <repo>/build/bin, then PATH). Tests that need them
are skipped with the reason when they are not built, unless CI=true or
MPIMATCH_REQUIRE_TOOLS=1, where a missing executable is a failure.

A test may skip only for something this machine cannot have, through
skip_unavailable(reason, kind) with kind 'cpu' (a CPU feature) or 'kernel' (a
kernel permission or facility). Any other skip (a missing MPI, library or tool
that scripts/setup.sh --dev installs) makes `make test` fail
(scripts/test_summary.py reads the reasons from pytest's JUnit file).

Hypothesis profiles: "ci" (derandomized, the default when CI=true), "dev"
(random, the default otherwise), "soak" (many more examples). Choose with
HYPOTHESIS_PROFILE=<name>.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Sequence

import pytest
from hypothesis import HealthCheck, settings

REPO = Path(__file__).resolve().parents[2]
PYTHON_DIR = REPO / "python"
if str(PYTHON_DIR) not in sys.path:
    sys.path.insert(0, str(PYTHON_DIR))

from mpimatch import tools  # noqa: E402
from mpimatch.replay import hints_of  # noqa: E402

_common = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", max_examples=300, derandomize=True, database=None,
                          print_blob=True, **_common)
settings.register_profile("dev", max_examples=300, **_common)
settings.register_profile("soak", max_examples=3000, **_common)
_default_profile = "ci" if os.environ.get("CI", "").lower() in ("1", "true", "yes") else "dev"
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", _default_profile))

TIMEOUT = 120   # seconds for one C tool run; the streams in these tests are small
EXPECTED_ENGINES = {"list", "rank", "bins", "hash", "nm", "kmeans", "adaptive", "simd", "auto"}
EXPECTED_ENGINES |= {"pnp", "col+pnp", "col+ll", "ll+pnp"}  # Ghazimirsaeed et al., ParCo 2019


UNAVAILABLE_KINDS = ("cpu", "kernel")


def load_script(name: str):
    """A module of scripts/ (scripts/NAME.py), imported from its file; scripts/ goes on
    the path first, as when the script runs, for the modules it imports from there."""
    import importlib.util
    import sys
    if str(REPO / "scripts") not in sys.path:
        sys.path.insert(0, str(REPO / "scripts"))
    spec = importlib.util.spec_from_file_location(name, REPO / "scripts" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    return mod


def skip_unavailable(reason: str, kind: str) -> None:
    """Skip for something this machine cannot have: kind 'cpu' or 'kernel'.
    The reason's form is what scripts/test_summary.py accepts as an allowed skip."""
    if kind not in UNAVAILABLE_KINDS:
        raise ValueError(f"skip_unavailable: kind {kind!r} is not one of {UNAVAILABLE_KINDS}; "
                         f"a missing package is not a reason to skip (scripts/setup.sh --dev)")
    pytest.skip(f"unavailable on this machine ({kind}): {reason}")


def _tools_required() -> bool:
    return (os.environ.get("MPIMATCH_REQUIRE_TOOLS") == "1"
            or os.environ.get("CI", "").lower() in ("1", "true", "yes"))


def _find(name: str) -> Path:
    try:
        return tools.find_tool(name)
    except tools.ToolNotFound as err:
        if _tools_required() or os.environ.get(tools.ENV_VAR):
            pytest.fail(f"C executable required but not found: {err}")
        pytest.skip(f"C executables not built: {err}")


@pytest.fixture(scope="session")
def replay_exe() -> Path:
    return _find(tools.REPLAY)


@pytest.fixture(scope="session")
def stream_exe() -> Path:
    return _find(tools.STREAM)


@pytest.fixture(scope="session")
def gen_exe() -> Path:
    return _find(tools.GEN)


@pytest.fixture(scope="session")
def engines(replay_exe: Path) -> List[Dict]:
    """The engines as `mpimatch-replay --list --json` describes them."""
    proc = subprocess.run([str(replay_exe), "--list", "--json"], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    found = data["engines"] if isinstance(data, dict) else data
    names = {e["name"] for e in found}
    assert EXPECTED_ENGINES <= names, f"engines missing: {EXPECTED_ENGINES - names}"
    return found


def engine_runs(engine: Dict, any_source: bool, any_tag: bool) -> bool:
    """Can this engine run a stream that does (not) use ANY_SOURCE / ANY_TAG?"""
    needs = hints_of(engine)
    return not (("no_any_source" in needs and any_source) or ("no_any_tag" in needs and any_tag))


def run(cmd: Sequence, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                          timeout=TIMEOUT, **kw)


def python_cli_env() -> Dict[str, str]:
    """Environment for `python -m mpimatch` that works without installing the package."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(PYTHON_DIR), env.get("PYTHONPATH")]))
    env.setdefault("COLUMNS", "200")
    return env


def run_cli(*args, **kw) -> subprocess.CompletedProcess:
    """Run the Python `mpimatch` command in a subprocess."""
    env = kw.pop("env", None) or python_cli_env()
    return run([sys.executable, "-m", "mpimatch", *args], env=env, **kw)
