//! The DCQCN reaction-point engine generator: `register-maps/dcqcn.yaml` in, `dcqcn_rp.v` out.
//!
//! The engine keeps every flow's DCQCN state in one RAM word and runs one shared pipeline over
//! it: take (stage T, an input skid entry, RAM read) → stage M (the RAM's word registered) →
//! read (stage R: the word, the shaper's token accrual) → compute (stage X: catch-up and the
//! event, RAM write) → a two-entry response FIFO. An event
//! per cycle when nothing but foldable periods is due; an event for the flow stage X holds
//! waits one cycle in stage R and then reads the written word from a bypass register (see
//! docs/dcqcn.md). A flow's periodic timers (alpha update every `dce_tcp_rtt` µs, cut check
//! every `rate_reduce_monitor_period` µs, rate increase every `rpg_time_reset` µs after a cut)
//! are kept as per-flow absolute deadlines in microseconds and are *caught up lazily* when an
//! event touches the flow: the engine applies the due periods one per cycle, earliest deadline
//! first (alpha before cut before increase at the same microsecond), exactly as if each period
//! had fired on time. Periods that can no longer change anything but their own deadline (alpha
//! 0 with no CNP pending, no cut pending, a recovered rate) are skipped with a 32-cycle binary
//! jump, so the work per event is bounded however long the flow was idle (see [`CATCH_UP_BOUND`]).
//!
//! Number formats (documented in the generated header too):
//!
//! | quantity | format |
//! |---|---|
//! | Rc, Rt | 28 bits: Mb/s with 8 fractional bits (20 integer bits reach 1,048,575 Mb/s) |
//! | alpha | 25 bits: 24 fractional bits, 1.0 = `0x100_0000` |
//! | tokens | 35 bits: bits with 8 fractional bits (burst bytes × 2048) |
//! | time | 32-bit microsecond counter from a prescaler of `clk_per_us.cycles` clocks |
//!
//! The parameter CSRs are input ports named after the map's fields (`<register>_<field>_i`),
//! so they connect one-to-one to the `_o` ports of `dcqcn_csr`; the statistics counters'
//! `_incr_i` inputs are driven by `<register>_<field>_incr_o` pulses here.

mod top;

pub use top::{generate_top, IN_FLIGHT, TOP};

use rdmagen_regmap::RegMap;
use std::collections::{HashMap, HashSet};
use verilog_ast::{
    BinOp, Decl, Expr, Flop, Item as V, Module, Param, Port, PortItem, Range, ResetStyle, Stmt,
    UnOp,
};

/// Generator settings that are not part of the map.
#[derive(Clone, Debug)]
pub struct Options {
    pub reset: ResetStyle,
    /// Name and version of the generator, written into the file header.
    pub generator: String,
}

/// The module name of the engine.
pub const MODULE: &str = "dcqcn_rp";

/// Cycles of catch-up work per event beyond the state-changing steps: at most three skip
/// phases (one per timer) of 33 cycles each. The state-changing steps are bounded by the
/// parameters: alpha decays to 0 in at most about 11,000 steps (G = 1023), the increase timer
/// reaches its fixed point after at most `rpg_threshold` + 30 + line rate / `rpg_hai_rate`
/// steps, and at most one cut step consumes a pending CNP. Each step may cost one cycle more: a
/// cut, or a PAPER CNP's next action, right after a step waits for the cut's registered rank.
pub const CATCH_UP_BOUND: u32 = 3 * 33;

/// One field of the per-flow state word, least significant first.
pub const STATE_FIELDS: &[(&str, u32)] = &[
    ("seen", 1),
    ("acnp", 1),
    ("dcnp", 1),
    ("incon", 1),
    ("tokv", 1),
    ("npv", 1),
    ("alpha", 25),
    ("rc", 28),
    ("rt", 28),
    ("tc", 16),
    ("bc", 16),
    ("bacc", 24),
    ("a_next", 32),
    ("d_next", 32),
    ("i_next", 32),
    ("tokens", 35),
    ("tok_us", 32),
    ("np_last", 32),
];

/// Event kinds on `s_evt_kind`.
pub const KIND_CNP: u128 = 0;
pub const KIND_TX: u128 = 1;
pub const KIND_CE: u128 = 2;
pub const KIND_READ: u128 = 3;

/// Map fields the engine reads, with the width its arithmetic is built for.
const CONFIG: &[(&str, &str, u32)] = &[
    ("ctrl", "rp_enable", 1),
    ("ctrl", "np_enable", 1),
    ("ctrl", "flow_clear", 1),
    ("mode", "algorithm", 1),
    ("clk_per_us", "cycles", 12),
    ("line_rate", "value", 20),
    ("shaper_burst", "value", 24),
    ("rpg_time_reset", "value", 17),
    ("rpg_byte_reset", "value", 24),
    ("rpg_threshold", "value", 5),
    ("rpg_max_rate", "value", 20),
    ("rpg_ai_rate", "value", 20),
    ("rpg_hai_rate", "value", 20),
    ("rpg_gd", "value", 4),
    ("rpg_min_dec_fac", "value", 7),
    ("rpg_min_rate", "value", 20),
    ("rate_to_set_on_first_cnp", "value", 20),
    ("dce_tcp_g", "value", 10),
    ("dce_tcp_rtt", "value", 17),
    ("rate_reduce_monitor_period", "value", 17),
    ("initial_alpha_value", "value", 10),
    ("clamp_tgt_rate", "enable", 1),
    ("clamp_tgt_rate_after_time_inc", "enable", 1),
    ("min_time_between_cnps", "value", 16),
];

/// Values derived from the parameter inputs alone, registered so that no parameter input
/// starts a path into stage X's arithmetic: `<name>_d` is the wire, `<name>_q` the register.
const DERIVED: &[(&str, u32)] = &[
    ("rmax_fx", 28),
    ("first_lo", 28),
    ("first_rate", 28),
    ("first_zero", 1),
    ("k_period", 17),
    ("d_period", 17),
    ("t_period", 17),
    ("alpha_gain", 11),
    ("gd", 4),
    ("keep_fac", 17),
    ("byte_en", 1),
    ("ai_reach_at", 28),
    ("ai_over_at", 29),
    ("hai_reach_at", 28),
    ("hai_over_at", 29),
    ("ai_zero", 1),
    ("hai_zero", 1),
    ("cap_max", 35),
    ("cap_neg", 29),
    ("k_lag", 18),
    ("d_lag", 18),
    ("t_lag", 18),
    ("n_lag", 18),
    ("amt_lim", 42),
];

/// Status and statistics fields the engine drives.
const STATUS: &[(&str, &str, u32)] = &[
    ("status", "clear_busy", 1),
    ("rp_cnps", "count", 32),
    ("rp_rate_cuts", "count", 32),
    ("np_cnps_sent", "count", 32),
    ("shaper_deferrals", "count", 32),
];

/// Total width of the per-flow state word.
pub fn state_width() -> u32 {
    STATE_FIELDS.iter().map(|(_, w)| w).sum()
}

/// Checks that the map has every field the engine reads or drives, with the widths its
/// arithmetic assumes; an error names the first mismatch.
pub fn check_map(map: &RegMap) -> Result<(), String> {
    for &(reg, field, width) in CONFIG.iter().chain(STATUS) {
        let r = map
            .registers()
            .map(|(_, r)| r)
            .find(|r| r.name.text == reg)
            .ok_or_else(|| format!("{}: the DCQCN engine needs register `{reg}`", map.file))?;
        let f = r
            .fields
            .iter()
            .find(|f| f.name.text == field)
            .ok_or_else(|| format!("{}: the DCQCN engine needs field `{reg}.{field}`", map.file))?;
        if f.width() != width {
            return Err(format!(
                "{}: field `{reg}.{field}` is {} bits; the DCQCN engine is built for {width}",
                map.file,
                f.width()
            ));
        }
    }
    Ok(())
}

