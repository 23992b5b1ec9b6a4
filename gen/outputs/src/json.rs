//! The validated model as JSON, for tools that should not parse YAML with positions. The schema
//! is documented in `docs/json-schema.md`; these structs are its one definition, kept separate
//! from the model so the model carries no serialization concerns (spans stay internal).

use serde::Serialize;

use rdmagen_regmap as rm;

use crate::{field_reset, register_reset, source_name, Options};

/// Version of the JSON layout; bumped on any incompatible change.
pub const SCHEMA: &str = "rdmagen-regmap-json/1";

#[derive(Serialize)]
struct Map<'a> {
    schema: &'static str,
    generator: &'a str,
    source: &'a str,
    block: &'a str,
    version: String,
    description: &'a str,
    address_width: u32,
    data_width: u32,
    parameters: Vec<Parameter<'a>>,
    enums: Vec<Enum<'a>>,
    items: Vec<Item<'a>>,
    memories: Vec<Memory<'a>>,
    spaces: Vec<Space<'a>>,
}

#[derive(Serialize)]
struct Parameter<'a> {
    name: &'a str,
    default: u64,
    min: u64,
    max: u64,
    description: &'a str,
}

#[derive(Serialize)]
struct Enum<'a> {
    name: &'a str,
    description: &'a str,
    values: Vec<EnumValue<'a>>,
}

#[derive(Serialize)]
struct EnumValue<'a> {
    name: &'a str,
    value: u64,
    description: &'a str,
}

#[derive(Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
enum Item<'a> {
    Register(Register<'a>),
    Group(Group<'a>),
}

#[derive(Serialize)]
struct Register<'a> {
    name: &'a str,
    offset: u64,
    width: u32,
    description: &'a str,
    reset: u64,
    interrupt_enable: Option<&'a str>,
    fields: Vec<Field<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "snake_case")]
enum Count<'a> {
    Fixed(u64),
    Parameter(&'a str),
}

#[derive(Serialize)]
struct Group<'a> {
    name: &'a str,
    offset: u64,
    description: &'a str,
    count: Count<'a>,
    max_count: u64,
    stride: u64,
    window: u64,
    registers: Vec<Register<'a>>,
}

#[derive(Serialize)]
struct Field<'a> {
    name: &'a str,
    msb: u32,
    lsb: u32,
    access: &'static str,
    reset: Option<u64>,
    description: &'a str,
    #[serde(rename = "enum")]
    enumeration: Option<&'a str>,
    hw: Hw,
}

#[derive(Serialize)]
struct Hw {
    write: bool,
    set: bool,
    clear: bool,
    counter: Option<Counter>,
}

#[derive(Serialize)]
struct Counter {
    step_width: u32,
    saturate: bool,
}

#[derive(Serialize)]
struct Memory<'a> {
    name: &'a str,
    description: &'a str,
    depth: Count<'a>,
    width: u32,
    fields: Vec<MemField<'a>>,
}

#[derive(Serialize)]
struct MemField<'a> {
    name: &'a str,
    msb: u32,
    lsb: u32,
    description: &'a str,
    #[serde(rename = "enum")]
    enumeration: Option<&'a str>,
}

#[derive(Serialize)]
struct Space<'a> {
    name: &'a str,
    size: u64,
    description: &'a str,
    windows: Vec<Window<'a>>,
}

#[derive(Serialize)]
struct Window<'a> {
    name: &'a str,
    offset: u64,
    size: u64,
    access: &'static str,
    byte_order: &'static str,
    description: &'a str,
    fields: Vec<MemField<'a>>,
}

fn count(c: &rm::Count) -> Count<'_> {
    match c {
        rm::Count::Fixed(n) => Count::Fixed(*n),
        rm::Count::Param(p) => Count::Parameter(p),
    }
}

fn register(r: &rm::Register) -> Register<'_> {
    Register {
        name: &r.name,
        offset: r.offset,
        width: r.width,
        description: &r.description,
        reset: register_reset(r),
        interrupt_enable: r.interrupt_enable.as_deref(),
        fields: r
            .fields
            .iter()
            .map(|f| Field {
                name: &f.name,
                msb: f.msb,
                lsb: f.lsb,
                access: f.access.as_str(),
                reset: field_reset(f),
                description: &f.description,
                enumeration: f.enumeration.as_deref(),
                hw: Hw {
                    write: f.hw.write,
                    set: f.hw.set,
                    clear: f.hw.clear,
                    counter: f.hw.counter.as_ref().map(|c| Counter {
                        step_width: c.step_width,
                        saturate: c.saturate,
                    }),
                },
            })
            .collect(),
    }
}

fn mem_fields(fields: &[rm::MemField]) -> Vec<MemField<'_>> {
    fields
        .iter()
        .map(|f| MemField {
            name: &f.name,
            msb: f.msb,
            lsb: f.lsb,
            description: &f.description,
            enumeration: f.enumeration.as_deref(),
        })
        .collect()
}

/// The map as pretty-printed JSON with a trailing newline.
pub fn generate(map: &rm::RegMap, opts: &Options) -> String {
    let out = Map {
        schema: SCHEMA,
        generator: &opts.generator,
        source: source_name(map),
        block: &map.block,
        version: map.version.to_string(),
        description: &map.description,
        address_width: map.address_width,
        data_width: 32,
        parameters: map
            .parameters
            .iter()
            .map(|p| Parameter {
                name: &p.name,
                default: p.default,
                min: p.min,
                max: p.max,
                description: &p.description,
            })
            .collect(),
        enums: map
            .enums
            .iter()
            .map(|e| Enum {
                name: &e.name,
                description: &e.description,
                values: e
                    .values
                    .iter()
                    .map(|v| EnumValue {
                        name: &v.name,
                        value: v.value,
                        description: &v.description,
                    })
                    .collect(),
            })
            .collect(),
        items: map
            .items
            .iter()
            .map(|item| match item {
                rm::Item::Register(r) => Item::Register(register(r)),
                rm::Item::Group(g) => Item::Group(Group {
                    name: &g.name,
                    offset: g.offset,
                    description: &g.description,
                    count: count(&g.count),
                    max_count: g.max_count,
                    stride: g.stride,
                    window: g.window,
                    registers: g.registers.iter().map(register).collect(),
                }),
            })
            .collect(),
        memories: map
            .memories
            .iter()
            .map(|m| Memory {
                name: &m.name,
                description: &m.description,
                depth: count(&m.depth),
                width: m.width,
                fields: mem_fields(&m.fields),
            })
            .collect(),
        spaces: map
            .spaces
            .iter()
            .map(|s| Space {
                name: &s.name,
                size: s.size,
                description: &s.description,
                windows: s
                    .windows
                    .iter()
                    .map(|w| Window {
                        name: &w.name,
                        offset: w.offset,
                        size: w.size,
                        access: w.access.as_str(),
                        byte_order: match w.byte_order {
                            rm::ByteOrder::Little => "little",
                            rm::ByteOrder::Big => "big",
                        },
                        description: &w.description,
                        fields: mem_fields(&w.fields),
                    })
                    .collect(),
            })
            .collect(),
    };
    // Serializing these plain structs cannot fail (string keys, no maps, no floats).
    let mut text = serde_json::to_string_pretty(&out).unwrap_or_default();
    text.push('\n');
    text
}
