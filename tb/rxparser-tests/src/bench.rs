//! The Verilated `rx_top` (RX parser + QPC) next to `rdmagen_refmodel::rxqp::RxQpModel`:
//! QPs and memory keys created through the QPC command mailbox, then random valid and
//! malformed frames (aimed at those QPs with PSNs around ePSN and R_Keys around the keys'
//! edges) streamed in with random idle, the verdict stream drained under random
//! backpressure, every verdict compared in order, then every counter read back.

use std::collections::{HashMap, VecDeque};

use proptest::prelude::*;
use rdmagen_harness::axil::RawLite;
use rdmagen_harness::axil::{AxiLiteMaster, Event, Timing};
use rdmagen_harness::axis::{beats, Beat};
use rdmagen_harness::stall::{split_seed, Profile, Stall};
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::qpc::{set, Layout, MkLayout};
use rdmagen_refmodel::roce::{
    ext_layout, icrc, payload_packet, DropReason, IpHeader, Ipv6Header, RocePacket, RxConfig,
    RxOutcome, Verdict, CNP_OPCODE, GSI_QKEY, GSI_QPN, IPPROTO_UDP,
};
use rdmagen_refmodel::rxqp::{state, AckRequest, RxKey, RxQp, RxQpModel};

/// CSR addresses (register-maps/rx_parser.yaml).
pub mod addr {
    pub const CTRL: u64 = 0x000;
    pub const UDP_DPORT: u64 = 0x004;
    pub const P_KEY: u64 = 0x008;
    pub const FRAMES_SEEN: u64 = 0x100;
    pub const VERDICT_ACCEPT: u64 = 0x108;
    /// drop_* of reason code r is at DROP_BASE + 4 * (r - 1).
    pub const DROP_BASE: u64 = 0x120;
    pub const EVENT_CNP: u64 = 0x180;
    pub const EVENT_CE: u64 = 0x184;
    pub const VERDICT_DUPLICATE: u64 = 0x110;
    pub const VERDICT_NAK_SEQ: u64 = 0x114;
    pub const VERDICT_NAK_ACCESS: u64 = 0x118;
}

/// QPC CSR addresses (register-maps/qpc.yaml).
pub mod qpc_addr {
    pub const STATUS: u64 = 0x004;
    pub const CMD_CTRL: u64 = 0x010;
    pub const CMD_TARGET: u64 = 0x014;
    pub const CMD_STATUS: u64 = 0x018;
    pub const MAILBOX: u64 = 0x080;
}

/// Cycles from the cycle a frame's tlast beat is taken to the cycle its verdict is valid
/// (the generator's `VERDICT_LATENCY`, taken from it so the two cannot drift).
pub const VERDICT_LATENCY: u64 = rdmagen_rxparser::VERDICT_LATENCY as u64;

/// Cycles from the cycle a frame's tlast beat is taken to the cycle its payload packet's
/// tlast beat is valid on `m_pay_*`, with every sink ready: the discard flag is pushed with
/// the verdict and the beat moves to the output register in the next cycle (the
/// generator's `PAY_LAST_LATENCY`).
pub const PAY_LAST_LATENCY: u64 = rdmagen_rxparser::PAY_LAST_LATENCY as u64;

/// Cycles the QPC of model `M` clears its tables after reset (one entry per cycle).
fn qpc_clear_cycles<M: Model>() -> u64 {
    let p = |n: &str| M::param(n).unwrap_or(1) as u64;
    (p("NUM_VF") * p("QPS_PER_VF")).max(p("NUM_MKEYS")) + 8
}

pub use crate::input::{KeySpec, QpSpec};

/// Where a RETH/AtomicETH access points, relative to one of the case's keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RdmaAim {
    /// Key (index into the case's keys, modulo their number).
    pub key: u8,
    /// 0 start, 1 ends at the region's end, 2 one byte past it, 3 one byte before the start,
    /// 4 the whole region, 5 anywhere (random VA).
    pub edge: u8,
    pub len: u32,
    /// Wrong variant byte in the R_Key.
    pub bad_variant: bool,
}

/// What is done to a well-formed frame before it is sent.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Mutation {
    None,
    /// Keep only the first `n` bytes (n taken modulo the length).
    Truncate(usize),
    /// Flip bit `bit` of byte `pos` (modulo the length).
    Flip {
        pos: usize,
        bit: u8,
    },
    /// Overwrite byte `pos` (modulo the length) with `value`.
    Set {
        pos: usize,
        value: u8,
    },
    /// Append Ethernet padding (ignored by the parser).
    Pad(usize),
    /// An IPv4 fragment (MF set, header checksum correct); IPv6 frames stay whole.
    Fragment,
    /// Replace the BTH opcode, ICRC recomputed (reserved opcodes must drop as BAD_OPCODE).
    Opcode(u8),
}

/// One frame: how to build it, what to do to it, and its `tuser`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameSpec {
    pub opcode: u8,
    pub vlans: u8,
    pub ipv6: bool,
    pub ip_options: u8,
    pub ecn: u8,
    pub qpn: u32,
    pub psn: u32,
    pub pkey: u16,
    pub tver: u8,
    pub pad: u8,
    pub payload: u16,
    pub fill: u8,
    pub mutation: Mutation,
    pub bad_fcs: bool,
    pub vf: u8,
    /// Aim at QP `target` of the case (modulo their number): its VF and QPN replace `vf`
    /// and `qpn`.
    pub target: Option<u8>,
    /// With a target: PSN = the QP's ePSN (as the model holds it then) + this, mod 2^24.
    pub psn_rel: Option<i32>,
    /// RETH/AtomicETH VA, R_Key and length aimed at a key of the case.
    pub rdma: Option<RdmaAim>,
    /// RETH/AtomicETH (va, rkey, dma_len) resolved from `rdma`.
    pub reth: Option<(u64, u32, u32)>,
    /// DETH Q_Key; with a target, mostly replaced by the QP's (the rest meet Q_KEY).
    pub qkey: u32,
}

impl FrameSpec {
    /// This frame with its target QP, PSN and key aim resolved against the model's state.
    pub fn resolve(&self, qps: &[QpSpec], keys: &[KeySpec], model: &RxQpModel) -> FrameSpec {
        let mut f = self.clone();
        if let (Some(t), false) = (self.target, qps.is_empty()) {
            let q = &qps[usize::from(t) % qps.len()];
            f.vf = q.vf;
            f.qpn = q.qpn();
            // Mostly an opcode of the QP's transport (the rest meet TRANSPORT_MISMATCH).
            if self.fill & 3 != 0 && self.opcode != CNP_OPCODE {
                let op = self.opcode & 0x1F;
                f.opcode = match q.st {
                    0 => op,
                    1 if op <= 0x0B => op | 0x20,
                    2 | 8 => 0x64 | op & 1,
                    _ => self.opcode,
                };
            }
            // A GSI QP takes the well-known Q_Key, whatever its context holds.
            if (self.fill >> 2) & 7 != 0 {
                f.qkey = if q.st == 8 { GSI_QKEY } else { q.qkey };
            }
            // The VF's QP 1 mostly as DestQP 1, the GSI's number on the wire.
            if q.local == 1 && (self.fill >> 5) & 3 != 0 {
                f.qpn = GSI_QPN;
            }
            if let (Some(rel), Some(m)) = (self.psn_rel, model.qps.get(&(q.vf, q.qpn()))) {
                f.psn = (m.epsn as i64 + i64::from(rel)).rem_euclid(1 << 24) as u32;
            }
        }
        if let (Some(a), false) = (&self.rdma, keys.is_empty()) {
            let k = &keys[usize::from(a.key) % keys.len()];
            let len = a.len;
            let end = k.va.wrapping_add(k.length);
            let va = match a.edge {
                0 => k.va,
                1 => end.wrapping_sub(u64::from(len)),
                2 => end.wrapping_sub(u64::from(len)).wrapping_add(1),
                3 => k.va.wrapping_sub(1),
                4 => k.va,
                _ => k.va ^ u64::from(len) << 20,
            };
            let len = if a.edge == 4 {
                k.length.min(u64::from(u32::MAX)) as u32
            } else {
                len
            };
            let rkey = k.rkey() ^ u32::from(a.bad_variant);
            f.reth = Some((va, rkey, len));
        }
        f
    }

