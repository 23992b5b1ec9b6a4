//! Line breaking for statements whose right-hand side does not fit in [`LIMIT`] columns.
//!
//! The printer writes every statement on one line first; only a line over the limit is
//! written again through [`wrap_into`]. The break points are the ones a designer would pick
//! by hand: after each arm of a `?:` chain, after an operator of a chain of the same
//! operator (filling each line), after a comma of a concatenation. Continuation lines line
//! up under the start of the expression they continue. The parentheses are exactly those of
//! the one-line form (the same `child`/`operand` rules decide them), so breaking a line never
//! changes what it means. An operand that does not fit even on a line of its own is broken
//! by the same rules; one that cannot be broken (a long name) is left long.

use crate::print::{child_is_bare, expr_into, unop_text};
use crate::*;

/// Longest line the printer aims for (the lowRISC Verilog style guide's limit).
pub(crate) const LIMIT: usize = 100;

/// Column of the end of `out` (everything is ASCII).
pub(crate) fn column(out: &str) -> usize {
    out.len() - out.rfind('\n').map_or(0, |i| i + 1)
}

fn flat(e: &Expr) -> String {
    let mut s = String::new();
    expr_into(&mut s, e);
    s
}

fn newline_at(out: &mut String, col: usize) {
    out.push('\n');
    for _ in 0..col {
        out.push(' ');
    }
}

/// Appends `e`, broken over lines where it would pass [`LIMIT`]; `tail` characters (a `;`,
/// closing parentheses) follow it on its last line. Continuation lines start at the column
/// `e` starts at.
pub(crate) fn wrap_into(out: &mut String, e: &Expr, tail: usize) {
    place(out, e, &flat(e), tail);
}

/// [`wrap_into`] with `e`'s one-line form already at hand (the callers measured it).
pub(crate) fn place(out: &mut String, e: &Expr, text: &str, tail: usize) {
    let col = column(out);
    if col + text.len() + tail <= LIMIT {
        out.push_str(text);
        return;
    }
    match e {
        Expr::Ternary(..) => ternary_chain(out, e, col, tail),
        Expr::Binary(op, a, b) => {
            let mut operands = Vec::new();
            chain(*op, a, false, &mut operands);
            chain(*op, b, true, &mut operands);
            fill(out, &operands, op.text(), col, tail);
        }
        Expr::Concat(items) => {
            out.push('{');
            let operands: Vec<(&Expr, bool)> = items.iter().map(|x| (x, false)).collect();
            fill(out, &operands, ",", col + 1, tail + 1);
            out.push('}');
        }
        Expr::Unary(op, x) => {
            // `~(...)`, `|{...}`: the operand breaks inside its parentheses or braces.
            out.push_str(unop_text(*op));
            if matches!(**x, Expr::Binary(..) | Expr::Ternary(..)) {
                out.push('(');
                wrap_into(out, x, tail + 1);
                out.push(')');
            } else {
                wrap_into(out, x, tail);
            }
        }
        _ => out.push_str(text),
    }
}

/// The operands of a chain of `op` as the one-line form prints them, each with whether it
/// is parenthesized there.
fn chain<'e>(op: BinOp, e: &'e Expr, right: bool, out: &mut Vec<(&'e Expr, bool)>) {
    match e {
        Expr::Binary(inner, a, b) if *inner == op && (!right || op.associative()) => {
            chain(op, a, false, out);
            chain(op, b, true, out);
        }
        _ => out.push((e, !child_is_bare(op, e, right))),
    }
}

/// Operands separated by `sep` (an operator, or `,`), as many to a line as fit; a line
/// ends after a separator and the next starts at `col`.
fn fill(out: &mut String, operands: &[(&Expr, bool)], sep: &str, col: usize, tail: usize) {
    let comma = sep == ",";
    for (i, (x, parens)) in operands.iter().enumerate() {
        let last = i + 1 == operands.len();
        // What must follow this operand on its line: the separator, or the tail.
        let after = if last {
            tail
        } else {
            sep.len() + usize::from(!comma)
        };
        let text = flat(x);
        if i > 0 {
            let width = text.len() + 2 * usize::from(*parens);
            if column(out) + 1 + width + after > LIMIT {
                newline_at(out, col);
            } else {
                out.push(' ');
            }
        }
        if *parens {
            out.push('(');
            place(out, x, &text, after + 1);
            out.push(')');
        } else {
            place(out, x, &text, after);
        }
        if !last {
            if !comma {
                out.push(' ');
            }
            out.push_str(sep);
        }
    }
}

