//! Diagnostics: every problem in a map, each with a stable code, a primary location, optional
//! related locations and a hint. Rendered by miette.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteError,
    MietteSpanContents, NamedSource, SourceCode, SourceSpan, SpanContents,
};

use crate::source::{Source, Span};

/// One problem found in a map.
#[derive(Debug, Clone)]
pub struct Diag {
    pub code: &'static str,
    pub message: String,
    pub span: Span,
    pub label: String,
    pub related: Vec<(Span, String)>,
    pub help: Option<String>,
    pub(crate) src: Arc<NamedSource<Arc<str>>>,
    /// 1-based line and column of the primary span, for one-line output.
    pub line: usize,
    pub column: usize,
    pub file: String,
}

impl fmt::Display for Diag {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Diag {}

impl Diagnostic for Diag {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new(self.code))
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display + 'a>)
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(&*self.src)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        let primary = LabeledSpan::new_primary_with_span(Some(self.label.clone()), self.span);
        let related = self
            .related
            .iter()
            .map(|(s, l)| LabeledSpan::new_with_span(Some(l.clone()), *s));
        Some(Box::new(std::iter::once(primary).chain(related)))
    }
}

/// All problems found in one map, in source order.
#[derive(Debug, Clone, Default)]
pub struct Diagnostics {
    pub items: Vec<Diag>,
}

impl Diagnostics {
    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }
    pub fn len(&self) -> usize {
        self.items.len()
    }
    pub fn codes(&self) -> Vec<&'static str> {
        self.items.iter().map(|d| d.code).collect()
    }

    /// Renders every diagnostic with carets and labels; `color` selects ANSI styling.
    pub fn render(&self, color: bool) -> String {
        self.render_ending(color, "; nothing was generated")
    }

    /// [`Self::render`] with `ending` after the closing count instead of "; nothing was
    /// generated" (`rdmagen check`, `diff` and `versions` generate nothing).
    pub fn render_ending(&self, color: bool, ending: &str) -> String {
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let mut out = String::new();
        // A line longer than `LONG_LINE` (a map written on one line, megabytes long) would be
        // printed whole: a problem shown near one is shown over a copy of the source with its
        // long lines clipped around the labels.
        for d in &self.items {
            // Writing into a String cannot fail.
            match near_long_line(d).then(|| Clipped::of(d)) {
                Some(c) => {
                    let _ = handler.render_report(&mut out, &c);
                }
                None => {
                    let _ = handler.render_report(&mut out, d);
                }
            }
        }
        let n = self.items.len();
        out.push_str(&format!(
            "error: {} problem{} found{ending}\n",
            n,
            if n == 1 { "" } else { "s" }
        ));
        out
    }

    /// One line per problem: `file:line:col: error[code]: message`, for editors and CI logs.
    pub fn render_short(&self) -> String {
        let mut out = String::new();
        for d in &self.items {
            out.push_str(&format!(
                "{}:{}:{}: error[{}]: {}\n",
                d.file, d.line, d.column, d.code, d.message
            ));
        }
        out
    }
}

/// Lines longer than this many bytes are shown clipped in rendered diagnostics.
const LONG_LINE: usize = 200;
/// Bytes of a clipped line shown before its primary label (or its first) and after the labels
/// near it.
const CLIP_BEFORE: usize = 40;
const CLIP_AFTER: usize = 40;
/// Marks where a clipped line was cut.
const CUT: &str = "…";

/// Whether a line the rendering of `d` may show (from two lines before its first label to two
/// after its last) is longer than `LONG_LINE`.
fn near_long_line(d: &Diag) -> bool {
    let text: &str = d.src.inner();
    let spans = std::iter::once(d.span).chain(d.related.iter().map(|r| r.0));
    let lo = spans
        .clone()
        .map(|s| s.start)
        .min()
        .unwrap_or(0)
        .min(text.len());
    let hi = spans
        .map(|s| s.start + s.len)
        .max()
        .unwrap_or(0)
        .min(text.len());
    // Labels are on character boundaries; floored anyway, as slicing off one would panic.
    let (lo, hi) = (floor_boundary(text, lo), floor_boundary(text, hi));
    let before = text[..lo]
        .rmatch_indices('\n')
        .nth(2)
        .map_or(0, |(i, _)| i + 1);
    let after = text[hi..]
        .match_indices('\n')
        .nth(2)
        .map_or(text.len(), |(i, _)| hi + i);
    text[before..after].split('\n').any(|l| l.len() > LONG_LINE)
}

