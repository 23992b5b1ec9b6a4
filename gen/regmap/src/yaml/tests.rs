//! The reader against the previous one (marked-yaml over yaml-rust2): same tree, same positions,
//! on every map in the repository, the benchmark maps and random documents of the subset; and
//! no panic on any input.

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::{load, Arenas, Node};

/// A tree with byte positions, the common form of both readers' output.
#[derive(Debug, PartialEq, Eq)]
enum T {
    S(String, usize),
    M(usize, Vec<(String, usize, T)>),
    Q(usize, Vec<T>),
}

fn ours(n: &Node<'_>) -> T {
    match n {
        Node::Scalar(s) => T::S(s.text.to_string(), s.at()),
        Node::Mapping(m) => T::M(
            m.at(),
            m.entries
                .iter()
                .map(|(k, v)| (k.text.to_string(), k.at(), ours(v)))
                .collect(),
        ),
        Node::Sequence(_) => T::Q(
            n.at(),
            n.as_sequence()
                .unwrap_or_default()
                .iter()
                .map(ours)
                .collect(),
        ),
    }
}

fn theirs(n: &marked_yaml::Node, bytes: &[usize]) -> T {
    // yaml-rust2 can place a node past the end of the text (`old_reader_position_bug`): such
    // a position is compared only on ASCII texts, where it does not happen.
    let at = |span: &marked_yaml::Span| {
        let character = span.start().expect("marked").character();
        bytes.get(character).copied().unwrap_or(usize::MAX)
    };
    match n {
        marked_yaml::Node::Scalar(s) => T::S(s.as_str().to_string(), at(s.span())),
        marked_yaml::Node::Mapping(m) => T::M(
            at(m.span()),
            m.iter()
                .map(|(k, v)| (k.as_str().to_string(), at(k.span()), theirs(v, bytes)))
                .collect(),
        ),
        marked_yaml::Node::Sequence(s) => {
            T::Q(at(s.span()), s.iter().map(|v| theirs(v, bytes)).collect())
        }
    }
}

/// The previous reader's tree, or `None` where it rejects the text (or panics).
fn reference(text: &str) -> Option<T> {
    let options = marked_yaml::LoaderOptions::default().error_on_duplicate_keys(true);
    let mut bytes: Vec<usize> = text.char_indices().map(|(b, _)| b).collect();
    bytes.push(text.len());
    let parsed =
        std::panic::catch_unwind(|| marked_yaml::parse_yaml_with_options(0, text, options))
            .ok()?
            .ok()?;
    Some(theirs(&parsed, &bytes))
}

/// The tree with every position set to 0.
fn unplaced(t: T) -> T {
    match t {
        T::S(s, _) => T::S(s, 0),
        T::M(_, e) => T::M(
            0,
            e.into_iter().map(|(k, _, v)| (k, 0, unplaced(v))).collect(),
        ),
        T::Q(_, i) => T::Q(0, i.into_iter().map(unplaced).collect()),
    }
}

fn ours_of(text: &str) -> Result<T, super::YamlError> {
    load(text, &mut Arenas::default()).map(|m| ours(&Node::Mapping(m)))
}

/// The first place where two trees differ, as a path.
fn first_difference(a: &T, b: &T, path: &str) -> String {
    match (a, b) {
        (T::M(x, ea), T::M(y, eb)) => {
            if x != y {
                return format!("{path}: mapping at {x} / {y}");
            }
            for (i, (ka, kb)) in ea.iter().zip(eb).enumerate() {
                if (&ka.0, ka.1) != (&kb.0, kb.1) {
                    return format!("{path}[{i}]: key {:?}@{} / {:?}@{}", ka.0, ka.1, kb.0, kb.1);
                }
                if ka.2 != kb.2 {
                    return first_difference(&ka.2, &kb.2, &format!("{path}.{}", ka.0));
                }
            }
            format!("{path}: {} / {} entries", ea.len(), eb.len())
        }
        (T::Q(x, ia), T::Q(y, ib)) => {
            if x != y {
                return format!("{path}: list at {x} / {y}");
            }
            for (i, (na, nb)) in ia.iter().zip(ib).enumerate() {
                if na != nb {
                    return first_difference(na, nb, &format!("{path}[{i}]"));
                }
            }
            format!("{path}: {} / {} items", ia.len(), ib.len())
        }
        (T::S(x, i), T::S(y, j)) if x == y => format!("{path}: scalar {x:?} at {i} / {j}"),
        _ => format!("{path}: old {a:?} / new {b:?}"),
    }
}