    /// The frame's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        let mut p = RocePacket::new_ipv4(self.opcode, self.qpn, self.psn).expect("supported");
        p.eth.vlans = (0..self.vlans)
            .map(|i| 0x2000 | u16::from(i) << 4 | 5)
            .collect();
        match &mut p.ip {
            IpHeader::V4(h) => {
                h.tos = 0x88 | self.ecn;
                h.options = vec![1; 4 * usize::from(self.ip_options)];
                h.id = self.psn as u16;
            }
            IpHeader::V6(_) => unreachable!("built as IPv4"),
        }
        if self.ipv6 {
            p.ip = IpHeader::V6(Ipv6Header {
                traffic_class: 0x88 | self.ecn,
                flow_label: self.psn & 0xF_FFFF,
                next_header: IPPROTO_UDP,
                hop_limit: 64,
                src: [0xFE; 16],
                dst: [0x20; 16],
            });
        }
        p.bth.pkey = self.pkey;
        p.bth.tver = self.tver;
        p.bth.pad_count = self.pad;
        p.bth.ack_req = self.psn & 1 == 1;
        p.bth.se = self.psn & 2 == 2;
        p.bth.fecn = self.psn & 4 == 4;
        p.payload = (0..self.payload)
            .map(|i| self.fill.wrapping_add(i as u8))
            .collect();
        // Deterministic, non-zero extension header contents.
        let mut e = p.ext.clone();
        if let Some(r) = &mut e.reth {
            r.va = 0x7F00_0000_0000 | u64::from(self.psn);
            r.rkey = 0x1234_0000 | self.qpn & 0xFFFF;
            r.dma_len = u32::from(self.payload);
            if let Some((va, rkey, len)) = self.reth {
                (r.va, r.rkey, r.dma_len) = (va, rkey, len);
            }
        }
        if let Some(a) = &mut e.atomic {
            a.va = 0x1000 | u64::from(self.qpn);
            a.rkey = 0xABCD;
            a.swap_add = 7;
            a.compare = 9;
            if let Some((va, rkey, _)) = self.reth {
                (a.va, a.rkey) = (va, rkey);
            }
        }
        if let Some(i) = &mut e.imm {
            *i = 0xC0DE_0000 | self.psn & 0xFFFF;
        }
        if let Some(i) = &mut e.ieth {
            *i = 0xBEEF_0000 | self.qpn & 0xFFFF;
        }
        if let Some(d) = &mut e.deth {
            d.qkey = self.qkey;
            d.src_qp = 0xAB_0000 | self.psn & 0xFFFF;
        }
        if let Some(a) = &mut e.aeth {
            a.syndrome = 0x1F;
            a.msn = self.psn;
        }
        p.ext = e;
        if let (Mutation::Fragment, IpHeader::V4(h)) = (&self.mutation, &mut p.ip) {
            h.flags = 1;
        }
        let mut f = p.to_bytes().expect("valid spec");
        match self.mutation {
            Mutation::None => {}
            Mutation::Truncate(n) => f.truncate(n % f.len()),
            Mutation::Flip { pos, bit } => {
                let i = pos % f.len();
                f[i] ^= 1 << (bit % 8);
            }
            Mutation::Set { pos, value } => {
                let i = pos % f.len();
                f[i] = value;
            }
            Mutation::Pad(n) => f.resize(f.len() + n, 0),
            Mutation::Fragment => {}
            Mutation::Opcode(op) => {
                let bth = 14
                    + 4 * usize::from(self.vlans)
                    + if self.ipv6 {
                        40
                    } else {
                        20 + 4 * usize::from(self.ip_options)
                    }
                    + 8;
                f[bth] = op;
                let at = f.len() - 4;
                let crc = icrc(&f).expect("still RoCE-shaped");
                f[at..].copy_from_slice(&crc.to_le_bytes());
            }
        }
        f
    }

    /// `tuser`: {vf, bad_fcs}.
    pub fn tuser(&self) -> u64 {
        u64::from(self.vf) << 1 | u64::from(self.bad_fcs)
    }
}

/// A frame as bytes, with its `tuser`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawFrame {
    pub bytes: Vec<u8>,
    pub bad_fcs: bool,
    pub vf: u8,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    /// Source idle between beats.
    pub idle: Profile,
    /// Backpressure on the verdict stream.
    pub stall: Profile,
    pub cfg: RxConfig,
    pub qps: Vec<QpSpec>,
    pub keys: Vec<KeySpec>,
    pub frames: Vec<FrameSpec>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub cycle: u64,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.message)
    }
}

/// A verdict as the RTL shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seen {
    pub verdict: u8,
    pub reason: u8,
    pub vf: u8,
    pub opcode: u8,
    pub qpn: u32,
    /// `m_hdr_pay`: the frame has a payload packet.
    pub pay: bool,
    pub fields: Option<Accepted>,
}

/// One verdict with every field `rdmagen sim rx-parser` reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HdrOut {
    pub verdict: u8,
    pub reason: u8,
    pub vf: u8,
    pub qpn: u32,
    pub opcode: u8,
    pub psn: u32,
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
    pub imm: u32,
    pub src_qp: u32,
    pub ecn_ce: bool,
    pub cnp: bool,
    /// The ACK/NAK request registered with this verdict: (AETH syndrome, PSN).
    pub ack: Option<(u8, u32)>,
    /// The frame's payload packet (`m_hdr_pay`): its bytes (the discard flag follows from
    /// the verdict).
    pub payload: Option<Vec<u8>>,
}

/// The fields compared on accepted frames.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Accepted {
    pub psn: u32,
    pub se: bool,
    pub ack_req: bool,
    pub fecn: bool,
    pub becn: bool,
    pub pad: u8,
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
    pub imm: u32,
    pub src_qp: u32,
    pub ecn_ce: bool,
    pub cnp: bool,
    pub payload_len: u32,
}

fn expected(o: &RxOutcome) -> Seen {
    let f = &o.fields;
    Seen {
        verdict: o.verdict as u8,
        reason: o.reason.map_or(0, DropReason::code),
        vf: f.vf,
        opcode: f.opcode,
        qpn: f.qpn,
        pay: false,
        fields: (o.verdict != Verdict::Drop).then(|| Accepted {
            psn: f.psn,
            se: f.se,
            ack_req: f.ack_req,
            fecn: f.fecn,
            becn: f.becn,
            pad: f.pad_count,
            va: f.va,
            rkey: f.rkey,
            dma_len: f.dma_len,
            imm: f.imm,
            src_qp: f.src_qp,
            ecn_ce: f.ecn_ce,
            cnp: f.cnp,
            payload_len: f.payload_len,
        }),
    }
}

/// Counts the model expects in the CSR counters.
#[derive(Clone, Debug, Default)]
pub struct Tally {
    pub frames: u64,
    /// Frames that passed the QP-independent header checks.
    pub passed_headers: u64,
    pub accept: u64,
    pub duplicate: u64,
    pub nak_seq: u64,
    pub nak_access: u64,
    /// ACK/NAK requests the model expects (and the RTL gave).
    pub acks: u64,
    pub drops: HashMap<u8, u64>,
    pub cnp: u64,
    pub ce: u64,
    /// Beats taken, and the cycles the first and the last were taken in.
    pub beats: u64,
    pub first_beat: u64,
    pub last_beat: u64,
    /// Payload packets and beats taken from `m_pay_*`.
    pub pay_packets: u64,
    pub pay_beats: u64,
}

pub struct Bench<M: Model> {
    dut: M,
    pins: HashMap<&'static str, RawPort>,
    data_bytes: usize,
    cycle: u64,
    pub total_cycles: u64,
    pub frames: u64,
    pub beats: u64,
    pub accepted: u64,
    /// ACK/NAK requests compared.
    pub acks: u64,
    /// Payload packets compared, and how many of them carried the discard flag.
    pub pay_packets: u64,
    pub pay_discarded: u64,
    /// Frames per outcome over the bench's life: the drop reason code, or 100 + the verdict
    /// (100 accept, 101 duplicate, 102 nak_seq, 103 nak_access).
    pub reasons: std::collections::BTreeMap<u8, u64>,
    /// The QPs and keys the last case left, when it ended cleanly: the next case destroys
    /// them instead of resetting (the QPC clear after reset takes thousands of cycles).
    live: Option<(Vec<QpSpec>, Vec<KeySpec>)>,
    /// With [`Bench::probe_readies`]: cycles probed, and of those, cycles a verdict and an
    /// ACK/NAK request were waiting (the probe saw the FIFOs in use).
    pub probed: Option<Probed>,
    /// With [`Bench::qpc_noise`]: the period (cycles) of QPC commands on a QP of no case
    /// while the frames stream, and how many were issued.
    qpc_noise: Option<(u64, u64)>,
}

