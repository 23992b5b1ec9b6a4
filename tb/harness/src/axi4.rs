//! AXI4 write-burst master (AW/W/B) with random idle and backpressure.
//!
//! [`Axi4WriteMaster::write`] splits a byte buffer into one INCR burst of full-width beats with
//! byte strobes (an unaligned start or end leaves strobes low), the way a CPU's write-combining
//! buffer or a PCIe bridge writes a doorbell or a BlueFlame WQE. [`Axi4WriteMaster::raw`] sends
//! any AW and beat list, for hostile tests (wrong `WLAST`, narrow sizes, FIXED bursts).
//! W beats may lead their AW, as AXI4 allows.

use std::collections::VecDeque;

use crate::stall::{split_seed, Profile, Stall};

/// The AW channel payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct AwBeat {
    pub id: u32,
    pub addr: u64,
    /// Beats minus one.
    pub len: u8,
    /// log2 of bytes per beat.
    pub size: u8,
    /// 0 FIXED, 1 INCR, 2 WRAP.
    pub burst: u8,
}

/// One W beat: little-endian 32-bit data words and one strobe bit per byte.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct WBeat {
    pub data: Vec<u32>,
    pub strb: u128,
    pub last: bool,
}

pub trait Axi4WritePins {
    fn data_bytes(&self) -> usize;
    fn set_aw(&self, valid: bool, aw: &AwBeat);
    fn set_w(&self, valid: bool, data: &[u32], strb: u128, last: bool);
    fn set_bready(&self, ready: bool);
    fn awready(&self) -> bool;
    fn wready(&self) -> bool;
    /// `Some((id, resp))` while `bvalid`.
    fn b(&self) -> Option<(u32, u8)>;
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Event {
    AwAccepted { tag: u64, aw: AwBeat },
    WAccepted { tag: u64, beat: usize },
    WriteDone { tag: u64, id: u32, resp: u8 },
}

#[derive(Debug, PartialEq, Eq)]
pub enum BurstError {
    Empty,
    TooLong { beats: usize },
    Crosses4K { addr: u64, len: usize },
}

impl std::fmt::Display for BurstError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BurstError::Empty => write!(f, "empty write"),
            BurstError::TooLong { beats } => {
                write!(f, "{beats} beats: an INCR burst has at most 256")
            }
            BurstError::Crosses4K { addr, len } => {
                write!(f, "{len} bytes at {addr:#x} cross a 4 KiB boundary")
            }
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Timing {
    pub aw: Profile,
    pub w: Profile,
    pub b: Profile,
}

struct Burst {
    tag: u64,
    aw: AwBeat,
    beats: Vec<WBeat>,
}

pub struct Axi4WriteMaster {
    data_bytes: usize,
    aw_queue: VecDeque<(u64, AwBeat)>,
    w_queue: VecDeque<(u64, usize, WBeat)>,
    /// Bursts whose AW was accepted, waiting for B (in order: one ID).
    b_expect: VecDeque<u64>,
    aw_valid: bool,
    w_valid: bool,
    bready: bool,
    b_held: Option<(u32, u8)>,
    stalls: [Stall; 3],
    next_tag: u64,
    violations: Vec<String>,
}

impl Axi4WriteMaster {
    /// `data_bytes`: the bus width in bytes (a power of two, at most 128).
    pub fn new(data_bytes: usize, seed: u64, t: Timing) -> Self {
        let s = |i, p| Stall::new(split_seed(seed, i), p);
        Axi4WriteMaster {
            data_bytes,
            aw_queue: VecDeque::new(),
            w_queue: VecDeque::new(),
            b_expect: VecDeque::new(),
            aw_valid: false,
            w_valid: false,
            bready: false,
            b_held: None,
            stalls: [s(11, t.aw), s(12, t.w), s(13, t.b)],
            next_tag: 0,
            violations: Vec::new(),
        }
    }

    /// One INCR burst writing `bytes` at `addr`.
    pub fn write(&mut self, addr: u64, bytes: &[u8]) -> Result<u64, BurstError> {
        let (aw, beats) = incr_burst(self.data_bytes, addr, bytes)?;
        Ok(self.raw(aw, beats))
    }

