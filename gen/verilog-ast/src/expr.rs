//! Expressions.

/// How a sized literal is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base {
    Bin,
    Dec,
    Hex,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    /// `!`
    Not,
    /// `~`
    BitNot,
    /// `|x`
    RedOr,
    /// `&x`
    RedAnd,
    /// `^x`
    RedXor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Shl,
    Shr,
    Lt,
    Le,
    Gt,
    Ge,
    Eq,
    Ne,
    BitAnd,
    BitXor,
    BitOr,
    And,
    Or,
}

impl BinOp {
    pub(crate) fn text(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::Sub => "-",
            BinOp::Mul => "*",
            BinOp::Shl => "<<",
            BinOp::Shr => ">>",
            BinOp::Lt => "<",
            BinOp::Le => "<=",
            BinOp::Gt => ">",
            BinOp::Ge => ">=",
            BinOp::Eq => "==",
            BinOp::Ne => "!=",
            BinOp::BitAnd => "&",
            BinOp::BitXor => "^",
            BinOp::BitOr => "|",
            BinOp::And => "&&",
            BinOp::Or => "||",
        }
    }
    /// `a op (b op c)` equals `(a op b) op c`, so chains need no parentheses.
    pub(crate) fn associative(self) -> bool {
        matches!(
            self,
            BinOp::Add
                | BinOp::Mul
                | BinOp::BitAnd
                | BinOp::BitOr
                | BinOp::BitXor
                | BinOp::And
                | BinOp::Or
        )
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Ident(String),
    /// Unsized decimal integer (parameter arithmetic, loop bounds).
    Int(i64),
    /// Sized literal `width'<base>value`.
    Num {
        width: u32,
        value: u128,
        base: Base,
    },
    Str(String),
    Index(Box<Expr>, Box<Expr>),
    /// `x[msb:lsb]`
    Slice(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `x[base +: width]`
    PartSelect(Box<Expr>, Box<Expr>, Box<Expr>),
    Concat(Vec<Expr>),
    /// `{count{x}}`
    Repl(Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ternary(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A system function call such as `$clog2(DEPTH)`: the name and the arguments (see
    /// [`Expr::call`]). Boxed: calls are rare, and inline they made every node of every tree
    /// half as large again (48 bytes instead of 32).
    Call(Box<(String, Vec<Expr>)>),
}

impl Expr {
    pub fn id(name: impl Into<String>) -> Expr {
        Expr::Ident(name.into())
    }
    pub fn int(v: i64) -> Expr {
        Expr::Int(v)
    }
    /// A sized literal, written in hex when wider than 4 bits, else binary.
    pub fn num(width: u32, value: u128) -> Expr {
        let base = if width <= 4 { Base::Bin } else { Base::Hex };
        Expr::Num { width, value, base }
    }
    pub fn dec(width: u32, value: u128) -> Expr {
        Expr::Num {
            width,
            value,
            base: Base::Dec,
        }
    }
    /// All zeros: `1'b0`, `4'b0000`, `29'd0`.
    pub fn zero(width: u32) -> Expr {
        if width <= 4 {
            Expr::num(width, 0)
        } else {
            Expr::dec(width, 0)
        }
    }
    pub fn ones(width: u32) -> Expr {
        let v = if width >= 128 {
            u128::MAX
        } else {
            (1u128 << width) - 1
        };
        Expr::num(width, v)
    }
    /// A system function call: `name(args)`.
    pub fn call(name: impl Into<String>, args: Vec<Expr>) -> Expr {
        Expr::Call(Box::new((name.into(), args)))
    }
    pub fn str(s: impl Into<String>) -> Expr {
        Expr::Str(s.into())
    }
    pub fn index(self, i: Expr) -> Expr {
        Expr::Index(Box::new(self), Box::new(i))
    }
    pub fn slice(self, msb: Expr, lsb: Expr) -> Expr {
        Expr::Slice(Box::new(self), Box::new(msb), Box::new(lsb))
    }
    /// `self[msb:lsb]` with constant bounds; a single bit prints as `self[n]`.
    pub fn bits(self, msb: u32, lsb: u32) -> Expr {
        if msb == lsb {
            self.index(Expr::int(i64::from(msb)))
        } else {
            self.slice(Expr::int(i64::from(msb)), Expr::int(i64::from(lsb)))
        }
    }
    pub fn part(self, base: Expr, width: Expr) -> Expr {
        Expr::PartSelect(Box::new(self), Box::new(base), Box::new(width))
    }
    pub fn concat(items: Vec<Expr>) -> Expr {
        Expr::Concat(items)
    }
    pub fn repl(count: Expr, x: Expr) -> Expr {
        Expr::Repl(Box::new(count), Box::new(x))
    }
    pub fn un(op: UnOp, x: Expr) -> Expr {
        Expr::Unary(op, Box::new(x))
    }
    pub fn lnot(x: Expr) -> Expr {
        Expr::un(UnOp::Not, x)
    }
    pub fn bitnot(x: Expr) -> Expr {
        Expr::un(UnOp::BitNot, x)
    }
    pub fn bin(op: BinOp, a: Expr, b: Expr) -> Expr {
        Expr::Binary(op, Box::new(a), Box::new(b))
    }
    pub fn and(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::And, a, b)
    }
    pub fn or(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Or, a, b)
    }
    pub fn band(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::BitAnd, a, b)
    }
    pub fn bor(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::BitOr, a, b)
    }
    pub fn eq(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Eq, a, b)
    }
    pub fn lt(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Lt, a, b)
    }
    pub fn plus(a: Expr, b: Expr) -> Expr {
        Expr::bin(BinOp::Add, a, b)
    }
    /// `a - b`, folded when both are constants.
    pub fn minus(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Int(x), Expr::Int(y)) => Expr::Int(x - y),
            _ => Expr::bin(BinOp::Sub, a, b),
        }
    }
    /// `a * b`, folded when both are constants and dropped when one side is 1.
    pub fn times(a: Expr, b: Expr) -> Expr {
        match (&a, &b) {
            (Expr::Int(x), Expr::Int(y)) => Expr::Int(x * y),
            (Expr::Int(1), _) => b,
            (_, Expr::Int(1)) => a,
            _ => Expr::bin(BinOp::Mul, a, b),
        }
    }
    /// `c ? t : f`; a constant one-bit condition (a generator's compile-time choice) selects
    /// its arm here, so the output never reads `1'b0 ? a : b`.
    pub fn ternary(c: Expr, t: Expr, f: Expr) -> Expr {
        match c {
            Expr::Num {
                width: 1, value, ..
            } => {
                if value != 0 {
                    t
                } else {
                    f
                }
            }
            c => Expr::Ternary(Box::new(c), Box::new(t), Box::new(f)),
        }
    }
    /// AND of all `items` (`1'b1` when empty).
    pub fn all(items: Vec<Expr>) -> Expr {
        items
            .into_iter()
            .reduce(Expr::and)
            .unwrap_or_else(|| Expr::num(1, 1))
    }
    /// Bitwise OR of all `items`, `zero` when empty.
    pub fn any_of(items: Vec<Expr>, zero: Expr) -> Expr {
        items.into_iter().reduce(Expr::bor).unwrap_or(zero)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_constant_condition_selects_its_arm() {
        let (a, b) = (Expr::id("a"), Expr::id("b"));
        assert_eq!(Expr::ternary(Expr::num(1, 1), a.clone(), b.clone()), a);
        assert_eq!(Expr::ternary(Expr::num(1, 0), a.clone(), b.clone()), b);
        let c = Expr::id("c");
        assert!(matches!(
            Expr::ternary(c, a.clone(), b.clone()),
            Expr::Ternary(..)
        ));
        // A wider literal is not a condition the generators fold.
        assert!(matches!(
            Expr::ternary(Expr::num(2, 0), a, b),
            Expr::Ternary(..)
        ));
    }
}
