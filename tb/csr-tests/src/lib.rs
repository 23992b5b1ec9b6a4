//! Property tests of the generated CSR blocks.
//!
//! `build.rs` verilates each test map's CSR block (both reset styles, two parameter sets) and
//! binds it with `rdmagen-vlbind`; [`bench::check`] runs random cases of writes, partial-strobe
//! writes, reads, unmapped accesses and hardware events under random bus stalls on one reused
//! model per test, comparing every response and every output port with
//! `rdmagen_refmodel::csr` in every cycle. A failure shrinks, is saved under
//! `target/tb-failures/`, replays with an FST waveform, and prints a one-line rerun command.

#![allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
pub use models::*;

include!(concat!(env!("OUT_DIR"), "/variants.rs"));

pub mod bench;
pub mod case;
