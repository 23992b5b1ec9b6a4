//! `dcqcn_top`: the engine (`dcqcn_rp`) with its CSR block (`dcqcn_csr`), and the per-flow
//! read-back window of the map (`rp_flow_sel`, `rp_rate`, `rp_target`, `rp_current`,
//! `rp_timer`, `rp_state`) served by read-back events into the engine.
//!
//! An accepted AXI4-Lite write of `rp_flow_sel` (the CSR block takes AW and W together, so the
//! top sees it as both handshakes in one cycle at the register's address) clears
//! `rp_flow_sel.ready` and makes a read-back event (kind 3) for the written flow pending. A
//! pending read-back has priority over `s_evt_*` for one engine slot: `s_evt_ready` is low in
//! the cycles it waits for the engine, and one write costs the event stream at most one slot.
//! Writes before the read-back is taken merge into one for the newest flow. Responses stay in
//! order; an eight-entry tag FIFO (the engine holds at most seven events: its input skid,
//! stages M and R, stage X's registers, an apply X2 holds for the response FIFO and two
//! response entries) marks which are the top's own: those are taken at once and never reach
//! `m_rsp_*`. The response of the newest selection loads the window registers and sets `ready`;
//! the responses of read-backs issued for an older selection are dropped. Flow indices at or
//! beyond 2**FLOW_BITS issue no event and read back as zero with `ready` set.

use rdmagen_regmap::RegMap;
use verilog_ast::{
    BinOp, Decl, Dir, Expr, Flop, Item as V, Module, Param, Port, PortItem, Range, Stmt, UnOp,
};

use crate::{Options, KIND_READ, MODULE};

/// Module (and file) name of the top.
pub const TOP: &str = "dcqcn_top";

/// Events the engine can hold at once (its input skid, stages M and R, stage X's registers,
/// X2's apply waiting for the response FIFO, the two response FIFO entries).
pub const IN_FLIGHT: u32 = 7;

/// Bits of the tag FIFO's pointers: 2**TAG_BITS entries, at least [`IN_FLIGHT`].
const TAG_BITS: u32 = 3;

/// The window's CSR inputs (`<register>_<field>_i`) and the width the top drives.
const WINDOW: &[(&str, u32)] = &[
    ("rp_flow_sel_ready_i", 1),
    ("rp_rate_rc_i", 32),
    ("rp_target_rt_i", 32),
    ("rp_current_alpha_i", 32),
    ("rp_timer_timer_count_i", 16),
    ("rp_state_byte_count_i", 16),
    ("rp_state_stage_i", 2),
    ("rp_state_cnp_seen_i", 1),
];

/// CSR outputs nothing in the engine reads that the top passes out (the CNP builder's marking).
const PASS_OUT: &[&str] = &["cnp_dscp_value_o", "cnp_802p_prio_value_o"];

fn id(s: &str) -> Expr {
    Expr::id(s)
}
fn b1(v: bool) -> Expr {
    Expr::num(1, u128::from(v))
}
fn d(w: u32, v: u128) -> Expr {
    Expr::dec(w, v)
}
fn and(items: Vec<Expr>) -> Expr {
    Expr::all(items)
}
fn not(a: Expr) -> Expr {
    Expr::lnot(a)
}
fn or(a: Expr, b: Expr) -> Expr {
    Expr::or(a, b)
}
fn tern(c: Expr, t: Expr, f: Expr) -> Expr {
    Expr::ternary(c, t, f)
}
fn set(l: &str, r: Expr) -> Stmt {
    Stmt::assign(id(l), r)
}
fn zext(x: Expr, pad: u32) -> Expr {
    Expr::concat(vec![d(pad, 0), x])
}

/// The constant width of a port (`None` when it is parameter-sized).
fn port_width(p: &Port) -> Option<u32> {
    match &p.range {
        None => Some(1),
        Some(Range {
            msb: Expr::Int(m),
            lsb: Expr::Int(0),
        }) => Some(*m as u32 + 1),
        Some(_) => None,
    }
}

fn ports_of(m: &Module) -> Vec<&Port> {
    m.ports
        .iter()
        .filter_map(|p| match p {
            PortItem::Port(p) => Some(p),
            PortItem::Banner(_) => None,
        })
        .collect()
}

