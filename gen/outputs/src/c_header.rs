//! The C header of a map: one `#define` per offset, mask, shift, width and reset, enum values,
//! array strides with element-offset macros and inline functions, each register's read and
//! write masks, each field's `static inline` get/set functions, and `static_assert`s that
//! re-check the layout at compile time. It compiles as C11 and as C++17 with all warnings as
//! errors, and nests in `extern "C"`.
//!
//! Naming (all upper case, prefixed by the block): `<B>_<REG>_OFFSET`, `<B>_<REG>_RESET_VALUE`,
//! `<B>_<REG>_{RDMASK,WRMASK}`, `<B>_<REG>_<FIELD>_{SHIFT,MASK,WIDTH,RESET}` (functions are
//! the lower-case `<b>_<reg>_<field>_{get,set}`); register-level suffixes never end in a
//! field-level one, so they cannot meet. Other clashes (a group register `a.b` beside a
//! register `a_b`) are reported by validation (`regmap::c_name_clash`, from
//! `rdmagen_regmap::cnames`, which lists the names this header defines); [`generate`] keeps an
//! exact check of its own as a guard, so that a map validation let through (or a model changed
//! after validation) never produces a header that redefines a macro.

use rdmagen_regmap::text::{push_decimal, push_hex, push_upper};
use std::fmt::Write;

use rdmagen_regmap::fasthash::FastSet;
use rdmagen_regmap::{Count, Field, Group, Item, MemField, RegMap, Register, Space, Window};

use crate::{hex, register_reset, source_name, Options};

/// Macro names a map would define twice.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NameClash {
    pub names: Vec<String>,
}

impl std::fmt::Display for NameClash {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the C header would define {} twice; rename one of the registers, fields, enums, \
             memories or spaces that produce it",
            self.names
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    }
}

impl std::error::Error for NameClash {}

/// The header's file name: `<block>.h`.
pub fn file_name(map: &RegMap) -> String {
    format!("{}.h", map.block)
}

/// The header text, or the macro names that would clash.
pub fn generate(map: &RegMap, opts: &Options) -> Result<String, NameClash> {
    let mut text = Vec::new();
    generate_to(map, opts, &mut text).expect("writing into memory does not fail")?;
    Ok(String::from_utf8(text).expect("the header is built from strings"))
}

/// [`generate`]'s text written to `sink` as it is made, in chunks of a few hundred KiB (a
/// NIC-scale header is megabytes, and a string that size is fresh memory). On a name clash
/// the text was written all the same: the caller discards it.
///
/// Two passes over the map: the definitions, then the layout checks, which must follow every
/// definition they name. The first pass keeps only hashes of the names it defines; a hash
/// seen twice (a clash, or two names of the same hash) sends the map through
/// an exact pass, which keeps the definitions and compares the names themselves.
pub fn generate_to(
    map: &RegMap,
    opts: &Options,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<Result<(), NameClash>> {
    let mut defs = Header::new(map, Pass::Definitions, Some(&mut *sink));
    defs.walk(map, opts);
    let _ = writeln!(
        defs.out,
        "\n/* Layout checks: the compiler re-checks what rdmagen validated. */"
    );
    let repeated = match &defs.names {
        Names::Hashed { repeated, .. } => *repeated,
        Names::Exact(_) => unreachable!("a header with a sink keeps hashes"),
    };
    defs.finish()?;

    let mut checks = Header::new(map, Pass::Checks, Some(&mut *sink));
    checks.walk(map, opts);
    let _ = writeln!(
        checks.out,
        "\n#ifdef __cplusplus\n}} /* extern \"C\" */\n#endif\n\n#endif /* {}_REGS_H */",
        checks.block
    );
    checks.finish()?;

    if repeated {
        let names = exact_clashes(map, opts);
        if !names.is_empty() {
            return Ok(Err(NameClash { names }));
        }
    }
    Ok(Ok(()))
}

/// Every macro name the header of `map` defines more than once, sorted: the definitions pass
/// with its text kept whole and every name's place in it.
fn exact_clashes(map: &RegMap, opts: &Options) -> Vec<String> {
    let mut h = Header::new(map, Pass::Definitions, None);
    h.walk(map, opts);
    let Names::Exact(defined) = &h.names else {
        unreachable!("a header without a sink keeps the names' places")
    };
    // A hash set, not a sort: the names of a NIC-scale map share long prefixes.
    let mut seen: FastSet<&str> = FastSet::default();
    seen.reserve(defined.len() + h.reserved.len());
    let mut clashes: Vec<String> = defined
        .iter()
        .map(|r| &h.out[r.clone()])
        .chain(h.reserved.iter().map(String::as_str))
        .filter(|name| !seen.insert(name))
        .map(str::to_string)
        .collect();
    clashes.sort_unstable();
    clashes.dedup();
    clashes
}

/// About how many macros the header of `map` defines: a register's offset, reset value and masks, a
/// field's shift, width, mask and reset, a handful for the rest.
fn defined_names(map: &RegMap) -> usize {
    let fields: usize = map.registers().map(|(_, r)| 4 + 4 * r.fields.len()).sum();
    64 + fields + 8 * map.items.len()
}

/// How much text a pass keeps before handing it to its sink.
const CHUNK: usize = 1 << 18;

/// The two passes of [`generate_to`]; each walks the whole map.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pass {
    /// Comments and `#define`s, read as a table.
    Definitions,
    /// `static_assert`s on what the definitions say.
    Checks,
}

