//! Verilates `rx_top` (RX parser + its CSR block + the QPC and its CSR block), sync-high
//! reset, QPC 4 VFs x 16 QPs and 16 memory keys (the parameters the cocotb speed bench gives
//! `rtl/rx_top.v`): at 512 bits with feature `verilated`, linking the plain C++ harness
//! (`benches/cpp_harness.cpp`) against it; at 64 and 1024 bits too with feature `widths`.
//! Without either feature nothing is built.

use std::path::PathBuf;

use verilog_ast::ResetStyle;

/// (binding id, data width in bits, needs feature `widths`)
const VARIANTS: &[(&str, u32, bool)] = &[
    ("rx_sim_w64", 64, true),
    ("rx_sim_w512", 512, false),
    ("rx_sim_w1024", 1024, true),
];
/// QPC parameters of every variant (small: the QPC clears its tables in 72 cycles).
const QPC_PARAMS: [(&str, i64); 3] = [("NUM_VF", 4), ("QPS_PER_VF", 16), ("NUM_MKEYS", 16)];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let feature = |f: &str| std::env::var_os(format!("CARGO_FEATURE_{f}")).is_some();
    if !feature("VERILATED") {
        return Ok(());
    }
    let widths = feature("WIDTHS");
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let load = |name: &str| {
        let path = manifest.join("../../register-maps").join(name);
        println!("cargo:rerun-if-changed={}", path.display());
        rdmagen_regmap::load(&path).map_err(|e| match e {
            rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
            other => other.to_string(),
        })
    };
    let map = load("rx_parser.yaml")?;
    let qpc_map = load("qpc.yaml")?;
    let generator = format!("rdmagen {}", env!("CARGO_PKG_VERSION"));
    let reset = ResetStyle::SyncHigh;
    let mut models = rdmagen_vlbuild::Models::new(rdmagen_vlbuild::Verilator::from_harness()?);
    for (id, width, _) in VARIANTS.iter().filter(|v| widths || !v.2) {
        let opts = rdmagen_rxparser::Options {
            reset,
            generator: generator.clone(),
            width: *width,
        };
        let parser = rdmagen_rxparser::generate(&map, &opts).map_err(|e| e.to_string())?;
        let top =
            rdmagen_rxparser::generate_top(&map, &qpc_map, &opts).map_err(|e| e.to_string())?;
        let csr_opts = rdmagen_csr::Options {
            reset,
            generator: generator.clone(),
        };
        let csr = rdmagen_csr::generate(&map, &csr_opts);
        let qpc = rdmagen_qpc::generate(
            &qpc_map,
            &rdmagen_qpc::Options {
                reset,
                generator: generator.clone(),
            },
        )
        .map_err(|e| e.to_string())?;
        let qpc_csr = rdmagen_csr::generate(&qpc_map, &csr_opts);
        let binding =
            rdmagen_vlbind::bind(&top, id, &QPC_PARAMS).map_err(|e| format!("{id}: {e}"))?;
        models.add(
            binding,
            [top, parser, csr, qpc, qpc_csr]
                .iter()
                .map(|m| m.print())
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    models.build()?;
    // The plain C++ harness the Rust harness is measured against (benches/rx_speed.rs).
    let cpp = manifest.join("benches/cpp_harness.cpp");
    println!("cargo:rerun-if-changed={}", cpp.display());
    let exe = models.cpp_program("rx_sim_w512", &cpp, "rx_cpp_harness")?;
    println!("cargo:rustc-env=RDMAGEN_RX_CPP_HARNESS={}", exe.display());
    Ok(())
}
