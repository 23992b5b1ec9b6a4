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
//! INIT, RTR, RTS, SQD, ERR; `st` one of RC, UC, UD; `pkey` is the port's P_Key (the parser
//! has one, so every QP must give the same, default 0xFFFF); optional `mtu` in bytes (256 ..
//! 4096, default 1024). The QPs grant every remote right; the keys decide. Key fields:
//! `access` any of `remote_write`, `remote_read`, `remote_atomic`; optional `vf` (the owning
//! VF, default `--vf`). Every frame is steered to VF `--vf` (default 0).
//!
//! Output per frame: `{"frame":N,"verdict":V,"reason":R,"vf":..,"qpn":..,"opcode":..,"psn":..,
//! "va":..,"rkey":..,"dmalen":..,"ecn_ce":..,"cnp":..}`, V one of accept, duplicate,
//! nak_seq, nak_access, drop; R the drop reason (`rx_drop_reason` in lower case), `none`
//! unless dropped; `"ack"`: the ACK/NAK request the parser raised with the verdict,
//! `{"kind":K,"syndrome":S,"psn":P}` (K `ack`, `nak_seq` or `nak_access`, S the AETH
//! syndrome 0x1F / 0x60 / 0x62, P the PSN of the answer), or null; `"payload"`: the frame's
//! packet on the payload stream (`m_pay_*`) in hex, or null when it has none (not
//! RoCE-shaped, empty payload), with `"payload_len"` its bytes (0 without one). A dropped
//! frame's packet is the one the stream flagged discard.

use marked_yaml::types::MarkedMappingNode;
use marked_yaml::Node;
use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;
use rdmagen_refmodel::roce::{DropReason, RxConfig};
use rdmagen_refmodel::rxqp::{aeth, state};
use serde_json::json;

use crate::bench::{Bench, Case, KeySpec, QpSpec, RawFrame};

/// What the simulator is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub qps: Vec<QpSpec>,
    pub keys: Vec<KeySpec>,
    pub pkey: u16,
}

const VERDICTS: [&str; 5] = ["accept", "duplicate", "nak_seq", "nak_access", "drop"];

fn line_of(n: &Node) -> usize {
    n.span().start().map_or(0, |m| m.line())
}

fn num(m: &MarkedMappingNode, k: &str, what: &str, max: u64) -> Result<Option<u64>, String> {
    let Some(v) = m.get_node(k) else {
        return Ok(None);
    };
    let at = line_of(v);
    let s = v
        .as_scalar()
        .ok_or_else(|| format!("line {at}: {what} `{k}` must be a number"))?
        .as_str()
        .trim();
    let n = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => u64::from_str_radix(&h.replace('_', ""), 16),
        None => s.replace('_', "").parse(),
    }
    .map_err(|_| {
        format!("line {at}: {what} `{k}` must be a decimal or 0x-hex number, got `{s}`")
    })?;
    if n > max {
        return Err(format!("line {at}: {what} `{k}` = {s} is beyond {max:#x}"));
    }
    Ok(Some(n))
}

fn need(m: &MarkedMappingNode, k: &str, what: &str, max: u64, at: usize) -> Result<u64, String> {
    num(m, k, what, max)?.ok_or_else(|| format!("line {at}: {what} has no `{k}`"))
}

fn word(m: &MarkedMappingNode, k: &str, what: &str, at: usize) -> Result<String, String> {
    m.get_scalar(k)
        .map(|s| s.as_str().trim().to_string())
        .ok_or_else(|| format!("line {at}: {what} has no `{k}`"))
}

fn known_keys(
    m: &MarkedMappingNode,
    allowed: &[&str],
    what: &str,
    at: usize,
) -> Result<(), String> {
    for (k, _) in m.iter() {
        if !allowed.contains(&k.as_str()) {
            return Err(format!(
                "line {at}: {what} has an unknown field `{}` (fields: {})",
                k.as_str(),
                allowed.join(", ")
            ));
        }
    }
    Ok(())
}

