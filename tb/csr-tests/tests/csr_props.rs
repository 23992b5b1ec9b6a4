//! One property test per verilated variant (the list comes from `build.rs`); see
//! `rdmagen_csr_tests::bench::check`.
//!
//! `RDMAGEN_CSR_CASES` sets the number of random cases per variant (default 400);
//! `RDMAGEN_CASE=file` replays one saved case instead.

use rdmagen_csr_tests::bench::check;
use rdmagen_csr_tests::*;

fn cases() -> u32 {
    std::env::var("RDMAGEN_CSR_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400)
}

include!(concat!(env!("OUT_DIR"), "/csr_props.rs"));
