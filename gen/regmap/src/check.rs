//! Semantic checks on the model read from the map: names, overlaps, widths, references,
//! address windows and the port names the CSR block will derive. Every check reports and
//! continues, so one run shows every problem.

use std::collections::hash_map::Entry;

use crate::fasthash::FastMap;

use crate::diag::Sink;
use crate::model::*;
use crate::source::Span;

/// Smallest address width the CSR decoder accepts.
const MIN_ADDRESS_WIDTH: u32 = 4;
/// AXI4-Lite addresses on the buses we target are at most 32 bits.
const MAX_ADDRESS_WIDTH: u32 = 32;

/// `parallel`: whether a big map's checks may run on two threads (the same diagnostics).
pub(crate) fn check(sink: &mut Sink, map: &mut RegMap, parallel: bool) {
    let mut c = Checker { sink };
    c.parameters(map);
    c.enums(map);
    c.groups(map);
    if !parallel || map.items.len() < PARALLEL_ITEMS {
        c.registers(map);
        c.layout(map);
        c.interrupts(map);
        c.ports(map);
    } else {
        // The port names (about half of these checks on a big map) on another thread with its
        // own sink, whose diagnostics follow these: the order of reporting above. (The ports
        // used to be checked after the address width, whose only diagnostic has a code of its
        // own, so the sorted diagnostics are the same.)
        let mut other = c.sink.fork();
        let shared: &RegMap = map;
        std::thread::scope(|s| {
            let worker =
                crate::apart::spawn_scoped(s, || Checker { sink: &mut other }.ports(shared));
            c.registers(shared);
            c.layout(shared);
            c.interrupts(shared);
            match worker.map(|w| w.join()) {
                Ok(Ok(())) => {}
                Ok(Err(panic)) => std::panic::resume_unwind(panic),
                // No thread to be had: the ports here too.
                Err(_) => c.ports(shared),
            }
        });
        c.sink.absorb(other);
    }
    c.address_width(map);
    c.rtl_names(map);
    c.memories(map);
    c.spaces(map);
    c.c_names(map);
}

/// Maps with at least this many top-level items are checked on two threads (4 with the `fuzz`
/// feature, as in `read`).
const PARALLEL_ITEMS: usize = if cfg!(feature = "fuzz") { 4 } else { 256 };

struct Checker<'s> {
    sink: &'s mut Sink,
}

fn bits_of(v: u64) -> u32 {
    64 - v.leading_zeros()
}

/// The end of `size` bytes at `offset`, exact whatever the numbers (a map may give any 64-bit
/// offset or size; the checks report what does not fit instead of wrapping).
fn end_of(offset: u64, size: u64) -> u128 {
    u128::from(offset) + u128::from(size)
}

/// The smallest power of two at least `v`, or `u64::MAX` (not a power of two) when there is
/// none in 64 bits, for hints and derived windows.
fn next_pow2(v: u64) -> u64 {
    v.checked_next_power_of_two().unwrap_or(u64::MAX)
}

fn fits(value: u64, width: u32) -> bool {
    width >= 64 || value >> width == 0
}

