//! RoCEv2 packets: a builder, a decoder, the ICRC, and the reference model of the RX
//! parser's per-frame verdict, written from SPEC §5 and FACTS §3–4 (IBTA Vol. 1 ch. 9,
//! Annex A17; Linux rxe as the public reference), not from the generator.
//!
//! Frames are Ethernet frames without FCS:
//! Ethernet [0–2 × 802.1Q] → IPv4 | IPv6 → UDP → BTH → extension headers → payload → pad → ICRC.
//!
//! - [`RocePacket::to_bytes`] builds a frame: lengths, the IPv4 header checksum and the ICRC
//!   are computed; everything else (including the UDP checksum, normally 0) is taken as given.
//! - [`decode`] is its inverse for well-formed frames: `decode(&p.to_bytes()?)` gives `p`
//!   back whenever the pad bytes are zero.
//! - [`icrc`] computes the ICRC of a frame; [`RxParserModel::classify`] gives the parser's
//!   verdict and drop reason for any byte string, in the documented check order.

use std::fmt;

/// IANA UDP destination port of RoCEv2.
pub const ROCE_UDP_PORT: u16 = 4791;
/// BTH opcode of a congestion notification packet.
pub const CNP_OPCODE: u8 = 0x81;
/// DestQP of the General Services Interface, QP 1 (IBA 13.4.6.1; RDMA CM's MADs on RoCE).
pub const GSI_QPN: u32 = 1;
/// The GSI's well-known Q_Key (IBA 13.4.6.1.1; rxe `check_keys`).
pub const GSI_QKEY: u32 = 0x8001_0000;
/// 802.1Q tag protocol identifier.
pub const TPID_8021Q: u16 = 0x8100;
pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const ETHERTYPE_IPV6: u16 = 0x86DD;
pub const IPPROTO_UDP: u8 = 17;
/// Bytes of a BTH.
pub const BTH_LEN: usize = 12;
/// Bytes of the ICRC.
pub const ICRC_LEN: usize = 4;

/// Ethernet header: addresses and 0–2 802.1Q tags (TCI values, outermost first).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EthHeader {
    pub dst: [u8; 6],
    pub src: [u8; 6],
    pub vlans: Vec<u16>,
}

/// IPv4 header; total length and header checksum are computed when building.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv4Header {
    /// DSCP (high 6 bits) and ECN (low 2 bits).
    pub tos: u8,
    pub id: u16,
    /// Flags: bit 2 reserved, bit 1 DF, bit 0 MF.
    pub flags: u8,
    /// Fragment offset in 8-byte units (13 bits).
    pub frag_offset: u16,
    pub ttl: u8,
    pub protocol: u8,
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// Option bytes, a multiple of 4, at most 40.
    pub options: Vec<u8>,
}

/// IPv6 header; the payload length is computed when building.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ipv6Header {
    /// DSCP (high 6 bits) and ECN (low 2 bits).
    pub traffic_class: u8,
    /// 20 bits.
    pub flow_label: u32,
    pub next_header: u8,
    pub hop_limit: u8,
    pub src: [u8; 16],
    pub dst: [u8; 16],
}

/// The IP layer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum IpHeader {
    V4(Ipv4Header),
    V6(Ipv6Header),
}

impl IpHeader {
    /// The ECN field (low two bits of TOS / traffic class); 0b11 is CE.
    pub fn ecn(&self) -> u8 {
        match self {
            IpHeader::V4(h) => h.tos & 3,
            IpHeader::V6(h) => h.traffic_class & 3,
        }
    }
}

/// UDP header; the length is computed when building, the checksum is taken as given
/// (RoCEv2 senders put 0; it is masked out of the ICRC either way).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UdpHeader {
    pub sport: u16,
    pub dport: u16,
    pub checksum: u16,
}

/// Base transport header, every field (FACTS §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bth {
    pub opcode: u8,
    pub se: bool,
    pub migreq: bool,
    /// 0–3 pad bytes before the ICRC.
    pub pad_count: u8,
    /// Transport header version (4 bits, must be 0).
    pub tver: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    /// The 6 reserved bits of byte 4.
    pub resv6: u8,
    /// 24 bits.
    pub dest_qp: u32,
    pub ack_req: bool,
    /// The 7 reserved bits of byte 8.
    pub resv7: u8,
    /// 24 bits.
    pub psn: u32,
}

/// RDMA extended transport header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Reth {
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
}

/// ACK extended transport header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Aeth {
    pub syndrome: u8,
    /// 24 bits.
    pub msn: u32,
}

/// Atomic extended transport header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AtomicEth {
    pub va: u64,
    pub rkey: u32,
    pub swap_add: u64,
    pub compare: u64,
}

/// Datagram extended transport header (UD).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Deth {
    pub qkey: u32,
    /// 24 bits (the top byte is reserved and built as 0).
    pub src_qp: u32,
}

/// The extension headers after the BTH. Which ones a packet carries follows from its
/// opcode ([`ext_layout`]); on the wire they appear in this field order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtHeaders {
    pub deth: Option<Deth>,
    pub reth: Option<Reth>,
    pub atomic: Option<AtomicEth>,
    pub aeth: Option<Aeth>,
    /// AtomicAckETH: the original remote data.
    pub atomic_ack: Option<u64>,
    pub imm: Option<u32>,
    /// IETH: the R_Key to invalidate.
    pub ieth: Option<u32>,
    /// The 16 reserved bytes of a CNP.
    pub cnp_reserved: Option<[u8; 16]>,
}

/// Which extension headers an opcode carries.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ExtLayout {
    pub deth: bool,
    pub reth: bool,
    pub atomic: bool,
    pub aeth: bool,
    pub atomic_ack: bool,
    pub imm: bool,
    pub ieth: bool,
    pub cnp: bool,
}

