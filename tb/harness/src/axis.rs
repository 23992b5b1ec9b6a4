//! AXI4-Stream source and sink with random idle and backpressure.
//!
//! The source splits frames into beats (`tkeep` contiguous from byte 0, the last beat partial)
//! and may leave `tvalid` low between beats. The sink takes beats when its `tready` allows,
//! rebuilds frames from the bytes whose `tkeep` is set, and checks the source's side of the
//! protocol: once `tvalid` is up it must stay up, with the same beat, until `tready`.

use std::collections::VecDeque;

use crate::stall::{Profile, Stall};

/// One beat: little-endian 32-bit data words, one keep bit per byte.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Beat {
    pub data: Vec<u32>,
    pub keep: u128,
    pub last: bool,
    pub user: u64,
}

impl Beat {
    pub fn empty(data_bytes: usize) -> Beat {
        Beat {
            data: vec![0; data_bytes.div_ceil(4)],
            ..Beat::default()
        }
    }
}

/// `tkeep` with the low `n` bytes set.
pub fn all_bytes(n: usize) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// Pins of a stream that goes into the block.
pub trait AxisInPins {
    fn data_bytes(&self) -> usize;
    fn set_beat(&self, valid: bool, beat: &Beat);
    fn ready(&self) -> bool;
}

/// Pins of a stream that comes out of the block.
pub trait AxisOutPins {
    fn data_bytes(&self) -> usize;
    fn set_ready(&self, ready: bool);
    fn valid(&self) -> bool;
    fn read_beat(&self, beat: &mut Beat);
}

/// Splits a frame into beats of `data_bytes`.
pub fn beats(data_bytes: usize, frame: &[u8], user: u64) -> Vec<Beat> {
    let chunks: Vec<&[u8]> = if frame.is_empty() {
        vec![&[][..]]
    } else {
        frame.chunks(data_bytes).collect()
    };
    let n = chunks.len();
    chunks
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let mut b = Beat::empty(data_bytes);
            for (j, byte) in c.iter().enumerate() {
                b.data[j / 4] |= u32::from(*byte) << (8 * (j % 4));
            }
            b.keep = all_bytes(c.len());
            b.last = i + 1 == n;
            b.user = user;
            b
        })
        .collect()
}

pub struct AxisSource {
    data_bytes: usize,
    queue: VecDeque<(u64, Beat)>,
    valid: bool,
    idle: Stall,
    next_tag: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SourceEvent {
    /// A beat was taken; `last` ends frame `tag`.
    Beat { tag: u64, last: bool },
}

impl AxisSource {
    pub fn new(data_bytes: usize, seed: u64, idle: Profile) -> Self {
        AxisSource {
            data_bytes,
            queue: VecDeque::new(),
            valid: false,
            idle: Stall::new(seed, idle),
            next_tag: 0,
        }
    }
    pub fn send(&mut self, frame: &[u8], user: u64) -> u64 {
        self.next_tag += 1;
        let tag = self.next_tag;
        for b in beats(self.data_bytes, frame, user) {
            self.queue.push_back((tag, b));
        }
        tag
    }
    /// Any beats, unchecked (for malformed streams).
    pub fn send_beats(&mut self, beats: Vec<Beat>) -> u64 {
        self.next_tag += 1;
        let tag = self.next_tag;
        self.queue.extend(beats.into_iter().map(|b| (tag, b)));
        tag
    }
    pub fn is_idle(&self) -> bool {
        self.queue.is_empty()
    }
    pub fn beats_queued(&self) -> usize {
        self.queue.len()
    }
    pub fn drive(&mut self, pins: &impl AxisInPins) {
        self.valid = !self.queue.is_empty() && (self.valid || !self.idle.hold());
        match (self.valid, self.queue.front()) {
            (true, Some((_, b))) => pins.set_beat(true, b),
            _ => pins.set_beat(false, &Beat::empty(self.data_bytes)),
        }
    }
    pub fn observe(&mut self, pins: &impl AxisInPins, events: &mut Vec<SourceEvent>) {
        if self.valid && pins.ready() {
            if let Some((tag, b)) = self.queue.pop_front() {
                events.push(SourceEvent::Beat { tag, last: b.last });
            }
            self.valid = false;
        }
    }
}

/// A frame the sink rebuilt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub bytes: Vec<u8>,
    /// `tuser` of the last beat.
    pub user: u64,
    pub beats: usize,
}

pub struct AxisSink {
    ready: bool,
    backpressure: Stall,
    cur: Vec<u8>,
    cur_beats: usize,
    held: Option<Beat>,
    scratch: Beat,
    frames: VecDeque<Frame>,
    beats_taken: u64,
    violations: Vec<String>,
}

