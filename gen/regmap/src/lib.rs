#![doc = svgbobdoc::transform!(
//! The rdmagen register-map language: YAML with source positions in, a validated model out.
//!
//! ```svgbob
//!  "map.yaml" --> +-----------+   tree with    +----------+  model  +-----------+
//!                 | load_yaml |--positions--->|   read   |-------->|   check   |
//!                 +-----------+   (spans)      +----------+         +-----------+
//!                       |                           |                     |
//!                       v                           v                     v
//!                  +-------------------------------------------------------------+
//!                  |   Sink: every problem, with code, span, related span, help  |
//!                  +-------------------------------------------------------------+
//!                                               |
//!                          no problems?  ---> RegMap (infallible to lower)
//! ```
//!
//! [`load`] and [`parse`] return either a [`RegMap`] that every generator can lower without
//! failing, or [`Diagnostics`] holding every problem in the map at once.
)]

pub mod apart;
mod check;
pub mod cnames;
mod diag;
pub mod fasthash;
mod model;
mod names;
mod parse;
mod read;
mod source;
pub mod text;
mod yaml;

pub use diag::{Diag, Diagnostics};
pub use model::*;
pub use names::{is_reserved, RESERVED};
pub use source::{Source, Span};

use diag::Sink;

/// Validates map text. `file` is the name shown in diagnostics and in generated headers.
pub fn parse(file: &str, text: &str) -> Result<RegMap, Diagnostics> {
    parse_with(file, text, true)
}

/// [`parse`]; `parallel` lets a big map be read and checked on two threads, with the same
/// result and diagnostics as on one.
fn parse_with(file: &str, text: &str, parallel: bool) -> Result<RegMap, Diagnostics> {
    // A UTF-8 byte order mark (Windows editors write one) is not part of the map, as in YAML
    // 1.2; positions are counted without it, as an editor shows the file.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut sink = Sink::new(Source::new(file, text));
    // The YAML tree lives in arenas, freed in a few blocks when this returns.
    let mut arenas = yaml::Arenas::default();
    let Some(root) = parse::load_yaml(&mut sink, text, &mut arenas, parallel) else {
        return Err(sink.finish());
    };
    let mut map = parse::Parser {
        sink: &mut sink,
        parallel,
    }
    .read_map(&root, file);
    check::check(&mut sink, &mut map, parallel);
    let diags = sink.finish();
    if diags.is_empty() {
        Ok(map)
    } else {
        Err(diags)
    }
}

/// Errors of [`load`]: the file could not be read, or the map is invalid.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error("cannot read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}")]
    Invalid(Diagnostics),
}

/// Reads and validates a map file.
pub fn load(path: &std::path::Path) -> Result<RegMap, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    parse_bytes(&shown, bytes, true).map_err(LoadError::Invalid)
}

/// [`parse_with`] of a file's bytes, which may not be UTF-8.
fn parse_bytes(shown: &str, bytes: Vec<u8>, parallel: bool) -> Result<RegMap, Diagnostics> {
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            // Report as a map problem so the user gets a position, not an I/O error.
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let mut sink = Sink::new(Source::new(shown, text));
            // In the lossy text the invalid byte is U+FFFD, three bytes: the label covers it
            // (one byte would end inside the character).
            sink.error(
                "regmap::yaml_syntax",
                Span::new(valid, char::REPLACEMENT_CHARACTER.len_utf8()),
                "the map is not valid UTF-8",
                "invalid byte",
            )
            .help("save the file as UTF-8");
            return Err(sink.finish());
        }
    };
    parse_with(shown, &text, parallel)
}

/// Entry points of the fuzz targets in `tb/fuzz` (not an API): the YAML reader alone, and
/// [`load`] without the file system, on one thread or two.
#[cfg(feature = "fuzz")]
#[doc(hidden)]
pub mod fuzz {
    use super::{Diagnostics, RegMap};

    /// What [`load`](super::load) gives for a file holding `bytes`.
    pub fn parse_bytes(bytes: &[u8], parallel: bool) -> Result<RegMap, Diagnostics> {
        super::parse_bytes("fuzz.yaml", bytes.to_vec(), parallel)
    }

