//! A YAML reader for the subset register maps use, keeping the byte position of every node.
//!
//! Why our own: the general YAML stack (yaml-rust2 scanner + marked-yaml tree) was the biggest
//! serial cost of `rdmagen check`/`all` (about 240 M instructions for 580 KB). Maps need only:
//! block and flow mappings and sequences, plain / single- / double-quoted scalars, block scalars
//! (`|`, `>` with `-`/`+` chomping), comments and an optional leading `---`. Everything else
//! (anchors, aliases, tags, directives, complex keys, several documents, tabs as indentation,
//! explicit indentation indicators) is a [`YamlError`] with a position and a hint, never a
//! guess. Scalars are kept as text (no typing: `true`, `0x10`, `~` are strings), borrowed from
//! the source when they are one line long.
//!
//! Positions follow the previous reader so diagnostics point at the same places: a scalar at its
//! first character (the quote or the `|`/`>` indicator), a block mapping at its first key, a
//! block sequence at its first `-`, a flow collection at its bracket.

use bumpalo::Bump;

use crate::fasthash::FastSet;

/// Where a document's nodes live: one bump arena per reading thread. Collections are slices
/// of an arena, sized exactly, rather than a vector each: a 4096-register map has tens of
/// thousands of them, and a vector each was a heap allocation with room to spare (about a
/// quarter of the front end's page faults). Dropping the arenas frees the whole tree at once.
#[derive(Default)]
pub(crate) struct Arenas {
    main: Bump,
    /// For the second half of a long list, read on another thread (see [`Split`]).
    other: Bump,
}

/// A scalar: its text (escapes resolved, lines folded) and the byte offset where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Scalar<'t> {
    pub text: &'t str,
    /// A byte offset (`u32`: a node stays small; [`load_with`] refuses larger texts).
    at: u32,
}

impl<'t> Scalar<'t> {
    fn new(text: &'t str, at: usize) -> Self {
        Scalar {
            text,
            at: at as u32,
        }
    }
    pub fn as_str(&self) -> &'t str {
        self.text
    }
    pub fn at(&self) -> usize {
        self.at as usize
    }
}

/// A mapping: its entries in source order (keys are unique) and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Mapping<'t> {
    at: u32,
    pub entries: &'t [(Scalar<'t>, Node<'t>)],
}

impl<'t> Mapping<'t> {
    pub fn at(&self) -> usize {
        self.at as usize
    }
    pub fn keys(&self) -> impl Iterator<Item = &Scalar<'t>> {
        self.entries.iter().map(|(k, _)| k)
    }
    /// The value under `key` (mappings in maps have a handful of keys: a scan is fastest).
    pub fn get_node(&self, key: &str) -> Option<&Node<'t>> {
        self.entries
            .iter()
            .find(|(k, _)| k.text == key)
            .map(|(_, v)| v)
    }
}

/// A sequence: its items and where it starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Sequence<'t> {
    at: u32,
    pub items: &'t [Node<'t>],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Node<'t> {
    Scalar(Scalar<'t>),
    Mapping(Mapping<'t>),
    Sequence(Sequence<'t>),
}

impl<'t> Node<'t> {
    pub fn at(&self) -> usize {
        match self {
            Node::Scalar(s) => s.at(),
            Node::Mapping(m) => m.at(),
            Node::Sequence(s) => s.at as usize,
        }
    }
    pub fn as_scalar(&self) -> Option<&Scalar<'t>> {
        match self {
            Node::Scalar(s) => Some(s),
            _ => None,
        }
    }
    pub fn as_mapping(&self) -> Option<&Mapping<'t>> {
        match self {
            Node::Mapping(m) => Some(m),
            _ => None,
        }
    }
    pub fn as_sequence(&self) -> Option<&'t [Node<'t>]> {
        match self {
            Node::Sequence(s) => Some(s.items),
            _ => None,
        }
    }
}

/// Why the text is not a map document we can read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum YamlError {
    /// Not YAML, or YAML outside the subset.
    Syntax {
        at: usize,
        message: String,
        label: &'static str,
        help: String,
        /// Another place worth showing, e.g. the bracket that was never closed.
        related: Option<(usize, &'static str)>,
    },
    /// The same key twice in one mapping (`at`: second key, `first`: first key).
    DuplicateKey {
        key: String,
        at: usize,
        first: usize,
    },
    /// The document is a scalar or a list, not a mapping.
    TopLevelNotMapping { at: usize },
}

type Result<T> = std::result::Result<T, YamlError>;

/// Reads one YAML document whose top level must be a mapping.
#[cfg(test)]
pub(crate) fn load<'t>(text: &'t str, arenas: &'t mut Arenas) -> Result<Mapping<'t>> {
    load_with(text, arenas, true)
}

/// Reads one YAML document whose top level must be a mapping, its nodes kept in `arenas`;
/// `split` lets the reader read the second half of a long block list on another thread (see
/// [`Split`]). The result is the same either way.
pub(crate) fn load_with<'t>(
    text: &'t str,
    arenas: &'t mut Arenas,
    split: bool,
) -> Result<Mapping<'t>> {
    if u32::try_from(text.len()).is_err() {
        return Err(YamlError::Syntax {
            at: 0,
            message: "the map is larger than 4 GiB".into(),
            label: "here",
            help: "split the map into several files".into(),
            related: None,
        });
    }
    let Arenas { main, other } = arenas;
    if !split || text.len() < SPLIT_MIN_BYTES {
        return Reader::new(text, main, 0, 0, None).document();
    }
    std::thread::scope(|scope| {
        Reader::new(
            text,
            main,
            0,
            0,
            Some(Split {
                scope,
                arena: Some(other),
                pending: None,
            }),
        )
        .document()
    })
}

/// Text left after a block list's first `-` from which its second half is read on another
/// thread: about 450 registers of a NIC-scale map, a few million instructions, far more than
/// starting a thread costs.
/// The `fuzz` feature lowers both limits so that the split runs on a fuzzer's small inputs.
const SPLIT_MIN_BYTES: usize = if cfg!(feature = "fuzz") {
    64
} else {
    64 * 1024
};
/// How far past the middle of the text a line that starts an item of the list is looked for.
const SPLIT_SEARCH_BYTES: usize = if cfg!(feature = "fuzz") {
    256
} else {
    64 * 1024
};

/// A long block list read by two threads. At the first block list with at least
/// [`SPLIT_MIN_BYTES`] of text after it, the reader picks the first line past the middle of
/// the remaining text that looks like an item of that list (`-` at the list's indentation) and
/// reads the list's items from there to its end on another thread, as it would itself from
/// the same position, indentation and depth (nothing else of the reader's state decides what
/// it reads; `closed` only words error messages). When the reader itself reaches that `-` at
/// the top of a list's item loop with the same indentation and depth, the other thread's items
/// are exactly the items it would read next, and it takes them and the position after them.
/// If the line was not an item boundary (inside a block scalar or a quoted string, or in
/// another list), or the other thread stopped at an error, the reader never takes its result
/// and reads on by itself: the result and the first error are those of reading alone.
struct Split<'t, 's> {
    scope: &'s std::thread::Scope<'s, 't>,
    /// The other thread's arena; taken by the one attempt per document.
    arena: Option<&'t mut Bump>,
    pending: Option<Pending<'t, 's>>,
}

