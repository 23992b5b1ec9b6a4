//! Verilates `rx_top` (the RX parser, the QPC and both CSR blocks) at three data widths and
//! both reset styles, from the generators: the RTL and the port bindings come from the same
//! `Module`s, at two QPC sizes.

use std::path::PathBuf;

use verilog_ast::ResetStyle;

/// (binding id, reset style, data width in bits, QPC NUM_VF, QPS_PER_VF, NUM_MKEYS)
const VARIANTS: &[(&str, ResetStyle, u32, i64, i64, i64)] = &[
    ("rx_parser_w64", ResetStyle::SyncHigh, 64, 4, 16, 16),
    // Also the model of `rdmagen sim rx-parser` (QPNs up to 0x3FF, R_Key indexes up to 4095).
    ("rx_parser_w512", ResetStyle::AsyncLow, 512, 4, 1024, 4096),
    // The widest datapath (a whole 62-byte frame and most headers in one beat).
    ("rx_parser_w1024", ResetStyle::SyncHigh, 1024, 4, 16, 16),
];

fn main() {
    if let Err(e) = run() {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
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
    let mut models = rdmagen_vlbuild::Models::new(rdmagen_vlbuild::Verilator::from_harness()?);
    for (id, reset, width, vfs, qps, mkeys) in VARIANTS {
        let opts = rdmagen_rxparser::Options {
            reset: *reset,
            generator: generator.clone(),
            width: *width,
        };
        let parser = rdmagen_rxparser::generate(&map, &opts).map_err(|e| e.to_string())?;
        let top =
            rdmagen_rxparser::generate_top(&map, &qpc_map, &opts).map_err(|e| e.to_string())?;
        let csr_opts = rdmagen_csr::Options {
            reset: *reset,
            generator: generator.clone(),
        };
        let csr = rdmagen_csr::generate(&map, &csr_opts);
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
                ("NUM_MKEYS", *mkeys),
            ],
        )
        .map_err(|e| format!("{id}: {e}"))?;
        models.add(
            binding,
            [top, parser, csr, qpc, qpc_csr]
                .iter()
                .map(|m| m.print())
                .collect::<Vec<_>>()
                .join("\n"),
        );
    }
    models.build()
}