/// Parses `QPS.yaml` for a model with `num_vf` VFs of `qps_per_vf` QPs and `num_mkeys` keys.
pub fn parse_qps(
    text: &str,
    vf: u8,
    num_vf: u32,
    qps_per_vf: u32,
    num_mkeys: u32,
) -> Result<Setup, String> {
    let doc = std::panic::catch_unwind(|| marked_yaml::parse_yaml(0, text))
        .map_err(|_| "not YAML (the parser gave up)".to_string())?
        .map_err(|e| format!("not YAML: {e}"))?;
    let top = doc
        .as_mapping()
        .ok_or("the top level must be a mapping with `qps` and `keys`")?;
    known_keys(top, &["qps", "keys"], "the file", 1)?;
    let list = |k: &str| -> Result<Vec<&MarkedMappingNode>, String> {
        match top.get_node(k) {
            None => Ok(Vec::new()),
            Some(n) => n
                .as_sequence()
                .ok_or(format!("line {}: `{k}` must be a list", line_of(n)))?
                .iter()
                .map(|e| {
                    e.as_mapping().ok_or(format!(
                        "line {}: each entry of `{k}` must be a mapping",
                        line_of(e)
                    ))
                })
                .collect(),
        }
    };
    let mut setup = Setup {
        qps: Vec::new(),
        keys: Vec::new(),
        pkey: 0xFFFF,
    };
    let mut pkey: Option<u64> = None;
    for m in list("qps")? {
        let at = m.span().start().map_or(0, |p| p.line());
        let what = "QP";
        known_keys(
            m,
            &["vf", "qpn", "state", "st", "pd", "epsn", "pkey", "mtu"],
            what,
            at,
        )?;
        let qvf = need(m, "vf", what, 255, at)? as u32;
        if qvf >= num_vf {
            return Err(format!(
                "line {at}: QP vf {qvf} is beyond the simulated QPC's NUM_VF = {num_vf}"
            ));
        }
        let qpn = need(m, "qpn", what, 0xFF_FFFF, at)? as u32;
        let local = if qpn >> 12 == 0 {
            qpn
        } else if qpn >> 12 == qvf {
            qpn & 0xFFF
        } else {
            return Err(format!(
                "line {at}: QPN {qpn:#x} belongs to VF {} (bits 19:12), not vf {qvf}",
                qpn >> 12
            ));
        };
        if local >= qps_per_vf {
            return Err(format!(
                "line {at}: local QPN {local:#x} is beyond the simulated QPC's QPS_PER_VF = {qps_per_vf}"
            ));
        }
        let st_name = word(m, "st", what, at)?;
        let st = match st_name.as_str() {
            "RC" => 0,
            "UC" => 1,
            "UD" => 2,
            other => return Err(format!("line {at}: st `{other}`: expected RC, UC or UD")),
        };
        let state_name = word(m, "state", what, at)?;
        let state = match state_name.as_str() {
            "RST" => state::RST,
            "INIT" => state::INIT,
            "RTR" => state::RTR,
            "RTS" => state::RTS,
            "SQD" => state::SQD,
            "ERR" => state::ERR,
            other => {
                return Err(format!(
                    "line {at}: state `{other}`: expected RST, INIT, RTR, RTS, SQD or ERR"
                ))
            }
        };
        let mtu = match num(m, "mtu", what, 4096)?.unwrap_or(1024) {
            256 => 1,
            512 => 2,
            1024 => 3,
            2048 => 4,
            4096 => 5,
            other => {
                return Err(format!(
                    "line {at}: mtu {other}: expected 256, 512, 1024, 2048 or 4096"
                ))
            }
        };
        if let Some(p) = num(m, "pkey", what, 0xFFFF)? {
            if pkey.is_some_and(|q| q != p) {
                return Err(format!(
                    "line {at}: pkey {p:#x} differs from an earlier QP's: the parser has one port P_Key"
                ));
            }
            pkey = Some(p);
        }
        let spec = QpSpec {
            vf: qvf as u8,
            local: local as u16,
            st,
            state,
            pd: need(m, "pd", what, 0xFF_FFFF, at)? as u32,
            epsn: num(m, "epsn", what, 0xFF_FFFF)?.unwrap_or(0) as u32,
            rre: true,
            rwe: true,
            rae: true,
            mtu,
        };
        if setup.qps.iter().any(|q| q.qpn() == spec.qpn()) {
            return Err(format!("line {at}: QP {:#x} is listed twice", spec.qpn()));
        }
        setup.qps.push(spec);
    }
    setup.pkey = pkey.unwrap_or(0xFFFF) as u16;
    for m in list("keys")? {
        let at = m.span().start().map_or(0, |p| p.line());
        let what = "key";
        known_keys(m, &["rkey", "pd", "va", "length", "access", "vf"], what, at)?;
        let rkey = need(m, "rkey", what, 0xFFFF_FFFF, at)? as u32;
        if rkey >> 8 >= num_mkeys {
            return Err(format!(
                "line {at}: R_Key {rkey:#x}: index {:#x} (bits 31:8) is beyond the simulated QPC's NUM_MKEYS = {num_mkeys}",
                rkey >> 8
            ));
        }
        let kvf = num(m, "vf", what, 255)?.map_or(u32::from(vf), |v| v as u32);
        if kvf >= num_vf {
            return Err(format!(
                "line {at}: key vf {kvf} is beyond NUM_VF = {num_vf}"
            ));
        }
        let mut k = KeySpec {
            vf: kvf as u8,
            index: rkey >> 8,
            key: rkey as u8,
            pd: need(m, "pd", what, 0xFF_FFFF, at)? as u32,
            va: need(m, "va", what, u64::MAX, at)?,
            length: need(m, "length", what, u64::MAX, at)?,
            remote_read: false,
            remote_write: false,
            remote_atomic: false,
        };
        if let Some(a) = m.get_node("access") {
            let seq = a
                .as_sequence()
                .ok_or(format!("line {}: `access` must be a list", line_of(a)))?;
            for r in seq.iter() {
                match r.as_scalar().map(|s| s.as_str().trim()) {
                    Some("remote_write") => k.remote_write = true,
                    Some("remote_read") => k.remote_read = true,
                    Some("remote_atomic") => k.remote_atomic = true,
                    _ => {
                        return Err(format!(
                            "line {}: access: expected remote_write, remote_read or remote_atomic",
                            line_of(r)
                        ))
                    }
                }
            }
        }
        if setup.keys.iter().any(|x| x.index == k.index) {
            return Err(format!(
                "line {at}: R_Key index {:#x} is listed twice",
                k.index
            ));
        }
        setup.keys.push(k);
    }
    Ok(setup)
}

