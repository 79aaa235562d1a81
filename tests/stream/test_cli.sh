#!/bin/sh
# test_cli.sh - mpimatch-replay and mpimatch-stream end to end: outputs,
# exit codes, error messages, and that failed runs leave no output files.
#
# usage: sh test_cli.sh MPIMATCH_REPLAY MPIMATCH_STREAM DATA_DIR [MPIMATCH_TRACE_DUMP]
set -u
REPLAY=$1
STREAM=$2
DATA=$3
DUMP=${4:-}
LIB=$(cd "$(dirname "$0")/.." && pwd)/cli_lib.sh
WORK=$(mktemp -d "${TMPDIR:-/tmp}/mm_cli.XXXXXX") || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

. "$LIB"

# ---- help and list ----
run 0 "$REPLAY" --help
has out "usage: mpimatch-replay"
has out "-q, --quiet"
run 0 "$STREAM" --help
has out "mpimatch-stream convert"
run 0 "$REPLAY" --list
has out "list"
has out "hints required"
run 0 "$REPLAY" --list --json
json_ok out
has out '"engines"'
has out '"hints_required"'
run 0 "$REPLAY" --list --json list.json
json_ok list.json

# ---- replay: matches, JSON, all engines agree ----
run 0 "$REPLAY" "$DATA/wild.txt" --engine all --matches m.txt --json r.json --reps 2
same m.txt "$DATA/wild.matches"
json_ok r.json
has r.json '"tool": "mpimatch-replay"'
has r.json '"reps": 2'
has r.json '"engine": "list"'
has r.json '"ns_per_event"'
has r.json '"floor_ns_per_event"'
has r.json '"engine_ns_per_event"'
has out "floor "
has out "engine ns"
has r.json '"peak_bytes"'
has r.json '"skipped"'
has err "note: skipping engine 'hash'"
has out "ns/event"
has out "stream $DATA/wild.txt (text), events 15, np 4, hints none, seed 1"
has r.json '"seed": 1'
no_temps

run 0 "$REPLAY" "$DATA/nowild.txt" --engine all --matches m2.txt --json r2.json --quiet
same m2.txt "$DATA/nowild.matches"
has r2.json '"engine": "hash"'
has r2.json '"no_any_source"'
if [ -s out ]; then bad "--quiet printed to stdout"; else ok; fi
run 0 "$REPLAY" "$DATA/nowild.txt" --engine list -q
if [ -s out ]; then bad "-q printed to stdout"; else ok; fi

# A binary stream gives the same outcomes.
run 0 "$STREAM" convert "$DATA/wild.txt" wild.mmb
run 0 "$REPLAY" wild.mmb --engine list,nm --matches m3.txt -q
same m3.txt "$DATA/wild.matches"
run 0 "$REPLAY" wild.mmb --engine list --json r3.json -q
has r3.json '"format": "binary"'

# Parameters: applied where they exist, reported with effective values.
run 0 "$REPLAY" "$DATA/wild.txt" --engine list,bins --param bins=3 --json p.json -q
has p.json '"bins": 3'
run 0 "$REPLAY" "$DATA/wild.txt" --engine bins --param bins:bins=5 --param bins=7 --json p2.json -q
has p2.json '"bins": 7'

# ---- replay errors: exit 2, a clear message, no output left behind ----
run 2 "$REPLAY" "$DATA/wild.txt" --engine nosuch --matches e1.txt
has err "unknown engine 'nosuch' (valid: list"
absent e1.txt
run 2 "$REPLAY" "$DATA/wild.txt" --engine hash --json e2.json
has err "engine 'hash' requires hints no_any_source,no_any_tag; $DATA/wild.txt:4 uses ANY_SOURCE"
absent e2.json
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --hints no_any_source --matches e3.txt --json e3.json
has err "$DATA/wild.txt:4: engine 'list':"
absent e3.txt
absent e3.json
run 2 "$REPLAY" "$DATA/nowild.txt" --engine hash --hints none
has err "engine 'hash' requires hints no_any_source,no_any_tag; --hints does not assert no_any_source"
printf '# mpimatch stream v1\nR 1 0 0 *\nR 2 0 * 1\n' > tagfirst.txt
run 2 "$REPLAY" tagfirst.txt --engine hash
has err "engine 'hash' requires hints no_any_source,no_any_tag; tagfirst.txt:2 uses ANY_TAG"
run 2 "$REPLAY" "$DATA/bad.txt" --engine list --json e4.json
has err "$DATA/bad.txt:3: M has wildcard source '*'; arrivals must be concrete"
absent e4.json
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --np 2
has err "$DATA/wild.txt:8: source 2 outside 0..1 (override np=2)"
run 2 "$REPLAY" "$DATA/wild.txt" --engine bins --param bins=0 --matches e5.txt
has err "cannot create engine 'bins'"
absent e5.txt
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --param nosuch=1
has err "no selected engine has parameter 'nosuch'"
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --param bins:bins=1
has err "engine 'bins' is not selected"
run 2 "$REPLAY" "$DATA/wild.txt" --engine bins --param bins=x
has err "parameter bins=x of engine 'bins' is out of range: an integer from 1"
# file-valued parameters: a path, checked by the engine at creation
run 2 "$REPLAY" "$DATA/wild.txt" --engine kmeans --param kmeans:clusters=no/such.clusters
has err "cluster file no/such.clusters: cannot open"
run 2 "$REPLAY" "$DATA/wild.txt" --engine kmeans --param clusters=
has err "needs a file name"
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --matches no/such/dir/m.txt
has err "cannot write 'no/such/dir/m.txt'"
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --json .
has err "it is a directory"
run 2 "$REPLAY" "$DATA/wild.txt"
has err "--engine is required"
run 2 "$REPLAY" --engine list
has err "missing STREAM"
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --reps 0
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --hints maybe
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --frobnicate
run 2 "$REPLAY" "$DATA/wild.txt" --engine list --matches x.out --json x.out
run 2 "$REPLAY" no-such-file.txt --engine list
has err "no-such-file.txt: cannot open"

