//! Property and timing tests of the UAR block with the QPC; see `tests/` and `bench`.
#![allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
pub use models::*;

pub mod bench;
pub mod sim;
pub mod trace;
