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
    // RDMAGEN_CSR_VARIANTS=a,b builds only those variants (and example_sync_p4, which the
    // harness speed benchmark uses): a quick build with a second Verilator.
    println!("cargo:rerun-if-env-changed=RDMAGEN_CSR_VARIANTS");
    let only: Option<Vec<String>> = std::env::var("RDMAGEN_CSR_VARIANTS")
        .ok()
        .filter(|v| !v.trim().is_empty())
        .map(|v| v.split(',').map(|s| s.trim().to_string()).collect());
    let wanted = |id: &str| {
        id == "example_sync_p4" || only.as_ref().is_none_or(|o| o.iter().any(|v| v == id))
    };
    let vl = rdmagen_vlbuild::Verilator::from_harness()?;
    let mut models = rdmagen_vlbuild::Models::new(vl);
    let mut table = String::from(
        "/// Map file of every model variant, for the reference model.\npub const VARIANT_MAPS: &[(&str, &str)] = &[\n",
    );
    let mut tests = String::new();
    for (id, file, reset, params) in VARIANTS.iter().filter(|v| wanted(v.0)) {
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
        tests.push_str(&format!(
            "#[test]\nfn {id}() {{\n    check::<{}>(\"{id}\", cases());\n}}\n\n",
            rdmagen_vlbind::camel(id)
        ));
    }
    // Committed regressions: one named test per case file whose variant is built.
    let reg_dir = manifest.join("regressions");
    println!("cargo:rerun-if-changed={}", reg_dir.display());
    let mut regressions = String::new();
    let mut files: Vec<PathBuf> = std::fs::read_dir(&reg_dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "case"));
    files.sort();
    for path in files {
        let name = path
            .file_stem()
            .and_then(|s| s.to_str())
            .unwrap_or_default()
            .to_string();
        let text =
            std::fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let variant = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("variant "))
            .ok_or_else(|| format!("{}: no `variant` line", path.display()))?
            .trim()
            .to_string();
        if !VARIANTS.iter().any(|v| v.0 == variant) {
            return Err(format!("{}: unknown variant `{variant}`", path.display()));
        }
        if wanted(&variant) {
            regressions.push_str(&format!(
                "#[test]\nfn {name}() {{\n    replay::<{}>(\"{name}\", include_str!({:?}));\n}}\n\n",
                rdmagen_vlbind::camel(&variant),
                path.display().to_string()
            ));
        }
    }
    table.push_str("];\n");
    models.build()?;
    // The plain C++ harness the Rust harness is benchmarked against (benches/harness_speed.rs).
    let cpp = manifest.join("benches/cpp_harness.cpp");
    println!("cargo:rerun-if-changed={}", cpp.display());
    let exe = models.cpp_program("example_sync_p4", &cpp, "cpp_harness")?;
    println!("cargo:rustc-env=RDMAGEN_CPP_HARNESS={}", exe.display());
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    std::fs::write(out.join("variants.rs"), table).map_err(|e| e.to_string())?;
    std::fs::write(out.join("csr_props.rs"), tests).map_err(|e| e.to_string())?;
    std::fs::write(out.join("regressions.rs"), regressions).map_err(|e| e.to_string())?;
    Ok(())
}