/// The macro names a definitions pass has defined, to find clashes.
enum Names {
    /// Where each name sits in `out`, which is kept whole (no copy per name: a big map
    /// defines hundreds of thousands).
    Exact(Vec<std::ops::Range<usize>>),
    /// The names' hashes, `out` being handed to the sink as it fills; `repeated` once a hash
    /// comes again.
    Hashed { seen: FastSet<u64>, repeated: bool },
}

struct Header<'w> {
    /// Upper-case block name, the prefix of every macro.
    block: String,
    pass: Pass,
    /// The text not yet handed to `sink` (all of it without one).
    out: String,
    names: Names,
    /// Names the prologue takes without a `#define` line of the usual form.
    reserved: Vec<String>,
    sink: Option<&'w mut dyn std::io::Write>,
    /// The sink's first error; nothing more is written after it.
    failed: Option<std::io::Error>,
}

/// The bits of `r` a software read returns and those a software write acts on (`w1c`, `w1s`,
/// `w0c` and `wp` included), as `<REG>_RDMASK` and `<REG>_WRMASK` give them.
pub fn access_masks(r: &Register) -> (u64, u64) {
    r.fields.iter().fold((0, 0), |(read, write), f| {
        (
            read | if f.access.sw_reads() { f.mask() } else { 0 },
            write | if f.access.sw_writes() { f.mask() } else { 0 },
        )
    })
}

/// An unsigned literal: `u` when it fits 32 bits, `ull` otherwise or when `wide`.
fn lit(value: u64, wide: bool) -> String {
    let mut s = String::with_capacity(24);
    push_lit(&mut s, value, wide);
    s
}

/// [`lit`] written into `out`.
fn push_lit(out: &mut String, value: u64, wide: bool) {
    push_hex(out, value, 1);
    if wide || value > u64::from(u32::MAX) {
        out.push_str("ull");
    } else {
        out.push('u');
    }
}

