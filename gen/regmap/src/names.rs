//! Identifier rules and the reserved words of every language a map is emitted into.

/// Keywords of Verilog-2005, SystemVerilog, C, C++ and Rust. A map name that equals one of these
/// would break one of the generated outputs, so it is rejected up front.
pub const RESERVED: &[&str] = &[
    // Verilog-2005
    "always",
    "and",
    "assign",
    "automatic",
    "begin",
    "buf",
    "bufif0",
    "bufif1",
    "case",
    "casex",
    "casez",
    "cell",
    "cmos",
    "config",
    "deassign",
    "default",
    "defparam",
    "design",
    "disable",
    "edge",
    "else",
    "end",
    "endcase",
    "endconfig",
    "endfunction",
    "endgenerate",
    "endmodule",
    "endprimitive",
    "endspecify",
    "endtable",
    "endtask",
    "event",
    "for",
    "force",
    "forever",
    "fork",
    "function",
    "generate",
    "genvar",
    "highz0",
    "highz1",
    "if",
    "ifnone",
    "incdir",
    "include",
    "initial",
    "inout",
    "input",
    "instance",
    "integer",
    "join",
    "large",
    "liblist",
    "library",
    "localparam",
    "macromodule",
    "medium",
    "module",
    "nand",
    "negedge",
    "nmos",
    "nor",
    "noshowcancelled",
    "not",
    "notif0",
    "notif1",
    "or",
    "output",
    "parameter",
    "pmos",
    "posedge",
    "primitive",
    "pull0",
    "pull1",
    "pulldown",
    "pullup",
    "pulsestyle_onevent",
    "pulsestyle_ondetect",
    "rcmos",
    "real",
    "realtime",
    "reg",
    "release",
    "repeat",
    "rnmos",
    "rpmos",
    "rtran",
    "rtranif0",
    "rtranif1",
    "scalared",
    "showcancelled",
    "signed",
    "small",
    "specify",
    "specparam",
    "strong0",
    "strong1",
    "supply0",
    "supply1",
    "table",
    "task",
    "time",
    "tran",
    "tranif0",
    "tranif1",
    "tri",
    "tri0",
    "tri1",
    "triand",
    "trior",
    "trireg",
    "unsigned",
    "use",
    "uwire",
    "vectored",
    "wait",
    "wand",
    "weak0",
    "weak1",
    "while",
    "wire",
    "wor",
    "xnor",
    "xor",
    // SystemVerilog additions
    "alias",
    "always_comb",
    "always_ff",
    "always_latch",
    "assert",
    "assume",
    "before",
    "bind",
    "bins",
    "binsof",
    "bit",
    "break",
    "byte",
    "chandle",
    "class",
    "clocking",
    "const",
    "constraint",
    "context",
    "continue",
    "cover",
    "covergroup",
    "coverpoint",
    "cross",
    "dist",
    "do",
    "endclass",
    "endclocking",
    "endgroup",
    "endinterface",
    "endpackage",
    "endprogram",
    "endproperty",
    "endsequence",
    "enum",
    "expect",
    "export",
    "extends",
    "extern",
    "final",
    "first_match",
    "foreach",
    "forkjoin",
    "iff",
    "ignore_bins",
    "illegal_bins",
    "import",
    "inside",
    "int",
    "interface",
    "intersect",
    "join_any",
    "join_none",
    "local",
    "logic",
    "longint",
    "matches",
    "modport",
    "new",
    "null",
    "package",
    "packed",
    "priority",
    "program",
    "property",
    "protected",
    "pure",
    "rand",
    "randc",
    "randcase",
    "randsequence",
    "ref",
    "return",
    "sequence",
    "shortint",
    "shortreal",
    "solve",
    "static",
    "string",
    "struct",
    "super",
    "tagged",
    "this",
    "throughout",
    "timeprecision",
    "timeunit",
    "type",
    "typedef",
    "union",
    "unique",
    "unique0",
    "var",
    "virtual",
    "void",
    "wait_order",
    "wildcard",
    "with",
    "within",
    "accept_on",
    "checker",
    "endchecker",
    "eventually",
    "global",
    "implies",
    "let",
    "nexttime",
    "reject_on",
    "restrict",
    "s_always",
    "s_eventually",
    "s_nexttime",
    "s_until",
    "s_until_with",
    "strong",
    "sync_accept_on",
    "sync_reject_on",
    "until",
    "until_with",
    "untyped",
    "weak",
    "implements",
    "interconnect",
    "nettype",
    "soft",
    // C and C++
    "auto",
    "char",
    "double",
    "float",
    "goto",
    "long",
    "register",
    "restrict",
    "short",
    "sizeof",
    "switch",
    "volatile",
    "inline",
    "bool",
    "catch",
    "delete",
    "friend",
    "mutable",
    "namespace",
    "operator",
    "private",
    "public",
    "template",
    "throw",
    "try",
    "typename",
    "using",
    "asm",
    "explicit",
    "true",
    "false",
    "nullptr",
    "noexcept",
    "constexpr",
    "decltype",
    "thread_local",
    "alignas",
    "alignof",
    "char8_t",
    "char16_t",
    "char32_t",
    "concept",
    "requires",
    "consteval",
    "constinit",
    "co_await",
    "co_return",
    "co_yield",
    "static_assert",
    "static_cast",
    "dynamic_cast",
    "reinterpret_cast",
    "const_cast",
    "typeid",
    "wchar_t",
    "and_eq",
    "bitand",
    "bitor",
    "compl",
    "not_eq",
    "or_eq",
    "xor_eq",
    // Rust
    "as",
    "crate",
    "dyn",
    "fn",
    "impl",
    "in",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "self",
    "trait",
    "unsafe",
    "where",
    "abstract",
    "become",
    "box",
    "macro",
    "override",
    "priv",
    "typeof",
    "unsized",
    "yield",
    "async",
    "await",
    "gen",
];

