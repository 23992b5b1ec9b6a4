//! The speed benchmark's stimulus, recorded from a closed-loop run of `rx_top`.
//!
//! Reset; wait for the QPC clear; create 8 QPs (6 RC, 1 UC, 1 UD on VFs 0–3) and 4 memory
//! keys through the QPC command mailbox; configure the parser; then `frames` RoCEv2 frames
//! from a fixed-seed mix (SEND, SEND with immediate, WRITE and READ aimed inside a key, ACK,
//! CNP; UC SEND/WRITE; UD SEND; payloads 0 B to ~4 KB, some VLAN-tagged, IPv6, CE-marked,
//! duplicate or out-of-sequence PSNs, bad FCS or a flipped bit) with source idle between
//! beats, verdict backpressure and AXI4-Lite stalls, parser counters read during and after
//! the stream. Every verdict is checked against `rdmagen_refmodel::rxqp::RxQpModel` while
//! recording, so the replays measure a run that parsed what it should.

use std::collections::BTreeMap;

use rdmagen_harness::axil::{Event, Timing};
use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;
use rdmagen_refmodel::roce::{
    IpHeader, Ipv6Header, RocePacket, RxConfig, RxOutcome, Verdict, CNP_OPCODE, IPPROTO_UDP,
};
use rdmagen_refmodel::rxqp::{state, RxKey, RxQp, RxQpModel};

use crate::pins::PinFile;
use crate::rig::{addr, KeySpec, QpSpec, Rig};

/// A small deterministic generator (xorshift64*), so the stimulus never depends on a
/// random-number crate's version.
pub struct Xs(u64);

impl Xs {
    pub fn new(seed: u64) -> Xs {
        Xs(seed | 1)
    }
    pub fn word(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.word() % n.max(1)
    }
}

/// How one frame is built.
#[derive(Clone, Debug, Default)]
pub struct FrameSpec {
    pub opcode: u8,
    pub qpn: u32,
    pub psn: u32,
    pub payload: usize,
    pub vlans: u8,
    pub ipv6: bool,
    pub ecn: u8,
    /// (va, rkey, dma_len) of the RETH.
    pub reth: Option<(u64, u32, u32)>,
    /// Flip this bit of the built frame (bit index modulo the frame's bits).
    pub flip: Option<usize>,
}

