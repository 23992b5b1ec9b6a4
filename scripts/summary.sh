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
rp=$(cat "$@" | grep -c '^ok ' || true)
rf=$(cat "$@" | grep -c '^FAIL' || true)
echo "cargo tests: $cp passed, $cf failed; maps regressed: $gp passed, $gf failed; generated files checked: $rp passed, $rf failed"
echo "total: $((cp + gp + rp)) passed, $((cf + gf + rf)) failed"