impl ExtLayout {
    /// Bytes of extension headers.
    pub fn len(&self) -> usize {
        8 * usize::from(self.deth)
            + 16 * usize::from(self.reth)
            + 28 * usize::from(self.atomic)
            + 4 * usize::from(self.aeth)
            + 8 * usize::from(self.atomic_ack)
            + 4 * usize::from(self.imm)
            + 4 * usize::from(self.ieth)
            + 16 * usize::from(self.cnp)
    }

    /// True when the opcode carries no extension header.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn of(ext: &ExtHeaders) -> ExtLayout {
        ExtLayout {
            deth: ext.deth.is_some(),
            reth: ext.reth.is_some(),
            atomic: ext.atomic.is_some(),
            aeth: ext.aeth.is_some(),
            atomic_ack: ext.atomic_ack.is_some(),
            imm: ext.imm.is_some(),
            ieth: ext.ieth.is_some(),
            cnp: ext.cnp_reserved.is_some(),
        }
    }
}

/// The extension headers of a supported opcode, `None` for a reserved or unsupported one.
/// Supported: RC 0x00–0x14, 0x16, 0x17; UC 0x20–0x2B; UD 0x64, 0x65; CNP 0x81 (FACTS §3).
pub fn ext_layout(opcode: u8) -> Option<ExtLayout> {
    let none = ExtLayout::default();
    let op = opcode & 0x1F;
    let rc_like = |op: u8| -> Option<ExtLayout> {
        Some(match op {
            0x00..=0x02 | 0x04 | 0x07 | 0x08 | 0x0E => none,
            0x03 | 0x05 | 0x09 => ExtLayout { imm: true, ..none },
            0x06 | 0x0A | 0x0C => ExtLayout { reth: true, ..none },
            0x0B => ExtLayout {
                reth: true,
                imm: true,
                ..none
            },
            0x0D | 0x0F | 0x10 | 0x11 => ExtLayout { aeth: true, ..none },
            0x12 => ExtLayout {
                aeth: true,
                atomic_ack: true,
                ..none
            },
            0x13 | 0x14 => ExtLayout {
                atomic: true,
                ..none
            },
            0x16 | 0x17 => ExtLayout { ieth: true, ..none },
            _ => return None,
        })
    };
    match opcode >> 5 {
        0 => rc_like(op),
        1 if op <= 0x0B => rc_like(op),
        3 if op == 0x04 => Some(ExtLayout { deth: true, ..none }),
        3 if op == 0x05 => Some(ExtLayout {
            deth: true,
            imm: true,
            ..none
        }),
        4 if opcode == CNP_OPCODE => Some(ExtLayout { cnp: true, ..none }),
        _ => None,
    }
}

/// A whole RoCEv2 frame (Ethernet, no FCS).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RocePacket {
    pub eth: EthHeader,
    pub ip: IpHeader,
    pub udp: UdpHeader,
    pub bth: Bth,
    pub ext: ExtHeaders,
    /// Payload without the pad bytes.
    pub payload: Vec<u8>,
}

/// Why a packet cannot be built.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuildError {
    TooManyVlans(usize),
    BadIpv4Options(usize),
    /// The extension headers present differ from what the opcode requires.
    ExtMismatch {
        opcode: u8,
    },
    UnsupportedOpcode(u8),
    FieldRange(&'static str),
    TooLong(usize),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::TooManyVlans(n) => write!(f, "{n} VLAN tags (at most 2)"),
            BuildError::BadIpv4Options(n) => {
                write!(f, "{n} IPv4 option bytes (a multiple of 4, at most 40)")
            }
            BuildError::ExtMismatch { opcode } => write!(
                f,
                "extension headers do not match opcode {opcode:#04x} (see ext_layout)"
            ),
            BuildError::UnsupportedOpcode(op) => write!(f, "unsupported BTH opcode {op:#04x}"),
            BuildError::FieldRange(name) => write!(f, "field `{name}` out of range"),
            BuildError::TooLong(n) => write!(f, "{n} bytes do not fit the IP/UDP length fields"),
        }
    }
}

impl std::error::Error for BuildError {}

impl RocePacket {
    /// A minimal RC packet over IPv4 with the given opcode, default addresses and the
    /// extension headers the opcode needs (all zero); a starting point for builders.
    pub fn new_ipv4(opcode: u8, dest_qp: u32, psn: u32) -> Result<RocePacket, BuildError> {
        let layout = ext_layout(opcode).ok_or(BuildError::UnsupportedOpcode(opcode))?;
        Ok(RocePacket {
            eth: EthHeader {
                dst: [0x02, 0, 0, 0, 0, 1],
                src: [0x02, 0, 0, 0, 0, 2],
                vlans: Vec::new(),
            },
            ip: IpHeader::V4(Ipv4Header {
                tos: 0,
                id: 0,
                flags: 0b010,
                frag_offset: 0,
                ttl: 64,
                protocol: IPPROTO_UDP,
                src: [10, 0, 0, 1],
                dst: [10, 0, 0, 2],
                options: Vec::new(),
            }),
            udp: UdpHeader {
                sport: 0xC000,
                dport: ROCE_UDP_PORT,
                checksum: 0,
            },
            bth: Bth {
                opcode,
                pkey: 0xFFFF,
                dest_qp,
                psn,
                becn: opcode == CNP_OPCODE,
                ..Bth::default()
            },
            ext: ExtHeaders::zeroed(layout),
            payload: Vec::new(),
        })
    }

