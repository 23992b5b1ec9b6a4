//! Reference model of a CSR block: every register, access type, hardware property, array,
//! 64-bit register and interrupt of a validated map, cycle by cycle.
//!
//! Written from `docs/regmap-format.md`:
//!
//! - responses: OKAY; SLVERR for a write to a register without writable fields or a read of
//!   one without readable fields; DECERR where no register is (gaps, array elements ≥ count);
//! - a write's byte lanes follow WSTRB; the access type decides what a written 1 or 0 does;
//! - 64-bit registers: a low-half read returns bits 31:0 and latches 63:32 into the one shared
//!   read shadow, a high-half read returns the shadow; a low-half write stores data and
//!   strobes in the one shared write shadow, a high-half write commits all 64 bits;
//! - within a cycle: software write (or `rc`/`rs` read effect), then hardware load, clear,
//!   set, count; counters saturate unless told not to;
//! - a read takes effect (its value, its `rc`/`rs` effect, the 64-bit latch) in the cycle it
//!   moves to the R register, not in the cycle it is accepted: the block decodes the address
//!   in the accept cycle and holds one decoded read until the R register is free (empty, or
//!   taken in that cycle); so with RREADY high a read returns the register's value one cycle
//!   after the AR handshake, and RVALID rises two cycles after it;
//! - except a read of an element of an array that can hold more than 16 elements (a fixed
//!   count above 16, or a parameter whose `max` is): it takes effect in the cycle after its AR
//!   handshake (its first fetch cycle, whatever R does; the second selects the run of 16
//!   elements), then waits for R with its value; so with RREADY high RVALID rises four cycles
//!   after the AR handshake (three for a register outside groups that takes one fetch cycle);
//! - `wp` drives the written value for exactly one cycle (and `_stb_o` when wider than a bit);
//! - `irq_o` is the OR of `status & enable` over interrupt registers and array elements.
//!
//! Hardware ports are packed per array: element `i` of a `w`-bit field at bits `[i*w +: w]`.

use std::collections::HashMap;

use rdmagen_regmap::{field_port_prefix, Access, Count, Item, RegMap};

use crate::bits;

pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;
pub const DECERR: u8 = 3;

/// What a hardware input port does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HwKind {
    /// `_i`: the live value of an unstored `ro` field.
    Input,
    /// `_we_i`: load enable.
    LoadEnable,
    /// `_d_i`: load data.
    LoadData,
    /// `_clr_i`: bits to clear.
    Clear,
    /// `_set_i`: bits to set.
    Set,
    /// `_incr_i`: amount to add.
    Increment,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HwPort {
    pub name: String,
    pub kind: HwKind,
    /// Bits per array element.
    pub width: u32,
    /// Array elements (1 outside groups).
    pub count: u32,
    field: usize,
}