/// Both readers agree: same tree where the old one reads the text, an error where it does not.
/// (Documents of comments only are refused before either reader runs.)
fn same(text: &str) -> Result<(), String> {
    if text
        .lines()
        .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        return Ok(());
    }
    let new = ours_of(text);
    match (reference(text), new) {
        (Some(old), Ok(new)) if old == new => Ok(()),
        (Some(old), Ok(new)) => Err(format!(
            "trees differ at {}",
            first_difference(&old, &new, "")
        )),
        (Some(_), Err(e)) => Err(format!("old reader accepts, new one says {e:?}")),
        (None, Ok(new)) => Err(format!("old reader rejects, new one reads {new:?}")),
        (None, Err(_)) => Ok(()),
    }
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn yaml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            yaml_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "yaml") {
            out.push(p);
        }
    }
}

#[test]
fn same_tree_on_every_yaml_file_in_the_repository() {
    let mut files = Vec::new();
    for d in [
        "register-maps",
        "gen/regmap/tests/bad",
        "gen/diff/tests/pairs",
        "sim",
    ] {
        yaml_files(&repo().join(d), &mut files);
    }
    files.sort();
    assert!(files.len() > 100, "found only {} files", files.len());
    let mut failures = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        let name = f.strip_prefix(repo()).unwrap().display().to_string();
        // The two malformed-YAML maps are rejected by both readers (checked by `same`).
        if let Err(e) = same(&text) {
            failures.push(format!("{name}: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn same_tree_on_the_benchmark_maps() {
    for style in ["flat", "array"] {
        let out = std::process::Command::new("python3")
            .arg(repo().join("scripts/gen-bench-map.py"))
            .args(["64", style])
            .output()
            .expect("python3 runs scripts/gen-bench-map.py");
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        assert!(text.len() > 1000);
        same(&text).unwrap_or_else(|e| panic!("bench map {style}: {e}"));
        assert!(ours_of(&text).is_ok());
    }
}

#[test]
fn examples() {
    let ok = [
        "a: b\n",
        "a:\n  b: c\n  d: [1, 2]\n",
        "a:\n- x\n- y\nb: z\n",
        "a: >-\n  one\n  two\n\n  three\nb: c\n",
        "a: |\n  one\n   two\n\nb: c\n",
        "a: |+\n  one\n\n\nb: c\n",
        // A blank last line without a line break is no line of a kept block scalar (found
        // by `damaged_documents_never_panic`; see also `a_blank_last_line_without_a_break`).
        "a: |+\n  one\n ",
        "a: |+\n  one\n \n ",
        "a: |+\n    one\n  \n   ",
        "a: >\n  x\n\n    y\n  z\n",
        "a: 'it''s'\nb: \"q\\\"\\x41\\u00e9\"\n",
        "a: \"one\n  two\"\n",
        "a: plain\n  continued\n\n  after blank\n",
        "a:\nb: 1\n",
        "a:\n",
        "a: {x: 1, y: [2, 3]}\n",
        "a: { }\n",
        "a: [ ]\n",
        "a: {x: }\n",
        "---\na: 1\n",
        "a: 1 # c\n# d\nb: 2\n",
        "a: x#y\n",
        "a: http://x.y/z\n",
        "\"q k\": v\n",
        "a:\n  - b: 1\n    c: 2\n  - - d\n    - e\n",
        "a: {x: 1,\n  y: 2}\n",
        "a: b\r\nc: d\r\n",
        "a: é ü\nb: 'ß'\n",
    ];
    for t in ok {
        assert!(reference(t).is_some(), "old reader rejects {t:?}");
        same(t).unwrap_or_else(|e| panic!("{t:?}: {e}"));
    }
    let bad = [
        "a: b\n\tc: d\n",
        "a: &x 1\nb: *x\n",
        "a: !!str 1\n",
        "a: 1\na: 2\n",
        "a: 'open\nb: 2\n",
        "a: \"open\n",
        "a: {x: 1\nb: 2\n",
        "a: [1, 2\n",
        "a:\n  b: 1\n c: 2\n",
        "a: b: c\n",
        "? a\n: b\n",
        "a: 1\n---\nb: 2\n",
        "%YAML 1.2\n---\na: 1\n",
        "- a\n",
        "a: |2\n   x\n",
        "a: \"\\q\"\n",
        "a: |\n\nb: 1\n",
        "a:\n  -\n  - x\n",
        "a:\n  - # c\nb: 1\n",
    ];
    for t in bad {
        assert!(ours_of(t).is_err(), "accepted {t:?}");
    }
    // Deep nesting is an error, not a stack overflow.
    for deep in [
        format!("a: {}", "[".repeat(100_000)),
        format!("a: {}", "{b: ".repeat(100_000)),
        format!("a:\n  {}x\n", "- ".repeat(100_000)),
        (0..200)
            .map(|i| format!("{}k:\n", " ".repeat(i)))
            .collect::<String>(),
    ] {
        assert!(ours_of(&deep).is_err());
    }
    // A top-level list is its own error (the map must be a mapping).
    assert_eq!(
        ours_of("- a\n").unwrap_err(),
        super::YamlError::TopLevelNotMapping { at: 0 }
    );
}

/// The old reader counted a non-ASCII character inside a block scalar twice, so every
/// position after it was one too far (`b` is at byte 15). The new reader is right.
/// A blank last line without a line break is no line of a block scalar (YAML 1.2: empty
/// lines end in a break). yaml-rust2 counts it when it reaches the text's indentation, so
/// `damaged_documents_never_panic` does not compare such texts.
#[test]
fn a_blank_last_line_without_a_break() {
    for (text, want) in [
        ("a: |+\n  one\n  ", "one\n"),
        ("a: |+\n  one\n \n  ", "one\n\n"),
        ("a: |\n  one\n  ", "one\n"),
        ("a: |+\n  one\n ", "one\n"),
    ] {
        let Ok(T::M(_, entries)) = ours_of(text) else {
            panic!("rejects {text:?}")
        };
        assert!(
            matches!(&entries[0].2, T::S(s, _) if s == want),
            "{text:?}: {:?}",
            entries[0].2
        );
    }
}

/// Whether the text's last line is blank and has no line break.
fn ends_in_blank_line_without_break(text: &str) -> bool {
    text.rsplit('\n')
        .next()
        .is_some_and(|l| !l.is_empty() && l.trim_matches([' ', '\r']).is_empty())
}

#[test]
fn old_reader_position_bug() {
    let t = "a: |-\n  x \u{e9} y\nb: |-\n  z\n";
    assert_eq!(&t[15..16], "b");
    let Some(T::M(_, old)) = reference(t) else {
        panic!("old reader rejects")
    };
    assert_eq!(old[1].1, 16);
    let Ok(T::M(_, new)) = ours_of(t) else {
        panic!("new reader rejects")
    };
    assert_eq!(new[1].1, 15);
}

// ---- random documents of the subset ----

#[derive(Debug, Clone)]
enum Gen {
    Plain(String),
    Quoted(String, bool),
    Block(Vec<String>, u8, bool),
    Empty,
    Map(Vec<(String, Gen)>),
    Seq(Vec<Gen>),
}

fn word() -> impl Strategy<Value = String> {
    "[a-z0-9_][a-z0-9_./()=+-]{0,7}"
}

fn plain_text() -> impl Strategy<Value = String> {
    prop::collection::vec(word(), 1..5).prop_map(|w| w.join(" "))
}

fn quoted_text() -> impl Strategy<Value = String> {
    "[ -~éß]{0,16}"
}

fn key() -> impl Strategy<Value = String> {
    "[a-z_][a-z0-9_]{0,6}"
}

fn leaf() -> impl Strategy<Value = Gen> {
    prop_oneof![
        4 => plain_text().prop_map(Gen::Plain),
        2 => (quoted_text(), any::<bool>()).prop_map(|(t, d)| Gen::Quoted(t, d)),
        1 => (prop::collection::vec("[ a-z.]{0,12}", 0..4), "[a-z][ a-z.]{0,12}", 0u8..6, any::<bool>())
            .prop_map(|(mut l, first, style, lead)| { l.insert(0, first); (l, style, lead) })
            .prop_map(|(l, style, lead)| Gen::Block(l, style, lead)),
        1 => Just(Gen::Empty),
    ]
}

fn tree() -> impl Strategy<Value = Gen> {
    leaf().prop_recursive(4, 40, 5, |inner| {
        prop_oneof![
            prop::collection::vec((key(), inner.clone()), 0..5).prop_map(|mut e| {
                let mut seen = std::collections::HashSet::new();
                e.retain(|(k, _)| seen.insert(k.clone()));
                Gen::Map(e)
            }),
            prop::collection::vec(inner, 0..5).prop_map(Gen::Seq),
        ]
    })
}

/// Rendering choices, drawn from a byte stream so proptest can shrink them.
struct Choices<'a>(&'a [u8], usize);

impl Choices<'_> {
    fn pick(&mut self, n: u8) -> u8 {
        let c = self.0.get(self.1).copied().unwrap_or(0);
        self.1 += 1;
        c % n
    }
}

fn scalar_flow_safe(g: &Gen) -> bool {
    match g {
        Gen::Plain(t) => !t.contains(|c: char| ",[]{}".contains(c)),
        Gen::Quoted(..) => true,
        _ => false,
    }
}

fn quote(t: &str, double: bool) -> String {
    if double {
        let mut s = String::from("\"");
        for c in t.chars() {
            match c {
                '"' => s.push_str("\\\""),
                '\\' => s.push_str("\\\\"),
                c => s.push(c),
            }
        }
        s.push('"');
        s
    } else {
        format!("'{}'", t.replace('\'', "''"))
    }
}

/// A flow rendering, if every leaf can be written in flow style.
fn flow(g: &Gen, ch: &mut Choices) -> Option<String> {
    Some(match g {
        Gen::Plain(t) if scalar_flow_safe(g) => t.clone(),
        Gen::Quoted(t, d) => quote(t, *d),
        Gen::Map(e) => {
            let mut parts = Vec::new();
            for (k, v) in e {
                parts.push(format!("{k}: {}", flow(v, ch)?));
            }
            if parts.is_empty() {
                "{}".into()
            } else {
                format!(
                    "{{ {} }}",
                    parts.join(if ch.pick(2) == 0 { ", " } else { "," })
                )
            }
        }
        Gen::Seq(items) => {
            let parts: Option<Vec<_>> = items.iter().map(|v| flow(v, ch)).collect();
            format!("[{}]", parts?.join(", "))
        }
        _ => return None,
    })
}

fn comment(ch: &mut Choices) -> &'static str {
    match ch.pick(6) {
        0 => " # note: x",
        1 => "   ",
        _ => "",
    }
}

