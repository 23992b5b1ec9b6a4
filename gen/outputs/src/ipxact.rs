//! IP-XACT (IEEE 1685-2014) export: one `component` per map with one memory map and one
//! address block holding the CSRs, for tools that read IP-XACT (Vivado's IP packager,
//! Kactus2, PeakRDL-ipxact and the commercial register flows).
//!
//! Mapping of our access types to IP-XACT field elements:
//!
//! | ours | `access` | `modifiedWriteValue` / `readAction` |
//! |---|---|---|
//! | `rw` | `read-write` | |
//! | `ro` | `read-only` | |
//! | `wo` | `write-only` | |
//! | `w1c`, `w1s`, `w0c` | `read-write` | `oneToClear`, `oneToSet`, `zeroToClear` |
//! | `rc`, `rs` | `read-only` | readAction `clear`, `set` |
//! | `wp` | `write-only` | (IP-XACT has no pulse; the description says so) |
//!
//! A field the hardware changes (`ro` driven by an input, `hw_write`, `hw_set`, `hw_clear`,
//! `counter`) is `volatile`, and so is its register. Resets are per field. A group becomes a
//! `registerFile` array (`dim` = its maximum count, `range` = its stride). The map's
//! parameters are the component's (`resolve="user"`, their defaults as values). Memories and
//! spaces are not CSRs and are only named in a comment (the JSON export carries them).

use std::fmt::Write;

use rdmagen_regmap::text::{push_decimal, push_hex};
use rdmagen_regmap::{Access, Count, Field, Group, Item, RegMap, Register};

use crate::{non_csr_names, source_name, Options};

const NS: &str = "http://www.accellera.org/XMLSchema/IPXACT/1685-2014";

/// The file name of the export: `<block>.xml`.
pub fn file_name(map: &RegMap) -> String {
    format!("{}.xml", map.block)
}

/// Appends XML character data: whitespace folded, `&`, `<`, `>` and `"` escaped. Pushed word
/// by word: a NIC-scale map's export is tens of megabytes of it.
fn push_text(o: &mut String, s: &str) {
    for (i, word) in s.split_whitespace().enumerate() {
        if i > 0 {
            o.push(' ');
        }
        if !word.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"')) {
            o.push_str(word);
            continue;
        }
        for c in word.chars() {
            match c {
                '&' => o.push_str("&amp;"),
                '<' => o.push_str("&lt;"),
                '>' => o.push_str("&gt;"),
                '"' => o.push_str("&quot;"),
                c => o.push(c),
            }
        }
    }
}

/// [`push_text`] into a new string.
fn text(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    push_text(&mut o, s);
    o
}

/// Appends an IP-XACT number: SystemVerilog's `'h` form, as the standard's expressions write
/// it.
fn push_num(o: &mut String, v: u64) {
    let at = o.len();
    push_hex(o, v, 1);
    o.replace_range(at..at + 2, "'h");
}

const SPACES: &str = "                                        ";

/// Opens `<ipxact:tag>` at `indent` spaces, without a line end.
fn start(o: &mut String, indent: usize, tag: &str) {
    o.push_str(&SPACES[..indent]);
    o.push_str("<ipxact:");
    o.push_str(tag);
    o.push('>');
}

/// Closes `</ipxact:tag>` and ends the line.
fn end(o: &mut String, tag: &str) {
    o.push_str("</ipxact:");
    o.push_str(tag);
    o.push_str(">\n");
}

/// `<tag>value</tag>` on its own line; `value` is written as it is.
fn elem(o: &mut String, indent: usize, tag: &str, value: &str) {
    start(o, indent, tag);
    o.push_str(value);
    end(o, tag);
}

/// `<tag>text</tag>` on its own line, `text` escaped.
fn elem_text(o: &mut String, indent: usize, tag: &str, text: &str) {
    start(o, indent, tag);
    push_text(o, text);
    end(o, tag);
}

/// `<tag>number</tag>` on its own line.
fn elem_num(o: &mut String, indent: usize, tag: &str, v: u64) {
    start(o, indent, tag);
    push_num(o, v);
    end(o, tag);
}

/// `<tag>decimal</tag>` on its own line.
fn elem_dec(o: &mut String, indent: usize, tag: &str, v: u64) {
    start(o, indent, tag);
    push_decimal(o, v);
    end(o, tag);
}

fn open(o: &mut String, indent: usize, tag: &str) {
    start(o, indent, tag);
    o.push('\n');
}

fn close(o: &mut String, indent: usize, tag: &str) {
    o.push_str(&SPACES[..indent]);
    end(o, tag);
}

