//! The one printer: two-space indentation, aligned port and declaration columns, minimal but
//! unambiguous parentheses, lines kept within 100 columns where a break point exists (see
//! `wrap`). Output depends only on the tree, so it is byte-reproducible.
//!
//! Everything is written straight into one output buffer: a map of thousands of registers
//! prints hundreds of thousands of expressions, and a temporary string per sub-expression
//! used to dominate the generator's run time.

use std::fmt::Write;

use crate::*;

struct Printer<'w> {
    out: String,
    reset: ResetStyle,
    /// Where finished lines go once `out` holds a chunk of them; `None`: everything stays in
    /// `out`.
    sink: Option<&'w mut dyn std::io::Write>,
    /// The sink's first error: printing goes on (it cannot fail), the error is returned at the
    /// end.
    failed: Option<std::io::Error>,
}

/// How much printed text [`module_to`] keeps before handing it to its writer.
const CHUNK: usize = 1 << 18;

pub(crate) fn module(m: &Module) -> String {
    let mut p = Printer {
        out: String::with_capacity(4096 + 512 * m.items.len()),
        reset: m.reset,
        sink: None,
        failed: None,
    };
    p.module(m);
    p.out
}

/// [`module`], written to `w` as it is printed through one reused chunk-sized buffer: a
/// NIC-scale CSR block is megabytes, and a string that size is fresh memory (a page fault per
/// 4 KiB), where the chunk's pages are touched once.
pub(crate) fn module_to(m: &Module, w: &mut dyn std::io::Write) -> std::io::Result<()> {
    let mut p = Printer {
        out: String::with_capacity(CHUNK + (CHUNK >> 2)),
        reset: m.reset,
        sink: Some(w),
        failed: None,
    };
    p.module(m);
    if let Some(e) = p.failed.take() {
        return Err(e);
    }
    match p.sink {
        Some(w) => w.write_all(p.out.as_bytes()),
        None => Ok(()),
    }
}

/// `print` run on a printer whose output goes after the text in `out`.
fn print_after(out: &mut String, print: impl FnOnce(&mut Printer)) {
    let mut p = Printer {
        out: std::mem::take(out),
        // Only the heads of flop blocks depend on the reset style, and they are not printed
        // ahead.
        reset: ResetStyle::SyncHigh,
        sink: None,
        failed: None,
    };
    print(&mut p);
    *out = p.out;
}

/// `s` printed at `indent` after the text in `out` (for [`PrintedStmts`]).
pub(crate) fn stmt_into(out: &mut String, indent: usize, s: &Stmt) {
    print_after(out, |p| p.stmt(indent, s));
}

/// A `case` printed at `indent` after the text in `out`, each arm as `arms` yields it (for
/// [`PrintedStmts::push_case`]): the same text as [`stmt_into`] of the [`Stmt::Case`].
pub(crate) fn case_into(
    out: &mut String,
    indent: usize,
    subject: &Expr,
    arms: impl Iterator<Item = (Vec<Expr>, Vec<Stmt>)>,
    default: &[Stmt],
) {
    print_after(out, |p| p.case(indent, subject, arms, default));
}

/// `if (cond) begin` printed at `indent` after the text in `out`; [`PrintedStmts::push_if`]
/// prints the body and the `end`.
pub(crate) fn if_head_into(out: &mut String, indent: usize, cond: &Expr) {
    print_after(out, |p| {
        p.start(indent);
        p.push("if (");
        p.expr(cond);
        p.push(") begin\n");
    });
}

/// `end` printed at `indent` after the text in `out`.
pub(crate) fn end_into(out: &mut String, indent: usize) {
    print_after(out, |p| p.line(indent, "end"));
}

/// `assign lhs = rhs;` printed at `indent` after the text in `out` (for [`PrintedAssigns`]).
pub(crate) fn assign_into(out: &mut String, indent: usize, lhs: &Expr, rhs: &Expr) {
    print_after(out, |p| p.assign_line(indent, "assign ", lhs, " = ", rhs));
}

/// `f`'s lines printed after those in `body`: `q <= reset;` and `q <= d;` in the reset block,
/// or `q <= d;` in the block without reset.
pub(crate) fn flop_into(body: &mut PrintedFlops, f: &Flop) {
    let indent = body.indent;
    match &f.reset {
        Some(r) => {
            print_after(body.resets.last_mut(), |p| {
                p.start(indent + 2);
                p.expr(&f.q);
                p.push(" <= ");
                p.expr(r);
                p.push(";\n");
            });
            print_after(body.loads.last_mut(), |p| {
                p.assign_line(indent + 2, "", &f.q, " <= ", &f.d)
            });
        }
        None => print_after(body.plain.last_mut(), |p| {
            p.assign_line(indent + 1, "", &f.q, " <= ", &f.d)
        }),
    }
}

