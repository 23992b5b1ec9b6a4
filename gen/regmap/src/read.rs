//! Builds the model from the YAML tree. Items whose required parts are broken are left out
//! (their problems are already reported), so the semantic checks see as much of the map as can
//! be read and report everything in one run.

use crate::model::*;
use crate::names::NameKind;
use crate::parse::Parser;
use crate::source::Span;
use crate::yaml::{Mapping, Node};

const TOP_KEYS: &[&str] = &[
    "block",
    "version",
    "description",
    "address_width",
    "parameters",
    "enums",
    "registers",
    "memories",
    "spaces",
];
const PARAM_KEYS: &[&str] = &["name", "default", "min", "max", "description"];
const ENUM_KEYS: &[&str] = &["name", "description", "values"];
const ENUM_VALUE_KEYS: &[&str] = &["name", "value", "description"];
const REG_KEYS: &[&str] = &[
    "name",
    "offset",
    "width",
    "description",
    "fields",
    "interrupt",
];
const GROUP_KEYS: &[&str] = &["name", "offset", "description", "array", "registers"];
const ARRAY_KEYS: &[&str] = &["count", "stride", "window"];
const FIELD_KEYS: &[&str] = &[
    "name",
    "bits",
    "access",
    "reset",
    "description",
    "enum",
    "hw_write",
    "hw_set",
    "hw_clear",
    "counter",
    "constant",
    "write_strobe",
    "read_strobe",
    "hw_read",
];
const COUNTER_KEYS: &[&str] = &["step_width", "saturate"];
const MEM_KEYS: &[&str] = &["name", "description", "depth", "width", "fields"];
const MEM_FIELD_KEYS: &[&str] = &["name", "bits", "description", "enum"];
const SPACE_KEYS: &[&str] = &["name", "size", "description", "windows"];
const WINDOW_KEYS: &[&str] = &[
    "name",
    "offset",
    "size",
    "access",
    "byte_order",
    "description",
    "fields",
];

/// Top-level lists at least this long are read on two threads (see [`Parser::items`]); a thread
/// costs about as much as reading a few registers. (The `fuzz` feature lowers it so that the
/// two-thread path runs on the small inputs a fuzzer makes.)
const PARALLEL_ITEMS: usize = if cfg!(feature = "fuzz") { 4 } else { 256 };

