#!/usr/bin/env bash
# Prints one closing line for `make test`: cargo tests plus the file checks (RTL, C headers,
# SystemRDL, SVG rendering), passed and failed. Each check log has one `ok ` or `FAIL` line per
# file checked.
# Usage: scripts/summary.sh CARGO_TEST_LOG CHECK_LOG...
set -euo pipefail
cargo_log=$1; shift
read -r cp cf < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$cargo_log")
rp=$(cat "$@" | grep -c '^ok ' || true)
rf=$(cat "$@" | grep -c '^FAIL' || true)
echo "cargo tests: $cp passed, $cf failed; generated files checked: $rp passed, $rf failed"
echo "total: $((cp + rp)) passed, $((cf + rf)) failed"