/// `i` moved down to a character boundary of `text`.
fn floor_boundary(text: &str, mut i: usize) -> usize {
    i = i.min(text.len());
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A diagnostic shown over a copy of its source whose long lines are clipped: each to a window
/// around the labels on it (its start when it has none), cut ends marked `…`. Its labels are
/// moved to the copy; line numbers stay, and the location of a label is its place in the map.
struct Clipped<'d> {
    diag: &'d Diag,
    text: String,
    /// Each label's span in `text`, its label, whether primary, and its 0-based column in the
    /// map.
    labels: Vec<(Span, String, bool, usize)>,
}

impl<'d> Clipped<'d> {
    fn of(diag: &'d Diag) -> Self {
        let src: &str = diag.src.inner();
        let mut labels: Vec<(Span, String, bool)> =
            std::iter::once((diag.span, diag.label.clone(), true))
                .chain(diag.related.iter().map(|(s, l)| (*s, l.clone(), false)))
                .collect();
        let mut text = String::with_capacity(src.len().min(1 << 20));
        let mut moved: Vec<Option<(Span, usize)>> = vec![None; labels.len()];
        let mut start = 0;
        for line in src.split_inclusive('\n') {
            let end = start + line.len();
            let body = line.trim_end_matches(['\n', '\r']);
            let on: Vec<usize> = (0..labels.len())
                .filter(|&i| {
                    let s = labels[i].0.start;
                    s >= start && (s < end || (s == end && end == src.len()))
                })
                .collect();
            let (keep_from, keep_to) = if body.len() <= LONG_LINE {
                (0, body.len())
            } else {
                // Around the primary label if it is on this line, else the first; other labels
                // shown when they are near, pointed at a cut mark when they are not.
                let rel = |i: usize| labels[i].0.start - start;
                let anchor = on
                    .iter()
                    .find(|&&i| labels[i].2)
                    .or_else(|| on.iter().min_by_key(|&&i| rel(i)))
                    .map_or(0, |&i| rel(i));
                let near = on
                    .iter()
                    .map(|&i| (rel(i), rel(i) + labels[i].0.len))
                    .filter(|&(s, e)| s + CLIP_BEFORE >= anchor && e <= anchor + 2 * CLIP_AFTER);
                let lo = near.clone().map(|n| n.0).min().unwrap_or(anchor);
                let hi = near.map(|n| n.1).max().unwrap_or(anchor);
                (
                    floor_boundary(body, lo.saturating_sub(CLIP_BEFORE)),
                    floor_boundary(body, hi + CLIP_AFTER),
                )
            };
            let line_start = text.len();
            if keep_from > 0 {
                text.push_str(CUT);
            }
            let shift = text.len() - line_start;
            text.push_str(&body[keep_from..keep_to]);
            if keep_to < body.len() {
                text.push_str(CUT);
            }
            for &i in &on {
                let (s, len) = (labels[i].0.start - start, labels[i].0.len);
                let span = if s < keep_from {
                    // Before the window: at the leading cut mark.
                    Span::new(line_start, CUT.len())
                } else if s > keep_to || (s == keep_to && keep_to < body.len()) {
                    // Past it: at the trailing one.
                    Span::new(line_start + shift + keep_to - keep_from, CUT.len())
                } else {
                    Span::new(line_start + shift + s - keep_from, len.min(keep_to - s))
                };
                // In bytes, as miette counts columns.
                moved[i] = Some((span, s));
            }
            text.push_str(&line[body.len()..]);
            start = end;
        }
        let labels = labels
            .drain(..)
            .zip(moved)
            .map(|((span, label, primary), m)| {
                let (span, column) = m.unwrap_or((Span::new(text.len(), 0), span.start));
                (span, label, primary, column)
            })
            .collect();
        Clipped { diag, text, labels }
    }
}