/// What [`Bench::probe_readies`] saw.
#[derive(Clone, Copy, Debug, Default)]
pub struct Probed {
    pub cycles: u64,
    pub hdr_waiting: u64,
    pub ack_waiting: u64,
}

impl<M: Model> Default for Bench<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Model> Bench<M> {
    pub fn new() -> Self {
        let dut = M::create();
        let pins: HashMap<&'static str, RawPort> = M::PORTS
            .iter()
            .map(|info| {
                // SAFETY: the bench owns the model and drops the handles with it.
                let raw = unsafe { dut.port(info.name).expect("listed port").detach() };
                (info.name, raw)
            })
            .collect();
        let data_bytes = (pins["s_axis_tdata"].width() / 8) as usize;
        Bench {
            dut,
            pins,
            data_bytes,
            cycle: 0,
            total_cycles: 0,
            frames: 0,
            beats: 0,
            accepted: 0,
            acks: 0,
            pay_packets: 0,
            pay_discarded: 0,
            reasons: Default::default(),
            live: None,
            probed: None,
            qpc_noise: None,
        }
    }

    /// From now on, every cycle of a case also drives the three sink readies
    /// (`m_hdr_ready`, `m_ack_ready`, `m_pay_tready`) through all 8 combinations, evaluating
    /// after each, before the cycle's own values: `s_axis_tready` and every sink's valid
    /// must not change with them (no combinational path from a sink's ready to the input's
    /// ready or another stream's valid; check-rtl checks the same statically).
    pub fn probe_readies(&mut self) {
        self.probed = Some(Probed::default());
    }

    /// The probe of [`Bench::probe_readies`] for this cycle (inputs other than the readies
    /// already driven); the caller drives the cycle's readies and evaluates again after.
    fn probe(&mut self) -> Result<(), Failure> {
        let Some(mut seen) = self.probed else {
            return Ok(());
        };
        let outs = [
            "s_axis_tready",
            "m_hdr_valid",
            "m_ack_valid",
            "m_pay_tvalid",
        ];
        let mut first: Option<Vec<u64>> = None;
        for combo in 0..8u64 {
            self.set("m_hdr_ready", combo & 1);
            self.set("m_ack_ready", combo >> 1 & 1);
            self.set("m_pay_tready", combo >> 2);
            self.dut.eval();
            let got: Vec<u64> = outs.iter().map(|o| self.get(o)).collect();
            match &first {
                None => first = Some(got),
                Some(f) if *f != got => {
                    return self.fail(format!(
                        "{outs:?} = {got:?} with (m_hdr_ready, m_ack_ready, m_pay_tready) = ({}, {}, {}), {f:?} with all 0: an output follows a sink's ready in the cycle",
                        combo & 1,
                        combo >> 1 & 1,
                        combo >> 2
                    ))
                }
                Some(_) => {}
            }
        }
        let f = first.expect("probed");
        seen.cycles += 1;
        seen.hdr_waiting += f[1];
        seen.ack_waiting += f[2];
        self.probed = Some(seen);
        Ok(())
    }

    /// From now on, while a case's frames stream, a QPC command goes every `period` cycles
    /// (CREATE_QP and DESTROY_QP in turn, on QP 0x0F of VF 0, which the case must not use):
    /// each has a WRITE cycle in which the QPC's `rx_wb_ready` is low, so write-backs of
    /// frames in flight wait in the parser's skid. [`Bench::qpc_noise_issued`] counts them.
    pub fn qpc_noise(&mut self, period: u64) {
        self.qpc_noise = Some((period.max(1), 0));
    }

    /// QPC commands issued by [`Bench::qpc_noise`].
    pub fn qpc_noise_issued(&self) -> u64 {
        self.qpc_noise.map_or(0, |(_, n)| n)
    }

    pub fn data_bytes(&self) -> usize {
        self.data_bytes
    }

    /// Starts an FST waveform of this (fresh) bench's model.
    pub fn dut_trace(&mut self, path: &std::path::Path) -> std::io::Result<()> {
        self.dut.trace_open(path)
    }

    /// The AXI4-Lite slave under `prefix`: `s_axil_` (the parser's CSRs) or `qpc_s_axil_`.
    fn lite(&self, prefix: &str) -> RawLite {
        let found = |name: &str| Ok::<_, std::convert::Infallible>(*self.pin(name));
        // SAFETY: the ports belong to the model this value owns; they are used between
        // evaluations only.
        unsafe { RawLite::find(prefix, found) }.unwrap_or_else(|never| match never {})
    }

    fn pin(&self, name: &str) -> &RawPort {
        self.pins
            .get(name)
            .unwrap_or_else(|| panic!("no port {name}"))
    }

    fn set_words(&self, name: &str, w: &[u32]) {
        // SAFETY: see `new`.
        unsafe { self.pin(name).get() }.write(w);
    }

    /// A port of any width as 32-bit words, least significant first.
    fn get_words(&self, name: &str) -> Vec<u32> {
        let p = self.pin(name);
        let mut w = vec![0u32; p.width().div_ceil(32) as usize];
        // SAFETY: see `new`.
        unsafe { p.get() }.read(&mut w);
        w
    }

    /// Every sink ready (between frames, during set-up and CSR reads).
    fn sinks_ready(&self) {
        self.set("m_hdr_ready", 1);
        self.set("m_ack_ready", 1);
        self.set("m_pay_tready", 1);
    }

    fn set(&self, name: &str, v: u64) {
        self.set_words(name, &[v as u32, (v >> 32) as u32]);
    }

    fn get(&self, name: &str) -> u64 {
        let mut w = [0u32; 2];
        // SAFETY: see `new`.
        unsafe { self.pin(name).get() }.read(&mut w);
        u64::from(w[0]) | u64::from(w[1]) << 32
    }

    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    /// Drives a beat; the bytes it does not keep (and all bytes while `valid` is low) carry
    /// junk, which the parser must ignore.
    fn drive_beat(&self, valid: bool, b: &Beat) {
        self.set("s_axis_tvalid", u64::from(valid));
        let mut data = b.data.clone();
        data.resize(self.data_bytes.div_ceil(4), 0);
        for lane in 0..self.data_bytes {
            if !valid || b.keep >> lane & 1 == 0 {
                let junk = (self.cycle as u32).wrapping_mul(0x9E37_79B9) >> 8 ^ lane as u32 * 0x3B;
                let (w, sh) = (lane / 4, 8 * (lane % 4));
                data[w] = data[w] & !(0xFF << sh) | (junk & 0xFF) << sh;
            }
        }
        self.set_words("s_axis_tdata", &data);
        let keep = b.keep;
        self.set_words(
            "s_axis_tkeep",
            &[
                keep as u32,
                (keep >> 32) as u32,
                (keep >> 64) as u32,
                (keep >> 96) as u32,
            ],
        );
        self.set("s_axis_tlast", u64::from(b.last));
        self.set("s_axis_tuser", b.user);
    }

    fn read_ack(&self) -> AckRequest {
        AckRequest {
            vf: self.get("m_ack_vf") as u8,
            qpn: self.get("m_ack_qpn") as u32,
            syndrome: self.get("m_ack_syndrome") as u8,
            psn: self.get("m_ack_psn") as u32,
        }
    }

