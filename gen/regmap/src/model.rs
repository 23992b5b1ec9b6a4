//! The validated register-map model. Every node keeps the span of its name so later stages can
//! point back at the map, but once `validate` has returned a `RegMap`, nothing in it is wrong.

use crate::source::Span;

/// A name and where the map wrote it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub text: String,
    pub span: Span,
}

impl std::fmt::Display for Name {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.text)
    }
}

impl std::ops::Deref for Name {
    type Target = str;
    fn deref(&self) -> &str {
        &self.text
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Version {
    pub major: u64,
    pub minor: u64,
    pub patch: u64,
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

#[derive(Clone, Debug)]
pub struct RegMap {
    /// The map's file name as given on the command line.
    pub file: String,
    pub block: Name,
    pub version: Version,
    pub description: String,
    /// AXI4-Lite address bits of the CSR block (after the checks; 0 while a map without
    /// `address_width` is being read).
    pub address_width: u32,
    /// `address_width` as the map wrote it, with where: checked against 4..=32 and the map.
    pub address_width_declared: Option<(u64, Span)>,
    pub parameters: Vec<Parameter>,
    pub enums: Vec<Enum>,
    /// Registers and groups in map order.
    pub items: Vec<Item>,
    pub memories: Vec<Memory>,
    pub spaces: Vec<Space>,
}

#[derive(Clone, Debug)]
pub struct Parameter {
    pub name: Name,
    pub default: u64,
    pub min: u64,
    pub max: u64,
    pub description: String,
}

#[derive(Clone, Debug)]
pub struct Enum {
    pub name: Name,
    pub description: String,
    pub values: Vec<EnumValue>,
}

#[derive(Clone, Debug)]
pub struct EnumValue {
    pub name: Name,
    pub value: u64,
    pub value_span: Span,
    pub description: String,
}

#[derive(Clone, Debug)]
pub enum Item {
    Register(Register),
    Group(Group),
}

#[derive(Clone, Debug)]
pub struct Register {
    pub name: Name,
    /// Byte offset (relative to the group element when inside a group).
    pub offset: u64,
    pub offset_span: Span,
    /// 32 or 64.
    pub width: u32,
    pub description: String,
    pub fields: Vec<Field>,
    /// Name of the enable register when this is an interrupt status register.
    pub interrupt_enable: Option<Name>,
}

impl Register {
    pub fn bytes(&self) -> u64 {
        u64::from(self.width / 8)
    }
    /// Software can write something (so a write is not an error).
    pub fn is_writable(&self) -> bool {
        self.fields.iter().any(|f| f.access.sw_writes())
    }
    /// Software can read something (so a read is not an error).
    pub fn is_readable(&self) -> bool {
        self.fields.iter().any(|f| f.access.sw_reads())
    }
}

/// How many elements a group has.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Count {
    Fixed(u64),
    Param(Name),
}

#[derive(Clone, Debug)]
pub struct Group {
    pub name: Name,
    pub offset: u64,
    pub offset_span: Span,
    pub description: String,
    pub count: Count,
    /// Where the map wrote the count.
    pub count_span: Span,
    /// The largest count the group can have (the parameter's `max` for a parameter count).
    pub max_count: u64,
    pub stride: u64,
    pub window: u64,
    pub registers: Vec<Register>,
}

impl Group {
    /// Groups that can hold more elements than this read their element in a stage of its own.
    pub const FETCH_ABOVE: u64 = 16;

    /// A read of this group's elements takes a fetch stage (one more cycle) in the CSR block:
    /// the group can hold more than [`Group::FETCH_ABOVE`] elements and has a readable
    /// register, so its element select is too wide to share a cycle with the read mux
    /// (docs/regmap-format.md).
    pub fn fetches_reads(&self) -> bool {
        self.max_count > Self::FETCH_ABOVE && self.registers.iter().any(|r| r.is_readable())
    }
}

/// Software access type of a field.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Access {
    Rw,
    Ro,
    Wo,
    W1c,
    W1s,
    W0c,
    Rc,
    Rs,
    Wp,
}

impl Access {
    pub const ALL: [Access; 9] = [
        Access::Rw,
        Access::Ro,
        Access::Wo,
        Access::W1c,
        Access::W1s,
        Access::W0c,
        Access::Rc,
        Access::Rs,
        Access::Wp,
    ];
    pub fn as_str(self) -> &'static str {
        match self {
            Access::Rw => "rw",
            Access::Ro => "ro",
            Access::Wo => "wo",
            Access::W1c => "w1c",
            Access::W1s => "w1s",
            Access::W0c => "w0c",
            Access::Rc => "rc",
            Access::Rs => "rs",
            Access::Wp => "wp",
        }
    }
    pub fn parse(s: &str) -> Option<Access> {
        Access::ALL.into_iter().find(|a| a.as_str() == s)
    }
    /// Does a software write have an effect?
    pub fn sw_writes(self) -> bool {
        !matches!(self, Access::Ro | Access::Rc | Access::Rs)
    }
    /// Does a software read return the value?
    pub fn sw_reads(self) -> bool {
        !matches!(self, Access::Wo | Access::Wp)
    }
    /// One-line meaning, for documentation outputs.
    pub fn describe(self) -> &'static str {
        match self {
            Access::Rw => "read/write",
            Access::Ro => "read-only",
            Access::Wo => "write-only, reads as 0",
            Access::W1c => "write 1 to clear",
            Access::W1s => "write 1 to set",
            Access::W0c => "write 0 to clear",
            Access::Rc => "read clears",
            Access::Rs => "read sets",
            Access::Wp => "write pulses hardware for one cycle, reads as 0",
        }
    }
}