    /// The frame's bytes with lengths, IPv4 checksum, pad (zeros) and ICRC filled in.
    pub fn to_bytes(&self) -> Result<Vec<u8>, BuildError> {
        let layout =
            ext_layout(self.bth.opcode).ok_or(BuildError::UnsupportedOpcode(self.bth.opcode))?;
        if ExtLayout::of(&self.ext) != layout {
            return Err(BuildError::ExtMismatch {
                opcode: self.bth.opcode,
            });
        }
        self.check_ranges()?;
        let mut f = Vec::with_capacity(128 + self.payload.len());
        f.extend_from_slice(&self.eth.dst);
        f.extend_from_slice(&self.eth.src);
        for tci in &self.eth.vlans {
            f.extend_from_slice(&TPID_8021Q.to_be_bytes());
            f.extend_from_slice(&tci.to_be_bytes());
        }
        let udp_len = 8
            + BTH_LEN
            + layout.len()
            + self.payload.len()
            + usize::from(self.bth.pad_count)
            + ICRC_LEN;
        let ip_start;
        match &self.ip {
            IpHeader::V4(h) => {
                f.extend_from_slice(&ETHERTYPE_IPV4.to_be_bytes());
                ip_start = f.len();
                let ihl = 5 + h.options.len() / 4;
                let total = ihl * 4 + udp_len;
                let total = u16::try_from(total).map_err(|_| BuildError::TooLong(total))?;
                f.push(0x40 | ihl as u8);
                f.push(h.tos);
                f.extend_from_slice(&total.to_be_bytes());
                f.extend_from_slice(&h.id.to_be_bytes());
                let ff = u16::from(h.flags) << 13 | h.frag_offset;
                f.extend_from_slice(&ff.to_be_bytes());
                f.push(h.ttl);
                f.push(h.protocol);
                f.extend_from_slice(&[0, 0]);
                f.extend_from_slice(&h.src);
                f.extend_from_slice(&h.dst);
                f.extend_from_slice(&h.options);
                let csum = !ones_complement_sum(&f[ip_start..]);
                f[ip_start + 10..ip_start + 12].copy_from_slice(&csum.to_be_bytes());
            }
            IpHeader::V6(h) => {
                f.extend_from_slice(&ETHERTYPE_IPV6.to_be_bytes());
                ip_start = f.len();
                let plen = u16::try_from(udp_len).map_err(|_| BuildError::TooLong(udp_len))?;
                let w = 6u32 << 28 | u32::from(h.traffic_class) << 20 | h.flow_label;
                f.extend_from_slice(&w.to_be_bytes());
                f.extend_from_slice(&plen.to_be_bytes());
                f.push(h.next_header);
                f.push(h.hop_limit);
                f.extend_from_slice(&h.src);
                f.extend_from_slice(&h.dst);
            }
        }
        let udp_len16 = u16::try_from(udp_len).map_err(|_| BuildError::TooLong(udp_len))?;
        f.extend_from_slice(&self.udp.sport.to_be_bytes());
        f.extend_from_slice(&self.udp.dport.to_be_bytes());
        f.extend_from_slice(&udp_len16.to_be_bytes());
        f.extend_from_slice(&self.udp.checksum.to_be_bytes());
        self.bth.write(&mut f);
        self.ext.write(&mut f);
        f.extend_from_slice(&self.payload);
        f.resize(f.len() + usize::from(self.bth.pad_count), 0);
        let crc = icrc_at(&f, ip_start, matches!(self.ip, IpHeader::V6(_)), f.len());
        f.extend_from_slice(&crc.to_le_bytes());
        Ok(f)
    }

    fn check_ranges(&self) -> Result<(), BuildError> {
        let b = &self.bth;
        let checks: [(&'static str, bool); 11] = [
            ("bth.pad_count", b.pad_count > 3),
            ("bth.tver", b.tver > 15),
            ("bth.resv6", b.resv6 > 63),
            ("bth.dest_qp", b.dest_qp > 0xFF_FFFF),
            ("bth.resv7", b.resv7 > 127),
            ("bth.psn", b.psn > 0xFF_FFFF),
            ("aeth.msn", self.ext.aeth.is_some_and(|a| a.msn > 0xFF_FFFF)),
            (
                "deth.src_qp",
                self.ext.deth.is_some_and(|d| d.src_qp > 0xFF_FFFF),
            ),
            (
                "ipv4.flags",
                matches!(&self.ip, IpHeader::V4(h) if h.flags > 7),
            ),
            (
                "ipv4.frag_offset",
                matches!(&self.ip, IpHeader::V4(h) if h.frag_offset > 0x1FFF),
            ),
            (
                "ipv6.flow_label",
                matches!(&self.ip, IpHeader::V6(h) if h.flow_label > 0xF_FFFF),
            ),
        ];
        if self.eth.vlans.len() > 2 {
            return Err(BuildError::TooManyVlans(self.eth.vlans.len()));
        }
        if let IpHeader::V4(h) = &self.ip {
            if h.options.len() % 4 != 0 || h.options.len() > 40 {
                return Err(BuildError::BadIpv4Options(h.options.len()));
            }
        }
        match checks.iter().find(|(_, bad)| *bad) {
            Some((name, _)) => Err(BuildError::FieldRange(name)),
            None => Ok(()),
        }
    }
}

impl Bth {
    fn write(&self, f: &mut Vec<u8>) {
        f.push(self.opcode);
        f.push(
            u8::from(self.se) << 7 | u8::from(self.migreq) << 6 | self.pad_count << 4 | self.tver,
        );
        f.extend_from_slice(&self.pkey.to_be_bytes());
        f.push(u8::from(self.fecn) << 7 | u8::from(self.becn) << 6 | self.resv6);
        f.extend_from_slice(&self.dest_qp.to_be_bytes()[1..]);
        f.push(u8::from(self.ack_req) << 7 | self.resv7);
        f.extend_from_slice(&self.psn.to_be_bytes()[1..]);
    }

