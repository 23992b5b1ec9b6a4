//! Reference model of the UAR doorbell/BlueFlame block, one AXI4 write at a time, written from
//! SPEC §3, FACTS §2 and the UAR maps (`register-maps/uar.yaml`, `uar-mlx5.yaml`):
//!
//! - the page number of the address selects the owning function (`page >> PW`, a function's
//!   BAR2 being `2^PW` pages with `PW = clog2(PAGES_PER_VF)`) and the page index;
//! - a doorbell is the first 8 bytes of the WQE control segment, big-endian
//!   (`opmod[63:56] wqe_index[55:40] opcode[39:32] qpn[31:8] ds[7:0]`), written as one 8-byte
//!   write or as two 4-byte writes, low address first, with no other write to that
//!   function's pages in between;
//! - it fetches only if the QP belongs to the writing VF, names the page index it came
//!   through as its `uar_page`, and is in RTS; a whole-WQE write to a BlueFlame window (a
//!   burst of full beats that holds the `ds` x 16 bytes its control segment names) is pushed
//!   out as is, after the same check;
//! - a WQE written in 64-byte write-combining chunks (rdma-core's `mlx5_bf_copy`), each its
//!   own burst: the first chunk (a burst of 64-byte multiples from the window's start, shorter
//!   than `ds` x 16 bytes) is the send doorbell of its first 8 bytes (the WQE is in the send
//!   queue too, so the fetch loses nothing); a continuation chunk (64-byte multiples at the
//!   window's offsets 64 k > 0, within it) is not needed then and is dropped, answered OKAY;
//! - everything else is dropped with a reason from the map's `drop_reason` enum; unmapped
//!   or foreign addresses answer DECERR, PF-only pages SLVERR.
//!
//! The model keeps the QP table itself (the test bench mirrors every QPC command into it).

use std::collections::HashMap;

use rdmagen_regmap::RegMap;

pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;
pub const DECERR: u8 = 3;

/// mlx5 RTS.
pub const RTS: u32 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    SendDoorbell,
    BlueFlame,
    Forward,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Window {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    pub role: Role,
}

/// Drop reasons (values from the map).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reasons {
    pub not_owner: u8,
    pub wrong_page: u8,
    pub qp_state: u8,
    pub unmapped: u8,
    pub pf_only: u8,
    pub torn: u8,
    pub disabled: u8,
    pub bf_chunk: u8,
}

/// The result of a write as the block reports it (`mon_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Result_ {
    Fetch,
    BlueFlame,
    Drop,
    Pending,
    Forward,
}

impl Result_ {
    pub fn code(self) -> u8 {
        match self {
            Result_::Fetch => 0,
            Result_::BlueFlame => 1,
            Result_::Drop => 2,
            Result_::Pending => 3,
            Result_::Forward => 4,
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Result_::Fetch => "fetch",
            Result_::BlueFlame => "blueflame",
            Result_::Drop => "drop",
            Result_::Pending => "pending",
            Result_::Forward => "forward",
        }
    }
}

/// One event (the monitor port's view).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub result: Result_,
    pub reason: u8,
    pub vf: u8,
    pub pf: bool,
    pub page: u8,
    pub qpn: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fetch {
    pub vf: u8,
    pub qpn: u32,
    pub wqe_index: u16,
    pub ds: u8,
    pub opcode: u8,
}

/// A BlueFlame WQE on the stream: its beats (bytes in address order, little-endian lanes)
/// and `tuser = {vf, qpn}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wqe {
    pub beats: Vec<u64>,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fwd {
    pub vf: u8,
    pub win: u8,
    pub data: u64,
}

/// One AXI4 write: requester, address, burst and beats (64-bit data, 8 strobes).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Write {
    pub pf: bool,
    pub vf: u8,
    pub addr: u32,
    pub size: u8,
    pub burst: u8,
    pub beats: Vec<(u64, u8)>,
}

/// What one write produces, in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Outcome {
    /// A torn pair dropped before this write (at most one), then this write's own event.
    pub events: Vec<Event>,
    pub fetch: Option<Fetch>,
    pub wqe: Option<Wqe>,
    pub fwd: Option<Fwd>,
    pub bresp: u8,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Qp {
    pub state: u32,
    pub uar_page: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Pending {
    win: usize,
    page: u8,
    lo: u32,
}

/// Software-visible configuration (CSRs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    pub enable: bool,
    pub bf_enable: bool,
    pub active_pages: u32,
    pub pf_only_mask: u16,
    pub vf_enable: Vec<bool>,
}

