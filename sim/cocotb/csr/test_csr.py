"""cocotb bench of a generated CSR block (`<block>_csr`, sync-high reset), for any map.

Stimulus: random AXI4-Lite writes (random contiguous byte strobes) and reads from
cocotbext-axi's AxiLiteMaster, concurrently, over mapped registers, both halves of 64-bit
registers and unmapped addresses; random hardware inputs every cycle.

Scoreboard: rdmagen.CsrModel, cycle by cycle. A monitor samples the bus and the hardware
inputs in the middle of every clock cycle, feeds the transfers the block accepts in that
cycle (AWVALID&AWREADY, ARVALID&ARREADY) to the model, and checks every modelled output
against it; the responses the model predicts are checked against what the master gets
(data, OKAY/SLVERR/DECERR). After reset no output may be X or Z (meaningful on Icarus,
which is 4-state).

Environment: RDMAGEN_MAP (a built-in map name or a YAML path), RDMAGEN_PARAMS
("NAME=V,..." as the RTL was built), RDMAGEN_COCOTB_OPS (bus operations per stream).
"""

from __future__ import annotations

import os
import random
from collections import deque

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge, Timer
from cocotbext.axi import AxiLiteBus, AxiLiteMaster

import rdmagen

AXI_OUTPUTS = ["awready", "wready", "bvalid", "bresp", "arready", "rvalid", "rdata", "rresp"]


def load_map() -> rdmagen.RegMap:
    name = os.environ.get("RDMAGEN_MAP", "example")
    if name.endswith((".yaml", ".yml")):
        return rdmagen.RegMap.load(name)
    return rdmagen.RegMap.builtin(name)


def params() -> dict[str, int]:
    text = os.environ.get("RDMAGEN_PARAMS", "").strip()
    return {k: int(v, 0) for k, v in (p.split("=") for p in text.split(",") if p)}


class Scoreboard:
    """Runs the model next to the DUT and holds the responses it predicts."""

    def __init__(self, dut, regmap: rdmagen.RegMap, prm: dict[str, int]):
        self.dut = dut
        self.model = rdmagen.CsrModel(regmap, prm)
        self.outputs = [getattr(dut, n) for n, _ in self.model.out_ports]
        self.hw = [(n, getattr(dut, n)) for n, *_ in self.model.hw_ports]
        self.axi_out = [getattr(dut, f"s_axil_{n}") for n in AXI_OUTPUTS]
        self.writes: deque[int] = deque()
        self.reads: deque[tuple[int, int]] = deque()
        self.cycles = 0
        self.checks = 0

    def check_outputs(self) -> None:
        for sig in self.outputs + self.axi_out:
            assert sig.value.is_resolvable, f"{sig._name} is {sig.value} after reset"
        for (name, _), sig in zip(self.model.out_ports, self.outputs):
            want = self.model.output(name)
            got = int(sig.value)
            assert got == want, f"cycle {self.cycles}: {name} = {got:#x}, model {want:#x}"
            self.checks += 1

    async def run(self) -> None:
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            if int(d.rst.value):
                self.model.reset()
                continue
            self.check_outputs()
            write = read = None
            if int(d.s_axil_awvalid.value) and int(d.s_axil_awready.value):
                write = (int(d.s_axil_awaddr.value), int(d.s_axil_wdata.value), int(d.s_axil_wstrb.value))
            if int(d.s_axil_arvalid.value) and int(d.s_axil_arready.value):
                read = int(d.s_axil_araddr.value)
            inputs = {n: int(s.value) for n, s in self.hw}
            rready = bool(int(d.s_axil_rready.value))
            wresp, rresp = self.model.cycle(write, read, inputs, rready)
            if wresp is not None:
                self.writes.append(wresp)
            if rresp is not None:
                self.reads.append(rresp)
            self.cycles += 1


def model_read(model: rdmagen.CsrModel, addr: int) -> int:
    """The model's data for a read of `addr` on an idle bus: answered the cycle after the accept,
    one later when the read takes a fetch stage (more than 64 readable registers outside
    arrays), two later for an element of an array of more than 16 elements (two fetch cycles;
    docs/regmap-format.md)."""
    model.cycle(read=addr)
    for _ in range(3):
        answer = model.cycle()[1]
        if answer is not None:
            return answer[0]
    raise AssertionError(f"the model answers no read of {addr:#x}")


def addresses(regmap: rdmagen.RegMap, prm: dict[str, int]) -> list[int]:
    out = []
    for r in regmap.registers(prm):
        for i in range(r.count):
            a = r.address(i)
            out += [a, a + 4] if r.width == 64 else [a]
    return out


async def drive_inputs(dut, sb: Scoreboard, rng: random.Random) -> None:
    """New random hardware inputs after each clock edge; mostly quiet so state persists."""
    widths = {n: w * c for n, _, w, c in sb.model.hw_ports}
    while True:
        await RisingEdge(dut.clk)
        for name, sig in sb.hw:
            if rng.random() < 0.15:
                sig.value = rng.getrandbits(widths[name])
            elif rng.random() < 0.5:
                sig.value = 0


