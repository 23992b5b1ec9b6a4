//! Harness speed: cycles per second of the Rust harness against a plain C++ Verilator harness
//! (`benches/cpp_harness.cpp`) driving the same model with the same stimulus, interleaved,
//! median of 5 rounds. Both print a checksum of what the block answered; they must agree.
//!
//! `cargo bench -p rdmagen-csr-tests --bench harness_speed [-- CYCLES]`

use std::process::Command;
use std::time::Instant;

use rdmagen_csr_tests::ExampleSyncP4;
use rdmagen_harness::Model;

const ADDRS: [u64; 16] = [
    0x000, 0x004, 0x008, 0x00c, 0x010, 0x014, 0x018, 0x01c, 0x020, 0x024, 0x100, 0x104, 0x110,
    0x134, 0x0f0, 0x1fc,
];

/// The same loop as the C++ harness, through the generated Rust port struct.
fn rust_round(cycles: u64) -> (f64, u64) {
    let mut dut = ExampleSyncP4::new();
    dut.reset(2);
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut sum: u64 = 0;
    let t0 = Instant::now();
    for _ in 0..cycles {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let r = x;
        let p = &dut.p;
        p.s_axil_awvalid.set((r & 1) as u8);
        p.s_axil_wvalid.set((r >> 1 & 1) as u8);
        p.s_axil_bready.set_bool(r >> 2 & 3 != 0);
        p.s_axil_arvalid.set((r >> 4 & 1) as u8);
        p.s_axil_rready.set_bool(r >> 5 & 3 != 0);
        p.s_axil_awaddr.set(ADDRS[(r >> 8 & 15) as usize] as u16);
        p.s_axil_araddr.set(ADDRS[(r >> 12 & 15) as usize] as u16);
        p.s_axil_wstrb.set((r >> 16 & 15) as u8);
        p.s_axil_wdata.set((r >> 32) as u32);
        p.int_status_rx_done_set_i.set((r >> 20 & 1) as u8);
        p.pkt_count_count_incr_i.set((r >> 21 & 1) as u8);
        p.status_fifo_level_i.set((r >> 24 & 0xff) as u8);
        p.port_link_errors_incr_i.set((r >> 40 & 0xf) as u8);
        dut.eval();
        let p = &dut.p;
        let rdata = if p.s_axil_rvalid.get() != 0 {
            u64::from(p.s_axil_rdata.get())
        } else {
            0
        };
        sum = sum
            .wrapping_mul(31)
            .wrapping_add(rdata)
            .wrapping_add(u64::from(p.s_axil_bvalid.get()) << 3)
            .wrapping_add(u64::from(p.s_axil_awready.get()) << 4)
            .wrapping_add(u64::from(p.irq_o.get()));
        dut.tick();
    }
    let s = t0.elapsed().as_secs_f64();
    sum = sum
        .wrapping_mul(31)
        .wrapping_add(u64::from(dut.p.pkt_count_count_o.get()));
    (s, sum)
}

fn cpp_round(cycles: u64) -> (f64, u64) {
    // The build script's C++ harness, unless RDMAGEN_CPP_HARNESS names a copy (scripts/bench-build.sh
    // keeps the Debian and wheel builds apart: both write the same build-script directory).
    let exe = std::env::var_os("RDMAGEN_CPP_HARNESS")
        .unwrap_or_else(|| env!("RDMAGEN_CPP_HARNESS").into());
    let out = Command::new(exe)
        .arg(cycles.to_string())
        .output()
        .expect("run the C++ harness");
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |k: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .unwrap_or_else(|| panic!("C++ harness printed `{text}`"))
            .to_string()
    };
    let s: f64 = field("seconds=").parse().expect("seconds");
    let sum = u64::from_str_radix(&field("checksum="), 16).expect("checksum");
    (s, sum)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let cycles: u64 = std::env::args()
        .skip(1)
        .find_map(|a| a.parse().ok())
        .unwrap_or(2_000_000);
    let (mut rust, mut cpp) = (Vec::new(), Vec::new());
    for round in 1..=5 {
        let (rs, rsum) = rust_round(cycles);
        let (cs, csum) = cpp_round(cycles);
        assert_eq!(rsum, csum, "the two harnesses saw different behaviour");
        let (r, c) = (cycles as f64 / rs, cycles as f64 / cs);
        println!(
            "round {round}: rust {:.3} Mcycles/s, c++ {:.3} Mcycles/s, checksum {rsum:016x}",
            r / 1e6,
            c / 1e6
        );
        rust.push(r);
        cpp.push(c);
    }
    let (r, c) = (median(rust), median(cpp));
    println!(
        "harness_speed: model example_csr (NUM_PORTS=4, Verilator {}), {cycles} cycles per round, median of 5 interleaved rounds",
        rdmagen_harness::VERILATOR_VERSION
    );
    println!(
        "rust {:.3} Mcycles/s, c++ {:.3} Mcycles/s, ratio rust/c++ = {:.3}",
        r / 1e6,
        c / 1e6,
        r / c
    );
}