fn enum_value(map: &RegMap, e: &str, name: &str) -> Result<u64, String> {
    map.enumeration(e)
        .ok_or_else(|| format!("{}: the read-back window needs enum `{e}`", map.file))?
        .values
        .iter()
        .find(|v| v.name.text == name)
        .map(|v| v.value)
        .ok_or_else(|| format!("{}: enum `{e}` has no value `{name}`", map.file))
}

/// Lowers `dcqcn_top` from the dcqcn map (which must pass [`crate::check_map`]).
pub fn generate_top(map: &RegMap, opts: &Options) -> Result<Module, String> {
    let rp = crate::generate(map, opts)?;
    let csr = rdmagen_csr::generate(
        map,
        &rdmagen_csr::Options {
            reset: opts.reset,
            generator: opts.generator.clone(),
        },
    );
    let rst = opts.reset;
    let rp_ports = ports_of(&rp);
    let csr_ports = ports_of(&csr);
    let csr_port = |name: &str| csr_ports.iter().find(|p| p.name == name).copied();

    // ---------------------------------------------------------------- validation
    let sel = map
        .registers()
        .find(|(g, r)| g.is_none() && r.name.text == "rp_flow_sel")
        .map(|(_, r)| r)
        .ok_or_else(|| {
            format!(
                "{}: the read-back window needs register `rp_flow_sel`",
                map.file
            )
        })?;
    match csr_port("rp_flow_sel_flow_o").and_then(port_width) {
        Some(16) => {}
        _ => {
            return Err(format!(
                "{}: field `rp_flow_sel.flow` must be a 16-bit rw field",
                map.file
            ))
        }
    }
    for &(name, width) in WINDOW {
        match csr_port(name) {
            Some(p) if p.dir == Dir::Input && port_width(p) == Some(width) => {}
            _ => {
                return Err(format!(
                    "{}: the read-back window needs the ro field `{}` of {width} bits",
                    map.file,
                    name.trim_end_matches("_i")
                ))
            }
        }
    }
    let stage_of = |name: &str| enum_value(map, "rp_stage", name);
    let (st_fast, st_add, st_hyper) = (
        stage_of("FAST_RECOVERY")?,
        stage_of("ADDITIVE")?,
        stage_of("HYPER")?,
    );
    let aw_bits = csr_port("s_axil_awaddr")
        .and_then(port_width)
        .ok_or_else(|| format!("{}: the CSR block has no s_axil_awaddr", map.file))?;
    if sel.offset >> aw_bits != 0 {
        return Err(format!(
            "{}: rp_flow_sel at {:#x} is outside the CSR block's address range",
            map.file, sel.offset
        ));
    }
    // Every CSR input is driven: by the engine, by the window or by the AXI4-Lite master.
    let linked = |csr_name: &str| -> Option<String> {
        let (base, other) = if let Some(b) = csr_name.strip_suffix("_o") {
            (b, format!("{b}_i"))
        } else if let Some(b) = csr_name.strip_suffix("_i") {
            (b, format!("{b}_o"))
        } else {
            return None;
        };
        rp_ports
            .iter()
            .any(|p| p.name == other)
            .then(|| base.to_string())
    };
    for p in &csr_ports {
        let driven = p.name == "clk"
            || p.name == rst.port_name()
            || p.name.starts_with("s_axil_")
            || WINDOW.iter().any(|(n, _)| *n == p.name)
            || linked(&p.name).is_some();
        if p.dir == Dir::Input && !driven {
            return Err(format!(
                "{}: CSR input `{}` has no driver in {TOP}",
                map.file, p.name
            ));
        }
    }
    for p in &rp_ports {
        let is_link = p.name.ends_with("_i") || p.name.ends_with("_o");
        if is_link {
            let other = if let Some(b) = p.name.strip_suffix("_i") {
                format!("{b}_o")
            } else {
                format!("{}_i", p.name.trim_end_matches("_o"))
            };
            if csr_port(&other).is_none() {
                return Err(format!(
                    "{}: engine port `{}` has no CSR port `{other}`",
                    map.file, p.name
                ));
            }
        }
    }

    // ---------------------------------------------------------------- ports
    let mut ports = vec![PortItem::Banner("Clock and reset".into())];
    let mut rp_conns = Vec::new();
    let mut csr_conns = Vec::new();
    let mut decls = Vec::new();
    let mut unused = Vec::new();
    let mut window_decls = vec![V::Comment(vec!["Read-back window: CSR inputs".into()])];
    for name in ["clk", rst.port_name()] {
        let p = csr_port(name).ok_or_else(|| format!("CSR block has no `{name}`"))?;
        ports.push(PortItem::Port((*p).clone()));
        rp_conns.push((name.to_string(), id(name)));
    }
    ports.push(PortItem::Banner(
        "AXI4-Lite slave: the dcqcn map's registers, read-back window included".into(),
    ));
    for p in &csr_ports {
        if p.name.starts_with("s_axil_") {
            ports.push(PortItem::Port(Port {
                comment: None,
                ..(*p).clone()
            }));
        }
    }
    ports.push(PortItem::Banner(
        "Events in: kind 0 CNP, 1 send request of bytes, 2 CE-marked arrival, 3 read-back".into(),
    ));
    let mut eng_rsp = Vec::new();
    for p in &rp_ports {
        if p.name.starts_with("s_evt_") {
            ports.push(PortItem::Port((*p).clone()));
            let w = p.name.replacen("s_evt_", "eng_evt_", 1);
            decls.push(V::Decl(Decl::wire(w.clone(), p.range.clone())));
            rp_conns.push((p.name.clone(), id(&w)));
        }
    }
    ports.push(PortItem::Banner(
        "Responses out: one per s_evt_* event, in order (the window's own read-backs are not here)"
            .into(),
    ));
    for p in &rp_ports {
        if p.name.starts_with("m_rsp_") {
            ports.push(PortItem::Port((*p).clone()));
            let w = p.name.replacen("m_rsp_", "eng_rsp_", 1);
            decls.push(V::Decl(Decl::wire(w.clone(), p.range.clone())));
            rp_conns.push((p.name.clone(), id(&w)));
            eng_rsp.push(p.name.clone());
        }
    }
    ports.push(PortItem::Banner(
        "CNP marking (CSRs) for the CNP builder".into(),
    ));
    for name in PASS_OUT {
        let p = csr_port(name).ok_or_else(|| format!("{}: no field for `{name}`", map.file))?;
        ports.push(PortItem::Port((*p).clone()));
    }

    // Engine <-> CSR links, and the CSR's other ports.
    decls.push(V::Comment(vec![
        "Engine <-> CSR block: parameters, status and statistics pulses".into(),
    ]));
    for p in &csr_ports {
        if p.name == "clk"
            || p.name == rst.port_name()
            || p.name.starts_with("s_axil_")
            || PASS_OUT.contains(&p.name.as_str())
        {
            csr_conns.push((p.name.clone(), id(&p.name)));
        } else if let Some(base) = linked(&p.name) {
            decls.push(V::Decl(Decl::wire(base.clone(), p.range.clone())));
            csr_conns.push((p.name.clone(), id(&base)));
        } else if WINDOW.iter().any(|(n, _)| *n == p.name) {
            let w = p.name.trim_end_matches("_i");
            window_decls.push(V::Decl(Decl::wire(w, p.range.clone())));
            csr_conns.push((p.name.clone(), id(w)));
        } else if p.name == "rp_flow_sel_flow_o" {
            decls.push(V::Decl(Decl::wire("rp_flow_sel_flow", p.range.clone())));
            csr_conns.push((p.name.clone(), id("rp_flow_sel_flow")));
        } else {
            // Counter values and other software-only outputs.
            let w = format!("csr_{}", p.name.trim_end_matches("_o"));
            decls.push(V::Decl(Decl::wire(w.clone(), p.range.clone())));
            unused.push(id(&w));
            csr_conns.push((p.name.clone(), id(&w)));
        }
    }
    for p in &rp_ports {
        if let Some(b) = p.name.strip_suffix("_i").or(p.name.strip_suffix("_o")) {
            if p.name != "clk" && !p.name.starts_with("s_evt_") && !p.name.starts_with("m_rsp_") {
                rp_conns.push((p.name.clone(), id(b)));
            }
        }
    }
    let rp_conn_names: Vec<String> = rp_conns.iter().map(|(n, _)| n.clone()).collect();
    for p in &rp_ports {
        if !rp_conn_names.contains(&p.name) {
            return Err(format!("engine port `{}` is not connected", p.name));
        }
    }

    // ---------------------------------------------------------------- window logic
    let mut items = vec![V::LocalParam {
        name: "K_READ".into(),
        range: Range::bits(2),
        value: Expr::num(2, KIND_READ),
        comment: Some("engine event kind: read-back".into()),
    }];
    for (name, v, c) in [
        ("ST_FAST_RECOVERY", st_fast, "rp_stage values (map)"),
        ("ST_ADDITIVE", st_add, ""),
        ("ST_HYPER", st_hyper, ""),
    ] {
        items.push(V::LocalParam {
            name: name.into(),
            range: Range::bits(2),
            value: Expr::num(2, u128::from(v)),
            comment: (!c.is_empty()).then(|| c.into()),
        });
    }
    items.push(V::LocalParam {
        name: "SEL_WORD".into(),
        range: Range::bits(aw_bits - 2),
        value: Expr::num(aw_bits - 2, u128::from(sel.offset >> 2)),
        comment: Some(format!("rp_flow_sel at {:#05x}, word address", sel.offset)),
    });
    items.push(V::Blank);
    items.extend(decls);
    items.extend(window_decls);
    items.push(V::Blank);
    let regs: &[(&str, u32, &str)] = &[
        (
            "sel_pend",
            1,
            "a read-back of the selected flow is to be issued",
        ),
        ("sel_out", 3, "the window's read-backs in the engine"),
        (
            "sel_stale",
            3,
            "... of which this many (the oldest) are for an older selection",
        ),
        ("sel_ready", 1, "rp_flow_sel.ready"),
        ("sel_rc", 20, "window registers: Rc, Mb/s"),
        ("sel_rt", 20, "Rt, Mb/s"),
        ("sel_alpha", 25, "alpha, 24 fractional bits"),
        ("sel_tc", 16, "timer count"),
        ("sel_bc", 16, "byte count"),
        ("sel_stage", 2, "increase stage"),
        ("sel_seen", 1, "CNP seen"),
        (
            "tag",
            1 << TAG_BITS,
            "per engine event in flight: 1 = the window's read-back",
        ),
        ("tag_wp", TAG_BITS, "tag FIFO write pointer"),
        (
            "tag_rp",
            TAG_BITS,
            "tag FIFO read pointer (the oldest event's tag)",
        ),
        (
            "infl",
            3,
            "events in the engine (taken, response not yet taken)",
        ),
    ];
    items.push(V::Comment(vec!["Read-back window registers".into()]));
    for (name, w, c) in regs {
        for suffix in ["_q", "_d"] {
            let mut decl = Decl::reg(format!("{name}{suffix}"), Range::bits(*w));
            if suffix == "_q" {
                decl = decl.comment(*c);
            }
            items.push(V::Decl(decl));
        }
    }
    items.push(V::Blank);
    let sel_flow = || id("rp_flow_sel_flow");
    let wires: Vec<(&str, u32, Expr, &str)> = vec![
        (
            "sel_wr",
            1,
            and(vec![
                id("s_axil_awvalid"),
                id("s_axil_awready"),
                id("s_axil_wvalid"),
                id("s_axil_wready"),
                Expr::eq(id("s_axil_awaddr").bits(aw_bits - 1, 2), id("SEL_WORD")),
            ]),
            "rp_flow_sel is written this cycle (AW and W taken together)",
        ),
        (
            "sel_in_range",
            1,
            Expr::eq(Expr::bin(BinOp::Shr, sel_flow(), id("FLOW_BITS")), d(16, 0)),
            "the selected flow exists",
        ),
        (
            "room",
            1,
            Expr::bin(BinOp::Ne, id("infl_q"), d(3, u128::from(IN_FLIGHT))),
            "the tag FIFO has room (always, by the engine's depth)",
        ),
        (
            "rb_req",
            1,
            and(vec![id("sel_pend_q"), id("sel_in_range"), id("room")]),
            "the window's read-back claims the engine's input",
        ),
        (
            "rb_issue",
            1,
            and(vec![id("rb_req"), id("eng_evt_ready")]),
            "... and the engine takes it",
        ),
        (
            "rb_zero",
            1,
            and(vec![id("sel_pend_q"), not(id("sel_in_range"))]),
            "a flow beyond the engine: reads as zero",
        ),
        (
            "evt_push",
            1,
            and(vec![id("eng_evt_valid"), id("eng_evt_ready")]),
            "",
        ),
        (
            "tag_head",
            1,
            id("tag_q").index(id("tag_rp_q")),
            "the oldest event in the engine is the window's",
        ),
        (
            "rsp_own",
            1,
            and(vec![id("eng_rsp_valid"), id("tag_head")]),
            "the window's response: taken at once",
        ),
        (
            "rsp_cur",
            1,
            and(vec![id("rsp_own"), Expr::eq(id("sel_stale_q"), d(3, 0))]),
            "... for the current selection",
        ),
        (
            "rsp_pop",
            1,
            and(vec![id("eng_rsp_valid"), id("eng_rsp_ready")]),
            "",
        ),
        (
            "out_next",
            3,
            Expr::minus(
                Expr::plus(id("sel_out_q"), zext(id("rb_issue"), 2)),
                zext(id("rsp_own"), 2),
            ),
            "window read-backs in the engine after this cycle",
        ),
        (
            "byte_en",
            1,
            Expr::bin(BinOp::Ne, id("rpg_byte_reset_value"), d(24, 0)),
            "the byte counter counts",
        ),
        ("threshold", 16, zext(id("rpg_threshold_value"), 11), "F"),
        // Each count against F in parallel, not the larger or smaller count selected first
        // (a compare in front of a compare): the larger is below F when both are, the
        // smaller above F when both are (the timer count alone without the byte counter).
        (
            "cnt_hi_lt_f",
            1,
            and(vec![
                Expr::lt(id("eng_rsp_timer_count"), id("threshold")),
                or(
                    not(id("byte_en")),
                    Expr::lt(id("eng_rsp_byte_count"), id("threshold")),
                ),
            ]),
            "the larger count is below F",
        ),
        (
            "cnt_lo_gt_f",
            1,
            and(vec![
                Expr::bin(BinOp::Gt, id("eng_rsp_timer_count"), id("threshold")),
                or(
                    not(id("byte_en")),
                    Expr::bin(BinOp::Gt, id("eng_rsp_byte_count"), id("threshold")),
                ),
            ]),
            "the smaller count is above F",
        ),
        (
            "rsp_stage",
            2,
            tern(
                id("cnt_hi_lt_f"),
                id("ST_FAST_RECOVERY"),
                tern(id("cnt_lo_gt_f"), id("ST_HYPER"), id("ST_ADDITIVE")),
            ),
            "the stage the flow's next increase uses (both modes, FACTS §5)",
        ),
    ];
    items.push(V::Comment(vec!["Window control".into()]));
    for (name, w, _, c) in &wires {
        let mut decl = Decl::wire(*name, Range::bits(*w));
        if !c.is_empty() {
            decl = decl.comment(*c);
        }
        items.push(V::Decl(decl));
    }
    items.push(V::Decl(
        Decl::wire("unused_ok", None).comment("software-only CSR outputs; Rc and Rt fractions"),
    ));
    for (name, _, e, _) in wires {
        items.push(V::Assign(id(name), e));
    }
    items.push(V::Blank);
    items.push(V::Comment(vec![
        "Event input: a pending read-back takes the engine's next slot".into(),
    ]));
    items.push(V::Assign(
        id("eng_evt_valid"),
        Expr::or(id("rb_req"), and(vec![id("room"), id("s_evt_valid")])),
    ));
    items.push(V::Assign(
        id("eng_evt_kind"),
        tern(id("rb_req"), id("K_READ"), id("s_evt_kind")),
    ));
    items.push(V::Assign(
        id("eng_evt_flow"),
        tern(
            id("rb_req"),
            sel_flow().slice(Expr::minus(id("FLOW_BITS"), Expr::int(1)), Expr::int(0)),
            id("s_evt_flow"),
        ),
    ));
    items.push(V::Assign(
        id("eng_evt_bytes"),
        tern(id("rb_req"), d(16, 0), id("s_evt_bytes")),
    ));
    items.push(V::Assign(
        id("s_evt_ready"),
        and(vec![id("eng_evt_ready"), id("room"), not(id("rb_req"))]),
    ));
    items.push(V::Comment(vec![
        "Responses: the window's own are taken here, the others pass".into(),
    ]));
    items.push(V::Assign(
        id("m_rsp_valid"),
        and(vec![id("eng_rsp_valid"), not(id("tag_head"))]),
    ));
    items.push(V::Assign(
        id("eng_rsp_ready"),
        Expr::or(id("tag_head"), id("m_rsp_ready")),
    ));
    for name in &eng_rsp {
        if name != "m_rsp_valid" && name != "m_rsp_ready" {
            items.push(V::Assign(
                id(name),
                id(&name.replacen("m_rsp_", "eng_rsp_", 1)),
            ));
        }
    }
    items.push(V::Comment(vec!["Window registers to the CSR block".into()]));
    for (name, r, w) in [
        ("rp_flow_sel_ready", "sel_ready_q", 0),
        ("rp_rate_rc", "sel_rc_q", 12),
        ("rp_target_rt", "sel_rt_q", 12),
        ("rp_current_alpha", "sel_alpha_q", 7),
        ("rp_timer_timer_count", "sel_tc_q", 0),
        ("rp_state_byte_count", "sel_bc_q", 0),
        ("rp_state_stage", "sel_stage_q", 0),
        ("rp_state_cnp_seen", "sel_seen_q", 0),
    ] {
        items.push(V::Assign(
            id(name),
            if w == 0 { id(r) } else { zext(id(r), w) },
        ));
    }
    unused.push(id("eng_rsp_rc").bits(7, 0));
    unused.push(id("eng_rsp_rt").bits(7, 0));
    items.push(V::Assign(
        id("unused_ok"),
        Expr::un(UnOp::RedXor, Expr::concat(unused)),
    ));
    items.push(V::Blank);

    // ---------------------------------------------------------------- always @*
    let mut c = vec![Stmt::Comment("Defaults: hold".into())];
    for (name, _, _) in regs {
        c.push(set(&format!("{name}_d"), id(&format!("{name}_q"))));
    }
    c.push(Stmt::Comment(
        "Tag FIFO: one entry per event the engine takes, popped with its response".into(),
    ));
    c.push(Stmt::if_(
        id("evt_push"),
        vec![
            Stmt::assign(id("tag_d").index(id("tag_wp_q")), id("rb_issue")),
            set("tag_wp_d", Expr::plus(id("tag_wp_q"), d(TAG_BITS, 1))),
        ],
    ));
    c.push(Stmt::if_(
        id("rsp_pop"),
        vec![set("tag_rp_d", Expr::plus(id("tag_rp_q"), d(TAG_BITS, 1)))],
    ));
    c.push(Stmt::if_else(
        and(vec![id("evt_push"), not(id("rsp_pop"))]),
        vec![set("infl_d", Expr::plus(id("infl_q"), d(3, 1)))],
        vec![Stmt::if_(
            and(vec![not(id("evt_push")), id("rsp_pop")]),
            vec![set("infl_d", Expr::minus(id("infl_q"), d(3, 1)))],
        )],
    ));
    c.push(set("sel_out_d", id("out_next")));
    c.push(Stmt::Comment(
        "A write of rp_flow_sel wins: every read-back in the engine is for an older selection"
            .into(),
    ));
    let mut load = vec![set("sel_ready_d", b1(true))];
    for (r, e) in [
        ("sel_rc", id("eng_rsp_rc").bits(27, 8)),
        ("sel_rt", id("eng_rsp_rt").bits(27, 8)),
        ("sel_alpha", id("eng_rsp_alpha")),
        ("sel_tc", id("eng_rsp_timer_count")),
        ("sel_bc", id("eng_rsp_byte_count")),
        ("sel_stage", id("rsp_stage")),
        ("sel_seen", id("eng_rsp_seen")),
    ] {
        load.push(set(&format!("{r}_d"), e));
    }
    let mut zero = vec![set("sel_ready_d", b1(true))];
    for (r, w, _) in &regs[4..11] {
        zero.push(set(&format!("{r}_d"), Expr::zero(*w)));
    }
    c.push(Stmt::if_else(
        id("sel_wr"),
        vec![
            set("sel_pend_d", b1(true)),
            set("sel_ready_d", b1(false)),
            set("sel_stale_d", id("out_next")),
        ],
        vec![
            Stmt::if_(
                Expr::or(id("rb_issue"), id("rb_zero")),
                vec![set("sel_pend_d", b1(false))],
            ),
            Stmt::if_(
                and(vec![
                    id("rsp_own"),
                    Expr::bin(BinOp::Ne, id("sel_stale_q"), d(3, 0)),
                ]),
                vec![set("sel_stale_d", Expr::minus(id("sel_stale_q"), d(3, 1)))],
            ),
            Stmt::if_(id("rsp_cur"), load),
            Stmt::if_(id("rb_zero"), zero),
        ],
    ));
    items.push(V::Comb(c));
    items.push(V::Blank);
    items.push(V::Flops(
        regs.iter()
            .map(|(name, w, _)| Flop {
                q: id(&format!("{name}_q")),
                d: id(&format!("{name}_d")),
                reset: Some(Expr::zero(*w)),
            })
            .collect(),
    ));
    items.push(V::Blank);
    items.push(V::Instance {
        module: MODULE.into(),
        name: "u_rp".into(),
        params: vec![("FLOW_BITS".into(), id("FLOW_BITS"))],
        ports: rp_conns,
    });
    items.push(V::Blank);
    items.push(V::Instance {
        module: csr.name.clone(),
        name: "u_csr".into(),
        params: Vec::new(),
        ports: csr_conns,
    });

    let header = vec![
        format!(
            "{TOP}: the DCQCN engine `{MODULE}` with its CSR block `{}` and the per-flow",
            csr.name
        ),
        "read-back window (rp_flow_sel, rp_rate, rp_target, rp_current, rp_timer, rp_state)."
            .into(),
        String::new(),
        format!(
            "Generated by {} from {} (map version {}).",
            opts.generator, map.file, map.version
        ),
        "Do not edit: change the map or the generator and run `make rtl`.".into(),
        String::new(),
        "Software selects a flow by writing rp_flow_sel: rp_flow_sel.ready drops, and a".into(),
        "read-back event (kind 3) for that flow goes into the engine ahead of s_evt_* (the".into(),
        "stream loses one slot per write; writes before it is taken merge into one). Its".into(),
        "response, which catches the flow's timers up like any event, loads the window and".into(),
        "sets ready; it never appears on m_rsp_*. The window is a snapshot: later events of".into(),
        "the flow do not change it until rp_flow_sel is written again. Flows at or beyond".into(),
        "2**FLOW_BITS read as zero. rp_state.stage is the stage of the flow's next increase".into(),
        "(from its counts and the current rpg_threshold and rpg_byte_reset).".into(),
        "The engine's other ports are the top's s_evt_*/m_rsp_*; its parameters are the CSRs."
            .into(),
    ];
    Ok(Module {
        name: TOP.into(),
        header,
        params: vec![Param {
            name: "FLOW_BITS".into(),
            default: Expr::int(10),
            comment: Some("Flow index width: 2**FLOW_BITS flows, 2 to 16 (65,536 flows)".into()),
        }],
        ports,
        items,
        reset: rst,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use verilog_ast::ResetStyle;

    fn map_text() -> String {
        let path =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps/dcqcn.yaml");
        std::fs::read_to_string(path).expect("the dcqcn map")
    }

    // Parsed from memory: the tests run in parallel in one process, so a shared temp
    // file would race.
    fn load(text: &str) -> RegMap {
        rdmagen_regmap::parse("dcqcn.yaml", text).expect("map loads")
    }

    fn opts() -> Options {
        Options {
            reset: ResetStyle::AsyncLow,
            generator: "test".into(),
        }
    }

    #[test]
    fn wires_every_window_input_and_engine_port() {
        let top = generate_top(&load(&map_text()), &opts()).expect("top");
        let text = top.print();
        for (name, _) in WINDOW {
            let wire = name.trim_end_matches("_i");
            assert!(text.contains(&format!("({wire})")), "{name}");
        }
        // Each engine parameter input comes from the CSR output of the same name.
        assert!(text.contains(".rpg_gd_value_i"));
        assert!(text.contains(".rpg_gd_value_o"));
        assert!(
            text.contains("localparam [8:0] SEL_WORD"),
            "rp_flow_sel at 0x3f0"
        );
        assert!(text.contains(".rst_n"));
    }

    #[test]
    fn a_map_without_the_window_is_refused_by_name() {
        let text = map_text().replace("name: rp_flow_sel", "name: rp_flow_select");
        let e = generate_top(&load(&text), &opts()).unwrap_err();
        assert!(e.contains("rp_flow_sel"), "{e}");
        let text = map_text().replace("{ name: HYPER, value: 2,", "{ name: HYPERX, value: 2,");
        let e = generate_top(&load(&text), &opts()).unwrap_err();
        assert!(e.contains("HYPER"), "{e}");
    }
}