async def perturb_writes(dut, rng: random.Random) -> None:
    """AxiLiteMaster derives WSTRB from address and length (contiguous lanes) and zero-fills
    the lanes it does not write. The block must honour any WSTRB and ignore unstrobed lanes,
    so once per W beat this clears random strobe bits (any pattern, none included) and fills
    unstrobed lanes with random bytes. The monitor scores what is on the bus, so the model
    sees the perturbed beat; the master only waits for the response."""
    fresh = True
    while True:
        await RisingEdge(dut.clk)
        await Timer(1, unit="ns")  # after the master's source has driven the new beat
        valid = int(dut.s_axil_wvalid.value)
        if valid and fresh:
            strb = int(dut.s_axil_wstrb.value)
            if rng.random() < 0.5:
                strb &= rng.getrandbits(4)
            keep = sum(0xFF << (8 * i) for i in range(4) if strb >> i & 1)
            dut.s_axil_wstrb.value = strb
            dut.s_axil_wdata.value = int(dut.s_axil_wdata.value) & keep | rng.getrandbits(32) & ~keep
        await FallingEdge(dut.clk)
        # A beat is held until it is taken: perturb it once, when it is new.
        fresh = not valid or bool(int(dut.s_axil_wready.value))


@cocotb.test()
async def random_access(dut):
    """Random reads and writes against the CSR model, with random hardware inputs."""
    regmap = load_map()
    prm = params()
    ops = int(os.environ.get("RDMAGEN_COCOTB_OPS", "300"))
    seed = int(os.environ.get("RDMAGEN_SEED", cocotb.RANDOM_SEED))
    rng = random.Random(seed)
    dut._log.info("map %s params %s, %d ops per stream, seed %d", regmap.block, prm, ops, seed)

    mapped = addresses(regmap, prm)
    span = 1 << regmap.address_width

    def pick() -> int:
        r = rng.random()
        if r < 0.8:
            return rng.choice(mapped)
        return rng.randrange(0, span, 4)  # mostly unmapped: DECERR

    for name, _, _, _ in rdmagen.CsrModel(regmap, prm).hw_ports:
        getattr(dut, name).value = 0
    dut.rst.value = 1
    Clock(dut.clk, 10, unit="ns").start()
    sb = Scoreboard(dut, regmap, prm)
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    cocotb.start_soon(sb.run())
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    cocotb.start_soon(drive_inputs(dut, sb, rng))
    cocotb.start_soon(perturb_writes(dut, rng))

    async def writer():
        for _ in range(ops):
            a = pick()
            first = rng.randrange(4)
            n = rng.randint(1, 4 - first)
            data = bytes(rng.getrandbits(8) for _ in range(n))
            rsp = await master.write(a + first, data)
            want = sb.writes.popleft()
            assert int(rsp.resp) == want, f"write {a + first:#x}: resp {int(rsp.resp)}, model {want}"
            if rng.random() < 0.3:
                await ClockCycles(dut.clk, rng.randint(1, 3))

    async def reader():
        for _ in range(ops):
            a = pick()
            rsp = await master.read(a, 4)
            want_data, want_resp = sb.reads.popleft()
            got = int.from_bytes(rsp.data, "little")
            assert (got, int(rsp.resp)) == (want_data, want_resp), (
                f"read {a:#x}: {got:#x}/{int(rsp.resp)}, model {want_data:#x}/{want_resp}"
            )
            if rng.random() < 0.3:
                await ClockCycles(dut.clk, rng.randint(1, 3))

    w = cocotb.start_soon(writer())
    r = cocotb.start_soon(reader())
    await w
    await r
    await ClockCycles(dut.clk, 2)
    assert not sb.writes and not sb.reads, "the model predicted responses the bus never gave"
    dut._log.info("%d cycles, %d output checks", sb.cycles, sb.checks)


@cocotb.test()
async def register_layer(dut):
    """rdmagen.AsyncRegisters over cocotbext-axi: named access, read-modify-write, errors."""
    regmap = load_map()
    prm = params()
    for name, _, _, _ in rdmagen.CsrModel(regmap, prm).hw_ports:
        getattr(dut, name).value = 0
    dut.rst.value = 1
    Clock(dut.clk, 10, unit="ns").start()
    master = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 1)
    read, write = rdmagen.axil_bus(master)
    regs = rdmagen.AsyncRegisters(regmap, read, write, params=prm)
    model = rdmagen.CsrModel(regmap, prm)
    checked = 0
    for reg in regmap.registers(prm):
        # rw-only registers: write a pattern through the layer, read it back by name.
        if not reg.fields or any(f.access != "rw" for f in reg.fields):
            continue
        for i in {0, reg.count - 1}:
            value = reg.pack(**{f.name: (0x5A5A5A5A_A5A5A5A5 >> f.lsb) & ((1 << f.width) - 1) for f in reg.fields})
            await regs.write(reg.path, value, index=i)
            assert await regs.read(reg.path, index=i) == value
            first = reg.fields[0]
            new = await regs.modify(reg.path, index=i, fields={first.name: 0})
            assert await regs.read_fields(reg.path, index=i) == reg.unpack(new)
            checked += 1
    # A map may have no register of `rw` fields alone (status and counter blocks): the reset
    # values below are then what the layer is checked on.
    # Reset values of every readable register without read side effects.
    await ClockCycles(dut.clk, 1)
    dut.rst.value = 1
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0
    await ClockCycles(dut.clk, 1)
    for reg in regmap.registers(prm):
        if reg.readable and not reg.read_side_effects:
            # The model right after reset, hardware inputs at 0, answers each word read.
            want = reg.combine([model_read(model, a) for a in reg.read_plan(reg.count - 1)])
            assert await regs.read(reg.path, index=reg.count - 1) == want, reg.path
            checked += 1
    assert checked, "the map has no register to exercise"
    unmapped = next(a for a in range(0, 1 << regmap.address_width, 4) if regmap.decode(a, prm) is None)
    try:
        await read(unmapped)
    except rdmagen.BusError as e:
        assert e.resp == 3
    else:
        raise AssertionError(f"read of unmapped {unmapped:#x} did not fail")
    dut._log.info("%d registers through AsyncRegisters", checked)
