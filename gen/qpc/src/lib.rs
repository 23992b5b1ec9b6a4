//! The QPC block: queue-pair context RAM partitioned per SR-IOV VF.
//!
//! Generated from a map with a `qpc` memory (the context word layout), the `qp_state`,
//! `service_type` and `qpc_cmd_op` enums and the command registers of `register-maps/qpc.yaml`;
//! its CSR block (`<block>_csr`) is instantiated inside.
//!
//! - Context address: `vf * QPS_PER_VF + local QPN`. A QPN is global: bits 19:12 name the
//!   owning VF, bits 11:0 the local QPN, bits 23:20 are zero. A request whose QPN belongs to
//!   another VF, or lies outside the partition, is refused and counted.
//! - Each lookup port (doorbell check, WQE check, RX lookup) reads its own replica RAM holding
//!   only the fields it needs, so all three run every cycle. The command engine writes every
//!   replica at once; the RX port writes back ePSN and NAK-sent into their own RAM, with
//!   the error bit of an RC remote access NAK, after which every port and command sees the
//!   QP in ERR (RST and INIT ignore the bit; INIT2RTR and TO_RST clear it). A write-back
//!   writes the whole word, so one without the bit clears it too: the RX parser sends none
//!   for a QP it moved to ERR (it drops every later frame of it for the state).
//! - Lookups: request valid/ready, response valid/ready, two-stage pipeline: the response
//!   comes 2 cycles after the request is accepted when the response side is ready, and a
//!   lookup sees every write made before the cycle it was accepted in (writes in the same
//!   cycle are not seen: read-first).
//! - Commands (CSR mailbox, `cmd_ctrl.go`): READ reads the context, EXEC decides and
//!   registers the outcome, WRITE writes it: the context write happens 3 cycles after the
//!   cycle `go` is seen (4 after the AXI write is accepted); `cmd_status.busy` covers it.
//! - Clear: after reset and on `ctrl.clear`, one context per cycle is zeroed; meanwhile
//!   commands complete with RES_BUSY, lookups answer "invalid" and write-backs wait.

use rdmagen_regmap::{Enum, Memory, RegMap};
use verilog_ast::{
    BinOp, Decl, Expr, Flop, Item as V, Module, Param, Port, PortItem, Range, ResetStyle, Stmt,
};

pub struct Options {
    pub reset: ResetStyle,
    pub generator: String,
}

/// What a map lacks for this generator (names the element).
#[derive(Debug, PartialEq, Eq)]
pub struct QpcError(pub String);

impl std::fmt::Display for QpcError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for QpcError {}

/// Doorbell-check refusal reasons (`db_rsp_reason`).
pub const DB_REASONS: [(&str, u32, &str); 5] = [
    ("OK", 0, "the doorbell may fetch"),
    ("PARTITION", 1, "QPN outside the requesting VF's partition"),
    ("INVALID", 2, "no such QP (or the RAMs are being cleared)"),
    (
        "WRONG_PAGE",
        3,
        "the doorbell came through another UAR page than the QP's uar_page",
    ),
    ("NOT_RTS", 4, "the QP is not in RTS"),
];

/// WQE-check outcomes (`wqe_rsp_status`).
pub const WQE_STATUS: [(&str, u32, &str); 4] = [
    ("EXECUTE", 0, "RTS and the PDs match: run the WQE"),
    (
        "FLUSH",
        1,
        "the QP is in ERR: complete the WQE with a flush error",
    ),
    (
        "LOC_PROT",
        2,
        "PD mismatch: complete with a local protection error",
    ),
    (
        "REFUSED",
        3,
        "outside the partition, no such QP, or a state that runs no send WQE",
    ),
];

/// R_Key check outcomes (`mk_rsp_reason`), in the order they are tested.
pub const MK_REASONS: [(&str, u32, &str); 5] = [
    (
        "OK",
        0,
        "the access is allowed (also any zero-length access: IBA C9-88)",
    ),
    (
        "INVALID",
        1,
        "index beyond NUM_MKEYS, no such key, variant byte or owning VF differs",
    ),
    ("PD", 2, "the key's PD differs from the requesting QP's"),
    ("ACCESS", 3, "a requested remote right is not granted"),
    ("RANGE", 4, "[va, va+len) is not inside the key's region"),
];

/// MKey commands: (opcode name in `qpc_cmd_op`, kind code in the engine).
const MK_COMMANDS: [(&str, u64); 3] = [
    ("CREATE_MKEY", KIND_MK_CREATE),
    ("DESTROY_MKEY", KIND_MK_DESTROY),
    ("QUERY_MKEY", KIND_MK_QUERY),
];
const KIND_MK_CREATE: u64 = 5;
const KIND_MK_DESTROY: u64 = 6;
const KIND_MK_QUERY: u64 = 7;
const KIND_NONE: u64 = 15;

fn id(s: impl Into<String>) -> Expr {
    Expr::id(s)
}
fn b1(v: bool) -> Expr {
    Expr::num(1, u128::from(v))
}
fn n(w: u32, v: u64) -> Expr {
    Expr::num(w, u128::from(v))
}

/// A field of the context word.
#[derive(Clone, Copy, Debug)]
struct F {
    msb: u32,
    lsb: u32,
}

impl F {
    fn w(self) -> u32 {
        self.msb - self.lsb + 1
    }
    fn of(self, word: &str) -> Expr {
        id(word).bits(self.msb, self.lsb)
    }
}

struct Fields {
    width: u32,
    valid: F,
    state: F,
    st: F,
    pd: F,
    uar_page: F,
    mtu: F,
    rre: F,
    rwe: F,
    rae: F,
    qkey: F,
    cqn_snd: F,
    epsn: F,
    nak: F,
}

fn mem_fields(m: &Memory) -> Result<Fields, QpcError> {
    let get = |name: &str| -> Result<F, QpcError> {
        m.fields
            .iter()
            .find(|f| f.name.text == name)
            .map(|f| F {
                msb: f.msb,
                lsb: f.lsb,
            })
            .ok_or_else(|| QpcError(format!("memory `{}` has no field `{name}`", m.name)))
    };
    Ok(Fields {
        width: m.width,
        valid: get("valid")?,
        state: get("state")?,
        st: get("st")?,
        pd: get("pd")?,
        uar_page: get("uar_page")?,
        mtu: get("mtu")?,
        rre: get("rre")?,
        rwe: get("rwe")?,
        rae: get("rae")?,
        qkey: get("q_key")?,
        cqn_snd: get("cqn_snd")?,
        epsn: get("next_rcv_psn")?,
        nak: get("nak_sent")?,
    })
}

/// Fields of the memory-key word.
struct MkFields {
    width: u32,
    valid: F,
    vf: F,
    remote_read: F,
    remote_write: F,
    remote_atomic: F,
    pd: F,
    key: F,
    va: F,
    length: F,
}

fn mk_fields(m: &Memory) -> Result<MkFields, QpcError> {
    let get = |name: &str| -> Result<F, QpcError> {
        m.fields
            .iter()
            .find(|f| f.name.text == name)
            .map(|f| F {
                msb: f.msb,
                lsb: f.lsb,
            })
            .ok_or_else(|| QpcError(format!("memory `{}` has no field `{name}`", m.name)))
    };
    Ok(MkFields {
        width: m.width,
        valid: get("valid")?,
        vf: get("vf")?,
        remote_read: get("remote_read")?,
        remote_write: get("remote_write")?,
        remote_atomic: get("remote_atomic")?,
        pd: get("pd")?,
        key: get("key")?,
        va: get("va")?,
        length: get("length")?,
    })
}

fn enum_value(map: &RegMap, e: &str, name: &str) -> Result<u64, QpcError> {
    map.enumeration(e)
        .ok_or_else(|| QpcError(format!("the map has no enum `{e}`")))?
        .values
        .iter()
        .find(|v| v.name.text == name)
        .map(|v| v.value)
        .ok_or_else(|| QpcError(format!("enum `{e}` has no value `{name}`")))
}

/// What a command does.
#[derive(Clone, Copy, PartialEq, Eq)]
enum CmdKind {
    Create,
    Destroy,
    /// Load the mailbox, moving from `from` (any when `None`) to `to`.
    Load,
    /// Change the state only.
    StateOnly,
    Query,
}

/// (opcode name, kind, from state, to state, sets the receive PSN) — the legal IB
/// transitions. The receive PSN state (ePSN and NAK-sent, `psn_mem`) is loaded from the
/// mailbox only by CREATE_QP (a free context: nothing live to lose) and INIT2RTR, the one
/// transition whose attributes include it (IBA's RQ PSN, mlx5 `next_rcv_psn`); from RTR on
/// the RX write-back owns it, so every other modify keeps the live value (reloading software's
/// copy would undo a write-back that landed since the mailbox was written).
const COMMANDS: [(&str, CmdKind, Option<&str>, &str, bool); 13] = [
    ("CREATE_QP", CmdKind::Create, None, "RST", true),
    ("DESTROY_QP", CmdKind::Destroy, None, "RST", false),
    ("RST2INIT_QP", CmdKind::Load, Some("RST"), "INIT", false),
    ("INIT2INIT_QP", CmdKind::Load, Some("INIT"), "INIT", false),
    ("INIT2RTR_QP", CmdKind::Load, Some("INIT"), "RTR", true),
    ("RTR2RTS_QP", CmdKind::Load, Some("RTR"), "RTS", false),
    ("RTS2RTS_QP", CmdKind::Load, Some("RTS"), "RTS", false),
    ("SQERR2RTS_QP", CmdKind::Load, Some("SQER"), "RTS", false),
    ("SQD_RTS_QP", CmdKind::Load, Some("SQD"), "RTS", false),
    ("RTS2SQD_QP", CmdKind::StateOnly, Some("RTS"), "SQD", false),
    ("TO_ERR_QP", CmdKind::StateOnly, None, "ERR", false),
    ("TO_RST_QP", CmdKind::StateOnly, None, "RST", false),
    ("QUERY_QP", CmdKind::Query, None, "RST", false),
];

/// One command of the transition table, with its opcode and states from the map.
pub struct Command {
    pub name: &'static str,
    pub opcode: u64,
    pub kind_code: u8,
    pub from: Option<u64>,
    pub to: u64,
    /// Loads ePSN from the mailbox and clears NAK-sent (CREATE_QP, INIT2RTR_QP).
    pub rq_psn: bool,
}

/// The commands with their opcode and state values from the map (for the reference model).
pub fn commands(map: &RegMap) -> Result<Vec<Command>, QpcError> {
    COMMANDS
        .iter()
        .map(|(name, kind, from, to, rq_psn)| {
            Ok(Command {
                name,
                opcode: enum_value(map, "qpc_cmd_op", name)?,
                kind_code: *kind as u8,
                from: from.map(|s| enum_value(map, "qp_state", s)).transpose()?,
                to: enum_value(map, "qp_state", to)?,
                rq_psn: *rq_psn,
            })
        })
        .collect()
}

/// The module name: `<block>` (the CSR block inside is `<block>_csr`).
pub fn module_name(map: &RegMap) -> String {
    map.block.text.clone()
}

struct Gen {
    ports: Vec<PortItem>,
    lp: Vec<V>,
    decls: Vec<V>,
    assigns: Vec<V>,
    comb: Vec<Stmt>,
    flops: Vec<Flop>,
    mems: Vec<V>,
    inst: Vec<V>,
}

impl Gen {
    fn wire(&mut self, name: &str, w: u32, value: Expr, comment: Option<&str>) {
        let mut d = Decl::wire(name, Range::bits(w));
        d.comment = comment.map(str::to_string);
        self.decls.push(V::Decl(d));
        self.assigns.push(V::Assign(id(name), value));
    }
    fn wire_r(&mut self, name: &str, r: Range, value: Expr) {
        self.decls.push(V::Decl(Decl::wire(name, Some(r))));
        self.assigns.push(V::Assign(id(name), value));
    }
    fn reg(&mut self, name: &str, w: u32) {
        self.decls.push(V::Decl(Decl::reg(name, Range::bits(w))));
    }
    /// `name_q` / `name_d` flop pair with a reset value.
    fn state(&mut self, name: &str, w: u32, reset: Expr) {
        self.reg(&format!("{name}_q"), w);
        self.reg(&format!("{name}_d"), w);
        self.flops.push(Flop {
            q: id(format!("{name}_q")),
            d: id(format!("{name}_d")),
            reset: Some(reset),
        });
    }
    /// A flop pair whose width is a range expression (such as `[AW-1:0]`).
    fn state_r(&mut self, name: &str, range: Range, reset: Expr) {
        for suffix in ["q", "d"] {
            self.decls.push(V::Decl(Decl::reg(
                format!("{name}_{suffix}"),
                Some(range.clone()),
            )));
        }
        self.flops.push(Flop {
            q: id(format!("{name}_q")),
            d: id(format!("{name}_d")),
            reset: Some(reset),
        });
    }
    /// An unreset datapath flop `name_q <= name_d`.
    fn data(&mut self, name: &str, w: u32) {
        self.reg(&format!("{name}_q"), w);
        self.reg(&format!("{name}_d"), w);
        self.flops.push(Flop {
            q: id(format!("{name}_q")),
            d: id(format!("{name}_d")),
            reset: None,
        });
    }
    fn input(&mut self, name: &str, w: u32, c: &str) {
        let p = Port::input(name, Range::bits(w));
        self.ports
            .push(PortItem::Port(if c.is_empty() { p } else { p.comment(c) }));
    }
    fn output(&mut self, name: &str, w: u32, c: &str) {
        let p = Port::output(name, Range::bits(w));
        self.ports
            .push(PortItem::Port(if c.is_empty() { p } else { p.comment(c) }));
    }
}

