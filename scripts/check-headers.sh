#!/usr/bin/env bash
# Compiles every generated C header the way its users will: as C11 with
# `gcc -std=c11 -Wall -Wextra -Werror -pedantic` and as C++17 with
# `g++ -std=c++17 -Wall -Wextra -Werror -pedantic`, included twice (include guard) from a unit
# that also uses an array-offset function when the map has arrays, so the header's
# `static_assert`s run in both languages. Then the same with one field's width wrong (its
# `_WIDTH` one more, or one less for a 64-bit field, whose mask has no bit above): the header
# must fail to compile, naming that field, or its checks check nothing.
# Usage: scripts/check-headers.sh HEADER.h...   Prints one ok/FAIL line per header.
set -uo pipefail
fail=0
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for h in "$@"; do
  inc=$(cd "$(dirname "$h")" && pwd)
  name=$(basename "$h")
  func=$(grep -o -m1 'static inline uint32_t [a-z0-9_]*_offset' "$h" | awk '{print $4}')
  {
    echo "#include \"$name\""
    echo "#include \"$name\""
    echo "int main(void) {"
    [ -n "$func" ] && echo "  return (int)($func(1u) == 0u);"
    echo "  return 0;"
    echo "}"
  } >"$work/use.c"
  cp "$work/use.c" "$work/use.cpp"
  ok=1
  if ! gcc -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -o "$work/c" "$work/use.c" >"$work/log" 2>&1; then
    echo "FAIL gcc     $h"; sed 's/^/    /' "$work/log" | head -30; ok=0
  fi
  if ! g++ -std=c++17 -Wall -Wextra -Werror -pedantic -I"$inc" -o "$work/cxx" "$work/use.cpp" >"$work/log" 2>&1; then
    echo "FAIL g++     $h"; sed 's/^/    /' "$work/log" | head -30; ok=0
  fi
  # The first field with a shift: X_SHIFT then X_WIDTH.
  field=$(sed -nE 's/^#define ([A-Z0-9_]+)_SHIFT [0-9]+u$/\1/p' "$h" | head -1)
  width=$(sed -nE "s/^#define ${field}_WIDTH ([0-9]+)u\$/\\1/p" "$h")
  if [ -z "$field" ] || [ -z "$width" ]; then
    echo "FAIL no field with _SHIFT and _WIDTH to corrupt in $h"; ok=0
  else
    # One more than 64 would be a shift past uint64_t, a compile error of its own.
    bad=$((width + 1))
    [ "$width" -ge 64 ] && bad=$((width - 1))
    sed -E "s/^#define ${field}_WIDTH [0-9]+u\$/#define ${field}_WIDTH ${bad}u/" "$h" >"$work/$name"
    sed "s|#include \"$name\"|#include \"$work/$name\"|" "$work/use.c" >"$work/bad.c"
    if gcc -std=c11 -Wall -Wextra -Werror -pedantic -I"$inc" -o "$work/c" "$work/bad.c" >"$work/log" 2>&1; then
      echo "FAIL $h compiles with ${field}_WIDTH $bad (the layout checks check nothing)"; ok=0
    elif ! grep -q "static assertion failed.*mask matches its width" "$work/log"; then
      echo "FAIL $h with ${field}_WIDTH $bad: no failed width check"; sed 's/^/    /' "$work/log" | head -10; ok=0
    fi
  fi
  if [ $ok -eq 1 ]; then
    echo "ok   $h (gcc -std=c11 -pedantic, g++ -std=c++17 -pedantic, -Wall -Wextra -Werror; fails with ${field}_WIDTH $bad)"
  else
    fail=1
  fi
done
exit $fail
