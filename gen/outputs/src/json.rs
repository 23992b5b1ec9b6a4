//! The validated model as JSON, for tools that should not parse YAML with positions. The schema
//! is documented in `docs/json-schema.md`; [`generate`] is its one definition, kept separate
//! from the model so the model carries no serialization concerns (spans stay internal).
//!
//! Written by hand rather than through serde: at NIC scale (4096 registers, 3 MB of JSON) the
//! derived serializer with serde_json's pretty printer cost 51 M instructions, mostly escaping
//! the constant keys and writing indentation two bytes at a time. The layout is serde_json's
//! pretty layout, byte for byte (two-space indent, `"key": value`, `[]` for an empty list, the
//! same string escapes), so the files did not change.

use rdmagen_regmap as rm;
use rdmagen_regmap::text::push_decimal;

use crate::{register_reset, source_name, Options};

/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA: &str = "rdmagen-regmap-json/1";

/// The map as pretty-printed JSON with a trailing newline.
pub fn generate(map: &rm::RegMap, opts: &Options) -> String {
    write(map, opts, None).0
}

/// [`generate`]'s text written to `sink` as it is made, in chunks of a few hundred KiB: the
/// JSON of a NIC-scale map is megabytes, and a string that size is fresh memory.
pub fn generate_to(
    map: &rm::RegMap,
    opts: &Options,
    sink: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    let (rest, written) = write(map, opts, Some(sink));
    written?;
    sink.write_all(rest.as_bytes())
}

/// How much text the writer keeps before handing it to its sink.
const CHUNK: usize = 1 << 18;

/// The JSON, or with a sink what is left of it after the chunks written, and the sink's first
/// error.
fn write(
    map: &rm::RegMap,
    opts: &Options,
    sink: Option<&mut dyn std::io::Write>,
) -> (String, std::io::Result<()>) {
    let streamed = sink.is_some();
    // About 300 bytes per register and 400 per field: sized once instead of doubling.
    let mut size = 4096;
    for item in &map.items {
        let registers = match item {
            rm::Item::Register(r) => std::slice::from_ref(r),
            rm::Item::Group(g) => &g.registers,
        };
        size += registers
            .iter()
            .map(|r| 300 + 400 * r.fields.len())
            .sum::<usize>();
    }
    let mut w = Writer {
        out: String::with_capacity(if streamed { CHUNK + (CHUNK >> 2) } else { size }),
        depth: 0,
        first: true,
        sink,
        failed: None,
    };
    w.open('{');
    w.key("schema");
    w.string(SCHEMA);
    w.key("generator");
    w.string(&opts.generator);
    w.key("source");
    w.string(source_name(map));
    w.key("block");
    w.string(&map.block);
    w.key("version");
    w.string(&map.version.to_string());
    w.key("description");
    w.string(&map.description);
    w.key("address_width");
    w.number(map.address_width.into());
    w.key("data_width");
    w.number(32);

    w.key("parameters");
    w.list(&map.parameters, |w, p| {
        w.open('{');
        w.key("name");
        w.string(&p.name);
        w.key("default");
        w.number(p.default);
        w.key("min");
        w.number(p.min);
        w.key("max");
        w.number(p.max);
        w.key("description");
        w.string(&p.description);
        w.close('}');
    });

    w.key("enums");
    w.list(&map.enums, |w, e| {
        w.open('{');
        w.key("name");
        w.string(&e.name);
        w.key("description");
        w.string(&e.description);
        w.key("values");
        w.list(&e.values, |w, v| {
            w.open('{');
            w.key("name");
            w.string(&v.name);
            w.key("value");
            w.number(v.value);
            w.key("description");
            w.string(&v.description);
            w.close('}');
        });
        w.close('}');
    });

    w.key("items");
    w.list(&map.items, |w, item| match item {
        rm::Item::Register(r) => register(w, r, Some("register")),
        rm::Item::Group(g) => {
            w.open('{');
            w.key("kind");
            w.string("group");
            w.key("name");
            w.string(&g.name);
            w.key("offset");
            w.number(g.offset);
            w.key("description");
            w.string(&g.description);
            w.key("count");
            count(w, &g.count);
            w.key("max_count");
            w.number(g.max_count);
            w.key("stride");
            w.number(g.stride);
            w.key("window");
            w.number(g.window);
            w.key("registers");
            w.list(&g.registers, |w, r| register(w, r, None));
            w.close('}');
        }
    });

    w.key("memories");
    w.list(&map.memories, |w, m| {
        w.open('{');
        w.key("name");
        w.string(&m.name);
        w.key("description");
        w.string(&m.description);
        w.key("depth");
        count(w, &m.depth);
        w.key("width");
        w.number(m.width.into());
        w.key("fields");
        mem_fields(w, &m.fields);
        w.close('}');
    });

    w.key("spaces");
    w.list(&map.spaces, |w, s| {
        w.open('{');
        w.key("name");
        w.string(&s.name);
        w.key("size");
        w.number(s.size);
        w.key("description");
        w.string(&s.description);
        w.key("windows");
        w.list(&s.windows, |w, win| {
            w.open('{');
            w.key("name");
            w.string(&win.name);
            w.key("offset");
            w.number(win.offset);
            w.key("size");
            w.number(win.size);
            w.key("access");
            w.string(win.access.as_str());
            w.key("byte_order");
            w.string(match win.byte_order {
                rm::ByteOrder::Little => "little",
                rm::ByteOrder::Big => "big",
            });
            w.key("description");
            w.string(&win.description);
            w.key("fields");
            mem_fields(w, &win.fields);
            w.close('}');
        });
        w.close('}');
    });
    w.close('}');
    w.out.push('\n');
    let written = w.failed.map_or(Ok(()), Err);
    (w.out, written)
}

