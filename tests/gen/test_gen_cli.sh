#!/bin/sh
# test_gen_cli.sh - mpimatch-gen and mpimatch-replay --workload end to end:
# exit codes, messages, atomic output, and every generator's stream replayed
# by all engines, which must agree.
#
# usage: sh test_gen_cli.sh MPIMATCH_GEN MPIMATCH_REPLAY MPIMATCH_STREAM
set -u
GEN=$1
REPLAY=$2
STREAM=$3
LIB=$(cd "$(dirname "$0")/.." && pwd)/cli_lib.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_gen_cli.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

. "$LIB"

# ---- help and list ----
run 0 "$GEN" --help
has out "usage: mpimatch-gen SPEC"
run 0 "$GEN" --list
has out "shuffle"
has out "n=N  default 1024, range 1..1048576"
has out "points=7pt|27pt  default 27pt"
has out "seed=N  default 1"
run 0 "$GEN" --list --json
json_ok out
has out '"generators"'
has out '"synthetic": false'
has out '"choices"'
run 0 "$GEN" --list --json -o list.json
json_ok list.json

# ---- sizes computed from the spec: rejected before generating (at once) ----
run 2 timeout 60 "$GEN" miniamr:n=16384,iters=1000000 -o big.txt
has err "miniamr: the workload would have 77370400028 events, more than the limit of 16777216; lower iters, n, stages, vars or mv2_radix"
absent big.txt
run 2 timeout 60 "$GEN" nbody:n=512,iters=1000000
has err "nbody: the workload would have"
run 2 timeout 60 "$GEN" radix:n=512,iters=1000000
has err "radix: the workload would have"
run 2 timeout 60 "$GEN" fds:n=512,iters=1000000
has err "fds: the"
run 2 timeout 60 "$GEN" allreduce:n=16384,calls=1000000
has err "allreduce: the"
run 2 timeout 60 "$REPLAY" --workload miniamr:n=16384,iters=1000000 --engine list
has err "the workload would have 77370400028 events"

# ---- write errors and out of memory: status 1 with a message ----
if mknod fulldev c 1 7 2>/dev/null; then
    run 1 "$GEN" burst:n=64 -o fulldev
    has err "cannot write 'fulldev': No space left on device"
    "$GEN" burst:n=64 >fulldev 2>err
    if [ $? -eq 1 ]; then ok; else bad "gen >fulldev: want exit 1"; fi
    has err "error writing standard output: No space left on device"
    "$GEN" --list >fulldev 2>err
    if [ $? -eq 1 ]; then ok; else bad "gen --list >fulldev: want exit 1"; fi
    has err "error writing standard output: No space left on device"
else
    echo "SKIP: mknod not permitted (write-error checks)"
