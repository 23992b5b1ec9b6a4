//! The software view: everything a driver or a generated header depends on. Items are paired by
//! name; what is left over on both sides at the same place (offset, bits, values) is a rename.

use rdmagen_regmap::{
    field_port_prefix, Count, Field, Group, Item, MemField, Name, RegMap, Register, Span,
};

use crate::{Change, Class};

/// A field present in both maps, by the port-name prefixes the CSR block derives from it, so the
/// hardware view can tell a renamed port from a removed one.
pub(crate) struct FieldPair {
    pub old_prefix: String,
    pub new_prefix: String,
    /// The field's name in the new map.
    pub span: Span,
}

pub(crate) struct SoftwareDiff {
    pub changes: Vec<Change>,
    pub field_pairs: Vec<FieldPair>,
}

pub(crate) fn compare(old: &RegMap, new: &RegMap) -> SoftwareDiff {
    let mut d = Differ {
        new,
        changes: Vec::new(),
        field_pairs: Vec::new(),
        enum_renames: Vec::new(),
    };
    d.block(old, new);
    d.enums(old, new);
    d.parameters(old, new);
    d.items(old, new);
    d.memories(old, new);
    d.spaces(old, new);
    SoftwareDiff {
        changes: d.changes,
        field_pairs: d.field_pairs,
    }
}

/// Two lists paired up: by name first, then leftovers with the same position as renames.
struct Matching<'a, T> {
    /// (old, new) in the new list's order; a pair with different names is a rename.
    pairs: Vec<(&'a T, &'a T)>,
    removed: Vec<&'a T>,
    added: Vec<&'a T>,
}

fn match_items<'a, T, K: PartialEq>(
    old: &[&'a T],
    new: &[&'a T],
    name: impl Fn(&T) -> &str,
    position: impl Fn(&T) -> K,
) -> Matching<'a, T> {
    let mut old_used = vec![false; old.len()];
    let mut partner: Vec<Option<usize>> = vec![None; new.len()];
    for (ni, n) in new.iter().enumerate() {
        if let Some(oi) = old.iter().position(|o| name(o) == name(n)) {
            old_used[oi] = true;
            partner[ni] = Some(oi);
        }
    }
    for (ni, n) in new.iter().enumerate() {
        if partner[ni].is_some() {
            continue;
        }
        // An unused old item has no namesake in the new list, so it cannot be claimed twice.
        let renamed = (0..old.len()).find(|&oi| !old_used[oi] && position(old[oi]) == position(n));
        if let Some(oi) = renamed {
            old_used[oi] = true;
            partner[ni] = Some(oi);
        }
    }
    Matching {
        pairs: partner
            .iter()
            .enumerate()
            .filter_map(|(ni, p)| p.map(|oi| (old[oi], new[ni])))
            .collect(),
        removed: old
            .iter()
            .zip(&old_used)
            .filter(|(_, used)| !**used)
            .map(|(o, _)| *o)
            .collect(),
        added: partner
            .iter()
            .zip(new)
            .filter(|(p, _)| p.is_none())
            .map(|(_, n)| *n)
            .collect(),
    }
}

fn bits(msb: u32, lsb: u32) -> String {
    if msb == lsb {
        format!("[{lsb}]")
    } else {
        format!("[{msb}:{lsb}]")
    }
}

/// Do bit ranges `[msb:lsb]` overlap? Ranges, not masks: memory words are up to 4096 bits wide.
fn overlaps((msb_a, lsb_a): (u32, u32), (msb_b, lsb_b): (u32, u32)) -> bool {
    lsb_a <= msb_b && lsb_b <= msb_a
}

fn hex(v: u64) -> String {
    format!("{v:#x}")
}

/// Counts compare by what they say, not where the map said it.
fn same_count(a: &Count, b: &Count) -> bool {
    count_text(a) == count_text(b)
}