/// Writes `g` as the value after `key:` or `- ` (the rest of that line, then deeper lines).
/// `indent` is the indentation of the owning key or dash.
fn value(g: &Gen, indent: usize, ch: &mut Choices, out: &mut String, in_seq: bool) {
    let step = [2, 4, 1][ch.pick(3) as usize];
    let pad = " ".repeat(indent + step);
    match g {
        Gen::Empty => {
            out.push_str(comment(ch));
            out.push('\n');
        }
        Gen::Plain(t) => {
            out.push(' ');
            // Sometimes over two lines (folded back into one with a space).
            match (ch.pick(3), t.split_once(' ')) {
                (0, Some((a, b))) => {
                    out.push_str(a);
                    out.push('\n');
                    out.push_str(&pad);
                    out.push_str(b);
                }
                _ => out.push_str(t),
            }
            out.push_str(comment(ch));
            out.push('\n');
        }
        Gen::Quoted(t, d) => {
            out.push(' ');
            out.push_str(&quote(t, *d));
            out.push_str(comment(ch));
            out.push('\n');
        }
        Gen::Block(lines, style, lead) => {
            let head = ["|", "|-", "|+", ">", ">-", ">+"][*style as usize];
            out.push(' ');
            out.push_str(head);
            out.push('\n');
            if *lead {
                out.push('\n');
            }
            for l in lines {
                let l = l.trim_end();
                if l.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&pad);
                    out.push_str(l);
                    out.push('\n');
                }
            }
        }
        Gen::Map(_) | Gen::Seq(_) => {
            if ch.pick(3) == 0 {
                if let Some(f) = flow(g, ch) {
                    out.push(' ');
                    out.push_str(&f);
                    out.push_str(comment(ch));
                    out.push('\n');
                    return;
                }
            }
            match g {
                Gen::Map(e) if e.is_empty() => out.push_str(" {}\n"),
                Gen::Seq(s) if s.is_empty() => out.push_str(" []\n"),
                Gen::Seq(_) if !in_seq && ch.pick(3) == 0 => {
                    // A list at the indentation of its key.
                    out.push('\n');
                    block(g, indent, ch, out);
                }
                _ => {
                    out.push_str(comment(ch));
                    out.push('\n');
                    if ch.pick(4) == 0 {
                        out.push_str("\n# between\n");
                    }
                    block(g, indent + step, ch, out);
                }
            }
        }
    }
}