# A failed run leaves an existing output as it was.
echo previous > keep.txt
run 2 "$REPLAY" "$DATA/wild.txt" --engine hash --matches keep.txt
if [ "$(cat keep.txt)" = previous ]; then ok; else bad "keep.txt was changed"; fi
no_temps

# ---- outputs that are not regular files: written through, never replaced ----
# A private device node (never the real /dev/null): same numbers as /dev/null.
if mknod nulldev c 1 3 2>/dev/null; then
    run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json nulldev -q
    run 0 "$STREAM" convert "$DATA/wild.txt" nulldev
    if [ -c nulldev ]; then ok; else bad "nulldev is no longer a character device"; fi
    # /dev/full's numbers: a write error is reported, status 1 (every tool)
    mknod fulldev c 1 7
    run 1 "$REPLAY" "$DATA/wild.txt" --engine list --json fulldev -q
    has err "cannot write 'fulldev': No space left on device"
    if [ -c fulldev ]; then ok; else bad "fulldev is no longer a character device"; fi
    # a full standard output: the table, the JSON, check, cat, convert, --list
    for cmd in "$REPLAY $DATA/wild.txt --engine list" "$REPLAY $DATA/wild.txt --engine list --json -" \
               "$REPLAY --list" "$STREAM check $DATA/wild.txt" "$STREAM cat $DATA/wild.txt" \
               "$STREAM convert $DATA/wild.txt -"; do
        # shellcheck disable=SC2086
        $cmd >fulldev 2>err
        rc=$?
        if [ $rc -eq 1 ]; then ok; else bad "exit $rc, want 1: $cmd >fulldev"; fi
        has err "error writing standard output: No space left on device"
    done
    run 1 "$STREAM" convert "$DATA/wild.txt" fulldev --to text
    has err "cannot write 'fulldev': No space left on device"
else
    echo "SKIP: mknod not permitted (device-node checks)"
fi
mkfifo fifo
timeout 30 cat fifo > fifo.got &  # bounded: a writer that never opens it must not hang the test
reader=$!
run 0 "$STREAM" convert "$DATA/wild.txt" fifo --to text
wait $reader
if [ -p fifo ]; then ok; else bad "fifo is no longer a FIFO"; fi
has fifo.got "# mpimatch stream v1"
# A symlink is followed: its target is replaced, the link stays.
echo old > real.json
ln -s real.json link.json
mkdir sub
ln -s ../real2.json sub/rel.json
ln -s made.json dangling.json
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json link.json -q
if [ -L link.json ]; then ok; else bad "link.json is no longer a symlink"; fi
json_ok real.json
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json sub/rel.json -q
if [ -L sub/rel.json ]; then ok; else bad "sub/rel.json is no longer a symlink"; fi
json_ok real2.json
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json dangling.json -q
if [ -L dangling.json ]; then ok; else bad "dangling.json is no longer a symlink"; fi
json_ok made.json
# A directory is not a stream file: say so, and where directories are replayed.
mkdir adir
run 2 "$REPLAY" adir --engine list
has err "adir: is a directory, not a stream file"
has err "mpimatch replay DIR"
run 2 "$STREAM" check adir
has err "is a directory"
# Replacing a regular file keeps its permission bits; a new one gets the umask's.
echo old > private.json
chmod 600 private.json
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json private.json -q
json_ok private.json
if [ "$(stat -c %a private.json)" = 600 ]; then ok; else bad "private.json mode $(stat -c %a private.json), not 600"; fi
chmod 640 real.json
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json link.json -q
if [ "$(stat -c %a real.json)" = 640 ]; then ok; else bad "real.json mode $(stat -c %a real.json), not 640 through the link"; fi
(umask 022 && "$REPLAY" "$DATA/wild.txt" --engine list --json fresh-mode.json -q)
if [ "$(stat -c %a fresh-mode.json)" = 644 ]; then ok; else bad "fresh-mode.json mode $(stat -c %a fresh-mode.json), not 644"; fi
# The name of standard output is appended to, not renamed over.
run 0 "$REPLAY" "$DATA/wild.txt" --engine list --json /dev/stdout -q
json_ok out
run 0 "$STREAM" convert "$DATA/wild.txt" /dev/stdout --to text
has out "# mpimatch stream v1"
no_temps