    fn read(b: &[u8]) -> Bth {
        Bth {
            opcode: b[0],
            se: b[1] & 0x80 != 0,
            migreq: b[1] & 0x40 != 0,
            pad_count: b[1] >> 4 & 3,
            tver: b[1] & 0xF,
            pkey: be16(b, 2),
            fecn: b[4] & 0x80 != 0,
            becn: b[4] & 0x40 != 0,
            resv6: b[4] & 0x3F,
            dest_qp: be24(b, 5),
            ack_req: b[8] & 0x80 != 0,
            resv7: b[8] & 0x7F,
            psn: be24(b, 9),
        }
    }
}

impl ExtHeaders {
    /// The headers `layout` asks for, with every field zero.
    pub fn zeroed(layout: ExtLayout) -> ExtHeaders {
        ExtHeaders::read(layout, &[0u8; 64])
    }

    fn write(&self, f: &mut Vec<u8>) {
        if let Some(d) = self.deth {
            f.extend_from_slice(&d.qkey.to_be_bytes());
            f.extend_from_slice(&d.src_qp.to_be_bytes());
        }
        if let Some(r) = self.reth {
            f.extend_from_slice(&r.va.to_be_bytes());
            f.extend_from_slice(&r.rkey.to_be_bytes());
            f.extend_from_slice(&r.dma_len.to_be_bytes());
        }
        if let Some(a) = self.atomic {
            f.extend_from_slice(&a.va.to_be_bytes());
            f.extend_from_slice(&a.rkey.to_be_bytes());
            f.extend_from_slice(&a.swap_add.to_be_bytes());
            f.extend_from_slice(&a.compare.to_be_bytes());
        }
        if let Some(a) = self.aeth {
            f.push(a.syndrome);
            f.extend_from_slice(&a.msn.to_be_bytes()[1..]);
        }
        if let Some(v) = self.atomic_ack {
            f.extend_from_slice(&v.to_be_bytes());
        }
        if let Some(v) = self.imm {
            f.extend_from_slice(&v.to_be_bytes());
        }
        if let Some(v) = self.ieth {
            f.extend_from_slice(&v.to_be_bytes());
        }
        if let Some(r) = self.cnp_reserved {
            f.extend_from_slice(&r);
        }
    }

    /// Reads the headers of `layout` from `b` (at least `layout.len()` bytes).
    fn read(layout: ExtLayout, b: &[u8]) -> ExtHeaders {
        let mut o = 0;
        let mut ext = ExtHeaders::default();
        if layout.deth {
            ext.deth = Some(Deth {
                qkey: be32(b, o),
                // The byte before it is reserved: ignored on receive (IBA 9.3.3).
                src_qp: be24(b, o + 5),
            });
            o += 8;
        }
        if layout.reth {
            ext.reth = Some(Reth {
                va: be64(b, o),
                rkey: be32(b, o + 8),
                dma_len: be32(b, o + 12),
            });
            o += 16;
        }
        if layout.atomic {
            ext.atomic = Some(AtomicEth {
                va: be64(b, o),
                rkey: be32(b, o + 8),
                swap_add: be64(b, o + 12),
                compare: be64(b, o + 20),
            });
            o += 28;
        }
        if layout.aeth {
            ext.aeth = Some(Aeth {
                syndrome: b[o],
                msn: be24(b, o + 1),
            });
            o += 4;
        }
        if layout.atomic_ack {
            ext.atomic_ack = Some(be64(b, o));
            o += 8;
        }
        if layout.imm {
            ext.imm = Some(be32(b, o));
            o += 4;
        }
        if layout.ieth {
            ext.ieth = Some(be32(b, o));
            o += 4;
        }
        if layout.cnp {
            let mut r = [0u8; 16];
            r.copy_from_slice(&b[o..o + 16]);
            ext.cnp_reserved = Some(r);
        }
        ext
    }
}

/// Ones-complement 16-bit sum (RFC 1071) of big-endian words; an odd tail is padded with 0.
pub fn ones_complement_sum(b: &[u8]) -> u16 {
    let mut s: u32 = 0;
    for w in b.chunks(2) {
        s += u32::from(w[0]) << 8 | u32::from(*w.get(1).unwrap_or(&0));
    }
    while s > 0xFFFF {
        s = (s & 0xFFFF) + (s >> 16);
    }
    s as u16
}

/// The ICRC over `frame[ip_start..end]` (`end` = where the ICRC goes, after the pad), with
/// the variant fields masked to ones (FACTS §4): IPv4 TOS, TTL, header checksum; IPv6
/// traffic class, flow label, hop limit; UDP checksum; BTH byte 4 (FECN, BECN, resv6).
/// The caller guarantees the IP, UDP and BTH headers lie inside `frame[..end]`.
fn icrc_at(frame: &[u8], ip_start: usize, ipv6: bool, end: usize) -> u32 {
    let mut m = frame[ip_start..end].to_vec();
    let udp = if ipv6 {
        m[0] |= 0x0F;
        m[1..4].fill(0xFF);
        m[7] = 0xFF;
        40
    } else {
        m[1] = 0xFF;
        m[8] = 0xFF;
        m[10..12].fill(0xFF);
        usize::from(m[0] & 0xF) * 4
    };
    m[udp + 6..udp + 8].fill(0xFF);
    m[udp + 8 + 4] = 0xFF;
    let mut h = crc32fast::Hasher::new();
    // The masked local route header of IBA, 8 bytes of ones (Annex A17).
    h.update(&[0xFF; 8]);
    h.update(&m);
    h.finalize()
}

/// The ICRC a frame should carry, computed from its own headers; `None` when the frame is
/// not a RoCEv2-shaped IPv4/IPv6/UDP frame long enough to have one ([`layout`] fails).
pub fn icrc(frame: &[u8]) -> Option<u32> {
    let cfg = RxConfig {
        icrc_check: false,
        ..RxConfig::default()
    };
    let l = layout(frame, &cfg).ok()?;
    Some(icrc_at(frame, l.ip_start, l.ipv6, l.udp_end - ICRC_LEN))
}

/// Drop reasons, with the values of the map's `rx_drop_reason` enum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum DropReason {
    NotRoce = 1,
    BadFcs = 2,
    BadIpChecksum = 3,
    Fragment = 4,
    BadIcrc = 5,
    Tver = 6,
    PKey = 7,
    Qpn0 = 8,
    UnknownQp = 9,
    WrongVf = 10,
    State = 11,
    TransportMismatch = 12,
    Truncated = 13,
    PsnSeq = 14,
    BadOpcode = 15,
    QKey = 16,
}