impl HwPort {
    pub fn total_width(&self) -> u32 {
        self.width * self.count
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum OutKind {
    Value,
    Strobe,
    ReadStrobe,
    Irq,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutPort {
    pub name: String,
    pub width: u32,
    kind: OutKind,
    field: usize,
}

#[derive(Clone, Debug)]
struct FieldDef {
    reg: usize,
    name: String,
    msb: u32,
    lsb: u32,
    access: Access,
    reset: u64,
    stored: bool,
    /// A constant: reads `reset` for ever, no port.
    constant: bool,
    /// `read_strobe`: `_rd_stb_o` pulses after each read of the register.
    read_strobe: bool,
    load: bool,
    clear: bool,
    set: bool,
    counter: Option<(u32, bool)>,
    /// Index of the `_i` port for unstored fields.
    input_port: Option<usize>,
    /// Indices of the load-enable, load-data, clear, set and increment ports.
    ports: [Option<usize>; 5],
}

impl FieldDef {
    fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
    fn mask(&self) -> u64 {
        bits::ones(self.width())
    }
}

/// One register of the map, with its array shape.
#[derive(Clone, Debug)]
pub struct RegDef {
    pub name: String,
    pub group: Option<String>,
    /// Address of element 0.
    pub base: u64,
    pub stride: u64,
    pub count: u32,
    pub wide: bool,
    pub readable: bool,
    pub writable: bool,
    /// Fetch cycles a read of this register takes, by the generator's own rules: two for an
    /// array's element when `Group::fetches_reads` (more than `Group::FETCH_ABOVE` elements
    /// possible: a select of each run of elements, then of the run), one for a register
    /// outside groups when `RegMap::fetches_top_reads` (more than `RegMap::TOP_FETCH_ABOVE`
    /// readable ones), else none.
    pub fetch: u8,
    fields: Vec<usize>,
    /// (status field, enable field) pairs when this is an interrupt status register.
    irq: Vec<(usize, usize)>,
}

impl RegDef {
    /// Byte addresses of every element (and the high half of 64-bit registers).
    pub fn addresses(&self) -> impl Iterator<Item = u64> + '_ {
        (0..u64::from(self.count)).flat_map(move |i| {
            let a = self.base + i * self.stride;
            let halves = if self.wide { 2 } else { 1 };
            (0..halves).map(move |h| a + 4 * h)
        })
    }
}

/// Where a word address lands.
#[derive(Clone, Copy, Debug)]
struct Hit {
    reg: usize,
    elem: u32,
    high: bool,
}

/// The accepted transfers of one cycle, and RREADY.
#[derive(Clone, Copy, Debug, Default)]
pub struct Bus {
    /// AW and W handshake: (address, data, strobes).
    pub write: Option<(u64, u64, u8)>,
    /// AR handshake: the address.
    pub read: Option<u64>,
    /// RREADY in this cycle: with RVALID it empties the R register.
    pub rready: bool,
}

/// What a counter's increments reached, summed over array elements, since the model was built
/// (`reset` keeps the tallies): how far random stimulus drove it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CounterHits {
    /// Increments that carried out of the low 32 bits into the bits above (counters wider than
    /// 32 bits only): what the RTL's split adder selects its high part by.
    pub low_carry: u64,
    /// Increments that went past all ones: held there (saturating) or wrapped.
    pub overflow: u64,
}

#[derive(Clone, Debug)]
pub struct CsrModel {
    address_width: u32,
    regs: Vec<RegDef>,
    fields: Vec<FieldDef>,
    decode: HashMap<u64, Hit>,
    hw_ports: Vec<HwPort>,
    out_ports: Vec<OutPort>,
    /// Per field, per element: the stored value (or the live input value, for `_i` fields).
    value: Vec<Vec<u64>>,
    /// Per field, per element: this cycle's `wp` pulse and write strobe (`_stb_o`).
    pulse: Vec<Vec<u64>>,
    strobe: Vec<Vec<bool>>,
    /// Per field, per element: this cycle's read strobe (`_rd_stb_o`).
    rd_strobe: Vec<Vec<bool>>,
    wr_lo: u32,
    wr_lo_strb: u8,
    rd_hi: u32,
    /// Reads between their AR handshake and the R register: the address, and the response of
    /// a fetched read (taken in its fetch cycle).
    rd: ReadStage<(u64, Option<(u64, u8)>)>,
    /// Per field (counters only ever count).
    counter_hits: Vec<CounterHits>,
}

/// The generated CSR block's two-stage AXI4-Lite read, as the blocks that embed one see it: a
/// read accepted at its AR handshake waits in the decode stage, and moves to the R register in
/// the first cycle in which R is empty or taken (RVALID the cycle after). Its effects (the
/// value read, clear or set on read, the 64-bit latch) happen in that cycle. One read waits at
/// most: the block's ARREADY is a flop that rises only when the stage is empty in the cycle it
/// takes the next read (the waiting one moved on in the cycle before), so reads are taken one
/// every two cycles at most. The model follows handshakes and needs no more of that.
#[derive(Clone, Debug)]
///
/// A read of a wide array's element (`cycle_fetching`) first spends the cycle after its AR
/// handshake in the fetch stage, and may move to R only after it.
pub struct ReadStage<T> {
    pend: Option<T>,
    /// Fetch cycles the waiting read still spends before it may move on (this one included).
    fetch: u8,
    /// This cycle is the waiting read's first fetch cycle (the one it takes effect in).
    first: bool,
    rvalid: bool,
}

impl<T> Default for ReadStage<T> {
    fn default() -> Self {
        Self {
            pend: None,
            fetch: 0,
            first: false,
            rvalid: false,
        }
    }
}

impl<T> ReadStage<T> {
    /// One clock cycle: `rready` says the R register's response is taken in it (RREADY, when
    /// RVALID is high), `accepted` is the read accepted in it. Returns the read that moves to
    /// the R register in this cycle, if any.
    pub fn cycle(&mut self, rready: bool, accepted: Option<T>) -> Option<T> {
        self.cycle_fetching(rready, accepted.map(|a| (a, 0)))
    }

    /// As `cycle`, with each accepted read saying how many fetch cycles it takes first.
    pub fn cycle_fetching(&mut self, rready: bool, accepted: Option<(T, u8)>) -> Option<T> {
        let adv = self.pend.is_some() && self.fetch == 0 && (!self.rvalid || rready);
        let moved = if adv { self.pend.take() } else { None };
        self.rvalid = adv || (self.rvalid && !rready);
        self.fetch = self.fetch.saturating_sub(1);
        self.first = false;
        // The block accepts a read only while nothing waits or the waiting one moves on.
        debug_assert!(
            accepted.is_none() || self.pend.is_none(),
            "a read was accepted while another waited"
        );
        if let Some((a, fetch)) = accepted {
            self.pend = Some(a);
            self.fetch = fetch;
            self.first = fetch > 0;
        }
        moved
    }

