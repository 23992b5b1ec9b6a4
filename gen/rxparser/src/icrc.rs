//! The ICRC check (IBTA Annex A17, FACTS §4) as a pipeline in front of the header parser.
//!
//! CRC-32, reflected, polynomial 0x04C11DB7 (0xEDB88320 reversed), over 8 bytes of ones (the
//! masked LRH) and the datagram from the IP header to the ICRC with the variant fields
//! forced to ones. Every beat is taken on `s_axis_*` and reaches the parser's input stage
//! (`dly_*`) [`ICRC_DELAY`] cycles later, together with `dly_crc_ok`, the ICRC verdict of its
//! frame up to it. The stages move with the parser's pipeline enable (`en`) and carry a valid
//! bit, so a beat still goes through per cycle and the delay is a fixed number of cycles.
//!
//! Each stage is a few LUT levels (target of issue 9: at most 6):
//!
//! - **s0** (the cycle a beat is taken): the bytes the position decode needs (Ethernet type
//!   and VLAN tags, IP version/IHL/protocol/next header, at every place the UDP header can
//!   start its port and length, the BTH opcode and PadCnt) are captured in `ic_hdr`.
//! - **ic1** decodes VLAN tags, IPv6 and IHL into the UDP header's index `idx` (the UDP
//!   header starts at byte 14 + 4 * idx: the tag count plus IHL, or plus 10 for IPv6), one
//!   table per tag count, and turns each of the 18 UDP length candidates into one past the
//!   ICRC, its UDP start plus the length (24 when too short: the frame is dropped as
//!   truncated). For the payload stream it tests the RoCE shape per tag count and the port
//!   per candidate.
//! - **ic2** picks the candidate of `idx`: `pend`, one past the ICRC; and the payload's
//!   shape flag, opcode and PadCnt.
//! - **ic3** compares the beat number with `pend` (whole beat kept, end in this beat with its
//!   lane, ICRC's last byte in this beat), picks the CRC residue advanced over the zeroed
//!   lanes after that byte (one constant per lane of `pend`), and registers the positions as
//!   one-hot flags; the opcode's extension headers give the payload's first and last byte
//!   (`ic4_pstart`, `ic4_plast`), which the payload cut uses in ic4..ic6 (`payload_input`).
//! - **ic4** builds the beat as the ICRC sees it: bytes before the IP header and after the
//!   datagram zeroed, IPv4 TOS/TTL/checksum, IPv6 traffic class/flow label/hop limit, UDP
//!   checksum and BTH resv8a forced to ones, and the register state after the 8 bytes of
//!   ones (0xDEBB20E3) XORed into the first 4 IP bytes (equivalent for a reflected CRC), so
//!   the CRC starts from 0 on every frame and the zeroed lanes before the IP header leave it 0.
//! - **ic5** computes the data term `B * lane` over GF(2) per 128-bit slice of the lane (each
//!   bit an XOR of the slice bits its column selects), registered per slice.
//! - **ic6** runs the loop-carried recurrence `crc = A * crc ^ B * lane` (A: the state after a
//!   beat of zero bytes; `B * lane` as the XOR of the slices' terms: at most 32 + 8 inputs per
//!   bit).
//! - **ic7** compares the register with the residue in the beat holding the ICRC's last
//!   byte and keeps the result to the frame's last beat, which leaves here (`dly_*`).
//!
//! No matrix depends on how many bytes a beat holds: lanes after the datagram are zeros, and
//! the zero-byte transition is linear and invertible, so comparing the state after them with
//! the residue advanced by the same zeros is exact.

use super::{b1, clog2, crc_byte, crc_bytes, d, id, n, xor, Gen, CRC_RESIDUE, LRH_STATE, PW};
use verilog_ast::{BinOp, Decl, Expr, Item as V, Range, Stmt, UnOp};

/// Cycles from the cycle a beat is taken on `s_axis_*` to the cycle the parser's input stage
/// takes it (stages ic1..ic7 above).
pub const ICRC_DELAY: u32 = 7;

/// UDP header start candidates: byte 14 + 4 * i (0-2 VLAN tags, IHL 0..15 or IPv6).
pub(crate) const UDP_IDX: u32 = 18;
/// Frame bytes at and after which no field is masked (UDP at most at byte 82, BTH resv8a at
/// UDP + 12).
const MASK_END: u32 = 96;
/// Lane bits per data-term slice (ic5); ic6 XORs the slices' terms.
const SLICE_BITS: u32 = 128;
/// The datagram-end compares (19: the candidates and none) ORed by threes after `sel`.
const SEL_GROUPS: u32 = (UDP_IDX + 1).div_ceil(3);

/// Bit k: OR of bits 3k..3k+2 of `v` (the datagram-end compares of the `sel` candidate).
fn sel_groups(v: &str) -> Expr {
    Expr::concat(
        (0..SEL_GROUPS)
            .rev()
            .map(|k| match (3 * k + 2).min(UDP_IDX) {
                hi if hi == 3 * k => id(v).index(Expr::int(i64::from(hi))),
                hi => Expr::un(UnOp::RedOr, id(v).bits(hi, 3 * k)),
            })
            .collect(),
    )
}

fn udp_start(i: u32) -> u32 {
    14 + 4 * i
}
fn ip_start(tags: u32) -> u32 {
    14 + 4 * tags
}

/// Bytes of the frame the position decode reads, in capture slot order: Ethernet type and
/// tags, the IP version/IHL, IPv6 next header and IPv4 protocol bytes for 0-2 tags, and at
/// every UDP start candidate the destination port, the UDP length, the BTH opcode and the
/// BTH byte holding PadCnt.
/// The 16-bit fields the header positions come from, each compared with one value into a
/// one-bit flag `{stage}_{name}` (issue 9: compared from captured bytes in the position
/// decode, the tag, ethertype and IHL decode was 10 LUT levels): 802.1Q tags at 12 and 16,
/// IPv4 / IPv6 behind 0-2 tags. (byte position, value, flag name, what it says.) The ICRC
/// pipeline compares them as their beat arrives (s0, `ic_*`), stage 1 from `view` (`s1_*`);
/// [`Positions`] decodes either set.
pub(crate) const ET_FLAGS: [(u32, u64, &str, &str); 8] = [
    (
        12,
        0x8100,
        "tag12",
        "an 802.1Q tag (TPID 0x8100) at byte 12",
    ),
    (
        16,
        0x8100,
        "tag16",
        "an 802.1Q tag at byte 16 (the second one behind tag12)",
    ),
    (12, 0x0800, "v4_12", "IPv4 ethertype at byte 12 (no tag)"),
    (16, 0x0800, "v4_16", "IPv4 ethertype at byte 16 (one tag)"),
    (20, 0x0800, "v4_20", "IPv4 ethertype at byte 20 (two tags)"),
    (12, 0x86DD, "v6_12", "IPv6 ethertype at byte 12 (no tag)"),
    (16, 0x86DD, "v6_16", "IPv6 ethertype at byte 16 (one tag)"),
    (20, 0x86DD, "v6_20", "IPv6 ethertype at byte 20 (two tags)"),
];