impl Printer<'_> {
    /// Called where `out` ends with a finished line and nothing refers to a position in it:
    /// hands the text to the sink once it fills a chunk.
    fn line_done(&mut self) {
        if self.out.len() < CHUNK {
            return;
        }
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        debug_assert!(self.out.ends_with('\n'));
        if self.failed.is_none() {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.failed = Some(e);
            }
        }
        self.out.clear();
    }

    /// Text printed before (whole lines), after what is in `out`: handed to the sink
    /// directly when there is one, so a block of megabytes is not copied into the chunk.
    fn splice_all(&mut self, text: &Chain) {
        for piece in text.pieces() {
            self.splice(piece);
        }
    }

    fn splice(&mut self, text: &str) {
        debug_assert!(text.is_empty() || text.ends_with('\n'));
        let Some(sink) = self.sink.as_mut() else {
            self.out.push_str(text);
            return;
        };
        if self.failed.is_none() {
            let written = sink
                .write_all(self.out.as_bytes())
                .and_then(|()| sink.write_all(text.as_bytes()));
            if let Err(e) = written {
                self.failed = Some(e);
            }
        }
        self.out.clear();
    }

    fn module(&mut self, m: &Module) {
        let p = self;
        for h in &m.header {
            p.comment_line(0, h);
        }
        p.line(0, "");
        p.line(0, "`resetall");
        p.line(0, "`timescale 1ns / 1ps");
        p.line(0, "`default_nettype none");
        p.line(0, "");
        if m.params.is_empty() {
            p.start(0);
            p.push("module ");
            p.push(&m.name);
            p.push(" (\n");
        } else {
            p.start(0);
            p.push("module ");
            p.push(&m.name);
            p.push(" #(\n");
            for (i, prm) in m.params.iter().enumerate() {
                if let Some(c) = &prm.comment {
                    p.comment_line(1, c);
                }
                let sep = if i + 1 < m.params.len() { "," } else { "" };
                p.start(1);
                p.push("parameter integer ");
                p.push(&prm.name);
                p.push(" = ");
                expr_into(&mut p.out, &prm.default);
                p.push(sep);
                p.push("\n");
            }
            p.line(0, ") (");
        }
        p.ports(&m.ports);
        p.line(0, ");");
        p.items(1, &m.items);
        p.line(0, "");
        p.line(0, "endmodule");
        p.line(0, "");
        p.line(0, "`resetall");
    }
}

/// Ranges hold only parameter arithmetic; the compact form `[N*2-1:0]` is the idiom.
pub(crate) fn range_into(out: &mut String, r: &Range) {
    let start = out.len();
    out.push('[');
    expr_into(out, &r.msb);
    out.push(':');
    expr_into(out, &r.lsb);
    out.push(']');
    // Only a compound bound prints spaces: a range of two numbers (nearly all) needs no scan.
    let number = |e: &Expr| matches!(e, Expr::Int(_) | Expr::Num { .. });
    if !(number(&r.msb) && number(&r.lsb)) && out[start..].contains(' ') {
        let compact: String = out[start..].chars().filter(|&c| c != ' ').collect();
        out.truncate(start);
        out.push_str(&compact);
    }
}

/// `text` left-aligned in a column of `width` characters (as `{:<width$}` does).
fn pad(out: &mut String, text: &str, width: usize) {
    out.push_str(text);
    // Names are nearly always ASCII: then bytes are characters and need no counting.
    let chars = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    const SPACES: &str = "                                                                ";
    let n = width.saturating_sub(chars);
    match SPACES.get(..n) {
        Some(s) => out.push_str(s),
        None => out.extend(std::iter::repeat_n(' ', n)),
    }
}

fn kind(k: Kind) -> &'static str {
    match k {
        Kind::Wire => "wire",
        Kind::Reg => "reg",
        Kind::Integer => "integer",
        Kind::Genvar => "genvar",
    }
}