    fn read_seen(&self) -> Seen {
        let verdict = self.get("m_hdr_verdict") as u8;
        Seen {
            verdict,
            reason: self.get("m_hdr_reason") as u8,
            vf: self.get("m_hdr_vf") as u8,
            opcode: self.get("m_hdr_opcode") as u8,
            qpn: self.get("m_hdr_qpn") as u32,
            pay: self.get("m_hdr_pay") == 1,
            fields: (verdict != 4).then(|| Accepted {
                psn: self.get("m_hdr_psn") as u32,
                se: self.get("m_hdr_se") == 1,
                ack_req: self.get("m_hdr_ack_req") == 1,
                fecn: self.get("m_hdr_fecn") == 1,
                becn: self.get("m_hdr_becn") == 1,
                pad: self.get("m_hdr_pad") as u8,
                va: self.get("m_hdr_va"),
                rkey: self.get("m_hdr_rkey") as u32,
                dma_len: self.get("m_hdr_dma_len") as u32,
                imm: self.get("m_hdr_imm") as u32,
                src_qp: self.get("m_hdr_src_qp") as u32,
                ecn_ce: self.get("m_hdr_ecn_ce") == 1,
                cnp: self.get("m_hdr_cnp") == 1,
                payload_len: self.get("m_hdr_payload_len") as u32,
            }),
        }
    }

    /// Runs one case from reset: the QPs and keys through the QPC mailbox, configuration
    /// through AXI4-Lite, the frames, then every counter read back. With `exact_timing`,
    /// every verdict must come exactly [`VERDICT_LATENCY`] cycles after its tlast beat (only
    /// meaningful without backpressure).
    pub fn run(&mut self, case: &Case) -> Result<Tally, Failure> {
        self.run_timed(case, false)
    }

    pub fn run_timed(&mut self, case: &Case, exact_timing: bool) -> Result<Tally, Failure> {
        let mut model = model_of(&case.cfg, &case.qps, &case.keys);
        let mut frames = Vec::new();
        let mut outcomes = Vec::new();
        let mut acks = Vec::new();
        for s in &case.frames {
            let r = s.resolve(&case.qps, &case.keys, &model);
            let bytes = r.bytes();
            let (o, a) = model.receive_with_ack(&bytes, r.bad_fcs, r.vf);
            outcomes.push(o);
            acks.push(a);
            frames.push(RawFrame {
                bytes,
                bad_fcs: r.bad_fcs,
                vf: r.vf,
            });
        }
        self.run_frames(case, &frames, &outcomes, &acks, exact_timing)
    }

    /// Runs any frames (bytes as given) from reset, with no QP; see [`Bench::run`].
    pub fn run_raw(
        &mut self,
        seed: u64,
        idle: Profile,
        stall: Profile,
        cfg: &RxConfig,
        frames: &[RawFrame],
        exact_timing: bool,
    ) -> Result<Tally, Failure> {
        let case = Case {
            seed,
            idle,
            stall,
            cfg: cfg.clone(),
            qps: Vec::new(),
            keys: Vec::new(),
            frames: Vec::new(),
        };
        let mut model = model_of(cfg, &[], &[]);
        let (outcomes, acks): (Vec<RxOutcome>, Vec<Option<AckRequest>>) = frames
            .iter()
            .map(|f| model.receive_with_ack(&f.bytes, f.bad_fcs, f.vf))
            .unzip();
        self.run_frames(&case, frames, &outcomes, &acks, exact_timing)
    }

    /// Cycles with no frame until both AXI4-Lite masters are idle; returns the read data.
    fn settle(
        &mut self,
        axil: &mut AxiLiteMaster,
        qaxil: &mut AxiLiteMaster,
    ) -> Result<HashMap<u64, u64>, Failure> {
        let mut reads = HashMap::new();
        let mut events = Vec::new();
        let start = self.cycle;
        while !axil.is_idle() || !qaxil.is_idle() {
            if self.cycle - start > 20_000 {
                return self.fail("AXI4-Lite accesses never completed".into());
            }
            self.drive_beat(false, &Beat::empty(self.data_bytes));
            self.sinks_ready();
            axil.drive(&self.lite("s_axil_"));
            let q = self.lite("qpc_s_axil_");
            qaxil.drive(&q);
            self.dut.eval();
            events.clear();
            axil.observe(&self.lite("s_axil_"), &mut events);
            qaxil.observe(&q, &mut events);
            for e in &events {
                if let Event::ReadDone { tag, data, .. } = e {
                    reads.insert(*tag, *data);
                }
            }
            self.tick()?;
        }
        Ok(reads)
    }

    /// One QPC command: mailbox, target, go; its status must be OK.
    fn qpc_command(
        &mut self,
        axil: &mut AxiLiteMaster,
        qaxil: &mut AxiLiteMaster,
        opcode: u16,
        target: u32,
        mailbox: &[u32],
    ) -> Result<(), Failure> {
        for (i, d) in mailbox.iter().enumerate() {
            qaxil.write(qpc_addr::MAILBOX + 4 * i as u64, u64::from(*d), 0xF);
        }
        qaxil.write(qpc_addr::CMD_TARGET, u64::from(target), 0xF);
        qaxil.write(
            qpc_addr::CMD_CTRL,
            u64::from(1u32 << 31 | u32::from(opcode)),
            0xF,
        );
        self.settle(axil, qaxil)?;
        // Poll cmd_status until busy clears.
        let mut st = u64::MAX;
        for _ in 0..64 {
            let tag = qaxil.read(qpc_addr::CMD_STATUS);
            let reads = self.settle(axil, qaxil)?;
            st = reads.get(&tag).copied().unwrap_or(u64::MAX);
            if st & 1 == 0 {
                break;
            }
        }
        if st & 1 != 0 || (st >> 8) & 0xFF != 0 {
            return self.fail(format!(
                "QPC command {opcode:#x} on target {target:#x}: cmd_status {st:#x}"
            ));
        }
        Ok(())
    }

    /// Creates the case's QPs and keys through the QPC mailbox.
    fn qpc_setup(
        &mut self,
        axil: &mut AxiLiteMaster,
        qaxil: &mut AxiLiteMaster,
        qps: &[QpSpec],
        keys: &[KeySpec],
    ) -> Result<(), Failure> {
        let (l, ml) = layouts();
        for q in qps {
            let mut w = vec![0u32; 12];
            set(&mut w, l.st, u32::from(q.st));
            set(&mut w, l.pd, q.pd);
            set(&mut w, l.mtu, u32::from(q.mtu));
            set(&mut w, l.rre, u32::from(q.rre));
            set(&mut w, l.rwe, u32::from(q.rwe));
            set(&mut w, l.rae, u32::from(q.rae));
            set(&mut w, l.epsn, q.epsn);
            set(&mut w, l.qkey, q.qkey);
            let target = u32::from(q.vf) << 24 | u32::from(q.local);
            let mut ops = vec![0x500u16];
            let up = [0x502u16, 0x503, 0x504];
            let steps = match q.state {
                state::RST => 0,
                state::INIT => 1,
                state::RTR => 2,
                state::RTS | state::SQD => 3,
                _ => 0,
            };
            ops.extend(&up[..steps]);
            if q.state == state::SQD {
                ops.push(0x508);
            }
            if q.state == state::ERR {
                ops.push(0x507);
            }
            for op in ops {
                self.qpc_command(axil, qaxil, op, target, &w)?;
            }
        }
        for k in keys {
            let mut w = vec![0u32; 6];
            set(&mut w, ml.pd, k.pd);
            set(&mut w, ml.key, u32::from(k.key));
            rdmagen_refmodel::qpc::set64(&mut w, ml.va, k.va);
            rdmagen_refmodel::qpc::set64(&mut w, ml.length, k.length);
            set(&mut w, ml.remote_read, u32::from(k.remote_read));
            set(&mut w, ml.remote_write, u32::from(k.remote_write));
            set(&mut w, ml.remote_atomic, u32::from(k.remote_atomic));
            self.qpc_command(axil, qaxil, 0x200, u32::from(k.vf) << 24 | k.index, &w)?;
        }
        Ok(())
    }