/// A register object; `kind` is written first for a top-level item (`"kind": "register"`),
/// left out inside a group.
fn register(w: &mut Writer, r: &rm::Register, kind: Option<&str>) {
    w.open('{');
    if let Some(kind) = kind {
        w.key("kind");
        w.string(kind);
    }
    w.key("name");
    w.string(&r.name);
    w.key("offset");
    w.number(r.offset);
    w.key("width");
    w.number(r.width.into());
    w.key("description");
    w.string(&r.description);
    w.key("reset");
    w.number(register_reset(r));
    w.key("interrupt_enable");
    w.optional_string(r.interrupt_enable.as_deref());
    w.key("fields");
    w.list(&r.fields, |w, f| {
        w.open('{');
        w.key("name");
        w.string(&f.name);
        w.key("msb");
        w.number(f.msb.into());
        w.key("lsb");
        w.number(f.lsb.into());
        w.key("access");
        w.string(f.access.as_str());
        w.key("reset");
        match f.reset_value() {
            Some(v) => w.number(v),
            None => w.null(),
        }
        w.key("description");
        w.string(&f.description);
        w.key("enum");
        w.optional_string(f.enumeration.as_deref());
        w.key("hw");
        w.open('{');
        w.key("write");
        w.bool(f.hw.write);
        w.key("set");
        w.bool(f.hw.set);
        w.key("clear");
        w.bool(f.hw.clear);
        w.key("counter");
        match &f.hw.counter {
            Some(c) => {
                w.open('{');
                w.key("step_width");
                w.number(c.step_width.into());
                w.key("saturate");
                w.bool(c.saturate);
                w.close('}');
            }
            None => w.null(),
        }
        w.key("write_strobe");
        w.bool(f.write_strobe);
        w.key("read_strobe");
        w.bool(f.read_strobe);
        w.key("read");
        w.bool(f.is_stored() && f.hw_read);
        w.close('}');
        w.key("constant");
        w.bool(f.constant);
        w.close('}');
    });
    w.close('}');
    w.spill();
}

/// A count: `{ "fixed": n }` or `{ "parameter": "NAME" }`.
fn count(w: &mut Writer, c: &rm::Count) {
    w.open('{');
    match c {
        rm::Count::Fixed(n) => {
            w.key("fixed");
            w.number(*n);
        }
        rm::Count::Param(p) => {
            w.key("parameter");
            w.string(p);
        }
    }
    w.close('}');
}

fn mem_fields(w: &mut Writer, fields: &[rm::MemField]) {
    w.list(fields, |w, f| {
        w.open('{');
        w.key("name");
        w.string(&f.name);
        w.key("msb");
        w.number(f.msb.into());
        w.key("lsb");
        w.number(f.lsb.into());
        w.key("description");
        w.string(&f.description);
        w.key("enum");
        w.optional_string(f.enumeration.as_deref());
        w.close('}');
    });
}

/// Pretty JSON text in serde_json's layout. Every value is written after a `key` or as a list
/// item, so only whether the current object or list is still empty has to be remembered.
/// `,`, a line break, two spaces per level and `"`: the start of a key at each depth.
const KEY_STARTS: [&str; 8] = [
    ",\n\"",
    ",\n  \"",
    ",\n    \"",
    ",\n      \"",
    ",\n        \"",
    ",\n          \"",
    ",\n            \"",
    ",\n              \"",
];

