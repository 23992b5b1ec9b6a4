//! The inputs of `rdmagen sim rx-parser` (see [`crate::sim`]): `QPS.yaml` and the capture,
//! read without the Verilated model, so that the fuzz targets of `tb/fuzz` (which include this
//! file) build without Verilator. Only external crates are named here.

use marked_yaml::types::MarkedMappingNode;
use marked_yaml::Node;
use rdmagen_refmodel::rxqp::state;

/// A QP the case creates through the QPC mailbox (CREATE_QP, then modifies up to `state`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QpSpec {
    pub vf: u8,
    pub local: u16,
    /// mlx5 service type: 0 RC, 1 UC, 2 UD, 8 QP1 (the GSI QP).
    pub st: u8,
    /// Target state: RST, INIT, RTR, RTS, SQD or ERR.
    pub state: u8,
    pub pd: u32,
    pub epsn: u32,
    pub rre: bool,
    pub rwe: bool,
    pub rae: bool,
    /// Path MTU code 1..=5.
    pub mtu: u8,
    /// Q_Key (qpc `q_key`), checked against UD requests' DETH.
    pub qkey: u32,
}

impl QpSpec {
    pub fn qpn(&self) -> u32 {
        u32::from(self.vf) << 12 | u32::from(self.local)
    }
}

/// A memory key the case creates (CREATE_MKEY on `vf`, index `index`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KeySpec {
    pub vf: u8,
    pub index: u32,
    pub key: u8,
    pub pd: u32,
    pub va: u64,
    pub length: u64,
    pub remote_read: bool,
    pub remote_write: bool,
    pub remote_atomic: bool,
}

impl KeySpec {
    pub fn rkey(&self) -> u32 {
        self.index << 8 | u32::from(self.key)
    }
}

/// What the simulator is given.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Setup {
    pub qps: Vec<QpSpec>,
    pub keys: Vec<KeySpec>,
    pub pkey: u16,
}

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
        // The limit in the radix the value was written in (`mtu: 9000` against 4096).
        let limit = if s.starts_with("0x") || s.starts_with("0X") {
            format!("{max:#x}")
        } else {
            max.to_string()
        };
        return Err(format!("line {at}: {what} `{k}` = {s} is beyond {limit}"));
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
    // A UTF-8 byte order mark (spreadsheets and Windows editors write one) is not part of it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
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
            &[
                "vf", "qpn", "state", "st", "pd", "epsn", "pkey", "mtu", "qkey",
            ],
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
            "QP1" => 8,
            other => {
                return Err(format!(
                    "line {at}: st `{other}`: expected RC, UC, UD or QP1"
                ))
            }
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
            qkey: num(m, "qkey", what, 0xFFFF_FFFF)?.unwrap_or(0) as u32,
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
/// What a capture reader's error means to a user: pcap-file says "Error reading bytes" for
/// a file that ends inside a header or a packet.
fn pcap_error(e: pcap_file::PcapError) -> String {
    use pcap_file::PcapError;
    match e {
        PcapError::IncompleteBuffer => "the file ends inside it (a truncated capture)".into(),
        PcapError::IoError(io) if io.kind() == std::io::ErrorKind::UnexpectedEof => {
            "the file ends inside it (a truncated capture)".into()
        }
        PcapError::IoError(io) => format!("read error: {io}"),
        other => other.to_string(),
    }
}

pub fn read_pcap(bytes: &[u8]) -> Result<Vec<Vec<u8>>, String> {
    use pcap_file::pcap::PcapReader;
    use pcap_file::pcapng::{Block, PcapNgReader};
    use pcap_file::DataLink;
    let mut frames = Vec::new();
    if bytes.len() >= 4 && bytes[..4] == [0x0A, 0x0D, 0x0D, 0x0A] {
        let mut r = PcapNgReader::new(bytes)
            .map_err(|e| format!("not a pcapng capture: {}", pcap_error(e)))?;
        while let Some(b) = r.next_block() {
            match b.map_err(|e| format!("pcapng block {}: {}", frames.len(), pcap_error(e)))? {
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
    let mut r =
        PcapReader::new(bytes).map_err(|e| format!("not a pcap capture: {}", pcap_error(e)))?;
    if r.header().datalink != DataLink::ETHERNET {
        return Err(format!(
            "link type {:?}: only Ethernet captures are supported",
            r.header().datalink
        ));
    }
    while let Some(p) = r.next_packet() {
        let p = p.map_err(|e| format!("packet {}: {}", frames.len(), pcap_error(e)))?;
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

#[cfg(test)]
mod tests {
    use super::parse_qps;

    #[test]
    fn an_out_of_range_value_names_its_limit_in_the_radix_it_was_written_in() {
        let err = |mtu: &str| {
            let text = format!(
                "qps:\n  - {{vf: 0, qpn: 0x2, state: RTS, st: RC, pd: 1, epsn: 0, mtu: {mtu}}}\n"
            );
            match parse_qps(&text, 0, 4, 16, 16) {
                Err(e) => e,
                Ok(_) => panic!("mtu {mtu} accepted"),
            }
        };
        let dec = err("9000");
        assert!(dec.contains("= 9000 is beyond 4096"), "{dec}");
        let hex = err("0x2328");
        assert!(hex.contains("= 0x2328 is beyond 0x1000"), "{hex}");
    }
}
