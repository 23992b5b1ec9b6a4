//! YAML tree (with positions) to model, reporting every structural problem: syntax, unknown and
//! missing keys, wrong value types, malformed names, numbers and bit ranges. Semantic checks
//! (overlaps, widths, references) live in `check`.

use crate::diag::Sink;
use crate::model::*;
use crate::names::{closest, is_reserved, name_problem, NameKind};
use crate::source::Span;
use crate::yaml::{self, Mapping, Node, Scalar, YamlError};

pub(crate) struct Parser<'s> {
    pub sink: &'s mut Sink,
    /// Whether a long list of registers may be read on two threads (the same result).
    pub parallel: bool,
}

/// Parses `text` (the sink's source) into a YAML tree, or reports why it is not a map document.
/// `parallel`: whether a long list may be read on two threads (the same result).
pub(crate) fn load_yaml<'t>(
    sink: &mut Sink,
    text: &'t str,
    arenas: &'t mut yaml::Arenas,
    parallel: bool,
) -> Option<Node<'t>> {
    if text.trim().is_empty()
        || text
            .lines()
            .all(|l| l.trim().is_empty() || l.trim_start().starts_with('#'))
    {
        let span = Span::new(0, 0);
        sink.error(
            "regmap::missing_key",
            span,
            "the map is empty",
            "no content",
        )
        .help("a map needs at least `block`, `version` and `registers`; see docs/regmap-format.md");
        return None;
    }
    match yaml::load_with(text, arenas, parallel) {
        Ok(m) => Some(Node::Mapping(m)),
        Err(e) => {
            report_load_error(sink, e);
            None
        }
    }
}

fn report_load_error(sink: &mut Sink, e: YamlError) {
    let at = |sink: &Sink, b: usize| Span::new(b, 1.min(sink.src.text.len().saturating_sub(b)));
    match e {
        YamlError::Syntax {
            at: pos,
            message,
            label,
            help,
            related,
        } => {
            let span = at(sink, pos);
            let related = related.map(|(p, l)| (at(sink, p), l));
            let mut d = sink
                .error(
                    "regmap::yaml_syntax",
                    span,
                    format!("YAML syntax error: {message}"),
                    label,
                )
                .help(help);
            if let Some((s, l)) = related {
                d = d.related(s, l);
            }
            drop(d);
        }
        YamlError::TopLevelNotMapping { at: pos } => {
            let span = at(sink, pos);
            sink.error(
                "regmap::wrong_type",
                span,
                "a map must be a YAML mapping (`key: value` lines) at the top level",
                "not a mapping",
            )
            .help("start with `block: <name>`, `version: 1.0.0` and `registers:`");
        }
        YamlError::DuplicateKey {
            key,
            at: pos,
            first,
        } => {
            let span = sink.src.token_span(pos, key.len());
            let prev = sink.src.token_span(first, key.len());
            sink.error(
                "regmap::duplicate_name",
                span,
                format!("key `{key}` appears twice in one mapping"),
                "second time",
            )
            .related(prev, "first here")
            .help("remove one of them; YAML would silently keep only the last");
        }
    }
}

fn scalar_span(sink: &Sink, s: &Scalar<'_>) -> Span {
    sink.src.token_span(s.at(), s.as_str().len())
}