struct Writer<'a> {
    out: String,
    /// Where the text goes a chunk at a time; `None`: it all stays in `out`.
    sink: Option<&'a mut dyn std::io::Write>,
    /// The sink's first error (writing goes on; the error is returned at the end).
    failed: Option<std::io::Error>,
    /// Open objects and lists.
    depth: usize,
    /// Nothing written yet in the innermost open object or list.
    first: bool,
}

impl Writer<'_> {
    /// Hands the text to the sink once a chunk of it is written (between entries: any point
    /// of the text will do, nothing refers back into it).
    fn spill(&mut self) {
        if self.out.len() < CHUNK {
            return;
        }
        let Some(sink) = self.sink.as_mut() else {
            return;
        };
        if self.failed.is_none() {
            if let Err(e) = sink.write_all(self.out.as_bytes()) {
                self.failed = Some(e);
            }
        }
        self.out.clear();
    }

    fn open(&mut self, bracket: char) {
        self.out.push(bracket);
        self.depth += 1;
        self.first = true;
    }

    /// Closes an object or list: `{}` / `[]` when empty, else on its own line.
    fn close(&mut self, bracket: char) {
        self.depth -= 1;
        if !self.first {
            self.newline();
        }
        self.out.push(bracket);
        self.first = false;
    }

    /// Starts the next entry or item of the innermost object or list on its own line.
    fn next(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        self.newline();
    }

    fn newline(&mut self) {
        // A line break and two spaces per level in one piece; maps nest at most seven deep.
        const LINE: &str = "\n                                ";
        let n = 1 + 2 * self.depth;
        match LINE.get(..n) {
            Some(s) => self.out.push_str(s),
            None => {
                self.out.push('\n');
                self.out.extend(std::iter::repeat_n(' ', n - 1));
            }
        }
    }

    /// `"key": ` of the next object entry. Keys are plain ASCII names: no escapes needed.
    fn key(&mut self, key: &str) {
        match KEY_STARTS.get(self.depth) {
            Some(start) => {
                // [`Writer::next`] and the opening quote in one piece: a big map has a hundred
                // thousand keys, and each piece pushed costs a call.
                let start = if self.first { &start[1..] } else { start };
                self.first = false;
                self.out.push_str(start);
            }
            None => {
                self.next();
                self.out.push('"');
            }
        }
        self.out.push_str(key);
        self.out.push_str("\": ");
    }

    fn list<T>(&mut self, items: &[T], mut item: impl FnMut(&mut Self, &T)) {
        self.open('[');
        for i in items {
            self.next();
            item(self, i);
        }
        self.close(']');
    }

    fn number(&mut self, n: u64) {
        push_decimal(&mut self.out, n);
    }

    fn bool(&mut self, b: bool) {
        self.out.push_str(if b { "true" } else { "false" });
    }

    fn null(&mut self) {
        self.out.push_str("null");
    }

    fn optional_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    /// A string with serde_json's escapes: `\"`, `\\`, `\b \f \n \r \t`, other control
    /// characters as `\u00XX`; everything else (including non-ASCII) as is.
    fn string(&mut self, s: &str) {
        self.out.push('"');
        let mut run = 0;
        for (i, b) in s.bytes().enumerate() {
            let escape = match b {
                b'"' => "\\\"",
                b'\\' => "\\\\",
                b'\x08' => "\\b",
                b'\x0c' => "\\f",
                b'\n' => "\\n",
                b'\r' => "\\r",
                b'\t' => "\\t",
                0..=0x1f => "",
                _ => continue,
            };
            self.out.push_str(&s[run..i]);
            run = i + 1;
            if escape.is_empty() {
                const HEX: &[u8; 16] = b"0123456789abcdef";
                self.out.push_str("\\u00");
                self.out.push(char::from(HEX[usize::from(b >> 4)]));
                self.out.push(char::from(HEX[usize::from(b & 0xf)]));
            } else {
                self.out.push_str(escape);
            }
        }
        self.out.push_str(&s[run..]);
        self.out.push('"');
    }
}

#[cfg(test)]
mod tests {
    use super::Writer;

    fn written(s: &str) -> String {
        let mut w = Writer {
            out: String::new(),
            depth: 0,
            first: true,
            sink: None,
            failed: None,
        };
        w.string(s);
        w.out
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut all: String = (0u8..0x80).map(char::from).collect();
        all.push_str("é€😀\u{2028}\u{7f}");
        for s in [all.as_str(), "", "plain", "a\"b\\c", "\n", "end\t"] {
            assert_eq!(written(s), serde_json::to_string(s).unwrap(), "{s:?}");
        }
    }
}
