//! SystemRDL 2.0 export: one `addrmap` per map, so the map can feed other register tools.
//!
//! Mapping of our access types to SystemRDL properties:
//!
//! | ours | SystemRDL |
//! |---|---|
//! | `rw` | `sw = rw` |
//! | `ro` | `sw = r` (`hw = w` when hardware drives it directly) |
//! | `wo` | `sw = w` |
//! | `w1c`, `w1s`, `w0c` | `sw = rw; onwrite = woclr / woset / wzc` |
//! | `rc`, `rs` | `sw = r; onread = rclr / rset` |
//! | `wp`, 1 bit | `sw = w; singlepulse` |
//! | `wp`, wider | `sw = w; swmod; rdmagen_pulse = true` |
//!
//! SystemRDL has no multi-bit pulse: `singlepulse` is 1 bit only (systemrdl-compiler refuses
//! it wider), and `swmod` alone describes a field that keeps what was written. So a wider
//! `wp` is `swmod` (its `_stb_o`, high whenever a write covers the field, 0 written too) plus
//! the user-defined boolean `rdmagen_pulse`, declared at the top of an export that uses it:
//! the written value is on the output for one cycle, then 0. Tools that do not know the
//! property keep the value (PeakRDL-regblock does).
//!
//! Hardware properties: `write_strobe` → `swmod`, `read_strobe` → `rd_swacc = true` (the
//! user-defined property PeakRDL-regblock reads; SystemRDL's own `swacc` is asserted on
//! writes too), `hw_write` → `hw = rw; we`, `hw_set` →
//! `hwset`, `hw_clear` → `hwclr`, `counter` → `counter; incrwidth; incrsaturate`, `hw_read:
//! false` → `hw = na` (`hw = w` with `hw_write`), a constant → `sw = r; hw = na`. Our `hw_set`
//! and `hw_clear` act per bit (an input as wide as the field); SystemRDL's `hwset`/`hwclr` are
//! one signal for the whole field (systemrdl-compiler refuses a wider signal reference), the
//! same only for 1-bit fields. So a wider field with either also gets the user-defined boolean
//! `rdmagen_bitwise = true`, declared like `rdmagen_pulse`. A field that both software and
//! hardware change gets `precedence = hw`: in our CSR block hardware acts after software in the same
//! cycle (docs/regmap-format.md), where SystemRDL's default is software. An interrupt status
//! register's fields get `intr` (sticky: hardware sets bits, software clears them) and a
//! dynamic `->enable` pointing at the enable field; a status field with `hw_write` is
//! `nonsticky intr`, as hardware loads any value into it, 0 included (a sticky `intr` with
//! `we` only sets bits: PeakRDL-regblock's "stickybit with WE"); a status field that counts
//! gets neither (SystemRDL forbids `intr` on a counter: a comment says so). A group becomes a `regfile`
//! array sized by its maximum count. Memories and spaces are not CSRs and are only named in a
//! comment (the JSON export carries them).

use rdmagen_regmap::text::push_hex;
use std::fmt::Write;

use rdmagen_regmap::{Access, Count, Field, Group, Item, RegMap, Register};

use crate::{hex, non_csr_names, source_name, Options};

/// SystemRDL 2.0 keywords (Table 3 of the standard); a name among them is written escaped.
const KEYWORDS: &[&str] = &[
    "abstract",
    "accesstype",
    "addressingtype",
    "addrmap",
    "alias",
    "all",
    "bit",
    "boolean",
    "bothedge",
    "compact",
    "component",
    "componentwidth",
    "constraint",
    "default",
    "encode",
    "enum",
    "external",
    "false",
    "field",
    "fullalign",
    "hw",
    "inside",
    "internal",
    "level",
    "longint",
    "mem",
    "na",
    "negedge",
    "nonsticky",
    "number",
    "onreadtype",
    "onwritetype",
    "posedge",
    "property",
    "r",
    "rclr",
    "ref",
    "reg",
    "regalign",
    "regfile",
    "rset",
    "ruser",
    "rw",
    "rw1",
    "signal",
    "sparse",
    "string",
    "struct",
    "sw",
    "this",
    "true",
    "type",
    "unsigned",
    "w",
    "w1",
    "wclr",
    "woclr",
    "woset",
    "wot",
    "wr",
    "wset",
    "wuser",
    "wzc",
    "wzs",
    "wzt",
];

