#!/usr/bin/env bash
# Compiles every generated C header the way its users will: as C11 with
# `gcc -std=c11 -Wall -Wextra -Werror -pedantic` and as C++17 with
# `g++ -std=c++17 -Wall -Wextra -Werror -pedantic`, included twice (include guard) from a unit
# that also uses an array-offset function when the map has arrays, so the header's
# `static_assert`s run in both languages.
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
  if [ $ok -eq 1 ]; then
    echo "ok   $h (gcc -std=c11 -pedantic, g++ -std=c++17 -pedantic, -Wall -Wextra -Werror)"
  else
    fail=1
  fi
done
exit $fail