    /// From reset: waits for the QPC clear, creates the case's QPs and keys, configures the
    /// parser. Returns the two AXI4-Lite masters (parser, QPC).
    fn start(&mut self, case: &Case) -> Result<(AxiLiteMaster, AxiLiteMaster), Failure> {
        let seed = case.seed;
        let mut axil = AxiLiteMaster::new(split_seed(seed, 1), Timing::default());
        let mut qaxil = AxiLiteMaster::new(split_seed(seed, 4), Timing::default());
        if let Some((qps, keys)) = self.live.take() {
            // The previous case ended cleanly: destroy what it made, keep the QPC.
            for q in &qps {
                let target = u32::from(q.vf) << 24 | u32::from(q.local);
                self.qpc_command(&mut axil, &mut qaxil, 0x501, target, &[])?;
            }
            for k in &keys {
                let target = u32::from(k.vf) << 24 | k.index;
                self.qpc_command(&mut axil, &mut qaxil, 0x202, target, &[])?;
            }
            return self.configure(case, axil, qaxil);
        }
        self.dut.reset(2);
        self.cycle = 0;
        // The QPC clears its tables after reset; commands wait for that.
        for _ in 0..qpc_clear_cycles::<M>() {
            self.drive_beat(false, &Beat::empty(self.data_bytes));
            self.sinks_ready();
            self.tick()?;
        }
        let mut status = None;
        for _ in 0..5000 {
            let tag = qaxil.read(qpc_addr::STATUS);
            status = self.settle(&mut axil, &mut qaxil)?.get(&tag).copied();
            if status.is_some_and(|s| s & 1 == 0) {
                break;
            }
        }
        if !status.is_some_and(|s| s & 1 == 0) {
            return self.fail(format!("the QPC clear never finished (status {status:x?})"));
        }
        self.configure(case, axil, qaxil)
    }

    /// Creates the case's QPs and keys and writes the parser's configuration.
    fn configure(
        &mut self,
        case: &Case,
        mut axil: AxiLiteMaster,
        mut qaxil: AxiLiteMaster,
    ) -> Result<(AxiLiteMaster, AxiLiteMaster), Failure> {
        let cfg = &case.cfg;
        self.qpc_setup(&mut axil, &mut qaxil, &case.qps, &case.keys)?;
        axil.write(
            addr::CTRL,
            u64::from(cfg.icrc_check) | u64::from(cfg.ipv6) << 1 | 1 << 2 | 1 << 3,
            0xf,
        );
        axil.write(addr::UDP_DPORT, u64::from(cfg.udp_dport), 0xf);
        axil.write(addr::P_KEY, u64::from(cfg.pkey), 0xf);
        // Configuration first, then the stream.
        self.settle(&mut axil, &mut qaxil)?;
        Ok((axil, qaxil))
    }

    /// Replays `frames` (the case's own frames are ignored) at full rate with the verdict
    /// sink always ready, after the case's QPs and keys are set up; returns every verdict
    /// as the RTL shows it, all fields read, in frame order.
    pub fn replay(&mut self, case: &Case, frames: &[RawFrame]) -> Result<Vec<HdrOut>, Failure> {
        self.start(case)?;
        let mut queue: VecDeque<Beat> = VecDeque::new();
        for fr in frames {
            let tuser = u64::from(fr.vf) << 1 | u64::from(fr.bad_fcs);
            queue.extend(beats(self.data_bytes, &fr.bytes, tuser));
        }
        let mut out: Vec<HdrOut> = Vec::new();
        let mut pay = PaySink::new(self.data_bytes);
        // Verdicts with a payload packet still to come, in order.
        let mut pay_for: VecDeque<usize> = VecDeque::new();
        let limit = 1000 + 10 * (queue.len() + frames.len()) as u64;
        let start = self.cycle;
        while out.len() < frames.len() || !pay_for.is_empty() {
            if self.cycle - start > limit {
                return self.fail(format!("hang: {} of {} verdicts", out.len(), frames.len()));
            }
            match queue.front() {
                Some(b) => self.drive_beat(true, b),
                None => self.drive_beat(false, &Beat::empty(self.data_bytes)),
            }
            self.sinks_ready();
            self.dut.eval();
            if !queue.is_empty() && self.get("s_axis_tready") == 1 {
                queue.pop_front();
            }
            let beat = self.read_pay();
            if let Err(e) = pay.observe(beat.as_ref(), true) {
                return self.fail(format!("m_pay: {e}"));
            }
            if beat.is_some_and(|b| b.last) {
                let (bytes, _) = pay.take_packet();
                match pay_for.pop_front() {
                    Some(i) => out[i].payload = Some(bytes),
                    None => return self.fail("a payload packet with no verdict".into()),
                }
            }
            if self.get("m_hdr_valid") == 1 {
                if self.get("m_hdr_pay") == 1 {
                    pay_for.push_back(out.len());
                }
                let g = |n: &str| self.get(&format!("m_hdr_{n}"));
                out.push(HdrOut {
                    verdict: g("verdict") as u8,
                    reason: g("reason") as u8,
                    vf: g("vf") as u8,
                    qpn: g("qpn") as u32,
                    opcode: g("opcode") as u8,
                    psn: g("psn") as u32,
                    va: g("va"),
                    rkey: g("rkey") as u32,
                    dma_len: g("dma_len") as u32,
                    imm: g("imm") as u32,
                    src_qp: g("src_qp") as u32,
                    ecn_ce: g("ecn_ce") == 1,
                    cnp: g("cnp") == 1,
                    // Both sinks are always ready, so a request shows with its verdict.
                    ack: (self.get("m_ack_valid") == 1).then(|| {
                        (
                            self.get("m_ack_syndrome") as u8,
                            self.get("m_ack_psn") as u32,
                        )
                    }),
                    payload: None,
                });
            }
            self.tick()?;
        }
        self.live = Some((case.qps.clone(), case.keys.clone()));
        Ok(out)
    }

