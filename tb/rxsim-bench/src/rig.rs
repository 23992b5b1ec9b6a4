//! A closed-loop driver of `rx_top`: both AXI4-Lite masters (parser CSRs, QPC), the frame
//! source and the verdict sink, one call per clock cycle; it can record every input it
//! drove (the pin file) and folds the outputs into the pin file's checksum.

use std::collections::HashMap;

use rdmagen_harness::axil::{AxiLiteMaster, Event, RawLite, Timing};
use rdmagen_harness::axis::{AxisInPins, AxisSource, Beat, SourceEvent};
use rdmagen_harness::stall::{Profile, Stall};
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::qpc::{set, set64, Layout, MkLayout};

use crate::pins::{fold, PinFile, FOLD, INPUTS, UNFOLDED};

/// QPC CSR addresses (register-maps/qpc.yaml).
pub mod qpc_addr {
    pub const STATUS: u64 = 0x004;
    pub const CMD_CTRL: u64 = 0x010;
    pub const CMD_TARGET: u64 = 0x014;
    pub const CMD_STATUS: u64 = 0x018;
    pub const MAILBOX: u64 = 0x080;
}

/// Parser CSR addresses (register-maps/rx_parser.yaml).
pub mod addr {
    pub const CTRL: u64 = 0x000;
    pub const UDP_DPORT: u64 = 0x004;
    pub const P_KEY: u64 = 0x008;
    pub const FRAMES_SEEN: u64 = 0x100;
    pub const VERDICT_ACCEPT: u64 = 0x108;
    pub const EVENT_CNP: u64 = 0x180;
    pub const EVENT_CE: u64 = 0x184;
}

/// Cycles from the cycle a frame's tlast beat is taken to the cycle its verdict is valid
/// (the generator's `VERDICT_LATENCY`, taken from it so the two cannot drift).
pub const VERDICT_LATENCY: u64 = rdmagen_rxparser::VERDICT_LATENCY as u64;

/// A verdict as the RTL shows it, with the cycle it was taken in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seen {
    pub cycle: u64,
    pub verdict: u8,
    pub reason: u8,
    pub vf: u8,
    pub opcode: u8,
    pub qpn: u32,
    pub psn: u32,
}

/// What happened in one cycle.
#[derive(Default)]
pub struct Step {
    pub axil: Vec<Event>,
    pub qaxil: Vec<Event>,
    pub beats: Vec<SourceEvent>,
    pub verdict: Option<Seen>,
    pub cnp: bool,
    pub ce: bool,
}

/// A QP created through the mailbox: CREATE_QP, then RST2INIT, INIT2RTR, RTR2RTS.
#[derive(Clone, Debug)]
pub struct QpSpec {
    pub vf: u8,
    pub local: u16,
    /// 0 RC, 1 UC, 2 UD.
    pub st: u8,
    pub pd: u32,
    pub epsn: u32,
    pub mtu: u8,
}

impl QpSpec {
    pub fn qpn(&self) -> u32 {
        u32::from(self.vf) << 12 | u32::from(self.local)
    }
}

/// A memory key created through the mailbox (CREATE_MKEY), every remote right.
#[derive(Clone, Debug)]
pub struct KeySpec {
    pub vf: u8,
    pub index: u32,
    pub key: u8,
    pub pd: u32,
    pub va: u64,
    pub length: u64,
}

impl KeySpec {
    pub fn rkey(&self) -> u32 {
        self.index << 8 | u32::from(self.key)
    }
}

pub struct Rig<M: Model> {
    dut: M,
    pins: HashMap<&'static str, RawPort>,
    inputs: Vec<RawPort>,
    fold: Vec<(RawPort, Option<RawPort>)>,
    pub data_bytes: usize,
    pub cycle: u64,
    record: Option<Vec<u32>>,
    pub checksum: u64,
    pub axil: AxiLiteMaster,
    pub qaxil: AxiLiteMaster,
    pub source: AxisSource,
    sink: Stall,
    // The pins `step` touches every cycle, found once: by name they cost 38 `format!`s and a
    // dozen hash lookups a cycle, which the harness-speed benchmark would charge to the model.
    lite: RawLite,
    qlite: RawLite,
    axis: Axis,
    hot: HotPins,
}

/// The single pins `step` drives or samples every cycle.
struct HotPins {
    rst: RawPort,
    hdr_ready: RawPort,
    ack_ready: RawPort,
    pay_tready: RawPort,
    hdr_valid: RawPort,
    hdr_verdict: RawPort,
    hdr_reason: RawPort,
    hdr_vf: RawPort,
    hdr_opcode: RawPort,
    hdr_qpn: RawPort,
    hdr_psn: RawPort,
    cnp_valid: RawPort,
    ce_valid: RawPort,
}