/// The name and, when there is one, the description.
fn name_group(o: &mut String, indent: usize, name: &str, description: &str) {
    elem_text(o, indent, "name", name);
    if !description.trim().is_empty() {
        elem_text(o, indent, "description", description);
    }
}

/// The export text.
pub fn generate(map: &RegMap, opts: &Options) -> String {
    let mut text = String::new();
    let written = write(map, opts, &mut |chunk: &mut String| {
        text.push_str(chunk);
        chunk.clear();
        Ok(())
    });
    debug_assert!(written.is_ok(), "a String sink cannot fail");
    text
}

/// [`generate`]'s text written to `sink` as it is made, in chunks of a few hundred KiB: the
/// export of a NIC-scale map is tens of megabytes, and a string that size is fresh memory.
pub fn generate_to(
    map: &RegMap,
    opts: &Options,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write(map, opts, &mut |chunk: &mut String| {
        sink.write_all(chunk.as_bytes())?;
        chunk.clear();
        Ok(())
    })
}

/// How much text is held before it is handed on.
const CHUNK: usize = 256 * 1024;

fn write(
    map: &RegMap,
    opts: &Options,
    flush: &mut dyn FnMut(&mut String) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut o = String::with_capacity(CHUNK + 64 * 1024);
    o.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        o,
        "<!-- {}: IP-XACT (IEEE 1685-2014) export of block `{}`, map version {}. -->",
        file_name(map),
        map.block,
        map.version
    );
    let _ = writeln!(
        o,
        "<!-- Generated by {} from {}. Do not edit: change the map and run `make rtl`. -->",
        text(&opts.generator),
        text(source_name(map))
    );
    let _ = writeln!(
        o,
        "<!-- Arrays are sized by their maximum count; the hardware decodes only `count` elements. -->"
    );
    if let Some(names) = non_csr_names(map) {
        let _ = writeln!(
            o,
            "<!-- Not CSRs, so not exported here (see the JSON export): {names}. -->"
        );
    }
    let _ = writeln!(
        o,
        "<ipxact:component xmlns:ipxact=\"{NS}\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" \
         xsi:schemaLocation=\"{NS} {NS}/index.xsd\">"
    );
    elem(&mut o, 2, "vendor", "rdmagen");
    elem(&mut o, 2, "library", "regmap");
    elem_text(&mut o, 2, "name", &map.block);
    elem(&mut o, 2, "version", &map.version.to_string());
    open(&mut o, 2, "memoryMaps");
    open(&mut o, 4, "memoryMap");
    elem_text(&mut o, 6, "name", &map.block);
    open(&mut o, 6, "addressBlock");
    name_group(
        &mut o,
        8,
        &format!("{}_csr", map.block),
        "The CSR block (AXI4-Lite).",
    );
    elem_num(&mut o, 8, "baseAddress", 0);
    elem_num(&mut o, 8, "range", 1u64 << map.address_width);
    elem(&mut o, 8, "width", "32");
    elem(&mut o, 8, "usage", "register");
    for item in &map.items {
        match item {
            Item::Register(r) => register(&mut o, map, r, 8),
            Item::Group(g) => group(&mut o, map, g),
        }
        if o.len() >= CHUNK {
            flush(&mut o)?;
        }
    }
    close(&mut o, 6, "addressBlock");
    elem(&mut o, 6, "addressUnitBits", "8");
    close(&mut o, 4, "memoryMap");
    close(&mut o, 2, "memoryMaps");
    if !map.description.trim().is_empty() {
        elem_text(&mut o, 2, "description", &map.description);
    }
    if !map.parameters.is_empty() {
        open(&mut o, 2, "parameters");
        for p in &map.parameters {
            let _ = writeln!(
                o,
                "    <ipxact:parameter parameterId=\"{}\" resolve=\"user\" type=\"longint\">",
                text(&p.name)
            );
            let range = format!("{} to {}.", p.min, p.max);
            let description = if p.description.trim().is_empty() {
                format!("From {range}")
            } else {
                format!("{} (From {range})", p.description.trim())
            };
            name_group(&mut o, 6, &p.name, &description);
            elem_dec(&mut o, 6, "value", p.default);
            close(&mut o, 4, "parameter");
        }
        close(&mut o, 2, "parameters");
    }
    o.push_str("</ipxact:component>\n");
    flush(&mut o)
}