/// Writes a collection in block style at `indent`.
fn block(g: &Gen, indent: usize, ch: &mut Choices, out: &mut String) {
    let pad = " ".repeat(indent);
    match g {
        Gen::Map(e) => {
            for (k, v) in e {
                out.push_str(&pad);
                out.push_str(k);
                out.push(':');
                value(v, indent, ch, out, false);
            }
        }
        Gen::Seq(items) => {
            for v in items {
                out.push_str(&pad);
                out.push('-');
                match v {
                    // `- key: value` with the mapping's other keys under the first.
                    Gen::Map(e) if !e.is_empty() && ch.pick(2) == 0 => {
                        out.push(' ');
                        let inner = indent + 2;
                        for (i, (k, val)) in e.iter().enumerate() {
                            if i > 0 {
                                out.push_str(&" ".repeat(inner));
                            }
                            out.push_str(k);
                            out.push(':');
                            value(val, inner, ch, out, false);
                        }
                    }
                    // Empty items are refused (see `examples`).
                    Gen::Empty => out.push_str(" ''\n"),
                    _ => value(v, indent, ch, out, true),
                }
            }
        }
        _ => unreachable!("block() takes collections"),
    }
}

fn document(entries: &[(String, Gen)], bytes: &[u8]) -> String {
    let mut ch = Choices(bytes, 0);
    let mut out = String::new();
    if ch.pick(4) == 0 {
        out.push_str("# header comment\n\n");
    }
    block(&Gen::Map(entries.to_vec()), 0, &mut ch, &mut out);
    out
}

