//! `rdmagen diff`'s contract: exit 0 compatible, 1 breaking (or, with `--check-version`, not
//! bumped enough), 2 error; `git:REV:PATH` for the old map; the three formats.

use std::path::Path;
use std::process::{Command, Output};

const PAIRS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../diff/tests/pairs");

fn diff(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmagen"))
        .arg("diff")
        .args(args)
        .output()
        .unwrap()
}

fn pair(name: &str) -> (String, String) {
    (
        format!("{PAIRS}/{name}/old.yaml"),
        format!("{PAIRS}/{name}/new.yaml"),
    )
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn compatible_exits_0_and_breaking_exits_1() {
    let (old, new) = pair("05_field_added_in_reserved_bits");
    let out = diff(&[&old, &new]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    assert!(stdout(&out).contains("compatible   ctrl.loopback: field added in reserved bits"));

    let (old, new) = pair("13_access_w1c_to_rc");
    let out = diff(&[&old, &new]);
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stdout(&out).contains("breaking-sw  int_status.done: access type changed: w1c → rc"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn check_version_fails_only_without_the_needed_bump() {
    let (old, new) = pair("35_breaking_with_major_bump");
    let out = diff(&["--check-version", &old, &new]);
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));

    let (old, new) = pair("36_breaking_without_major_bump");
    let out = diff(&["--check-version", &old, &new]);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stderr(&out).contains("breaking changes need version 2.0.0 or later"),
        "{}",
        stderr(&out)
    );

    // A compatible change without its bump is a warning, not a failure.
    let (old, new) = pair("41_compatible_without_bump");
    let out = diff(&["--check-version", &old, &new]);
    assert_eq!(out.status.code(), Some(0));
    assert!(stderr(&out).contains("warning:"), "{}", stderr(&out));
}

#[test]
fn errors_exit_2() {
    let (old, _) = pair("01_no_change");
    let out = diff(&[&old, "no/such/map.yaml"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("no/such/map.yaml"));

    let bad = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../regmap/tests/bad/15_field_overlap.yaml"
    );
    let out = diff(&[&old, bad]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("regmap::field_overlap"));

    let out = diff(&["git:no-colon", &old]);
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("expected git:REV:PATH"));
}

#[test]
fn formats_are_json_and_sarif() {
    let (old, new) = pair("15_field_renamed");
    let json = diff(&["--format", "json", &old, &new]);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["changes"][0]["kind"], "field-renamed");
    let sarif = diff(&["--format", "sarif", &old, &new]);
    assert_eq!(sarif.status.code(), Some(1));
    let v: serde_json::Value = serde_json::from_slice(&sarif.stdout).unwrap();
    assert_eq!(v["version"], "2.1.0");
    assert_eq!(v["runs"][0]["results"][0]["ruleId"], "field-renamed");
}

fn git(dir: &Path, args: &[&str]) {
    let ok = Command::new("git")
        .args([
            "-c",
            "user.name=rdmagen test",
            "-c",
            "user.email=test@invalid",
        ])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
        .status
        .success();
    assert!(ok, "git {args:?} failed");
}

#[test]
fn old_map_from_git() {
    // Cargo creates the directory when it builds the test, but a clean-up may have removed it.
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let repo = tempfile::Builder::new()
        .prefix("diff-git-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let dir = repo.path();
    let (old, new) = pair("08_register_moved");
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    std::fs::copy(&old, dir.join("maps/nic.yaml")).unwrap();
    git(dir, &["init", "-q"]);
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", "old"]);
    std::fs::copy(&new, dir.join("maps/nic.yaml")).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_rdmagen"))
        .args(["diff", "git:HEAD:maps/nic.yaml", "maps/nic.yaml"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(stdout(&out).contains("drops: register moved: 0x10 → 0x14"));

    let out = Command::new(env!("CARGO_BIN_EXE_rdmagen"))
        .args(["diff", "git:HEAD:maps/none.yaml", "maps/nic.yaml"])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("git show HEAD:maps/none.yaml"));
}
