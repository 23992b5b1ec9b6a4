#!/usr/bin/env bash
# Renders one register picture per map (the largest, so the busiest layout) to PNG with
# rsvg-convert and checks that a non-empty PNG comes out. XML well-formedness of every picture
# is checked by `cargo test` (gen/outputs/tests/svg.rs).
# Usage: scripts/check-svg.sh DOCS_DIR   (the directory holding <block>.md and <block>/*.svg)
set -uo pipefail
fail=0
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for md in "$1"/*.md; do
  dir="${md%.md}"
  svg=$(ls -S "$dir"/*.svg 2>/dev/null | head -1)
  if [ -z "$svg" ]; then
    echo "FAIL svg     $md: no pictures in $dir"; fail=1; continue
  fi
  png="$out/$(basename "$dir").png"
  if ! rsvg-convert "$svg" -o "$png" 2>"$out/log" || [ ! -s "$png" ] || [ -s "$out/log" ]; then
    echo "FAIL svg     $svg"; sed 's/^/    /' "$out/log" | head -10; fail=1
  else
    echo "ok   $svg (rsvg-convert: $(stat -c %s "$png") byte PNG)"
  fi
done
exit $fail
