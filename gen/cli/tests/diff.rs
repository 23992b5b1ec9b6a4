//! `rdmagen diff`'s contract: exit 0 compatible, 1 breaking (or, with `--check-version`, not
//! bumped enough), 2 error; `git:REV:PATH` for the old map; the three formats. And `rdmagen
//! versions`: every version a map had in git must still hold, in a scratch repository whose
//! history holds the escapes a commit-by-commit `diff --check-version` lets through.

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

/// An empty git repository with a `maps/` directory, removed when dropped.
fn scratch_repo(prefix: &str) -> tempfile::TempDir {
    // Cargo creates the directory when it builds the test, but a clean-up may have removed it.
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let repo = tempfile::Builder::new()
        .prefix(prefix)
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    std::fs::create_dir_all(repo.path().join("maps")).unwrap();
    git(repo.path(), &["init", "-q"]);
    repo
}

#[test]
fn old_map_from_git() {
    let repo = scratch_repo("diff-git-");
    let dir = repo.path();
    let (old, new) = pair("08_register_moved");
    std::fs::copy(&old, dir.join("maps/nic.yaml")).unwrap();
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

const MOVED: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../diff/tests/pairs/08_register_moved"
);

fn rdmagen(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmagen"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn both(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The pair's map with register `drops` at `offset` and the given version.
fn map(layout: &str, version: &str) -> String {
    let old = std::fs::read_to_string(format!("{MOVED}/old.yaml")).unwrap();
    let moved = std::fs::read_to_string(format!("{MOVED}/new.yaml")).unwrap();
    let base = if layout == "moved" { moved } else { old };
    let mut out = String::new();
    for line in base.lines() {
        if line.starts_with("version:") {
            out.push_str(&format!("version: {version}\n"));
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

fn write_and_commit(dir: &Path, contents: &str, message: &str) {
    std::fs::write(dir.join("maps/nic.yaml"), contents).unwrap();
    git(dir, &["add", "."]);
    git(dir, &["commit", "-q", "-m", message]);
}

#[test]
fn every_version_the_map_had_must_still_hold() {
    let repo = scratch_repo("versions-");
    let dir = repo.path();

    // Not committed yet: nothing to hold.
    std::fs::write(dir.join("maps/nic.yaml"), map("old", "1.0.0")).unwrap();
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(both(&out).contains("no commit of HEAD has this map yet"));

    write_and_commit(dir, &map("old", "1.0.0"), "1.0.0");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(both(&out).contains("1 of 1 version starts hold"));

    // A register moved (breaking) under a minor bump: 1.0.0's promise is broken.
    write_and_commit(dir, &map("moved", "1.1.0"), "move drops, 1.1.0");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(both(&out).contains("1.0.0 set in"), "{}", both(&out));
    assert!(both(&out).contains("BROKEN"));
    assert!(both(&out).contains("drops: register moved: 0x10 → 0x14"));

    // Built on with another bump: the commit-by-commit check passes, the history does not.
    write_and_commit(dir, &map("moved", "1.2.0"), "1.2.0");
    let pairwise = rdmagen(
        dir,
        &[
            "diff",
            "--check-version",
            "git:HEAD~1:maps/nic.yaml",
            "maps/nic.yaml",
        ],
    );
    assert_eq!(pairwise.status.code(), Some(0), "{}", both(&pairwise));
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(
        both(&out).contains("2 of 3 version starts hold"),
        "{}",
        both(&out)
    );

    // The major bump, still uncommitted, covers all three; absolute path from elsewhere.
    std::fs::write(dir.join("maps/nic.yaml"), map("moved", "2.0.0")).unwrap();
    let abs = dir.join("maps/nic.yaml");
    let out = rdmagen(Path::new("/"), &["versions", abs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", both(&out));
    assert!(
        both(&out).contains("3 of 3 version starts hold"),
        "{}",
        both(&out)
    );

    // Committed, then moved back without a bump: 2.0.0's own promise is broken.
    git(dir, &["commit", "-q", "-am", "2.0.0"]);
    write_and_commit(dir, &map("old", "2.0.0"), "move drops back");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", both(&out));
    assert!(both(&out).contains("2.0.0 set in"));
    assert!(
        both(&out).contains("3 of 4 version starts hold"),
        "{}",
        both(&out)
    );

    // --rev reads another revision's history: at HEAD~2 the newest start is 1.2.0.
    let out = rdmagen(dir, &["versions", "--rev", "HEAD~2", "maps/nic.yaml"]);
    assert!(both(&out).contains("1.2.0 set in"), "{}", both(&out));

    // Not a repository: an error, not a verdict.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("nic.yaml"), map("old", "1.0.0")).unwrap();
    let out = rdmagen(outside.path(), &["versions", "nic.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", both(&out));
}
