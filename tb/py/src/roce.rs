//! RoCEv2 frames: `roce_packet` (a default packet as a dict), `roce_build` (dict -> bytes,
//! lengths, IPv4 checksum and ICRC computed), `roce_parse` (bytes -> dict and the ICRC check)
//! and `roce_icrc`, over `rdmagen_refmodel::roce`.
//!
//! A packet is a plain nested dict so a bench can change any field in place:
//! `{"eth": {...}, "ipv4" | "ipv6": {...}, "udp": {...}, "bth": {...}, <extension headers>,
//! "payload": bytes}`. The extension headers present are the ones the BTH opcode carries
//! (`roce_ext_headers`). Addresses are strings (`"02:00:00:00:00:01"`, `"10.0.0.1"`,
//! `"fd00::1"`) on output and strings or raw bytes on input.

use std::collections::HashMap;
use std::net::{Ipv4Addr, Ipv6Addr};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rdmagen_refmodel::roce::{
    self, Aeth, AtomicEth, Bth, Deth, ExtHeaders, ExtLayout, IpHeader, Ipv6Header, Reth,
    RocePacket, RxConfig, ICRC_LEN, IPPROTO_UDP,
};

pyo3::create_exception!(
    rdmagen,
    PacketError,
    pyo3::exceptions::PyValueError,
    "A packet dict that cannot be built, or bytes that are not a well-formed RoCEv2 frame."
);

fn err(msg: impl Into<String>) -> PyErr {
    PacketError::new_err(msg.into())
}

/// Extension header names in wire order (the `ExtHeaders` field order).
const EXT_NAMES: [&str; 8] = [
    "deth",
    "reth",
    "atomic",
    "aeth",
    "atomic_ack",
    "imm",
    "ieth",
    "cnp_reserved",
];

fn ext_names(l: &ExtLayout) -> Vec<&'static str> {
    let has = [
        l.deth,
        l.reth,
        l.atomic,
        l.aeth,
        l.atomic_ack,
        l.imm,
        l.ieth,
        l.cnp,
    ];
    EXT_NAMES
        .iter()
        .zip(has)
        .filter(|(_, h)| *h)
        .map(|(n, _)| *n)
        .collect()
}

/// The keys of one layer's dict, taken one by one; what is left at the end is an error.
struct Layer<'py> {
    name: &'static str,
    left: HashMap<String, Bound<'py, PyAny>>,
}

impl<'py> Layer<'py> {
    fn new(name: &'static str, v: &Bound<'py, PyAny>) -> PyResult<Layer<'py>> {
        let d = v
            .cast::<PyDict>()
            .map_err(|_| err(format!("`{name}` must be a dict of fields")))?;
        let mut left = HashMap::new();
        for (k, x) in d.iter() {
            let k: String = k
                .extract()
                .map_err(|_| err(format!("`{name}` has a key that is not a string")))?;
            left.insert(k, x);
        }
        Ok(Layer { name, left })
    }

    /// An unsigned field of `bits` bits, if given.
    fn uint(&mut self, field: &str, bits: u32) -> PyResult<Option<u64>> {
        let Some(v) = self.left.remove(field) else {
            return Ok(None);
        };
        let n: u64 = v.extract().map_err(|_| {
            err(format!(
                "{}.{field} must be a non-negative int of {bits} bits",
                self.name
            ))
        })?;
        if bits < 64 && n >> bits != 0 {
            return Err(err(format!(
                "{}.{field} = {n:#x} does not fit {bits} bits",
                self.name
            )));
        }
        Ok(Some(n))
    }

    fn set_u8(&mut self, field: &str, bits: u32, slot: &mut u8) -> PyResult<()> {
        if let Some(n) = self.uint(field, bits)? {
            *slot = n as u8;
        }
        Ok(())
    }
    fn set_u16(&mut self, field: &str, bits: u32, slot: &mut u16) -> PyResult<()> {
        if let Some(n) = self.uint(field, bits)? {
            *slot = n as u16;
        }
        Ok(())
    }
    fn set_u32(&mut self, field: &str, bits: u32, slot: &mut u32) -> PyResult<()> {
        if let Some(n) = self.uint(field, bits)? {
            *slot = n as u32;
        }
        Ok(())
    }
    fn set_u64(&mut self, field: &str, slot: &mut u64) -> PyResult<()> {
        if let Some(n) = self.uint(field, 64)? {
            *slot = n;
        }
        Ok(())
    }
    fn set_bool(&mut self, field: &str, slot: &mut bool) -> PyResult<()> {
        if let Some(n) = self.uint(field, 1)? {
            *slot = n == 1;
        }
        Ok(())
    }

    /// Raw bytes (`bytes`, `bytearray`, a list of ints), if given.
    fn bytes(&mut self, field: &str) -> PyResult<Option<Vec<u8>>> {
        let Some(v) = self.left.remove(field) else {
            return Ok(None);
        };
        if v.is_instance_of::<PyString>() {
            return Err(err(format!("{}.{field} takes bytes, not str", self.name)));
        }
        v.extract::<Vec<u8>>()
            .map(Some)
            .map_err(|_| err(format!("{}.{field} takes bytes", self.name)))
    }

    /// An address: a string `parse` reads, or exactly `N` raw bytes.
    fn addr<const N: usize>(
        &mut self,
        field: &str,
        parse: impl Fn(&str) -> Option<[u8; N]>,
        slot: &mut [u8; N],
    ) -> PyResult<()> {
        let Some(v) = self.left.remove(field) else {
            return Ok(());
        };
        let bad = || {
            err(format!(
                "{}.{field} = {v} is not an address (a string, or {N} bytes)",
                self.name
            ))
        };
        *slot = if let Ok(s) = v.extract::<String>() {
            parse(&s).ok_or_else(bad)?
        } else {
            let b: Vec<u8> = v.extract().map_err(|_| bad())?;
            b.try_into().map_err(|_| bad())?
        };
        Ok(())
    }

    /// Every key was known.
    fn done(self, known: &[&str]) -> PyResult<()> {
        if self.left.is_empty() {
            return Ok(());
        }
        let mut unknown: Vec<_> = self.left.keys().cloned().collect();
        unknown.sort();
        Err(err(format!(
            "`{}` has no field {} (fields: {})",
            self.name,
            unknown.join(", "),
            known.join(", ")
        )))
    }
}