fn top() -> impl Strategy<Value = Vec<(String, Gen)>> {
    prop::collection::vec((key(), tree()), 1..6).prop_map(|mut e| {
        let mut seen = std::collections::HashSet::new();
        e.retain(|(k, _)| seen.insert(k.clone()));
        e
    })
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(256)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases()))]

    /// Random documents of the subset read the same as with the old reader.
    #[test]
    fn random_documents_read_the_same(
        entries in top(),
        bytes in prop::collection::vec(any::<u8>(), 64),
    ) {
        let text = document(&entries, &bytes);
        prop_assert!(reference(&text).is_some(), "old reader rejects:\n{}", text);
        if let Err(e) = same(&text) {
            return Err(TestCaseError::fail(format!("{e}\n--- text ---\n{text}")));
        }
    }

    /// Damaged documents: never a panic; where both readers accept, the same tree.
    #[test]
    fn damaged_documents_never_panic(
        entries in top(),
        bytes in prop::collection::vec(any::<u8>(), 64),
        edits in prop::collection::vec((any::<prop::sample::Index>(), 0u8..8), 1..4),
    ) {
        let mut text = document(&entries, &bytes).into_bytes();
        for (at, what) in edits {
            let i = at.index(text.len() + 1);
            let ins: &[u8] = match what {
                0 => b"\t",
                1 => b" ",
                2 => b"\"",
                3 => b"'",
                4 => b":",
                5 => b"{",
                6 => b"\n",
                _ => {
                    if i < text.len() {
                        text.remove(i);
                    }
                    continue;
                }
            };
            text.splice(i..i, ins.iter().copied());
        }
        let Ok(text) = String::from_utf8(text) else { return Ok(()) };
        let new = std::panic::catch_unwind(|| ours_of(&text).is_ok());
        prop_assert!(new.is_ok(), "panic on:\n{}", text);
        let comparable = !ends_in_blank_line_without_break(&text);
        if let (true, Some(old), Ok(new)) = (comparable, reference(&text), ours_of(&text)) {
            // yaml-rust2 miscounts positions after a non-ASCII character inside a block scalar
            // (see `old_reader_position_bug`): compare only the values then.
            if text.is_ascii() {
                prop_assert_eq!(old, new, "text:\n{}", text);
            } else {
                prop_assert_eq!(unplaced(old), unplaced(new), "text:\n{}", text);
            }
        }
    }

    /// Arbitrary text never panics.
    #[test]
    fn random_text_never_panics(text in "[ -~\t\n\r\u{e9}]{0,200}") {
        let r = std::panic::catch_unwind(|| ours_of(&text).is_ok());
        prop_assert!(r.is_ok(), "panic on {:?}", text);
    }
}

