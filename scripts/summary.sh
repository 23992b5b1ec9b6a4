#!/usr/bin/env bash
# Prints one closing line for `make test`: cargo tests plus RTL file checks, passed and failed.
# Usage: scripts/summary.sh CARGO_TEST_LOG RTL_CHECK_LOG...
set -euo pipefail
cargo_log=$1; shift
read -r cp cf < <(awk '/^test result:/ { p += $4; f += $6 } END { print p + 0, f + 0 }' "$cargo_log")
rp=$(cat "$@" | grep -c '^ok ' || true)
rf=$(cat "$@" | grep -c '^FAIL' || true)
echo "cargo tests: $cp passed, $cf failed; RTL files checked: $rp passed, $rf failed"
echo "total: $((cp + rp)) passed, $((cf + rf)) failed"