/// A clear sequencer `<p>_busy` / `<p>_addr` over addresses 0..=`last` of `aw` bits: busy from
/// reset, one address per cycle, restarted by `ctrl.clear`.
fn clear_sequencer(g: &mut Gen, p: &str, (aw, last): (&str, &str), comment: &str) {
    let zero = || Expr::Repl(Box::new(id(aw)), Box::new(b1(false)));
    let (busy_q, busy_d) = (format!("{p}_busy_q"), format!("{p}_busy_d"));
    let (addr_q, addr_d) = (format!("{p}_addr_q"), format!("{p}_addr_d"));
    g.state(&format!("{p}_busy"), 1, b1(true));
    g.state_r(&format!("{p}_addr"), Range::width(id(aw)), zero());
    let c = &mut g.comb;
    c.push(Stmt::Comment(comment.into()));
    c.push(Stmt::assign(id(busy_d.clone()), id(busy_q.clone())));
    c.push(Stmt::assign(id(addr_d.clone()), id(addr_q.clone())));
    c.push(Stmt::if_else(
        id("csr_ctrl_clear_o"),
        vec![
            Stmt::assign(id(busy_d.clone()), b1(true)),
            Stmt::assign(id(addr_d.clone()), zero()),
        ],
        vec![Stmt::if_(
            id(busy_q),
            vec![
                Stmt::assign(
                    id(addr_d),
                    Expr::plus(
                        id(addr_q.clone()),
                        Expr::concat(vec![
                            Expr::Repl(
                                Box::new(Expr::minus(id(aw), Expr::int(1))),
                                Box::new(b1(false)),
                            ),
                            b1(true),
                        ]),
                    ),
                ),
                Stmt::if_(
                    Expr::eq(
                        id(addr_q),
                        id(last).slice(Expr::minus(id(aw), Expr::int(1)), Expr::int(0)),
                    ),
                    vec![Stmt::assign(id(busy_d), b1(false))],
                ),
            ],
        )],
    ));
}

/// The two-entry response of lookup port `p` (its head, `{p}_rsp_*`, declared by the caller;
/// `new` is stage 2's answer per field): the head takes stage 1's answer when it is free this
/// cycle, else the second entry `{p}_sk_*` does; a free head takes the second entry first
/// (stage 1 holds then: `{p}_adv` is "the second entry is empty").
fn response_skid(g: &mut Gen, p: &str, new: &[(&str, u32, Expr)]) {
    g.state(&format!("{p}_sk_valid"), 1, b1(false));
    for (f, w, _) in new {
        g.data(&format!("{p}_sk_{f}"), *w);
    }
    g.wire(
        &format!("{p}_head_free"),
        1,
        Expr::or(
            Expr::lnot(id(format!("{p}_rsp_valid_q"))),
            id(format!("{p}_rsp_ready")),
        ),
        Some("the response's head is empty or taken this cycle"),
    );
    let set = |to: &str, f: &str, e: Expr| Stmt::assign(id(format!("{p}_{to}_{f}_d")), e);
    let c = &mut g.comb;
    c.push(Stmt::assign(
        id(format!("{p}_sk_valid_d")),
        id(format!("{p}_sk_valid_q")),
    ));
    for (f, _, _) in new {
        c.push(set("sk", f, id(format!("{p}_sk_{f}_q"))));
    }
    let mut from_sk = vec![set("rsp", "valid", b1(true)), set("sk", "valid", b1(false))];
    let mut from_s1 = vec![set("rsp", "valid", id(format!("{p}_s1_valid_q")))];
    let mut to_sk = vec![set("sk", "valid", id(format!("{p}_s1_valid_q")))];
    for (f, _, e) in new {
        from_sk.push(set("rsp", f, id(format!("{p}_sk_{f}_q"))));
        from_s1.push(set("rsp", f, e.clone()));
        to_sk.push(set("sk", f, e.clone()));
    }
    c.push(Stmt::if_else(
        id(format!("{p}_head_free")),
        vec![Stmt::if_else(
            id(format!("{p}_sk_valid_q")),
            from_sk,
            from_s1,
        )],
        vec![Stmt::if_(Expr::lnot(id(format!("{p}_sk_valid_q"))), to_sk)],
    ));
}

