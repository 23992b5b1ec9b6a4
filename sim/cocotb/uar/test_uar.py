"""cocotb bench of the UAR block checked by the QPC (rtl/uar_top.v or rtl/uar_mlx5_top.v,
sync-high reset) with rdmagen.UarModel as the scoreboard.

Software sets the block up and brings QPs up, to ERR and down through the QPC command mailbox
(cocotbext-axi AxiLiteMaster through rdmagen.AsyncRegisters on both CSR ports; every command's
status is checked) and mirrors each change into the model. Doorbells arrive as cocotbext-axi
AXI4 write bursts (64-bit doorbells, 32-bit pairs, torn halves, BlueFlame WQEs, forwarded
doorbells on the mlx5 map, unmapped offsets, other VFs' QPNs and pages, wrong page indices,
non-RTS QPs, PF-only and inactive pages, PF writes) with random idle on AW and W and random
backpressure on B, fetch, forward and the BlueFlame stream (cocotbext-axi AxiStreamSink).
Stray reads run beside them (cocotbext-axi AxiMasterRead, random idle on AR and R): every page
reads as zero, OKAY.

A monitor in the middle of every cycle rebuilds each write from the AW and W handshakes, asks
the model what it makes, and compares in order every monitor event, fetch request, forwarded
doorbell and B response; the sink's WQEs are compared frame by frame. At the end the counters
and every live QP (QUERY_QP) are read back. After reset no output may be X or Z (Icarus).

Environment: RDMAGEN_MAP (uar, uar-mlx5), RDMAGEN_PARAMS (as built), RDMAGEN_COCOTB_OPS
(writes, default 150).
"""

from __future__ import annotations

import os
import random
from collections import deque
from typing import Any

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, RisingEdge
from cocotbext.axi import (AxiLiteBus, AxiLiteMaster, AxiMasterRead, AxiMasterWrite, AxiReadBus, AxiResp,
                           AxiStreamBus, AxiStreamSink, AxiWriteBus)

import rdmagen

RTS, ERR = 3, 6  # mlx5 QP states
DROP = 2  # mon_result


def params() -> dict[str, int]:
    text = os.environ.get("RDMAGEN_PARAMS", "NUM_VF=4,PAGES_PER_VF=2,QPS_PER_VF=16")
    return {k: int(v, 0) for k, v in (p.split("=") for p in text.split(",") if p)}


def pauses(rng: random.Random, p: float, run: int = 3):
    """Pause generator for cocotbext-axi: runs of up to `run` cycles with probability p."""
    while True:
        if rng.random() < p:
            for _ in range(rng.randint(1, run)):
                yield True
        else:
            yield False


FETCH = ("vf", "qpn", "wqe_index", "ds", "opcode")
FWD = ("vf", "win", "data")
EVENT = ("result", "reason", "vf", "pf", "page", "qpn")


