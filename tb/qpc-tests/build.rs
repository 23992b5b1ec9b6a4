//! Verilates the QPC block (with its CSR block) at two parameter sets and both reset styles,
//! from the generators: the RTL and the port bindings come from the same `Module`s.

use std::path::PathBuf;

use verilog_ast::ResetStyle;

/// (binding id, reset style, NUM_VF, QPS_PER_VF, NUM_MKEYS)
const VARIANTS: &[(&str, ResetStyle, i64, i64, i64)] = &[
    ("qpc_v4_q16", ResetStyle::SyncHigh, 4, 16, 16),
    ("qpc_v256_q64", ResetStyle::AsyncLow, 256, 64, 4096),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let path = manifest.join("../../register-maps/qpc.yaml");
    println!("cargo:rerun-if-changed={}", path.display());
    let map = rdmagen_regmap::load(&path).map_err(|e| match e {
        rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
        other => other.to_string(),
    })?;
    let generator = format!("rdmagen {}", env!("CARGO_PKG_VERSION"));
    let mut models = rdmagen_vlbuild::Models::new(rdmagen_vlbuild::Verilator::from_harness()?);
    for (id, reset, vfs, qps, mkeys) in VARIANTS {
        let top = rdmagen_qpc::generate(
            &map,
            &rdmagen_qpc::Options {
                reset: *reset,
                generator: generator.clone(),
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
        let binding = rdmagen_vlbind::bind(
            &top,
            id,
            &[
                ("NUM_VF", *vfs),
                ("QPS_PER_VF", *qps),
                ("NUM_MKEYS", *mkeys),
            ],
        )
        .map_err(|e| format!("{id}: {e}"))?;
        // One Verilog text: the block and the CSR block it instantiates.
        models.add(binding, format!("{}\n{}", top.print(), csr.print()));
    }
    models.build()
}
