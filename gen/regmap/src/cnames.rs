//! The C macro names a map's header defines (the `c_header` output of rdmagen-outputs), each
//! with the map element that defines it, so that validation can refuse a map whose header would
//! define one name twice, at both elements' places, before anything is generated.
//!
//! The header generator keeps its own exact check as a guard; a test there compares the names
//! it defines with [`for_each_macro`]'s, so the two cannot drift apart.

use crate::fasthash::FastMap;
use crate::model::*;
use crate::source::Span;
use crate::text::push_upper;

/// A map element that defines C macros.
#[derive(Clone, Copy, Debug)]
pub enum Owner<'a> {
    /// The block's own macros: include guard, assertion helpers, version, address width.
    Block,
    Parameter(&'a Parameter),
    EnumValue(&'a Enum, &'a EnumValue),
    /// A register, top level (`None`) or in an array group.
    Register(Option<&'a Group>, &'a Register),
    Group(&'a Group),
    Field(Option<&'a Group>, &'a Register, &'a Field),
    Memory(&'a Memory),
    MemField(&'a Memory, &'a MemField),
    Space(&'a Space),
    Window(&'a Space, &'a Window),
    WindowField(&'a Space, &'a Window, &'a MemField),
}

impl Owner<'_> {
    /// Where the element is named in the map.
    pub fn span(&self, map: &RegMap) -> Span {
        match self {
            Owner::Block => map.block.span,
            Owner::Parameter(p) => p.name.span,
            Owner::EnumValue(_, v) => v.name.span,
            Owner::Register(_, r) => r.name.span,
            Owner::Group(g) => g.name.span,
            Owner::Field(_, _, f) => f.name.span,
            Owner::Memory(m) => m.name.span,
            Owner::MemField(_, f) => f.name.span,
            Owner::Space(s) => s.name.span,
            Owner::Window(_, w) => w.name.span,
            Owner::WindowField(_, _, f) => f.name.span,
        }
    }

    /// `register `a.b``, as messages name it.
    pub fn describe(&self, map: &RegMap) -> String {
        match self {
            Owner::Block => format!("block `{}` (its own macros)", map.block),
            Owner::Parameter(p) => format!("parameter `{}`", p.name),
            Owner::EnumValue(e, v) => format!("enum value `{}.{}`", e.name, v.name),
            Owner::Register(None, r) => format!("register `{}`", r.name),
            Owner::Register(Some(g), r) => format!("register `{}.{}`", g.name, r.name),
            Owner::Group(g) => format!("group `{}`", g.name),
            Owner::Field(None, r, f) => format!("field `{}.{}`", r.name, f.name),
            Owner::Field(Some(g), r, f) => format!("field `{}.{}.{}`", g.name, r.name, f.name),
            Owner::Memory(m) => format!("memory `{}`", m.name),
            Owner::MemField(m, f) => format!("field `{}.{}` of a memory", m.name, f.name),
            Owner::Space(s) => format!("space `{}`", s.name),
            Owner::Window(s, w) => format!("window `{}.{}`", s.name, w.name),
            Owner::WindowField(s, w, f) => {
                format!("field `{}.{}.{}` of a window", s.name, w.name, f.name)
            }
        }
    }

    /// The element's name within its kind and scope: two elements with the same key are a
    /// duplicate name, which validation reports on its own (a top-level register and a group
    /// share one namespace).
    fn key(&self) -> (u8, [&str; 3]) {
        match self {
            Owner::Block => (0, ["", "", ""]),
            Owner::Parameter(p) => (1, [&p.name.text, "", ""]),
            Owner::EnumValue(e, v) => (2, [&e.name.text, &v.name.text, ""]),
            Owner::Register(None, r) => (3, [&r.name.text, "", ""]),
            Owner::Group(g) => (3, [&g.name.text, "", ""]),
            Owner::Register(Some(g), r) => (4, [&g.name.text, &r.name.text, ""]),
            Owner::Field(g, r, f) => (
                5,
                [
                    g.map_or("", |g| g.name.text.as_str()),
                    &r.name.text,
                    &f.name.text,
                ],
            ),
            Owner::Memory(m) => (6, [&m.name.text, "", ""]),
            Owner::MemField(m, f) => (7, [&m.name.text, &f.name.text, ""]),
            Owner::Space(s) => (8, [&s.name.text, "", ""]),
            Owner::Window(s, w) => (9, [&s.name.text, &w.name.text, ""]),
            Owner::WindowField(s, w, f) => (10, [&s.name.text, &w.name.text, &f.name.text]),
        }
    }
}

/// Every element that defines macros, in the header's order.
pub fn owners(map: &RegMap) -> Vec<Owner<'_>> {
    let fields: usize = map.registers().map(|(_, r)| 1 + r.fields.len()).sum();
    let mut v = Vec::with_capacity(1 + fields + map.items.len() + map.parameters.len());
    v.push(Owner::Block);
    v.extend(map.parameters.iter().map(Owner::Parameter));
    for e in &map.enums {
        v.extend(e.values.iter().map(|x| Owner::EnumValue(e, x)));
    }
    for item in &map.items {
        match item {
            Item::Register(r) => {
                v.push(Owner::Register(None, r));
                v.extend(r.fields.iter().map(|f| Owner::Field(None, r, f)));
            }
            Item::Group(g) => {
                v.push(Owner::Group(g));
                for r in &g.registers {
                    v.push(Owner::Register(Some(g), r));
                    v.extend(r.fields.iter().map(|f| Owner::Field(Some(g), r, f)));
                }
            }
        }
    }
    for m in &map.memories {
        v.push(Owner::Memory(m));
        v.extend(m.fields.iter().map(|f| Owner::MemField(m, f)));
    }
    for s in &map.spaces {
        v.push(Owner::Space(s));
        for w in &s.windows {
            v.push(Owner::Window(s, w));
            v.extend(w.fields.iter().map(|f| Owner::WindowField(s, w, f)));
        }
    }
    v
}

/// Calls `f` with each macro name `owner` defines (function-like macros by their identifier:
/// `X_OFFSET(i)` is `X_OFFSET`, which an object-like `X_OFFSET` would redefine). `buf` is
/// scratch space, reused so that a big map builds no string per name.
pub fn macros_of(map: &RegMap, owner: &Owner<'_>, buf: &mut String, f: &mut dyn FnMut(&str)) {
    // `<BLOCK>_<PARTS…>` upper-cased, then each suffix in turn.
    let mut emit = |parts: &[&str], suffixes: &[&str]| {
        buf.clear();
        push_upper(buf, &map.block.text);
        for p in parts {
            buf.push('_');
            push_upper(buf, p);
        }
        let base = buf.len();
        for s in suffixes {
            buf.truncate(base);
            buf.push_str(s);
            f(buf);
        }
    };
    match owner {
        Owner::Block => {
            emit(
                &[],
                &[
                    "_REGS_H",
                    "_STATIC_ASSERT",
                    "_ASSERT_FIELD",
                    "_ASSERT_FIELD_RESET",
                    "_FIELD_ACCESSORS",
                    "_RESET_IN_PLACE",
                    "_VERSION_MAJOR",
                    "_VERSION_MINOR",
                    "_VERSION_PATCH",
                    "_ADDRESS_WIDTH",
                ],
            );
        }
        Owner::Parameter(p) => emit(&[&p.name.text], &["_DEFAULT", "_MIN", "_MAX"]),
        Owner::EnumValue(e, v) => emit(&[&e.name.text, &v.name.text], &[""]),
        Owner::Register(None, r) => emit(
            &[&r.name.text],
            &["_OFFSET", "_RESET_VALUE", "_RDMASK", "_WRMASK"],
        ),
        Owner::Register(Some(g), r) => emit(
            &[&g.name.text, &r.name.text],
            &[
                "_ELEMENT_OFFSET",
                "_OFFSET",
                "_RESET_VALUE",
                "_RDMASK",
                "_WRMASK",
            ],
        ),
        Owner::Group(g) => {
            let fixed = matches!(g.count, Count::Fixed(_));
            let all = ["_OFFSET", "_STRIDE", "_WINDOW", "_COUNT_MAX", "_COUNT"];
            emit(&[&g.name.text], &all[..if fixed { 5 } else { 4 }]);
        }
        Owner::Field(g, r, fl) => {
            let stored = ["_SHIFT", "_WIDTH", "_MASK", "_RESET"];
            let n = if fl.reset_value().is_some() { 4 } else { 3 };
            match g {
                Some(g) => emit(&[&g.name.text, &r.name.text, &fl.name.text], &stored[..n]),
                None => emit(&[&r.name.text, &fl.name.text], &stored[..n]),
            }
        }
        Owner::Memory(m) => {
            let depth = match m.depth {
                Count::Fixed(_) => "_DEPTH",
                Count::Param(_) => "_DEPTH_MAX",
            };
            emit(&[&m.name.text], &["_WORD_BITS", depth]);
        }
        Owner::MemField(m, fl) => emit(&[&m.name.text, &fl.name.text], &["_SHIFT", "_WIDTH"]),
        Owner::Space(s) => emit(&[&s.name.text], &["_SIZE"]),
        Owner::Window(s, w) => emit(&[&s.name.text, &w.name.text], &["_OFFSET", "_SIZE"]),
        Owner::WindowField(s, w, fl) => emit(
            &[&s.name.text, &w.name.text, &fl.name.text],
            &["_SHIFT", "_WIDTH", "_MASK"],
        ),
    }
}

/// Every macro name the header of `map` defines, with its owner, in the header's order.
pub fn for_each_macro<'a>(map: &'a RegMap, mut f: impl FnMut(&Owner<'a>, &str)) {
    let mut buf = String::with_capacity(128);
    for o in owners(map) {
        macros_of(map, &o, &mut buf, &mut |name| f(&o, name));
    }
}

/// A name two elements would both define: (first owner, second owner, the names they share,
/// sorted). Pairs that are a duplicate name (reported by the name checks) are left out.
pub(crate) struct Clash<'a> {
    pub first: Owner<'a>,
    pub second: Owner<'a>,
    pub names: Vec<String>,
}

/// The element pairs whose macros clash, in the order of the second's place in the header.
/// One pass keeps a hash per name (a NIC-scale map defines hundreds of thousands); a hash
/// seen before sends that pair through an exact comparison of the two elements' names.
pub(crate) fn clashes(map: &RegMap) -> Vec<Clash<'_>> {
    use std::hash::BuildHasher;
    let hasher = std::hash::BuildHasherDefault::<crate::fasthash::FxHasher>::default();
    let owners = owners(map);
    let mut seen: FastMap<u64, u32> =
        FastMap::with_capacity_and_hasher(4 * owners.len(), Default::default());
    let mut pairs: Vec<(u32, u32)> = Vec::new();
    let mut buf = String::with_capacity(128);
    for (i, o) in owners.iter().enumerate() {
        let i = i as u32;
        macros_of(map, o, &mut buf, &mut |name| {
            let first = *seen.entry(hasher.hash_one(name)).or_insert(i);
            if first != i && pairs.last() != Some(&(first, i)) {
                pairs.push((first, i));
            }
        });
    }
    pairs.sort_unstable_by_key(|&(a, b)| (b, a));
    pairs.dedup();
    let mut out = Vec::new();
    for (a, b) in pairs {
        let (first, second) = (owners[a as usize], owners[b as usize]);
        if first.key() == second.key() {
            continue;
        }
        let mut names_a = Vec::new();
        macros_of(map, &first, &mut buf, &mut |n| names_a.push(n.to_string()));
        let mut names = Vec::new();
        macros_of(map, &second, &mut buf, &mut |n| {
            if names_a.iter().any(|x| x == n) {
                names.push(n.to_string());
            }
        });
        if names.is_empty() {
            continue; // two names of one hash
        }
        names.sort_unstable();
        out.push(Clash {
            first,
            second,
            names,
        });
    }
    out
}
