//! AXI4-Lite master with random idle and backpressure.
//!
//! Writes and reads run independently (as a CPU's posted writes and loads do), each in order.
//! A write presents AW and W on their own schedules; it is accepted in the cycle the later of
//! the two handshakes happens. The master checks the slave's side of the protocol: a `B` or
//! `R` that is not expected, or a response that changes or drops while `ready` is low, is a
//! violation.

use std::collections::VecDeque;

use crate::port::RawPort;
use crate::stall::{split_seed, Profile, Stall};

/// What the master needs from an AXI4-Lite slave's pins.
pub trait AxiLitePins {
    fn data_bytes(&self) -> usize;
    fn set_aw(&self, valid: bool, addr: u64);
    fn set_w(&self, valid: bool, data: u64, strb: u8);
    fn set_bready(&self, ready: bool);
    fn set_ar(&self, valid: bool, addr: u64);
    fn set_rready(&self, ready: bool);
    fn awready(&self) -> bool;
    fn wready(&self) -> bool;
    fn arready(&self) -> bool;
    /// `Some(resp)` while `bvalid`.
    fn b(&self) -> Option<u8>;
    /// `Some((data, resp))` while `rvalid`.
    fn r(&self) -> Option<(u64, u8)>;
}

/// The 19 pins of an AXI4-Lite slave, by their names after the prefix (`s_axil_`).
pub const LITE_PINS: [&str; 19] = [
    "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp",
    "bvalid", "bready", "araddr", "arprot", "arvalid", "arready", "rdata", "rresp", "rvalid",
    "rready",
];

/// An AXI4-Lite slave with a 32-bit data bus reached through a model's detached ports: the
/// [`AxiLitePins`] of a bench that finds its ports by name at run time.
pub struct RawLite {
    p: [RawPort; 19],
}

impl RawLite {
    /// The slave whose pins are `prefix` + each of [`LITE_PINS`]; `port` finds a pin by its
    /// full name.
    ///
    /// # Safety
    /// The model the ports come from must outlive the returned value, and its methods must
    /// be called only between evaluations of the model.
    pub unsafe fn find<E>(
        prefix: &str,
        mut port: impl FnMut(&str) -> Result<RawPort, E>,
    ) -> Result<RawLite, E> {
        let mut p = Vec::with_capacity(LITE_PINS.len());
        for name in LITE_PINS {
            p.push(port(&format!("{prefix}{name}"))?);
        }
        Ok(RawLite {
            p: p.try_into().unwrap_or_else(|_| unreachable!("19 pins")),
        })
    }

    fn rd(&self, pin: usize) -> u64 {
        let mut w = [0u32; 2];
        // SAFETY: promised by the caller of `find`.
        unsafe { self.p[pin].get() }.read(&mut w);
        u64::from(w[0]) | u64::from(w[1]) << 32
    }

    fn wr(&self, pin: usize, v: u64) {
        // SAFETY: promised by the caller of `find`.
        unsafe { self.p[pin].get() }.write(&[v as u32, (v >> 32) as u32]);
    }
}

impl AxiLitePins for RawLite {
    fn data_bytes(&self) -> usize {
        4
    }
    fn set_aw(&self, valid: bool, addr: u64) {
        self.wr(2, u64::from(valid));
        self.wr(0, addr);
        self.wr(1, 0);
    }
    fn set_w(&self, valid: bool, data: u64, strb: u8) {
        self.wr(6, u64::from(valid));
        self.wr(4, data);
        self.wr(5, u64::from(strb));
    }
    fn set_bready(&self, ready: bool) {
        self.wr(10, u64::from(ready));
    }
    fn set_ar(&self, valid: bool, addr: u64) {
        self.wr(13, u64::from(valid));
        self.wr(11, addr);
        self.wr(12, 0);
    }
    fn set_rready(&self, ready: bool) {
        self.wr(18, u64::from(ready));
    }
    fn awready(&self) -> bool {
        self.rd(3) == 1
    }
    fn wready(&self) -> bool {
        self.rd(7) == 1
    }
    fn arready(&self) -> bool {
        self.rd(14) == 1
    }
    fn b(&self) -> Option<u8> {
        (self.rd(9) == 1).then(|| self.rd(8) as u8)
    }
    fn r(&self) -> Option<(u64, u8)> {
        (self.rd(17) == 1).then(|| (self.rd(15), self.rd(16) as u8))
    }
}