impl DropReason {
    /// Every reason, in enum order.
    pub const ALL: [DropReason; 16] = [
        DropReason::NotRoce,
        DropReason::BadFcs,
        DropReason::BadIpChecksum,
        DropReason::Fragment,
        DropReason::BadIcrc,
        DropReason::Tver,
        DropReason::PKey,
        DropReason::Qpn0,
        DropReason::UnknownQp,
        DropReason::WrongVf,
        DropReason::State,
        DropReason::TransportMismatch,
        DropReason::Truncated,
        DropReason::PsnSeq,
        DropReason::BadOpcode,
        DropReason::QKey,
    ];

    /// The map's enum value (`last_drop.reason`).
    pub fn code(self) -> u8 {
        self as u8
    }

    /// The reason with enum value `code`.
    pub fn from_code(code: u8) -> Option<DropReason> {
        DropReason::ALL.iter().copied().find(|r| r.code() == code)
    }
}

/// The parser's configuration (the map's `ctrl`, `udp_dport` and `p_key` registers).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxConfig {
    pub icrc_check: bool,
    pub ipv6: bool,
    pub udp_dport: u16,
    pub pkey: u16,
}

impl Default for RxConfig {
    /// The reset values of the map.
    fn default() -> RxConfig {
        RxConfig {
            icrc_check: true,
            ipv6: true,
            udp_dport: ROCE_UDP_PORT,
            pkey: 0xFFFF,
        }
    }
}

/// Where the layers of a RoCEv2 frame are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    pub vlans: usize,
    pub ip_start: usize,
    pub ipv6: bool,
    pub udp_start: usize,
    /// One past the last byte of the UDP datagram (which ends with the ICRC).
    pub udp_end: usize,
}

impl Layout {
    pub fn bth_start(&self) -> usize {
        self.udp_start + 8
    }
}

fn be16(b: &[u8], o: usize) -> u16 {
    u16::from_be_bytes([b[o], b[o + 1]])
}
fn be24(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([0, b[o], b[o + 1], b[o + 2]])
}
fn be32(b: &[u8], o: usize) -> u32 {
    u32::from_be_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn be64(b: &[u8], o: usize) -> u64 {
    u64::from(be32(b, o)) << 32 | u64::from(be32(b, o + 4))
}

/// Walks Ethernet, VLAN, IP and UDP up to a BTH, in the parser's check order (SPEC §5;
/// `docs/rx_parser.md`): the first failing check gives the drop reason. Ethernet padding
/// after the IP datagram is allowed.
pub fn layout(frame: &[u8], cfg: &RxConfig) -> Result<Layout, DropReason> {
    use DropReason::*;
    let len = frame.len();
    let mut off = 12;
    let mut vlans = 0;
    let ethertype = loop {
        if len < off + 2 {
            return Err(Truncated);
        }
        let et = be16(frame, off);
        if et == TPID_8021Q && vlans < 2 {
            vlans += 1;
            off += 4;
        } else {
            break et;
        }
    };
    let ip = off + 2;
    let (ipv6, udp_start, ip_payload) = match ethertype {
        ETHERTYPE_IPV4 => {
            if len < ip + 20 {
                return Err(Truncated);
            }
            let ihl = usize::from(frame[ip] & 0xF);
            if frame[ip] >> 4 != 4 || ihl < 5 {
                return Err(NotRoce);
            }
            if len < ip + ihl * 4 {
                return Err(Truncated);
            }
            if ones_complement_sum(&frame[ip..ip + ihl * 4]) != 0xFFFF {
                return Err(BadIpChecksum);
            }
            if be16(frame, ip + 6) & 0x3FFF != 0 {
                return Err(Fragment);
            }
            if frame[ip + 9] != IPPROTO_UDP {
                return Err(NotRoce);
            }
            let total = usize::from(be16(frame, ip + 2));
            if total < ihl * 4 + 8 || ip + total > len {
                return Err(Truncated);
            }
            (false, ip + ihl * 4, total - ihl * 4)
        }
        ETHERTYPE_IPV6 if cfg.ipv6 => {
            if len < ip + 40 {
                return Err(Truncated);
            }
            if frame[ip] >> 4 != 6 || frame[ip + 6] != IPPROTO_UDP {
                return Err(NotRoce);
            }
            let plen = usize::from(be16(frame, ip + 4));
            if plen < 8 || ip + 40 + plen > len {
                return Err(Truncated);
            }
            (true, ip + 40, plen)
        }
        _ => return Err(NotRoce),
    };
    if be16(frame, udp_start + 2) != cfg.udp_dport {
        return Err(NotRoce);
    }
    let udp_len = usize::from(be16(frame, udp_start + 4));
    if udp_len != ip_payload || udp_len < 8 + BTH_LEN + ICRC_LEN {
        return Err(Truncated);
    }
    Ok(Layout {
        vlans,
        ip_start: ip,
        ipv6,
        udp_start,
        udp_end: udp_start + udp_len,
    })
}

/// The bytes the parser streams on its payload port (`m_pay_*`) for a frame, or `None`
/// when the frame gets no payload packet (docs/rx_parser.md, "Payload stream").
///
/// A frame gets a packet when its headers, read where they stand, make it RoCE-shaped:
/// Ethernet with 0–2 802.1Q tags, then IPv4 (version 4, IHL ≥ 5, protocol UDP) or IPv6
/// while enabled (version 6, next header UDP), UDP destination port `udp_dport`, a
/// supported BTH opcode; and at least one byte of its payload arrives. The payload is
/// `[UDP + 8 + 12 + extension headers, UDP + UDP length − 4 − PadCnt)`, cut at the end of
/// the frame. No other check applies here (checksums, lengths against the IP header, the
/// ICRC and the QP come with the verdict, which the packet's last beat carries as the
/// discard flag).
pub fn payload_packet<'a>(frame: &'a [u8], cfg: &RxConfig) -> Option<&'a [u8]> {
    let byte = |i: usize| frame.get(i).copied();
    let word = |i: usize| Some(u16::from_be_bytes([byte(i)?, byte(i + 1)?]));
    let mut off = 12;
    let mut vlans = 0;
    let ethertype = loop {
        let et = word(off)?;
        if et == TPID_8021Q && vlans < 2 {
            vlans += 1;
            off += 4;
        } else {
            break et;
        }
    };
    let ip = off + 2;
    let udp = match ethertype {
        ETHERTYPE_IPV4 => {
            let v = byte(ip)?;
            let ihl = usize::from(v & 0xF);
            if v >> 4 != 4 || ihl < 5 || byte(ip + 9)? != IPPROTO_UDP {
                return None;
            }
            ip + 4 * ihl
        }
        ETHERTYPE_IPV6 if cfg.ipv6 => {
            if byte(ip)? >> 4 != 6 || byte(ip + 6)? != IPPROTO_UDP {
                return None;
            }
            ip + 40
        }
        _ => return None,
    };
    if word(udp + 2)? != cfg.udp_dport {
        return None;
    }
    let udp_len = usize::from(word(udp + 4)?);
    let layout = ext_layout(byte(udp + 8)?)?;
    let pad = usize::from(byte(udp + 9)? >> 4 & 3);
    let start = udp + 8 + BTH_LEN + layout.len();
    let end = (udp + udp_len)
        .saturating_sub(ICRC_LEN + pad)
        .min(frame.len());
    (start < end).then(|| &frame[start..end])
}

