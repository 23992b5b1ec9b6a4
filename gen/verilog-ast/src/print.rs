//! The one printer: two-space indentation, aligned port and declaration columns, minimal but
//! unambiguous parentheses. Output depends only on the tree, so it is byte-reproducible.

use crate::*;

struct Printer {
    out: String,
    reset: ResetStyle,
}

pub(crate) fn module(m: &Module) -> String {
    let mut p = Printer {
        out: String::new(),
        reset: m.reset,
    };
    for h in &m.header {
        p.line(0, &comment_line(h));
    }
    p.line(0, "");
    p.line(0, "`resetall");
    p.line(0, "`timescale 1ns / 1ps");
    p.line(0, "`default_nettype none");
    p.line(0, "");
    if m.params.is_empty() {
        p.line(0, &format!("module {} (", m.name));
    } else {
        p.line(0, &format!("module {} #(", m.name));
        for (i, prm) in m.params.iter().enumerate() {
            if let Some(c) = &prm.comment {
                p.line(1, &comment_line(c));
            }
            let sep = if i + 1 < m.params.len() { "," } else { "" };
            p.line(
                1,
                &format!(
                    "parameter integer {} = {}{sep}",
                    prm.name,
                    expr(&prm.default)
                ),
            );
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
    p.out
}

fn comment_line(text: &str) -> String {
    if text.is_empty() {
        "//".to_string()
    } else {
        format!("// {text}")
    }
}

fn range(r: &Option<Range>) -> String {
    match r {
        // Ranges hold only parameter arithmetic; the compact form `[N*2-1:0]` is the idiom.
        Some(r) => format!("[{}:{}]", expr(&r.msb), expr(&r.lsb)).replace(' ', ""),
        None => String::new(),
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

impl Printer {
    fn line(&mut self, indent: usize, text: &str) {
        if !text.is_empty() {
            for _ in 0..indent {
                self.out.push_str("  ");
            }
            self.out.push_str(text);
        }
        self.out.push('\n');
    }

    fn ports(&mut self, ports: &[PortItem]) {
        let all: Vec<&Port> = ports
            .iter()
            .filter_map(|p| match p {
                PortItem::Port(p) => Some(p),
                PortItem::Banner(_) => None,
            })
            .collect();
        let rw = all.iter().map(|p| range(&p.range).len()).max().unwrap_or(0);
        // Comment column: after the longest commented port.
        let cw = all
            .iter()
            .filter(|p| p.comment.is_some())
            .map(|p| p.name.len() + 1)
            .max()
            .unwrap_or(0);
        let last = all.len();
        let mut n = 0;
        let mut first_banner = true;
        for item in ports {
            match item {
                PortItem::Banner(b) => {
                    if !first_banner {
                        self.line(0, "");
                    }
                    first_banner = false;
                    for l in b.lines() {
                        self.line(1, &comment_line(l));
                    }
                }
                PortItem::Port(p) => {
                    n += 1;
                    let dir = match p.dir {
                        Dir::Input => "input ",
                        Dir::Output => "output",
                    };
                    let sep = if n < last { "," } else { "" };
                    let head = format!("{dir} {:<4} {:<rw$} ", kind(p.kind), range(&p.range));
                    let name = format!("{}{sep}", p.name);
                    let text = match &p.comment {
                        Some(c) => format!("{head}{name:<cw$}  // {c}"),
                        None => format!("{head}{name}"),
                    };
                    self.line(1, &text);
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
            i += 1;
        }
    }

    fn localparams(&mut self, indent: usize, run: &[Item]) {
        let rows: Vec<(String, String, String, &Option<String>)> = run
            .iter()
            .filter_map(|p| match p {
                Item::LocalParam {
                    name,
                    range: r,
                    value,
                    comment,
                } => {
                    let ty = if r.is_some() {
                        range(r)
                    } else {
                        "integer".to_string()
                    };
                    Some((ty, name.clone(), expr(value), comment))
                }
                _ => None,
            })
            .collect();
        let tw = rows.iter().map(|r| r.0.len()).max().unwrap_or(0);
        let nw = rows.iter().map(|r| r.1.len()).max().unwrap_or(0);
        for (ty, name, value, comment) in rows {
            let text = format!("localparam {ty:<tw$} {name:<nw$} = {value};");
            match comment {
                Some(c) => self.line(indent, &format!("{text}  // {c}")),
                None => self.line(indent, &text),
            }
        }
    }

    fn decls(&mut self, indent: usize, run: &[Item]) {
        let decls: Vec<&Decl> = run
            .iter()
            .filter_map(|d| match d {
                Item::Decl(d) => Some(d),
                _ => None,
            })
            .collect();
        let kw = decls.iter().map(|d| kind(d.kind).len()).max().unwrap_or(0);
        let rw = decls
            .iter()
            .map(|d| range(&d.range).len())
            .max()
            .unwrap_or(0);
        let nw = decls
            .iter()
            .filter(|d| d.comment.is_some())
            .map(|d| {
                d.name.len()
                    + d.array
                        .as_ref()
                        .map(|a| range(&Some(a.clone())).len() + 1)
                        .unwrap_or(0)
                    + 1
            })
            .max()
            .unwrap_or(0);
        for d in decls {
            let mut name = d.name.clone();
            if let Some(a) = &d.array {
                name = format!("{name} {}", range(&Some(a.clone())));
            }
            name.push(';');
            let head = if rw > 0 {
                format!("{:<kw$} {:<rw$} ", kind(d.kind), range(&d.range))
            } else {
                format!("{:<kw$} ", kind(d.kind))
            };
            let text = match &d.comment {
                Some(c) => format!("{head}{name:<nw$}  // {c}"),
                None => format!("{head}{name}"),
            };
            self.line(indent, text.trim_end());
        }
    }

    fn item(&mut self, indent: usize, item: &Item) {
        match item {
            Item::Blank => self.line(0, ""),
            Item::Comment(lines) => {
                for l in lines {
                    self.line(indent, &comment_line(l));
                }
            }
            Item::Decl(_) => self.decls(indent, std::slice::from_ref(item)),
            Item::LocalParam { .. } => self.localparams(indent, std::slice::from_ref(item)),
            Item::Assign(l, r) => self.line(indent, &format!("assign {} = {};", expr(l), expr(r))),
            Item::Comb(stmts) => {
                self.line(indent, "always @* begin");
                self.stmts(indent + 1, stmts);
                self.line(indent, "end");
            }
            Item::Flops(flops) => self.flops(indent, flops),
            Item::MemWrite {
                mem,
                enable,
                addr,
                data,
            } => {
                self.line(indent, "always @(posedge clk) begin");
                self.line(indent + 1, &format!("if ({}) begin", expr(enable)));
                self.line(
                    indent + 2,
                    &format!("{mem}[{}] <= {};", expr(addr), expr(data)),
                );
                self.line(indent + 1, "end");
                self.line(indent, "end");
            }
            Item::GenFor {
                var,
                to,
                label,
                items,
            } => {
                self.line(
                    indent,
                    &format!(
                        "for ({var} = 0; {var} < {}; {var} = {var} + 1) begin : {label}",
                        expr(to)
                    ),
                );
                self.items(indent + 1, items);
                self.line(indent, "end");
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

    fn flops(&mut self, indent: usize, flops: &[Flop]) {
        let (reset, plain): (Vec<&Flop>, Vec<&Flop>) =
            flops.iter().partition(|f| f.reset.is_some());
        if !reset.is_empty() {
            let (sens, cond) = match self.reset {
                ResetStyle::SyncHigh => ("posedge clk", "rst".to_string()),
                ResetStyle::AsyncLow => ("posedge clk or negedge rst_n", "!rst_n".to_string()),
            };
            self.line(indent, &format!("always @({sens}) begin"));
            self.line(indent + 1, &format!("if ({cond}) begin"));
            for f in &reset {
                let r = f.reset.as_ref().map(expr).unwrap_or_default();
                self.line(indent + 2, &format!("{} <= {r};", expr(&f.q)));
            }
            self.line(indent + 1, "end else begin");
            for f in &reset {
                self.line(indent + 2, &format!("{} <= {};", expr(&f.q), expr(&f.d)));
            }
            self.line(indent + 1, "end");
            self.line(indent, "end");
        }
        if !plain.is_empty() {
            self.line(indent, "always @(posedge clk) begin");
            for f in &plain {
                self.line(indent + 1, &format!("{} <= {};", expr(&f.q), expr(&f.d)));
            }
            self.line(indent, "end");
        }
    }

    fn stmts(&mut self, indent: usize, stmts: &[Stmt]) {
        for s in stmts {
            self.stmt(indent, s);
        }
    }

    fn stmt(&mut self, indent: usize, s: &Stmt) {
        match s {
            Stmt::Assign(l, r) => self.line(indent, &format!("{} = {};", expr(l), expr(r))),
            Stmt::Comment(c) => self.line(indent, &comment_line(c)),
            Stmt::SysCall(name, args) => {
                if args.is_empty() {
                    self.line(indent, &format!("{name};"));
                } else {
                    let a: Vec<String> = args.iter().map(expr).collect();
                    self.line(indent, &format!("{name}({});", a.join(", ")));
                }
            }
            Stmt::For {
                var,
                from,
                to,
                body,
            } => {
                self.line(
                    indent,
                    &format!(
                        "for ({var} = {}; {var} < {}; {var} = {var} + 1) begin",
                        expr(from),
                        expr(to)
                    ),
                );
                self.stmts(indent + 1, body);
                self.line(indent, "end");
            }
            Stmt::If { cond, then, els } => {
                self.line(indent, &format!("if ({}) begin", expr(cond)));
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
                            self.line(indent, &format!("end else if ({}) begin", expr(cond)));
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
            } => {
                self.line(indent, &format!("case ({})", expr(subject)));
                for (labels, body) in arms {
                    let l: Vec<String> = labels.iter().map(expr).collect();
                    self.arm(indent + 1, &l.join(", "), body);
                }
                self.arm(indent + 1, "default", default);
                self.line(indent, "endcase");
            }
        }
    }

    fn arm(&mut self, indent: usize, label: &str, body: &[Stmt]) {
        match body {
            [] => self.line(indent, &format!("{label}: ;")),
            [Stmt::Assign(l, r)] => {
                self.line(indent, &format!("{label}: {} = {};", expr(l), expr(r)))
            }
            _ => {
                self.line(indent, &format!("{label}: begin"));
                self.stmts(indent + 1, body);
                self.line(indent, "end");
            }
        }
    }
}

fn literal(width: u32, value: u128, base: Base) -> String {
    match base {
        Base::Bin => format!("{width}'b{value:0w$b}", w = width.min(128) as usize),
        Base::Hex => format!(
            "{width}'h{value:0w$x}",
            w = width.div_ceil(4).min(32) as usize
        ),
        Base::Dec => format!("{width}'d{value}"),
    }
}

/// Prints an expression.
pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Ident(n) => n.clone(),
        Expr::Int(v) => v.to_string(),
        Expr::Num { width, value, base } => literal(*width, *value, *base),
        Expr::Str(s) => format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")),
        Expr::Index(x, i) => format!("{}[{}]", operand(x), expr(i)),
        Expr::Slice(x, m, l) => format!("{}[{}:{}]", operand(x), expr(m), expr(l)),
        Expr::PartSelect(x, b, w) => format!("{}[{} +: {}]", operand(x), expr(b), expr(w)),
        Expr::Concat(items) => {
            let v: Vec<String> = items.iter().map(expr).collect();
            format!("{{{}}}", v.join(", "))
        }
        Expr::Repl(n, x) => format!("{{{}{{{}}}}}", operand(n), expr(x)),
        Expr::Unary(op, x) => {
            let o = match op {
                UnOp::Not => "!",
                UnOp::BitNot => "~",
                UnOp::RedOr => "|",
                UnOp::RedAnd => "&",
                UnOp::RedXor => "^",
            };
            format!("{o}{}", operand(x))
        }
        Expr::Binary(op, a, b) => {
            let l = child(*op, a, false);
            let r = child(*op, b, true);
            format!("{l} {} {r}", op.text())
        }
        Expr::Ternary(c, t, f) => {
            let c = match **c {
                Expr::Ternary(..) => format!("({})", expr(c)),
                _ => expr(c),
            };
            let f = expr(f);
            format!("{c} ? {} : {f}", operand_t(t))
        }
    }
}

/// An operand of a unary operator or a select: anything compound is parenthesized.
fn operand(e: &Expr) -> String {
    match e {
        Expr::Binary(..) | Expr::Ternary(..) => format!("({})", expr(e)),
        _ => expr(e),
    }
}

fn operand_t(e: &Expr) -> String {
    match e {
        Expr::Ternary(..) => format!("({})", expr(e)),
        _ => expr(e),
    }
}

fn is_compare(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge | BinOp::Eq | BinOp::Ne
    )
}

/// A binary operand, parenthesized unless the reading is unambiguous to a human: the same
/// associative operator, a comparison under `&&`/`||`, or a product under a sum.
fn child(parent: BinOp, e: &Expr, right: bool) -> String {
    match e {
        Expr::Ternary(..) => format!("({})", expr(e)),
        Expr::Binary(op, ..) => {
            let bare = if *op == parent {
                !right || parent.associative()
            } else if matches!(parent, BinOp::And | BinOp::Or) {
                is_compare(*op)
            } else if matches!(parent, BinOp::Add | BinOp::Sub) {
                *op == BinOp::Mul
            } else if is_compare(parent) {
                matches!(op, BinOp::Add | BinOp::Sub | BinOp::Mul)
            } else {
                false
            };
            if bare {
                expr(e)
            } else {
                format!("({})", expr(e))
            }
        }
        _ => expr(e),
    }
}
