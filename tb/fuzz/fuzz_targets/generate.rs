//! A map that validates must generate: every output of every generator on it, with no panic
//! (the block generators may refuse a map that is not shaped like their block, with an error).
#![no_main]

use libfuzzer_sys::fuzz_target;
use verilog_ast::ResetStyle;

fuzz_target!(|data: &[u8]| {
    let Ok(map) = rdmagen_regmap::fuzz::parse_bytes(data, true) else {
        return;
    };
    let generator = "rdmagen fuzz".to_string();
    for reset in [ResetStyle::SyncHigh, ResetStyle::AsyncLow] {
        let csr = rdmagen_csr::Options {
            reset,
            generator: generator.clone(),
        };
        let _ = rdmagen_csr::generate(&map, &csr).print();
    }
    let opts = rdmagen_outputs::Options {
        generator: generator.clone(),
    };
    let _ = rdmagen_outputs::c_header::generate(&map, &opts);
    let _ = rdmagen_outputs::markdown::generate(&map, &opts);
    let _ = rdmagen_outputs::systemrdl::generate(&map, &opts);
    let _ = rdmagen_outputs::json::generate(&map, &opts);
    let reset = ResetStyle::SyncHigh;
    let qpc = rdmagen_qpc::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_qpc::generate(&map, &qpc) {
        let _ = m.print();
    }
    let uar = rdmagen_uar::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_uar::generate(&map, &uar) {
        let _ = m.print();
        if let Ok(top) = rdmagen_uar::generate_top(&map, &map, &uar) {
            let _ = top.print();
        }
    }
    let dcqcn = rdmagen_dcqcn::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_dcqcn::generate(&map, &dcqcn) {
        let _ = m.print();
        if let Ok(top) = rdmagen_dcqcn::generate_top(&map, &dcqcn) {
            let _ = top.print();
        }
    }
    // The narrowest width: the most beats per header, the most edge cases per byte of map.
    let rx = rdmagen_rxparser::Options {
        reset,
        generator,
        width: 64,
    };
    if let Ok(m) = rdmagen_rxparser::generate(&map, &rx) {
        let _ = m.print();
        if let Ok(top) = rdmagen_rxparser::generate_top(&map, &map, &rx) {
            let _ = top.print();
        }
    }
    // A map against itself: no changes, and nothing breaking.
    let text = String::from_utf8_lossy(data);
    let same = rdmagen_diff::Report::new(&map, &map, &text);
    assert!(!same.is_breaking(), "a map differs from itself");
});
