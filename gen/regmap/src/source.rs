//! Source text of one map and byte spans into it.

use std::sync::Arc;

use miette::{NamedSource, SourceSpan};

/// A byte range in the map's source text.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Span {
    pub start: usize,
    pub len: usize,
}

impl Span {
    pub fn new(start: usize, len: usize) -> Self {
        Span { start, len }
    }
}

impl From<Span> for SourceSpan {
    fn from(s: Span) -> Self {
        SourceSpan::new(s.start.into(), s.len)
    }
}

/// One map file: its display name (as the user gave it, so output never holds absolute paths
/// the user did not type) and its text.
#[derive(Clone, Debug)]
pub struct Source {
    pub name: String,
    pub text: Arc<str>,
}

impl Source {
    pub fn new(name: impl Into<String>, text: impl Into<Arc<str>>) -> Self {
        Source {
            name: name.into(),
            text: text.into(),
        }
    }

    /// The span of the token starting at `start`: a quoted scalar up to its closing quote,
    /// otherwise up to the end of the plain scalar `hint_len` bytes long.
    pub fn token_span(&self, start: usize, hint_len: usize) -> Span {
        let rest = &self.text[start.min(self.text.len())..];
        let len = match rest.chars().next() {
            Some(q @ ('"' | '\'')) => rest.as_bytes()[1..]
                .iter()
                .position(|&c| char::from(c) == q)
                .map_or(rest.len(), |i| i + 2),
            _ => hint_len.min(rest.len()),
        };
        Span::new(start, len.max(1).min(rest.len().max(1)))
    }

    /// 1-based line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let before = &self.text[..offset.min(self.text.len())];
        let line = before.matches('\n').count() + 1;
        let col = before
            .rsplit('\n')
            .next()
            .map(|l| l.chars().count())
            .unwrap_or(0)
            + 1;
        (line, col)
    }

    pub fn named(&self) -> NamedSource<Arc<str>> {
        NamedSource::new(&self.name, self.text.clone()).with_language("yaml")
    }
}
