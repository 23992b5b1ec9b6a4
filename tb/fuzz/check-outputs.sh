#!/usr/bin/env bash
# Compiles what rdmagen generates for the maps of a fuzz corpus that validate: "a map that
# validates must always generate", and what it generates must build. For up to N maps
# (default 100) that `rdmagen check` accepts: `rdmagen all` into a scratch directory, and the
# block generators (`qpc`, `uar`, `dcqcn`, `rx-parser` at 64 bits, which refuse a map not
# shaped like their block: that is not a failure), then scripts/check-rtl.sh on every Verilog
# file (Verilator -Wall, Icarus, Yosys; coarse synthesis),
# scripts/check-headers.sh on the C header, scripts/check-rdl.py on the SystemRDL export and
# scripts/check-ipxact.py on the IP-XACT export.
# Usage (from the repository root, after `cargo build --release -p rdmagen`):
#   tb/fuzz/check-outputs.sh tb/fuzz/corpus/generate [N [SKIP]]   (SKIP: valid maps passed over first)
# Prints the failing maps; exits 1 if any.
set -uo pipefail
corpus=$1
max=${2:-100}
skip=${3:-0}
rdmagen=${RDMAGEN:-target/release/rdmagen}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
n=0 bad=0
for f in "$corpus"/*; do
  [ "$n" -ge "$max" ] && break
  cp "$f" "$work/map.yaml"
  "$rdmagen" check "$work/map.yaml" >/dev/null 2>&1 || continue
  if [ "$skip" -gt 0 ]; then skip=$((skip - 1)); continue; fi
  n=$((n + 1))
  out=$work/out$n
  if ! "$rdmagen" all --out "$out" "$work/map.yaml" >"$work/log" 2>&1; then
    echo "FAIL generate $f"; sed 's/^/    /' "$work/log" | head -10; bad=$((bad + 1)); continue
  fi
  for block in qpc uar dcqcn; do
    "$rdmagen" "$block" -o "$out/rtl" "$work/map.yaml" >/dev/null 2>&1
  done
  "$rdmagen" rx-parser --width 64 -o "$out/rtl" "$work/map.yaml" >/dev/null 2>&1
  ok=1
  CHECK_RTL_CACHE= CHECK_RTL_SYNTH=coarse CHECK_RTL_JOBS=1 scripts/check-rtl.sh "$out"/rtl/*.v >"$work/log" 2>&1 || ok=0
  scripts/check-headers.sh "$out"/sw/include/*.h >>"$work/log" 2>&1 || ok=0
  .venv/bin/python scripts/check-rdl.py "$out"/export/*.rdl >>"$work/log" 2>&1 || ok=0
  .venv/bin/python scripts/check-ipxact.py "$out"/export/*.xml >>"$work/log" 2>&1 || ok=0
  if [ "$ok" = 0 ]; then
    echo "FAIL outputs $f"; grep -v '^ok' "$work/log" | sed 's/^/    /' | head -20; bad=$((bad + 1))
  fi
done
echo "check-outputs: $n valid maps, $bad failed"
[ "$bad" = 0 ]
