"""scripts/threads_calibrate.py: the stencil scheduling model fitted to real threads."""
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "threads_calibrate.py"


def calibrate(replay_exe, *args):
    env = dict(os.environ, MPIMATCH_BIN_DIR=str(replay_exe.parent))
    return subprocess.run([sys.executable, SCRIPT, *args], env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)


def test_one_case(replay_exe, tmp_path):
    out = tmp_path / "cal.json"
    spec = "stencil2d:lx=4,ly=4,points=9pt"
    p = calibrate(replay_exe, "--phases", "2", "--case", spec, "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "one burst for all cases:" in p.stdout
    r = json.loads(out.read_text())
    (case,) = r["cases"]
    assert case["case"] == spec and r["phases"] == 2
    assert set(map(int, case["model"])) == set(r["bursts"])
    assert r["best_burst"] in r["bursts"] and case["best_burst"] in r["bursts"]
    # a mean search depth is at most the phase's message count M_t (+1: the barriers' own)
    depths = list(case["model"].values()) + [case["real"]["depth"]]
    assert all(0 < d <= case["real"]["msgs"] + 1 for d in depths), depths
    assert r["fit"][str(r["best_burst"])] == min(r["fit"].values())


def test_bad_case(replay_exe, tmp_path):
    p = calibrate(replay_exe, "--phases", "1", "--case", "stencil2d:lx=0")
    assert p.returncode != 0
    assert "threads_calibrate:" in p.stderr