/// A replica RAM: its name and the context fields it holds, least significant first.
struct Replica {
    name: &'static str,
    fields: Vec<(&'static str, F)>,
}

impl Replica {
    fn width(&self) -> u32 {
        self.fields.iter().map(|(_, f)| f.w()).sum()
    }
    /// The replica word taken from a full context word `word`.
    fn pack(&self, word: &str) -> Expr {
        Expr::concat(self.fields.iter().rev().map(|(_, f)| f.of(word)).collect())
    }
    /// Field `name` of a replica word held in `reg`.
    fn get(&self, reg: &str, name: &str) -> Expr {
        let mut lsb = 0;
        for (n, f) in &self.fields {
            if *n == name {
                return id(reg).bits(lsb + f.w() - 1, lsb);
            }
            lsb += f.w();
        }
        unreachable!("replica {} has no field {name}", self.name)
    }
}

/// `word` with the given fields replaced, as one concatenation from the top bit down.
fn replace(word: &str, width: u32, mut with: Vec<(F, Expr)>) -> Expr {
    with.sort_by_key(|(f, _)| std::cmp::Reverse(f.lsb));
    let mut parts = Vec::new();
    let mut top = width;
    for (f, e) in with {
        if f.msb + 1 < top {
            parts.push(id(word).bits(top - 1, f.msb + 1));
        }
        parts.push(e);
        top = f.lsb;
    }
    if top > 0 {
        parts.push(id(word).bits(top - 1, 0));
    }
    Expr::concat(parts)
}

/// Lowers the QPC block.
pub fn generate(map: &RegMap, opts: &Options) -> Result<Module, QpcError> {
    let mem = map
        .memory("qpc")
        .ok_or_else(|| QpcError("the map has no memory `qpc`".into()))?;
    let f = mem_fields(mem)?;
    let csr = rdmagen_csr::generate(
        map,
        &rdmagen_csr::Options {
            reset: opts.reset,
            generator: opts.generator.clone(),
        },
    );
    // The map's QP states, service types and command opcodes are localparams (`QP_*`, `ST_*`,
    // `OP_*`, emitted with the command engine's): the RTL compares against their names.
    let enum_of = |e: &str| {
        map.enumeration(e)
            .ok_or_else(|| QpcError(format!("the map has no enum `{e}`")))
    };
    let qp_states = enum_of("qp_state")?;
    for s in ["RST", "INIT", "RTS", "ERR"] {
        enum_value(map, "qp_state", s)?;
    }
    let rst_value = enum_value(map, "qp_state", "RST")?;
    let qp = |name: &str| id(format!("QP_{name}"));
    let service_types = enum_of("service_type")?;
    // Command statuses by their localparams (`STATUS_*`).
    let status =
        |name: &str| enum_value(map, "qpc_cmd_status", name).map(|_| id(format!("STATUS_{name}")));
    let (ok, bad_op, bad_param, bad_res, res_busy, bad_state, bad_index) = (
        status("OK")?,
        status("BAD_OP")?,
        status("BAD_PARAM")?,
        status("BAD_RES")?,
        status("RES_BUSY")?,
        status("BAD_RES_STATE")?,
        status("BAD_INDEX")?,
    );
    let cmds = commands(map)?;
    let mkm = map
        .memory("mkey")
        .ok_or_else(|| QpcError("the map has no memory `mkey`".into()))?;
    let mkf = mk_fields(mkm)?;
    // A key's or an access's end, va + length: one bit wider than either, so that a region or
    // an access that ends at 2^64 does not wrap to 0.
    let mk_end_w = mkf.va.w().max(mkf.length.w()) + 1;
    let wide = |e: Expr, w: u32| Expr::concat(vec![n(mk_end_w - w, 0), e]);
    let mk_ops = MK_COMMANDS
        .iter()
        .map(|(name, kind)| Ok((enum_value(map, "qpc_cmd_op", name)?, *kind)))
        .collect::<Result<Vec<_>, QpcError>>()?;
    for p in ["NUM_VF", "QPS_PER_VF", "NUM_MKEYS"] {
        map.parameter(p)
            .ok_or_else(|| QpcError(format!("the map has no parameter `{p}`")))?;
    }
    let param = |p: &str| map.parameter(p).map(|p| p.default).unwrap_or(1);

    let mut g = Gen {
        ports: Vec::new(),
        lp: Vec::new(),
        decls: Vec::new(),
        assigns: Vec::new(),
        comb: Vec::new(),
        flops: Vec::new(),
        mems: Vec::new(),
        inst: Vec::new(),
    };
    let rst = opts.reset;

    // ---- ports
    g.ports.push(PortItem::Banner("Clock and reset".into()));
    g.ports.push(PortItem::Port(Port::input("clk", None)));
    g.ports
        .push(PortItem::Port(Port::input(rst.port_name(), None).comment(
            match rst {
                ResetStyle::SyncHigh => "synchronous, active high",
                ResetStyle::AsyncLow => "asynchronous assert, active low",
            },
        )));
    g.ports.push(PortItem::Banner(
        "AXI4-Lite slave of the CSR block (commands, counters)".into(),
    ));
    for item in &csr.ports {
        if let PortItem::Port(p) = item {
            if p.name.starts_with("s_axil_") {
                g.ports.push(PortItem::Port(Port {
                    comment: None,
                    ..p.clone()
                }));
            }
        }
    }
    // A lookup port: request (valid/ready, vf, qpn, extra fields, user) and response
    // (valid/ready, result fields, the request's vf/qpn/user).
    type Fields<'a> = &'a [(&'a str, u32, &'a str)];
    let lookup = |g: &mut Gen, p: &str, what: &str, req: Fields, rsp: Fields| {
        g.ports.push(PortItem::Banner(format!(
            "{what}: request, answered 2 cycles after acceptance when the response side is ready"
        )));
        g.input(&format!("{p}_req_valid"), 1, "");
        g.output(&format!("{p}_req_ready"), 1, "");
        g.input(&format!("{p}_req_vf"), 8, "requesting function");
        g.input(
            &format!("{p}_req_qpn"),
            24,
            "global QPN: {4'b0, owning VF[7:0], local QPN[11:0]}",
        );
        for (name, w, c) in req {
            g.input(&format!("{p}_req_{name}"), *w, c);
        }
        g.input(&format!("{p}_req_user"), 32, "returned with the response");
        g.output(&format!("{p}_rsp_valid"), 1, "");
        g.input(&format!("{p}_rsp_ready"), 1, "");
        for (name, w, c) in rsp {
            g.output(&format!("{p}_rsp_{name}"), *w, c);
        }
        for (name, w) in [("vf", 8), ("qpn", 24), ("user", 32)] {
            g.output(&format!("{p}_rsp_{name}"), w, "");
        }
    };
    lookup(
        &mut g,
        "db",
        "Doorbell check (UAR)",
        &[("page", 24, "UAR page the doorbell came through")],
        &[
            ("ok", 1, "the doorbell may fetch its WQE"),
            (
                "reason",
                3,
                "0 OK, 1 PARTITION, 2 INVALID, 3 WRONG_PAGE, 4 NOT_RTS",
            ),
        ],
    );
    lookup(
        &mut g,
        "wqe",
        "WQE check (send engine)",
        &[("pd", 24, "protection domain of the WQE's memory keys")],
        &[
            (
                "status",
                2,
                "0 EXECUTE, 1 FLUSH (ERR), 2 LOC_PROT (PD mismatch), 3 REFUSED",
            ),
            ("cqn", 24, "send CQ for the completion"),
        ],
    );
    let ok_only = "0 unless ok";
    lookup(
        &mut g,
        "rx",
        "RX lookup (parser)",
        &[],
        &[
            ("ok", 1, "the QP exists in the requester's partition"),
            ("state", f.state.w(), ok_only),
            ("st", f.st.w(), ok_only),
            ("pd", f.pd.w(), ok_only),
            ("epsn", f.epsn.w(), ok_only),
            ("nak_sent", 1, ok_only),
            ("rre", 1, ok_only),
            ("rwe", 1, ok_only),
            ("rae", 1, ok_only),
            ("mtu", f.mtu.w(), "path MTU code; 0 unless ok"),
            (
                "qkey",
                f.qkey.w(),
                "Q_Key (the parser checks UD DETHs); 0 unless ok",
            ),
        ],
    );
    g.ports.push(PortItem::Banner(
        "RX write-back: the parser's new ePSN and NAK-sent flag, and the move to ERR".into(),
    ));
    g.input("rx_wb_valid", 1, "");
    g.output(
        "rx_wb_ready",
        1,
        "low in a command's WRITE cycle and while the clear runs",
    );
    g.input("rx_wb_vf", 8, "");
    g.input("rx_wb_qpn", 24, "");
    g.input("rx_wb_epsn", f.epsn.w(), "");
    g.input("rx_wb_nak_sent", 1, "");
    g.input(
        "rx_wb_err",
        1,
        "the responder's error (RC remote access NAK): the QP reads as ERR until a command or a \
         write-back without it rewrites the bit",
    );
    g.ports.push(PortItem::Banner(
        "R_Key check (RX parser, RETH): answered 2 cycles after acceptance when ready".into(),
    ));
    g.input("mk_req_valid", 1, "");
    g.output("mk_req_ready", 1, "");
    g.input("mk_req_vf", 8, "VF of the QP the request arrived on");
    g.input("mk_req_pd", 24, "PD of that QP");
    g.input(
        "mk_req_rkey",
        32,
        "R_Key: [31:8] table index, [7:0] variant byte",
    );
    g.input("mk_req_va", 64, "first byte of the access");
    g.input("mk_req_len", 32, "DMA length in bytes; 0 is always allowed");
    g.input(
        "mk_req_access",
        3,
        "rights needed: [0] remote read, [1] remote write, [2] remote atomic",
    );
    g.input("mk_req_user", 32, "returned with the response");
    g.output("mk_rsp_valid", 1, "");
    g.input("mk_rsp_ready", 1, "");
    g.output("mk_rsp_ok", 1, "the access is allowed");
    g.output(
        "mk_rsp_reason",
        3,
        "0 OK, 1 INVALID, 2 PD, 3 ACCESS, 4 RANGE",
    );
    g.output("mk_rsp_vf", 8, "");
    g.output("mk_rsp_rkey", 32, "");
    g.output("mk_rsp_user", 32, "");
    g.ports.push(PortItem::Banner("Interrupt".into()));
    g.ports.push(PortItem::Port(
        Port::output("irq_o", None).comment("from the CSR block: command done / error"),
    ));

    // ---- geometry
    g.lp.push(V::Comment(vec!["Context RAM geometry".into()]));
    g.lp.push(V::LocalParam {
        name: "DEPTH".into(),
        range: None,
        value: Expr::times(id("NUM_VF"), id("QPS_PER_VF")),
        comment: Some("contexts: one per (VF, local QPN)".into()),
    });
    g.lp.push(V::LocalParam {
        name: "AW".into(),
        range: None,
        value: Expr::ternary(
            Expr::bin(BinOp::Gt, id("DEPTH"), Expr::int(1)),
            Expr::call("$clog2", vec![id("DEPTH")]),
            Expr::int(1),
        ),
        comment: Some("context address bits".into()),
    });
    g.lp.push(V::LocalParam {
        name: "LAST".into(),
        range: None,
        value: Expr::minus(id("DEPTH"), Expr::int(1)),
        comment: Some("address of the last context".into()),
    });
    g.lp.push(V::LocalParam {
        name: "GEO_NUM_VF".into(),
        range: Range::bits(9),
        value: id("NUM_VF").bits(8, 0),
        comment: None,
    });
    g.lp.push(V::LocalParam {
        name: "GEO_QPS_PER_VF".into(),
        range: Range::bits(13),
        value: id("QPS_PER_VF").bits(12, 0),
        comment: None,
    });
    g.lp.push(V::LocalParam {
        name: "GEO_POW2".into(),
        range: Some(Range {
            msb: Expr::int(0),
            lsb: Expr::int(0),
        }),
        value: Expr::and(
            Expr::eq(
                Expr::band(id("NUM_VF"), Expr::minus(id("NUM_VF"), Expr::int(1))),
                Expr::int(0),
            ),
            Expr::eq(
                Expr::band(
                    id("QPS_PER_VF"),
                    Expr::minus(id("QPS_PER_VF"), Expr::int(1)),
                ),
                Expr::int(0),
            ),
        ),
        comment: Some(
            "NUM_VF and QPS_PER_VF are powers of two: every (vf, local QPN) address is in range"
                .into(),
        ),
    });
    g.lp.push(V::LocalParam {
        name: "LOCAL_MASK".into(),
        range: Range::bits(12),
        value: Expr::minus(id("QPS_PER_VF").bits(11, 0), n(12, 1)),
        comment: Some("local QPN bits of a context address (GEO_POW2)".into()),
    });
    g.lp.push(V::Comment(vec!["Memory-key table geometry".into()]));
    g.lp.push(V::LocalParam {
        name: "MK_AW".into(),
        range: None,
        value: Expr::ternary(
            Expr::bin(BinOp::Gt, id("NUM_MKEYS"), Expr::int(1)),
            Expr::call("$clog2", vec![id("NUM_MKEYS")]),
            Expr::int(1),
        ),
        comment: Some("MKey index bits used to address the table".into()),
    });
    g.lp.push(V::LocalParam {
        name: "MK_LAST".into(),
        range: None,
        value: Expr::minus(id("NUM_MKEYS"), Expr::int(1)),
        comment: Some("index of the last MKey".into()),
    });
    g.lp.push(V::LocalParam {
        name: "GEO_NUM_MKEYS".into(),
        range: Range::bits(13),
        value: id("NUM_MKEYS").bits(12, 0),
        comment: None,
    });
    let addr_r = || Range::width(id("AW"));
    let mk_addr_r = || Range::width(id("MK_AW"));
    let zero_mk = || Expr::Repl(Box::new(id("MK_AW")), Box::new(b1(false)));

    // ---- CSR block instance: hardware ports become wires of the same name.
    let mut conns = Vec::new();
    for item in &csr.ports {
        let PortItem::Port(p) = item else { continue };
        let top_level = p.name == "clk"
            || p.name == rst.port_name()
            || p.name.starts_with("s_axil_")
            || p.name == "irq_o";
        if !top_level {
            let mut d = Decl::wire(format!("csr_{}", p.name), p.range.clone());
            d.comment = None;
            g.decls.push(V::Decl(d));
        }
        let target = if top_level {
            id(p.name.clone())
        } else {
            id(format!("csr_{}", p.name))
        };
        conns.push((p.name.clone(), target));
    }
    g.inst.push(V::Comment(vec![
        "The CSR block: commands, status, counters and the mailbox.".into(),
    ]));
    g.inst.push(V::Instance {
        module: csr.name.clone(),
        name: "u_csr".into(),
        params: Vec::new(),
        ports: conns,
    });

    // ---- replicas
    let db_rep = Replica {
        name: "db",
        fields: vec![
            ("uar_page", f.uar_page),
            ("state", f.state),
            ("valid", f.valid),
        ],
    };
    let wqe_rep = Replica {
        name: "wqe",
        fields: vec![
            ("cqn_snd", f.cqn_snd),
            ("pd", f.pd),
            ("state", f.state),
            ("valid", f.valid),
        ],
    };
    let rx_rep = Replica {
        name: "rx",
        fields: vec![
            ("qkey", f.qkey),
            ("mtu", f.mtu),
            ("rae", f.rae),
            ("rwe", f.rwe),
            ("rre", f.rre),
            ("pd", f.pd),
            ("st", f.st),
            ("state", f.state),
            ("valid", f.valid),
        ],
    };
    // {err, nak_sent, ePSN}: `err` is the RX path's move to ERR (`rx_wb_err`), kept beside
    // the PSN state because the write-back writes only this word.
    let psn_w = f.epsn.w() + 2;
    let err_bit = f.epsn.w() + 1;
    for (name, w, what) in [
        (
            "ctx_mem",
            f.width,
            "full context words, written by commands",
        ),
        (
            "db_mem",
            db_rep.width(),
            "doorbell-check replica: uar_page, state, valid",
        ),
        (
            "wqe_mem",
            wqe_rep.width(),
            "WQE-check replica: cqn_snd, pd, state, valid",
        ),
        (
            "rx_mem",
            rx_rep.width(),
            "RX replica: MTU, access flags, pd, st, state, valid",
        ),
        (
            "psn_mem",
            psn_w,
            "{err, nak_sent, ePSN}: written by commands and the RX write-back",
        ),
        (
            "db_err_mem",
            1,
            "doorbell-check replica of psn_mem's err bit",
        ),
        ("wqe_err_mem", 1, "WQE-check replica of psn_mem's err bit"),
    ] {
        let mut d = Decl::reg(name, Range::bits(w));
        d.array = Some(Box::new(Range {
            msb: Expr::int(0),
            lsb: Expr::minus(id("DEPTH"), Expr::int(1)),
        }));
        d.comment = Some(what.into());
        g.decls.push(V::Decl(d));
    }

    {
        let mut d = Decl::reg("mkey_mem", Range::bits(mkf.width));
        d.array = Some(Box::new(Range {
            msb: Expr::int(0),
            lsb: Expr::minus(id("NUM_MKEYS"), Expr::int(1)),
        }));
        d.comment = Some("memory-key table, written by MKey commands".into());
        g.decls.push(V::Decl(d));
        let mut d = Decl::reg("mkey_end_mem", Range::bits(mk_end_w));
        d.array = Some(Box::new(Range {
            msb: Expr::int(0),
            lsb: Expr::minus(id("NUM_MKEYS"), Expr::int(1)),
        }));
        d.comment = Some("each key's region end, va + length: written beside mkey_mem".into());
        g.decls.push(V::Decl(d));
    }

    // ---- clear sequencers: contexts and keys, one word per cycle each, in parallel
    let zero_aw = || Expr::Repl(Box::new(id("AW")), Box::new(b1(false)));
    clear_sequencer(
        &mut g,
        "clr",
        ("AW", "LAST"),
        "Clear: one context per cycle from address 0; restarts on ctrl.clear",
    );
    clear_sequencer(
        &mut g,
        "mk_clr",
        ("MK_AW", "MK_LAST"),
        "The memory-key table clears alongside, one key per cycle",
    );
    // `clearing` from one flop, not the OR of the two sequencers' flops: it gates every EXEC
    // decision and QUERY_QP's copy into the mailbox (one LUT input fewer on those paths).
    g.wire(
        "clearing_d",
        1,
        Expr::or(id("clr_busy_d"), id("mk_clr_busy_d")),
        None,
    );
    g.reg("clearing_q", 1);
    g.flops.push(Flop {
        q: id("clearing_q"),
        d: id("clearing_d"),
        reset: Some(b1(true)),
    });
    g.wire(
        "clearing",
        1,
        id("clearing_q"),
        Some("either clear sequence runs: commands complete with RES_BUSY"),
    );

    // ---- partition check and address of a (vf, qpn) pair
    // `lookup`: a read-only port. With power-of-two geometry its address is the VF and the
    // local QPN's low bits side by side, not gated by the partition check (any value is a
    // context; the response is refused from the registered check): no adder and no check on
    // the way into the replica RAM's address (issue 9: LUT depth).
    let part = |g: &mut Gen, p: &str, vf: &str, qpn: &str, lookup: bool| {
        g.wire(
            &format!("{p}_inpart"),
            1,
            Expr::all(vec![
                Expr::eq(id(qpn).bits(23, 20), n(4, 0)),
                Expr::eq(id(qpn).bits(19, 12), id(vf)),
                Expr::lt(Expr::concat(vec![n(1, 0), id(vf)]), id("GEO_NUM_VF")),
                Expr::lt(
                    Expr::concat(vec![n(1, 0), id(qpn).bits(11, 0)]),
                    id("GEO_QPS_PER_VF"),
                ),
            ]),
            Some("the QPN lies in the requesting VF's partition"),
        );
        g.wire_r(
            &format!("{p}_index"),
            Range::bits(32).expect("32 bits"),
            Expr::plus(
                Expr::times(Expr::concat(vec![n(24, 0), id(vf)]), id("QPS_PER_VF")),
                Expr::concat(vec![n(20, 0), id(qpn).bits(11, 0)]),
            ),
        );
        let gated = Expr::ternary(
            id(format!("{p}_inpart")),
            id(format!("{p}_index")).slice(Expr::minus(id("AW"), Expr::int(1)), Expr::int(0)),
            zero_aw(),
        );
        let addr = if lookup {
            g.wire_r(
                &format!("{p}_index_p2"),
                Range::bits(32).expect("32 bits"),
                Expr::bor(
                    Expr::times(Expr::concat(vec![n(24, 0), id(vf)]), id("QPS_PER_VF")),
                    Expr::concat(vec![
                        n(20, 0),
                        Expr::band(id(qpn).bits(11, 0), id("LOCAL_MASK")),
                    ]),
                ),
            );
            Expr::ternary(
                id("GEO_POW2"),
                id(format!("{p}_index_p2"))
                    .slice(Expr::minus(id("AW"), Expr::int(1)), Expr::int(0)),
                gated,
            )
        } else {
            gated
        };
        g.wire_r(&format!("{p}_addr"), addr_r(), addr);
    };

    // ---- lookup pipelines
    // `skid`: the response has a second entry (`{p}_sk_*`), so the pipeline moves while that
    // entry is empty and `{p}_req_ready` is a flop's (no path from `{p}_rsp_ready`); without
    // it the pipeline moves with the response's ready (the RX and R_Key ports, which the RX
    // parser drives in step with its own pipeline every cycle).
    let pipeline = |g: &mut Gen, p: &str, rep: &Replica, extra: &[(&str, u32)], skid: bool| {
        part(g, p, &format!("{p}_req_vf"), &format!("{p}_req_qpn"), true);
        let (adv, what) = if skid {
            (
                Expr::lnot(id(format!("{p}_sk_valid_q"))),
                "the pipeline moves this cycle: the response's second entry is empty",
            )
        } else {
            (
                Expr::or(
                    Expr::lnot(id(format!("{p}_rsp_valid_q"))),
                    id(format!("{p}_rsp_ready")),
                ),
                "the pipeline moves this cycle",
            )
        };
        g.wire(&format!("{p}_adv"), 1, adv, Some(what));
        g.wire(
            &format!("{p}_take"),
            1,
            Expr::and(id(format!("{p}_req_valid")), id(format!("{p}_adv"))),
            Some("a request is accepted this cycle"),
        );
        // Ready is low in reset (SPEC §2: nothing is accepted while in reset; the stage-1
        // flops are held there, so a handshake would be lost). Only the port is gated:
        // `_take` stays on `_adv`, whose effects reset discards anyway.
        g.assigns.push(V::Assign(
            id(format!("{p}_req_ready")),
            Expr::and(rst.released(), id(format!("{p}_adv"))),
        ));
        // Stage 1: the request and the replica word read at acceptance.
        g.state(&format!("{p}_s1_valid"), 1, b1(false));
        let mut s1 = vec![
            ("vf", 8u32),
            ("qpn", 24),
            ("user", 32),
            ("inpart", 1),
            ("clear", 1),
        ];
        s1.extend_from_slice(extra);
        for (name, w) in &s1 {
            g.data(&format!("{p}_s1_{name}"), *w);
        }
        // The replica read: a RAM read port with enable (read-first), outside `always @*`.
        g.reg(&format!("{p}_word_q"), rep.width());
        g.flops.push(Flop {
            q: id(format!("{p}_word_q")),
            d: Expr::ternary(
                id(format!("{p}_adv")),
                id(format!("{}_mem", rep.name)).index(id(format!("{p}_addr"))),
                id(format!("{p}_word_q")),
            ),
            reset: None,
        });
        let c = &mut g.comb;
        c.push(Stmt::Comment(format!(
            "{p}: stage 1 takes the request and reads the {} replica",
            rep.name
        )));
        c.push(Stmt::assign(
            id(format!("{p}_s1_valid_d")),
            id(format!("{p}_s1_valid_q")),
        ));
        for (name, _) in &s1 {
            c.push(Stmt::assign(
                id(format!("{p}_s1_{name}_d")),
                id(format!("{p}_s1_{name}_q")),
            ));
        }
        let mut load = vec![Stmt::assign(
            id(format!("{p}_s1_valid_d")),
            id(format!("{p}_req_valid")),
        )];
        for (name, _) in &s1 {
            let src = match *name {
                "inpart" => id(format!("{p}_inpart")),
                "clear" => id("clr_busy_q"),
                other => id(format!("{p}_req_{other}")),
            };
            load.push(Stmt::assign(id(format!("{p}_s1_{name}_d")), src));
        }
        c.push(Stmt::if_(id(format!("{p}_adv")), load));
    };

    pipeline(&mut g, "db", &db_rep, &[("page", 24)], true);
    pipeline(&mut g, "wqe", &wqe_rep, &[("pd", 24)], true);
    pipeline(&mut g, "rx", &rx_rep, &[], false);
    // The doorbell and WQE ports read their replica of the err bit; the RX port reads
    // {err, nak_sent, ePSN}.
    for p in ["db", "wqe"] {
        g.reg(&format!("{p}_err_q"), 1);
        g.flops.push(Flop {
            q: id(format!("{p}_err_q")),
            d: Expr::ternary(
                id(format!("{p}_adv")),
                id(format!("{p}_err_mem")).index(id(format!("{p}_addr"))),
                id(format!("{p}_err_q")),
            ),
            reset: None,
        });
    }
    g.reg("rx_psn_q", psn_w);
    g.flops.push(Flop {
        q: id("rx_psn_q"),
        d: Expr::ternary(
            id("rx_adv"),
            id("psn_mem").index(id("rx_addr")),
            id("rx_psn_q"),
        ),
        reset: None,
    });

    // Stage 2: responses.
    // The state a port sees: ERR when the RX path moved the QP there (`err`, from
    // `rx_wb_err`) and the context is past INIT. A write-back can land after TO_RST (it
    // waits out the command's WRITE cycle), so RST and INIT ignore the bit, and INIT2RTR,
    // which loads the receive PSN state, clears it.
    let in_err = |state: Expr, err: Expr| {
        Expr::or(
            Expr::eq(state.clone(), qp("ERR")),
            Expr::all(vec![
                err,
                Expr::bin(BinOp::Ne, state.clone(), qp("RST")),
                Expr::bin(BinOp::Ne, state, qp("INIT")),
            ]),
        )
    };
    let exists = |p: &str, rep: &Replica| {
        Expr::all(vec![
            id(format!("{p}_s1_inpart_q")),
            Expr::lnot(id(format!("{p}_s1_clear_q"))),
            rep.get(&format!("{p}_word_q"), "valid"),
        ])
    };
    let resp_regs = |g: &mut Gen, p: &str, fields: &[(&str, u32)]| {
        g.state(&format!("{p}_rsp_valid"), 1, b1(false));
        for (name, w) in fields {
            g.data(&format!("{p}_rsp_{name}"), *w);
            g.assigns.push(V::Assign(
                id(format!("{p}_rsp_{name}")),
                id(format!("{p}_rsp_{name}_q")),
            ));
        }
        g.assigns.push(V::Assign(
            id(format!("{p}_rsp_valid")),
            id(format!("{p}_rsp_valid_q")),
        ));
        let c = &mut g.comb;
        c.push(Stmt::Comment(format!(
            "{p}: stage 2 registers the response"
        )));
        c.push(Stmt::assign(
            id(format!("{p}_rsp_valid_d")),
            Expr::and(
                id(format!("{p}_rsp_valid_q")),
                Expr::lnot(id(format!("{p}_rsp_ready"))),
            ),
        ));
        for (name, _) in fields {
            c.push(Stmt::assign(
                id(format!("{p}_rsp_{name}_d")),
                id(format!("{p}_rsp_{name}_q")),
            ));
        }
    };
    // db
    resp_regs(
        &mut g,
        "db",
        &[
            ("ok", 1),
            ("reason", 3),
            ("vf", 8),
            ("qpn", 24),
            ("user", 32),
        ],
    );
    // The reason's bits as flat terms rather than a priority chain, so that the page compare
    // after the replica's read feeds one OR (issue 9: LUT depth).
    g.wire("db_exists", 1, exists("db", &db_rep), None);
    // One page compare for all three terms: separate `==` and `!=` of the same operands
    // were mapped as a chain (8 levels into `db_rsp_reason_q` at 4 x 16).
    g.wire(
        "db_page_eq",
        1,
        Expr::eq(db_rep.get("db_word_q", "uar_page"), id("db_s1_page_q")),
        Some("the doorbell's page is the QP's"),
    );
    g.wire(
        "db_page_bad",
        1,
        Expr::and(id("db_exists"), Expr::lnot(id("db_page_eq"))),
        None,
    );
    // (RTS with the err bit set reads as ERR: not RTS.)
    g.wire(
        "db_state_bad",
        1,
        Expr::all(vec![
            id("db_exists"),
            id("db_page_eq"),
            Expr::or(
                Expr::bin(BinOp::Ne, db_rep.get("db_word_q", "state"), qp("RTS")),
                id("db_err_q"),
            ),
        ]),
        None,
    );
    g.wire(
        "db_reason",
        3,
        Expr::concat(vec![
            id("db_state_bad"),
            Expr::or(
                Expr::and(id("db_s1_inpart_q"), Expr::lnot(id("db_exists"))),
                id("db_page_bad"),
            ),
            Expr::or(Expr::lnot(id("db_s1_inpart_q")), id("db_page_bad")),
        ]),
        Some("first failing check: 1 partition, 2 existence, 3 page, 4 state (0 OK)"),
    );
    g.wire(
        "db_ok",
        1,
        Expr::all(vec![
            id("db_exists"),
            id("db_page_eq"),
            Expr::eq(db_rep.get("db_word_q", "state"), qp("RTS")),
            Expr::lnot(id("db_err_q")),
        ]),
        None,
    );
    let mut new = vec![("ok", 1, id("db_ok")), ("reason", 3, id("db_reason"))];
    for (x, w) in [("vf", 8), ("qpn", 24), ("user", 32)] {
        new.push((x, w, id(format!("db_s1_{x}_q"))));
    }
    response_skid(&mut g, "db", &new);
    // wqe
    resp_regs(
        &mut g,
        "wqe",
        &[
            ("status", 2),
            ("cqn", 24),
            ("vf", 8),
            ("qpn", 24),
            ("user", 32),
        ],
    );
    let wstate = wqe_rep.get("wqe_word_q", "state");
    // The status bits as flat terms rather than a priority chain: the PD compare after the
    // replica's read (a block RAM at 256 VFs, with its output mux) feeds one OR (issue 9).
    g.wire("wqe_exists", 1, exists("wqe", &wqe_rep), None);
    g.wire(
        "wqe_in_err",
        1,
        in_err(wstate.clone(), id("wqe_err_q")),
        Some("the QP reads as ERR"),
    );
    g.wire(
        "wqe_refused",
        1,
        Expr::or(
            Expr::lnot(id("wqe_exists")),
            Expr::and(
                Expr::lnot(id("wqe_in_err")),
                Expr::bin(BinOp::Ne, wstate.clone(), qp("RTS")),
            ),
        ),
        Some("no such QP, or neither in RTS nor in ERR"),
    );
    g.wire(
        "wqe_flush",
        1,
        Expr::and(id("wqe_exists"), id("wqe_in_err")),
        None,
    );
    g.wire(
        "wqe_pd_bad",
        1,
        Expr::all(vec![
            id("wqe_exists"),
            Expr::eq(wstate, qp("RTS")),
            Expr::lnot(id("wqe_err_q")),
            Expr::bin(
                BinOp::Ne,
                wqe_rep.get("wqe_word_q", "pd"),
                id("wqe_s1_pd_q"),
            ),
        ]),
        Some("a QP in RTS of another PD"),
    );
    g.wire(
        "wqe_status",
        2,
        Expr::concat(vec![
            Expr::or(id("wqe_refused"), id("wqe_pd_bad")),
            Expr::or(id("wqe_refused"), id("wqe_flush")),
        ]),
        Some("3 refused, 1 flush (ERR), 2 PD mismatch, 0 execute"),
    );
    let mut new = vec![
        ("status", 2, id("wqe_status")),
        (
            "cqn",
            24,
            Expr::ternary(
                exists("wqe", &wqe_rep),
                wqe_rep.get("wqe_word_q", "cqn_snd"),
                Expr::zero(24),
            ),
        ),
    ];
    for (x, w) in [("vf", 8), ("qpn", 24), ("user", 32)] {
        new.push((x, w, id(format!("wqe_s1_{x}_q"))));
    }
    response_skid(&mut g, "wqe", &new);
    // rx
    let rx_fields: Vec<(&str, u32)> = vec![
        ("ok", 1),
        ("state", f.state.w()),
        ("st", f.st.w()),
        ("pd", f.pd.w()),
        ("epsn", f.epsn.w()),
        ("nak_sent", 1),
        ("rre", 1),
        ("rwe", 1),
        ("rae", 1),
        ("mtu", f.mtu.w()),
        ("qkey", f.qkey.w()),
        ("vf", 8),
        ("qpn", 24),
        ("user", 32),
    ];
    resp_regs(&mut g, "rx", &rx_fields);
    g.wire(
        "rx_ok",
        1,
        exists("rx", &rx_rep),
        Some("the QP exists in the partition"),
    );
    let mut load = vec![
        Stmt::assign(id("rx_rsp_valid_d"), id("rx_s1_valid_q")),
        Stmt::assign(id("rx_rsp_ok_d"), id("rx_ok")),
    ];
    g.wire(
        "rx_in_err",
        1,
        in_err(
            rx_rep.get("rx_word_q", "state"),
            id("rx_psn_q").bits(err_bit, err_bit),
        ),
        Some("the QP reads as ERR (in ERR, or the err bit of {err, nak_sent, ePSN} past INIT)"),
    );
    g.wire(
        "rx_state",
        f.state.w(),
        Expr::ternary(id("rx_in_err"), qp("ERR"), rx_rep.get("rx_word_q", "state")),
        Some("the QP's state as the ports see it"),
    );
    for (name, w) in &rx_fields[1..11] {
        let v = match *name {
            "state" => id("rx_state"),
            "epsn" => id("rx_psn_q").bits(f.epsn.w() - 1, 0),
            "nak_sent" => id("rx_psn_q").bits(f.epsn.w(), f.epsn.w()),
            other => rx_rep.get("rx_word_q", other),
        };
        load.push(Stmt::assign(
            id(format!("rx_rsp_{name}_d")),
            Expr::ternary(id("rx_ok"), v, Expr::zero(*w)),
        ));
    }
    for x in ["vf", "qpn", "user"] {
        load.push(Stmt::assign(
            id(format!("rx_rsp_{x}_d")),
            id(format!("rx_s1_{x}_q")),
        ));
    }
    g.comb.push(Stmt::if_(id("rx_adv"), load));

    // ---- R_Key check: stage 1 reads the key, stage 2 checks it against the request.
    g.wire(
        "mk_inrange",
        1,
        Expr::and(
            Expr::eq(id("mk_req_rkey").bits(31, 21), n(11, 0)),
            Expr::lt(id("mk_req_rkey").bits(20, 8), id("GEO_NUM_MKEYS")),
        ),
        Some("the R_Key's index lies inside the table"),
    );
    g.wire_r(
        "mk_addr",
        mk_addr_r(),
        Expr::ternary(
            id("mk_inrange"),
            id("mk_req_rkey").slice(Expr::plus(id("MK_AW"), Expr::int(7)), Expr::int(8)),
            zero_mk(),
        ),
    );
    g.wire(
        "mk_adv",
        1,
        Expr::or(Expr::lnot(id("mk_rsp_valid_q")), id("mk_rsp_ready")),
        Some("the pipeline moves this cycle"),
    );
    g.assigns.push(V::Assign(
        id("mk_req_ready"),
        Expr::and(rst.released(), id("mk_adv")),
    ));
    // The access's end, one past its last byte, added as the request is taken: the range
    // check then compares two ends instead of adding in the same cycle (issue 9).
    g.wire(
        "mk_req_end",
        mk_end_w,
        Expr::plus(wide(id("mk_req_va"), 64), wide(id("mk_req_len"), 32)),
        Some("mk_req_va + mk_req_len, without wrapping"),
    );
    g.state("mk_s1_valid", 1, b1(false));
    let mk_s1: [(&str, u32); 10] = [
        ("vf", 8),
        ("pd", 24),
        ("rkey", 32),
        ("va", 64),
        ("len", 32),
        ("end", mk_end_w),
        ("access", 3),
        ("user", 32),
        ("inrange", 1),
        ("clear", 1),
    ];
    for (name, w) in mk_s1 {
        g.data(&format!("mk_s1_{name}"), w);
    }
    g.reg("mk_word_q", mkf.width);
    g.flops.push(Flop {
        q: id("mk_word_q"),
        d: Expr::ternary(
            id("mk_adv"),
            id("mkey_mem").index(id("mk_addr")),
            id("mk_word_q"),
        ),
        reset: None,
    });
    g.reg("mk_end_q", mk_end_w);
    g.flops.push(Flop {
        q: id("mk_end_q"),
        d: Expr::ternary(
            id("mk_adv"),
            id("mkey_end_mem").index(id("mk_addr")),
            id("mk_end_q"),
        ),
        reset: None,
    });
    let c = &mut g.comb;
    c.push(Stmt::Comment(
        "mk: stage 1 takes the request and reads the key".into(),
    ));
    c.push(Stmt::assign(id("mk_s1_valid_d"), id("mk_s1_valid_q")));
    for (name, _) in mk_s1 {
        c.push(Stmt::assign(
            id(format!("mk_s1_{name}_d")),
            id(format!("mk_s1_{name}_q")),
        ));
    }
    let mut load = vec![Stmt::assign(id("mk_s1_valid_d"), id("mk_req_valid"))];
    for (name, _) in mk_s1 {
        let src = match name {
            "inrange" => id("mk_inrange"),
            "clear" => id("mk_clr_busy_q"),
            "end" => id("mk_req_end"),
            other => id(format!("mk_req_{other}")),
        };
        load.push(Stmt::assign(id(format!("mk_s1_{name}_d")), src));
    }
    c.push(Stmt::if_(id("mk_adv"), load));
    resp_regs(
        &mut g,
        "mk",
        &[
            ("ok", 1),
            ("reason", 3),
            ("vf", 8),
            ("rkey", 32),
            ("user", 32),
        ],
    );
    let key = |f: F| f.of("mk_word_q");
    g.wire(
        "mk_found",
        1,
        Expr::all(vec![
            id("mk_s1_inrange_q"),
            Expr::lnot(id("mk_s1_clear_q")),
            key(mkf.valid),
            Expr::eq(key(mkf.key), id("mk_s1_rkey_q").bits(7, 0)),
            Expr::eq(key(mkf.vf), id("mk_s1_vf_q")),
        ]),
        Some("a valid key of the requesting VF with this variant byte"),
    );
    g.wire(
        "mk_rights_ok",
        1,
        Expr::eq(
            Expr::band(
                id("mk_s1_access_q"),
                Expr::bitnot(Expr::concat(vec![
                    key(mkf.remote_atomic),
                    key(mkf.remote_write),
                    key(mkf.remote_read),
                ])),
            ),
            n(3, 0),
        ),
        Some("every requested right is granted"),
    );
    // Both ends were added before this cycle (the request's as it was taken, the key's when
    // it was created), so the check is two compares side by side: adding here put an adder's
    // carry chain before a compare's, the block's longest path (issue 9).
    g.wire(
        "mk_range_ok",
        1,
        Expr::and(
            Expr::bin(BinOp::Ge, id("mk_s1_va_q"), key(mkf.va)),
            Expr::bin(BinOp::Le, id("mk_s1_end_q"), id("mk_end_q")),
        ),
        Some("[va, va+len) lies inside [key.va, key.va+key.length), without wrapping"),
    );
    g.wire(
        "mk_reason",
        3,
        Expr::ternary(
            Expr::eq(id("mk_s1_len_q"), n(32, 0)),
            n(3, 0),
            Expr::ternary(
                Expr::lnot(id("mk_found")),
                n(3, 1),
                Expr::ternary(
                    Expr::bin(BinOp::Ne, key(mkf.pd), id("mk_s1_pd_q")),
                    n(3, 2),
                    Expr::ternary(
                        Expr::lnot(id("mk_rights_ok")),
                        n(3, 3),
                        Expr::ternary(Expr::lnot(id("mk_range_ok")), n(3, 4), n(3, 0)),
                    ),
                ),
            ),
        ),
        Some("zero length passes unchecked (IBA C9-88); else the first failing check"),
    );
    let mut load = vec![
        Stmt::assign(id("mk_rsp_valid_d"), id("mk_s1_valid_q")),
        Stmt::assign(id("mk_rsp_ok_d"), Expr::eq(id("mk_reason"), n(3, 0))),
        Stmt::assign(id("mk_rsp_reason_d"), id("mk_reason")),
    ];
    for x in ["vf", "rkey", "user"] {
        load.push(Stmt::assign(
            id(format!("mk_rsp_{x}_d")),
            id(format!("mk_s1_{x}_q")),
        ));
    }
    g.comb.push(Stmt::if_(id("mk_adv"), load));

    // ---- RX write-back
    part(&mut g, "wb", "rx_wb_vf", "rx_wb_qpn", false);
    // Low for the whole WRITE cycle, not only when the command writes the PSN RAM: the
    // command's outcome then selects neither this ready nor the PSN RAM's address (issue 9).
    g.wire(
        "wb_free",
        1,
        Expr::and(
            Expr::lnot(id("clr_busy_q")),
            Expr::bin(BinOp::Ne, id("cmd_fsm_q"), id("CMD_WRITE")),
        ),
        Some("the PSN RAM's port is free for a write-back"),
    );
    g.wire(
        "wb_take",
        1,
        Expr::and(id("rx_wb_valid"), id("wb_free")),
        Some("a write-back is accepted this cycle"),
    );
    // The port is also low in reset (SPEC §2), which `clr_busy_q` covers only from the first
    // edge of a synchronous reset; `wb_take` stays on `wb_free` (the clear that follows reset
    // zeroes the PSN RAM anyway).
    g.assigns.push(V::Assign(
        id("rx_wb_ready"),
        Expr::and(rst.released(), id("wb_free")),
    ));

    // ---- command engine
    g.lp.push(V::Comment(vec!["Command engine states".into()]));
    for (name, v) in [
        ("CMD_IDLE", 0),
        ("CMD_READ", 1),
        ("CMD_EXEC", 2),
        ("CMD_WRITE", 3),
    ] {
        g.lp.push(V::LocalParam {
            name: name.into(),
            range: Range::bits(2),
            value: n(2, v),
            comment: None,
        });
    }
    g.lp.push(V::Comment(vec![
        "Command kinds (what the opcode does to the context)".into(),
    ]));
    let kinds = [
        ("KIND_NONE", KIND_NONE),
        ("KIND_CREATE", CmdKind::Create as u64),
        ("KIND_DESTROY", CmdKind::Destroy as u64),
        ("KIND_LOAD", CmdKind::Load as u64),
        ("KIND_STATE", CmdKind::StateOnly as u64),
        ("KIND_QUERY", CmdKind::Query as u64),
        ("KIND_MK_CREATE", KIND_MK_CREATE),
        ("KIND_MK_DESTROY", KIND_MK_DESTROY),
        ("KIND_MK_QUERY", KIND_MK_QUERY),
    ];
    for (name, v) in kinds {
        g.lp.push(V::LocalParam {
            name: name.into(),
            range: Range::bits(4),
            value: n(4, v),
            comment: None,
        });
    }
    let sw = f.state.w();
    let enum_lps =
        |g: &mut Gen, title: &str, e: &Enum, prefix: &str, w: u32, keep: &dyn Fn(&str) -> bool| {
            g.lp.push(V::Comment(vec![format!(
                "{title} (the map's enum {})",
                e.name.text
            )]));
            for v in e.values.iter().filter(|v| keep(&v.name.text)) {
                g.lp.push(V::LocalParam {
                    name: format!("{prefix}_{}", v.name.text),
                    range: Range::bits(w),
                    value: n(w, v.value),
                    comment: (!v.description.is_empty()).then(|| v.description.clone()),
                });
            }
        };
    // The states the block names: the commands' sources and destinations and the ports'.
    enum_lps(&mut g, "QP states", qp_states, "QP", sw, &|name| {
        ["RST", "INIT", "RTS", "ERR"].contains(&name)
            || COMMANDS.iter().any(|c| c.2 == Some(name) || c.3 == name)
    });
    enum_lps(
        &mut g,
        "Service types",
        service_types,
        "ST",
        f.st.w(),
        &|_| true,
    );
    enum_lps(
        &mut g,
        "Command statuses",
        enum_of("qpc_cmd_status")?,
        "STATUS",
        8,
        &|_| true,
    );
    let opcodes = enum_of("qpc_cmd_op")?;
    enum_lps(&mut g, "Command opcodes", opcodes, "OP", 16, &|name| {
        COMMANDS.iter().any(|c| c.0 == name) || MK_COMMANDS.iter().any(|c| c.0 == name)
    });
    g.lp.push(V::LocalParam {
        name: "FROM_ANY".into(),
        range: Range::bits(sw + 1),
        value: Expr::concat(vec![b1(true), Expr::zero(sw)]),
        comment: Some("cmd_from: the command is legal from any state".into()),
    });
    g.state("cmd_fsm", 2, id("CMD_IDLE"));
    g.state("cmd_kind", 4, id("KIND_NONE"));
    g.state("cmd_vf", 8, n(8, 0));
    g.state_r("cmd_mk_addr", mk_addr_r(), zero_mk());
    g.state("cmd_from", sw + 1, Expr::zero(sw + 1));
    g.state("cmd_to", sw, Expr::zero(sw));
    g.state("cmd_pre", 8, ok.clone());
    // An MKey query whose target passed the checks at go: with the key's existence, all that
    // decides its copy into the mailbox (`cmd_mk_query`).
    g.state("cmd_mkq", 1, b1(false));
    // The target checks, registered at go; READ turns them and the kind into `cmd_pre`, so
    // the opcode decode and the partition checks are not one path into `cmd_pre_q`.
    g.state("cmd_tok", 1, b1(false));
    g.state_r("cmd_addr", addr_r(), zero_aw());
    // The engine's read port: every cycle, from cmd_addr_q.
    g.reg("cmd_ctx_q", f.width);
    g.reg("cmd_psn_q", psn_w);
    g.flops.push(Flop {
        q: id("cmd_ctx_q"),
        d: id("ctx_mem").index(id("cmd_addr_q")),
        reset: None,
    });
    g.flops.push(Flop {
        q: id("cmd_psn_q"),
        d: id("psn_mem").index(id("cmd_addr_q")),
        reset: None,
    });
    g.wire(
        "cmd_in_err",
        1,
        in_err(
            f.state.of("cmd_ctx_q"),
            id("cmd_psn_q").bits(err_bit, err_bit),
        ),
        Some("the target reads as ERR (in ERR, or the err bit past INIT)"),
    );
    g.wire(
        "cmd_cur_state",
        f.state.w(),
        Expr::ternary(id("cmd_in_err"), qp("ERR"), f.state.of("cmd_ctx_q")),
        Some("the target's state as the ports see it (ERR after the RX path's move there)"),
    );
    // The key, held in EXEC: QUERY_MKEY copies it into the mailbox in WRITE, as it was read.
    g.reg("cmd_mk_q", mkf.width);
    g.flops.push(Flop {
        q: id("cmd_mk_q"),
        d: Expr::ternary(
            Expr::eq(id("cmd_fsm_q"), id("CMD_EXEC")),
            id("cmd_mk_q"),
            id("mkey_mem").index(id("cmd_mk_addr_q")),
        ),
        reset: None,
    });
    part(&mut g, "cmd", "csr_cmd_target_vf_o", "cmd_qpn", false);
    // cmd_qpn: the target as a global QPN of the target VF.
    g.wire(
        "cmd_qpn",
        24,
        Expr::concat(vec![
            n(4, 0),
            id("csr_cmd_target_vf_o"),
            id("csr_cmd_target_index_o").bits(11, 0),
        ]),
        Some("cmd_target as a global QPN"),
    );
    g.wire(
        "cmd_index_ok",
        1,
        Expr::eq(id("csr_cmd_target_index_o").bits(23, 12), n(12, 0)),
        Some("index fits the 12-bit local QPN"),
    );
    let tgt_index = || id("csr_cmd_target_index_o");
    g.wire(
        "cmd_mk_ok",
        1,
        Expr::all(vec![
            Expr::lt(
                Expr::concat(vec![n(1, 0), id("csr_cmd_target_vf_o")]),
                id("GEO_NUM_VF"),
            ),
            Expr::eq(tgt_index().bits(23, 13), n(11, 0)),
            Expr::lt(tgt_index().bits(12, 0), id("GEO_NUM_MKEYS")),
        ]),
        Some("an MKey command's vf and index lie inside the block"),
    );
    let is_mk = |k: &str| {
        Expr::any_of(
            ["KIND_MK_CREATE", "KIND_MK_DESTROY", "KIND_MK_QUERY"]
                .iter()
                .map(|m| Expr::eq(id(k), id(*m)))
                .collect(),
            b1(false),
        )
    };
    // From the opcode: the three MKey compares, without the kind decode.
    g.wire(
        "op_is_mk",
        1,
        Expr::any_of(
            mk_ops
                .iter()
                .zip(MK_COMMANDS.iter())
                .map(|(_, (name, _))| {
                    Expr::eq(id("csr_cmd_ctrl_opcode_o"), id(format!("OP_{name}")))
                })
                .collect(),
            b1(false),
        ),
        Some("the opcode is an MKey command"),
    );
    g.wire("cmd_is_mk", 1, is_mk("cmd_kind_q"), None);
    g.wire(
        "cmd_target_ok",
        1,
        Expr::ternary(
            id("op_is_mk"),
            id("cmd_mk_ok"),
            Expr::and(id("cmd_inpart"), id("cmd_index_ok")),
        ),
        Some("the target names a context of the block (else BAD_INDEX)"),
    );

    // Opcode decode: kind, source state (bit sw = any), destination. One compare per opcode
    // (`op_hit`), then each output bit is the OR of the hits whose value has it set: a flat
    // decode, where a `case` on the opcode mapped to a chain of 8 LUT levels into `cmd_kind_q`
    // (issue 9). An opcode of no hit is BAD_OP (`KIND_NONE`).
    // Each value also by the name the RTL gives it (`OP_*`, `KIND_*`, `QP_*`, `FROM_ANY`).
    struct OpDecode {
        name: &'static str,
        kind: u64,
        kind_name: &'static str,
        from: u64,
        from_name: Expr,
        to: u64,
        to_name: Expr,
        to_is_rst: bool,
        rq_psn: bool,
    }
    let kind_name = |code: u64| {
        kinds
            .iter()
            .find(|k| k.1 == code)
            .map(|k| k.0)
            .expect("every kind has a localparam")
    };
    let mut ops = Vec::new();
    // `cmds` is `COMMANDS` with the map's values, in the same order.
    for (c, (_, _, from, to, _)) in cmds.iter().zip(COMMANDS.iter()) {
        ops.push(OpDecode {
            name: c.name,
            kind: u64::from(c.kind_code),
            kind_name: kind_name(u64::from(c.kind_code)),
            from: c.from.unwrap_or(1 << sw),
            from_name: from.map_or(id("FROM_ANY"), |s| Expr::concat(vec![b1(false), qp(s)])),
            to: c.to,
            to_name: qp(to),
            to_is_rst: c.to == rst_value,
            rq_psn: c.rq_psn,
        });
    }
    for ((_, kind), (name, _)) in mk_ops.iter().zip(MK_COMMANDS.iter()) {
        ops.push(OpDecode {
            name,
            kind: *kind,
            kind_name: kind_name(*kind),
            from: 0,
            from_name: Expr::zero(sw + 1),
            to: 0,
            to_name: Expr::zero(sw),
            to_is_rst: false,
            rq_psn: false,
        });
    }
    let nops = u32::try_from(ops.len()).expect("few opcodes");
    g.wire(
        "op_hit",
        nops,
        Expr::concat(
            ops.iter()
                .rev()
                .map(|o| Expr::eq(id("csr_cmd_ctrl_opcode_o"), id(format!("OP_{}", o.name))))
                .collect(),
        ),
        Some("one bit per known opcode of the command, in table order"),
    );
    // The opcode's compares as seen at go; READ ORs them into the kind, source and
    // destination, so neither the compares with go nor the compares with the ORs are one
    // path (issue 9: LUT depth; the 16-bit compares and the ORs measured 8 levels together).
    g.state("cmd_hit", nops, Expr::zero(nops));
    // `{w{op_hit[i]}} & NAME` for every opcode whose value is not zero, ORed.
    let onehot = |w: u32, value: fn(&OpDecode) -> u64, name: fn(&OpDecode) -> Expr| {
        Expr::any_of(
            ops.iter()
                .enumerate()
                .filter(|(_, o)| value(o) != 0)
                .map(|(i, o)| {
                    let hit = id("cmd_hit_q").bits(i as u32, i as u32);
                    let mask = if w == 1 {
                        hit
                    } else {
                        Expr::repl(Expr::int(i64::from(w)), hit)
                    };
                    Expr::band(mask, name(o))
                })
                .collect(),
            Expr::zero(w),
        )
    };
    g.wire(
        "op_kind",
        4,
        Expr::ternary(
            Expr::un(verilog_ast::UnOp::RedOr, id("cmd_hit_q")),
            onehot(4, |o| o.kind, |o| id(o.kind_name)),
            id("KIND_NONE"),
        ),
        None,
    );
    g.wire(
        "op_from",
        sw + 1,
        onehot(sw + 1, |o| o.from, |o| o.from_name.clone()),
        None,
    );
    g.wire(
        "op_to",
        sw,
        onehot(sw, |o| o.to, |o| o.to_name.clone()),
        None,
    );
    // What the command may write, one flag per kind (and TO_RST's PSN reset, and the loads
    // that set the receive PSN), set in READ from the opcode's compares like the kind: the
    // write enables are then flat (issue 9).
    type Pred = fn(&OpDecode) -> bool;
    let does_bits: [(&str, Pred); 8] = [
        ("DOES_CREATE", |o| o.kind == CmdKind::Create as u64),
        ("DOES_DESTROY", |o| o.kind == CmdKind::Destroy as u64),
        ("DOES_LOAD", |o| o.kind == CmdKind::Load as u64),
        ("DOES_STATE", |o| o.kind == CmdKind::StateOnly as u64),
        ("DOES_TO_RST", |o| {
            o.kind == CmdKind::StateOnly as u64 && o.to_is_rst
        }),
        ("DOES_MK_CREATE", |o| o.kind == KIND_MK_CREATE),
        ("DOES_MK_DESTROY", |o| o.kind == KIND_MK_DESTROY),
        ("DOES_RQ_PSN", |o| o.rq_psn),
    ];
    g.lp.push(V::Comment(vec![
        "Bits of cmd_does_q: what the command may write".into(),
    ]));
    let mut does_d = Vec::new();
    for (i, (name, pred)) in does_bits.iter().enumerate() {
        g.lp.push(V::LocalParam {
            name: (*name).into(),
            range: Range::bits(3),
            value: n(3, i as u64),
            comment: None,
        });
        does_d.insert(
            0,
            Expr::any_of(
                ops.iter()
                    .enumerate()
                    .filter(|(_, o)| pred(o))
                    .map(|(j, _)| id("cmd_hit_q").bits(j as u32, j as u32))
                    .collect(),
                b1(false),
            ),
        );
    }
    let ndoes = does_bits.len() as u32;
    g.state("cmd_does", ndoes, Expr::zero(ndoes));
    g.state("cmd_pre_ok", 1, b1(false));

    // Parameter checks of a mailbox word: service type from the map's enum, MTU 1..5.
    let mb = "csr_mailbox_data_value_o";
    let st_ok = Expr::any_of(
        service_types
            .values
            .iter()
            .map(|v| Expr::eq(f.st.of(mb), id(format!("ST_{}", v.name.text))))
            .collect(),
        b1(false),
    );
    let mtu_ok = Expr::and(
        Expr::bin(BinOp::Ge, f.mtu.of(mb), n(f.mtu.w(), 1)),
        Expr::bin(BinOp::Le, f.mtu.of(mb), n(f.mtu.w(), 5)),
    );
    g.wire(
        "mb_params_ok",
        1,
        Expr::and(st_ok, mtu_ok),
        Some("mailbox service type is one of the map's and MTU is 1..5"),
    );
    // Registered: CMD_EXEC uses the check of the mailbox as it was in CMD_READ (a command is
    // busy from go to its end; the mailbox is not software's to change meanwhile), so the
    // comparators do not run through the command's write decode into `rx_wb_ready`.
    g.reg("mb_ok_q", 1);
    g.flops.push(Flop {
        q: id("mb_ok_q"),
        d: id("mb_params_ok"),
        reset: Some(b1(false)),
    });
    // The context word a command writes.
    let new_word = |state: Expr, valid: bool| {
        replace(
            mb,
            f.width,
            vec![
                (f.state, state),
                (f.valid, b1(valid)),
                (f.nak, b1(false)),
                (f.epsn, f.epsn.of(mb)),
            ],
        )
    };
    g.wire_r(
        "cmd_load_word",
        Range::bits(f.width).expect("wide"),
        new_word(id("cmd_to_q"), true),
    );
    g.wire_r(
        "cmd_state_word",
        Range::bits(f.width).expect("wide"),
        replace("cmd_ctx_q", f.width, vec![(f.state, id("cmd_to_q"))]),
    );
    g.wire_r(
        "cmd_query_word",
        Range::bits(f.width).expect("wide"),
        replace(
            "cmd_ctx_q",
            f.width,
            vec![
                (f.state, id("cmd_cur_state")),
                (f.nak, id("cmd_psn_q").bits(f.epsn.w(), f.epsn.w())),
                (f.epsn, id("cmd_psn_q").bits(f.epsn.w() - 1, 0)),
            ],
        ),
    );
    g.wire_r(
        "cmd_mk_load_word",
        Range::bits(mkf.width).expect("wide"),
        replace(
            mb,
            mkf.width,
            vec![(mkf.valid, b1(true)), (mkf.vf, id("cmd_vf_q"))],
        ),
    );
    // A new key's end, from the mailbox as it is one cycle before WRITE stores it (like
    // `mb_ok_q`, the mailbox is not software's to change while busy): the adder ends at a flop
    // rather than at the end table's write port.
    g.wire(
        "mb_mk_end_d",
        mk_end_w,
        Expr::plus(
            wide(mkf.va.of(mb), mkf.va.w()),
            wide(mkf.length.of(mb), mkf.length.w()),
        ),
        None,
    );
    g.reg("mb_mk_end_q", mk_end_w);
    g.flops.push(Flop {
        q: id("mb_mk_end_q"),
        d: id("mb_mk_end_d"),
        reset: None,
    });
    g.wire(
        "cmd_mk_exists",
        1,
        Expr::and(
            mkf.valid.of("cmd_mk_q"),
            Expr::eq(mkf.vf.of("cmd_mk_q"), id("cmd_vf_q")),
        ),
        Some("the targeted key exists and belongs to the command's VF"),
    );
    // The key compare (from the key RAM's read port) ends in a flop, `wr_mk_own_q`, and what
    // depends on it (DESTROY_MKEY's write, BAD_RES of DESTROY_MKEY and QUERY_MKEY, QUERY_MKEY's
    // copy into the mailbox) is decided in WRITE from flops: the compare is not followed by
    // the status decode or the CSR block's mailbox write logic (issue 9: LUT depth).
    g.wire(
        "cmd_mk_query",
        1,
        Expr::and(id("wr_mkq_q"), id("wr_mk_own_q")),
        Some("QUERY_MKEY copies the key into the mailbox (in WRITE)"),
    );
    g.wire(
        "wr_mk_miss",
        1,
        Expr::and(id("wr_mk_chk_q"), Expr::lnot(id("wr_mk_own_q"))),
        Some("DESTROY_MKEY or QUERY_MKEY of a key that is not the VF's: BAD_RES"),
    );
    let cur_valid = f.valid.of("cmd_ctx_q");
    let cur_state = id("cmd_cur_state");

    for (name, w) in [("cmd_status", 8), ("cmd_query", 1), ("cmd_illegal", 1)] {
        g.reg(name, w);
    }
    let bad = |v: &Expr| vec![Stmt::assign(id("cmd_status"), v.clone())];
    // The status only: what the command writes is decoded flat below.
    let exec = vec![
        Stmt::assign(id("cmd_fsm_d"), id("CMD_WRITE")),
        Stmt::if_else(
            Expr::lnot(id("cmd_pre_ok_q")),
            vec![Stmt::assign(id("cmd_status"), id("cmd_pre_q"))],
            vec![Stmt::if_else(
                id("clearing"),
                bad(&res_busy),
                vec![Stmt::Case {
                    subject: id("cmd_kind_q"),
                    arms: vec![
                        (
                            vec![id("KIND_CREATE")],
                            vec![Stmt::if_else(
                                cur_valid.clone(),
                                bad(&bad_res),
                                vec![Stmt::if_(Expr::lnot(id("mb_ok_q")), bad(&bad_param))],
                            )],
                        ),
                        (
                            vec![id("KIND_DESTROY")],
                            vec![Stmt::if_(Expr::lnot(cur_valid.clone()), bad(&bad_res))],
                        ),
                        (
                            vec![id("KIND_LOAD"), id("KIND_STATE")],
                            vec![Stmt::if_else(
                                Expr::lnot(cur_valid.clone()),
                                bad(&bad_res),
                                vec![Stmt::if_else(
                                    Expr::lnot(id("cmd_from_ok")),
                                    vec![
                                        Stmt::assign(id("cmd_status"), bad_state.clone()),
                                        Stmt::assign(id("cmd_illegal"), b1(true)),
                                    ],
                                    vec![Stmt::if_(
                                        Expr::and(
                                            Expr::eq(id("cmd_kind_q"), id("KIND_LOAD")),
                                            Expr::lnot(id("mb_ok_q")),
                                        ),
                                        bad(&bad_param),
                                    )],
                                )],
                            )],
                        ),
                        (
                            vec![id("KIND_QUERY")],
                            vec![Stmt::if_else(
                                cur_valid.clone(),
                                vec![Stmt::assign(id("cmd_query"), b1(true))],
                                bad(&bad_res),
                            )],
                        ),
                        (
                            vec![id("KIND_MK_CREATE")],
                            vec![Stmt::if_(mkf.valid.of("cmd_mk_q"), bad(&bad_res))],
                        ),
                        (
                            vec![id("KIND_MK_DESTROY"), id("KIND_MK_QUERY")],
                            vec![Stmt::Comment(
                                "BAD_RES if the key is not the VF's: `wr_mk_miss`, in WRITE".into(),
                            )],
                        ),
                    ],
                    default: bad(&bad_op),
                }],
            )],
        ),
    ];
    // What the command writes, flat from the kind flags set in READ (`cmd_does_q`): each
    // write enable is one AND-OR of flops and the context's valid bit and state compare, not
    // the status priority above (issue 9: LUT depth). It writes only where the status is OK.
    g.wire(
        "cmd_from_ok",
        1,
        Expr::or(
            id("cmd_from_q").bits(sw, sw),
            Expr::eq(id("cmd_from_q").bits(sw - 1, 0), cur_state.clone()),
        ),
        Some("the context is in the command's source state (or any will do)"),
    );
    let does = |bit: &str| id("cmd_does_q").index(id(bit));
    g.wire(
        "cmd_go",
        1,
        Expr::all(vec![
            Expr::eq(id("cmd_fsm_q"), id("CMD_EXEC")),
            id("cmd_pre_ok_q"),
            Expr::lnot(id("clearing")),
        ]),
        Some("EXEC of a known opcode on a target inside the block, no clear running"),
    );
    g.wire(
        "cmd_sel_load",
        1,
        Expr::and(
            id("mb_ok_q"),
            Expr::or(
                Expr::and(does("DOES_CREATE"), Expr::lnot(cur_valid.clone())),
                Expr::all(vec![
                    does("DOES_LOAD"),
                    cur_valid.clone(),
                    id("cmd_from_ok"),
                ]),
            ),
        ),
        Some("CREATE or a modify that loads the mailbox, and it may"),
    );
    g.wire(
        "cmd_sel_state",
        1,
        Expr::all(vec![
            does("DOES_STATE"),
            cur_valid.clone(),
            id("cmd_from_ok"),
        ]),
        Some("a state-only modify that may change the state"),
    );
    g.wire(
        "cmd_zero",
        1,
        Expr::and(does("DOES_DESTROY"), cur_valid.clone()),
        Some("DESTROY of an existing context"),
    );
    g.wire(
        "cmd_ctx_we",
        1,
        Expr::and(
            id("cmd_go"),
            Expr::any_of(
                vec![id("cmd_sel_load"), id("cmd_sel_state"), id("cmd_zero")],
                b1(false),
            ),
        ),
        None,
    );
    g.wire(
        "cmd_psn_we",
        1,
        Expr::and(
            id("cmd_go"),
            Expr::any_of(
                vec![
                    // Only CREATE and INIT2RTR load ePSN; the other modifies keep the
                    // RX write-back's (see COMMANDS).
                    Expr::and(id("cmd_sel_load"), does("DOES_RQ_PSN")),
                    // TO_RST also forgets the receive PSN state
                    Expr::and(id("cmd_sel_state"), does("DOES_TO_RST")),
                    id("cmd_zero"),
                ],
                b1(false),
            ),
        ),
        None,
    );
    g.wire(
        "cmd_mk_we",
        1,
        Expr::and(
            id("cmd_go"),
            Expr::and(does("DOES_MK_CREATE"), Expr::lnot(mkf.valid.of("cmd_mk_q"))),
        ),
        Some("CREATE_MKEY of a free key (DESTROY_MKEY: `mk_we`)"),
    );
    g.wire(
        "wr_mk_chk_d",
        1,
        Expr::all(vec![
            Expr::eq(id("cmd_fsm_q"), id("CMD_EXEC")),
            id("cmd_pre_ok_q"),
            Expr::lnot(id("clearing")),
            Expr::or(
                Expr::eq(id("cmd_kind_q"), id("KIND_MK_DESTROY")),
                Expr::eq(id("cmd_kind_q"), id("KIND_MK_QUERY")),
            ),
        ]),
        Some("the command needs the key to be the VF's"),
    );
    g.wire(
        "wr_mk_del_d",
        1,
        Expr::and(id("cmd_go"), does("DOES_MK_DESTROY")),
        None,
    );
    g.wire(
        "wr_mkq_d",
        1,
        Expr::all(vec![
            Expr::eq(id("cmd_fsm_q"), id("CMD_EXEC")),
            id("cmd_mkq_q"),
            Expr::lnot(id("clearing")),
        ]),
        None,
    );
    let c = &mut g.comb;
    c.push(Stmt::Comment(
        "Command engine: IDLE sees go, READ waits for the context, EXEC checks, WRITE writes"
            .into(),
    ));
    for (name, v) in [
        ("cmd_fsm_d", id("cmd_fsm_q")),
        ("cmd_hit_d", id("cmd_hit_q")),
        ("cmd_kind_d", id("cmd_kind_q")),
        ("cmd_from_d", id("cmd_from_q")),
        ("cmd_to_d", id("cmd_to_q")),
        ("cmd_vf_d", id("cmd_vf_q")),
        ("cmd_mkq_d", id("cmd_mkq_q")),
        ("cmd_tok_d", id("cmd_tok_q")),
        ("cmd_mk_addr_d", id("cmd_mk_addr_q")),
        ("cmd_pre_d", id("cmd_pre_q")),
        ("cmd_pre_ok_d", id("cmd_pre_ok_q")),
        ("cmd_does_d", id("cmd_does_q")),
        ("cmd_addr_d", id("cmd_addr_q")),
        ("cmd_status", ok.clone()),
        ("cmd_query", b1(false)),
        ("cmd_illegal", b1(false)),
    ] {
        c.push(Stmt::assign(id(name), v));
    }
    c.push(Stmt::Case {
        subject: id("cmd_fsm_q"),
        arms: vec![
            (
                vec![id("CMD_IDLE")],
                vec![Stmt::if_(
                    id("csr_cmd_ctrl_go_o"),
                    vec![
                        Stmt::assign(id("cmd_fsm_d"), id("CMD_READ")),
                        Stmt::assign(id("cmd_hit_d"), id("op_hit")),
                        Stmt::assign(id("cmd_addr_d"), id("cmd_addr")),
                        Stmt::assign(id("cmd_vf_d"), id("csr_cmd_target_vf_o")),
                        Stmt::assign(id("cmd_tok_d"), id("cmd_target_ok")),
                        Stmt::assign(
                            id("cmd_mk_addr_d"),
                            Expr::ternary(
                                id("cmd_mk_ok"),
                                tgt_index()
                                    .slice(Expr::minus(id("MK_AW"), Expr::int(1)), Expr::int(0)),
                                zero_mk(),
                            ),
                        ),
                    ],
                )],
            ),
            (
                vec![id("CMD_READ")],
                vec![
                    Stmt::assign(id("cmd_fsm_d"), id("CMD_EXEC")),
                    Stmt::assign(id("cmd_kind_d"), id("op_kind")),
                    Stmt::assign(id("cmd_from_d"), id("op_from")),
                    Stmt::assign(id("cmd_to_d"), id("op_to")),
                    Stmt::assign(
                        id("cmd_pre_d"),
                        Expr::ternary(
                            Expr::eq(id("op_kind"), id("KIND_NONE")),
                            bad_op.clone(),
                            Expr::ternary(id("cmd_tok_q"), ok.clone(), bad_index.clone()),
                        ),
                    ),
                    Stmt::assign(
                        id("cmd_pre_ok_d"),
                        Expr::and(
                            Expr::un(verilog_ast::UnOp::RedOr, id("cmd_hit_q")),
                            id("cmd_tok_q"),
                        ),
                    ),
                    Stmt::assign(id("cmd_does_d"), Expr::concat(does_d)),
                    Stmt::assign(
                        id("cmd_mkq_d"),
                        Expr::and(
                            Expr::eq(id("op_kind"), id("KIND_MK_QUERY")),
                            id("cmd_tok_q"),
                        ),
                    ),
                ],
            ),
            (vec![id("CMD_EXEC")], exec),
            (
                vec![id("CMD_WRITE")],
                vec![Stmt::assign(id("cmd_fsm_d"), id("CMD_IDLE"))],
            ),
        ],
        default: vec![Stmt::assign(id("cmd_fsm_d"), id("CMD_IDLE"))],
    });

    // EXEC's outcome in flops: WRITE writes the RAMs and reports the status from these, so
    // the EXEC decode ends at flops instead of running on into the RAMs' write enables and
    // the status, error and illegal-transition strobes (issue 9: LUT depth).
    let prev_state = Expr::ternary(
        Expr::all(vec![
            id("cmd_pre_ok_q"),
            Expr::lnot(id("clearing")),
            Expr::lnot(id("cmd_is_mk")),
            f.valid.of("cmd_ctx_q"),
        ]),
        cur_state,
        qp("RST"),
    );
    // Flops load a name, not logic (the style every block keeps): the state before the command.
    g.wire("wr_prev_d", sw, prev_state, None);
    for (q, w, d, reset) in [
        ("wr_ctx_we_q", 1, id("cmd_ctx_we"), Some(b1(false))),
        ("wr_psn_we_q", 1, id("cmd_psn_we"), Some(b1(false))),
        ("wr_mk_we_q", 1, id("cmd_mk_we"), Some(b1(false))),
        ("wr_load_q", 1, id("cmd_sel_load"), Some(b1(false))),
        ("wr_state_q", 1, id("cmd_sel_state"), Some(b1(false))),
        ("wr_mk_load_q", 1, does("DOES_MK_CREATE"), Some(b1(false))),
        ("wr_status_q", 8, id("cmd_status"), Some(ok.clone())),
        ("wr_mk_own_q", 1, id("cmd_mk_exists"), Some(b1(false))),
        ("wr_mk_chk_q", 1, id("wr_mk_chk_d"), Some(b1(false))),
        ("wr_mk_del_q", 1, id("wr_mk_del_d"), Some(b1(false))),
        ("wr_mkq_q", 1, id("wr_mkq_d"), Some(b1(false))),
        ("wr_illegal_q", 1, id("cmd_illegal"), Some(b1(false))),
        ("wr_prev_q", sw, id("wr_prev_d"), Some(Expr::zero(sw))),
    ] {
        g.reg(q, w);
        g.flops.push(Flop { q: id(q), d, reset });
    }
    g.wire(
        "wr_status",
        8,
        Expr::ternary(id("wr_mk_miss"), bad_res.clone(), id("wr_status_q")),
        Some("the status WRITE reports"),
    );
    // The data WRITE writes, from the flops above and what READ/EXEC saw: the mailbox (not
    // software's to write while busy), the context read (only the command and the clear
    // write it, and a clear running in EXEC stops the write) and the command's VF.
    g.wire_r(
        "wr_word",
        Range::bits(f.width).expect("wide"),
        Expr::bor(
            Expr::band(
                Expr::repl(Expr::int(i64::from(f.width)), id("wr_load_q")),
                id("cmd_load_word"),
            ),
            Expr::band(
                Expr::repl(Expr::int(i64::from(f.width)), id("wr_state_q")),
                id("cmd_state_word"),
            ),
        ),
    );
    g.wire(
        "wr_psn",
        psn_w,
        Expr::band(
            Expr::repl(Expr::int(i64::from(psn_w)), id("wr_load_q")),
            Expr::concat(vec![b1(false), b1(false), f.epsn.of(mb)]),
        ),
        Some(
            "CREATE and INIT2RTR take the mailbox's ePSN and clear NAK-sent and err; DESTROY and \
             TO_RST zero them",
        ),
    );
    g.wire_r(
        "wr_mk_word",
        Range::bits(mkf.width).expect("wide"),
        Expr::band(
            Expr::repl(Expr::int(i64::from(mkf.width)), id("wr_mk_load_q")),
            id("cmd_mk_load_word"),
        ),
    );
    g.wire(
        "wr_mk_end",
        mk_end_w,
        Expr::band(
            Expr::repl(Expr::int(i64::from(mk_end_w)), id("wr_mk_load_q")),
            id("mb_mk_end_q"),
        ),
        Some("the end of the key CREATE_MKEY writes; DESTROY_MKEY zeroes it"),
    );
    g.wire(
        "cmd_end",
        1,
        Expr::eq(id("cmd_fsm_q"), id("CMD_WRITE")),
        Some("a command's last cycle: it writes and reports its status"),
    );
    // ---- RAM writes: the clear, then commands; the RX write-back when neither writes.
    // A clear that starts in a command's WRITE cycle wins: the command's write is dropped
    // (the clear zeroes that context too).
    g.wire(
        "ram_we",
        1,
        Expr::or(id("clr_busy_q"), id("wr_ctx_we_q")),
        Some("the clear or a command writes every replica"),
    );
    g.wire_r(
        "ram_addr",
        addr_r(),
        Expr::ternary(id("clr_busy_q"), id("clr_addr_q"), id("cmd_addr_q")),
    );
    g.wire_r(
        "ram_word",
        Range::bits(f.width).expect("wide"),
        Expr::ternary(id("clr_busy_q"), Expr::zero(f.width), id("wr_word")),
    );
    for (mem, rep) in [
        ("db_mem", &db_rep),
        ("wqe_mem", &wqe_rep),
        ("rx_mem", &rx_rep),
    ] {
        g.mems.push(V::MemWrite {
            mem: mem.into(),
            en: id("ram_we"),
            addr: id("ram_addr"),
            data: rep.pack("ram_word"),
        });
    }
    g.mems.push(V::MemWrite {
        mem: "ctx_mem".into(),
        en: id("ram_we"),
        addr: id("ram_addr"),
        data: id("ram_word"),
    });
    g.wire(
        "psn_we",
        1,
        Expr::or(
            Expr::or(id("clr_busy_q"), id("wr_psn_we_q")),
            Expr::and(id("wb_take"), id("wb_inpart")),
        ),
        None,
    );
    g.wire_r(
        "psn_addr",
        addr_r(),
        Expr::ternary(
            id("clr_busy_q"),
            id("clr_addr_q"),
            Expr::ternary(id("cmd_end"), id("cmd_addr_q"), id("wb_addr")),
        ),
    );
    g.wire(
        "psn_word",
        psn_w,
        Expr::ternary(
            id("clr_busy_q"),
            Expr::zero(psn_w),
            Expr::ternary(
                id("cmd_end"),
                id("wr_psn"),
                Expr::concat(vec![
                    id("rx_wb_err"),
                    id("rx_wb_nak_sent"),
                    id("rx_wb_epsn"),
                ]),
            ),
        ),
        None,
    );
    g.wire(
        "mk_we",
        1,
        Expr::any_of(
            vec![
                id("mk_clr_busy_q"),
                id("wr_mk_we_q"),
                Expr::and(id("wr_mk_del_q"), id("wr_mk_own_q")),
            ],
            b1(false),
        ),
        Some("the clear or an MKey command writes the key table"),
    );
    g.wire_r(
        "mk_wr_addr",
        mk_addr_r(),
        Expr::ternary(
            id("mk_clr_busy_q"),
            id("mk_clr_addr_q"),
            id("cmd_mk_addr_q"),
        ),
    );
    g.mems.push(V::MemWrite {
        mem: "mkey_mem".into(),
        en: id("mk_we"),
        addr: id("mk_wr_addr"),
        data: Expr::ternary(id("mk_clr_busy_q"), Expr::zero(mkf.width), id("wr_mk_word")),
    });
    g.mems.push(V::MemWrite {
        mem: "mkey_end_mem".into(),
        en: id("mk_we"),
        addr: id("mk_wr_addr"),
        data: Expr::ternary(id("mk_clr_busy_q"), Expr::zero(mk_end_w), id("wr_mk_end")),
    });
    g.mems.push(V::MemWrite {
        mem: "psn_mem".into(),
        en: id("psn_we"),
        addr: id("psn_addr"),
        data: id("psn_word"),
    });
    for mem in ["db_err_mem", "wqe_err_mem"] {
        g.mems.push(V::MemWrite {
            mem: mem.into(),
            en: id("psn_we"),
            addr: id("psn_addr"),
            data: id("psn_word").bits(err_bit, err_bit),
        });
    }

    // ---- CSR hardware inputs
    g.wire(
        "mk_rsp_new_d",
        1,
        Expr::and(id("mk_adv"), id("mk_s1_valid_q")),
        Some("a key lookup answers this cycle"),
    );
    for (q, d) in [
        ("cmd_done_q", id("cmd_end")),
        ("mk_rsp_new_q", id("mk_rsp_new_d")),
    ] {
        g.reg(q, 1);
        g.flops.push(Flop {
            q: id(q),
            d,
            reset: Some(b1(false)),
        });
    }
    let hw = [
        ("csr_status_clear_busy_i", id("clearing")),
        ("csr_mkey_geometry_num_mkeys_i", id("GEO_NUM_MKEYS")),
        ("csr_geometry_num_vf_i", id("GEO_NUM_VF")),
        ("csr_geometry_qps_per_vf_i", id("GEO_QPS_PER_VF")),
        (
            "csr_cmd_status_busy_i",
            Expr::bin(BinOp::Ne, id("cmd_fsm_q"), id("CMD_IDLE")),
        ),
        ("csr_cmd_status_status_we_i", id("cmd_end")),
        ("csr_cmd_status_status_d_i", id("wr_status")),
        ("csr_cmd_status_prev_state_we_i", id("cmd_end")),
        ("csr_cmd_status_prev_state_d_i", id("wr_prev_q")),
        // The interrupt bits are set one cycle after `busy` drops, from flops: the EXEC
        // decode into `cmd_status` does not also run through `int_status`'s set logic
        // (issue 9: LUT depth). The error bit is the flop that counts `cmd_errors`.
        ("csr_int_status_cmd_done_set_i", id("cmd_done_q")),
        ("csr_int_status_cmd_error_set_i", id("cnt_cmd_errors_q")),
        ("csr_illegal_transitions_count_incr_i", id("wr_illegal_q")),
        // From the registered status: its `!= OK` is not on the EXEC decode's path.
        (
            "csr_cmd_errors_count_incr_i",
            Expr::and(
                id("cmd_end"),
                Expr::bin(BinOp::Ne, id("wr_status"), ok.clone()),
            ),
        ),
        (
            "csr_pd_mismatches_count_incr_i",
            Expr::all(vec![
                id("wqe_adv"),
                id("wqe_s1_valid_q"),
                Expr::eq(id("wqe_status"), n(2, 2)),
            ]),
        ),
        (
            "csr_partition_violations_count_incr_i",
            // One bit per port; registered apart and added after the flop (below).
            Expr::concat(vec![
                Expr::all(vec![
                    Expr::eq(id("cmd_fsm_q"), id("CMD_IDLE")),
                    id("csr_cmd_ctrl_go_o"),
                    Expr::ternary(
                        id("op_is_mk"),
                        Expr::lnot(Expr::lt(
                            Expr::concat(vec![n(1, 0), id("csr_cmd_target_vf_o")]),
                            id("GEO_NUM_VF"),
                        )),
                        Expr::lnot(Expr::and(id("cmd_inpart"), id("cmd_index_ok"))),
                    ),
                ]),
                Expr::and(id("wb_take"), Expr::lnot(id("wb_inpart"))),
                Expr::and(id("rx_take"), Expr::lnot(id("rx_inpart"))),
                Expr::and(id("wqe_take"), Expr::lnot(id("wqe_inpart"))),
                Expr::and(id("db_take"), Expr::lnot(id("db_inpart"))),
            ]),
        ),
        (
            "csr_port_collisions_count_incr_i",
            // In both partitions, the same context is the same QPN: compare the ports'
            // QPNs rather than the addresses behind the partition muxes (one level less).
            Expr::all(vec![
                id("db_take"),
                id("rx_take"),
                id("db_inpart"),
                id("rx_inpart"),
                Expr::eq(id("db_req_qpn").bits(19, 0), id("rx_req_qpn").bits(19, 0)),
            ]),
        ),
        (
            "csr_rkey_violations_count_incr_i",
            // From the registered response, so the R_Key checks do not also run into the
            // counter's flop (issue 9: LUT depth).
            Expr::and(id("mk_rsp_new_q"), Expr::lnot(id("mk_rsp_ok_q"))),
        ),
        (
            "csr_mailbox_data_value_we_i",
            Expr::concat(vec![
                Expr::repl(Expr::int(6), id("cmd_query")),
                Expr::repl(Expr::int(6), Expr::or(id("cmd_query"), id("cmd_mk_query"))),
            ]),
        ),
        (
            "csr_mailbox_data_value_d_i",
            Expr::ternary(
                id("cmd_mkq_q"),
                Expr::concat(vec![Expr::zero(f.width - mkf.width), id("cmd_mk_q")]),
                id("cmd_query_word"),
            ),
        ),
    ];
    // Counter increments go through one flop (`cnt_*`): a counter counts one cycle after its
    // event, which no AXI4-Lite read can see, and the lookup, R_Key and command logic does
    // not also run through the counters' adders (issue 9: LUT depth). `partition_violations`
    // registers its five events (one per port) and their sum (`cnt_partition_violations_sum_q`,
    // one cycle later again), so that the counter's adder starts from flops only.
    let counted = [
        (
            "csr_illegal_transitions_count_incr_i",
            "illegal_transitions",
            1,
        ),
        ("csr_cmd_errors_count_incr_i", "cmd_errors", 1),
        ("csr_pd_mismatches_count_incr_i", "pd_mismatches", 1),
        (
            "csr_partition_violations_count_incr_i",
            "partition_violations",
            5,
        ),
        ("csr_port_collisions_count_incr_i", "port_collisions", 1),
        ("csr_rkey_violations_count_incr_i", "rkey_violations", 1),
    ];
    for (name, e) in hw {
        match counted.iter().find(|(port, _, _)| *port == name) {
            Some((_, short, w)) => {
                let (q, d) = (format!("cnt_{short}_q"), format!("cnt_{short}_d"));
                g.reg(&q, *w);
                g.wire(&d, *w, e, None);
                g.flops.push(Flop {
                    q: id(q.clone()),
                    d: id(d),
                    reset: Some(n(*w, 0)),
                });
                let incr = if *w == 1 {
                    id(q)
                } else {
                    // The events' count, as wide as the counter's 3-bit increment port, in
                    // a flop of its own: the counter's adder then starts from flops only.
                    let sum = format!("cnt_{short}_sum_q");
                    let sum_d = format!("cnt_{short}_sum_d");
                    g.wire(
                        &sum_d,
                        3,
                        (0..*w)
                            .map(|i| Expr::concat(vec![n(2, 0), id(q.clone()).bits(i, i)]))
                            .reduce(Expr::plus)
                            .expect("at least one event"),
                        None,
                    );
                    g.reg(&sum, 3);
                    g.flops.push(Flop {
                        q: id(sum.clone()),
                        d: id(sum_d),
                        reset: Some(n(3, 0)),
                    });
                    id(sum)
                };
                g.assigns.push(V::Assign(id(name), incr));
            }
            None => g.assigns.push(V::Assign(id(name), e)),
        }
    }

    // CSR outputs the block does not consume (software-only registers), and the upper bits
    // of the 32-bit index arithmetic.
    let used = [
        "ctrl_clear_o",
        "cmd_ctrl_opcode_o",
        "cmd_ctrl_go_o",
        "cmd_target_index_o",
        "cmd_target_vf_o",
        "mailbox_data_value_o",
        "irq_o",
    ];
    let mut unused: Vec<Expr> = csr
        .ports
        .iter()
        .filter_map(|p| match p {
            PortItem::Port(p)
                if p.dir == verilog_ast::Dir::Output
                    && !p.name.starts_with("s_axil_")
                    && !used.contains(&p.name.as_str()) =>
            {
                Some(id(format!("csr_{}", p.name)))
            }
            _ => None,
        })
        .collect();
    for p in ["db", "wqe", "rx", "wb", "cmd"] {
        unused.push(id(format!("{p}_index")));
    }
    for p in ["db", "wqe", "rx"] {
        unused.push(id(format!("{p}_index_p2")));
    }
    // The local access rights and reserved bits of a key take no part in the R_Key check, nor
    // does its length (the check reads the key's end from mkey_end_mem).
    unused.push(id("mk_word_q"));
    // Hardware sets state, valid and nak_sent; the mailbox's copies are ignored.
    for fl in [f.valid, f.nak, f.state] {
        unused.push(fl.of(mb));
    }
    g.wire(
        "unused_ok",
        1,
        Expr::un(verilog_ast::UnOp::RedXor, Expr::concat(unused)),
        Some("deliberately unused: index arithmetic, mailbox bits, CSR outputs nothing here reads"),
    );

    // ---- assemble
    let mut items = Vec::new();
    items.push(V::Comment(vec![
        "Parameter range checks (simulation and lint only)".into(),
    ]));
    let num_vf = map.parameter("NUM_VF").expect("checked");
    let qps = map.parameter("QPS_PER_VF").expect("checked");
    let mkeys = map.parameter("NUM_MKEYS").expect("checked");
    let range_check =
        |p: &rdmagen_regmap::Parameter| Stmt::param_range_check(&p.name.text, p.min, p.max);
    items.push(V::SimInitial(vec![
        range_check(num_vf),
        range_check(qps),
        range_check(mkeys),
    ]));
    items.push(V::Blank);
    items.extend(g.lp);
    items.push(V::Blank);
    items.extend(g.decls);
    items.push(V::Blank);
    items.extend(g.inst);
    items.push(V::Blank);
    items.extend(g.assigns);
    items.push(V::Blank);
    items.push(V::Comb(g.comb));
    items.push(V::Blank);
    items.push(V::Flops(g.flops));
    items.push(V::Blank);
    items.push(V::Comment(vec![
        "Context RAMs: one write port each; the replicas take every command write".into(),
    ]));
    items.extend(g.mems);

    let mut header = vec![
        format!(
            "{}: queue-pair context RAM of block `{}`, partitioned per SR-IOV VF.",
            module_name(map),
            map.block
        ),
        String::new(),
        format!(
            "Generated by {} from {} (map version {}).",
            opts.generator, map.file, map.version
        ),
        "Do not edit: change the map and run `make rtl`.".into(),
        String::new(),
        "Context address = vf * QPS_PER_VF + local QPN. QPN format (24 bits):".into(),
        "  [23:20] 0   [19:12] owning VF   [11:0] local QPN".into(),
        "cmd_status.prev_state: the target's state before the command if it existed, else RST."
            .into(),
        "A request whose QPN names another VF or lies outside the partition is refused and".into(),
        "counted in partition_violations; it reads and writes no context.".into(),
        String::new(),
        "Lookup ports (doorbell check, WQE check, RX lookup) each read a replica RAM of the".into(),
        "fields they need, so all three run every cycle. Response 2 cycles after acceptance;"
            .into(),
        "a lookup sees the writes of earlier cycles, not of its own (read-first). When the".into(),
        "doorbell and RX ports take the same QP in one cycle both are served from the same".into(),
        "state and port_collisions counts the cycle.".into(),
        "The RX write-back (rx_wb) writes {err, nak_sent, ePSN} (psn_mem). err (rx_wb_err, an"
            .into(),
        "RC remote access NAK) makes every port and command read the state as ERR past INIT".into(),
        "(replicas db_err_mem, wqe_err_mem); CREATE and INIT2RTR clear it, TO_RST, DESTROY".into(),
        "and the clear zero it, and a write-back without it rewrites it.".into(),
        String::new(),
        "doorbell check     reason".into(),
    ];
    for (name, v, what) in DB_REASONS {
        header.push(format!("  {v} {name:<12} {what}"));
    }
    header.push("WQE check          status".into());
    for (name, v, what) in WQE_STATUS {
        header.push(format!("  {v} {name:<12} {what}"));
    }
    header.push("R_Key check        reason".into());
    for (name, v, what) in MK_REASONS {
        header.push(format!("  {v} {name:<12} {what}"));
    }
    header.push(String::new());
    header.push("Commands (cmd_ctrl.opcode, legal source state -> destination):".into());
    for (name, kind, from, to, rq_psn) in COMMANDS {
        let what = match kind {
            CmdKind::Create => "needs a free context; loads the mailbox".to_string(),
            CmdKind::Destroy => "zeroes the context (any state)".to_string(),
            CmdKind::Load if rq_psn => format!(
                "{} -> {to}, loads the mailbox, ePSN included",
                from.unwrap_or("any")
            ),
            CmdKind::Load => format!(
                "{} -> {to}, loads the mailbox, keeps ePSN/NAK-sent",
                from.unwrap_or("any")
            ),
            CmdKind::StateOnly => format!("{} -> {to}, state only", from.unwrap_or("any")),
            CmdKind::Query => "copies the context to the mailbox".to_string(),
        };
        header.push(format!("  {name:<14} {what}"));
    }
    for (name, _) in MK_COMMANDS {
        let what = match name {
            "CREATE_MKEY" => "needs a free key; loads mailbox dwords 0-5, owner = cmd_target.vf",
            "DESTROY_MKEY" => "zeroes the key (it must belong to cmd_target.vf)",
            _ => "copies the key to mailbox dwords 0-5 (it must belong to cmd_target.vf)",
        };
        header.push(format!("  {name:<14} {what}"));
    }
    header.push(
        "The context write happens 3 cycles after cmd_ctrl.go is seen (cmd_status.busy).".into(),
    );

    Ok(Module {
        name: module_name(map),
        header,
        params: vec![
            Param {
                name: "NUM_VF".into(),
                default: Expr::int(param("NUM_VF") as i64),
                comment: Some(format!("SR-IOV VFs; range {}..{}", num_vf.min, num_vf.max)),
            },
            Param {
                name: "QPS_PER_VF".into(),
                default: Expr::int(param("QPS_PER_VF") as i64),
                comment: Some(format!("QPs per VF; range {}..{}", qps.min, qps.max)),
            },
            Param {
                name: "NUM_MKEYS".into(),
                default: Expr::int(param("NUM_MKEYS") as i64),
                comment: Some(format!(
                    "memory keys, shared by all VFs; range {}..{}",
                    mkeys.min, mkeys.max
                )),
            },
        ],
        ports: g.ports,
        items,
        reset: opts.reset,
    })
}

/// How a top wires the QPC block it instantiates beside another block (the UAR, the RX parser).
pub struct Hookup {
    /// Instance connections, in the QPC's port order.
    pub conns: Vec<(String, Expr)>,
    /// The QPC's AXI4-Lite slave and interrupt, as the top's `qpc_`-prefixed ports.
    pub ports: Vec<Port>,
    /// Wires the top declares, in port order: `qpc_<name>` for QPC outputs nothing reads and,
    /// when asked, the QPC's outputs on the linked ports.
    pub wires: Vec<Decl>,
    /// The unread QPC outputs, for the top's lint sink.
    pub unused: Vec<Expr>,
}

/// Wires `qpc` for a top: clock, reset and the ports `linked` names connect by name (the other
/// block drives or reads them; `declare_linked_outputs` declares the QPC-driven ones), the CSR
/// slave becomes the top's `qpc_s_axil_*`, other inputs are tied off (requests idle, responses
/// always taken) and other outputs go to `qpc_<name>` wires. An input whose width is a
/// parameter cannot be tied off and is an error.
pub fn hook_up(
    qpc: &Module,
    reset: ResetStyle,
    linked: impl Fn(&str) -> bool,
    declare_linked_outputs: bool,
) -> Result<Hookup, QpcError> {
    let is_clock = |n: &str| n == "clk" || n == reset.port_name();
    let mut h = Hookup {
        conns: Vec::new(),
        ports: Vec::new(),
        wires: Vec::new(),
        unused: Vec::new(),
    };
    for item in &qpc.ports {
        let PortItem::Port(p) = item else { continue };
        if is_clock(&p.name) {
            h.conns.push((p.name.clone(), Expr::id(p.name.clone())));
        } else if linked(&p.name) {
            if declare_linked_outputs && p.dir == verilog_ast::Dir::Output {
                h.wires.push(Decl::wire(p.name.clone(), p.range.clone()));
            }
            h.conns.push((p.name.clone(), Expr::id(p.name.clone())));
        } else if p.name.starts_with("s_axil_") || p.name == "irq_o" {
            let name = format!("qpc_{}", p.name);
            h.ports.push(Port {
                name: name.clone(),
                comment: None,
                ..p.clone()
            });
            h.conns.push((p.name.clone(), Expr::id(name)));
        } else if p.dir == verilog_ast::Dir::Input {
            let width = match &p.range {
                None => 1,
                Some(Range {
                    msb: Expr::Int(m),
                    lsb: Expr::Int(0),
                }) => *m as u32 + 1,
                Some(_) => {
                    return Err(QpcError(format!(
                        "QPC port `{}` has a parameter-sized width",
                        p.name
                    )))
                }
            };
            let v = if p.name.ends_with("_rsp_ready") {
                b1(true)
            } else {
                Expr::zero(width)
            };
            h.conns.push((p.name.clone(), v));
        } else {
            let w = format!("qpc_{}", p.name);
            h.wires.push(Decl::wire(w.clone(), p.range.clone()));
            h.unused.push(Expr::id(w.clone()));
            h.conns.push((p.name.clone(), Expr::id(w)));
        }
    }
    Ok(h)
}