    fn run_frames(
        &mut self,
        case: &Case,
        frames: &[RawFrame],
        outcomes: &[RxOutcome],
        acks: &[Option<AckRequest>],
        exact_timing: bool,
    ) -> Result<Tally, Failure> {
        let (seed, idle, stall, cfg) = (case.seed, case.idle, case.stall, &case.cfg);
        let (mut axil, mut qaxil) = self.start(case)?;
        if self.qpc_noise.is_some() {
            qaxil.write(qpc_addr::CMD_TARGET, 0x0F, 0xF);
        }
        let mut events = Vec::new();
        let mut queue: VecDeque<(usize, Beat)> = VecDeque::new();
        let mut want: VecDeque<(Seen, u64)> = VecDeque::new();
        // Payload packets the model expects, in order: (frame, bytes, discard flag).
        let mut pay_want: VecDeque<(usize, Vec<u8>, bool)> = VecDeque::new();
        let mut tally = Tally::default();
        let hdr = rdmagen_refmodel::roce::RxParserModel::new(cfg.clone());
        for (i, (fr, o)) in frames.iter().zip(outcomes).enumerate() {
            let f = &fr.bytes;
            let tuser = u64::from(fr.vf) << 1 | u64::from(fr.bad_fcs);
            for b in beats(self.data_bytes, f, tuser) {
                queue.push_back((i, b));
            }
            tally.frames += 1;
            tally.passed_headers +=
                u64::from(hdr.classify(f, fr.bad_fcs, fr.vf).verdict == Verdict::Accept);
            match o.verdict {
                Verdict::Accept => {
                    tally.accept += 1;
                    tally.cnp += u64::from(o.fields.cnp);
                    tally.ce += u64::from(o.fields.ecn_ce);
                }
                Verdict::Duplicate => tally.duplicate += 1,
                Verdict::NakSeq => tally.nak_seq += 1,
                Verdict::NakAccess => tally.nak_access += 1,
                Verdict::Drop => {
                    *tally
                        .drops
                        .entry(o.reason.map_or(0, DropReason::code))
                        .or_default() += 1
                }
            }
            *self
                .reasons
                .entry(match o.verdict {
                    Verdict::Drop => o.reason.map_or(0, DropReason::code),
                    v => 100 + v as u8,
                })
                .or_default() += 1;
            let packet = payload_packet(f, cfg);
            let mut seen = expected(o);
            seen.pay = packet.is_some();
            if let Some(p) = packet {
                pay_want.push_back((i, p.to_vec(), o.verdict != Verdict::Accept));
            }
            want.push_back((seen, 0));
        }
        let mut idle = Stall::new(split_seed(seed, 2), idle);
        // The ACK/NAK sink stalls with the verdict sink's profile, independently.
        let mut ack_stall = Stall::new(split_seed(seed, 5), stall);
        // The payload sink too, independently again.
        let mut pay_stall = Stall::new(split_seed(seed, 6), stall);
        let mut stall = Stall::new(split_seed(seed, 3), stall);
        let mut pay = PaySink::new(self.data_bytes);
        // Cycle each frame's tlast beat was taken in, by frame index.
        let mut tlast_cycle: Vec<u64> = Vec::new();
        let mut ack_want: VecDeque<(usize, AckRequest)> = acks
            .iter()
            .enumerate()
            .filter_map(|(i, a)| a.map(|a| (i, a)))
            .collect();
        tally.acks = ack_want.len() as u64;
        let mut valid = false;
        // Cycle each frame's tlast beat was taken, by frame index.
        let mut tlast_at: VecDeque<u64> = VecDeque::new();
        // Events the model expects, in frame order: (vf, qpn).
        let accepted_with = |pick: fn(&RxOutcome) -> bool| -> Vec<(u8, u32)> {
            outcomes
                .iter()
                .filter(|o| o.verdict == Verdict::Accept && pick(o))
                .map(|o| (o.fields.vf, o.fields.qpn))
                .collect()
        };
        let cnp_want = accepted_with(|o| o.fields.cnp);
        let ce_want = accepted_with(|o| o.fields.ecn_ce);
        let (mut cnp_got, mut ce_got) = (Vec::new(), Vec::new());
        let total = want.len();
        let limit = 1000 + 300 * (queue.len() + total) as u64;
        let mut done = 0usize;
        let start = self.cycle;
        while done < total || !ack_want.is_empty() || !pay_want.is_empty() {
            // Generous: every beat may wait for idle and every verdict for backpressure
            // (runs of at most 255 cycles each).
            if self.cycle - start > limit {
                return self.fail(format!(
                    "hang: {done} of {total} verdicts, {} beats left, {} ACK/NAK requests and {} payload packets missing",
                    queue.len(),
                    ack_want.len(),
                    pay_want.len()
                ));
            }
            valid = !queue.is_empty() && (valid || !idle.hold());
            match (valid, queue.front()) {
                (true, Some((_, b))) => self.drive_beat(true, b),
                _ => self.drive_beat(false, &Beat::empty(self.data_bytes)),
            }
            self.probe()?;
            let ready = !stall.hold();
            self.set("m_hdr_ready", u64::from(ready));
            let ack_ready = !ack_stall.hold();
            self.set("m_ack_ready", u64::from(ack_ready));
            let pay_ready = !pay_stall.hold();
            self.set("m_pay_tready", u64::from(pay_ready));
            axil.drive(&self.lite("s_axil_"));
            if let Some((period, n)) = self.qpc_noise {
                if (self.cycle - start) % period == 0 && qaxil.is_idle() {
                    let op = if n % 2 == 0 { 0x500u64 } else { 0x501 };
                    qaxil.write(qpc_addr::CMD_CTRL, 1 << 31 | op, 0xF);
                    self.qpc_noise = Some((period, n + 1));
                }
                qaxil.drive(&self.lite("qpc_s_axil_"));
            }
            self.dut.eval();
            let ack_valid = self.get("m_ack_valid") == 1;
            if ack_valid && ack_ready {
                let got = self.read_ack();
                match ack_want.pop_front() {
                    Some((_, w)) if w == got => {}
                    Some((i, w)) => {
                        return self.fail(format!(
                            "frame {i}: ACK/NAK request RTL {got:x?}\n  model {w:x?}\n  bytes {}",
                            hex(&frames[i].bytes)
                        ))
                    }
                    None => return self.fail(format!("ACK/NAK request with no frame: {got:x?}")),
                }
            }
            events.clear();
            axil.observe(&self.lite("s_axil_"), &mut events);
            if self.qpc_noise.is_some() {
                qaxil.observe(&self.lite("qpc_s_axil_"), &mut events);
            }
            if valid && self.get("s_axis_tready") == 1 {
                let (_, b) = queue.pop_front().expect("valid");
                self.beats += 1;
                if tally.beats == 0 {
                    tally.first_beat = self.cycle;
                }
                tally.beats += 1;
                tally.last_beat = self.cycle;
                if b.last {
                    tlast_at.push_back(self.cycle);
                    tlast_cycle.push(self.cycle);
                }
                valid = false;
            }
            let beat = self.read_pay();
            if let Err(e) = pay.observe(beat.as_ref(), pay_ready) {
                return self.fail(format!("m_pay: {e}"));
            }
            if let (Some(b), true) = (&beat, pay_ready) {
                tally.pay_beats += 1;
                if b.last {
                    let (bytes, discard) = pay.take_packet();
                    let Some((i, w, wd)) = pay_want.pop_front() else {
                        return self.fail(format!(
                            "a payload packet with no frame: {} bytes {}, discard {discard}",
                            bytes.len(),
                            hex(&bytes)
                        ));
                    };
                    if (&bytes, discard) != (&w, wd) {
                        return self.fail(format!(
                            "frame {i}: payload packet RTL {} bytes, discard {discard}: {}\n  model {} bytes, discard {wd}: {}\n  frame {}",
                            bytes.len(),
                            hex(&bytes),
                            w.len(),
                            hex(&w),
                            hex(&frames[i].bytes)
                        ));
                    }
                    match tlast_cycle.get(i) {
                        None => {
                            return self.fail(format!(
                                "frame {i}: payload tlast before the frame's tlast"
                            ))
                        }
                        Some(t) if exact_timing && self.cycle - t != PAY_LAST_LATENCY => {
                            return self.fail(format!(
                                "frame {i}: payload tlast {} cycles after the frame's tlast, expected {PAY_LAST_LATENCY}",
                                self.cycle - t
                            ))
                        }
                        _ => {}
                    }
                    tally.pay_packets += 1;
                    self.pay_discarded += u64::from(discard);
                }
            }
            for (port, got) in [("cnp", &mut cnp_got), ("ce", &mut ce_got)] {
                if self.get(&format!("{port}_valid")) == 1 {
                    got.push((
                        self.get(&format!("{port}_vf")) as u8,
                        self.get(&format!("{port}_qpn")) as u32,
                    ));
                }
            }
            if self.get("m_hdr_valid") == 1 && ready {
                let got = self.read_seen();
                let Some((w, _)) = want.pop_front() else {
                    return self.fail(format!("verdict with no frame: {got:?}"));
                };
                let at = tlast_at.pop_front();
                if got != w {
                    return self.fail(format!(
                        "frame {done}: RTL {got:?}\n  model {w:?}\n  bytes {}",
                        hex(&frames[done].bytes)
                    ));
                }
                match at {
                    None => return self.fail(format!("frame {done}: verdict before its tlast")),
                    Some(t) if exact_timing && self.cycle - t != VERDICT_LATENCY => {
                        return self.fail(format!(
                            "frame {done}: verdict {} cycles after tlast, documented {VERDICT_LATENCY}",
                            self.cycle - t
                        ));
                    }
                    // Without backpressure an ACK/NAK request shows with its verdict.
                    _ if exact_timing && ack_valid != acks[done].is_some() => {
                        return self.fail(format!(
                            "frame {done}: ACK/NAK request valid {ack_valid} with the verdict, model {:x?}",
                            acks[done]
                        ));
                    }
                    _ => {}
                }
                self.accepted += u64::from(got.verdict == 0);
                done += 1;
            }
            self.tick()?;
        }
        // The last verdict's events were shown with it, in its first valid cycle.
        if cnp_got != cnp_want {
            return self.fail(format!("CNP events: RTL {cnp_got:x?}, model {cnp_want:x?}"));
        }
        if ce_got != ce_want {
            return self.fail(format!("CE events: RTL {ce_got:x?}, model {ce_want:x?}"));
        }
        self.frames += total as u64;
        self.acks += tally.acks;
        self.pay_packets += tally.pay_packets;
        // Counters: read each (clear on read) and compare.
        let mut reads: Vec<(u64, u64, String)> = vec![
            (
                addr::FRAMES_SEEN,
                tally.frames & 0xFFFF_FFFF,
                "frames_seen[31:0]".into(),
            ),
            (
                addr::FRAMES_SEEN + 4,
                tally.frames >> 32,
                "frames_seen[63:32]".into(),
            ),
            (
                addr::VERDICT_ACCEPT,
                tally.accept & 0xFFFF_FFFF,
                "verdict_accept[31:0]".into(),
            ),
            (
                addr::VERDICT_ACCEPT + 4,
                tally.accept >> 32,
                "verdict_accept[63:32]".into(),
            ),
            (addr::EVENT_CNP, tally.cnp, "event_cnp_received".into()),
            (
                addr::VERDICT_DUPLICATE,
                tally.duplicate,
                "verdict_duplicate".into(),
            ),
            (
                addr::VERDICT_NAK_SEQ,
                tally.nak_seq,
                "verdict_nak_psn_seq".into(),
            ),
            (
                addr::VERDICT_NAK_ACCESS,
                tally.nak_access,
                "verdict_nak_remote_access".into(),
            ),
            (addr::EVENT_CE, tally.ce, "event_ce_marked".into()),
        ];
        for r in DropReason::ALL {
            reads.push((
                addr::DROP_BASE + 4 * u64::from(r.code() - 1),
                tally.drops.get(&r.code()).copied().unwrap_or(0),
                format!("drop counter of {r:?}"),
            ));
        }
        let mut tags = HashMap::new();
        for (a, v, what) in &reads {
            tags.insert(axil.read(*a), (*v, what.clone()));
        }
        let start = self.cycle;
        while !axil.is_idle() {
            if self.cycle - start > 10_000 {
                return self.fail("CSR reads never completed".into());
            }
            self.drive_beat(false, &Beat::empty(self.data_bytes));
            self.sinks_ready();
            axil.drive(&self.lite("s_axil_"));
            self.dut.eval();
            if self.get("m_ack_valid") == 1 {
                return self.fail(format!(
                    "an ACK/NAK request after the last frame's: {:x?}",
                    self.read_ack()
                ));
            }
            if self.get("m_pay_tvalid") == 1 {
                return self.fail("a payload beat after the last frame's packet".into());
            }
            events.clear();
            axil.observe(&self.lite("s_axil_"), &mut events);
            for e in &events {
                if let Event::ReadDone { tag, data, .. } = e {
                    let (want, what) = &tags[tag];
                    if data != want {
                        return self.fail(format!("{what}: RTL {data}, model {want}"));
                    }
                }
            }
            self.tick()?;
        }
        if let Some(v) = axil.violations().first() {
            return self.fail(format!("AXI4-Lite: {v}"));
        }
        self.live = Some((case.qps.clone(), case.keys.clone()));
        Ok(tally)
    }

