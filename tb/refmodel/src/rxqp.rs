//! The RX parser's verdicts that need the queue-pair context (SPEC §5, FACTS §3, IBA 9.7):
//! the frame's QP, its transport and state, the 24-bit PSN window against ePSN with the
//! NAK-sent flag, and the R_Key check of RETH/AtomicETH requests against the memory keys.
//!
//! [`RxQpModel::receive`] runs the QP-independent checks of [`RxParserModel::classify`]
//! first; a frame that passes them meets, in order:
//!
//! 1. `WRONG_VF`: DestQP's VF field (`[19:12]`) is not the VF the frame was steered to.
//! 2. `UNKNOWN_QP`: no such QP (junk in `[23:20]` included).
//! 3. `TRANSPORT_MISMATCH`: opcode transport (RC, UC, UD) is not the QP's service type.
//!    A CNP skips this and the state check: it only needs an existing QP.
//! 4. `STATE`: requests need RTR, RTS, SQER or SQD; RC responses and ACKs need RTS, SQER
//!    or SQD.
//! 5. `Q_KEY`: a UD request's DETH Q_Key is not the QP's Q_Key.
//! 6. Responses, ACKs, CNPs and UD requests are accepted (no PSN window on this side).
//! 7. RC request: `diff = (psn - ePSN) mod 2^24` read as signed 24 bits. 0: the R_Key check
//!    (WRITE first/only, READ request, atomics: the QP must grant the right and the memory
//!    key must allow the access), then accept with ePSN += 1 (a READ request: += its
//!    response count, ceil(DMA length / path MTU), at least 1) and NAK-sent cleared, or
//!    `nak_access` with ePSN and NAK-sent unchanged and the QP moved to ERR (IBA class C:
//!    the responder's QP goes to the error state; rxe `do_class_ac_error`), so every later
//!    frame but a CNP is a `STATE` drop. Negative: `duplicate`. Positive: `nak_seq` and
//!    NAK-sent set, or, while NAK-sent, a silent `PSN_SEQ` drop.
//! 8. UC request: an expected PSN or a first/only packet (which resynchronises) is
//!    executed (R_Key check as above; accept sets ePSN = psn + 1); any other is a silent
//!    `PSN_SEQ` drop. UC never NAKs a sequence error.
//!
//! [`RxQpModel::receive_with_ack`] also names the ACK/NAK the responder owes (IBA 9.7.5,
//! FACTS §3 AETH syndromes, as rxe answers): RC requests only (UC and UD are never
//! acknowledged), one per frame:
//!
//! - accept of a request other than a READ or an atomic, with AckReq set: ACK (`0x1F`,
//!   credit count invalid) carrying the frame's PSN;
//! - duplicate of a request other than a READ or an atomic: ACK again (C9-105) carrying the
//!   last PSN received in order, ePSN - 1;
//! - `nak_seq`: NAK PSN sequence error (`0x60`) carrying ePSN;
//! - `nak_access`: NAK remote access error (`0x62`) carrying the frame's PSN.
//!
//! READ and atomic requests (new or duplicate) are answered with READ responses or an ATOMIC
//! ACK by the send side, not by this stream.

use std::collections::BTreeMap;

use crate::roce::{DropReason, RxConfig, RxOutcome, RxParserModel, Verdict, CNP_OPCODE, GSI_QKEY};

/// QP states (mlx5 encoding, register-maps/qpc.yaml `qp_state`).
pub mod state {
    pub const RST: u8 = 0;
    pub const INIT: u8 = 1;
    pub const RTR: u8 = 2;
    pub const RTS: u8 = 3;
    pub const SQER: u8 = 4;
    pub const SQD: u8 = 5;
    pub const ERR: u8 = 6;
}

/// Service types (mlx5 `qpc.st`).
pub mod st {
    pub const RC: u8 = 0;
    pub const UC: u8 = 1;
    pub const UD: u8 = 2;
    /// The GSI QP (mlx5 `MLX5_QP_ST_QP1`): takes UD opcodes, with the well-known Q_Key.
    pub const QP1: u8 = 8;
}

