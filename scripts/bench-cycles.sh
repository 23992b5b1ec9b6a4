#!/usr/bin/env bash
# Latency and throughput of every block in clock cycles, as the block suites' timing tests
# measure them in simulation (each test asserts its bound and hands the measured value to
# rdmagen_harness::figures). Writes docs/BENCHMARKS.cycles.md and docs/BENCHMARKS.cycles.json.
# Cycle counts do not depend on the machine or its load.
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
figures=$(mktemp)
trap 'rm -f "$figures"' EXIT

# package, test target, name filter (empty: every test of the target)
runs=(
  "rdmagen-uar-tests uar_timing"
  "rdmagen-qpc-tests qpc_timing"
  "rdmagen-rxparser-tests rxparser_props line_rate"
  "rdmagen-dcqcn-tests throughput"
)
# Built once with --workspace: `-p` resolves dependency features per package, and the suites'
# differ enough (serde_core's `std`) that shared crates were compiled twice.
# Built with the make-bench profile (Cargo.toml: the bench profile in target/make-bench):
# `make bench` runs scripts/bench-build.sh's `cargo bench --workspace` builds next, in the same
# profile, so the dependency tree, rdmagen-harness with the Verilator runtime and the build
# scripts' generator crates are compiled once for both instead of once in debug here and again
# optimised there. Cycle counts do not depend on the profile; `make test` runs the same tests
# in the debug profile, with debug assertions.
PROFILE=(--profile make-bench)
# The models' per-cycle C++ at -O1 instead of -O3 (tb/vlbuild: RDMAGEN_MODEL_OPT): the tests
# count cycles, which the C++ optimisation level cannot change, and compiling the models is most
# of this step. Their cache directories differ from -O3 builds; nothing timed runs these models.
export RDMAGEN_MODEL_OPT=${RDMAGEN_MODEL_OPT:-1}
tests=()
for r in "${runs[@]}"; do
  read -r _ target _ <<<"$r"
  tests+=(--test "$target")
done
$CARGO test -q "${PROFILE[@]}" --workspace --no-run "${tests[@]}"
for r in "${runs[@]}"; do
  read -r pkg target filter <<<"$r"
  echo "bench-cycles: RDMAGEN_MODEL_OPT=$RDMAGEN_MODEL_OPT $CARGO test ${PROFILE[*]} --workspace --test $target ${filter:-}   ($pkg)"
  RDMAGEN_FIGURES="$figures" $CARGO test -q "${PROFILE[@]}" --workspace --test "$target" -- ${filter:+"$filter"} >/dev/null
done

python3 - "$figures" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
if not rows:
    sys.exit("bench-cycles: the timing tests recorded no figures")
order = {"uar": 0, "qpc": 1, "rx_parser": 2, "dcqcn": 3}
rows.sort(key=lambda r: (order.get(r["block"], 9), r["test"], r["variant"], r["figure"]))
def num(v):
    return f"{v:.3f}" if v != int(v) else str(int(v))
md = [
    "# Cycle figures of the blocks",
    "",
    "Written by `make bench-cycles` (scripts/bench-cycles.sh). Each row is a latency or a",
    "throughput that a block suite's timing test measured in simulation (Verilated RTL, counted",
    "in clock cycles) and asserts against the bound shown; the test named in the row reruns it.",
    "Cycle counts do not depend on the machine.",
    "",
    "| block | model variant | figure | measured | bound asserted | test |",
    "|---|---|---|---|---|---|",
]
for r in rows:
    md.append(f"| {r['block']} | {r['variant']} | {r['figure']} | {num(r['value'])} {r['unit']} | {r['bound']} | `{r['test']}` |")
open("docs/BENCHMARKS.cycles.md", "w").write("\n".join(md) + "\n")
with open("docs/BENCHMARKS.cycles.json", "w") as f:
    json.dump(rows, f, indent=1)
    f.write("\n")
print("\n".join(md))
PY
echo "bench: wrote docs/BENCHMARKS.cycles.md"