fn node_kind(n: &Node<'_>) -> &'static str {
    match n {
        Node::Scalar(_) => "a scalar",
        Node::Mapping(_) => "a mapping",
        Node::Sequence(_) => "a list",
    }
}

/// An integer from YAML text: decimal, 0x, 0b or 0o, with `_` separators.
pub(crate) fn parse_int(s: &str) -> Option<u64> {
    let s = s.trim();
    // Copy only when there are separators to drop.
    let owned;
    // A byte loop: `contains('_')` set up a vectorised search for a few digits.
    let t = if s.bytes().any(|c| c == b'_') {
        owned = s.replace('_', "");
        owned.as_str()
    } else {
        s
    };
    let (digits, radix) = if let Some(r) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        (r, 16)
    } else if let Some(r) = t.strip_prefix("0b").or_else(|| t.strip_prefix("0B")) {
        (r, 2)
    } else if let Some(r) = t.strip_prefix("0o") {
        (r, 8)
    } else {
        (t, 10)
    };
    if digits.is_empty() || s.starts_with('_') {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

impl Parser<'_> {
    pub fn span_of(&self, n: &Node<'_>) -> Span {
        match n {
            Node::Scalar(s) => scalar_span(self.sink, s),
            _ => Span::new(n.at(), 1),
        }
    }

    fn key_span(&self, k: &Scalar<'_>) -> Span {
        scalar_span(self.sink, k)
    }

    /// Where to point when a whole mapping is at fault: its first key.
    fn map_span(&self, m: &Mapping<'_>) -> Span {
        match m.keys().next() {
            Some(k) => self.key_span(k),
            None => Span::new(m.at(), 1),
        }
    }

    fn wrong_type(&mut self, n: &Node<'_>, what: &str, expected: &str, hint: &str) {
        let span = self.span_of(n);
        // A short one-line scalar is quoted (`found \`maybe\``), as the integer readers do.
        let found = match n.as_scalar().map(|s| s.as_str()) {
            Some(t) if !t.is_empty() && t.len() <= 40 && !t.contains(['\n', '`']) => {
                format!("`{t}`")
            }
            _ => node_kind(n).to_string(),
        };
        self.sink
            .error(
                "regmap::wrong_type",
                span,
                format!("{what} must be {expected}, found {found}"),
                format!("expected {expected}"),
            )
            .help(hint.to_string());
    }

    pub fn as_map<'n, 't>(&mut self, n: &'n Node<'t>, what: &str) -> Option<&'n Mapping<'t>> {
        match n.as_mapping() {
            Some(m) => Some(m),
            None => {
                self.wrong_type(n, what, "a mapping", "write it as `key: value` lines");
                None
            }
        }
    }

    pub fn as_list<'n, 't>(&mut self, n: &'n Node<'t>, what: &str) -> Option<&'n [Node<'t>]> {
        match n.as_sequence() {
            Some(s) => Some(s),
            None => {
                self.wrong_type(n, what, "a list", "write one `- ` item per entry");
                None
            }
        }
    }

    /// Reports unknown keys (with a did-you-mean) and missing required keys. `owner` names the
    /// thing in messages ("field `en`").
    pub fn check_keys(
        &mut self,
        m: &Mapping<'_>,
        allowed: &[&str],
        required: &[&str],
        owner: &str,
    ) {
        // Which allowed keys are present, as bits: the required ones are then looked up here
        // instead of by another scan of the mapping (every register and field passes here).
        let mut present = 0u64;
        for k in m.keys() {
            let key = k.as_str();
            if let Some(i) = allowed.iter().position(|a| *a == key) {
                if i < 64 {
                    present |= 1 << i;
                }
            } else {
                let span = self.key_span(k);
                let help = match closest(key, allowed) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None => format!("keys allowed here: {}", allowed.join(", ")),
                };
                self.sink
                    .error(
                        "regmap::unknown_key",
                        span,
                        format!("unknown key `{key}` in {owner}"),
                        "unknown key",
                    )
                    .help(help);
            }
        }
        for r in required {
            let found = match allowed.iter().position(|a| a == r) {
                Some(i) if i < 64 => present & (1 << i) != 0,
                _ => m.get_node(r).is_some(),
            };
            if !found {
                let span = self.name_or_map_span(m);
                self.sink
                    .error(
                        "regmap::missing_key",
                        span,
                        format!("{owner} has no `{r}`"),
                        format!("`{r}` missing here"),
                    )
                    .help(missing_hint(r));
            }
        }
    }

    fn name_or_map_span(&self, m: &Mapping<'_>) -> Span {
        match m.get_node("name") {
            Some(n) if n.as_scalar().is_some() => self.span_of(n),
            _ => self.map_span(m),
        }
    }

    pub fn int(&mut self, n: &Node<'_>, what: &str) -> Option<u64> {
        let s = match n.as_scalar() {
            Some(s) => s,
            None => {
                self.wrong_type(n, what, "an integer", "write a number such as 16 or 0x10");
                return None;
            }
        };
        match parse_int(s.as_str()) {
            Some(v) => Some(v),
            None => {
                let span = self.span_of(n);
                self.sink
                    .error(
                        "regmap::wrong_type",
                        span,
                        format!(
                            "{what} must be a non-negative integer, found `{}`",
                            s.as_str()
                        ),
                        "not an integer",
                    )
                    .help("write decimal (16), hex (0x10) or binary (0b1_0000); at most 64 bits");
                None
            }
        }
    }

    pub fn string(&mut self, n: &Node<'_>, what: &str) -> Option<String> {
        match n.as_scalar() {
            Some(s) => Some(s.as_str().to_string()),
            None => {
                self.wrong_type(n, what, "text", "write it on one line or as a `>-` block");
                None
            }
        }
    }

    pub fn boolean(&mut self, n: &Node<'_>, what: &str) -> Option<bool> {
        match n.as_scalar().and_then(|s| match s.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        }) {
            Some(b) => Some(b),
            None => {
                self.wrong_type(n, what, "`true` or `false`", "write true or false");
                None
            }
        }
    }

    pub fn description(&mut self, m: &Mapping<'_>) -> String {
        let Some(n) = m.get_node("description") else {
            return String::new();
        };
        let Some(text) = self.string(n, "`description`") else {
            return String::new();
        };
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        // Descriptions are copied into Verilog and C comments, Markdown, SVG (XML) and
        // SystemRDL: a control character (a NUL from `\0`, or a raw one) breaks those files
        // after the map has validated, so it is refused here, where its position is known.
        if let Some(c) = text.chars().find(|c| c.is_control()) {
            let span = self.span_of(n);
            self.sink
                .error(
                    "regmap::bad_text",
                    span,
                    format!("the description holds the control character U+{:04X}", c as u32),
                    "control character",
                )
                .help("remove it: descriptions are copied into the generated RTL, headers and documents, which cannot hold it");
        }
        text
    }

    /// Reads and checks the `name` key of `m`.
    pub fn name(&mut self, m: &Mapping<'_>, key: &str, kind: NameKind, what: &str) -> Option<Name> {
        let n = m.get_node(key)?;
        let text = match n.as_scalar() {
            Some(s) => s.as_str().to_string(),
            // The message is only formatted for a bad map.
            None => self.string(n, &format!("the {what} name"))?,
        };
        let span = self.span_of(n);
        self.check_name(&text, span, kind, what);
        Some(Name { text, span })
    }

    pub fn check_name(&mut self, text: &str, span: Span, kind: NameKind, what: &str) {
        if let Some(problem) = name_problem(text, kind) {
            let help = match kind {
                NameKind::Snake => format!("use snake_case, e.g. `{}`", to_snake(text)),
                NameKind::Upper => {
                    format!("use UPPER_CASE, e.g. `{}`", to_snake(text).to_uppercase())
                }
            };
            self.sink
                .error(
                    "regmap::bad_name",
                    span,
                    format!("bad {what} name: {problem}"),
                    "bad name",
                )
                .help(help);
        } else if is_reserved(text) {
            self.sink
                .error(
                    "regmap::keyword",
                    span,
                    format!("{what} name `{text}` is a keyword in Verilog, C/C++ or Rust"),
                    "reserved word",
                )
                .help(format!(
                    "generated RTL, headers and bindings would not compile; rename it, e.g. `{text}_val`"
                ));
        }
    }

    /// `bits: 5` or `bits: "7:0"` → (msb, lsb).
    pub fn bits(&mut self, n: &Node<'_>) -> Option<(u32, u32)> {
        let s = match n.as_scalar() {
            Some(s) => s.as_str().to_string(),
            None => {
                self.wrong_type(
                    n,
                    "`bits`",
                    "a bit number or \"msb:lsb\"",
                    "write bits: 3 or bits: \"7:0\"",
                );
                return None;
            }
        };
        let parse = |t: &str| parse_int(t).filter(|&v| v < 4096).map(|v| v as u32);
        let parsed = match s.split_once(':') {
            Some((a, b)) => parse(a).zip(parse(b)),
            None => parse(&s).map(|v| (v, v)),
        };
        let span = self.span_of(n);
        match parsed {
            Some((msb, lsb)) if msb >= lsb => Some((msb, lsb)),
            Some((msb, lsb)) => {
                self.sink
                    .error(
                        "regmap::bad_bits",
                        span,
                        format!("bit range {msb}:{lsb} has its msb below its lsb"),
                        "msb < lsb",
                    )
                    .help(format!("bit ranges are written msb first: \"{lsb}:{msb}\""));
                None
            }
            None => {
                self.sink
                    .error(
                        "regmap::bad_bits",
                        span,
                        format!("`{s}` is not a bit or bit range"),
                        "not a bit range",
                    )
                    .help("write a single bit (bits: 3) or a range msb first (bits: \"7:0\")");
                None
            }
        }
    }
}