impl FrameSpec {
    pub fn bytes(&self) -> Vec<u8> {
        let mut p =
            RocePacket::new_ipv4(self.opcode, self.qpn, self.psn).expect("supported opcode");
        p.eth.vlans = (0..self.vlans)
            .map(|i| 0x2000 | u16::from(i) << 4 | 7)
            .collect();
        if let IpHeader::V4(h) = &mut p.ip {
            h.tos = 0x88 | self.ecn;
            h.id = self.psn as u16;
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
        p.bth.ack_req = self.psn & 1 == 1;
        p.payload = (0..self.payload)
            .map(|i| (i as u8).wrapping_mul(7) ^ self.psn as u8)
            .collect();
        if let (Some(r), Some((va, rkey, len))) = (&mut p.ext.reth, self.reth) {
            (r.va, r.rkey, r.dma_len) = (va, rkey, len);
        }
        if let Some(i) = &mut p.ext.imm {
            *i = 0xC0DE_0000 | self.psn & 0xFFFF;
        }
        if let Some(a) = &mut p.ext.aeth {
            a.msn = self.psn;
        }
        let mut f = p.to_bytes().expect("valid frame spec");
        if let Some(bit) = self.flip {
            let b = bit % (8 * f.len());
            f[b / 8] ^= 1 << (b % 8);
        }
        f
    }
}

/// The model with `qps` (in RTS, every remote right) and `keys`.
pub fn model_of(qps: &[QpSpec], keys: &[KeySpec]) -> RxQpModel {
    let mut m = RxQpModel::new(RxConfig::default());
    for q in qps {
        m.qps.insert(
            (q.vf, q.qpn()),
            RxQp {
                state: state::RTS,
                st: q.st,
                pd: q.pd,
                epsn: q.epsn,
                nak_sent: false,
                rre: true,
                rwe: true,
                rae: true,
                mtu: q.mtu,
                // The rig's contexts leave q_key 0, as the stimulus's DETHs carry it.
                qkey: 0,
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
                remote_read: true,
                remote_write: true,
                remote_atomic: true,
            },
        );
    }
    m
}

/// What the recording run did.
#[derive(Clone, Debug, Default)]
pub struct Summary {
    pub cycles: u64,
    pub frames: usize,
    pub beats: u64,
    /// Frames per verdict name (drops by reason code).
    pub verdicts: BTreeMap<String, u64>,
}

fn verdict_name(o: &RxOutcome) -> String {
    match (o.verdict, o.reason) {
        (_, Some(r)) => format!("drop {r:?}"),
        (Verdict::Accept, None) => "accept".into(),
        (Verdict::Duplicate, None) => "duplicate".into(),
        (Verdict::NakSeq, None) => "nak_seq".into(),
        (Verdict::NakAccess, None) => "nak_access".into(),
        (Verdict::Drop, None) => "drop".into(),
    }
}

pub fn qps() -> Vec<QpSpec> {
    let mut v = Vec::new();
    for vf in 0..4u8 {
        for local in 1..=2u16 {
            let st = match (vf, local) {
                (2, 2) => 1,
                (3, 2) => 2,
                _ => 0,
            };
            v.push(QpSpec {
                vf,
                local,
                st,
                pd: 1 + u32::from(vf),
                epsn: (0xFF_FF00 + 0x35 * u32::from(vf) + u32::from(local)) & 0xFF_FFFF,
                mtu: 5,
            });
        }
    }
    v
}

pub fn keys() -> Vec<KeySpec> {
    (0..4u8)
        .map(|vf| KeySpec {
            vf,
            index: 2 * u32::from(vf) + 1,
            key: 0x40 + vf,
            pd: 1 + u32::from(vf),
            va: 0x10_0000 * (u64::from(vf) + 1),
            length: 0x1_0000,
        })
        .collect()
}

/// Payload size: a quarter tiny, a third up to 512 B, the rest up to 4000 B.
fn payload(x: &mut Xs) -> usize {
    match x.below(12) {
        0..=2 => x.below(64) as usize,
        3..=6 => 64 + x.below(448) as usize,
        7..=9 => 512 + x.below(1024) as usize,
        _ => 1536 + x.below(2464) as usize,
    }
}

/// One frame of the mix, aimed at one of `qps` with a PSN from the model's ePSN.
fn pick(x: &mut Xs, qps: &[QpSpec], keys: &[KeySpec], model: &RxQpModel) -> (FrameSpec, bool, u8) {
    let q = &qps[x.below(qps.len() as u64) as usize];
    let key = keys.iter().find(|k| k.vf == q.vf);
    let epsn = model.qps[&(q.vf, q.qpn())].epsn;
    let mut f = FrameSpec {
        qpn: q.qpn(),
        psn: epsn,
        payload: payload(x),
        ..FrameSpec::default()
    };
    let kind = x.below(20);
    f.opcode = match q.st {
        1 => [0x24, 0x2A][kind as usize % 2],
        2 => 0x64,
        _ => match kind {
            0..=6 => 0x04,
            7..=8 => 0x05,
            9..=13 => 0x0A,
            14..=15 => 0x0C,
            16..=17 => 0x11,
            _ => CNP_OPCODE,
        },
    };
    if matches!(f.opcode, 0x0C | 0x11 | CNP_OPCODE) {
        f.payload = 0;
    }
    if let (0x0A | 0x2A | 0x0C, Some(k)) = (f.opcode, key) {
        let len = if f.opcode == 0x0C {
            64 + x.below(4000)
        } else {
            f.payload as u64
        };
        // Mostly inside the region; one in eight runs past its end (nak_access on RC).
        let va = if x.below(8) == 0 {
            k.va + k.length - len / 2
        } else {
            k.va + x.below(k.length - len)
        };
        f.reth = Some((va, k.rkey(), len as u32));
    }
    f.vlans = [0, 0, 0, 0, 0, 0, 0, 0, 1, 2][x.below(10) as usize];
    f.ipv6 = x.below(10) == 0;
    f.ecn = if x.below(10) == 0 { 3 } else { 2 };
    match x.below(50) {
        0..=1 => f.psn = epsn.wrapping_sub(1) & 0xFF_FFFF,
        2 => f.psn = (epsn + 5) & 0xFF_FFFF,
        3 => f.flip = Some(x.word() as usize),
        _ => {}
    }
    let bad_fcs = x.below(50) == 0;
    (f, bad_fcs, q.vf)
}

/// Records the stimulus on a fresh model `M`: `frames` frames of the mix.
pub fn record<M: Model>(frames: usize, seed: u64) -> Result<(PinFile, Summary), String> {
    let mut rig = Rig::<M>::new(true, seed, Timing::uniform(Profile::new(20, 2)))?;
    let (qps, keys) = (qps(), keys());
    rig.reset();
    rig.wait_qpc_ready()?;
    rig.create(&qps, &keys)?;
    rig.configure()?;
    rig.traffic(seed ^ 0xF, Profile::new(15, 3), Profile::new(20, 4));

    let mut model = model_of(&qps, &keys);
    let mut x = Xs::new(seed);
    let mut want = Vec::new();
    let mut summary = Summary {
        frames,
        ..Summary::default()
    };
    for _ in 0..frames {
        let (f, bad_fcs, vf) = pick(&mut x, &qps, &keys, &model);
        let bytes = f.bytes();
        let o = model.receive(&bytes, bad_fcs, vf);
        *summary.verdicts.entry(verdict_name(&o)).or_default() += 1;
        want.push(o);
        rig.source
            .send(&bytes, u64::from(vf) << 1 | u64::from(bad_fcs));
    }
    let (mut got, mut cnp, mut ce) = (0usize, 0u64, 0u64);
    // frames_seen read during the stream (clear on read): the reads and the final one
    // must add up to the frames sent.
    let mut seen_during = 0u64;
    let start = rig.cycle;
    while got < want.len() {
        if rig.cycle - start > 50 * (frames as u64 + 1) * 64 {
            return Err(format!(
                "cycle {}: {got} of {} verdicts",
                rig.cycle,
                want.len()
            ));
        }
        // CSR reads while the stream runs.
        if rig.cycle % 997 == 0 {
            rig.axil.read(addr::FRAMES_SEEN);
        }
        let s = rig.step();
        for e in &s.axil {
            if let Event::ReadDone { data, .. } = e {
                seen_during += data;
            }
        }
        summary.beats += s.beats.len() as u64;
        cnp += u64::from(s.cnp);
        ce += u64::from(s.ce);
        if let Some(v) = s.verdict {
            let w = &want[got];
            let exp = (
                w.verdict as u8,
                w.reason.map_or(0, |r| r.code()),
                w.fields.opcode,
                w.fields.qpn,
            );
            if (v.verdict, v.reason, v.opcode, v.qpn) != exp {
                return Err(format!(
                    "cycle {}: frame {got}: RTL (verdict, reason, opcode, qpn) = {:?}, model {exp:?}",
                    v.cycle,
                    (v.verdict, v.reason, v.opcode, v.qpn)
                ));
            }
            got += 1;
        }
    }
    for (_, data) in rig.settle()? {
        seen_during += data;
    }
    let accepted = want.iter().filter(|o| o.verdict as u8 == 0).count() as u64;
    let cnp_want = want
        .iter()
        .filter(|o| o.verdict as u8 == 0 && o.fields.cnp)
        .count() as u64;
    let ce_want = want
        .iter()
        .filter(|o| o.verdict as u8 == 0 && o.fields.ecn_ce)
        .count() as u64;
    if (cnp, ce) != (cnp_want, ce_want) {
        return Err(format!(
            "CNP/CE events: RTL {cnp}/{ce}, model {cnp_want}/{ce_want}"
        ));
    }
    let checks = [
        (
            addr::FRAMES_SEEN,
            (frames as u64)
                .checked_sub(seen_during)
                .ok_or("frames_seen read during the stream exceeds the frames sent")?,
            "frames_seen",
        ),
        (addr::VERDICT_ACCEPT, accepted, "verdict_accept"),
        (addr::EVENT_CNP, cnp_want, "event_cnp_received"),
        (addr::EVENT_CE, ce_want, "event_ce_marked"),
    ];
    let tags: Vec<u64> = checks.iter().map(|(a, _, _)| rig.axil.read(*a)).collect();
    let mut reads = std::collections::HashMap::new();
    while !rig.axil.is_idle() {
        for e in rig.step().axil {
            if let Event::ReadDone { tag, data, .. } = e {
                reads.insert(tag, data);
            }
        }
    }
    for ((_, v, what), tag) in checks.iter().zip(&tags) {
        let got = reads.get(tag).copied().unwrap_or(u64::MAX);
        if got != *v {
            return Err(format!("{what}: RTL {got}, model {v}"));
        }
    }
    for _ in 0..16 {
        rig.step();
    }
    summary.cycles = rig.cycle;
    Ok((rig.pin_file(), summary))
}
