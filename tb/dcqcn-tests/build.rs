//! Verilates the DCQCN engine from the generator at three parameter sets (16, 1024 and 65,536
//! flows; both reset styles): the RTL and the port bindings come from the same `Module`.

use std::path::PathBuf;

use rdmagen_dcqcn::{generate, Options};
use verilog_ast::ResetStyle;

/// Binding id, reset style, FLOW_BITS, random cases per run.
const VARIANTS: &[(&str, ResetStyle, i64, u32)] = &[
    ("dcqcn_rp_f16", ResetStyle::SyncHigh, 4, 400),
    ("dcqcn_rp_f1k", ResetStyle::AsyncLow, 10, 200),
    ("dcqcn_rp_f64k", ResetStyle::SyncHigh, 16, 16),
];

/// `dcqcn_top` (engine, CSR block, read-back window): binding id, reset style, FLOW_BITS, random
/// cases per run.
const TOP_VARIANTS: &[(&str, ResetStyle, i64, u32)] = &[
    ("dcqcn_top_f16", ResetStyle::SyncHigh, 4, 150),
    ("dcqcn_top_f1k", ResetStyle::AsyncLow, 10, 60),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let path = manifest.join("../../register-maps/dcqcn.yaml");
    println!("cargo:rerun-if-changed={}", path.display());
    let map = rdmagen_regmap::load(&path).map_err(|e| match e {
        rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
        other => other.to_string(),
    })?;
    let vl = rdmagen_vlbuild::Verilator::from_harness()?;
    let mut models = rdmagen_vlbuild::Models::new(vl);
    let mut tests = String::new();
    for &(id, reset, flow_bits, cases) in VARIANTS {
        let module = generate(
            &map,
            &Options {
                reset,
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            },
        )?;
        let binding = rdmagen_vlbind::bind(&module, id, &[("FLOW_BITS", flow_bits)])
            .map_err(|e| format!("{id}: {e}"))?;
        models.add(binding, module.print());
        let ty = rdmagen_vlbind::camel(id);
        tests.push_str(&format!(
            "#[test]\nfn {id}() {{\n    check::<{ty}>(\"{id}\", cases({cases}));\n}}\n\n"
        ));
    }
    // The top (engine + CSR block + read-back window), with the CSR block's register table.
    let mut top_tests = String::new();
    for &(id, reset, flow_bits, cases) in TOP_VARIANTS {
        let opts = Options {
            reset,
            generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
        };
        let top = rdmagen_dcqcn::generate_top(&map, &opts)?;
        let rp = generate(&map, &opts)?;
        let csr = rdmagen_csr::generate(
            &map,
            &rdmagen_csr::Options {
                reset,
                generator: opts.generator.clone(),
            },
        );
        let binding = rdmagen_vlbind::bind(&top, id, &[("FLOW_BITS", flow_bits)])
            .map_err(|e| format!("{id}: {e}"))?;
        models.add(
            binding,
            [top, rp, csr]
                .iter()
                .map(|m| m.print())
                .collect::<Vec<_>>()
                .join("\n"),
        );
        let ty = rdmagen_vlbind::camel(id);
        top_tests.push_str(&format!(
            "#[test]\nfn {id}() {{\n    check_top::<{ty}>(\"{id}\", cases({cases}));\n}}\n\n"
        ));
    }
    let mut regs = String::from(
        "/// The dcqcn map's registers: name, byte offset, fields (name, lsb), from the map.\n\
         pub const REGS: &[(&str, u64, &[(&str, u32)])] = &[\n",
    );
    for (_, r) in map.registers() {
        let fields: Vec<String> = r
            .fields
            .iter()
            .map(|f| format!("({:?}, {})", f.name.text, f.lsb))
            .collect();
        regs.push_str(&format!(
            "    ({:?}, {:#x}, &[{}]),\n",
            r.name.text,
            r.offset,
            fields.join(", ")
        ));
    }
    regs.push_str("];\n");
    // Committed regressions: one named test per case file.
    let reg_dir = manifest.join("regressions");
    println!("cargo:rerun-if-changed={}", reg_dir.display());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&reg_dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "case"));
    files.sort();
    let mut regressions = String::new();
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
        regressions.push_str(&format!(
            "#[test]\nfn {name}() {{\n    replay::<{}>(\"{name}\", include_str!({:?}));\n}}\n\n",
            rdmagen_vlbind::camel(&variant),
            path.display().to_string()
        ));
    }
    models.build()?;
    let out = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    std::fs::write(out.join("dcqcn_props.rs"), tests).map_err(|e| e.to_string())?;
    std::fs::write(out.join("regressions.rs"), regressions).map_err(|e| e.to_string())?;
    std::fs::write(out.join("top_props.rs"), top_tests).map_err(|e| e.to_string())?;
    std::fs::write(out.join("regs.rs"), regs).map_err(|e| e.to_string())?;
    Ok(())
}