/// [`RESERVED`] as a set: every name of a map is checked, and a map may hold tens of
/// thousands of them.
static RESERVED_SET: std::sync::LazyLock<crate::fasthash::FastSet<&'static str>> =
    std::sync::LazyLock::new(|| RESERVED.iter().copied().collect());

pub fn is_reserved(name: &str) -> bool {
    if name.bytes().any(|b| b.is_ascii_uppercase()) {
        RESERVED_SET.contains(name.to_ascii_lowercase().as_str())
    } else {
        RESERVED_SET.contains(name)
    }
}

/// Which spelling a name must follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NameKind {
    /// Blocks, registers, groups, fields, enums, memories, spaces, windows.
    Snake,
    /// Parameters and enum values.
    Upper,
}

/// Why a name is malformed, or `None` when it is fine.
pub fn name_problem(name: &str, kind: NameKind) -> Option<String> {
    if is_well_formed(name, kind) {
        return None;
    }
    let ok_char = |c: char| match kind {
        NameKind::Snake => c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_',
        NameKind::Upper => c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_',
    };
    let first_ok = match kind {
        NameKind::Snake => name.starts_with(|c: char| c.is_ascii_lowercase()),
        NameKind::Upper => name.starts_with(|c: char| c.is_ascii_uppercase()),
    };
    let style = match kind {
        NameKind::Snake => "snake_case ([a-z][a-z0-9_]*)",
        NameKind::Upper => "UPPER_CASE ([A-Z][A-Z0-9_]*)",
    };
    if name.is_empty() {
        return Some("the name is empty".into());
    }
    if !first_ok || !name.chars().all(ok_char) {
        return Some(format!("`{name}` is not {style}"));
    }
    if name.contains("__") || name.ends_with('_') {
        return Some(format!(
            "`{name}` has a doubled or trailing `_`, which would make generated names ambiguous"
        ));
    }
    None
}

/// The rules of [`name_problem`] in one pass over the bytes: every name of a map is checked,
/// and nearly all are fine.
fn is_well_formed(name: &str, kind: NameKind) -> bool {
    let letter = |c: u8| match kind {
        NameKind::Snake => c.is_ascii_lowercase(),
        NameKind::Upper => c.is_ascii_uppercase(),
    };
    let b = name.as_bytes();
    let Some((&first, rest)) = b.split_first() else {
        return false;
    };
    if !letter(first) {
        return false;
    }
    let mut prev = first;
    for &c in rest {
        if !(letter(c) || c.is_ascii_digit() || c == b'_') || (c == b'_' && prev == b'_') {
            return false;
        }
        prev = c;
    }
    prev != b'_'
}

/// The closest candidate within edit distance 2, for "did you mean" hints.
pub fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    candidates
        .iter()
        .map(|c| (edit_distance(word, c), *c))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c)
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1; b.len() + 1];
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != cb);
            cur[j + 1] = sub.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        assert!(name_problem("rx_drop", NameKind::Snake).is_none());
        assert!(name_problem("RxDrop", NameKind::Snake).is_some());
        assert!(name_problem("a__b", NameKind::Snake).is_some());
        assert!(name_problem("NUM_VF", NameKind::Upper).is_none());
        assert!(name_problem("num_vf", NameKind::Upper).is_some());
        // The one-pass check agrees with the rules it stands in for.
        for (name, kind, ok) in [
            ("a", NameKind::Snake, true),
            ("a1_b2", NameKind::Snake, true),
            ("", NameKind::Snake, false),
            ("_a", NameKind::Snake, false),
            ("1a", NameKind::Snake, false),
            ("a_", NameKind::Snake, false),
            ("a__", NameKind::Snake, false),
            ("aé", NameKind::Snake, false),
            ("a-b", NameKind::Snake, false),
            ("A_1", NameKind::Upper, true),
            ("A_b", NameKind::Upper, false),
            ("A__B", NameKind::Upper, false),
        ] {
            assert_eq!(name_problem(name, kind).is_none(), ok, "{name}");
            assert_eq!(is_well_formed(name, kind), ok, "{name}");
        }
        assert!(is_reserved("match") && is_reserved("module") && is_reserved("int"));
        assert!(!is_reserved("state"));
        // Case-insensitive, and every listed word is found.
        assert!(is_reserved("MODULE") && is_reserved("Always"));
        assert!(RESERVED.iter().all(|w| is_reserved(w)));
        assert_eq!(closest("acess", &["access", "bits"]), Some("access"));
        assert_eq!(closest("zzzz", &["access", "bits"]), None);
    }
}