    /// The waiting read, when this cycle is its first fetch cycle (before `cycle_fetching`).
    pub fn fetching(&mut self) -> Option<&mut T> {
        if self.first {
            self.pend.as_mut()
        } else {
            None
        }
    }

    /// The waiting read, if any.
    pub fn waiting(&mut self) -> Option<&mut T> {
        self.pend.as_mut()
    }

    /// RVALID in this cycle.
    pub fn rvalid(&self) -> bool {
        self.rvalid
    }

    pub fn reset(&mut self) {
        self.pend = None;
        self.fetch = 0;
        self.first = false;
        self.rvalid = false;
    }
}

#[derive(Debug, PartialEq, Eq)]
pub enum ModelError {
    /// A group's count names a parameter that has no value.
    MissingParameter(String),
    CountOutOfRange {
        group: String,
        count: u64,
    },
}

impl std::fmt::Display for ModelError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ModelError::MissingParameter(p) => write!(f, "no value for parameter `{p}`"),
            ModelError::CountOutOfRange { group, count } => {
                write!(
                    f,
                    "group `{group}`: count {count} is outside the map's range"
                )
            }
        }
    }
}

impl std::error::Error for ModelError {}

impl CsrModel {
    /// A model of `map`'s CSR block with parameter values `params` (others: their defaults).
    pub fn new(map: &RegMap, params: &[(&str, i64)]) -> Result<CsrModel, ModelError> {
        let mut m = CsrModel {
            address_width: map.address_width,
            regs: Vec::new(),
            fields: Vec::new(),
            decode: HashMap::new(),
            hw_ports: Vec::new(),
            out_ports: Vec::new(),
            value: Vec::new(),
            pulse: Vec::new(),
            strobe: Vec::new(),
            rd_strobe: Vec::new(),
            wr_lo: 0,
            wr_lo_strb: 0,
            rd_hi: 0,
            rd: ReadStage::default(),
            counter_hits: Vec::new(),
        };
        for item in &map.items {
            let (group, regs, base, stride, count) = match item {
                Item::Register(r) => (None, std::slice::from_ref(r), 0, 0, 1),
                Item::Group(g) => {
                    let count = match &g.count {
                        Count::Fixed(n) => *n,
                        Count::Param(p) => match params.iter().find(|(n, _)| *n == p.text) {
                            Some((_, v)) => u64::try_from(*v).unwrap_or(0),
                            None => map
                                .parameter(p)
                                .map(|p| p.default)
                                .ok_or_else(|| ModelError::MissingParameter(p.text.clone()))?,
                        },
                    };
                    if count == 0 || count > g.max_count {
                        return Err(ModelError::CountOutOfRange {
                            group: g.name.text.clone(),
                            count,
                        });
                    }
                    (Some(g), &g.registers[..], g.offset, g.stride, count as u32)
                }
            };
            for r in regs {
                let ri = m.regs.len();
                let mut def = RegDef {
                    name: r.name.text.clone(),
                    group: group.map(|g| g.name.text.clone()),
                    base: base + r.offset,
                    stride,
                    count,
                    wide: r.width == 64,
                    readable: r.fields.iter().any(|f| reads(f.access)),
                    writable: r.fields.iter().any(|f| writes(f.access)),
                    fetch: match group {
                        Some(g) => 2 * u8::from(g.fetches_reads()),
                        None => u8::from(map.fetches_top_reads()),
                    },
                    fields: Vec::new(),
                    irq: Vec::new(),
                };
                for f in &r.fields {
                    let fi = m.fields.len();
                    let stored = f.is_stored();
                    let prefix = field_port_prefix(group, r, f);
                    let w = f.width();
                    let port = |m: &mut CsrModel, suffix: &str, kind: HwKind, width: u32| {
                        m.hw_ports.push(HwPort {
                            name: format!("{prefix}_{suffix}"),
                            kind,
                            width,
                            count,
                            field: fi,
                        });
                        m.hw_ports.len() - 1
                    };
                    let mut input_port = None;
                    if stored {
                        if f.hw_read {
                            m.out_ports.push(OutPort {
                                name: format!("{prefix}_o"),
                                width: w * count,
                                kind: OutKind::Value,
                                field: fi,
                            });
                        }
                        if f.has_write_strobe() {
                            m.out_ports.push(OutPort {
                                name: format!("{prefix}_stb_o"),
                                width: count,
                                kind: OutKind::Strobe,
                                field: fi,
                            });
                        }
                        if f.hw.write {
                            port(&mut m, "we_i", HwKind::LoadEnable, 1);
                            port(&mut m, "d_i", HwKind::LoadData, w);
                        }
                        if f.hw.clear {
                            port(&mut m, "clr_i", HwKind::Clear, w);
                        }
                        if f.hw.set {
                            port(&mut m, "set_i", HwKind::Set, w);
                        }
                        if let Some(c) = &f.hw.counter {
                            port(&mut m, "incr_i", HwKind::Increment, c.step_width);
                        }
                    } else if !f.constant {
                        input_port = Some(port(&mut m, "i", HwKind::Input, w));
                    }
                    // After the value and write strobe outputs, as the CSR block lists them.
                    if f.read_strobe {
                        m.out_ports.push(OutPort {
                            name: format!("{prefix}_rd_stb_o"),
                            width: count,
                            kind: OutKind::ReadStrobe,
                            field: fi,
                        });
                    }
                    m.fields.push(FieldDef {
                        reg: ri,
                        name: f.name.text.clone(),
                        msb: f.msb,
                        lsb: f.lsb,
                        access: f.access,
                        reset: f.reset,
                        stored,
                        constant: f.constant,
                        read_strobe: f.read_strobe,
                        load: f.hw.write,
                        clear: f.hw.clear,
                        set: f.hw.set,
                        counter: f.hw.counter.as_ref().map(|c| (c.step_width, c.saturate)),
                        input_port,
                        ports: [
                            HwKind::LoadEnable,
                            HwKind::LoadData,
                            HwKind::Clear,
                            HwKind::Set,
                            HwKind::Increment,
                        ]
                        .map(|k| m.hw_ports.iter().position(|p| p.field == fi && p.kind == k)),
                    });
                    def.fields.push(fi);
                }
                m.regs.push(def);
            }
        }
        // Interrupt pairs: the enable register lives in the same scope (top level or group).
        for item in &map.items {
            let regs: Vec<&rdmagen_regmap::Register> = match item {
                Item::Register(r) => vec![r],
                Item::Group(g) => g.registers.iter().collect(),
            };
            let group = match item {
                Item::Group(g) => Some(g.name.text.clone()),
                Item::Register(_) => None,
            };
            for r in &regs {
                let Some(en) = &r.interrupt_enable else {
                    continue;
                };
                let find = |name: &str| {
                    m.regs
                        .iter()
                        .position(|d| d.name == name && d.group == group)
                };
                let (Some(si), Some(ei)) = (find(&r.name), find(en)) else {
                    continue;
                };
                let pairs: Vec<(usize, usize)> = m.regs[si]
                    .fields
                    .iter()
                    .filter_map(|&sf| {
                        let e = m.regs[ei]
                            .fields
                            .iter()
                            .copied()
                            .find(|&ef| m.fields[ef].name == m.fields[sf].name)?;
                        Some((sf, e))
                    })
                    .collect();
                m.regs[si].irq = pairs;
            }
        }
        if m.regs.iter().any(|r| !r.irq.is_empty()) {
            m.out_ports.push(OutPort {
                name: "irq_o".into(),
                width: 1,
                kind: OutKind::Irq,
                field: 0,
            });
        }
        for (ri, r) in m.regs.iter().enumerate() {
            for elem in 0..r.count {
                let a = r.base + u64::from(elem) * r.stride;
                m.decode.insert(
                    a,
                    Hit {
                        reg: ri,
                        elem,
                        high: false,
                    },
                );
                if r.wide {
                    m.decode.insert(
                        a + 4,
                        Hit {
                            reg: ri,
                            elem,
                            high: true,
                        },
                    );
                }
            }
        }
        m.value = m
            .fields
            .iter()
            .map(|f| vec![0; m.regs[f.reg].count as usize])
            .collect();
        m.pulse = m.value.clone();
        m.strobe = m
            .fields
            .iter()
            .map(|f| vec![false; m.regs[f.reg].count as usize])
            .collect();
        m.rd_strobe = m.strobe.clone();
        m.counter_hits = vec![CounterHits::default(); m.fields.len()];
        m.reset();
        Ok(m)
    }

