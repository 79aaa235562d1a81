"""Real applications on the mpimatch provider (issue 12): LAMMPS (Debian's `lmp`) and the
HPC Challenge suite (`hpcc`) run to completion under pml cm + mtl ofi + mpimatch, over
shared memory and over the TCP channel, with the output of ob1: LAMMPS's thermodynamic
table digit for digit, hpcc's verification lines (residual checks, RandomAccess errors,
Success). Kept small so that each run takes seconds (docs/provider.md gives the full
examples/apps inputs and their timings)."""
from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Dict, List

import pytest

from conftest import REPO
from mpimatch import mpistack

# LAMMPS's lj melt (examples/apps/in.lj) on a 10^3-cell lattice (4,000 atoms), 50 steps,
# the thermodynamic state every 10 steps.
LJ_SMALL = """units lj
atom_style atomic
lattice fcc 0.8442
region box block 0 10 0 10 0 10
create_box 1 box
create_atoms 1 box
mass 1 1.0
velocity all create 1.44 87287 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
neighbor 0.3 bin
neigh_modify delay 0 every 20 check no
fix 1 all nve
thermo 10
run 50
"""

STACKS = {"mpimatch": None, "mpimatch-tcp": "all"}


def _stack_or_skip(name: str, tool: str) -> mpistack.Stack:
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} is not installed (Debian: apt-get install {tool.replace('lmp', 'lammps')})")
    for s in (mpistack.OB1, mpistack.Stack("mpimatch", "", ())):
        why = mpistack.unavailable(s)
        if why:
            pytest.skip(why)
    return mpistack.provider_stack(force_tcp=STACKS[name], name=name)


def _thermo(out: str) -> List[str]:
    """The thermodynamic table: from the `Step` header to `Loop time`."""
    lines = out.splitlines()
    start = next((i for i, l in enumerate(lines) if l.split()[:2] == ["Step", "Temp"]), None)
    assert start is not None, out[-2000:]
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Loop time"))
    return lines[start:end]


LMP_ARGV = ["lmp", "-in", "in.lj", "-log", "none"]
_ob1: Dict[str, List[str]] = {}   # tool -> ob1's output (thermo table, hpcc checks), run once


def _lammps(stack: mpistack.Stack, d: Path) -> List[str]:
    d.mkdir(exist_ok=True)
    (d / "in.lj").write_text(LJ_SMALL)
    out = mpistack.run(stack, 2, LMP_ARGV, 120, cwd=d)
    assert out.returncode == 0, out.stderr[-2000:]
    return _thermo(out.stdout)


@pytest.mark.parametrize("name", list(STACKS))
def test_lammps_thermo_equals_ob1(name: str, tmp_path: Path) -> None:
    stack = _stack_or_skip(name, "lmp")
    if "lmp" not in _ob1:
        _ob1["lmp"] = _lammps(mpistack.OB1, tmp_path / "ob1")
    table = _ob1["lmp"]
    assert len(table) == 7   # header and steps 0, 10, ..., 50
    assert _lammps(stack, tmp_path / name) == table


def _hpcc_checks(text: str) -> List[str]:
    """hpcc's verification lines, numbers with a fraction (timings, rates) removed. PTRANS's
    per-repetition timing lines (`WALL`/`CPU` ... PASSED) are left out (their layout
    follows the times); any FAILED line is kept."""
    keep = re.compile(r"Found \d+ errors|tests completed and|^Success=|^Failure=|ErrorsFraction"
                      r"|\|\|Ax-b\|\||FAILED")
    return sorted(re.sub(r"\d+\.\d+(e[-+]\d+)?", "", l).strip()
                  for l in text.splitlines() if keep.search(l))


@pytest.mark.parametrize("name", list(STACKS))
def test_hpcc_verifies_as_under_ob1(name: str, tmp_path: Path) -> None:
    stack = _stack_or_skip(name, "hpcc")
    inf = (REPO / "examples" / "apps" / "hpccinf.txt").read_text()
    inf = re.sub(r"^\d+(\s+Ps)", r"1\1", inf, flags=re.M)   # a 1 x 2 process grid
    inf = re.sub(r"^\d+(\s+Qs)", r"2\1", inf, flags=re.M)

    def checks(s: mpistack.Stack) -> List[str]:
        d = tmp_path / s.name
        d.mkdir()
        (d / "hpccinf.txt").write_text(inf)
        out = mpistack.run(s, 2, ["hpcc"], 240, cwd=d)
        assert out.returncode == 0, out.stderr[-2000:]
        return _hpcc_checks((d / "hpccoutf.txt").read_text())

    if "hpcc" not in _ob1:
        _ob1["hpcc"] = checks(mpistack.OB1)
    ref, got = _ob1["hpcc"], checks(stack)
    assert "Success=1" in ref and len(ref) >= 8 and not any("FAILED" in l for l in ref)
    assert got == ref
