#!/usr/bin/env bash
# Overhead of libmpimatch-trace.so on LAMMPS's 'lj' benchmark (bench/in.lj:
# 32,000 atoms, 100 steps), NP ranks under Open MPI, runs alternating with
# and without the tracer; prints every run and the medians of LAMMPS's own
# "Loop time" and of the wall time of the whole mpirun.
#   scripts/trace_overhead.sh [REPS] [NP]        (defaults: 7, 8)
# Needs: lmp (Debian package lammps, built with Open MPI), a build of the
# tracer in build/lib/openmpi. On an oversubscribed machine the numbers are
# noisy: use several repetitions and read the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
reps=${1:-7}
np=${2:-8}
lib=$PWD/build/lib/openmpi/libmpimatch-trace.so
[ -f "$lib" ] || { echo "trace_overhead: $lib not built" >&2; exit 2; }
command -v lmp >/dev/null || { echo "trace_overhead: lmp not found (apt-get install lammps)" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat > "$work/in.lj" <<'LJ'
variable	x index 1
variable	y index 1
variable	z index 1
variable	xx equal 20*$x
variable	yy equal 20*$y
variable	zz equal 20*$z
units		lj
atom_style	atomic
lattice		fcc 0.8442
region		box block 0 ${xx} 0 ${yy} 0 ${zz}
create_box	1 box
create_atoms	1 box
mass		1 1.0
velocity	all create 1.44 87287 loop geom
pair_style	lj/cut 2.5
pair_coeff	1 1 1.0 1.0 2.5
neighbor	0.3 bin
neigh_modify	delay 0 every 20 check no
fix		1 all nve
run		100
LJ
mpirun=(mpirun --allow-run-as-root --oversubscribe -np "$np")
one() { # mode -> "loop wall records"
  local mode=$1 extra=() t0 t1 out
  rm -rf "$work/trace"
  [ "$mode" = traced ] && extra=(-x "LD_PRELOAD=$lib" -x "MPIMATCH_TRACE_DIR=$work/trace")
  t0=$(date +%s.%N)
  out=$(cd "$work" && "${mpirun[@]}" "${extra[@]}" lmp -in in.lj -log none)
  t1=$(date +%s.%N)
  local loop records=0
  loop=$(sed -n 's/^Loop time of \([0-9.e+-]*\) on.*/\1/p' <<<"$out")
  if [ "$mode" = traced ]; then
    records=$(( ($(cat "$work"/trace/rank-*.mmt | wc -c) - 256 * np) / 80 ))
  fi
  echo "$loop $(echo "$t1 - $t0" | bc -l) $records"
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
: > "$work/plain"; : > "$work/traced"
for i in $(seq "$reps"); do
  for mode in plain traced; do
    r=$(one $mode)
    echo "$r" >> "$work/$mode"
    printf 'run %d %-6s loop %8.3f s  wall %8.3f s  records %s\n' "$i" "$mode" $r
  done
done
for mode in plain traced; do
  printf '%-6s median loop %8.3f s  median wall %8.3f s\n' "$mode" \
    "$(cut -d' ' -f1 "$work/$mode" | median)" "$(cut -d' ' -f2 "$work/$mode" | median)"
done
lp=$(cut -d' ' -f1 "$work/plain" | median); lt=$(cut -d' ' -f1 "$work/traced" | median)
wp=$(cut -d' ' -f2 "$work/plain" | median); wt=$(cut -d' ' -f2 "$work/traced" | median)
printf 'overhead: loop %+.1f%%, wall %+.1f%% (medians of %d runs each, %d ranks)\n' \
  "$(echo "($lt / $lp - 1) * 100" | bc -l)" "$(echo "($wt / $wp - 1) * 100" | bc -l)" "$reps" "$np"