impl Printer<'_> {
    /// A whole line; an empty one has no indentation.
    fn line(&mut self, indent: usize, text: &str) {
        if !text.is_empty() {
            self.start(indent);
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    /// The indentation of a line whose (non-empty) text follows.
    fn start(&mut self, indent: usize) {
        // Constant pieces for the usual depths (every line of the module starts here): the
        // compiler stores them in place, where a run sliced to length became a `memset` call.
        match indent {
            0 => {}
            1 => self.out.push_str("  "),
            2 => self.out.push_str("    "),
            3 => self.out.push_str("      "),
            _ => {
                for _ in 0..indent {
                    self.out.push_str("  ");
                }
            }
        }
    }

    fn push(&mut self, text: &str) {
        self.out.push_str(text);
    }

    fn expr(&mut self, e: &Expr) {
        expr_into(&mut self.out, e);
    }

    fn comment_line(&mut self, indent: usize, text: &str) {
        let line = self.out.len();
        self.start(indent);
        if text.is_empty() {
            self.out.push_str("//\n");
        } else {
            self.comment_tail(text, line);
            self.out.push('\n');
        }
    }

    /// The column of the end of the output, on the line that starts at byte `line` (the
    /// callers know where they started the line: no search back for it, which was 6 M
    /// instructions of a 4096-register map's CSR block). Debug builds check it.
    fn column_from(&self, line: usize) -> usize {
        debug_assert_eq!(self.out.len() - line, wrap::column(&self.out));
        self.out.len() - line
    }

    /// `// text` from the current column on the line that starts at byte `line`; prose past
    /// [`wrap::LIMIT`] continues on `//` lines starting at the same column. Text laid out by
    /// hand (a table row, aligned columns) is left as it is.
    fn comment_tail(&mut self, text: &str, line: usize) {
        self.out.push_str("// ");
        let col = self.column_from(line);
        if col + text.len() <= wrap::LIMIT || text.contains("  ") || text.contains(" | ") {
            self.out.push_str(text);
            return;
        }
        let mut line = line;
        let mut first = true;
        for word in text.split(' ') {
            if !first {
                if self.column_from(line) + 1 + word.len() > wrap::LIMIT {
                    self.out.push('\n');
                    line = self.out.len();
                    for _ in 0..col - 3 {
                        self.out.push(' ');
                    }
                    self.out.push_str("// ");
                } else {
                    self.out.push(' ');
                }
            }
            let start = self.out.len();
            self.out.push_str(word);
            // A line break inside the text starts the line being measured.
            if let Some(i) = word.rfind('\n') {
                line = start + i + 1;
            }
            first = false;
        }
    }

    /// `lhs <op> rhs;` on a line of its own, or the right-hand side broken over lines when
    /// the line would pass [`wrap::LIMIT`].
    fn assign_line(&mut self, indent: usize, lead: &str, l: &Expr, op: &str, r: &Expr) {
        let line = self.out.len();
        self.assign_after(line, indent, lead, l, op, r);
    }

    /// [`Printer::assign_line`] on the line that starts at byte `line`, after what is there.
    fn assign_after(
        &mut self,
        line: usize,
        indent: usize,
        lead: &str,
        l: &Expr,
        op: &str,
        r: &Expr,
    ) {
        self.start(indent);
        self.push(lead);
        self.expr(l);
        self.push(op);
        self.wrapped(r, indent, ";", line);
    }

    /// `e` then `end` (and a newline) on the line that starts at byte `line`, `e` broken over
    /// lines if the line gets too long.
    fn wrapped(&mut self, e: &Expr, indent: usize, end: &str, line: usize) {
        let rhs = self.out.len();
        self.expr(e);
        self.push(end);
        // Only a long right-hand side is broken (a long line with a short one is left).
        if self.out.len() - rhs > wrap::LIMIT / 2 && self.column_from(line) > wrap::LIMIT {
            let text = self.out[rhs..self.out.len() - end.len()].to_owned();
            self.out.truncate(rhs);
            // A right-hand side starting far right continues on the next line instead,
            // indented two levels further.
            if self.column_from(line) > wrap::LIMIT / 2 {
                while self.out.ends_with(' ') {
                    self.out.pop();
                }
                self.out.push('\n');
                self.start(indent + 2);
            }
            wrap::place(&mut self.out, e, &text, end.len());
            self.push(end);
        }
        self.push("\n");
    }

    fn ports(&mut self, ports: &[PortItem]) {
        // Ranges in one buffer, not a string per port.
        let mut texts = String::with_capacity(8 * ports.len());
        let mut all: Vec<(&Port, std::ops::Range<usize>)> = Vec::with_capacity(ports.len());
        all.extend(ports.iter().filter_map(|p| match p {
            PortItem::Port(p) => {
                let start = texts.len();
                if let Some(r) = &p.range {
                    range_into(&mut texts, r);
                }
                Some((p, start..texts.len()))
            }
            PortItem::Banner(_) => None,
        }));
        let rw = all.iter().map(|(_, r)| r.len()).max().unwrap_or(0);
        // Comment column: after the longest commented port.
        let cw = all
            .iter()
            .filter(|(p, _)| p.comment.is_some())
            .map(|(p, _)| p.name.len() + 1)
            .max()
            .unwrap_or(0);
        let last = all.len();
        let mut ranges = all.iter().map(|(_, r)| r);
        let mut n = 0;
        let mut first_banner = true;
        let mut name = String::new();
        for item in ports {
            match item {
                PortItem::Banner(b) => {
                    if !first_banner {
                        self.line(0, "");
                    }
                    first_banner = false;
                    for l in b.lines() {
                        self.comment_line(1, l);
                    }
                }
                PortItem::Port(p) => {
                    n += 1;
                    let r = ranges.next().map_or("", |r| &texts[r.clone()]);
                    let dir = match p.dir {
                        Dir::Input => "input ",
                        Dir::Output => "output",
                    };
                    let sep = if n < last { "," } else { "" };
                    let line = self.out.len();
                    self.start(1);
                    self.push(dir);
                    self.push(" ");
                    pad(&mut self.out, kind(p.kind), 4);
                    self.push(" ");
                    pad(&mut self.out, r, rw);
                    self.push(" ");
                    name.clear();
                    name.push_str(&p.name);
                    name.push_str(sep);
                    match &p.comment {
                        Some(c) => {
                            pad(&mut self.out, &name, cw);
                            self.push("  ");
                            self.comment_tail(c, line);
                        }
                        None => self.push(&name),
                    }
                    self.push("\n");
                    self.line_done();
                }
            }
        }
    }

    fn items(&mut self, indent: usize, items: &[Item]) {
        let mut i = 0;
        while i < items.len() {
            if let Item::Decl(_) = items[i] {
                // A run of declarations is aligned as a table.
                let start = i;
                while i < items.len() && matches!(items[i], Item::Decl(_)) {
                    i += 1;
                }
                self.decls(indent, &items[start..i]);
                continue;
            }
            if let Item::LocalParam { .. } = items[i] {
                // So is a run of localparams.
                let start = i;
                while i < items.len() && matches!(items[i], Item::LocalParam { .. }) {
                    i += 1;
                }
                self.localparams(indent, &items[start..i]);
                continue;
            }
            self.item(indent, &items[i]);
            self.line_done();
            i += 1;
        }
    }

    fn localparams(&mut self, indent: usize, run: &[Item]) {
        // Type columns in one buffer, not a string per parameter.
        let mut texts = String::with_capacity(8 * run.len());
        // Collected into a list sized for the run (`filter_map` alone cannot tell its length, and
        // the list grew by doubling over thousands of entries).
        let mut rows: Vec<(std::ops::Range<usize>, &String, &Expr, &Option<String>)> =
            Vec::with_capacity(run.len());
        rows.extend(run.iter().filter_map(|p| match p {
            Item::LocalParam {
                name,
                range: r,
                value,
                comment,
            } => {
                let start = texts.len();
                match r {
                    Some(r) => range_into(&mut texts, r),
                    None => texts.push_str("integer"),
                }
                Some((start..texts.len(), name, value, comment))
            }
            _ => None,
        }));
        let tw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let nw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        for (ty, name, value, comment) in rows {
            let line = self.out.len();
            self.start(indent);
            self.push("localparam ");
            pad(&mut self.out, &texts[ty], tw);
            self.push(" ");
            pad(&mut self.out, name, nw);
            self.push(" = ");
            self.expr(value);
            self.push(";");
            if let Some(c) = comment {
                self.push("  ");
                self.comment_tail(c, line);
            }
            self.push("\n");
            self.line_done();
        }
    }

    fn decls(&mut self, indent: usize, run: &[Item]) {
        // The run's column texts in one buffer (a run of a big map holds tens of thousands of
        // declarations; two strings each were a fifth of the printing time).
        let mut table = DeclTable::with_capacity(run.len(), 48 * run.len());
        for item in run {
            if let Item::Decl(d) = item {
                table.push(d);
            }
        }
        self.decl_table(indent, &table);
    }

    /// A run of declarations as a table: kinds, ranges and names (of the commented
    /// declarations) padded to the widest of the run.
    fn decl_table(&mut self, indent: usize, table: &DeclTable) {
        // `nw`: `name [array];` of the commented rows, the width the comment column starts
        // after.
        let (mut kw, mut rw, mut nw) = (0, 0, 0);
        for (k, range, name, commented) in table.row_sizes() {
            kw = kw.max(kind(k).len());
            rw = rw.max(range);
            if commented {
                nw = nw.max(name);
            }
        }
        for (k, r, name, comment) in table.rows() {
            let line = self.out.len();
            self.start(indent);
            let start = self.out.len();
            pad(&mut self.out, kind(k), kw);
            self.push(" ");
            if rw > 0 {
                pad(&mut self.out, r, rw);
                self.push(" ");
            }
            match comment {
                Some(c) => {
                    pad(&mut self.out, name, nw);
                    self.push("  ");
                    self.comment_tail(c, line);
                }
                None => self.push(name),
            }
            let kept = self.out[start..].trim_end().len();
            self.out.truncate(start + kept);
            self.push("\n");
            self.line_done();
        }
    }

    fn item(&mut self, indent: usize, item: &Item) {
        match item {
            Item::Blank => self.line(0, ""),
            Item::Comment(lines) => {
                for l in lines {
                    self.comment_line(indent, l);
                }
            }
            Item::Decl(_) => self.decls(indent, std::slice::from_ref(item)),
            Item::DeclTable(table) => self.decl_table(indent, table),
            Item::LocalParam { .. } => self.localparams(indent, std::slice::from_ref(item)),
            Item::Assign(l, r) => self.assign_line(indent, "assign ", l, " = ", r),
            Item::PrintedAssigns(body) => {
                // A generator bug, not a map's: the lines were made for another depth.
                assert_eq!(
                    body.indent, indent,
                    "assignments printed for another depth than their items'"
                );
                self.splice_all(&body.text);
            }
            Item::Comb(stmts) => {
                self.line(indent, "always @* begin");
                self.stmts(indent + 1, stmts);
                self.line(indent, "end");
            }
            Item::PrintedComb(body) => {
                // A generator bug, not a map's: the block was made for another depth.
                assert_eq!(
                    body.indent,
                    indent + 1,
                    "statements printed for another depth than their block's"
                );
                self.line(indent, "always @* begin");
                self.splice_all(&body.text);
                self.line(indent, "end");
            }
            Item::Flops(flops) => self.flops(indent, flops),
            Item::PrintedFlops(body) => self.printed_flops(indent, body),
            Item::GenFor {
                var,
                to,
                label,
                items,
            } => {
                self.start(indent);
                let _ = write!(self.out, "for ({var} = 0; {var} < ");
                self.expr(to);
                let _ = writeln!(self.out, "; {var} = {var} + 1) begin : {label}");
                self.items(indent + 1, items);
                self.line(indent, "end");
            }
            Item::MemWrite {
                mem,
                en,
                addr,
                data,
            } => {
                self.line(indent, "always @(posedge clk) begin");
                let line = self.out.len();
                self.start(indent + 1);
                self.push("if (");
                self.expr(en);
                self.push(") ");
                self.push(mem);
                self.push("[");
                self.expr(addr);
                self.push("] <= ");
                self.wrapped(data, indent + 1, ";", line);
                self.line(indent, "end");
            }
            Item::Instance {
                module,
                name,
                params,
                ports,
            } => {
                if params.is_empty() {
                    self.start(indent);
                    let _ = writeln!(self.out, "{module} {name} (");
                } else {
                    self.start(indent);
                    let _ = writeln!(self.out, "{module} #(");
                    self.connections(indent + 1, params);
                    self.start(indent);
                    let _ = writeln!(self.out, ") {name} (");
                }
                self.connections(indent + 1, ports);
                self.line(indent, ");");
            }
            Item::SimInitial(stmts) => {
                self.line(0, "`ifndef SYNTHESIS");
                self.line(indent, "initial begin");
                self.stmts(indent + 1, stmts);
                self.line(indent, "end");
                self.line(0, "`endif");
            }
        }
    }

    /// `.name (value),` lines of an instance, the names aligned.
    fn connections(&mut self, indent: usize, list: &[(String, Expr)]) {
        let w = list.iter().map(|(n, _)| n.len()).max().unwrap_or(0);
        let n = list.len();
        for (i, (k, v)) in list.iter().enumerate() {
            let sep = if i + 1 < n { "," } else { "" };
            self.start(indent);
            self.push(".");
            pad(&mut self.out, k, w);
            self.push(" (");
            self.expr(v);
            self.push(")");
            self.push(sep);
            self.push("\n");
        }
    }

    fn flops(&mut self, indent: usize, flops: &[Flop]) {
        // Through the printed form: one way to lay flops out.
        let mut body = PrintedFlops {
            indent,
            ..PrintedFlops::default()
        };
        for f in flops {
            flop_into(&mut body, f);
        }
        self.printed_flops(indent, &body);
    }

    fn printed_flops(&mut self, indent: usize, body: &PrintedFlops) {
        // A generator bug, not a map's: the flops were made for another depth.
        assert_eq!(
            body.indent, indent,
            "flops printed for another depth than their block's"
        );
        if !body.loads.is_empty() {
            let (sens, cond) = match self.reset {
                ResetStyle::SyncHigh => ("posedge clk", "rst"),
                ResetStyle::AsyncLow => ("posedge clk or negedge rst_n", "!rst_n"),
            };
            self.start(indent);
            let _ = writeln!(self.out, "always @({sens}) begin");
            self.start(indent + 1);
            let _ = writeln!(self.out, "if ({cond}) begin");
            self.splice_all(&body.resets);
            self.line(indent + 1, "end else begin");
            self.splice_all(&body.loads);
            self.line(indent + 1, "end");
            self.line(indent, "end");
        }
        if !body.plain.is_empty() {
            self.line(indent, "always @(posedge clk) begin");
            self.splice_all(&body.plain);
            self.line(indent, "end");
        }
    }

    fn stmts(&mut self, indent: usize, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(indent, s);
            self.line_done();
        }
    }

    fn stmt(&mut self, indent: usize, s: &Stmt) {
        match s {
            Stmt::Assign(l, r) => self.assign_line(indent, "", l, " = ", r),
            Stmt::Comment(c) => self.comment_line(indent, c),
            Stmt::SysCall(name, args) => {
                self.start(indent);
                self.push(name);
                if !args.is_empty() {
                    self.push("(");
                    self.list(args);
                    self.push(")");
                }
                self.push(";\n");
            }
            Stmt::For(l) => {
                let ForLoop {
                    var,
                    from,
                    to,
                    body,
                } = &**l;
                self.start(indent);
                let _ = write!(self.out, "for ({var} = ");
                self.expr(from);
                let _ = write!(self.out, "; {var} < ");
                self.expr(to);
                let _ = writeln!(self.out, "; {var} = {var} + 1) begin");
                self.stmts(indent + 1, body);
                self.line(indent, "end");
            }
            Stmt::If { cond, then, els } => {
                self.start(indent);
                self.push("if (");
                self.expr(cond);
                self.push(") begin\n");
                self.stmts(indent + 1, then);
                let mut els = els;
                loop {
                    match els.as_slice() {
                        [] => {
                            self.line(indent, "end");
                            break;
                        }
                        [Stmt::If {
                            cond,
                            then,
                            els: next,
                        }] => {
                            self.start(indent);
                            self.push("end else if (");
                            self.expr(cond);
                            self.push(") begin\n");
                            self.stmts(indent + 1, then);
                            els = next;
                        }
                        other => {
                            self.line(indent, "end else begin");
                            self.stmts(indent + 1, other);
                            self.line(indent, "end");
                            break;
                        }
                    }
                }
            }
            Stmt::Case {
                subject,
                arms,
                default,
            } => self.case(
                indent,
                subject,
                arms.iter().map(|(l, b)| (l.as_slice(), b.as_slice())),
                default,
            ),
        }
    }

    /// `case (subject)`, its arms and `default`, `endcase`.
    fn case<L: AsRef<[Expr]>, B: AsRef<[Stmt]>>(
        &mut self,
        indent: usize,
        subject: &Expr,
        arms: impl Iterator<Item = (L, B)>,
        default: &[Stmt],
    ) {
        self.start(indent);
        self.push("case (");
        self.expr(subject);
        self.push(")\n");
        for (labels, body) in arms {
            self.arm(indent + 1, Some(labels.as_ref()), body.as_ref());
            self.line_done();
        }
        self.arm(indent + 1, None, default);
        self.line(indent, "endcase");
    }

    /// `a, b, c`
    fn list(&mut self, items: &[Expr]) {
        list_into(&mut self.out, items);
    }

    /// `a, b, c` as case labels: a list that would pass [`wrap::LIMIT`] continues on the next
    /// lines under its first label (a decode arm can name thousands of addresses).
    /// Returns where the last line of the list starts.
    fn labels(&mut self, line: usize, labels: &[Expr]) -> usize {
        let column = self.column_from(line);
        let mut line = line;
        for (i, x) in labels.iter().enumerate() {
            let before = self.out.len();
            if i > 0 {
                self.out.push_str(", ");
            }
            let label = self.out.len();
            expr_into(&mut self.out, x);
            // Room for the `,` or `: ` that follows.
            if i > 0 && self.out.len() - line + 2 > wrap::LIMIT {
                let text = self.out[label..].to_owned();
                self.out.truncate(before);
                self.out.push_str(",\n");
                line = self.out.len();
                self.out.extend(std::iter::repeat_n(' ', column));
                self.out.push_str(&text);
            }
        }
        line
    }

    /// A case arm; `labels` is `None` for `default`.
    fn arm(&mut self, indent: usize, labels: Option<&[Expr]>, body: &[Stmt]) {
        let mut line = self.out.len();
        self.start(indent);
        match labels {
            Some(l) => line = self.labels(line, l),
            None => self.push("default"),
        }
        match body {
            [] => self.push(": ;\n"),
            [Stmt::Assign(l, r)] => self.assign_after(line, 0, ": ", l, " = ", r),
            _ => {
                self.push(": begin\n");
                self.stmts(indent + 1, body);
                self.line(indent, "end");
            }
        }
    }
}

