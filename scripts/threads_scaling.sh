#!/bin/sh
# Scaling of MM_CFG_CONCURRENT against MM_CFG_THREAD_SAFE (one lock), 1..16 threads,
# with and without wildcards; the numbers of docs/threads.md.
#
# Part 1, the library: REPS runs of `build/bin/test_concurrent --bench ENGINE T OPS/T
# [wild]` per cell: without wildcards both hints (shards by (comm, source, tag)); with
# them no hints and the test's wildcard part too (ANY_SOURCE / ANY_TAG receives, probes,
# matched probes, cancels). The median of each mode's operations per second, millions.
#
# Part 2, the stencil benchmark: REPS runs of `build/bin/mpimatch-threads --case
# stencil_naive:threads=T,msgs=1024/T --phases 10 --lock one|shards [--any-source]`
# (engine list, M_t = 1024 at every T): the median over the runs of each run's median
# drain time, microseconds, and of its mean PRQ depth.
#
# usage: scripts/threads_scaling.sh [REPS [OPS [ENGINE...]]]
set -eu
cd "$(dirname "$0")/.."
reps=${1:-5}
ops=${2:-200000}
[ $# -gt 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- list rank bins nm
exec .venv/bin/python - "$reps" "$ops" "$@" <<'PY'
import json, re, statistics, subprocess, sys
reps, ops, engines = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
threads = (1, 2, 4, 8, 16)
med = statistics.median

print("Library, Mops/s, concurrent / one lock (median of %d runs)" % reps)
print("| engine | wildcards | " + " | ".join(f"{t} thr" for t in threads) + " |")
print("|---|---|" + "---|" * len(threads))
for e in engines:
    for wild in (False, True):
        cells = []
        for t in threads:
            c, g = [], []
            for _ in range(reps):
                out = subprocess.run(["build/bin/test_concurrent", "--bench", e, str(t),
                                      str(ops // t)] + (["wild"] if wild else []),
                                     capture_output=True, text=True, check=True).stdout
                m = re.search(r"concurrent (\d+) ops/s thread_safe (\d+) ops/s", out)
                c.append(int(m.group(1)) / 1e6)
                g.append(int(m.group(2)) / 1e6)
            cells.append(f"{med(c):.2f} / {med(g):.2f}")
        print(f"| `{e}` | {'yes' if wild else 'no'} | " + " | ".join(cells) + " |", flush=True)

print()
print("mpimatch-threads, naive stencil, M_t = 1024, engine list: drain median us (depth), "
      "median of %d runs" % reps)
print("| lock | receives | " + " | ".join(f"T = {t}" for t in threads) + " |")
print("|---|---|" + "---|" * len(threads))
for lock in ("one", "shards"):
    for anysrc in (False, True):
        cells = []
        for t in threads:
            d, dep = [], []
            for _ in range(reps):
                out = subprocess.run(["build/bin/mpimatch-threads", "--case",
                                      f"stencil_naive:threads={t},msgs={1024 // t}",
                                      "--phases", "10", "--lock", lock, "--json", "-"]
                                     + (["--any-source"] if anysrc else []),
                                     capture_output=True, text=True, check=True).stdout
                c = json.loads(out)["cases"][0]["threads"]
                d.append(c["drain_us_median"])
                dep.append(c["depth"])
            cells.append(f"{med(d):.0f} ({med(dep):.1f})")
        print(f"| {lock} | {'ANY_SOURCE' if anysrc else 'source 1'} | " + " | ".join(cells)
              + " |", flush=True)
PY