fn id(s: &str) -> Expr {
    Expr::id(s)
}
fn d(w: u32, v: u128) -> Expr {
    Expr::dec(w, v)
}
fn b1(v: bool) -> Expr {
    Expr::num(1, u128::from(v))
}
fn add(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Add, a, b)
}
fn sub(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Sub, a, b)
}
fn mul(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Mul, a, b)
}
fn gt(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Gt, a, b)
}
fn ge(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ge, a, b)
}
fn ne(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ne, a, b)
}
fn eq(a: Expr, b: Expr) -> Expr {
    Expr::eq(a, b)
}
fn not(a: Expr) -> Expr {
    Expr::lnot(a)
}
fn and(items: Vec<Expr>) -> Expr {
    Expr::all(items)
}
fn or(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}
fn tern(c: Expr, t: Expr, f: Expr) -> Expr {
    Expr::ternary(c, t, f)
}
/// `{pad'd0, x}`.
fn zext(x: Expr, pad: u32) -> Expr {
    Expr::concat(vec![d(pad, 0), x])
}
/// `{x, pad'd0}`.
fn shl_const(x: Expr, pad: u32) -> Expr {
    Expr::concat(vec![x, d(pad, 0)])
}
/// `name` = `wide * narrow` for a 28-bit `wide` and a `narrow_w`-bit `narrow`, as two products
/// of `wide`'s low 17 and high 11 bits (one DSP each) and one add: wires `<name>_lo`,
/// `<name>_hi` and `<name>`, with `comments`. Yosys splits a 28-bit product into four pieces
/// with two LUT levels of adds.
fn split_product<'c>(
    wires: &mut Vec<(String, u32, Expr, &'c str)>,
    name: &str,
    (wide, narrow, narrow_w): (&str, &str, u32),
    comments: [&'c str; 3],
) {
    let (lo, hi) = (format!("{name}_lo"), format!("{name}_hi"));
    wires.push((
        lo.clone(),
        17 + narrow_w,
        mul(zext(id(wide).bits(16, 0), narrow_w), zext(id(narrow), 17)),
        comments[0],
    ));
    wires.push((
        hi.clone(),
        11 + narrow_w,
        mul(zext(id(wide).bits(27, 17), narrow_w), zext(id(narrow), 11)),
        comments[1],
    ));
    wires.push((
        name.to_owned(),
        28 + narrow_w,
        add(zext(id(&lo), 11), shl_const(id(&hi), 17)),
        comments[2],
    ));
}
/// a + b + c as one carry chain behind one LUT level of carry-save (XOR, majority).
fn sum3(a: Expr, b: Expr, c: Expr) -> Expr {
    let xor = Expr::bin(
        BinOp::BitXor,
        Expr::bin(BinOp::BitXor, a.clone(), b.clone()),
        c.clone(),
    );
    let maj = Expr::bin(
        BinOp::BitOr,
        Expr::bin(
            BinOp::BitOr,
            Expr::bin(BinOp::BitAnd, a.clone(), b.clone()),
            Expr::bin(BinOp::BitAnd, a, c.clone()),
        ),
        Expr::bin(BinOp::BitAnd, b, c),
    );
    add(xor, Expr::bin(BinOp::Shl, maj, Expr::int(1)))
}
fn set(l: &str, r: Expr) -> Stmt {
    Stmt::assign(id(l), r)
}
fn bits(w: u32) -> Option<Range> {
    Range::bits(w)
}
fn cfg(reg: &str, field: &str) -> Expr {
    id(&format!("{reg}_{field}_i"))
}

/// Lowers the dcqcn map to the engine module. The map must pass [`check_map`].
pub fn generate(map: &RegMap, opts: &Options) -> Result<Module, String> {
    check_map(map)?;
    let sw = state_width();
    let reset = opts.reset;

    // ------------------------------------------------------------------ header
    let mut header = vec![
        format!(
            "{MODULE}: DCQCN reaction point, token-bucket shaper and CNP pacer of block `{}`.",
            map.block
        ),
        String::new(),
        format!(
            "Generated by {} from {} (map version {}).",
            opts.generator, map.file, map.version
        ),
        "Do not edit: change the map or the generator and run `make rtl`.".into(),
        String::new(),
    ];
    header.extend(
        [
            "One engine serves 2**FLOW_BITS flows. Each flow's state is one word of state_ram; an",
            "event (CNP, send request, CE-marked arrival, read-back) reads the word, catches the",
            "flow's timers up to now, applies the event, writes the word back and answers on the",
            "response channel, in a pipeline that takes one event per cycle:",
            "  stage T   take the event, read its flow's word (stage R re-reads while it waits)",
            "  stage R   the word (or the one stage X wrote at the reading edge: wb_word_q), with",
            "            the shaper's tokens accrued; waits while stage X holds the same flow",
            "  stage X   two cycles per pass: X1 forms every value from stage X's registers into",
            "            registers (_p), X2 selects: one due period per pass (a skip phase: then",
            "            32 jumps, one per cycle), then the event with at most one alpha period",
            "            and one cut check without a CNP folded in, whose X2 writes the word back",
            "            and pushes the response (2-entry FIFO) while X1 serves the next event",
            "mlx5 mode (the HPCC ns-3 \"Mellanox DCQCN\" model):",
            "  first CNP   alpha = initial_alpha_value; Rc = Rt = rate_to_set_on_first_cnp (or the",
            "              line rate, and then a cut is pending); alpha and cut timers start now",
            "  CNP         marks a CNP for the next alpha update and the next cut check",
            "  every dce_tcp_rtt us    alpha = G*alpha/1024 (+ (1024-G)/1024 if a CNP was marked)",
            "  every rate_reduce_monitor_period us, if a CNP was marked: Rt = Rc when clamping",
            "              applies; Rc -= Rc*alpha >> (rpg_gd+14), kept >= rpg_min_dec_fac % of Rc",
            "              (x 655/65536) and >= rpg_min_rate; stage = 0; increase timer restarts",
            "  every rpg_time_reset us after a cut (tc += 1 after it): both counts < F: Rc =",
            "              (Rc+Rt+1)/2; both > F: Rt += rpg_hai_rate; else Rt += rpg_ai_rate (Rt",
            "              capped at the line rate or rpg_max_rate), then Rc = (Rc+Rt+1)/2",
            "Timers fire in deadline order, alpha before cut before increase in the same",
            "microsecond, and before an event arriving in that microsecond. Periods that change",
            "nothing but their own deadline are skipped by a 32-cycle binary jump.",
            "",
            "Formats: Rc and Rt in Mb/s with 8 fractional bits (28 bits); alpha with 24 fractional",
            "bits (1.0 = 0x1000000); tokens in bits with 8 fractional bits, accrued at Rc (at the",
            "flow's last touch, or the line rate while the flow has seen no CNP or rp_enable is 0)",
            "for up to 2**20 - 1 us per touch and capped at shaper_burst bytes plus one us of",
            "tokens at that rate (tokens arrive in 1 us quanta); time in microseconds (32 bits;",
            "a timer's elapsed time is signed in 33 bits, exact while a flow idles less than",
            "2**32 - 2**17 us, beyond that seen modulo 2**32 us).",
            "Parameters are read in stages R and X: change them while no event is in flight.",
            "Values derived from them alone (rate cap, cap - AI and cap - HAI, AI = 0, HAI = 0,",
            "first-CNP rate and whether it is the cap, initial alpha = 0, periods, 1024 - G,",
            "rpg_gd, fac * 655, byte counter on) are registered (the first-CNP rate and its cap",
            "flag twice, stage X reading them no earlier than two cycles after the take): an",
            "event taken in the cycle a parameter input changes, or later, sees the new value.",
            "Byte counter (both modes; rpg_byte_reset = 0 disables it): while a flow recovers",
            "from a cut, granted send bytes add up; reaching rpg_byte_reset is an increase event",
            "(as above, with the byte count bc) and restarts the sum; a cut clears both counts.",
            "Without it both counts are tc. PAPER mode (mode.algorithm = 1, Zhu et al. 2015): each",
            "CNP cuts at once (the first from the cap with initial_alpha_value): Rt = Rc, Rc -=",
            "Rc*alpha >> (rpg_gd+14) (>= rpg_min_rate), then alpha = G*alpha/1024 + (1024-G)/1024",
            "and the alpha timer, counts and increase timer restart; the alpha timer only decays;",
            "no cut timer. Increase: both counts < F fast recovery; both > F hyper, Rt += (min -",
            "F) * rpg_hai_rate; else additive. Change the mode only with a flow clear.",
        ]
        .map(String::from),
    );

    // ------------------------------------------------------------------- ports
    let flow_range = Some(Range::width(id("FLOW_BITS")));
    let mut ports = vec![
        PortItem::Banner("Clock and reset".into()),
        PortItem::Port(Port::input("clk", None)),
        PortItem::Port(Port::input(reset.port_name(), None).comment(match reset {
            ResetStyle::SyncHigh => "synchronous, active high",
            ResetStyle::AsyncLow => "asynchronous assert, active low",
        })),
        PortItem::Banner("Parameters: the _o ports of dcqcn_csr".into()),
    ];
    for &(reg, field, width) in CONFIG {
        ports.push(PortItem::Port(Port::input(
            format!("{reg}_{field}_i"),
            bits(width),
        )));
    }
    ports.push(PortItem::Banner(
        "Status and statistics: to the _i and _incr_i ports of dcqcn_csr".into(),
    ));
    ports.push(PortItem::Port(
        Port::output("status_clear_busy_o", None).comment("state RAM clear running"),
    ));
    for reg in [
        "rp_cnps",
        "rp_rate_cuts",
        "np_cnps_sent",
        "shaper_deferrals",
    ] {
        ports.push(PortItem::Port(
            Port::output(format!("{reg}_count_incr_o"), None).comment("one-cycle pulse per event"),
        ));
    }
    ports.push(PortItem::Banner(
        "Events in: kind 0 CNP, 1 send request of bytes, 2 CE-marked arrival, 3 read-back".into(),
    ));
    ports.push(PortItem::Port(Port::input("s_evt_valid", None)));
    ports.push(PortItem::Port(Port::output("s_evt_ready", None)));
    ports.push(PortItem::Port(Port::input("s_evt_kind", bits(2))));
    ports.push(PortItem::Port(Port::input(
        "s_evt_flow",
        flow_range.clone(),
    )));
    ports.push(PortItem::Port(
        Port::input("s_evt_bytes", bits(16)).comment("send request size"),
    ));
    ports.push(PortItem::Banner(
        "Responses out: one per event, in order, with the flow's state after it".into(),
    ));
    ports.push(PortItem::Port(Port::output("m_rsp_valid", None)));
    ports.push(PortItem::Port(Port::input("m_rsp_ready", None)));
    ports.push(PortItem::Port(Port::output("m_rsp_kind", bits(2))));
    ports.push(PortItem::Port(Port::output(
        "m_rsp_flow",
        flow_range.clone(),
    )));
    ports.push(PortItem::Port(
        Port::output("m_rsp_flag", None).comment("send granted (kind 1) or send a CNP (kind 2)"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_seen", None).comment("the flow has received a CNP"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_rc", bits(28)).comment("Rc, Mb/s with 8 fractional bits"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_rt", bits(28)).comment("Rt, Mb/s with 8 fractional bits"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_alpha", bits(25)).comment("alpha, 24 fractional bits"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_timer_count", bits(16)).comment("increase events since the last cut"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_time_us", bits(32)).comment("microsecond the event was taken"),
    ));
    ports.push(PortItem::Port(
        Port::output("m_rsp_byte_count", bits(16))
            .comment("byte-counter increase events since the last cut"),
    ));

    // ---------------------------------------------------------------- items
    let mut items = Vec::new();
    items.push(V::Comment(vec![
        "Parameter range checks (simulation and lint only)".into(),
    ]));
    items.push(V::SimInitial(vec![Stmt::param_range_check(
        "FLOW_BITS",
        2,
        16,
    )]));
    items.push(V::Blank);
    let states = [
        ("S_CLEAR", 0, "writing zero state to every flow"),
        ("S_RUN", 1, "the pipeline takes and processes events"),
    ];
    for (name, v, c) in states {
        items.push(V::LocalParam {
            name: name.into(),
            range: Some(Range {
                msb: Expr::int(0),
                lsb: Expr::int(0),
            }),
            value: Expr::num(1, v),
            comment: Some(c.into()),
        });
    }
    for (name, v, c) in [
        ("K_CNP", KIND_CNP, "CNP for this flow (reaction point)"),
        ("K_TX", KIND_TX, "send request (shaper)"),
        ("K_CE", KIND_CE, "CE-marked arrival (notification point)"),
        ("K_READ", KIND_READ, "read-back only"),
    ] {
        items.push(V::LocalParam {
            name: name.into(),
            range: bits(2),
            value: Expr::num(2, v),
            comment: Some(c.into()),
        });
    }
    items.push(V::LocalParam {
        name: "STATE_W".into(),
        range: None,
        value: Expr::int(i64::from(sw)),
        comment: Some("per-flow state word".into()),
    });
    items.push(V::Blank);

    // Registers.
    let regs: &[(&str, u32, &str)] = &[
        ("state", 1, "engine state"),
        ("clear_pend", 1, "a state RAM clear is requested"),
        ("clr_addr", 0, "next flow to clear"),
        ("pre_cnt", 12, "microsecond prescaler"),
        ("now_us", 32, "microseconds since reset"),
        (
            "t_valid",
            1,
            "input skid: an event taken while stage M could not take it",
        ),
        ("t_kind", 2, ""),
        ("t_flow", 0, ""),
        ("t_bytes", 16, ""),
        ("t_now", 32, "microsecond the event was taken"),
        (
            "m_valid",
            1,
            "stage M: an event whose state word the RAM has read",
        ),
        ("m_kind", 2, ""),
        ("m_flow", 0, ""),
        ("m_bytes", 16, ""),
        ("m_now", 32, "microsecond the event was taken"),
        (
            "r_valid",
            1,
            "stage R: an event whose state word is registered (r_word_q)",
        ),
        ("r_kind", 2, ""),
        ("r_flow", 0, ""),
        ("r_bytes", 16, ""),
        ("r_now", 32, "microsecond the event was taken"),
        (
            "x_valid",
            1,
            "stage X: an event being caught up and applied",
        ),
        ("x_skip", 1, "stage X is in a skip phase"),
        ("ev_kind", 2, ""),
        ("ev_flow", 0, ""),
        ("ev_bytes", 16, ""),
        ("ev_now", 32, "microsecond the event was taken"),
        (
            "ev_cnp",
            1,
            "the event is a CNP and rp_enable is set (at the load)",
        ),
        (
            "ev_pcnp",
            1,
            "... and PAPER mode: the CNP cuts with alpha (at the load)",
        ),
        (
            "tk_gain",
            48,
            "the shaper's accrual, formed in stage R: the gain (rate x span)",
        ),
        ("tk_room", 36, "... cap - tokens, negative when the cap dropped below them"),
        ("tk_cap", 35, "... the bucket's cap"),
        ("tk_groom", 36, "... need - tokens"),
        ("tk_cover", 1, "... the cap covers the send"),
        ("tk_new", 1, "... the flow's bucket is new (fills)"),
        (
            "ev_fire",
            1,
            "the event's bytes bring the byte sum to rpg_byte_reset (follows w_bacc_q)",
        ),
        ("skip_a", 1, "jumping the alpha timer"),
        ("skip_d", 1, "jumping the cut timer"),
        ("skip_i", 1, "jumping the increase timer"),
        ("skip_j", 5, "jump of 2**skip_j periods tried this cycle"),
        (
            "a_jump",
            48,
            "the alpha timer's jump this cycle: its period << skip_j",
        ),
        ("d_jump", 48, "the cut timer's"),
        ("i_jump", 48, "the increase timer's"),
        ("tc_jump", 32, "periods in i_jump: 1 << skip_j"),
        (
            "a_el",
            33,
            "ev_now_q - w_a_next_q (signed, EL_W), kept with the deadline",
        ),
        (
            "a_once",
            1,
            "a_el_q < the alpha period (unsigned): at most one period due",
        ),
        ("a_due", 1, "the alpha timer is due (kept with a_el_q)"),
        ("d_due", 1, "the cut timer is due"),
        ("i_due", 1, "the increase timer is due"),
        ("d_once", 1, "d_el_q < the cut period"),
        (
            "rc_near",
            1,
            "w_rc_q - w_rt_q is 0 or 1 (where increases leave Rc), kept with them",
        ),
        (
            "hai_capped",
            1,
            "w_rt_q + rpg_hai_rate passes the cap (rt_hai_capped), kept with Rt",
        ),
        (
            "ai_capped",
            1,
            "w_rt_q + rpg_ai_rate passes the cap (rt_ai_capped), kept with Rt",
        ),
        ("i_once", 1, "i_el_q < the increase period"),
        ("tc_lt_f", 1, "w_tc_q < rpg_threshold, kept with the count"),
        ("tc_gt_f", 1, "w_tc_q > rpg_threshold"),
        ("bc_lt_f", 1, "w_bc_q < rpg_threshold"),
        ("bc_gt_f", 1, "w_bc_q > rpg_threshold"),
        (
            "bc_lt_tc",
            1,
            "w_bc_q < w_tc_q, kept with the counts (PAPER's smaller count)",
        ),
        ("d_el", 33, "ev_now_q - w_d_next_q"),
        ("i_el", 33, "ev_now_q - w_i_next_q"),
        (
            "cut_rc",
            28,
            "Rc before a cut: w_rc_q, or the cap while the flow has seen no CNP",
        ),
        (
            "alpha_in",
            25,
            "alpha a period or cut reads: w_alpha_q, or initial_alpha_value for PAPER's first CNP",
        ),
        (
            "cut_kv",
            28,
            "the cut's rank (CUT_RANK): rpg_min_dec_fac % of cut_rc_q",
        ),
        (
            "cut_amount",
            28,
            "... cut_rc_q * alpha_in_q >> (rpg_gd + 14), low 28 bits",
        ),
        ("cut_amt_hi", 1, "... the amount's higher bits are not all 0"),
        ("cut_room_k", 30, "... Rc - cut_kv (two's complement)"),
        ("cut_room_m", 30, "... Rc - rpg_min_rate (two's complement)"),
        ("cut_m_k", 1, "... rpg_min_rate > cut_kv"),
        ("cut_k_c", 1, "... cut_kv > Rc"),
        ("cut_m_c", 1, "... rpg_min_rate > Rc"),
        (
            "x_fresh",
            1,
            "stage X's registered values (_p) are formed from its registers as they are: stage X acts",
        ),
        (
            "hz_ev",
            1,
            "ev_flow_q == r_flow_q, formed from their next values (r_hazard)",
        ),
        (
            "hz_evp",
            1,
            "ev_flow_p == r_flow_q, formed from their next values (r_hazard)",
        ),
        (
            "m_bypass",
            1,
            "stage X wrote stage M's flow at the edge that read it",
        ),
        (
            "r_fwd",
            1,
            "stage X wrote stage R's flow at the edge that loaded r_word_q",
        ),
        ("rsp_valid", 1, "response FIFO head (the output register)"),
        ("rsp_kind", 2, ""),
        ("rsp_flow", 0, ""),
        ("rsp_flag", 1, ""),
        ("rsp_seen", 1, ""),
        ("rsp_rc", 28, ""),
        ("rsp_rt", 28, ""),
        ("rsp_alpha", 25, ""),
        ("rsp_tc", 16, ""),
        ("rsp_time", 32, ""),
        ("rsp_bc", 16, ""),
        ("sk_valid", 1, "response FIFO second entry (full when set)"),
        ("sk_kind", 2, ""),
        ("sk_flow", 0, ""),
        ("sk_flag", 1, ""),
        ("sk_seen", 1, ""),
        ("sk_rc", 28, ""),
        ("sk_rt", 28, ""),
        ("sk_alpha", 25, ""),
        ("sk_tc", 16, ""),
        ("sk_time", 32, ""),
        ("sk_bc", 16, ""),
        ("stat_cnp", 1, "statistics pulses"),
        ("stat_cut", 1, ""),
        ("stat_np", 1, ""),
        ("stat_defer", 1, ""),
        (
            "alpha_zero",
            1,
            "stage X's alpha is 0 (follows w_alpha_q; not in the RAM)",
        ),
        (
            "rt_at_cap",
            1,
            "stage X's Rt equals the cap (follows w_rt_q; not in the RAM)",
        ),
    ];
    items.push(V::Comment(vec!["Control and response registers".into()]));
    let reg_range = |w: u32| if w == 0 { flow_range.clone() } else { bits(w) };
    for (name, w, c) in regs {
        for suffix in ["_q", "_d"] {
            let mut decl = Decl::reg(format!("{name}{suffix}"), reg_range(*w));
            if suffix == "_q" && !c.is_empty() {
                decl = decl.comment(*c);
            }
            items.push(V::Decl(decl));
        }
    }
    for (name, comment) in [
        ("wb_word", "the word written"),
        ("r_word", "stage R's word (stage M's, registered)"),
    ] {
        for suffix in ["_q", "_d"] {
            let mut decl = Decl::reg(format!("{name}{suffix}"), Some(Range::width(id("STATE_W"))));
            if suffix == "_q" {
                decl = decl.comment(comment);
            }
            items.push(V::Decl(decl));
        }
    }
    items.push(V::Comment(vec![
        "Values derived from the parameter inputs, registered (the next cycle's stages R and X"
            .into(),
        "read them: an event taken in the cycle a parameter changes, or later, sees it)".into(),
    ]));
    for &(name, w) in DERIVED {
        items.push(V::Decl(Decl::reg(format!("{name}_q"), bits(w))));
    }
    items.push(V::Blank);
    items.push(V::Comment(vec![
        "Stage X's copy of the flow's state word (fields of state_ram, least significant first)"
            .into(),
    ]));
    for &(f, w) in STATE_FIELDS {
        items.push(V::Decl(Decl::reg(format!("w_{f}_q"), bits(w))));
        items.push(V::Decl(Decl::reg(format!("w_{f}_d"), bits(w))));
    }
    items.push(V::Blank);
    items.push(V::Comment(vec![
        "Per-flow state RAM: no reset, cleared by the S_CLEAR sequence (after reset and on".into(),
        "ctrl.flow_clear). An all-zero word is a flow that has seen no CNP.".into(),
    ]));
    let mut ram = Decl::reg("state_ram", Some(Range::width(id("STATE_W"))));
    ram.array = Some(Box::new(Range {
        msb: Expr::int(0),
        lsb: sub(
            Expr::bin(BinOp::Shl, Expr::int(1), id("FLOW_BITS")),
            Expr::int(1),
        ),
    }));
    items.push(V::Decl(ram));
    items.push(V::Decl(Decl::reg(
        "ram_rdata_q",
        Some(Range::width(id("STATE_W"))),
    )));
    items.push(V::Decl(Decl::reg("ram_raddr", flow_range.clone())));
    items.push(V::Decl(Decl::reg("ram_we", None)));
    items.push(V::Decl(Decl::reg("ram_waddr", flow_range.clone())));
    items.push(V::Decl(Decl::reg(
        "ram_wdata",
        Some(Range::width(id("STATE_W"))),
    )));
    items.push(V::Decl(
        Decl::reg("rsp_push", None).comment("stage X answers an event this cycle"),
    ));
    items.push(V::Decl(Decl::reg("rsp_new_flag", None)));
    // X2's apply forms the word it writes back in variables of its own: stage X's registers
    // (w_*_q) hold the next event by then, and change only when X2 steps their own event.
    for &(f, w) in STATE_FIELDS {
        let mut decl = Decl::reg(format!("wr_{f}"), bits(w));
        if f == STATE_FIELDS[0].0 {
            decl = decl.comment("the word X2 writes back on an apply (field by field)");
        }
        items.push(V::Decl(decl));
    }
    items.push(V::Decl(
        Decl::reg("rsp_rc_new", bits(28)).comment("the response's Rc (the cap before a CNP)"),
    ));
    items.push(V::Decl(
        Decl::reg("rsp_rt_new", bits(28)).comment("... and Rt"),
    ));
    items.push(V::Blank);

    // Stage M's word: the RAM's, or the write the RAM read at the same edge missed; stage
    // R's: the register, or a write stage X made since it was loaded.
    items.push(V::Comment(vec![
        "Stage M's state word: the RAM's, unless stage X wrote this flow at the edge that read"
            .into(),
        "it (the RAM returns the old word then); registered into r_word_q, so no RAM output".into(),
        "select is in front of stage R's logic. Stage R's word: r_word_q, or wb_word_q when".into(),
        "stage X wrote the flow at the edge that loaded it or while R waited (see r_hazard)."
            .into(),
    ]));
    for name in ["m_word", "r_word"] {
        items.push(V::Decl(Decl::wire(name, Some(Range::width(id("STATE_W"))))));
    }
    items.push(V::Assign(
        id("m_word"),
        tern(id("m_bypass_q"), id("wb_word_q"), id("ram_rdata_q")),
    ));
    items.push(V::Assign(
        id("r_word"),
        tern(id("r_fwd_q"), id("wb_word_q"), id("r_word_q")),
    ));
    let mut lsb = 0;
    let mut rd_assigns = Vec::new();
    for &(f, w) in STATE_FIELDS {
        items.push(V::Decl(Decl::wire(format!("rd_{f}"), bits(w))));
        rd_assigns.push(V::Assign(
            id(&format!("rd_{f}")),
            id("r_word").bits(lsb + w - 1, lsb),
        ));
        lsb += w;
    }
    items.extend(rd_assigns);
    items.push(V::Blank);

    // Combinational datapath, as named wires.
    let mut wires: Vec<(String, u32, Expr, &str)> = Vec::new();
    let rc = || id("w_rc_q");
    let rt = || id("w_rt_q");
    let tc = || id("w_tc_q");
    let now = || id("ev_now_q");
    wires.push((
        "rmax_rate".into(),
        20,
        tern(
            and(vec![
                ne(cfg("rpg_max_rate", "value"), d(20, 0)),
                Expr::lt(cfg("rpg_max_rate", "value"), cfg("line_rate", "value")),
            ]),
            cfg("rpg_max_rate", "value"),
            cfg("line_rate", "value"),
        ),
        "rate cap, Mb/s: rpg_max_rate, or the line rate when that is 0 or above it",
    ));
    wires.push((
        "rmax_fx_d".into(),
        28,
        shl_const(id("rmax_rate"), 8),
        "registered: rmax_fx_q",
    ));
    wires.push((
        "cap_neg_d".into(),
        29,
        sub(d(29, 0), zext(id("rmax_fx_q"), 1)),
        "minus the cap (registered: cap_neg_q)",
    ));
    wires.push((
        "min_fx".into(),
        28,
        shl_const(cfg("rpg_min_rate", "value"), 8),
        "",
    ));
    wires.push((
        "first_fx".into(),
        28,
        shl_const(cfg("rate_to_set_on_first_cnp", "value"), 8),
        "",
    ));
    for (name, reg) in [
        ("k_period", "dce_tcp_rtt"),
        ("d_period", "rate_reduce_monitor_period"),
        ("t_period", "rpg_time_reset"),
    ] {
        wires.push((
            format!("{name}_d"),
            17,
            tern(eq(cfg(reg, "value"), d(17, 0)), d(17, 1), cfg(reg, "value")),
            "period in us; 0 acts as 1 (registered: _q)",
        ));
        wires.push((
            format!("{}_d", name.replace("period", "lag")),
            18,
            sub(d(18, 1), zext(id(&format!("{name}_d")), 1)),
            "1 - the period, 18-bit two's complement (registered: _q): stage R's lag sum",
        ));
    }
    // Timers: the elapsed time since each deadline is a register kept with the deadline, so
    // the due tests read a sign bit. It is signed, one bit wider than the 32-bit time: a
    // deadline lies at most a period (17 bits) ahead of now, so a 32-bit difference within a
    // period of wrapping is a deadline ahead and any other one is in the past, up to
    // 2**32 - 2**17 us (read as a 32-bit signed difference, a flow idle for 2**31 us or more
    // saw its deadlines ahead and its timers stood still until the clock wrapped past them).
    for x in ["a", "d", "i"] {
        let per = || zext(id(timer_period(x)), EL_W - 17);
        // now - deadline with its borrow (now < deadline), and the window test as the carry
        // of a second sum in parallel (now + ~deadline + 2**17, 34 bits: bit 33 set, or bit 32
        // with the borrow, when the deadline is 1 .. 2**17 - 1 us ahead), so the sign is one
        // LUT behind two carry chains rather than a 15-bit AND after the difference.
        let now34 = || zext(id("r_now_q"), 2);
        let ndl34 = || zext(Expr::bitnot(id(&format!("rd_{x}_next"))), 2);
        wires.push((
            format!("rd_{x}_diff"),
            33,
            sub(zext(id("r_now_q"), 1), zext(id(&format!("rd_{x}_next")), 1)),
            "stage R: now minus the deadline, modulo 2**32, and the borrow",
        ));
        wires.push((
            format!("rd_{x}_win"),
            34,
            sum3(now34(), ndl34(), d(34, 1 << 17)),
            "stage R: now + ~deadline + 2**17",
        ));
        wires.push((
            format!("rd_{x}_lag"),
            34,
            {
                let lag = timer_period(x).replace("period", "lag");
                sum3(
                    now34(),
                    ndl34(),
                    Expr::concat(vec![
                        Expr::repl(Expr::int(16), id(&lag).bits(17, 17)),
                        id(&lag),
                    ]),
                )
            },
            "stage R: now - deadline - the period + 2**32 (modulo 2**34)",
        ));
        let diff = || id(&format!("rd_{x}_diff"));
        let win = || id(&format!("rd_{x}_win"));
        wires.push((
            format!("rd_{x}_sign"),
            1,
            or(
                win().bits(33, 33),
                and(vec![win().bits(32, 32), diff().bits(32, 32)]),
            ),
            "stage R: the deadline is 1 .. 2**17 - 1 us ahead",
        ));
        wires.push((
            format!("rd_{x}_el"),
            EL_W,
            Expr::concat(vec![id(&format!("rd_{x}_sign")), diff().bits(31, 0)]),
            "stage R: signed, negative when the deadline is 1 .. 2**17 - 1 us ahead (loads the \
             _el_q register)",
        ));
        let el_q = id(&format!("{x}_el_q"));
        let jump = zext(id(&format!("{x}_jump_q")).bits(31, 0), EL_W - 32);
        for (how, el, comment) in [
            ("step", sub(el_q.clone(), per()), "after a period"),
            ("jump", sub(el_q, jump), "after the skip's jump"),
        ] {
            wires.push((format!("{x}_el_{how}"), EL_W, el, comment));
        }
    }
    wires.push((
        "i_el_cut".into(),
        EL_W,
        sub(id("d_el_q"), zext(id("t_period_q"), EL_W - 17)),
        "i_el_q when a cut restarts the increase timer",
    ));
    for x in ["a", "d", "i"] {
        let hows: &[&str] = if x == "i" {
            &["rd", "step", "jump", "cut"]
        } else {
            &["rd", "step", "jump"]
        };
        for &how in hows {
            let el = if how == "rd" {
                format!("rd_{x}_el")
            } else {
                format!("{x}_el_{how}")
            };
            let name = if how == "rd" {
                format!("rd_{x}_once")
            } else {
                format!("{x}_once_{how}")
            };
            // Stage R's from the lag sum, in parallel with the difference: less than a period
            // elapsed when the sum is below 2**32 (no borrow) or negative (a borrow).
            let once = if how == "rd" {
                let lag = || id(&format!("rd_{x}_lag"));
                and(vec![
                    not(id(&format!("rd_{x}_sign"))),
                    tern(
                        id(&format!("rd_{x}_diff")).bits(32, 32),
                        lag().bits(33, 33),
                        not(or(lag().bits(33, 33), lag().bits(32, 32))),
                    ),
                ])
            } else if how == "step" {
                // Read only when the timer is due (its elapsed time not negative): the step
                // leaves less than a period when elapsed - period is not negative (that
                // difference's sign) and elapsed - 2 * period is, the latter one three-input
                // sum with the registered 1 - period rather than a compare behind the step.
                let lag = timer_period(x).replace("period", "lag");
                let w = format!("{x}_step_lag");
                wires.push((
                    w.clone(),
                    34,
                    sum3(
                        zext(id(&format!("{x}_el_q")), 1),
                        Expr::concat(vec![
                            Expr::repl(Expr::int(16), id(&lag).bits(17, 17)),
                            id(&lag),
                        ]),
                        Expr::bitnot(zext(id(timer_period(x)), 17)),
                    ),
                    "elapsed - 2 * period (34 bits)",
                ));
                and(vec![
                    not(id(&el).bits(EL_W - 1, EL_W - 1)),
                    id(&w).bits(33, 33),
                ])
            } else if how == "jump" {
                // A jump applies only when it fits (jump <= elapsed time): elapsed - jump -
                // period is negative, as one three-input sum with the registered 1 - period.
                let lag = timer_period(x).replace("period", "lag");
                let s = sum3(
                    zext(id(&format!("{x}_el_q")), 1),
                    Expr::bitnot(zext(id(&format!("{x}_jump_q")).bits(31, 0), 2)),
                    Expr::concat(vec![
                        Expr::repl(Expr::int(16), id(&lag).bits(17, 17)),
                        id(&lag),
                    ]),
                );
                let w = format!("{x}_jump_lag");
                wires.push((w.clone(), 34, s, "elapsed - jump - period (34 bits)"));
                id(&w).bits(33, 33)
            } else {
                // A cut restarts the increase timer from the cut's deadline: i_el_cut =
                // d_el - period leaves less than a period when it is not negative and
                // d_el - 2 * period is, as the step's (one three-input sum beside the
                // difference, not a compare behind it).
                let w = "i_cut_lag".to_string();
                wires.push((
                    w.clone(),
                    34,
                    sum3(
                        zext(id("d_el_q"), 1),
                        Expr::concat(vec![
                            Expr::repl(Expr::int(16), id("t_lag_q").bits(17, 17)),
                            id("t_lag_q"),
                        ]),
                        Expr::bitnot(zext(id(timer_period(x)), 17)),
                    ),
                    "d_el - 2 * the increase period (34 bits)",
                ));
                and(vec![
                    not(id(&el).bits(EL_W - 1, EL_W - 1)),
                    id(&w).bits(33, 33),
                ])
            };
            wires.push((name, 1, once, "less than a period elapsed"));
        }
    }
    wires.push((
        "paper".into(),
        1,
        cfg("mode", "algorithm"),
        "PAPER mode: CNPs cut at once, no cut timer",
    ));
    // Whether each timer is due is a register too (a_due_q, ...), set with the elapsed time:
    // a timer runs while the flow has seen a CNP (the cut timer in mlx5 mode only, the
    // increase timer while the rate recovers), and is due once its deadline is reached.
    wires.push((
        "rd_a_due".into(),
        1,
        and(vec![
            id("rd_seen"),
            not(id("rd_a_el").bits(EL_W - 1, EL_W - 1)),
        ]),
        "stage R's word: deadline reached",
    ));
    wires.push((
        "rd_d_due".into(),
        1,
        and(vec![
            id("rd_seen"),
            not(id("paper")),
            not(id("rd_d_el").bits(EL_W - 1, EL_W - 1)),
        ]),
        "",
    ));
    wires.push((
        "rd_i_due".into(),
        1,
        and(vec![
            id("rd_seen"),
            id("rd_incon"),
            not(id("rd_i_el").bits(EL_W - 1, EL_W - 1)),
        ]),
        "",
    ));
    // Deadline order. It matters only between two due timers, whose elapsed times are both
    // non-negative: the earlier deadline is the larger elapsed time, a compare of two
    // registers (a carry chain; ties to the first).
    let le = |a: &str, b: &str| ge(id(&format!("{a}_el_q")), id(&format!("{b}_el_q")));
    wires.push((
        "pick_a".into(),
        1,
        and(vec![
            id("a_due_q"),
            or(not(id("d_due_q")), le("a", "d")),
            or(not(id("i_due_q")), le("a", "i")),
        ]),
        "earliest due period: alpha",
    ));
    wires.push((
        "pick_d".into(),
        1,
        and(vec![
            not(id("pick_a")),
            id("d_due_q"),
            or(not(id("i_due_q")), le("d", "i")),
        ]),
        "cut check",
    ));
    // Alpha.
    wires.push((
        "alpha_init".into(),
        25,
        zext(shl_const(cfg("initial_alpha_value", "value"), 14), 1),
        "initial_alpha_value / 1024",
    ));
    wires.push((
        "alpha_prod".into(),
        35,
        mul(
            zext(cfg("dce_tcp_g", "value"), 25),
            zext(id("alpha_in_q"), 10),
        ),
        "G * alpha",
    ));
    wires.push((
        "alpha_gain_d".into(),
        11,
        sub(d(11, 1024), zext(cfg("dce_tcp_g", "value"), 1)),
        "1024 - G (registered: alpha_gain_q)",
    ));
    wires.push((
        "alpha_step".into(),
        25,
        add(
            id("alpha_prod").bits(34, 10),
            tern(id("w_acnp_q"), shl_const(id("alpha_gain_q"), 14), d(25, 0)),
        ),
        "alpha after one period",
    ));
    wires.push((
        "alpha_cnp".into(),
        25,
        add(
            id("alpha_prod").bits(34, 10),
            shl_const(id("alpha_gain_q"), 14),
        ),
        "alpha after a PAPER CNP",
    ));
    // Cut.
    wires.push((
        "clamp".into(),
        1,
        or(
            cfg("clamp_tgt_rate", "enable"),
            and(vec![
                cfg("clamp_tgt_rate_after_time_inc", "enable"),
                ne(tc(), d(16, 0)),
            ]),
        ),
        "Rt = Rc on this cut",
    ));
    wires.push(("gd_d".into(), 4, cfg("rpg_gd", "value"), "registered: gd_q"));
    wires.push((
        "amt_lim_d".into(),
        42,
        sub(
            d(42, 0),
            Expr::bin(BinOp::Shl, d(42, 1 << 25), cfg("rpg_gd", "value")),
        ),
        "-(2**(25 + rpg_gd)), 42-bit two's complement (registered: amt_lim_q): the cut amount's \
         2**28 bound on the product's bits 52:17",
    ));
    // The shift by rpg_gd as two 4-way selects (by its low and high bit pairs): one LUT
    // level each.
    let by_pair = |x: &str, sel: Expr, step: i64| {
        let sh = |k: i64| {
            if k == 0 {
                id(x)
            } else {
                Expr::bin(BinOp::Shr, id(x), Expr::int(k * step))
            }
        };
        tern(
            eq(sel.clone(), Expr::num(2, 0)),
            sh(0),
            tern(
                eq(sel.clone(), Expr::num(2, 1)),
                sh(1),
                tern(eq(sel, Expr::num(2, 2)), sh(2), sh(3)),
            ),
        )
    };
    // The cut's rank (CUT_RANK): rpg_min_dec_fac % of Rc, Rc minus the amount Rc * alpha >>
    // (rpg_gd + 14) and the compares of the bounds, registered, so that the cut's selects
    // start from registers, not behind the product's add, the shift and the compares. Formed
    // in X1 from stage X's registers ("x_") in every cycle and read by X2 (since s37; the
    // load's "ld_" values below only load cut_rc_q and alpha_in_q).
    wires.push((
        "ld_cut_rc".into(),
        28,
        tern(id("rd_seen"), id("rd_rc"), id("rmax_fx_q")),
        "stage R: Rc before a cut (loads cut_rc_q)",
    ));
    wires.push((
        "ld_alpha_in".into(),
        25,
        tern(
            and(vec![id("paper"), not(id("rd_seen"))]),
            id("alpha_init"),
            id("rd_alpha"),
        ),
        "stage R: the alpha a period or cut reads (loads alpha_in_q)",
    ));
    for (side, rc_in, alpha_in, rc_keep) in [("x", "cut_rc_q", "alpha_in_q", "w_rc_q")] {
        // Rc * alpha from Rc's low 17 and high 11 bits, one DSP each (25 x 17 and 25 x 11).
        split_product(
            &mut wires,
            &format!("{side}_cut_prod"),
            (rc_in, alpha_in, 25),
            ["alpha * Rc[16:0]", "alpha * Rc[27:17]", "Rc * alpha"],
        );
        wires.push((
            format!("{side}_cut_scaled"),
            39,
            id(&format!("{side}_cut_prod")).bits(52, 14),
            "Rc * alpha >> 14",
        ));
        wires.push((
            format!("{side}_cut_sh1"),
            39,
            by_pair(&format!("{side}_cut_scaled"), id("gd_q").bits(1, 0), 1),
            "... >> rpg_gd[1:0]",
        ));
        wires.push((
            format!("{side}_cut_amount"),
            39,
            by_pair(&format!("{side}_cut_sh1"), id("gd_q").bits(3, 2), 4),
            "Rc * alpha >> (rpg_gd + 14)",
        ));
        split_product(
            &mut wires,
            &format!("{side}_keep_prod"),
            (rc_keep, "keep_fac_q", 17),
            [
                "fac * 655 * Rc[16:0]",
                "fac * 655 * Rc[27:17]",
                "Rc * fac * 655",
            ],
        );
        wires.push((
            format!("{side}_cut_kv"),
            29,
            id(&format!("{side}_keep_prod")).bits(44, 16),
            "at least rpg_min_dec_fac % of Rc (mlx5 only: keep_fac_q is 0 in PAPER mode)",
        ));
        wires.push((
            format!("{side}_cut_room_k"),
            30,
            sub(zext(id(rc_in), 2), zext(id(&format!("{side}_cut_kv")), 1)),
            "Rc - cut_kv (two's complement)",
        ));
        wires.push((
            format!("{side}_cut_room_m"),
            30,
            sub(zext(id(rc_in), 2), zext(id("min_fx"), 2)),
            "Rc - rpg_min_rate (two's complement)",
        ));
        // Rc after the cut: min(max(cut_kv, cut_rate, min_fx), cut_rc), every comparison in
        // parallel rather than one after the other. A bound is above cut_rate = max(Rc -
        // amount, 0) when the amount is above Rc - bound: that difference is taken while the
        // product forms, so only one compare follows the shift. (A bound of 0 passes the test
        // only when cut_rate is 0 too, so the pick's value is the same.) cut_rate is never
        // above Rc.
        // The rank's compares of the products as three-input sums of the DSPs' outputs (one
        // carry chain each), not behind the products' adds and the shift. The amount is 2**28
        // or more when the product is 2**(42 + rpg_gd) or more: its bits 52:17 (the high
        // product plus the low one's bits 41:17) less 2**(25 + rpg_gd) are not negative.
        let prod = |n: &str| id(&format!("{side}_{n}"));
        wires.push((
            format!("{side}_cut_amt_sum"),
            42,
            sum3(
                zext(prod("cut_prod_hi"), 6),
                zext(prod("cut_prod_lo").bits(41, 17), 17),
                id("amt_lim_q"),
            ),
            "Rc * alpha >> 17, less 2**(25 + rpg_gd)",
        ));
        wires.push((
            format!("{side}_cut_amt_hi"),
            1,
            not(id(&format!("{side}_cut_amt_sum")).bits(41, 41)),
            "the cut amount is 2**28 or more (above any Rc)",
        ));
        // With P = Rc * fac * 655 (kv = P >> 16): min_fx > kv when min_fx * 2**16 - P - 1 =
        // {min_fx, 16'h0001} + ~P_lo + ~(P_hi << 17) is not negative, and kv > Rc when
        // P - (Rc + 1) * 2**16 = P_lo + (P_hi << 17) + ~{Rc, 16'hffff} is not negative (47
        // bits, two's complement).
        let klo = || zext(prod("keep_prod_lo"), 13);
        let khi = || zext(shl_const(prod("keep_prod_hi"), 17), 2);
        wires.push((
            format!("{side}_cut_m_k_sum"),
            47,
            sum3(
                zext(Expr::concat(vec![id("min_fx"), Expr::num(16, 1)]), 3),
                Expr::bitnot(klo()),
                Expr::bitnot(khi()),
            ),
            "min_fx * 2**16 - Rc * fac * 655 - 1",
        ));
        wires.push((
            format!("{side}_cut_k_c_sum"),
            47,
            sum3(
                klo(),
                khi(),
                Expr::bitnot(zext(
                    Expr::concat(vec![id(rc_in), Expr::num(16, 0xffff)]),
                    3,
                )),
            ),
            "Rc * fac * 655 - (Rc + 1) * 2**16",
        ));
        for n in ["m_k", "k_c"] {
            wires.push((
                format!("{side}_cut_{n}"),
                1,
                not(id(&format!("{side}_cut_{n}_sum")).bits(46, 46)),
                "",
            ));
        }
        wires.push((
            format!("{side}_cut_m_c"),
            1,
            gt(zext(id("min_fx"), 1), zext(id(rc_in), 1)),
            "",
        ));
    }
    for (n, w) in CUT_RANK {
        wires.push((
            format!("cut_{n}"),
            *w,
            id(&format!("cut_{n}_q")),
            "the cut's rank",
        ));
    }
    // X2's part of the cut: Rc minus the registered amount and the amount's compares with the
    // registered rooms, one carry chain each behind the rank's registers (formed in X1 they
    // followed the products' add and the shift in the same cycle).
    wires.push((
        "cut_diff_full".into(),
        29,
        sub(zext(id("cut_rc_q"), 1), zext(id("cut_amount"), 1)),
        "Rc - the cut amount",
    ));
    wires.push(("cut_diff".into(), 28, id("cut_diff_full").bits(27, 0), ""));
    wires.push((
        "cut_under".into(),
        1,
        or(id("cut_amt_hi"), id("cut_diff_full").bits(28, 28)),
        "the cut amount exceeds Rc",
    ));
    for (n, room) in [("k_r", "cut_room_k"), ("m_r", "cut_room_m")] {
        wires.push((
            format!("cut_{n}"),
            1,
            or(
                or(id(room).bits(29, 29), id("cut_amt_hi")),
                gt(zext(id("cut_amount"), 1), id(room).bits(28, 0)),
            ),
            "the bound is above Rc - the cut amount",
        ));
    }
    wires.push((
        "keep_fac_d".into(),
        17,
        tern(
            id("paper"),
            d(17, 0),
            mul(zext(cfg("rpg_min_dec_fac", "value"), 10), d(17, 655)),
        ),
        "fac * 655 (655/65536 ~ 1/100), 0 in PAPER mode (registered: keep_fac_q)",
    ));
    // Rc after the cut: the largest of cut_kv, Rc - amount (0 below 0) and min_fx, or Rc when
    // that is above Rc. The values for the two bounds (cut_at_k when cut_kv is above Rc -
    // amount, cut_at_m when min_fx is) are selected from the rank's registers while X2's
    // compares run, so the compares' results (cut_k_r, cut_m_r, cut_under) and Rc - amount
    // meet in one flat select.
    wires.push((
        "cut_at_m".into(),
        28,
        tern(id("cut_m_c"), id("cut_rc_q"), id("min_fx")),
        "Rc after the cut when min_fx is the largest bound",
    ));
    wires.push((
        "cut_at_k".into(),
        28,
        tern(
            id("cut_m_k"),
            id("cut_at_m"),
            tern(id("cut_k_c"), id("cut_rc_q"), id("cut_kv").bits(27, 0)),
        ),
        "... when the larger of cut_kv and min_fx is above Rc - amount",
    ));
    wires.push((
        "cut_new".into(),
        28,
        tern(
            id("cut_k_r"),
            id("cut_at_k"),
            tern(
                id("cut_m_r"),
                id("cut_at_m"),
                tern(id("cut_under"), d(28, 0), id("cut_diff").bits(27, 0)),
            ),
        ),
        "Rc after the cut: max(rpg_min_dec_fac % of Rc, Rc - amount, rpg_min_rate), never above Rc",
    ));
    // Increase. The cap compares Rt with a registered cap - step (in parallel with the
    // sum), the stage flags compare each count with F (in parallel, no max/min first), and
    // Rc + Rt is summed for every candidate Rt while the flags settle (a select, not an
    // adder, follows them).
    for (name, step) in [("rt_ai", "rpg_ai_rate"), ("rt_hai", "rpg_hai_rate")] {
        let sum = format!("{name}_sum");
        let room = format!("{}_room", &name[3..]);
        wires.push((
            sum.clone(),
            28,
            add(rt(), shl_const(cfg(step, "value"), 8)),
            "",
        ));
        wires.push((
            room.clone(),
            29,
            sub(
                zext(id("rmax_fx_q"), 1),
                zext(shl_const(cfg(step, "value"), 8), 1),
            ),
            "cap - step, negative when the step passes the cap",
        ));
        // The compares below read one registered bound each: Rt >= cap - step (0 when the
        // step passes the cap, so that every Rt reaches it) and Rt > cap - step as Rt >=
        // cap - step + 1.
        let x = &name[3..];
        let neg = id(&room).bits(28, 28);
        wires.push((
            format!("{x}_reach_at_d"),
            28,
            tern(neg.clone(), d(28, 0), id(&room).bits(27, 0)),
            "Rt from which the step ends at the cap (registered: _q)",
        ));
        wires.push((
            format!("{x}_over_at_d"),
            29,
            tern(neg, d(29, 0), add(id(&room), d(29, 1))),
            "Rt from which the step passes the cap (registered: _q)",
        ));
        wires.push((
            format!("{name}_capped"),
            1,
            ge(zext(rt(), 1), id(&format!("{x}_over_at_q"))),
            "Rt + step > cap",
        ));
        wires.push((
            name.into(),
            28,
            tern(id(&format!("{name}_capped")), id("rmax_fx_q"), id(&sum)),
            "",
        ));
    }
    wires.push((
        "ai_zero_d".into(),
        1,
        eq(cfg("rpg_ai_rate", "value"), d(20, 0)),
        "no additive step (registered: ai_zero_q)",
    ));
    wires.push((
        "hai_zero_d".into(),
        1,
        eq(cfg("rpg_hai_rate", "value"), d(20, 0)),
        "no hyper step (registered: hai_zero_q)",
    ));
    wires.push((
        "threshold".into(),
        16,
        zext(cfg("rpg_threshold", "value"), 11),
        "F",
    ));
    wires.push((
        "byte_en_d".into(),
        1,
        ne(cfg("rpg_byte_reset", "value"), d(24, 0)),
        "byte counter enabled (registered: byte_en_q)",
    ));
    // Each count's order with F is a register (tc_lt_f_q, ...) that every source of a new
    // count sets with it, compared in parallel with the value.
    for (n, c) in [
        ("rd_tc", id("rd_tc")),
        ("rd_bc", id("rd_bc")),
        ("tc_inc", id("tc_inc")),
    ] {
        wires.push((
            format!("{n}_lt_f"),
            1,
            Expr::lt(c.clone(), id("threshold")),
            "",
        ));
        wires.push((format!("{n}_gt_f"), 1, gt(c, id("threshold")), ""));
    }
    wires.push((
        "hi_lt_f".into(),
        1,
        and(vec![
            id("tc_lt_f_q"),
            or(not(id("byte_en_q")), id("bc_lt_f_q")),
        ]),
        "both the timer and the byte count are below F (fast recovery)",
    ));
    wires.push((
        "lo_gt_f".into(),
        1,
        and(vec![
            id("tc_gt_f_q"),
            or(not(id("byte_en_q")), id("bc_gt_f_q")),
        ]),
        "the smaller of the two (the timer count alone without the byte counter) is above F",
    ));
    // PAPER's hyper-increase product for each count, the smaller one's selected after the
    // DSPs: the select runs beside the multipliers, not in front of them (a LUT in front of
    // a DSP adds a level to every path through it). A count at or below F gives a wrapped
    // product, which is read only when both are above F.
    for n in ["tc", "bc"] {
        let count = if n == "tc" { tc() } else { id("w_bc_q") };
        wires.push((
            format!("phai_{n}_prod"),
            36,
            mul(
                zext(sub(count, id("threshold")), 20),
                zext(cfg("rpg_hai_rate", "value"), 16),
            ),
            "(count - F) * rpg_hai_rate",
        ));
    }
    wires.push((
        "phai_prod".into(),
        36,
        tern(
            and(vec![id("byte_en_q"), id("bc_lt_tc_q")]),
            id("phai_bc_prod"),
            id("phai_tc_prod"),
        ),
        "PAPER's hyper-increase step: (the smaller count - F) * rpg_hai_rate",
    ));
    wires.push((
        "phai_big".into(),
        1,
        ne(id("phai_prod").bits(35, 20), d(16, 0)),
        "256 * product is 2**28 or more: past any cap",
    ));
    wires.push((
        "rt_phai_sum".into(),
        28,
        add(rt(), shl_const(id("phai_prod").bits(19, 0), 8)),
        "",
    ));
    // PAPER's hyper step against the cap as three-input sums (carry-save, then one chain) of
    // the product << 8, Rt and the cap, rather than cap - Rt and then the product's compare:
    // the sum passes the cap when 256 * product + Rt - cap - 1 >= 0, and reaches it when
    // 256 * product + Rt - cap >= 0 (cap_neg_q = -cap, registered). A product of 2**20 or
    // more passes any cap (phai_big), so the sums take its low 20 bits, in 30 bits.
    let prod30 = || zext(shl_const(id("phai_prod").bits(19, 0), 8), 2);
    let rt30 = || zext(rt(), 2);
    wires.push((
        "phai_pass".into(),
        30,
        sum3(prod30(), rt30(), Expr::bitnot(zext(id("rmax_fx_q"), 2))),
        "256 * product + Rt - cap - 1: not negative when the sum passes the cap",
    ));
    wires.push((
        "phai_capped".into(),
        1,
        or(id("phai_big"), not(id("phai_pass").bits(29, 29))),
        "PAPER's hyper increase passes the cap",
    ));
    wires.push((
        "phai_reach".into(),
        30,
        sum3(
            prod30(),
            rt30(),
            Expr::concat(vec![id("cap_neg_q").bits(28, 28), id("cap_neg_q")]),
        ),
        "256 * product + Rt - cap: not negative when the sum reaches the cap",
    ));
    wires.push((
        "rt_phai".into(),
        28,
        tern(
            id("phai_capped"),
            id("rmax_fx_q"),
            id("rt_phai_sum").bits(27, 0),
        ),
        "",
    ));
    // Which candidate Rt the stage picks: hold (fast recovery), AI, HAI or PAPER's hyper.
    // Both modes stage as FACTS §5 says: hyper once both counts are above F, additive once
    // one has reached F (until s34 mlx5 mode went hyper on the larger count alone, so the
    // byte counter by itself raised Rt by rpg_hai_rate per event).
    wires.push((
        "inc_ai".into(),
        1,
        and(vec![not(id("hi_lt_f")), not(id("lo_gt_f"))]),
        "additive increase",
    ));
    wires.push((
        "inc_hai".into(),
        1,
        and(vec![not(id("paper")), id("lo_gt_f")]),
        "mlx5 hyper increase",
    ));
    wires.push((
        "inc_phai".into(),
        1,
        and(vec![id("paper"), id("lo_gt_f")]),
        "PAPER hyper increase",
    ));
    wires.push((
        "rt_inc".into(),
        28,
        tern(
            id("inc_ai"),
            id("rt_ai"),
            tern(
                id("inc_hai"),
                id("rt_hai"),
                tern(id("inc_phai"), id("rt_phai"), rt()),
            ),
        ),
        "Rt after an increase event",
    ));
    // Rc after an increase from X1's registered new Rt: one carry chain in X2 (rc_inc is an
    // X2 wire, see X2_WIRES). PAPER's hyper step below the cap is Rt + the product, which
    // does not wrap there (the product is at most (cap - Rt) / 256).
    wires.push((
        "rc_inc_sum".into(),
        29,
        add(add(zext(rc(), 1), zext(id("rt_inc"), 1)), d(29, 1)),
        "",
    ));
    wires.push((
        "rc_inc".into(),
        28,
        id("rc_inc_sum").bits(28, 1),
        "(Rc + Rt + 1) / 2 with Rt after the increase",
    ));
    wires.push((
        "tc_inc".into(),
        16,
        tern(eq(tc(), Expr::num(16, 0xffff)), tc(), add(tc(), d(16, 1))),
        "",
    ));
    wires.push((
        "bc_inc".into(),
        16,
        tern(
            eq(id("w_bc_q"), Expr::num(16, 0xffff)),
            id("w_bc_q"),
            add(id("w_bc_q"), d(16, 1)),
        ),
        "",
    ));
    // Skips.
    // alpha_zero_q follows w_alpha_q (each alpha source says whether it is 0), so the skip
    // decision does not wait for a 25-bit zero test.
    wires.push((
        "alpha_prod_low".into(),
        1,
        eq(id("alpha_prod").bits(34, 10), d(25, 0)),
        "G * alpha / 1024 is 0",
    ));
    wires.push((
        "alpha_gain_zero".into(),
        1,
        eq(id("alpha_gain_q"), d(11, 0)),
        "",
    ));
    wires.push((
        "alpha_step_zero".into(),
        1,
        and(vec![
            id("alpha_prod_low"),
            or(not(id("w_acnp_q")), id("alpha_gain_zero")),
        ]),
        "alpha_step is 0 (its two terms do not wrap)",
    ));
    wires.push((
        "a_still".into(),
        1,
        and(vec![id("alpha_zero_q"), not(id("w_acnp_q"))]),
        "alpha periods change nothing",
    ));
    // While a flow idles only its timer count moves: with the byte counter on and the byte
    // count at or below F, PAPER's smaller count never passes F (no hyper stage to come).
    wires.push((
        "lo_stays_low".into(),
        1,
        and(vec![id("byte_en_q"), not(id("bc_gt_f_q"))]),
        "PAPER: idle periods stay additive",
    ));
    // rt_at_cap_q follows w_rt_q so that the skip decision (and through it every stage X
    // write) does not wait for an equality of Rt with the cap: each source of a new Rt says
    // whether it is the cap, in parallel with its value.
    wires.push((
        "rd_rt_at_cap".into(),
        1,
        eq(id("rd_rt"), id("rmax_fx_q")),
        "stage R's Rt is the cap",
    ));
    wires.push((
        "cut_rc_at_cap".into(),
        1,
        or(not(id("w_seen_q")), eq(rc(), id("rmax_fx_q"))),
        "Rc before the cut is the cap",
    ));
    for x in ["ai", "hai"] {
        wires.push((
            format!("{x}_reach"),
            1,
            ge(rt(), id(&format!("{x}_reach_at_q"))),
            "Rt + step >= cap: the step ends at the cap",
        ));
    }
    wires.push((
        "inc_at_cap".into(),
        1,
        tern(
            id("inc_ai"),
            id("ai_reach"),
            tern(
                id("inc_hai"),
                id("hai_reach"),
                tern(
                    id("inc_phai"),
                    or(id("phai_big"), not(id("phai_reach").bits(29, 29))),
                    id("rt_at_cap_q"),
                ),
            ),
        ),
        "rt_inc is the cap",
    ));
    wires.push((
        "i_flat".into(),
        1,
        tern(
            id("paper"),
            or(
                id("rt_at_cap_q"),
                and(vec![
                    or(id("ai_zero_q"), id("lo_gt_f")),
                    or(id("hai_zero_q"), id("lo_stays_low")),
                ]),
            ),
            // mlx5: hyper for good, or additive for good (the timer count above F and the
            // byte count, the smaller one, at or below F: it does not move while idle). Not
            // right after a cut (both counts 0): rc_near_q is set again by an increase step.
            tern(
                id("lo_gt_f"),
                tern(id("hai_capped_q"), id("rt_at_cap_q"), id("hai_zero_q")),
                and(vec![
                    id("tc_gt_f_q"),
                    tern(id("ai_capped_q"), id("rt_at_cap_q"), id("ai_zero_q")),
                ]),
            ),
        ),
        "no further stage moves Rt",
    ));
    // (Rc + Rt + 1) / 2 leaves Rc where it is at Rc = Rt and at Rc = Rt + 1: the second is
    // where Rc settles when it starts above Rt (Rt clamped by a lower rpg_max_rate). Whether
    // Rc is there (rc_near_q) and whether Rt + HAI passes the cap (hai_capped_q) are
    // registers, set from stage R's word on the load and from Rc and the new Rt on an
    // increase step: after one, Rc - Rt = ceil((Rc - Rt')/2), which is 0 or 1 when
    // Rc + 1 - Rt' is 0 to 3.
    // Rc - Rt is 0 or 1: Rc >= Rt and Rt + 1 - Rc >= 0, two carry chains in parallel rather
    // than a compare behind the difference.
    wires.push((
        "rd_rc_up".into(),
        30,
        sum3(
            zext(id("rd_rt"), 2),
            Expr::bitnot(zext(id("rd_rc"), 2)),
            d(30, 2),
        ),
        "stage R's Rt + 1 - Rc (two's complement)",
    ));
    wires.push((
        "rd_rc_near".into(),
        1,
        and(vec![
            ge(id("rd_rc"), id("rd_rt")),
            not(id("rd_rc_up").bits(29, 29)),
        ]),
        "",
    ));
    for x in ["ai", "hai"] {
        wires.push((
            format!("rd_{x}_capped"),
            1,
            ge(zext(id("rd_rt"), 1), id(&format!("{x}_over_at_q"))),
            "",
        ));
    }
    // Rc + 1 - Rt in [0, 3] as two compares of the new Rt with bounds taken from Rc while
    // Rt forms (rather than the difference, then a test of its upper bits).
    wires.push(("rc_up1".into(), 29, add(zext(rc(), 1), d(29, 1)), "Rc + 1"));
    wires.push((
        "rc_down2".into(),
        28,
        tern(Expr::lt(rc(), d(28, 2)), d(28, 0), sub(rc(), d(28, 2))),
        "Rc - 2, at least 0",
    ));
    wires.push((
        "inc_rc_near".into(),
        1,
        and(vec![
            Expr::bin(BinOp::Le, zext(id("rt_inc"), 1), id("rc_up1")),
            ge(id("rt_inc"), id("rc_down2")),
        ]),
        "Rc after the increase is Rt or Rt + 1 (Rc + 1 - Rt is 0 to 3)",
    ));
    for x in ["ai", "hai"] {
        let over_at = || id(&format!("{x}_over_at_q"));
        wires.push((
            format!("inc_{x}_capped"),
            1,
            ge(zext(id("rt_inc"), 1), over_at()),
            "",
        ));
        wires.push((
            format!("cut_{x}_capped"),
            1,
            tern(
                id("clamp"),
                ge(zext(id("cut_rc_q"), 1), over_at()),
                id(&format!("{x}_capped_q")),
            ),
            "after a cut",
        ));
    }
    wires.push((
        "i_still".into(),
        1,
        and(vec![not(id("w_dcnp_q")), id("rc_near_q"), id("i_flat")]),
        "increase periods only count",
    ));
    for (x, still) in [
        ("a", id("a_still")),
        ("d", not(id("w_dcnp_q"))),
        ("i", id("i_still")),
    ] {
        let (go, jump, fits) = (
            format!("{x}_skip"),
            format!("{x}_jump_q"),
            format!("{x}_fits"),
        );
        let el = format!("{x}_el_q");
        wires.push((
            go,
            1,
            and(vec![
                id(&format!("{x}_due_q")),
                still,
                not(id(&format!("{x}_once_q"))),
            ]),
            "two or more idle periods due",
        ));
        wires.push((
            fits,
            1,
            Expr::bin(BinOp::Le, id(&jump), zext(id(&el), 48 - EL_W)),
            "",
        ));
    }
    // Pipeline control.
    wires.push((
        "fold_block".into(),
        1,
        and(vec![id("ev_pcnp_q"), id("a_due_q")]),
        "a PAPER CNP cuts with alpha: its alpha period takes a cycle",
    ));
    wires.push((
        "fold".into(),
        1,
        and(vec![
            not(id("i_due_q")),
            or(id("a_due_q"), id("d_due_q")),
            or(not(id("a_due_q")), id("a_once_q")),
            or(
                not(id("d_due_q")),
                and(vec![not(id("w_dcnp_q")), id("d_once_q")]),
            ),
            not(id("fold_block")),
        ]),
        "one alpha period and one cut check with no CNP marked go with the event",
    ));
    wires.push((
        "x_apply".into(),
        1,
        // No skip term: a skip needs two or more periods of its timer due, which rules out
        // both a fold and nothing due, and keeps the skip decisions off this path.
        and(vec![
            id("x_valid_q"),
            not(id("x_skip_q")),
            or(
                id("fold"),
                not(Expr::any_of(
                    vec![id("a_due_q"), id("d_due_q"), id("i_due_q")],
                    b1(false),
                )),
            ),
        ]),
        "stage X can apply its event this cycle",
    ));
    wires.push((
        "x_skip_start".into(),
        1,
        and(vec![
            id("x_valid_q"),
            not(id("x_skip_q")),
            Expr::any_of(vec![id("a_skip"), id("d_skip"), id("i_skip")], b1(false)),
        ]),
        "a skip phase starts",
    ));
    // A skip phase's first cycle also steps the earliest due period: the skipped timers'
    // periods change nothing the step reads or writes, and the step leaves them idle (an
    // alpha step keeps alpha 0, a cut with a CNP marked rules out the cut's and the increase
    // timer's skips, an increase at the fixed point keeps it), so the jumps that follow are
    // exact from the stepped state. The step then needs no skip test.
    wires.push((
        "x_step".into(),
        1,
        and(vec![
            id("x_valid_q"),
            not(id("x_skip_q")),
            not(id("x_apply")),
        ]),
        "stage X applies the earliest due period",
    ));
    // Rc's and Rt's sources (rc_sel, rt_sel): 0 hold, 1 cut (Rt: Rc before it), 2 increase,
    // 3 first CNP. The steps that change Rc are tested directly rather than through x_step:
    // a due cut with a CNP marked rules out folding, so it is the step when it is the
    // earliest due timer; the increase is, when it is.
    let code = |c: Expr, v: u128, rest: Expr| tern(c, Expr::num(2, v), rest);
    let in_x = || vec![id("x_valid_q"), not(id("x_skip_q"))];
    wires.push((
        "step_cut".into(),
        1,
        and([in_x(), vec![id("pick_d"), id("w_dcnp_q")]].concat()),
        "stage X steps a cut with a CNP marked (x_step && pick_d && w_dcnp_q)",
    ));
    wires.push((
        "step_inc".into(),
        1,
        and([
            in_x(),
            vec![id("i_due_q"), not(id("pick_a")), not(id("pick_d"))],
        ]
        .concat()),
        "... an increase period (x_step && !pick_a && !pick_d)",
    ));
    wires.push((
        "ev_byte_inc".into(),
        1,
        and(vec![
            eq(id("ev_kind_q"), id("K_TX")),
            id("ev_grant"),
            id("byte_on"),
            id("ev_fire_q"),
        ]),
        "stage X's event is a granted send that fires the byte counter",
    ));
    wires.push((
        "ev_sel".into(),
        2,
        code(
            and(vec![id("ev_cnp_q"), id("paper")]),
            1,
            code(
                and(vec![id("ev_cnp_q"), not(id("w_seen_q"))]),
                3,
                code(id("ev_byte_inc"), 2, Expr::num(2, 0)),
            ),
        ),
        "Rc's and Rt's source for the event: PAPER's cut, the first CNP, a byte-counter increase",
    ));
    wires.push((
        "rt_shown".into(),
        28,
        tern(id("w_seen_q"), rt(), id("rmax_fx_q")),
        "Rt as the response shows it: the cap before the flow's first CNP",
    ));
    wires.push((
        "x_done".into(),
        1,
        and(vec![id("x_apply"), not(id("sk_valid_q"))]),
        "... and the response FIFO has room: it does",
    ));
    wires.push((
        "x_stall".into(),
        1,
        and(vec![id("x_apply_p"), id("sk_valid_q")]),
        "X2 holds an apply and the response FIFO is full: X2's registers hold",
    ));
    wires.push((
        "x2_step".into(),
        1,
        Expr::any_of(
            vec![
                id("x_step_p"),
                id("x_skip_start_p"),
                and(vec![id("x_skip_q"), id("x_valid_q")]),
            ],
            b1(false),
        ),
        "X2 steps X1's event (a period, a skip phase's start) or a skip jump: stage X's \
         registers change",
    ));
    wires.push((
        "x_v1".into(),
        1,
        and(vec![id("x_valid_q"), not(or(id("x_stall"), id("x2_step")))]),
        "stage X holds an event and does not act this cycle: the values X1 forms now are its \
         registers' as they will be next cycle (X1's wires read this as stage X's valid bit)",
    ));
    wires.push((
        "x_free".into(),
        1,
        or(not(id("x_valid_q")), id("x_apply")),
        "stage X takes an event at the next edge: X1 forms its event's apply (X2 applies it \
         next cycle from registers while X1 serves the next event)",
    ));
    wires.push((
        "r_hazard".into(),
        1,
        and(vec![
            id("r_valid_q"),
            or(
                and(vec![id("x_valid_q"), id("hz_ev_q")]),
                and(vec![id("x_apply_p"), id("hz_evp_q")]),
            ),
        ]),
        "stage X holds stage R's flow (X1's event, or X2's apply still to write): R waits for \
         the write",
    ));
    wires.push((
        "r_adv".into(),
        1,
        and(vec![id("r_valid_q"), id("x_free"), not(id("r_hazard"))]),
        "stage R's event moves to stage X",
    ));
    wires.push((
        "rsp_pop".into(),
        1,
        and(vec![id("rsp_valid_q"), id("m_rsp_ready")]),
        "the response FIFO head is taken",
    ));
    wires.push((
        "head_from_sk".into(),
        1,
        and(vec![id("sk_valid_q"), id("rsp_pop")]),
        "the FIFO head takes the second entry",
    ));
    wires.push((
        "head_free".into(),
        1,
        and(vec![
            not(id("sk_valid_q")),
            or(not(id("rsp_valid_q")), id("rsp_pop")),
        ]),
        "the FIFO head takes a response pushed this cycle",
    ));
    wires.push((
        "r_free".into(),
        1,
        or(not(id("r_valid_q")), id("r_adv")),
        "stage R takes an event",
    ));
    wires.push((
        "m_adv".into(),
        1,
        and(vec![id("m_valid_q"), id("r_free")]),
        "stage M's event moves to stage R",
    ));
    wires.push((
        "m_free".into(),
        1,
        or(not(id("m_valid_q")), id("m_adv")),
        "stage M takes an event",
    ));
    wires.push((
        "take".into(),
        1,
        and(vec![id("s_evt_valid"), id("s_evt_ready")]),
        "an event is taken",
    ));
    wires.push((
        "tc_skip_sum".into(),
        32,
        add(zext(tc(), 16), id("tc_jump_q")),
        "",
    ));
    // The skip's count flags compare w_tc_q + the jump with F and w_bc_q as three-input sums
    // (one LUT level of carry-save, then one carry chain), not the sum and then a compare:
    // the skip phase's jumps loop one per cycle. A saturated count (0xFFFF) is above F like
    // the sum it stands for.
    let w34 = |e: Expr, w: u32| zext(e, 34 - w);
    let not34 = |e: Expr, w: u32| Expr::bitnot(w34(e, w));
    for (name, terms, k, what) in [
        (
            "tc_skip_lt_f",
            [
                w34(tc(), 16),
                w34(id("tc_jump_q"), 32),
                not34(id("threshold"), 16),
            ],
            1,
            "tc_skip < F: w_tc_q + the jump - F is negative",
        ),
        (
            "tc_skip_gt_f",
            [
                w34(id("threshold"), 16),
                not34(tc(), 16),
                not34(id("tc_jump_q"), 32),
            ],
            2,
            "tc_skip > F: F - w_tc_q - the jump is negative",
        ),
        (
            "bc_below_skip",
            [
                w34(id("w_bc_q"), 16),
                not34(tc(), 16),
                not34(id("tc_jump_q"), 32),
            ],
            2,
            "w_bc_q < w_tc_q + the jump: w_bc_q - w_tc_q - the jump is negative",
        ),
    ] {
        let [a, b, c] = terms;
        wires.push((format!("{name}_sum"), 34, add(sum3(a, b, c), d(34, k)), ""));
        wires.push((
            name.into(),
            1,
            id(&format!("{name}_sum")).bits(33, 33),
            what,
        ));
    }
    wires.push((
        "bc_lt_tc_skip".into(),
        1,
        and(vec![
            id("bc_below_skip"),
            ne(id("w_bc_q"), Expr::num(16, 0xffff)),
        ]),
        "w_bc_q < tc_skip (below the sum and below 0xFFFF, where tc_skip saturates)",
    ));
    wires.push((
        "tc_skip".into(),
        16,
        tern(
            Expr::un(UnOp::RedOr, id("tc_skip_sum").bits(31, 16)),
            Expr::num(16, 0xffff),
            id("tc_skip_sum").bits(15, 0),
        ),
        "",
    ));
    // Shaper accrual, on the word read from the RAM.
    // The span saturates at 2**20 - 1 us: whether now - tok_us (modulo 2**32) reaches 2**20 is
    // the carry of now + ~tok_us + 1 - 2**20 (34 bits) with the difference's borrow, in parallel
    // with the difference rather than a 12-bit OR behind it.
    wires.push((
        "tok_elapsed".into(),
        33,
        sub(zext(id("r_now_q"), 1), zext(id("rd_tok_us"), 1)),
        "now - tok_us and its borrow",
    ));
    wires.push((
        "tok_long".into(),
        34,
        sum3(
            zext(id("r_now_q"), 2),
            zext(Expr::bitnot(id("rd_tok_us")), 2),
            d(34, (1u128 << 34) + 1 - (1 << 20)),
        ),
        "now - tok_us + 2**32 - 2**20 (modulo 2**34)",
    ));
    wires.push((
        "tok_span".into(),
        20,
        tern(
            tern(
                id("tok_elapsed").bits(32, 32),
                not(id("tok_long").bits(33, 33)),
                id("tok_long").bits(32, 32),
            ),
            Expr::num(20, 0xf_ffff),
            id("tok_elapsed").bits(19, 0),
        ),
        "us of accrual, at most 2**20 - 1",
    ));
    wires.push((
        "tok_at_rc".into(),
        1,
        and(vec![id("rd_seen"), cfg("ctrl", "rp_enable")]),
        "tokens accrue at the flow's Rc (else at the cap)",
    ));
    wires.push((
        "tok_rate".into(),
        28,
        tern(id("tok_at_rc"), id("rd_rc"), id("rmax_fx_q")),
        "",
    ));
    // The rate's low 17 and high 11 bits times the span, one DSP each.
    split_product(
        &mut wires,
        "tok_gain",
        ("tok_rate", "tok_span", 20),
        ["span * rate[16:0]", "span * rate[27:17]", "rate * span"],
    );
    // The cap and cap - tokens are formed for both rates (the flow's Rc, the cap rate) and
    // selected after, so the rate's select is not in front of the sums.
    let burst_fx = || zext(shl_const(cfg("shaper_burst", "value"), 11), 1);
    let all_ones = || Expr::num(35, (1 << 35) - 1);
    wires.push((
        "cap_rc_sum".into(),
        36,
        add(burst_fx(), zext(id("rd_rc"), 8)),
        "burst in 1/256 bits plus one microsecond at Rc",
    ));
    wires.push((
        "cap_max_sum".into(),
        36,
        add(burst_fx(), zext(id("rmax_fx_q"), 8)),
        "... at the cap rate",
    ));
    // The cap at the cap rate is a parameter: registered from rmax_fx_q (stage R reads it two
    // or more cycles after the take, like first_rate_q in stage X), so cap - tokens at the cap
    // rate is one carry chain in stage R.
    wires.push((
        "cap_max_d".into(),
        35,
        tern(
            id("cap_max_sum").bits(35, 35),
            all_ones(),
            id("cap_max_sum").bits(34, 0),
        ),
        "the bucket's cap at the cap rate, saturated (registered: cap_max_q)",
    ));
    wires.push((
        "tok_cap".into(),
        35,
        tern(
            id("tok_at_rc"),
            tern(
                id("cap_rc_sum").bits(35, 35),
                all_ones(),
                id("cap_rc_sum").bits(34, 0),
            ),
            id("cap_max_q"),
        ),
        "tokens arrive in one-microsecond quanta: the bucket holds one more",
    ));
    // burst + Rc - tokens as a three-input sum (one LUT level of carry-save, then one carry
    // chain), not two chains one after the other.
    {
        let a = zext(shl_const(cfg("shaper_burst", "value"), 11), 1);
        let b = zext(id("rd_rc"), 8);
        let c = Expr::bitnot(zext(id("rd_tokens"), 1));
        wires.push((
            "room_at_rc".into(),
            36,
            add(sum3(a, b, c), d(36, 1)),
            "cap - tokens at Rc below the saturation: burst + Rc - tokens",
        ));
    }
    wires.push((
        "room_at_max".into(),
        36,
        sub(zext(id("cap_max_q"), 1), zext(id("rd_tokens"), 1)),
        "cap - tokens at the cap rate",
    ));
    // The sum passes the cap when the gain passes cap - tokens: that difference is taken
    // while the product forms, so one compare follows it rather than the sum and a compare.
    wires.push((
        "tok_room".into(),
        36,
        tern(
            id("tok_at_rc"),
            tern(
                id("cap_rc_sum").bits(35, 35),
                zext(Expr::un(UnOp::BitNot, id("rd_tokens")), 1),
                id("room_at_rc"),
            ),
            id("room_at_max"),
        ),
        "cap - tokens, negative when the cap dropped below them",
    ));
    // The accrual's last step, in stage X's first cycle (X1) from the registers stage R formed
    // (tk_*): the gain against cap - tokens, one compare behind registers.
    wires.push((
        "tok_over".into(),
        1,
        Expr::any_of(
            vec![
                id("tk_new_q"),
                id("tk_room_q").bits(35, 35),
                gt(id("tk_gain_q"), zext(id("tk_room_q").bits(34, 0), 13)),
            ],
            b1(false),
        ),
        "the bucket fills: a new flow's, or the accrual reaches the cap",
    ));
    wires.push((
        "tok_sum".into(),
        35,
        add(id("w_tokens_q"), id("tk_gain_q").bits(34, 0)),
        "tokens plus the gain (kept only under the cap)",
    ));
    wires.push((
        "tok_fill".into(),
        35,
        tern(id("tok_over"), id("tk_cap_q"), id("tok_sum")),
        "tokens after accrual",
    ));
    // Events.
    wires.push((
        "tx_need".into(),
        35,
        zext(shl_const(id("ev_bytes_q"), 11), 8),
        "",
    ));
    // Whether the tokens cover a send and whether its bytes fire the byte counter are
    // registers set with the tokens and the byte sum (ev_grant_q, ev_fire_q), so the event's
    // Rc and Rt select does not wait for a 35-bit and a 25-bit compare.
    wires.push((
        "r_need".into(),
        35,
        zext(shl_const(id("r_bytes_q"), 11), 8),
        "stage R's send in 1/256 bits",
    ));
    // Below the cap the tokens cover the send when the gain reaches need - tokens, taken
    // while the product forms (as tok_room), so one compare follows the product.
    wires.push((
        "grant_room".into(),
        36,
        sub(zext(id("r_need"), 1), zext(id("rd_tokens"), 1)),
        "need - tokens, negative when the tokens cover the send already",
    ));
    // A full bucket covers the send when burst + rate reaches need: burst + rate - need for
    // either candidate rate as a three-input sum (one carry chain behind registers).
    for (side, rate) in [("rc", "rd_rc"), ("max", "rmax_fx_q")] {
        wires.push((
            format!("cover_{side}"),
            37,
            add(
                sum3(
                    zext(id(rate), 9),
                    zext(shl_const(cfg("shaper_burst", "value"), 11), 2),
                    Expr::bitnot(zext(id("r_need"), 2)),
                ),
                d(37, 1),
            ),
            "burst + rate - need, negative when the full bucket does not cover the send",
        ));
    }
    wires.push((
        "cap_cover".into(),
        1,
        not(tern(
            id("tok_at_rc"),
            id("cover_rc").bits(36, 36),
            id("cover_max").bits(36, 36),
        )),
        "tok_cap covers the send (the cap saturates only above any send)",
    ));
    wires.push((
        "ev_grant".into(),
        1,
        tern(
            id("tok_over"),
            id("tk_cover_q"),
            or(
                id("tk_groom_q").bits(35, 35),
                ge(id("tk_gain_q"), zext(id("tk_groom_q").bits(34, 0), 13)),
            ),
        ),
        "tok_fill covers the send (X1; both cases compared while tok_over settles)",
    ));
    // The byte sum plus the send reaches rpg_byte_reset: sum + bytes - reset as one
    // three-input sum, not the sum and then a compare.
    wires.push((
        "rd_fire_sum".into(),
        26,
        add(
            sum3(
                zext(id("rd_bacc"), 2),
                zext(id("r_bytes_q"), 10),
                Expr::bitnot(zext(cfg("rpg_byte_reset", "value"), 2)),
            ),
            d(26, 1),
        ),
        "stage R: byte sum + the send's bytes - rpg_byte_reset",
    ));
    wires.push((
        "rd_fire".into(),
        1,
        not(id("rd_fire_sum").bits(25, 25)),
        "stage R's word: the send fires the byte counter",
    ));
    wires.push((
        "cut_fire".into(),
        1,
        ge(zext(id("ev_bytes_q"), 8), cfg("rpg_byte_reset", "value")),
        "... after a cut clears the byte sum",
    ));
    wires.push((
        "byte_on".into(),
        1,
        and(vec![id("w_seen_q"), id("w_incon_q"), id("byte_en_q")]),
        "the byte counter runs while the rate recovers",
    ));
    wires.push((
        "byte_sum".into(),
        24,
        add(id("w_bacc_q"), zext(id("ev_bytes_q"), 8)),
        "",
    ));
    // The gap since the last CNP (now - last, modulo 2**32) against the minimum, as one
    // three-input sum (now + ~last + 1 - min = now - last - min + 2**32, 34 bits, with the
    // registered 1 - min) beside the difference's borrow rather than a compare behind the
    // difference: the gap reaches the minimum when the sum is at least 2**32 (no borrow) or
    // not negative (a borrow: the gap is now - last + 2**32).
    wires.push((
        "n_lag_d".into(),
        18,
        sub(d(18, 1), zext(cfg("min_time_between_cnps", "value"), 2)),
        "1 - the minimum CNP gap, 18-bit two's complement (registered: n_lag_q)",
    ));
    wires.push((
        "np_gap".into(),
        33,
        sub(zext(now(), 1), zext(id("w_np_last_q"), 1)),
        "now - the last CNP, modulo 2**32, and the borrow",
    ));
    wires.push((
        "np_lag".into(),
        34,
        sum3(
            zext(now(), 2),
            zext(Expr::bitnot(id("w_np_last_q")), 2),
            Expr::concat(vec![
                Expr::repl(Expr::int(16), id("n_lag_q").bits(17, 17)),
                id("n_lag_q"),
            ]),
        ),
        "now - the last CNP - the minimum gap + 2**32 (modulo 2**34)",
    ));
    wires.push((
        "np_send".into(),
        1,
        and(vec![
            cfg("ctrl", "np_enable"),
            or(
                not(id("w_npv_q")),
                tern(
                    id("np_gap").bits(32, 32),
                    not(id("np_lag").bits(33, 33)),
                    and(vec![
                        not(id("np_lag").bits(33, 33)),
                        id("np_lag").bits(32, 32),
                    ]),
                ),
            ),
        ]),
        "CNP allowed",
    ));
    // The compare as a difference's borrow: a carry chain, not a chain of LUTs (s39-dcqcn).
    wires.push((
        "first_lo_sub".into(),
        29,
        sub(zext(id("first_fx"), 1), zext(id("min_fx"), 1)),
        "first_fx - min_fx: bit 28 says first_fx < min_fx",
    ));
    wires.push((
        "first_lo_d".into(),
        28,
        tern(
            id("first_lo_sub").bits(28, 28),
            id("min_fx"),
            id("first_fx"),
        ),
        "rate_to_set_on_first_cnp at least rpg_min_rate (registered: first_lo_q)",
    ));
    wires.push((
        "first_rate_d".into(),
        28,
        tern(
            id("first_zero_q"),
            id("rmax_fx_q"),
            tern(
                gt(id("first_lo_q"), id("rmax_fx_q")),
                id("rmax_fx_q"),
                id("first_lo_q"),
            ),
        ),
        "Rc and Rt on the first CNP, from the registered values (registered again: first_rate_q \
         follows the inputs by two cycles, and stage X is two cycles after an event is taken)",
    ));
    wires.push((
        "first_zero_d".into(),
        1,
        eq(id("first_fx"), d(28, 0)),
        "no first-CNP rate: start from the cap with a cut pending (registered: first_zero_q)",
    ));
    wires.push((
        "tick".into(),
        1,
        and(vec![
            ne(cfg("clk_per_us", "cycles"), d(12, 0)),
            ge(
                add(zext(id("pre_cnt_q"), 1), d(13, 1)),
                zext(cfg("clk_per_us", "cycles"), 1),
            ),
        ]),
        "a microsecond ends",
    ));

    let wires_at = items.len();
    items.push(V::Assign(
        id("s_evt_ready"),
        and(vec![
            eq(id("state_q"), id("S_RUN")),
            not(id("clear_pend_q")),
            not(id("t_valid_q")),
        ]),
    ));
    items.push(V::Assign(id("m_rsp_valid"), id("rsp_valid_q")));
    for (p, r) in [
        ("m_rsp_kind", "rsp_kind_q"),
        ("m_rsp_flow", "rsp_flow_q"),
        ("m_rsp_flag", "rsp_flag_q"),
        ("m_rsp_seen", "rsp_seen_q"),
        ("m_rsp_rc", "rsp_rc_q"),
        ("m_rsp_rt", "rsp_rt_q"),
        ("m_rsp_alpha", "rsp_alpha_q"),
        ("m_rsp_timer_count", "rsp_tc_q"),
        ("m_rsp_time_us", "rsp_time_q"),
        ("m_rsp_byte_count", "rsp_bc_q"),
        ("rp_cnps_count_incr_o", "stat_cnp_q"),
        ("rp_rate_cuts_count_incr_o", "stat_cut_q"),
        ("np_cnps_sent_count_incr_o", "stat_np_q"),
        ("shaper_deferrals_count_incr_o", "stat_defer_q"),
    ] {
        items.push(V::Assign(id(p), id(r)));
    }
    items.push(V::Assign(
        id("status_clear_busy_o"),
        or(eq(id("state_q"), id("S_CLEAR")), id("clear_pend_q")),
    ));
    items.push(V::Blank);

    // Stage X's registers (by their `_q` names): the event, the word, the flags kept with
    // the word's fields, the skip phase's; not the cut's rank (formed in X1 in every cycle).
    let is_x_reg = |n: &str| {
        let Some(r) = n.strip_suffix("_q") else {
            return false;
        };
        if STATE_FIELDS.iter().any(|(f, _)| format!("w_{f}") == r) {
            return true;
        }
        regs.iter().any(|(name, _, _)| *name == r)
            && ![
                "state",
                "clear_pend",
                "clr_addr",
                "pre_cnt",
                "now_us",
                "x_fresh",
                "hz_ev",
                "hz_evp",
            ]
            .contains(&r)
            && !["t_", "m_", "r_", "rsp_", "sk_", "stat_"]
                .iter()
                .any(|pre| r.starts_with(pre))
            && !CUT_RANK.iter().any(|(k, _)| format!("cut_{k}") == r)
    };

    // ------------------------------------------------------------ always @*
    let mut c = vec![Stmt::Comment(
        "Defaults: hold; statistics pulses off".into(),
    )];
    let pulses = ["stat_cnp", "stat_cut", "stat_np", "stat_defer"];
    for (name, _, _) in regs {
        if !["clear_pend", "m_bypass", "r_fwd"].contains(name) && !pulses.contains(name) {
            c.push(set(&format!("{name}_d"), id(&format!("{name}_q"))));
        }
    }
    for &(f, _) in STATE_FIELDS {
        c.push(set(&format!("w_{f}_d"), id(&format!("w_{f}_q"))));
    }
    let n_defaults = c.len();
    c.push(set(
        "clear_pend_d",
        or(id("clear_pend_q"), cfg("ctrl", "flow_clear")),
    ));
    for s in pulses {
        c.push(set(&format!("{s}_d"), b1(false)));
    }
    c.push(Stmt::Comment(
        "X2's word: X1's copy of stage X's word, which an apply changes".into(),
    ));
    for &(f, _) in STATE_FIELDS {
        c.push(set(&format!("wr_{f}"), id(&format!("w_{f}_q"))));
    }
    c.push(Stmt::Comment(
        "The cut's rank from stage X's registers in every cycle: formed in X1, read in X2".into(),
    ));
    c.push(Stmt::if_(
        not(id("x_stall")),
        CUT_RANK
            .iter()
            .map(|(n, w)| set(&format!("cut_{n}_d"), rank_bits(&format!("x_cut_{n}"), *w)))
            .collect(),
    ));
    c.push(set("wb_word_d", id("wb_word_q")));
    c.push(Stmt::Comment(
        "A waiting stage R keeps its word with a forwarded write in it (wb_word_q follows".into(),
    ));
    c.push(Stmt::Comment(
        "stage X's word in every cycle, written or not)".into(),
    ));
    c.push(set("r_word_d", id("r_word")));
    c.push(set("ram_wdata", Expr::repl(id("STATE_W"), b1(false))));
    c.push(set("rsp_push", b1(false)));
    c.push(set("rsp_new_flag", b1(false)));
    c.push(set("rsp_rc_new", id("cut_rc_q")));
    c.push(set("rsp_rt_new", id("rt_shown")));
    c.push(Stmt::Comment(
        "Stage T: read the offered flow's word; a waiting stage M reads its own again".into(),
    ));
    c.push(set(
        "ram_raddr",
        tern(
            not(id("m_free")),
            id("m_flow_q"),
            tern(id("t_valid_q"), id("t_flow_q"), id("s_evt_flow")),
        ),
    ));
    c.push(set("ram_we", b1(false)));
    c.push(set("ram_waddr", id("ev_flow_q")));
    c.push(Stmt::Comment("Microsecond time base".into()));
    c.push(Stmt::if_else(
        id("tick"),
        vec![
            set("pre_cnt_d", d(12, 0)),
            set("now_us_d", add(id("now_us_q"), d(32, 1))),
        ],
        vec![Stmt::if_(
            ne(cfg("clk_per_us", "cycles"), d(12, 0)),
            vec![set("pre_cnt_d", add(id("pre_cnt_q"), d(12, 1)))],
        )],
    ));

    let arm_clear = vec![
        set("ram_we", b1(true)),
        set("ram_waddr", id("clr_addr_q")),
        set("clr_addr_d", add(id("clr_addr_q"), zext_flow(1))),
        Stmt::if_(
            eq(id("clr_addr_q"), Expr::bitnot(zero_flow())),
            vec![set("state_d", id("S_RUN"))],
        ),
    ];
    let arm_run = vec![
        Stmt::if_(
            and(vec![
                id("clear_pend_q"),
                not(id("t_valid_q")),
                not(id("m_valid_q")),
                not(id("r_valid_q")),
                not(id("x_valid_q")),
                not(id("x_fresh_q")),
            ]),
            vec![
                set("state_d", id("S_CLEAR")),
                set("clear_pend_d", cfg("ctrl", "flow_clear")),
                set("clr_addr_d", zero_flow()),
            ],
        ),
        Stmt::Comment(
            "Stage T: take an event into stage M, or into the skid while M cannot take it".into(),
        ),
        Stmt::Comment(
            "(s_evt_ready is the skid's emptiness: a flop, not stage X's progress)".into(),
        ),
        Stmt::if_(
            not(id("t_valid_q")),
            vec![
                set("t_kind_d", id("s_evt_kind")),
                set("t_flow_d", id("s_evt_flow")),
                set("t_bytes_d", id("s_evt_bytes")),
                set("t_now_d", id("now_us_q")),
            ],
        ),
        set(
            "t_valid_d",
            tern(
                id("t_valid_q"),
                not(id("m_free")),
                and(vec![id("take"), not(id("m_free"))]),
            ),
        ),
        Stmt::if_(
            id("m_free"),
            vec![
                set("m_valid_d", or(id("t_valid_q"), id("take"))),
                Stmt::if_else(
                    id("t_valid_q"),
                    vec![
                        set("m_kind_d", id("t_kind_q")),
                        set("m_flow_d", id("t_flow_q")),
                        set("m_bytes_d", id("t_bytes_q")),
                        set("m_now_d", id("t_now_q")),
                    ],
                    vec![
                        set("m_kind_d", id("s_evt_kind")),
                        set("m_flow_d", id("s_evt_flow")),
                        set("m_bytes_d", id("s_evt_bytes")),
                        set("m_now_d", id("now_us_q")),
                    ],
                ),
            ],
        ),
        Stmt::Comment("Stage M to stage R: the word registered".into()),
        Stmt::if_else(
            id("m_adv"),
            vec![
                set("r_valid_d", b1(true)),
                set("r_kind_d", id("m_kind_q")),
                set("r_flow_d", id("m_flow_q")),
                set("r_bytes_d", id("m_bytes_q")),
                set("r_now_d", id("m_now_q")),
                set("r_word_d", id("m_word")),
            ],
            vec![Stmt::if_(id("r_adv"), vec![set("r_valid_d", b1(false))])],
        ),
    ];
    // A deadline, its elapsed time and whether less than a period has elapsed move
    // together: `advance` by a period ("step") or by the skip's jump ("jump"), `restart` a
    // period from now.
    let advance = |x: &str, how: &str| {
        let by = if how == "step" {
            zext(id(timer_period(x)), 15)
        } else {
            id(&format!("{x}_jump_q")).bits(31, 0)
        };
        vec![
            set(
                &format!("w_{x}_next_d"),
                add(id(&format!("w_{x}_next_q")), by),
            ),
            set(&format!("{x}_el_d"), id(&format!("{x}_el_{how}"))),
            set(&format!("{x}_once_d"), id(&format!("{x}_once_{how}"))),
            // Only a due timer moves: what else it needs to run holds.
            set(
                &format!("{x}_due_d"),
                not(id(&format!("{x}_el_{how}")).bits(EL_W - 1, EL_W - 1)),
            ),
        ]
    };
    let restart = |x: &str, period: &str| {
        vec![
            set(&format!("w_{x}_next_d"), add(now(), zext(id(period), 15))),
            set(
                &format!("{x}_el_d"),
                sub(d(EL_W, 0), zext(id(period), EL_W - 17)),
            ),
            set(&format!("{x}_once_d"), b1(false)),
            set(&format!("{x}_due_d"), b1(false)),
        ]
    };
    // alpha and the copy periods and cuts read (alpha_in_q) move together.
    let alpha_to = |v: Expr, zero: Expr| {
        vec![
            set("w_alpha_d", v.clone()),
            set("alpha_in_d", v),
            set("alpha_zero_d", zero),
        ]
    };
    // A count and its order with F move together.
    let count_to = |n: &str, v: &str| {
        vec![
            set(&format!("w_{n}_d"), id(v)),
            set(&format!("{n}_lt_f_d"), id(&format!("{v}_lt_f"))),
            set(&format!("{n}_gt_f_d"), id(&format!("{v}_gt_f"))),
        ]
    };
    let counts_zero = || {
        let mut v = Vec::new();
        for n in ["tc", "bc"] {
            v.push(set(&format!("w_{n}_d"), d(16, 0)));
            v.push(set(
                &format!("{n}_lt_f_d"),
                ne(cfg("rpg_threshold", "value"), d(5, 0)),
            ));
            v.push(set(&format!("{n}_gt_f_d"), b1(false)));
        }
        v.push(set("bc_lt_tc_d", b1(false)));
        v
    };
    let cnp = || {
        and(vec![
            eq(id("r_kind_q"), id("K_CNP")),
            cfg("ctrl", "rp_enable"),
        ])
    };
    let mut load_x = vec![
        set("ev_kind_d", id("r_kind_q")),
        set("ev_flow_d", id("r_flow_q")),
        set("ev_bytes_d", id("r_bytes_q")),
        set("ev_now_d", id("r_now_q")),
        set("ev_cnp_d", cnp()),
        set("ev_pcnp_d", and(vec![cnp(), id("paper")])),
        set("x_skip_d", b1(false)),
    ];
    for &(f, _) in STATE_FIELDS {
        if !["tokv", "tokens", "tok_us"].contains(&f) {
            load_x.push(set(&format!("w_{f}_d"), id(&format!("rd_{f}"))));
        }
    }
    load_x.push(Stmt::Comment(
        "Tokens accrue at the rate of the flow's last touch".into(),
    ));
    load_x.push(set("w_tokens_d", id("rd_tokens")));
    for (r, v) in [
        ("tk_gain", id("tok_gain")),
        ("tk_room", id("tok_room")),
        ("tk_cap", id("tok_cap")),
        ("tk_groom", id("grant_room")),
        ("tk_cover", id("cap_cover")),
        ("tk_new", not(id("rd_tokv"))),
    ] {
        load_x.push(set(&format!("{r}_d"), v));
    }
    load_x.push(set("ev_fire_d", id("rd_fire")));
    load_x.push(set("w_tokv_d", b1(true)));
    load_x.push(set("w_tok_us_d", id("r_now_q")));
    load_x.push(set("rt_at_cap_d", id("rd_rt_at_cap")));
    load_x.push(set("alpha_zero_d", eq(id("rd_alpha"), d(25, 0))));
    for x in ["a", "d", "i"] {
        load_x.push(set(&format!("{x}_el_d"), id(&format!("rd_{x}_el"))));
        load_x.push(set(&format!("{x}_once_d"), id(&format!("rd_{x}_once"))));
        load_x.push(set(&format!("{x}_due_d"), id(&format!("rd_{x}_due"))));
    }
    load_x.extend(count_to("tc", "rd_tc"));
    load_x.push(set("rc_near_d", id("rd_rc_near")));
    load_x.push(set("hai_capped_d", id("rd_hai_capped")));
    load_x.push(set("ai_capped_d", id("rd_ai_capped")));
    load_x.extend(count_to("bc", "rd_bc"));
    load_x.push(set("bc_lt_tc_d", Expr::lt(id("rd_bc"), id("rd_tc"))));
    load_x.push(set("cut_rc_d", id("ld_cut_rc")));
    load_x.push(set("alpha_in_d", id("ld_alpha_in")));

    let mut first_cnp = vec![set("w_seen_d", b1(true))];
    first_cnp.push(set("w_alpha_d", id("alpha_init")));
    first_cnp.extend([
        set("w_acnp_d", b1(false)),
        set("w_dcnp_d", id("first_zero_q")),
        set("w_incon_d", b1(false)),
        set("i_due_d", b1(false)),
        set("w_bacc_d", d(24, 0)),
    ]);
    first_cnp.extend(counts_zero());
    first_cnp.extend(restart("a", "k_period_q"));
    first_cnp.extend(restart("d", "d_period_q"));
    let mut paper_cnp = vec![
        set("stat_cnp_d", b1(true)),
        set("stat_cut_d", b1(true)),
        set("w_seen_d", b1(true)),
        Stmt::if_(not(id("w_seen_q")), restart("d", "d_period_q")),
    ];
    paper_cnp.push(set("w_alpha_d", id("alpha_cnp")));
    paper_cnp.extend([
        set("w_acnp_d", b1(false)),
        set("w_dcnp_d", b1(false)),
        set("w_bacc_d", d(24, 0)),
        set("w_incon_d", b1(true)),
    ]);
    paper_cnp.extend(counts_zero());
    paper_cnp.extend(restart("a", "k_period_q"));
    paper_cnp.extend(restart("i", "t_period_q"));
    let event = Stmt::Case {
        subject: id("ev_kind_q"),
        arms: vec![
            (
                vec![id("K_CNP")],
                vec![Stmt::if_(
                    id("ev_cnp_q"),
                    vec![Stmt::if_else(
                        id("paper"),
                        paper_cnp,
                        vec![
                            set("stat_cnp_d", b1(true)),
                            Stmt::if_else(
                                id("w_seen_q"),
                                vec![set("w_acnp_d", b1(true)), set("w_dcnp_d", b1(true))],
                                first_cnp,
                            ),
                        ],
                    )],
                )],
            ),
            (
                vec![id("K_TX")],
                vec![Stmt::if_else(
                    id("ev_grant"),
                    vec![
                        set("w_tokens_d", sub(id("tok_fill"), id("tx_need"))),
                        set("rsp_new_flag", b1(true)),
                        Stmt::if_(
                            id("byte_on"),
                            vec![Stmt::if_else(
                                id("ev_fire_q"),
                                vec![set("w_bc_d", id("bc_inc")), set("w_bacc_d", d(24, 0))],
                                vec![set("w_bacc_d", id("byte_sum"))],
                            )],
                        ),
                    ],
                    vec![set("stat_defer_d", b1(true))],
                )],
            ),
            (
                vec![id("K_CE")],
                vec![Stmt::if_(
                    id("np_send"),
                    vec![
                        set("w_npv_d", b1(true)),
                        set("w_np_last_d", now()),
                        set("rsp_new_flag", b1(true)),
                        set("stat_np_d", b1(true)),
                    ],
                )],
            ),
            (vec![id("K_READ")], vec![]),
        ],
        default: vec![],
    };
    let t = || zext(id("t_period_q"), 15);
    let mut alpha_period = alpha_to(id("alpha_step"), id("alpha_step_zero"));
    alpha_period.push(set("w_acnp_d", b1(false)));
    alpha_period.extend(advance("a", "step"));
    let finish = vec![
        Stmt::Comment(
            "Nothing due but the foldable periods: take them, apply the event, write back,".into(),
        ),
        Stmt::Comment("respond".into()),
        Stmt::if_(
            id("fold"),
            vec![
                Stmt::if_(id("a_due_q"), alpha_period.clone()),
                Stmt::if_(id("d_due_q"), advance("d", "step")),
            ],
        ),
        Stmt::Comment("The tokens accrued at the load (X1 formed them)".into()),
        set("w_tokens_d", id("tok_fill")),
        event,
        set("ram_we", b1(true)),
        set("rsp_push", b1(true)),
    ];
    let mut cut = counts_zero();
    cut.extend([
        set("w_bacc_d", d(24, 0)),
        set("ev_fire_d", id("cut_fire")),
        set("w_incon_d", b1(true)),
        set("w_i_next_d", add(id("w_d_next_q"), t())),
        set("i_el_d", id("i_el_cut")),
        set("i_once_d", id("i_once_cut")),
        set("i_due_d", not(id("i_el_cut").bits(EL_W - 1, EL_W - 1))),
        set("hai_capped_d", id("cut_hai_capped")),
        set("ai_capped_d", id("cut_ai_capped")),
        Stmt::Comment(
            "rc_near_q is not read until an increase step sets it again: the cut leaves both"
                .into(),
        ),
        Stmt::Comment(
            "counts at 0, so i_flat (mlx5: the timer count above F) is 0 until then".into(),
        ),
        set("w_dcnp_d", b1(false)),
        set("stat_cut_d", b1(true)),
        Stmt::if_(
            id("clamp"),
            vec![
                set("w_rt_d", id("cut_rc_q")),
                set("rt_at_cap_d", id("cut_rc_at_cap")),
            ],
        ),
    ]);
    let mut step_cut = advance("d", "step");
    step_cut.push(Stmt::if_(id("w_dcnp_q"), std::mem::take(&mut cut)));
    let mut step_inc = vec![Stmt::Comment(
        "Otherwise the increase period is the one due".into(),
    )];
    step_inc.extend(count_to("tc", "tc_inc"));
    step_inc.push(set("bc_lt_tc_d", Expr::lt(id("w_bc_q"), id("tc_inc"))));
    step_inc.push(set("rc_near_d", id("inc_rc_near")));
    step_inc.push(set("hai_capped_d", id("inc_hai_capped")));
    step_inc.push(set("ai_capped_d", id("inc_ai_capped")));
    step_inc.extend(advance("i", "step"));
    let arm_step = vec![
        Stmt::if_else(
            id("pick_a"),
            alpha_period,
            vec![Stmt::if_else(id("pick_d"), step_cut, step_inc)],
        ),
        Stmt::Comment(
            "Rc after a cut or an increase and Rt after an increase come late (X2's carry".into(),
        ),
        Stmt::Comment("chains): selected last".into()),
        Stmt::if_else(
            id("step_cut"),
            vec![set("w_rc_d", id("cut_new")), set("cut_rc_d", id("cut_new"))],
            vec![Stmt::if_(
                id("step_inc"),
                vec![
                    set("w_rc_d", id("rc_inc")),
                    set("cut_rc_d", id("rc_inc")),
                    set("w_rt_d", id("rt_inc")),
                    set("rt_at_cap_d", id("inc_at_cap")),
                ],
            )],
        ),
    ];
    let arm_skip_start = vec![
        set("skip_a_d", id("a_skip")),
        set("skip_d_d", id("d_skip")),
        set("skip_i_d", id("i_skip")),
        set("skip_j_d", d(5, 31)),
        set("a_jump_d", shl_const(id("k_period_q"), 31)),
        set("d_jump_d", shl_const(id("d_period_q"), 31)),
        set("i_jump_d", shl_const(id("t_period_q"), 31)),
        set("tc_jump_d", Expr::num(32, 1 << 31)),
        set("x_skip_d", b1(true)),
    ];
    let mut arm_skip = Vec::new();
    for x in ["a", "d", "i"] {
        let mut go = advance(x, "jump");
        if x == "i" {
            go.extend(count_to("tc", "tc_skip"));
            go.push(set("bc_lt_tc_d", id("bc_lt_tc_skip")));
        }
        arm_skip.push(Stmt::if_(
            and(vec![id(&format!("skip_{x}_q")), id(&format!("{x}_fits"))]),
            go,
        ));
    }
    arm_skip.push(set("skip_j_d", sub(id("skip_j_q"), d(5, 1))));
    for j in ["a_jump", "d_jump", "i_jump", "tc_jump"] {
        arm_skip.push(set(
            &format!("{j}_d"),
            Expr::bin(BinOp::Shr, id(&format!("{j}_q")), Expr::int(1)),
        ));
    }
    arm_skip.push(Stmt::if_(
        eq(id("skip_j_q"), d(5, 0)),
        vec![set("x_skip_d", b1(false))],
    ));
    c.push(Stmt::Case {
        subject: id("state_q"),
        arms: vec![
            (vec![id("S_CLEAR")], arm_clear),
            (vec![id("S_RUN")], arm_run),
        ],
        default: vec![],
    });
    c.push(Stmt::Comment(
        "Stage X (S_RUN only), X2: a step (one due period; a skip phase may start with it)".into(),
    ));
    c.push(Stmt::Comment(
        "changes stage X's registers; the apply writes X2's word back and responds while the"
            .into(),
    ));
    c.push(Stmt::Comment(
        "registers hold the next event; a skip phase's jumps (below) run alone".into(),
    ));
    c.push(set(
        "x_fresh_d",
        tern(id("x_stall"), id("x_fresh_q"), id("x_v1")),
    ));
    // The skip phase's jumps, one per cycle, read stage X's registers themselves: added
    // after X2's renaming, below (skip_tail).
    let skip_tail = vec![
        Stmt::Comment("Skip phase: one jump per cycle from stage X's registers (X1 waits)".into()),
        Stmt::if_(and(vec![id("x_skip_q"), id("x_valid_q")]), arm_skip),
    ];
    // A skip phase starts with a step (x_skip_start implies x_step, see x_apply): X2 changes
    // stage X's registers only when it steps their event.
    let mut step = vec![Stmt::if_(id("x_skip_start"), arm_skip_start)];
    step.extend(arm_step);
    c.push(Stmt::if_(id("x_step"), step));
    // The apply changes only the word it writes back (stage X's registers hold the next
    // event by then): its field assignments go to X2's word, those of the flags kept with
    // the fields are left out.
    c.push(Stmt::if_(id("x_done"), to_word(&finish, &is_x_reg)));
    c.push(Stmt::Comment(
        "The apply's Rc and Rt, in the word and the response, by the event's code: the sources"
            .into(),
    ));
    c.push(Stmt::Comment(
        "known early here (the first CNP's rate, Rt = Rc on PAPER's cut); the cut's and the".into(),
    ));
    c.push(Stmt::Comment(
        "increase's results, which come late, are selected last, below".into(),
    ));
    c.push(Stmt::Case {
        subject: id("ev_sel"),
        arms: vec![
            (
                vec![Expr::num(2, 1)],
                vec![
                    set("wr_rt", id("cut_rc_q")),
                    set("rsp_rt_new", id("cut_rc_q")),
                ],
            ),
            (
                vec![Expr::num(2, 3)],
                vec![
                    set("wr_rc", id("first_rate_q")),
                    set("wr_rt", id("first_rate_q")),
                    set("rsp_rc_new", id("first_rate_q")),
                    set("rsp_rt_new", id("first_rate_q")),
                ],
            ),
        ],
        default: vec![],
    });
    c.push(Stmt::Comment(
        "Write-back and response FIFO: taken from stage X's word before the next event loads it"
            .into(),
    ));
    // The word's Rc and Rt with the late sources selected last (as for the registers in the
    // step and for the response entries).
    let packed = Expr::concat(
        STATE_FIELDS
            .iter()
            .rev()
            .map(|(f, _)| match *f {
                "rc" => tern(
                    eq(id("ev_sel"), Expr::num(2, 1)),
                    id("cut_new"),
                    tern(eq(id("ev_sel"), Expr::num(2, 2)), id("rc_inc"), id("wr_rc")),
                ),
                "rt" => tern(eq(id("ev_sel"), Expr::num(2, 2)), id("rt_inc"), id("wr_rt")),
                _ => id(&format!("wr_{f}")),
            })
            .collect(),
    );
    // Taken every cycle of S_RUN (the clear writes zeros): ram_we and m_bypass_q say when it
    // counts, so the word's path does not wait for the decision to write.
    c.push(Stmt::if_(
        eq(id("state_q"), id("S_RUN")),
        vec![set("ram_wdata", packed)],
    ));
    c.push(set("wb_word_d", id("ram_wdata")));
    let entry = |prefix: &str| -> Vec<Stmt> {
        vec![
            set(&format!("{prefix}_kind_d"), id("ev_kind_q")),
            set(&format!("{prefix}_flow_d"), id("ev_flow_q")),
            set(&format!("{prefix}_flag_d"), id("rsp_new_flag")),
            set(&format!("{prefix}_seen_d"), id("wr_seen")),
            set(&format!("{prefix}_rc_d"), id("rsp_rc_new")),
            set(&format!("{prefix}_rt_d"), id("rsp_rt_new")),
            set(&format!("{prefix}_alpha_d"), id("wr_alpha")),
            set(&format!("{prefix}_tc_d"), id("wr_tc")),
            set(&format!("{prefix}_time_d"), now()),
            set(&format!("{prefix}_bc_d"), id("wr_bc")),
        ]
    };
    // The head takes the second entry when it is popped with one waiting, else a pushed
    // response when it is free; the second entry (no reset, sk_valid_q says when it counts)
    // takes stage X's response in every cycle it is empty.
    c.push(set(
        "rsp_valid_d",
        Expr::any_of(
            vec![
                id("sk_valid_q"),
                id("rsp_push"),
                and(vec![id("rsp_valid_q"), not(id("rsp_pop"))]),
            ],
            b1(false),
        ),
    ));
    c.push(set(
        "sk_valid_d",
        tern(
            id("sk_valid_q"),
            not(id("rsp_pop")),
            and(vec![id("rsp_push"), id("rsp_valid_q"), not(id("rsp_pop"))]),
        ),
    ));
    let mut from_skid = Vec::new();
    for f in [
        "kind", "flow", "flag", "seen", "rc", "rt", "alpha", "tc", "time", "bc",
    ] {
        from_skid.push(set(&format!("rsp_{f}_d"), id(&format!("sk_{f}_q"))));
    }
    c.push(Stmt::if_else(
        id("head_from_sk"),
        from_skid,
        vec![Stmt::if_(
            and(vec![id("head_free"), id("rsp_push")]),
            entry("rsp"),
        )],
    ));
    c.push(Stmt::if_(not(id("sk_valid_q")), entry("sk")));
    let late_rsp = |prefix: &str| Stmt::Case {
        subject: id("ev_sel"),
        arms: vec![
            (
                vec![Expr::num(2, 1)],
                vec![set(&format!("{prefix}_rc_d"), id("cut_new"))],
            ),
            (
                vec![Expr::num(2, 2)],
                vec![
                    set(&format!("{prefix}_rc_d"), id("rc_inc")),
                    set(&format!("{prefix}_rt_d"), id("rt_inc")),
                ],
            ),
        ],
        default: vec![],
    };
    c.push(Stmt::Comment(
        "The entries' late values: the event's cut or increase".into(),
    ));
    c.push(Stmt::if_(
        and(vec![
            not(id("head_from_sk")),
            id("head_free"),
            id("rsp_push"),
        ]),
        vec![late_rsp("rsp")],
    ));
    c.push(Stmt::if_(not(id("sk_valid_q")), vec![late_rsp("sk")]));
    c.push(Stmt::Comment(
        "Stage M's bypass for the next cycle: stage X writes at this edge the flow stage M".into(),
    ));
    c.push(Stmt::Comment(
        "holds next (compared with its three candidates: its own, the skid's, the offered one; the moves select after)".into(),
    ));
    c.push(set(
        "m_bypass_d",
        and(vec![
            id("rsp_push"),
            tern(
                not(id("m_free")),
                eq(id("m_flow_q"), id("ev_flow_q")),
                tern(
                    id("t_valid_q"),
                    eq(id("t_flow_q"), id("ev_flow_q")),
                    eq(id("s_evt_flow"), id("ev_flow_q")),
                ),
            ),
        ]),
    ));
    c.push(Stmt::Comment(
        "Stage R's forward: stage X writes at this edge the flow stage R holds next".into(),
    ));
    c.push(set(
        "r_fwd_d",
        and(vec![
            id("rsp_push"),
            tern(
                id("m_adv"),
                eq(id("m_flow_q"), id("ev_flow_q")),
                eq(id("r_flow_q"), id("ev_flow_q")),
            ),
        ]),
    ));
    let load_tail = vec![
        Stmt::Comment("Stage R to stage X: the word with its tokens accrued".into()),
        Stmt::if_(
            id("x_free"),
            vec![
                set("x_valid_d", id("r_adv")),
                Stmt::if_(id("r_adv"), load_x),
            ],
        ),
    ];
    // Stage X over two cycles (X1, X2). Every datapath value that is a function of stage X's
    // registers and the parameters alone (a "pure" wire) is formed in X1 and registered
    // (`<wire>_p`); X2 (the always block and the wires that read other stages or the FIFO)
    // selects from those registers, so no path runs from one of stage X's registers through
    // the arithmetic and the selects back into it. X2 acts (a step, a skip jump, the apply)
    // only in a cycle whose registered values were formed from stage X's registers as they
    // are (x_v1 in X1, x_fresh_q): a step or jump costs two cycles, as does an event.
    let is_param = |n: &str| {
        n.ends_with("_i")
            || DERIVED.iter().any(|(d, _)| format!("{d}_q") == n)
            || [
                "K_CNP",
                "K_TX",
                "K_CE",
                "K_READ",
                "S_CLEAR",
                "S_RUN",
                "STATE_W",
                "FLOW_BITS",
            ]
            .contains(&n)
    };
    let index: HashMap<String, usize> = wires
        .iter()
        .enumerate()
        .map(|(i, (n, _, _, _))| (n.clone(), i))
        .collect();
    // Per wire: Some(true) pure and reading a stage X register, Some(false) pure on
    // parameters alone, None not pure.
    let mut class: Vec<Option<Option<bool>>> = vec![None; wires.len()];
    fn classify(
        i: usize,
        wires: &[(String, u32, Expr, &str)],
        index: &HashMap<String, usize>,
        class: &mut Vec<Option<Option<bool>>>,
        leaf: &dyn Fn(&str) -> Option<bool>,
    ) -> Option<bool> {
        if let Some(c) = class[i] {
            return c;
        }
        class[i] = Some(None); // a cycle through wires is not pure
        let mut ids = Vec::new();
        expr_ids(&wires[i].2, &mut ids);
        let mut out = Some(false);
        for n in ids {
            let c = match index.get(&n) {
                Some(&j) => classify(j, wires, index, class, leaf),
                None => leaf(&n),
            };
            out = match (out, c) {
                (Some(a), Some(b)) => Some(a || b),
                _ => None,
            };
        }
        class[i] = Some(out);
        out
    }
    let leaf = |n: &str| {
        if is_x_reg(n) {
            Some(true)
        } else if is_param(n) {
            Some(false)
        } else {
            None
        }
    };
    // Stage X's control reads stage X's registers themselves (see `control` below).
    let control = ["x_v1", "x_free", "r_hazard", "x2_step"];
    for (i, (n, _, _, _)) in wires.iter().enumerate() {
        if X2_WIRES.contains(&n.as_str()) || control.contains(&n.as_str()) {
            class[i] = Some(None);
        }
    }
    for i in 0..wires.len() {
        classify(i, &wires, &index, &mut class, &leaf);
    }
    let x1: HashSet<String> = wires
        .iter()
        .zip(&class)
        .filter(|(_, c)| **c == Some(Some(true)))
        .map(|((n, _, _, _), _)| n.clone())
        .collect();
    // X2's reads of X1's values take the registered copy; X1's wires read stage X's valid
    // bit as x_v1 (valid and not acting this cycle), so a value formed in a cycle that
    // changes stage X's registers says "nothing to do" in the next.
    // X2 also reads stage X's registers through registered copies (`<reg>_p`, formed with
    // the values), so that X1 can serve the next event while X2 applies one: X1 takes the
    // next event at the edge that ends its apply pass. Stage X's control (x_v1, x_free,
    // r_hazard) reads the registers themselves.
    let x_copy = |n: &str| is_x_reg(n) && n != "x_valid_q";
    let copy_name = |n: &str| format!("{}_p", n.strip_suffix("_q").unwrap_or(n));
    let rename = |n: &str| {
        if x1.contains(n) {
            Some(format!("{n}_p"))
        } else if x_copy(n) {
            Some(copy_name(n))
        } else {
            None
        }
    };
    let mut read_p = HashSet::new();
    let mut read_copy = HashSet::new();
    for (n, _, e, _) in wires.iter_mut() {
        if x1.contains(n) {
            *e = map_expr(e, &|v| (v == "x_valid_q").then(|| "x_v1".to_string()));
        } else if !control.contains(&n.as_str()) {
            let mut ids = Vec::new();
            expr_ids(e, &mut ids);
            for v in ids {
                if x1.contains(&v) {
                    read_p.insert(v);
                } else if x_copy(&v) {
                    read_copy.insert(v);
                }
            }
            *e = map_expr(e, &rename);
        }
    }
    let keep: Vec<String> = CUT_RANK.iter().map(|(k, _)| format!("cut_{k}_d")).collect();
    // The hold defaults read the registers themselves: stage X's change only when X2 steps
    // their own event, when they equal X1's copies (X2's word starts from the copies).
    let held = |st: &Stmt| matches!(st, Stmt::Assign(..));
    for (i, st) in c.iter().enumerate() {
        if i < n_defaults && held(st) {
            continue;
        }
        stmt_ids(st, &keep, &mut |v| {
            if x1.contains(v) {
                read_p.insert(v.to_string());
            } else if x_copy(v) {
                read_copy.insert(v.to_string());
            }
        });
    }
    let mut c: Vec<Stmt> = c
        .iter()
        .enumerate()
        .map(|(i, st)| {
            if i < n_defaults && held(st) {
                st.clone()
            } else {
                map_stmt(st, &keep, &rename)
            }
        })
        .collect();
    let x_regs: Vec<String> = regs
        .iter()
        .map(|(n, _, _)| format!("{n}_q"))
        .chain(STATE_FIELDS.iter().map(|(f, _)| format!("w_{f}_q")))
        .filter(|n| is_x_reg(n))
        .collect();
    c.extend(skip_tail);
    c.extend(load_tail);
    // Stage R's flow compared with X1's and X2's for the next cycle (s39-dcqcn): the
    // registers' compares first, the moves select after, so r_hazard, r_adv, m_adv and the
    // enables they drive start from flops rather than a flow compare. ev_flow_q takes
    // r_flow_q when stage R moves, r_flow_q takes m_flow_q when stage M does (neither moves
    // while the state clears: the pipeline is empty), ev_flow_p takes ev_flow_q unless X2
    // stalls.
    c.push(Stmt::Comment(
        "Stage R's flow compared with stage X's for the next cycle (r_hazard from flops)".into(),
    ));
    let next_r = |a: &str| {
        tern(
            id("m_adv"),
            eq(id(a), id("m_flow_q")),
            eq(id(a), id("r_flow_q")),
        )
    };
    c.push(set(
        "hz_ev_d",
        tern(
            id("r_adv"),
            or(not(id("m_adv")), eq(id("r_flow_q"), id("m_flow_q"))),
            next_r("ev_flow_q"),
        ),
    ));
    c.push(set(
        "hz_evp_d",
        tern(id("x_stall"), next_r("ev_flow_p"), next_r("ev_flow_q")),
    ));
    let mut copies: Vec<(String, u32)> = x_regs
        .iter()
        .filter(|n| read_copy.contains(*n))
        .map(|n| {
            let r = n.strip_suffix("_q").unwrap();
            let w = regs
                .iter()
                .find(|(m, _, _)| *m == r)
                .map(|(_, w, _)| *w)
                .or_else(|| {
                    STATE_FIELDS
                        .iter()
                        .find(|(f, _)| format!("w_{f}") == r)
                        .map(|(_, w)| *w)
                })
                .unwrap();
            (n.clone(), w)
        })
        .collect();
    copies.sort();
    let mut registered: Vec<(String, u32)> = wires
        .iter()
        .filter(|(n, _, _, _)| read_p.contains(n))
        .map(|(n, w, _, _)| (n.clone(), *w))
        .collect();
    registered.sort();
    // Products and sums keep every bit; the fixed-point scaling drops low bits.
    let mut dp = Vec::new();
    let dropped = [
        "alpha_prod",
        "x_cut_prod",
        "x_keep_prod",
        "phai_pass",
        "phai_reach",
        "rc_inc_sum",
        "tc_skip_lt_f_sum",
        "tc_skip_gt_f_sum",
        "bc_below_skip_sum",
        "rd_rc_up",
        "tok_elapsed",
        "tok_long",
        "a_jump_lag",
        "a_step_lag",
        "d_step_lag",
        "i_step_lag",
        "d_jump_lag",
        "i_jump_lag",
        "cover_rc",
        "cover_max",
        "rd_fire_sum",
        "x_cut_amt_sum",
        "first_lo_sub",
        "x_cut_amount",
        "i_cut_lag",
        "x_cut_m_k_sum",
        "x_cut_k_c_sum",
        "np_gap",
        "np_lag",
        "rd_a_win",
        "rd_d_win",
        "rd_i_win",
        "rd_a_lag",
        "rd_d_lag",
        "rd_i_lag",
    ];
    dp.push(V::Comment(vec!["Datapath".into()]));
    let mut decls = Vec::new();
    let mut lint = Vec::new();
    for (name, w, _, c) in &wires {
        let mut decl = Decl::wire(name.clone(), bits(*w));
        if !c.is_empty() {
            decl = decl.comment(*c);
        }
        if dropped.contains(&name.as_str()) {
            lint.push(V::Decl(decl));
        } else {
            decls.push(V::Decl(decl));
        }
    }
    dp.extend(decls);
    dp.push(V::Comment(vec![
        "Fixed-point scaling drops the low bits of these products and sums by design.".into(),
        "verilator lint_off UNUSED".into(),
    ]));
    dp.extend(lint);
    dp.push(V::Comment(vec!["verilator lint_on UNUSED".into()]));
    dp.push(V::Blank);
    for (name, _, e, _) in wires {
        dp.push(V::Assign(id(&name), e));
    }
    dp.push(V::Blank);
    dp.push(V::Comment(vec![
        "Stage X's values formed in X1 from its registers, read by X2 (verilator lint_off UNUSED:"
            .into(),
        "X2 reads some of them in part)".into(),
        "verilator lint_off UNUSED".into(),
    ]));
    for (n, w) in &registered {
        dp.push(V::Decl(Decl::reg(format!("{n}_p"), bits(*w))));
    }
    for (n, w) in &copies {
        let range = if *w == 0 {
            flow_range.clone()
        } else {
            bits(*w)
        };
        dp.push(V::Decl(Decl::reg(copy_name(n), range)));
    }
    dp.push(V::Comment(vec!["verilator lint_on UNUSED".into()]));
    dp.push(V::Blank);
    items.splice(wires_at..wires_at, dp);
    items.push(V::Comb(c));
    items.push(V::Blank);

    // ------------------------------------------------------------------ flops
    let mut flops = Vec::new();
    // Registers without reset. The response registers (rsp_*) are not among them: they drive
    // the outputs, which read 0, not X, until the first response.
    let datapath = [
        "t_kind",
        "t_flow",
        "t_bytes",
        "t_now",
        "m_kind",
        "m_flow",
        "m_bytes",
        "m_now",
        "r_kind",
        "r_flow",
        "r_bytes",
        "r_now",
        "ev_kind",
        "ev_flow",
        "ev_bytes",
        "ev_now",
        "ev_cnp",
        "ev_pcnp",
        "skip_a",
        "skip_d",
        "skip_i",
        "skip_j",
        "a_jump",
        "d_jump",
        "i_jump",
        "tc_jump",
        "a_el",
        "a_once",
        "rc_near",
        "hai_capped",
        "ai_capped",
        "a_due",
        "d_due",
        "i_due",
        "d_once",
        "i_once",
        "tc_lt_f",
        "tc_gt_f",
        "bc_lt_f",
        "bc_gt_f",
        "bc_lt_tc",
        "d_el",
        "i_el",
        "cut_rc",
        "alpha_in",
        "cut_kv",
        "cut_amount",
        "cut_amt_hi",
        "cut_room_k",
        "cut_room_m",
        "cut_m_k",
        "cut_k_c",
        "cut_m_c",
        "sk_kind",
        "sk_flow",
        "sk_flag",
        "sk_seen",
        "sk_rc",
        "sk_rt",
        "sk_alpha",
        "sk_tc",
        "sk_time",
        "sk_bc",
        "rt_at_cap",
        "alpha_zero",
        "ev_fire",
        "tk_gain",
        "tk_room",
        "tk_cap",
        "tk_groom",
        "tk_cover",
        "tk_new",
    ];
    for (name, w, _) in regs {
        let reset_value = if datapath.contains(name) {
            None
        } else if *name == "state" {
            Some(id("S_CLEAR"))
        } else if *w == 0 {
            Some(zero_flow())
        } else {
            Some(Expr::zero(*w))
        };
        flops.push(Flop {
            q: id(&format!("{name}_q")),
            d: id(&format!("{name}_d")),
            reset: reset_value,
        });
    }
    for &(f, _) in STATE_FIELDS {
        flops.push(Flop {
            q: id(&format!("w_{f}_q")),
            d: id(&format!("w_{f}_d")),
            reset: None,
        });
    }
    for &(name, _) in DERIVED {
        flops.push(Flop {
            q: id(&format!("{name}_q")),
            d: id(&format!("{name}_d")),
            reset: None,
        });
    }
    for name in ["wb_word", "r_word"] {
        flops.push(Flop {
            q: id(&format!("{name}_q")),
            d: id(&format!("{name}_d")),
            reset: None,
        });
    }
    flops.push(Flop {
        q: id("ram_rdata_q"),
        d: id("state_ram").index(id("ram_raddr")),
        reset: None,
    });
    // X2's registers hold while it waits for the response FIFO with an apply.
    for (n, _) in &registered {
        let q = format!("{n}_p");
        flops.push(Flop {
            q: id(&q),
            d: tern(id("x_stall"), id(&q), id(n)),
            reset: None,
        });
    }
    for (n, _) in &copies {
        let q = copy_name(n);
        flops.push(Flop {
            q: id(&q),
            d: tern(id("x_stall"), id(&q), id(n)),
            reset: None,
        });
    }
    items.push(V::Flops(flops));
    items.push(V::Blank);
    items.push(V::MemWrite {
        mem: "state_ram".into(),
        en: id("ram_we"),
        addr: id("ram_waddr"),
        data: id("ram_wdata"),
    });

    Ok(Module {
        name: MODULE.into(),
        header,
        params: vec![Param {
            name: "FLOW_BITS".into(),
            default: Expr::int(10),
            comment: Some("Flow index width: 2**FLOW_BITS flows, 2 to 16 (65,536 flows)".into()),
        }],
        ports,
        items,
        reset,
    })
}

/// The cut's rank: registers `cut_<name>_q` of stage X, formed from `ld_cut_<name>` (stage R's
/// word) or `x_cut_<name>` (stage X's registers), with their widths.
const CUT_RANK: &[(&str, u32)] = &[
    ("kv", 28),
    ("amount", 28),
    ("amt_hi", 1),
    ("room_k", 30),
    ("room_m", 30),
    ("m_k", 1),
    ("k_c", 1),
    ("m_c", 1),
];

/// The low `w` bits of wire `name` (a 1-bit wire whole): the registered part of a rank value.
fn rank_bits(name: &str, w: u32) -> Expr {
    if w == 1 {
        id(name)
    } else {
        id(name).bits(w - 1, 0)
    }
}

/// The period register of timer `x` (alpha, cut, increase).
/// Bits of a timer's elapsed time (`{x}_el_q`): the 32-bit microsecond difference and a sign.
const EL_W: u32 = 33;

fn timer_period(x: &str) -> &'static str {
    match x {
        "a" => "k_period_q",
        "d" => "d_period_q",
        _ => "t_period_q",
    }
}