class Bench:
    def __init__(self, dut, model: rdmagen.UarModel, rng: random.Random):
        self.dut, self.model, self.rng = dut, model, rng
        self.has_fwd = hasattr(dut, "fwd_valid")
        self.aws: deque[tuple[int, int, int, int, int]] = deque()
        self.beats: list[tuple[int, int]] = []
        self.want: dict[str, deque[Any]] = {"events": deque(), "fetch": deque(), "fwd": deque(), "wqe": deque(), "b": deque()}
        self.seen = {"events": 0, "fetch": 0, "fwd": 0, "wqe": 0, "b": 0, "hostile": 0, "writes": 0}
        self.held: dict[str, dict | None] = {"fetch": None, "fwd": None}
        # Events the block reported before the monitor could hand their write to the model: a
        # pending 32-bit half is dropped as TORN when the next write's AW arrives, which can
        # be before that write's last beat. They are matched, in order, when the model has them.
        self.early: deque[tuple[int, Any]] = deque()
        self.cycles = 0
        self.dropped: set[int] = set()  # drop reasons seen on mon_*
        # Outputs by the valid that qualifies them (None: always meaningful).
        groups = {None: ["s_axi_awready", "s_axi_wready", "s_axi_bvalid", "fetch_valid", "m_axis_bf_tvalid",
                         "mon_valid", "uar_irq_o", "qpc_irq_o"],
                  "s_axi_bvalid": ["s_axi_bresp"],
                  "fetch_valid": [f"fetch_{n}" for n in FETCH],
                  "m_axis_bf_tvalid": ["m_axis_bf_tdata", "m_axis_bf_tkeep", "m_axis_bf_tlast", "m_axis_bf_tuser"],
                  "mon_valid": [f"mon_{n}" for n in EVENT]}
        if self.has_fwd:
            groups[None].append("fwd_valid")
            groups["fwd_valid"] = [f"fwd_{n}" for n in FWD]
        self.groups = [(getattr(dut, valid) if valid else None, [getattr(dut, n) for n in names])
                       for valid, names in groups.items()]
        self.idle_x: set[str] = set()

    def check_x(self) -> None:
        """No output is X or Z after reset while it means something; payloads that are X
        while their valid is low are collected (`idle_x`) and reported at the end."""
        for valid, sigs in self.groups:
            on = valid is None or bool(int(valid.value))
            for h in sigs:
                if not h.value.is_resolvable:
                    assert not on, f"cycle {self.cycles}: {h._name} is {h.value}"
                    self.idle_x.add(h._name)

    async def drive(self) -> None:
        d = self.dut
        while True:
            await RisingEdge(d.clk)
            d.fetch_ready.value = int(self.rng.random() < 0.7)
            if self.has_fwd:
                d.fwd_ready.value = int(self.rng.random() < 0.7)

    def _take(self, port: str, got: Any) -> None:
        if port == "events" and (self.early or not self.want[port]):
            self.early.append((self.cycles, got))
            self._match_early()
            return
        assert self.want[port], f"cycle {self.cycles}: {port} {got} that the model does not expect"
        want = self.want[port].popleft()
        assert got == want, f"cycle {self.cycles}: {port} {got}, model {want}"
        self.seen[port] += 1

    def _match_early(self) -> None:
        while self.early and self.want["events"]:
            cycle, got = self.early.popleft()
            want = self.want["events"].popleft()
            assert got == want, f"cycle {cycle}: events {got}, model {want}"
            self.seen["events"] += 1

    def _hold(self, port: str, names, valid: bool, ready: bool) -> None:
        """valid/ready rule: an offer not taken stays, unchanged, until it is."""
        d = self.dut
        cur = {n: int(getattr(d, f"{port}_{n}").value) for n in names} if valid else None
        if self.held[port] is not None:
            assert cur == self.held[port], f"cycle {self.cycles}: {port} changed before ready: {cur}"
        self.held[port] = cur if valid and not ready else None
        if valid and ready:
            self._take(port, cur)

    async def monitor(self) -> None:
        d = self.dut
        while True:
            await FallingEdge(d.clk)
            if int(d.rst.value):
                continue
            self.cycles += 1
            self.check_x()
            if int(d.s_axi_awvalid.value) and int(d.s_axi_awready.value):
                self.aws.append((int(d.s_axi_awaddr.value), int(d.s_axi_awlen.value),
                                 int(d.s_axi_awsize.value), int(d.s_axi_awburst.value),
                                 int(d.s_axi_awuser.value)))
            if int(d.s_axi_wvalid.value) and int(d.s_axi_wready.value):
                self.beats.append((int(d.s_axi_wdata.value), int(d.s_axi_wstrb.value)))
            # A write is whole when its AW and all its beats are seen (W may lead AW).
            while self.aws and len(self.beats) > self.aws[0][1]:
                addr, n, size, burst, user = self.aws.popleft()
                beats, self.beats = self.beats[: n + 1], self.beats[n + 1:]
                o = self.model.write(addr, beats, vf=user & 0xFF, pf=bool(user >> 8), size=size, burst=burst)
                self.seen["writes"] += 1
                self.seen["hostile"] += o["hostile"]
                self.want["events"].extend(o["events"])
                self._match_early()
                self.want["b"].append(o["bresp"])
                for port in ("fetch", "fwd", "wqe"):
                    if o[port] is not None:
                        self.want[port].append(o[port])
            if int(d.s_axi_bvalid.value) and int(d.s_axi_bready.value):
                self._take("b", int(d.s_axi_bresp.value))
            if int(d.mon_valid.value):
                ev = {n: int(getattr(d, f"mon_{n}").value) for n in EVENT}
                self._take("events", ev)
                if ev["result"] == DROP:
                    self.dropped.add(ev["reason"])
            self._hold("fetch", FETCH, bool(int(d.fetch_valid.value)), bool(int(d.fetch_ready.value)))
            if self.has_fwd:
                self._hold("fwd", FWD, bool(int(d.fwd_valid.value)), bool(int(d.fwd_ready.value)))

    async def blueflame(self, sink: AxiStreamSink) -> None:
        while True:
            frame = await sink.recv(compact=False)
            assert all(k == 1 for k in frame.tkeep), f"BlueFlame tkeep {frame.tkeep}"
            users = set(frame.tuser) if isinstance(frame.tuser, list) else {frame.tuser}
            assert self.want["wqe"], f"cycle {self.cycles}: a BlueFlame WQE the model does not expect"
            want = self.want["wqe"].popleft()
            data = b"".join(b.to_bytes(8, "little") for b in want["beats"])
            assert bytes(frame.tdata) == data, f"cycle {self.cycles}: WQE {bytes(frame.tdata).hex()}, model {data.hex()}"
            assert users == {want["user"]}, f"cycle {self.cycles}: WQE tuser {users}, model {want['user']:#x}"
            self.seen["wqe"] += 1

    def quiet(self) -> bool:
        return not self.aws and not self.beats and not self.early and not any(self.want.values())


