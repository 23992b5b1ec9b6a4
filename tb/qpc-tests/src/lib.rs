//! Property tests of the QPC block; see `tests/qpc_props.rs` and `bench`.
#![allow(clippy::all, unused_unsafe)]
mod models {
    include!(concat!(env!("OUT_DIR"), "/models.rs"));
}
pub use models::*;

pub mod bench;