/// The other thread's read: from the `-` at `at`, of a list at `indent`, at `depth`; its
/// items and the position after them, or `None` at an error.
struct Pending<'t, 's> {
    at: usize,
    indent: usize,
    depth: usize,
    items: crate::apart::Apart<'s, Option<(Vec<Node<'t>>, usize)>>,
}

/// What kind of block collection an indentation level belongs to (for messages).
#[derive(Clone, Copy)]
enum Level {
    Keys,
    Items,
}

struct Reader<'t, 's> {
    t: &'t str,
    b: &'t [u8],
    pos: usize,
    /// Where the nodes go.
    arena: &'t Bump,
    /// The entries of the mappings being read, innermost last: a mapping's entries are moved
    /// into the arena as one slice when it ends (likewise `items` for lists).
    entries: Vec<(Scalar<'t>, Node<'t>)>,
    items: Vec<Node<'t>>,
    /// Open flow brackets (position, byte), innermost last, for "not closed" messages.
    flow: Vec<(usize, u8)>,
    /// The indentation of the block collection that ended last, to explain bad indentation.
    closed: Option<(usize, Level)>,
    /// Nodes being read, outermost first: bounds the recursion on hostile input.
    depth: usize,
    /// Reading a long list on two threads; `None` on the other thread itself.
    split: Option<Split<'t, 's>>,
}

/// Nesting limit: maps need a handful of levels, and deeper input must not exhaust the stack.
const MAX_DEPTH: usize = 64;

const INDENT_HELP: &str =
    "indent with spaces so that the keys of one mapping and the `- ` items of one list line up";

fn is_blank(c: u8) -> bool {
    c == b' ' || c == b'\t'
}

fn is_flow_indicator(c: u8) -> bool {
    matches!(c, b',' | b'[' | b']' | b'{' | b'}')
}

/// The bytes `plain_line_end` has to look at: everything else just goes into the scalar.
const PLAIN_STOP: [bool; 256] = {
    let mut t = [false; 256];
    let stops = b"\n\r\t :#,[]{}";
    let mut i = 0;
    while i < stops.len() {
        t[stops[i] as usize] = true;
        i += 1;
    }
    t
};

impl<'t, 's> Reader<'t, 's> {
    fn new(
        text: &'t str,
        arena: &'t Bump,
        pos: usize,
        depth: usize,
        split: Option<Split<'t, 's>>,
    ) -> Self {
        Reader {
            t: text,
            b: text.as_bytes(),
            pos,
            arena,
            entries: Vec::new(),
            items: Vec::new(),
            flow: Vec::new(),
            closed: None,
            depth,
            split,
        }
    }

    /// At the first `-` of a block list at `indent`: starts reading its second half on another
    /// thread if the text is long enough and this is the document's first try (see [`Split`]).
    fn start_split(&mut self, indent: usize) {
        let Some(split) = self.split.as_mut() else {
            return;
        };
        if split.arena.is_none() || self.b.len() - self.pos < SPLIT_MIN_BYTES {
            return;
        }
        let Some(arena) = split.arena.take() else {
            return;
        };
        let b = self.b;
        let middle = self.pos + (b.len() - self.pos) / 2;
        let end = b.len().min(middle + SPLIT_SEARCH_BYTES);
        // Line starts after the middle: `indent` spaces, then `-` ending a token.
        let mut line = match b[middle..end].iter().position(|&c| c == b'\n') {
            Some(i) => middle + i + 1,
            None => return,
        };
        let at = loop {
            if line + indent < end
                && b[line..line + indent].iter().all(|&c| c == b' ')
                && b[line + indent] == b'-'
                && b.get(line + indent + 1)
                    .is_none_or(|&c| is_blank(c) || c == b'\n' || c == b'\r')
            {
                break line + indent;
            }
            match b[line..end].iter().position(|&c| c == b'\n') {
                Some(i) => line += i + 1,
                None => return,
            }
        };
        let (text, depth) = (self.t, self.depth);
        let worker = crate::apart::spawn_scoped(split.scope, move || {
            let mut r = Reader::new(text, arena, at, depth, None);
            r.sequence_items(indent).ok()?;
            Some((r.items, r.pos))
        });
        // Without a thread the reader reads the whole list itself.
        if let Ok(items) = worker {
            split.pending = Some(Pending {
                at,
                indent,
                depth,
                items,
            });
        }
    }

    /// At the top of a block list's item loop, the `-` at `self.pos`: takes the other
    /// thread's items if it started here, at this indentation and depth, and read to the
    /// list's end; then `self.pos` is after them and the list is complete.
    fn take_split(&mut self, indent: usize) -> bool {
        let Some(split) = self.split.as_mut() else {
            return false;
        };
        if split.pending.as_ref().is_none_or(|p| p.at != self.pos) {
            return false;
        }
        let Some(p) = split.pending.take() else {
            return false;
        };
        if p.indent != indent || p.depth != self.depth {
            return false;
        }
        match p.items.join() {
            Ok(Some((more, end))) => {
                self.items.extend(more);
                self.pos = end;
                true
            }
            // An error (or a panic, which reading alone would meet too): read on alone.
            Ok(None) | Err(_) => false,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.b.get(self.pos).copied()
    }
    fn at(&self, p: usize) -> Option<u8> {
        self.b.get(p).copied()
    }
    /// True when the byte at `p` ends a token: space, tab, line break or end of text.
    fn ends_token(&self, p: usize) -> bool {
        match self.at(p) {
            None => true,
            Some(c) => is_blank(c) || c == b'\n' || c == b'\r',
        }
    }
    fn col(&self, p: usize) -> usize {
        p - self.line_start(p)
    }
    fn line_start(&self, p: usize) -> usize {
        // Nearly always a few spaces back: a plain loop beats `rfind`'s vectorised search.
        self.b[..p]
            .iter()
            .rposition(|&c| c == b'\n')
            .map_or(0, |i| i + 1)
    }

    fn err(&self, at: usize, message: impl Into<String>, help: impl Into<String>) -> YamlError {
        YamlError::Syntax {
            at,
            message: message.into(),
            label: "here",
            help: help.into(),
            related: self.flow.last().map(|&(p, _)| (p, "still open here")),
        }
    }

    /// Reports a character that starts something outside the subset, or `None` if it is fine.
    #[inline]
    fn unsupported(&self, p: usize) -> Option<YamlError> {
        // Checked before every node: the common answer without a call.
        match self.at(p)? {
            b'&' | b'*' | b'!' | b'%' | b'@' | b'`' | b'?' => self.unsupported_at(p),
            _ => None,
        }
    }

    #[cold]
    fn unsupported_at(&self, p: usize) -> Option<YamlError> {
        let c = self.at(p)?;
        let (what, help) = match c {
            b'&' => (
                "anchors (`&name`) are not supported in maps",
                "write the value out in full",
            ),
            b'*' => (
                "aliases (`*name`) are not supported in maps",
                "write the value out in full",
            ),
            b'!' => (
                "tags (`!tag`) are not supported in maps",
                "remove the tag; values are read as text",
            ),
            b'%' => (
                "YAML directives (`%YAML`, `%TAG`) are not supported in maps",
                "remove the directive line",
            ),
            b'@' | b'`' => (
                "`@` and `` ` `` are reserved in YAML and cannot start a value",
                "quote the value: \"...\"",
            ),
            b'?' if self.ends_token(p + 1) => (
                "complex keys (`? key`) are not supported in maps",
                "write keys as `key: value`",
            ),
            _ => return None,
        };
        Some(self.err(p, what, help))
    }

    /// Skips spaces and comments up to the end of the current line. Errors on other content.
    fn end_of_line(&mut self, what: &str) -> Result<()> {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if is_blank(c) {
                self.pos += 1;
            } else {
                break;
            }
        }
        match self.peek() {
            None | Some(b'\n') => Ok(()),
            Some(b'\r') if self.at(self.pos + 1) == Some(b'\n') => Ok(()),
            Some(b'#') if self.pos > start => {
                self.pos += self.t[self.pos..]
                    .find('\n')
                    .unwrap_or(self.t.len() - self.pos);
                Ok(())
            }
            Some(b':') => Err(self.err(
                self.pos,
                format!("unexpected `:` after {what}"),
                "a value cannot be a key too; put a nested mapping on the next lines, indented",
            )),
            Some(_) => Err(self.err(
                self.pos,
                format!("unexpected text after {what}"),
                "put one value per `key:` or `- `, and quote text that holds `\"` or `'`",
            )),
        }
    }

