// The baseline of the harness speed benchmark: a plain C++ Verilator harness, written the way
// a user writes one, driving the same model (example_csr, NUM_PORTS = 4, from the same static
// library as the Rust tests) with the same stimulus as benches/harness_speed.rs.
//
// Usage: cpp_harness CYCLES  ->  prints "cycles=N seconds=S checksum=X"
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>

#include "verilated.h"
#include "Vexample_sync_p4.h"

static const uint32_t ADDRS[16] = {0x000, 0x004, 0x008, 0x00c, 0x010, 0x014, 0x018, 0x01c,
                                   0x020, 0x024, 0x100, 0x104, 0x110, 0x134, 0x0f0, 0x1fc};

int main(int argc, char** argv) {
  uint64_t cycles = argc > 1 ? strtoull(argv[1], nullptr, 10) : 1000000;
  std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
  ctx->traceEverOn(true);  // as the Rust shim: models are built with tracing available
  std::unique_ptr<Vexample_sync_p4> top(new Vexample_sync_p4(ctx.get(), "TOP"));
  uint64_t half = 0;
  auto tick = [&] {
    top->clk = 1;
    ctx->time(++half);
    top->eval();
    top->clk = 0;
    ctx->time(++half);
  };
  top->rst = 1;
  for (int i = 0; i < 2; i++) {
    top->eval();
    tick();
  }
  top->rst = 0;

  uint64_t x = 0x9e3779b97f4a7c15ull, sum = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t c = 0; c < cycles; c++) {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    uint64_t r = x;
    top->s_axil_awvalid = r & 1;
    top->s_axil_wvalid = (r >> 1) & 1;
    top->s_axil_bready = ((r >> 2) & 3) != 0;
    top->s_axil_arvalid = (r >> 4) & 1;
    top->s_axil_rready = ((r >> 5) & 3) != 0;
    top->s_axil_awaddr = ADDRS[(r >> 8) & 15];
    top->s_axil_araddr = ADDRS[(r >> 12) & 15];
    top->s_axil_wstrb = (r >> 16) & 15;
    top->s_axil_wdata = (uint32_t)(r >> 32);
    top->int_status_rx_done_set_i = (r >> 20) & 1;
    top->pkt_count_count_incr_i = (r >> 21) & 1;
    top->status_fifo_level_i = (r >> 24) & 0xff;
    top->port_link_errors_incr_i = (r >> 40) & 0xf;
    top->eval();
    sum = sum * 31 + (top->s_axil_rvalid ? top->s_axil_rdata : 0) + (top->s_axil_bvalid << 3) +
          (top->s_axil_awready << 4) + top->irq_o;
    tick();
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  sum = sum * 31 + top->pkt_count_count_o;
  printf("cycles=%llu seconds=%.6f checksum=%016llx\n", (unsigned long long)cycles, s,
         (unsigned long long)sum);
  top->final();
  return 0;
}
