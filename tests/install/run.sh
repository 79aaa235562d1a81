#!/usr/bin/env bash
# Install the build in BUILD_DIR to a temporary prefix and build a program
# against it twice: with pkg-config, and with CMake's find_package.
#   tests/install/run.sh BUILD_DIR
set -euo pipefail
build=$(cd "$1" && pwd)
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
libdir=$(ls -d "$tmp"/prefix/lib*/pkgconfig | head -1 | xargs dirname)
# The version is the header's, everywhere: soname (MAJOR.MINOR until 1.0), pkg-config.
v=$(sed -n 's/^#define MPIMATCH_VERSION_\(MAJOR\|MINOR\|PATCH\) *\([0-9]*\)$/\2/p' \
    "$tmp/prefix/include/mpimatch.h" | paste -sd.)
so=${v%.*}
[ "${v%%.*}" = 0 ] || so=${v%%.*}
readelf -d "$libdir/libmpimatch.so" | grep -q "Library soname: \[libmpimatch.so.$so\]" ||
  { echo "install test: soname is not libmpimatch.so.$so" >&2; exit 1; }
test -f "$libdir/libmpimatch.so.$v"
PKG_CONFIG_PATH=$libdir/pkgconfig pkg-config --exact-version="$v" mpimatch ||
  { echo "install test: pkg-config version is not $v" >&2; exit 1; }
test -f "$tmp/prefix/include/mpimatch.h"
test -x "$tmp/prefix/bin/mpimatch-replay"
# Man pages: the library's, naming every public function of the header, and one per
# installed tool that says what its --help says (generated from it at build time).
man3=$tmp/prefix/share/man/man3/mpimatch.3
test -f "$man3" || { echo "install test: no $man3" >&2; exit 1; }
for f in $(sed -n 's/^MM_API [^(]*[ *]\(mm_[a-z_]*\)(.*/\1/p' "$tmp/prefix/include/mpimatch.h"); do
  grep -q "$f" "$man3" || { echo "install test: mpimatch.3 does not name $f" >&2; exit 1; }
done
for exe in "$tmp"/prefix/bin/mpimatch-*; do
  t=$(basename "$exe")
  page=$tmp/prefix/share/man/man1/$t.1
  test -f "$page" || { echo "install test: no man page for $t" >&2; exit 1; }
  MANWIDTH=100 man -l "$page" 2>/dev/null | grep -q "usage: .*$t" ||
    { echo "install test: man page of $t renders no usage line" >&2; exit 1; }
done
PKG_CONFIG_PATH=$libdir/pkgconfig
export PKG_CONFIG_PATH
cc -std=c11 -Wall -Wextra -Werror "$here/consumer.c" $(pkg-config --cflags --libs mpimatch) -o "$tmp/pc"
LD_LIBRARY_PATH=$libdir "$tmp/pc"
cc -std=c11 "$here/consumer.c" $(pkg-config --cflags mpimatch) "$libdir/libmpimatch.a" -pthread -o "$tmp/pcs"
"$tmp/pcs"
cmake -S "$here" -B "$tmp/cm" -DCMAKE_PREFIX_PATH="$tmp/prefix" >/dev/null
cmake --build "$tmp/cm" >/dev/null
LD_LIBRARY_PATH=$libdir "$tmp/cm/consumer_shared"
"$tmp/cm/consumer_static"
echo "install test: 1 passed, 0 failed"