    /// Moves to the first character of the next line with content (skipping blank and comment
    /// lines), or to the end of the text. Returns false at the end of the text.
    fn next_content(&mut self) -> Result<bool> {
        loop {
            // Rest of the current line: blanks, an optional comment.
            let line_start = self.pos == 0 || self.b[self.pos - 1] == b'\n';
            let mut p = self.pos;
            let mut tab = None;
            while p < self.b.len() && is_blank(self.b[p]) {
                if tab.is_none() && self.b[p] == b'\t' {
                    tab = Some(p);
                }
                p += 1;
            }
            match self.at(p) {
                None => {
                    self.pos = p;
                    return Ok(false);
                }
                Some(b'#') if p == 0 || matches!(self.b[p - 1], b' ' | b'\t' | b'\n') => {
                    p += self.t[p..].find('\n').unwrap_or(self.t.len() - p);
                    self.pos = p;
                }
                Some(b'\n') => self.pos = p + 1,
                Some(b'\r') if self.at(p + 1) == Some(b'\n') => self.pos = p + 2,
                Some(b'\r') => {
                    return Err(self.err(
                        p,
                        "carriage return without a line feed",
                        "save the file with LF or CRLF line endings",
                    ))
                }
                Some(_) if line_start => {
                    if let Some(tab) = tab {
                        return Err(self.err(
                            tab,
                            "tab in indentation",
                            "YAML indentation is spaces only; replace the tab with spaces",
                        ));
                    }
                    self.pos = p;
                    return Ok(true);
                }
                Some(_) => {
                    self.pos = p;
                    return Ok(true);
                }
            }
        }
    }

    /// True at `---` or `...` at the start of a line (document markers).
    fn at_document_marker(&self, p: usize) -> bool {
        let b = &self.b[p.min(self.b.len())..];
        (b.starts_with(b"---") || b.starts_with(b"..."))
            && self.col(p) == 0
            && self.ends_token(p + 3)
    }