/// `{(FLOW_BITS-1){1'b0}, 1'b1}`-style constant `v` at the flow width.
fn zext_flow(v: u128) -> Expr {
    Expr::concat(vec![
        Expr::repl(sub(id("FLOW_BITS"), Expr::int(1)), b1(false)),
        b1(v != 0),
    ])
}

fn zero_flow() -> Expr {
    Expr::repl(id("FLOW_BITS"), b1(false))
}

/// Wires of stage X formed in X2 from X1's registered values: the flags of a new value that
/// need the value itself (a compare behind the increase's select, the skip's count) and Rc
/// after an increase (a sum behind the new Rt), each one carry chain behind a register.
const X2_WIRES: &[&str] = &[
    "rc_inc_sum",
    "rc_inc",
    "inc_rc_near",
    "inc_ai_capped",
    "inc_hai_capped",
];

/// The apply's statements `s` as changes to the word it writes back: an assignment to a
/// field's `w_<f>_d` goes to `wr_<f>`; one to another of stage X's registers (`x_reg` of its
/// `_q` name: the flags kept with the fields) is left out, with any `if` left empty by that.
fn to_word(s: &[Stmt], x_reg: &dyn Fn(&str) -> bool) -> Vec<Stmt> {
    let body = |v: &[Stmt]| to_word(v, x_reg);
    s.iter()
        .filter_map(|st| match st {
            Stmt::Assign(l, r) => {
                let Some(reg) = lhs_name(l).and_then(|n| n.strip_suffix("_d")) else {
                    return Some(st.clone());
                };
                if let Some(f) = reg.strip_prefix("w_") {
                    if STATE_FIELDS.iter().any(|(g, _)| *g == f) {
                        return Some(Stmt::Assign(id(&format!("wr_{f}")), r.clone()));
                    }
                }
                (!x_reg(&format!("{reg}_q"))).then(|| st.clone())
            }
            Stmt::If { cond, then, els } => {
                let (then, els) = (body(then), body(els));
                let empty = |v: &[Stmt]| v.iter().all(|x| matches!(x, Stmt::Comment(_)));
                (!(empty(&then) && empty(&els))).then(|| Stmt::If {
                    cond: cond.clone(),
                    then,
                    els,
                })
            }
            Stmt::Case {
                subject,
                arms,
                default,
            } => Some(Stmt::Case {
                subject: subject.clone(),
                arms: arms.iter().map(|(l, b)| (l.clone(), body(b))).collect(),
                default: body(default),
            }),
            _ => Some(st.clone()),
        })
        .collect()
}