fn group(o: &mut String, map: &RegMap, g: &Group) {
    open(o, 8, "registerFile");
    let count = match &g.count {
        Count::Fixed(n) => format!("{n} elements"),
        Count::Param(p) => format!("{p} elements, at most {}", g.max_count),
    };
    let desc = if g.description.trim().is_empty() {
        format!("Array of {count}.")
    } else {
        format!("{} (Array of {count}.)", g.description.trim())
    };
    name_group(o, 10, &g.name, &desc);
    elem_dec(o, 10, "dim", g.max_count);
    elem_num(o, 10, "addressOffset", g.offset);
    elem_num(o, 10, "range", g.stride);
    for r in &g.registers {
        register(o, map, r, 10);
    }
    close(o, 8, "registerFile");
}

/// Whether the hardware changes the field's value (IP-XACT's `volatile`).
fn volatile(f: &Field) -> bool {
    f.is_input() || f.hw.write || f.hw.set || f.hw.clear || f.hw.counter.is_some()
}

fn register(o: &mut String, map: &RegMap, r: &Register, indent: usize) {
    open(o, indent, "register");
    let i = indent + 2;
    name_group(o, i, &r.name, &r.description);
    elem_num(o, i, "addressOffset", r.offset);
    elem_dec(o, i, "size", u64::from(r.width));
    if r.fields.iter().any(volatile) {
        elem(o, i, "volatile", "true");
    }
    for f in &r.fields {
        field(o, map, f, i);
    }
    close(o, indent, "register");
}

fn field(o: &mut String, map: &RegMap, f: &Field, indent: usize) {
    open(o, indent, "field");
    let i = indent + 2;
    let description = if f.access == Access::Wp {
        let pulse =
            "Write pulse: a write drives the value to the hardware for one cycle; reads return 0.";
        if f.description.trim().is_empty() {
            pulse.to_string()
        } else {
            format!("{} ({pulse})", f.description.trim())
        }
    } else {
        f.description.clone()
    };
    name_group(o, i, &f.name, &description);
    elem_dec(o, i, "bitOffset", u64::from(f.lsb));
    if let Some(reset) = f.reset_value() {
        open(o, i, "resets");
        open(o, i + 2, "reset");
        elem_num(o, i + 4, "value", reset);
        close(o, i + 2, "reset");
        close(o, i, "resets");
    }
    elem_dec(o, i, "bitWidth", u64::from(f.width()));
    if volatile(f) {
        elem(o, i, "volatile", "true");
    }
    let access = match f.access {
        Access::Rw | Access::W1c | Access::W1s | Access::W0c => "read-write",
        Access::Ro | Access::Rc | Access::Rs => "read-only",
        Access::Wo | Access::Wp => "write-only",
    };
    elem(o, i, "access", access);
    if let Some(e) = f
        .enumeration
        .as_ref()
        .and_then(|name| map.enums.iter().find(|e| e.name.text == name.text))
    {
        let fits = |v: u64| f.width() >= 64 || v >> f.width() == 0;
        if e.values.iter().any(|v| fits(v.value)) {
            open(o, i, "enumeratedValues");
            for v in e.values.iter().filter(|v| fits(v.value)) {
                open(o, i + 2, "enumeratedValue");
                name_group(o, i + 4, &v.name, &v.description);
                elem_num(o, i + 4, "value", v.value);
                close(o, i + 2, "enumeratedValue");
            }
            close(o, i, "enumeratedValues");
        }
    }
    match f.access {
        Access::W1c => elem(o, i, "modifiedWriteValue", "oneToClear"),
        Access::W1s => elem(o, i, "modifiedWriteValue", "oneToSet"),
        Access::W0c => elem(o, i, "modifiedWriteValue", "zeroToClear"),
        Access::Rc => elem(o, i, "readAction", "clear"),
        Access::Rs => elem(o, i, "readAction", "set"),
        Access::Rw | Access::Ro | Access::Wo | Access::Wp => {}
    }
    close(o, indent, "field");
}

#[cfg(test)]
mod tests {
    use super::{push_num, text};

    fn num(v: u64) -> String {
        let mut o = String::new();
        push_num(&mut o, v);
        o
    }

    #[test]
    fn text_is_escaped_and_folded() {
        assert_eq!(
            text("a <b> & \"c\"\n  d"),
            "a &lt;b&gt; &amp; &quot;c&quot; d"
        );
    }

    #[test]
    fn numbers_are_sv_hex() {
        assert_eq!(num(0), "'h0");
        assert_eq!(num(0x8001_0000), "'h80010000");
        assert_eq!(num(0xABC), "'habc");
    }
}
