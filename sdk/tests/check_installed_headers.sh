#!/usr/bin/env bash
# Compiles every header installed under PREFIX/include/relax alone against the prefix (no source
# tree, no build tree): each must bring what it includes. The C headers (c_abi.h, plugin_abi.h)
# are compiled as C99 too. Usage: check_installed_headers.sh PREFIX [CXX] [CC]
set -euo pipefail
prefix=$1
cxx=${2:-c++}
cc=${3:-cc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
n=0
while IFS= read -r h; do
  rel=${h#"$prefix/include/"}
  printf '#include "%s"\n' "$rel" >"$tmp/t.cc"
  if ! "$cxx" -std=c++20 -fsyntax-only -I"$prefix/include" "$tmp/t.cc" 2>"$tmp/err"; then
    echo "FAIL: $rel does not compile alone:"; head -5 "$tmp/err"; fail=1
  fi
  n=$((n + 1))
done < <(find "$prefix/include/relax" -name '*.h' | sort)
for rel in relax/runtime/c_abi.h relax/transform/plugin_abi.h; do
  printf '#include "%s"\nint main(void) { return 0; }\n' "$rel" >"$tmp/t.c"
  if ! "$cc" -std=c99 -pedantic -Werror -fsyntax-only -I"$prefix/include" "$tmp/t.c" 2>"$tmp/err"; then
    echo "FAIL: $rel is not C99:"; head -5 "$tmp/err"; fail=1
  fi
done
echo "checked $n installed headers under $prefix/include/relax"
exit $fail
