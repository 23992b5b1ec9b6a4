"""Simulation speed of cocotb on `example_csr` (NUM_PORTS = 4): the pin-level xorshift
stimulus of the Rust harness benchmark (tb/csr-tests/benches/harness_speed.rs), cycle for
cycle, with the same checksum of what the block answers, so the three runs of
scripts/bench-cocotb.sh are seen to simulate the same thing.

Per cycle, as the Rust loop: drive the inputs, let the logic settle, sample the outputs,
clock edge. Environment: RDMAGEN_BENCH_CYCLES (default 20000).
"""

import os
import time

import cocotb
from cocotb.clock import Clock
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge

ADDRS = [0x000, 0x004, 0x008, 0x00C, 0x010, 0x014, 0x018, 0x01C, 0x020, 0x024, 0x100, 0x104,
         0x110, 0x134, 0x0F0, 0x1FC]
M64 = (1 << 64) - 1


@cocotb.test()
async def xorshift_speed(dut):
    cycles = int(os.environ.get("RDMAGEN_BENCH_CYCLES", "20000"))
    for name in ["status_busy_i", "status_link_up_i", "status_fifo_level_i", "int_status_rx_done_set_i",
                 "int_status_tx_done_set_i", "int_status_error_set_i", "pkt_count_count_incr_i",
                 "events_retrain_clr_i", "events_link_seen_set_i", "events_lock_clr_i",
                 "port_link_speed_we_i", "port_link_speed_d_i", "port_link_errors_incr_i",
                 "s_axil_awaddr", "s_axil_awprot", "s_axil_awvalid", "s_axil_wdata", "s_axil_wstrb",
                 "s_axil_wvalid", "s_axil_bready", "s_axil_araddr", "s_axil_arprot", "s_axil_arvalid",
                 "s_axil_rready"]:
        getattr(dut, name).value = 0
    dut.rst.value = 1
    Clock(dut.clk, 10, unit="ns").start()
    await ClockCycles(dut.clk, 2)
    dut.rst.value = 0

    d = dut
    awvalid, wvalid, bready, arvalid, rready = (d.s_axil_awvalid, d.s_axil_wvalid, d.s_axil_bready,
                                                d.s_axil_arvalid, d.s_axil_rready)
    awaddr, araddr, wstrb, wdata = d.s_axil_awaddr, d.s_axil_araddr, d.s_axil_wstrb, d.s_axil_wdata
    rx_set, incr, fifo, errs = (d.int_status_rx_done_set_i, d.pkt_count_count_incr_i,
                                d.status_fifo_level_i, d.port_link_errors_incr_i)
    rvalid, rdata, bvalid, awready, irq = d.s_axil_rvalid, d.s_axil_rdata, d.s_axil_bvalid, d.s_axil_awready, d.irq_o
    falling = FallingEdge(d.clk)
    x = 0x9E3779B97F4A7C15
    total = 0
    t0 = time.perf_counter()
    for _ in range(cycles):
        await falling
        x ^= (x << 13) & M64
        x ^= x >> 7
        x ^= (x << 17) & M64
        r = x
        awvalid.value = r & 1
        wvalid.value = r >> 1 & 1
        bready.value = int(r >> 2 & 3 != 0)
        arvalid.value = r >> 4 & 1
        rready.value = int(r >> 5 & 3 != 0)
        awaddr.value = ADDRS[r >> 8 & 15]
        araddr.value = ADDRS[r >> 12 & 15]
        wstrb.value = r >> 16 & 15
        wdata.value = r >> 32 & 0xFFFFFFFF
        rx_set.value = r >> 20 & 1
        incr.value = r >> 21 & 1
        fifo.value = r >> 24 & 0xFF
        errs.value = r >> 40 & 0xF
        await ReadOnly()
        rd = int(rdata.value) if int(rvalid.value) else 0
        total = (total * 31 + rd + (int(bvalid.value) << 3) + (int(awready.value) << 4) + int(irq.value)) & M64
    await RisingEdge(d.clk)
    await ReadOnly()
    total = (total * 31 + int(d.pkt_count_count_o.value)) & M64
    seconds = time.perf_counter() - t0
    dut._log.info("bench: %d cycles in %.3f s = %.0f cycles/s, checksum %016x",
                  cycles, seconds, cycles / seconds, total)
