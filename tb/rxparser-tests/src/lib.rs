//! Property tests of the RoCEv2 RX parser; see `tests/rxparser_props.rs` and `bench`.
#![allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
pub use models::*;
pub mod bench;
pub mod input;
pub mod sim;
