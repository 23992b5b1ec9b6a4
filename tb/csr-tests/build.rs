//! Verilates the CSR block of each test map, in both reset styles and at two parameter sets,
//! from the generator itself: the RTL and the port bindings come from the same `Module`.

use std::path::PathBuf;

use rdmagen_csr::{generate, Options};
use verilog_ast::ResetStyle;

/// One line of `variants.txt`.
struct Variant {
    id: String,
    map: String,
    reset: ResetStyle,
    params: Vec<(String, i64)>,
}

fn variants(text: &str) -> Result<Vec<Variant>, String> {
    let mut out = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let err = |what: &str| format!("variants.txt:{}: {what}", n + 1);
        let mut words = line.split_whitespace();
        let (Some(id), Some(map), Some(reset)) = (words.next(), words.next(), words.next()) else {
            return Err(err("expected `id map reset [NAME=VALUE...]`"));
        };
        let reset = match reset {
            "sync-high" => ResetStyle::SyncHigh,
            "async-low" => ResetStyle::AsyncLow,
            _ => return Err(err("reset is sync-high or async-low")),
        };
        let params = words
            .map(|w| {
                let (k, v) = w
                    .split_once('=')
                    .ok_or_else(|| err("expected NAME=VALUE"))?;
                Ok((k.to_string(), v.parse().map_err(|_| err("bad value"))?))
            })
            .collect::<Result<_, String>>()?;
        out.push(Variant {
            id: id.to_string(),
            map: map.to_string(),
            reset,
            params,
        });
    }
    Ok(out)
}

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
    let list = manifest.join("variants.txt");
    println!("cargo:rerun-if-changed={}", list.display());
    let all =
        variants(&std::fs::read_to_string(&list).map_err(|e| format!("{}: {e}", list.display()))?)?;
    let vl = rdmagen_vlbuild::Verilator::from_harness()?;
    let mut models = rdmagen_vlbuild::Models::new(vl);
    let mut table = String::from(
        "/// Map file of every model variant (its path, resolved here), for the reference model.\npub const VARIANT_MAPS: &[(&str, &str)] = &[\n",
    );
    let mut tests = String::new();
    for v in all.iter().filter(|v| wanted(&v.id)) {
        let (id, file) = (&v.id, &v.map);
        let params: Vec<(&str, i64)> = v.params.iter().map(|(k, x)| (k.as_str(), *x)).collect();
        // A bare name is a map of register-maps/; a path is a test-only map under this crate.
        let path = if file.contains('/') {
            manifest.join(file)
        } else {
            maps.join(file)
        };
        println!("cargo:rerun-if-changed={}", path.display());
        let map = rdmagen_regmap::load(&path).map_err(|e| match e {
            rdmagen_regmap::LoadError::Invalid(d) => d.render(false),
            other => other.to_string(),
        })?;
        let module = generate(
            &map,
            &Options {
                reset: v.reset,
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            },
        );
        let binding =
            rdmagen_vlbind::bind(&module, id, &params).map_err(|e| format!("{id}: {e}"))?;
        models.add(binding, module.print());
        table.push_str(&format!(
            "    ({id:?}, {:?}),\n",
            path.display().to_string()
        ));
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
        if !all.iter().any(|v| v.id == variant) {
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
    // tests/wide_counters.rs drives these two variants by name: it is compiled only when both
    // are built (RDMAGEN_CSR_VARIANTS may leave them out).
    println!("cargo:rustc-check-cfg=cfg(wide_counters_built)");
    if wanted("wide_counters_sync") && wanted("wide_counters_async") {
        println!("cargo:rustc-cfg=wide_counters_built");
    }
    // tests/read_strobe.rs drives these by name: compiled only when they are built.
    println!("cargo:rustc-check-cfg=cfg(read_strobe_built)");
    if [
        "emac_review_sync",
        "emac_review_async",
        "many_registers_async",
    ]
    .iter()
    .all(|v| wanted(v))
    {
        println!("cargo:rustc-cfg=read_strobe_built");
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
