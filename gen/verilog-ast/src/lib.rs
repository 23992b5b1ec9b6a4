#![doc = svgbobdoc::transform!(
//! A typed Verilog-2005 syntax tree and its one printer.
//!
//! Generators build a [`Module`] and call [`Module::print`]; no generator writes Verilog text
//! itself. The tree covers exactly what synthesizable, hand-written-looking RTL needs: ANSI
//! ports grouped under banner comments, declarations, continuous assignments, one
//! combinational block with defaults first, trivial flops (`reset` then `q <= d`), generate
//! loops and simulation-only parameter checks.
//!
//! A generator of a very large module can hand the statements of its combinational block and
//! its flops to the printer as it makes them ([`PrintedStmts`], [`PrintedFlops`]) instead of
//! keeping them as a tree: the text is the same, printed by the same code.
//!
//! ```svgbob
//!  generator --> Module { params, ports, items } --> print() --> "module.v"
//!                          |                           |
//!                          +-- Item: Decl, Assign,     +-- column alignment of
//!                              Comb, Flops, GenFor,        port and declaration runs,
//!                              Initial, Comment            minimal parentheses
//! ```
)]

mod expr;
mod print;
mod wrap;

pub use expr::*;

/// Reset style of every flop in a module: one project-wide setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResetStyle {
    /// `rst`, active high, sampled on the clock edge.
    SyncHigh,
    /// `rst_n`, active low, asynchronous assertion.
    AsyncLow,
}

