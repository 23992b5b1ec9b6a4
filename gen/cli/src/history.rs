//! `rdmagen versions`: a map's `version` checked against its whole git history.
//!
//! `rdmagen diff --check-version` compares two states of a map. Run on each commit against the
//! one before, it misses a breaking change spread over two commits, or made together with a
//! bump too small for it and then built on. This command cuts the map's history into runs of
//! commits under one version; the oldest commit of a run is where that version was set, and
//! so what it promised. The map as it is now must keep every promise: against each of those
//! commits, the changes since need the bump `diff` asks for.

use std::path::Path;
use std::process::Command;

use anyhow::{bail, Context, Result};
use rdmagen_regmap::RegMap;

/// Where one version of the map was set.
pub struct VersionStart {
    /// The commit's full hash.
    pub commit: String,
    /// The map as it was at that commit, read once by the walk.
    pub map: RegMap,
}

/// What the walk found.
pub struct History {
    /// Newest first.
    pub starts: Vec<VersionStart>,
    /// Why the walk stopped before the map's first commit, when it did.
    pub cut_short: Option<String>,
}

/// Runs git in the map's directory (so a relative or absolute path works from anywhere).
fn git(dir: &Path, args: &[&str]) -> Result<std::process::Output> {
    Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .context("cannot run git")
}

/// The short form of a commit hash, for messages.
pub fn short(commit: &str) -> &str {
    &commit[..commit.len().min(8)]
}

/// The commits of `rev` that changed `map`, cut into runs by version.
pub fn walk(map: &Path, rev: &str) -> Result<History> {
    let dir = match map.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let file = map
        .file_name()
        .with_context(|| format!("{} is not a file", map.display()))?
        .to_string_lossy()
        .into_owned();
    let inside = git(dir, &["rev-parse", "--is-inside-work-tree"])?;
    if !inside.status.success() {
        bail!("{} is not in a git work tree", map.display());
    }
    let resolves = git(
        dir,
        &["rev-parse", "-q", "--verify", &format!("{rev}^{{commit}}")],
    )?;
    if !resolves.status.success() {
        if rev == "HEAD" {
            // A repository without commits yet: nothing was promised.
            return Ok(History {
                starts: Vec::new(),
                cut_short: None,
            });
        }
        bail!(
            "`{rev}` is not a commit of the repository holding {}",
            map.display()
        );
    }
    let out = git(dir, &["rev-list", rev, "--", &file])?;
    if !out.status.success() {
        bail!(
            "`git rev-list {rev} -- {file}` in {} failed: {}",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    let commits = String::from_utf8_lossy(&out.stdout).into_owned();
    let shallow = git(dir, &["rev-parse", "--is-shallow-repository"])?;
    let shallow = String::from_utf8_lossy(&shallow.stdout).trim() == "true";

    let mut starts: Vec<VersionStart> = Vec::new();
    let mut cut_short = None;
    for commit in commits.lines() {
        // `./` makes the path relative to the directory git runs in.
        let show = git(dir, &["show", &format!("{commit}:./{file}")])?;
        if !show.status.success() {
            // Deleted in this commit: its history before is another map's.
            break;
        }
        let Ok(text) = String::from_utf8(show.stdout) else {
            cut_short = Some(format!("the map at {} is not UTF-8", short(commit)));
            break;
        };
        let name = format!("{}@{}", map.display(), short(commit));
        let parsed = match rdmagen_regmap::parse(&name, &text) {
            Ok(m) => m,
            Err(_) => {
                cut_short = Some(format!(
                    "the map at {} is not valid for this rdmagen (`rdmagen check` on `git show {}:{}` says why)",
                    short(commit),
                    short(commit),
                    map.display()
                ));
                break;
            }
        };
        match starts.last_mut() {
            Some(run) if run.map.version == parsed.version => {
                run.commit = commit.to_string();
                run.map = parsed;
            }
            _ => starts.push(VersionStart {
                commit: commit.to_string(),
                map: parsed,
            }),
        }
    }
    if cut_short.is_none() && shallow {
        cut_short = Some("the clone is shallow: older commits are not here".to_string());
    }
    Ok(History { starts, cut_short })
}

/// One version start checked against the map as it is now.
pub struct Verdict<'h> {
    pub start: &'h VersionStart,
    pub report: rdmagen_diff::Report,
}

impl Verdict<'_> {
    pub fn holds(&self) -> bool {
        self.report.version_error().is_none()
    }
}

/// Compares the map now with every version start.
pub fn check<'h>(history: &'h History, now: &RegMap, now_text: &str) -> Vec<Verdict<'h>> {
    history
        .starts
        .iter()
        .map(|start| Verdict {
            start,
            report: rdmagen_diff::Report::new(&start.map, now, now_text),
        })
        .collect()
}
