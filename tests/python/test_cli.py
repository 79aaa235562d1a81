"""Command-line behaviour of the Python `mpimatch` command and the C tools it wraps:
bad input gives exit 2 and names file:line, nothing half-written, tables print."""
from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO, python_cli_env, run, run_cli
from mpimatch.model import outcomes, parse_stream

EXAMPLES = REPO / "examples"
TINY = EXAMPLES / "tiny.mms"
HEAD = "# mpimatch stream v1\n# np=4\nR 1 0 1 1\n"

# (name, the bad line, which is line 4 of the stream)
BAD_LINES = [
    ("malformed", "R 2 0 1"),
    ("not-a-number", "M 2 0 1 x"),
    ("unknown-event", "Q 2 0 1 1"),
    ("duplicate-id", "M 1 0 1 1"),
    ("unknown-cancel-id", "C 99"),
    ("wildcard-source-in-M", "M 2 0 * 1"),
    ("wildcard-tag-in-M", "M 2 0 1 *"),
    ("source-out-of-range", "M 2 0 4 1"),
]


def no_traceback(proc) -> None:
    assert "Traceback" not in proc.stderr, proc.stderr


def replay_cmd(how: str, replay_exe: Path, *args):
    if how == "c":
        return run([replay_exe, *args])
    return run_cli("replay", *args)


def stream_check(how: str, stream_exe: Path, path: Path):
    if how == "c":
        return run([stream_exe, "check", path])
    return run_cli("stream", "check", path)


# ---------------------------------------------------------------- bad input

@pytest.mark.parametrize("how", ["c", "py"])
@pytest.mark.parametrize("case, line", BAD_LINES, ids=[c for c, _ in BAD_LINES])
def test_bad_stream_exit_2_names_line_and_writes_nothing(tmp_path, replay_exe, how, case, line):
    path = tmp_path / f"{case}.mms"
    path.write_text(HEAD + line + "\nM 3 0 1 2\n")
    matches, js = tmp_path / "out.matches", tmp_path / "out.json"
    proc = replay_cmd(how, replay_exe, path, "--engine", "list", "--reps", "1",
                      "--matches", matches, "--json", js)
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:4" in proc.stderr, proc.stderr
    assert not matches.exists() and not js.exists(), "output written for a rejected stream"
    no_traceback(proc)


@pytest.mark.parametrize("how", ["c", "py"])
@pytest.mark.parametrize("case, line", BAD_LINES, ids=[c for c, _ in BAD_LINES])
def test_stream_check_names_line(tmp_path, stream_exe, how, case, line):
    path = tmp_path / f"{case}.mms"
    path.write_text(HEAD + line + "\n")
    proc = stream_check(how, stream_exe, path)
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:4" in proc.stderr, proc.stderr
    no_traceback(proc)


@pytest.mark.parametrize("how", ["c", "py"])
def test_missing_header_is_line_1(tmp_path, replay_exe, how):
    path = tmp_path / "nohead.mms"
    path.write_text("R 1 0 0 0\n")
    proc = replay_cmd(how, replay_exe, path, "--engine", "list", "--reps", "1")
    assert proc.returncode == 2 and f"{path}:1" in proc.stderr, proc.stderr


@pytest.mark.parametrize("how", ["c", "py"])
def test_missing_stream_file(tmp_path, replay_exe, how):
    path = tmp_path / "absent.mms"
    proc = replay_cmd(how, replay_exe, path, "--engine", "list")
    assert proc.returncode == 2 and str(path) in proc.stderr, proc.stderr
    no_traceback(proc)


@pytest.mark.parametrize("how", ["c", "py"])
def test_good_stream_writes_outputs(tmp_path, replay_exe, how):
    """The counterpart of the tests above: the same options on a valid stream do write."""
    matches, js = tmp_path / "out.matches", tmp_path / "out.json"
    proc = replay_cmd(how, replay_exe, TINY, "--engine", "list", "--reps", "1",
                      "--matches", matches, "--json", js)
    assert proc.returncode == 0, proc.stderr
    assert matches.read_text() == (EXAMPLES / "tiny.matches").read_text()
    assert [r["engine"] for r in json.loads(js.read_text())["results"]] == ["list"]


