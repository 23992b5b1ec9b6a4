#!/usr/bin/env bash
# Checks generated Verilog the way users will: `verilator --lint-only -Wall` with zero
# warnings, `iverilog -g2005` compile with no warnings, and Yosys `synth` with no latch and no
# error. Usage: scripts/check-rtl.sh FILE.v...   (one module per file, named after the file;
# submodules are found in the file's directory, as `<module>.v`)
set -uo pipefail
fail=0
log=$(mktemp -d)
trap 'rm -rf "$log"' EXIT
for f in "$@"; do
  top=$(basename "$f" .v)
  dir=$(dirname "$f")
  # Submodules this file instantiates, from its own directory.
  # Submodules of submodules too (a top that wires two blocks with their CSR blocks).
  deps=()
  todo=("$f")
  while [ ${#todo[@]} -gt 0 ]; do
    cur=${todo[0]}; todo=("${todo[@]:1}")
    for m in $(sed -n 's/^ *\([a-z][a-z0-9_]*\) \(#(\|u_[a-z0-9_]* (\).*/\1/p' "$cur" | sort -u); do
      d="$dir/$m.v"
      if [ "$m" != "$top" ] && [ -f "$d" ] && [[ " ${deps[*]} " != *" $d "* ]]; then
        deps+=("$d"); todo+=("$d")
      fi
    done
  done
  if ! verilator --lint-only -Wall --top-module "$top" "$f" "${deps[@]}" >"$log/lint" 2>&1 || [ -s "$log/lint" ]; then
    echo "FAIL lint    $f"; sed 's/^/    /' "$log/lint" | head -40; fail=1
  fi
  if ! iverilog -g2005 -Wall -o /dev/null "$f" "${deps[@]}" >"$log/iv" 2>&1 || [ -s "$log/iv" ]; then
    echo "FAIL iverilog $f"; sed 's/^/    /' "$log/iv" | head -40; fail=1
  fi
  # Blocks with RAMs (context RAMs, per-flow state) keep them as memory cells, as a RAM macro or
  # block RAM would take them: mapping them to flip-flops would only measure Yosys.
  flow="synth -top $top"
  if grep -qE '\] *[a-z_0-9]+ \[0:' "$f" "${deps[@]}"; then
    flow="synth -top $top -run begin:fine; opt -fast -full; techmap; opt -fast; abc; opt -fast; clean"
  fi
  if ! yosys -l "$log/ys" -p "read_verilog $f ${deps[*]}; $flow; check -assert; select -assert-none t:\$_DLATCH* t:\$dlatch* t:\$adlatch*; stat" >/dev/null 2>&1; then
    echo "FAIL yosys   $f"; grep -E "ERROR|Latch inferred|Warning" "$log/ys" | head -20 | sed 's/^/    /'; fail=1
  elif grep -q "Latch inferred" "$log/ys"; then
    echo "FAIL latch   $f"; grep "Latch inferred" "$log/ys" | head -10 | sed 's/^/    /'; fail=1
  else
    cells=$(grep -E "Number of cells" "$log/ys" | tail -1 | awk '{print $NF}')
    echo "ok   $f (verilator -Wall, iverilog -g2005, yosys synth: $cells cells, no latches)"
  fi
done
exit $fail