pub const OKAY: u8 = 0;
pub const SLVERR: u8 = 2;
pub const DECERR: u8 = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Event {
    /// Both AW and W handshakes are done: the slave took the write in this cycle.
    WriteAccepted {
        tag: u64,
        addr: u64,
        data: u64,
        strb: u8,
    },
    /// AR handshake in this cycle.
    ReadAccepted {
        tag: u64,
        addr: u64,
    },
    WriteDone {
        tag: u64,
        resp: u8,
    },
    ReadDone {
        tag: u64,
        data: u64,
        resp: u8,
    },
}

/// Idle and backpressure of each channel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    pub aw: Profile,
    pub w: Profile,
    pub ar: Profile,
    pub b: Profile,
    pub r: Profile,
}

impl Timing {
    /// The same profile on every channel.
    pub fn uniform(p: Profile) -> Timing {
        Timing {
            aw: p,
            w: p,
            ar: p,
            b: p,
            r: p,
        }
    }
}

struct Write {
    tag: u64,
    addr: u64,
    data: u64,
    strb: u8,
}

pub struct AxiLiteMaster {
    writes: VecDeque<Write>,
    reads: VecDeque<(u64, u64)>,
    b_expect: VecDeque<u64>,
    r_expect: VecDeque<u64>,
    aw_done: bool,
    w_done: bool,
    // What `drive` presented this cycle.
    aw_valid: bool,
    w_valid: bool,
    ar_valid: bool,
    bready: bool,
    rready: bool,
    // A response seen with ready low must stay put.
    b_held: Option<u8>,
    r_held: Option<(u64, u8)>,
    stalls: [Stall; 5],
    next_tag: u64,
    violations: Vec<String>,
}

impl AxiLiteMaster {
    pub fn new(seed: u64, t: Timing) -> Self {
        let s = |i, p| Stall::new(split_seed(seed, i), p);
        AxiLiteMaster {
            writes: VecDeque::new(),
            reads: VecDeque::new(),
            b_expect: VecDeque::new(),
            r_expect: VecDeque::new(),
            aw_done: false,
            w_done: false,
            aw_valid: false,
            w_valid: false,
            ar_valid: false,
            bready: false,
            rready: false,
            b_held: None,
            r_held: None,
            stalls: [s(1, t.aw), s(2, t.w), s(3, t.ar), s(4, t.b), s(5, t.r)],
            next_tag: 0,
            violations: Vec::new(),
        }
    }

    fn tag(&mut self) -> u64 {
        self.next_tag += 1;
        self.next_tag
    }

    /// Queues a write; the returned tag names it in events.
    pub fn write(&mut self, addr: u64, data: u64, strb: u8) -> u64 {
        let tag = self.tag();
        self.writes.push_back(Write {
            tag,
            addr,
            data,
            strb,
        });
        tag
    }

    pub fn read(&mut self, addr: u64) -> u64 {
        let tag = self.tag();
        self.reads.push_back((tag, addr));
        tag
    }

    /// Writes and reads not yet answered.
    pub fn pending(&self) -> usize {
        self.writes.len() + self.reads.len() + self.b_expect.len() + self.r_expect.len()
    }

    pub fn is_idle(&self) -> bool {
        self.pending() == 0
    }