@pytest.mark.parametrize("how", ["c", "py"])
def test_unknown_engine_lists_valid_ones(replay_exe, engines, how):
    proc = replay_cmd(how, replay_exe, TINY, "--engine", "no-such-engine")
    assert proc.returncode == 2, proc.stderr
    assert "no-such-engine" in proc.stderr
    for e in engines:
        assert e["name"] in proc.stderr, f"{e['name']} not listed: {proc.stderr}"
    no_traceback(proc)


def _engine_with_params(engines):
    with_params = [e for e in engines if e.get("params")]
    assert with_params, "no engine declares a parameter"
    return with_params[0]


@pytest.mark.parametrize("how", ["c", "py"])
def test_unknown_parameter_lists_valid_ones(replay_exe, engines, how):
    engine = _engine_with_params(engines)
    proc = replay_cmd(how, replay_exe, EXAMPLES / "shuffle-1024.mms", "--engine", engine["name"],
                      "--param", "no_such_param=1")
    assert proc.returncode == 2, proc.stderr
    assert "no_such_param" in proc.stderr
    for p in engine["params"]:
        assert p["name"] in proc.stderr, f"{p['name']} not listed: {proc.stderr}"
    no_traceback(proc)


@pytest.mark.parametrize("how", ["c", "py"])
def test_parameter_out_of_range(replay_exe, engines, how):
    engine = _engine_with_params(engines)
    param = engine["params"][0]
    proc = replay_cmd(how, replay_exe, EXAMPLES / "shuffle-1024.mms", "--engine", engine["name"],
                      "--param", f"{param['name']}={int(param['max']) + 1}")
    assert proc.returncode == 2, proc.stderr
    assert param["name"] in proc.stderr
    no_traceback(proc)


def test_tools_not_found_is_a_clear_error(tmp_path):
    env = python_cli_env()
    env["MPIMATCH_BIN_DIR"] = str(tmp_path / "nowhere")
    proc = run_cli("engines", env=env)
    assert proc.returncode == 127
    assert "MPIMATCH_BIN_DIR" in proc.stderr and "mpimatch-replay" in proc.stderr
    no_traceback(proc)


# ---------------------------------------------------------------- engines, replay

def test_engines_json_parses(engines):
    proc = run_cli("engines", "--json")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [e["name"] for e in data] == [e["name"] for e in engines]
    for e in data:
        assert {"name", "summary", "origin", "hints_required", "params"} <= set(e)


def test_engines_table(engines):
    proc = run_cli("engines")
    assert proc.returncode == 0, proc.stderr
    for e in engines:
        assert e["name"] in proc.stdout
    # piped: no line padded with blanks to the widest cell (they were 1000 columns)
    assert [ln for ln in proc.stdout.splitlines() if ln != ln.rstrip()] == []


def test_engines_say_how_they_run_concurrently(engines):
    """`concurrent` comes from mm_concurrency_of: one entry per set of hints the engine
    can be created with; ANY_SOURCE spans shards exactly when the hints allow it."""
    proc = run_cli("engines", "--json")
    data = {e["name"]: e for e in json.loads(proc.stdout)}
    for name, e in data.items():
        need = set(e["hints_required"])
        sets = [set(c["hints"]) for c in e["concurrent"]]
        allowed = [h for h in (set(), {"no_any_source"}, {"no_any_tag"},
                               {"no_any_source", "no_any_tag"}) if need <= h]
        assert sorted(map(sorted, sets)) == sorted(map(sorted, allowed)), name
        for c in e["concurrent"]:
            hints = set(c["hints"])
            assert c["serialises"] is False and c["shards"] == 64, name
            assert c["shard_key"] == ("comm,source,tag" if "no_any_tag" in hints else "comm,source")
            assert (c["any_source"] == "excluded") == ("no_any_source" in hints), name
    assert [c["hints"] for c in data["hash"]["concurrent"]] == [["no_any_source", "no_any_tag"]]
    table = run_cli("engines").stdout
    assert "hints none: 64 shards by (comm, source); ANY_SOURCE locks its communicator's shards" in table


