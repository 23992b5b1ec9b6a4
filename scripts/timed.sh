#!/usr/bin/env bash
# Runs one step of `make test` and appends its wall and CPU seconds (user + system, children
# included) to target/test-times.log (or $TIMES_LOG: `make bench` keeps its own), so the
# 30-minute budget can be watched step by step.
# Usage: scripts/timed.sh STEP COMMAND...
set -uo pipefail
step=$1; shift
log=${TIMES_LOG:-target/test-times.log}
mkdir -p target
start=$(date +%s.%N)
"$@"
rc=$?
end=$(date +%s.%N)
read -r _ _ cu cs < <(cat /proc/$$/stat | awk '{ print $14, $15, $16, $17 }')
tck=$(getconf CLK_TCK)
awk -v s="$step" -v a="$start" -v b="$end" -v u="$cu" -v y="$cs" -v t="$tck" -v r="$rc" \
  'BEGIN { printf "%-22s wall %7.1f s  cpu %7.1f s%s\n", s, b - a, (u + y) / t, (r ? "  (failed)" : "") }' \
  >> "$log"
exit $rc
