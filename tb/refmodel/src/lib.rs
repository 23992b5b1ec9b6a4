//! Pure-Rust reference models of the blocks rdmagen generates.
//!
//! The models are written from the documented behaviour (the register-map format and the
//! block specifications), not from the generators, so a generator bug shows up as a
//! disagreement. They link no Verilator: the property tests run them next to Verilated RTL,
//! and the Python bindings can use them as cocotb scoreboards.

pub mod bits;
pub mod csr;
pub mod dcqcn;
pub mod qpc;
pub mod roce;
pub mod rxqp;
pub mod uar;