fi
# A file size limit is a write error too (SIGXFSZ ignored: EFBIG): status 1,
# the old file kept, no temporary file left (before: killed, FILE.tmp.PID left).
echo old >limited.txt
(ulimit -f 64; "$GEN" shuffle:n=100000 -o limited.txt) >out 2>err
rc=$?
if [ $rc -eq 1 ]; then ok; else bad "exit $rc, want 1 (ulimit -f): $GEN -o limited.txt"; fi
has err "cannot write 'limited.txt': File too large"
has limited.txt old
no_temps
rm -f ./*.tmp.*
# A reader that goes away (| head): SIGPIPE still ends the tool, after its
# temporary files are removed.
"$REPLAY" --workload shuffle:n=20000 --engine list --reps 1 --matches - --json piped.json -q 2>/dev/null | head -n 1 >/dev/null
absent piped.json
no_temps
# An address-space limit makes the collective expansion run out of memory
# (not under a sanitizer: it reserves terabytes of address space).
if ldd "$GEN" 2>/dev/null | grep -q 'lib[at]san'; then
    echo "SKIP: sanitizer build (out-of-memory checks)"
else
    for spec in radix:n=4096,iters=50 shuffle:n=1000000; do
        (ulimit -v 40000; "$GEN" "$spec" -o oom.txt) >out 2>err
        rc=$?
        if [ $rc -eq 1 ]; then ok; else bad "exit $rc, want 1 (out of memory): $GEN $spec"; fi
        has err "out of memory"
        (ulimit -v 40000; "$REPLAY" --workload "$spec" --engine list -q) >out 2>err
        rc=$?
        if [ $rc -eq 1 ]; then ok; else bad "exit $rc, want 1 (out of memory): $REPLAY --workload $spec"; fi
        has err "out of memory"
    done
    absent oom.txt
    # A spec whose collective plan alone would take gigabytes is refused while
    # the plan is made (before: 8.4 GB and 20 s, then refused; under this
    # limit, out of memory, status 1). radix's iallgather plan is counted past
    # 2^24 transfers, not stored (before: 5.2 GB stored, then refused).
    for spec in reduce_scatter:n=16384,lib=mpich radix:n=16384,iters=1 \
                nbody:n=16384,iters=1000000; do
        (ulimit -v 1500000; timeout 60 "$GEN" "$spec" -o big.txt) >out 2>err
        rc=$?
        if [ $rc -eq 2 ]; then ok; else bad "exit $rc, want 2 (refused): $GEN $spec"; cat err >&2; fi
        has err "${spec%%:*}: "
        absent big.txt
    done
    has err "nbody: the workload would have over "
fi

# ---- collide: keys that collide under the fixed hash; every engine agrees ----
for kind in tags sources bins; do
    run 0 "$REPLAY" --workload "collide:n=300,kind=$kind,bits=12" --engine all --reps 1 -q
done
run 0 "$GEN" collide:n=64,kind=sources,bits=8 -o col.txt
has col.txt "# np="
run 2 "$GEN" collide:n=1048576,bits=24
has err "collide: n * 2^bits = 17592186044416 keys to search, more than 2^31; lower n or bits"

# ---- bad input: exit 2, a clear message, no output file ----
echo keep >kept.txt
run 2 "$GEN" nosuch -o kept.txt
has err "mpimatch-gen: workload 'nosuch': unknown generator 'nosuch' (generators: burst,"
has kept.txt keep
run 2 "$GEN" shuffle:n=0 -o new.txt
has err "n=0 is out of range 1..1048576"
absent new.txt
run 2 "$GEN" shuffle:size=3
has err "shuffle has no parameter 'size' (parameters: n, rounds, seed)"
run 2 "$GEN" stencil2d:points=7pt
has err "points='7pt' is not one of: 5pt, 9pt"
run 2 "$GEN" shuffle:n=1048576,rounds=65536 -o big.txt
has err "more than the limit"
absent big.txt
run 2 "$GEN"
has err "missing SPEC"
run 2 "$GEN" shuffle burst
has err "more than one SPEC"
run 2 "$GEN" shuffle --format xml
has err "--format: 'xml' is not text or binary"
run 2 "$GEN" shuffle --bogus
has err "unknown option '--bogus'"
run 2 "$GEN" --list shuffle
run 2 "$GEN" shuffle --json
run 2 "$GEN" shuffle -o
has err "needs a value"
run 2 "$GEN" shuffle:n=4 -o no/such/dir/x.txt
no_temps

# ---- output: text and binary carry the same stream; reproducible ----
run 0 "$GEN" shuffle:n=64,rounds=2,seed=3 -o a.txt
run 0 "$GEN" shuffle:n=64,rounds=2,seed=3 --format binary -o a.mmb
run 0 "$STREAM" cat a.mmb
same out a.txt
run 0 "$GEN" shuffle:seed=3,rounds=2,n=64
same out a.txt
run 0 "$GEN" shuffle:n=64,rounds=2,seed=4
if cmp -s out a.txt; then bad "seed 4 gives the same stream as seed 3"; else ok; fi
has a.txt "# np=2"
run 0 "$STREAM" check a.txt
no_temps

# ---- replay --workload: JSON names the workload; bad specs fail early ----
run 0 "$REPLAY" --workload shuffle:n=64,rounds=2 --engine list,hash --reps 1 --json r.json
json_ok r.json
has r.json '"stream": "shuffle:n=64,rounds=2,seed=1"'
has r.json '"format": "generated"'
has r.json '"workload": {'
has r.json '"name": "shuffle"'
has r.json '"synthetic": false'
has r.json '"n": 64'
run 0 "$REPLAY" --workload stencil3d:lz=2,points=7pt --engine list --reps 1 --json r3.json
has r3.json '"points": "7pt"'
run 2 "$REPLAY" --workload shuffle:n=0 --engine list --json bad.json
has err "mpimatch-replay: workload 'shuffle:n=0': n=0 is out of range"
absent bad.json
run 2 "$REPLAY" a.txt --workload shuffle --engine list
has err "give STREAM or --workload, not both"
run 2 "$REPLAY" --engine list
has err "missing STREAM or --workload SPEC"
run 2 "$REPLAY" --workload any:n=8 --engine hash
has err "engine 'hash' requires hints"
# --engine all skips hash on a workload with ANY_SOURCE, saying why.
run 0 "$REPLAY" --workload any:n=8,rounds=1 --engine all --reps 1 --json any.json
has err "note: skipping engine 'hash': requires hints no_any_source,no_any_tag; any:n=8,rounds=1,seed=1: event 1 uses ANY_SOURCE"
has any.json '"skipped": ['
# The generated stream and the same stream read from a file match alike.
run 0 "$REPLAY" --workload shuffle:n=64,rounds=2,seed=3 --engine list --reps 1 --matches w.m
run 0 "$REPLAY" a.txt --engine list --reps 1 --matches f.m
same w.m f.m
# --np overrides the generated stream's np.
run 0 "$REPLAY" --workload reverse:n=4,m=2 --engine list --reps 1 --np 9 --json np.json
has np.json '"np": 9'
run 2 "$REPLAY" --workload reverse:n=4,m=2 --engine list --reps 1 --np 2
has err "source 3 outside 0..1"
no_temps

# ---- every generator (small sizes): all engines agree ----
for spec in burst:n=300,rounds=2 tags:n=300,rounds=2 shuffle:n=300,rounds=2 any:n=300,rounds=2 \
            pingpong:n=100,iters=200 reverse:n=20,m=10,rounds=2 reverse:n=9,m=5,arrival=sequential \
            reverse_groups:per_group=2,rounds=2 stencil_naive:threads=16,msgs=26,phases=2 \
            stencil2d:lx=8,ly=8,points=5pt,phases=2 stencil2d:lx=6,ly=9,assign=geometric,phases=2 \
            stencil3d:lx=3,ly=4,lz=5,phases=2 stencil3d:points=7pt,assign=geometric,sched=roundrobin,phases=2 \
            stencil_linear:lz=16,phases=2 scan:n=12,rank=5,calls=20,lib=mpich \
            scatter:n=13,rank=4,root=3,alg=binomial,calls=20 reduce_scatter:n=7,calls=20,nonblocking=1 \
            reduce_scatter_block:n=7,rank=2,calls=20 exscan:n=6,rank=3,calls=20,alg=recursive_doubling; do
    run 0 "$REPLAY" --workload "$spec" --engine all --reps 1 --quiet --matches m.txt
    if [ -s m.txt ]; then ok; else bad "$spec: no outcome lines"; fi
done
# Defaults too: the names alone.
ngen=0
for g in $("$GEN" --list --json | sed -n 's/^      "name": "\([a-z0-9_]*\)",$/\1/p'); do
    run 0 "$REPLAY" --workload "$g" --engine all --reps 1 --quiet
    ngen=$((ngen + 1))
done
if [ "$ngen" -ge 11 ]; then ok; else bad "only $ngen generators found in --list --json"; fi

cli_done