/// Every identifier `e` reads, in order, with repeats.
fn expr_ids(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Ident(n) => out.push(n.clone()),
        Expr::Int(_) | Expr::Num { .. } | Expr::Str(_) => {}
        Expr::Index(a, b) | Expr::Repl(a, b) | Expr::Binary(_, a, b) => {
            expr_ids(a, out);
            expr_ids(b, out);
        }
        Expr::Slice(a, b, c) | Expr::PartSelect(a, b, c) | Expr::Ternary(a, b, c) => {
            expr_ids(a, out);
            expr_ids(b, out);
            expr_ids(c, out);
        }
        Expr::Concat(v) => v.iter().for_each(|x| expr_ids(x, out)),
        Expr::Unary(_, a) => expr_ids(a, out),
        Expr::Call(c) => c.1.iter().for_each(|x| expr_ids(x, out)),
    }
}

/// `e` with each identifier `f` names a replacement for replaced.
fn map_expr(e: &Expr, f: &dyn Fn(&str) -> Option<String>) -> Expr {
    let m = |x: &Expr| Box::new(map_expr(x, f));
    match e {
        Expr::Ident(n) => f(n).map_or_else(|| e.clone(), Expr::Ident),
        Expr::Int(_) | Expr::Num { .. } | Expr::Str(_) => e.clone(),
        Expr::Index(a, b) => Expr::Index(m(a), m(b)),
        Expr::Repl(a, b) => Expr::Repl(m(a), m(b)),
        Expr::Binary(op, a, b) => Expr::Binary(*op, m(a), m(b)),
        Expr::Slice(a, b, c) => Expr::Slice(m(a), m(b), m(c)),
        Expr::PartSelect(a, b, c) => Expr::PartSelect(m(a), m(b), m(c)),
        Expr::Ternary(a, b, c) => Expr::Ternary(m(a), m(b), m(c)),
        Expr::Concat(v) => Expr::Concat(v.iter().map(|x| map_expr(x, f)).collect()),
        Expr::Unary(op, a) => Expr::Unary(*op, m(a)),
        Expr::Call(c) => Expr::Call(Box::new((
            c.0.clone(),
            c.1.iter().map(|x| map_expr(x, f)).collect(),
        ))),
    }
}

