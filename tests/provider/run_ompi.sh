#!/bin/sh
# run_ompi.sh LIBDIR MPIRUN NP PROGRAM [ARGS...]
# Run an unmodified Open MPI program under the mpimatch provider (pml cm +
# mtl ofi), under a timeout, and check: exit 0, one statistics file per rank
# (so the provider really carried the traffic), and no /dev/shm/mpimatch-*
# inbox of a finished process left behind. FI_MPIMATCH_ENGINE and
# FI_MPIMATCH_FORCE_TCP are passed on; with FORCE_TCP every rank's statistics
# must show TCP connections (the network channel really carried traffic).
# FI_MPIMATCH_YIELD=auto (the default): with at most as many ranks as online
# processors no rank may have yielded; with more than twice as many, some must.
set -u
libdir=$1 mpirun=$2 np=$3
shift 3
stats=$(mktemp -d /tmp/mpimatch-ompi-XXXXXX)
timeout -k 5 240 "$mpirun" --allow-run-as-root --oversubscribe -np "$np" \
  --mca pml cm --mca mtl ofi --mca mtl_ofi_provider_include mpimatch \
  -x FI_PROVIDER_PATH="$libdir" -x FI_PROVIDER=mpimatch -x FI_MPIMATCH_STATS="$stats" \
  ${FI_MPIMATCH_ENGINE:+-x FI_MPIMATCH_ENGINE="$FI_MPIMATCH_ENGINE"} \
  ${FI_MPIMATCH_FORCE_TCP:+-x FI_MPIMATCH_FORCE_TCP="$FI_MPIMATCH_FORCE_TCP"} "$@"
rc=$?
files=$(ls "$stats" | grep -c '^mpimatch-fi-.*\.json$')
tcp=$(cat "$stats"/mpimatch-fi-*.json 2>/dev/null | grep -c '"tcp": {"connects": [1-9]')
yielded=$(cat "$stats"/mpimatch-fi-*.json 2>/dev/null | grep -c '"yields": [1-9]')
cpus=$(getconf _NPROCESSORS_ONLN)
rm -rf "$stats"
bad=0
if [ "$rc" -ne 0 ]; then echo "run_ompi: exit status $rc"; bad=1; fi
if [ "$files" -ne "$np" ]; then echo "run_ompi: $files statistics files for $np ranks"; bad=1; fi
if [ -n "${FI_MPIMATCH_FORCE_TCP:-}" ] && [ "$tcp" -eq 0 ]; then
  echo "run_ompi: FI_MPIMATCH_FORCE_TCP=$FI_MPIMATCH_FORCE_TCP but no rank used TCP"; bad=1
fi
if [ -z "${FI_MPIMATCH_YIELD:-}" ]; then
  if [ "$np" -le "$cpus" ] && [ "$yielded" -ne 0 ]; then
    echo "run_ompi: $yielded ranks yielded at np $np on $cpus processors"; bad=1
  fi
  if [ "$np" -gt $((2 * cpus)) ] && [ "$yielded" -eq 0 ]; then
    echo "run_ompi: no rank yielded at np $np on $cpus processors"; bad=1
  fi
fi
for f in /dev/shm/mpimatch-*; do
  [ -e "$f" ] || continue
  pid=$(basename "$f" | cut -d- -f3)
  if ! kill -0 "$pid" 2>/dev/null; then echo "run_ompi: left behind: $f"; rm -f "$f"; bad=1; fi
done
exit $bad
