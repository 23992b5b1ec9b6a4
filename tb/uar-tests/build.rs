//! Verilates `<block>_top` (the UAR block, its CSR block, the QPC block and its CSR block) for
//! both UAR maps at two parameter sets and both reset styles, from the generators.

use std::path::PathBuf;

use verilog_ast::ResetStyle;

/// (binding id, map, reset style, NUM_VF, QPS_PER_VF, PAGES_PER_VF)
const VARIANTS: &[(&str, &str, ResetStyle, i64, i64, i64)] = &[
    ("uar_v4_q16", "uar.yaml", ResetStyle::SyncHigh, 4, 16, 2),
    ("uar_v256_q64", "uar.yaml", ResetStyle::AsyncLow, 256, 64, 1),
    (
        "mlx5_v4_q16",
        "uar-mlx5.yaml",
        ResetStyle::AsyncLow,
        4,
        16,
        4,
    ),
    (
        "mlx5_v256_q64",
        "uar-mlx5.yaml",
        ResetStyle::SyncHigh,
        256,
        64,
        2,
    ),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn load(manifest: &std::path::Path, name: &str) -> Result<rdmagen_regmap::RegMap, String> {
    let path = manifest.join("../../register-maps").join(name);
    println!("cargo:rerun-if-changed={}", path.display());
    rdmagen_regmap::load(&path).map_err(|e| match e {
        rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
        other => other.to_string(),
    })
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let qpc_map = load(&manifest, "qpc.yaml")?;
    let generator = format!("rdmagen {}", env!("CARGO_PKG_VERSION"));
    let mut models = rdmagen_vlbuild::Models::new(rdmagen_vlbuild::Verilator::from_harness()?);
    for (id, file, reset, vfs, qps, pages) in VARIANTS {
        let map = load(&manifest, file)?;
        let opts = rdmagen_uar::Options {
            reset: *reset,
            generator: generator.clone(),
        };
        let top = rdmagen_uar::generate_top(&map, &qpc_map, &opts).map_err(|e| e.to_string())?;
        let uar = rdmagen_uar::generate(&map, &opts).map_err(|e| e.to_string())?;
        let csr_opts = rdmagen_csr::Options {
            reset: *reset,
            generator: generator.clone(),
        };
        let uar_csr = rdmagen_csr::generate(&map, &csr_opts);
        let qpc = rdmagen_qpc::generate(
            &qpc_map,
            &rdmagen_qpc::Options {
                reset: *reset,
                generator: generator.clone(),
            },
        )
        .map_err(|e| e.to_string())?;
        let qpc_csr = rdmagen_csr::generate(&qpc_map, &csr_opts);
        let binding = rdmagen_vlbind::bind(
            &top,
            id,
            &[
                ("NUM_VF", *vfs),
                ("QPS_PER_VF", *qps),
                ("PAGES_PER_VF", *pages),
            ],
        )
        .map_err(|e| format!("{id}: {e}"))?;
        let text = [top, uar, uar_csr, qpc, qpc_csr]
            .iter()
            .map(|m| m.print())
            .collect::<Vec<_>>()
            .join("\n");
        models.add(binding, text);
    }
    models.build()
}