/// Why [`decode`] refused a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecodeError {
    /// The frame fails a parser check (ICRC checking included).
    Drop(DropReason),
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DecodeError::Drop(r) => write!(f, "not a valid RoCEv2 frame: {r:?}"),
        }
    }
}

impl std::error::Error for DecodeError {}

/// Decodes a frame that passes every header check of the parser under the default
/// [`RxConfig`] except the P_Key, TVer and QPN checks (which are about the receiver, not
/// the packet's shape). The ICRC must be correct. Pad bytes are dropped from the payload.
pub fn decode(frame: &[u8]) -> Result<RocePacket, DecodeError> {
    let cfg = RxConfig::default();
    let l = layout(frame, &cfg).map_err(DecodeError::Drop)?;
    let (bth, ext, payload) = transport(frame, &l).map_err(DecodeError::Drop)?;
    if !icrc_ok(frame, &l) {
        return Err(DecodeError::Drop(DropReason::BadIcrc));
    }
    let ip = l.ip_start;
    let ip_hdr = if l.ipv6 {
        let w = be32(frame, ip);
        let mut src = [0u8; 16];
        let mut dst = [0u8; 16];
        src.copy_from_slice(&frame[ip + 8..ip + 24]);
        dst.copy_from_slice(&frame[ip + 24..ip + 40]);
        IpHeader::V6(Ipv6Header {
            traffic_class: (w >> 20) as u8,
            flow_label: w & 0xF_FFFF,
            next_header: frame[ip + 6],
            hop_limit: frame[ip + 7],
            src,
            dst,
        })
    } else {
        let ff = be16(frame, ip + 6);
        IpHeader::V4(Ipv4Header {
            tos: frame[ip + 1],
            id: be16(frame, ip + 4),
            flags: (ff >> 13) as u8,
            frag_offset: ff & 0x1FFF,
            ttl: frame[ip + 8],
            protocol: frame[ip + 9],
            src: frame[ip + 12..ip + 16].try_into().unwrap_or_default(),
            dst: frame[ip + 16..ip + 20].try_into().unwrap_or_default(),
            options: frame[ip + 20..l.udp_start].to_vec(),
        })
    };
    let mut dst = [0u8; 6];
    let mut src = [0u8; 6];
    dst.copy_from_slice(&frame[0..6]);
    src.copy_from_slice(&frame[6..12]);
    Ok(RocePacket {
        eth: EthHeader {
            dst,
            src,
            vlans: (0..l.vlans).map(|i| be16(frame, 14 + 4 * i)).collect(),
        },
        ip: ip_hdr,
        udp: UdpHeader {
            sport: be16(frame, l.udp_start),
            dport: be16(frame, l.udp_start + 2),
            checksum: be16(frame, l.udp_start + 6),
        },
        bth,
        ext,
        payload: payload.to_vec(),
    })
}

/// The BTH, extension headers and payload (pad excluded) of a frame with layout `l`.
fn transport<'a>(frame: &'a [u8], l: &Layout) -> Result<(Bth, ExtHeaders, &'a [u8]), DropReason> {
    let b = l.bth_start();
    let bth = Bth::read(&frame[b..b + BTH_LEN]);
    let layout = ext_layout(bth.opcode).ok_or(DropReason::BadOpcode)?;
    let hdr_end = b + BTH_LEN + layout.len();
    let data_end = l.udp_end - ICRC_LEN;
    if hdr_end + usize::from(bth.pad_count) > data_end {
        return Err(DropReason::Truncated);
    }
    let ext = ExtHeaders::read(layout, &frame[b + BTH_LEN..hdr_end]);
    Ok((
        bth,
        ext,
        &frame[hdr_end..data_end - usize::from(bth.pad_count)],
    ))
}