/// The low 64 bits of a port (a 1024-bit parser's `m_pay_tkeep` is 128 bits wide).
fn rd(p: &RawPort) -> u64 {
    let mut w = [0u32; 32];
    // SAFETY: the rig owns the model; ports are touched only between evaluations.
    let d = unsafe { p.get() };
    d.read(&mut w[..d.words()]);
    u64::from(w[0]) | u64::from(w[1]) << 32
}

/// Folds a port into the checksum 64 bits at a time, low bits first: one fold for ports of up
/// to 64 bits, as the C++ harness (which runs only the 512-bit model) folds them.
fn fold_port(sum: u64, p: &RawPort) -> u64 {
    let mut w = [0u32; 32];
    // SAFETY: see `rd`.
    let d = unsafe { p.get() };
    let n = d.words();
    d.read(&mut w[..n]);
    w[..n.max(1)].chunks(2).fold(sum, |s, c| {
        fold(
            s,
            u64::from(c[0]) | c.get(1).map_or(0, |&h| u64::from(h) << 32),
        )
    })
}

fn wr(p: &RawPort, v: u64) {
    // SAFETY: see `rd`.
    unsafe { p.get() }.write(&[v as u32, (v >> 32) as u32]);
}

impl<M: Model> Rig<M> {
    /// A fresh model (not reset); `record` keeps every cycle's inputs for [`Rig::pin_file`].
    /// An error if the model's ports are not those the pin file lists.
    pub fn new(record: bool, seed: u64, axil_timing: Timing) -> Result<Self, String> {
        let dut = M::create();
        let declared: Vec<&str> = M::PORTS
            .iter()
            .filter(|p| p.input && p.name != "clk")
            .map(|p| p.name)
            .collect();
        if declared != INPUTS {
            return Err(format!(
                "{}: inputs {declared:?}; the pin file (src/pins.rs, benches/cpp_harness.cpp, \
                 sim/cocotb/speed/test_rx_speed.py) drives {INPUTS:?}",
                M::VARIANT
            ));
        }
        let outputs: Vec<&str> = M::PORTS
            .iter()
            .filter(|p| !p.input && !UNFOLDED.contains(&p.name))
            .map(|p| p.name)
            .collect();
        let mut folded: Vec<&str> = FOLD.iter().map(|(n, _)| *n).collect();
        folded.sort_unstable();
        let mut sorted = outputs.clone();
        sorted.sort_unstable();
        if sorted != folded {
            return Err(format!(
                "{}: outputs {outputs:?} are not the checksum's (src/pins.rs FOLD, UNFOLDED)",
                M::VARIANT
            ));
        }
        let pins: HashMap<&'static str, RawPort> = M::PORTS
            .iter()
            .map(|info| {
                // SAFETY: the rig owns the model and drops the handles with it.
                let raw = unsafe { dut.port(info.name).expect("listed port").detach() };
                (info.name, raw)
            })
            .collect();
        let inputs = INPUTS.iter().map(|n| pins[n]).collect();
        let fold = FOLD
            .iter()
            .map(|(n, q)| (pins[n], q.map(|q| pins[q])))
            .collect();
        let data_bytes = (pins["s_axis_tdata"].width() / 8) as usize;
        let lite = |prefix: &str| {
            let found = |name: &str| Ok::<_, std::convert::Infallible>(pins[name]);
            // SAFETY: the ports belong to the model the rig owns; they are used between
            // evaluations only.
            unsafe { RawLite::find(prefix, found) }.unwrap_or_else(|never| match never {})
        };
        let (lite, qlite) = (lite("s_axil_"), lite("qpc_s_axil_"));
        let axis = Axis {
            p: AXIS.map(|n| pins[n]),
            bytes: data_bytes,
        };
        let hot = HotPins {
            rst: pins["rst"],
            hdr_ready: pins["m_hdr_ready"],
            ack_ready: pins["m_ack_ready"],
            pay_tready: pins["m_pay_tready"],
            hdr_valid: pins["m_hdr_valid"],
            hdr_verdict: pins["m_hdr_verdict"],
            hdr_reason: pins["m_hdr_reason"],
            hdr_vf: pins["m_hdr_vf"],
            hdr_opcode: pins["m_hdr_opcode"],
            hdr_qpn: pins["m_hdr_qpn"],
            hdr_psn: pins["m_hdr_psn"],
            cnp_valid: pins["cnp_valid"],
            ce_valid: pins["ce_valid"],
        };
        Ok(Rig {
            dut,
            pins,
            inputs,
            fold,
            data_bytes,
            cycle: 0,
            record: record.then(Vec::new),
            checksum: 0,
            axil: AxiLiteMaster::new(seed ^ 1, axil_timing),
            qaxil: AxiLiteMaster::new(seed ^ 2, axil_timing),
            source: AxisSource::new(data_bytes, seed ^ 3, Profile::NONE),
            sink: Stall::never(),
            lite,
            qlite,
            axis,
            hot,
        })
    }

