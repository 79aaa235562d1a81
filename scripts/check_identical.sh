#!/usr/bin/env bash
# check_identical.sh - do two builds of the C tools give byte-identical outputs?
#
#   scripts/check_identical.sh BUILD_A BUILD_B       compare two build dirs
#   scripts/check_identical.sh --commits REV_A REV_B build both revisions in
#                                                    temporary worktrees first
#   scripts/check_identical.sh --record BUILD OUT    only write BUILD's outputs to OUT
#   options: --keep DIR  keep the outputs (DIR/a, DIR/b) instead of a temp dir
#
# A build dir is what cmake makes (BUILD/bin/mpimatch-gen, ...). The inputs
# come from this checkout, so both builds see the same:
#   - mpimatch-gen: every workload of every bench suite (python/mpimatch,
#     through .venv/bin/python or python3) and every generator at its
#     defaults, text and binary; --list, --list --json; bad specs;
#   - mpimatch-stream check / cat / convert (text -> binary -> text),
#     check --check-resolved on examples/, tests/stream/data, the fuzz
#     corpus, some generated streams and the converted traces;
#   - mpimatch-replay --matches / --peer-traversal / --queue-series (the
#     untimed outputs), engine parameters (good and bad), --list;
#   - mpimatch-profile on the example streams;
#   - mpimatch-coll for every operation on a grid of sizes, both libraries;
#   - mpimatch-import-dumpi on tests/dumpi/data, mpimatch-trace-dump and
#     mpimatch-convert (both --mpi, --text) on it and on traces of
#     tests/mpi/ring_probe.c and persistent.c made once with BUILD_A's
#     tracer (when mpicc/mpirun and the tracer are there; timestamps differ
#     between runs, so the trace is made once and read by both builds).
# Every command's stdout, stderr and exit status are kept; files it writes
# too. Exit 0 when identical, 1 when not (diff -r lists the files), 2 on
# usage errors or a failed build.
set -u
REPO=$(cd "$(dirname "$0")/.." && pwd)
die() { echo "check_identical: $*" >&2; exit 2; }

keep=""
mode=compare
args=()
while [ $# -gt 0 ]; do
  case $1 in
    --keep) keep=$2; shift 2 ;;
    --commits) mode=commits; shift ;;
    --record) mode=record; shift ;;
    -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