def test_replay_prints_the_c_tools_table(tmp_path, replay_exe):
    """One renderer: `mpimatch replay STREAM` shows mpimatch-replay's own table."""
    js = tmp_path / "r.json"
    proc = run_cli("replay", TINY, "--engine", "list,rank", "--reps", "2", "--json", js)
    assert proc.returncode == 0, proc.stderr
    c = run([replay_exe, TINY, "--engine", "list,rank", "--reps", "2"])
    head = [ln.split()[0] for ln in proc.stdout.splitlines()]
    assert head == [ln.split()[0] for ln in c.stdout.splitlines()] == ["stream", "floor", "engine", "list", "rank"]
    data = json.loads(js.read_text())
    assert [r["engine"] for r in data["results"]] == ["list", "rank"]
    assert data["reps"] == 2


def test_replay_json_statistics(tmp_path, replay_exe, engines):
    """Every engine reports both sides' statistics; side bytes fit in the total."""
    js = tmp_path / "s.json"
    stream = EXAMPLES / "mixed-wildcards.mms"
    proc = run_cli("replay", stream, "--engine", "all", "--reps", "1", "--json", js)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(js.read_text())
    n_r = sum(1 for e in parse_stream(stream.read_text()).events if e.kind == "R")
    for r in data["results"]:
        st = r["stats"]
        for side in ("prq", "umq"):
            q = st[side]
            assert q["hits"] + q["misses"] == q["searches"]
            assert 0 <= q["bytes"] <= q["peak_bytes"] and q["peak_bytes"] > 0
            assert q["length"] <= q["max_length"]
        assert st["prq"]["bytes"] + st["umq"]["bytes"] <= st["bytes"] <= st["peak_bytes"]
        assert st["umq"]["searches"] >= n_r          # every receive searched the UMQ
        # every queued receive is an element of at least 48 bytes (a 32-byte header and
        # one link; 64 before 0.3)
        assert st["prq"]["peak_bytes"] >= 48 * st["prq"]["max_length"]


