"""Simulation speed of cocotb on `rx_top` (512 bits, NUM_VF=4, QPS_PER_VF=16, NUM_MKEYS=16):
the pin file recorded by the Rust benchmark (tb/rxsim-bench: reset, QPs and keys through the
QPC mailbox, parser configuration, RoCEv2 frames under idle and backpressure) replayed cycle
for cycle, with the same checksum of the outputs as the Rust and C++ harnesses
(tb/rxsim-bench/src/pins.rs), so the runs of scripts/bench-rx.sh are seen to simulate the
same thing. The test fails unless the checksum equals the one the recording run folded.

Per cycle, as the other harnesses: drive the inputs, let the logic settle, fold the outputs,
clock edge. Only inputs that change are written (decided while loading the file, before the
clock starts: cocotb's cost is per signal access). Environment: RDMAGEN_RX_PINS (default
target/rxsim/rx_w512.pins).
"""

import os
import time
from pathlib import Path

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import FallingEdge, ReadOnly

ROOT = Path(__file__).resolve().parents[3]
M64 = (1 << 64) - 1


def load(path):
    """(input names, per-cycle [(input index, value)] changes, fold list, checksum,
    per-cycle rst low)."""
    data = Path(path).read_bytes()
    lines = []
    rest = data
    for _ in range(6):
        n = rest.index(b"\n")
        lines.append(rest[:n].decode())
        rest = rest[n + 1:]
    magic, cyc, inputs, fold, checksum, tag = lines
    assert magic == "rdmagen-rxsim-pins 1" and tag == "data", f"{path}: not a pin file"
    cycles = int(cyc.split()[1])
    ports = [(t.split(":")[0], int(t.split(":")[1])) for t in inputs.split()[1:]]
    fold = [(t.split(":")[0], None if t.split(":")[1] == "-" else t.split(":")[1]) for t in fold.split()[1:]]
    nbytes = [4 * ((w + 31) // 32) for _, w in ports]
    row = sum(nbytes)
    assert len(rest) == row * cycles, f"{path}: data length"
    changes = []
    rst_low = []
    last = [None] * len(ports)
    for c in range(cycles):
        off = c * row
        ch = []
        for i, nb in enumerate(nbytes):
            v = int.from_bytes(rest[off:off + nb], "little")
            off += nb
            if v != last[i]:
                ch.append((i, v))
                last[i] = v
        changes.append(ch)
        rst_low.append(last[0] == 0)
    assert ports[0][0] == "rst", f"{path}: the first input is not rst"
    return [n for n, _ in ports], changes, fold, int(checksum.split()[1], 16), rst_low


@cocotb.test()
async def rx_pin_replay_speed(dut):
    path = os.environ.get("RDMAGEN_RX_PINS", str(ROOT / "target" / "rxsim" / "rx_w512.pins"))
    names, changes, fold, expect, rst_low = load(path)
    handles = [getattr(dut, n) for n in names]
    # The always-read outputs (valids, readies) once per cycle; a qualified output only
    # while its valid is high. Plan entries: (handle or None, index in `always`, qualifier index).
    always = [n for n, q in fold if q is None]
    always_h = [getattr(dut, n) for n in always]
    plan = [(None, always.index(n), None) if q is None else (getattr(dut, n), None, always.index(q))
            for n, q in fold]

    # Cycle 0's inputs before the first edge; the clock starts low, rising at 5 ns.
    for i, v in changes[0]:
        handles[i].value = v
    Clock(dut.clk, 10, unit="ns").start(start_high=False)
    falling = FallingEdge(dut.clk)
    total = 0
    # CPU time of the simulator process (simulator and Python), as the other harnesses.
    t0, w0 = time.process_time(), time.perf_counter()
    for c, ch in enumerate(changes):
        if c:
            await falling
            for i, v in ch:
                handles[i].value = v
        await ReadOnly()
        if not rst_low[c]:  # reset cycles are not folded (X before the first edge on Icarus)
            continue
        vals = [int(h.value) for h in always_h]
        for h, ai, qi in plan:
            if h is None:
                v = vals[ai]
            elif vals[qi]:
                v = int(h.value)
            else:
                v = 0
            total = (total * 31 + v) & M64
    seconds, wall = time.process_time() - t0, time.perf_counter() - w0
    cycles = len(changes)
    dut._log.info("bench: %d cycles in %.3f CPU s (%.3f s wall) = %.0f cycles/s, checksum %016x (file %016x)",
                  cycles, seconds, wall, cycles / seconds, total, expect)
    assert total == expect, f"checksum {total:016x}, the recording run folded {expect:016x}"
