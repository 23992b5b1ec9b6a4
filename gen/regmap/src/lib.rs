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

mod check;
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
    parse_inner(file, text, true)
}

/// [`parse`], but the YAML tree is freed only if `free_tree` (see [`load_leaking_tree`]).
fn parse_inner(file: &str, text: &str, free_tree: bool) -> Result<RegMap, Diagnostics> {
    let mut sink = Sink::new(Source::new(file, text));
    let Some(root) = parse::load_yaml(&mut sink, text) else {
        return Err(sink.finish());
    };
    let mut map = parse::Parser { sink: &mut sink }.read_map(&root, file);
    check::check(&mut sink, &mut map);
    if !free_tree {
        std::mem::forget(root);
    }
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
    load_inner(path, true)
}

/// [`load`] for a process that exits soon after (the command-line tool): the YAML tree the
/// model is read from is left allocated instead of freed node by node, which is a tenth of
/// the loading time of a 4096-register map. Each call keeps that memory (a few times the
/// file's size) until the process ends, so it is not for a long-running program.
pub fn load_leaking_tree(path: &std::path::Path) -> Result<RegMap, LoadError> {
    load_inner(path, false)
}

fn load_inner(path: &std::path::Path, free_tree: bool) -> Result<RegMap, LoadError> {
    let shown = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|source| LoadError::Io {
        path: shown.clone(),
        source,
    })?;
    let text = match String::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            // Report as a map problem so the user gets a position, not an I/O error.
            let valid = e.utf8_error().valid_up_to();
            let text = String::from_utf8_lossy(e.as_bytes()).into_owned();
            let mut sink = Sink::new(Source::new(&shown, text));
            sink.error(
                "regmap::yaml_syntax",
                Span::new(valid, 1),
                "the map is not valid UTF-8",
                "invalid byte",
            )
            .help("save the file as UTF-8");
            return Err(LoadError::Invalid(sink.finish()));
        }
    };
    parse_inner(&shown, &text, free_tree).map_err(LoadError::Invalid)
}