impl AxisSink {
    pub fn new(data_bytes: usize, seed: u64, backpressure: Profile) -> Self {
        AxisSink {
            ready: false,
            backpressure: Stall::new(seed, backpressure),
            cur: Vec::new(),
            cur_beats: 0,
            held: None,
            scratch: Beat::empty(data_bytes),
            frames: VecDeque::new(),
            beats_taken: 0,
            violations: Vec::new(),
        }
    }
    pub fn drive(&mut self, pins: &impl AxisOutPins) {
        self.ready = !self.backpressure.hold();
        pins.set_ready(self.ready);
    }
    /// Returns `true` when a beat was taken in this cycle.
    pub fn observe(&mut self, pins: &impl AxisOutPins) -> bool {
        let valid = pins.valid();
        if valid {
            pins.read_beat(&mut self.scratch);
        }
        if let Some(h) = self.held.take() {
            if !valid {
                self.violations.push("TVALID dropped before TREADY".into());
            } else if h != self.scratch {
                self.violations.push(format!(
                    "beat changed while TREADY was low: {h:?} -> {:?}",
                    self.scratch
                ));
            }
        }
        if !valid {
            return false;
        }
        if !self.ready {
            self.held = Some(self.scratch.clone());
            return false;
        }
        let b = &self.scratch;
        for lane in 0..(b.data.len() * 4).min(128) {
            if b.keep >> lane & 1 == 1 {
                self.cur.push((b.data[lane / 4] >> (8 * (lane % 4))) as u8);
            }
        }
        self.cur_beats += 1;
        self.beats_taken += 1;
        if b.last {
            self.frames.push_back(Frame {
                bytes: std::mem::take(&mut self.cur),
                user: b.user,
                beats: std::mem::take(&mut self.cur_beats),
            });
        }
        true
    }
    pub fn pop(&mut self) -> Option<Frame> {
        self.frames.pop_front()
    }
    pub fn beats_taken(&self) -> u64 {
        self.beats_taken
    }
    /// Bytes of a frame still being received.
    pub fn partial(&self) -> usize {
        self.cur.len()
    }
    pub fn violations(&self) -> &[String] {
        &self.violations
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::{Cell, RefCell};

    /// A wire: what the source drives, the sink sees.
    struct Wire {
        bytes: usize,
        valid: Cell<bool>,
        beat: RefCell<Beat>,
        ready: Cell<bool>,
    }
    impl AxisInPins for Wire {
        fn data_bytes(&self) -> usize {
            self.bytes
        }
        fn set_beat(&self, valid: bool, beat: &Beat) {
            self.valid.set(valid);
            *self.beat.borrow_mut() = beat.clone();
        }
        fn ready(&self) -> bool {
            self.ready.get()
        }
    }
    impl AxisOutPins for Wire {
        fn data_bytes(&self) -> usize {
            self.bytes
        }
        fn set_ready(&self, ready: bool) {
            self.ready.set(ready);
        }
        fn valid(&self) -> bool {
            self.valid.get()
        }
        fn read_beat(&self, beat: &mut Beat) {
            beat.clone_from(&self.beat.borrow());
        }
    }

    #[test]
    fn frames_pass_intact_under_idle_and_backpressure() {
        for (bytes, seed) in [(8, 1), (64, 2), (128, 3)] {
            let w = Wire {
                bytes,
                valid: Cell::new(false),
                beat: RefCell::new(Beat::empty(bytes)),
                ready: Cell::new(false),
            };
            let mut src = AxisSource::new(bytes, seed, Profile::new(30, 4));
            let mut sink = AxisSink::new(bytes, seed + 100, Profile::new(50, 5));
            let frames: Vec<Vec<u8>> = (0..40)
                .map(|i| (0..(1 + i * 37 % 300)).map(|b| (b * 7 + i) as u8).collect())
                .collect();
            for (i, f) in frames.iter().enumerate() {
                src.send(f, i as u64);
            }
            let mut ev = Vec::new();
            for _ in 0..100_000 {
                src.drive(&w);
                sink.drive(&w);
                src.observe(&w, &mut ev);
                sink.observe(&w);
                if src.is_idle() {
                    break;
                }
            }
            for (i, f) in frames.iter().enumerate() {
                let got = sink.pop().expect("frame");
                assert_eq!(&got.bytes, f);
                assert_eq!(got.user, i as u64);
            }
            assert!(sink.violations().is_empty(), "{:?}", sink.violations());
        }
    }

    #[test]
    fn sink_flags_an_unstable_source() {
        let w = Wire {
            bytes: 4,
            valid: Cell::new(true),
            beat: RefCell::new(Beat::empty(4)),
            ready: Cell::new(false),
        };
        let mut sink = AxisSink::new(4, 0, Profile::new(100, 1));
        sink.drive(&w);
        sink.observe(&w);
        w.beat.borrow_mut().data[0] = 1;
        sink.drive(&w);
        sink.observe(&w);
        assert_eq!(sink.violations().len(), 1);
    }
}