fn count_text(c: &Count) -> String {
    match c {
        Count::Fixed(n) => n.to_string(),
        Count::Param(p) => p.to_string(),
    }
}

/// A bit range with a name: a register field, a memory field or a window field.
trait BitField {
    fn name(&self) -> &Name;
    fn msb(&self) -> u32;
    fn lsb(&self) -> u32;
    fn enumeration(&self) -> Option<&Name>;
    fn description(&self) -> &str;
    /// Where the new map wrote the bits.
    fn bits_span(&self) -> Span;
}

impl BitField for Field {
    fn name(&self) -> &Name {
        &self.name
    }
    fn msb(&self) -> u32 {
        self.msb
    }
    fn lsb(&self) -> u32 {
        self.lsb
    }
    fn enumeration(&self) -> Option<&Name> {
        self.enumeration.as_ref()
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn bits_span(&self) -> Span {
        self.bits_span
    }
}

impl BitField for MemField {
    fn name(&self) -> &Name {
        &self.name
    }
    fn msb(&self) -> u32 {
        self.msb
    }
    fn lsb(&self) -> u32 {
        self.lsb
    }
    fn enumeration(&self) -> Option<&Name> {
        self.enumeration.as_ref()
    }
    fn description(&self) -> &str {
        &self.description
    }
    // Memory and window fields keep no bits span; their name is the closest place.
    fn bits_span(&self) -> Span {
        self.name.span
    }
}

/// Byte ranges `[start, end)` the old map decodes at the top level (registers and group
/// windows), or inside one group element.
fn top_registers(map: &RegMap) -> Vec<&Register> {
    map.top_registers().collect()
}

fn groups(map: &RegMap) -> Vec<&Group> {
    map.items
        .iter()
        .filter_map(|i| match i {
            Item::Group(g) => Some(g),
            Item::Register(_) => None,
        })
        .collect()
}

fn top_ranges(map: &RegMap) -> Vec<(u64, u64)> {
    map.items
        .iter()
        .map(|i| match i {
            Item::Register(r) => (r.offset, r.offset + r.bytes()),
            Item::Group(g) => (g.offset, g.offset + g.window),
        })
        .collect()
}

fn element_ranges(g: &Group) -> Vec<(u64, u64)> {
    g.registers
        .iter()
        .map(|r| (r.offset, r.offset + r.bytes()))
        .collect()
}

fn is_free(used: &[(u64, u64)], start: u64, end: u64) -> bool {
    used.iter().all(|&(s, e)| end <= s || e <= start)
}

struct Differ<'a> {
    new: &'a RegMap,
    changes: Vec<Change>,
    field_pairs: Vec<FieldPair>,
    /// Enums renamed (old name, new name), so a field that follows the rename has not changed.
    enum_renames: Vec<(String, String)>,
}

