// The baseline of the RX simulation-speed benchmark: a plain C++ Verilator harness, written
// the way a user writes one, replaying the recorded pin file (src/pins.rs) on rx_top at 512
// bits (the same static model library as the Rust harness, benches/rx_speed.rs): per cycle,
// every input from the row, eval, every output folded into the checksum, clock edge.
//
// Usage: rx_cpp_harness PINFILE PASSES
//   -> prints "cycles=N seconds=S wall=W checksum=X" (cycles of all passes; S is the CPU time
//      of the process, W the wall time, both excluding reading the file). Exits 1 if the file is not for this harness or a pass's checksum
//      differs from the file's.
#include <chrono>
#include <ctime>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "verilated.h"
#include "Vrx_sim_w512.h"

// The inputs in row order and the checksum's outputs (port, qualifier), as src/pins.rs.
#define RX_INPUTS(X)                                                                       \
  X(rst) X(s_axil_awaddr) X(s_axil_awprot) X(s_axil_awvalid) X(s_axil_wdata) X(s_axil_wstrb) \
  X(s_axil_wvalid) X(s_axil_bready) X(s_axil_araddr) X(s_axil_arprot) X(s_axil_arvalid)    \
  X(s_axil_rready) X(s_axis_tdata) X(s_axis_tkeep) X(s_axis_tvalid) X(s_axis_tlast)        \
  X(s_axis_tuser) X(m_hdr_ready) X(m_pay_tready) X(m_ack_ready) X(qpc_s_axil_awaddr) X(qpc_s_axil_awprot)                 \
  X(qpc_s_axil_awvalid) X(qpc_s_axil_wdata) X(qpc_s_axil_wstrb) X(qpc_s_axil_wvalid)       \
  X(qpc_s_axil_bready) X(qpc_s_axil_araddr) X(qpc_s_axil_arprot) X(qpc_s_axil_arvalid)     \
  X(qpc_s_axil_rready)

#define RX_FOLD(A, Q)                                                                       \
  A(s_axil_awready) A(s_axil_wready) A(s_axil_bvalid) Q(s_axil_bresp, s_axil_bvalid)        \
  A(s_axil_arready) A(s_axil_rvalid) Q(s_axil_rdata, s_axil_rvalid)                         \
  Q(s_axil_rresp, s_axil_rvalid) A(s_axis_tready) A(m_hdr_valid)                            \
  Q(m_hdr_verdict, m_hdr_valid) Q(m_hdr_reason, m_hdr_valid) Q(m_hdr_vf, m_hdr_valid)       \
  Q(m_hdr_opcode, m_hdr_valid) Q(m_hdr_qpn, m_hdr_valid) Q(m_hdr_psn, m_hdr_valid)          \
  Q(m_hdr_se, m_hdr_valid) Q(m_hdr_ack_req, m_hdr_valid) Q(m_hdr_fecn, m_hdr_valid)         \
  Q(m_hdr_becn, m_hdr_valid) Q(m_hdr_pad, m_hdr_valid) Q(m_hdr_va, m_hdr_valid)             \
  Q(m_hdr_rkey, m_hdr_valid) Q(m_hdr_dma_len, m_hdr_valid) Q(m_hdr_imm, m_hdr_valid)        \
  Q(m_hdr_src_qp, m_hdr_valid)                                                              \
  Q(m_hdr_ecn_ce, m_hdr_valid) Q(m_hdr_cnp, m_hdr_valid) Q(m_hdr_payload_len, m_hdr_valid)  \
  Q(m_hdr_pay, m_hdr_valid) A(m_pay_tvalid) Q(m_pay_tkeep, m_pay_tvalid)                   \
  Q(m_pay_tlast, m_pay_tvalid) Q(m_pay_tuser, m_pay_tvalid)                                 \
  A(m_ack_valid) Q(m_ack_vf, m_ack_valid) Q(m_ack_qpn, m_ack_valid)                        \
  Q(m_ack_syndrome, m_ack_valid) Q(m_ack_psn, m_ack_valid)                                  \
  A(cnp_valid) Q(cnp_vf, cnp_valid) Q(cnp_qpn, cnp_valid) A(ce_valid) Q(ce_vf, ce_valid)    \
  Q(ce_qpn, ce_valid) A(qpc_s_axil_awready) A(qpc_s_axil_wready) A(qpc_s_axil_bvalid)       \
  Q(qpc_s_axil_bresp, qpc_s_axil_bvalid) A(qpc_s_axil_arready) A(qpc_s_axil_rvalid)         \
  Q(qpc_s_axil_rdata, qpc_s_axil_rvalid) Q(qpc_s_axil_rresp, qpc_s_axil_rvalid) A(qpc_irq_o)