fn parse_mac(s: &str) -> Option<[u8; 6]> {
    let parts: Vec<&str> = s.split([':', '-']).collect();
    if parts.len() != 6 {
        return None;
    }
    let mut m = [0u8; 6];
    for (b, p) in m.iter_mut().zip(parts) {
        if p.is_empty() || p.len() > 2 {
            return None;
        }
        *b = u8::from_str_radix(p, 16).ok()?;
    }
    Some(m)
}

fn mac_str(m: &[u8; 6]) -> String {
    m.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

const ETH: &[&str] = &["dst", "src", "vlans"];
const IPV4: &[&str] = &[
    "tos",
    "id",
    "flags",
    "frag_offset",
    "ttl",
    "protocol",
    "src",
    "dst",
    "options",
];
const IPV6: &[&str] = &[
    "traffic_class",
    "flow_label",
    "next_header",
    "hop_limit",
    "src",
    "dst",
];
const UDP: &[&str] = &["sport", "dport", "checksum"];
const BTH: &[&str] = &[
    "opcode",
    "se",
    "migreq",
    "pad_count",
    "tver",
    "pkey",
    "fecn",
    "becn",
    "resv6",
    "dest_qp",
    "ack_req",
    "resv7",
    "psn",
];
const TOP: &[&str] = &[
    "eth",
    "ipv4",
    "ipv6",
    "udp",
    "bth",
    "deth",
    "reth",
    "atomic",
    "aeth",
    "atomic_ack",
    "imm",
    "ieth",
    "cnp_reserved",
    "payload",
];

/// The IPv6 header `roce_packet(..., ipv6=True)` starts from.
fn default_ipv6() -> Ipv6Header {
    Ipv6Header {
        traffic_class: 0,
        flow_label: 0,
        next_header: IPPROTO_UDP,
        hop_limit: 64,
        src: "fd00::1".parse::<Ipv6Addr>().expect("literal").octets(),
        dst: "fd00::2".parse::<Ipv6Addr>().expect("literal").octets(),
    }
}

fn default_packet(opcode: u8, dest_qp: u32, psn: u32, ipv6: bool) -> PyResult<RocePacket> {
    if dest_qp > 0xFF_FFFF || psn > 0xFF_FFFF {
        return Err(err("dest_qp and psn are 24-bit"));
    }
    let mut p = RocePacket::new_ipv4(opcode, dest_qp, psn).map_err(|e| err(e.to_string()))?;
    if ipv6 {
        p.ip = IpHeader::V6(default_ipv6());
    }
    Ok(p)
}

/// A packet from a (possibly partial) dict: what is missing takes `roce_packet`'s defaults.
fn packet_from_dict(d: &Bound<'_, PyAny>) -> PyResult<RocePacket> {
    let mut top = Layer::new("packet", d)?;
    let Some(bth_v) = top.left.remove("bth") else {
        return Err(err("the packet needs `bth` with at least `opcode`"));
    };
    let mut bl = Layer::new("bth", &bth_v)?;
    let Some(opcode) = bl.uint("opcode", 8)? else {
        return Err(err("bth.opcode is required"));
    };
    let opcode = opcode as u8;
    let layout = roce::ext_layout(opcode)
        .ok_or_else(|| err(format!("unsupported BTH opcode {opcode:#04x}")))?;
    if top.left.contains_key("ipv4") && top.left.contains_key("ipv6") {
        return Err(err("a packet has `ipv4` or `ipv6`, not both"));
    }
    let mut p = default_packet(opcode, 1, 0, top.left.contains_key("ipv6"))?;

    let b: &mut Bth = &mut p.bth;
    bl.set_bool("se", &mut b.se)?;
    bl.set_bool("migreq", &mut b.migreq)?;
    bl.set_u8("pad_count", 2, &mut b.pad_count)?;
    bl.set_u8("tver", 4, &mut b.tver)?;
    bl.set_u16("pkey", 16, &mut b.pkey)?;
    bl.set_bool("fecn", &mut b.fecn)?;
    bl.set_bool("becn", &mut b.becn)?;
    bl.set_u8("resv6", 6, &mut b.resv6)?;
    bl.set_u32("dest_qp", 24, &mut b.dest_qp)?;
    bl.set_bool("ack_req", &mut b.ack_req)?;
    bl.set_u8("resv7", 7, &mut b.resv7)?;
    bl.set_u32("psn", 24, &mut b.psn)?;
    bl.done(BTH)?;

    if let Some(v) = top.left.remove("eth") {
        let mut l = Layer::new("eth", &v)?;
        l.addr("dst", parse_mac, &mut p.eth.dst)?;
        l.addr("src", parse_mac, &mut p.eth.src)?;
        if let Some(v) = l.left.remove("vlans") {
            let tcis: Vec<u16> = v
                .extract()
                .map_err(|_| err("eth.vlans takes a list of 16-bit TCI values"))?;
            if tcis.len() > 2 {
                return Err(err(format!("eth.vlans: {} tags (at most 2)", tcis.len())));
            }
            p.eth.vlans = tcis;
        }
        l.done(ETH)?;
    }
    if let Some(v) = top.left.remove("ipv4") {
        let IpHeader::V4(h) = &mut p.ip else {
            unreachable!("the default packet is IPv4 unless `ipv6` was given")
        };
        let mut l = Layer::new("ipv4", &v)?;
        l.set_u8("tos", 8, &mut h.tos)?;
        l.set_u16("id", 16, &mut h.id)?;
        l.set_u8("flags", 3, &mut h.flags)?;
        l.set_u16("frag_offset", 13, &mut h.frag_offset)?;
        l.set_u8("ttl", 8, &mut h.ttl)?;
        l.set_u8("protocol", 8, &mut h.protocol)?;
        let v4 = |s: &str| s.parse::<Ipv4Addr>().ok().map(|a| a.octets());
        l.addr("src", v4, &mut h.src)?;
        l.addr("dst", v4, &mut h.dst)?;
        if let Some(o) = l.bytes("options")? {
            if o.len() % 4 != 0 || o.len() > 40 {
                return Err(err(format!(
                    "ipv4.options: {} bytes (a multiple of 4, at most 40)",
                    o.len()
                )));
            }
            h.options = o;
        }
        l.done(IPV4)?;
    }
    if let Some(v) = top.left.remove("ipv6") {
        let IpHeader::V6(h) = &mut p.ip else {
            unreachable!("the default packet is IPv6 when `ipv6` was given")
        };
        let mut l = Layer::new("ipv6", &v)?;
        l.set_u8("traffic_class", 8, &mut h.traffic_class)?;
        l.set_u32("flow_label", 20, &mut h.flow_label)?;
        l.set_u8("next_header", 8, &mut h.next_header)?;
        l.set_u8("hop_limit", 8, &mut h.hop_limit)?;
        let v6 = |s: &str| s.parse::<Ipv6Addr>().ok().map(|a| a.octets());
        l.addr("src", v6, &mut h.src)?;
        l.addr("dst", v6, &mut h.dst)?;
        l.done(IPV6)?;
    }
    if let Some(v) = top.left.remove("udp") {
        let mut l = Layer::new("udp", &v)?;
        l.set_u16("sport", 16, &mut p.udp.sport)?;
        l.set_u16("dport", 16, &mut p.udp.dport)?;
        l.set_u16("checksum", 16, &mut p.udp.checksum)?;
        l.done(UDP)?;
    }

    // Extension headers: only the opcode's, each starting from zeros.
    let carried = ext_names(&layout);
    for name in EXT_NAMES {
        if top.left.contains_key(name) && !carried.contains(&name) {
            return Err(err(format!(
                "opcode {opcode:#04x} carries no `{name}` (its extension headers: {})",
                if carried.is_empty() {
                    "none".to_string()
                } else {
                    carried.join(", ")
                }
            )));
        }
    }
    let e: &mut ExtHeaders = &mut p.ext;
    if let (Some(v), Some(h)) = (top.left.remove("deth"), e.deth.as_mut()) {
        let mut l = Layer::new("deth", &v)?;
        l.set_u32("qkey", 32, &mut h.qkey)?;
        l.set_u32("src_qp", 24, &mut h.src_qp)?;
        l.done(&["qkey", "src_qp"])?;
    }
    if let (Some(v), Some(h)) = (top.left.remove("reth"), e.reth.as_mut()) {
        let mut l = Layer::new("reth", &v)?;
        l.set_u64("va", &mut h.va)?;
        l.set_u32("rkey", 32, &mut h.rkey)?;
        l.set_u32("dma_len", 32, &mut h.dma_len)?;
        l.done(&["va", "rkey", "dma_len"])?;
    }
    if let (Some(v), Some(h)) = (top.left.remove("atomic"), e.atomic.as_mut()) {
        let mut l = Layer::new("atomic", &v)?;
        l.set_u64("va", &mut h.va)?;
        l.set_u32("rkey", 32, &mut h.rkey)?;
        l.set_u64("swap_add", &mut h.swap_add)?;
        l.set_u64("compare", &mut h.compare)?;
        l.done(&["va", "rkey", "swap_add", "compare"])?;
    }
    if let (Some(v), Some(h)) = (top.left.remove("aeth"), e.aeth.as_mut()) {
        let mut l = Layer::new("aeth", &v)?;
        l.set_u8("syndrome", 8, &mut h.syndrome)?;
        l.set_u32("msn", 24, &mut h.msn)?;
        l.done(&["syndrome", "msn"])?;
    }
    // The one-value headers are plain ints (the CNP's reserved bytes: 16 bytes).
    if let Some(v) = top.left.remove("atomic_ack") {
        let n: u64 = v
            .extract()
            .map_err(|_| err("`atomic_ack` takes a 64-bit int"))?;
        e.atomic_ack = Some(n);
    }
    for (name, slot) in [("imm", &mut e.imm), ("ieth", &mut e.ieth)] {
        if let Some(v) = top.left.remove(name) {
            let n: u32 = v
                .extract()
                .map_err(|_| err(format!("`{name}` takes a 32-bit int")))?;
            *slot = Some(n);
        }
    }
    if let Some(v) = top.left.remove("cnp_reserved") {
        let b: Vec<u8> = v
            .extract()
            .map_err(|_| err("`cnp_reserved` takes 16 bytes"))?;
        e.cnp_reserved = Some(
            b.try_into()
                .map_err(|_| err("`cnp_reserved` takes 16 bytes"))?,
        );
    }
    if let Some(b) = top.bytes("payload")? {
        p.payload = b;
    }
    top.done(TOP)?;
    Ok(p)
}

fn packet_to_dict<'py>(py: Python<'py>, p: &RocePacket) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let eth = PyDict::new(py);
    eth.set_item("dst", mac_str(&p.eth.dst))?;
    eth.set_item("src", mac_str(&p.eth.src))?;
    eth.set_item("vlans", p.eth.vlans.clone())?;
    d.set_item("eth", eth)?;
    match &p.ip {
        IpHeader::V4(h) => {
            let ip = PyDict::new(py);
            ip.set_item("tos", h.tos)?;
            ip.set_item("id", h.id)?;
            ip.set_item("flags", h.flags)?;
            ip.set_item("frag_offset", h.frag_offset)?;
            ip.set_item("ttl", h.ttl)?;
            ip.set_item("protocol", h.protocol)?;
            ip.set_item("src", Ipv4Addr::from(h.src).to_string())?;
            ip.set_item("dst", Ipv4Addr::from(h.dst).to_string())?;
            ip.set_item("options", PyBytes::new(py, &h.options))?;
            d.set_item("ipv4", ip)?;
        }
        IpHeader::V6(h) => {
            let ip = PyDict::new(py);
            ip.set_item("traffic_class", h.traffic_class)?;
            ip.set_item("flow_label", h.flow_label)?;
            ip.set_item("next_header", h.next_header)?;
            ip.set_item("hop_limit", h.hop_limit)?;
            ip.set_item("src", Ipv6Addr::from(h.src).to_string())?;
            ip.set_item("dst", Ipv6Addr::from(h.dst).to_string())?;
            d.set_item("ipv6", ip)?;
        }
    }
    let udp = PyDict::new(py);
    udp.set_item("sport", p.udp.sport)?;
    udp.set_item("dport", p.udp.dport)?;
    udp.set_item("checksum", p.udp.checksum)?;
    d.set_item("udp", udp)?;
    let b = &p.bth;
    let bth = PyDict::new(py);
    bth.set_item("opcode", b.opcode)?;
    bth.set_item("se", b.se)?;
    bth.set_item("migreq", b.migreq)?;
    bth.set_item("pad_count", b.pad_count)?;
    bth.set_item("tver", b.tver)?;
    bth.set_item("pkey", b.pkey)?;
    bth.set_item("fecn", b.fecn)?;
    bth.set_item("becn", b.becn)?;
    bth.set_item("resv6", b.resv6)?;
    bth.set_item("dest_qp", b.dest_qp)?;
    bth.set_item("ack_req", b.ack_req)?;
    bth.set_item("resv7", b.resv7)?;
    bth.set_item("psn", b.psn)?;
    d.set_item("bth", bth)?;
    let e = &p.ext;
    if let Some(Deth { qkey, src_qp }) = e.deth {
        let x = PyDict::new(py);
        x.set_item("qkey", qkey)?;
        x.set_item("src_qp", src_qp)?;
        d.set_item("deth", x)?;
    }
    if let Some(Reth { va, rkey, dma_len }) = e.reth {
        let x = PyDict::new(py);
        x.set_item("va", va)?;
        x.set_item("rkey", rkey)?;
        x.set_item("dma_len", dma_len)?;
        d.set_item("reth", x)?;
    }
    if let Some(AtomicEth {
        va,
        rkey,
        swap_add,
        compare,
    }) = e.atomic
    {
        let x = PyDict::new(py);
        x.set_item("va", va)?;
        x.set_item("rkey", rkey)?;
        x.set_item("swap_add", swap_add)?;
        x.set_item("compare", compare)?;
        d.set_item("atomic", x)?;
    }
    if let Some(Aeth { syndrome, msn }) = e.aeth {
        let x = PyDict::new(py);
        x.set_item("syndrome", syndrome)?;
        x.set_item("msn", msn)?;
        d.set_item("aeth", x)?;
    }
    if let Some(v) = e.atomic_ack {
        d.set_item("atomic_ack", v)?;
    }
    if let Some(v) = e.imm {
        d.set_item("imm", v)?;
    }
    if let Some(v) = e.ieth {
        d.set_item("ieth", v)?;
    }
    if let Some(r) = e.cnp_reserved {
        d.set_item("cnp_reserved", PyBytes::new(py, &r))?;
    }
    d.set_item("payload", PyBytes::new(py, &p.payload))?;
    Ok(d)
}

