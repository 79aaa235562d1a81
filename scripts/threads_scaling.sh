#!/bin/sh
# Scaling of MM_CFG_CONCURRENT against MM_CFG_THREAD_SAFE (one lock), 1..16 threads,
# without wildcards (both hints: shards by (comm, source, tag)) and with them (no hints:
# the wildcard part of test_concurrent, ANY_SOURCE/ANY_TAG receives, probes, cancels).
# Each cell: REPS runs of `build/bin/test_concurrent --bench ENGINE T OPS/T [wild]`,
# the median of each mode's operations per second, in millions. docs/threads.md.
#
# usage: scripts/threads_scaling.sh [REPS [OPS [ENGINE...]]]
set -eu
cd "$(dirname "$0")/.."
reps=${1:-5}
ops=${2:-200000}
[ $# -gt 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- list rank bins nm
exec .venv/bin/python - "$reps" "$ops" "$@" <<'PY'
import re, statistics, subprocess, sys
reps, ops, engines = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
threads = (1, 2, 4, 8, 16)
print("| engine | wildcards | " + " | ".join(f"{t} thr: concurrent / locked" for t in threads) + " |")
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
            cells.append(f"{statistics.median(c):.2f} / {statistics.median(g):.2f}")
        print(f"| `{e}` | {'yes' if wild else 'no'} | " + " | ".join(cells) + " |", flush=True)
PY