// One input from the row: a port of up to 32 bits takes one word, up to 64 two, wider N.
static inline void put(CData& d, const uint32_t*& p) { d = (CData)*p++; }
static inline void put(SData& d, const uint32_t*& p) { d = (SData)*p++; }
static inline void put(IData& d, const uint32_t*& p) { d = *p++; }
static inline void put(QData& d, const uint32_t*& p) {
  d = (QData)p[0] | (QData)p[1] << 32;
  p += 2;
}
template <std::size_t N>
static inline void put(VlWide<N>& d, const uint32_t*& p) {
  for (std::size_t i = 0; i < N; i++) d[i] = p[i];
  p += N;
}

static int fail(const std::string& m) {
  fprintf(stderr, "rx_cpp_harness: %s\n", m.c_str());
  return 1;
}

int main(int argc, char** argv) {
  if (argc < 3) return fail("usage: rx_cpp_harness PINFILE PASSES");
  uint64_t passes = strtoull(argv[2], nullptr, 10);
  std::ifstream in(argv[1], std::ios::binary);
  if (!in) return fail(std::string("cannot open ") + argv[1]);
  std::string magic, cyc, inputs, fold, sum, data;
  std::getline(in, magic);
  std::getline(in, cyc);
  std::getline(in, inputs);
  std::getline(in, fold);
  std::getline(in, sum);
  std::getline(in, data);
  if (magic != "rdmagen-rxsim-pins 1" || data != "data") return fail("not a pin file");
  // The file's port lists must be this harness's (names; widths are the model's).
  std::string want_in = "inputs", want_fold = "fold", got_in;
#define NAME_IN(n) want_in += " " #n;
  RX_INPUTS(NAME_IN)
#define NAME_A(n) want_fold += " " #n ":-";
#define NAME_Q(n, q) want_fold += " " #n ":" #q;
  RX_FOLD(NAME_A, NAME_Q)
  {
    std::istringstream s(inputs);
    std::string tok;
    s >> tok;
    got_in = tok;
    while (s >> tok) got_in += " " + tok.substr(0, tok.find(':'));
  }
  if (got_in != want_in) return fail("the pin file's inputs are not this harness's");
  if (fold != want_fold) return fail("the pin file's checksum outputs are not this harness's");
  uint64_t cycles = strtoull(cyc.c_str() + 7, nullptr, 10);
  uint64_t expect = strtoull(sum.c_str() + 9, nullptr, 16);
  std::vector<char> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (cycles == 0 || bytes.size() % (4 * cycles) != 0) return fail("bad data length");
  std::vector<uint32_t> rows(bytes.size() / 4);
  memcpy(rows.data(), bytes.data(), bytes.size());  // little-endian host
  const std::size_t row = rows.size() / cycles;

  std::unique_ptr<VerilatedContext> ctx(new VerilatedContext);
  ctx->traceEverOn(true);  // as the Rust shim: models are built with tracing available
  std::unique_ptr<Vrx_sim_w512> top(new Vrx_sim_w512(ctx.get(), "TOP"));
  uint64_t half = 0;
  uint64_t first = 0;
  // CPU time, as the Rust harness: other jobs on a shared machine disturb it far less.
  auto cpu = [] {
    timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
  };
  double c0 = cpu();
  auto t0 = std::chrono::steady_clock::now();
  for (uint64_t pass = 0; pass < passes; pass++) {
    uint64_t s = 0;
    for (uint64_t c = 0; c < cycles; c++) {
      const uint32_t* p = &rows[c * row];
#define PUT(n) put(top->n, p);
      RX_INPUTS(PUT)
      top->eval();
#define FOLD_A(n) s = s * 31 + (uint64_t)top->n;
#define FOLD_Q(n, q) s = s * 31 + (top->q ? (uint64_t)top->n : 0);
      if (!top->rst) {  // reset cycles are not folded (src/pins.rs)
        RX_FOLD(FOLD_A, FOLD_Q)
      }
      top->clk = 1;
      ctx->time(++half);
      top->eval();
      top->clk = 0;
      ctx->time(++half);
    }
    if (pass == 0) first = s;
    if (s != first || s != expect) {
      fprintf(stderr, "rx_cpp_harness: pass %llu checksum %016llx, file %016llx\n",
              (unsigned long long)pass, (unsigned long long)s, (unsigned long long)expect);
      return 1;
    }
  }
  double sec = cpu() - c0;
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  printf("cycles=%llu seconds=%.6f wall=%.6f checksum=%016llx\n",
         (unsigned long long)(cycles * passes), sec, wall, (unsigned long long)first);
  top->final();
  return 0;
}
