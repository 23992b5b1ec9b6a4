//! Simulation-speed and throughput benchmarks of `rx_top` (RX parser + CSR + QPC).
//!
//! One stimulus, three simulators: [`stimulus::record`] runs the Verilated `rx_top` closed
//! loop (QPs and keys through the QPC command mailbox, parser configuration, then RoCEv2
//! frames with fixed-seed idle and verdict backpressure) and records every input port in
//! every cycle into a pin file ([`pins`]). The Rust harness (`benches/rx_speed.rs`, the
//! generated port struct), a plain C++ Verilator harness (`benches/cpp_harness.cpp`) and
//! cocotb (`sim/cocotb/speed/test_rx_speed.py`) replay that file open loop, cycle for cycle,
//! and fold the outputs into the same checksum ([`pins::FOLD`]).
//!
//! [`throughput`] measures frames and beats per cycle against frame size at 64, 512 and
//! 1024 bits with the sinks always ready, counted in simulated cycles.
//!
//! The Verilated models exist with feature `verilated` (512 bits) and `widths` (64 and 1024
//! bits too); without them this crate is the generic code and its unit tests.
#[cfg(feature = "verilated")]
#[allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
#[cfg(feature = "verilated")]
pub use models::*;

pub mod pins;
pub mod rig;
pub mod stimulus;
pub mod throughput;
