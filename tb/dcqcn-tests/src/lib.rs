//! Property tests of the generated DCQCN engine (`dcqcn_rp`).
//!
//! `build.rs` verilates the engine at 16, 1024 and 65,536 flows and binds it with
//! `rdmagen-vlbind`; [`bench::check`] runs random cases (CNP bursts, quiet periods, send
//! requests, CE-marked arrivals, read-backs, parameter changes between events, state clears,
//! many flows interleaved) under random input idle and response backpressure, comparing every
//! response with `rdmagen_refmodel::dcqcn::Engine` and the cycle it arrives in. A failure
//! shrinks, is saved under `target/tb-failures/`, replays with an FST waveform, and prints a
//! rerun command.

#![allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
pub use models::*;

pub mod bench;
pub mod case;
pub mod top;

/// The dcqcn map's register table (from `build.rs`).
pub mod regs {
    include!(concat!(env!("OUT_DIR"), "/regs.rs"));
}