fn icrc_ok(frame: &[u8], l: &Layout) -> bool {
    let at = l.udp_end - ICRC_LEN;
    let carried = u32::from_le_bytes([frame[at], frame[at + 1], frame[at + 2], frame[at + 3]]);
    icrc_at(frame, l.ip_start, l.ipv6, at) == carried
}

/// True when a packet P_Key matches the port's (IBTA/rxe): equal low 15 bits, not zero,
/// and at least one of the two a full member (bit 15).
pub fn pkey_match(packet: u16, port: u16) -> bool {
    let low = packet & 0x7FFF;
    low != 0 && low == port & 0x7FFF && (packet | port) & 0x8000 != 0
}

/// The parser's verdicts (header/verdict stream encoding).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Verdict {
    Accept = 0,
    Duplicate = 1,
    NakSeq = 2,
    NakAccess = 3,
    Drop = 4,
}

/// The decoded fields the parser reports with a verdict. For a drop before the BTH was
/// reached (`bth_seen` false) every transport field is 0.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RxFields {
    pub vf: u8,
    pub bth_seen: bool,
    pub opcode: u8,
    pub qpn: u32,
    pub psn: u32,
    pub se: bool,
    pub ack_req: bool,
    pub fecn: bool,
    pub becn: bool,
    pub pad_count: u8,
    /// RETH or AtomicETH virtual address, else 0.
    pub va: u64,
    /// RETH or AtomicETH R_Key, else 0.
    pub rkey: u32,
    /// RETH DMA length, else 0.
    pub dma_len: u32,
    /// ImmDt, or the IETH R_Key, else 0.
    pub imm: u32,
    /// DETH source QP (UD), else 0.
    pub src_qp: u32,
    /// DETH Q_Key (UD), else 0: checked against the QP's, not on `m_hdr_*`.
    pub qkey: u32,
    /// IP ECN = 11.
    pub ecn_ce: bool,
    /// BTH opcode 0x81.
    pub cnp: bool,
    /// Payload bytes (after the extension headers, pad and ICRC excluded).
    pub payload_len: u32,
}

/// One frame's outcome.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RxOutcome {
    pub verdict: Verdict,
    /// `None` unless the verdict is [`Verdict::Drop`].
    pub reason: Option<DropReason>,
    pub fields: RxFields,
}

/// Reference model of the RX parser's QP-independent checks (this increment of the block:
/// no QPC lookup yet, so a frame that passes every header check is accepted).
#[derive(Clone, Debug, Default)]
pub struct RxParserModel {
    pub cfg: RxConfig,
}

impl RxParserModel {
    pub fn new(cfg: RxConfig) -> RxParserModel {
        RxParserModel { cfg }
    }