fn list_into(out: &mut String, items: &[Expr]) {
    for (i, x) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        expr_into(out, x);
    }
}

fn literal(out: &mut String, width: u32, value: u128, base: Base) {
    // Digits pushed by hand: a NIC-scale CSR block prints hundreds of thousands of numbers,
    // and the formatting machinery cost a quarter of printing.
    push_unsigned(out, u128::from(width), 10, 0);
    match base {
        Base::Bin => {
            out.push_str("'b");
            push_unsigned(out, value, 2, width.min(128) as usize);
        }
        Base::Hex => {
            out.push_str("'h");
            push_unsigned(out, value, 16, width.div_ceil(4).min(32) as usize);
        }
        Base::Dec => {
            out.push_str("'d");
            push_unsigned(out, value, 10, 0);
        }
    }
}

/// Appends `value` in `radix` (2, 10 or 16, lower-case), zero-padded to at least `digits`.
fn push_unsigned(out: &mut String, value: u128, radix: u32, digits: usize) {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    // One digit (`1'b0`, a width of 8, `'d0`) is most of them: no buffer needed.
    if value < u128::from(radix) && digits <= 1 {
        out.push(char::from(DIGITS[value as usize]));
        return;
    }
    // Two decimal digits (the `31` of `[31:0]`, widths, indices) without the digit buffer.
    if radix == 10 && (10..100).contains(&value) && digits <= 2 {
        out.push(char::from(DIGITS[(value / 10) as usize]));
        out.push(char::from(DIGITS[(value % 10) as usize]));
        return;
    }
    if let (2 | 16, Ok(n)) = (radix, u64::try_from(value)) {
        // Binary and hex (every sized literal of a map) by shifts, most significant digit
        // first: no buffer to fill and copy, and the zero padding pushed in one piece.
        let shift = radix.trailing_zeros();
        let needed = (u64::BITS - n.leading_zeros()).div_ceil(shift).max(1);
        if let Some(pad) = digits.checked_sub(needed as usize) {
            const ZEROS: &str = "0000000000000000000000000000000000000000000000000000000000000000";
            match ZEROS.get(..pad) {
                Some(z) => out.push_str(z),
                None => out.extend(std::iter::repeat_n('0', pad)),
            }
        }
        for i in (0..needed).rev() {
            out.push(char::from(
                DIGITS[((n >> (shift * i)) & u64::from(radix - 1)) as usize],
            ));
        }
        return;
    }
    let mut buf = [0u8; 128];
    let mut start = buf.len();
    match (radix, u64::try_from(value)) {
        // Decimal in 64-bit arithmetic when it fits (128-bit division is a library call).
        (10, Ok(mut n)) => loop {
            start -= 1;
            buf[start] = DIGITS[(n % 10) as usize];
            n /= 10;
            if n == 0 {
                break;
            }
        },
        // Wider than 64 bits (rare): 128-bit division for every radix.
        _ => {
            let mut n = value;
            let r = u128::from(radix);
            loop {
                start -= 1;
                buf[start] = DIGITS[(n % r) as usize];
                n /= r;
                if n == 0 {
                    break;
                }
            }
        }
    }
    for _ in (buf.len() - start)..digits {
        out.push('0');
    }
    // Byte by byte: checking a few digits with `str::from_utf8` cost as much as making them.
    out.reserve(buf.len() - start);
    for &d in &buf[start..] {
        out.push(char::from(d));
    }
}