    /// Protocol violations seen so far (slave side).
    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    /// Step 1 of a cycle: drive AW, W, AR, BREADY, RREADY.
    pub fn drive(&mut self, pins: &impl AxiLitePins) {
        // A valid, once raised, stays up until its handshake.
        let head = self.writes.front();
        self.aw_valid = match head {
            Some(_) if !self.aw_done => self.aw_valid || !self.stalls[0].hold(),
            _ => false,
        };
        self.w_valid = match head {
            Some(_) if !self.w_done => self.w_valid || !self.stalls[1].hold(),
            _ => false,
        };
        let (addr, data, strb) = head.map_or((0, 0, 0), |w| (w.addr, w.data, w.strb));
        pins.set_aw(self.aw_valid, if self.aw_valid { addr } else { 0 });
        if self.w_valid {
            pins.set_w(true, data, strb);
        } else {
            pins.set_w(false, 0, 0);
        }
        self.ar_valid = match self.reads.front() {
            Some(_) => self.ar_valid || !self.stalls[2].hold(),
            None => false,
        };
        let ar = self.reads.front().map_or(0, |r| r.1);
        pins.set_ar(self.ar_valid, if self.ar_valid { ar } else { 0 });
        self.bready = !self.stalls[3].hold();
        self.rready = !self.stalls[4].hold();
        pins.set_bready(self.bready);
        pins.set_rready(self.rready);
    }

