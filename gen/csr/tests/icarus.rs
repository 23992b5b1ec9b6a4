//! Runs the directed bench `sim/csr/tb_example_csr.v` under Icarus Verilog against the CSR block
//! generated from `register-maps/example.yaml`, in both reset styles. Needs `iverilog` and
//! `vvp` on PATH (`scripts/setup.sh` installs them).

use std::path::{Path, PathBuf};
use std::process::Command;

use verilog_ast::ResetStyle;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn run_bench(reset: ResetStyle, tag: &str) {
    let root = root();
    let map = rdmagen_regmap::load(&root.join("register-maps/example.yaml"))
        .expect("example map is valid");
    let opts = rdmagen_csr::Options {
        reset,
        generator: "rdmagen test".into(),
    };
    // A directory of this run alone (tests may run in parallel or in several processes); kept
    // when the bench fails so the rerun command below works, removed when it passes.
    let parent = root.join("target/sim-csr");
    std::fs::create_dir_all(&parent).unwrap();
    let out = tempfile::Builder::new()
        .prefix(&format!("{tag}-"))
        .tempdir_in(&parent)
        .unwrap()
        .keep();
    let rtl = out.join("example_csr.v");
    std::fs::write(&rtl, rdmagen_csr::generate(&map, &opts).print()).unwrap();
    let vvp = out.join("tb.vvp");
    let mut iverilog = Command::new("iverilog");
    iverilog.args(["-g2005", "-o"]).arg(&vvp);
    if reset == ResetStyle::AsyncLow {
        iverilog.arg("-DASYNC_LOW");
    }
    iverilog
        .arg(root.join("sim/csr/tb_example_csr.v"))
        .arg(&rtl);
    let status = iverilog
        .status()
        .expect("iverilog not found: run scripts/setup.sh");
    assert!(status.success(), "iverilog failed on {}", rtl.display());
    let run = Command::new("vvp")
        .arg("-n")
        .arg(&vvp)
        .output()
        .expect("vvp not found");
    let text = String::from_utf8_lossy(&run.stdout);
    print!("{text}");
    let summary = text
        .lines()
        .find(|l| l.starts_with("tb_example_csr:") && l.contains("passed"))
        .unwrap_or_else(|| panic!("bench printed no summary:\n{text}"));
    assert!(summary.ends_with(" 0 failed"), "{tag}: {summary}\nrerun: iverilog -g2005 {} -o tb.vvp sim/csr/tb_example_csr.v {} && vvp tb.vvp",
        if reset == ResetStyle::AsyncLow { "-DASYNC_LOW" } else { "" }, rtl.display());
    let passed: u32 = summary
        .split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(passed >= 70, "{tag}: only {passed} checks ran");
    let _ = std::fs::remove_dir_all(&out);
}

#[test]
fn example_csr_sync_high_reset() {
    run_bench(ResetStyle::SyncHigh, "sync-high");
}

#[test]
fn example_csr_async_low_reset() {
    run_bench(ResetStyle::AsyncLow, "async-low");
}

#[test]
fn generation_is_deterministic() {
    let root = root();
    // Relative, as users pass maps; the header must show exactly what was given.
    for entry in std::fs::read_dir("../../register-maps").unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let opts = rdmagen_csr::Options {
            reset: ResetStyle::SyncHigh,
            generator: "rdmagen test".into(),
        };
        let a = rdmagen_csr::generate(&rdmagen_regmap::load(&path).unwrap(), &opts).print();
        let b = rdmagen_csr::generate(&rdmagen_regmap::load(&path).unwrap(), &opts).print();
        assert_eq!(a, b, "{} generates differently twice", path.display());
        assert!(
            !a.contains(root.to_string_lossy().as_ref()),
            "absolute path in output"
        );
    }
}
