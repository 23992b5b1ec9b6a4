//! Verilates the CSR block of each test map, in both reset styles and at two parameter sets,
//! from the generator itself: the RTL and the port bindings come from the same `Module`.

use std::path::PathBuf;

use rdmagen_csr::{generate, Options};
use verilog_ast::ResetStyle;

/// (binding id, map file, reset style, parameter overrides)
type Variant = (
    &'static str,
    &'static str,
    ResetStyle,
    &'static [(&'static str, i64)],
);

const VARIANTS: &[Variant] = &[
    (
        "example_sync_p4",
        "example.yaml",
        ResetStyle::SyncHigh,
        &[("NUM_PORTS", 4)],
    ),
    (
        "example_async_p1",
        "example.yaml",
        ResetStyle::AsyncLow,
        &[("NUM_PORTS", 1)],
    ),
    (
        "example_async_p8",
        "example.yaml",
        ResetStyle::AsyncLow,
        &[("NUM_PORTS", 8)],
    ),
    ("qpc_sync", "qpc.yaml", ResetStyle::SyncHigh, &[]),
    ("qpc_async", "qpc.yaml", ResetStyle::AsyncLow, &[]),
    (
        "rx_parser_sync",
        "rx_parser.yaml",
        ResetStyle::SyncHigh,
        &[],
    ),
    ("dcqcn_async", "dcqcn.yaml", ResetStyle::AsyncLow, &[]),
    (
        "uar_sync_vf4",
        "uar.yaml",
        ResetStyle::SyncHigh,
        &[("NUM_VF", 4)],
    ),
    (
        "uar_mlx5_async_vf2",
        "uar-mlx5.yaml",
        ResetStyle::AsyncLow,
        &[("NUM_VF", 2)],
    ),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let maps = manifest.join("../../register-maps");
    let vl = rdmagen_vlbuild::Verilator::from_harness()?;
    let mut models = rdmagen_vlbuild::Models::new(vl);
    let mut table = String::from(
        "/// Map file of every model variant, for the reference model.\npub const VARIANT_MAPS: &[(&str, &str)] = &[\n",
    );
    for (id, file, reset, params) in VARIANTS {
        let path = maps.join(file);
        println!("cargo:rerun-if-changed={}", path.display());
        let map = rdmagen_regmap::load(&path).map_err(|e| match e {
            rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
            other => other.to_string(),
        })?;
        let module = generate(
            &map,
            &Options {
                reset: *reset,
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            },
        );
        let binding =
            rdmagen_vlbind::bind(&module, id, params).map_err(|e| format!("{id}: {e}"))?;
        models.add(binding, module.print());
        table.push_str(&format!("    (\"{id}\", \"{file}\"),\n"));
    }
    table.push_str("];\n");
    models.build()?;
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    std::fs::write(out.join("variants.rs"), table).map_err(|e| e.to_string())?;
    Ok(())
}