    fn document(&mut self) -> Result<Mapping<'t>> {
        if !self.next_content()? {
            return Err(self.err(0, "the document is empty", "write the map's keys"));
        }
        if self.t[self.pos..].starts_with("---") && self.at_document_marker(self.pos) {
            self.pos += 3;
            self.end_of_line("`---`")?;
            if !self.next_content()? {
                return Err(self.err(0, "the document is empty", "write the map's keys"));
            }
        }
        if let Some(e) = self.unsupported(self.pos) {
            return Err(e);
        }
        let root = self.block_node(-1)?;
        if self.next_content()? {
            let p = self.pos;
            let (message, help) = if self.at_document_marker(p) {
                (
                    "a map file holds one YAML document",
                    "remove the document marker and anything after it",
                )
            } else {
                (
                    "bad indentation: this line is indented less than the first line of the map",
                    "start every top-level key in the first column",
                )
            };
            return Err(self.err(p, message, help));
        }
        match root {
            Node::Mapping(m) => Ok(m),
            other => Err(YamlError::TopLevelNotMapping { at: other.at() }),
        }
    }

    /// A node in block context starting at `self.pos` (first character of the node). Its
    /// continuation lines must be indented more than `parent`.
    fn block_node(&mut self, parent: isize) -> Result<Node<'t>> {
        self.enter()?;
        let node = self.block_node_inner(parent);
        self.depth -= 1;
        node
    }

    /// Counts one more level of nesting; maps need a handful, so a deep file is refused
    /// rather than allowed to exhaust the stack.
    #[inline]
    fn enter(&mut self) -> Result<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.too_deep());
        }
        Ok(())
    }

    #[cold]
    fn too_deep(&self) -> YamlError {
        self.err(
            self.pos,
            format!("nesting deeper than {MAX_DEPTH} levels"),
            "a map needs a few levels (map, registers, fields); check the brackets and indentation",
        )
    }

    fn block_node_inner(&mut self, parent: isize) -> Result<Node<'t>> {
        let p = self.pos;
        let c = self.b[p];
        let col = self.col(p);
        if self.at_document_marker(p) {
            return Err(self.err(
                p,
                "a map file holds one YAML document",
                "remove the document marker and anything after it",
            ));
        }
        if let Some(e) = self.unsupported(p) {
            return Err(e);
        }
        match c {
            b'-' if self.ends_token(p + 1) => self.block_sequence(col).map(Node::Sequence),
            b'[' | b'{' => {
                let n = self.flow_node(parent.max(0) as usize)?;
                self.end_of_line("a flow collection")?;
                Ok(n)
            }
            b'|' | b'>' => self.block_scalar(parent).map(Node::Scalar),
            _ => {
                // A scalar, or the first key of a block mapping.
                if let Some(key) = self.implicit_key()? {
                    return self.block_mapping(col, key).map(Node::Mapping);
                }
                self.scalar_value(parent).map(Node::Scalar)
            }
        }
    }

    /// If the line at `self.pos` is `key: ...`, reads the key and the `:` and returns the key.
    /// Otherwise leaves the position alone.
    fn implicit_key(&mut self) -> Result<Option<Scalar<'t>>> {
        let p = self.pos;
        let c = self.b[p];
        let (key, after) = if c == b'"' || c == b'\'' {
            let line_end = self.b[p..]
                .iter()
                .position(|&c| c == b'\n')
                .map_or(self.b.len(), |i| p + i);
            // A quoted key must close on its line and be followed by `:`.
            let close = match self.find_quote_end(p, line_end) {
                Some(e) => e,
                None => return Ok(None),
            };
            let mut q = close;
            while q < line_end && is_blank(self.b[q]) {
                q += 1;
            }
            if self.at(q) != Some(b':') || !self.ends_token(q + 1) {
                return Ok(None);
            }
            let s = self.quoted(-1, false)?;
            (s, q + 1)
        } else {
            if !self.plain_can_start(p, false) {
                return Ok(None);
            }
            let (end, colon, _) = self.plain_line_end(p, false);
            match colon {
                Some(q) => (Scalar::new(&self.t[p..end], p), q + 1),
                None => return Ok(None),
            }
        };
        self.pos = after;
        Ok(Some(key))
    }

    /// Whether a plain scalar may start at `p` (not an indicator).
    fn plain_can_start(&self, p: usize, flow: bool) -> bool {
        match self.b[p] {
            b'-' | b'?' | b':' => {
                !(self.ends_token(p + 1) || (flow && self.at(p + 1).is_some_and(is_flow_indicator)))
            }
            b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\''
            | b'"' | b'%' | b'@' | b'`' => false,
            _ => true,
        }
    }

    /// Scans one line of a plain scalar starting at `p`: returns the end of its text (trailing
    /// blanks trimmed), the position of the `:` if it stopped at a `: ` (a key), and where it
    /// stopped.
    fn plain_line_end(&self, p: usize, flow: bool) -> (usize, Option<usize>, usize) {
        let mut q = p;
        let mut end = p;
        let mut colon = None;
        while q < self.b.len() {
            // Most of a scalar is letters and digits: skip them before looking closer.
            let run = q;
            while q < self.b.len() && !PLAIN_STOP[usize::from(self.b[q])] {
                q += 1;
            }
            if q > run {
                end = q;
                if q == self.b.len() {
                    break;
                }
            }
            let c = self.b[q];
            if c == b'\n' {
                break;
            }
            if c == b':'
                && (self.ends_token(q + 1)
                    || (flow && self.at(q + 1).is_some_and(is_flow_indicator)))
            {
                colon = Some(q);
                break;
            }
            if c == b'#' && q > p && is_blank(self.b[q - 1]) {
                break;
            }
            if flow && is_flow_indicator(c) {
                break;
            }
            if c == b'\r' && matches!(self.at(q + 1), None | Some(b'\n')) {
                break;
            }
            q += 1;
            if !is_blank(c) {
                end = q;
            }
        }
        (end, colon, q)
    }

    /// If `stop` is at the end of its line (`\n`, `\r\n` or the end of the text), the
    /// position of that line's `\n` (or the end).
    fn line_break_at(&self, stop: usize) -> Option<usize> {
        match self.at(stop) {
            None | Some(b'\n') => Some(stop),
            Some(b'\r') if matches!(self.at(stop + 1), None | Some(b'\n')) => Some(stop + 1),
            _ => None,
        }
    }

    fn block_mapping(&mut self, indent: usize, first_key: Scalar<'t>) -> Result<Mapping<'t>> {
        // The previous reader placed a block mapping at the `:` of its first key.
        let at = self.pos - 1;
        let base = self.entries.len();
        let mut seen = None;
        let mut key = first_key;
        loop {
            let value = self.mapping_value(indent)?;
            insert(&mut self.entries, base, &mut seen, key, value)?;
            if !self.next_content()? {
                break;
            }
            let col = self.col(self.pos);
            if col < indent || self.at_document_marker(self.pos) {
                break;
            }
            if col > indent {
                return Err(self.bad_indent(indent, Level::Keys));
            }
            let p = self.pos;
            if self.b[p] == b'-' && self.ends_token(p + 1) {
                return Err(self.err(
                    p,
                    "a list item where a `key:` was expected",
                    "indent the list under its key, or give it a key",
                ));
            }
            if let Some(e) = self.unsupported(p) {
                return Err(e);
            }
            key = match self.implicit_key()? {
                Some(k) => k,
                None => {
                    return Err(self.err(
                        p,
                        "expected `key: value` at this indentation",
                        "every line of a mapping is `key: value`; quote values that hold `: ` or start with a special character",
                    ))
                }
            };
        }
        self.closed = Some((indent, Level::Keys));
        Ok(self.mapping_from(at, base))
    }

    /// The mapping at `at` whose entries are `self.entries[base..]`, moved into the arena.
    fn mapping_from(&mut self, at: usize, base: usize) -> Mapping<'t> {
        Mapping {
            at: at as u32,
            entries: move_to(self.arena, &mut self.entries, base),
        }
    }

    /// The list at `at` whose items are `self.items[base..]`, moved into the arena.
    fn sequence_from(&mut self, at: usize, base: usize) -> Sequence<'t> {
        Sequence {
            at: at as u32,
            items: move_to(self.arena, &mut self.items, base),
        }
    }

    fn bad_indent(&self, indent: usize, level: Level) -> YamlError {
        let p = self.pos;
        let col = self.col(p);
        let name = |l: Level| match l {
            Level::Keys => "keys",
            Level::Items => "list items",
        };
        let mut message = format!(
            "bad indentation: this line is indented {col} spaces, the {} here are at {indent}",
            name(level)
        );
        if let Some((c, l)) = self.closed {
            if c > col {
                message.push_str(&format!(" and the {} above at {c}", name(l)));
            }
        }
        YamlError::Syntax {
            at: p,
            message,
            label: "misaligned",
            help: INDENT_HELP.into(),
            related: None,
        }
    }

    /// The value after `key:` of a block mapping at `indent`; `self.pos` is after the `:`.
    fn mapping_value(&mut self, indent: usize) -> Result<Node<'t>> {
        let colon = self.pos - 1;
        while self.peek().is_some_and(is_blank) {
            self.pos += 1;
        }
        let inline = match self.peek() {
            None | Some(b'\n') => false,
            Some(b'\r') if self.at(self.pos + 1) == Some(b'\n') => false,
            Some(b'#') if self.pos > colon + 1 => false,
            Some(_) => true,
        };
        if inline {
            let p = self.pos;
            if self.b[p] == b'-' && self.ends_token(p + 1) {
                return Err(self.err(
                    p,
                    "a list cannot start on the line of its key",
                    "start the list on the next line: `key:` then `  - item` lines",
                ));
            }
            if let Some(e) = self.unsupported(p) {
                return Err(e);
            }
            return match self.b[p] {
                b'[' | b'{' => {
                    let n = self.flow_node(indent)?;
                    self.end_of_line("a flow collection")?;
                    Ok(n)
                }
                b'|' | b'>' => self.block_scalar(indent as isize).map(Node::Scalar),
                _ => self.scalar_value(indent as isize).map(Node::Scalar),
            };
        }
        // The value is on the next lines, or empty.
        let after = self.pos;
        if !self.next_content()? {
            return Ok(self.empty(self.pos));
        }
        let col = self.col(self.pos);
        if col > indent && !self.at_document_marker(self.pos) {
            return self.block_node(indent as isize);
        }
        if col == indent && self.b[self.pos] == b'-' && self.ends_token(self.pos + 1) {
            // A list at the indentation of its key (YAML allows it). The previous reader placed
            // it at its first item rather than at the `-`.
            let dash = self.pos;
            let mut s = self.block_sequence(indent)?;
            // The previous reader placed it after its first `- ` (and any comment there).
            let mut p = dash + 1;
            while self.at(p).is_some_and(is_blank) {
                p += 1;
            }
            if self.at(p) == Some(b'#') {
                p += self.t[p..].find('\n').unwrap_or(self.t.len() - p);
            }
            s.at = p as u32;
            return Ok(Node::Sequence(s));
        }
        // `key:` with nothing: an empty value. Back up so the caller sees the next line.
        let next = self.pos;
        self.pos = after;
        Ok(self.empty(next))
    }

    /// An empty scalar (`key:` with no value), placed where the previous reader placed it: at
    /// the next token.
    fn empty(&self, at: usize) -> Node<'t> {
        Node::Scalar(Scalar::new("", at))
    }

    fn block_sequence(&mut self, indent: usize) -> Result<Sequence<'t>> {
        let (at, base) = (self.pos, self.items.len());
        self.start_split(indent);
        self.sequence_items(indent)?;
        self.closed = Some((indent, Level::Items));
        Ok(self.sequence_from(at, base))
    }

    /// The items of a block list at `indent` from the `-` at `self.pos` to the list's end,
    /// pushed onto `self.items`.
    fn sequence_items(&mut self, indent: usize) -> Result<()> {
        loop {
            if self.split.is_some() && self.take_split(indent) {
                break;
            }
            let dash = self.pos;
            self.pos += 1;
            while self.peek().is_some_and(is_blank) {
                self.pos += 1;
            }
            let inline = match self.peek() {
                None | Some(b'\n') => false,
                Some(b'\r') if self.at(self.pos + 1) == Some(b'\n') => false,
                Some(b'#') => false,
                Some(_) => true,
            };
            let item = if inline {
                self.block_node(indent as isize)?
            } else {
                if self.next_content()?
                    && self.col(self.pos) > indent
                    && !self.at_document_marker(self.pos)
                {
                    self.block_node(indent as isize)?
                } else {
                    // YAML reads it as null; in a map it is always a slip.
                    return Err(self.err(
                        dash,
                        "empty list item (`-` with nothing after it)",
                        "write the item after the `- `, or remove the line",
                    ));
                }
            };
            self.items.push(item);
            if !self.next_content()? {
                break;
            }
            let col = self.col(self.pos);
            if col < indent || self.at_document_marker(self.pos) {
                break;
            }
            if col > indent {
                return Err(self.bad_indent(indent, Level::Items));
            }
            if !(self.b[self.pos] == b'-' && self.ends_token(self.pos + 1)) {
                // A key at the list's indentation: the list was the value of a key at this
                // indentation (`key:` then `- ` lines), and the mapping goes on. Anything else is
                // reported by the caller.
                break;
            }
        }
        Ok(())
    }

    /// A scalar value in block context (plain or quoted), whose continuation lines must be
    /// indented more than `parent`. The rest of its last line must be empty or a comment.
    fn scalar_value(&mut self, parent: isize) -> Result<Scalar<'t>> {
        let p = self.pos;
        let s = match self.b[p] {
            b'"' | b'\'' => self.quoted(parent, false)?,
            _ if self.plain_can_start(p, false) => self.plain(parent, false)?,
            c => {
                return Err(self.err(
                    p,
                    format!("`{}` cannot start a value", c as char),
                    "quote the value: \"...\"",
                ))
            }
        };
        self.end_of_line("a value")?;
        Ok(s)
    }

    /// A plain scalar, possibly over several lines (folded with spaces). In block context,
    /// continuation lines must be indented more than `parent`; in flow context, at least as
    /// much as `parent` (the enclosing block's indentation).
    fn plain(&mut self, parent: isize, flow: bool) -> Result<Scalar<'t>> {
        let start = self.pos;
        let (end, colon, stop) = self.plain_line_end(start, flow);
        if let Some(q) = colon {
            if !flow {
                return Err(self.err(
                    q,
                    "a nested mapping cannot start on the line of its key",
                    "put the nested `key: value` lines on the next lines, indented; or quote the text if the `: ` belongs to it",
                ));
            }
        }
        self.pos = end;
        let line_break = if colon.is_none() {
            self.line_break_at(stop)
        } else {
            None
        };
        let Some(mut q) = line_break else {
            return Ok(Scalar::new(&self.t[start..end], start));
        };
        // Continuation lines.
        let mut text: Option<String> = None;
        loop {
            // `q` is at a '\n' (or the end). Look at the next lines.
            let mut blanks = 0;
            let mut r = q;
            let content = loop {
                if r >= self.b.len() {
                    break None;
                }
                r += 1; // past '\n'
                let ls = r;
                while r < self.b.len() && (self.b[r] == b' ' || self.b[r] == b'\t') {
                    r += 1;
                }
                match self.at(r) {
                    None => break None,
                    Some(b'\n') => blanks += 1,
                    Some(b'\r') if self.at(r + 1) == Some(b'\n') => {
                        r += 1;
                        blanks += 1
                    }
                    Some(_) => break Some((ls, r)),
                }
            };
            let Some((ls, cs)) = content else { break };
            let indent = self.t[ls..cs].bytes().take_while(|&c| c == b' ').count() as isize;
            let enough = if flow {
                indent >= parent.max(0)
            } else {
                indent > parent
            };
            if !enough || self.b[cs] == b'#' || self.at_document_marker(cs) {
                break;
            }
            if flow && (is_flow_indicator(self.b[cs])) {
                break;
            }
            if flow
                && self.b[cs] == b':'
                && (self.ends_token(cs + 1) || self.at(cs + 1).is_some_and(is_flow_indicator))
            {
                break;
            }
            let (e, colon, stop) = self.plain_line_end(cs, flow);
            if colon.is_some() && !flow {
                return Err(self.err(
                    colon.unwrap_or(cs),
                    "a `key: value` inside a multi-line text value",
                    "indent it as its own entry, or quote the text if the `: ` belongs to it",
                ));
            }
            let t = text.get_or_insert_with(|| self.t[start..end].to_string());
            if blanks == 0 {
                t.push(' ');
            } else {
                for _ in 0..blanks {
                    t.push('\n');
                }
            }
            t.push_str(&self.t[cs..e]);
            self.pos = e;
            // Did the line end here (so another continuation may follow)?
            match self.line_break_at(stop) {
                Some(b) if colon.is_none() => q = b,
                _ => break,
            }
        }
        let text = match text {
            Some(t) => self.arena.alloc_str(&t),
            None => &self.t[start..end],
        };
        Ok(Scalar::new(text, start))
    }

    /// Position just after the closing quote of a quoted scalar opening at `p`, if it closes
    /// before `limit`.
    fn find_quote_end(&self, p: usize, limit: usize) -> Option<usize> {
        let q = self.b[p];
        let mut i = p + 1;
        while i < limit {
            let c = self.b[i];
            if q == b'\'' && c == b'\'' {
                if self.at(i + 1) == Some(b'\'') && i + 1 < limit {
                    i += 2;
                    continue;
                }
                return Some(i + 1);
            }
            if q == b'"' {
                if c == b'\\' {
                    i += 2;
                    continue;
                }
                if c == b'"' {
                    return Some(i + 1);
                }
            }
            i += 1;
        }
        None
    }

    /// A single- or double-quoted scalar at `self.pos`; continuation lines must be indented
    /// more than `parent` (block) or at least `parent` (flow).
    fn quoted(&mut self, parent: isize, flow: bool) -> Result<Scalar<'t>> {
        let open = self.pos;
        let q = self.b[open];
        let double = q == b'"';
        let mut i = open + 1;
        // Fast path: no escape, no line break.
        let mut run = i;
        while run < self.b.len() {
            let c = self.b[run];
            if c == q || c == b'\n' || c == b'\r' || (double && c == b'\\') {
                break;
            }
            run += 1;
        }
        if run < self.b.len()
            && self.b[run] == q
            && !(q == b'\'' && self.at(run + 1) == Some(b'\''))
        {
            self.pos = run + 1;
            return Ok(Scalar::new(&self.t[i..run], open));
        }
        let unterminated = |r: &Self| YamlError::Syntax {
            at: open,
            message: format!(
                "unterminated {} string",
                if double {
                    "double-quoted"
                } else {
                    "single-quoted"
                }
            ),
            label: "opened here",
            help: format!(
                "close it with {}; its continuation lines must be indented more than its key",
                q as char
            ),
            related: r
                .flow
                .last()
                .map(|&(p, _)| (p, "inside this flow collection")),
        };
        let mut out = String::new();
        // Length of `out` up to the last escape: escaped blanks survive line folding.
        let mut kept = 0;
        loop {
            let Some(c) = self.at(i) else {
                return Err(unterminated(self));
            };
            match c {
                _ if c == q => {
                    if q == b'\'' && self.at(i + 1) == Some(b'\'') {
                        out.push('\'');
                        i += 2;
                        continue;
                    }
                    self.pos = i + 1;
                    return Ok(Scalar::new(self.arena.alloc_str(&out), open));
                }
                b'\\' if double => {
                    let Some(e) = self.at(i + 1) else {
                        return Err(unterminated(self));
                    };
                    let simple = match e {
                        b'0' => Some('\0'),
                        b'a' => Some('\x07'),
                        b'b' => Some('\x08'),
                        b't' | b'\t' => Some('\t'),
                        b'n' => Some('\n'),
                        b'v' => Some('\x0b'),
                        b'f' => Some('\x0c'),
                        b'r' => Some('\r'),
                        b'e' => Some('\x1b'),
                        b' ' => Some(' '),
                        b'"' => Some('"'),
                        b'/' => Some('/'),
                        b'\\' => Some('\\'),
                        b'N' => Some('\u{85}'),
                        b'_' => Some('\u{a0}'),
                        b'L' => Some('\u{2028}'),
                        b'P' => Some('\u{2029}'),
                        _ => None,
                    };
                    if let Some(ch) = simple {
                        out.push(ch);
                        kept = out.len();
                        i += 2;
                        continue;
                    }
                    let digits = match e {
                        b'x' => 2,
                        b'u' => 4,
                        b'U' => 8,
                        b'\n' | b'\r' => {
                            // Escaped line break: join without a space.
                            i += 1;
                            let (ni, blanks) = self.fold_break(i, parent, flow, open, double)?;
                            for _ in 0..blanks {
                                out.push('\n');
                            }
                            kept = out.len();
                            i = ni;
                            continue;
                        }
                        _ => {
                            return Err(self.err(
                                i,
                                "unknown escape in a double-quoted string",
                                "escapes are \\n \\t \\\\ \\\" \\xHH \\uHHHH; write a backslash as \\\\ or use single quotes",
                            ))
                        }
                    };
                    let hex = self.t.get(i + 2..i + 2 + digits).unwrap_or("");
                    let ch = (hex.len() == digits && hex.bytes().all(|h| h.is_ascii_hexdigit()))
                        .then(|| u32::from_str_radix(hex, 16).ok())
                        .flatten()
                        .and_then(char::from_u32);
                    match ch {
                        Some(ch) => {
                            out.push(ch);
                            kept = out.len();
                            i += 2 + digits;
                        }
                        None => {
                            return Err(self.err(
                                i,
                                "bad hexadecimal escape in a double-quoted string",
                                format!(
                                    "\\{} takes {digits} hex digits of a valid character",
                                    e as char
                                ),
                            ))
                        }
                    }
                }
                b'\n' | b'\r' => {
                    // Folded line break: trailing blanks of this line dropped.
                    while out.len() > kept && out.ends_with([' ', '\t']) {
                        out.pop();
                    }
                    let (ni, blanks) = self.fold_break(i, parent, flow, open, double)?;
                    if blanks == 0 {
                        out.push(' ');
                    } else {
                        for _ in 0..blanks {
                            out.push('\n');
                        }
                    }
                    i = ni;
                }
                _ => {
                    // Copy a run of ordinary characters at once.
                    let mut j = i + 1;
                    while j < self.b.len() {
                        let c = self.b[j];
                        if c == q || c == b'\n' || c == b'\r' || (double && c == b'\\') {
                            break;
                        }
                        j += 1;
                    }
                    out.push_str(&self.t[i..j]);
                    i = j;
                }
            }
        }
    }

    /// At a line break inside a quoted scalar: skips it, blank lines and the next line's
    /// indentation. Returns the position of the next content and the number of blank lines.
    fn fold_break(
        &self,
        mut i: usize,
        parent: isize,
        flow: bool,
        open: usize,
        double: bool,
    ) -> Result<(usize, usize)> {
        let mut blanks = 0;
        let mut first = true;
        loop {
            match self.at(i) {
                Some(b'\r') if self.at(i + 1) == Some(b'\n') => i += 2,
                Some(b'\n') => i += 1,
                Some(b'\r') => {
                    return Err(self.err(
                        i,
                        "carriage return without a line feed",
                        "save the file with LF or CRLF line endings",
                    ))
                }
                _ => unreachable!("fold_break starts at a line break"),
            }
            if !first {
                blanks += 1;
            }
            first = false;
            let ls = i;
            while self.at(i).is_some_and(is_blank) {
                i += 1;
            }
            match self.at(i) {
                Some(b'\n') | Some(b'\r') => continue,
                None => {
                    return Err(YamlError::Syntax {
                        at: open,
                        message: format!(
                            "unterminated {} string",
                            if double {
                                "double-quoted"
                            } else {
                                "single-quoted"
                            }
                        ),
                        label: "opened here",
                        help: "close the string before the end of the file".into(),
                        related: None,
                    })
                }
                Some(_) => {
                    let indent = self.t[ls..i].bytes().take_while(|&c| c == b' ').count() as isize;
                    let ok = if flow {
                        indent >= parent.max(0)
                    } else {
                        indent > parent
                    };
                    if !ok || self.at_document_marker(i) {
                        return Err(YamlError::Syntax {
                            at: open,
                            message: format!(
                                "unterminated {} string",
                                if double { "double-quoted" } else { "single-quoted" }
                            ),
                            label: "opened here",
                            help: format!(
                                "close it with {} on this line; a string that goes on over lines needs its next lines indented more than its key",
                                if double { '"' } else { '\'' }
                            ),
                            related: Some((ls, "the string runs into this less indented line")),
                        });
                    }
                    return Ok((i, blanks));
                }
            }
        }
    }

    /// A block scalar (`|` literal or `>` folded) at `self.pos`; content lines must be indented
    /// more than `parent`.
    fn block_scalar(&mut self, parent: isize) -> Result<Scalar<'t>> {
        // The previous reader placed a block scalar at its first text character.
        let mut at = self.pos;
        let literal = self.b[at] == b'|';
        let mut chomp = b' ';
        let mut p = at + 1;
        while let Some(c) = self.at(p) {
            match c {
                b'-' | b'+' if chomp == b' ' => chomp = c,
                b'1'..=b'9' => {
                    return Err(self.err(
                        p,
                        "indentation indicators in block scalars are not supported",
                        "remove the digit; the indentation is taken from the first line",
                    ))
                }
                _ => break,
            }
            p += 1;
        }
        self.pos = p;
        self.end_of_line("the block scalar indicator")?;
        // Content lines: from the next line on.
        let mut lines: Vec<&'t str> = Vec::new();
        let mut indent: Option<usize> = None;
        let mut q = match self.t[self.pos..].find('\n') {
            Some(i) => self.pos + i + 1,
            None => self.b.len(),
        };
        let mut max_blank_indent = 0;
        let mut end = q;
        while q < self.b.len() {
            let le = self.t[q..].find('\n').map_or(self.b.len(), |i| q + i);
            let mut line = &self.t[q..le];
            if let Some(l) = line.strip_suffix('\r') {
                line = l;
            }
            let spaces = line.bytes().take_while(|&c| c == b' ').count();
            let blank = spaces == line.len();
            match indent {
                None if blank => {
                    max_blank_indent = max_blank_indent.max(spaces);
                    lines.push("");
                }
                None => {
                    if (spaces as isize) <= parent || self.at_document_marker(q) {
                        break;
                    }
                    if line.as_bytes()[spaces] == b'\t' {
                        return Err(self.err(q + spaces, "tab in indentation", INDENT_HELP));
                    }
                    if max_blank_indent > spaces {
                        return Err(self.err(
                            q,
                            "a blank line at the start of a block scalar is indented more than its text",
                            "remove the trailing spaces of the blank lines",
                        ));
                    }
                    indent = Some(spaces);
                    at = q + spaces;
                    lines.push(&line[spaces..]);
                }
                Some(n) => {
                    if blank && spaces <= n {
                        // A blank last line without a line break is no line of the text
                        // (YAML 1.2's empty lines end in a break).
                        if le < self.b.len() {
                            lines.push("");
                        }
                    } else if spaces >= n {
                        lines.push(&line[n..]);
                    } else {
                        break;
                    }
                }
            }
            q = if le < self.b.len() { le + 1 } else { le };
            end = q;
        }
        // Lines not taken (leading blank lines with no text after them belong to the scalar
        // only as line breaks; a less indented line ends it).
        if indent.is_none() {
            // YAML readers disagree on what an empty block scalar is; refuse to guess.
            return Err(self.err(
                at,
                "a block scalar (`|` or `>`) with no text",
                "write an empty value as `''`, or indent the text under the key",
            ));
        }
        let trailing = lines.iter().rev().take_while(|l| l.is_empty()).count();
        let body = &lines[..lines.len() - trailing];
        let mut out = String::new();
        let mut prev_text: Option<&str> = None;
        let mut blanks = 0;
        for l in body {
            if l.is_empty() {
                blanks += 1;
                continue;
            }
            match prev_text {
                None => {
                    for _ in 0..blanks {
                        out.push('\n');
                    }
                }
                Some(prev) => {
                    let more = |s: &str| s.starts_with([' ', '\t']);
                    if literal || more(prev) || more(l) {
                        for _ in 0..=blanks {
                            out.push('\n');
                        }
                    } else if blanks == 0 {
                        out.push(' ');
                    } else {
                        for _ in 0..blanks {
                            out.push('\n');
                        }
                    }
                }
            }
            out.push_str(l);
            prev_text = Some(l);
            blanks = 0;
        }
        match chomp {
            b'-' => {}
            b'+' => {
                for _ in 0..=trailing {
                    out.push('\n');
                }
            }
            _ => out.push('\n'),
        }
        self.pos = self.back_to_line_end(end);
        Ok(Scalar::new(self.arena.alloc_str(&out), at))
    }

    /// From the start of a line `p`, the position of the line break that ends the previous
    /// line (so `next_content` resumes there).
    fn back_to_line_end(&self, p: usize) -> usize {
        if p > 0 && p <= self.b.len() && self.b[p - 1] == b'\n' {
            p - 1
        } else {
            p
        }
    }

    /// Skips blanks, line breaks and comments inside a flow collection. Lines must be indented
    /// at least as much as the enclosing block (`indent`).
    #[inline]
    fn flow_space(&mut self, indent: usize) -> Result<()> {
        // Called around every key and value of a flow collection (several times per field of a
        // map): the usual single space is skipped here, anything else is left to the full loop.
        while self.peek() == Some(b' ') {
            self.pos += 1;
        }
        match self.peek() {
            None | Some(b'\t' | b'#' | b'\n' | b'\r') => self.flow_space_rest(indent),
            Some(_) => Ok(()),
        }
    }

    /// [`Self::flow_space`] past line breaks, comments and tabs, and the errors there.
    fn flow_space_rest(&mut self, indent: usize) -> Result<()> {
        loop {
            match self.peek() {
                Some(b' ') | Some(b'\t') => self.pos += 1,
                Some(b'#')
                    if self.pos > 0 && matches!(self.b[self.pos - 1], b' ' | b'\t' | b'\n') =>
                {
                    self.pos += self.t[self.pos..]
                        .find('\n')
                        .unwrap_or(self.t.len() - self.pos);
                }
                Some(b'\n') | Some(b'\r') => {
                    if self.peek() == Some(b'\r') && self.at(self.pos + 1) != Some(b'\n') {
                        return Err(self.err(
                            self.pos,
                            "carriage return without a line feed",
                            "save the file with LF or CRLF line endings",
                        ));
                    }
                    self.pos += if self.peek() == Some(b'\r') { 2 } else { 1 };
                    let ls = self.pos;
                    while self.peek() == Some(b' ') {
                        self.pos += 1;
                    }
                    match self.peek() {
                        None | Some(b'\n') | Some(b'\r') | Some(b'#') => continue,
                        Some(b'\t') => continue,
                        Some(_) => {}
                    }
                    if self.pos - ls < indent || self.at_document_marker(self.pos) {
                        let &(open, c) = self.flow.last().expect("inside a flow collection");
                        return Err(YamlError::Syntax {
                            at: self.pos,
                            message: format!(
                                "`{}` is not closed: this line is indented less than the flow collection it continues",
                                c as char
                            ),
                            label: "here",
                            help: format!(
                                "close it with `{}` (flow collections are usually written on one line)",
                                if c == b'{' { '}' } else { ']' }
                            ),
                            related: Some((open, "opened here")),
                        });
                    }
                }
                None => {
                    let &(open, c) = self.flow.last().expect("inside a flow collection");
                    return Err(YamlError::Syntax {
                        at: open,
                        message: format!(
                            "`{}` is not closed before the end of the file",
                            c as char
                        ),
                        label: "opened here",
                        help: format!("close it with `{}`", if c == b'{' { '}' } else { ']' }),
                        related: None,
                    });
                }
                _ => return Ok(()),
            }
        }
    }

    /// A flow collection opened at `open` goes on with something other than `expected`.
    fn unclosed(&self, open: usize, expected: &str, close: char) -> YamlError {
        let what = if close == '}' {
            "flow mapping `{`"
        } else {
            "flow list `[`"
        };
        let line_of = |p: usize| self.t[..p].matches('\n').count() + 1;
        let message = if line_of(open) == line_of(self.pos) {
            format!("expected {expected} in a {what}")
        } else {
            format!(
                "the {what} opened on line {} is not closed (expected {expected} here)",
                line_of(open)
            )
        };
        YamlError::Syntax {
            at: self.pos,
            message,
            label: "here",
            help: format!(
                "separate entries with `, ` and close it with `{close}`, usually on the line it opens"
            ),
            related: Some((open, "opened here")),
        }
    }

    /// A node in flow context at `self.pos`; `indent` is the enclosing block's indentation.
    fn flow_node(&mut self, indent: usize) -> Result<Node<'t>> {
        self.enter()?;
        let node = self.flow_node_inner(indent);
        self.depth -= 1;
        node
    }

    fn flow_node_inner(&mut self, indent: usize) -> Result<Node<'t>> {
        let p = self.pos;
        if let Some(e) = self.unsupported(p) {
            return Err(e);
        }
        match self.b[p] {
            b'[' => {
                self.flow.push((p, b'['));
                self.pos += 1;
                let base = self.items.len();
                loop {
                    self.flow_space(indent)?;
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        break;
                    }
                    let item = self.flow_node(indent)?;
                    self.flow_space(indent)?;
                    if self.peek() == Some(b':') {
                        return Err(self.err(
                            self.pos,
                            "`key: value` pairs inside a flow list `[...]` are not supported",
                            "write the pair as a mapping: `[{ key: value }]`",
                        ));
                    }
                    self.items.push(item);
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b']') => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(self.unclosed(p, "`,` or `]`", ']')),
                    }
                }
                self.flow.pop();
                Ok(Node::Sequence(self.sequence_from(p, base)))
            }
            b'{' => {
                self.flow.push((p, b'{'));
                self.pos += 1;
                let base = self.entries.len();
                let mut seen = None;
                loop {
                    self.flow_space(indent)?;
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        break;
                    }
                    let kp = self.pos;
                    let key = match self.b[kp] {
                        b'[' | b'{' => {
                            return Err(self.err(
                                kp,
                                "complex keys (a list or mapping as a key) are not supported",
                                "keys are names: `{ name: value }`",
                            ))
                        }
                        _ => match self.flow_node(indent)? {
                            Node::Scalar(s) => s,
                            _ => unreachable!("brackets are handled above"),
                        },
                    };
                    self.flow_space(indent)?;
                    if self.peek() != Some(b':') {
                        return Err(self.err(
                            self.pos,
                            "expected `:` after a key in a flow mapping",
                            "write entries as `{ key: value, key: value }`",
                        ));
                    }
                    let colon = self.pos;
                    self.pos += 1;
                    self.flow_space(indent)?;
                    let value = match self.peek() {
                        Some(b',') | Some(b'}') => self.empty(colon),
                        _ => self.flow_node(indent)?,
                    };
                    insert(&mut self.entries, base, &mut seen, key, value)?;
                    self.flow_space(indent)?;
                    match self.peek() {
                        Some(b',') => self.pos += 1,
                        Some(b'}') => {
                            self.pos += 1;
                            break;
                        }
                        _ => return Err(self.unclosed(p, "`,` or `}`", '}')),
                    }
                }
                self.flow.pop();
                Ok(Node::Mapping(self.mapping_from(p, base)))
            }
            b'"' | b'\'' => self.quoted(indent as isize, true).map(Node::Scalar),
            _ if self.plain_can_start(p, true) => {
                self.plain(indent as isize, true).map(Node::Scalar)
            }
            c => Err(self.err(
                p,
                format!("`{}` cannot start a value here", c as char),
                "quote the value: \"...\"",
            )),
        }
    }
}