    /// The verdict for one frame, with the MAC's bad-FCS flag and the VF from `tuser`.
    ///
    /// Check order (the first failing one names the reason): bad FCS; Ethernet/VLAN/IP/UDP
    /// ([`layout`]); ICRC (when enabled); TVer; opcode supported; headers + pad fit the
    /// datagram (truncated); P_Key; DestQP ≠ 0.
    pub fn classify(&self, frame: &[u8], bad_fcs: bool, vf: u8) -> RxOutcome {
        let mut fields = RxFields {
            vf,
            ..RxFields::default()
        };
        let drop = |reason, fields| RxOutcome {
            verdict: Verdict::Drop,
            reason: Some(reason),
            fields,
        };
        if bad_fcs {
            return drop(DropReason::BadFcs, fields);
        }
        let l = match layout(frame, &self.cfg) {
            Ok(l) => l,
            Err(r) => return drop(r, fields),
        };
        let b = l.bth_start();
        let bth = Bth::read(&frame[b..b + BTH_LEN]);
        fields.bth_seen = true;
        fields.opcode = bth.opcode;
        // DestQP 1 is the GSI of whichever function receives the frame: it names the VF's
        // own QP 1 from here on (the parser fills the VF field it has as 0 on the wire).
        fields.qpn = if bth.dest_qp == GSI_QPN {
            u32::from(vf) << 12 | GSI_QPN
        } else {
            bth.dest_qp
        };
        if self.cfg.icrc_check && !icrc_ok(frame, &l) {
            return drop(DropReason::BadIcrc, fields);
        }
        if bth.tver != 0 {
            return drop(DropReason::Tver, fields);
        }
        let (bth, ext, payload) = match transport(frame, &l) {
            Ok(t) => t,
            Err(r) => return drop(r, fields),
        };
        if !pkey_match(bth.pkey, self.cfg.pkey) {
            return drop(DropReason::PKey, fields);
        }
        if bth.dest_qp == 0 {
            return drop(DropReason::Qpn0, fields);
        }
        let ecn = if l.ipv6 {
            frame[l.ip_start + 1] >> 4 & 3
        } else {
            frame[l.ip_start + 1] & 3
        };
        fields.psn = bth.psn;
        fields.se = bth.se;
        fields.ack_req = bth.ack_req;
        fields.fecn = bth.fecn;
        fields.becn = bth.becn;
        fields.pad_count = bth.pad_count;
        if let Some(r) = ext.reth {
            (fields.va, fields.rkey, fields.dma_len) = (r.va, r.rkey, r.dma_len);
        }
        if let Some(a) = ext.atomic {
            (fields.va, fields.rkey) = (a.va, a.rkey);
        }
        fields.imm = ext.imm.or(ext.ieth).unwrap_or(0);
        fields.src_qp = ext.deth.map_or(0, |d| d.src_qp);
        fields.qkey = ext.deth.map_or(0, |d| d.qkey);
        fields.ecn_ce = ecn == 3;
        fields.cnp = bth.opcode == CNP_OPCODE;
        fields.payload_len = payload.len() as u32;
        RxOutcome {
            verdict: Verdict::Accept,
            reason: None,
            fields,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lrh_prefix_state_matches_facts() {
        // FACTS §4: the CRC state after 8 bytes of ones is 0xDEBB20E3 (before the final XOR).
        let mut h = crc32fast::Hasher::new();
        h.update(&[0xFF; 8]);
        assert_eq!(!h.finalize(), 0xDEBB_20E3);
    }

    #[test]
    fn write_first_header_sizes_match_facts() {
        let mut p = RocePacket::new_ipv4(0x06, 0x12, 7).unwrap();
        let l = layout(&p.to_bytes().unwrap(), &RxConfig::default()).unwrap();
        assert_eq!(l.bth_start() + BTH_LEN + 16, 70);
        p.eth.vlans.push(0x0005);
        let l = layout(&p.to_bytes().unwrap(), &RxConfig::default()).unwrap();
        assert_eq!(l.bth_start() + BTH_LEN + 16, 74);
        let ack = RocePacket::new_ipv4(0x11, 0x12, 7).unwrap();
        assert_eq!(ack.to_bytes().unwrap().len(), 62);
    }

    #[test]
    fn roundtrip_and_masked_fields_do_not_change_icrc() {
        let mut p = RocePacket::new_ipv4(0x0A, 0x345, 0xFF_FFFF).unwrap();
        p.payload = (0..37u8).collect();
        p.bth.pad_count = 3;
        let f = p.to_bytes().unwrap();
        assert_eq!(decode(&f).unwrap(), p);
        let crc = icrc(&f).unwrap();
        let mut q = p.clone();
        if let IpHeader::V4(h) = &mut q.ip {
            h.ttl = 3;
            h.tos = 0xAB;
        }
        q.bth.fecn = true;
        q.udp.checksum = 0x1234;
        q.eth.vlans = vec![0x1001, 0x2002];
        assert_eq!(icrc(&q.to_bytes().unwrap()), Some(crc));
        q.bth.psn ^= 1;
        assert_ne!(icrc(&q.to_bytes().unwrap()), Some(crc));
    }

    #[test]
    fn every_supported_opcode_roundtrips_over_ipv6() {
        for op in 0..=255u8 {
            let Ok(mut p) = RocePacket::new_ipv4(op, 1, 2) else {
                assert!(ext_layout(op).is_none());
                continue;
            };
            p.ip = IpHeader::V6(Ipv6Header {
                traffic_class: 0x03,
                flow_label: 0xABCDE,
                next_header: IPPROTO_UDP,
                hop_limit: 9,
                src: [1; 16],
                dst: [2; 16],
            });
            p.payload = vec![op; usize::from(op % 7)];
            let f = p.to_bytes().unwrap();
            assert_eq!(decode(&f).unwrap(), p, "opcode {op:#x}");
            let out = RxParserModel::default().classify(&f, false, 3);
            assert_eq!(out.verdict, Verdict::Accept);
            assert!(out.fields.ecn_ce);
        }
    }

    #[test]
    fn payload_packet_is_the_payload_cut_at_the_frame_end() {
        let cfg = RxConfig::default();
        let mut p = RocePacket::new_ipv4(0x0A, 0x345, 9).unwrap();
        p.payload = (1..=37u8).collect();
        p.bth.pad_count = 3;
        p.eth.vlans = vec![5, 6];
        let f = p.to_bytes().unwrap();
        assert_eq!(payload_packet(&f, &cfg), Some(&p.payload[..]));
        // 22 (Ethernet, 2 tags) + 20 + 8 + 12 + 16 (RETH) = 78: the payload start.
        assert_eq!(payload_packet(&f[..80], &cfg), Some(&p.payload[..2]));
        assert_eq!(payload_packet(&f[..78], &cfg), None);
        let mut q = p.clone();
        q.udp.dport = 1;
        assert_eq!(payload_packet(&q.to_bytes().unwrap(), &cfg), None);
        p.payload.clear();
        assert_eq!(payload_packet(&p.to_bytes().unwrap(), &cfg), None);
    }

    #[test]
    fn drop_reasons_in_check_order() {
        let m = RxParserModel::default();
        let p = RocePacket::new_ipv4(0x04, 5, 0).unwrap();
        let f = p.to_bytes().unwrap();
        let reason = |f: &[u8]| m.classify(f, false, 0).reason;
        assert_eq!(reason(&f), None);
        assert_eq!(m.classify(&f, true, 0).reason, Some(DropReason::BadFcs));
        assert_eq!(reason(&f[..40]), Some(DropReason::Truncated));
        let mut g = f.clone();
        g[14 + 10] ^= 1;
        assert_eq!(reason(&g), Some(DropReason::BadIpChecksum));
        let mut g = f.clone();
        *g.last_mut().unwrap() ^= 0x80;
        assert_eq!(reason(&g), Some(DropReason::BadIcrc));
        let mut q = p.clone();
        q.bth.pkey = 0x7FFF;
        assert_eq!(
            reason(&q.to_bytes().unwrap()),
            None,
            "one full member is enough"
        );
        q.bth.pkey = 0x1234;
        assert_eq!(reason(&q.to_bytes().unwrap()), Some(DropReason::PKey));
        let mut q = p.clone();
        q.bth.dest_qp = 0;
        assert_eq!(reason(&q.to_bytes().unwrap()), Some(DropReason::Qpn0));
        let mut q = p.clone();
        q.udp.dport = 4792;
        assert_eq!(reason(&q.to_bytes().unwrap()), Some(DropReason::NotRoce));
        let mut q = p;
        if let IpHeader::V4(h) = &mut q.ip {
            h.flags = 1;
        }
        assert_eq!(reason(&q.to_bytes().unwrap()), Some(DropReason::Fragment));
    }
}