fn missing_hint(key: &str) -> String {
    match key {
        "block" => "add `block: <snake_case name>`; the CSR module is named <block>_csr".into(),
        "version" => "add `version: 1.0.0` (MAJOR.MINOR.PATCH)".into(),
        "registers" => "add a `registers:` list".into(),
        "name" => "add `name: <snake_case name>`".into(),
        "offset" => "add `offset: 0x...`, the byte offset".into(),
        "fields" => "add a `fields:` list with at least one field".into(),
        "bits" => "add `bits: N` or `bits: \"msb:lsb\"`".into(),
        "access" => "add `access:` with one of rw, ro, wo, w1c, w1s, w0c, rc, rs, wp".into(),
        "count" => "add `count:` with an integer or a parameter name".into(),
        "stride" => "add `stride:`, the bytes between elements (a power of two)".into(),
        other => format!("add `{other}:`; see docs/regmap-format.md"),
    }
}

fn to_snake(s: &str) -> String {
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 && !out.ends_with('_') {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('_') {
            out.push('_');
        }
    }
    let trimmed = out.trim_matches('_').to_string();
    let collapsed = trimmed
        .split('_')
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join("_");
    if collapsed.starts_with(|c: char| c.is_ascii_digit()) || collapsed.is_empty() {
        format!("r_{collapsed}")
    } else {
        collapsed
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn ints() {
        assert_eq!(parse_int("0x1_0000"), Some(0x10000));
        assert_eq!(parse_int("0b101"), Some(5));
        assert_eq!(parse_int("42"), Some(42));
        assert_eq!(parse_int("-1"), None);
        assert_eq!(parse_int("abc"), None);
        assert_eq!(to_snake("RxDrop"), "rx_drop");
        assert_eq!(to_snake("a__b"), "a_b");
    }
}