/// The name an assignment writes (its target's identifier).
fn lhs_name(e: &Expr) -> Option<&str> {
    match e {
        Expr::Ident(n) => Some(n),
        Expr::Index(a, _) | Expr::Slice(a, _, _) | Expr::PartSelect(a, _, _) => lhs_name(a),
        _ => None,
    }
}

/// Calls `f` on every identifier `s` reads (not the targets; not the right-hand side of an
/// assignment to a name in `keep`).
fn stmt_ids(s: &Stmt, keep: &[String], f: &mut dyn FnMut(&str)) {
    let on = |e: &Expr, f: &mut dyn FnMut(&str)| {
        let mut ids = Vec::new();
        expr_ids(e, &mut ids);
        ids.iter().for_each(|n| f(n));
    };
    match s {
        Stmt::Assign(l, r) => {
            if !lhs_name(l).is_some_and(|n| keep.iter().any(|k| k == n)) {
                on(r, f);
            }
        }
        Stmt::If { cond, then, els } => {
            on(cond, f);
            then.iter().chain(els).for_each(|x| stmt_ids(x, keep, f));
        }
        Stmt::Case {
            subject,
            arms,
            default,
        } => {
            on(subject, f);
            for (labels, body) in arms {
                labels.iter().for_each(|l| on(l, f));
                body.iter().for_each(|x| stmt_ids(x, keep, f));
            }
            default.iter().for_each(|x| stmt_ids(x, keep, f));
        }
        Stmt::For(l) => l.body.iter().for_each(|x| stmt_ids(x, keep, f)),
        Stmt::SysCall(_, args) => args.iter().for_each(|a| on(a, f)),
        Stmt::Comment(_) => {}
    }
}