    /// Source idle between beats and verdict backpressure from now on (the source must be
    /// idle).
    pub fn traffic(&mut self, seed: u64, idle: Profile, backpressure: Profile) {
        assert!(self.source.is_idle(), "traffic changed mid-stream");
        self.source = AxisSource::new(self.data_bytes, seed, idle);
        self.sink = Stall::new(seed ^ 0x5eed, backpressure);
    }

    /// One clock cycle: drive, record, settle, fold, observe, clock edge.
    pub fn step(&mut self) -> Step {
        let h = &self.hot;
        self.axil.drive(&self.lite);
        self.qaxil.drive(&self.qlite);
        self.source.drive(&self.axis);
        let ready = !self.sink.hold();
        wr(&h.hdr_ready, u64::from(ready));
        // The ACK/NAK requests share the verdict sink's backpressure pattern.
        wr(&h.ack_ready, u64::from(ready));
        // So do the payload beats.
        wr(&h.pay_tready, u64::from(ready));
        if let Some(rec) = &mut self.record {
            let mut w = [0u32; 32];
            for p in &self.inputs {
                // SAFETY: see `rd`.
                let d = unsafe { p.get() };
                let n = d.words();
                d.read(&mut w[..n]);
                rec.extend_from_slice(&w[..n]);
            }
        }
        self.dut.eval();
        let folding = rd(&h.rst) == 0;
        for (p, q) in self.fold.iter().filter(|_| folding) {
            self.checksum = if q.as_ref().is_none_or(|q| rd(q) != 0) {
                fold_port(self.checksum, p)
            } else {
                fold(self.checksum, 0)
            };
        }
        let mut s = Step::default();
        self.axil.observe(&self.lite, &mut s.axil);
        self.qaxil.observe(&self.qlite, &mut s.qaxil);
        self.source.observe(&self.axis, &mut s.beats);
        if ready && rd(&h.hdr_valid) == 1 {
            s.verdict = Some(Seen {
                cycle: self.cycle,
                verdict: rd(&h.hdr_verdict) as u8,
                reason: rd(&h.hdr_reason) as u8,
                vf: rd(&h.hdr_vf) as u8,
                opcode: rd(&h.hdr_opcode) as u8,
                qpn: rd(&h.hdr_qpn) as u32,
                psn: rd(&h.hdr_psn) as u32,
            });
        }
        s.cnp = rd(&h.cnp_valid) == 1;
        s.ce = rd(&h.ce_valid) == 1;
        self.dut.tick();
        self.cycle += 1;
        s
    }

    /// Reset for two cycles through the `rst` pin (recorded like any input).
    pub fn reset(&mut self) {
        wr(&self.pins["rst"], 1);
        for _ in 0..2 {
            self.step();
        }
        wr(&self.pins["rst"], 0);
    }

    /// Steps until both AXI4-Lite masters are idle; returns the read data by tag.
    pub fn settle(&mut self) -> Result<HashMap<u64, u64>, String> {
        let mut reads = HashMap::new();
        let start = self.cycle;
        while !self.axil.is_idle() || !self.qaxil.is_idle() {
            if self.cycle - start > 20_000 {
                return Err(format!(
                    "cycle {}: AXI4-Lite accesses never completed",
                    self.cycle
                ));
            }
            let s = self.step();
            for e in s.axil.iter().chain(&s.qaxil) {
                if let Event::ReadDone { tag, data, .. } = e {
                    reads.insert(*tag, *data);
                }
            }
        }
        Ok(reads)
    }

    /// After reset: waits until the QPC has cleared its tables (STATUS.busy low).
    pub fn wait_qpc_ready(&mut self) -> Result<(), String> {
        for _ in 0..200 {
            let tag = self.qaxil.read(qpc_addr::STATUS);
            if self.settle()?.get(&tag).is_some_and(|s| s & 1 == 0) {
                return Ok(());
            }
        }
        Err(format!(
            "cycle {}: the QPC clear never finished",
            self.cycle
        ))
    }