    /// Step 3 of a cycle (after `eval`): handshakes of this cycle, as events.
    pub fn observe(&mut self, pins: &impl AxiLitePins, events: &mut Vec<Event>) {
        if self.aw_valid && pins.awready() {
            self.aw_done = true;
            self.aw_valid = false;
        }
        if self.w_valid && pins.wready() {
            self.w_done = true;
            self.w_valid = false;
        }
        if self.aw_done && self.w_done {
            if let Some(w) = self.writes.pop_front() {
                events.push(Event::WriteAccepted {
                    tag: w.tag,
                    addr: w.addr,
                    data: w.data,
                    strb: w.strb,
                });
                self.b_expect.push_back(w.tag);
            }
            self.aw_done = false;
            self.w_done = false;
        }
        if self.ar_valid && pins.arready() {
            if let Some((tag, addr)) = self.reads.pop_front() {
                events.push(Event::ReadAccepted { tag, addr });
                self.r_expect.push_back(tag);
            }
            self.ar_valid = false;
        }
        // Responses: checked for stability, taken when ready.
        let b = pins.b();
        if let Some(held) = self.b_held {
            if b != Some(held) {
                self.violations.push(format!(
                    "B changed from {held} to {b:?} while BREADY was low"
                ));
            }
        }
        self.b_held = None;
        if let Some(resp) = b {
            if self.bready {
                match self.b_expect.pop_front() {
                    Some(tag) => events.push(Event::WriteDone { tag, resp }),
                    None => self.violations.push("B with no write outstanding".into()),
                }
            } else {
                self.b_held = Some(resp);
            }
        }
        let r = pins.r();
        if let Some(held) = self.r_held {
            if r != Some(held) {
                self.violations.push(format!(
                    "R changed from {held:?} to {r:?} while RREADY was low"
                ));
            }
        }
        self.r_held = None;
        if let Some((data, resp)) = r {
            if self.rready {
                match self.r_expect.pop_front() {
                    Some(tag) => events.push(Event::ReadDone { tag, data, resp }),
                    None => self.violations.push("R with no read outstanding".into()),
                }
            } else {
                self.r_held = Some((data, resp));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;

    /// A register-file slave in Rust, to test the master without Verilator. Its readies follow
    /// the valids in the same cycle (the generated CSR blocks register theirs): the master must
    /// work with either.
    #[derive(Default)]
    struct Slave {
        awvalid: Cell<bool>,
        awaddr: Cell<u64>,
        wvalid: Cell<bool>,
        wdata: Cell<u64>,
        wstrb: Cell<u8>,
        bready: Cell<bool>,
        arvalid: Cell<bool>,
        araddr: Cell<u64>,
        rready: Cell<bool>,
        bvalid: Cell<bool>,
        bresp: Cell<u8>,
        rvalid: Cell<bool>,
        rdata: Cell<u64>,
        rresp: Cell<u8>,
        mem: [Cell<u32>; 16],
    }

    impl AxiLitePins for Slave {
        fn data_bytes(&self) -> usize {
            4
        }
        fn set_aw(&self, v: bool, a: u64) {
            self.awvalid.set(v);
            self.awaddr.set(a);
        }
        fn set_w(&self, v: bool, d: u64, s: u8) {
            self.wvalid.set(v);
            self.wdata.set(d);
            self.wstrb.set(s);
        }
        fn set_bready(&self, r: bool) {
            self.bready.set(r);
        }
        fn set_ar(&self, v: bool, a: u64) {
            self.arvalid.set(v);
            self.araddr.set(a);
        }
        fn set_rready(&self, r: bool) {
            self.rready.set(r);
        }
        fn awready(&self) -> bool {
            self.wr_en()
        }
        fn wready(&self) -> bool {
            self.wr_en()
        }
        fn arready(&self) -> bool {
            self.arvalid.get() && (!self.rvalid.get() || self.rready.get())
        }
        fn b(&self) -> Option<u8> {
            self.bvalid.get().then(|| self.bresp.get())
        }
        fn r(&self) -> Option<(u64, u8)> {
            self.rvalid
                .get()
                .then(|| (self.rdata.get(), self.rresp.get()))
        }
    }

    impl Slave {
        fn wr_en(&self) -> bool {
            self.awvalid.get() && self.wvalid.get() && (!self.bvalid.get() || self.bready.get())
        }
        fn tick(&self) {
            let (wr, rd) = (self.wr_en(), self.arready());
            if self.bvalid.get() && self.bready.get() {
                self.bvalid.set(false);
            }
            if self.rvalid.get() && self.rready.get() {
                self.rvalid.set(false);
            }
            if wr {
                let i = (self.awaddr.get() / 4) as usize;
                self.bvalid.set(true);
                self.bresp.set(if i < 16 { OKAY } else { DECERR });
                if let Some(m) = self.mem.get(i) {
                    let mut v = m.get();
                    for b in 0..4 {
                        if self.wstrb.get() >> b & 1 == 1 {
                            v = v & !(0xff << (8 * b))
                                | (self.wdata.get() as u32) & (0xff << (8 * b));
                        }
                    }
                    m.set(v);
                }
            }
            if rd {
                let i = (self.araddr.get() / 4) as usize;
                self.rvalid.set(true);
                self.rdata
                    .set(self.mem.get(i).map_or(0, |m| u64::from(m.get())));
                self.rresp.set(if i < 16 { OKAY } else { DECERR });
            }
        }
    }

    #[test]
    fn every_transfer_completes_in_order_under_stalls() {
        for seed in 0..20 {
            let slave = Slave::default();
            let mut m = AxiLiteMaster::new(seed, Timing::uniform(Profile::new(40, 3)));
            let mut expect = std::collections::HashMap::new();
            for i in 0..50u64 {
                m.write(4 * (i % 20), 0x1000 + i, 0xf);
                let t = m.read(4 * (i % 20));
                expect.insert(t, i);
            }
            let mut ev = Vec::new();
            let mut done = 0;
            for _ in 0..5000 {
                m.drive(&slave);
                m.observe(&slave, &mut ev);
                slave.tick();
                done += ev
                    .drain(..)
                    .filter(|e| matches!(e, Event::WriteDone { .. } | Event::ReadDone { .. }))
                    .count();
                if m.is_idle() {
                    break;
                }
            }
            assert!(m.is_idle(), "seed {seed}: {} pending", m.pending());
            assert_eq!(done, 100);
            assert!(m.violations().is_empty(), "{:?}", m.violations());
        }
    }
}