/// `s` with the identifiers it reads renamed by `f` (targets, and the right-hand side of an
/// assignment to a name in `keep`, as they are).
fn map_stmt(s: &Stmt, keep: &[String], f: &dyn Fn(&str) -> Option<String>) -> Stmt {
    let body = |v: &[Stmt]| v.iter().map(|x| map_stmt(x, keep, f)).collect();
    match s {
        Stmt::Assign(l, r) => {
            if lhs_name(l).is_some_and(|n| keep.iter().any(|k| k == n)) {
                s.clone()
            } else {
                Stmt::Assign(l.clone(), map_expr(r, f))
            }
        }
        Stmt::If { cond, then, els } => Stmt::If {
            cond: map_expr(cond, f),
            then: body(then),
            els: body(els),
        },
        Stmt::Case {
            subject,
            arms,
            default,
        } => Stmt::Case {
            subject: map_expr(subject, f),
            arms: arms
                .iter()
                .map(|(ls, b)| (ls.iter().map(|l| map_expr(l, f)).collect(), body(b)))
                .collect(),
            default: body(default),
        },
        Stmt::For(l) => {
            let mut l = l.clone();
            l.body = body(&l.body);
            Stmt::For(l)
        }
        Stmt::SysCall(n, args) => {
            Stmt::SysCall(n.clone(), args.iter().map(|a| map_expr(a, f)).collect())
        }
        Stmt::Comment(_) => s.clone(),
    }
}