/// Moves `stack[base..]` (one collection's entries or items) into `arena` as one slice.
fn move_to<'t, T: Copy>(arena: &'t Bump, stack: &mut Vec<T>, base: usize) -> &'t [T] {
    let slice = arena.alloc_slice_copy(&stack[base..]);
    stack.truncate(base);
    slice
}

/// Adds an entry to the mapping whose entries are `entries[base..]`, refusing a key already
/// present.
fn insert<'t>(
    entries: &mut Vec<(Scalar<'t>, Node<'t>)>,
    base: usize,
    seen: &mut Option<FastSet<&'t str>>,
    key: Scalar<'t>,
    value: Node<'t>,
) -> Result<()> {
    // A scan for the usual handful of keys; a set once a mapping grows large.
    const SCAN: usize = 16;
    let m = &entries[base..];
    let dup = if m.len() < SCAN {
        m.iter().find(|(k, _)| k.text == key.text)
    } else {
        let set = seen.get_or_insert_with(|| m.iter().map(|(k, _)| k.text).collect());
        if set.insert(key.text) {
            None
        } else {
            m.iter().find(|(k, _)| k.text == key.text)
        }
    };
    if let Some((first, _)) = dup {
        return Err(YamlError::DuplicateKey {
            key: key.text.to_string(),
            at: key.at(),
            first: first.at(),
        });
    }
    entries.push((key, value));
    Ok(())
}

#[cfg(test)]
mod tests;