@cocotb.test()
async def uar_random(dut):
    prm = params()
    nvf, pages, nqp = prm["NUM_VF"], prm["PAGES_PER_VF"], prm["QPS_PER_VF"]
    map_name = os.environ.get("RDMAGEN_MAP", "uar")
    umap, qmap = rdmagen.RegMap.builtin(map_name), rdmagen.RegMap.builtin("qpc")
    ops = int(os.environ.get("RDMAGEN_COCOTB_OPS", "150"))
    rng = random.Random(int(os.environ.get("RDMAGEN_SEED", "0")) or cocotb.RANDOM_SEED)
    model = rdmagen.UarModel(umap, nvf, pages)

    dut.rst.value = 1
    dut.fetch_ready.value = 0
    if hasattr(dut, "fwd_ready"):
        dut.fwd_ready.value = 0
    Clock(dut.clk, 10, unit="ns").start()
    b = Bench(dut, model, rng)
    axi = AxiMasterWrite(AxiWriteBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
    axi.aw_channel.set_pause_generator(pauses(rng, 0.3))
    axi.w_channel.set_pause_generator(pauses(rng, 0.3))
    axi.b_channel.set_pause_generator(pauses(rng, 0.3))
    rd = AxiMasterRead(AxiReadBus.from_prefix(dut, "s_axi"), dut.clk, dut.rst)
    rd.ar_channel.set_pause_generator(pauses(rng, 0.3))
    rd.r_channel.set_pause_generator(pauses(rng, 0.3))
    sink = AxiStreamSink(AxiStreamBus.from_prefix(dut, "m_axis_bf"), dut.clk, dut.rst)
    sink.set_pause_generator(pauses(rng, 0.3))
    ulite = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "s_axil"), dut.clk, dut.rst)
    qlite = AxiLiteMaster(AxiLiteBus.from_prefix(dut, "qpc_s_axil"), dut.clk, dut.rst)
    for m in (ulite, qlite):
        m.write_if.aw_channel.set_pause_generator(pauses(rng, 0.2))
        m.read_if.r_channel.set_pause_generator(pauses(rng, 0.2))
    uregs = rdmagen.AsyncRegisters(umap, *rdmagen.axil_bus(ulite),
                                   params={k: v for k, v in prm.items() if k in umap.parameters})
    qregs = rdmagen.AsyncRegisters(qmap, *rdmagen.axil_bus(qlite),
                                   params={"NUM_VF": nvf, "QPS_PER_VF": nqp, "NUM_MKEYS": 1})
    cocotb.start_soon(b.monitor())
    cocotb.start_soon(b.blueflame(sink))
    await ClockCycles(dut.clk, 3)
    dut.rst.value = 0
    cocotb.start_soon(b.drive())
    reads = {"n": 0, "stop": False}

    async def reader(rrng: random.Random) -> None:
        """Stray reads beside the doorbells: every page reads as zero, OKAY (the map)."""
        while not reads["stop"]:
            length = 8 * rrng.choice([1, 1, 2, 4, 8])
            addr = model.address(rrng.randrange(nvf), rrng.randrange(pages)) + 8 * rrng.randrange(64)
            resp = await rd.read(addr, length)
            assert resp.data == bytes(length) and resp.resp == AxiResp.OKAY, f"read of {addr:#x}: {resp}"
            reads["n"] += 1
            await ClockCycles(dut.clk, rrng.randint(1, 40))

    reader_task = cocotb.start_soon(reader(random.Random(rng.getrandbits(32))))

    pending = []

    async def drain() -> None:
        for e in pending:
            await e.wait()
        pending.clear()
        for _ in range(10_000):
            if b.quiet():
                break
            await RisingEdge(dut.clk)
        assert not b.early, f"events the model never produced: {list(b.early)}"
        assert b.quiet(), f"the block stopped answering: {[(k, len(v)) for k, v in b.want.items() if v]}"

    # QPC set-up: the clear sequence after reset, then QPs through the mailbox.
    while (await qregs.read_field("status", "clear_busy")):
        await ClockCycles(dut.clk, 8)
    layout = rdmagen.QpcModel(qmap, nvf, nqp, 1).layout
    commands = dict(rdmagen.qp_commands())

    async def command(op: str, vf: int, local: int, page: int) -> int:
        word = 0
        for name, value in [("st", 0), ("pd", 1), ("uar_page", page), ("mtu", 3)]:
            msb, lsb = layout[name]
            word |= value << lsb
        for i in range(12):
            await qregs.write("mailbox.data", word >> (32 * i) & 0xFFFFFFFF, index=i)
        await qregs.write("cmd_target", fields={"index": local, "vf": vf})
        await qregs.write("cmd_ctrl", opcode=commands[op], go=1)
        while (st := await qregs.read_fields("cmd_status"))["busy"]:
            pass
        assert st["status"] == 0, f"{op} on VF {vf} QP {local}: status {st}"
        return st["prev_state"]

    live: dict[int, tuple[int, int]] = {}  # qpn -> (state, page)

    async def bring_up(vf: int, local: int, page: int, to: int = RTS) -> None:
        q = vf << 12 | local
        if q in live:
            await command("DESTROY_QP", vf, local, page)
        for op in ["CREATE_QP", "RST2INIT_QP", "INIT2RTR_QP", "RTR2RTS_QP"][: to + 1]:
            await command(op, vf, local, page)
        live[q] = (to, page)
        model.set_qp(q, to, page)

    async def configure(active_pages: int, pf_only_mask: int, bf_enable: bool, vf_off: int | None) -> None:
        await drain()
        await uregs.write("ctrl", enable=1, bf_enable=int(bf_enable))
        await uregs.write("page_cfg", active_pages=active_pages, pf_only_mask=pf_only_mask)
        model.enable, model.bf_enable = True, bf_enable
        model.active_pages, model.pf_only_mask = active_pages, pf_only_mask
        for vf in range(nvf):
            on = vf != vf_off
            if model.vf_enable[vf] != on:
                await uregs.write("vf.ctrl", index=vf, enable=int(on))
                model.set_vf_enable(vf, on)

    await configure(pages, 0, True, None)
    hot_vfs = list(range(min(nvf, 3)))
    for vf in hot_vfs:
        for local in range(2):
            await bring_up(vf, local, local % pages)

    windows = model.windows
    send_offs = [w[1] for w in windows if w[3] != "forward"]
    bf_wins = [w for w in windows if w[3] == "blueflame"]
    fwd_wins = [w for w in windows if w[3] == "forward"]
    DB = rdmagen.UarModel.doorbell

    def write(addr: int, data: bytes, vf: int, pf: bool) -> None:
        pending.append(axi.init_write(addr, data, awid=0, user=int(pf) << 8 | vf))

    for i in range(ops):
        r = rng.random()
        if r < 0.03:
            q = rng.choice(list(live))
            vf, local = q >> 12, q & 0xFFF
            await drain()
            if rng.random() < 0.5:
                await command("TO_ERR_QP", vf, local, live[q][1])
                live[q] = (ERR, live[q][1])
                model.set_qp(q, ERR, live[q][1])
            else:
                await bring_up(vf, local, rng.randrange(pages), rng.choice([RTS, RTS, 1]))
            continue
        if r < 0.05:
            await configure(rng.choice([0, pages, pages, rng.randint(1, pages + 1)]),
                            rng.choice([0, 0, rng.getrandbits(2) << 1]), rng.random() < 0.8,
                            rng.choice([None, None, rng.randrange(nvf)]))
            continue
        vf = rng.choice(hot_vfs) if rng.random() < 0.85 else rng.randrange(nvf)
        pf = rng.random() < 0.05
        # Mostly a live QP of the writer through its page; sometimes another VF's page or QP,
        # a QP that does not exist, another page index.
        owner = vf if rng.random() < 0.95 else rng.randrange(nvf)
        local = rng.randrange(2) if rng.random() < 0.9 else 2
        qpn = (vf if rng.random() < 0.92 else rng.randrange(nvf)) << 12 | local
        page = local % pages if rng.random() < 0.92 else rng.randrange(pages)
        base = model.address(owner, page)
        db = DB(rng.getrandbits(16), 0x0A, qpn, rng.randint(1, 15)).to_bytes(8, "little")
        kind = rng.random()
        off = rng.choice(send_offs)
        if kind < 0.45:
            write(base + off, db, vf, pf)
        elif kind < 0.6:  # a 32-bit pair, low address first
            write(base + off, db[:4], vf, pf)
            write(base + off + 4, db[4:], vf, pf)
        elif kind < 0.65:  # a torn half
            write(base + off + 4 * rng.randrange(2), db[:4], vf, pf)
        elif kind < 0.72 and bf_wins:
            # A WQE in 64-byte write-combining chunks, one burst each (mlx5_bf_copy), or a
            # stray continuation chunk.
            w = rng.choice(bf_wins)
            c = rng.randint(2, w[2] // 64)
            db = DB(rng.getrandbits(16), 0x0A, qpn, 4 * (c - 1) + rng.randint(1, 4)).to_bytes(8, "little")
            wqe = db + bytes(rng.getrandbits(8) for _ in range(64 * c - 8))
            for j in range(c) if rng.random() < 0.85 else [rng.randrange(1, c)]:
                write(base + w[1] + 64 * j, wqe[64 * j: 64 * j + 64], vf, pf)
        elif kind < 0.85 and bf_wins:
            w = rng.choice(bf_wins)
            n = rng.choice([2, 4, 8, 8, w[2] // 8, w[2] // 8 + 1])
            wqe = db + bytes(rng.getrandbits(8) for _ in range(8 * (n - 1)))
            write(base + w[1], wqe, vf, pf)
        elif kind < 0.93 and fwd_wins:
            w = rng.choice(fwd_wins)
            write(base + w[1], bytes(rng.getrandbits(8) for _ in range(w[2])), vf, pf)
        else:
            write(base + 0x100 + 8 * rng.randrange(16), db, vf, pf)
        if rng.random() < 0.1:
            await ClockCycles(dut.clk, rng.randint(1, 10))
        if len(pending) > 8:
            await pending[0].wait()
            pending.pop(0)
    await drain()
    reads["stop"] = True
    await reader_task
    assert reads["n"], "no read completed"

    # Counters (read to clear) and every live QP, against the model.
    c = model.counters
    want = {"db_accepted": c["db_accepted"], "bf_accepted": c["bf_accepted"],
            **{f"drop_{k}": v for k, v in c["drops"].items()}}
    for path, v in want.items():
        got = await uregs.read(path)
        assert got == v, f"{path}: RTL {got}, model {v}"
    for vf in range(nvf):
        assert await uregs.read("vf.doorbells", vf) == c["vf_doorbells"][vf], f"vf[{vf}].doorbells"
        assert await uregs.read("vf.drops", vf) == c["vf_drops"][vf], f"vf[{vf}].drops"
    if c["last_drop"] is not None:
        reason, page, vf, qpn = c["last_drop"]
        assert await uregs.read_fields("last_drop") == {"reason": reason, "page_index": page, "vf": vf}
        assert await uregs.read_field("last_drop_qpn", "qpn") == qpn
    # int_status: one w1c bit per drop reason, set by every drop since reset.
    reasons = {v: k for k, v in model.reasons.items()}
    want_status = {k: 0 for k in model.reasons}
    for r in b.dropped:
        want_status[reasons[r]] = 1
    assert await uregs.read_fields("int_status") == want_status, f"int_status, model {want_status}"
    model.clear_counters()
    for q, (state, page) in sorted(live.items()):
        await qregs.write("cmd_target", fields={"index": q & 0xFFF, "vf": q >> 12})
        await qregs.write("cmd_ctrl", opcode=commands["QUERY_QP"], go=1)
        while (await qregs.read_fields("cmd_status"))["busy"]:
            pass
        word = 0
        for i in range(12):
            word |= await qregs.read("mailbox.data", i) << (32 * i)

        def get(name: str) -> int:
            msb, lsb = layout[name]
            return word >> lsb & ((1 << (msb - lsb + 1)) - 1)

        assert (get("state"), get("uar_page")) == (state, page), f"QP {q:#x}: QPC {get('state')}/{get('uar_page')}"
    s = b.seen
    dut._log.info("%d cycles, %d writes (%d hostile), %d reads; checked %d events, %d fetches, %d WQEs, "
                  "%d forwards, %d B responses; drops %s", b.cycles, s["writes"], s["hostile"], reads["n"],
                  s["events"], s["fetch"], s["wqe"], s["fwd"], s["b"], c["drops"])
    assert s["fetch"] and s["hostile"] and s["events"] >= s["writes"], s
    # Issue 7: no output is X or Z after reset, not even a payload while its valid is low.
    assert not b.idle_x, f"X on idle payload outputs after reset: {sorted(b.idle_x)}"
