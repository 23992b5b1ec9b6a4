//! Diagnostics: every problem in a map, each with a stable code, a primary location, optional
//! related locations and a hint. Rendered by miette.

use std::fmt;
use std::sync::Arc;

use miette::{
    Diagnostic, GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource, SourceCode,
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
        let theme = if color {
            GraphicalTheme::unicode()
        } else {
            GraphicalTheme::unicode_nocolor()
        };
        let handler = GraphicalReportHandler::new_themed(theme).with_width(100);
        let mut out = String::new();
        for d in &self.items {
            // Writing into a String cannot fail.
            let _ = handler.render_report(&mut out, d);
        }
        let n = self.items.len();
        out.push_str(&format!(
            "error: {} problem{} found; nothing was generated\n",
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
