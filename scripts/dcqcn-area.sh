#!/usr/bin/env bash
# Yosys area of rtl/dcqcn_rp.v at 1024 and 65,536 flows, with the flow of scripts/check-rtl.sh
# for blocks with RAMs (the state RAM stays one $mem_v2 cell, as a block RAM would take it).
# Prints one Markdown table row per size for docs/BENCHMARKS.dcqcn.md.
set -euo pipefail
f=${1:-rtl/dcqcn_rp.v}
for bits in 10 16; do
  log=$(mktemp)
  yosys -q -l "$log" -p "read_verilog $f; chparam -set FLOW_BITS $bits dcqcn_rp; synth -top dcqcn_rp -run begin:fine; opt -fast -full; techmap; opt -fast; abc; opt -fast; clean; stat" >/dev/null
  cells=$(grep -E '^ +Number of cells:' "$log" | tail -1 | awk '{print $4}')
  mem=$(grep -cE '\$mem_v2' "$log" || true)
  ffs=$(grep -E '^ +\$_S?DFF' "$log" | awk '{s+=$2} END {print s+0}')
  width=$(sed -n "s/^ *localparam integer STATE_W = \([0-9]*\);.*/\1/p" "$f")
  flows=$((1 << bits))
  echo "| $flows | $flows × $width bits ($((flows * width)) bits) | $((cells - 1)) | $ffs | $([ "$mem" -gt 0 ] && echo 1 || echo 0) |"
  rm -f "$log"
done