/// A name as a SystemRDL identifier: escaped with `\` when it is a keyword. Borrowed otherwise,
/// and the keywords binary-searched (they are sorted): every register and field name of a big
/// map comes here, and a copy plus a scan of the whole list was a third of the export's cost.
fn ident(name: &str) -> std::borrow::Cow<'_, str> {
    if KEYWORDS.binary_search(&name).is_ok() {
        std::borrow::Cow::Owned(format!("\\{name}"))
    } else {
        std::borrow::Cow::Borrowed(name)
    }
}

/// A SystemRDL string literal: whitespace folded, `\` and `"` escaped.
fn string(text: &str) -> String {
    let folded = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut s = String::with_capacity(folded.len() + 2);
    s.push('"');
    for c in folded.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// The file name of the export: `<block>.rdl`.
pub fn file_name(map: &RegMap) -> String {
    format!("{}.rdl", map.block)
}

/// The export text.
pub fn generate(map: &RegMap, opts: &Options) -> String {
    let mut o = String::with_capacity(4096 + 1024 * map.items.len());
    let _ = writeln!(
        o,
        "// {}: SystemRDL 2.0 export of block `{}`, map version {}.",
        file_name(map),
        map.block,
        map.version
    );
    let _ = writeln!(
        o,
        "// Generated by {} from {}. Do not edit: change the map and run `make rtl`.",
        opts.generator,
        source_name(map)
    );
    let _ = writeln!(
        o,
        "// Arrays are sized by their maximum count; the hardware decodes only `count` elements."
    );
    if let Some(names) = non_csr_names(map) {
        let _ = writeln!(
            o,
            "// Not CSRs, so not exported here (see the JSON export): {names}."
        );
    }
    let uses = |p: fn(&Field) -> bool| map.registers().any(|(_, r)| r.fields.iter().any(p));
    if uses(wide_pulse) {
        let _ = writeln!(
            o,
            "\n// A `wp` field wider than 1 bit: the written value is on the field's output for one\n\
             // cycle, then 0 (swmod is that cycle's strobe). SystemRDL's singlepulse is 1 bit only.\n\
             property rdmagen_pulse {{ type = boolean; component = field; }};"
        );
    }
    if uses(bitwise_hw) {
        let _ = writeln!(
            o,
            "\n// hwset/hwclr of a field wider than 1 bit: an input as wide as the field, each 1 sets or\n\
             // clears its bit (SystemRDL's hwset/hwclr are one signal for the whole field).\n\
             property rdmagen_bitwise {{ type = boolean; component = field; }};"
        );
    }
    if uses(|f| f.read_strobe) {
        let _ = writeln!(
            o,
            "\n// `read_strobe`: a strobe after each software read that takes the field's value (for\n\
             // a FIFO popped by a read). PeakRDL-regblock's user-defined property of that name.\n\
             property rd_swacc {{ type = boolean; component = field; }};"
        );
    }
    let _ = writeln!(o, "\naddrmap {} {{", ident(&map.block));
    let _ = writeln!(o, "    desc = {};", string(&map.description));
    let _ = writeln!(o, "    default regwidth = 32;");
    let _ = writeln!(o, "    default accesswidth = 32;");
    for e in &map.enums {
        let _ = writeln!(o, "\n    enum {} {{", ident(&e.name));
        for v in &e.values {
            let _ = write!(o, "        {} = {}", ident(&v.name), hex(v.value, 1));
            if v.description.is_empty() {
                let _ = writeln!(o, ";");
            } else {
                let _ = writeln!(o, " {{ desc = {}; }};", string(&v.description));
            }
        }
        let _ = writeln!(o, "    }};");
    }
    for item in &map.items {
        let _ = writeln!(o);
        match item {
            Item::Register(r) => register(&mut o, r, "    "),
            Item::Group(g) => group(&mut o, g),
        }
    }
    let top: Vec<&Register> = map.top_registers().collect();
    enables(&mut o, &top, "    ");
    let _ = writeln!(o, "}};");
    o
}

fn group(o: &mut String, g: &Group) {
    let _ = writeln!(o, "    regfile {{");
    let count = match &g.count {
        Count::Fixed(n) => format!("{n} elements"),
        Count::Param(p) => format!("{p} elements, at most {}", g.max_count),
    };
    let desc = if g.description.is_empty() {
        format!("Array of {count}.")
    } else {
        format!("{} (Array of {count}.)", g.description)
    };
    let _ = writeln!(o, "        desc = {};", string(&desc));
    for r in &g.registers {
        register(o, r, "        ");
    }
    let regs: Vec<&Register> = g.registers.iter().collect();
    enables(o, &regs, "        ");
    let _ = writeln!(
        o,
        "    }} {}[{}] @ {} += {};",
        ident(&g.name),
        g.max_count,
        hex(g.offset, 1),
        hex(g.stride, 1)
    );
}

/// `status.f->enable = enable.f;` for every interrupt status register among `regs`.
fn enables(o: &mut String, regs: &[&Register], indent: &str) {
    for r in regs {
        let Some(en) = &r.interrupt_enable else {
            continue;
        };
        for f in r.fields.iter().filter(|f| intr_allowed(f)) {
            let _ = writeln!(
                o,
                "{indent}{}.{}->enable = {}.{};",
                ident(&r.name),
                ident(&f.name),
                ident(en),
                ident(&f.name)
            );
        }
    }
}

/// Whether an interrupt status field can carry `intr`: SystemRDL 2.0 forbids it together with
/// `counter` (systemrdl-compiler: "Properties 'intr' and 'counter' cannot be assigned in the
/// same component").
fn intr_allowed(f: &Field) -> bool {
    f.hw.counter.is_none()
}

fn register(o: &mut String, r: &Register, indent: &str) {
    // Pushed piece by piece: a NIC-scale map has thousands of registers, and the formatting
    // machinery cost several times the copying.
    o.push_str(indent);
    o.push_str("reg {\n");
    if !r.description.is_empty() {
        push_all(o, &[indent, "    desc = ", &string(&r.description), ";\n"]);
    }
    if r.width != 32 {
        let _ = writeln!(o, "{indent}    regwidth = {};", r.width);
    }
    for f in &r.fields {
        field(o, f, r.interrupt_enable.is_some(), indent);
    }
    push_all(o, &[indent, "} ", &ident(&r.name), " @ "]);
    push_hex(o, r.offset, 1);
    o.push_str(";\n");
}

fn push_all(o: &mut String, pieces: &[&str]) {
    for p in pieces {
        o.push_str(p);
    }
}

/// A `wp` field wider than one bit, exported with the `rdmagen_pulse` property.
fn wide_pulse(f: &Field) -> bool {
    f.access == Access::Wp && f.width() > 1
}

/// A field wider than one bit with `hw_set` or `hw_clear`, exported with `rdmagen_bitwise`.
fn bitwise_hw(f: &Field) -> bool {
    (f.hw.set || f.hw.clear) && f.width() > 1
}

fn field(o: &mut String, f: &Field, interrupt: bool, indent: &str) {
    push_all(o, &[indent, "    field {\n"]);
    let prop = |o: &mut String, pieces: &[&str]| {
        push_all(o, &[indent, "        "]);
        push_all(o, pieces);
        o.push_str(";\n");
    };
    if !f.description.is_empty() {
        prop(o, &["desc = ", &string(&f.description)]);
    }
    let sw = match f.access {
        Access::Rw | Access::W1c | Access::W1s | Access::W0c => "rw",
        Access::Ro | Access::Rc | Access::Rs => "r",
        Access::Wo | Access::Wp => "w",
    };
    prop(o, &["sw = ", sw]);
    // A constant is SystemRDL's `sw = r; hw = na` with its value as the reset.
    let hw = match (f.constant, f.is_stored(), f.hw_read, f.hw.write) {
        (true, ..) => "na",
        (false, false, ..) => "w",
        (false, true, true, true) => "rw",
        (false, true, true, false) => "r",
        // `hw_read: false`: hardware does not read the value (no `_o`).
        (false, true, false, true) => "w",
        (false, true, false, false) => "na",
    };
    prop(o, &["hw = ", hw]);
    match f.access {
        Access::W1c => prop(o, &["onwrite = woclr"]),
        Access::W1s => prop(o, &["onwrite = woset"]),
        Access::W0c => prop(o, &["onwrite = wzc"]),
        Access::Rc => prop(o, &["onread = rclr"]),
        Access::Rs => prop(o, &["onread = rset"]),
        Access::Wp if f.width() == 1 => prop(o, &["singlepulse"]),
        Access::Wp => {
            prop(o, &["swmod"]);
            prop(o, &["rdmagen_pulse = true"]);
        }
        Access::Rw | Access::Ro | Access::Wo => {}
    }
    // `write_strobe` is SystemRDL's swmod: asserted on every software write of the field.
    if f.write_strobe {
        prop(o, &["swmod"]);
    }
    // `read_strobe`: SystemRDL's swacc is asserted on writes too; PeakRDL's rd_swacc on reads.
    if f.read_strobe {
        prop(o, &["rd_swacc = true"]);
    }
    if f.hw.any() && (f.access.sw_writes() || matches!(f.access, Access::Rc | Access::Rs)) {
        prop(o, &["precedence = hw"]);
    }
    if f.hw.write {
        prop(o, &["we"]);
    }
    if f.hw.set {
        prop(o, &["hwset"]);
    }
    if f.hw.clear {
        prop(o, &["hwclr"]);
    }
    if bitwise_hw(f) {
        prop(o, &["rdmagen_bitwise = true"]);
    }
    if let Some(c) = &f.hw.counter {
        prop(o, &["counter"]);
        prop(o, &["incrwidth = ", &c.step_width.to_string()]);
        if c.saturate {
            prop(o, &["incrsaturate"]);
        }
    }
    if interrupt && !intr_allowed(f) {
        push_all(
            o,
            &[
                indent,
                "        // An interrupt source in our block (status & enable drives irq_o), but\n",
                indent,
                "        // SystemRDL forbids `intr` on a counter: exported as the counter alone.\n",
            ],
        );
    } else if interrupt && f.hw.write {
        prop(o, &["nonsticky intr"]);
    } else if interrupt {
        prop(o, &["intr"]);
    }
    if let Some(e) = &f.enumeration {
        prop(o, &["encode = ", &ident(e)]);
    }
    push_all(
        o,
        &[
            indent,
            "    } ",
            &ident(&f.name),
            "[",
            &f.msb.to_string(),
            ":",
            &f.lsb.to_string(),
            "]",
        ],
    );
    if let Some(reset) = f.reset_value() {
        o.push_str(" = ");
        push_hex(o, reset, 1);
    }
    o.push_str(";\n");
}

#[cfg(test)]
mod tests {
    use super::{ident, KEYWORDS};

    /// `ident` binary-searches the keywords: they must stay sorted and distinct.
    #[test]
    fn keywords_are_sorted_and_escaped() {
        assert!(
            KEYWORDS.windows(2).all(|w| w[0] < w[1]),
            "KEYWORDS out of order"
        );
        for k in KEYWORDS {
            assert_eq!(ident(k), format!("\\{k}"));
        }
        for name in ["enable", "vf0_ctrl", "rw2", "fields", "a"] {
            assert_eq!(ident(name), name);
        }
    }
}