/// Appends a signed integer in decimal.
fn push_int(out: &mut String, v: i64) {
    if v < 0 {
        out.push('-');
    }
    push_unsigned(out, u128::from(v.unsigned_abs()), 10, 0);
}

pub(crate) fn unop_text(op: UnOp) -> &'static str {
    match op {
        UnOp::Not => "!",
        UnOp::BitNot => "~",
        UnOp::RedOr => "|",
        UnOp::RedAnd => "&",
        UnOp::RedXor => "^",
    }
}

/// Appends an expression to `out`.
pub(crate) fn expr_into(out: &mut String, e: &Expr) {
    match e {
        Expr::Ident(n) => out.push_str(n),
        Expr::Int(v) => {
            push_int(out, *v);
        }
        Expr::Num { width, value, base } => literal(out, *width, *value, *base),
        Expr::Str(s) => {
            out.push('"');
            for c in s.chars() {
                match c {
                    '\\' => out.push_str("\\\\"),
                    '"' => out.push_str("\\\""),
                    c => out.push(c),
                }
            }
            out.push('"');
        }
        Expr::Index(x, i) => {
            operand(out, x);
            out.push('[');
            expr_into(out, i);
            out.push(']');
        }
        Expr::Slice(x, m, l) => {
            operand(out, x);
            out.push('[');
            expr_into(out, m);
            out.push(':');
            expr_into(out, l);
            out.push(']');
        }
        Expr::PartSelect(x, b, w) => {
            operand(out, x);
            out.push('[');
            expr_into(out, b);
            out.push_str(" +: ");
            expr_into(out, w);
            out.push(']');
        }
        Expr::Concat(items) => {
            out.push('{');
            list_into(out, items);
            out.push('}');
        }
        Expr::Repl(n, x) => {
            out.push('{');
            operand(out, n);
            out.push('{');
            expr_into(out, x);
            out.push_str("}}");
        }
        Expr::Unary(op, x) => {
            out.push_str(unop_text(*op));
            operand(out, x);
        }
        Expr::Binary(op, a, b) => {
            child(out, *op, a, false);
            out.push(' ');
            out.push_str(op.text());
            out.push(' ');
            child(out, *op, b, true);
        }
        Expr::Call(call) => {
            let (name, args) = &**call;
            out.push_str(name);
            out.push('(');
            list_into(out, args);
            out.push(')');
        }
        Expr::Ternary(c, t, f) => {
            match **c {
                Expr::Ternary(..) => paren(out, c),
                _ => expr_into(out, c),
            }
            out.push_str(" ? ");
            match **t {
                Expr::Ternary(..) => paren(out, t),
                _ => expr_into(out, t),
            }
            out.push_str(" : ");
            expr_into(out, f);
        }
    }
}