/// The header positions as one stage decodes them from its [`ET_FLAGS`] flags
/// (`{flags}_{name}_q`): the tag count as the wires `{at}_vlan1` / `{at}_vlan2`, the IP
/// version behind the tags and the UDP header's index. One definition for the ICRC
/// pipeline (ic1) and the verdict's stage 1b.
pub(crate) struct Positions {
    flags: String,
    at: String,
}

impl Positions {
    /// Emits `{at}_vlan1` (a tag at byte 12) and `{at}_vlan2` (and a second at byte 16).
    pub(crate) fn new(g: &mut Gen, flags: &str, at: &str) -> Self {
        let p = Positions {
            flags: flags.into(),
            at: at.into(),
        };
        g.wire(&format!("{at}_vlan1"), 1, p.flag("tag12"));
        g.wire(
            &format!("{at}_vlan2"),
            1,
            Expr::and(p.flag("tag12"), p.flag("tag16")),
        );
        p
    }
    /// The registered flag `name` of [`ET_FLAGS`].
    pub(crate) fn flag(&self, name: &str) -> Expr {
        assert!(ET_FLAGS.iter().any(|f| f.2 == name), "ET_FLAGS has {name}");
        id(format!("{}_{name}_q", self.flags))
    }
    /// IPv`v` (4 or 6) ethertype behind `tags` tags.
    pub(crate) fn ip_is(&self, v: u32, tags: u32) -> Expr {
        self.flag(&format!("v{v}_{}", 12 + 4 * tags))
    }
    /// `a`, `b` or `c` for 0, 1 or 2 tags.
    pub(crate) fn by_tags(&self, a: Expr, b: Expr, c: Expr) -> Expr {
        Expr::ternary(
            id(format!("{}_vlan2", self.at)),
            c,
            Expr::ternary(id(format!("{}_vlan1", self.at)), b, a),
        )
    }
    /// IPv`v` behind the frame's tags.
    pub(crate) fn ip(&self, v: u32) -> Expr {
        self.by_tags(self.ip_is(v, 0), self.ip_is(v, 1), self.ip_is(v, 2))
    }
    /// `idx + plus` in `w` bits, where the UDP header starts at byte 14 + 4 * idx and
    /// idx = tags + (IPv6 ? 10 : IHL), as one table per tag count (no adder after the
    /// decode); `ihl(t)` is the IHL nibble behind t tags.
    pub(crate) fn udp_idx(&self, ihl: &dyn Fn(u32) -> Expr, w: u32, plus: u32) -> Expr {
        let arm = |t: u32| {
            let ihl = Expr::concat(vec![Expr::zero(w - 4), ihl(t)]);
            Expr::ternary(
                self.ip_is(6, t),
                d(w, u64::from(10 + t + plus)),
                match t + plus {
                    0 => ihl,
                    k => Expr::plus(ihl, d(w, u64::from(k))),
                },
            )
        };
        self.by_tags(arm(0), arm(1), arm(2))
    }
    /// Whether `idx` (see [`Positions::udp_idx`]) is `i` (`at_least`: at least `i`), from
    /// compares of the IHL nibble, no adder (constant where the nibble cannot reach).
    pub(crate) fn udp_idx_is(&self, ihl: &dyn Fn(u32) -> Expr, i: u32, at_least: bool) -> Expr {
        let arm = |t: u32| {
            let v6 = 10 + t;
            let by_ihl = match i.checked_sub(t) {
                None => b1(at_least),
                Some(k) if k > 15 => b1(false),
                Some(k) if at_least => Expr::bin(BinOp::Ge, ihl(t), d(4, u64::from(k))),
                Some(k) => Expr::eq(ihl(t), d(4, u64::from(k))),
            };
            let v6 = b1(if at_least { v6 >= i } else { v6 == i });
            if v6 == by_ihl {
                v6
            } else {
                Expr::ternary(self.ip_is(6, t), v6, by_ihl)
            }
        };
        let arms = [arm(0), arm(1), arm(2)];
        if arms.iter().all(|a| *a == arms[0]) {
            arms[0].clone()
        } else {
            let [a, b, c] = arms;
            self.by_tags(a, b, c)
        }
    }
}

