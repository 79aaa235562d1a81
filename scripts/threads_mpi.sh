#!/bin/sh
# The stencil benchmark of Schonbein et al. (Euro-Par 2018) as an MPI program under
# MPI_THREAD_MULTIPLE (build/bin/openmpi/mpimatch-threads-mpi), each case in its own
# 2-process job, under Open MPI's ob1 (--mca pml ob1, btl self,vader) and under the
# mpimatch provider (pml cm, mtl ofi, libmpimatch-fi.so) with engine ENGINE. Prints one line per case and stack: the drain
# time on the receiving rank (median and range over the phases) and, under the
# provider, the mean PRQ search depth of the receiving endpoint (all phases, the
# warm-up included; mm_get_stats through FI_MPIMATCH_STATS). A second ob1 run of each case
# goes under the tracer (mpimatch trace, MPI_T sampled at every point-to-point call): it
# prints ob1's own posted-receive queue length (pml_ob1_posted_recvq_length, mean and max
# over the samples of the busiest rank) and the mean PRQ search depth of the list model
# replaying that trace (mpimatch convert + replay). docs/threads.md.
#
# usage: scripts/threads_mpi.sh [PHASES [ENGINE [CASE...]]]
set -eu
cd "$(dirname "$0")/.."
phases=${1:-10}
engine=${2:-list}
[ $# -gt 2 ] && shift 2 || set --
[ $# -gt 0 ] || set -- "stencil2d:lx=32,ly=32,points=5pt" "stencil2d:lx=32,ly=32,points=9pt" \
    "stencil3d:lx=4,ly=4,lz=4,points=7pt" "stencil3d:lx=4,ly=4,lz=4,points=27pt" \
    "stencil3d:lx=8,ly=8,lz=4,points=7pt" "stencil_naive:threads=64,msgs=26"
prog=build/bin/openmpi/mpimatch-threads-mpi
mpirun=$(command -v mpirun.openmpi || command -v mpirun)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
for c in "$@"; do
    line=$("$mpirun" --allow-run-as-root --oversubscribe -np 2 --mca pml ob1 --mca btl self,vader \
           "$prog" --case "$c" \
           --phases "$phases")
    echo "ob1       $line"
    rm -rf "$tmp/tr" "$tmp/st" "$tmp/rep"
    .venv/bin/mpimatch trace --out "$tmp/tr" -- "$mpirun" --allow-run-as-root --oversubscribe \
        -np 2 --mca pml ob1 --mca btl self,vader -x MPIMATCH_TRACE_PVAR_EVERY=1 \
        "$prog" --case "$c" --phases "$phases" >/dev/null
    .venv/bin/mpimatch convert "$tmp/tr" --out "$tmp/st" >/dev/null
    .venv/bin/mpimatch replay "$tmp/st" --engine list --out "$tmp/rep" >/dev/null
    .venv/bin/python - "$tmp/rep/report.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
s = r["queue_series"]
posted = [v for _, v in (s.get("measured") or {}).get("posted", [])]
if not posted:
    sys.exit(f"{sys.argv[1]}: the trace holds no MPI_T samples of the posted-receive queue")
prq = r["aggregate"]["list"]["prq"]
print(f"ob1+trace MPI_T PRQ length mean {sum(posted) / len(posted):.2f} max {max(posted)} "
      f"({len(posted)} samples, rank {s['rank']}); list replay of the trace: "
      f"depth {prq['mean_depth']:.2f} (max {prq['max_depth']}, {prq['searches']} searches)")
PY
    rm -rf "$tmp/st"
    line=$(.venv/bin/mpimatch run --engine "$engine" --stats "$tmp/st" -- "$mpirun" \
           --allow-run-as-root --oversubscribe -np 2 "$prog" --case "$c" --phases "$phases")
    depth=$(.venv/bin/python - "$tmp/st" <<'PY'
import glob, json, sys
prq = max((json.load(open(f))["results"][0]["stats"]["prq"]
           for f in glob.glob(sys.argv[1] + "/mpimatch-fi-*.json")), key=lambda s: s["searches"])
print(f"depth {prq['mean_depth']:.2f} (max {prq['max_depth']}, {prq['searches']} searches)")
PY
)
    echo "provider  $line  $depth"
done
