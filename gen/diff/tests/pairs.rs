//! The pair corpus: every directory in `tests/pairs/` holds `old.yaml`, `new.yaml` and
//! `expect.txt`, one change (and what follows from it) per pair. `expect.txt` lists the exit
//! code of `rdmagen diff`, the exit code with `--check-version`, and every change as
//! `CLASS KIND PATH`, in report order. `RDMAGEN_BLESS=1 cargo test -p rdmagen-diff` rewrites
//! the expectations from the current output (review the git diff before committing).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use rdmagen_diff::{Class, Format, Report};

fn pairs_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/pairs")
}

fn pair_dirs() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(pairs_dir())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Loads one pair under display names relative to the corpus, so outputs do not hold absolute
/// paths.
fn report(dir: &Path) -> (Report, String) {
    let name = dir.file_name().unwrap().to_string_lossy().into_owned();
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let (old_text, new_text) = (read("old.yaml"), read("new.yaml"));
    let old = rdmagen_regmap::parse(&format!("pairs/{name}/old.yaml"), &old_text)
        .unwrap_or_else(|d| panic!("{name}/old.yaml is invalid:\n{}", d.render_short()));
    let new = rdmagen_regmap::parse(&format!("pairs/{name}/new.yaml"), &new_text)
        .unwrap_or_else(|d| panic!("{name}/new.yaml is invalid:\n{}", d.render_short()));
    (Report::new(&old, &new, &new_text), new_text)
}

/// `rdmagen diff`'s exit code without and with `--check-version` (the CLI maps these the same
/// way; gen/cli/tests checks that on a few pairs).
fn exit_codes(r: &Report) -> (u8, u8) {
    (
        u8::from(r.is_breaking()),
        u8::from(r.version_error().is_some()),
    )
}

fn expectation(r: &Report) -> String {
    let (plain, checked) = exit_codes(r);
    let mut s = format!("exit: {plain}\ncheck-version: {checked}\n");
    for c in &r.changes {
        writeln!(
            s,
            "{} {} {}",
            c.change.class.as_str(),
            c.change.kind,
            c.change.path
        )
        .unwrap();
    }
    s
}

