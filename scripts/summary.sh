#!/usr/bin/env bash
# Prints the closing lines of `make test`: cargo tests, per-map regression rows and the file
# checks (RTL, C headers, SystemRDL, SVG rendering), passed and failed. Each check log has one
# `ok ` or `FAIL` line per file checked.
# Usage: scripts/summary.sh CARGO_TEST_LOG REGRESS_LOG CHECK_LOG...
set -euo pipefail
cargo_log=$1; regress_log=$2; shift 2
read -r cp cf < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$cargo_log")
# scripts/regress.sh ends with `regress: N passed, N failed`; a log without it counts as a failure.
read -r gp gf < <(awk '/^regress: [0-9]+ passed, [0-9]+ failed$/ { p = $2; f = $4; seen = 1 }
  END { if (seen) print p + 0, f + 0; else print 0, 1 }' "$regress_log")
# `FAIL ` with the space: pytest's own `FAILED test::name` lines are counted below, not here.
rp=$(cat "$@" | grep -c '^ok ' || true)
rf=$(cat "$@" | grep -c '^FAIL ' || true)
# pytest's closing line (`N passed[, M failed] in Ts`) and sim/cocotb/run.py's
# (`cocotb SIM: N passed, M failed`).
read -r yp yf < <(cat "$@" | awk '/^cocotb [a-z]+: [0-9]+ passed, [0-9]+ failed$/ { p += $3; f += $5 }
  /^=* *[0-9]+ (passed|failed).* in [0-9.]+s/ {
    for (i = 1; i < NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^(failed|error)/) f += $i } }
  END { print p + 0, f + 0 }')
echo "cargo tests: $cp passed, $cf failed; maps regressed: $gp passed, $gf failed; generated files checked: $rp passed, $rf failed; pytest and cocotb tests: $yp passed, $yf failed"
echo "total: $((cp + gp + rp + yp)) passed, $((cf + gf + rf + yf)) failed"
