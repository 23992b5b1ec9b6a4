//! The bad-map corpus: every file in `tests/bad/` must be rejected with at least the codes its
//! first line lists (`# expect: regmap::a, regmap::b`), and the rendered diagnostics are
//! snapshot-tested so a change in wording or position is reviewed.

use std::path::Path;

fn expected_codes(text: &str) -> Vec<String> {
    let first = text.lines().next().unwrap_or_default();
    let list = first
        .strip_prefix("# expect:")
        .unwrap_or_else(|| panic!("first line must be `# expect: <codes>`, got {first:?}"));
    list.split(',').map(|c| c.trim().to_string()).collect()
}

#[test]
fn bad_maps_are_rejected_with_their_codes() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/bad");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    assert!(files.len() >= 20, "the corpus must hold at least 20 maps");
    let mut failures = Vec::new();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let text = std::fs::read_to_string(path).unwrap();
        let shown = format!("tests/bad/{name}");
        let diags = match rdmagen_regmap::parse(&shown, &text) {
            Ok(_) => {
                failures.push(format!("{name}: accepted, but it is malformed"));
                continue;
            }
            Err(d) => d,
        };
        let codes = diags.codes();
        for want in expected_codes(&text) {
            if !codes.contains(&want.as_str()) {
                failures.push(format!("{name}: expected {want}, got {codes:?}"));
            }
        }
        for d in &diags.items {
            assert!(
                d.help.is_some(),
                "{name}: diagnostic {} has no hint",
                d.code
            );
        }
        let rendered = format!("{}\n{}", diags.render_short(), diags.render(false));
        insta::with_settings!({ snapshot_path => "snapshots", prepend_module_to_snapshot => false }, {
            insta::assert_snapshot!(name.trim_end_matches(".yaml").to_string(), rendered);
        });
    }
    assert!(
        failures.is_empty(),
        "corpus failures:\n{}",
        failures.join("\n")
    );
}