    /// One QPC command: mailbox, target, go, then cmd_status polled until busy clears; its
    /// error code must be 0.
    pub fn qpc_command(&mut self, opcode: u16, target: u32, mailbox: &[u32]) -> Result<(), String> {
        for (i, d) in mailbox.iter().enumerate() {
            self.qaxil
                .write(qpc_addr::MAILBOX + 4 * i as u64, u64::from(*d), 0xF);
        }
        self.qaxil
            .write(qpc_addr::CMD_TARGET, u64::from(target), 0xF);
        self.qaxil.write(
            qpc_addr::CMD_CTRL,
            u64::from(1u32 << 31 | u32::from(opcode)),
            0xF,
        );
        self.settle()?;
        for _ in 0..64 {
            let tag = self.qaxil.read(qpc_addr::CMD_STATUS);
            let st = self.settle()?.get(&tag).copied().unwrap_or(u64::MAX);
            if st & 1 == 0 {
                if (st >> 8) & 0xFF != 0 {
                    return Err(format!(
                        "QPC command {opcode:#x} on {target:#x}: cmd_status {st:#x}"
                    ));
                }
                return Ok(());
            }
        }
        Err(format!(
            "QPC command {opcode:#x} on {target:#x} never finished"
        ))
    }

    /// Creates `qps` (up to RTS) and `keys` through the QPC mailbox.
    pub fn create(&mut self, qps: &[QpSpec], keys: &[KeySpec]) -> Result<(), String> {
        let (l, ml) = layouts()?;
        for q in qps {
            let mut w = vec![0u32; 12];
            set(&mut w, l.st, u32::from(q.st));
            set(&mut w, l.pd, q.pd);
            set(&mut w, l.mtu, u32::from(q.mtu));
            set(&mut w, l.rre, 1);
            set(&mut w, l.rwe, 1);
            set(&mut w, l.rae, 1);
            set(&mut w, l.epsn, q.epsn);
            let target = u32::from(q.vf) << 24 | u32::from(q.local);
            for op in [0x500u16, 0x502, 0x503, 0x504] {
                self.qpc_command(op, target, &w)?;
            }
        }
        for k in keys {
            let mut w = vec![0u32; 6];
            set(&mut w, ml.pd, k.pd);
            set(&mut w, ml.key, u32::from(k.key));
            set64(&mut w, ml.va, k.va);
            set64(&mut w, ml.length, k.length);
            set(&mut w, ml.remote_read, 1);
            set(&mut w, ml.remote_write, 1);
            set(&mut w, ml.remote_atomic, 1);
            self.qpc_command(0x200, u32::from(k.vf) << 24 | k.index, &w)?;
        }
        Ok(())
    }

    /// Parser configuration: ICRC check, IPv6, CNP and CE events on; RoCEv2 port; P_Key.
    pub fn configure(&mut self) -> Result<(), String> {
        self.axil.write(addr::CTRL, 0xF, 0xF);
        self.axil.write(addr::UDP_DPORT, 4791, 0xF);
        self.axil.write(addr::P_KEY, 0xFFFF, 0xF);
        self.settle().map(|_| ())
    }

    /// The recorded stimulus (requires `record`).
    pub fn pin_file(&self) -> PinFile {
        PinFile {
            inputs: INPUTS
                .iter()
                .map(|n| (n.to_string(), self.pins[n].width()))
                .collect(),
            fold: FOLD
                .iter()
                .map(|(n, q)| (n.to_string(), q.map(str::to_string)))
                .collect(),
            checksum: self.checksum,
            data: self.record.clone().unwrap_or_default(),
        }
    }
}

/// The QPC context and memory-key layouts, from register-maps/qpc.yaml.
fn layouts() -> Result<(Layout, MkLayout), String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps/qpc.yaml");
    let map = rdmagen_regmap::load(std::path::Path::new(path)).map_err(|e| e.to_string())?;
    Ok((Layout::of(&map)?, MkLayout::of(&map)?))
}

const AXIS: [&str; 6] = [
    "s_axis_tdata",
    "s_axis_tkeep",
    "s_axis_tvalid",
    "s_axis_tready",
    "s_axis_tlast",
    "s_axis_tuser",
];

/// The frame input.
struct Axis {
    p: [RawPort; 6],
    bytes: usize,
}

impl AxisInPins for Axis {
    fn data_bytes(&self) -> usize {
        self.bytes
    }
    fn set_beat(&self, valid: bool, b: &Beat) {
        // SAFETY: see `rd`.
        unsafe { self.p[0].get() }.write(&b.data);
        let k = b.keep;
        unsafe { self.p[1].get() }.write(&[
            k as u32,
            (k >> 32) as u32,
            (k >> 64) as u32,
            (k >> 96) as u32,
        ]);
        wr(&self.p[2], u64::from(valid));
        wr(&self.p[4], u64::from(b.last));
        wr(&self.p[5], b.user);
    }
    fn ready(&self) -> bool {
        rd(&self.p[3]) == 1
    }
}