impl Differ<'_> {
    /// Records a change; `old` and `new` are the values before and after, where there are.
    fn push(
        &mut self,
        class: Class,
        kind: &'static str,
        path: impl Into<String>,
        message: impl Into<String>,
        (old, new): (Option<String>, Option<String>),
        span: Span,
    ) {
        self.changes.push(Change {
            class,
            kind,
            path: path.into(),
            message: message.into(),
            old,
            new,
            span,
        });
    }

    /// A changed value with its old and new text.
    fn changed(
        &mut self,
        class: Class,
        kind: &'static str,
        path: &str,
        message: &str,
        (old, new): (String, String),
        span: Span,
    ) {
        self.push(class, kind, path, message, (Some(old), Some(new)), span);
    }

    fn description(&mut self, path: &str, old: &str, new: &str, span: Span) {
        if old != new {
            self.push(
                Class::Compatible,
                "description",
                path,
                "description changed",
                (None, None),
                span,
            );
        }
    }

    /// Named things of the map's top level (enums, memories, spaces) that only one side has:
    /// removing one breaks software, adding one does not. `codes`: the removed and added
    /// change kinds.
    fn only_one_side<'n>(
        &mut self,
        codes: [&'static str; 2],
        noun: &str,
        removed: impl Iterator<Item = &'n Name>,
        added: impl Iterator<Item = &'n Name>,
    ) {
        let span = self.block_span();
        for name in removed {
            self.push(
                Class::BreakingSoftware,
                codes[0],
                format!("{noun} {name}"),
                format!("{noun} removed"),
                (None, None),
                span,
            );
        }
        for name in added {
            self.push(
                Class::Compatible,
                codes[1],
                format!("{noun} {name}"),
                format!("{noun} added"),
                (None, None),
                name.span,
            );
        }
    }

    fn block_span(&self) -> Span {
        self.new.block.span
    }

    fn block(&mut self, old: &RegMap, new: &RegMap) {
        if old.block.text != new.block.text {
            self.changed(
                Class::BreakingSoftware,
                "block-renamed",
                "block",
                "block renamed (every generated name changes)",
                (old.block.to_string(), new.block.to_string()),
                new.block.span,
            );
        }
        self.description("block", &old.description, &new.description, new.block.span);
    }

    fn enums(&mut self, old: &RegMap, new: &RegMap) {
        let o: Vec<_> = old.enums.iter().collect();
        let n: Vec<_> = new.enums.iter().collect();
        let values = |e: &rdmagen_regmap::Enum| {
            let mut v: Vec<(String, u64)> = e
                .values
                .iter()
                .map(|v| (v.name.to_string(), v.value))
                .collect();
            v.sort();
            v
        };
        let m = match_items(&o, &n, |e| &e.name, values);
        for (oe, ne) in m.pairs {
            let path = format!("enum {}", ne.name);
            if oe.name.text != ne.name.text {
                self.enum_renames
                    .push((oe.name.to_string(), ne.name.to_string()));
                self.changed(
                    Class::BreakingSoftware,
                    "enum-renamed",
                    &path,
                    "enum renamed",
                    (oe.name.to_string(), ne.name.to_string()),
                    ne.name.span,
                );
            }
            self.description(&path, &oe.description, &ne.description, ne.name.span);
            let ov: Vec<_> = oe.values.iter().collect();
            let nv: Vec<_> = ne.values.iter().collect();
            let vm = match_items(&ov, &nv, |v| &v.name, |v| v.value);
            for (a, b) in vm.pairs {
                let vpath = format!("enum {}.{}", ne.name, b.name);
                if a.name.text != b.name.text {
                    self.changed(
                        Class::BreakingSoftware,
                        "enum-value-renamed",
                        &vpath,
                        "enum value renamed",
                        (a.name.to_string(), b.name.to_string()),
                        b.name.span,
                    );
                }
                if a.value != b.value {
                    self.changed(
                        Class::BreakingSoftware,
                        "enum-value-changed",
                        &vpath,
                        "enum value changed",
                        (a.value.to_string(), b.value.to_string()),
                        b.value_span,
                    );
                }
                self.description(&vpath, &a.description, &b.description, b.name.span);
            }
            for a in vm.removed {
                self.push(
                    Class::BreakingSoftware,
                    "enum-value-removed",
                    format!("enum {}.{}", ne.name, a.name),
                    "enum value removed",
                    (Some(a.value.to_string()), None),
                    ne.name.span,
                );
            }
            for b in vm.added {
                self.push(
                    Class::Compatible,
                    "enum-value-added",
                    format!("enum {}.{}", ne.name, b.name),
                    "enum value added",
                    (None, Some(b.value.to_string())),
                    b.name.span,
                );
            }
        }
        self.only_one_side(
            ["enum-removed", "enum-added"],
            "enum",
            m.removed.iter().map(|x| &x.name),
            m.added.iter().map(|x| &x.name),
        );
    }

    fn parameters(&mut self, old: &RegMap, new: &RegMap) {
        let o: Vec<_> = old.parameters.iter().collect();
        let n: Vec<_> = new.parameters.iter().collect();
        // Parameters are constants by name: a parameter under another name is a different one.
        let m = match_items(&o, &n, |p| &p.name, |p| p.name.text.clone());
        for (op, np) in m.pairs {
            let path = format!("parameter {}", np.name);
            if op.default != np.default {
                self.changed(
                    Class::BreakingSoftware,
                    "parameter-default",
                    &path,
                    "parameter default changed",
                    (op.default.to_string(), np.default.to_string()),
                    np.name.span,
                );
            }
            if (op.min, op.max) != (np.min, np.max) {
                let narrowed = np.min > op.min || np.max < op.max;
                self.changed(
                    if narrowed {
                        Class::BreakingSoftware
                    } else {
                        Class::Compatible
                    },
                    "parameter-range",
                    &path,
                    if narrowed {
                        "parameter range narrowed"
                    } else {
                        "parameter range widened"
                    },
                    (
                        format!("{}..{}", op.min, op.max),
                        format!("{}..{}", np.min, np.max),
                    ),
                    np.name.span,
                );
            }
            self.description(&path, &op.description, &np.description, np.name.span);
        }
        for op in m.removed {
            let span = self.block_span();
            self.push(
                Class::BreakingSoftware,
                "parameter-removed",
                format!("parameter {}", op.name),
                "parameter removed",
                (Some(op.default.to_string()), None),
                span,
            );
        }
        for np in m.added {
            self.push(
                Class::Compatible,
                "parameter-added",
                format!("parameter {}", np.name),
                "parameter added",
                (None, Some(np.default.to_string())),
                np.name.span,
            );
        }
    }

    /// Top-level registers and groups.
    fn items(&mut self, old: &RegMap, new: &RegMap) {
        let used = top_ranges(old);
        let block = new.block.span;
        self.registers(
            None,
            None,
            &top_registers(old),
            &top_registers(new),
            &used,
            block,
        );

        let gm = match_items(&groups(old), &groups(new), |g| &g.name, |g| g.offset);
        for (og, ng) in gm.pairs {
            self.group(og, ng, &used);
        }
        for og in gm.removed {
            self.push(
                Class::BreakingSoftware,
                "group-removed",
                og.name.to_string(),
                "register array removed",
                (Some(hex(og.offset)), None),
                block,
            );
        }
        for ng in gm.added {
            let free = is_free(&used, ng.offset, ng.offset + ng.window);
            self.push(
                if free {
                    Class::Compatible
                } else {
                    Class::BreakingSoftware
                },
                "group-added",
                ng.name.to_string(),
                if free {
                    "register array added in free address space"
                } else {
                    "register array added over addresses the old map used"
                },
                (None, Some(hex(ng.offset))),
                ng.name.span,
            );
        }
    }

    /// `used`: the old map's top-level address ranges, this group's window among them.
    fn group(&mut self, og: &Group, ng: &Group, used: &[(u64, u64)]) {
        let path = ng.name.to_string();
        if og.name.text != ng.name.text {
            self.changed(
                Class::BreakingSoftware,
                "group-renamed",
                &path,
                "register array renamed",
                (og.name.to_string(), ng.name.to_string()),
                ng.name.span,
            );
        }
        if og.offset != ng.offset {
            self.changed(
                Class::BreakingSoftware,
                "group-moved",
                &path,
                "register array moved",
                (hex(og.offset), hex(ng.offset)),
                ng.offset_span,
            );
        }
        if og.stride != ng.stride {
            self.changed(
                Class::BreakingSoftware,
                "group-stride",
                &path,
                "array stride changed",
                (hex(og.stride), hex(ng.stride)),
                ng.name.span,
            );
        }
        if !same_count(&og.count, &ng.count) {
            self.changed(
                Class::BreakingSoftware,
                "group-count",
                &path,
                "array count changed",
                (count_text(&og.count), count_text(&ng.count)),
                ng.count_span,
            );
        }
        if og.window != ng.window {
            // A window that only grows, in place, into addresses nothing used decodes more
            // elements' worth of space; existing addresses keep their meaning.
            let others: Vec<_> = used
                .iter()
                .copied()
                .filter(|&r| r != (og.offset, og.offset + og.window))
                .collect();
            let grown_into_free = og.offset == ng.offset
                && ng.window > og.window
                && is_free(&others, ng.offset, ng.offset + ng.window);
            self.changed(
                if grown_into_free {
                    Class::Compatible
                } else {
                    Class::BreakingSoftware
                },
                "group-window",
                &path,
                if grown_into_free {
                    "array window grown into free address space"
                } else {
                    "array window changed"
                },
                (hex(og.window), hex(ng.window)),
                ng.name.span,
            );
        }
        self.description(&path, &og.description, &ng.description, ng.name.span);
        let o: Vec<_> = og.registers.iter().collect();
        let n: Vec<_> = ng.registers.iter().collect();
        self.registers(
            Some(og),
            Some(ng),
            &o,
            &n,
            &element_ranges(og),
            ng.name.span,
        );
    }

    /// Registers of one scope (the top level, or one group element in both maps).
    fn registers(
        &mut self,
        og: Option<&Group>,
        ng: Option<&Group>,
        old: &[&Register],
        new: &[&Register],
        used: &[(u64, u64)],
        scope_span: Span,
    ) {
        let scope = |r: &Register| match ng {
            Some(g) => format!("{}.{}", g.name, r.name),
            None => r.name.to_string(),
        };
        let m = match_items(old, new, |r| &r.name, |r| r.offset);
        let renames: Vec<(String, String)> = m
            .pairs
            .iter()
            .map(|(o, n)| (o.name.to_string(), n.name.to_string()))
            .collect();
        for &(or, nr) in &m.pairs {
            let path = scope(nr);
            if or.name.text != nr.name.text {
                self.changed(
                    Class::BreakingSoftware,
                    "register-renamed",
                    &path,
                    "register renamed",
                    (scope(or), path.clone()),
                    nr.name.span,
                );
            }
            if or.offset != nr.offset {
                self.changed(
                    Class::BreakingSoftware,
                    "register-moved",
                    &path,
                    "register moved",
                    (hex(or.offset), hex(nr.offset)),
                    nr.offset_span,
                );
            }
            if or.width != nr.width {
                self.changed(
                    Class::BreakingSoftware,
                    "register-width",
                    &path,
                    "register width changed (a different access sequence)",
                    (or.width.to_string(), nr.width.to_string()),
                    nr.name.span,
                );
            }
            // Follow a rename of the enable register.
            let old_enable = or.interrupt_enable.as_ref().map(|e| {
                renames
                    .iter()
                    .find(|(o, _)| *o == e.text)
                    .map_or(e.to_string(), |(_, n)| n.clone())
            });
            let new_enable = nr.interrupt_enable.as_ref().map(|e| e.to_string());
            if old_enable != new_enable {
                let show = |e: Option<String>| e.unwrap_or_else(|| "none".into());
                self.changed(
                    Class::BreakingSoftware,
                    "register-interrupt",
                    &path,
                    "interrupt enable register changed",
                    (
                        show(or.interrupt_enable.as_ref().map(|e| e.to_string())),
                        show(new_enable),
                    ),
                    nr.name.span,
                );
            }
            self.description(&path, &or.description, &nr.description, nr.name.span);
            self.register_fields(og, ng, or, nr, &path);
        }
        for or in m.removed {
            self.push(
                Class::BreakingSoftware,
                "register-removed",
                scope(or),
                "register removed",
                (Some(hex(or.offset)), None),
                scope_span,
            );
        }
        for nr in m.added {
            let free = is_free(used, nr.offset, nr.offset + nr.bytes());
            self.push(
                if free {
                    Class::Compatible
                } else {
                    Class::BreakingSoftware
                },
                "register-added",
                scope(nr),
                if free {
                    "register added in a free slot"
                } else {
                    "register added at an address the old map used"
                },
                (None, Some(hex(nr.offset))),
                nr.name.span,
            );
        }
    }

    fn register_fields(
        &mut self,
        og: Option<&Group>,
        ng: Option<&Group>,
        or: &Register,
        nr: &Register,
        path: &str,
    ) {
        let pairs = self.bit_fields(path, nr.name.span, &or.fields, &nr.fields);
        for (of, nf) in pairs {
            let fpath = format!("{path}.{}", nf.name);
            self.field_pairs.push(FieldPair {
                old_prefix: field_port_prefix(og, or, of),
                new_prefix: field_port_prefix(ng, nr, nf),
                span: nf.name.span,
            });
            if of.access != nf.access {
                self.changed(
                    Class::BreakingSoftware,
                    "field-access",
                    &fpath,
                    "access type changed",
                    (of.access.as_str().into(), nf.access.as_str().into()),
                    nf.name.span,
                );
            }
            // A constant's value is expected to change (an ID, a version): software that reads
            // it is told, not broken. Losing the constant is breaking (the value is no longer
            // fixed); gaining one changes ports, which the hardware side reports.
            let constant = |v: u64| format!("constant {}", hex(v));
            let change = match (of.constant, nf.constant) {
                (true, true) if of.reset != nf.reset => Some((
                    Class::Compatible,
                    "field-constant",
                    "constant value changed",
                    (hex(of.reset), hex(nf.reset)),
                )),
                (true, false) => Some((
                    Class::BreakingSoftware,
                    "field-constant",
                    "no longer a constant",
                    (constant(of.reset), "not constant".into()),
                )),
                (false, true) => Some((
                    Class::Compatible,
                    "field-constant",
                    "now a constant",
                    ("not constant".into(), constant(nf.reset)),
                )),
                (false, false) if of.reset != nf.reset => Some((
                    Class::BreakingSoftware,
                    "field-reset",
                    "reset value changed",
                    (hex(of.reset), hex(nf.reset)),
                )),
                _ => None,
            };
            if let Some((class, kind, message, values)) = change {
                self.changed(class, kind, &fpath, message, values, nf.name.span);
            }
            // A read strobe gained: a read may now pop or acknowledge something behind the
            // field, so software that reads the register freely (a poll, a register dump) can
            // lose data, as with `ro` -> `rc`. Losing one is a port change (hardware side).
            if nf.read_strobe && !of.read_strobe {
                self.changed(
                    Class::BreakingSoftware,
                    "field-read-strobe",
                    &fpath,
                    "reads now strobe hardware (a read may pop or acknowledge)",
                    ("no read strobe".into(), "read_strobe".into()),
                    nf.name.span,
                );
            }
            // Port changes show every other hardware property; saturation shows only in values.
            let saturate = |f: &Field| f.hw.counter.as_ref().map(|c| c.saturate);
            if let (Some(a), Some(b)) = (saturate(of), saturate(nf)) {
                if a != b {
                    let text = |s: bool| if s { "saturating" } else { "wrapping" }.to_string();
                    self.changed(
                        Class::BreakingSoftware,
                        "field-counter",
                        &fpath,
                        "counter overflow behaviour changed",
                        (text(a), text(b)),
                        nf.name.span,
                    );
                }
            }
        }
    }

    /// Compares two lists of bit fields (register, memory or window fields) and returns the
    /// pairs present in both, for the caller's own checks.
    fn bit_fields<'f, T: BitField>(
        &mut self,
        path: &str,
        parent_span: Span,
        old: &'f [T],
        new: &'f [T],
    ) -> Vec<(&'f T, &'f T)> {
        let o: Vec<&T> = old.iter().collect();
        let n: Vec<&T> = new.iter().collect();
        let m = match_items(&o, &n, |f| f.name(), |f| (f.msb(), f.lsb()));
        // Is the bit range free in the old layout, apart from the field named `except`?
        let reserved_in_old = |range: (u32, u32), except: Option<&str>| {
            old.iter()
                .filter(|f| Some(f.name().text.as_str()) != except)
                .all(|f| !overlaps((f.msb(), f.lsb()), range))
        };
        for &(of, nf) in &m.pairs {
            let fpath = format!("{path}.{}", nf.name());
            if of.name().text != nf.name().text {
                self.changed(
                    Class::BreakingSoftware,
                    "field-renamed",
                    &fpath,
                    "field renamed",
                    (format!("{path}.{}", of.name()), fpath.clone()),
                    nf.name().span,
                );
            }
            let (ob, nb) = (bits(of.msb(), of.lsb()), bits(nf.msb(), nf.lsb()));
            if of.lsb() != nf.lsb() {
                self.changed(
                    Class::BreakingSoftware,
                    "field-moved",
                    &fpath,
                    "field moved",
                    (ob, nb),
                    nf.bits_span(),
                );
            } else if nf.msb() < of.msb() {
                self.changed(
                    Class::BreakingSoftware,
                    "field-narrowed",
                    &fpath,
                    "field narrowed",
                    (ob, nb),
                    nf.bits_span(),
                );
            } else if nf.msb() > of.msb() {
                let grown = (nf.msb(), of.msb() + 1);
                let into_reserved = reserved_in_old(grown, Some(&of.name().text));
                self.changed(
                    if into_reserved {
                        Class::Compatible
                    } else {
                        Class::BreakingSoftware
                    },
                    "field-widened",
                    &fpath,
                    if into_reserved {
                        "field widened into reserved bits"
                    } else {
                        "field widened over bits another field used"
                    },
                    (ob, nb),
                    nf.bits_span(),
                );
            }
            let follow = |e: &Name| {
                self.enum_renames
                    .iter()
                    .find(|(o, _)| *o == e.text)
                    .map_or(e.to_string(), |(_, n)| n.clone())
            };
            let old_enum = of.enumeration().map(follow);
            let new_enum = nf.enumeration().map(|e| e.to_string());
            if old_enum != new_enum {
                // Gaining an enum only adds names; losing or switching one removes names.
                let class = if old_enum.is_none() {
                    Class::Compatible
                } else {
                    Class::BreakingSoftware
                };
                let show = |e: Option<&Name>| e.map_or("none".to_string(), |e| e.to_string());
                self.changed(
                    class,
                    "field-enum",
                    &fpath,
                    "field enum changed",
                    (show(of.enumeration()), show(nf.enumeration())),
                    nf.name().span,
                );
            }
            self.description(&fpath, of.description(), nf.description(), nf.name().span);
        }
        for of in m.removed {
            self.push(
                Class::BreakingSoftware,
                "field-removed",
                format!("{path}.{}", of.name()),
                "field removed",
                (Some(bits(of.msb(), of.lsb())), None),
                parent_span,
            );
        }
        for nf in m.added {
            let reserved = reserved_in_old((nf.msb(), nf.lsb()), None);
            self.push(
                if reserved {
                    Class::Compatible
                } else {
                    Class::BreakingSoftware
                },
                "field-added",
                format!("{path}.{}", nf.name()),
                if reserved {
                    "field added in reserved bits"
                } else {
                    "field added in bits the old map used"
                },
                (None, Some(bits(nf.msb(), nf.lsb()))),
                nf.bits_span(),
            );
        }
        m.pairs
    }

    fn memories(&mut self, old: &RegMap, new: &RegMap) {
        let o: Vec<_> = old.memories.iter().collect();
        let n: Vec<_> = new.memories.iter().collect();
        let m = match_items(&o, &n, |x| &x.name, |x| x.name.text.clone());
        for (om, nm) in m.pairs {
            let path = format!("memory {}", nm.name);
            if !same_count(&om.depth, &nm.depth) {
                self.changed(
                    Class::BreakingSoftware,
                    "memory-depth",
                    &path,
                    "memory depth changed",
                    (count_text(&om.depth), count_text(&nm.depth)),
                    nm.name.span,
                );
            }
            if om.width != nm.width {
                self.changed(
                    Class::BreakingSoftware,
                    "memory-width",
                    &path,
                    "memory word width changed",
                    (om.width.to_string(), nm.width.to_string()),
                    nm.name.span,
                );
            }
            self.description(&path, &om.description, &nm.description, nm.name.span);
            self.bit_fields(&path, nm.name.span, &om.fields, &nm.fields);
        }
        self.only_one_side(
            ["memory-removed", "memory-added"],
            "memory",
            m.removed.iter().map(|x| &x.name),
            m.added.iter().map(|x| &x.name),
        );
    }

    fn spaces(&mut self, old: &RegMap, new: &RegMap) {
        let o: Vec<_> = old.spaces.iter().collect();
        let n: Vec<_> = new.spaces.iter().collect();
        let m = match_items(&o, &n, |x| &x.name, |x| x.name.text.clone());
        for (os, ns) in m.pairs {
            let path = format!("space {}", ns.name);
            if os.size != ns.size {
                self.changed(
                    Class::BreakingSoftware,
                    "space-size",
                    &path,
                    "space size changed",
                    (hex(os.size), hex(ns.size)),
                    ns.name.span,
                );
            }
            self.description(&path, &os.description, &ns.description, ns.name.span);
            let ow: Vec<_> = os.windows.iter().collect();
            let nw: Vec<_> = ns.windows.iter().collect();
            let wm = match_items(&ow, &nw, |w| &w.name, |w| w.offset);
            for (a, b) in wm.pairs {
                let wpath = format!("{path}.{}", b.name);
                let mut value = |kind, message: &str, old: String, new: String| {
                    if old != new {
                        self.changed(
                            Class::BreakingSoftware,
                            kind,
                            &wpath,
                            message,
                            (old, new),
                            b.name.span,
                        );
                    }
                };
                value(
                    "window-renamed",
                    "window renamed",
                    a.name.to_string(),
                    b.name.to_string(),
                );
                value("window-moved", "window moved", hex(a.offset), hex(b.offset));
                value(
                    "window-size",
                    "window size changed",
                    hex(a.size),
                    hex(b.size),
                );
                value(
                    "window-access",
                    "window access changed",
                    a.access.as_str().into(),
                    b.access.as_str().into(),
                );
                value(
                    "window-byte-order",
                    "window byte order changed",
                    format!("{:?}", a.byte_order).to_lowercase(),
                    format!("{:?}", b.byte_order).to_lowercase(),
                );
                self.description(&wpath, &a.description, &b.description, b.name.span);
                self.bit_fields(&wpath, b.name.span, &a.fields, &b.fields);
            }
            for a in wm.removed {
                self.push(
                    Class::BreakingSoftware,
                    "window-removed",
                    format!("{path}.{}", a.name),
                    "window removed",
                    (Some(hex(a.offset)), None),
                    ns.name.span,
                );
            }
            for b in wm.added {
                let used: Vec<_> = os
                    .windows
                    .iter()
                    .map(|w| (w.offset, w.offset + w.size))
                    .collect();
                let free = is_free(&used, b.offset, b.offset + b.size);
                self.push(
                    if free {
                        Class::Compatible
                    } else {
                        Class::BreakingSoftware
                    },
                    "window-added",
                    format!("{path}.{}", b.name),
                    if free {
                        "window added in free space"
                    } else {
                        "window added over bytes the old map used"
                    },
                    (None, Some(hex(b.offset))),
                    b.name.span,
                );
            }
        }
        self.only_one_side(
            ["space-removed", "space-added"],
            "space",
            m.removed.iter().map(|x| &x.name),
            m.added.iter().map(|x| &x.name),
        );
    }
}