impl fmt::Debug for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diag, f)
    }
}

impl fmt::Display for Clipped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Clipped<'_> {}

impl Diagnostic for Clipped<'_> {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag.code()
    }
    fn help<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        self.diag.help()
    }
    fn source_code(&self) -> Option<&dyn SourceCode> {
        Some(self)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = LabeledSpan> + '_>> {
        Some(Box::new(self.labels.iter().map(|(s, l, primary, _)| {
            if *primary {
                LabeledSpan::new_primary_with_span(Some(l.clone()), *s)
            } else {
                LabeledSpan::new_with_span(Some(l.clone()), *s)
            }
        })))
    }
}

impl SourceCode for Clipped<'_> {
    fn read_span<'a>(
        &'a self,
        span: &SourceSpan,
        before: usize,
        after: usize,
    ) -> Result<Box<dyn SpanContents<'a> + 'a>, MietteError> {
        let c = self.text.as_str().read_span(span, before, after)?;
        // The location shown for a label is its column in the map, not in the clipped line.
        let column = self
            .labels
            .iter()
            .find(|l| l.0.start == span.offset() && before == 0 && after == 0)
            .map_or(c.column(), |l| l.3);
        Ok(Box::new(
            MietteSpanContents::new_named(
                self.diag.file.clone(),
                c.data(),
                *c.span(),
                c.line(),
                column,
                c.line_count(),
            )
            .with_language("yaml"),
        ))
    }
}

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.render_short())
    }
}

impl std::error::Error for Diagnostics {}

/// Collects diagnostics against one source.
pub(crate) struct Sink {
    pub src: Source,
    named: Arc<NamedSource<Arc<str>>>,
    pub diags: Vec<Diag>,
}

/// A diagnostic under construction.
pub(crate) struct DiagBuilder<'a> {
    sink: &'a mut Sink,
    diag: Option<Diag>,
}

impl DiagBuilder<'_> {
    pub fn related(mut self, span: Span, label: impl Into<String>) -> Self {
        if let Some(d) = self.diag.as_mut() {
            d.related.push((span, label.into()));
        }
        self
    }
    pub fn help(mut self, help: impl Into<String>) -> Self {
        if let Some(d) = self.diag.as_mut() {
            d.help = Some(help.into());
        }
        self
    }
}

impl Drop for DiagBuilder<'_> {
    fn drop(&mut self) {
        if let Some(d) = self.diag.take() {
            self.sink.diags.push(d);
        }
    }
}

impl Sink {
    pub fn new(src: Source) -> Self {
        let named = Arc::new(src.named());
        Sink {
            src,
            named,
            diags: Vec::new(),
        }
    }

    pub fn error(
        &mut self,
        code: &'static str,
        span: Span,
        message: impl Into<String>,
        label: impl Into<String>,
    ) -> DiagBuilder<'_> {
        let (line, column) = self.src.line_col(span.start);
        let diag = Diag {
            code,
            message: message.into(),
            span,
            label: label.into(),
            related: Vec::new(),
            help: None,
            src: self.named.clone(),
            line,
            column,
            file: self.src.name.clone(),
        };
        DiagBuilder {
            sink: self,
            diag: Some(diag),
        }
    }

    /// An empty sink on the same source, for reading or checking part of a map on another
    /// thread; [`Sink::absorb`] takes its diagnostics back.
    pub fn fork(&self) -> Sink {
        Sink {
            src: self.src.clone(),
            named: self.named.clone(),
            diags: Vec::new(),
        }
    }

    /// Appends a forked sink's diagnostics after this sink's, as if they had been reported
    /// here in that order.
    pub fn absorb(&mut self, other: Sink) {
        self.diags.extend(other.diags);
    }

    pub fn finish(mut self) -> Diagnostics {
        // Source order, then code, so output is stable however the checks are ordered.
        self.diags
            .sort_by(|a, b| (a.span.start, a.code).cmp(&(b.span.start, b.code)));
        Diagnostics { items: self.diags }
    }
}