impl Checker<'_> {
    /// Reports every name that appears twice among `names` (what: "register", …).
    /// `scope` is written only into messages, so callers pass it unformatted.
    fn unique<'a>(
        &mut self,
        names: impl IntoIterator<Item = &'a Name>,
        what: &str,
        scope: &dyn std::fmt::Display,
    ) {
        let names = names.into_iter();
        // Sized up front and one lookup per name: thousands of registers in a big map.
        let mut seen: FastMap<&str, Span> =
            FastMap::with_capacity_and_hasher(names.size_hint().0, Default::default());
        for n in names {
            let first = match seen.entry(n.text.as_str()) {
                Entry::Occupied(e) => *e.get(),
                Entry::Vacant(e) => {
                    e.insert(n.span);
                    continue;
                }
            };
            self.sink
                .error(
                    "regmap::duplicate_name",
                    n.span,
                    format!("{what} `{}` is defined twice {scope}", n.text),
                    "defined again here",
                )
                .related(first, "first defined here")
                .help(format!(
                    "rename one of them; {what} names must be unique {scope}"
                ));
        }
    }

    fn parameters(&mut self, map: &RegMap) {
        self.unique(
            map.parameters.iter().map(|p| &p.name),
            "parameter",
            &"in the map",
        );
        for p in &map.parameters {
            if p.min > p.max {
                self.sink
                    .error(
                        "regmap::parameter_range",
                        p.name.span,
                        format!(
                            "parameter `{}` has min {} above max {}",
                            p.name, p.min, p.max
                        ),
                        "empty range",
                    )
                    .help("swap min and max");
            } else if p.default < p.min || p.default > p.max {
                self.sink
                    .error(
                        "regmap::parameter_range",
                        p.name.span,
                        format!(
                            "parameter `{}` defaults to {} outside its range {}..={}",
                            p.name, p.default, p.min, p.max
                        ),
                        "default out of range",
                    )
                    .help("move the default into [min, max] or widen the range");
            } else if p.min == 0 {
                // A zero count would make a generate loop empty and a packed port [-1:0].
                self.sink
                    .error(
                        "regmap::parameter_range",
                        p.name.span,
                        format!("parameter `{}` may be 0", p.name),
                        "min is 0",
                    )
                    .help("counts and depths start at 1; set `min: 1`");
            }
        }
    }

    fn enums(&mut self, map: &RegMap) {
        self.unique(map.enums.iter().map(|e| &e.name), "enum", &"in the map");
        for e in &map.enums {
            if e.values.is_empty() {
                self.sink
                    .error(
                        "regmap::empty",
                        e.name.span,
                        format!("enum `{}` has no values", e.name),
                        "empty enum",
                    )
                    .help("list at least one `{ name: VALUE, value: N }`, or remove the enum");
            }
            let scope = format!("in enum `{}`", e.name);
            self.unique(e.values.iter().map(|v| &v.name), "enum value", &scope);
            let mut seen: FastMap<u64, Span> = FastMap::default();
            for v in &e.values {
                if let Some(first) = seen.get(&v.value) {
                    let first = *first;
                    self.sink
                        .error(
                            "regmap::duplicate_enum_value",
                            v.value_span,
                            format!("value {} appears twice in enum `{}`", v.value, e.name),
                            "repeated value",
                        )
                        .related(first, "first used here")
                        .help("each enum value needs its own encoding");
                } else {
                    seen.insert(v.value, v.value_span);
                }
            }
        }
    }

    fn resolve_count(&mut self, map: &RegMap, count: &Count) -> Option<u64> {
        match count {
            Count::Fixed(0) => None,
            Count::Fixed(n) => Some(*n),
            Count::Param(name) => match map.parameter(name) {
                Some(p) => Some(p.max),
                None => {
                    let known: Vec<&str> = map
                        .parameters
                        .iter()
                        .map(|p| p.name.text.as_str())
                        .collect();
                    let help = match crate::names::closest(name, &known) {
                        Some(c) => format!("did you mean `{c}`?"),
                        None if known.is_empty() => {
                            "declare it under `parameters:` with default, min and max".into()
                        }
                        None => format!("declared parameters: {}", known.join(", ")),
                    };
                    self.sink
                        .error(
                            "regmap::unknown_parameter",
                            name.span,
                            format!("unknown parameter `{name}`"),
                            "not declared",
                        )
                        .help(help);
                    None
                }
            },
        }
    }

    fn groups(&mut self, map: &mut RegMap) {
        // Counts resolve against the parameters first, so the groups can then be updated in place.
        let maxes: Vec<u64> = map
            .items
            .iter()
            .map(|i| match i {
                Item::Group(g) => self.resolve_count(map, &g.count).unwrap_or(0),
                Item::Register(_) => 0,
            })
            .collect();
        for (item, max) in map.items.iter_mut().zip(maxes) {
            let Item::Group(g) = item else { continue };
            if g.count == Count::Fixed(0) {
                self.sink
                    .error(
                        "regmap::parameter_range",
                        g.name.span,
                        format!("group `{}` has count 0", g.name),
                        "empty array",
                    )
                    .help("an array needs at least one element");
            }
            g.max_count = max;
            let span_end = g
                .registers
                .iter()
                .map(|r| r.offset.saturating_add(r.bytes()))
                .max()
                .unwrap_or(0);
            if !g.stride.is_power_of_two() || g.stride < 4 {
                self.sink
                    .error(
                        "regmap::bad_stride",
                        g.name.span,
                        format!("group `{}` has stride {:#x}, not a power of two", g.name, g.stride),
                        "stride",
                    )
                    .help(format!(
                        "use {:#x}; element index decoding takes address bits, so strides are powers of two",
                        next_pow2(span_end.max(4))
                    ));
            } else if span_end > g.stride {
                let last = g
                    .registers
                    .iter()
                    .max_by_key(|r| r.offset.saturating_add(r.bytes()))
                    .map(|r| r.offset_span)
                    .unwrap_or(g.name.span);
                self.sink
                    .error(
                        "regmap::bad_stride",
                        g.name.span,
                        format!(
                            "group `{}` holds registers up to byte {:#x} but its stride is {:#x}",
                            g.name, span_end, g.stride
                        ),
                        "stride too small",
                    )
                    .related(last, "this register ends past the stride")
                    .help(format!(
                        "use a stride of at least {:#x}",
                        next_pow2(span_end)
                    ));
            }
            let needed = g.stride.saturating_mul(max.max(1));
            if g.window == 0 {
                g.window = next_pow2(needed);
            } else if !g.window.is_power_of_two() {
                self.sink
                    .error(
                        "regmap::bad_window",
                        g.name.span,
                        format!(
                            "group `{}` has window {:#x}, not a power of two",
                            g.name, g.window
                        ),
                        "window",
                    )
                    .help(format!("use {:#x}", next_pow2(g.window)));
            } else if needed > g.window {
                let at = g.count_span;
                self.sink
                    .error(
                        "regmap::array_overrun",
                        at,
                        format!(
                            "group `{}`: {} elements × stride {:#x} = {:#x} bytes overrun its {:#x}-byte window",
                            g.name, max, g.stride, needed, g.window
                        ),
                        "up to this many elements",
                    )
                    .help(format!(
                        "grow the window to {:#x}, shrink the stride, or lower the count's max",
                        next_pow2(needed)
                    ));
            }
            if g.window.is_power_of_two() && g.offset % g.window != 0 {
                self.sink
                    .error(
                        "regmap::misaligned",
                        g.offset_span,
                        format!(
                            "group `{}` at {:#x} is not aligned to its {:#x}-byte window",
                            g.name, g.offset, g.window
                        ),
                        "misaligned",
                    )
                    .help(format!(
                        "move it to {:#x}; windows are decoded from the upper address bits",
                        g.offset.checked_next_multiple_of(g.window).unwrap_or(0)
                    ));
            }
        }
    }

    fn registers(&mut self, map: &RegMap) {
        let top: Vec<&Name> = map
            .items
            .iter()
            .map(|i| match i {
                Item::Register(r) => &r.name,
                Item::Group(g) => &g.name,
            })
            .collect();
        self.unique(top, "register or group", &"at the top level of the map");
        for item in &map.items {
            match item {
                Item::Register(r) => self.register(map, r),
                Item::Group(g) => {
                    let scope = format!("in group `{}`", g.name);
                    self.unique(g.registers.iter().map(|r| &r.name), "register", &scope);
                    for r in &g.registers {
                        self.register(map, r);
                    }
                    self.overlaps(
                        g.registers
                            .iter()
                            .map(|r| (r.offset, r.bytes(), r.offset_span, &r.name)),
                        &scope,
                    );
                }
            }
        }
    }

    fn register(&mut self, map: &RegMap, r: &Register) {
        if !r.offset.is_multiple_of(r.bytes()) {
            self.sink
                .error(
                    "regmap::misaligned",
                    r.offset_span,
                    format!(
                        "{}-bit register `{}` at {:#x} is not {}-byte aligned",
                        r.width,
                        r.name,
                        r.offset,
                        r.bytes()
                    ),
                    "misaligned",
                )
                .help(match r.offset.checked_next_multiple_of(r.bytes()) {
                    Some(up) => format!(
                        "move it to {:#x} or {:#x}",
                        r.offset - r.offset % r.bytes(),
                        up
                    ),
                    None => format!("move it to {:#x}", r.offset - r.offset % r.bytes()),
                });
        }
        self.unique(
            r.fields.iter().map(|f| &f.name),
            "field",
            &format_args!("in register `{}`", r.name),
        );
        for f in &r.fields {
            self.field(map, r, f);
        }
        // Field overlaps, pairwise in map order.
        for (i, f) in r.fields.iter().enumerate() {
            if f.msb >= r.width {
                continue;
            }
            if let Some(prev) = r.fields[..i]
                .iter()
                .find(|p| p.msb < r.width && p.lsb <= f.msb && f.lsb <= p.msb)
            {
                self.sink
                    .error(
                        "regmap::field_overlap",
                        f.bits_span,
                        format!(
                            "field `{}` [{}:{}] overlaps field `{}` [{}:{}] in register `{}`",
                            f.name, f.msb, f.lsb, prev.name, prev.msb, prev.lsb, r.name
                        ),
                        "overlapping bits",
                    )
                    .related(prev.bits_span, format!("`{}` uses these bits", prev.name))
                    .help(free_bits_hint(r, f.width()));
            }
        }
    }

    fn field(&mut self, map: &RegMap, r: &Register, f: &Field) {
        if f.msb >= r.width {
            self.sink
                .error(
                    "regmap::field_past_width",
                    f.bits_span,
                    format!(
                        "field `{}` [{}:{}] does not fit the {}-bit register `{}`",
                        f.name, f.msb, f.lsb, r.width, r.name
                    ),
                    format!("bit {} is past bit {}", f.msb, r.width - 1),
                )
                .help(if r.width == 32 {
                    "move the field below bit 32, or make the register `width: 64`".to_string()
                } else {
                    "move the field below bit 64 or split it over two registers".to_string()
                });
            return;
        }
        if !fits(f.reset, f.width()) {
            let what = if f.constant { "constant" } else { "reset" };
            self.sink
                .error(
                    "regmap::reset_too_wide",
                    f.name.span,
                    format!(
                        "{what} value {:#x} of field `{}` needs {} bits; the field has {}",
                        f.reset,
                        f.name,
                        bits_of(f.reset),
                        f.width()
                    ),
                    format!("{what} does not fit"),
                )
                .help(format!(
                    "the largest {what} for a {}-bit field is {:#x}; widen the field or fix the value",
                    f.width(),
                    if f.width() >= 64 { u64::MAX } else { (1u64 << f.width()) - 1 }
                ));
        }
        if f.reset != 0 && f.is_input() {
            self.sink
                .error(
                    "regmap::reset_without_storage",
                    f.name.span,
                    format!("field `{}` is read-only and driven by hardware; it has no flop to reset", f.name),
                    "`reset` on a hardware-driven field",
                )
                .help("remove `reset`; for a value that never changes (an ID, a version) write `constant: V` instead; or give the field storage with hw_write/hw_set/hw_clear/counter");
        }
        if f.write_strobe && !f.access.sw_writes() {
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    format!(
                        "field `{}` is `{}` and has `write_strobe`: software never writes it",
                        f.name,
                        f.access.as_str()
                    ),
                    "strobe of an unwritable field",
                )
                .help("a write strobe belongs on a field software writes (rw, wo, w1c, w1s, w0c)");
        } else if f.write_strobe && f.access == Access::Wp {
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    format!("field `{}` is a `wp` pulse and has `write_strobe`", f.name),
                    "strobe of a pulse",
                )
                .help("remove `write_strobe`: a 1-bit `wp` output is its own strobe, and a wider `wp` already has `_stb_o`");
        }
        if f.read_strobe && (!f.access.sw_reads() || f.constant) {
            let message = if f.constant {
                format!(
                    "field `{}` is a constant and has `read_strobe`: no hardware is behind it",
                    f.name
                )
            } else {
                format!(
                    "field `{}` is `{}` and has `read_strobe`: software never reads it",
                    f.name,
                    f.access.as_str()
                )
            };
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    message,
                    "strobe of an unread field",
                )
                .help(if f.constant {
                    "remove `read_strobe`: a constant has no hardware behind it to tell of a read"
                } else {
                    "a read strobe belongs on a field software reads (ro, rw, rc, rs, w1c, w1s, w0c)"
                });
        }
        if !f.hw_read {
            // Where `_o` is the point (a pulse), or there is none (an input, a constant), or
            // nothing would read the flop (a `wo` field reads as 0).
            let why = if f.access == Access::Wp {
                Some("a `wp` field's output is its pulse")
            } else if f.constant {
                Some("a constant has no output")
            } else if !f.is_stored() {
                Some("a hardware-driven `ro` field has an input, not an output")
            } else if f.access == Access::Wo {
                Some("software cannot read a `wo` field, so nothing would ever read what it stores")
            } else {
                None
            };
            if let Some(why) = why {
                self.sink
                    .error(
                        "regmap::hw_property_not_allowed",
                        f.name.span,
                        format!("field `{}` has `hw_read: false`: {why}", f.name),
                        "`hw_read: false` here",
                    )
                    .help("`hw_read: false` drops the `_o` output of a field software reads (rw, w1c, w1s, w0c, rc, rs, or ro with a hardware property)");
            }
        }
        if f.constant && f.access != Access::Ro {
            self.sink
                .error(
                    "regmap::constant_not_read_only",
                    f.name.span,
                    format!(
                        "field `{}` is `{}` and `constant`: software could write a value that never changes",
                        f.name,
                        f.access.as_str()
                    ),
                    "writable constant",
                )
                .help("a constant is `access: ro`");
        }
        if f.constant && f.hw.any() {
            self.sink
                .error(
                    "regmap::constant_not_read_only",
                    f.name.span,
                    format!("field `{}` is `constant` and has a hardware property that changes it", f.name),
                    "hardware changes a constant",
                )
                .help("remove `constant` (the hardware property gives the field a flop; `reset` is its value after reset) or remove the hardware property");
        }
        if f.reset != 0 && f.access == Access::Wp {
            // The pulse flop would hold the reset on `_o` through reset and one cycle after:
            // a pulse nobody wrote.
            self.sink
                .error(
                    "regmap::reset_without_storage",
                    f.name.span,
                    format!(
                        "field `{}` is a `wp` pulse; a reset of {:#x} would drive it on the output through reset, not for one written cycle",
                        f.name, f.reset
                    ),
                    "`reset` on a write pulse",
                )
                .help("remove `reset`: a `wp` field is 0 except in the cycle after a write");
        }
        if f.hw.any() && matches!(f.access, Access::Wo | Access::Wp) {
            let prop = if f.hw.write {
                "hw_write"
            } else if f.hw.set {
                "hw_set"
            } else if f.hw.clear {
                "hw_clear"
            } else {
                "counter"
            };
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    format!(
                        "field `{}` is `{}`, which cannot take `{prop}`",
                        f.name,
                        f.access.as_str()
                    ),
                    format!("{} field", f.access.as_str()),
                )
                .help("software cannot read a wo/wp field, so hardware changes to it are invisible; use rw, ro, w1c, rc or another readable access type");
        }
        if f.hw.write && f.hw.counter.is_some() {
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    format!("field `{}` is both hardware-written and a counter", f.name),
                    "hw_write with counter",
                )
                .help("a counter owns its value; drop hw_write or make it two fields");
        }
        // A read that sets every bit leaves a counter at its maximum: a saturating one stays
        // there (only hw_clear brings it down), a wrapping one goes on from all ones. No count
        // survives a read, so the pair is a slip (for `rc`, a read restarts the count).
        if f.access == Access::Rs && f.hw.counter.is_some() {
            let then = match &f.hw.counter {
                Some(c) if c.saturate => "it would then stay at its maximum",
                _ => "it would then wrap and go on from there",
            };
            self.sink
                .error(
                    "regmap::hw_property_not_allowed",
                    f.name.span,
                    format!(
                        "counter `{}` is `rs`: every read would set all its bits, and {then}",
                        f.name
                    ),
                    "`rs` with counter",
                )
                .help("a counter that a read restarts is `rc`; for a read-to-set flag beside a count, make them two fields");
        }
        if let Some(c) = &f.hw.counter {
            if c.step_width == 0 || c.step_width > f.width() {
                self.sink
                    .error(
                        "regmap::hw_property_not_allowed",
                        f.name.span,
                        format!(
                            "counter `{}` has step_width {}; it must be 1..={}",
                            f.name,
                            c.step_width,
                            f.width()
                        ),
                        "bad step_width",
                    )
                    .help("the increment input cannot be wider than the counter");
            }
        }
        if let Some(en) = &f.enumeration {
            self.enum_ref(map, en, f.width(), f.name.span);
        }
    }

    /// Checks that `en` names an enum whose values fit `width` bits.
    fn enum_ref(&mut self, map: &RegMap, en: &Name, width: u32, field_span: Span) {
        match map.enumeration(en) {
            None => {
                let known: Vec<&str> = map.enums.iter().map(|e| e.name.text.as_str()).collect();
                let help = match crate::names::closest(en, &known) {
                    Some(c) => format!("did you mean `{c}`?"),
                    None if known.is_empty() => "declare it under `enums:`".into(),
                    None => format!("declared enums: {}", known.join(", ")),
                };
                self.sink
                    .error(
                        "regmap::unknown_enum",
                        en.span,
                        format!("unknown enum `{en}`"),
                        "not declared",
                    )
                    .help(help);
            }
            Some(e) => {
                for v in &e.values {
                    if !fits(v.value, width) {
                        self.sink
                            .error(
                                "regmap::enum_value_too_wide",
                                v.value_span,
                                format!(
                                    "enum value {} = {} does not fit the {}-bit field that uses enum `{}`",
                                    v.name, v.value, width, e.name
                                ),
                                format!("needs {} bits", bits_of(v.value)),
                            )
                            .related(field_span, format!("{width}-bit field"))
                            .help(format!("widen the field to {} bits or renumber the value", bits_of(v.value)));
                    }
                }
            }
        }
    }

    /// Reports overlapping byte ranges among `(offset, size, span, name)`.
    fn overlaps<'a>(
        &mut self,
        ranges: impl IntoIterator<Item = (u64, u64, Span, &'a Name)>,
        scope: &str,
    ) {
        let mut v: Vec<(u64, u64, Span, &Name)> = ranges.into_iter().collect();
        // Report against the earlier-written item, whatever the address order.
        let order: FastMap<Span, usize> = v.iter().enumerate().map(|(i, r)| (r.2, i)).collect();
        // Each key looked up once, not at every comparison of the sort.
        v.sort_by_cached_key(|r| (r.0, order[&r.2]));
        let mut open: Option<(u64, u64, Span, &Name)> = None;
        for r in v {
            if let Some(o) = open {
                if u128::from(r.0) < end_of(o.0, o.1) {
                    let (first, second) = if order[&o.2] <= order[&r.2] {
                        (o, r)
                    } else {
                        (r, o)
                    };
                    self.sink
                        .error(
                            "regmap::register_overlap",
                            second.2,
                            format!(
                                "`{}` at {:#x}..{:#x} overlaps `{}` at {:#x}..{:#x} {scope}",
                                second.3,
                                second.0,
                                end_of(second.0, second.1),
                                first.3,
                                first.0,
                                end_of(first.0, first.1)
                            ),
                            "overlapping addresses",
                        )
                        .related(first.2, format!("`{}` is here", first.3))
                        .help("move one of them to a free offset");
                    if end_of(r.0, r.1) <= end_of(o.0, o.1) {
                        continue;
                    }
                }
            }
            open = Some(r);
        }
    }

    fn layout(&mut self, map: &RegMap) {
        let ranges = map.items.iter().map(|i| match i {
            Item::Register(r) => (r.offset, r.bytes(), r.offset_span, &r.name),
            Item::Group(g) => (g.offset, g.window.max(1), g.offset_span, &g.name),
        });
        self.overlaps(ranges, "in the CSR address map");
    }

    fn interrupts(&mut self, map: &RegMap) {
        // Status and enable registers pair up within one scope: the top level or one group.
        let mut scopes: Vec<Vec<&Register>> = vec![map.top_registers().collect()];
        scopes.extend(map.items.iter().filter_map(|i| match i {
            Item::Group(g) => Some(g.registers.iter().collect()),
            Item::Register(_) => None,
        }));
        for regs in &scopes {
            // By name, so pairing stays linear in maps with thousands of interrupt registers.
            let mut by_name: FastMap<&str, &Register> =
                FastMap::with_capacity_and_hasher(regs.len(), Default::default());
            for r in regs {
                // The first of a duplicated name, as a scan would find (duplicates are errors).
                by_name.entry(r.name.text.as_str()).or_insert(*r);
            }
            for r in regs {
                let Some(en) = &r.interrupt_enable else {
                    continue;
                };
                if en.text == r.name.text {
                    // A copy-paste slip (`enable: int_status`): irq_o would follow the status
                    // bits with nothing to mask them.
                    self.sink
                        .error(
                            "regmap::interrupt_mismatch",
                            en.span,
                            format!("interrupt status register `{}` names itself as its enable", r.name),
                            "its own name",
                        )
                        .help("name the enable register, a separate register with the same fields (`access: rw`)");
                    continue;
                }
                let Some(&enable) = by_name.get(en.text.as_str()) else {
                    // Not the status register itself: it cannot be its own enable.
                    let names: Vec<&str> = regs
                        .iter()
                        .map(|e| e.name.text.as_str())
                        .filter(|n| *n != r.name.text)
                        .collect();
                    let help = match crate::names::closest(en, &names) {
                        Some(c) => format!(
                            "did you mean `{c}`? The enable register must be in the same group"
                        ),
                        None => "declare an enable register with the same fields in the same scope"
                            .into(),
                    };
                    self.sink
                        .error(
                            "regmap::interrupt_mismatch",
                            en.span,
                            format!(
                                "interrupt enable register `{en}` of `{}` does not exist here",
                                r.name
                            ),
                            "no such register",
                        )
                        .help(help);
                    continue;
                };
                for f in &r.fields {
                    match enable.fields.iter().find(|e| e.name.text == f.name.text) {
                        None => {
                            self.sink
                                .error(
                                    "regmap::interrupt_mismatch",
                                    f.name.span,
                                    format!(
                                        "interrupt status field `{}` has no enable field of that name in `{}`",
                                        f.name, enable.name
                                    ),
                                    "no matching enable",
                                )
                                .related(enable.name.span, "enable register")
                                .help(format!("add `{{ name: {}, bits: ... , access: rw }}` to `{}`", f.name, enable.name));
                        }
                        Some(e) if e.width() != f.width() => {
                            self.sink
                                .error(
                                    "regmap::interrupt_mismatch",
                                    f.bits_span,
                                    format!(
                                        "interrupt status field `{}` is {} bits but its enable is {}",
                                        f.name,
                                        f.width(),
                                        e.width()
                                    ),
                                    "width differs",
                                )
                                .related(e.bits_span, "enable field")
                                .help("give the status and enable fields the same width");
                        }
                        Some(e) if e.lsb != f.lsb => {
                            // The format promises one mask for both registers.
                            let at = |x: &Field| {
                                if x.msb == x.lsb {
                                    format!("bit {}", x.lsb)
                                } else {
                                    format!("bits {}:{}", x.msb, x.lsb)
                                }
                            };
                            self.sink
                                .error(
                                    "regmap::interrupt_mismatch",
                                    f.bits_span,
                                    format!(
                                        "interrupt status field `{}` is at {} but its enable at {}",
                                        f.name,
                                        at(f),
                                        at(e)
                                    ),
                                    "bits differ",
                                )
                                .related(e.bits_span, "enable field")
                                .help("put the enable field at the status field's bits, so one mask serves both registers");
                        }
                        Some(e) if !e.access.sw_reads() => {
                            // The block ANDs the status with the enable as software reads it.
                            self.sink
                                .error(
                                    "regmap::interrupt_mismatch",
                                    e.name.span,
                                    format!(
                                        "interrupt enable field `{}` of `{}` is `{}`, which reads as 0: the interrupt could never fire",
                                        e.name,
                                        enable.name,
                                        e.access.as_str()
                                    ),
                                    "unreadable enable",
                                )
                                .related(f.name.span, "status field")
                                .help("make the enable field `rw`, so software can also read back what it enabled");
                        }
                        Some(_) => {}
                    }
                    if f.constant {
                        self.sink
                            .error(
                                "regmap::interrupt_mismatch",
                                f.name.span,
                                format!(
                                    "interrupt status field `{}` is a constant: its interrupt would be on whenever enabled, or never",
                                    f.name
                                ),
                                "constant status",
                            )
                            .help("status bits are usually `w1c` with `hw_set: true`");
                    }
                    if !f.access.sw_reads() {
                        self.sink
                            .error(
                                "regmap::interrupt_mismatch",
                                f.name.span,
                                format!("interrupt status field `{}` is not readable", f.name),
                                "unreadable status",
                            )
                            .help("status bits are usually `w1c` with `hw_set: true`");
                    }
                }
            }
        }
    }

    fn address_width(&mut self, map: &mut RegMap) {
        let end = map
            .items
            .iter()
            .map(|i| match i {
                Item::Register(r) => end_of(r.offset, r.bytes()),
                Item::Group(g) => end_of(g.offset, g.window),
            })
            .max()
            .unwrap_or(0);
        let needed = (128 - end.saturating_sub(1).leading_zeros()).max(MIN_ADDRESS_WIDTH);
        if needed > MAX_ADDRESS_WIDTH {
            self.sink
                .error(
                    "regmap::address_width",
                    map.block.span,
                    format!("the map spans {end:#x} bytes, more than a 32-bit AXI4-Lite address reaches"),
                    "map too large",
                )
                .help("shrink the offsets or array windows");
            return;
        }
        match map.address_width_declared {
            None => map.address_width = needed,
            Some((w, span))
                if !(u64::from(MIN_ADDRESS_WIDTH)..=u64::from(MAX_ADDRESS_WIDTH)).contains(&w) =>
            {
                self.sink
                    .error(
                        "regmap::address_width",
                        span,
                        format!(
                            "address_width {w} is outside {MIN_ADDRESS_WIDTH}..={MAX_ADDRESS_WIDTH}, the AXI4-Lite address widths the CSR block takes"
                        ),
                        "out of range",
                    )
                    .help(format!("this map needs {needed} bits: set `address_width: {needed}` or remove it to use the smallest width"));
            }
            Some((w, span)) if w < u64::from(needed) => {
                self.sink
                    .error(
                        "regmap::address_width",
                        span,
                        format!(
                            "address_width {w} cannot address the map, which needs {needed} bits (ends at {end:#x})"
                        ),
                        "too narrow",
                    )
                    .help(format!("set `address_width: {needed}` or remove it to use the smallest width"));
            }
            Some((w, _)) => map.address_width = w as u32,
        }
    }

    fn ports(&mut self, map: &RegMap) {
        const FIXED: &[&str] = &["clk", "rst", "rst_n", "irq_o"];
        let fields: usize = map.registers().map(|(_, r)| r.fields.len()).sum();
        let mut seen: FastMap<String, Span> =
            FastMap::with_capacity_and_hasher(2 * fields, Default::default());
        for (g, r) in map.registers() {
            for f in &r.fields {
                for (port, _, _) in field_ports(g, r, f) {
                    if FIXED.contains(&port.as_str()) || port.starts_with("s_axil_") {
                        self.sink
                            .error(
                                "regmap::port_collision",
                                f.name.span,
                                format!("field `{}` would get port `{port}`, a fixed port of the CSR block", f.name),
                                "reserved port name",
                            )
                            .help("rename the register or field");
                        continue;
                    }
                    // One lookup per port: a big map has tens of thousands.
                    let (port, first) = match seen.entry(port) {
                        Entry::Occupied(e) => (e.key().clone(), *e.get()),
                        Entry::Vacant(e) => {
                            e.insert(f.name.span);
                            continue;
                        }
                    };
                    self.sink
                        .error(
                            "regmap::port_collision",
                            f.name.span,
                            format!("field `{}` would get port `{port}`, which another field already has", f.name),
                            "same port name",
                        )
                        .related(first, "that field")
                        .help("rename one field or register so `<register>_<field>` differs");
                }
            }
        }
    }

    /// Names the CSR block's RTL derives from the map that would be declared twice: a field's
    /// storage `<register>_<field>_q` (`<group>_<register>_<field>_q` in a group) that is also
    /// one of the block's own flops (`rd_hi_q`, a register's read select `<register>_rsel_q`,
    /// a group's `<group>_rd_elem_q`, …), or a register `<r>_hi` beside a 64-bit register `<r>`
    /// (both give the localparam `ADDR_<R>_HI`). Either makes RTL no Verilog tool accepts
    /// (a duplicate declaration, or in a group one hiding the block's own).
    fn rtl_names(&mut self, map: &RegMap) {
        let block = BlockState::of(map);
        // Readable registers by their path (`r`, `g_r`): their read select is `<path>_rsel_q`.
        let mut rsel: FastMap<String, Span> = FastMap::default();
        // Groups that declare `<group>_rd_elem_q` (more than one element) and
        // `<group>_rd_word_q` and `<group>_rd_grp_q` (reads with a fetch stage).
        let mut elem_groups: FastMap<&str, Span> = FastMap::default();
        let mut word_groups: FastMap<&str, Span> = FastMap::default();
        for item in &map.items {
            match item {
                Item::Register(r) => {
                    if r.is_readable() {
                        rsel.insert(r.name.text.clone(), r.name.span);
                    }
                }
                Item::Group(g) => {
                    if g.window > g.stride && g.registers.iter().any(|r| r.is_readable()) {
                        elem_groups.insert(g.name.text.as_str(), g.name.span);
                    }
                    if g.fetches_reads() {
                        word_groups.insert(g.name.text.as_str(), g.name.span);
                    }
                    for r in g.registers.iter().filter(|r| r.is_readable()) {
                        rsel.insert(format!("{}_{}", g.name, r.name), r.name.span);
                    }
                }
            }
        }
        // A register's own read select can be one of the block's flops (`rd_hi` gives
        // `rd_hi_rsel_q`).
        for (g, r) in map.registers().filter(|(_, r)| r.is_readable()) {
            let first = g.map_or(&r.name.text, |g| &g.name.text);
            if !(first.starts_with("rd_") || first.starts_with("wr_")) {
                continue;
            }
            let path = match g {
                Some(g) => format!("{}_{}", g.name, r.name),
                None => r.name.text.clone(),
            };
            if let Some(why) = block.uses(&format!("{path}_rsel")) {
                self.sink
                    .error(
                        "regmap::rtl_name_clash",
                        r.name.span,
                        format!(
                            "register `{path}` would get the read select `{path}_rsel_q`, a flop the CSR block already declares ({why})"
                        ),
                        "same RTL name",
                    )
                    .help("rename the register");
            }
        }
        for (g, r) in map.registers() {
            for f in r.fields.iter().filter(|f| f.is_stored()) {
                // Most fields end in none of these and start with neither `rd_` nor `wr_`:
                // no allocation for them.
                let first = g.map_or(&r.name.text, |g| &g.name.text);
                let fixed_start = first.starts_with("rd_")
                    || first.starts_with("wr_")
                    || first == "rd"
                    || first == "wr";
                let ends = |s: &str| f.name.text.ends_with(s);
                if !(fixed_start || ends("rsel") || ends("elem") || ends("word")) {
                    continue;
                }
                let stem = field_port_prefix(g, r, f);
                let clash: Option<(String, Option<(Span, &str)>)> = if let Some(why) =
                    block.uses(&stem)
                {
                    Some((why.to_string(), None))
                } else if let Some(span) = stem.strip_suffix("_rsel").and_then(|p| rsel.get(p)) {
                    Some((
                        "the read select of that register".to_string(),
                        Some((*span, "this register's read select")),
                    ))
                } else if let Some((span, what)) = stem
                    .strip_suffix("_rd_elem")
                    .and_then(|p| elem_groups.get(p).map(|s| (*s, "element index")))
                    .or_else(|| {
                        stem.strip_suffix("_rd_word")
                            .or_else(|| stem.strip_suffix("_rd_grp"))
                            .and_then(|p| word_groups.get(p).map(|s| (*s, "fetched word")))
                    })
                {
                    Some((
                        format!("the read {what} of that group"),
                        Some((span, "this group's read state")),
                    ))
                } else {
                    None
                };
                if let Some((why, related)) = clash {
                    let d = self.sink.error(
                        "regmap::rtl_name_clash",
                        f.name.span,
                        format!(
                            "field `{}` would be stored in `{stem}_q`, a flop the CSR block already declares ({why})",
                            f.name
                        ),
                        "same RTL name",
                    );
                    let d = match related {
                        Some((span, label)) => d.related(span, label),
                        None => d,
                    };
                    d.help("rename the field or its register");
                }
            }
        }
        // `ADDR_<R>_HI` (`OFF_<G>_<R>_HI` in a group) names a 64-bit register's high half.
        let scopes =
            std::iter::once(("ADDR_".to_string(), map.top_registers().collect::<Vec<_>>())).chain(
                map.items.iter().filter_map(|i| match i {
                    Item::Group(g) => Some((
                        format!("OFF_{}_", g.name.text.to_uppercase()),
                        g.registers.iter().collect(),
                    )),
                    Item::Register(_) => None,
                }),
            );
        for (prefix, regs) in scopes {
            let wide: FastMap<&str, Span> = regs
                .iter()
                .filter(|r| r.width == 64)
                .map(|r| (r.name.text.as_str(), r.name.span))
                .collect();
            if wide.is_empty() {
                continue;
            }
            for r in &regs {
                if let Some(span) = r.name.text.strip_suffix("_hi").and_then(|p| wide.get(p)) {
                    let upper = format!("{prefix}{}", r.name.text.to_uppercase());
                    self.sink
                        .error(
                            "regmap::rtl_name_clash",
                            r.name.span,
                            format!(
                                "register `{}` would get the address localparam `{upper}` that names the high half of 64-bit register `{}`",
                                r.name,
                                &r.name.text[..r.name.text.len() - 3]
                            ),
                            "same RTL name",
                        )
                        .related(*span, "the 64-bit register")
                        .help("rename one of the two registers");
                }
            }
        }
    }

    /// Two elements whose C header macros would be the same name (`a.b` beside `a_b`, an enum
    /// value beside a register's macro, …): the header would redefine a macro. Pairs already
    /// reported as a duplicate name or as two fields of one port name are left to those checks.
    fn c_names(&mut self, map: &RegMap) {
        use crate::cnames::Owner;
        for c in crate::cnames::clashes(map) {
            if let (Owner::Field(g1, r1, f1), Owner::Field(g2, r2, f2)) = (c.first, c.second) {
                let ports = field_ports(g1, r1, f1);
                if field_ports(g2, r2, f2)
                    .iter()
                    .any(|p| ports.iter().any(|q| q.0 == p.0))
                {
                    continue;
                }
            }
            let (first, second) = (c.first.describe(map), c.second.describe(map));
            let first_span = c.first.span(map);
            let (line, col) = self.sink.src.line_col(first_span.start);
            let more = match c.names.len() {
                1 => String::new(),
                n => format!(
                    " (and {} more: {})",
                    n - 1,
                    c.names[1..]
                        .iter()
                        .map(|n| format!("`{n}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            };
            self.sink
                .error(
                    "regmap::c_name_clash",
                    c.second.span(map),
                    format!(
                        "{second} would define C macro `{}`{more}, which {first} at {}:{line}:{col} also defines",
                        c.names[0], self.sink.src.name
                    ),
                    "defines it again",
                )
                .related(first_span, "first defines it")
                .help(format!(
                    "rename {second} or {first}: the C header names each element by its block, \
                     group, register and field names upper-cased and joined with `_`, so these meet"
                ));
        }
    }

    fn memories(&mut self, map: &RegMap) {
        self.unique(
            map.memories.iter().map(|m| &m.name),
            "memory",
            &"in the map",
        );
        for m in &map.memories {
            if let Count::Param(_) = m.depth {
                self.resolve_count(map, &m.depth);
            } else if m.depth == Count::Fixed(0) {
                self.sink
                    .error(
                        "regmap::parameter_range",
                        m.name.span,
                        format!("memory `{}` has depth 0", m.name),
                        "empty memory",
                    )
                    .help("a memory needs at least one word");
            }
            self.mem_fields(map, &m.fields, m.width, &format!("memory `{}`", m.name));
        }
    }

    fn mem_fields(&mut self, map: &RegMap, fields: &[MemField], width: u32, owner: &str) {
        self.unique(
            fields.iter().map(|f| &f.name),
            "field",
            &format!("in {owner}"),
        );
        for (i, f) in fields.iter().enumerate() {
            if f.msb >= width {
                self.sink
                    .error(
                        "regmap::field_past_width",
                        f.name.span,
                        format!(
                            "field `{}` [{}:{}] does not fit the {width}-bit word of {owner}",
                            f.name, f.msb, f.lsb
                        ),
                        format!("bit {} is past bit {}", f.msb, width - 1),
                    )
                    .help("widen the word or move the field");
                continue;
            }
            if let Some(prev) = fields[..i]
                .iter()
                .find(|p| p.msb < width && p.lsb <= f.msb && f.lsb <= p.msb)
            {
                self.sink
                    .error(
                        "regmap::field_overlap",
                        f.name.span,
                        format!(
                            "field `{}` [{}:{}] overlaps field `{}` [{}:{}] in {owner}",
                            f.name, f.msb, f.lsb, prev.name, prev.msb, prev.lsb
                        ),
                        "overlapping bits",
                    )
                    .related(prev.name.span, format!("`{}`", prev.name))
                    .help("move one of the fields to free bits");
            }
            if let Some(en) = &f.enumeration {
                self.enum_ref(map, en, f.width(), f.name.span);
            }
        }
    }

    fn spaces(&mut self, map: &RegMap) {
        self.unique(map.spaces.iter().map(|s| &s.name), "space", &"in the map");
        for s in &map.spaces {
            if !s.size.is_power_of_two() {
                self.sink
                    .error(
                        "regmap::bad_window",
                        s.name.span,
                        format!(
                            "space `{}` has size {:#x}, not a power of two",
                            s.name, s.size
                        ),
                        "size",
                    )
                    .help(format!("use {:#x}", next_pow2(s.size)));
            }
            let scope = format!("in space `{}`", s.name);
            self.unique(s.windows.iter().map(|w| &w.name), "window", &scope);
            for w in &s.windows {
                if w.size == 0 || end_of(w.offset, w.size) > u128::from(s.size) {
                    self.sink
                        .error(
                            "regmap::window_outside",
                            w.name.span,
                            format!(
                                "window `{}` at {:#x}..{:#x} does not lie inside the {:#x}-byte space `{}`",
                                w.name,
                                w.offset,
                                end_of(w.offset, w.size),
                                s.size,
                                s.name
                            ),
                            "outside the space",
                        )
                        .help("move or shrink the window, or grow the space");
                }
                let bits = (w.size.min(8) * 8) as u32;
                self.mem_fields(map, &w.fields, bits.max(1), &format!("window `{}`", w.name));
            }
            let mut v: Vec<&Window> = s.windows.iter().collect();
            v.sort_by_key(|w| w.offset);
            for pair in v.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                if u128::from(b.offset) < end_of(a.offset, a.size) {
                    self.sink
                        .error(
                            "regmap::window_overlap",
                            b.name.span,
                            format!(
                                "window `{}` at {:#x} overlaps window `{}` at {:#x}..{:#x}",
                                b.name,
                                b.offset,
                                a.name,
                                a.offset,
                                end_of(a.offset, a.size)
                            ),
                            "overlapping window",
                        )
                        .related(a.name.span, format!("`{}`", a.name))
                        .help("move one of the windows to free space");
                }
            }
        }
    }
}

/// Suggests free bit positions for a field of `width` bits in `r`.
fn free_bits_hint(r: &Register, width: u32) -> String {
    let used: u64 = r
        .fields
        .iter()
        .filter(|f| f.msb < r.width)
        .fold(0, |m, f| m | f.mask());
    for lsb in 0..=(r.width - width.min(r.width)) {
        let mask = if width >= 64 {
            u64::MAX
        } else {
            ((1u64 << width) - 1) << lsb
        };
        if used & mask == 0 {
            return if width == 1 {
                format!("bit {lsb} is free")
            } else {
                format!("bits \"{}:{}\" are free", lsb + width - 1, lsb)
            };
        }
    }
    "the register has no room left; move the field to another register".into()
}

/// Which of its optional flops the CSR block of a map declares (as gen/csr decides them).
#[derive(Clone, Copy)]
struct BlockState {
    /// Any 64-bit register: the shadows and the high-half read select.
    has64: bool,
    /// Reads of registers outside groups take a fetch stage ([`RegMap::fetches_top_reads`]).
    top_fetch: bool,
    /// A group's reads take two fetch cycles ([`Group::fetches_reads`]).
    group_fetch: bool,
    /// Some read takes a fetch stage (either of the above).
    fetch: bool,
}

impl BlockState {
    fn of(map: &RegMap) -> BlockState {
        let top_fetch = map.fetches_top_reads();
        let group_fetch = map
            .items
            .iter()
            .any(|i| matches!(i, Item::Group(g) if g.fetches_reads()));
        BlockState {
            has64: map.registers().any(|(_, r)| r.width == 64),
            top_fetch,
            group_fetch,
            fetch: top_fetch || group_fetch,
        }
    }

    /// What the block uses a flop `<stem>_q` of its own for, when `stem` is one of its fixed
    /// state names (gen/csr declares these besides the ones it derives from the map).
    fn uses(self, stem: &str) -> Option<&'static str> {
        let why = match stem {
            "wr_rdy" => "AWREADY and WREADY",
            "rd_rdy" => "ARREADY",
            "rd_pend" => "a decoded read waiting for R",
            "rd_slverr" => "the decoded read's SLVERR flag",
            "rd_fetch" if self.fetch => "the read fetch stage",
            "rd_fetch2" if self.group_fetch => "an array read's second fetch cycle",
            "rd_top_ok" if self.top_fetch => "the fetched read's hit flag",
            "wr_lo" if self.has64 => "the 64-bit write shadow",
            "wr_lo_strb" if self.has64 => "the 64-bit write shadow's strobes",
            "rd_hi" if self.has64 => "the 64-bit read shadow",
            "rd_latch" if self.has64 => "the 64-bit read latch flag",
            "rd_hi_rsel" if self.has64 => "the 64-bit high-half read select",
            _ if self.top_fetch => {
                let k = stem.strip_prefix("rd_top")?.strip_suffix("_word")?;
                if k.is_empty() || !k.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                "a fetched word of the registers outside groups"
            }
            _ => return None,
        };
        Some(why)
    }
}