/// A long list read on two threads gives what one thread reads: the same tree, or the same
/// first error, wherever the second thread starts (an item, a line inside a quoted string or
/// another list) and wherever the errors are.
#[test]
fn a_list_read_on_two_threads_reads_as_on_one() {
    let item = |i: usize| {
        format!("  - name: r{i}\n    offset: {i}\n    fields: [{{ name: f, bits: 0 }}]\n")
    };
    let long = |n: usize, at: usize, insert: &str| {
        let mut t =
            String::from("block: b\nparameters:\n  - { name: N, default: 1 }\nregisters:\n");
        for i in 0..n {
            if i == at {
                t.push_str(insert);
            }
            t.push_str(&item(i));
        }
        t
    };
    // A string that runs over lines that look like items, across the middle (an error).
    let mut quoted = String::from("  - name: q\n    description: \"one\n");
    for _ in 0..200 {
        quoted.push_str("  - two\n");
    }
    quoted.push_str("  three\"\n");
    let nested: String = (0..6000)
        .map(|i| format!("  - - x{i}\n    - y{i}\n"))
        .collect();
    let cases = [
        ("plain", true, long(3000, usize::MAX, "")),
        (
            "string over lines at the middle",
            false,
            long(3000, 1400, &quoted),
        ),
        (
            "bad indentation in the second half",
            false,
            long(3000, 2500, "   - name: x\n"),
        ),
        ("bad indentation in both halves", false, {
            let mut t = long(3000, 2500, "   - name: x\n");
            t.insert_str(t.find("  - name: r100\n").unwrap(), "     - name: y\n");
            t
        }),
        (
            "duplicate key in the second half",
            false,
            long(3000, 2000, "  - name: d\n    name: d\n"),
        ),
        (
            "list at the key's indentation",
            true,
            long(3000, usize::MAX, "").replace("\n  ", "\n"),
        ),
        (
            "nested lists",
            true,
            format!("block: b\nregisters:\n{nested}"),
        ),
        (
            // The second thread starts in the long list while the reader is in the short one.
            "list ends before the middle",
            true,
            format!(
                "{}memories:\n{}",
                long(200, usize::MAX, ""),
                long(3000, usize::MAX, "").replace(
                    "block: b\nparameters:\n  - { name: N, default: 1 }\nregisters:\n",
                    ""
                )
            ),
        ),
    ];
    for (what, valid, text) in &cases {
        assert!(
            text.len() > 2 * super::SPLIT_MIN_BYTES,
            "{what}: too short to split"
        );
        let alone =
            super::load_with(text, &mut Arenas::default(), false).map(|m| ours(&Node::Mapping(m)));
        let split =
            super::load_with(text, &mut Arenas::default(), true).map(|m| ours(&Node::Mapping(m)));
        assert_eq!(alone, split, "{what}");
        assert_eq!(alone.is_ok(), *valid, "{what}: {alone:?}");
    }
}

/// Nodes stay small: a flat 4096-register map has about 200 k of them.
#[test]
fn nodes_are_small() {
    assert_eq!(std::mem::size_of::<Node<'_>>(), 32);
    assert_eq!(std::mem::size_of::<(super::Scalar<'_>, Node<'_>)>(), 56);
}