    /// The state right after reset.
    pub fn reset(&mut self) {
        for (fi, f) in self.fields.iter().enumerate() {
            let v = if f.stored || f.constant { f.reset } else { 0 };
            self.value[fi].fill(v);
            self.pulse[fi].fill(0);
            self.strobe[fi].fill(false);
            self.rd_strobe[fi].fill(false);
        }
        self.wr_lo = 0;
        self.wr_lo_strb = 0;
        self.rd_hi = 0;
        self.rd.reset();
    }

    pub fn address_width(&self) -> u32 {
        self.address_width
    }
    pub fn registers(&self) -> &[RegDef] {
        &self.regs
    }
    pub fn hw_ports(&self) -> &[HwPort] {
        &self.hw_ports
    }
    pub fn out_ports(&self) -> &[OutPort] {
        &self.out_ports
    }

    fn hit(&self, addr: u64) -> Option<Hit> {
        let a = addr & bits::ones(self.address_width) & !3;
        self.decode.get(&a).copied()
    }

    /// The value software reads from a field (0 for write-only ones).
    fn visible(&self, fi: usize, elem: u32) -> u64 {
        if reads(self.fields[fi].access) {
            self.value[fi][elem as usize]
        } else {
            0
        }
    }

    fn reg_value(&self, reg: usize, elem: u32) -> u64 {
        self.regs[reg].fields.iter().fold(0u64, |v, &fi| {
            v | self.visible(fi, elem) << self.fields[fi].lsb
        })
    }