/// Text safe inside a `/* */` comment (copied only when it holds a `*/`).
fn comment_safe(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains("*/") {
        std::borrow::Cow::Owned(text.replace("*/", "* /"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

/// `text` as one `/* … */` comment wrapped at 100 columns.
fn comment(out: &mut String, text: &str) {
    // Wrapped in place: the first line's ` * ` becomes `/* ` (same length) and the last line
    // ends in ` */` instead of its line break.
    let start = out.len();
    wrap_comment(out, " * ", text);
    if out.len() == start {
        out.push_str("/*  */\n");
        return;
    }
    out.replace_range(start..start + 3, "/* ");
    out.pop();
    out.push_str(" */\n");
}

/// Wraps `text` into comment lines of at most 100 columns, each starting with `lead`.
fn wrap_comment(out: &mut String, lead: &str, text: &str) {
    let text = comment_safe(text);
    // Most comments (one per register and field) are one line already: words separated by
    // single spaces, short enough. The loop below would write that same line word by word.
    if lead.len() + text.len() <= 100 && rdmagen_regmap::text::single_spaced(&text) {
        out.push_str(lead);
        out.push_str(&text);
        out.push('\n');
        return;
    }
    wrap_words(out, lead, &text);
}

/// [`wrap_comment`] word by word, of a text without `*/`.
fn wrap_words(out: &mut String, lead: &str, text: &str) {
    // Length of the line being written after `lead` (0: no line open).
    let mut line = 0;
    for word in text.split_whitespace() {
        if line > 0 && lead.len() + line + 1 + word.len() > 100 {
            out.push('\n');
            line = 0;
        }
        if line == 0 {
            out.push_str(lead);
        } else {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += word.len();
    }
    if line > 0 {
        out.push('\n');
    }
}

impl<'w> Header<'w> {
    /// A pass over `map`; with a sink, names are kept as hashes and `out` is handed over as it
    /// fills, without one `out` keeps the whole text.
    fn new(map: &RegMap, pass: Pass, sink: Option<&'w mut dyn std::io::Write>) -> Self {
        let (capacity, names) = match sink {
            Some(_) => (
                CHUNK + (CHUNK >> 2),
                Names::Hashed {
                    // Sized once for the names the map defines (grown by doubling, the set's
                    // copies were fresh memory).
                    seen: FastSet::with_capacity_and_hasher(defined_names(map), Default::default()),
                    repeated: false,
                },
            ),
            None => (4096 + 2048 * map.items.len(), Names::Exact(Vec::new())),
        };
        Header {
            block: map.block.to_uppercase(),
            pass,
            out: String::with_capacity(capacity),
            names,
            reserved: Vec::new(),
            sink,
            failed: None,
        }
    }

    fn defs(&self) -> bool {
        self.pass == Pass::Definitions
    }

    fn checks(&self) -> bool {
        self.pass == Pass::Checks
    }

    /// The pass's part of the header, in map order.
    fn walk(&mut self, map: &RegMap, opts: &Options) {
        if self.defs() {
            self.prologue(map, opts);
            self.parameters(map);
            self.enums(map);
        }
        for item in &map.items {
            match item {
                Item::Register(r) => self.register(r, None),
                Item::Group(g) => self.group(g),
            }
            self.spill();
        }
        if self.defs() {
            self.memories(map);
        }
        self.spaces(map);
        if self.checks() {
            self.layout_asserts(map);
        }
    }

    /// Hands `out` to the sink once it holds a chunk.
    fn spill(&mut self) {
        if self.out.len() >= CHUNK {
            self.write_out();
        }
    }

    fn write_out(&mut self) {
        if let Some(sink) = self.sink.as_mut() {
            if self.failed.is_none() {
                if let Err(e) = sink.write_all(self.out.as_bytes()) {
                    self.failed = Some(e);
                }
            }
            self.out.clear();
        }
    }

    /// Hands the rest to the sink; its first error, if any.
    fn finish(mut self) -> std::io::Result<()> {
        self.write_out();
        self.failed.map_or(Ok(()), Err)
    }

    /// `<BLOCK>_<PARTS…>` upper-cased.
    fn name(&self, parts: &[&str]) -> String {
        // Sized once: a copy of the block name grew again at the first `_`.
        let len = self.block.len() + parts.iter().map(|p| p.len() + 1).sum::<usize>();
        let mut n = String::with_capacity(len);
        n.push_str(&self.block);
        for p in parts {
            n.push('_');
            push_upper(&mut n, p);
        }
        n
    }

    fn define(&mut self, name: &str, value: &str) {
        self.define_suffixed(name, "", value);
    }

    /// `#define <name><suffix> <value>`, without building the name first.
    fn define_suffixed(&mut self, name: &str, suffix: &str, value: &str) {
        self.define_with(name, suffix, |out| out.push_str(value));
    }

    /// `#define <name><suffix> <value>` with the value written by `value`.
    fn define_with(&mut self, name: &str, suffix: &str, value: impl FnOnce(&mut String)) {
        if !self.defs() {
            return;
        }
        self.out.push_str("#define ");
        let start = self.out.len();
        self.out.push_str(name);
        self.out.push_str(suffix);
        // A function-like macro by its identifier: `X_OFFSET(i)` and `X_OFFSET` are one name.
        let end = match self.out[start..].find('(') {
            Some(open) => start + open,
            None => self.out.len(),
        };
        match &mut self.names {
            Names::Exact(defined) => defined.push(start..end),
            Names::Hashed { seen, repeated } => {
                if !seen.insert(hash_name(&self.out[start..end])) {
                    *repeated = true;
                }
            }
        }
        self.out.push(' ');
        value(&mut self.out);
        self.out.push('\n');
    }

    /// `#define <name><suffix> <value>u`
    fn define_unsigned(&mut self, name: &str, suffix: &str, value: u64) {
        self.define_with(name, suffix, |out| {
            push_decimal(out, value);
            out.push('u');
        });
    }

    /// `#define <name><suffix> <literal>`, the literal as [`lit`] writes it.
    fn define_lit(&mut self, name: &str, suffix: &str, value: u64, wide: bool) {
        self.define_with(name, suffix, |out| push_lit(out, value, wide));
    }

    /// [`Header::assert`] from pieces: the per-field and per-register checks of a NIC-scale map
    /// are tens of thousands of lines, and the formatting machinery costs several times as much
    /// as copying the pieces.
    fn assert_parts(&mut self, cond: &[&str], what: &[&str]) {
        if !self.checks() {
            return;
        }
        let a = &mut self.out;
        a.push_str(&self.block);
        a.push_str("_STATIC_ASSERT(");
        for piece in cond {
            a.push_str(piece);
        }
        a.push_str(", \"");
        for piece in what {
            a.push_str(piece);
        }
        a.push_str("\");\n");
    }

    /// `{B}{check}{field}, "{reg_path}.{field_name}");`: one of the per-field check macros.
    fn assert_field(&mut self, check: &str, field: &str, reg_path: &str, field_name: &str) {
        if !self.checks() {
            return;
        }
        let a = &mut self.out;
        for piece in [
            &self.block,
            check,
            field,
            ", \"",
            reg_path,
            ".",
            field_name,
            "\");\n",
        ] {
            a.push_str(piece);
        }
    }

    /// `{B}_STATIC_ASSERT(cond, "what");` in the checks pass. Takes format arguments, so the
    /// checks cost no temporary strings.
    fn assert(&mut self, cond: std::fmt::Arguments<'_>, what: std::fmt::Arguments<'_>) {
        if !self.checks() {
            return;
        }
        let _ = writeln!(
            self.out,
            "{}_STATIC_ASSERT({cond}, \"{what}\");",
            self.block
        );
    }

    fn prologue(&mut self, map: &RegMap, opts: &Options) {
        let guard = format!("{}_REGS_H", self.block);
        let b = &self.block;
        let o = &mut self.out;
        let _ = writeln!(
            o,
            "/* {}: registers of block `{}`, map version {}.",
            file_name(map),
            map.block,
            map.version
        );
        let _ = writeln!(o, " *");
        let _ = writeln!(
            o,
            " * Generated by {} from {}.",
            opts.generator,
            comment_safe(source_name(map))
        );
        let _ = writeln!(o, " * Do not edit: change the map and run `make rtl`.");
        if !map.description.is_empty() {
            let _ = writeln!(o, " *");
            wrap_comment(o, " * ", &map.description);
        }
        let _ = writeln!(o, " *");
        for line in [
            format!("Naming: {b}_<REG>_OFFSET is a register's byte offset in the CSR block and"),
            // Not "what a read returns": a `wo` field's reset is its output's, and it reads 0.
            format!(
                "{b}_<REG>_RESET_VALUE its fields' resets in place (hardware-driven `ro` fields"
            ),
            "as 0; `wo` fields with their reset, though a read returns 0 for them).".into(),
            format!("{b}_<REG>_<FIELD>_SHIFT, _WIDTH, _MASK (in place) and _RESET (unshifted)"),
            "describe a field. A register of array <GROUP> is <GROUP>_<REG>; its offset in".into(),
            format!("element i is {b}_<GROUP>_<REG>_OFFSET(i), for i below {b}_<GROUP>_COUNT_MAX."),
            format!("{b}_<REG>_RDMASK and _WRMASK are the bits a read returns and a write acts on"),
            "(w1c, w1s, w0c and wp bits are writable). Per field, <reg>_<field>_get(reg) is the"
                .into(),
            "field's value in a register value and <reg>_<field>_set(reg, v) that register value"
                .into(),
            "with the field replaced by v (cut to the field's width); lower case, block prefix."
                .into(),
        ] {
            let _ = writeln!(o, " * {line}");
        }
        let _ = writeln!(o, " */");
        let _ = writeln!(o, "#ifndef {guard}\n#define {guard}\n");
        let _ = writeln!(o, "#include <stdint.h>\n");
        let _ = writeln!(o, "#ifdef __cplusplus");
        let _ = writeln!(o, "extern \"C\" {{");
        let _ = writeln!(
            o,
            "#define {b}_STATIC_ASSERT(cond, msg) static_assert(cond, msg)"
        );
        let _ = writeln!(o, "#else");
        let _ = writeln!(
            o,
            "#define {b}_STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)"
        );
        let _ = writeln!(o, "#endif\n");
        // The per-field checks through two macros: written out, they were two thirds of a
        // NIC-scale header (5 of 7 MB at 4096 registers) in lines of 200 characters.
        let _ = writeln!(
            o,
            "/* Layout checks of field F (its macro prefix): the mask is WIDTH ones at SHIFT, and the\n \
             * reset value fits the field. */"
        );
        let _ = writeln!(
            o,
            "#define {b}_ASSERT_FIELD(F, what) \\\n  \
             {b}_STATIC_ASSERT((F##_MASK >> F##_SHIFT) == ((1ull << (F##_WIDTH - 1u)) * 2u - 1u), \\\n  \
             \x20     what \" mask matches its width\")"
        );
        let _ = writeln!(
            o,
            "#define {b}_ASSERT_FIELD_RESET(F, what) \\\n  \
             {b}_STATIC_ASSERT((F##_RESET & ~(F##_MASK >> F##_SHIFT)) == 0u, what \" reset fits the field\")"
        );
        // Functions, not macros: typed, and each argument evaluated once. `v` is cut to the
        // field's width, as Linux's `FIELD_PREP` does at run time. No `;` after a use: an empty
        // declaration at file scope is an error under -pedantic.
        let _ = writeln!(
            o,
            "/* Field F's accessors of type T: get(reg) is the field's value in register value reg,\n \
             * set(reg, v) is reg with the field replaced by v (cut to the field's width). */"
        );
        let _ = writeln!(
            o,
            "#define {b}_FIELD_ACCESSORS(T, get, set, F) \\\n  \
             static inline T get(T reg) {{ return (reg & F##_MASK) >> F##_SHIFT; }} \\\n  \
             static inline T set(T reg, T v) {{ return (reg & ~F##_MASK) | ((v << F##_SHIFT) & F##_MASK); }}"
        );
        let _ = writeln!(o, "/* Field F's reset value in place in its register. */");
        let _ = writeln!(
            o,
            "#define {b}_RESET_IN_PLACE(F) ((uint64_t)F##_RESET << F##_SHIFT)\n"
        );
        for name in [
            "STATIC_ASSERT",
            "ASSERT_FIELD",
            "ASSERT_FIELD_RESET",
            "FIELD_ACCESSORS",
            "RESET_IN_PLACE",
        ] {
            self.reserved.push(format!("{b}_{name}"));
        }
        self.reserved.push(guard);
        if let Names::Hashed { seen, .. } = &mut self.names {
            for name in &self.reserved {
                seen.insert(hash_name(name));
            }
        }
        let v = map.version;
        for (part, value) in [("MAJOR", v.major), ("MINOR", v.minor), ("PATCH", v.patch)] {
            let name = self.name(&["VERSION", part]);
            self.define(&name, &format!("{value}u"));
        }
        let name = self.name(&["ADDRESS_WIDTH"]);
        self.define(&name, &format!("{}u", map.address_width));
    }

    fn parameters(&mut self, map: &RegMap) {
        for p in &map.parameters {
            let _ = writeln!(self.out);
            comment(
                &mut self.out,
                &format!("Parameter {}: {}", p.name, p.description),
            );
            for (suffix, value) in [("DEFAULT", p.default), ("MIN", p.min), ("MAX", p.max)] {
                let name = self.name(&[&p.name, suffix]);
                self.define(&name, &format!("{value}u"));
            }
        }
    }

    fn enums(&mut self, map: &RegMap) {
        for e in &map.enums {
            let _ = writeln!(self.out);
            let text = if e.description.is_empty() {
                format!("Enum {}.", e.name)
            } else {
                format!("Enum {}: {}", e.name, e.description)
            };
            comment(&mut self.out, &text);
            for v in &e.values {
                let name = self.name(&[&e.name, &v.name]);
                self.define(&name, &lit(v.value, false));
            }
        }
    }

    /// A register's macros; `group` prefixes the names and makes the offset relative.
    fn register(&mut self, r: &Register, group: Option<&Group>) {
        let wide = r.width == 64;
        let path: Vec<&str> = match group {
            Some(g) => vec![g.name.text.as_str(), r.name.text.as_str()],
            None => vec![r.name.text.as_str()],
        };
        let reg_name = self.name(&path);
        let what = path.join(".");
        if self.defs() {
            self.register_definitions(r, group, &reg_name);
        }
        for f in &r.fields {
            self.field(&reg_name, &what, f, wide);
        }
        if self.checks() {
            self.register_checks(r, group, &reg_name, &what);
        }
    }

    /// A register's comment, offset and reset value.
    fn register_definitions(&mut self, r: &Register, group: Option<&Group>, reg_name: &str) {
        let wide = r.width == 64;
        self.out.push('\n');
        let mut text = String::with_capacity(64 + r.description.len());
        match group {
            Some(g) => {
                text.push_str(&g.name);
                text.push('.');
                text.push_str(&r.name);
                text.push_str(" (element offset ");
            }
            None => {
                text.push_str(&r.name);
                text.push_str(" (");
            }
        }
        push_hex(&mut text, r.offset, 3);
        text.push_str(", ");
        push_decimal(&mut text, u64::from(r.width));
        text.push_str("-bit)");
        if !r.description.is_empty() {
            text.push_str(": ");
            text.push_str(&r.description);
        }
        comment(&mut self.out, &text);
        match group {
            None => self.define_lit(reg_name, "_OFFSET", r.offset, false),
            Some(g) => {
                let group_name = self.name(&[&g.name]);
                self.define(&format!("{reg_name}_ELEMENT_OFFSET"), &lit(r.offset, false));
                self.define(
                    &format!("{reg_name}_OFFSET(i)"),
                    &format!(
                        "({group_name}_OFFSET + (i) * {group_name}_STRIDE + {reg_name}_ELEMENT_OFFSET)"
                    ),
                );
                let func = reg_name.to_lowercase();
                let _ = writeln!(
                    self.out,
                    "static inline uint32_t {func}_offset(uint32_t i) {{ return {reg_name}_OFFSET(i); }}"
                );
            }
        }
        self.define_lit(reg_name, "_RESET_VALUE", register_reset(r), wide);
        // Not `_RD_MASK`: a field `rd` would define that name too (register-level suffixes
        // never end in a field-level one).
        let (read, write) = access_masks(r);
        self.define_lit(reg_name, "_RDMASK", read, wide);
        self.define_lit(reg_name, "_WRMASK", write, wide);
    }

    /// Register-level checks: aligned, fields disjoint, reset is the fields' resets.
    fn register_checks(&mut self, r: &Register, group: Option<&Group>, reg_name: &str, what: &str) {
        let offset = match group {
            None => "_OFFSET",
            Some(_) => "_ELEMENT_OFFSET",
        };
        let mut bytes = String::with_capacity(4);
        push_decimal(&mut bytes, r.bytes());
        self.assert_parts(
            &[reg_name, offset, " % ", &bytes, "u == 0u"],
            &[what, " is aligned"],
        );
        let upper: Vec<String> = r.fields.iter().map(|f| f.name.to_uppercase()).collect();
        // Every field is readable, writable or both: the two masks cover exactly the fields.
        let mut fields = String::with_capacity(upper.len() * (reg_name.len() + 16) + 2);
        fields.push('(');
        for (k, u) in upper.iter().enumerate() {
            if k > 0 {
                fields.push_str(" | ");
            }
            for piece in [reg_name, "_", u, "_MASK"] {
                fields.push_str(piece);
            }
        }
        fields.push(')');
        self.assert_parts(
            &[
                "(",
                reg_name,
                "_RDMASK | ",
                reg_name,
                "_WRMASK) == ",
                &fields,
            ],
            &[what, " read and write masks cover its fields"],
        );
        if r.fields.len() > 1 {
            let mut cond = String::with_capacity(2 * upper.len() * (reg_name.len() + 16) + 8);
            for (sep, open) in [(" | ", "("), (" + ", ") == (")] {
                cond.push_str(open);
                for (k, u) in upper.iter().enumerate() {
                    if k > 0 {
                        cond.push_str(sep);
                    }
                    cond.push_str(reg_name);
                    cond.push('_');
                    cond.push_str(u);
                    cond.push_str("_MASK");
                }
            }
            cond.push(')');
            self.assert_parts(&[&cond], &[what, " fields do not overlap"]);
        }
        let mut resets = String::with_capacity(r.fields.len() * (2 * reg_name.len() + 64));
        for (f, u) in r.fields.iter().zip(&upper) {
            if f.reset_value().is_none() {
                continue;
            }
            if !resets.is_empty() {
                resets.push_str(" | ");
            }
            for piece in [&self.block, "_RESET_IN_PLACE(", reg_name, "_", u, ")"] {
                resets.push_str(piece);
            }
        }
        if !resets.is_empty() {
            self.assert_parts(
                &[reg_name, "_RESET_VALUE == (", &resets, ")"],
                &[what, " reset value is its fields' resets"],
            );
        }
    }

    fn field(&mut self, reg_name: &str, reg_path: &str, f: &Field, wide: bool) {
        let mut name = String::with_capacity(reg_name.len() + 1 + f.name.text.len());
        name.push_str(reg_name);
        name.push('_');
        push_upper(&mut name, &f.name);
        if self.checks() {
            if f.reset_value().is_some() {
                self.assert_field("_ASSERT_FIELD_RESET(", &name, reg_path, &f.name);
            }
            self.assert_field("_ASSERT_FIELD(", &name, reg_path, &f.name);
            return;
        }
        let mut text = String::with_capacity(64 + f.description.len());
        text.push_str(&f.name);
        text.push_str(" [");
        push_decimal(&mut text, u64::from(f.msb));
        if f.msb != f.lsb {
            text.push(':');
            push_decimal(&mut text, u64::from(f.lsb));
        }
        text.push_str("] ");
        text.push_str(f.access.as_str());
        if let Some(e) = &f.enumeration {
            text.push_str(", enum ");
            text.push_str(e);
        }
        if !f.description.is_empty() {
            text.push_str(": ");
            text.push_str(&f.description);
        }
        comment(&mut self.out, &text);
        self.define_unsigned(&name, "_SHIFT", u64::from(f.lsb));
        self.define_unsigned(&name, "_WIDTH", u64::from(f.width()));
        self.define_lit(&name, "_MASK", f.mask(), wide);
        if let Some(reset) = f.reset_value() {
            self.define_lit(&name, "_RESET", reset, wide);
        }
        self.field_helpers(&name, wide);
    }

    /// `<b>_<reg>_<field>_get(reg)` and `_set(reg, v)`, defined by the prologue's
    /// `<B>_FIELD_ACCESSORS` with their names written out (so that a search finds them): 100
    /// characters a field instead of the 330 of the two definitions, which made a NIC-scale
    /// header 73% larger.
    fn field_helpers(&mut self, name: &str, wide: bool) {
        let ty = if wide { "uint64_t" } else { "uint32_t" };
        let start = self.out.len();
        self.out.push_str(name);
        self.out[start..].make_ascii_lowercase();
        let func = self.out.split_off(start);
        for piece in [
            &self.block,
            "_FIELD_ACCESSORS(",
            ty,
            ", ",
            &func,
            "_get, ",
            &func,
            "_set, ",
            name,
            ")\n",
        ] {
            self.out.push_str(piece);
        }
    }

    fn group(&mut self, g: &Group) {
        let gname = self.name(&[&g.name]);
        if self.defs() {
            self.group_definitions(g, &gname);
        }
        self.assert(
            format_args!("{gname}_COUNT_MAX * {gname}_STRIDE <= {gname}_WINDOW"),
            format_args!("{} elements fit the window", g.name),
        );
        self.assert(
            format_args!("{gname}_OFFSET % {gname}_WINDOW == 0u"),
            format_args!("{} is aligned to its window", g.name),
        );
        for r in &g.registers {
            self.register(r, Some(g));
            if self.checks() {
                let rname = format!("{gname}_{}", r.name.to_uppercase());
                self.assert(
                    format_args!("{rname}_ELEMENT_OFFSET + {}u <= {gname}_STRIDE", r.bytes()),
                    format_args!("{}.{} fits the stride", g.name, r.name),
                );
            }
        }
        if !self.checks() {
            return;
        }
        // Registers within an element, in address order, do not overlap.
        let mut order: Vec<&Register> = g.registers.iter().collect();
        order.sort_by_key(|r| r.offset);
        for pair in order.windows(2) {
            let (a, b) = (pair[0], pair[1]);
            self.assert(
                format_args!(
                    "{gname}_{}_ELEMENT_OFFSET + {}u <= {gname}_{}_ELEMENT_OFFSET",
                    a.name.to_uppercase(),
                    a.bytes(),
                    b.name.to_uppercase()
                ),
                format_args!("{}.{} ends before {}.{}", g.name, a.name, g.name, b.name),
            );
        }
    }

    /// An array's comment, offset, stride, window and count.
    fn group_definitions(&mut self, g: &Group, gname: &str) {
        let _ = writeln!(self.out);
        let count = match &g.count {
            Count::Fixed(n) => format!("{n} elements"),
            Count::Param(p) => format!("{p} elements, at most {}", g.max_count),
        };
        let text = format!(
            "Array {} ({count}, stride {}){}{}",
            g.name,
            hex(g.stride, 1),
            if g.description.is_empty() { "." } else { ": " },
            g.description
        );
        comment(&mut self.out, &text);
        self.define(&format!("{gname}_OFFSET"), &lit(g.offset, false));
        self.define(&format!("{gname}_STRIDE"), &lit(g.stride, false));
        self.define(&format!("{gname}_WINDOW"), &lit(g.window, false));
        self.define(&format!("{gname}_COUNT_MAX"), &format!("{}u", g.max_count));
        if let Count::Fixed(n) = g.count {
            self.define(&format!("{gname}_COUNT"), &format!("{n}u"));
        }
    }

    /// Top-level registers and array windows, in address order, do not overlap and fit the
    /// address width.
    fn layout_asserts(&mut self, map: &RegMap) {
        // (offset, name, macro prefix, size in bytes or `None` for a group's window): the
        // condition texts are written when asserted, not built with `format!` per register.
        let mut spans: Vec<(u64, &str, String, Option<u64>)> = map
            .items
            .iter()
            .map(|item| match item {
                Item::Register(r) => (
                    r.offset,
                    r.name.text.as_str(),
                    self.name(&[&r.name]),
                    Some(r.bytes()),
                ),
                Item::Group(g) => (g.offset, g.name.text.as_str(), self.name(&[&g.name]), None),
            })
            .collect();
        if spans.is_empty() {
            return;
        }
        spans.sort_by_key(|s| s.0);

        // `{n}_OFFSET + {bytes}u` of a register, `{n}_OFFSET + {n}_WINDOW` of a group.
        let end_of = |end: &mut String, s: &(u64, &str, String, Option<u64>)| {
            end.clear();
            end.push_str(&s.2);
            end.push_str("_OFFSET + ");
            match s.3 {
                Some(bytes) => {
                    push_decimal(end, bytes);
                    end.push('u');
                }
                None => {
                    end.push_str(&s.2);
                    end.push_str("_WINDOW");
                }
            }
        };
        let mut end = String::with_capacity(64);
        for pair in spans.windows(2) {
            let (a, b) = (&pair[0], &pair[1]);
            end_of(&mut end, a);
            self.assert_parts(
                &[&end, " <= ", &b.2, "_OFFSET"],
                &[a.1, " ends before ", b.1],
            );
            // A line per top-level register: megabytes on a NIC-scale map.
            self.spill();
        }
        if let Some(last) = spans.last() {
            let aw = self.name(&["ADDRESS_WIDTH"]);
            end_of(&mut end, last);
            self.assert_parts(
                &["(uint64_t)(", &end, ") <= (1ull << ", &aw, ")"],
                &[last.1, " is inside the address width"],
            );
        }
    }

    fn mem_fields(&mut self, prefix: &str, fields: &[MemField], masks: bool) {
        for f in fields {
            let name = format!("{prefix}_{}", f.name.to_uppercase());
            let mut text = format!("{} [{}]", f.name, crate::bit_range(f.msb, f.lsb));
            if let Some(e) = &f.enumeration {
                let _ = write!(text, ", enum {e}");
            }
            if !f.description.is_empty() {
                let _ = write!(text, ": {}", f.description);
            }
            comment(&mut self.out, &text);
            self.define(&format!("{name}_SHIFT"), &format!("{}u", f.lsb));
            self.define(&format!("{name}_WIDTH"), &format!("{}u", f.width()));
            if masks {
                let mask = if f.width() >= 64 {
                    u64::MAX
                } else {
                    ((1u64 << f.width()) - 1) << f.lsb
                };
                self.define(&format!("{name}_MASK"), &lit(mask, true));
            }
        }
    }

    fn memories(&mut self, map: &RegMap) {
        for m in &map.memories {
            let _ = writeln!(self.out);
            let text = format!(
                "Memory {} ({}-bit words; SHIFT is the bit index in the word){}{}",
                m.name,
                m.width,
                if m.description.is_empty() { "." } else { ": " },
                m.description
            );
            comment(&mut self.out, &text);
            let mname = self.name(&[&m.name]);
            self.define(&format!("{mname}_WORD_BITS"), &format!("{}u", m.width));
            match &m.depth {
                Count::Fixed(n) => self.define(&format!("{mname}_DEPTH"), &format!("{n}u")),
                Count::Param(p) => {
                    let max = map.parameter(p).map_or(0, |p| p.max);
                    self.define(&format!("{mname}_DEPTH_MAX"), &format!("{max}u"));
                }
            }
            self.mem_fields(&mname, &m.fields, false);
        }
    }

    fn spaces(&mut self, map: &RegMap) {
        for s in &map.spaces {
            let sname = self.name(&[&s.name]);
            if self.defs() {
                let _ = writeln!(self.out);
                let text = format!(
                    "Space {} ({} bytes){}{}",
                    s.name,
                    hex(s.size, 1),
                    if s.description.is_empty() { "." } else { ": " },
                    s.description
                );
                comment(&mut self.out, &text);
                self.define(&format!("{sname}_SIZE"), &lit(s.size, false));
            }
            for w in &s.windows {
                let wname = format!("{sname}_{}", w.name.to_uppercase());
                if self.defs() {
                    self.window_definitions(s, w, &wname);
                }
                self.assert(
                    format_args!("{wname}_OFFSET + {wname}_SIZE <= {sname}_SIZE"),
                    format_args!("{}.{} is inside the space", s.name, w.name),
                );
            }
        }
    }

    /// A window's comment, offset, size and fields.
    fn window_definitions(&mut self, s: &Space, w: &Window, wname: &str) {
        let order = match w.byte_order {
            rdmagen_regmap::ByteOrder::Little => "little-endian",
            rdmagen_regmap::ByteOrder::Big => "big-endian",
        };
        let text = format!(
            "Window {}.{} ({} bytes, {}, {}; fields of its first {} bytes read as one \
             {order} integer){}{}",
            s.name,
            w.name,
            w.size,
            w.access.as_str(),
            order,
            w.size.min(8),
            if w.description.is_empty() { "." } else { ": " },
            w.description
        );
        comment(&mut self.out, &text);
        self.define(&format!("{wname}_OFFSET"), &lit(w.offset, false));
        self.define(&format!("{wname}_SIZE"), &lit(w.size, false));
        self.mem_fields(wname, &w.fields, true);
    }
}

/// The hash a definitions pass keeps of a macro name.
fn hash_name(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rdmagen_regmap::fasthash::FxHasher>::default().hash_one(name)
}

#[cfg(test)]
mod tests {
    use super::{wrap_comment, wrap_words};

    /// The header written in chunks of a map whose definitions span several chunks is the
    /// definitions pass's text kept whole, then the checks; and the sink's error comes back.
    #[test]
    fn written_in_chunks_is_the_definitions_then_the_checks() {
        use super::{generate_to, Header, Pass};
        let mut text = String::from("block: big\nversion: 1.0.0\nregisters:\n");
        for i in 0..3000 {
            text.push_str(&format!(
                "  - name: r{i}\n    offset: {:#x}\n    fields:\n      - {{ name: a, bits: \"7:0\", access: rw, reset: 3 }}\n      - {{ name: b, bits: \"15:8\", access: ro }}\n",
                4 * i
            ));
        }
        let map = rdmagen_regmap::parse("big.yaml", &text).unwrap();
        let opts = crate::Options {
            generator: "rdmagen test".into(),
        };
        struct Chunks(Vec<usize>, Vec<u8>);
        impl std::io::Write for Chunks {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.push(buf.len());
                self.1.extend_from_slice(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = Chunks(Vec::new(), Vec::new());
        generate_to(&map, &opts, &mut w).unwrap().unwrap();
        let header = String::from_utf8(w.1).unwrap();
        let mut whole = Header::new(&map, Pass::Definitions, None);
        whole.walk(&map, &opts);
        assert!(
            whole.out.len() > 2 * super::CHUNK,
            "{} bytes",
            whole.out.len()
        );
        assert!(w.0.len() >= 6, "{:?}", w.0);
        assert!(header.starts_with(&whole.out));
        let checks = &header[whole.out.len()..];
        assert!(
            checks.starts_with("\n/* Layout checks"),
            "{}",
            &checks[..80]
        );
        // Every register's three checks and every field's one or two, once, in map order.
        let lines: Vec<&str> = checks.lines().filter(|l| l.starts_with("BIG_")).collect();
        assert_eq!(
            lines.len(),
            3000 * (1 + 1 + 1 + 1 + 3) + 3000,
            "{}",
            lines.len()
        );
        assert_eq!(lines[0], "BIG_ASSERT_FIELD_RESET(BIG_R0_A, \"r0.a\");");
        assert!(lines
            .last()
            .unwrap()
            .contains("r2999 is inside the address width"));
        assert!(!checks.contains("#define"));

        struct Full;
        impl std::io::Write for Full {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::other("disk full"))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let err = generate_to(&map, &opts, &mut Full).unwrap_err();
        assert_eq!(err.to_string(), "disk full");
    }

    /// The names the header defines are the names validation checks for clashes
    /// (`rdmagen_regmap::cnames`), one for one: every committed map and a map with every kind
    /// of element (parameters, enums, registers, a parameter-sized and a fixed group, a
    /// register field without storage, memories of both depths, a space with windows).
    #[test]
    fn defines_the_names_validation_checks() {
        use super::{Header, Names, Pass};
        let opts = crate::Options {
            generator: "rdmagen test".into(),
        };
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps");
        let mut maps: Vec<rdmagen_regmap::RegMap> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
            .map(|p| rdmagen_regmap::load(&p).unwrap_or_else(|e| panic!("{e}")))
            .collect();
        let every = "block: every\nversion: 1.2.3\n\
            parameters:\n  - { name: NUM_Q, default: 2, min: 1, max: 8 }\n\
            enums:\n  - name: mode\n    values: [{ name: OFF, value: 0 }, { name: ON, value: 1 }]\n\
            registers:\n\
            \x20 - name: ctrl\n    offset: 0x0\n    fields:\n\
            \x20     - { name: mode, bits: 0, access: rw, enum: mode, reset: 1 }\n\
            \x20     - { name: level, bits: \"7:4\", access: ro }\n\
            \x20 - name: q\n    offset: 0x100\n    array: { count: NUM_Q, stride: 0x8 }\n    registers:\n\
            \x20     - name: head\n        offset: 0x0\n        fields: [{ name: ptr, bits: \"15:0\", access: rw }]\n\
            \x20 - name: p\n    offset: 0x200\n    array: { count: 2, stride: 0x4 }\n    registers:\n\
            \x20     - name: cfg\n        offset: 0x0\n        fields: [{ name: on, bits: 0, access: rw }]\n\
            memories:\n\
            \x20 - name: ctx\n    depth: NUM_Q\n    width: 64\n    fields: [{ name: psn, bits: \"23:0\" }]\n\
            \x20 - name: tbl\n    depth: 16\n    width: 32\n    fields: [{ name: key, bits: \"7:0\" }]\n\
            spaces:\n\
            \x20 - name: page\n    size: 0x1000\n    windows:\n\
            \x20     - { name: db, offset: 0x800, size: 8, access: wo, fields: [{ name: cnt, bits: \"15:0\" }] }\n";
        maps.push(rdmagen_regmap::parse("every.yaml", every).unwrap_or_else(|e| panic!("{e}")));
        for map in &maps {
            let mut h = Header::new(map, Pass::Definitions, None);
            h.walk(map, &opts);
            let Names::Exact(defined) = &h.names else {
                unreachable!()
            };
            let mut header: Vec<String> = defined
                .iter()
                .map(|r| h.out[r.clone()].to_string())
                .chain(h.reserved.iter().cloned())
                .collect();
            let mut listed = Vec::new();
            rdmagen_regmap::cnames::for_each_macro(map, |_, n| listed.push(n.to_string()));
            header.sort();
            listed.sort();
            assert_eq!(header, listed, "{}", map.block);
        }
    }

    /// A comment that is one line already is written as [`wrap_words`] writes it.
    #[test]
    fn one_line_comments_are_written_as_wrapped() {
        let long = "word ".repeat(30);
        let texts = [
            "",
            " ",
            "a",
            "plain text",
            "two  spaces",
            " leading",
            "trailing ",
            "tab\there",
            "line\nbreak",
            "no\u{a0}break space",
            "ideographic\u{3000}space",
            "caf\u{e9} ok",
            long.trim_end(),
            &"x".repeat(96),
            &"x".repeat(97),
            &"x".repeat(98),
        ];
        for lead in [" * ", ""] {
            for text in texts {
                let (mut fast, mut slow) = (String::new(), String::new());
                wrap_comment(&mut fast, lead, text);
                wrap_words(&mut slow, lead, text);
                assert_eq!(fast, slow, "{lead:?} {text:?}");
            }
        }
    }
}