/// Reads the Ethernet frames of a pcap (classic) or pcapng capture.
pub fn read_pcap(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    use pcap_file::pcap::PcapReader;
    use pcap_file::pcapng::{Block, PcapNgReader};
    use pcap_file::DataLink;
    let mut frames = Vec::new();
    if bytes.len() >= 4 && bytes[..4] == [0x0A, 0x0D, 0x0D, 0x0A] {
        let mut r = PcapNgReader::new(bytes).map_err(|e| format!("not a pcapng capture: {e}"))?;
        while let Some(b) = r.next_block() {
            match b.map_err(|e| format!("pcapng block {}: {e}", frames.len()))? {
                Block::EnhancedPacket(p) => frames.push(p.data.into_owned()),
                Block::SimplePacket(p) => frames.push(p.data.into_owned()),
                Block::InterfaceDescription(i) if i.linktype != DataLink::ETHERNET => {
                    return Err(format!(
                        "link type {:?}: only Ethernet captures are supported",
                        i.linktype
                    ))
                }
                _ => {}
            }
        }
        return Ok(frames);
    }
    let mut r = PcapReader::new(bytes).map_err(|e| format!("not a pcap capture: {e}"))?;
    if r.header().datalink != DataLink::ETHERNET {
        return Err(format!(
            "link type {:?}: only Ethernet captures are supported",
            r.header().datalink
        ));
    }
    while let Some(p) = r.next_packet() {
        let p = p.map_err(|e| format!("packet {}: {e}", frames.len()))?;
        if p.data.len() as u32 != p.orig_len {
            return Err(format!(
                "packet {}: captured {} of {} bytes (a snap length cut it)",
                frames.len(),
                p.data.len(),
                p.orig_len
            ));
        }
        frames.push(p.data.into_owned());
    }
    Ok(frames)
}

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
    }
}