    /// One clock cycle: the transfers the slave accepts in it, RREADY, and the hardware inputs
    /// driven in it (packed, aligned with [`Self::hw_ports`]). Returns the response the write
    /// accepted in this cycle will get, and the read data and response of the read that moves
    /// to the R register in this cycle (an earlier accepted read, reads in order).
    pub fn cycle(&mut self, bus: Bus, hw: &[Vec<u32>]) -> (Option<u8>, Option<(u64, u8)>) {
        // Live inputs first: a read in this cycle returns them.
        for (fi, f) in self.fields.iter().enumerate() {
            if let Some(p) = f.input_port {
                let w = f.width();
                for e in 0..self.regs[f.reg].count {
                    self.value[fi][e as usize] = bits::get(&hw[p], e * w, w);
                }
            }
        }

        // The decoded read moves on when the R register is empty or taken in this cycle; a read
        // accepted in this cycle takes its place.
        // A fetched read takes effect in its fetch cycle; it moves on later with its response.
        let fetch = self.rd.fetching().map(|p| p.0);
        let accepted = bus.read.map(|a| {
            let fetch = self.hit(a).map_or(0, |h| {
                let r = &self.regs[h.reg];
                if r.readable && !h.high {
                    r.fetch
                } else {
                    0
                }
            });
            ((a, None), fetch)
        });
        let moved = self.rd.cycle_fetching(bus.rready, accepted);
        let exec = fetch.or(match moved {
            Some((a, None)) => Some(a),
            _ => None,
        });

        let mut read_resp = None;
        let mut read_hit = None;
        let mut latch = None;
        if let Some(addr) = exec {
            read_resp = Some(match self.hit(addr) {
                None => (0, DECERR),
                Some(h) if !self.regs[h.reg].readable => (0, SLVERR),
                Some(h) if h.high => (u64::from(self.rd_hi), OKAY),
                Some(h) => {
                    let v = self.reg_value(h.reg, h.elem);
                    read_hit = Some(h);
                    if self.regs[h.reg].wide {
                        latch = Some((v >> 32) as u32);
                    }
                    (v & 0xffff_ffff, OKAY)
                }
            });
        }

        let mut write_resp = None;
        // (register, element, data, byte-mask) of a committing write.
        let mut commit = None;
        let mut store_lo = None;
        if let Some((addr, data, strb)) = bus.write {
            let data = data & 0xffff_ffff;
            let strb = strb & 0xf;
            write_resp = Some(match self.hit(addr) {
                None => DECERR,
                Some(h) if !self.regs[h.reg].writable => SLVERR,
                Some(h) if self.regs[h.reg].wide && !h.high => {
                    store_lo = Some((data as u32, strb));
                    OKAY
                }
                Some(h) if h.high => {
                    let d = data << 32 | u64::from(self.wr_lo);
                    let m = lane_mask(strb) << 32 | lane_mask(self.wr_lo_strb);
                    commit = Some((h, d, m));
                    OKAY
                }
                Some(h) => {
                    commit = Some((h, data, lane_mask(strb)));
                    OKAY
                }
            });
        }

        for fi in 0..self.fields.len() {
            let f = &self.fields[fi];
            // The read strobe: high after the edge of the cycle a read takes the value.
            if f.read_strobe {
                for (e, s) in self.rd_strobe[fi].iter_mut().enumerate() {
                    *s = read_hit.is_some_and(|h| h.reg == f.reg && h.elem as usize == e);
                }
            }
            if !f.stored {
                continue;
            }
            let (w, mask, count) = (f.width(), f.mask(), self.regs[f.reg].count);
            for e in 0..count {
                let ei = e as usize;
                let q = self.value[fi][ei];
                let mut d = if f.access == Access::Wp { 0 } else { q };
                let mut stb = false;
                // 1. software
                if let Some((h, data, m)) = commit {
                    if h.reg == f.reg && h.elem == e {
                        let wd = data >> f.lsb & mask;
                        let wm = m >> f.lsb & mask;
                        // The write strobe (`_stb_o`): any byte of the field written.
                        stb = wm != 0;
                        d = match f.access {
                            Access::Rw | Access::Wo => d & !wm | wd & wm,
                            Access::W1c => d & !(wd & wm),
                            Access::W1s => d | wd & wm,
                            Access::W0c => d & (wd | !wm),
                            Access::Wp => wd & wm,
                            Access::Ro | Access::Rc | Access::Rs => d,
                        };
                    }
                }
                if let Some(h) = read_hit {
                    if h.reg == f.reg && h.elem == e {
                        match f.access {
                            Access::Rc => d = 0,
                            Access::Rs => d = mask,
                            _ => {}
                        }
                    }
                }
                // 2-5. hardware: load, clear, set, count
                let port_val = |slot: usize, width: u32| {
                    f.ports[slot].map_or(0, |p| bits::get(&hw[p], e * width, width))
                };
                if f.load && port_val(0, 1) != 0 {
                    d = port_val(1, w);
                }
                if f.clear {
                    d &= !port_val(2, w);
                }
                if f.set {
                    d |= port_val(3, w);
                }
                if let Some((step, saturate)) = f.counter {
                    let incr = port_val(4, step);
                    let sum = u128::from(d) + u128::from(incr);
                    let hits = &mut self.counter_hits[fi];
                    if w > 32 && (d & 0xffff_ffff) + (incr & 0xffff_ffff) > 0xffff_ffff {
                        hits.low_carry += 1;
                    }
                    let over = sum > u128::from(mask);
                    if over {
                        hits.overflow += 1;
                    }
                    d = if over {
                        if saturate {
                            mask
                        } else {
                            (sum & u128::from(mask)) as u64
                        }
                    } else {
                        sum as u64
                    };
                }
                if f.access == Access::Wp {
                    self.pulse[fi][ei] = d;
                }
                self.strobe[fi][ei] = stb;
                self.value[fi][ei] = d & mask;
            }
        }
        if let Some((data, strb)) = store_lo {
            self.wr_lo = data;
            self.wr_lo_strb = strb;
        }
        if let Some(hi) = latch {
            self.rd_hi = hi;
        }
        let read_resp = match moved {
            Some((_, Some(fetched))) => Some(fetched),
            Some((_, None)) => read_resp,
            None => {
                // A fetch: the read keeps its response until it moves to R.
                if fetch.is_some() {
                    if let Some(p) = self.rd.waiting() {
                        p.1 = read_resp;
                    }
                }
                None
            }
        };
        (write_resp, read_resp)
    }

