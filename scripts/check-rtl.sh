#!/usr/bin/env bash
# Checks generated Verilog the way users will: `verilator --lint-only -Wall` with zero
# warnings, `iverilog -g2005` compile with no warnings, and Yosys `synth` with no latch and no
# error. Usage: scripts/check-rtl.sh FILE.v...   (one module per file, named after the file)
# The Yosys flow is `synth` without `memory_map`: a RAM (a per-flow state array) stays one
# memory cell, as a RAM macro or block RAM would take it, instead of becoming flops; for a
# module without memories the result is the same as plain `synth`.
set -uo pipefail
fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
for f in "$@"; do
  top=$(basename "$f" .v)
  if ! verilator --lint-only -Wall --top-module "$top" "$f" >"$log/lint" 2>&1 || [ -s "$log/lint" ]; then
    echo "FAIL lint    $f"; sed 's/^/    /' "$log/lint" | head -40; fail=1
  fi
  if ! iverilog -g2005 -Wall -o /dev/null "$f" >"$log/iv" 2>&1 || [ -s "$log/iv" ]; then
    echo "FAIL iverilog $f"; sed 's/^/    /' "$log/iv" | head -40; fail=1
  fi
  if ! yosys -l "$log/ys" -p "read_verilog $f; synth -top $top -run begin:fine; opt -fast -full; opt -full; techmap; opt -fast; abc -fast; opt -fast; hierarchy -check; check -assert; select -assert-none t:\$_DLATCH* t:\$dlatch* t:\$adlatch*; stat" >/dev/null 2>&1; then
    echo "FAIL yosys   $f"; grep -E "ERROR|Latch inferred|Warning" "$log/ys" | head -20 | sed 's/^/    /'; fail=1
  elif grep -q "Latch inferred" "$log/ys"; then
    echo "FAIL latch   $f"; grep "Latch inferred" "$log/ys" | head -10 | sed 's/^/    /'; fail=1
  else
    cells=$(grep -E "Number of cells" "$log/ys" | tail -1 | awk '{print $NF}')
    echo "ok   $f (verilator -Wall, iverilog -g2005, yosys synth: $cells cells, no latches)"
  fi
done
exit $fail
