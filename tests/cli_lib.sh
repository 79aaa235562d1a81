# cli_lib.sh - helpers for the command-line test scripts (sourced): each
# check counts a pass or prints FAIL and counts a failure.
#
#   run RC CMD...   run CMD with stdout in ./out and stderr in ./err, expect exit RC
#   has FILE TEXT   FILE contains TEXT (a fixed string)
#   absent FILE     FILE does not exist
#   same A B        files A and B are identical
#   json_ok FILE    FILE is valid JSON (checked when python3 is at hand)
#   no_temps        no FILE.tmp.<pid> left in the current directory
#   cli_done        print "N passed, N failed"; status 0 if none failed
pass=0
fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*" >&2; }

run() {
    want=$1
    shift
    "$@" >out 2>err
    rc=$?
    if [ "$rc" -eq "$want" ]; then ok; else bad "exit $rc, want $want: $*"; cat err >&2; fi
}
has() { if grep -qF -- "$2" "$1"; then ok; else bad "'$2' not in $1:"; cat "$1" >&2; fi; }
absent() { if [ ! -e "$1" ]; then ok; else bad "$1 should not exist"; fi; }
no_temps() {
    if ls ./*.tmp.* >/dev/null 2>&1; then bad "temporary files left: $(ls ./*.tmp.*)"; else ok; fi
}
same() { if cmp -s "$1" "$2"; then ok; else bad "$1 and $2 differ"; diff "$1" "$2" >&2; fi; }
json_ok() {
    if command -v python3 >/dev/null 2>&1; then
        if python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1"; then ok; else bad "$1 is not JSON"; fi
    fi
}
cli_done() {
    echo "$pass passed, $fail failed"
    [ "$fail" -eq 0 ]
}
