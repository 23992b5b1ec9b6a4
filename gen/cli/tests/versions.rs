//! `rdmagen versions`: every version a map had in git must still hold, in a scratch repository
//! whose history holds the escapes a commit-by-commit `diff --check-version` lets through.

use std::path::Path;
use std::process::{Command, Output};

const PAIR: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../diff/tests/pairs/08_register_moved"
);

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

fn rdmagen(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rdmagen"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// The pair's map with register `drops` at `offset` and the given version.
fn map(layout: &str, version: &str) -> String {
    let old = std::fs::read_to_string(format!("{PAIR}/old.yaml")).unwrap();
    let moved = std::fs::read_to_string(format!("{PAIR}/new.yaml")).unwrap();
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
    std::fs::create_dir_all(env!("CARGO_TARGET_TMPDIR")).unwrap();
    let repo = tempfile::Builder::new()
        .prefix("versions-")
        .tempdir_in(env!("CARGO_TARGET_TMPDIR"))
        .unwrap();
    let dir = repo.path();
    std::fs::create_dir_all(dir.join("maps")).unwrap();
    git(dir, &["init", "-q"]);

    // Not committed yet: nothing to hold.
    std::fs::write(dir.join("maps/nic.yaml"), map("old", "1.0.0")).unwrap();
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("no commit of HEAD has this map yet"));

    write_and_commit(dir, &map("old", "1.0.0"), "1.0.0");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("1 of 1 version starts hold"));

    // A register moved (breaking) under a minor bump: 1.0.0's promise is broken.
    write_and_commit(dir, &map("moved", "1.1.0"), "move drops, 1.1.0");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("1.0.0 set in"), "{}", text(&out));
    assert!(text(&out).contains("BROKEN"));
    assert!(text(&out).contains("drops: register moved: 0x10 → 0x14"));

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
    assert_eq!(pairwise.status.code(), Some(0), "{}", text(&pairwise));
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        text(&out).contains("2 of 3 version starts hold"),
        "{}",
        text(&out)
    );

    // The major bump, still uncommitted, covers all three; absolute path from elsewhere.
    std::fs::write(dir.join("maps/nic.yaml"), map("moved", "2.0.0")).unwrap();
    let abs = dir.join("maps/nic.yaml");
    let out = rdmagen(Path::new("/"), &["versions", abs.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(
        text(&out).contains("3 of 3 version starts hold"),
        "{}",
        text(&out)
    );

    // Committed, then moved back without a bump: 2.0.0's own promise is broken.
    git(dir, &["commit", "-q", "-am", "2.0.0"]);
    write_and_commit(dir, &map("old", "2.0.0"), "move drops back");
    let out = rdmagen(dir, &["versions", "maps/nic.yaml"]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(text(&out).contains("2.0.0 set in"));
    assert!(
        text(&out).contains("3 of 4 version starts hold"),
        "{}",
        text(&out)
    );

    // --rev reads another revision's history: at HEAD~2 the newest start is 1.2.0.
    let out = rdmagen(dir, &["versions", "--rev", "HEAD~2", "maps/nic.yaml"]);
    assert!(text(&out).contains("1.2.0 set in"), "{}", text(&out));

    // Not a repository: an error, not a verdict.
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("nic.yaml"), map("old", "1.0.0")).unwrap();
    let out = rdmagen(outside.path(), &["versions", "nic.yaml"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
}