def test_replay_param_before_stream(replay_exe):
    """--param takes one value, so the stream may follow it (it was taken for a second
    parameter: 'the following arguments are required: STREAM'); repeated, each applies."""
    proc = run_cli("replay", "--engine", "bins", "--param", "bins=64", "--param", "seed=3",
                   TINY, "--reps", "1", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    js = json.loads(proc.stdout)
    assert js["results"][0]["params"] == {"bins": 64, "seed": 3}


def test_replay_quiet_prints_no_table(replay_exe):
    proc = run_cli("replay", TINY, "--engine", "list", "--reps", "1", "--quiet")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == ""


# ---------------------------------------------------------------- stream

@pytest.mark.parametrize("how", ["c", "py"])
def test_stream_convert_binary_round_trip(tmp_path, stream_exe, replay_exe, how):
    binary, text = tmp_path / "tiny.bin", tmp_path / "tiny.mms"
    cmd = ([stream_exe] if how == "c" else [sys.executable, "-m", "mpimatch", "stream"])
    env = python_cli_env()
    assert run([*cmd, "convert", TINY, binary, "--to", "binary"], env=env).returncode == 0
    assert run([*cmd, "check", binary], env=env).returncode == 0
    assert run([*cmd, "convert", binary, text, "--to", "text"], env=env).returncode == 0
    assert ([e.to_line() for e in parse_stream(text.read_text()).events]
            == [e.to_line() for e in parse_stream(TINY.read_text()).events])
    cat = run([*cmd, "cat", binary], env=env)
    assert cat.returncode == 0, cat.stderr
    assert outcomes(parse_stream(cat.stdout).events) == (EXAMPLES / "tiny.matches").read_text().split("\n")[:-1]
    out = tmp_path / "bin.matches"
    proc = run([replay_exe, binary, "--engine", "all", "--reps", "1", "--matches", out, "--quiet"])
    assert proc.returncode == 0, proc.stderr
    assert out.read_text() == (EXAMPLES / "tiny.matches").read_text()


@pytest.mark.parametrize("how", ["c", "py"])
def test_stream_np_overrides(tmp_path, stream_exe, how):
    """--np N for convert, check and cat, as mpimatch-stream has it (the Python
    command refused it: 'unrecognized arguments')."""
    cmd = [stream_exe] if how == "c" else [sys.executable, "-m", "mpimatch", "stream"]
    env, out = python_cli_env(), tmp_path / "np8.mms"
    cat = run([*cmd, "cat", TINY, "--np", "8"], env=env)
    assert cat.returncode == 0 and "# np=8" in cat.stdout.splitlines(), cat.stderr
    check = run([*cmd, "check", TINY, "--np", "8"], env=env)
    assert check.returncode == 0 and "8 (--np)" in check.stdout, check.stdout + check.stderr
    assert run([*cmd, "convert", TINY, out, "--np", "8"], env=env).returncode == 0
    assert "# np=8" in out.read_text().splitlines()


@pytest.mark.parametrize("how", ["c", "py"])
def test_stream_convert_bad_input_writes_nothing(tmp_path, stream_exe, how):
    bad, out = tmp_path / "bad.mms", tmp_path / "out.bin"
    bad.write_text(HEAD + "M 2 0 * 1\n")
    cmd = [stream_exe] if how == "c" else [sys.executable, "-m", "mpimatch", "stream"]
    proc = run([*cmd, "convert", bad, out, "--to", "binary"], env=python_cli_env())
    assert proc.returncode == 2 and f"{bad}:4" in proc.stderr, proc.stderr
    assert not out.exists()


# ---------------------------------------------------------------- help, version

@pytest.mark.parametrize("sub", [[], ["engines"], ["replay"], ["stream"], ["stream", "convert"],
                                 ["stream", "check"], ["stream", "cat"], ["bench"], ["tables"],
                                 ["queues"], ["report"]])
def test_help(sub):
    proc = run_cli(*sub, "--help")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: mpimatch")
    # the exit-status epilog names the write error once (queues and report said it twice)
    assert proc.stdout.count("write error") == 1, proc.stdout


def test_version():
    """The Python front end says the library's version (include/mpimatch.h, which CMake
    reads too), and its package metadata agrees: it said 0.1.0 beside library 0.2.0."""
    import re
    header = (REPO / "include" / "mpimatch.h").read_text()
    parts = [re.search(rf"#define MPIMATCH_VERSION_{p} (\d+)", header).group(1)
             for p in ("MAJOR", "MINOR", "PATCH")]
    want = ".".join(parts)
    proc = run_cli("--version")
    assert proc.returncode == 0 and proc.stdout.strip() == f"mpimatch {want}", proc.stdout
    pyproject = (REPO / "python" / "pyproject.toml").read_text()
    assert re.search(rf'^version = "{re.escape(want)}"$', pyproject, re.M), "pyproject.toml"


def test_usage_errors_exit_2():
    for args in ([], ["nonsense"], ["replay"], ["bench", "--reps", "x"]):
        proc = run_cli(*args)
        assert proc.returncode == 2, args
        no_traceback(proc)


def test_replay_json_to_stdout(replay_exe):
    proc = run_cli("replay", TINY, "--engine", "list,nm", "--reps", "1", "--json", "-")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)                 # nothing but the JSON on stdout
    assert [r["engine"] for r in data["results"]] == ["list", "nm"]
    assert data["results"][0]["outcomes"]["matches"] == sum(
        1 for line in (EXAMPLES / "tiny.matches").read_text().splitlines() if line[0].isdigit())


# ---------------------------------------------------------------- write errors

def _full_device(tmp_path: Path) -> Path:
    """A private node with /dev/full's numbers (every write fails with ENOSPC)."""
    dev = tmp_path / "full"
    try:
        os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    except PermissionError:
        pytest.skip("mknod is not permitted here (needs CAP_MKNOD)")
    return dev


@pytest.mark.parametrize("args", [["engines"], ["engines", "--json"], ["gen", "--list"],
                                  ["replay", str(TINY), "--engine", "list", "--reps", "1"],
                                  ["stream", "check", str(TINY)]])
def test_full_stdout_is_an_error(tmp_path, args):
    """A full standard output: a message and exit 1, never a traceback or exit 0."""
    dev = _full_device(tmp_path)
    with open(dev, "w") as full:
        proc = subprocess.run([sys.executable, "-m", "mpimatch", *args], stdout=full,
                              stderr=subprocess.PIPE, text=True, env=python_cli_env(), timeout=120)
    assert proc.returncode == 1, proc.stderr
    no_traceback(proc)
    assert "error writing standard output: No space left on device" in proc.stderr