#[test]
fn every_pair_reports_its_expected_changes_and_exit_codes() {
    let bless = std::env::var_os("RDMAGEN_BLESS").is_some();
    let dirs = pair_dirs();
    assert!(dirs.len() >= 25, "the corpus must hold at least 25 pairs");
    let mut failures = Vec::new();
    for dir in &dirs {
        let (r, _) = report(dir);
        let got = expectation(&r);
        let path = dir.join("expect.txt");
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            failures.push(format!(
                "{}:\n--- expected\n{want}--- got\n{got}",
                dir.display()
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn the_corpus_covers_every_class_and_both_exit_codes() {
    let mut classes = std::collections::BTreeSet::new();
    let mut kinds = std::collections::BTreeSet::new();
    let mut exits = std::collections::BTreeSet::new();
    for dir in pair_dirs() {
        let (r, _) = report(&dir);
        exits.insert(exit_codes(&r));
        for c in &r.changes {
            classes.insert(c.change.class);
            kinds.insert(c.change.kind);
        }
    }
    assert_eq!(classes.len(), 3, "{classes:?}");
    assert!(exits.contains(&(0, 0)) && exits.contains(&(1, 0)) && exits.contains(&(1, 1)));
    for kind in [
        "description",
        "register-added",
        "register-removed",
        "register-moved",
        "register-renamed",
        "register-width",
        "field-added",
        "field-removed",
        "field-moved",
        "field-narrowed",
        "field-widened",
        "field-renamed",
        "field-access",
        "field-reset",
        "field-enum",
        "enum-value-added",
        "enum-value-removed",
        "enum-value-changed",
        "enum-value-renamed",
        "group-stride",
        "group-count",
        "port-added",
        "port-removed",
        "port-renamed",
        "port-width",
        "module-parameter-removed",
    ] {
        assert!(kinds.contains(kind), "no pair shows {kind}");
    }
}

#[test]
fn locations_point_at_the_new_map() {
    for dir in pair_dirs() {
        let (r, text) = report(&dir);
        let lines: Vec<&str> = text.lines().collect();
        for c in &r.changes {
            let line = lines
                .get(c.line - 1)
                .unwrap_or_else(|| panic!("{}: line {} past the end", dir.display(), c.line));
            assert!(
                c.column >= 1 && c.column <= line.chars().count(),
                "{}: {}:{} outside the line",
                dir.display(),
                c.line,
                c.column
            );
            // A rename in the map points at the new name.
            let in_map = !matches!(c.change.kind, "port-renamed" | "module-renamed");
            if c.change.kind.ends_with("-renamed") && in_map {
                let at: String = line.chars().skip(c.column - 1).collect();
                let new_name = c.change.new.as_deref().unwrap().rsplit('.').next().unwrap();
                assert!(at.starts_with(new_name), "{}: {at:?}", dir.display());
            }
        }
    }
}

#[test]
fn text_output_snapshots() {
    for name in [
        "04_register_added_input_port",
        "15_field_renamed",
        "21_array_count_changed",
        "36_breaking_without_major_bump",
        "41_compatible_without_bump",
    ] {
        let (r, _) = report(&pairs_dir().join(name));
        insta::assert_snapshot!(name, r.render(Format::Text));
    }
}

#[test]
fn json_output_has_every_change_with_its_location() {
    let (r, _) = report(&pairs_dir().join("15_field_renamed"));
    let v: serde_json::Value = serde_json::from_str(&r.render(Format::Json)).unwrap();
    assert_eq!(v["old"]["version"], "1.0.0");
    assert_eq!(v["new"]["version"], "2.0.0");
    assert_eq!(v["required_bump"], "major");
    assert_eq!(v["version_ok"], true);
    let changes = v["changes"].as_array().unwrap();
    assert_eq!(changes.len(), r.changes.len());
    assert_eq!(changes[0]["class"], "breaking-sw");
    assert_eq!(changes[0]["kind"], "field-renamed");
    assert_eq!(changes[0]["path"], "ctrl.tx_en");
    assert_eq!(changes[0]["old"], "ctrl.tx_enable");
    assert_eq!(
        changes[0]["location"]["file"],
        "pairs/15_field_renamed/new.yaml"
    );
    assert!(changes[0]["location"]["line"].as_u64().unwrap() > 1);
    assert_eq!(
        v["summary"]["breaking_software"].as_u64().unwrap() as usize,
        r.count(Class::BreakingSoftware)
    );
}

/// The SARIF 2.1.0 properties a consumer requires (schema: `version`, `runs`; run: `tool` with
/// `driver.name`; result: `message.text`; and for the ones this tool sets, their types), checked
/// on every pair.
#[test]
fn sarif_output_has_the_required_shape() {
    for dir in pair_dirs() {
        let (r, _) = report(&dir);
        let v: serde_json::Value = serde_json::from_str(&r.render(Format::Sarif)).unwrap();
        let at = dir.display();
        assert_eq!(v["version"], "2.1.0", "{at}");
        assert!(
            v["$schema"].as_str().unwrap().contains("sarif-2.1.0"),
            "{at}"
        );
        let runs = v["runs"].as_array().unwrap();
        assert_eq!(runs.len(), 1, "{at}");
        let driver = &runs[0]["tool"]["driver"];
        assert!(driver["name"].is_string(), "{at}");
        let rules = driver["rules"].as_array().unwrap();
        for rule in rules {
            assert!(rule["id"].is_string(), "{at}");
            assert!(rule["shortDescription"]["text"].is_string(), "{at}");
        }
        let results = runs[0]["results"].as_array().unwrap();
        assert_eq!(results.len(), r.changes.len(), "{at}");
        for (res, c) in results.iter().zip(&r.changes) {
            assert!(res["message"]["text"].is_string(), "{at}");
            let index = res["ruleIndex"].as_u64().unwrap() as usize;
            assert_eq!(rules[index]["id"], res["ruleId"], "{at}");
            let level = res["level"].as_str().unwrap();
            assert!(
                ["none", "note", "warning", "error"].contains(&level),
                "{at}"
            );
            assert_eq!(level == "error", c.change.class.is_breaking(), "{at}");
            let loc = &res["locations"][0]["physicalLocation"];
            assert!(
                loc["artifactLocation"]["uri"]
                    .as_str()
                    .unwrap()
                    .ends_with("/new.yaml"),
                "{at}"
            );
            assert_eq!(
                loc["region"]["startLine"].as_u64().unwrap() as usize,
                c.line
            );
            assert_eq!(
                loc["region"]["startColumn"].as_u64().unwrap() as usize,
                c.column
            );
        }
    }
}

#[test]
fn output_is_deterministic() {
    for dir in pair_dirs() {
        let (a, _) = report(&dir);
        let (b, _) = report(&dir);
        for f in [Format::Text, Format::Json, Format::Sarif] {
            assert_eq!(a.render(f), b.render(f), "{}", dir.display());
        }
    }
}

#[test]
fn every_committed_map_is_unchanged_against_itself() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps");
    let mut seen = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap();
        let map = rdmagen_regmap::parse("map.yaml", &text).unwrap();
        let r = Report::new(&map, &map, &text);
        assert!(r.changes.is_empty(), "{}: {:?}", path.display(), r.changes);
        seen += 1;
    }
    assert!(seen >= 6);
}