/// Counters as the CSRs hold them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub db_accepted: u64,
    pub bf_accepted: u64,
    /// By drop reason value (index 0 unused).
    pub drops: [u64; 16],
    pub vf_doorbells: Vec<u64>,
    pub vf_drops: Vec<u64>,
    /// `<prefix>_db_forwarded` by window index.
    pub forwarded: Vec<u64>,
    pub last_drop: Option<(u8, u8, u8, u32)>,
}

pub struct UarModel {
    pub num_vf: u32,
    pub pages_per_vf: u32,
    pub windows: Vec<Window>,
    pub reasons: Reasons,
    pub cfg: Config,
    pub counters: Counters,
    qps: HashMap<u32, Qp>,
    pending: Vec<Option<Pending>>,
}

fn pw(pages: u32) -> u32 {
    if pages > 1 {
        32 - (pages - 1).leading_zeros()
    } else {
        0
    }
}

impl UarModel {
    pub fn new(map: &RegMap, num_vf: u32, pages_per_vf: u32) -> Result<UarModel, String> {
        let space = map.space("uar_page").ok_or("no space `uar_page`")?;
        let windows = space
            .windows
            .iter()
            .map(|w| {
                let role = if w.size > 8 {
                    Role::BlueFlame
                } else if w.size == 8 && w.fields.iter().any(|f| f.name.text == "qpn") {
                    Role::SendDoorbell
                } else {
                    Role::Forward
                };
                Window {
                    name: w.name.text.clone(),
                    offset: w.offset,
                    size: w.size,
                    role,
                }
            })
            .collect();
        let e = map
            .enumeration("drop_reason")
            .ok_or("no enum drop_reason")?;
        let v = |n: &str| -> Result<u8, String> {
            e.values
                .iter()
                .find(|x| x.name.text == n)
                .map(|x| x.value as u8)
                .ok_or(format!("drop_reason has no {n}"))
        };
        let reasons = Reasons {
            not_owner: v("NOT_OWNER")?,
            wrong_page: v("WRONG_PAGE")?,
            qp_state: v("QP_STATE")?,
            unmapped: v("UNMAPPED")?,
            pf_only: v("PF_ONLY")?,
            torn: v("TORN")?,
            disabled: v("DISABLED")?,
            bf_chunk: v("BF_CHUNK")?,
        };
        let mut m = UarModel {
            num_vf,
            pages_per_vf,
            windows,
            reasons,
            cfg: Config {
                enable: false,
                bf_enable: true,
                active_pages: 1,
                pf_only_mask: 0,
                vf_enable: vec![false; num_vf as usize],
            },
            counters: Counters::default(),
            qps: HashMap::new(),
            pending: Vec::new(),
        };
        m.reset();
        Ok(m)
    }

    /// Reset values (the QP table is cleared too).
    pub fn reset(&mut self) {
        let n = self.num_vf as usize;
        self.cfg = Config {
            enable: false,
            bf_enable: true,
            active_pages: 1,
            pf_only_mask: 0,
            vf_enable: vec![false; n],
        };
        self.counters = Counters {
            vf_doorbells: vec![0; n],
            vf_drops: vec![0; n],
            forwarded: vec![0; self.windows.len()],
            ..Counters::default()
        };
        self.qps.clear();
        self.pending = vec![None; n];
    }

    /// Page-index bits.
    pub fn pw(&self) -> u32 {
        pw(self.pages_per_vf)
    }

    /// The AXI address of `offset` in page index `page` of function `vf`'s BAR2.
    pub fn address(&self, vf: u32, page: u32, offset: u32) -> u32 {
        ((vf << self.pw()) + page) << 12 | offset
    }

    /// Sets (or removes) the QP `qpn` as the QPC holds it.
    pub fn set_qp(&mut self, qpn: u32, qp: Option<Qp>) {
        match qp {
            Some(q) => {
                self.qps.insert(qpn, q);
            }
            None => {
                self.qps.remove(&qpn);
            }
        }
    }

    pub fn qp(&self, qpn: u32) -> Option<Qp> {
        self.qps.get(&qpn).copied()
    }

    fn eff_pages(&self) -> u32 {
        let a = self.cfg.active_pages;
        if a == 0 || a > self.pages_per_vf {
            self.pages_per_vf
        } else {
            a
        }
    }

