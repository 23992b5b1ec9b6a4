//! The command line's contract: exit codes, all-or-nothing output, diagnostics on stderr.

use std::path::{Path, PathBuf};
use std::process::Command;

fn rdmagen() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rdmagen"))
}

/// A fresh directory of this test alone, removed when dropped: tests run in any order, in
/// parallel, or split across CI runners, and never see each other's files.
fn scratch(name: &str) -> tempfile::TempDir {
    // Cargo creates the directory when it builds the test, but a clean-up may have removed it.
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    tempfile::Builder::new()
        .prefix(&format!("{name}-"))
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap()
}

const MAPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps");
const BAD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../regmap/tests/bad");

#[test]
fn check_accepts_every_committed_map() {
    let maps: Vec<PathBuf> = std::fs::read_dir(MAPS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    assert!(maps.len() >= 6);
    let out = rdmagen().arg("check").args(&maps).output().unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn check_rejects_a_bad_map_with_exit_1_and_positions() {
    let out = rdmagen()
        .args(["check", "--format", "short"])
        .arg(format!("{BAD}/44_multi_register_errors.yaml"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    // Every problem, each on its own line with file:line:col and a code.
    assert_eq!(
        err.lines()
            .filter(|l| l.contains(": error[regmap::"))
            .count(),
        5,
        "{err}"
    );
    assert!(
        err.contains("44_multi_register_errors.yaml:9:34: error[regmap::field_overlap]"),
        "{err}"
    );
}

#[test]
fn one_bad_map_means_no_output_at_all() {
    let scratch = scratch("no-partial-output");
    let dir = scratch.path();
    let out = rdmagen()
        .arg("csr")
        .arg(format!("{MAPS}/example.yaml"))
        .arg(format!("{BAD}/15_field_overlap.yaml"))
        .arg("-o")
        .arg(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        0,
        "files were written"
    );
}

#[test]
fn every_bad_map_fails_without_panicking() {
    for entry in std::fs::read_dir(BAD).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let out = rdmagen().arg("check").arg(&path).output().unwrap();
        assert_eq!(out.status.code(), Some(1), "{}", path.display());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!err.contains("panicked"), "{}: {err}", path.display());
    }
}

#[test]
fn missing_file_is_an_io_error_with_exit_2() {
    let out = rdmagen()
        .args(["check", "no/such/map.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/map.yaml"));
}

#[test]
fn csr_output_does_not_grow_with_the_array_count() {
    // The same map with NUM_VF up to 32 and up to 256: the module differs only in the
    // parameter's documented range, window size and address bits, never in length. Up to 4
    // (16 or fewer elements) the array's reads take no fetch stage: a few lines fewer.
    let scratch = scratch("array-size");
    let dir = scratch.path();
    let text = |max: u32| {
        format!(
            "block: growth\nversion: 1.0.0\nparameters:\n  - {{ name: NUM_VF, default: 4, min: 1, max: {max} }}\n\
             registers:\n  - name: ctrl\n    offset: 0x0\n    fields: [{{ name: enable, bits: 0, access: rw }}]\n\
             \x20 - name: vf\n    offset: 0x4000\n    array: {{ count: NUM_VF, stride: 0x10 }}\n    registers:\n\
             \x20     - name: cfg\n        offset: 0x0\n        fields: [{{ name: enable, bits: 0, access: rw }}]\n"
        )
    };
    let mut lines = Vec::new();
    let mut fetches = Vec::new();
    for max in [4u32, 32, 256] {
        let map = dir.join(format!("growth{max}.yaml"));
        std::fs::write(&map, text(max)).unwrap();
        let out_dir = dir.join(format!("out{max}"));
        let out = rdmagen()
            .arg("csr")
            .arg(&map)
            .arg("-o")
            .arg(&out_dir)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v = std::fs::read_to_string(out_dir.join("growth_csr.v")).unwrap();
        assert!(v.contains("for (i = 0; i < NUM_VF; i = i + 1) begin : g_vf"));
        lines.push(v.lines().count());
        fetches.push(v.contains("vf_rd_word_q"));
    }
    assert_eq!(lines[1], lines[2]);
    assert_eq!(fetches, [false, true, true]);
}

#[test]
fn all_writes_every_output_and_removes_stale_pictures() {
    let scratch = scratch("all-outputs");
    let dir = scratch.path();
    let run = || {
        rdmagen()
            .arg("all")
            .arg(format!("{MAPS}/example.yaml"))
            .arg("--rtl")
            .arg(dir.join("rtl"))
            .arg("--include")
            .arg(dir.join("include"))
            .arg("--docs")
            .arg(dir.join("docs"))
            .arg("--export")
            .arg(dir.join("export"))
            .output()
            .unwrap()
    };
    // A picture of a register the map no longer has must go; other files stay.
    std::fs::create_dir_all(dir.join("docs/example")).unwrap();
    std::fs::write(dir.join("docs/example/renamed.svg"), "<svg/>").unwrap();
    std::fs::write(dir.join("docs/example/notes.txt"), "kept").unwrap();
    let out = run();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "rtl/example_csr.v",
        "include/example.h",
        "docs/example.md",
        "docs/example/ctrl.svg",
        "docs/example/port_cfg.svg",
        "export/example.rdl",
        "export/example.json",
    ] {
        assert!(dir.join(file).is_file(), "{file} missing");
    }
    assert!(!dir.join("docs/example/renamed.svg").exists());
    assert!(dir.join("docs/example/notes.txt").exists());
    // Same bytes as the committed header, which `make rtl` writes from the same map, except
    // the source name: an absolute path is written as the bare file name, never in full.
    let committed = Path::new(MAPS).join("../sw/include/example.h");
    let header = std::fs::read_to_string(dir.join("include/example.h")).unwrap();
    let expected = std::fs::read_to_string(committed)
        .unwrap()
        .replace("register-maps/example.yaml", "example.yaml");
    assert_eq!(header, expected);
    // A second run changes nothing (write-if-changed leaves modification times alone).
    let before = std::fs::metadata(dir.join("export/example.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert!(run().status.success());
    let after = std::fs::metadata(dir.join("export/example.json"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after);
}

#[test]
fn all_puts_every_output_under_out_and_nothing_elsewhere() {
    let scratch = scratch("all-out");
    let root = scratch.path().join("root");
    let cwd = scratch.path().join("cwd");
    std::fs::create_dir_all(&cwd).unwrap();
    // One directory given by hand; the other three follow --out.
    let out = rdmagen()
        .current_dir(&cwd)
        .arg("all")
        .arg(format!("{MAPS}/example.yaml"))
        .arg("--out")
        .arg(&root)
        .arg("--include")
        .arg(scratch.path().join("headers"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for file in [
        "root/rtl/example_csr.v",
        "headers/example.h",
        "root/docs/regs/example.md",
        "root/export/example.rdl",
        "root/export/example.json",
    ] {
        assert!(scratch.path().join(file).is_file(), "{file} missing");
    }
    assert!(!root.join("sw").exists(), "--include was given: no OUT/sw");
    let stray: Vec<_> = std::fs::read_dir(&cwd).unwrap().collect();
    assert!(
        stray.is_empty(),
        "wrote into the working directory: {stray:?}"
    );
    // `-o`, as every other generating command takes it.
    let short = scratch.path().join("short");
    let out = rdmagen()
        .current_dir(&cwd)
        .args(["all", &format!("{MAPS}/example.yaml"), "-o"])
        .arg(&short)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(short.join("rtl/example_csr.v").is_file());
}

#[test]
fn all_with_one_bad_map_writes_nothing() {
    let scratch = scratch("all-no-partial-output");
    let dir = scratch.path();
    let out = rdmagen()
        .arg("all")
        .arg(format!("{MAPS}/example.yaml"))
        .arg(format!("{BAD}/15_field_overlap.yaml"))
        .arg("--rtl")
        .arg(dir.join("rtl"))
        .arg("--include")
        .arg(dir.join("include"))
        .arg("--docs")
        .arg(dir.join("docs"))
        .arg("--export")
        .arg(dir.join("export"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        std::fs::read_dir(dir).unwrap().count(),
        0,
        "files were written"
    );
}

#[test]
fn header_name_clash_fails_with_exit_1_and_writes_nothing() {
    let scratch = scratch("header-clash");
    let dir = scratch.path();
    let map = dir.join("clash.yaml");
    std::fs::write(
        &map,
        "block: clash\nversion: 1.0.0\nregisters:\n\
         \x20 - name: port_cfg\n    offset: 0x0\n    fields: [{ name: a, bits: 0, access: rw }]\n\
         \x20 - name: port\n    offset: 0x10\n    array: { count: 2, stride: 0x4 }\n    registers:\n\
         \x20     - name: cfg\n        offset: 0x0\n        fields: [{ name: b, bits: 0, access: rw }]\n",
    )
    .unwrap();
    let out = rdmagen()
        .arg("header")
        .arg(&map)
        .arg("-o")
        .arg(dir.join("include"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("CLASH_PORT_CFG"), "{err}");
    assert!(!dir.join("include").exists());
}

/// Outputs are written to temporary files as they are generated and renamed into place only
/// when every map's outputs exist: the second map's header failing to stage (a directory
/// where its temporary file goes), after the first map's files were staged, leaves the old
/// files as they were and no temporary file behind. (A header name clash, which this test
/// used, is now refused by validation before anything is generated.)
#[test]
fn all_with_a_late_failure_keeps_old_files_and_leaves_no_temporaries() {
    let scratch = scratch("all-late");
    let dir = scratch.path();
    let map = dir.join("second.yaml");
    std::fs::write(
        &map,
        "block: second\nversion: 1.0.0\nregisters:\n\
         \x20 - name: cfg\n    offset: 0x0\n    fields: [{ name: a, bits: 0, access: rw }]\n",
    )
    .unwrap();
    let old = dir.join("out/rtl/example_csr.v");
    std::fs::create_dir_all(old.parent().unwrap()).unwrap();
    std::fs::write(&old, "// an earlier run\n").unwrap();
    std::fs::create_dir_all(dir.join("out/include/second.h.tmp")).unwrap();
    let out = rdmagen()
        .arg("all")
        .arg(format!("{MAPS}/example.yaml"))
        .arg(&map)
        .arg("--rtl")
        .arg(dir.join("out/rtl"))
        .arg("--include")
        .arg(dir.join("out/include"))
        .arg("--docs")
        .arg(dir.join("out/docs"))
        .arg("--export")
        .arg(dir.join("out/export"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("second.h"),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(&old).unwrap(),
        "// an earlier run\n"
    );
    let mut files = Vec::new();
    let mut dirs = vec![dir.join("out")];
    while let Some(d) = dirs.pop() {
        for entry in std::fs::read_dir(d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else {
                files.push(path);
            }
        }
    }
    assert_eq!(files, vec![old], "files were left behind");
}

/// Two maps of one block would overwrite each other's outputs: refused before generating.
#[test]
fn all_refuses_two_maps_of_one_block() {
    let scratch = scratch("all-same-block");
    let dir = scratch.path();
    let copy = dir.join("copy.yaml");
    std::fs::copy(format!("{MAPS}/example.yaml"), &copy).unwrap();
    let out = rdmagen()
        .arg("all")
        .arg(format!("{MAPS}/example.yaml"))
        .arg(&copy)
        .arg("--rtl")
        .arg(dir.join("rtl"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("both describe block `example`"), "{err}");
    assert!(!dir.join("rtl").exists());
}

/// `rdmagen sim <block>` runs `rdmagen-sim-<block>`. A known block whose simulator is not built
/// is a usage error that says how to build it; an unknown block (a user's `sim rx`) one that
/// lists the blocks, not a `cargo build` command for a binary that does not exist.
#[test]
fn sim_without_a_simulator_says_how_to_build_it() {
    // A copy of rdmagen alone in a directory, with no PATH: no simulator beside it or elsewhere.
    let dir = scratch("sim-alone");
    let exe = dir.path().join("rdmagen");
    std::fs::copy(env!("CARGO_BIN_EXE_rdmagen"), &exe).unwrap();
    let run = |block: &str| {
        // A test on another thread that forks while the copy's file is open for writing holds
        // it open in its child until that child's exec: running the copy then fails with
        // ETXTBSY (26 on Linux) for a moment. Retry that, nothing else.
        let mut tries = 0;
        let out = loop {
            match Command::new(&exe)
                .args(["sim", block, "--out", "x.csv"])
                .env("PATH", "")
                .output()
            {
                Err(e) if e.raw_os_error() == Some(26) && tries < 100 => {
                    tries += 1;
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                other => break other.unwrap(),
            }
        };
        assert_eq!(out.status.code(), Some(2), "{block}");
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let err = run("uar");
    assert!(err.contains("cargo build --bin rdmagen-sim-uar"), "{err}");
    assert!(
        err.contains(&format!("beside this rdmagen ({})", dir.path().display())),
        "{err}"
    );
    let err = run("rx");
    assert!(
        err.contains("the blocks are dcqcn, uar, rx-parser"),
        "{err}"
    );
    assert!(!err.contains("cargo build"), "{err}");
}

/// `rx-parser` refuses an unsupported width and a map without the parser's registers with
/// a message and exit code 1, writing nothing.
#[test]
fn rx_parser_refuses_bad_width_and_wrong_map() {
    let dir = scratch("rx-parser");
    let out_dir = dir.path().join("rtl");
    for (map, extra) in [
        ("rx_parser.yaml", vec!["--width", "100"]),
        ("qpc.yaml", vec![]),
    ] {
        let out = rdmagen()
            .arg("rx-parser")
            .arg(Path::new(MAPS).join(map))
            .arg("-o")
            .arg(&out_dir)
            .args(&extra)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{map}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.starts_with("error: "), "{err}");
        assert!(!out_dir.exists(), "{map}: wrote output");
    }
    let ok = rdmagen()
        .arg("rx-parser")
        .arg(Path::new(MAPS).join("rx_parser.yaml"))
        .arg("-o")
        .arg(&out_dir)
        .args(["--width", "64"])
        .output()
        .unwrap();
    assert_eq!(ok.status.code(), Some(0));
    let v = std::fs::read_to_string(out_dir.join("rx_parser.v")).unwrap();
    assert!(v.contains("input  wire [63:0]"), "64-bit tdata");
}

/// An output directory that is a file is named as such, for the map outputs and the block
/// generators alike, and the file is left as it was (it was "File exists (os error 17)", or
/// "cannot write FILE/example.h.tmp").
#[test]
fn an_output_directory_that_is_a_file_is_an_error() {
    let dir = scratch("out-is-a-file");
    let file = dir.path().join("notes.txt");
    std::fs::write(&file, "mine").unwrap();
    for args in [
        vec!["header", "example.yaml"],
        vec!["all", "example.yaml"],
        vec!["csr", "example.yaml"],
        vec!["qpc", "qpc.yaml"],
    ] {
        let out = rdmagen()
            .arg(args[0])
            .arg(format!("{MAPS}/{}", args[1]))
            .arg("-o")
            .arg(&file)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains(&format!("output directory {} is a file", file.display())),
            "{args:?}: {err}"
        );
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine");
    }
}

#[test]
fn the_closing_line_says_nothing_was_generated_only_where_something_would_be() {
    let bad = format!("{BAD}/44_multi_register_errors.yaml");
    let check = rdmagen()
        .args(["check", &bad])
        .output()
        .expect("rdmagen check");
    let err = String::from_utf8_lossy(&check.stderr);
    assert_eq!(check.status.code(), Some(1));
    assert!(err.ends_with("error: 5 problems found\n"), "{err}");
    let out = scratch("nothing-generated");
    let csr = rdmagen()
        .args(["csr", &bad, "-o"])
        .arg(out.path())
        .output()
        .expect("rdmagen csr");
    let err = String::from_utf8_lossy(&csr.stderr);
    assert_eq!(csr.status.code(), Some(1));
    assert!(
        err.ends_with("error: 5 problems found; nothing was generated\n"),
        "{err}"
    );
}