    /// RVALID as the block drives it in this cycle (before `cycle`).
    pub fn rvalid(&self) -> bool {
        self.rd.rvalid()
    }

    /// The value of output port `i` (after the cycle's clock edge), packed into `out`.
    pub fn output(&self, i: usize, out: &mut [u32]) {
        let p = &self.out_ports[i];
        out.fill(0);
        match p.kind {
            OutKind::Value => {
                let f = &self.fields[p.field];
                let w = f.width();
                for e in 0..self.regs[f.reg].count {
                    let v = if f.access == Access::Wp {
                        self.pulse[p.field][e as usize]
                    } else {
                        self.value[p.field][e as usize]
                    };
                    bits::set(out, e * w, w, v);
                }
            }
            OutKind::Strobe | OutKind::ReadStrobe => {
                let strobes = if p.kind == OutKind::Strobe {
                    &self.strobe
                } else {
                    &self.rd_strobe
                };
                for (e, s) in strobes[p.field].iter().enumerate() {
                    bits::set(out, e as u32, 1, u64::from(*s));
                }
            }
            OutKind::Irq => out[0] = u32::from(self.irq()),
        }
    }

    /// `irq_o`.
    pub fn irq(&self) -> bool {
        self.regs.iter().any(|r| {
            (0..r.count).any(|e| {
                r.irq
                    .iter()
                    .any(|&(s, en)| self.visible(s, e) & self.visible(en, e) != 0)
            })
        })
    }

    /// Every counter as `(register.field, width, hits)`, in map order (`group.register.field`
    /// in an array).
    pub fn counter_hits(&self) -> Vec<(String, u32, CounterHits)> {
        self.fields
            .iter()
            .zip(&self.counter_hits)
            .filter(|(f, _)| f.counter.is_some())
            .map(|(f, h)| {
                let r = &self.regs[f.reg];
                let name = match &r.group {
                    Some(g) => format!("{g}.{}.{}", r.name, f.name),
                    None => format!("{}.{}", r.name, f.name),
                };
                (name, f.width(), *h)
            })
            .collect()
    }