/// The default packet of `opcode` as a dict with every field: Ethernet
/// 02:00:00:00:00:02 -> 02:00:00:00:00:01, IPv4 10.0.0.1 -> 10.0.0.2 (DF, TTL 64) or with
/// `ipv6` fd00::1 -> fd00::2 (hop limit 64), UDP 0xC000 -> 4791, P_Key 0xFFFF (BECN set for
/// a CNP), the extension headers the opcode carries with every field 0, and no payload.
/// Change it in place and pass it to `roce_build`.
#[pyfunction]
#[pyo3(signature = (opcode, dest_qp = 1, psn = 0, *, ipv6 = false))]
pub fn roce_packet<'py>(
    py: Python<'py>,
    opcode: u8,
    dest_qp: u32,
    psn: u32,
    ipv6: bool,
) -> PyResult<Bound<'py, PyDict>> {
    packet_to_dict(py, &default_packet(opcode, dest_qp, psn, ipv6)?)
}

/// The frame (Ethernet without FCS) of a packet dict. The IP total/payload length, UDP
/// length, IPv4 header checksum, pad bytes (zeros, `bth.pad_count` of them) and the ICRC are
/// computed; every other field is taken as given (the UDP checksum too). Missing fields take
/// `roce_packet`'s defaults; only `bth.opcode` is required. `icrc` replaces the computed ICRC
/// (for frames with a bad one). Raises `PacketError` naming the field that is wrong.
#[pyfunction]
#[pyo3(signature = (packet, *, icrc = None))]
pub fn roce_build<'py>(
    py: Python<'py>,
    packet: &Bound<'py, PyAny>,
    icrc: Option<u32>,
) -> PyResult<Bound<'py, PyBytes>> {
    let p = packet_from_dict(packet)?;
    let mut f = p.to_bytes().map_err(|e| err(e.to_string()))?;
    if let Some(c) = icrc {
        let n = f.len();
        f[n - ICRC_LEN..].copy_from_slice(&c.to_le_bytes());
    }
    Ok(PyBytes::new(py, &f))
}

