//! A map that validates must generate: every output of every generator on it, with no panic
//! (the block generators may refuse a map that is not shaped like their block, with an error).
//! The text outputs hold no control character but line breaks and tabs (a NUL in a Verilog
//! comment made Yosys drop the rest of the line), the SVG pictures and the IP-XACT export parse
//! as XML and the JSON export as JSON. Whether the Verilog, C and SystemRDL compile (and the
//! IP-XACT imports) is `check-outputs.sh`'s job.
#![no_main]

use libfuzzer_sys::fuzz_target;
use verilog_ast::ResetStyle;

fn plain(what: &str, text: &str) {
    if let Some(c) = text
        .chars()
        .find(|&c| c.is_control() && c != '\n' && c != '\t')
    {
        panic!("{what} holds the control character U+{:04X}", c as u32);
    }
}

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
        plain("the CSR block", &rdmagen_csr::generate(&map, &csr).print());
    }
    let opts = rdmagen_outputs::Options {
        generator: generator.clone(),
    };
    if let Ok(h) = rdmagen_outputs::c_header::generate(&map, &opts) {
        plain("the C header", &h);
    }
    let doc = rdmagen_outputs::markdown::generate(&map, &opts);
    plain("the Markdown", &doc.markdown);
    for (name, svg) in &doc.pictures {
        plain(name, svg);
        if let Err(e) = roxmltree::Document::parse(svg) {
            panic!("{name} is not XML: {e}");
        }
    }
    plain(
        "the SystemRDL",
        &rdmagen_outputs::systemrdl::generate(&map, &opts),
    );
    let ipxact = rdmagen_outputs::ipxact::generate(&map, &opts);
    plain("the IP-XACT", &ipxact);
    if let Err(e) = roxmltree::Document::parse(&ipxact) {
        panic!("the IP-XACT export is not XML: {e}");
    }
    let json = rdmagen_outputs::json::generate(&map, &opts);
    if let Err(e) = serde_json::from_str::<serde_json::Value>(&json) {
        panic!("the JSON export is not JSON: {e}");
    }
    let reset = ResetStyle::SyncHigh;
    let qpc = rdmagen_qpc::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_qpc::generate(&map, &qpc) {
        plain("a block", &m.print());
    }
    let uar = rdmagen_uar::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_uar::generate(&map, &uar) {
        plain("a block", &m.print());
        if let Ok(top) = rdmagen_uar::generate_top(&map, &map, &uar) {
            plain("a top", &top.print());
        }
    }
    let dcqcn = rdmagen_dcqcn::Options {
        reset,
        generator: generator.clone(),
    };
    if let Ok(m) = rdmagen_dcqcn::generate(&map, &dcqcn) {
        plain("a block", &m.print());
        if let Ok(top) = rdmagen_dcqcn::generate_top(&map, &dcqcn) {
            plain("a top", &top.print());
        }
    }
    // The narrowest width: the most beats per header, the most edge cases per byte of map.
    let rx = rdmagen_rxparser::Options {
        reset,
        generator,
        width: 64,
    };
    if let Ok(m) = rdmagen_rxparser::generate(&map, &rx) {
        plain("a block", &m.print());
        if let Ok(top) = rdmagen_rxparser::generate_top(&map, &map, &rx) {
            plain("a top", &top.print());
        }
    }
    // A map against itself: no changes, and nothing breaking.
    let text = String::from_utf8_lossy(data);
    let same = rdmagen_diff::Report::new(&map, &map, &text);
    assert!(!same.is_breaking(), "a map differs from itself");
});