impl ResetStyle {
    pub fn port_name(self) -> &'static str {
        match self {
            ResetStyle::SyncHigh => "rst",
            ResetStyle::AsyncLow => "rst_n",
        }
    }
    /// The expression that is true while reset is asserted.
    /// The expression that is true when reset is released.
    pub fn released(self) -> Expr {
        match self {
            ResetStyle::SyncHigh => Expr::lnot(Expr::id("rst")),
            ResetStyle::AsyncLow => Expr::id("rst_n"),
        }
    }
    pub fn asserted(self) -> Expr {
        match self {
            ResetStyle::SyncHigh => Expr::id("rst"),
            ResetStyle::AsyncLow => Expr::lnot(Expr::id("rst_n")),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dir {
    Input,
    Output,
}

/// Net or variable kind of a declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Wire,
    Reg,
    Integer,
    Genvar,
}

/// `[msb:lsb]`.
#[derive(Clone, Debug, PartialEq)]
pub struct Range {
    pub msb: Expr,
    pub lsb: Expr,
}

impl Range {
    /// `[width-1:0]` for a constant width; `None` for one bit.
    pub fn bits(width: u32) -> Option<Range> {
        (width > 1).then(|| Range {
            msb: Expr::int(i64::from(width) - 1),
            lsb: Expr::int(0),
        })
    }
    /// `[width_expr-1:0]`, simplified when `width_expr` is a constant.
    pub fn width(width: Expr) -> Range {
        Range {
            msb: Expr::minus(width, Expr::int(1)),
            lsb: Expr::int(0),
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Param {
    pub name: String,
    pub default: Expr,
    pub comment: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Port {
    pub dir: Dir,
    pub kind: Kind,
    pub range: Option<Range>,
    pub name: String,
    pub comment: Option<String>,
}

impl Port {
    pub fn input(name: impl Into<String>, range: Option<Range>) -> Self {
        Port {
            dir: Dir::Input,
            kind: Kind::Wire,
            range,
            name: name.into(),
            comment: None,
        }
    }
    pub fn output(name: impl Into<String>, range: Option<Range>) -> Self {
        Port {
            dir: Dir::Output,
            kind: Kind::Wire,
            range,
            name: name.into(),
            comment: None,
        }
    }
    pub fn comment(mut self, c: impl Into<String>) -> Self {
        self.comment = Some(c.into());
        self
    }
}

/// An entry of the port list: a port or a banner comment heading a group of ports.
#[derive(Clone, Debug, PartialEq)]
pub enum PortItem {
    Banner(String),
    Port(Port),
}

#[derive(Clone, Debug, PartialEq)]
pub struct Decl {
    pub kind: Kind,
    pub range: Option<Range>,
    pub name: String,
    /// Unpacked dimension, for memories: `reg [7:0] mem [0:DEPTH-1]`. Boxed: few declarations
    /// have one, and inline it made every declaration (and every module item) 64 bytes larger.
    pub array: Option<Box<Range>>,
    pub comment: Option<String>,
}

impl Decl {
    pub fn new(kind: Kind, name: impl Into<String>, range: Option<Range>) -> Self {
        Decl {
            kind,
            range,
            name: name.into(),
            array: None,
            comment: None,
        }
    }
    pub fn wire(name: impl Into<String>, range: Option<Range>) -> Self {
        Decl::new(Kind::Wire, name, range)
    }
    pub fn reg(name: impl Into<String>, range: Option<Range>) -> Self {
        Decl::new(Kind::Reg, name, range)
    }
    pub fn comment(mut self, c: impl Into<String>) -> Self {
        self.comment = Some(c.into());
        self
    }
}

/// One flop of a [`Item::Flops`] block: `q <= reset` in reset, else `q <= d`.
#[derive(Clone, Debug, PartialEq)]
pub struct Flop {
    pub q: Expr,
    pub d: Expr,
    /// `None`: the flop is not reset (datapath); it still loads `d` every cycle.
    pub reset: Option<Expr>,
}

/// The parts of a [`Stmt::For`]: `for (var = from; var < to; var = var + 1) body`.
#[derive(Clone, Debug, PartialEq)]
pub struct ForLoop {
    pub var: String,
    pub from: Expr,
    pub to: Expr,
    pub body: Vec<Stmt>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// `lhs = rhs;`
    Assign(Expr, Expr),
    If {
        cond: Expr,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    Case {
        subject: Expr,
        arms: Vec<(Vec<Expr>, Vec<Stmt>)>,
        default: Vec<Stmt>,
    },
    /// `for (var = from; var < to; var = var + 1)`. Boxed: loops are rare, and inline they
    /// made every statement of every tree larger (see [`Stmt::for_`]).
    For(Box<ForLoop>),
    /// A system task call such as `$display("...")` or `$finish`.
    SysCall(String, Vec<Expr>),
    Comment(String),
}

impl Stmt {
    pub fn assign(lhs: Expr, rhs: Expr) -> Stmt {
        Stmt::Assign(lhs, rhs)
    }
    pub fn if_(cond: Expr, then: Vec<Stmt>) -> Stmt {
        Stmt::If {
            cond,
            then,
            els: Vec::new(),
        }
    }
    pub fn if_else(cond: Expr, then: Vec<Stmt>, els: Vec<Stmt>) -> Stmt {
        Stmt::If { cond, then, els }
    }
    /// `for (var = from; var < to; var = var + 1) begin body end`.
    pub fn for_(var: impl Into<String>, from: Expr, to: Expr, body: Vec<Stmt>) -> Stmt {
        Stmt::For(Box::new(ForLoop {
            var: var.into(),
            from,
            to,
            body,
        }))
    }
    /// The simulation-time range check of parameter `name`, for a [`Item::SimInitial`] block:
    /// `if (name < min || name > max) begin $display("%m: name = %0d is outside min..max",
    /// name); $finish; end`.
    pub fn param_range_check(name: &str, min: u64, max: u64) -> Stmt {
        let bound = |v: u64| Expr::int(i64::try_from(v).expect("parameter bound fits in i64"));
        Stmt::if_(
            Expr::or(
                Expr::lt(Expr::id(name), bound(min)),
                Expr::bin(BinOp::Gt, Expr::id(name), bound(max)),
            ),
            vec![
                Stmt::SysCall(
                    "$display".into(),
                    vec![
                        Expr::str(format!("%m: {name} = %0d is outside {min}..{max}")),
                        Expr::id(name),
                    ],
                ),
                Stmt::SysCall("$finish".into(), vec![]),
            ],
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Item {
    Blank,
    /// One or more `//` comment lines.
    Comment(Vec<String>),
    Decl(Decl),
    LocalParam {
        name: String,
        range: Option<Range>,
        value: Expr,
        comment: Option<String>,
    },
    /// `assign lhs = rhs;`
    Assign(Expr, Expr),
    /// [`Item::Assign`]s printed as they were made (see [`PrintedAssigns`]).
    PrintedAssigns(PrintedAssigns),
    /// `always @*` with the statements in order (defaults first, by convention).
    Comb(Vec<Stmt>),
    /// [`Item::Comb`] whose statements were printed as they were made (see [`PrintedStmts`]):
    /// the same text, without the tree.
    PrintedComb(PrintedStmts),
    /// A run of declarations kept as their text (see [`DeclTable`]): printed as the same
    /// declarations in a run of [`Item::Decl`]s are, aligned as one table.
    DeclTable(DeclTable),
    /// Flops on `clk` with the module's reset style. Unreset flops get their own block.
    Flops(Vec<Flop>),
    /// [`Item::Flops`] printed as they were made (see [`PrintedFlops`]).
    PrintedFlops(PrintedFlops),
    /// `generate for (genvar ...) begin : label ... end`.
    GenFor {
        var: String,
        to: Expr,
        label: String,
        items: Vec<Item>,
    },
    /// `initial` block, wrapped in `ifndef SYNTHESIS`: elaboration-time checks.
    SimInitial(Vec<Stmt>),
    /// A RAM write port: `always @(posedge clk) if (en) mem[addr] <= data;` (no reset: RAMs
    /// are cleared by an explicit sequence).
    MemWrite {
        mem: String,
        en: Expr,
        addr: Expr,
        data: Expr,
    },
    /// A submodule instance with named parameter overrides and port connections.
    Instance {
        module: String,
        name: String,
        params: Vec<(String, Expr)>,
        ports: Vec<(String, Expr)>,
    },
}

/// Text made in one or more pieces, in order: a piece made apart (say on another thread) is
/// appended without copying it behind the others (megabytes on a NIC-scale block, each copy
/// fresh memory).
#[derive(Clone, Debug, Default)]
pub(crate) struct Chain {
    first: String,
    more: Vec<String>,
}

impl Chain {
    fn with_capacity(bytes: usize) -> Self {
        Chain {
            first: String::with_capacity(bytes),
            more: Vec::new(),
        }
    }

    /// The piece that text written now goes to.
    pub(crate) fn last_mut(&mut self) -> &mut String {
        self.more.last_mut().unwrap_or(&mut self.first)
    }

    fn append(&mut self, later: Chain) {
        self.more.extend(
            std::iter::once(later.first)
                .chain(later.more)
                .filter(|p| !p.is_empty()),
        );
    }

    pub(crate) fn pieces(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.first.as_str()).chain(self.more.iter().map(String::as_str))
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pieces().all(str::is_empty)
    }
}

/// The same text, however it is cut into pieces.
impl PartialEq for Chain {
    fn eq(&self, other: &Chain) -> bool {
        self.pieces().collect::<String>() == other.pieces().collect::<String>()
    }
}

/// Statements printed by this crate's printer as they are pushed, for the body of an
/// [`Item::PrintedComb`]: a NIC-scale CSR block has hundreds of thousands of statements, and
/// held as a tree until the module is printed they take five times the memory of their text
/// (fresh memory, a page fault per 4 KiB). The text is what [`Item::Comb`] with the same
/// statements prints.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrintedStmts {
    /// Indentation level of the statements: two for a block among a module's items, three
    /// inside a generate loop.
    indent: usize,
    pub(crate) text: Chain,
}

impl PrintedStmts {
    /// Statements of an `always @*` block that is an item at generate-loop depth `depth` (0:
    /// directly in the module), with room for `bytes` of text.
    pub fn with_capacity(depth: usize, bytes: usize) -> Self {
        PrintedStmts {
            indent: depth + 2,
            text: Chain::with_capacity(bytes),
        }
    }

    pub fn new(depth: usize) -> Self {
        PrintedStmts::with_capacity(depth, 0)
    }

    /// Prints `s` after the statements before it.
    pub fn push(&mut self, s: Stmt) {
        print::stmt_into(self.text.last_mut(), self.indent, &s);
    }

    /// `case (subject)` with each arm printed as `arms` yields it, so a decode of thousands of
    /// registers never exists whole as a tree: the text [`push`](Self::push) of the
    /// [`Stmt::Case`] prints.
    pub fn push_case(
        &mut self,
        subject: &Expr,
        arms: impl IntoIterator<Item = (Vec<Expr>, Vec<Stmt>)>,
        default: &[Stmt],
    ) {
        print::case_into(
            self.text.last_mut(),
            self.indent,
            subject,
            arms.into_iter(),
            default,
        );
    }

    /// `if (cond) begin`, the statements `then` pushes, `end`: the text [`push`](Self::push)
    /// of the [`Stmt::If`] without `else` prints.
    pub fn push_if(&mut self, cond: &Expr, then: impl FnOnce(&mut PrintedStmts)) {
        print::if_head_into(self.text.last_mut(), self.indent, cond);
        self.indent += 1;
        then(self);
        self.indent -= 1;
        print::end_into(self.text.last_mut(), self.indent);
    }

    /// `later`'s statements after these (printed apart, say on another thread).
    pub fn append(&mut self, later: PrintedStmts) {
        assert_eq!(self.indent, later.indent, "statements of another depth");
        self.text.append(later.text);
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

impl Extend<Stmt> for PrintedStmts {
    fn extend<I: IntoIterator<Item = Stmt>>(&mut self, stmts: I) {
        for s in stmts {
            self.push(s);
        }
    }
}

/// Declarations kept as the text of their columns, for an [`Item::DeclTable`]: the table's
/// column widths depend on every declaration of the run, so it cannot be printed line by line
/// as it is made, but a NIC-scale CSR block declares tens of thousands of signals, and as
/// items (160 bytes each, with their names apart) they were a quarter of its memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeclTable {
    /// Each row's range, name (with its array range and `;`) and comment texts, one row
    /// after the other.
    text: String,
    rows: Vec<DeclRow>,
}

/// Where a [`DeclTable`] row's texts end in its `text` (each starts where the one before ends).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct DeclRow {
    pub(crate) kind: Kind,
    pub(crate) range_end: u32,
    pub(crate) name_end: u32,
    /// The comment's end (`name_end` without one).
    pub(crate) end: u32,
    pub(crate) commented: bool,
}

impl DeclTable {
    /// Room for `rows` declarations of `bytes` of text.
    pub fn with_capacity(rows: usize, bytes: usize) -> Self {
        DeclTable {
            text: String::with_capacity(bytes),
            rows: Vec::with_capacity(rows),
        }
    }

    pub fn new() -> Self {
        DeclTable::default()
    }

    pub fn push(&mut self, d: &Decl) {
        let t = &mut self.text;
        if let Some(r) = &d.range {
            print::range_into(t, r);
        }
        let range_end = t.len();
        t.push_str(&d.name);
        if let Some(a) = &d.array {
            t.push(' ');
            print::range_into(t, a);
        }
        t.push(';');
        let name_end = t.len();
        if let Some(c) = &d.comment {
            t.push_str(c);
        }
        self.push_row(d.kind, range_end, name_end, d.comment.is_some());
    }

    /// `reg name;` or `reg [width-1:0] name;`, without a [`Decl`] made and dropped (a flop's
    /// pair, the commonest declarations of a CSR block).
    pub fn push_reg(&mut self, name: &str, width: u32, comment: Option<&str>) {
        let t = &mut self.text;
        if let Some(r) = Range::bits(width) {
            print::range_into(t, &r);
        }
        let range_end = t.len();
        t.push_str(name);
        t.push(';');
        let name_end = t.len();
        if let Some(c) = comment {
            t.push_str(c);
        }
        self.push_row(Kind::Reg, range_end, name_end, comment.is_some());
    }

    fn push_row(&mut self, kind: Kind, range_end: usize, name_end: usize, commented: bool) {
        let pos = |n: usize| u32::try_from(n).expect("a declaration table under 4 GiB");
        self.rows.push(DeclRow {
            kind,
            range_end: pos(range_end),
            name_end: pos(name_end),
            end: pos(self.text.len()),
            commented,
        });
    }

    /// `later`'s declarations after these (made apart, say on another thread).
    pub fn append(&mut self, later: DeclTable) {
        let base = u32::try_from(self.text.len()).expect("a declaration table under 4 GiB");
        self.text.push_str(&later.text);
        self.rows.extend(later.rows.into_iter().map(|r| DeclRow {
            range_end: r.range_end + base,
            name_end: r.name_end + base,
            end: r.end + base,
            ..r
        }));
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Each row's kind and the lengths of its range and name texts, and whether it has a
    /// comment: the table's column widths, without slicing the text.
    pub(crate) fn row_sizes(&self) -> impl Iterator<Item = (Kind, usize, usize, bool)> + '_ {
        let mut start = 0;
        self.rows.iter().map(move |r| {
            let row = (
                r.kind,
                (r.range_end - start) as usize,
                (r.name_end - r.range_end) as usize,
                r.commented,
            );
            start = r.end;
            row
        })
    }

    /// Each row's kind and its range, name and comment texts.
    pub(crate) fn rows(&self) -> impl Iterator<Item = (Kind, &str, &str, Option<&str>)> + '_ {
        let mut start = 0;
        self.rows.iter().map(move |r| {
            let (a, b, c) = (r.range_end as usize, r.name_end as usize, r.end as usize);
            let row = (
                r.kind,
                &self.text[start..a],
                &self.text[a..b],
                r.commented.then(|| &self.text[b..c]),
            );
            start = c;
            row
        })
    }
}

impl Extend<Decl> for DeclTable {
    fn extend<I: IntoIterator<Item = Decl>>(&mut self, decls: I) {
        for d in decls {
            self.push(&d);
        }
    }
}

/// Continuous assignments printed as they are pushed, for an [`Item::PrintedAssigns`]: for the
/// same reason as [`PrintedStmts`], the text [`Item::Assign`]s of the same assignments print.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrintedAssigns {
    /// Indentation level of the lines: one among a module's items.
    indent: usize,
    pub(crate) text: Chain,
}

impl PrintedAssigns {
    /// Assignments that are items at generate-loop depth `depth` (0: directly in the module),
    /// with room for `bytes` of text.
    pub fn with_capacity(depth: usize, bytes: usize) -> Self {
        PrintedAssigns {
            indent: depth + 1,
            text: Chain::with_capacity(bytes),
        }
    }

    pub fn new(depth: usize) -> Self {
        PrintedAssigns::with_capacity(depth, 0)
    }

    /// Prints `assign lhs = rhs;` after the assignments before it.
    pub fn push(&mut self, lhs: Expr, rhs: Expr) {
        print::assign_into(self.text.last_mut(), self.indent, &lhs, &rhs);
    }

    /// `later`'s assignments after these (printed apart, say on another thread).
    pub fn append(&mut self, later: PrintedAssigns) {
        assert_eq!(self.indent, later.indent, "assignments of another depth");
        self.text.append(later.text);
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
}

/// Flops printed as they are pushed, for an [`Item::PrintedFlops`]: for the same reason as
/// [`PrintedStmts`], the text [`Item::Flops`] with the same flops prints, without the tree.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PrintedFlops {
    /// Indentation level of the `always` blocks: one among a module's items.
    indent: usize,
    /// `q <= reset;` lines of the reset flops.
    pub(crate) resets: Chain,
    /// `q <= d;` lines of the reset flops.
    pub(crate) loads: Chain,
    /// `q <= d;` lines of the flops without reset.
    pub(crate) plain: Chain,
}

impl PrintedFlops {
    /// Flops of an item at generate-loop depth `depth` (0: directly in the module), with room
    /// for about `flops` of them.
    pub fn with_capacity(depth: usize, flops: usize) -> Self {
        PrintedFlops {
            indent: depth + 1,
            resets: Chain::with_capacity(32 * flops),
            loads: Chain::with_capacity(48 * flops),
            plain: Chain::default(),
        }
    }

    pub fn new(depth: usize) -> Self {
        PrintedFlops::with_capacity(depth, 0)
    }

    /// Prints `f` after the flops before it.
    pub fn push(&mut self, f: Flop) {
        print::flop_into(self, &f);
    }

    /// `later`'s flops after these (printed apart, say on another thread).
    pub fn append(&mut self, later: PrintedFlops) {
        assert_eq!(self.indent, later.indent, "flops of another depth");
        self.resets.append(later.resets);
        self.loads.append(later.loads);
        self.plain.append(later.plain);
    }

    pub fn is_empty(&self) -> bool {
        self.loads.is_empty() && self.plain.is_empty()
    }
}

impl Extend<Flop> for PrintedFlops {
    fn extend<I: IntoIterator<Item = Flop>>(&mut self, flops: I) {
        for f in flops {
            self.push(f);
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Module {
    pub name: String,
    /// Comment lines printed before `module` (after `default_nettype`), without `// `.
    pub header: Vec<String>,
    pub params: Vec<Param>,
    pub ports: Vec<PortItem>,
    pub items: Vec<Item>,
    pub reset: ResetStyle,
}

impl Module {
    pub fn print(&self) -> String {
        print::module(self)
    }

    /// The text [`Module::print`] returns, written to `w` in chunks as it is printed (a few
    /// hundred KiB held at a time, however large the module).
    pub fn print_to(&self, w: &mut dyn std::io::Write) -> std::io::Result<()> {
        print::module_to(self, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_to_writes_what_print_returns_in_chunks() {
        // Enough lines of every kind the printer flushes between (declarations, statements,
        // flops) to pass several chunks.
        let n = 12000;
        let name = |i: usize| format!("sig_{i}_q");
        let mut items: Vec<Item> = (0..n)
            .map(|i| Item::Decl(Decl::reg(name(i), Range::bits(8)).comment("a register")))
            .collect();
        items.push(Item::Comb(
            (0..n)
                .map(|i| {
                    Stmt::if_(
                        Expr::id("en"),
                        vec![Stmt::assign(
                            Expr::id(name(i)),
                            Expr::num(8, i as u128 & 0xff),
                        )],
                    )
                })
                .collect(),
        ));
        items.push(Item::Flops(
            (0..n)
                .map(|i| Flop {
                    q: Expr::id(name(i)),
                    d: Expr::id(format!("sig_{i}_d")),
                    reset: Some(Expr::num(8, 0)),
                })
                .collect(),
        ));
        let m = Module {
            name: "big".into(),
            header: vec!["header".into()],
            params: Vec::new(),
            ports: Vec::new(),
            items,
            reset: ResetStyle::SyncHigh,
        };
        struct Chunks(Vec<Vec<u8>>);
        impl std::io::Write for Chunks {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.push(buf.to_vec());
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = Chunks(Vec::new());
        m.print_to(&mut w).unwrap();
        let text = m.print();
        assert!(
            text.len() > 4 * (1 << 18),
            "{} bytes: too few for chunks",
            text.len()
        );
        assert!(w.0.len() >= 4, "{} writes", w.0.len());
        assert!(w.0.iter().all(|c| c.len() < 2 << 18));
        assert_eq!(String::from_utf8(w.0.concat()).unwrap(), text);

        // A failing writer's error comes back.
        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let e = m.print_to(&mut Full).unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }

    /// Statements of every shape, some long enough to wrap.
    fn sample_stmts() -> Vec<Stmt> {
        let long = (0..30)
            .map(|i| Expr::id(format!("term_{i}_q")))
            .reduce(Expr::bor)
            .unwrap();
        vec![
            Stmt::Comment("defaults first".into()),
            Stmt::assign(Expr::id("a_d"), Expr::id("a_q")),
            Stmt::if_else(
                Expr::and(Expr::id("wr_en"), Expr::id("sel")),
                vec![Stmt::assign(Expr::id("a_d"), long)],
                vec![Stmt::if_(
                    Expr::id("clr"),
                    vec![Stmt::assign(Expr::id("a_d"), Expr::num(8, 0))],
                )],
            ),
            Stmt::Case {
                subject: Expr::id("addr"),
                arms: vec![(
                    vec![Expr::num(4, 1), Expr::num(4, 2)],
                    vec![Stmt::assign(Expr::id("hit"), Expr::num(1, 1))],
                )],
                default: vec![Stmt::assign(Expr::id("hit"), Expr::num(1, 0))],
            },
        ]
    }

    fn module_of(items: Vec<Item>) -> Module {
        Module {
            name: "m".into(),
            header: Vec::new(),
            params: Vec::new(),
            ports: Vec::new(),
            items,
            reset: ResetStyle::SyncHigh,
        }
    }

    #[test]
    fn printed_statements_print_as_the_tree_does() {
        let printed = |depth| {
            let mut body = PrintedStmts::new(depth);
            body.extend(sample_stmts());
            body
        };
        let in_loop = |comb| Item::GenFor {
            var: "i".into(),
            to: Expr::int(4),
            label: "g_loop".into(),
            items: vec![comb],
        };
        let tree = module_of(vec![
            Item::Comb(sample_stmts()),
            in_loop(Item::Comb(sample_stmts())),
        ]);
        let text = module_of(vec![
            Item::PrintedComb(printed(0)),
            in_loop(Item::PrintedComb(printed(1))),
        ]);
        assert!(tree.print().contains("term_29_q"));
        assert_eq!(text.print(), tree.print());
        let mut streamed = Vec::new();
        text.print_to(&mut streamed).unwrap();
        assert_eq!(String::from_utf8(streamed).unwrap(), tree.print());
        assert!(PrintedStmts::new(0).is_empty() && !printed(0).is_empty());
        // Printed in two parts and appended: the same text.
        let mut parts = PrintedStmts::new(0);
        parts.extend(sample_stmts().into_iter().take(2));
        let mut later = PrintedStmts::new(0);
        later.extend(sample_stmts().into_iter().skip(2));
        parts.append(later);
        assert_eq!(parts, printed(0));
    }

    #[test]
    fn a_case_and_an_if_pushed_in_parts_print_as_the_tree_does() {
        let arms = || {
            vec![
                (
                    vec![Expr::num(4, 1), Expr::num(4, 2)],
                    vec![Stmt::assign(Expr::id("hit"), Expr::num(1, 1))],
                ),
                (
                    vec![Expr::num(4, 3)],
                    vec![
                        Stmt::assign(Expr::id("hit"), Expr::num(1, 1)),
                        Stmt::assign(Expr::id("hi"), Expr::num(1, 1)),
                    ],
                ),
            ]
        };
        let default = || vec![Stmt::assign(Expr::id("hit"), Expr::num(1, 0))];
        for depth in [0, 1] {
            let mut tree = PrintedStmts::new(depth);
            tree.push(Stmt::if_(
                Expr::id("rd_en"),
                vec![
                    Stmt::assign(Expr::id("hit"), Expr::num(1, 0)),
                    Stmt::Case {
                        subject: Expr::id("addr"),
                        arms: arms(),
                        default: default(),
                    },
                ],
            ));
            tree.push(Stmt::if_(Expr::id("idle"), vec![]));
            let mut parts = PrintedStmts::new(depth);
            parts.push_if(&Expr::id("rd_en"), |then| {
                then.push(Stmt::assign(Expr::id("hit"), Expr::num(1, 0)));
                then.push_case(&Expr::id("addr"), arms(), &default());
            });
            parts.push_if(&Expr::id("idle"), |_| {});
            assert!(tree.text.last_mut().contains("endcase"));
            assert_eq!(parts, tree);
        }
    }

    #[test]
    fn a_declaration_table_prints_as_the_declarations_do() {
        let mut mem = Decl::reg("mem", Range::bits(8)).comment("the words");
        mem.array = Some(Box::new(Range {
            msb: Expr::int(0),
            lsb: Expr::minus(Expr::id("DEPTH"), Expr::int(1)),
        }));
        let decls = [
            Decl::wire("wr_en", None).comment("a write is accepted this cycle"),
            Decl::reg("count_q", Range::bits(12)),
            mem,
            Decl::new(Kind::Integer, "k", None),
            Decl::reg("wide_q", Range::bits(64)).comment(
                "a comment long enough to wrap at the printer's limit, so that the table's \
                 comment column is also the column its continuation lines start at",
            ),
            Decl::reg("flag_q", None),
        ];
        let tree = module_of(decls.iter().cloned().map(Item::Decl).collect());
        let mut whole = DeclTable::new();
        whole.extend(decls.iter().cloned());
        let text = module_of(vec![Item::DeclTable(whole.clone())]);
        assert_eq!(text.print(), tree.print());
        // One table: kinds, ranges and commented names padded to the widest of the run.
        let expected = "\
  wire           wr_en;            // a write is accepted this cycle
  reg     [11:0] count_q;
  reg     [7:0]  mem [0:DEPTH-1];  // the words
  integer        k;
  reg     [63:0] wide_q;           // a comment long enough to wrap at the printer's limit, so that
                                   // the table's comment column is also the column its continuation
                                   // lines start at
  reg            flag_q;
";
        assert!(text.print().contains(expected), "{}", text.print());
        // Made in two parts and appended: the same table.
        let mut parts = DeclTable::new();
        parts.extend(decls.iter().take(3).cloned());
        let mut later = DeclTable::new();
        later.extend(decls.iter().skip(3).cloned());
        parts.append(later);
        assert_eq!(parts, whole);
        assert_eq!(parts.len(), decls.len());
        // `push_reg` is a `reg` declaration of that width.
        let mut regs = DeclTable::new();
        regs.push_reg("count_q", 12, Some("counts"));
        regs.push_reg("flag_q", 1, None);
        let mut made = DeclTable::new();
        made.push(&Decl::reg("count_q", Range::bits(12)).comment("counts"));
        made.push(&Decl::reg("flag_q", None));
        assert_eq!(regs, made);
        assert!(DeclTable::new().is_empty());
    }

    #[test]
    fn printed_assignments_print_as_the_items_do() {
        let pairs = || {
            (0..40).map(|i| {
                let rhs = Expr::all(
                    (0..i % 9)
                        .map(|k| Expr::id(format!("term_{i}_{k}")))
                        .collect(),
                );
                (Expr::id(format!("out_{i}")), rhs)
            })
        };
        let in_loop = |items| Item::GenFor {
            var: "i".into(),
            to: Expr::int(4),
            label: "g_loop".into(),
            items,
        };
        let tree = module_of(vec![
            Item::Decl(Decl::wire("x", None)),
            Item::Assign(Expr::id("x"), Expr::id("y")),
            in_loop(pairs().map(|(l, r)| Item::Assign(l, r)).collect()),
        ]);
        let mut top = PrintedAssigns::new(0);
        top.push(Expr::id("x"), Expr::id("y"));
        let mut inner = PrintedAssigns::new(1);
        let mut later = PrintedAssigns::new(1);
        for (i, (l, r)) in pairs().enumerate() {
            if i < 20 {
                inner.push(l, r);
            } else {
                later.push(l, r);
            }
        }
        inner.append(later);
        let text = module_of(vec![
            Item::Decl(Decl::wire("x", None)),
            Item::PrintedAssigns(top),
            in_loop(vec![Item::PrintedAssigns(inner)]),
        ]);
        let printed = tree.print();
        assert!(printed.contains("\n  assign x = y;\n"), "{printed}");
        assert!(printed.contains("term_39_2"), "{printed}");
        assert_eq!(text.print(), printed);
        assert!(PrintedAssigns::new(0).is_empty());
    }

    #[test]
    fn printed_flops_print_as_the_tree_does() {
        let long = (0..30)
            .map(|i| Expr::id(format!("term_{i}_d")))
            .reduce(|a, b| Expr::bin(BinOp::BitXor, a, b))
            .unwrap();
        let flops = vec![
            Flop {
                q: Expr::id("a_q"),
                d: Expr::id("a_d"),
                reset: Some(Expr::num(8, 0x5a)),
            },
            Flop {
                q: Expr::id("data_q"),
                d: Expr::id("data_d"),
                reset: None,
            },
            Flop {
                q: Expr::id("b_q"),
                d: long,
                reset: Some(Expr::num(1, 0)),
            },
        ];
        let printed = |depth| {
            let mut body = PrintedFlops::new(depth);
            body.extend(flops.clone());
            body
        };
        let in_loop = |item| Item::GenFor {
            var: "i".into(),
            to: Expr::int(4),
            label: "g_loop".into(),
            items: vec![item],
        };
        for reset in [ResetStyle::SyncHigh, ResetStyle::AsyncLow] {
            let mut tree = module_of(vec![
                Item::Flops(flops.clone()),
                in_loop(Item::Flops(flops.clone())),
            ]);
            let mut text = module_of(vec![
                Item::PrintedFlops(printed(0)),
                in_loop(Item::PrintedFlops(printed(1))),
            ]);
            tree.reset = reset;
            text.reset = reset;
            let want = tree.print();
            assert!(want.contains(reset.port_name()) && want.contains("term_29_d"));
            assert!(want.contains("data_q <= data_d;"));
            assert_eq!(text.print(), want);
        }
        assert!(PrintedFlops::new(0).is_empty() && !printed(0).is_empty());
        let mut parts = PrintedFlops::new(0);
        parts.extend(flops[..1].iter().cloned());
        let mut later = PrintedFlops::new(0);
        later.extend(flops[1..].iter().cloned());
        parts.append(later);
        assert_eq!(parts, printed(0));
    }

    #[test]
    #[should_panic(expected = "another depth")]
    fn printed_statements_refuse_another_depth() {
        let mut body = PrintedStmts::new(1);
        body.extend(sample_stmts());
        module_of(vec![Item::PrintedComb(body)]).print();
    }

    #[test]
    fn a_long_case_label_list_wraps_under_its_first_label() {
        let labels: Vec<Expr> = (0..40).map(|i| Expr::id(format!("ADDR_REG_{i}"))).collect();
        let m = Module {
            name: "m".into(),
            header: Vec::new(),
            params: Vec::new(),
            ports: Vec::new(),
            items: vec![Item::Comb(vec![Stmt::Case {
                subject: Expr::id("addr"),
                arms: vec![(
                    labels,
                    vec![Stmt::assign(Expr::id("resp"), Expr::id("RESP_OKAY"))],
                )],
                default: vec![],
            }])],
            reset: ResetStyle::SyncHigh,
        };
        let text = m.print();
        let arm: Vec<&str> = text
            .lines()
            .skip_while(|l| !l.contains("ADDR_REG_0,"))
            .take_while(|l| !l.contains("default"))
            .collect();
        assert!(arm.len() > 4, "40 labels fill several lines:\n{text}");
        let column = arm[0].find("ADDR_REG_0").unwrap();
        for (i, line) in arm.iter().enumerate() {
            assert!(
                line.len() <= 100,
                "line {i} is {} columns: {line}",
                line.len()
            );
            assert_eq!(
                line.find("ADDR_REG_"),
                Some(column),
                "line {i} is not aligned: {line}"
            );
            let last = i + 1 == arm.len();
            assert_eq!(line.ends_with(','), !last, "line {i}: {line}");
        }
        assert!(arm
            .last()
            .unwrap()
            .ends_with("ADDR_REG_39: resp = RESP_OKAY;"));
        // Every label once, in order.
        let joined: String = arm.concat().split_whitespace().collect();
        let want: Vec<String> = (0..40).map(|i| format!("ADDR_REG_{i}")).collect();
        assert!(joined.starts_with(&want.join(",")), "{joined}");
    }

    #[test]
    fn param_range_check_prints_the_check() {
        let m = Module {
            name: "m".into(),
            header: Vec::new(),
            params: vec![Param {
                name: "NUM_VF".into(),
                default: Expr::int(8),
                comment: None,
            }],
            ports: Vec::new(),
            items: vec![Item::SimInitial(vec![Stmt::param_range_check(
                "NUM_VF", 1, 256,
            )])],
            reset: ResetStyle::SyncHigh,
        };
        let text = m.print();
        let body = text
            .split_once("`ifndef SYNTHESIS\n")
            .and_then(|(_, rest)| rest.split_once("`endif\n"))
            .map(|(body, _)| body)
            .expect("a SYNTHESIS-guarded initial block");
        assert_eq!(
            body,
            "  initial begin\n\
             \x20   if (NUM_VF < 1 || NUM_VF > 256) begin\n\
             \x20     $display(\"%m: NUM_VF = %0d is outside 1..256\", NUM_VF);\n\
             \x20     $finish;\n\
             \x20   end\n\
             \x20 end\n"
        );
    }
}