/// Parses a frame (Ethernet without FCS; bytes after the IP datagram, such as Ethernet
/// padding, are ignored). Returns `(packet, icrc)`: the packet dict as `roce_build` takes it
/// (pad bytes dropped from the payload) and `{"ok", "carried", "expected"}`, the ICRC check.
/// Raises `PacketError` when the frame is not a well-formed RoCEv2 frame (the first failing
/// header check of the RX parser, ICRC aside: the fields of a frame with a bad ICRC are
/// still returned).
#[pyfunction]
pub fn roce_parse<'py>(
    py: Python<'py>,
    frame: &[u8],
) -> PyResult<(Bound<'py, PyDict>, Bound<'py, PyDict>)> {
    let cfg = RxConfig {
        icrc_check: false,
        ..RxConfig::default()
    };
    let l = roce::layout(frame, &cfg)
        .map_err(|r| err(format!("not a well-formed RoCEv2 frame: {r:?}")))?;
    let at = l.udp_end - ICRC_LEN;
    let carried = u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], frame[at + 3]]);
    let expected = roce::icrc(frame).ok_or_else(|| err("frame has no ICRC"))?;
    // `decode` insists on a good ICRC: give it the expected one, so a bench still sees the
    // fields of a frame whose ICRC is wrong.
    let mut fixed = frame.to_vec();
    fixed[at..at + ICRC_LEN].copy_from_slice(&expected.to_le_bytes());
    let p = roce::decode(&fixed).map_err(|e| err(e.to_string()))?;
    let chk = PyDict::new(py);
    chk.set_item("ok", carried == expected)?;
    chk.set_item("carried", carried)?;
    chk.set_item("expected", expected)?;
    Ok((packet_to_dict(py, &p)?, chk))
}

