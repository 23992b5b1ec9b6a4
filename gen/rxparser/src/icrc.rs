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
//!   and VLAN tags, IHL, every place the UDP length can be) are captured in `ic_hdr`.
//! - **s1** decodes VLAN tags, IPv6 and IHL into the UDP header's index `idx` (the UDP header
//!   starts at byte 14 + 4 * idx: the tag count plus IHL, or plus 10 for IPv6) and keeps the 18
//!   UDP length candidates with their "at least 24" bits.
//! - **s2** picks the UDP length and adds the end of the datagram (`pend`, one past the
//!   ICRC; `udp + 24` when the length is too short, as the frame is dropped as truncated).
//! - **s3** compares the beat number with the datagram end: whole beat kept, end in this
//!   beat (with its lane), ICRC's last byte in this beat, and the CRC residue advanced over
//!   the zeroed lanes after that byte (one constant per lane).
//! - **s4** builds the beat as the ICRC sees it: bytes before the IP header and after the
//!   datagram zeroed, IPv4 TOS/TTL/checksum, IPv6 traffic class/flow label/hop limit, UDP
//!   checksum and BTH resv8a forced to ones, and the register state after the 8 bytes of
//!   ones (0xDEBB20E3) XORed into the first 4 IP bytes (equivalent for a reflected CRC), so
//!   the CRC starts from 0 on every frame and the zeroed lanes before the IP header leave it 0.
//! - **s5** computes the data term `B * lane` over GF(2) (each bit an XOR of the lane bits
//!   its column selects).
//! - **s6** runs the loop-carried recurrence `crc = A * crc ^ B * lane` (A: the state after a
//!   beat of zero bytes; at most 32 + 1 inputs per bit) and, in the beat holding the ICRC's
//!   last byte, compares the register with the residue.
//!
//! No matrix depends on how many bytes a beat holds: lanes after the datagram are zeros, and
//! the zero-byte transition is linear and invertible, so comparing the state after them with
//! the residue advanced by the same zeros is exact.

use super::{b1, clog2, crc_byte, crc_bytes, d, id, n, xor, Gen, CRC_RESIDUE, LRH_STATE, PW};
use verilog_ast::{BinOp, Decl, Expr, Item as V, Range, Stmt, UnOp};

/// Cycles from the cycle a beat is taken on `s_axis_*` to the cycle the parser's input stage
/// takes it (stages s1..s6 above).
pub const ICRC_DELAY: u32 = 6;

/// UDP header start candidates: byte 14 + 4 * i (0-2 VLAN tags, IHL 0..15 or IPv6).
const UDP_IDX: u32 = 18;
/// Frame bytes at and after which no field is masked (UDP at most at byte 82, BTH resv8a at
/// UDP + 12).
const MASK_END: u32 = 96;

fn udp_start(i: u32) -> u32 {
    14 + 4 * i
}
fn ip_start(tags: u32) -> u32 {
    14 + 4 * tags
}

/// Bytes of the frame the position decode reads, in capture slot order.
fn captured_bytes() -> Vec<u32> {
    let mut v: Vec<u32> = vec![12, 13, 14, 16, 17, 18, 20, 21, 22];
    for i in 0..UDP_IDX {
        v.extend([udp_start(i) + 4, udp_start(i) + 5]);
    }
    v.sort_unstable();
    v.dedup();
    v
}

/// The stage registers `{prefix}_{name}` of one pipeline step: loaded with `en`, held
/// otherwise.
struct Stage {
    prefix: String,
    loads: Vec<Stmt>,
}

impl Stage {
    fn new(prefix: &str) -> Self {
        Stage {
            prefix: prefix.into(),
            loads: Vec::new(),
        }
    }
    fn reg(&mut self, g: &mut Gen, name: &str, w: u32, value: Expr, reset: Option<Expr>) {
        let r = format!("{}_{name}", self.prefix);
        g.flop(&r, w, reset);
        g.comb
            .push(Stmt::assign(id(format!("{r}_d")), id(format!("{r}_q"))));
        self.loads.push(Stmt::assign(id(format!("{r}_d")), value));
    }
    fn done(self, g: &mut Gen) {
        g.comb.push(Stmt::if_(id("en"), self.loads));
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
}

/// Emits the ICRC pipeline. Reads `s_axis_*` and `en`; drives `dly_tvalid`, `dly_tdata`,
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
    let cap = |p: u32| id("ic_hdr_q").bits(8 * slot(p) + 7, 8 * slot(p));
    let nibble = |p: u32, hi: bool| {
        let lo = 8 * slot(p) + if hi { 4 } else { 0 };
        id("ic_hdr_q").bits(lo + 3, lo)
    };
    let mut unused = Vec::new();

