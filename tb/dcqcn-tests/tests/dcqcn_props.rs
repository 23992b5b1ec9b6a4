//! One property test per verilated variant (the list comes from `build.rs`); see
//! `rdmagen_dcqcn_tests::bench::check`.
//!
//! `RDMAGEN_DCQCN_CASES` sets the number of random cases per variant (default: per variant in
//! `build.rs`); `RDMAGEN_CASE=file` replays one saved case instead.

use rdmagen_dcqcn_tests::bench::check;
use rdmagen_dcqcn_tests::*;

fn cases(default: u32) -> u32 {
    std::env::var("RDMAGEN_DCQCN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

include!(concat!(env!("OUT_DIR"), "/dcqcn_props.rs"));