/// The ICRC a frame should carry, computed from its own headers (as the int whose
/// little-endian bytes end the UDP datagram), or None when the frame is not an
/// IPv4/IPv6/UDP frame to port 4791 long enough to carry one.
#[pyfunction]
pub fn roce_icrc(frame: &[u8]) -> Option<u32> {
    roce::icrc(frame)
}

/// The extension headers an opcode carries, in wire order (names as in the packet dict), or
/// None for a reserved or unsupported opcode.
#[pyfunction]
pub fn roce_ext_headers(opcode: u8) -> Option<Vec<&'static str>> {
    roce::ext_layout(opcode).map(|l| ext_names(&l))
}

/// Registers the packet functions and constants.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("PacketError", m.py().get_type::<PacketError>())?;
    m.add_function(wrap_pyfunction!(roce_packet, m)?)?;
    m.add_function(wrap_pyfunction!(roce_build, m)?)?;
    m.add_function(wrap_pyfunction!(roce_parse, m)?)?;
    m.add_function(wrap_pyfunction!(roce_icrc, m)?)?;
    m.add_function(wrap_pyfunction!(roce_ext_headers, m)?)?;
    m.add("ROCE_UDP_PORT", roce::ROCE_UDP_PORT)?;
    m.add("CNP_OPCODE", roce::CNP_OPCODE)?;
    Ok(())
}
