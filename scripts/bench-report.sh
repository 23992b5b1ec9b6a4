#!/usr/bin/env bash
# Assembles docs/BENCHMARKS.md from the sections the benchmark scripts write, in a fixed order:
# generator (bench-gen.sh) and its hand-written notes, harness (bench-harness.sh), hardware
# (bench-hw.py), then the block suites' own records, and last the run time of `make bench`
# (bench-times.sh) with its hand-written notes (runtime). A section not yet measured is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
out=docs/BENCHMARKS.md.tmp
: >"$out"
for part in gen notes peers harness rxsim hw cycles dcqcn cocotb uar rxparser times runtime; do
  f=docs/BENCHMARKS.$part.md
  [ -f "$f" ] || continue
  [ -s "$out" ] && echo >>"$out"
  cat "$f" >>"$out"
done
mv "$out" docs/BENCHMARKS.md
echo "bench: wrote docs/BENCHMARKS.md"