/// Hardware-side behaviour of a field.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HwProps {
    pub write: bool,
    pub set: bool,
    pub clear: bool,
    pub counter: Option<Counter>,
}

impl HwProps {
    pub fn any(&self) -> bool {
        self.write || self.set || self.clear || self.counter.is_some()
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Counter {
    pub step_width: u32,
    pub saturate: bool,
}

#[derive(Clone, Debug)]
pub struct Field {
    pub name: Name,
    pub msb: u32,
    pub lsb: u32,
    pub bits_span: Span,
    pub access: Access,
    pub reset: u64,
    pub description: String,
    pub enumeration: Option<Name>,
    pub hw: HwProps,
    /// A read-only constant (`constant: V`): reads `reset`, no flop and no port.
    pub constant: bool,
    /// `write_strobe: true`: a `P_stb_o` output high for one cycle after each software write
    /// that covers the field (a wider `wp` has it without asking).
    pub write_strobe: bool,
    /// `read_strobe: true`: a `P_rd_stb_o` output high for one cycle after each software read
    /// that takes the field's value (the cycle `rc` shows its clear); a 64-bit register's
    /// low-half read. For hardware that pops a FIFO or acknowledges an event on a read.
    pub read_strobe: bool,
    /// `hw_read: false`: the stored value has no `P_o` output (software-only storage, or a
    /// counter or status bit only software reads).
    pub hw_read: bool,
}

impl Field {
    pub fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
    pub fn mask(&self) -> u64 {
        let ones = if self.width() >= 64 {
            u64::MAX
        } else {
            (1u64 << self.width()) - 1
        };
        ones << self.lsb
    }
    /// A field with a flop (everything but a plain hardware-driven `ro`).
    pub fn is_stored(&self) -> bool {
        self.access != Access::Ro || self.hw.any()
    }
    /// A plain `ro` field: software reads the hardware's `_i` input.
    pub fn is_input(&self) -> bool {
        !self.is_stored() && !self.constant
    }
    /// The field has a `P_stb_o` write strobe: asked for, or a wider `wp`'s.
    pub fn has_write_strobe(&self) -> bool {
        self.write_strobe || (self.access == Access::Wp && self.width() > 1)
    }
    /// The value software reads after reset (a constant's value), or `None` for a
    /// hardware-driven `ro` field, which has no flop to reset.
    pub fn reset_value(&self) -> Option<u64> {
        (self.is_stored() || self.constant).then_some(self.reset)
    }
    /// Appends the access type and the hardware properties as the register tables show them,
    /// e.g. `w1c+hw_set`, `rc+counter(16)(wraps) (no _o)`, `ro const`.
    pub fn push_access_label(&self, s: &mut String) {
        s.push_str(self.access.as_str());
        if self.constant {
            s.push_str(" const");
        }
        for (on, tag) in [
            (self.write_strobe, "+write_strobe"),
            (self.read_strobe, "+read_strobe"),
            (self.hw.write, "+hw_write"),
            (self.hw.clear, "+hw_clear"),
            (self.hw.set, "+hw_set"),
        ] {
            if on {
                s.push_str(tag);
            }
        }
        if let Some(c) = &self.hw.counter {
            s.push_str("+counter");
            if c.step_width != 1 {
                s.push('(');
                s.push_str(&c.step_width.to_string());
                s.push(')');
            }
            if !c.saturate {
                s.push_str("(wraps)");
            }
        }
        if !self.hw_read {
            s.push_str(" (no _o)");
        }
    }
}

/// A context-RAM word layout.
#[derive(Clone, Debug)]
pub struct Memory {
    pub name: Name,
    pub description: String,
    pub depth: Count,
    pub width: u32,
    pub fields: Vec<MemField>,
}

#[derive(Clone, Debug)]
pub struct MemField {
    pub name: Name,
    pub msb: u32,
    pub lsb: u32,
    pub description: String,
    pub enumeration: Option<Name>,
}

impl MemField {
    pub fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
}

/// A non-CSR address space, such as a UAR page.
#[derive(Clone, Debug)]
pub struct Space {
    pub name: Name,
    pub size: u64,
    pub description: String,
    pub windows: Vec<Window>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ByteOrder {
    Little,
    Big,
}

#[derive(Clone, Debug)]
pub struct Window {
    pub name: Name,
    pub offset: u64,
    pub size: u64,
    pub access: Access,
    pub byte_order: ByteOrder,
    pub description: String,
    pub fields: Vec<MemField>,
}

impl RegMap {
    pub fn parameter(&self, name: &str) -> Option<&Parameter> {
        self.parameters.iter().find(|p| p.name.text == name)
    }
    pub fn enumeration(&self, name: &str) -> Option<&Enum> {
        self.enums.iter().find(|e| e.name.text == name)
    }
    pub fn memory(&self, name: &str) -> Option<&Memory> {
        self.memories.iter().find(|m| m.name.text == name)
    }
    pub fn space(&self, name: &str) -> Option<&Space> {
        self.spaces.iter().find(|s| s.name.text == name)
    }
    /// Maps with more readable registers outside groups than this read them through a fetch
    /// stage in the CSR block, in chunks of [`RegMap::FETCH_CHUNK`].
    pub const TOP_FETCH_ABOVE: usize = 64;
    /// Readable top-level registers per fetched word when [`RegMap::fetches_top_reads`].
    pub const FETCH_CHUNK: usize = 32;

    /// A read of a register outside groups takes a fetch stage (one more cycle) in the CSR
    /// block: the map has more than [`RegMap::TOP_FETCH_ABOVE`] readable ones, so one AND-OR
    /// of them all is too deep to share a cycle with the R register's load; the fetch cycle
    /// ORs them in chunks into registers of their own (docs/regmap-format.md).
    pub fn fetches_top_reads(&self) -> bool {
        self.top_registers().filter(|r| r.is_readable()).count() > Self::TOP_FETCH_ABOVE
    }
    /// Registers outside groups, in map order.
    pub fn top_registers(&self) -> impl Iterator<Item = &Register> {
        self.items.iter().filter_map(|i| match i {
            Item::Register(r) => Some(r),
            Item::Group(_) => None,
        })
    }
    /// Every register with its group (if any), in map order.
    pub fn registers(&self) -> impl Iterator<Item = (Option<&Group>, &Register)> {
        self.items
            .iter()
            .flat_map(|item| -> Box<dyn Iterator<Item = _>> {
                match item {
                    Item::Register(r) => Box::new(std::iter::once((None, r))),
                    Item::Group(g) => Box::new(g.registers.iter().map(move |r| (Some(g), r))),
                }
            })
    }
}

/// Hardware port names of a field, derived in one place so validation (collisions) and every
/// generator agree. `prefix` is `<register>` or `<group>_<register>`.
pub fn field_port_prefix(group: Option<&Group>, reg: &Register, field: &Field) -> String {
    let mut p = String::with_capacity(64);
    if let Some(g) = group {
        p.push_str(&g.name.text);
        p.push('_');
    }
    p.push_str(&reg.name.text);
    p.push('_');
    p.push_str(&field.name.text);
    p
}

/// How many ports [`field_ports`] gives `field`, without naming them (to size lists).
pub fn field_port_count(field: &Field) -> usize {
    if !field.is_stored() {
        return usize::from(!field.constant) + usize::from(field.read_strobe);
    }
    usize::from(field.hw_read)
        + usize::from(field.read_strobe)
        + usize::from(field.has_write_strobe())
        + 2 * usize::from(field.hw.write)
        + usize::from(field.hw.clear)
        + usize::from(field.hw.set)
        + usize::from(field.hw.counter.is_some())
}

/// The hardware ports a field gets in the CSR block, with their direction (true = output)
/// and width in bits per element.
pub fn field_ports(
    group: Option<&Group>,
    reg: &Register,
    field: &Field,
) -> Vec<(String, bool, u32)> {
    let p = field_port_prefix(group, reg, field);
    // `p` + suffix without `format!` (every field of a NIC-scale map passes here).
    let port = |suffix: &str| {
        let mut s = String::with_capacity(p.len() + suffix.len());
        s.push_str(&p);
        s.push_str(suffix);
        s
    };
    let w = field.width();
    if field.constant {
        return Vec::new();
    }
    if !field.is_stored() {
        let mut v = vec![(port("_i"), false, w)];
        if field.read_strobe {
            v.push((port("_rd_stb_o"), true, 1));
        }
        return v;
    }
    // At most eight ports: sized once instead of grown from nothing.
    let mut v = Vec::with_capacity(8);
    if field.hw_read {
        v.push((port("_o"), true, w));
    }
    if field.has_write_strobe() {
        v.push((port("_stb_o"), true, 1));
    }
    if field.read_strobe {
        v.push((port("_rd_stb_o"), true, 1));
    }
    if field.hw.write {
        v.push((port("_we_i"), false, 1));
        v.push((port("_d_i"), false, w));
    }
    if field.hw.clear {
        v.push((port("_clr_i"), false, w));
    }
    if field.hw.set {
        v.push((port("_set_i"), false, w));
    }
    if let Some(c) = &field.hw.counter {
        v.push((port("_incr_i"), false, c.step_width));
    }
    debug_assert_eq!(v.len(), field_port_count(field));
    v
}
