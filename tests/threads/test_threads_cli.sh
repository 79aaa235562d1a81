#!/bin/sh
# test_threads_cli.sh - mpimatch-threads end to end on small cases: real
# threads post and deliver every message (the tool fails if one matches the
# wrong receive or none), depths and drains are reported, the JSON is
# complete, bad input is refused before anything runs.
#
# usage: sh test_threads_cli.sh MPIMATCH_THREADS
set -u
THREADS=$1
LIB=$(cd "$(dirname "$0")/.." && pwd)/cli_lib.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_threads_cli.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

. "$LIB"

run 0 "$THREADS" --help
has out "usage: mpimatch-threads"

# Two small cases, every engine that runs thread-safe: each must match
# every message to its own receive (the tool checks partner cookies).
for e in list rank bins hash nm kmeans adaptive simd pnp col+pnp col+ll ll+pnp; do
    run 0 "$THREADS" --engine "$e" --phases 3 --case stencil2d:lx=4,ly=4,points=9pt \
        --case stencil_naive:threads=8,msgs=32 --json "r_$e.json"
    json_ok "r_$e.json"
    has out "M_t"
    has "r_$e.json" '"engine": "'"$e"'"'
done
has r_list.json '"msgs": 44'
has r_list.json '"recv_threads": 12'
has r_list.json '"send_threads": 20'
has r_list.json '"msgs": 256'
has r_list.json '"drain_us_median"'
has r_list.json '"paper": null'
# The depths are means over searches that all hit: at least 1.
if python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
ok = len(d["cases"]) == 2 and all(c["threads"]["depth"] >= 1 and c["modelled"]["depth"] >= 1
                                   and c["threads"]["depth_min"] <= c["threads"]["depth_max"]
                                   for c in d["cases"])
sys.exit(0 if ok else 1)' r_list.json; then ok; else bad "depths in r_list.json"; fi

# The table's phase range holds the mean beside it (one phase: the same number; small
# depths were rounded to integers, "1.70 2-2").
run 0 "$THREADS" --engine list --phases 1 --case stencil2d:lx=8,ly=8
if python3 -c '
import sys
row = [ln for ln in open(sys.argv[1]) if ln.startswith("stencil2d:")][0].split("|")[1].split()
mean, lo, hi = float(row[2]), *map(float, row[3].split("-"))
sys.exit(0 if lo - 0.05 <= mean <= hi + 0.05 else 1)' out; then ok; else bad "range beside the mean:"; cat out >&2; fi

# MM_CFG_CONCURRENT, with receives from ANY_SOURCE too (the wildcard path):
# every engine that takes wildcards, every message to its own receive.
for e in list rank bins nm kmeans adaptive simd pnp col+pnp col+ll ll+pnp; do
    run 0 "$THREADS" --engine "$e" --phases 2 --lock shards --any-source \
        --case stencil_naive:threads=8,msgs=32 --json "w_$e.json"
    has "w_$e.json" '"lock": "shards"'
    has "w_$e.json" '"any_source": true'
done
run 0 "$THREADS" --engine hash --phases 2 --lock shards --case stencil_naive:threads=4,msgs=8
has out "MM_CFG_CONCURRENT"
run 2 "$THREADS" --engine hash --any-source
has err "requires the hints"
run 2 "$THREADS" --lock two
has err "is not one or shards"

# JSON to standard output replaces the table.
run 0 "$THREADS" --phases 1 --case stencil3d:lx=2,ly=2,lz=2,points=7pt --json -
json_ok out
has out '"msgs": 24'

# Bad input: exit 2, a message, no output file.
run 2 "$THREADS" --case shuffle:n=8 --json bad.json
has err "is not a stencil workload"
absent bad.json
run 2 "$THREADS" --case stencil2d:lx=0
has err "lx=0 is out of range"
run 2 "$THREADS" --engine nosuch
has err "--engine:"
run 2 "$THREADS" --phases 0
run 2 "$THREADS" --frobnicate
has err "unknown argument"
no_temps

cli_done