/// What the parser needs of a QP.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxQp {
    pub state: u8,
    pub st: u8,
    pub pd: u32,
    pub epsn: u32,
    pub nak_sent: bool,
    /// Remote read / write / atomic enable.
    pub rre: bool,
    pub rwe: bool,
    pub rae: bool,
    /// Path MTU code: 1 = 256 ... 5 = 4096 bytes.
    pub mtu: u8,
    /// Q_Key, checked against a UD request's DETH.
    pub qkey: u32,
}

/// A memory key (mlx5 mkey), indexed by `rkey >> 8`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxKey {
    /// The variant byte: `rkey[7:0]`.
    pub key: u8,
    /// Owning VF.
    pub vf: u8,
    pub pd: u32,
    pub va: u64,
    pub length: u64,
    pub remote_read: bool,
    pub remote_write: bool,
    pub remote_atomic: bool,
}

/// AETH syndromes of the ACK/NAK requests (FACTS §3).
pub mod aeth {
    /// ACK, credit count 31 (invalid: no end-to-end credits).
    pub const ACK: u8 = 0x1F;
    pub const NAK_PSN_SEQ: u8 = 0x60;
    pub const NAK_REMOTE_ACCESS: u8 = 0x62;
}

/// An ACK/NAK the responder owes for one frame (the parser's `m_ack_*` stream).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AckRequest {
    pub vf: u8,
    pub qpn: u32,
    /// AETH syndrome: [`aeth::ACK`], [`aeth::NAK_PSN_SEQ`] or [`aeth::NAK_REMOTE_ACCESS`].
    pub syndrome: u8,
    /// The BTH PSN of the answer.
    pub psn: u32,
}

/// The parser with its QPs and keys.
#[derive(Clone, Debug, Default)]
pub struct RxQpModel {
    pub hdr: RxParserModel,
    /// By (VF, QPN); the QPN is `{4'b0, vf, local}`.
    pub qps: BTreeMap<(u8, u32), RxQp>,
    /// By key index (`rkey >> 8`).
    pub keys: BTreeMap<u32, RxKey>,
}

/// The access an RDMA request makes: (remote read, write, atomic), VA, R_Key, length.
struct Access {
    read: bool,
    write: bool,
    atomic: bool,
}

fn access_of(opcode: u8) -> Option<Access> {
    let (tr, op) = (opcode >> 5, opcode & 0x1F);
    let a = |read, write, atomic| {
        Some(Access {
            read,
            write,
            atomic,
        })
    };
    match (tr, op) {
        (0 | 1, 0x06 | 0x0A | 0x0B) => a(false, true, false),
        (0, 0x0C) => a(true, false, false),
        (0, 0x13 | 0x14) => a(false, false, true),
        _ => None,
    }
}

/// The signed distance from ePSN to PSN modulo 2^24 (IBA 9.7.5.1.3: the half behind ePSN
/// is the duplicate window).
pub fn psn_diff(psn: u32, epsn: u32) -> i32 {
    ((psn.wrapping_sub(epsn) << 8) as i32) >> 8
}

/// READ response packets for a DMA length at a path MTU code: ceil(len / MTU), at least 1.
pub fn read_responses(dma_len: u32, mtu: u8) -> u32 {
    if dma_len == 0 || !(1..=5).contains(&mtu) {
        return 1;
    }
    let m = 128u64 << mtu;
    (u64::from(dma_len).div_ceil(m)) as u32
}

impl RxQpModel {
    pub fn new(cfg: RxConfig) -> RxQpModel {
        RxQpModel {
            hdr: RxParserModel::new(cfg),
            ..RxQpModel::default()
        }
    }