    /// Any AW and W beats, unchecked.
    pub fn raw(&mut self, aw: AwBeat, beats: Vec<WBeat>) -> u64 {
        self.next_tag += 1;
        let tag = self.next_tag;
        let b = Burst { tag, aw, beats };
        self.aw_queue.push_back((b.tag, b.aw));
        for (i, w) in b.beats.into_iter().enumerate() {
            self.w_queue.push_back((tag, i, w));
        }
        tag
    }

    pub fn is_idle(&self) -> bool {
        self.aw_queue.is_empty() && self.w_queue.is_empty() && self.b_expect.is_empty()
    }

    pub fn violations(&self) -> &[String] {
        &self.violations
    }

    pub fn drive(&mut self, pins: &impl Axi4WritePins) {
        self.aw_valid = !self.aw_queue.is_empty() && (self.aw_valid || !self.stalls[0].hold());
        match (self.aw_valid, self.aw_queue.front()) {
            (true, Some((_, aw))) => pins.set_aw(true, aw),
            _ => pins.set_aw(false, &AwBeat::default()),
        }
        self.w_valid = !self.w_queue.is_empty() && (self.w_valid || !self.stalls[1].hold());
        match (self.w_valid, self.w_queue.front()) {
            (true, Some((_, _, w))) => pins.set_w(true, &w.data, w.strb, w.last),
            _ => pins.set_w(false, &[], 0, false),
        }
        self.bready = !self.stalls[2].hold();
        pins.set_bready(self.bready);
    }