fn captured_bytes() -> Vec<u32> {
    // (The tag and ethertype fields at bytes 12, 16 and 20 are compared as they arrive:
    // ET_FLAGS.)
    let mut v: Vec<u32> = vec![14, 18, 22];
    for t in 0..3 {
        v.extend([ip_start(t), ip_start(t) + 6, ip_start(t) + 9]);
    }
    for i in 0..UDP_IDX {
        let u = udp_start(i);
        v.extend([u + 2, u + 3, u + 4, u + 5, u + 8, u + 9]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The stage registers `{prefix}_{name}` of one pipeline step: loaded with `en`, held
/// otherwise.
pub(crate) struct Stage {
    prefix: String,
    loads: Vec<Stmt>,
}

impl Stage {
    pub(crate) fn new(prefix: &str) -> Self {
        Stage {
            prefix: prefix.into(),
            loads: Vec::new(),
        }
    }
    pub(crate) fn reg(
        &mut self,
        g: &mut Gen,
        name: &str,
        w: u32,
        value: Expr,
        reset: Option<Expr>,
    ) {
        let r = format!("{}_{name}", self.prefix);
        g.flop(&r, w, reset);
        g.comb
            .push(Stmt::assign(id(format!("{r}_d")), id(format!("{r}_q"))));
        self.loads.push(Stmt::assign(id(format!("{r}_d")), value));
    }
    pub(crate) fn done(self, g: &mut Gen) {
        g.comb.push(Stmt::if_(id("in_ready"), self.loads));
    }
}

/// Registers of the beat itself, passed from stage `from` (`None`: the input) to stage `to`.
fn pass_beat(g: &mut Gen, st: &mut Stage, from: Option<&str>, dw: u32) {
    let src = |s: &str| match from {
        Some(p) => id(format!("{p}_{s}_q")),
        None => id(format!("s_axis_{s}")),
    };
    let valid = match from {
        Some(p) => id(format!("{p}_valid_q")),
        None => id("s_axis_tvalid"),
    };
    st.reg(g, "valid", 1, valid, Some(b1(false)));
    st.reg(g, "tdata", dw, src("tdata"), None);
    st.reg(g, "tkeep", dw / 8, src("tkeep"), None);
    st.reg(g, "tlast", 1, src("tlast"), None);
    st.reg(g, "tuser", 9, src("tuser"), None);
    // The beat's byte count, counted as it is taken (`ic_keep_n`), goes with it (issue 9:
    // counted from the keep where it is used, the 128-lane count at 1024 bits, then the
    // payload cut's compares or the frame length's adder, was 7 LUT levels). Reset, so that
    // Yosys keeps registers (a shift register's read would count as a LUT level).
    let lw = clog2(dw / 8);
    let keep_n = match from {
        Some(p) => id(format!("{p}_keep_n_q")),
        None => id("ic_keep_n"),
    };
    st.reg(g, "keep_n", lw + 1, keep_n, Some(Expr::zero(lw + 1)));
}

/// Emits the ICRC pipeline. Reads `s_axis_*` and `in_ready` (the input side moves); drives `dly_tvalid`, `dly_tdata`,
/// `dly_tkeep`, `dly_tlast`, `dly_tuser` (the stream [`ICRC_DELAY`] cycles later) and
/// `dly_crc_ok` (the ICRC matched, as far as the frame has come with this beat). Returns the
/// bits it leaves unused on purpose.
pub(crate) fn emit(g: &mut Gen, dw: u32) -> Vec<Expr> {
    let w8 = dw / 8;
    let lw = clog2(w8);
    let bw = PW - lw;
    let slots = captured_bytes();
    let slot =
        |p: u32| -> u32 { slots.iter().position(|&s| s == p).expect("captured byte") as u32 };
    let cap_bits =
        |p: u32, hi: u32, lo: u32| id("ic_hdr_q").bits(8 * slot(p) + hi, 8 * slot(p) + lo);
    let cap = |p: u32| cap_bits(p, 7, 0);
    let nibble = |p: u32, hi: bool| {
        let lo = 8 * slot(p) + if hi { 4 } else { 0 };
        id("ic_hdr_q").bits(lo + 3, lo)
    };
    let mut unused = Vec::new();

    g.comb.push(Stmt::Comment(
        "ICRC pipeline (CRC-32, reflected polynomial 0xEDB88320): s0 captures the bytes the \
         positions need, ic1-ic3 find the IP header and the datagram end, ic4 masks the beat, \
         ic5 computes its data term, ic6 runs the CRC register, ic7 checks the residue"
            .into(),
    ));
    // ---- s0: the beat taken on s_axis; its frame's position bytes captured
    g.wire_c(
        "ic_take",
        1,
        Expr::and(id("s_axis_tvalid"), id("in_ready")),
        "a beat enters the ICRC pipeline",
    );
    g.flop("ic_beat", bw, Some(Expr::zero(bw)));
    let nbytes = slots.len() as u32;
    // The capture and the ethertype flags are reset, unlike the other datapath registers: a
    // frame's first beats read what its later beats have not loaded yet (results that are
    // discarded), and after reset those would be X in a 4-state simulator and reach the
    // payload FIFO's count (the first frame after reset made `s_axis_tready` X on Icarus: at
    // 512 bits one with its headers past the first beat, at 64 bits any).
    g.flop("ic_hdr", 8 * nbytes, Some(Expr::zero(8 * nbytes)));
    g.comb.push(Stmt::assign(id("ic_beat_d"), id("ic_beat_q")));
    g.comb.push(Stmt::assign(id("ic_hdr_d"), id("ic_hdr_q")));
    for (_, _, name, what) in ET_FLAGS {
        g.flop_c(&format!("ic_{name}"), 1, Some(b1(false)), what);
        g.comb.push(Stmt::assign(
            id(format!("ic_{name}_d")),
            id(format!("ic_{name}_q")),
        ));
    }
    let mut caps = Vec::new();
    let last_beat = slots.iter().map(|p| p / w8).max().expect("bytes");
    for b in 0..=last_beat {
        let mut stmts = Vec::new();
        for (p, v, name, _) in ET_FLAGS.into_iter().filter(|f| f.0 / w8 == b) {
            let lane = p % w8;
            stmts.push(Stmt::assign(
                id(format!("ic_{name}_d")),
                Expr::eq(
                    Expr::concat(vec![
                        id("s_axis_tdata").bits(8 * lane + 7, 8 * lane),
                        id("s_axis_tdata").bits(8 * lane + 15, 8 * lane + 8),
                    ]),
                    n(16, v),
                ),
            ));
        }
        for &p in slots.iter().filter(|&&p| p / w8 == b) {
            let s = slot(p);
            let lane = p % w8;
            stmts.push(Stmt::assign(
                id("ic_hdr_d").bits(8 * s + 7, 8 * s),
                id("s_axis_tdata").bits(8 * lane + 7, 8 * lane),
            ));
        }
        caps.push(Stmt::if_(
            Expr::eq(id("ic_beat_q"), d(bw, u64::from(b))),
            stmts,
        ));
    }
    let beat_max = (1u64 << bw) - 1;
    caps.push(Stmt::if_else(
        id("s_axis_tlast"),
        vec![Stmt::assign(id("ic_beat_d"), Expr::zero(bw))],
        vec![Stmt::if_(
            Expr::bin(BinOp::Ne, id("ic_beat_q"), d(bw, beat_max)),
            vec![Stmt::assign(
                id("ic_beat_d"),
                Expr::plus(id("ic_beat_q"), d(bw, 1)),
            )],
        )],
    ));
    g.comb.push(Stmt::if_(id("ic_take"), caps));
    super::keep_count(g, "ic_keep_n", "s_axis_tkeep", w8);
    let mut s1 = Stage::new("ic1");
    pass_beat(g, &mut s1, None, dw);
    s1.reg(g, "beat", bw, id("ic_beat_q"), None);
    s1.done(g);

    // ---- ic1: VLAN tags, IPv6, IHL -> UDP header index; the UDP length candidates
    let pos = Positions::new(g, "ic", "ic1");
    g.wire_c(
        "ic1_tags",
        2,
        pos.by_tags(d(2, 0), d(2, 1), d(2, 2)),
        "VLAN tags: the IP header starts at byte 14 + 4 * tags",
    );
    g.wire("ic1_ipv6", 1, pos.ip(6));
    let ihl = |t: u32| nibble(ip_start(t), false);
    g.wire_c(
        "ic1_idx",
        5,
        pos.udp_idx(&ihl, 5, 0),
        "the UDP header starts at byte 14 + 4 * idx",
    );
    g.wire_c(
        "ic1_udp4",
        6,
        pos.udp_idx(&ihl, 6, 3),
        "the UDP header starts at byte 4 * udp4 + 2",
    );
    g.wire_c(
        "ic1_sel",
        UDP_IDX + 1,
        Expr::concat(
            std::iter::once(pos.udp_idx_is(&ihl, UDP_IDX, true))
                .chain((0..UDP_IDX).rev().map(|i| pos.udp_idx_is(&ihl, i, false)))
                .collect(),
        ),
        "idx one-hot; the top bit: no candidate",
    );
    g.wire_c(
        "ic1_pend_none",
        PW,
        Expr::plus(
            Expr::concat(vec![Expr::zero(PW - 8), id("ic1_udp4"), n(2, 2)]),
            d(PW, 24),
        ),
        "the datagram end when no UDP start candidate applies",
    );
    // Candidate i: what the UDP length field says if the UDP header starts at byte 14 + 4 * i
    // (24 when too short for UDP + BTH + ICRC), added to that start: one past the datagram
    // (issue 9: added in ic2 after the pick by `idx`, the sum was one of the slowest carry
    // paths; here the adders read the capture, and ic2 only picks).
    let mut ends = Vec::new();
    let mut carries = Vec::new();
    let mut ok = Vec::new();
    for i in (0..UDP_IDX).rev() {
        let len = be_cap(&cap, udp_start(i) + 4);
        let fits = Expr::bin(BinOp::Ge, len.clone(), d(16, 24));
        let at = u64::from(udp_start(i));
        let end = format!("ic1_end{i}");
        g.wire(
            &end,
            PW,
            Expr::ternary(
                fits.clone(),
                Expr::plus(Expr::concat(vec![Expr::zero(PW - 16), len]), d(PW, at)),
                d(PW, 24 + at),
            ),
        );
        ends.push(id(&end).bits(15, 0));
        carries.push(id(&end).index(Expr::int(16)));
        ok.push(fits);
    }
    assert_eq!(PW, 17, "an end is 16 bits and a carry");
    g.wire_c(
        "ic1_pend",
        16 * UDP_IDX,
        Expr::concat(ends),
        "candidate i: one past the datagram (low 16 bits) if UDP starts at byte 14 + 4 * i",
    );
    g.wire_c(
        "ic1_pend_hi",
        UDP_IDX,
        Expr::concat(carries),
        "candidate i: bit 16 of that end",
    );
    g.wire_c(
        "ic1_len_ok",
        UDP_IDX,
        Expr::concat(ok),
        "candidate i has room for UDP, BTH and ICRC",
    );
    // The payload stream's tests (docs/rx_parser.md "Which frames get a packet"), per tag
    // count and per UDP start candidate; ic2 picks the frame's.
    let l3_ok: Vec<Expr> = (0..3u32)
        .rev()
        .map(|t| {
            let ip = ip_start(t);
            let et = |v: u32| pos.ip_is(v, t);
            let ver = |v: u64| Expr::eq(nibble(ip, true), d(4, v));
            Expr::or(
                Expr::all(vec![
                    et(4),
                    ver(4),
                    Expr::bin(BinOp::Ge, nibble(ip, false), d(4, 5)),
                    Expr::eq(cap(ip + 9), d(8, 17)),
                ]),
                Expr::all(vec![
                    et(6),
                    id("csr_ctrl_ipv6_en_o"),
                    ver(6),
                    Expr::eq(cap(ip + 6), d(8, 17)),
                ]),
            )
        })
        .collect();
    g.wire_c(
        "ic1_l3_ok",
        3,
        Expr::concat(l3_ok),
        "with t tags: IPv4 (version 4, IHL >= 5, UDP) or enabled IPv6 (version 6, next header UDP)",
    );
    let per_udp = |f: &dyn Fn(u32) -> Expr| -> Expr {
        Expr::concat((0..UDP_IDX).rev().map(|i| f(udp_start(i))).collect())
    };
    g.wire_c(
        "ic1_dport_ok",
        UDP_IDX,
        per_udp(&|u| Expr::eq(be_cap(&cap, u + 2), id("csr_udp_dport_value_o"))),
        "candidate i: the UDP destination port is udp_dport",
    );
    // The BTH opcode decoded per candidate, ic2 picks the frame's (issue 9: decoded in ic3
    // after the pick, the extension length ran into `ic4_pstart`'s adder, one of the slowest
    // paths at 512 bits).
    let mut op_ok = Vec::new();
    let mut ext: [Vec<Expr>; 3] = Default::default();
    for i in (0..UDP_IDX).rev() {
        let p = format!("ic1_c{i}");
        g.wire(&format!("{p}_opcode"), 8, cap(udp_start(i) + 8));
        super::opcode_decode(g, id(format!("{p}_opcode")), &p, &["op_ok", "ext_len"]);
        op_ok.push(id(format!("{p}_op_ok")));
        for (k, e) in ext.iter_mut().enumerate() {
            e.push(id(format!("{p}_ext_len")).index(Expr::int(k as i64 + 2)));
        }
        // Extension lengths are whole words (asserted with stage 2's payload length).
        unused.push(id(format!("{p}_ext_len")).bits(1, 0));
    }
    g.wire_c(
        "ic1_op_ok",
        UDP_IDX,
        Expr::concat(op_ok),
        "candidate i: the BTH opcode is one the parser takes",
    );
    for (k, e) in ext.into_iter().enumerate() {
        g.wire_c(
            &format!("ic1_ext{}", k + 2),
            UDP_IDX,
            Expr::concat(e),
            &format!(
                "candidate i: bit {} of the extension headers' length",
                k + 2
            ),
        );
    }
    g.wire_c(
        "ic1_pad",
        2 * UDP_IDX,
        per_udp(&|u| cap_bits(u + 9, 5, 4)),
        "candidate i: the BTH PadCnt",
    );
    for i in 0..UDP_IDX {
        unused.push(cap_bits(udp_start(i) + 9, 7, 6));
        unused.push(cap_bits(udp_start(i) + 9, 3, 0));
    }
    let mut s2 = Stage::new("ic2");
    pass_beat(g, &mut s2, Some("ic1"), dw);
    s2.reg(g, "beat", bw, id("ic1_beat_q"), None);
    s2.reg(g, "tags", 2, id("ic1_tags"), None);
    s2.reg(g, "ipv6", 1, id("ic1_ipv6"), None);
    s2.reg(g, "idx", 5, id("ic1_idx"), None);
    s2.reg(g, "udp4", 6, id("ic1_udp4"), None);
    s2.reg(g, "sel", UDP_IDX + 1, id("ic1_sel"), None);
    s2.reg(g, "pend_none", PW, id("ic1_pend_none"), None);
    s2.reg(g, "pend", 16 * UDP_IDX, id("ic1_pend"), None);
    s2.reg(g, "pend_hi", UDP_IDX, id("ic1_pend_hi"), None);
    s2.reg(g, "len_ok", UDP_IDX, id("ic1_len_ok"), None);
    s2.reg(g, "l3_ok", 3, id("ic1_l3_ok"), None);
    s2.reg(g, "dport_ok", UDP_IDX, id("ic1_dport_ok"), None);
    s2.reg(g, "op_ok", UDP_IDX, id("ic1_op_ok"), None);
    for k in 2..5 {
        s2.reg(
            g,
            &format!("ext{k}"),
            UDP_IDX,
            id(format!("ic1_ext{k}")),
            None,
        );
    }
    s2.reg(g, "pad", 2 * UDP_IDX, id("ic1_pad"), None);
    s2.done(g);

    // ---- ic2: the datagram end
    let idx_in_range = Expr::bin(BinOp::Lt, id("ic2_idx_q"), d(5, u64::from(UDP_IDX)));
    g.wire_c(
        "ic2_len_ok",
        1,
        Expr::and(
            idx_in_range.clone(),
            id("ic2_len_ok_q").index(id("ic2_idx_q")),
        ),
        "UDP + BTH + ICRC fit (else the frame is dropped as truncated)",
    );
    g.wire_c(
        "ic2_pend",
        PW,
        Expr::ternary(
            idx_in_range.clone(),
            Expr::concat(vec![
                id("ic2_pend_hi_q").index(id("ic2_idx_q")),
                id("ic2_pend_q").part(Expr::concat(vec![id("ic2_idx_q"), n(4, 0)]), Expr::int(16)),
            ]),
            id("ic2_pend_none_q"),
        ),
        "one past the datagram: bytes from here on are zeroed",
    );
    // The beat against the end's beat, compared per candidate here and picked in ic3
    // (issue 9: compared in ic3 after the pick by `idx`, `ic3_pend -> ic4_khi` was the
    // slowest path at 512 bits: the pick, the compare's carry chain, then the lane compare).
    let end_beat = |i: u32| {
        Expr::concat(vec![
            id("ic2_pend_hi_q").index(Expr::int(i64::from(i))),
            id("ic2_pend_q").bits(16 * i + 15, 16 * i + lw),
        ])
    };
    let per_end = |f: &dyn Fn(Expr) -> Expr| -> Expr {
        Expr::concat((0..UDP_IDX).rev().map(|i| f(end_beat(i))).collect())
    };
    g.wire_c(
        "ic2_end_after",
        UDP_IDX,
        per_end(&|e| Expr::lt(id("ic2_beat_q"), e)),
        "candidate i: the datagram ends in a later beat",
    );
    g.wire_c(
        "ic2_end_at",
        UDP_IDX,
        per_end(&|e| Expr::eq(id("ic2_beat_q"), e)),
        "candidate i: the datagram ends in this beat",
    );
    let none_beat = || id("ic2_pend_none_q").bits(PW - 1, lw);
    let by_idx = |v: &str, none: Expr| {
        Expr::ternary(idx_in_range.clone(), id(v).index(id("ic2_idx_q")), none)
    };
    let mut s3 = Stage::new("ic3");
    pass_beat(g, &mut s3, Some("ic2"), dw);
    s3.reg(g, "beat", bw, id("ic2_beat_q"), None);
    s3.reg(
        g,
        "beat_p1",
        bw,
        Expr::plus(id("ic2_beat_q"), d(bw, 1)),
        None,
    );
    s3.reg(g, "tags", 2, id("ic2_tags_q"), None);
    s3.reg(g, "ipv6", 1, id("ic2_ipv6_q"), None);
    s3.reg(g, "idx", 5, id("ic2_idx_q"), None);
    s3.reg(g, "len_ok", 1, id("ic2_len_ok"), None);
    s3.reg(g, "pend", PW, id("ic2_pend"), None);
    // The pick by the one-hot `sel` started here: each compare ANDed with its `sel` bit and
    // ORed in groups of 3 (one LUT after each carry), so that ic3's pick is an OR of 7
    // registers (issue 9: the AND-OR of the 19 compares and `sel` in ic3, 38 inputs, was
    // mapped as a chain, `ic3_end_at -> ic4_khi` 7 LUT levels at 512 bits).
    for (v, cmp) in [("after", BinOp::Lt), ("at", BinOp::Eq)] {
        g.wire_c(
            &format!("ic2_{v}_sel"),
            UDP_IDX + 1,
            Expr::band(
                Expr::concat(vec![
                    Expr::bin(cmp, id("ic2_beat_q"), none_beat()),
                    id(format!("ic2_end_{v}")),
                ]),
                id("ic2_sel_q"),
            ),
            &format!("ic2_end_{v} of the `sel` candidate (top bit: no candidate)"),
        );
    }
    s3.reg(
        g,
        "end_after",
        SEL_GROUPS,
        sel_groups("ic2_after_sel"),
        None,
    );
    s3.reg(g, "end_at", SEL_GROUPS, sel_groups("ic2_at_sel"), None);
    s3.reg(
        g,
        "pay_shape",
        1,
        Expr::and(
            id("ic2_l3_ok_q").index(id("ic2_tags_q")),
            id("ic2_dport_ok_q").index(id("ic2_idx_q")),
        ),
        None,
    );
    s3.reg(g, "op_ok", 1, by_idx("ic2_op_ok_q", b1(false)), None);
    s3.reg(
        g,
        "ext_words",
        3,
        Expr::concat(
            (2..5)
                .rev()
                .map(|k| by_idx(&format!("ic2_ext{k}_q"), b1(false)))
                .collect(),
        ),
        None,
    );
    s3.reg(
        g,
        "pad",
        2,
        id("ic2_pad_q").part(Expr::concat(vec![id("ic2_idx_q"), n(1, 0)]), Expr::int(2)),
        None,
    );
    s3.reg(g, "udp4", 6, id("ic2_udp4_q"), None);
    s3.done(g);

    // ---- ic3: where the beat is relative to the datagram end; the residue to expect; the
    // positions as one-hot flags for s4
    // The frame's compare picked from the registered ones (each ANDed with its one-hot `sel`
    // bit and ORed by threes in ic2), an OR of 7 registers (issue 9: the carry chain and the
    // pick in one stage were among the slowest paths at 512 bits).
    let by_sel = |v: &str| Expr::un(UnOp::RedOr, id(v));
    g.wire_c(
        "ic3_hi_all",
        1,
        by_sel("ic3_end_after_q"),
        "the datagram ends in a later beat",
    );
    g.wire_c(
        "ic3_hi_part",
        1,
        by_sel("ic3_end_at_q"),
        "the datagram ends in this beat",
    );
    let km = MASK_END.div_ceil(w8);
    let pend_beat = || id("ic3_pend_q").bits(PW - 1, lw);
    let pend_lane = || id("ic3_pend_q").bits(lw - 1, 0);
    g.reg("ic3_residue", 32);
    let mut arms = Vec::new();
    for lane in 0..w8 {
        // pend in lane `lane`: the ICRC's last byte is one lane before, zero lanes follow it.
        let zeros = (w8 - lane) % w8;
        let mut s = CRC_RESIDUE;
        for _ in 0..zeros {
            s = crc_byte(s, 0);
        }
        arms.push((
            vec![d(lw, u64::from(lane))],
            vec![Stmt::assign(id("ic3_residue"), n(32, u64::from(s)))],
        ));
    }
    g.comb.push(Stmt::Comment(
        "CRC residue after the ICRC, advanced over the zeroed lanes after it".into(),
    ));
    g.comb.push(Stmt::Case {
        subject: pend_lane(),
        arms,
        default: vec![Stmt::assign(id("ic3_residue"), Expr::zero(32))],
    });
    let mut s4 = Stage::new("ic4");
    pass_beat(g, &mut s4, Some("ic3"), dw);
    s4.reg(
        g,
        "first",
        1,
        Expr::eq(id("ic3_beat_q"), Expr::zero(bw)),
        None,
    );
    let kflags: Vec<Expr> = (0..=km)
        .rev()
        .map(|c| {
            if c == km {
                Expr::bin(BinOp::Ge, id("ic3_beat_q"), d(bw, u64::from(km)))
            } else {
                Expr::eq(id("ic3_beat_q"), d(bw, u64::from(c)))
            }
        })
        .collect();
    s4.reg(g, "k", km + 1, Expr::concat(kflags), None);
    // The same as a thermometer (bit c - 1: beat >= c) and the tag count one-hot, for the lanes
    // kept from the IP header on (issue 9: an OR over every beat and tag count of the one-hot
    // products made `ic4 -> ic5_lane` 8-9 LUT levels at 64 bits).
    let kge: Vec<Expr> = (1..=km)
        .rev()
        .map(|c| Expr::bin(BinOp::Ge, id("ic3_beat_q"), d(bw, u64::from(c))))
        .collect();
    s4.reg(g, "kge", km, Expr::concat(kge), None);
    s4.reg(
        g,
        "tg",
        3,
        Expr::concat(
            (0..3u32)
                .rev()
                .map(|t| Expr::eq(id("ic3_tags_q"), d(2, u64::from(t))))
                .collect(),
        ),
        None,
    );
    let tflags = |v6: bool| -> Expr {
        Expr::concat(
            (0..3u32)
                .rev()
                .map(|t| {
                    let ip = if v6 {
                        id("ic3_ipv6_q")
                    } else {
                        Expr::lnot(id("ic3_ipv6_q"))
                    };
                    Expr::and(Expr::eq(id("ic3_tags_q"), d(2, u64::from(t))), ip)
                })
                .collect(),
        )
    };
    s4.reg(g, "t4", 3, tflags(false), None);
    s4.reg(g, "t6", 3, tflags(true), None);
    let uflags: Vec<Expr> = (0..UDP_IDX)
        .rev()
        .map(|i| Expr::eq(id("ic3_idx_q"), d(5, u64::from(i))))
        .collect();
    s4.reg(g, "u", UDP_IDX, Expr::concat(uflags), None);
    // Lanes kept before the datagram's end, per lane (issue 9: compared in ic4 with the
    // lane of the end, the mask was 11 LUT levels at 512 bits): all of a beat before the
    // end's beat, the lanes before the end's lane in its beat; the last lane only when the
    // datagram ends in a later beat.
    s4.reg(
        g,
        "khi",
        w8,
        Expr::concat(
            (0..w8)
                .rev()
                .map(|j| {
                    if j + 1 < w8 {
                        Expr::or(
                            id("ic3_hi_all"),
                            Expr::and(
                                id("ic3_hi_part"),
                                Expr::bin(BinOp::Gt, pend_lane(), d(lw, u64::from(j))),
                            ),
                        )
                    } else {
                        id("ic3_hi_all")
                    }
                })
                .collect(),
        ),
        None,
    );
    s4.reg(
        g,
        "end_here",
        1,
        Expr::and(
            id("ic3_len_ok_q"),
            Expr::ternary(
                Expr::eq(pend_lane(), Expr::zero(lw)),
                Expr::eq(id("ic3_beat_p1_q"), pend_beat()),
                id("ic3_hi_part"),
            ),
        ),
        None,
    );
    s4.reg(g, "residue", 32, id("ic3_residue"), None);
    // The UDP header's index goes with the beat to the header capture (`dly_udp_idx`):
    // stage 1 takes the frame's with its last beat, so the verdict's window select has it
    // from a register (issue 9: decoded from the header in stage 1b, then the select, was
    // one of the slowest paths at 512 bits).
    s4.reg(g, "idx", 5, id("ic3_idx_q"), None);
    // The payload's positions (docs/rx_parser.md "Payload stream"), for the payload cut that
    // runs in ic4..ic6 beside the ICRC (`payload_input` in lib.rs).
    s4.reg(g, "beat", bw, id("ic3_beat_q"), None);
    s4.reg(
        g,
        "pay_ok",
        1,
        Expr::and(id("ic3_pay_shape_q"), id("ic3_op_ok_q")),
        None,
    );
    s4.reg(
        g,
        "pstart",
        PW,
        // 4 * udp4 + 2 + 20 + 4 * ext_words, the constant low bits outside the adder.
        Expr::concat(vec![
            Expr::zero(PW - 9),
            Expr::plus(
                Expr::concat(vec![n(1, 0), id("ic3_udp4_q")]),
                Expr::plus(d(7, 5), Expr::concat(vec![n(4, 0), id("ic3_ext_words_q")])),
            ),
            n(2, 2),
        ]),
        None,
    );
    s4.reg(
        g,
        "plast",
        PW,
        Expr::minus(
            id("ic3_pend_q"),
            Expr::plus(
                d(PW, 5),
                Expr::concat(vec![Expr::zero(PW - 2), id("ic3_pad_q")]),
            ),
        ),
        None,
    );
    s4.done(g);

    // ---- ic4: the beat as the ICRC sees it
    let flag = |v: &str, i: u32| id(format!("ic4_{v}_q")).index(Expr::int(i64::from(i)));
    let ip4_ff = [1u32, 8, 10, 11];
    let ip6_ff = [1u32, 2, 3, 7];
    let udp_ff = [6u32, 7, 12];
    let lrh = LRH_STATE.to_le_bytes();
    for name in ["ic4_klo", "ic4_khi", "ic4_ff", "ic4_nib"] {
        g.decls.push(V::Decl(Decl::wire(name, Range::bits(w8))));
    }
    g.decls.push(V::Decl(
        Decl::wire("ic4_lrh", Range::bits(dw)).comment("masked-LRH state XORed into IP bytes 0-3"),
    ));
    g.decls.push(V::Decl(
        Decl::wire("ic4_ones", Range::bits(dw)).comment("variant fields forced to ones"),
    ));
    g.decls.push(V::Decl(
        Decl::wire("ic4_keep", Range::bits(dw)).comment("from the IP header to the datagram end"),
    ));
    let mut used_k = vec![false; km as usize + 1];
    let mut used_kge = vec![false; km as usize];
    // (One bit at 1024 bits: a scalar.)
    let kge_bit = |c: u32| {
        if km == 1 {
            id("ic4_kge_q")
        } else {
            flag("kge", c)
        }
    };
    let or_all = |v: Vec<Expr>| v.into_iter().reduce(Expr::or).unwrap_or(b1(false));
    for j in 0..w8 {
        let (mut ff, mut nib, mut lrh_terms) = (Vec::new(), Vec::new(), Vec::new());
        // Lane j is at or after the IP header in beats c >= cmin(t) with t tags.
        let klo: Vec<Expr> = (0..3u32)
            .map(|t| {
                let cmin = ip_start(t).saturating_sub(j).div_ceil(w8).min(km);
                if cmin == 0 {
                    return flag("tg", t);
                }
                used_kge[cmin as usize - 1] = true;
                Expr::and(flag("tg", t), kge_bit(cmin - 1))
            })
            .collect();
        for c in 0..km {
            let p = c * w8 + j;
            let kc = flag("k", c);
            let before = ff.len() + nib.len() + lrh_terms.len();
            for t in 0..3 {
                let ip = ip_start(t);
                if p < ip {
                    continue;
                }
                let o = p - ip;
                let c4 = Expr::and(kc.clone(), flag("t4", t));
                let c6 = Expr::and(kc.clone(), flag("t6", t));
                if ip4_ff.contains(&o) {
                    ff.push(c4.clone());
                }
                if ip6_ff.contains(&o) {
                    ff.push(c6.clone());
                }
                if o == 0 {
                    nib.push(c6.clone());
                }
                if o < 4 {
                    lrh_terms.push(Expr::band(
                        Expr::repl(Expr::int(8), Expr::or(c4, c6)),
                        n(8, u64::from(lrh[o as usize])),
                    ));
                }
            }
            for i in 0..UDP_IDX {
                let u = udp_start(i);
                if p >= u && udp_ff.contains(&(p - u)) {
                    ff.push(Expr::and(kc.clone(), flag("u", i)));
                }
            }
            used_k[c as usize] |= ff.len() + nib.len() + lrh_terms.len() > before;
        }
        let bit = |v: &str| id(v).index(Expr::int(i64::from(j)));
        g.assigns.push(V::Assign(bit("ic4_klo"), or_all(klo)));
        g.assigns.push(V::Assign(bit("ic4_khi"), bit("ic4_khi_q")));
        g.assigns.push(V::Assign(bit("ic4_ff"), or_all(ff)));
        g.assigns.push(V::Assign(bit("ic4_nib"), or_all(nib)));
        let range = |v: &str| id(v).bits(8 * j + 7, 8 * j);
        g.assigns.push(V::Assign(
            range("ic4_lrh"),
            lrh_terms
                .into_iter()
                .reduce(Expr::bor)
                .unwrap_or(Expr::zero(8)),
        ));
        g.assigns.push(V::Assign(
            range("ic4_ones"),
            Expr::concat(vec![
                Expr::repl(Expr::int(4), bit("ic4_ff")),
                Expr::repl(Expr::int(4), Expr::or(bit("ic4_ff"), bit("ic4_nib"))),
            ]),
        ));
        g.assigns.push(V::Assign(
            range("ic4_keep"),
            Expr::repl(Expr::int(8), Expr::and(bit("ic4_klo"), bit("ic4_khi"))),
        ));
    }
    for (c, used) in used_k.iter().enumerate() {
        if !used {
            unused.push(flag("k", c as u32));
        }
    }
    for (c, used) in used_kge.iter().enumerate() {
        if !used {
            unused.push(kge_bit(c as u32));
        }
    }
    g.wire_c(
        "ic4_lane",
        dw,
        Expr::band(
            xor(Expr::bor(id("ic4_tdata_q"), id("ic4_ones")), id("ic4_lrh")),
            id("ic4_keep"),
        ),
        "the beat as the ICRC sees it",
    );
    let mut s5 = Stage::new("ic5");
    pass_beat(g, &mut s5, Some("ic4"), dw);
    s5.reg(g, "idx", 5, id("ic4_idx_q"), None);
    for (name, w) in [("first", 1), ("end_here", 1), ("residue", 32)] {
        s5.reg(g, name, w, id(format!("ic4_{name}_q")), None);
    }
    s5.reg(g, "lane", dw, id("ic4_lane"), None);
    s5.done(g);

    // ---- ic5: the data term B * lane
    let data_cols: Vec<u32> = (0..dw)
        .map(|m| {
            let mut bytes = vec![0u8; w8 as usize];
            bytes[(m / 8) as usize] = 1 << (m % 8);
            crc_bytes(0, &bytes)
        })
        .collect();
    // One 32-bit term per 128-bit slice, XORed in ic6 (issue 9: XORed here, the 1024-bit data
    // term was 10 LUT levels).
    let slices = dw.div_ceil(SLICE_BITS);
    g.decls.push(V::Decl(
        Decl::wire("ic5_dterm", Range::bits(32 * slices)).comment(format!(
            "CRC-32 from state 0 of each {SLICE_BITS}-bit slice of the lane, bits 32 * s + i ({w8} bytes in parallel)"
        )),
    ));
    for out in 0..32 {
        for chunk in 0..slices {
            let lo = chunk * SLICE_BITS;
            let hi = (lo + SLICE_BITS).min(dw);
            let mut m = 0u128;
            for bit in lo..hi {
                if data_cols[bit as usize] >> out & 1 == 1 {
                    m |= 1 << (bit - lo);
                }
            }
            let e = if m != 0 {
                Expr::un(
                    UnOp::RedXor,
                    Expr::band(id("ic5_lane_q").bits(hi - 1, lo), Expr::num(hi - lo, m)),
                )
            } else {
                b1(false)
            };
            g.assigns.push(V::Assign(
                id("ic5_dterm").index(Expr::int(i64::from(32 * chunk + out))),
                e,
            ));
        }
    }
    let mut s6 = Stage::new("ic6");
    pass_beat(g, &mut s6, Some("ic5"), dw);
    s6.reg(g, "idx", 5, id("ic5_idx_q"), None);
    for (name, w) in [("first", 1), ("end_here", 1), ("residue", 32)] {
        s6.reg(g, name, w, id(format!("ic5_{name}_q")), None);
    }
    s6.reg(g, "dterm", 32 * slices, id("ic5_dterm"), None);
    s6.done(g);

    // ---- ic6: the CRC register, crc = A * crc ^ B * lane
    g.flop("ic_crc", 32, None);
    g.wire_c(
        "ic6_crc_in",
        32,
        Expr::ternary(id("ic6_first_q"), Expr::zero(32), id("ic_crc_q")),
        "each frame starts from 0 (the masked LRH is folded into the first IP bytes)",
    );
    let mut state_cols = [0u32; 32];
    for (j, col) in state_cols.iter_mut().enumerate() {
        *col = crc_bytes(1 << j, &vec![0u8; w8 as usize]);
    }
    g.decls
        .push(V::Decl(Decl::wire("ic6_crc", Range::bits(32)).comment(
            format!("CRC register after this beat: A advances it over {w8} zero bytes"),
        )));
    for out in 0..32 {
        let smask: u32 = (0..32)
            .filter(|j| state_cols[*j as usize] >> out & 1 == 1)
            .fold(0, |m, j| m | 1 << j);
        g.assigns.push(V::Assign(
            id("ic6_crc").index(Expr::int(out)),
            xor(
                Expr::un(
                    UnOp::RedXor,
                    Expr::band(id("ic6_crc_in"), n(32, u64::from(smask))),
                ),
                Expr::un(
                    UnOp::RedXor,
                    Expr::concat(
                        (0..slices)
                            .rev()
                            .map(|c| id("ic6_dterm_q").index(Expr::int(32 * i64::from(c) + out)))
                            .collect(),
                    ),
                ),
            ),
        ));
    }
    g.comb.push(Stmt::assign(id("ic_crc_d"), id("ic_crc_q")));
    g.comb.push(Stmt::if_(
        Expr::and(id("in_ready"), id("ic6_valid_q")),
        vec![Stmt::assign(id("ic_crc_d"), id("ic6_crc"))],
    ));
    let mut s7 = Stage::new("ic7");
    pass_beat(g, &mut s7, Some("ic6"), dw);
    s7.reg(g, "idx", 5, id("ic6_idx_q"), None);
    for (name, w) in [("first", 1), ("end_here", 1), ("residue", 32)] {
        s7.reg(g, name, w, id(format!("ic6_{name}_q")), None);
    }
    s7.done(g);

    // ---- ic7: the residue check (ic_crc_q holds the state after this stage's beat)
    g.flop("ic_ok", 1, None);
    g.wire_c(
        "dly_crc_ok",
        1,
        Expr::ternary(
            id("ic7_end_here_q"),
            Expr::eq(id("ic_crc_q"), id("ic7_residue_q")),
            Expr::and(Expr::lnot(id("ic7_first_q")), id("ic_ok_q")),
        ),
        "the ICRC matched (in the beat holding its last byte; kept to the frame's end)",
    );
    g.comb.push(Stmt::assign(id("ic_ok_d"), id("ic_ok_q")));
    g.comb.push(Stmt::if_(
        Expr::and(id("in_ready"), id("ic7_valid_q")),
        vec![Stmt::assign(id("ic_ok_d"), id("dly_crc_ok"))],
    ));
    for (name, w) in [
        ("tvalid", 1),
        ("tdata", dw),
        ("tkeep", w8),
        ("tlast", 1),
        ("tuser", 9),
    ] {
        let src = if name == "tvalid" {
            "ic7_valid_q".to_string()
        } else {
            format!("ic7_{name}_q")
        };
        g.wire(&format!("dly_{name}"), w, id(src));
    }
    g.wire_c(
        "dly_keep_n",
        lw + 1,
        id("ic7_keep_n_q"),
        "the beat's bytes (its keep is contiguous from lane 0)",
    );
    g.wire_c(
        "dly_udp_idx",
        5,
        id("ic7_idx_q"),
        "the beat's frame: its UDP header starts at byte 14 + 4 * this",
    );
    // (The header capture takes the beat's byte count, `dly_keep_n`, not its keep.)
    unused.push(id("dly_tkeep"));
    unused
}

/// Two captured bytes from frame byte `p`, network order.
fn be_cap(cap: &dyn Fn(u32) -> Expr, p: u32) -> Expr {
    Expr::concat(vec![cap(p), cap(p + 1)])
}