    /// The doorbell check of the QPC: QPN `{0, vf, local}` in the writer's partition, a live
    /// QP, the page it came through, RTS.
    fn check(&self, vf: u8, qpn: u32, page: u8) -> Result<(), u8> {
        let r = &self.reasons;
        if qpn >> 20 != 0 || (qpn >> 12) & 0xff != u32::from(vf) {
            return Err(r.not_owner);
        }
        let qp = self.qps.get(&qpn).ok_or(r.not_owner)?;
        if qp.uar_page != u32::from(page) {
            return Err(r.wrong_page);
        }
        if qp.state != RTS {
            return Err(r.qp_state);
        }
        Ok(())
    }

    fn count_drop(&mut self, e: &Event) {
        self.counters.drops[e.reason as usize] += 1;
        if u32::from(e.vf) < self.num_vf {
            self.counters.vf_drops[e.vf as usize] += 1;
        }
        self.counters.last_drop = Some((e.reason, e.page, e.vf, e.qpn));
    }

    /// Processes one write, in the order the block takes them.
    pub fn write(&mut self, w: &Write) -> Outcome {
        let mut out = Outcome::default();
        let r = self.reasons;
        let page = w.addr >> 12;
        let off = u64::from(w.addr & 0xfff);
        let owner = page >> self.pw();
        let idx = page & ((1 << self.pw()) - 1);
        let nofunc = !w.pf && u32::from(w.vf) >= self.num_vf;
        let ev_vf = if w.pf { owner as u8 } else { w.vf };
        let mut ev = Event {
            result: Result_::Drop,
            reason: 0,
            vf: ev_vf,
            pf: w.pf,
            page: (idx & 0xf) as u8,
            qpn: 0,
        };
        let disabled = !self.cfg.enable || (!w.pf && !nofunc && !self.cfg.vf_enable[w.vf as usize]);
        let outside = nofunc
            || owner >= self.num_vf
            || (!w.pf && owner != u32::from(w.vf))
            || idx >= self.eff_pages();
        let pf_only = !w.pf && (self.cfg.pf_only_mask >> (idx & 0xf)) & 1 == 1;
        let pre = if disabled {
            Some(r.disabled)
        } else if outside {
            Some(r.unmapped)
        } else if pf_only {
            Some(r.pf_only)
        } else {
            None
        };
        let finish = |m: &mut Self, out: &mut Outcome, ev: Event| {
            if ev.result == Result_::Drop {
                m.count_drop(&ev);
            }
            out.events.push(ev);
        };
        if let Some(reason) = pre {
            ev.reason = reason;
            out.bresp = if reason == r.unmapped {
                DECERR
            } else if reason == r.pf_only {
                SLVERR
            } else {
                OKAY
            };
            finish(self, &mut out, ev);
            return out;
        }
        // Decode the shape of the write.
        let single = w.beats.len() == 1;
        let (d0, s0) = w.beats[0];
        let be = d0.swap_bytes();
        enum Shape {
            Db64(usize, u64),
            Lo(usize),
            Hi(usize),
            Bf,
            /// The first chunk of a WQE written in 64-byte chunks: a doorbell.
            FirstChunk(usize, u64),
            /// A later chunk of such a WQE.
            Chunk,
            F32(usize, u64),
            None,
        }
        let mut shape = Shape::None;
        for (k, win) in self.windows.iter().enumerate() {
            let at8 = off >> 3 == win.offset >> 3;
            let halves = |s0: u8| match s0 {
                0xFF => Shape::Db64(k, be),
                0x0F => Shape::Lo(k),
                0xF0 => Shape::Hi(k),
                _ => Shape::None,
            };
            match (win.role, win.size) {
                (Role::SendDoorbell, _) | (Role::Forward, 8) | (Role::BlueFlame, _)
                    if single && at8 =>
                {
                    shape = halves(s0);
                }
                (Role::Forward, 4) if single && at8 => {
                    let lanes = if win.offset % 8 == 4 { 0xF0 } else { 0x0F };
                    if s0 == lanes {
                        let v = if lanes == 0x0F {
                            be >> 32
                        } else {
                            be & 0xffff_ffff
                        };
                        shape = Shape::F32(k, v);
                    }
                }
                (Role::BlueFlame, size)
                    if !single
                        && off == win.offset
                        && w.burst == 1
                        && w.size == 3
                        && w.beats.iter().all(|b| b.1 == 0xFF)
                        && (w.beats.len() as u64) * 8 <= size
                        && self.cfg.bf_enable =>
                {
                    let bytes = (w.beats.len() as u64) * 8;
                    if (be & 0xFF) * 16 <= bytes {
                        shape = Shape::Bf;
                    } else if bytes.is_multiple_of(64) {
                        shape = Shape::FirstChunk(k, be);
                    }
                }
                (Role::BlueFlame, size)
                    if !single
                        && off > win.offset
                        && (off - win.offset).is_multiple_of(64)
                        && w.burst == 1
                        && w.size == 3
                        && w.beats.len().is_multiple_of(8)
                        && w.beats.iter().all(|b| b.1 == 0xFF)
                        && off - win.offset + (w.beats.len() as u64) * 8 <= size
                        && self.cfg.bf_enable =>
                {
                    shape = Shape::Chunk;
                }
                _ => {}
            }
            if !matches!(shape, Shape::None) {
                break;
            }
        }
        // A pending low half is torn by any other write to the function's pages.
        let slot = owner as usize;
        if let Some(p) = self.pending[slot] {
            let completes = matches!(shape, Shape::Hi(k) if k == p.win && p.page == ev.page);
            if !completes {
                self.pending[slot] = None;
                let torn = Event {
                    result: Result_::Drop,
                    reason: r.torn,
                    vf: ev_vf,
                    pf: w.pf,
                    page: p.page,
                    qpn: 0,
                };
                finish(self, &mut out, torn);
            }
        }
        let is_fwd = |m: &Self, k: usize| m.windows[k].role == Role::Forward;
        let value = match shape {
            Shape::None => {
                ev.reason = r.unmapped;
                out.bresp = DECERR;
                finish(self, &mut out, ev);
                return out;
            }
            Shape::Lo(k) => {
                self.pending[slot] = Some(Pending {
                    win: k,
                    page: ev.page,
                    lo: (be >> 32) as u32,
                });
                ev.result = Result_::Pending;
                finish(self, &mut out, ev);
                return out;
            }
            Shape::Hi(k) => match self.pending[slot].take() {
                Some(p) => Some((k, u64::from(p.lo) << 32 | (be & 0xffff_ffff))),
                None => {
                    ev.reason = r.torn;
                    finish(self, &mut out, ev);
                    return out;
                }
            },
            Shape::Db64(k, v) => Some((k, v)),
            Shape::FirstChunk(k, v) => Some((k, v)),
            Shape::Chunk => {
                ev.reason = r.bf_chunk;
                finish(self, &mut out, ev);
                return out;
            }
            Shape::F32(k, v) => {
                self.counters.forwarded[k] += 1;
                out.fwd = Some(Fwd {
                    vf: ev_vf,
                    win: k as u8,
                    data: v,
                });
                ev.result = Result_::Forward;
                finish(self, &mut out, ev);
                return out;
            }
            Shape::Bf => None,
        };
        if let Some((k, v)) = value {
            if is_fwd(self, k) {
                self.counters.forwarded[k] += 1;
                out.fwd = Some(Fwd {
                    vf: ev_vf,
                    win: k as u8,
                    data: v,
                });
                ev.result = Result_::Forward;
                finish(self, &mut out, ev);
                return out;
            }
        }
        // Doorbell or BlueFlame: the QPC check.
        let v = value.map_or(be, |(_, v)| v);
        let qpn = (v >> 8 & 0xff_ffff) as u32;
        ev.qpn = qpn;
        match self.check(ev_vf, qpn, ev.page) {
            Err(reason) => {
                ev.reason = reason;
                finish(self, &mut out, ev);
            }
            Ok(()) => {
                if u32::from(ev_vf) < self.num_vf {
                    self.counters.vf_doorbells[ev_vf as usize] += 1;
                }
                if value.is_some() {
                    self.counters.db_accepted += 1;
                    ev.result = Result_::Fetch;
                    out.fetch = Some(Fetch {
                        vf: ev_vf,
                        qpn,
                        wqe_index: (v >> 40) as u16,
                        ds: v as u8,
                        opcode: (v >> 32) as u8,
                    });
                } else {
                    self.counters.bf_accepted += 1;
                    ev.result = Result_::BlueFlame;
                    out.wqe = Some(Wqe {
                        beats: w.beats.iter().map(|b| b.0).collect(),
                        user: u32::from(ev_vf) << 24 | qpn,
                    });
                }
                out.events.push(ev);
            }
        }
        out
    }

    /// Whether an outcome is hostile: dropped for any reason but DISABLED.
    /// Continuation chunks are a driver's ordinary writes, not hostile.
    pub fn hostile(&self, o: &Outcome) -> bool {
        o.events.iter().any(|e| {
            e.result == Result_::Drop
                && e.reason != self.reasons.disabled
                && e.reason != self.reasons.bf_chunk
        })
    }
}