    /// The value of field `field` of register `reg` (element `elem`), for diagnostics.
    pub fn field_value(&self, reg: &str, field: &str, elem: u32) -> Option<u64> {
        let fi = self
            .fields
            .iter()
            .position(|f| self.regs[f.reg].name == reg && f.name == field)?;
        self.value[fi].get(elem as usize).copied()
    }
}

fn reads(a: Access) -> bool {
    !matches!(a, Access::Wo | Access::Wp)
}

fn writes(a: Access) -> bool {
    !matches!(a, Access::Ro | Access::Rc | Access::Rs)
}

/// WSTRB → bit mask of a 32-bit word.
fn lane_mask(strb: u8) -> u64 {
    (0..4).fold(0u64, |m, b| {
        if strb >> b & 1 == 1 {
            m | 0xff << (8 * b)
        } else {
            m
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn example() -> CsrModel {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../register-maps/example.yaml"
        );
        let map = rdmagen_regmap::load(std::path::Path::new(path)).expect("example map");
        CsrModel::new(&map, &[("NUM_PORTS", 2)]).unwrap()
    }

    fn hw(m: &CsrModel) -> Vec<Vec<u32>> {
        m.hw_ports()
            .iter()
            .map(|p| vec![0; bits::words(p.total_width())])
            .collect()
    }

    fn port(m: &CsrModel, name: &str) -> usize {
        m.hw_ports().iter().position(|p| p.name == name).unwrap()
    }

    #[test]
    fn responses_follow_the_map() {
        let mut m = example();
        let h = hw(&m);
        let w = |m: &mut CsrModel, a, d, s| {
            m.cycle(
                Bus {
                    write: Some((a, d, s)),
                    ..Bus::default()
                },
                &h,
            )
            .0
        };
        // Accepted in one cycle, answered in the next (RREADY high throughout).
        let r = |m: &mut CsrModel, a| {
            let accept = m.cycle(
                Bus {
                    read: Some(a),
                    rready: true,
                    ..Bus::default()
                },
                &h,
            );
            assert_eq!(accept.1, None, "no read data in the accept cycle");
            m.cycle(
                Bus {
                    rready: true,
                    ..Bus::default()
                },
                &h,
            )
            .1
            .unwrap()
        };
        assert_eq!(w(&mut m, 0x1c, 0x1234_5678, 0b0101), Some(OKAY));
        assert_eq!(r(&mut m, 0x1c), (0x0034_0078, OKAY));
        assert_eq!(
            w(&mut m, 0x04, 1, 0xf),
            Some(SLVERR),
            "status has no writable field"
        );
        assert_eq!(r(&mut m, 0x18), (0, SLVERR), "tx_tail is write-only");
        assert_eq!(r(&mut m, 0x3c), (0, DECERR));
        // Port array: element 1 exists, element 2 does not (NUM_PORTS = 2).
        assert_eq!(
            r(&mut m, 0x110),
            (1, OKAY),
            "port[1].cfg.enable resets to 1"
        );
        assert_eq!(r(&mut m, 0x120), (0, DECERR));
        // 64-bit: low write alone changes nothing; high write commits both halves.
        assert_eq!(w(&mut m, 0x20, 0xaaaa_0001, 0xf), Some(OKAY));
        assert_eq!(m.field_value("base_addr", "addr", 0), Some(0));
        assert_eq!(w(&mut m, 0x24, 0x5, 0xf), Some(OKAY));
        assert_eq!(m.field_value("base_addr", "addr", 0), Some(0x5_aaaa_0001));
        assert_eq!(r(&mut m, 0x20), (0xaaaa_0001, OKAY));
        assert_eq!(r(&mut m, 0x24), (0x5, OKAY));
    }

    #[test]
    fn hardware_wins_within_a_cycle() {
        let mut m = example();
        let mut h = hw(&m);
        let set = port(&m, "int_status_rx_done_set_i");
        h[set][0] = 1;
        m.cycle(Bus::default(), &h);
        assert_eq!(m.field_value("int_status", "rx_done", 0), Some(1));
        // Software clears while hardware sets again: stays set.
        let write = Some((0x08, 1, 0xf));
        m.cycle(
            Bus {
                write,
                ..Bus::default()
            },
            &h,
        );
        assert_eq!(m.field_value("int_status", "rx_done", 0), Some(1));
        h[set][0] = 0;
        m.cycle(
            Bus {
                write,
                ..Bus::default()
            },
            &h,
        );
        assert_eq!(m.field_value("int_status", "rx_done", 0), Some(0));
        // A counter read-to-clear in the cycle it counts restarts at the increment.
        let inc = port(&m, "pkt_count_count_incr_i");
        h[inc][0] = 1;
        for _ in 0..3 {
            m.cycle(Bus::default(), &h);
        }
        // Accepted with the fourth count; it reads and clears in the next cycle, which counts
        // the fifth.
        let read = Some(0x10);
        assert_eq!(
            m.cycle(
                Bus {
                    read,
                    ..Bus::default()
                },
                &h
            )
            .1,
            None
        );
        assert_eq!(m.field_value("pkt_count", "count", 0), Some(4));
        let (_, rd) = m.cycle(Bus::default(), &h);
        assert_eq!(rd, Some((4, OKAY)));
        assert_eq!(m.field_value("pkt_count", "count", 0), Some(1));
    }

    #[test]
    fn a_read_waits_for_the_r_register() {
        let mut m = example();
        let h = hw(&m);
        let scratch = |v| Some((0x1c, v, 0xf));
        m.cycle(
            Bus {
                write: scratch(1),
                read: Some(0x1c),
                ..Bus::default()
            },
            &h,
        );
        // The first read moves to R in the next cycle and sees the write accepted with it.
        let (_, rd) = m.cycle(
            Bus {
                read: Some(0x1c),
                ..Bus::default()
            },
            &h,
        );
        assert_eq!(rd, Some((1, OKAY)));
        // R stays full without RREADY: the second read waits and sees a later write.
        m.cycle(
            Bus {
                write: scratch(2),
                ..Bus::default()
            },
            &h,
        );
        let (_, rd) = m.cycle(
            Bus {
                rready: true,
                ..Bus::default()
            },
            &h,
        );
        assert_eq!(rd, Some((2, OKAY)));
        let (_, rd) = m.cycle(
            Bus {
                rready: true,
                ..Bus::default()
            },
            &h,
        );
        assert_eq!(rd, None);
    }

    #[test]
    fn a_wide_array_read_is_fetched_first() {
        // uar.yaml: `vf` can hold up to 256 elements; `vf[1].doorbells` at 0x1014 clears on
        // read; `ctrl` at 0x000 is a top-level register.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps/uar.yaml");
        let map = rdmagen_regmap::load(std::path::Path::new(path)).expect("uar map");
        let mut m = CsrModel::new(&map, &[("NUM_VF", 4)]).unwrap();
        let mut h = hw(&m);
        let incr = port(&m, "vf_doorbells_count_incr_i");
        let idle = Bus::default();
        // Count 1 for vf[1], then read it; the count goes on in every later cycle.
        let w = m.hw_ports()[incr].width;
        bits::set(&mut h[incr], w, w, 1);
        m.cycle(idle, &h);
        let read = |a| Bus {
            read: Some(a),
            rready: true,
            ..Bus::default()
        };
        let go = Bus {
            rready: true,
            ..Bus::default()
        };
        assert_eq!(m.cycle(read(0x1014), &h).1, None);
        // The first fetch cycle: the value read is the count before it (2), cleared as it is
        // read.
        assert!(!m.rvalid());
        assert_eq!(m.cycle(go, &h).1, None);
        assert_eq!(m.field_value("doorbells", "count", 1), Some(1));
        // The second fetch cycle (the run's word is selected): the count goes on.
        assert!(!m.rvalid());
        assert_eq!(m.cycle(go, &h).1, None);
        assert_eq!(m.field_value("doorbells", "count", 1), Some(2));
        // Then it moves to R (RVALID the cycle after), four cycles after its AR handshake.
        assert!(!m.rvalid());
        assert_eq!(m.cycle(go, &h).1, Some((2, OKAY)));
        assert!(m.rvalid());
        // A top-level register moves to R in the cycle after its AR handshake.
        assert_eq!(m.cycle(read(0x000), &h).1, None);
        // (ctrl: bf_enable resets to 1, enable to 0.)
        assert_eq!(m.cycle(go, &h).1, Some((2, OKAY)));
    }

    #[test]
    fn interrupts_need_status_and_enable() {
        let mut m = example();
        let mut h = hw(&m);
        h[port(&m, "int_status_error_set_i")][0] = 1;
        m.cycle(Bus::default(), &h);
        assert!(!m.irq());
        h[port(&m, "int_status_error_set_i")][0] = 0;
        m.cycle(
            Bus {
                write: Some((0x0c, 0b100, 0xf)),
                ..Bus::default()
            },
            &h,
        );
        assert!(m.irq());
    }

    #[test]
    fn counts_outside_the_map_range_are_refused() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../register-maps/example.yaml"
        );
        let map = rdmagen_regmap::load(std::path::Path::new(path)).unwrap();
        assert!(matches!(
            CsrModel::new(&map, &[("NUM_PORTS", 9)]),
            Err(ModelError::CountOutOfRange { .. })
        ));
    }
}