    /// The memory-key check of the QPC (docs/qpc.md): a zero length needs no key; else the
    /// key must exist with this variant byte and VF, the QP's PD, the right, and hold
    /// `[va, va + len)`.
    fn key_ok(&self, vf: u8, pd: u32, rkey: u32, va: u64, len: u32, acc: &Access) -> bool {
        if len == 0 {
            return true;
        }
        let Some(k) = self.keys.get(&(rkey >> 8)) else {
            return false;
        };
        let end = u128::from(va) + u128::from(len);
        k.key == rkey as u8
            && k.vf == vf
            && k.pd == pd
            && (!acc.read || k.remote_read)
            && (!acc.write || k.remote_write)
            && (!acc.atomic || k.remote_atomic)
            && va >= k.va
            && end <= u128::from(k.va) + u128::from(k.length)
    }

    /// One frame's verdict and the ACK/NAK it needs, if any (see the module docs).
    pub fn receive_with_ack(
        &mut self,
        frame: &[u8],
        bad_fcs: bool,
        vf: u8,
    ) -> (RxOutcome, Option<AckRequest>) {
        let o = self.receive(frame, bad_fcs, vf);
        let f = &o.fields;
        let rc_request = f.opcode >> 5 == 0 && !(0x0D..=0x12).contains(&f.opcode);
        if o.verdict == Verdict::Drop || !rc_request {
            return (o, None);
        }
        let read_or_atomic = matches!(f.opcode, 0x0C | 0x13 | 0x14);
        // Duplicates and NAKs leave ePSN as it was.
        let epsn = self.qps.get(&(vf, f.qpn)).map_or(0, |q| q.epsn);
        let answer = match o.verdict {
            Verdict::Accept if f.ack_req && !read_or_atomic => Some((aeth::ACK, f.psn)),
            Verdict::Duplicate if !read_or_atomic => {
                Some((aeth::ACK, epsn.wrapping_sub(1) & 0xFF_FFFF))
            }
            Verdict::NakSeq => Some((aeth::NAK_PSN_SEQ, epsn)),
            Verdict::NakAccess => Some((aeth::NAK_REMOTE_ACCESS, f.psn)),
            _ => None,
        };
        let ack = answer.map(|(syndrome, psn)| AckRequest {
            vf,
            qpn: f.qpn,
            syndrome,
            psn,
        });
        (o, ack)
    }