[ ${#args[@]} -eq 2 ] || die "expected two arguments (try --help)"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_identical.XXXXXX") || exit 2
cleanup() {
  for wt in "$WORK"/src-*; do
    [ -d "$wt" ] && git -C "$REPO" worktree remove --force "$wt" >/dev/null 2>&1
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

build_rev() {   # REV NAME -> prints the build dir
  local src="$WORK/src-$2" b="$WORK/build-$2"
  git -C "$REPO" worktree add --detach "$src" "$1" >/dev/null 2>&1 || die "cannot check out $1"
  { cmake -S "$src" -B "$b" -DCMAKE_BUILD_TYPE=Release -DMPIMATCH_BUILD_TESTS=OFF &&
    cmake --build "$b" -j2; } >"$WORK/build-$2.log" 2>&1 || die "build of $1 failed ($WORK/build-$2.log)"
  echo "$b"
}

# ---------------------------------------------------------------- inputs
IN=$WORK/in
mkdir -p "$IN"

specs() {   # the suites' workload specs, then every generator at its defaults
  local py=python3
  [ -x "$REPO/.venv/bin/python" ] && py=$REPO/.venv/bin/python
  PYTHONPATH=$REPO/python "$py" - <<'EOF' || die "cannot read the bench suites"
import importlib
for mod in ("mpimatch.suites", "mpimatch.bench.suites"):
    try:
        m = importlib.import_module(mod)
        break
    except ModuleNotFoundError as e:
        if not e.name or not mod.startswith(e.name):
            raise
else:
    raise SystemExit("no suites module")
seen = []
for suite in m.SUITES.values():
    for item in suite.items:
        if isinstance(item.source, str) and item.source not in seen:
            seen.append(item.source)
print("\n".join(seen))
EOF
}

make_inputs() {   # BUILD_A
  local b=$1
  specs >"$IN/specs.txt"
  "$b/bin/mpimatch-gen" --list --json | python3 -c '
import json, sys
for g in json.load(sys.stdin)["generators"]:
    print(g["name"])' >>"$IN/specs.txt" || die "mpimatch-gen --list --json failed"
  # traces of the project's MPI test programs, made once
  mkdir -p "$IN/traces"
  local mpi cc run
  for mpi in openmpi mpich; do
    case $mpi in
      openmpi) cc=$(command -v mpicc.openmpi); run=$(command -v mpirun.openmpi) ;;
      mpich) cc=$(command -v mpicc.mpich); run=$(command -v mpirun.mpich) ;;
    esac
    local lib=$b/lib/$mpi/libmpimatch-trace.so
    [ -n "$cc" ] && [ -n "$run" ] && [ -f "$lib" ] || continue
    for prog in ring_probe persistent; do
      "$cc" -O1 -o "$IN/$prog-$mpi" "$REPO/tests/mpi/$prog.c" 2>/dev/null || continue
      local envflag=(-x "LD_PRELOAD=$lib" -x "MPIMATCH_TRACE_DIR=$IN/traces/$prog-$mpi")
      [ $mpi = mpich ] && envflag=(-genv LD_PRELOAD "$lib" -genv MPIMATCH_TRACE_DIR "$IN/traces/$prog-$mpi")
      local extra=()
      [ $mpi = openmpi ] && extra=(--allow-run-as-root --oversubscribe)
      timeout 60 "$run" "${extra[@]}" -np 4 "${envflag[@]}" "$IN/$prog-$mpi" \
        >"$IN/traces/$prog-$mpi.log" 2>&1 || rm -rf "$IN/traces/$prog-$mpi"
    done
  done
}

# ---------------------------------------------------------------- outputs
n=0
run() {   # NAME CMD...: stdout, stderr and status of CMD as NAME.{out,err,rc}
  local name=$1; shift
  "$@" >"$name.out" 2>"$name.err" </dev/null
  echo $? >"$name.rc"
  n=$((n + 1))
}

record() {   # BUILD OUT
  local B=$1/bin OUT=$2
  mkdir -p "$OUT" && cd "$OUT" || die "cannot write $OUT"
  local GEN=$B/mpimatch-gen ST=$B/mpimatch-stream RP=$B/mpimatch-replay PR=$B/mpimatch-profile
  local CO=$B/mpimatch-coll CV=$B/mpimatch-convert DI=$B/mpimatch-import-dumpi TD=$B/mpimatch-trace-dump

  # mpimatch-gen
  mkdir -p gen
  run gen/list "$GEN" --list
  run gen/list-json "$GEN" --list --json
  run gen/help "$GEN" --help
  local i=0 spec
  while IFS= read -r spec; do
    i=$((i + 1))
    echo "$spec" >"gen/$i.spec"
    run "gen/$i" "$GEN" "$spec" -o "gen/$i.mms"
    run "gen/$i-bin" "$GEN" "$spec" --format binary -o "gen/$i.mmb"
  done <"$IN/specs.txt"
  run gen/bad-name "$GEN" nosuch:n=1
  run gen/bad-key "$GEN" shuffle:nosuch=1
  run gen/bad-value "$GEN" shuffle:n=0
  run gen/bad-number "$GEN" shuffle:n=12x

  # streams: shipped, test data, corpus, a few generated ones
  mkdir -p st rp pf
  local streams=("$REPO"/examples/*.mms "$REPO"/tests/stream/data/*.txt "$REPO"/tests/stream/corpus/*)
  streams+=(gen/1.mms gen/2.mmb gen/3.mms)
  local s k=0
  for s in "${streams[@]}"; do
    k=$((k + 1))
    run "st/$k-check" "$ST" check "$s"
    run "st/$k-resolved" "$ST" check "$s" --check-resolved
    run "st/$k-cat" "$ST" cat "$s"
    run "st/$k-tobin" "$ST" convert "$s" "st/$k.mmb"
    run "st/$k-totext" "$ST" convert "st/$k.mmb" "st/$k.txt"
    run "st/$k-np" "$ST" cat "$s" --np 4096
    # replay: the untimed outputs
    run "rp/$k-all" "$RP" "$s" --engine all --matches "rp/$k.matches" --reps 1 --quiet
    run "rp/$k-trav" "$RP" "$s" --peer-traversal "rp/$k.trav.json" --queue-series "rp/$k.series.csv" --every 7
    run "pf/$k" "$PR" "$s" --out -
  done
  run st/help "$ST" --help
  run st/stdin sh -c "\"$ST\" cat - < \"$REPO/examples/tiny.mms\""
  run pf/two "$PR" "$REPO/tests/stream/data/wild.txt" "$REPO/tests/stream/data/nowild.txt" --out - --receiver 2
  run pf/two-np "$PR" "$REPO/tests/stream/data/wild.txt" "$REPO/tests/stream/data/nowild.txt" --out - --receiver 1 --np 4

  # replay: parameters and engine lists
  local W=$REPO/examples/mixed-wildcards.mms
  run rp/list "$RP" --list
  run rp/list-json "$RP" --list --json
  run rp/p-bins "$RP" "$W" --engine bins --param bins=64 --matches rp/p-bins.m --reps 1 --quiet
  run rp/p-bins2 "$RP" "$W" --engine bins,list --param bins:bins=7 --matches rp/p-bins2.m --reps 1 --quiet
  run rp/p-global "$RP" "$W" --engine all --param k=3 --matches rp/p-global.m --reps 1 --quiet
  run rp/p-col "$RP" "$W" --engine col+pnp --param kc=1 --param kp=0 --matches rp/p-col.m --reps 1 --quiet
  run rp/p-bad-int "$RP" "$W" --engine bins --param bins=abc --reps 1 --quiet
  run rp/p-bad-range "$RP" "$W" --engine bins --param bins=0 --reps 1 --quiet
  run rp/p-big "$RP" "$W" --engine bins --param bins=99999999999999999999 --reps 1 --quiet
  run rp/p-unknown "$RP" "$W" --engine bins --param nosuch=1 --reps 1 --quiet
  run rp/p-unknown-eng "$RP" "$W" --engine bins --param nosuch:x=1 --reps 1 --quiet
  run rp/p-noeq "$RP" "$W" --engine bins --param bins --reps 1 --quiet
  run rp/p-file "$RP" "$W" --engine kmeans --param kmeans:clusters=/nonexistent --reps 1 --quiet
  run rp/bad-engine "$RP" "$W" --engine nosuch --reps 1 --quiet
  run rp/workload "$RP" --workload "shuffle:n=64,rounds=2" --engine all --matches rp/workload.m --reps 1 --quiet
  run rp/hints "$RP" "$W" --engine hash --hints none --matches rp/hints.m --reps 1 --quiet
  # the parameters each engine ran with, from --json (timings left out)
  local keep='import json,sys; d=json.load(sys.stdin); [print(r["engine"], json.dumps(r["params"])) for r in d["results"]]; print("skipped", json.dumps(d["skipped"]))'
  run rp/p-json sh -c "\"$RP\" \"$W\" --engine all --param bins=077 --param kc=1 --param col+pnp:kp=0 --param k=2 --reps 1 --quiet --json - | python3 -c '$keep'"
  run rp/p-json-kmeans sh -c "\"$RP\" \"$W\" --engine list,kmeans,bins --reps 1 --quiet --json - | python3 -c '$keep'"

  # mpimatch-coll: every operation, a grid of sizes, both libraries
  mkdir -p coll
  local ops op lib nn by
  ops="barrier bcast reduce allreduce gather gatherv scatter scatterv allgather allgatherv
       alltoall alltoallv reduce_scatter reduce_scatter_block scan exscan"
  for op in $ops; do
    for lib in openmpi mpich; do
      {
        for nn in 1 2 3 5 8 13 64; do
          for by in 0 1 4096 1048576; do
            echo "== --op $op --n $nn --bytes $by --lib $lib"
            "$CO" --op "$op" --n "$nn" --bytes "$by" --lib "$lib" --pairs 2>&1; echo "rc $?"
          done
        done
        echo "== json"; "$CO" --op "$op" --n 6 --bytes 100 --elem 4 --root 2 --lib "$lib" --json 2>&1; echo "rc $?"
        echo "== i$op"; "$CO" --op "i$op" --n 6 --bytes 100 --lib "$lib" 2>&1; echo "rc $?"
        # every algorithm of the operation (the error message lists them)
        local algs alg
        algs=$("$CO" --op "$op" --n 2 --alg nosuch 2>&1 | sed -n 's/.*(valid: \(.*\))$/\1/p' | tr -d ',')
        for alg in $algs; do
          [ "$alg" = auto ] && continue
          for nn in 5 8; do
            echo "== --op $op --alg $alg --n $nn --lib $lib"
            "$CO" --op "$op" --alg "$alg" --n "$nn" --bytes 4096 --elem 8 --lib "$lib" 2>&1; echo "rc $?"
          done
        done
      } >"coll/$op-$lib.txt"
    done
  done
  run coll/bad-alg "$CO" --op bcast --n 8 --bytes 10 --alg nosuch

  # traces: DUMPI import, trace dump, convert
  mkdir -p tr
  run tr/dumpi "$DI" "$REPO/tests/dumpi/data/p2p" --out tr/dumpi-p2p
  run tr/dumpi-meta "$DI" --mpi mpich "$REPO/tests/dumpi/data/p2p/dumpi-2024.01.02.03.04.05.meta" --out tr/dumpi-p2p-mpich
  run tr/dumpi-bad "$DI" "$REPO/tests/dumpi/data" --out tr/dumpi-bad
  local t traces=(tr/dumpi-p2p tr/dumpi-p2p-mpich)
  for t in "$IN"/traces/*/; do [ -d "$t" ] && traces+=("${t%/}"); done
  k=0
  for t in "${traces[@]}"; do
    k=$((k + 1))
    run "tr/$k-dump" "$TD" "$t"/rank-*.mmt
    run "tr/$k-summary" "$TD" --summary "$t"/rank-*.mmt
    for lib in openmpi mpich; do
      run "tr/$k-conv-$lib" "$CV" "$t" --out "tr/$k-$lib" --mpi "$lib" --text
      local r
      for r in "tr/$k-$lib"/rank-*.mms; do
        [ -f "$r" ] || continue
        run "$r-resolved" "$ST" check "$r" --check-resolved
        run "$r-matches" "$RP" "$r" --engine list --matches "$r.matches" --reps 1 --quiet
      done
    done
    run "tr/$k-conv-net" "$CV" "$t" --out "tr/$k-net" --rank 0,2-3 --latency-inter 5000 --gap 7 --gap-per-byte 3 --quiet
  done
  echo "$n commands" >count
}

if [ $mode = record ]; then
  b=$(cd "${args[0]}" && pwd) || die "no build dir ${args[0]}"
  out=$(mkdir -p "${args[1]}" && cd "${args[1]}" && pwd)
  make_inputs "$b"
  record "$b" "$out"
  echo "check_identical: $(cat "$out/count") recorded in $out"
  exit 0
fi

if [ $mode = commits ]; then
  A=$(build_rev "${args[0]}" a) || exit 2
  B=$(build_rev "${args[1]}" b) || exit 2
else
  A=$(cd "${args[0]}" && pwd) || die "no build dir ${args[0]}"
  B=$(cd "${args[1]}" && pwd) || die "no build dir ${args[1]}"
fi
for b in "$A" "$B"; do
  [ -x "$b/bin/mpimatch-gen" ] || die "$b/bin/mpimatch-gen: not a build dir"
done
OUTS=$WORK/out
[ -n "$keep" ] && OUTS=$keep
rm -rf "$OUTS/a" "$OUTS/b"
make_inputs "$A"
(record "$A" "$OUTS/a")
(record "$B" "$OUTS/b")
files=$(find "$OUTS/a" -type f | wc -l)
if diff -r "$OUTS/a" "$OUTS/b" >"$WORK/diff.txt"; then
  echo "check_identical: identical ($(cat "$OUTS/a/count"), $files files, $(wc -l <"$IN/specs.txt") workload specs, $(ls "$IN/traces" | grep -vc log) MPI traces)"
  exit 0
fi
cat "$WORK/diff.txt"
echo "check_identical: DIFFERENT ($(grep -c '^diff\|^Only in\|^Files' "$WORK/diff.txt") files differ of $files)"
exit 1