    /// The `m_pay_*` beat, if valid.
    fn read_pay(&self) -> Option<PayBeat> {
        (self.get("m_pay_tvalid") == 1).then(|| {
            let w = self.get_words("m_pay_tkeep");
            let keep = w
                .iter()
                .enumerate()
                .fold(0u128, |k, (i, x)| k | u128::from(*x) << (32 * i));
            PayBeat {
                data: self.get_words("m_pay_tdata"),
                keep,
                last: self.get("m_pay_tlast") == 1,
                user: self.get("m_pay_tuser") == 1,
            }
        })
    }

    fn tick(&mut self) -> Result<(), Failure> {
        self.dut.tick();
        self.cycle += 1;
        self.total_cycles += 1;
        Ok(())
    }

    /// Line rate: `frames` sent back to back with the verdict sink always ready, each
    /// verdict checked to come exactly [`VERDICT_LATENCY`] cycles after its tlast beat.
    /// Returns (beats, cycles from the first beat taken to the last, both included).
    pub fn line_rate(&mut self, frames: &[FrameSpec]) -> Result<(u64, u64), Failure> {
        let case = Case {
            seed: 1,
            idle: Profile::NONE,
            stall: Profile::NONE,
            cfg: RxConfig::default(),
            qps: vec![plain_qp()],
            keys: Vec::new(),
            frames: frames.to_vec(),
        };
        let t = self.run_timed(&case, true)?;
        Ok((t.beats, t.last_beat - t.first_beat + 1))
    }
}

/// One beat of the payload stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PayBeat {
    pub data: Vec<u32>,
    pub keep: u128,
    pub last: bool,
    pub user: bool,
}

/// Rebuilds payload packets from `m_pay_*` and checks the stream's rules: a beat shown
/// and not taken stays the same until taken; `tkeep` is all ones except on the tlast beat,
/// where it is contiguous from lane 0 and not empty; `tuser` is 0 except on the tlast beat.
pub struct PaySink {
    data_bytes: usize,
    bytes: Vec<u8>,
    discard: bool,
    /// The beat shown last cycle and not taken.
    held: Option<PayBeat>,
}

impl PaySink {
    pub fn new(data_bytes: usize) -> PaySink {
        PaySink {
            data_bytes,
            bytes: Vec::new(),
            discard: false,
            held: None,
        }
    }

    /// The beat on the port this cycle (`None`: tvalid low) and whether it is taken.
    pub fn observe(&mut self, beat: Option<&PayBeat>, ready: bool) -> Result<(), String> {
        if let Some(h) = self.held.take() {
            if beat != Some(&h) {
                return Err(format!(
                    "a beat not taken changed or left: {h:x?} -> {beat:x?}"
                ));
            }
        }
        let Some(b) = beat else { return Ok(()) };
        if !ready {
            self.held = Some(b.clone());
            return Ok(());
        }
        let full = rdmagen_harness::axis::all_bytes(self.data_bytes);
        let n = b.keep.count_ones() as usize;
        if b.keep & !full != 0 || b.keep != rdmagen_harness::axis::all_bytes(n) || n == 0 {
            return Err(format!("tkeep {:#x} not contiguous from lane 0", b.keep));
        }
        if !b.last && (n != self.data_bytes || b.user) {
            return Err(format!(
                "a beat before tlast with tkeep {:#x}, tuser {}",
                b.keep, b.user
            ));
        }
        for lane in 0..n {
            self.bytes
                .push((b.data[lane / 4] >> (8 * (lane % 4))) as u8);
        }
        self.discard = b.user;
        Ok(())
    }

    /// The packet that just ended: its bytes and discard flag.
    pub fn take_packet(&mut self) -> (Vec<u8>, bool) {
        (std::mem::take(&mut self.bytes), self.discard)
    }
}

/// The model with the case's QPs (as the mailbox commands leave them) and keys.
pub fn model_of(cfg: &RxConfig, qps: &[QpSpec], keys: &[KeySpec]) -> RxQpModel {
    let mut m = RxQpModel::new(cfg.clone());
    for q in qps {
        m.qps.insert(
            (q.vf, q.qpn()),
            RxQp {
                state: q.state,
                st: q.st,
                pd: q.pd,
                epsn: q.epsn & 0xFF_FFFF,
                nak_sent: false,
                rre: q.rre,
                rwe: q.rwe,
                rae: q.rae,
                mtu: q.mtu,
                qkey: q.qkey,
            },
        );
    }
    for k in keys {
        m.keys.insert(
            k.index,
            RxKey {
                key: k.key,
                vf: k.vf,
                pd: k.pd,
                va: k.va,
                length: k.length,
                remote_read: k.remote_read,
                remote_write: k.remote_write,
                remote_atomic: k.remote_atomic,
            },
        );
    }
    m
}