/// `c0 ? v0 :` / `c1 ? v1 :` / ... / `vn`, one arm to a line, all starting at `col`. An arm
/// too long for its line puts its value on the next line, indented one level further.
fn ternary_chain(out: &mut String, e: &Expr, col: usize, tail: usize) {
    let mut e = e;
    loop {
        match e {
            Expr::Ternary(c, t, f) => {
                let (c_text, t_text) = (flat(c), flat(t));
                let cond = |out: &mut String, tail: usize| {
                    if let Expr::Ternary(..) = **c {
                        out.push('(');
                        place(out, c, &c_text, tail + 1);
                        out.push(')');
                    } else {
                        place(out, c, &c_text, tail);
                    }
                };
                let value = |out: &mut String| {
                    if let Expr::Ternary(..) = **t {
                        out.push('(');
                        place(out, t, &t_text, 3);
                        out.push(')');
                    } else {
                        place(out, t, &t_text, 2);
                    }
                };
                let parens = |x: &Expr| 2 * usize::from(matches!(x, Expr::Ternary(..)));
                let arm = c_text.len() + parens(c) + 3 + t_text.len() + parens(t) + 2;
                if col + arm <= LIMIT {
                    cond(out, 0);
                    out.push_str(" ? ");
                    value(out);
                } else {
                    cond(out, 2);
                    out.push_str(" ?");
                    newline_at(out, col + 2);
                    value(out);
                }
                out.push_str(" :");
                newline_at(out, col);
                e = f;
            }
            last => {
                wrap_into(out, last, tail);
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// `assign name = e;` as the printer writes it after `assign`.
    fn assign(name: &str, e: &Expr) -> String {
        let mut out = format!("  assign {name} = ");
        wrap_into(&mut out, e, 1);
        out.push(';');
        out
    }

    fn squeeze(s: &str) -> String {
        s.split_whitespace().collect()
    }

    #[test]
    fn a_priority_chain_gets_one_arm_per_line() {
        let arm = |c: &str, v: u128| (Expr::id(c), Expr::num(3, v));
        let arms = [
            arm("partition_check_failed_here", 1),
            arm("context_missing_for_this_qpn", 2),
            arm("page_does_not_match_the_qp", 3),
        ];
        let e = arms
            .into_iter()
            .rev()
            .fold(Expr::num(3, 0), |f, (c, v)| Expr::ternary(c, v, f));
        assert_eq!(
            assign("db_reason", &e),
            "  assign db_reason = partition_check_failed_here ? 3'b001 :\n\
             \x20                    context_missing_for_this_qpn ? 3'b010 :\n\
             \x20                    page_does_not_match_the_qp ? 3'b011 :\n\
             \x20                    3'b000;"
        );
    }

    #[test]
    fn an_operator_chain_fills_lines_and_keeps_parentheses() {
        let term = |i: u32| {
            Expr::and(
                Expr::id(format!("candidate_k_q[{i}]")),
                Expr::id(format!("tag_q[{i}]")),
            )
        };
        let e = (0..8).map(term).reduce(Expr::or).unwrap();
        let text = assign("klo", &e);
        assert!(text.lines().count() > 1, "{text}");
        for l in text.lines() {
            assert!(l.len() <= LIMIT, "{l}");
            assert!(!l.ends_with(' '), "{l:?}");
        }
        let mut flat_text = String::new();
        expr_into(&mut flat_text, &e);
        assert_eq!(
            squeeze(&text),
            squeeze(&format!("assign klo = {flat_text};"))
        );
        assert!(text.starts_with("  assign klo = (candidate_k_q[0] && tag_q[0]) ||"));
    }

    #[test]
    fn a_concatenation_breaks_after_commas_inside_its_braces() {
        let e = Expr::concat(
            (0..12)
                .map(|i| Expr::id(format!("mailbox_word_{i}")))
                .collect(),
        );
        let text = assign("load_word", &e);
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines.len() > 1);
        assert!(lines[0].ends_with(','));
        // Continuation lines start just inside the brace.
        let brace = lines[0].find('{').unwrap();
        assert_eq!(lines[1].len() - lines[1].trim_start().len(), brace + 1);
        assert!(text.ends_with("mailbox_word_11};"));
    }

    fn expr_tree() -> impl Strategy<Value = Expr> {
        let leaf = prop_oneof![
            "[a-z][a-z_0-9]{0,24}".prop_map(Expr::id),
            (1u32..40, any::<u32>()).prop_map(|(w, v)| Expr::num(w, u128::from(v))),
        ];
        leaf.prop_recursive(5, 64, 6, |inner| {
            let op = prop_oneof![
                Just(BinOp::Add),
                Just(BinOp::Sub),
                Just(BinOp::Lt),
                Just(BinOp::Eq),
                Just(BinOp::BitAnd),
                Just(BinOp::BitOr),
                Just(BinOp::And),
                Just(BinOp::Or),
            ];
            prop_oneof![
                (op, inner.clone(), inner.clone()).prop_map(|(o, a, b)| Expr::bin(o, a, b)),
                (inner.clone(), inner.clone(), inner.clone())
                    .prop_map(|(c, t, f)| Expr::ternary(c, t, f)),
                prop::collection::vec(inner.clone(), 1..6).prop_map(Expr::concat),
                inner.clone().prop_map(Expr::lnot),
                inner.prop_map(|x| Expr::un(UnOp::RedOr, x)),
            ]
        })
    }

    proptest! {
        /// Breaking lines only adds whitespace: the tokens (hence the parentheses and what
        /// the expression means) are those of the one-line form, and a form that fits is
        /// left on one line.
        #[test]
        fn breaking_changes_only_whitespace(e in expr_tree(), lead in 0usize..60) {
            let name = "x".repeat(lead + 1);
            let text = assign(&name, &e);
            let mut flat_text = String::new();
            expr_into(&mut flat_text, &e);
            let one_line = format!("  assign {name} = {flat_text};");
            prop_assert_eq!(squeeze(&text), squeeze(&one_line));
            if one_line.len() <= LIMIT {
                prop_assert_eq!(&text, &one_line);
            }
            for l in text.lines() {
                prop_assert!(!l.ends_with(' '), "trailing space: {:?}", l);
            }
        }
    }
}