# ---- mpimatch-stream ----
run 0 "$STREAM" check "$DATA/wild.txt"
has out "events               15 (R 5, M 4, P 2, X 1, C 3)"
has out "np                   4 (declared)"
run 0 "$STREAM" cat "$DATA/wild.txt"
cp out canonical.txt
run 0 "$STREAM" convert "$DATA/wild.txt" w.mmb
run 0 "$STREAM" convert w.mmb w.txt
same w.txt canonical.txt
run 0 "$STREAM" convert w.txt w2.bin --to binary
same w.mmb w2.bin
run 0 "$STREAM" cat w2.bin
same out canonical.txt
run 2 "$STREAM" convert "$DATA/bad.txt" bad.mmb
has err "$DATA/bad.txt:3: M has wildcard source"
absent bad.mmb
head -c 100 w.mmb > cut.mmb
run 2 "$STREAM" check cut.mmb
has err "cut.mmb: offset 80: truncated: record 2 needs 48 bytes, only 20 remain"
run 2 "$STREAM" check "$DATA/wild.txt" --np 3
has err "source 3 outside 0..2"
run 2 "$STREAM" convert "$DATA/wild.txt" no/such/dir/x.mmb
run 2 "$STREAM" frob "$DATA/wild.txt"
run 2 "$STREAM" convert "$DATA/wild.txt"
run 2 "$STREAM" check "$DATA/wild.txt" --to text
no_temps

# ---- messages: CR-only line endings, np's range ----
printf '# mpimatch stream v1\rR 1 0 0 0\rM 2 0 0 0\r' > cr.txt
run 2 "$STREAM" check cr.txt
has err "cr.txt:1: the lines end in CR only (classic Mac OS line endings)"
printf '# mpimatch stream v1\n# np=0\nR 1 0 0 0\n' > np0.txt
run 2 "$STREAM" check np0.txt
has err "np0.txt:2: np '0' out of range 1..2147483647"
run 2 "$STREAM" check "$DATA/wild.txt" --np 0
has err "1..2147483647"

# ---- mpimatch-trace-dump: a directory is a usage error ----
if [ -n "$DUMP" ]; then
    mkdir tracedir
    run 2 "$DUMP" tracedir
    has err "tracedir: is a directory; give its trace files (tracedir/rank-*.mmt)"
    run 2 "$DUMP" no-such.mmt
    has err "no-such.mmt: cannot open"
fi

# ---- check --check-resolved: resolved wildcard receives against the list replay ----
printf '# mpimatch stream v1\nM 1 0 1 5\nM 2 0 2 6\nR 3 0 * * src_resolved=1 tag_resolved=5\nR 4 0 * 6 src_resolved=2\nR 5 0 2 *\n' > res.txt
run 0 "$STREAM" check res.txt --check-resolved
has out "resolved receives    2 (2 agree with the list replay, 0 differ, 0 unmatched)"
has out "left queued          1 receives, 0 messages"
"$STREAM" convert res.txt res.mmb >/dev/null 2>&1
run 0 "$STREAM" check res.mmb --check-resolved
printf '# mpimatch stream v1\nM 1 0 1 5\nM 2 0 2 6\nR 3 0 * * src_resolved=2 tag_resolved=6\nR 4 0 * * src_resolved=1\n' > res_bad.txt
run 2 "$STREAM" check res_bad.txt --check-resolved
has out "0 agree with the list replay, 2 differ"
has err "res_bad.txt:4: receive 3 resolved to source 2 tag 6 in the trace, but the list replay matches it with a message from 1 with tag 5 (2 such receives)"
printf '# mpimatch stream v1\nR 1 0 * 7 src_resolved=0\n' > res_un.txt
run 2 "$STREAM" check res_un.txt --check-resolved
has err "res_un.txt:2: a receive with a resolved source/tag is not matched by the list replay (1 such receives)"
run 2 "$STREAM" cat res.txt --check-resolved
has err "--check-resolved applies to check only"

cli_done
