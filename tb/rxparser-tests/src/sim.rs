//! `rdmagen sim rx-parser --pcap FILE --qps QPS.yaml [--vf N]`: replays a capture (Ethernet
//! frames without FCS) through the Verilated `rx_top` (512-bit parser + QPC), after creating
//! the QPs and memory keys of `QPS.yaml` through the QPC command mailbox; one JSON line per
//! frame.
//!
//! `QPS.yaml` (numbers decimal or 0x-hex):
//!
//! ```yaml
//! qps:
//!   - {vf: 0, qpn: 0x123, state: RTS, st: RC, pd: 1, epsn: 0xABCD, pkey: 0xFFFF}
//! keys:
//!   - {rkey: 0x1234, pd: 1, va: 0x7f0000000000, length: 0x100000, access: [remote_write]}
//! ```
//!
//! QP fields: `qpn` is the local QPN or the global `vf << 12 | local`; `state` one of RST,
//! INIT, RTR, RTS, SQD, ERR; `st` one of RC, UC, UD, QP1 (the GSI QP, local QPN 1); `pkey` is
//! the port's P_Key (the parser has one, so every QP must give the same, default 0xFFFF);
//! optional `mtu` in bytes (256 .. 4096, default 1024) and `qkey` (the Q_Key UD requests must
//! carry, default 0). The QPs grant every remote right; the keys decide. Key fields:
//! `access` any of `remote_write`, `remote_read`, `remote_atomic`; optional `vf` (the owning
//! VF, default `--vf`). Every frame is steered to VF `--vf` (default 0).
//!
//! Output per frame: `{"frame":N,"verdict":V,"reason":R,"vf":..,"qpn":..,"opcode":..,"psn":..,
//! "va":..,"rkey":..,"dmalen":..,"imm":..,"src_qp":..,"ecn_ce":..,"cnp":..}` (`imm`: ImmDt or
//! IETH; `src_qp`: a UD request's DETH source QP; 0 when absent), V one of accept, duplicate,
//! nak_seq, nak_access, drop; R the drop reason (`rx_drop_reason` in lower case), `none`
//! unless dropped; `"ack"`: the ACK/NAK request the parser raised with the verdict,
//! `{"kind":K,"syndrome":S,"psn":P}` (K `ack`, `nak_seq` or `nak_access`, S the AETH
//! syndrome 0x1F / 0x60 / 0x62, P the PSN of the answer), or null; `"payload"`: the frame's
//! packet on the payload stream (`m_pay_*`) in hex, or null when it has none (not
//! RoCE-shaped, empty payload), with `"payload_len"` its bytes (0 without one). A dropped
//! frame's packet is the one the stream flagged discard.

use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;
use rdmagen_refmodel::roce::{DropReason, RxConfig};
use rdmagen_refmodel::rxqp::aeth;
use serde_json::json;

use crate::bench::{Bench, Case, RawFrame};
pub use crate::input::{parse_qps, read_pcap, Setup};

const VERDICTS: [&str; 5] = ["accept", "duplicate", "nak_seq", "nak_access", "drop"];

/// Runs the capture on the bench's model; one JSON line per frame.
pub fn run<M: Model>(
    bench: &mut Bench<M>,
    pcap: &[u8],
    qps_yaml: &str,
    vf: u8,
) -> Result<Vec<String>, String> {
    let p = |n: &str| M::param(n).unwrap_or(1) as u32;
    let (num_vf, qps_per_vf, num_mkeys) = (p("NUM_VF"), p("QPS_PER_VF"), p("NUM_MKEYS"));
    if u32::from(vf) >= num_vf {
        return Err(format!(
            "--vf {vf} is beyond the simulated QPC's NUM_VF = {num_vf}"
        ));
    }
    let setup = parse_qps(qps_yaml, vf, num_vf, qps_per_vf, num_mkeys)
        .map_err(|e| format!("QPS file: {e}"))?;
    let frames = read_pcap(pcap).map_err(|e| format!("capture: {e}"))?;
    let max = 128 * 1024;
    if let Some((i, f)) = frames
        .iter()
        .enumerate()
        .find(|(_, f)| f.is_empty() || f.len() > max)
    {
        return Err(format!(
            "capture: frame {i} has {} bytes (1 .. {max} are supported)",
            f.len()
        ));
    }
    let raw: Vec<RawFrame> = frames
        .into_iter()
        .map(|bytes| RawFrame {
            bytes,
            bad_fcs: false,
            vf,
        })
        .collect();
    let case = Case {
        seed: 1,
        idle: Profile::NONE,
        stall: Profile::NONE,
        cfg: RxConfig {
            pkey: setup.pkey,
            ..RxConfig::default()
        },
        qps: setup.qps,
        keys: setup.keys,
        frames: Vec::new(),
    };
    let out = bench
        .replay(&case, &raw)
        .map_err(|f| format!("simulation: {f}"))?;
    Ok(out
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let reason = DropReason::from_code(v.reason)
                .map_or("none".to_string(), |r| reason_name(r).to_string());
            json!({
                "frame": i,
                "verdict": VERDICTS.get(usize::from(v.verdict)).copied().unwrap_or("?"),
                "reason": reason,
                "vf": v.vf,
                "qpn": v.qpn,
                "opcode": v.opcode,
                "psn": v.psn,
                "va": v.va,
                "rkey": v.rkey,
                "dmalen": v.dma_len,
                "imm": v.imm,
                "src_qp": v.src_qp,
                "ecn_ce": v.ecn_ce,
                "cnp": v.cnp,
                "payload_len": v.payload.as_ref().map_or(0, Vec::len),
                "payload": v.payload.as_deref().map(crate::bench::hex),
                "ack": v.ack.map(|(syndrome, psn)| json!({
                    "kind": match syndrome {
                        aeth::ACK => "ack",
                        aeth::NAK_PSN_SEQ => "nak_seq",
                        aeth::NAK_REMOTE_ACCESS => "nak_access",
                        _ => "?",
                    },
                    "syndrome": syndrome,
                    "psn": psn,
                })),
            })
            .to_string()
        })
        .collect())
}

/// The map's `rx_drop_reason` name in lower case.
pub fn reason_name(r: DropReason) -> &'static str {
    match r {
        DropReason::NotRoce => "not_roce",
        DropReason::BadFcs => "bad_fcs",
        DropReason::BadIpChecksum => "bad_ip_checksum",
        DropReason::Fragment => "fragment",
        DropReason::BadIcrc => "bad_icrc",
        DropReason::Tver => "tver",
        DropReason::PKey => "p_key",
        DropReason::Qpn0 => "qpn0",
        DropReason::UnknownQp => "unknown_qp",
        DropReason::WrongVf => "wrong_vf",
        DropReason::State => "state",
        DropReason::TransportMismatch => "transport_mismatch",
        DropReason::Truncated => "truncated",
        DropReason::PsnSeq => "psn_seq",
        DropReason::BadOpcode => "bad_opcode",
        DropReason::QKey => "q_key",
    }
}
