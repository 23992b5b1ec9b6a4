#!/usr/bin/env bash
# The run time of `make bench`, step by step: turns the log scripts/timed.sh wrote for each step
# (TIMES_LOG) into docs/BENCHMARKS.times.md with the machine and its load, prints it and
# reassembles docs/BENCHMARKS.md. The budget (issue 9) is 20 minutes from a fresh clone.
# Steps marked * ran side by side, so the whole run is timed from START (epoch seconds), not
# summed.
# Usage: scripts/bench-times.sh LOG "LOAD BEFORE" [START]   (BENCH_TIMES_NOTE: an extra line)
set -euo pipefail
cd "$(dirname "$0")/.."
log=$1 load_before=$2 started=${3:-}
whole=""
[ -n "$started" ] && whole=$(($(date +%s) - started))
[ -s "$log" ] || { echo "bench-times: $log is empty" >&2; exit 1; }
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
# shellcheck source=scripts/load-verdict.sh
. scripts/load-verdict.sh  # (the working directory is the repository root here)
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
dirty=$(git status --porcelain --untracked-files=no 2>/dev/null | grep -qv 'docs/' && echo " (with uncommitted changes)" || true)
{
  echo "# Run time of \`make bench\`"
  echo
  echo "Written by \`make bench\` (scripts/timed.sh around each step, scripts/bench-times.sh);"
  echo "wall and CPU (user + system, children included) seconds of each step, in the order run."
  echo "Budget (issue 9): 20 minutes from a fresh clone. The release build of rdmagen is inside"
  echo "bench-hw, the block suites' build inside bench-cycles (make-bench profile: bench's settings"
  echo "in target/make-bench); bench-build compiles what the timed steps run (scripts/bench-build.sh)"
  echo "in the same profile, reusing the dependencies bench-cycles built, so the timed steps only"
  echo "run programs."
  echo
  echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC') at commit $commit$dirty; machine: $(nproc) CPUs, $cpu;"
  echo "load average (1, 5, 15 min) before: $load_before, after: $load_after ($(load_verdict "$load_before"))."
  [ -n "${BENCH_TIMES_NOTE:-}" ] && { echo; echo "$BENCH_TIMES_NOTE"; }
  echo
  echo "Steps marked * ran side by side (their figures do not depend on the load); the others ran"
  echo "alone, one after another."
  echo
  echo "| step | wall s | CPU s | result |"
  echo "|---|---|---|---|"
  awk -v whole="$whole" '{ printf "| `make %s` | %.0f | %.0f | %s |\n", $1, $3, $6, ($8 == "(failed)" ? "failed" : "ok"); w += $3; c += $6 }
       END { if (whole != "") w = whole; printf "| **whole run** | **%.0f** (%.1f min) | %.0f | |\n", w, w / 60, c }' "$log"
} >docs/BENCHMARKS.times.md
echo "step times ($log):"
cat "$log"
if [ -n "$whole" ]; then
  echo "whole run: $whole s ($((whole / 60)) min $((whole % 60)) s)"
else
  awk '{ w += $3 } END { printf "total wall %.1f s (%.1f min), steps summed\n", w, w / 60 }' "$log"
fi
scripts/bench-report.sh