    /// One frame's verdict; updates the QP's ePSN and NAK-sent as the write-back does.
    pub fn receive(&mut self, frame: &[u8], bad_fcs: bool, vf: u8) -> RxOutcome {
        let mut o = self.hdr.classify(frame, bad_fcs, vf);
        if o.verdict != Verdict::Accept {
            return o;
        }
        let f = o.fields.clone();
        let drop = |o: &mut RxOutcome, r| {
            o.verdict = Verdict::Drop;
            o.reason = Some(r);
        };
        if (f.qpn >> 12) & 0xFF != u32::from(vf) {
            drop(&mut o, DropReason::WrongVf);
            return o;
        }
        let Some(qp) = self.qps.get(&(vf, f.qpn)).cloned() else {
            drop(&mut o, DropReason::UnknownQp);
            return o;
        };
        let tr = f.opcode >> 5;
        let cnp = f.opcode == CNP_OPCODE;
        let resp = tr == 0 && (0x0D..=0x12).contains(&(f.opcode & 0x1F));
        let tr_ok = cnp
            || (tr == 0 && qp.st == st::RC)
            || (tr == 1 && qp.st == st::UC)
            || (tr == 3 && (qp.st == st::UD || qp.st == st::QP1));
        if !tr_ok {
            drop(&mut o, DropReason::TransportMismatch);
            return o;
        }
        let s = qp.state;
        let state_ok = cnp
            || if resp {
                matches!(s, state::RTS | state::SQER | state::SQD)
            } else {
                matches!(s, state::RTR | state::RTS | state::SQER | state::SQD)
            };
        if !state_ok {
            drop(&mut o, DropReason::State);
            return o;
        }
        // UD: the DETH's Q_Key must be the QP's (IBA 10.2.4; rxe `check_keys`), a GSI QP's
        // the well-known 0x8001_0000 whatever its context holds; silently dropped otherwise.
        let qkey = if qp.st == st::QP1 { GSI_QKEY } else { qp.qkey };
        if tr == 3 && f.qkey != qkey {
            drop(&mut o, DropReason::QKey);
            return o;
        }
        if cnp || resp || tr == 3 {
            return o;
        }
        let acc = access_of(f.opcode);
        let key_ok = match &acc {
            None => true,
            Some(a) => {
                let right = (a.read && qp.rre) || (a.write && qp.rwe) || (a.atomic && qp.rae);
                let len = if a.atomic { 8 } else { f.dma_len };
                right && self.key_ok(vf, qp.pd, f.rkey, f.va, len, a)
            }
        };
        let q = self.qps.get_mut(&(vf, f.qpn)).expect("looked up");
        let diff = psn_diff(f.psn, q.epsn);
        if tr == 1 {
            let start = matches!(f.opcode & 0x1F, 0x00 | 0x04 | 0x05 | 0x06 | 0x0A | 0x0B);
            if diff == 0 || start {
                if key_ok {
                    q.epsn = (f.psn + 1) & 0xFF_FFFF;
                    q.nak_sent = false;
                } else {
                    o.verdict = Verdict::NakAccess;
                }
            } else {
                drop(&mut o, DropReason::PsnSeq);
            }
            return o;
        }
        if diff == 0 {
            if key_ok {
                let inc = if f.opcode == 0x0C {
                    read_responses(f.dma_len, q.mtu)
                } else {
                    1
                };
                q.epsn = (q.epsn + inc) & 0xFF_FFFF;
                q.nak_sent = false;
            } else {
                // IBA class C (rxe `do_class_ac_error`): the responder's RC QP goes to ERR
                // with the NAK; from then on only CNPs reach it.
                o.verdict = Verdict::NakAccess;
                q.state = state::ERR;
            }
        } else if diff < 0 {
            o.verdict = Verdict::Duplicate;
        } else if q.nak_sent {
            drop(&mut o, DropReason::PsnSeq);
        } else {
            o.verdict = Verdict::NakSeq;
            q.nak_sent = true;
        }
        o
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roce::RocePacket;

    fn model() -> RxQpModel {
        let mut m = RxQpModel::new(RxConfig::default());
        m.qps.insert(
            (1, 1 << 12 | 5),
            RxQp {
                state: state::RTS,
                st: st::RC,
                pd: 7,
                epsn: 0xFF_FFFE,
                nak_sent: false,
                rre: true,
                rwe: true,
                rae: false,
                mtu: 1,
                qkey: 0,
            },
        );
        m.keys.insert(
            3,
            RxKey {
                key: 0x44,
                vf: 1,
                pd: 7,
                va: 0x1000,
                length: 0x1000,
                remote_read: true,
                remote_write: true,
                remote_atomic: false,
            },
        );
        m
    }

    fn frame(opcode: u8, qpn: u32, psn: u32, reth: Option<(u64, u32, u32)>) -> Vec<u8> {
        let mut p = RocePacket::new_ipv4(opcode, qpn, psn).unwrap();
        if let (Some(r), Some((va, rkey, len))) = (&mut p.ext.reth, reth) {
            (r.va, r.rkey, r.dma_len) = (va, rkey, len);
        }
        p.to_bytes().unwrap()
    }

    /// A UD request is accepted only with the QP's Q_Key in its DETH, and the check comes
    /// after the state check (a UD QP in INIT drops for STATE whatever the key).
    #[test]
    fn ud_requests_need_the_qps_q_key() {
        let mut m = model();
        let q = 1 << 12 | 9;
        let ud = RxQp {
            st: st::UD,
            qkey: 0x8001_0000,
            ..m.qps[&(1, 1 << 12 | 5)].clone()
        };
        m.qps.insert((1, q), ud);
        let send = |m: &mut RxQpModel, op: u8, qkey: u32| {
            let mut p = RocePacket::new_ipv4(op, q, 7).unwrap();
            p.ext.deth.as_mut().unwrap().qkey = qkey;
            let o = m.receive(&p.to_bytes().unwrap(), false, 1);
            (o.verdict, o.reason)
        };
        for op in [0x64, 0x65] {
            assert_eq!(send(&mut m, op, 0x8001_0000), (Verdict::Accept, None));
            for bad in [0, 0x8001_0001, 0x0001_0000] {
                assert_eq!(
                    send(&mut m, op, bad),
                    (Verdict::Drop, Some(DropReason::QKey))
                );
            }
        }
        // The DETH's reserved byte (before the source QP) is ignored: 24-bit src_qp.
        let mut p = RocePacket::new_ipv4(0x64, q, 7).unwrap();
        *p.ext.deth.as_mut().unwrap() = crate::roce::Deth {
            qkey: 0x8001_0000,
            src_qp: 0xAB_CDEF,
        };
        let mut f = p.to_bytes().unwrap();
        let at = f.len() - 4 - 4; // before the ICRC: the DETH's last 4 bytes (no payload)
        f[at] = 0x5A;
        let crc = crate::roce::icrc(&f).unwrap();
        let n = f.len();
        f[n - 4..].copy_from_slice(&crc.to_le_bytes());
        let o = m.hdr.classify(&f, false, 1);
        assert_eq!(o.verdict, Verdict::Accept);
        assert_eq!(o.fields.src_qp, 0xAB_CDEF);
        m.qps.get_mut(&(1, q)).unwrap().state = state::INIT;
        assert_eq!(
            send(&mut m, 0x64, 0),
            (Verdict::Drop, Some(DropReason::State))
        );
    }

    /// DestQP 1 reaches the receiving VF's QP 1 (every VF has its GSI QP), a GSI QP (service
    /// type QP1) takes UD opcodes with the well-known Q_Key whatever its context holds, and
    /// the verdict names the VF's QP 1.
    #[test]
    fn dest_qp_1_is_the_receiving_vfs_gsi_qp() {
        let mut m = model();
        let gsi = RxQp {
            st: st::QP1,
            qkey: 0x1234,
            ..m.qps[&(1, 1 << 12 | 5)].clone()
        };
        m.qps.insert((1, 1 << 12 | 1), gsi.clone());
        let send = |m: &mut RxQpModel, op: u8, dest: u32, qkey: u32, vf: u8| {
            let mut p = RocePacket::new_ipv4(op, dest, 7).unwrap();
            if let Some(d) = p.ext.deth.as_mut() {
                d.qkey = qkey;
            }
            let o = m.receive(&p.to_bytes().unwrap(), false, vf);
            (o.verdict, o.reason, o.fields.qpn)
        };
        let gsi_qn = 1 << 12 | 1;
        assert_eq!(
            send(&mut m, 0x64, 1, 0x8001_0000, 1),
            (Verdict::Accept, None, gsi_qn)
        );
        assert_eq!(
            send(&mut m, 0x64, 1, 0x1234, 1),
            (Verdict::Drop, Some(DropReason::QKey), gsi_qn)
        );
        // Addressed by its full number it is the same QP.
        assert_eq!(
            send(&mut m, 0x65, gsi_qn, 0x8001_0000, 1).0,
            Verdict::Accept
        );
        // RC opcodes are not the GSI's transport.
        assert_eq!(
            send(&mut m, 0x04, 1, 0, 1),
            (Verdict::Drop, Some(DropReason::TransportMismatch), gsi_qn)
        );
        // VF 2 has no QP 1: DestQP 1 there is unknown, not another VF's (no WRONG_VF).
        assert_eq!(
            send(&mut m, 0x64, 1, 0x8001_0000, 2),
            (Verdict::Drop, Some(DropReason::UnknownQp), 2 << 12 | 1)
        );
        m.qps.insert((2, 2 << 12 | 1), gsi);
        assert_eq!(send(&mut m, 0x64, 1, 0x8001_0000, 2).0, Verdict::Accept);
        // A plain UD QP keeps its own Q_Key, even 0x8001_0000's neighbours.
        let ud = RxQp {
            st: st::UD,
            qkey: 0x1234,
            ..m.qps[&(1, 1 << 12 | 5)].clone()
        };
        m.qps.insert((1, 1 << 12 | 1), ud);
        assert_eq!(send(&mut m, 0x64, 1, 0x1234, 1).0, Verdict::Accept);
        assert_eq!(
            send(&mut m, 0x64, 1, 0x8001_0000, 1).1,
            Some(DropReason::QKey)
        );
    }

    #[test]
    fn psn_window_wraps_at_2_pow_24() {
        assert_eq!(psn_diff(0, 0xFF_FFFF), 1);
        assert_eq!(psn_diff(0xFF_FFFF, 0), -1);
        assert_eq!(psn_diff(0x80_0000, 0), -0x80_0000);
        assert_eq!(psn_diff(0x7F_FFFF, 0), 0x7F_FFFF);
        assert_eq!(read_responses(0, 1), 1);
        assert_eq!(read_responses(257, 1), 2);
        assert_eq!(read_responses(u32::MAX, 1), 0x100_0000);
    }

    #[test]
    fn sequence_duplicate_nak_once_then_silent() {
        let mut m = model();
        let q = 1 << 12 | 5;
        let v = |m: &mut RxQpModel, psn| {
            let o = m.receive(&frame(0x04, q, psn, None), false, 1);
            (o.verdict, o.reason)
        };
        assert_eq!(v(&mut m, 0xFF_FFFE), (Verdict::Accept, None));
        assert_eq!(v(&mut m, 0xFF_FFFE), (Verdict::Duplicate, None));
        assert_eq!(v(&mut m, 1), (Verdict::NakSeq, None));
        assert_eq!(v(&mut m, 2), (Verdict::Drop, Some(DropReason::PsnSeq)));
        assert_eq!(v(&mut m, 0xFF_FFFF), (Verdict::Accept, None));
        assert_eq!(v(&mut m, 0), (Verdict::Accept, None));
        assert_eq!(v(&mut m, 1), (Verdict::Accept, None));
        assert_eq!(m.qps[&(1, q)].epsn, 2);
        assert_eq!(
            m.receive(&frame(0x04, q, 2, None), false, 2).reason,
            Some(DropReason::WrongVf)
        );
        assert_eq!(
            m.receive(&frame(0x04, q + 1, 2, None), false, 1).reason,
            Some(DropReason::UnknownQp)
        );
        assert_eq!(
            m.receive(&frame(0x24, q, 2, None), false, 1).reason,
            Some(DropReason::TransportMismatch)
        );
    }

    #[test]
    fn ack_requests_per_verdict() {
        let mut m = model();
        let q = 1 << 12 | 5;
        let ack = |m: &mut RxQpModel, op, psn, ack_req: bool, reth| {
            let mut p = RocePacket::new_ipv4(op, q, psn).unwrap();
            p.bth.ack_req = ack_req;
            if let (Some(r), Some((va, rkey, len))) = (&mut p.ext.reth, reth) {
                (r.va, r.rkey, r.dma_len) = (va, rkey, len);
            }
            let (o, a) = m.receive_with_ack(&p.to_bytes().unwrap(), false, 1);
            (o.verdict, a.map(|a| (a.syndrome, a.psn)))
        };
        // Accepted without AckReq: nothing; with it: ACK of its PSN.
        assert_eq!(
            ack(&mut m, 0x04, 0xFF_FFFE, false, None),
            (Verdict::Accept, None)
        );
        assert_eq!(
            ack(&mut m, 0x04, 0xFF_FFFF, true, None),
            (Verdict::Accept, Some((aeth::ACK, 0xFF_FFFF)))
        );
        // ePSN is 0 now: a duplicate is re-ACKed with ePSN - 1 (wrapping).
        assert_eq!(
            ack(&mut m, 0x04, 0xFF_FFFE, false, None),
            (Verdict::Duplicate, Some((aeth::ACK, 0xFF_FFFF)))
        );
        // A duplicate READ is re-executed, not ACKed.
        assert_eq!(
            ack(&mut m, 0x0C, 0xFF_FFFE, true, Some((0x1000, 0x344, 1))),
            (Verdict::Duplicate, None)
        );
        // Ahead: one NAK with ePSN, then silence.
        assert_eq!(
            ack(&mut m, 0x04, 5, true, None),
            (Verdict::NakSeq, Some((aeth::NAK_PSN_SEQ, 0)))
        );
        assert_eq!(ack(&mut m, 0x04, 6, true, None).1, None);
        // Remote access error: NAK with the frame's PSN, and the QP goes to ERR: the next
        // request is dropped for the state, without an answer; a CNP still reaches it.
        assert_eq!(
            ack(&mut m, 0x0A, 0, false, Some((0x2000, 0x344, 1))),
            (Verdict::NakAccess, Some((aeth::NAK_REMOTE_ACCESS, 0)))
        );
        assert_eq!(m.qps[&(1, q)].state, state::ERR);
        assert_eq!(
            ack(&mut m, 0x0C, 0, true, Some((0x1000, 0x344, 1))),
            (Verdict::Drop, None)
        );
        assert_eq!(ack(&mut m, CNP_OPCODE, 0, false, None).0, Verdict::Accept);
        // Software takes the QP through RST back to RTS (ePSN as it was).
        m.qps.get_mut(&(1, q)).unwrap().state = state::RTS;
        // An accepted READ is answered by READ responses, not this stream.
        assert_eq!(
            ack(&mut m, 0x0C, 0, true, Some((0x1000, 0x344, 1))),
            (Verdict::Accept, None)
        );
    }

    #[test]
    fn rkey_edges_and_read_count() {
        let mut m = model();
        let q = 1 << 12 | 5;
        let mut psn = 0xFF_FFFE;
        let mut go = |m: &mut RxQpModel, op, va, rkey, len| {
            let o = m.receive(&frame(op, q, psn, Some((va, rkey, len))), false, 1);
            if o.verdict == Verdict::Accept {
                psn = m.qps[&(1, q)].epsn;
            }
            // A remote access NAK moves the QP to ERR; back to RTS for the next check.
            let qp = m.qps.get_mut(&(1, q)).unwrap();
            assert_eq!(qp.state == state::ERR, o.verdict == Verdict::NakAccess);
            qp.state = state::RTS;
            o.verdict
        };
        assert_eq!(go(&mut m, 0x0A, 0x1000, 0x344, 0x1000), Verdict::Accept);
        assert_eq!(go(&mut m, 0x0A, 0x1001, 0x344, 0x1000), Verdict::NakAccess);
        assert_eq!(go(&mut m, 0x0A, 0x1000, 0x345, 1), Verdict::NakAccess);
        assert_eq!(go(&mut m, 0x0A, 0xFFF, 0x344, 1), Verdict::NakAccess);
        assert_eq!(go(&mut m, 0x0A, 0, 0x999, 0), Verdict::Accept);
        let before = m.qps[&(1, q)].epsn;
        assert_eq!(go(&mut m, 0x0C, 0x1000, 0x344, 0x301), Verdict::Accept);
        assert_eq!(m.qps[&(1, q)].epsn, (before + 4) & 0xFF_FFFF);
        m.qps.get_mut(&(1, q)).unwrap().rwe = false;
        assert_eq!(go(&mut m, 0x0A, 0, 0x999, 0), Verdict::NakAccess);
    }
}