    /// The YAML reader's tree or error (as text, to compare the one- and two-thread reads).
    /// Panics if a position it reports is outside the text or inside a character: diagnostics
    /// are drawn at those positions.
    pub fn yaml(text: &str, split: bool) -> Result<String, String> {
        use crate::yaml::{load_with, Arenas, Node, YamlError};
        let placed = |at: usize| {
            assert!(
                at <= text.len() && text.is_char_boundary(at),
                "position {at} is not a character boundary of the {}-byte text",
                text.len()
            )
        };
        fn walk(n: &Node<'_>, placed: &dyn Fn(usize)) {
            placed(n.at());
            match n {
                Node::Scalar(_) => {}
                Node::Mapping(m) => {
                    for (k, v) in m.entries {
                        placed(k.at());
                        walk(v, placed);
                    }
                }
                Node::Sequence(s) => s.items.iter().for_each(|i| walk(i, placed)),
            }
        }
        let mut arenas = Arenas::default();
        match load_with(text, &mut arenas, split) {
            Ok(m) => {
                let root = Node::Mapping(m);
                walk(&root, &placed);
                Ok(format!("{root:?}"))
            }
            Err(e) => {
                match &e {
                    YamlError::Syntax { at, related, .. } => {
                        placed(*at);
                        if let Some((r, _)) = related {
                            placed(*r);
                        }
                    }
                    YamlError::DuplicateKey { at, first, .. } => {
                        placed(*at);
                        placed(*first);
                    }
                    YamlError::TopLevelNotMapping { at } => placed(*at),
                }
                Err(format!("{e:?}"))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    /// A map of `n` registers, with `insert` written before register `at`.
    fn long_map(n: usize, at: usize, insert: &str) -> String {
        let mut t = String::from("block: b\nversion: 1.0.0\nregisters:\n");
        for i in 0..n {
            if i == at {
                t.push_str(insert);
            }
            t.push_str(&format!(
                "  - name: r{i}\n    offset: {:#x}\n    interrupt: {{ enable: r{i}_en }}\n    fields: [{{ name: s, bits: 0, access: w1c, hw_set: true }}]\n  - name: r{i}_en\n    offset: {:#x}\n    fields: [{{ name: s, bits: 0, access: rw }}]\n",
                8 * i,
                8 * i + 4
            ));
        }
        t
    }

    /// An explicit address width outside 4..=32 is an error at its value, whatever the map
    /// needs: 0 is not "derive it", and 2^32 + 32 is not 32.
    #[test]
    fn address_width_outside_4_to_32_is_rejected_where_written() {
        for (w, ok) in [
            ("0", false),
            ("3", false),
            ("4", true),
            ("32", true),
            ("33", false),
            ("64", false),
            ("0x1_0000_0020", false),
        ] {
            let text = format!(
                "block: b\nversion: 1.0.0\naddress_width: {w}\nregisters:\n  - {{ name: r, offset: 0, fields: [{{ name: f, bits: 0, access: rw }}] }}\n"
            );
            match super::parse("m.yaml", &text) {
                Ok(map) => {
                    assert!(ok, "address_width {w} accepted");
                    assert_eq!(
                        u64::from(map.address_width),
                        super::parse::parse_int(w).unwrap()
                    );
                }
                Err(d) => {
                    assert!(!ok, "address_width {w} rejected: {}", d.render_short());
                    let short = d.render_short();
                    assert!(
                        short.starts_with("m.yaml:3:16: error[regmap::address_width]"),
                        "{short}"
                    );
                }
            }
        }
    }

    /// A big map read and checked on two threads gives what one thread gives: the same model,
    /// or the same diagnostics in the same order, wherever the problems are.
    #[test]
    fn a_big_map_parses_on_two_threads_as_on_one() {
        let good = long_map(600, usize::MAX, "");
        let alone = super::parse_with("m.yaml", &good, false);
        let split = super::parse_with("m.yaml", &good, true);
        assert!(alone.is_ok());
        assert_eq!(format!("{alone:?}"), format!("{split:?}"));

        let mut bad = long_map(600, 500, "  - name: Bad\n    offset: 0x3\n    fields: [{ name: x, bits: 0 }]\n  - name: r5\n    offset: 0x2000\n    interrupt: { enable: nope }\n    fields: [{ name: s, bits: 0, access: ro }]\n  - name: a_b\n    offset: 0x2010\n    fields: [{ name: c, bits: 0, access: rw }, { name: c, bits: 40, access: rw }]\n");
        let first_half = "  - name: a\n    offset: 0x20\n    fields: [{ name: b_c, bits: 0, access: rw }]\n  - name: x\n    offset: 0x1ff0\n    fields: [{ name: Y, bits: 3:1, access: rw }]\n";
        bad.insert_str(bad.find("  - name: r20\n").unwrap(), first_half);
        let alone = super::parse_with("m.yaml", &bad, false).unwrap_err();
        let split = super::parse_with("m.yaml", &bad, true).unwrap_err();
        assert_eq!(alone.render_short(), split.render_short());
        assert_eq!(alone.render(false), split.render(false));
        for code in [
            "regmap::bad_name",
            "regmap::duplicate_name",
            "regmap::register_overlap",
            "regmap::misaligned",
            "regmap::port_collision",
            "regmap::interrupt_mismatch",
            "regmap::field_past_width",
        ] {
            assert!(
                alone.codes().contains(&code),
                "{code} missing: {:?}",
                alone.codes()
            );
        }
    }
}