/// The QPC context and memory-key layouts, from register-maps/qpc.yaml.
fn layouts() -> (Layout, MkLayout) {
    thread_local! {
        static L: (Layout, MkLayout) = {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps/qpc.yaml");
            let map = rdmagen_regmap::load(std::path::Path::new(path)).expect("qpc map");
            (Layout::of(&map).expect("qpc layout"), MkLayout::of(&map).expect("mkey layout"))
        };
    }
    L.with(|l| l.clone())
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// Supported opcodes (the model's table), CNP included.
pub fn opcodes() -> Vec<u8> {
    (0..=255u8).filter(|o| ext_layout(*o).is_some()).collect()
}

/// Random frames: mostly well formed (every supported opcode, 0–2 VLAN tags, IPv4 with
/// options or IPv6, PSNs across the 2^24 wrap, payloads that straddle beats), the rest
/// truncated, bit-flipped, overwritten, padded, with a bad FCS, or with bad BTH fields.
pub fn frame_strategy(max_payload: u16) -> impl Strategy<Value = FrameSpec> {
    let mutation = prop_oneof![
        10 => Just(Mutation::None),
        2 => any::<usize>().prop_map(Mutation::Truncate),
        3 => (any::<usize>(), any::<u8>()).prop_map(|(pos, bit)| Mutation::Flip { pos, bit }),
        1 => (0usize..64, any::<u8>()).prop_map(|(pos, value)| Mutation::Set { pos, value }),
        1 => (0usize..24, Just(0x81u8)).prop_map(|(pos, value)| Mutation::Set { pos: pos | 12, value }),
        1 => (1usize..40).prop_map(Mutation::Pad),
        1 => Just(Mutation::Fragment),
        1 => any::<u8>().prop_map(Mutation::Opcode),
    ];
    let psn = prop_oneof![
        2 => any::<u32>().prop_map(|v| v & 0xFF_FFFF),
        1 => (0u32..4).prop_map(|k| 0xFF_FFFF - k),
        1 => 0u32..4,
    ];
    (
        (
            proptest::sample::select(opcodes()),
            prop_oneof![3 => Just(0u8), 1 => 1u8..=2],
            any::<bool>(),
            prop_oneof![3 => Just(0u8), 1 => 1u8..=10],
            0u8..4,
            prop_oneof![8 => 1u32..0x100, 1 => Just(0u32), 1 => Just(0xFF_FFFFu32)],
            psn,
        ),
        (
            prop_oneof![6 => Just(0xFFFFu16), 1 => Just(0x7FFF), 1 => any::<u16>()],
            prop_oneof![8 => Just(0u8), 1 => 1u8..16],
            0u8..4,
            prop_oneof![2 => 0u16..16, 2 => 0..=max_payload],
            any::<u8>(),
            mutation,
            prop_oneof![15 => Just(false), 1 => Just(true)],
            // Untargeted frames: VF 0 meets unknown QPs, VFs 1-3 and others the wrong VF.
            prop_oneof![3 => 0u8..4, 1 => any::<u8>()],
        ),
        (
            prop_oneof![1 => Just(None), 4 => (0u8..4).prop_map(Some)],
            prop_oneof![1 => Just(None), 3 => (-3i32..=3).prop_map(Some), 1 => (-0x80_0001i32..=0x80_0001).prop_map(Some)],
            prop_oneof![
                1 => Just(None),
                3 => (0u8..4, 0u8..6, prop_oneof![3 => 0u32..0x300, 1 => any::<u32>()], prop_oneof![9 => Just(false), 1 => Just(true)])
                    .prop_map(|(key, edge, len, bad_variant)| Some(RdmaAim { key, edge, len, bad_variant })),
            ],
            any::<u32>(),
        ),
    )
        .prop_map(
            |(
                (opcode, vlans, ipv6, ip_options, ecn, qpn, psn),
                (pkey, tver, pad, payload, fill, mutation, bad_fcs, vf),
                (target, psn_rel, rdma, qkey),
            )| FrameSpec {
                target,
                psn_rel,
                rdma,
                reth: None,
                qkey,
                opcode,
                vlans,
                ipv6,
                ip_options: if ipv6 { 0 } else { ip_options },
                ecn,
                qpn,
                psn,
                pkey,
                tver,
                pad,
                payload,
                fill,
                mutation,
                bad_fcs,
                vf,
            },
        )
}

pub fn strategy(max_frames: usize, max_payload: u16) -> impl Strategy<Value = Case> {
    let cfg = (
        prop_oneof![6 => Just(true), 1 => Just(false)],
        prop_oneof![6 => Just(true), 1 => Just(false)],
        prop_oneof![6 => Just(4791u16), 1 => Just(4792)],
        prop_oneof![6 => Just(0xFFFFu16), 1 => Just(0x7FFF), 1 => Just(0x8001)],
    )
        .prop_map(|(icrc_check, ipv6, udp_dport, pkey)| RxConfig {
            icrc_check,
            ipv6,
            udp_dport,
            pkey,
        });
    let profile = prop_oneof![
        2 => Just(Profile::NONE),
        3 => (0u8..=60, 1u8..=5).prop_map(|(p, r)| Profile::new(p, r)),
    ];
    let qp = (
        (
            0u8..4,
            0u16..5,
            prop_oneof![6 => Just(0u8), 2 => Just(1), 1 => Just(2), 1 => Just(8)],
            prop_oneof![
                8 => Just(state::RTS),
                2 => Just(state::RTR),
                1 => Just(state::SQD),
                1 => Just(state::INIT),
                1 => Just(state::ERR),
                1 => Just(state::RST),
            ],
        ),
        (
            1u32..=2,
            prop_oneof![2 => any::<u32>().prop_map(|v| v & 0xFF_FFFF), 1 => (0u32..4).prop_map(|k| 0xFF_FFFF - k)],
            prop_oneof![5 => Just(true), 1 => Just(false)],
            prop_oneof![5 => Just(true), 1 => Just(false)],
            prop_oneof![5 => Just(true), 1 => Just(false)],
            1u8..=5,
            prop_oneof![1 => Just(0u32), 2 => any::<u32>()],
        ),
    )
        .prop_map(|((vf, local, st, state), (pd, epsn, rre, rwe, rae, mtu, qkey))| QpSpec {
            vf,
            local,
            st,
            state,
            pd,
            epsn,
            rre,
            rwe,
            rae,
            mtu,
            qkey,
        });
    let key = (
        (0u8..4, any::<u8>(), 1u32..=2),
        (
            prop_oneof![
                3 => any::<u64>().prop_map(|v| v & !0xFFF),
                1 => (1u64..0x2_0000).prop_map(|l| l.wrapping_neg()),
            ],
            prop_oneof![3 => 0x100u64..0x1_0000, 1 => any::<u64>()],
            any::<(bool, bool, bool)>(),
        ),
    )
        .prop_map(|((vf, key, pd), (va, length, (rr, rw, ra)))| KeySpec {
            vf,
            index: 0,
            key,
            pd,
            va,
            length,
            remote_read: rr,
            remote_write: rw,
            remote_atomic: ra,
        });
    (
        any::<u64>(),
        profile.clone(),
        profile,
        cfg,
        prop::collection::vec(qp, 1..=4),
        prop::collection::vec(key, 0..=3),
        prop::collection::vec(frame_strategy(max_payload), 1..max_frames),
    )
        .prop_map(|(seed, idle, stall, cfg, mut qps, mut keys, frames)| {
            // One QP per (vf, local) and one key per index.
            qps.sort_by_key(|q| (q.vf, q.local));
            qps.dedup_by_key(|q| (q.vf, q.local));
            for (i, k) in keys.iter_mut().enumerate() {
                k.index = 2 * i as u32 + 1;
            }
            Case {
                seed,
                idle,
                stall,
                cfg,
                qps,
                keys,
                frames,
            }
        })
}

/// A well-formed frame of `opcode` with `payload` bytes (for the line-rate tests).
pub fn plain(opcode: u8, payload: u16, vlans: u8, ipv6: bool) -> FrameSpec {
    FrameSpec {
        opcode,
        vlans,
        ipv6,
        ip_options: 0,
        ecn: 0,
        qpn: 0x12,
        psn: 0xFF_FFFE,
        pkey: 0xFFFF,
        tver: 0,
        pad: 0,
        payload,
        fill: 1,
        mutation: Mutation::None,
        bad_fcs: false,
        vf: 3,
        target: Some(0),
        psn_rel: Some(0),
        rdma: None,
        reth: None,
        qkey: 0,
    }
}

/// The QP [`plain`] frames go to: VF 3, local 0x0C, RC in RTS, every remote right (no key
/// exists, so RETH accesses of length 0 pass and others get nak_access).
pub fn plain_qp() -> QpSpec {
    QpSpec {
        vf: 3,
        local: 0x0C,
        st: 0,
        state: state::RTS,
        pd: 1,
        epsn: 0xFF_FFFE,
        rre: true,
        rwe: true,
        rae: true,
        mtu: 3,
        qkey: 0,
    }
}
