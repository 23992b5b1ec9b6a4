//! Verilates the RX parser (with its CSR block) at two data widths and both reset styles,
//! from the generators: the RTL and the port bindings come from the same `Module`s.

use std::path::PathBuf;

use verilog_ast::ResetStyle;

/// (binding id, reset style, data width in bits)
const VARIANTS: &[(&str, ResetStyle, u32)] = &[
    ("rx_parser_w64", ResetStyle::SyncHigh, 64),
    ("rx_parser_w512", ResetStyle::AsyncLow, 512),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let path = manifest.join("../../register-maps/rx_parser.yaml");
    println!("cargo:rerun-if-changed={}", path.display());
    let map = rdmagen_regmap::load(&path).map_err(|e| match e {
        rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
        other => other.to_string(),
    })?;
    let generator = format!("rdmagen {}", env!("CARGO_PKG_VERSION"));
    let mut models = rdmagen_vlbuild::Models::new(rdmagen_vlbuild::Verilator::from_harness()?);
    for (id, reset, width) in VARIANTS {
        let top = rdmagen_rxparser::generate(
            &map,
            &rdmagen_rxparser::Options {
                reset: *reset,
                generator: generator.clone(),
                width: *width,
            },
        )
        .map_err(|e| e.to_string())?;
        let csr = rdmagen_csr::generate(
            &map,
            &rdmagen_csr::Options {
                reset: *reset,
                generator: generator.clone(),
            },
        );
        let binding = rdmagen_vlbind::bind(&top, id, &[]).map_err(|e| format!("{id}: {e}"))?;
        models.add(binding, format!("{}\n{}", top.print(), csr.print()));
    }
    models.build()
}
