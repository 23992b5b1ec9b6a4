//! A map written on one line (megabytes of flow YAML) is shown in a human diagnostic as a clip
//! of that line around the error, with the caret under the error and the location of the
//! error in the map, not the whole line.

#[test]
fn a_long_line_is_clipped_around_the_error() {
    let mut text = String::from("{ block: big, version: 1.0.0, registers: [");
    for i in 0..20_000 {
        text.push_str(&format!(
            "{{ name: r{i}, offset: {:#x}, fields: [{{ name: a, bits: 0, access: rw }}] }}, ",
            4 * i
        ));
    }
    // The mistake, near the end of the line: an access type that does not exist.
    let bad = "{ name: last, offset: 0x20000, fields: [{ name: a, bits: 0, access: rw1c }] }";
    text.push_str(bad);
    for i in 1..100 {
        text.push_str(&format!(
            ", {{ name: tail{i}, offset: {:#x}, fields: [{{ name: b, bits: 0, access: ro }}] }}",
            0x20000 + 4 * i
        ));
    }
    text.push_str(" ] }\n");
    assert!(text.len() > 1 << 20, "{} bytes", text.len());
    let err = rdmagen_regmap::parse("big.yaml", &text).unwrap_err();
    assert_eq!(err.codes(), ["regmap::unknown_access"], "{err}");
    let at = text.find("rw1c").unwrap();

    // The one-line form names the place in the map.
    let short = err.render_short();
    assert!(
        short.starts_with(&format!("big.yaml:1:{}: ", at + 1)),
        "{short}"
    );

    let human = err.render(false);
    assert!(
        human.len() < 4000,
        "{} bytes:\n{}",
        human.len(),
        &human[..4000]
    );
    // The location is the error's column in the map, not in the clipped line.
    assert!(
        human.contains(&format!("[big.yaml:1:{}]", at + 1)),
        "{human}"
    );
    // The clipped line, cut at both ends, holds the token; the caret's underline starts
    // under it.
    let lines: Vec<&str> = human.lines().collect();
    let i = lines
        .iter()
        .position(|l| l.contains("access: rw1c"))
        .unwrap_or_else(|| panic!("no source line:\n{human}"));
    let line = lines[i];
    assert!(line.matches('…').count() == 2, "{line}");
    let token = line.find("rw1c").unwrap();
    let under = lines[i + 1];
    let underline = under
        .find('─')
        .unwrap_or_else(|| panic!("no underline:\n{human}"));
    // Columns as characters: the gutter holds box-drawing characters and the cut mark.
    let col = |s: &str, byte: usize| s[..byte].chars().count();
    assert_eq!(col(under, underline), col(line, token), "\n{line}\n{under}");
    assert!(under[underline..].starts_with("──┬─"), "{under}");
}

/// Short lines are shown as they are.
#[test]
fn short_lines_are_not_clipped() {
    let text = "block: b\nversion: 1.0.0\nregisters:\n  - { name: r, offset: 0x0, fields: [{ name: a, bits: 0, access: rw1c }] }\n";
    let err = rdmagen_regmap::parse("b.yaml", text).unwrap_err();
    let human = err.render(false);
    assert!(
        human
            .contains("  - { name: r, offset: 0x0, fields: [{ name: a, bits: 0, access: rw1c }] }"),
        "{human}"
    );
    assert!(!human.contains('…'), "{human}");
}

/// Two labels far apart on one long line: the primary is shown with its caret, the other
/// points at the cut mark on its side, and the output stays short.
#[test]
fn a_far_label_on_a_long_line_points_at_the_cut() {
    let mut text = String::from("{ block: big, version: 1.0.0, registers: [");
    for i in 0..5_000 {
        text.push_str(&format!(
            "{{ name: r{i}, offset: {:#x}, fields: [{{ name: a, bits: 0, access: rw }}] }}, ",
            4 * i
        ));
    }
    // `r3` again, far from the first `r3`.
    text.push_str(
        "{ name: r3, offset: 0x10000, fields: [{ name: a, bits: 0, access: rw }] } ] }\n",
    );
    let err = rdmagen_regmap::parse("dup.yaml", &text).unwrap_err();
    assert!(err.codes().contains(&"regmap::duplicate_name"), "{err}");
    let human = err.render(false);
    assert!(human.len() < 8000, "{} bytes", human.len());
    assert!(human.contains("first defined here"), "{human}");
    assert!(human.contains("defined again here"), "{human}");
    let at = text.rfind("r3,").unwrap();
    assert!(
        human.contains(&format!("[dup.yaml:1:{}]", at + 1)),
        "{human}"
    );
    for line in human.lines() {
        assert!(line.chars().count() < 200, "{line}");
    }
}

/// A long line far from the problem is not shown, so the problem is shown from the map as it
/// is (no copy, no cut).
#[test]
fn a_long_line_elsewhere_changes_nothing() {
    let text = format!(
        "block: b\nversion: 1.0.0\ndescription: {}\nregisters:\n  - name: r\n    offset: 0x0\n    fields:\n      - {{ name: a, bits: 0, access: rw1c }}\n",
        "x".repeat(1000)
    );
    let err = rdmagen_regmap::parse("b.yaml", &text).unwrap_err();
    let human = err.render(false);
    assert!(human.contains("[b.yaml:8:37]"), "{human}");
    assert!(!human.contains('…'), "{human}");
    assert!(!human.contains("xxx"), "{human}");
}

/// Found by tb/fuzz (`map`): a map that is not UTF-8 got a one-byte label at its first
/// invalid byte, which in the shown (lossy) text is the start of a three-byte U+FFFD, and the
/// check for long lines near the labels sliced the text inside that character and panicked.
#[test]
fn a_map_that_is_not_utf8_renders() {
    let bytes = b"block: nasty\nversion\xff\xfe\xc3(: 1.0.0\nregisters:\n  - name: ctrl\n    offset: 0x0\n    fields:\n      - { name: en, bits: 0, access: rw }\n";
    let path = std::env::temp_dir().join(format!("rdmagen-not-utf8-{}.yaml", std::process::id()));
    std::fs::write(&path, bytes).unwrap();
    let err = rdmagen_regmap::load(&path);
    std::fs::remove_file(&path).unwrap();
    let Err(rdmagen_regmap::LoadError::Invalid(err)) = err else {
        panic!("a map that is not UTF-8 loaded");
    };
    assert_eq!(err.codes(), ["regmap::yaml_syntax"]);
    let human = err.render(false);
    assert!(human.contains(":2:8"), "{human}");
    let _ = err.render(true);
    assert!(
        err.render_short().contains(":2:8: "),
        "{}",
        err.render_short()
    );
}
