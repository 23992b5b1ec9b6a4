#!/usr/bin/env bash
# Regression over every committed map, one table row each:
#   map      the map file
#   outputs  validates, regenerates into a temporary directory, byte-compares with rtl/
#   lint     verilator --lint-only -Wall, iverilog -g2005 and the interface path rules (scripts/check-rtl.sh)
#   synth    yosys synth, no latches (scripts/check-rtl.sh)
#   sim      the CSR property tests of the map's variants in tb/csr-tests/variants.txt ("–" if none)
#   compat   rdmagen versions: against every commit that set a version of the map (the current
#            one and each earlier one), the changes since need the bump `diff` asks for, so no
#            breaking change escapes however many commits it is spread over, nor one made with a
#            too-small bump; "new" when no commit has the map, "shallow" in a shallow clone
# Usage: scripts/regress.sh [MAP.yaml...]   (default: register-maps/*.yaml)
# Environment: RESET (sync-high or async-low, as `make rtl`), CARGO, CARGO_TARGET_DIR, RDMAGEN_BIN
# (a generator binary to use instead of building one).
set -uo pipefail
cd "$(dirname "$0")/.."

RESET=${RESET:-sync-high}
CARGO=${CARGO:-cargo}
if [ $# -gt 0 ]; then maps=("$@"); else maps=(register-maps/*.yaml); fi

# The command that runs the CSR property tests of map $1 (exit 0 = pass): its variants in
# tb/csr-tests/variants.txt. Nothing when the map has none; the sim column then shows "–".
csr_property_test_cmd() {
  local ids
  ids=$(awk -v map="$(basename "$1")" '!/^#/ && $2 == map { printf "%s ", $1 }' tb/csr-tests/variants.txt)
  if [ -n "$ids" ]; then
    # --workspace: the features `cargo test --workspace` built with (-p would rebuild the tree).
    echo "$CARGO test -q --workspace --test csr_props -- --exact $ids"
  fi
}

# RDMAGEN_BIN: a generator binary built already (make test: the one `cargo test` built).
if [ -n "${RDMAGEN_BIN:-}" ]; then
  rdmagen=$RDMAGEN_BIN
else
  $CARGO build -q -p rdmagen || { echo "regress: cannot build rdmagen"; exit 1; }
  rdmagen=${CARGO_TARGET_DIR:-target}/debug/rdmagen
fi

echo "regress: ${#maps[@]} maps, reset style $RESET"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Pads a cell to a width in characters ("–" is one character but three bytes, which printf
# would count).
cell() {
  local text=$1 width=$2 plain=${1//–/-}
  printf '%s%*s' "$text" $((width - ${#plain})) ''
}
row() {
  echo "$(cell "$1" 28) $(cell "$2" 8) $(cell "$3" 6) $(cell "$4" 6) $(cell "$5" 5) $6"
}

rows=()
passed=0
failed=0
for map in "${maps[@]}"; do
  name=$(basename "$map" .yaml)
  out="$work/$name"
  mkdir -p "$out"
  outputs="FAIL" lint="–" synth="–" sim="–" compat="–"
  ok=1

  if ! "$rdmagen" check --format short "$map" >"$out/check.log" 2>&1; then
    echo "FAIL $map: invalid map"; sed 's/^/    /' "$out/check.log" | head -20
    outputs="invalid"; ok=0
  elif ! "$rdmagen" csr "$map" -o "$out/rtl" --reset "$RESET" >"$out/csr.log" 2>&1; then
    echo "FAIL $map: generation failed"; sed 's/^/    /' "$out/csr.log" | head -20
    ok=0
  else
    outputs="ok"
    for f in "$out"/rtl/*.v; do
      committed="rtl/$(basename "$f")"
      if [ ! -f "$committed" ]; then
        echo "FAIL $map: $committed is not committed (run 'make rtl')"; outputs="DIFF"; ok=0
      elif ! cmp -s "$f" "$committed"; then
        echo "FAIL $map: $committed differs from what the generator writes (run 'make rtl'):"
        diff -u "$committed" "$f" | head -30 | sed 's/^/    /'
        outputs="DIFF"; ok=0
      fi
    done

    scripts/check-rtl.sh "$out"/rtl/*.v >"$out/rtl-check.log" 2>&1
    lint="ok" synth="ok"
    # The interface rules (no combinational path across AXI or stream interfaces) count as lint.
    if grep -qE '^FAIL (lint|iverilog|axi|stream)' "$out/rtl-check.log"; then lint="FAIL"; ok=0; fi
    if grep -qE '^FAIL (yosys|latch)' "$out/rtl-check.log"; then synth="FAIL"; ok=0; fi
    # Any other FAIL line of check-rtl.sh (a check added later) fails the map too.
    if grep -E '^FAIL' "$out/rtl-check.log" | grep -qvE '^FAIL (lint|iverilog|axi|stream|yosys|latch)'; then
      lint="FAIL"; ok=0
    fi
    if [ "$lint" = FAIL ] || [ "$synth" = FAIL ]; then
      echo "FAIL $map: RTL checks"; sed 's/^/    /' "$out/rtl-check.log" | head -40
    fi

    cmd=$(csr_property_test_cmd "$map")
    if [ -n "$cmd" ]; then
      if bash -c "$cmd" >"$out/sim.log" 2>&1; then sim="ok"; else
        sim="FAIL"; ok=0
        echo "FAIL $map: CSR property test: $cmd"; tail -20 "$out/sim.log" | sed 's/^/    /'
      fi
    fi
  fi

  # Every version the map had in git must still hold (`rdmagen versions`, docs/diff.md).
  if "$rdmagen" versions "$map" >"$out/versions.log" 2>&1; then
    held=$(sed -n 's/.*: \([0-9]*\) of \([0-9]*\) version starts hold$/\1/p' "$out/versions.log")
    if grep -q "no commit of HEAD has this map yet" "$out/versions.log"; then
      compat="new"
    elif grep -q "the clone is shallow" "$out/versions.log"; then
      compat="shallow: $held version(s) hold"
    else
      compat="ok: $held version(s) hold"
    fi
  else
    compat="FAIL"; ok=0
    echo "FAIL $map: a version the map had no longer holds (rdmagen versions $map)"
    sed 's/^/    /' "$out/versions.log" | head -40
  fi

  if [ $ok -eq 1 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  rows+=("$(row "$map" "$outputs" "$lint" "$synth" "$sim" "$compat")")
done

echo
row map outputs lint synth sim compat
for row in "${rows[@]}"; do echo "$row"; done
echo "regress: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