    g.comb.push(Stmt::Comment(
        "ICRC pipeline (CRC-32, reflected polynomial 0xEDB88320): s0 captures the bytes the \
         positions need, s1-s3 find the IP header and the datagram end, s4 masks the beat, \
         s5 computes its data term, s6 runs the CRC register"
            .into(),
    ));
    // ---- s0: the beat taken on s_axis; its frame's position bytes captured
    g.wire_c(
        "ic_take",
        1,
        Expr::and(id("s_axis_tvalid"), id("en")),
        "a beat enters the ICRC pipeline",
    );
    g.flop("ic_beat", bw, Some(Expr::zero(bw)));
    let nbytes = slots.len() as u32;
    g.flop("ic_hdr", 8 * nbytes, None);
    g.comb.push(Stmt::assign(id("ic_beat_d"), id("ic_beat_q")));
    g.comb.push(Stmt::assign(id("ic_hdr_d"), id("ic_hdr_q")));
    let mut caps = Vec::new();
    let last_beat = slots.iter().map(|p| p / w8).max().expect("bytes");
    for b in 0..=last_beat {
        let mut stmts = Vec::new();
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
    let mut s1 = Stage::new("ic1");
    pass_beat(g, &mut s1, None, dw);
    s1.reg(g, "beat", bw, id("ic_beat_q"), None);
    s1.done(g);

    // ---- s1: VLAN tags, IPv6, IHL -> UDP header index; UDP length candidates
    let eq16 = |p: u32, v: u64| Expr::eq(be_cap(&cap, p), n(16, v));
    g.wire("ic1_vlan1", 1, eq16(12, 0x8100));
    g.wire("ic1_vlan2", 1, Expr::and(id("ic1_vlan1"), eq16(16, 0x8100)));
    let by_tags = |a: Expr, b: Expr, c: Expr| {
        Expr::ternary(id("ic1_vlan2"), c, Expr::ternary(id("ic1_vlan1"), b, a))
    };
    g.wire_c(
        "ic1_tags",
        2,
        by_tags(d(2, 0), d(2, 1), d(2, 2)),
        "VLAN tags: the IP header starts at byte 14 + 4 * tags",
    );
    g.wire(
        "ic1_ipv6",
        1,
        by_tags(eq16(12, 0x86DD), eq16(16, 0x86DD), eq16(20, 0x86DD)),
    );
    g.wire(
        "ic1_ihl",
        4,
        by_tags(nibble(14, false), nibble(18, false), nibble(22, false)),
    );
    for p in [14, 18, 22] {
        unused.push(nibble(p, true));
    }
    g.wire_c(
        "ic1_idx",
        5,
        Expr::plus(
            Expr::concat(vec![Expr::zero(3), id("ic1_tags")]),
            Expr::ternary(
                id("ic1_ipv6"),
                d(5, 10),
                Expr::concat(vec![Expr::zero(1), id("ic1_ihl")]),
            ),
        ),
        "the UDP header starts at byte 14 + 4 * idx",
    );
    // Candidate i: the UDP length if the UDP header starts at byte 14 + 4 * i.
    let cand: Vec<Expr> = (0..UDP_IDX)
        .rev()
        .map(|i| be_cap(&cap, udp_start(i) + 4))
        .collect();
    g.wire_c(
        "ic1_len",
        16 * UDP_IDX,
        Expr::concat(cand),
        "candidate i: the UDP length field if the UDP header starts at byte 14 + 4 * i",
    );
    let len_ok: Vec<Expr> = (0..UDP_IDX)
        .rev()
        .map(|i| {
            Expr::bin(
                BinOp::Ge,
                id("ic1_len").bits(16 * i + 15, 16 * i),
                d(16, 24),
            )
        })
        .collect();
    g.wire_c(
        "ic1_len_ok",
        UDP_IDX,
        Expr::concat(len_ok),
        "candidate i has room for UDP, BTH and ICRC",
    );
    let mut s2 = Stage::new("ic2");
    pass_beat(g, &mut s2, Some("ic1"), dw);
    s2.reg(g, "beat", bw, id("ic1_beat_q"), None);
    s2.reg(g, "tags", 2, id("ic1_tags"), None);
    s2.reg(g, "ipv6", 1, id("ic1_ipv6"), None);
    s2.reg(g, "idx", 5, id("ic1_idx"), None);
    s2.reg(g, "len", 16 * UDP_IDX, id("ic1_len"), None);
    s2.reg(g, "len_ok", UDP_IDX, id("ic1_len_ok"), None);
    s2.done(g);

    // ---- s2: UDP length, datagram end
    let idx_in_range = Expr::bin(BinOp::Lt, id("ic2_idx_q"), d(5, u64::from(UDP_IDX)));
    g.wire(
        "ic2_udp_len",
        16,
        id("ic2_len_q").part(Expr::concat(vec![id("ic2_idx_q"), n(4, 0)]), Expr::int(16)),
    );
    g.wire_c(
        "ic2_len_ok",
        1,
        Expr::and(idx_in_range, id("ic2_len_ok_q").index(id("ic2_idx_q"))),
        "UDP + BTH + ICRC fit (else the frame is dropped as truncated)",
    );
    g.wire_c(
        "ic2_len",
        PW,
        Expr::ternary(
            id("ic2_len_ok"),
            Expr::concat(vec![Expr::zero(PW - 16), id("ic2_udp_len")]),
            d(PW, 24),
        ),
        "bytes from the UDP header to the first zeroed byte",
    );
    let udp = |off: u32| {
        Expr::plus(
            Expr::concat(vec![Expr::zero(PW - 7), id("ic2_idx_q"), n(2, 0)]),
            d(PW, u64::from(off)),
        )
    };
    g.wire_c(
        "ic2_pend",
        PW,
        Expr::plus(udp(14), id("ic2_len")),
        "one past the datagram: bytes from here on are zeroed",
    );
    g.wire_c(
        "ic2_plast",
        PW,
        Expr::plus(udp(13), id("ic2_len")),
        "the ICRC's last byte",
    );
    let mut s3 = Stage::new("ic3");
    pass_beat(g, &mut s3, Some("ic2"), dw);
    s3.reg(g, "beat", bw, id("ic2_beat_q"), None);
    s3.reg(g, "tags", 2, id("ic2_tags_q"), None);
    s3.reg(g, "ipv6", 1, id("ic2_ipv6_q"), None);
    s3.reg(g, "idx", 5, id("ic2_idx_q"), None);
    s3.reg(g, "len_ok", 1, id("ic2_len_ok"), None);
    s3.reg(g, "pend", PW, id("ic2_pend"), None);
    s3.reg(g, "plast", PW, id("ic2_plast"), None);
    s3.done(g);

    // ---- s3: where the beat is relative to the datagram end; the residue to expect
    let km = MASK_END.div_ceil(w8);
    let kw = clog2(km + 1);
    g.wire_c(
        "ic3_kk",
        kw,
        Expr::ternary(
            Expr::bin(BinOp::Ge, id("ic3_beat_q"), d(bw, u64::from(km))),
            d(kw, u64::from(km)),
            id("ic3_beat_q").bits(kw - 1, 0),
        ),
        &format!("the beat number, {km} for every beat from byte {MASK_END} on (no masked field)"),
    );
    g.reg("ic3_residue", 32);
    let mut arms = Vec::new();
    for last in 0..w8 {
        let mut s = CRC_RESIDUE;
        for _ in 0..(w8 - 1 - last) {
            s = crc_byte(s, 0);
        }
        arms.push((
            vec![d(lw, u64::from(last))],
            vec![Stmt::assign(id("ic3_residue"), n(32, u64::from(s)))],
        ));
    }
    g.comb.push(Stmt::Comment(
        "CRC residue after the ICRC, advanced over the zeroed lanes after it".into(),
    ));
    g.comb.push(Stmt::Case {
        subject: id("ic3_plast_q").bits(lw - 1, 0),
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
    s4.reg(g, "kk", kw, id("ic3_kk"), None);
    s4.reg(g, "tags", 2, id("ic3_tags_q"), None);
    s4.reg(g, "ipv6", 1, id("ic3_ipv6_q"), None);
    s4.reg(g, "idx", 5, id("ic3_idx_q"), None);
    s4.reg(
        g,
        "hi_all",
        1,
        Expr::lt(id("ic3_beat_q"), id("ic3_pend_q").bits(PW - 1, lw)),
        None,
    );
    s4.reg(
        g,
        "hi_part",
        1,
        Expr::eq(id("ic3_beat_q"), id("ic3_pend_q").bits(PW - 1, lw)),
        None,
    );
    s4.reg(g, "hi_lane", lw, id("ic3_pend_q").bits(lw - 1, 0), None);
    s4.reg(
        g,
        "end_here",
        1,
        Expr::and(
            id("ic3_len_ok_q"),
            Expr::eq(id("ic3_plast_q").bits(PW - 1, lw), id("ic3_beat_q")),
        ),
        None,
    );
    s4.reg(g, "residue", 32, id("ic3_residue"), None);
    s4.done(g);

    // ---- s4: the beat as the ICRC sees it
    for c in 0..=km {
        g.wire(
            &format!("ic4_k{c}"),
            1,
            Expr::eq(id("ic4_kk_q"), d(kw, u64::from(c))),
        );
    }
    for t in 0..3u32 {
        g.wire(
            &format!("ic4_t{t}"),
            1,
            Expr::eq(id("ic4_tags_q"), d(2, u64::from(t))),
        );
    }
    for i in 0..UDP_IDX {
        g.wire(
            &format!("ic4_u{i}"),
            1,
            Expr::eq(id("ic4_idx_q"), d(5, u64::from(i))),
        );
    }
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
    used_k[km as usize] = true;
    let or_all = |v: Vec<Expr>| v.into_iter().reduce(Expr::or).unwrap_or(b1(false));
    for j in 0..w8 {
        let (mut klo, mut ff, mut nib, mut lrh_terms) =
            (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        klo.push(id(format!("ic4_k{km}")));
        for c in 0..km {
            let p = c * w8 + j;
            let kc = id(format!("ic4_k{c}"));
            for t in 0..3 {
                let ip = ip_start(t);
                if p < ip {
                    continue;
                }
                let o = p - ip;
                let ct = Expr::and(kc.clone(), id(format!("ic4_t{t}")));
                used_k[c as usize] = true;
                klo.push(ct.clone());
                if ip4_ff.contains(&o) {
                    ff.push(Expr::and(ct.clone(), Expr::lnot(id("ic4_ipv6_q"))));
                }
                if ip6_ff.contains(&o) {
                    ff.push(Expr::and(ct.clone(), id("ic4_ipv6_q")));
                }
                if o == 0 {
                    nib.push(Expr::and(ct.clone(), id("ic4_ipv6_q")));
                }
                if o < 4 {
                    lrh_terms.push(Expr::band(
                        Expr::repl(Expr::int(8), ct.clone()),
                        n(8, u64::from(lrh[o as usize])),
                    ));
                }
            }
            for i in 0..UDP_IDX {
                let u = udp_start(i);
                if p >= u && udp_ff.contains(&(p - u)) {
                    ff.push(Expr::and(kc.clone(), id(format!("ic4_u{i}"))));
                    used_k[c as usize] = true;
                }
            }
        }
        let bit = |v: &str| id(v).index(Expr::int(i64::from(j)));
        g.assigns.push(V::Assign(bit("ic4_klo"), or_all(klo)));
        // The last lane is kept only when the datagram ends in a later beat.
        let khi = if j + 1 < w8 {
            Expr::or(
                id("ic4_hi_all_q"),
                Expr::and(
                    id("ic4_hi_part_q"),
                    Expr::bin(BinOp::Gt, id("ic4_hi_lane_q"), d(lw, u64::from(j))),
                ),
            )
        } else {
            id("ic4_hi_all_q")
        };
        g.assigns.push(V::Assign(bit("ic4_khi"), khi));
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
            unused.push(id(format!("ic4_k{c}")));
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
    for (name, w) in [("first", 1), ("end_here", 1), ("residue", 32)] {
        s5.reg(g, name, w, id(format!("ic4_{name}_q")), None);
    }
    s5.reg(g, "lane", dw, id("ic4_lane"), None);
    s5.done(g);

    // ---- s5: the data term B * lane
    let data_cols: Vec<u32> = (0..dw)
        .map(|m| {
            let mut bytes = vec![0u8; w8 as usize];
            bytes[(m / 8) as usize] = 1 << (m % 8);
            crc_bytes(0, &bytes)
        })
        .collect();
    g.decls
        .push(V::Decl(Decl::wire("ic5_dterm", Range::bits(32)).comment(
            format!("CRC-32 of the lane from state 0 ({w8} bytes in parallel)"),
        )));
    for out in 0..32 {
        let mut terms = Vec::new();
        for chunk in 0..dw.div_ceil(128) {
            let lo = chunk * 128;
            let hi = (lo + 128).min(dw);
            let mut m = 0u128;
            for bit in lo..hi {
                if data_cols[bit as usize] >> out & 1 == 1 {
                    m |= 1 << (bit - lo);
                }
            }
            if m != 0 {
                terms.push(Expr::un(
                    UnOp::RedXor,
                    Expr::band(id("ic5_lane_q").bits(hi - 1, lo), Expr::num(hi - lo, m)),
                ));
            }
        }
        let e = terms.into_iter().reduce(xor).expect("one term");
        g.assigns
            .push(V::Assign(id("ic5_dterm").index(Expr::int(out)), e));
    }
    let mut s6 = Stage::new("ic6");
    pass_beat(g, &mut s6, Some("ic5"), dw);
    for (name, w) in [("first", 1), ("end_here", 1), ("residue", 32)] {
        s6.reg(g, name, w, id(format!("ic5_{name}_q")), None);
    }
    s6.reg(g, "dterm", 32, id("ic5_dterm"), None);
    s6.done(g);

    // ---- s6: the CRC register, crc = A * crc ^ B * lane, and the residue check
    g.flop("ic_crc", 32, None);
    g.flop("ic_ok", 1, None);
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
                id("ic6_dterm_q").index(Expr::int(out)),
            ),
        ));
    }
    g.wire_c(
        "dly_crc_ok",
        1,
        Expr::ternary(
            id("ic6_end_here_q"),
            Expr::eq(id("ic6_crc"), id("ic6_residue_q")),
            Expr::and(Expr::lnot(id("ic6_first_q")), id("ic_ok_q")),
        ),
        "the ICRC matched (in the beat holding its last byte; kept to the frame's end)",
    );
    g.comb.push(Stmt::assign(id("ic_crc_d"), id("ic_crc_q")));
    g.comb.push(Stmt::assign(id("ic_ok_d"), id("ic_ok_q")));
    g.comb.push(Stmt::if_(
        Expr::and(id("en"), id("ic6_valid_q")),
        vec![
            Stmt::assign(id("ic_crc_d"), id("ic6_crc")),
            Stmt::assign(id("ic_ok_d"), id("dly_crc_ok")),
        ],
    ));
    for (name, w) in [
        ("tvalid", 1),
        ("tdata", dw),
        ("tkeep", w8),
        ("tlast", 1),
        ("tuser", 9),
    ] {
        let src = if name == "tvalid" {
            "ic6_valid_q".to_string()
        } else {
            format!("ic6_{name}_q")
        };
        g.wire(&format!("dly_{name}"), w, id(src));
    }
    unused
}

/// Two captured bytes from frame byte `p`, network order.
fn be_cap(cap: &dyn Fn(u32) -> Expr, p: u32) -> Expr {
    Expr::concat(vec![cap(p), cap(p + 1)])
}