def test_closed_pipe_is_an_error(tmp_path):
    """A reader that went away (EPIPE): a message and exit 1, no traceback."""
    code = ("import sys, runpy; sys.argv = ['mpimatch', 'engines']; "
            "import os; r, w = os.pipe(); os.close(r); os.dup2(w, 1); "
            "import signal; signal.signal(signal.SIGPIPE, signal.SIG_IGN); "
            "from mpimatch.cli import main; sys.exit(main(['engines']))")
    proc = subprocess.run([sys.executable, "-c", code], stderr=subprocess.PIPE, text=True,
                          env=python_cli_env(), timeout=120)
    assert proc.returncode == 1, proc.stderr
    no_traceback(proc)
    assert "error writing standard output: Broken pipe" in proc.stderr


def test_replay_reports_the_harness_floor(replay_exe):
    """The floor is measured in the same run and subtracted: engine-only = total - floor."""
    proc = run([replay_exe, "--workload", "shuffle:n=1024", "--engine", "list,hash", "--reps", "3",
                "--json", "-", "-q"])
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    floor = data["floor_ns_per_event"]
    assert floor > 0
    for r in data["results"]:
        assert r["floor_ns_per_event"] == floor
        assert abs(r["engine_ns_per_event"] - (r["ns_per_event"]["median"] - floor)) < 1e-6
    # list on shuffle searches ~1000 elements an event: far above the null call
    lst = next(r for r in data["results"] if r["engine"] == "list")
    assert lst["ns_per_event"]["median"] > 5 * floor


SEEDED = ("hash", "nm", "bins", "adaptive")     # the engines with parameter seed=


def _untimed_stats(data):
    """engine -> (params, statistics without the timings: overhead is in ns)."""
    return {r["engine"]: (r["params"], {k: v for k, v in r["stats"].items() if k != "overhead"})
            for r in data["results"]}


def test_replay_seed_repeats_depths_and_probes(tmp_path, gen_exe, replay_exe):
    """The lab passes a fixed seed= to the hashed engines (--seed, default 1) and records it,
    so two replays of one stream give identical statistics; without it (--seed 0) each
    engine draws its own, and bins' layout changes from run to run."""
    stream = tmp_path / "collide.mms"
    p = run_cli("gen", "collide:n=2048,rounds=2,kind=tags", "-o", stream)
    assert p.returncode == 0, p.stderr
    runs = []
    for i in range(2):
        js = tmp_path / f"r{i}.json"
        p = run_cli("replay", stream, "--engine", ",".join(SEEDED), "--reps", "1", "--json", js)
        assert p.returncode == 0, p.stderr
        runs.append(json.loads(js.read_text()))
    assert runs[0]["seed"] == runs[1]["seed"] == 1
    a, b = (_untimed_stats(d) for d in runs)
    assert list(a) == list(SEEDED) and a == b
    assert all(params["seed"] == 1 for params, _ in a.values())
    assert "seed 1" in run([replay_exe, stream, "--engine", "hash", "--reps", "1"]).stdout
    # the user's seed, and --param's over it for one engine
    p = run_cli("replay", stream, "--engine", ",".join(SEEDED), "--reps", "1", "--seed", "5",
                "--param", "hash:seed=9", "--json", "-")
    assert p.returncode == 0, p.stderr
    data = json.loads(p.stdout)
    assert data["seed"] == 5
    assert {e: params["seed"] for e, (params, _) in _untimed_stats(data).items()} == {
        "hash": 9, "nm": 5, "bins": 5, "adaptive": 5}
    # drawn seeds (--seed 0): bins' layout, so its traversal count, changes from draw to
    # draw (12 draws of this stream: 12 traversal counts, 11904..12546; four all equal
    # would be a chance far below 1e-6)
    drawn = []
    for _ in range(4):
        p = run([replay_exe, stream, "--engine", "bins", "--reps", "1", "--seed", "0",
                 "--json", "-", "-q"])
        assert p.returncode == 0, p.stderr
        drawn.append(json.loads(p.stdout))
    assert drawn[0]["seed"] == 0
    assert len({json.dumps(_untimed_stats(d), sort_keys=True) for d in drawn}) > 1