    pub fn observe(&mut self, pins: &impl Axi4WritePins, events: &mut Vec<Event>) {
        if self.aw_valid && pins.awready() {
            if let Some((tag, aw)) = self.aw_queue.pop_front() {
                events.push(Event::AwAccepted { tag, aw });
                self.b_expect.push_back(tag);
            }
            self.aw_valid = false;
        }
        if self.w_valid && pins.wready() {
            if let Some((tag, beat, _)) = self.w_queue.pop_front() {
                events.push(Event::WAccepted { tag, beat });
            }
            self.w_valid = false;
        }
        let b = pins.b();
        if let Some(held) = self.b_held {
            if b != Some(held) {
                self.violations.push(format!(
                    "B changed from {held:?} to {b:?} while BREADY was low"
                ));
            }
        }
        self.b_held = None;
        if let Some((id, resp)) = b {
            if self.bready {
                match self.b_expect.pop_front() {
                    Some(tag) => events.push(Event::WriteDone { tag, id, resp }),
                    None => self.violations.push("B with no burst outstanding".into()),
                }
            } else {
                self.b_held = Some((id, resp));
            }
        }
    }
}

/// Splits `bytes` at `addr` into full-width INCR beats with strobes.
pub fn incr_burst(
    data_bytes: usize,
    addr: u64,
    bytes: &[u8],
) -> Result<(AwBeat, Vec<WBeat>), BurstError> {
    if bytes.is_empty() {
        return Err(BurstError::Empty);
    }
    let end = addr + bytes.len() as u64;
    if addr / 4096 != (end - 1) / 4096 {
        return Err(BurstError::Crosses4K {
            addr,
            len: bytes.len(),
        });
    }
    let db = data_bytes as u64;
    let first = addr / db;
    let last = (end - 1) / db;
    let n = (last - first + 1) as usize;
    if n > 256 {
        return Err(BurstError::TooLong { beats: n });
    }
    let words = data_bytes.div_ceil(4);
    let mut beats = Vec::with_capacity(n);
    for b in 0..n {
        let base = (first + b as u64) * db;
        let mut data = vec![0u32; words];
        let mut strb = 0u128;
        for lane in 0..data_bytes {
            let a = base + lane as u64;
            if a >= addr && a < end {
                let byte = bytes[(a - addr) as usize];
                data[lane / 4] |= u32::from(byte) << (8 * (lane % 4));
                strb |= 1 << lane;
            }
        }
        beats.push(WBeat {
            data,
            strb,
            last: b + 1 == n,
        });
    }
    let aw = AwBeat {
        id: 0,
        addr,
        len: (n - 1) as u8,
        size: data_bytes.trailing_zeros() as u8,
        burst: 1,
    };
    Ok((aw, beats))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    #[test]
    fn bursts_carry_bytes_and_strobes() {
        let (aw, beats) = incr_burst(8, 0x1003, &[1, 2, 3, 4, 5, 6, 7]).unwrap();
        assert_eq!((aw.len, aw.size, aw.burst), (1, 3, 1));
        assert_eq!(beats[0].strb, 0xf8);
        assert_eq!(beats[0].data, vec![0x0100_0000, 0x0504_0302]);
        assert_eq!(beats[1].strb, 0x03);
        assert_eq!(beats[1].data, vec![0x0706, 0]);
        assert!(beats[1].last && !beats[0].last);
        assert_eq!(
            incr_burst(8, 0xffc, &[0; 8]),
            Err(BurstError::Crosses4K {
                addr: 0xffc,
                len: 8
            })
        );
        assert_eq!(incr_burst(8, 0, &[]), Err(BurstError::Empty));
    }

    /// A slave that stores bytes, accepts AW and W whenever it has room for one burst.
    #[derive(Default)]
    struct Slave {
        aw: Cell<Option<AwBeat>>,
        awvalid: Cell<bool>,
        w: RefCell<(bool, Vec<u32>, u128, bool)>,
        bready: Cell<bool>,
        cur: Cell<Option<(AwBeat, u32)>>,
        b: Cell<Option<(u32, u8)>>,
        mem: RefCell<Vec<u8>>,
        busy: Cell<bool>,
    }

    impl Axi4WritePins for Slave {
        fn data_bytes(&self) -> usize {
            8
        }
        fn set_aw(&self, valid: bool, aw: &AwBeat) {
            self.awvalid.set(valid);
            self.aw.set(Some(*aw));
        }
        fn set_w(&self, valid: bool, data: &[u32], strb: u128, last: bool) {
            *self.w.borrow_mut() = (valid, data.to_vec(), strb, last);
        }
        fn set_bready(&self, r: bool) {
            self.bready.set(r);
        }
        fn awready(&self) -> bool {
            self.cur.get().is_none() && !self.busy.get()
        }
        fn wready(&self) -> bool {
            self.cur.get().is_some()
        }
        fn b(&self) -> Option<(u32, u8)> {
            self.b.get()
        }
    }

    impl Slave {
        fn tick(&self) {
            // Handshakes as the master saw them, before any state changes.
            let aw_fire = self.awvalid.get() && self.awready();
            if self.b.get().is_some() && self.bready.get() {
                self.b.set(None);
                self.busy.set(false);
            }
            let w = self.w.borrow().clone();
            if let (true, Some((aw, i))) = (w.0, self.cur.get()) {
                let base = aw.addr / 8 * 8 + 8 * u64::from(i);
                let mut mem = self.mem.borrow_mut();
                for lane in 0..8 {
                    if w.2 >> lane & 1 == 1 {
                        mem[(base + lane) as usize] =
                            (w.1[lane as usize / 4] >> (8 * (lane % 4))) as u8;
                    }
                }
                if w.3 {
                    self.cur.set(None);
                    self.b.set(Some((aw.id, 0)));
                } else {
                    self.cur.set(Some((aw, i + 1)));
                }
            } else if aw_fire {
                self.cur.set(self.aw.get().map(|a| (a, 0)));
                self.busy.set(true);
            }
        }
    }

    #[test]
    fn bursts_arrive_under_stalls() {
        for seed in 0..10 {
            let s = Slave::default();
            s.mem.borrow_mut().resize(8192, 0);
            let p = Profile::new(40, 3);
            let mut m = Axi4WriteMaster::new(8, seed, Timing { aw: p, w: p, b: p });
            let mut expect = vec![0u8; 8192];
            for i in 0..30u64 {
                let addr = 64 * i + (i % 7);
                let bytes: Vec<u8> = (0..(1 + i * 3 % 60)).map(|b| (b + i) as u8).collect();
                expect[addr as usize..addr as usize + bytes.len()].copy_from_slice(&bytes);
                m.write(addr, &bytes).unwrap();
            }
            let mut ev = Vec::new();
            for _ in 0..20_000 {
                m.drive(&s);
                m.observe(&s, &mut ev);
                s.tick();
                if m.is_idle() {
                    break;
                }
            }
            assert!(m.is_idle(), "seed {seed}");
            assert_eq!(*s.mem.borrow(), expect);
            assert_eq!(
                ev.iter()
                    .filter(|e| matches!(e, Event::WriteDone { .. }))
                    .count(),
                30
            );
            assert!(m.violations().is_empty());
        }
    }
}