fn paren(out: &mut String, e: &Expr) {
    out.push('(');
    expr_into(out, e);
    out.push(')');
}

/// An operand of a unary operator or a select: anything compound is parenthesized.
fn operand(out: &mut String, e: &Expr) {
    match e {
        Expr::Binary(..) | Expr::Ternary(..) => paren(out, e),
        _ => expr_into(out, e),
    }
}

fn is_compare(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// A binary operand, parenthesized unless the reading is unambiguous to a human (see
/// [`child_is_bare`]).
fn child(out: &mut String, parent: BinOp, e: &Expr, right: bool) {
    if child_is_bare(parent, e, right) {
        expr_into(out, e)
    } else {
        paren(out, e)
    }
}

/// Whether a binary operand is printed without parentheses: anything but a `?:` or another
/// binary operation, or one whose reading is unambiguous to a human: the same associative
/// operator, a comparison under `&&`/`||`, or a product under a sum.
pub(crate) fn child_is_bare(parent: BinOp, e: &Expr, right: bool) -> bool {
    match e {
        Expr::Ternary(..) => false,
        Expr::Binary(op, ..) => {
            if *op == parent {
                !right || parent.associative()
            } else if matches!(parent, BinOp::And | BinOp::Or) {
                is_compare(*op)
            } else if matches!(parent, BinOp::Add | BinOp::Sub) {
                *op == BinOp::Mul
            } else if is_compare(parent) {
                matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
            } else {
                false
            }
        }
        _ => true,
    }
}

#[cfg(test)]
mod number_tests {
    use super::*;

    #[test]
    fn hand_written_numbers_match_format() {
        for v in [
            0u128,
            1,
            2,
            9,
            10,
            0xf,
            0x10,
            12345,
            u128::from(u64::MAX),
            u128::MAX,
        ] {
            for w in [1u32, 4, 7, 32, 64, 100, 128] {
                let mut s = String::new();
                literal(&mut s, w, v, Base::Bin);
                let d = w.min(128) as usize;
                assert_eq!(s, format!("{w}'b{v:0d$b}"));
                s.clear();
                literal(&mut s, w, v, Base::Hex);
                let d = w.div_ceil(4).min(32) as usize;
                assert_eq!(s, format!("{w}'h{v:0d$x}"));
                s.clear();
                literal(&mut s, w, v, Base::Dec);
                assert_eq!(s, format!("{w}'d{v}"));
            }
        }
        for v in [0i64, 1, -1, 42, -4096, i64::MAX, i64::MIN] {
            let mut s = String::new();
            push_int(&mut s, v);
            assert_eq!(s, v.to_string());
        }
    }
}