impl Parser<'_> {
    pub fn read_map(&mut self, root: &Node<'_>, file: &str) -> RegMap {
        let mut map = RegMap {
            file: file.to_string(),
            block: Name {
                text: String::new(),
                span: Span::default(),
            },
            version: Version {
                major: 0,
                minor: 0,
                patch: 0,
            },
            description: String::new(),
            address_width: 0,
            address_width_declared: None,
            parameters: Vec::new(),
            enums: Vec::new(),
            items: Vec::new(),
            memories: Vec::new(),
            spaces: Vec::new(),
        };
        let Some(m) = self.as_map(root, "the map") else {
            return map;
        };
        self.check_keys(m, TOP_KEYS, &["block", "version", "registers"], "the map");
        if let Some(b) = self.name(m, "block", NameKind::Snake, "block") {
            map.block = b;
        }
        if let Some(n) = m.get_node("version") {
            if let Some(v) = self.version(n) {
                map.version = v;
            }
        }
        map.description = self.description(m);
        if let Some(n) = m.get_node("address_width") {
            // Kept whole for the checks: `as u32` read 2^32 + 32 as 32.
            if let Some(v) = self.int(n, "`address_width`") {
                map.address_width_declared = Some((v, self.span_of(n)));
            }
        }
        for n in self.list(m, "parameters") {
            if let Some(p) = self.parameter(n) {
                map.parameters.push(p);
            }
        }
        for n in self.list(m, "enums") {
            if let Some(e) = self.enumeration(n) {
                map.enums.push(e);
            }
        }
        // Sized from the list: growing a list of thousands of registers one doubling at a
        // time copied it over and over.
        let registers = self.list(m, "registers");
        map.items.reserve_exact(registers.len());
        self.items(registers, &mut map.items);
        for n in self.list(m, "memories") {
            if let Some(mem) = self.memory(n) {
                map.memories.push(mem);
            }
        }
        for n in self.list(m, "spaces") {
            if let Some(s) = self.space(n) {
                map.spaces.push(s);
            }
        }
        map
    }

    /// Reads the top-level items into `out`. A long list is read in two halves, the second on
    /// another thread with its own sink, whose diagnostics follow the first half's: the same
    /// items and diagnostics, in the same order, as reading them one after the other (reading
    /// an item depends on nothing but its node). On a 4096-register map reading the items is
    /// a third of the serial front end that every output waits for.
    fn items(&mut self, nodes: &[Node<'_>], out: &mut Vec<Item>) {
        // Sized up front: items are large, and growing the list copies them (and touches fresh
        // memory) at each doubling.
        out.reserve(nodes.len());
        if !self.parallel || nodes.len() < PARALLEL_ITEMS {
            out.extend(nodes.iter().filter_map(|n| self.item(n)));
            return;
        }
        let (first, second) = nodes.split_at(nodes.len() / 2);
        let mut sink = self.sink.fork();
        std::thread::scope(|s| {
            let worker = crate::apart::spawn_scoped(s, || {
                let mut p = Parser {
                    sink: &mut sink,
                    parallel: false,
                };
                let mut items = Vec::with_capacity(second.len());
                items.extend(second.iter().filter_map(|n| p.item(n)));
                items
            });
            out.extend(first.iter().filter_map(|n| self.item(n)));
            match worker.map(|w| w.join()) {
                Ok(Ok(items)) => out.extend(items),
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                // No thread to be had: the second half here too.
                Err(_) => out.extend(second.iter().filter_map(|n| self.item(n))),
            }
        });
        self.sink.absorb(sink);
    }

    fn list<'n, 't>(&mut self, m: &'n Mapping<'t>, key: &str) -> &'n [Node<'t>] {
        match m.get_node(key) {
            // The message's `key` text is built only when the value is not a list.
            Some(n) => n
                .as_sequence()
                .or_else(|| self.as_list(n, &format!("`{key}`")))
                .unwrap_or(&[]),
            None => &[],
        }
    }

    fn version(&mut self, n: &Node<'_>) -> Option<Version> {
        let s = self.string(n, "`version`")?;
        let parts: Vec<Option<u64>> = s
            .split('.')
            .map(|p| {
                if p.is_empty() || !p.chars().all(|c| c.is_ascii_digit()) {
                    None
                } else {
                    p.parse().ok()
                }
            })
            .collect();
        if let [Some(major), Some(minor), Some(patch)] = parts[..] {
            return Some(Version {
                major,
                minor,
                patch,
            });
        }
        let span = self.span_of(n);
        self.sink
            .error(
                "regmap::bad_version",
                span,
                format!("version `{s}` is not MAJOR.MINOR.PATCH"),
                "not a semantic version",
            )
            .help("write three numbers, e.g. `version: 1.0.0`; `rdmagen diff` compares them");
        None
    }

    fn parameter(&mut self, n: &Node<'_>) -> Option<Parameter> {
        let m = self.as_map(n, "a parameter")?;
        self.check_keys(
            m,
            PARAM_KEYS,
            &["name", "default", "min", "max"],
            "parameter",
        );
        let name = self.name(m, "name", NameKind::Upper, "parameter");
        let default = m.get_node("default").and_then(|n| self.int(n, "`default`"));
        let min = m.get_node("min").and_then(|n| self.int(n, "`min`"));
        let max = m.get_node("max").and_then(|n| self.int(n, "`max`"));
        let description = self.description(m);
        Some(Parameter {
            name: name?,
            default: default?,
            min: min?,
            max: max?,
            description,
        })
    }

    fn enumeration(&mut self, n: &Node<'_>) -> Option<Enum> {
        let m = self.as_map(n, "an enum")?;
        self.check_keys(m, ENUM_KEYS, &["name", "values"], "enum");
        let name = self.name(m, "name", NameKind::Snake, "enum");
        let description = self.description(m);
        let mut values = Vec::new();
        for v in self.list(m, "values") {
            let Some(vm) = self.as_map(v, "an enum value") else {
                continue;
            };
            self.check_keys(vm, ENUM_VALUE_KEYS, &["name", "value"], "enum value");
            let vname = self.name(vm, "name", NameKind::Upper, "enum value");
            let vnode = vm.get_node("value");
            let value = vnode.and_then(|n| self.int(n, "`value`"));
            let value_span = vnode.map(|n| self.span_of(n)).unwrap_or_default();
            let description = self.description(vm);
            if let (Some(name), Some(value)) = (vname, value) {
                values.push(EnumValue {
                    name,
                    value,
                    value_span,
                    description,
                });
            }
        }
        Some(Enum {
            name: name?,
            description,
            values,
        })
    }

    fn item(&mut self, n: &Node<'_>) -> Option<Item> {
        let m = self.as_map(n, "a register")?;
        if m.get_node("array").is_some() || m.get_node("registers").is_some() {
            self.group(m).map(Item::Group)
        } else {
            self.register(m).map(Item::Register)
        }
    }

    fn offset(&mut self, m: &Mapping<'_>) -> Option<(u64, Span)> {
        let n = m.get_node("offset")?;
        let v = self.int(n, "`offset`")?;
        Some((v, self.span_of(n)))
    }

    fn register(&mut self, m: &Mapping<'_>) -> Option<Register> {
        self.check_keys(m, REG_KEYS, &["name", "offset", "fields"], "register");
        let name = self.name(m, "name", NameKind::Snake, "register");
        let offset = self.offset(m);
        let width = match m.get_node("width") {
            Some(n) => match self.int(n, "`width`") {
                Some(w @ (32 | 64)) => Some(w as u32),
                Some(w) => {
                    let span = self.span_of(n);
                    self.sink
                        .error(
                            "regmap::bad_width",
                            span,
                            format!("register width {w} is not supported"),
                            "not 32 or 64",
                        )
                        .help("registers are 32 or 64 bits wide; split wider data over several registers");
                    None
                }
                None => None,
            },
            None => Some(32),
        };
        let description = self.description(m);
        let interrupt_enable = match m.get_node("interrupt") {
            Some(n) => self.interrupt(n),
            None => None,
        };
        let mut fields = Vec::new();
        if let Some(fl) = m.get_node("fields") {
            let list = self.as_list(fl, "`fields`").unwrap_or(&[]);
            fields.reserve_exact(list.len());
            for f in list {
                if let Some(field) = self.field(f) {
                    fields.push(field);
                }
            }
            if fl.as_sequence().is_some_and(|s| s.is_empty()) {
                let span = self.span_of(fl);
                let span = name.as_ref().map(|n| n.span).unwrap_or(span);
                self.sink
                    .error(
                        "regmap::empty",
                        span,
                        "register has no fields",
                        "empty `fields`",
                    )
                    .help("give it at least one field, or remove the register to leave the address free");
            }
        }
        let (offset, offset_span) = offset?;
        Some(Register {
            name: name?,
            offset,
            offset_span,
            width: width?,
            description,
            fields,
            interrupt_enable,
        })
    }

    fn interrupt(&mut self, n: &Node<'_>) -> Option<Name> {
        let m = self.as_map(n, "`interrupt`")?;
        self.check_keys(m, &["enable"], &["enable"], "`interrupt`");
        self.name(m, "enable", NameKind::Snake, "interrupt enable register")
    }

    fn group(&mut self, m: &Mapping<'_>) -> Option<Group> {
        self.check_keys(
            m,
            GROUP_KEYS,
            &["name", "offset", "array", "registers"],
            "register group",
        );
        let name = self.name(m, "name", NameKind::Snake, "group");
        let offset = self.offset(m);
        let description = self.description(m);
        let mut count = None;
        let mut count_span = Span::default();
        let mut stride = None;
        let mut window = None;
        if let Some(an) = m.get_node("array") {
            if let Some(am) = self.as_map(an, "`array`") {
                self.check_keys(am, ARRAY_KEYS, &["count", "stride"], "`array`");
                if let Some(cn) = am.get_node("count") {
                    count_span = self.span_of(cn);
                    count = self.count(cn, "`count`");
                }
                stride = am.get_node("stride").and_then(|n| self.int(n, "`stride`"));
                window = am.get_node("window").and_then(|n| {
                    let v = self.int(n, "`window`")?;
                    if v == 0 {
                        // 0 stands for "no window given" in the model: say so here instead
                        // of deriving one the map did not ask for.
                        let span = self.span_of(n);
                        self.sink
                            .error(
                                "regmap::bad_window",
                                span,
                                "array window 0 is not a power of two",
                                "window",
                            )
                            .help("remove `window` to get stride x maximum count rounded up to a power of two");
                    }
                    Some(v)
                });
            }
        }
        let list = self.list(m, "registers");
        let mut registers = Vec::with_capacity(list.len());
        for r in list {
            if let Some(rm) = self.as_map(r, "a register") {
                if rm.get_node("array").is_some() || rm.get_node("registers").is_some() {
                    let span = self.span_of(r);
                    self.sink
                        .error(
                            "regmap::wrong_type",
                            span,
                            "groups cannot be nested",
                            "group inside a group",
                        )
                        .help("flatten it: one group per replicated block, registers inside it");
                    continue;
                }
                if let Some(reg) = self.register(rm) {
                    registers.push(reg);
                }
            }
        }
        let (offset, offset_span) = offset?;
        Some(Group {
            name: name?,
            offset,
            offset_span,
            description,
            count: count?,
            count_span,
            max_count: 0,
            stride: stride?,
            window: window.unwrap_or(0),
            registers,
        })
    }

    fn count(&mut self, n: &Node<'_>, what: &str) -> Option<Count> {
        let Some(s) = n.as_scalar().map(|s| s.as_str().to_string()) else {
            self.int(n, what);
            return None;
        };
        if s.starts_with(|c: char| c.is_ascii_digit()) {
            self.int(n, what).map(Count::Fixed)
        } else {
            let span = self.span_of(n);
            self.check_name(&s, span, NameKind::Upper, "parameter");
            Some(Count::Param(Name { text: s, span }))
        }
    }

    fn field(&mut self, n: &Node<'_>) -> Option<Field> {
        let m = self.as_map(n, "a field")?;
        self.check_keys(m, FIELD_KEYS, &["name", "bits", "access"], "field");
        let name = self.name(m, "name", NameKind::Snake, "field");
        let bits_node = m.get_node("bits");
        let bits = bits_node.and_then(|b| self.bits(b));
        let bits_span = bits_node.map(|b| self.span_of(b)).unwrap_or_default();
        let access = m.get_node("access").and_then(|a| {
            let s = self.string(a, "`access`")?;
            match Access::parse(&s) {
                Some(acc) => Some(acc),
                None => {
                    let span = self.span_of(a);
                    let all: Vec<&str> = Access::ALL.iter().map(|a| a.as_str()).collect();
                    let lower = s.to_ascii_lowercase();
                    let help = match lower.as_str() {
                        _ if lower != s && Access::parse(&lower).is_some() => {
                            format!("access types are lower case: `{lower}`")
                        }
                        "rw1c" | "w1clr" | "woclr" => "W1C is spelled `w1c`".to_string(),
                        "rw1s" | "w1set" | "woset" => "W1S is spelled `w1s`".to_string(),
                        "rw0c" | "wzc" | "w0clr" | "wzclr" => "W0C is spelled `w0c`".to_string(),
                        "rclr" | "rtc" | "roc" | "clear-on-read" => {
                            "clear on read is `rc`".to_string()
                        }
                        "rset" | "set-on-read" => "set on read is `rs`".to_string(),
                        "r" | "read-only" | "readonly" => "read-only is `ro`".to_string(),
                        "w" | "write-only" | "writeonly" => "write-only is `wo`".to_string(),
                        "r/w" | "read-write" | "readwrite" => "read-write is `rw`".to_string(),
                        "pulse" | "wpulse" | "singlepulse" => "a write pulse is `wp`".to_string(),
                        _ => format!("access types: {}", all.join(", ")),
                    };
                    self.sink
                        .error(
                            "regmap::unknown_access",
                            span,
                            format!("unknown access type `{s}`"),
                            "unknown access type",
                        )
                        .help(help);
                    None
                }
            }
        });
        // A constant's value is kept as its reset: every output that shows a reset (header,
        // docs, exports) then shows the value software reads.
        let constant = m.get_node("constant");
        let reset = match (m.get_node("reset"), constant) {
            (Some(r), Some(c)) => {
                let span = self.span_of(c);
                self.sink
                    .error(
                        "regmap::constant_with_reset",
                        span,
                        "a field with `constant` also has `reset`".to_string(),
                        "constant and reset",
                    )
                    .help("a constant has no flop: give its value once, as `constant: V`, and remove `reset`");
                self.int(r, "`reset`")
            }
            (Some(r), None) => self.int(r, "`reset`"),
            (None, Some(c)) => self.int(c, "`constant`"),
            (None, None) => Some(0),
        };
        let description = self.description(m);
        let enumeration = m
            .get_node("enum")
            .and_then(|e| self.string(e, "`enum`").map(|t| (t, self.span_of(e))))
            .map(|(text, span)| Name { text, span });
        let mut hw = HwProps::default();
        let mut write_strobe = false;
        let mut read_strobe = false;
        let mut hw_read = true;
        for (key, slot) in [
            ("hw_write", &mut hw.write),
            ("hw_set", &mut hw.set),
            ("hw_clear", &mut hw.clear),
            ("write_strobe", &mut write_strobe),
            ("read_strobe", &mut read_strobe),
            ("hw_read", &mut hw_read),
        ] {
            if let Some(b) = m.get_node(key) {
                // The message's `key` text is built only for a value that is not a boolean.
                *slot = match b.as_scalar().map(|s| s.as_str()) {
                    Some("true") => true,
                    Some("false") => false,
                    _ => self.boolean(b, &format!("`{key}`")).unwrap_or(false),
                };
            }
        }
        if let Some(c) = m.get_node("counter") {
            if let Some(cm) = self.as_map(c, "`counter`") {
                self.check_keys(cm, COUNTER_KEYS, &[], "`counter`");
                // Whole, not `as u32`: 2^32 + 1 read as 1 and was accepted.
                let step_width = cm
                    .get_node("step_width")
                    .and_then(|n| {
                        let v = self.int(n, "`step_width`")?;
                        u32::try_from(v).ok().or_else(|| {
                            let span = self.span_of(n);
                            self.sink
                                .error(
                                    "regmap::hw_property_not_allowed",
                                    span,
                                    format!("step_width {v} is wider than any field"),
                                    "bad step_width",
                                )
                                .help("the increment input cannot be wider than the counter");
                            None
                        })
                    })
                    .unwrap_or(1);
                let saturate = cm
                    .get_node("saturate")
                    .and_then(|n| self.boolean(n, "`saturate`"))
                    .unwrap_or(true);
                hw.counter = Some(Counter {
                    step_width,
                    saturate,
                });
            }
        }
        let (msb, lsb) = bits?;
        Some(Field {
            name: name?,
            msb,
            lsb,
            bits_span,
            access: access?,
            reset: reset?,
            description,
            enumeration,
            hw,
            constant: constant.is_some(),
            write_strobe,
            read_strobe,
            hw_read,
        })
    }

    fn mem_field(&mut self, n: &Node<'_>, keys: &[&str]) -> Option<MemField> {
        let m = self.as_map(n, "a field")?;
        self.check_keys(m, keys, &["name", "bits"], "field");
        let name = self.name(m, "name", NameKind::Snake, "field");
        let bits = m.get_node("bits").and_then(|b| self.bits(b));
        let description = self.description(m);
        let enumeration = m
            .get_node("enum")
            .and_then(|e| self.string(e, "`enum`").map(|t| (t, self.span_of(e))))
            .map(|(text, span)| Name { text, span });
        let (msb, lsb) = bits?;
        Some(MemField {
            name: name?,
            msb,
            lsb,
            description,
            enumeration,
        })
    }

    fn memory(&mut self, n: &Node<'_>) -> Option<Memory> {
        let m = self.as_map(n, "a memory")?;
        self.check_keys(m, MEM_KEYS, &["name", "depth", "width", "fields"], "memory");
        let name = self.name(m, "name", NameKind::Snake, "memory");
        let description = self.description(m);
        let depth = m.get_node("depth").and_then(|d| self.count(d, "`depth`"));
        let width = m.get_node("width").and_then(|w| {
            let v = self.int(w, "`width`")?;
            if (1..=4096).contains(&v) {
                Some(v as u32)
            } else {
                let span = self.span_of(w);
                self.sink
                    .error(
                        "regmap::bad_width",
                        span,
                        format!("memory width {v} is out of range"),
                        "not 1..=4096",
                    )
                    .help("memory words are 1 to 4096 bits wide");
                None
            }
        });
        let mut fields = Vec::new();
        for f in self.list(m, "fields") {
            if let Some(mf) = self.mem_field(f, MEM_FIELD_KEYS) {
                fields.push(mf);
            }
        }
        Some(Memory {
            name: name?,
            description,
            depth: depth?,
            width: width?,
            fields,
        })
    }

    fn space(&mut self, n: &Node<'_>) -> Option<Space> {
        let m = self.as_map(n, "a space")?;
        self.check_keys(m, SPACE_KEYS, &["name", "size", "windows"], "space");
        let name = self.name(m, "name", NameKind::Snake, "space");
        let size = m.get_node("size").and_then(|s| self.int(s, "`size`"));
        let description = self.description(m);
        let mut windows = Vec::new();
        for w in self.list(m, "windows") {
            if let Some(win) = self.window(w) {
                windows.push(win);
            }
        }
        Some(Space {
            name: name?,
            size: size?,
            description,
            windows,
        })
    }

    fn window(&mut self, n: &Node<'_>) -> Option<Window> {
        let m = self.as_map(n, "a window")?;
        self.check_keys(
            m,
            WINDOW_KEYS,
            &["name", "offset", "size", "access"],
            "window",
        );
        let name = self.name(m, "name", NameKind::Snake, "window");
        let offset = m.get_node("offset").and_then(|o| self.int(o, "`offset`"));
        let size = m.get_node("size").and_then(|s| self.int(s, "`size`"));
        let access = m.get_node("access").and_then(|a| {
            let s = self.string(a, "`access`")?;
            match s.as_str() {
                "rw" => Some(Access::Rw),
                "ro" => Some(Access::Ro),
                "wo" => Some(Access::Wo),
                _ => {
                    let span = self.span_of(a);
                    self.sink
                        .error(
                            "regmap::unknown_access",
                            span,
                            format!("window access `{s}` is not rw, ro or wo"),
                            "unknown window access",
                        )
                        .help("windows are plain memory: use rw, ro or wo");
                    None
                }
            }
        });
        let byte_order = match m.get_node("byte_order") {
            Some(b) => match self.string(b, "`byte_order`").as_deref() {
                Some("little") => Some(ByteOrder::Little),
                Some("big") => Some(ByteOrder::Big),
                Some(other) => {
                    let span = self.span_of(b);
                    self.sink
                        .error(
                            "regmap::wrong_type",
                            span,
                            format!("byte order `{other}` is not `little` or `big`"),
                            "unknown byte order",
                        )
                        .help("write byte_order: little or byte_order: big");
                    None
                }
                None => None,
            },
            None => Some(ByteOrder::Little),
        };
        let description = self.description(m);
        let mut fields = Vec::new();
        for f in self.list(m, "fields") {
            if let Some(mf) = self.mem_field(f, MEM_FIELD_KEYS) {
                fields.push(mf);
            }
        }
        Some(Window {
            name: name?,
            offset: offset?,
            size: size?,
            access: access?,
            byte_order: byte_order?,
            description,
            fields,
        })
    }
}
