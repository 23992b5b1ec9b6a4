//! The UAR block: an AXI4 write slave over the SR-IOV functions' UAR pages (BAR2) that turns
//! doorbells into WQE-fetch requests and whole-WQE BlueFlame writes into an AXI4-Stream, after
//! checking the QP through the QPC block's doorbell-check port.
//!
//! The page layout comes from the map's `uar_page` space: every window is given a role by its
//! shape, so the article's layout (`uar.yaml`) and the mlx5 one (`uar-mlx5.yaml`) come from the
//! same code:
//!
//! - **send doorbell**: an 8-byte window with a `qpn` field (the WQE control segment's first
//!   8 bytes; the field positions must be the mlx5 ABI's).
//! - **BlueFlame**: a window larger than 8 bytes. An 8-byte write (or a 32-bit pair) at its
//!   start is a send doorbell; a burst of 2 or more full 8-byte beats from its start is a
//!   whole WQE.
//! - **forwarded doorbell**: any other 8- or 4-byte window (the mlx5 CQ and EQ doorbells): its
//!   big-endian value goes out on the `fwd_*` port with the function and the window number.
//!
//! Addressing: `s_axi_awaddr[23:12]` is the page number in the functions' BAR2 aperture; a
//! function's BAR holds `2^PW` pages (`PW = clog2(PAGES_PER_VF)`, PCIe BARs are powers of two),
//! so `owner = page >> PW`, `index = page & (2^PW - 1)`. `s_axi_awuser = {pf, vf[7:0]}` is the
//! requester, as the PCIe core knows it.

use rdmagen_regmap::{RegMap, Window};
use verilog_ast::{
    BinOp, Decl, Expr, Flop, Item as V, Module, Param, Port, PortItem, Range, ResetStyle, Stmt,
};

pub struct Options {
    pub reset: ResetStyle,
    pub generator: String,
}

/// What a map lacks for this generator (names the element).
#[derive(Debug, PartialEq, Eq)]
pub struct UarError(pub String);

impl std::fmt::Display for UarError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UarError {}

/// The role of a window of the UAR page.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    SendDoorbell,
    BlueFlame,
    /// Forwarded on `fwd_*`: an 8-byte (pairable) or 4-byte doorbell.
    Forward,
}

/// One window of the page with its role, in map order (its index is `fwd_win`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub name: String,
    pub offset: u64,
    pub size: u64,
    pub role: Role,
}

/// `mon_result` values: what became of each write (one per write, in order; a torn pair gives
/// a second DROP for the pending half).
pub const RESULTS: [(&str, u32); 5] = [
    ("FETCH", 0),
    ("BLUEFLAME", 1),
    ("DROP", 2),
    ("PENDING", 3),
    ("FORWARD", 4),
];

/// The send doorbell's fields as rdma-core's mlx5 provider writes them (FACTS §2), as bits of
/// the big-endian 64-bit value.
pub const SEND_DB_FIELDS: [(&str, u32, u32); 5] = [
    ("opmod", 63, 56),
    ("wqe_index", 55, 40),
    ("opcode", 39, 32),
    ("qpn", 31, 8),
    ("ds", 7, 0),
];

fn role_of(w: &Window) -> Result<Role, UarError> {
    let has = |n: &str| w.fields.iter().any(|f| f.name.text == n);
    if w.size > 8 {
        if !w.size.is_multiple_of(8) || !w.offset.is_multiple_of(8) || w.size > 256 {
            return Err(UarError(format!(
                "window `{}`: a BlueFlame window must be 8-byte aligned, a multiple of 8 bytes \
                 and at most 256 bytes",
                w.name
            )));
        }
        return Ok(Role::BlueFlame);
    }
    match w.size {
        8 if w.offset.is_multiple_of(8) => {
            if has("qpn") {
                for (name, msb, lsb) in SEND_DB_FIELDS {
                    if let Some(f) = w.fields.iter().find(|f| f.name.text == name) {
                        if (f.msb, f.lsb) != (msb, lsb) {
                            return Err(UarError(format!(
                                "window `{}`: field `{name}` must be bits {msb}:{lsb} (mlx5 WQE \
                                 control segment), not {}:{}",
                                w.name, f.msb, f.lsb
                            )));
                        }
                    }
                }
                Ok(Role::SendDoorbell)
            } else {
                Ok(Role::Forward)
            }
        }
        4 if w.offset.is_multiple_of(4) => Ok(Role::Forward),
        _ => Err(UarError(format!(
            "window `{}`: size {} at offset {:#x} fits no role (8-byte aligned doorbell, \
             4-byte aligned 32-bit doorbell, or BlueFlame buffer larger than 8 bytes)",
            w.name, w.size, w.offset
        ))),
    }
}

/// The page layout of a map's `uar_page` space, validated.
pub fn layout(map: &RegMap) -> Result<Vec<Layout>, UarError> {
    let space = map
        .space("uar_page")
        .ok_or_else(|| UarError("the map has no space `uar_page`".into()))?;
    if space.size != 0x1000 {
        return Err(UarError(format!(
            "space `uar_page` must be 4 KiB (0x1000), not {:#x}",
            space.size
        )));
    }
    if space.windows.len() > 16 {
        return Err(UarError("space `uar_page` has more than 16 windows".into()));
    }
    let out = space
        .windows
        .iter()
        .map(|w| {
            Ok(Layout {
                name: w.name.text.clone(),
                offset: w.offset,
                size: w.size,
                role: role_of(w)?,
            })
        })
        .collect::<Result<Vec<_>, UarError>>()?;
    if !out
        .iter()
        .any(|l| matches!(l.role, Role::SendDoorbell | Role::BlueFlame))
    {
        return Err(UarError(
            "space `uar_page` has no send doorbell or BlueFlame window".into(),
        ));
    }
    Ok(out)
}

/// Drop reasons from the map's `drop_reason` enum, by name.
fn reason(map: &RegMap, name: &str) -> Result<u64, UarError> {
    map.enumeration("drop_reason")
        .ok_or_else(|| UarError("the map has no enum `drop_reason`".into()))?
        .values
        .iter()
        .find(|v| v.name.text == name)
        .map(|v| v.value)
        .ok_or_else(|| UarError(format!("enum `drop_reason` has no value `{name}`")))
}

/// The drop reasons this block uses, in the map's order of names.
pub const DROP_REASONS: [&str; 8] = [
    "NOT_OWNER",
    "WRONG_PAGE",
    "QP_STATE",
    "UNMAPPED",
    "PF_ONLY",
    "TORN",
    "DISABLED",
    "BF_CHUNK",
];

/// Width of a drop reason (`mon_reason`, `last_drop.reason`): values 0 to 15.
pub const RW: u32 = 4;

/// The drop reason values (name, value) of a map.
pub fn drop_reasons(map: &RegMap) -> Result<Vec<(&'static str, u64)>, UarError> {
    DROP_REASONS
        .iter()
        .map(|n| {
            let v = reason(map, n)?;
            if v >> RW != 0 {
                return Err(UarError(format!(
                    "drop_reason `{n}` = {v} does not fit in {RW} bits"
                )));
            }
            Ok((*n, v))
        })
        .collect()
}

/// Whether a forwarded window is counted in `<prefix>_db_forwarded` (prefix = the window
/// name up to its first `_`): returns that register name.
pub fn forward_counter(map: &RegMap, window: &str) -> Option<String> {
    let prefix = window.split('_').next()?;
    let name = format!("{prefix}_db_forwarded");
    map.top_registers()
        .any(|r| r.name.text == name)
        .then_some(name)
}

pub fn module_name(map: &RegMap) -> String {
    map.block.text.clone()
}

pub fn top_name(map: &RegMap) -> String {
    format!("{}_top", map.block.text)
}

fn id(s: impl Into<String>) -> Expr {
    Expr::id(s)
}
fn b1(v: bool) -> Expr {
    Expr::num(1, u128::from(v))
}
fn n(w: u32, v: u64) -> Expr {
    Expr::num(w, u128::from(v))
}
fn ne(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ne, a, b)
}
fn ge(a: Expr, b: Expr) -> Expr {
    Expr::bin(BinOp::Ge, a, b)
}
fn not(a: Expr) -> Expr {
    Expr::lnot(a)
}
fn set(l: &str, r: Expr) -> Stmt {
    Stmt::assign(id(l), r)
}

#[derive(Default)]
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

/// `p` with comment `c`, or none when `c` is empty (no dangling `// `).
fn commented(p: Port, c: &str) -> Port {
    if c.is_empty() {
        p
    } else {
        p.comment(c)
    }
}

impl Gen {
    fn wire(&mut self, name: &str, w: u32, value: Expr) {
        self.decls.push(V::Decl(Decl::wire(name, Range::bits(w))));
        self.assigns.push(V::Assign(id(name), value));
    }
    fn wire_c(&mut self, name: &str, w: u32, value: Expr, c: &str) {
        self.decls
            .push(V::Decl(Decl::wire(name, Range::bits(w)).comment(c)));
        self.assigns.push(V::Assign(id(name), value));
    }
    fn reg(&mut self, name: &str, r: Option<Range>) {
        self.decls.push(V::Decl(Decl::reg(name, r)));
    }
    /// A `name_q`/`name_d` pair; `reset: None` makes a datapath flop.
    fn flop_r(&mut self, name: &str, r: Option<Range>, reset: Option<Expr>) {
        self.flop_full(name, r, reset, id(format!("{name}_q")), None);
    }
    /// A flop whose `_d` defaults to `default` (the hold, `name_q`, for `flop_r`), with a
    /// comment on its `_q` declaration.
    fn flop_full(
        &mut self,
        name: &str,
        r: Option<Range>,
        reset: Option<Expr>,
        default: Expr,
        comment: Option<&str>,
    ) {
        let mut q = Decl::reg(format!("{name}_q"), r.clone());
        if let Some(c) = comment {
            q = q.comment(c);
        }
        self.decls.push(V::Decl(q));
        self.reg(&format!("{name}_d"), r);
        self.flops.push(Flop {
            q: id(format!("{name}_q")),
            d: id(format!("{name}_d")),
            reset,
        });
        self.comb.push(set(&format!("{name}_d"), default));
    }
    fn flop(&mut self, name: &str, w: u32, reset: Option<Expr>) {
        self.flop_r(name, Range::bits(w), reset);
    }
    /// `flop` with a comment on its declaration.
    fn flop_c(&mut self, name: &str, w: u32, reset: Option<Expr>, comment: &str) {
        let q = id(format!("{name}_q"));
        self.flop_full(name, Range::bits(w), reset, q, Some(comment));
    }
    fn input(&mut self, name: &str, w: u32, c: &str) {
        self.ports.push(PortItem::Port(commented(
            Port::input(name, Range::bits(w)),
            c,
        )));
    }
    fn output(&mut self, name: &str, w: u32, c: &str) {
        self.ports.push(PortItem::Port(commented(
            Port::output(name, Range::bits(w)),
            c,
        )));
    }
    fn banner(&mut self, s: &str) {
        self.ports.push(PortItem::Banner(s.into()));
    }
    fn mem(&mut self, name: &str, w: u32, depth: Expr, c: &str) {
        let mut d = Decl::reg(name, Range::bits(w));
        d.array = Some(Box::new(Range {
            msb: Expr::int(0),
            lsb: Expr::minus(depth, Expr::int(1)),
        }));
        d.comment = Some(c.into());
        self.decls.push(V::Decl(d));
    }
}

// Event kinds inside the pipeline (localparams `K_*` in the RTL).
const K_DB: u64 = 0;
const K_BF: u64 = 1;
const K_FWD: u64 = 2;
const K_PEND: u64 = 3;
const K_DROP: u64 = 4;
const KINDS: [(&str, &str); 5] = [
    ("K_DB", "doorbell: check with the QPC, then fetch"),
    (
        "K_BF",
        "BlueFlame WQE: checked like a doorbell, the WQE carried along",
    ),
    ("K_FWD", "doorbell of another window, forwarded on fwd_*"),
    (
        "K_PEND",
        "low half of an 8-byte doorbell, waiting for its high half",
    ),
    ("K_DROP", "dropped write, counted with its reason"),
];

/// Event kind `k` by its localparam's name.
fn kind(k: u64) -> Expr {
    id(KINDS[k as usize].0)
}

// Decoded write shapes.
const D_NONE: u64 = 0;
const D_DB64: u64 = 1;
const D_LO: u64 = 2;
const D_HI: u64 = 3;
const D_BF: u64 = 4;
const D_F32: u64 = 5;
const D_CC: u64 = 6;

/// Fields of an event word, least significant first: (name, width).
const EV: [(&str, u32); 8] = [
    ("data", 64),
    ("len", 5),
    ("win", 4),
    ("idx", 4),
    ("vf", 8),
    ("pf", 1),
    ("reason", RW),
    ("kind", 3),
];
const EV_W: u32 = 93;

fn ev_field(reg: &str, name: &str) -> Expr {
    let mut lsb = 0;
    for (n, w) in EV {
        if n == name {
            return id(reg).bits(lsb + w - 1, lsb);
        }
        lsb += w;
    }
    unreachable!("event field {name}")
}

/// The 8 AXI byte lanes as one big-endian value (lane 0 = lowest address = most significant).
fn byteswap(x: &str) -> Expr {
    Expr::concat((0..8).map(|i| id(x).bits(i * 8 + 7, i * 8)).collect())
}

fn clock_ports(g: &mut Gen, rst: ResetStyle) {
    g.banner("Clock and reset");
    g.ports.push(PortItem::Port(Port::input("clk", None)));
    g.ports
        .push(PortItem::Port(Port::input(rst.port_name(), None).comment(
            match rst {
                ResetStyle::SyncHigh => "synchronous, active high",
                ResetStyle::AsyncLow => "asynchronous assert, active low",
            },
        )));
}

/// (name, width, direction is input, comment) of the AXI4 write slave.
const AXI: [(&str, u32, bool, &str); 15] = [
    ("awvalid", 1, true, ""),
    ("awready", 1, false, ""),
    (
        "awaddr",
        24,
        true,
        "[23:12] page in the BAR2 aperture, [11:0] page offset",
    ),
    ("awlen", 8, true, "beats - 1"),
    ("awsize", 3, true, "bytes per beat = 2^awsize"),
    ("awburst", 2, true, "INCR (01) for BlueFlame bursts"),
    (
        "awuser",
        9,
        true,
        "requester: {pf, vf[7:0]} (the PCIe core's function number)",
    ),
    ("wvalid", 1, true, ""),
    ("wready", 1, false, ""),
    (
        "wdata",
        64,
        true,
        "byte i of the beat is the byte at address +i",
    ),
    ("wstrb", 8, true, ""),
    (
        "wlast",
        1,
        true,
        "not used: the beat count comes from awlen",
    ),
    ("bvalid", 1, false, ""),
    ("bready", 1, true, ""),
    (
        "bresp",
        2,
        false,
        "OKAY; DECERR unmapped/foreign/inactive; SLVERR PF-only",
    ),
];

/// The AW fields the AW skid keeps as they came (`ask_<name>_q`) and the block reads through
/// its select (`a_<name>`); size and burst reach the block only through the AW decode's
/// results (`ask_d*_q`).
fn kept_aw_field(name: &str) -> bool {
    !matches!(name, "size" | "burst")
}

/// The AW fields, `s_axi_aw<name>`, with their ranges.
fn aw_fields() -> [(&'static str, Option<Range>); 6] {
    [
        ("addr", Range::bits(24)),
        ("len", Range::bits(8)),
        ("size", Range::bits(3)),
        ("burst", Range::bits(2)),
        ("user", Range::bits(9)),
        ("id", Some(Range::width(id("ID_WIDTH")))),
    ]
}

/// The WSTRB shapes the decode asks about (a whole beat, its low half, its high half): each is
/// compared as a beat enters the W skid (`wsk_<name>_q`) and read as `w_s<name>`.
const STRB_SHAPES: [(&str, u64); 3] = [("ff", 0xFF), ("lo", 0x0F), ("hi", 0xF0)];

/// (name, width, direction is input, comment) of the AXI4 read channels: the pages read as
/// zero (the map says so; mlx5 software never reads them), so a stray read completes rather
/// than hanging the PCIe core's AXI master.
const AXI_READ: [(&str, u32, bool, &str); 12] = [
    ("arvalid", 1, true, ""),
    ("arready", 1, false, ""),
    ("araddr", 24, true, "not decoded: every page reads as zero"),
    ("arlen", 8, true, "beats - 1"),
    (
        "arsize",
        3,
        true,
        "not used: the data is zero whatever the size",
    ),
    ("arburst", 2, true, "not used"),
    ("aruser", 9, true, "not used"),
    ("rvalid", 1, false, ""),
    ("rready", 1, true, ""),
    ("rdata", 64, false, "zero"),
    ("rresp", 2, false, "OKAY"),
    ("rlast", 1, false, "the read's last beat (beat arlen)"),
];

/// The doorbell-check port (master side of the QPC's `db_*`): (name, width, is output of UAR).
const DB_PORT: [(&str, u32, bool); 13] = [
    ("db_req_valid", 1, true),
    ("db_req_ready", 1, false),
    ("db_req_vf", 8, true),
    ("db_req_qpn", 24, true),
    ("db_req_page", 24, true),
    ("db_req_user", 32, true),
    ("db_rsp_valid", 1, false),
    ("db_rsp_ready", 1, true),
    ("db_rsp_ok", 1, false),
    ("db_rsp_reason", 3, false),
    ("db_rsp_vf", 8, false),
    ("db_rsp_qpn", 24, false),
    ("db_rsp_user", 32, false),
];

/// Output ports: (name, width, is output, comment); `fwd` ones only with forward windows.
fn out_ports(fwd: bool) -> Vec<(&'static str, u32, bool, &'static str)> {
    let mut v = vec![
        ("fetch_valid", 1, true, "WQE-fetch request"),
        ("fetch_ready", 1, false, ""),
        ("fetch_vf", 8, true, ""),
        ("fetch_qpn", 24, true, ""),
        ("fetch_wqe_index", 16, true, "in 64-byte basic blocks"),
        ("fetch_ds", 8, true, "WQE size in 16-byte units"),
        ("fetch_opcode", 8, true, ""),
        (
            "m_axis_bf_tvalid",
            1,
            true,
            "BlueFlame WQE, bytes in address order",
        ),
        ("m_axis_bf_tready", 1, false, ""),
        ("m_axis_bf_tdata", 64, true, ""),
        ("m_axis_bf_tkeep", 8, true, "all ones"),
        ("m_axis_bf_tlast", 1, true, ""),
        ("m_axis_bf_tuser", 32, true, "{vf[7:0], qpn[23:0]}"),
    ];
    if fwd {
        v.extend([
            (
                "fwd_valid",
                1,
                true,
                "forwarded doorbell (CQ/EQ) with its function",
            ),
            ("fwd_ready", 1, false, ""),
            ("fwd_vf", 8, true, "page owner"),
            ("fwd_win", 4, true, "window index in the map"),
            (
                "fwd_data",
                64,
                true,
                "big-endian value; 4-byte windows in [31:0]",
            ),
        ]);
    }
    v.extend([
        (
            "mon_valid",
            1,
            true,
            "one pulse per retired event (never stalls)",
        ),
        (
            "mon_result",
            3,
            true,
            "0 FETCH, 1 BLUEFLAME, 2 DROP, 3 PENDING, 4 FORWARD",
        ),
        ("mon_reason", RW, true, "drop_reason, 0 unless DROP"),
        ("mon_vf", 8, true, "writing VF (page owner for the PF)"),
        ("mon_pf", 1, true, "the PF wrote"),
        ("mon_page", 4, true, "page index within the function"),
        ("mon_qpn", 24, true, "QPN of a checked doorbell, else 0"),
    ]);
    v
}

/// Lowers the UAR block `<block>` (with its CSR block `<block>_csr` inside).
pub fn generate(map: &RegMap, opts: &Options) -> Result<Module, UarError> {
    let lay = layout(map)?;
    let reasons = drop_reasons(map)?;
    let r = |name: &str| {
        reasons
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
            .expect("listed")
    };
    for p in ["NUM_VF", "PAGES_PER_VF"] {
        map.parameter(p)
            .ok_or_else(|| UarError(format!("the map has no parameter `{p}`")))?;
    }
    let csr = rdmagen_csr::generate(
        map,
        &rdmagen_csr::Options {
            reset: opts.reset,
            generator: opts.generator.clone(),
        },
    );
    let csr_has = |p: &str| {
        csr.ports
            .iter()
            .any(|i| matches!(i, PortItem::Port(q) if q.name == p))
    };
    for needed in [
        "ctrl_enable_o",
        "ctrl_bf_enable_o",
        "page_cfg_active_pages_o",
        "page_cfg_pf_only_mask_o",
        "vf_ctrl_enable_o",
        "db_accepted_count_incr_i",
        "bf_accepted_count_incr_i",
        "last_drop_reason_we_i",
        "last_drop_qpn_qpn_we_i",
        "vf_doorbells_count_incr_i",
        "vf_drops_count_incr_i",
    ] {
        if !csr_has(needed) {
            return Err(UarError(format!(
                "the map's CSR block lacks `{needed}` (see register-maps/uar.yaml)"
            )));
        }
    }
    for (name, _) in &reasons {
        let low = name.to_ascii_lowercase();
        for p in [
            format!("drop_{low}_count_incr_i"),
            format!("int_status_{low}_set_i"),
        ] {
            if !csr_has(&p) {
                return Err(UarError(format!("the map's CSR block lacks `{p}`")));
            }
        }
    }
    let has_fwd = lay.iter().any(|l| l.role == Role::Forward);
    let rst = opts.reset;
    let mut g = Gen::default();

    // ---- ports
    clock_ports(&mut g, rst);
    g.banner("AXI4-Lite slave of the CSR block (PF BAR0)");
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
    g.banner("AXI4 slave: the functions' UAR pages (BAR2), 64-bit data");
    let id_port = |name: &str, input: bool, c: &str| {
        let r = Some(Range::width(id("ID_WIDTH")));
        let p = if input {
            Port::input(name, r)
        } else {
            Port::output(name, r)
        };
        PortItem::Port(commented(p, c))
    };
    for &(name, w, input, c) in AXI.iter().chain(&AXI_READ) {
        let name = format!("s_axi_{name}");
        if input {
            g.input(&name, w, c)
        } else {
            g.output(&name, w, c)
        }
        // Each channel's ID after its handshake pair, as in the AXI spec's tables.
        match name.as_str() {
            "s_axi_awready" => g.ports.push(id_port("s_axi_awid", true, "")),
            "s_axi_bready" => g
                .ports
                .push(id_port("s_axi_bid", false, "the write's AWID")),
            "s_axi_arready" => g.ports.push(id_port("s_axi_arid", true, "")),
            "s_axi_rready" => g.ports.push(id_port("s_axi_rid", false, "the read's ARID")),
            _ => {}
        }
    }
    g.banner("Doorbell check: master of the QPC block's db_* port (2-cycle latency)");
    for (name, w, out) in DB_PORT {
        if out {
            g.output(name, w, "")
        } else {
            g.input(name, w, "")
        }
    }
    g.banner("Results: fetch requests, BlueFlame WQEs, forwarded doorbells, monitor");
    for (name, w, out, c) in out_ports(has_fwd) {
        if out {
            g.output(name, w, c)
        } else {
            g.input(name, w, c)
        }
    }
    g.ports.push(PortItem::Banner("Interrupt".into()));
    g.ports.push(PortItem::Port(
        Port::output("irq_o", None).comment("from the CSR block: drop events"),
    ));

    // ---- geometry
    g.lp.push(V::Comment(vec!["Geometry".into()]));
    let lp = |g: &mut Gen, name: &str, range: Option<Range>, value: Expr, c: &str| {
        g.lp.push(V::LocalParam {
            name: name.into(),
            range,
            value,
            comment: Some(c.into()),
        })
    };
    lp(
        &mut g,
        "PW",
        None,
        Expr::ternary(
            Expr::bin(BinOp::Gt, id("PAGES_PER_VF"), Expr::int(1)),
            Expr::call("$clog2", vec![id("PAGES_PER_VF")]),
            Expr::int(0),
        ),
        "page-index bits: a function's BAR2 holds 2^PW pages",
    );
    lp(
        &mut g,
        "VW",
        None,
        Expr::ternary(
            Expr::bin(BinOp::Gt, id("NUM_VF"), Expr::int(1)),
            Expr::call("$clog2", vec![id("NUM_VF")]),
            Expr::int(1),
        ),
        "VF index bits",
    );
    lp(
        &mut g,
        "GEO_NUM_VF",
        Range::bits(12),
        id("NUM_VF").bits(11, 0),
        "NUM_VF as a 12-bit value",
    );
    lp(
        &mut g,
        "GEO_PAGES",
        Range::bits(5),
        id("PAGES_PER_VF").bits(4, 0),
        "PAGES_PER_VF as a 5-bit value",
    );
    lp(
        &mut g,
        "PAGE_MASK",
        Range::bits(12),
        Expr::minus(Expr::bin(BinOp::Shl, n(12, 1), id("PW")), n(12, 1)),
        "page index = page & PAGE_MASK",
    );
    lp(
        &mut g,
        "SLOT_MASK",
        None,
        Expr::minus(Expr::bin(BinOp::Shl, Expr::int(1), id("VW")), Expr::int(1)),
        "pending-half slot = owner & SLOT_MASK (owner[VW-1:0])",
    );
    for (k, (name, what)) in KINDS.iter().enumerate() {
        lp(&mut g, name, Range::bits(3), n(3, k as u64), what);
    }

    // ---- CSR block instance
    let mut conns = Vec::new();
    for item in &csr.ports {
        let PortItem::Port(p) = item else { continue };
        let top_level = p.name == "clk"
            || p.name == rst.port_name()
            || p.name.starts_with("s_axil_")
            || p.name == "irq_o";
        if !top_level {
            g.decls.push(V::Decl(Decl::wire(
                format!("csr_{}", p.name),
                p.range.clone(),
            )));
        }
        conns.push((
            p.name.clone(),
            if top_level {
                id(p.name.clone())
            } else {
                id(format!("csr_{}", p.name))
            },
        ));
    }
    // A map without an interrupt register gives a CSR block without `irq_o`: the block's own
    // `irq_o` is then constant low, not left undriven.
    if !csr
        .ports
        .iter()
        .any(|p| matches!(p, PortItem::Port(p) if p.name == "irq_o"))
    {
        g.assigns.push(V::Assign(id("irq_o"), b1(false)));
    }
    g.inst.push(V::Comment(vec![
        "The CSR block: control, drop counters and status.".into(),
    ]));
    g.inst.push(V::Instance {
        module: csr.name.clone(),
        name: "u_csr".into(),
        params: vec![("NUM_VF".into(), id("NUM_VF"))],
        ports: conns,
    });

    // ---- flops (their `_d = _q` defaults open the always block)
    g.comb.push(Stmt::Comment("Defaults: hold".into()));
    g.flop("aw_valid", 1, Some(b1(false)));
    for (name, w) in [("addr", 24), ("len", 8), ("user", 9)] {
        g.flop(&format!("aw_{name}"), w, None);
    }
    // AXI4 skid buffers (IHI 0022 A3.2.1: no combinational path from an AXI input to an AXI
    // output). `s_axi_awready`/`s_axi_wready` are "the skid is empty", a flop: a transfer the
    // port takes while the block cannot is held here and offered again from the next cycle;
    // while the skid is empty the block sees the port itself, so there is no added cycle.
    // B has an output register and a skid: the last beat needs only the skid free, not
    // `s_axi_bready`.
    g.flop_c(
        "ask_valid",
        1,
        Some(b1(false)),
        "AW skid: an AW the port took that the block has not",
    );
    // Size and burst only feed the AW decode, which the skid keeps as results (`ask_d*`).
    for (name, r) in aw_fields().into_iter().filter(|(f, _)| kept_aw_field(f)) {
        g.flop_r(&format!("ask_{name}"), r, None);
    }
    // The W head register: every beat the port takes lands here (or, while the head is held,
    // in the skid behind it) with its strobe shapes compared on the way in, and the block
    // reads only the head: no decision starts at `s_axi_wstrb`/`s_axi_wdata` or behind a
    // select between two entries (issue 9: the strobes through the last beat's decode set
    // ABC's delay).
    g.flop_c(
        "wi_valid",
        1,
        Some(b1(false)),
        "W head: the beat offered to the block (once its AW is open)",
    );
    g.flop("wi_data", 64, None);
    for (s, _) in STRB_SHAPES {
        g.flop(&format!("wi_{s}"), 1, None);
    }
    g.flop_c(
        "wsk_valid",
        1,
        Some(b1(false)),
        "W skid: a beat the port took while the head was held",
    );
    g.flop("wsk_data", 64, None);
    // The strobe shapes the decode asks about, compared as the beat enters the skid.
    for (s, _) in STRB_SHAPES {
        g.flop(&format!("wsk_{s}"), 1, None);
    }
    g.flop_c(
        "bsk_valid",
        1,
        Some(b1(false)),
        "B skid: a response behind the one on s_axi_b*",
    );
    g.flop("bsk_resp", 2, Some(n(2, 0)));
    // The write's AWID rides with its AW into B (writes complete in order, one at a time).
    let idr = || Some(Range::width(id("ID_WIDTH")));
    // Reset: B's register loads it in every cycle it is free, before the first AW.
    g.flop_r("aw_id", idr(), Some(Expr::repl(id("ID_WIDTH"), b1(false))));
    g.flop_r("bsk_id", idr(), None);
    g.flop_r("b_id", idr(), Some(Expr::repl(id("ID_WIDTH"), b1(false))));
    // Reads: one at a time, answered with zero data, OKAY, one beat per cycle the master takes.
    g.flop_c(
        "rd_valid",
        1,
        Some(b1(false)),
        "a read is being answered (s_axi_rvalid)",
    );
    g.flop("rd_left", 8, Some(n(8, 0)));
    g.flop_c(
        "rd_last",
        1,
        Some(b1(false)),
        "rd_left_q is 0: the beat on R is the read's last",
    );
    g.flop_r("rd_id", idr(), Some(Expr::repl(id("ID_WIDTH"), b1(false))));
    // The AW checks, registered with the AW as flags (see `in_ok`): the reason they name is
    // formed from them at the last beat (`pre_reason`), so the AW decode ends at the AND of
    // the checks rather than at the reason's priority encoding behind it.
    g.flop_c(
        "aw_dis",
        1,
        Some(b1(false)),
        "the block or the writing VF is disabled (DISABLED)",
    );
    g.flop_c(
        "aw_out",
        1,
        Some(b1(false)),
        "another function's page or an inactive page (UNMAPPED, unless aw_dis_q)",
    );
    g.flop_c(
        "aw_ok",
        1,
        Some(b1(false)),
        "the AW checks passed: else DISABLED, UNMAPPED or PF_ONLY (pre_reason)",
    );
    g.flop("aw_bfc", 1, Some(b1(false)));
    // The window hit and its role, from the AW (see `in_win`): the last beat's decode is the
    // strobes against these few flops, not a priority chain over a per-window hit vector.
    g.flop_c(
        "aw_win",
        4,
        Some(n(4, 0)),
        "window the write starts in (the event's `win`)",
    );
    g.flop_c(
        "aw_hh",
        1,
        Some(b1(false)),
        "an 8-byte window that takes 32-bit halves",
    );
    let has_bf = lay.iter().any(|l| l.role == Role::BlueFlame);
    let f32_lanes = |lanes: u64| {
        lay.iter()
            .enumerate()
            .filter(|(_, l)| {
                matches!((l.role, l.size), (Role::Forward, 4))
                    && (if l.offset % 8 == 4 { 0xF0 } else { 0x0F }) == lanes
            })
            .map(|(k, _)| k)
            .collect::<Vec<_>>()
    };
    let (f32_lo, f32_hi) = (f32_lanes(0x0F), f32_lanes(0xF0));
    let has_fwd = lay.iter().any(|l| l.role == Role::Forward);
    if has_bf {
        g.flop_c(
            "aw_bh",
            1,
            Some(b1(false)),
            "a whole-WQE burst at a BlueFlame window's start",
        );
        // Write-combining chunks (rdma-core's mlx5_bf_copy writes a WQE in 64-byte chunks,
        // which a root complex may deliver as separate TLPs). Only what depends on the CSRs at
        // AW time is registered with the AW; the offset and length are matched at the first
        // beat from `aw_addr_q`/`aw_len_q` (see `fc_ok`/`cc_ok`), off the AW decode.
        g.flop_c(
            "aw_ck",
            1,
            Some(b1(false)),
            "INCR of 8-byte beats while bf_enable: a burst that may be a chunk",
        );
    }
    if !f32_lo.is_empty() {
        g.flop_c(
            "aw_f32lo",
            1,
            Some(b1(false)),
            "a 32-bit forwarding window in lanes 3:0",
        );
    }
    if !f32_hi.is_empty() {
        g.flop_c(
            "aw_f32hi",
            1,
            Some(b1(false)),
            "a 32-bit forwarding window in lanes 7:4",
        );
    }
    if has_fwd {
        g.flop_c(
            "aw_fwd",
            1,
            Some(b1(false)),
            "a forwarding window (the write goes out on fwd_*)",
        );
    }
    g.flop("pm", 1, Some(b1(false)));
    // Whether the owner's low half is pending, registered with the AW: the last beat's tear
    // decision then starts from flops, not from a NUM_VF:1 select of `pend_valid_q` (three
    // LUT levels at 64 VFs) in front of `w_ready`. The select itself is registered every
    // cycle without an enable (`aw_ps_q`), so it is not also behind the AW handshake and the
    // pair logic; `pv` takes it in the cycle after the AW and `aw_pv_q` keeps it after that.
    g.flop_full(
        "aw_ps",
        Range::bits(1),
        Some(b1(false)),
        id("in_ps"),
        Some("pending bit of the owner on a_addr: the port's, sampled every cycle, held while the skid is full"),
    );
    g.flop_full(
        "aw_pt",
        Range::bits(1),
        Some(b1(false)),
        b1(false),
        Some("an AW was taken last cycle and its pending bit is aw_ps_q"),
    );
    g.flop_full(
        "aw_pv",
        Range::bits(1),
        Some(b1(false)),
        id("pv"),
        Some("the open write's owner's pending bit (with aw_pt_q/aw_ps_q: pv)"),
    );
    g.flop("beat", 8, Some(n(8, 0)));
    g.flop("beat0", 1, Some(b1(true)));
    g.flop("last", 1, Some(b1(false)));
    g.flop("full", 1, Some(b1(true)));
    // The open burst's chunk shape, set at its first beat: a first chunk (the buffer claimed,
    // 64-byte multiples, a first beat whose ds the burst does not hold) or a continuation
    // chunk (offset and length). The strobes stay in `full_q`, so the last beat's decode
    // reads one more flop per shape and the strobes once, through `full_now`.
    if has_bf {
        g.flop("fc_ok", 1, Some(b1(false)));
        g.flop("cc_ok", 1, Some(b1(false)));
    }
    g.flop("first", 64, None);
    g.flop("cand", 1, Some(b1(false)));
    g.flop("b_valid", 1, Some(b1(false)));
    g.flop("b_resp", 2, Some(n(2, 0)));
    g.flop_r(
        "pend_valid",
        Some(Range::width(id("NUM_VF"))),
        Some(Expr::repl(id("NUM_VF"), b1(false))),
    );
    g.flop("e1_valid", 1, Some(b1(false)));
    // Reset, not datapath: e1 drives db_req_* (and through the QPC, db_rsp_*) from reset on.
    g.flop("e1", EV_W, Some(n(EV_W, 0)));
    g.flop("q_wr", 2, Some(n(2, 0)));
    g.flop("q_rd", 2, Some(n(2, 0)));
    // Queue occupancy as a thermometer code: q_occ_q[i] is "more than i events queued", so
    // "not empty" (q_occ_q[0]) and "full" (q_occ_q[3]) are flops and each bit's next value is
    // one LUT of its neighbours and the two events: no count adder after the retire decision
    // (the QPC answer, the head's kind, fetch_ready), and no comparator before the AW/W
    // handshake (through `ev_room`). Stage 1's "needs the QPC check" is a flop too.
    g.flop("q_occ", 4, Some(n(4, 0)));
    // The queued events' kinds, also kept in flops beside q_mem (3 bits per entry): the retire
    // decision starts from a 4:1 select of flops, whose delay ABC9 sees, instead of from the
    // LUT RAM's read, which it takes as free and so mapped the rest of that path one LUT
    // deeper (`q_mem` address -> `q_occ_q`, `mon_reason`: 7 levels).
    g.flop("q_kind", 12, Some(n(12, 0)));
    // The head's kind as one-hot flags (zero while the queue is empty), loaded as the head
    // changes: the retire decision starts from these flops and the QPC answer, not from the
    // 4:1 select of `q_kind_q` and its decode (issue 9: that put `q_kind_q -> q_mem`'s read
    // address at 7 LUT levels at 64 VFs). The next head's kind is selected from flops in
    // parallel with the retire decision.
    g.flop_c(
        "hk",
        5,
        Some(n(5, 0)),
        "the queue head's kind, one-hot {drop, pend, fwd, bf, db}; zero while empty",
    );
    g.flop("e1_chk", 1, Some(b1(K_DB == 0 || K_BF == 0)));
    g.flop("bf_busy", 1, Some(b1(false)));
    g.flop("drain", 1, Some(b1(false)));
    g.flop("drain_idx", 5, Some(n(5, 0)));
    // Reset (not datapath) flops: they drive m_axis_bf_tlast/tuser, known from reset on.
    g.flop("drain_last", 5, Some(n(5, 0)));
    g.flop("drain_user", 32, Some(n(32, 0)));
    g.mem(
        "pend_mem",
        40,
        id("NUM_VF"),
        "per VF: pending low half {window, page index, dword}",
    );
    g.mem(
        "bf_mem",
        64,
        Expr::int(32),
        "BlueFlame buffer: one WQE of up to 256 bytes",
    );
    g.mem(
        "q_mem",
        EV_W,
        Expr::int(4),
        "events waiting for their QPC answer, in order",
    );

    // ---- stage 0: the AXI write, classified at its last beat
    // The channels as the block sees them: the skid's entry while it holds one, else the port.
    g.wire_c(
        "a_valid",
        1,
        Expr::or(id("ask_valid_q"), id("s_axi_awvalid")),
        "an AW is offered: the skid's, else the port's",
    );
    for (name, r) in aw_fields().into_iter().filter(|(f, _)| kept_aw_field(f)) {
        let a = format!("a_{name}");
        g.decls.push(V::Decl(Decl::wire(a.clone(), r)));
        g.assigns.push(V::Assign(
            id(a),
            Expr::ternary(
                id("ask_valid_q"),
                id(format!("ask_{name}_q")),
                id(format!("s_axi_aw{name}")),
            ),
        ));
    }
    g.wire_c(
        "w_valid",
        1,
        Expr::and(id("wi_valid_q"), id("aw_valid_q")),
        "a W beat is offered: the head's, once its AW is open",
    );
    g.wire("w_data", 64, id("wi_data_q"));
    let port_strb = |v: u64| Expr::eq(id("s_axi_wstrb"), n(8, v));
    for (s, _) in STRB_SHAPES {
        g.wire(&format!("w_s{s}"), 1, id(format!("wi_{s}_q")));
    }

    g.wire("aw_take", 1, Expr::and(id("a_valid"), id("aw_rdy")));
    g.wire_c(
        "aw_rdy",
        1,
        Expr::or(not(id("aw_valid_q")), id("w_last_take")),
        "no write open, or the open one ends now",
    );
    g.wire("aw_page", 12, id("aw_addr_q").bits(23, 12));
    g.wire_c(
        "owner",
        12,
        Expr::bin(BinOp::Shr, id("aw_page"), id("PW")),
        "the function whose BAR holds the page",
    );
    g.wire_c(
        "page_idx",
        12,
        Expr::band(id("aw_page"), id("PAGE_MASK")),
        "page index within that function",
    );
    g.wire("r_pf", 1, id("aw_user_q").index(Expr::int(8)));
    g.wire("r_vf", 8, id("aw_user_q").bits(7, 0));
    g.decls.push(V::Decl(
        Decl::wire("slot", Some(Range::width(id("VW"))))
            .comment("pending-half slot: the page owner"),
    ));
    g.assigns.push(V::Assign(
        id("slot"),
        id("owner").slice(Expr::minus(id("VW"), Expr::int(1)), Expr::int(0)),
    ));
    g.wire(
        "ev_vf",
        8,
        Expr::ternary(id("r_pf"), id("owner").bits(7, 0), id("r_vf")),
    );
    // The address and requester checks run on the AW channel and are registered with it
    // (`aw_ok_q`, `aw_dis_q`, `aw_out_q`, `aw_bfc_q`, the window hits): the last beat then starts from flops
    // (issue 9: LUT depth). The CSR configuration is therefore sampled when the AW is
    // accepted.
    // Decoded from the port's AW in the cycle the port offers it: the block takes it from the
    // port then, or the AW skid keeps it with these results (`ask_d*_q`), so the decode has
    // no select between the skid and the port in front of it (issue 9: that select fed every
    // check; the CSR configuration is the one in force at the AW's handshake).
    g.wire("in_page", 12, id("s_axi_awaddr").bits(23, 12));
    g.wire("in_off", 12, id("s_axi_awaddr").bits(11, 0));
    g.wire(
        "in_owner",
        12,
        Expr::bin(BinOp::Shr, id("in_page"), id("PW")),
    );
    g.wire(
        "in_page_idx",
        12,
        Expr::band(id("in_page"), id("PAGE_MASK")),
    );
    g.wire("in_pf", 1, id("s_axi_awuser").index(Expr::int(8)));
    g.wire("in_vf", 8, id("s_axi_awuser").bits(7, 0));
    g.decls
        .push(V::Decl(Decl::wire("in_slot", Some(Range::width(id("VW"))))));
    g.assigns.push(V::Assign(
        id("in_slot"),
        id("in_vf").slice(Expr::minus(id("VW"), Expr::int(1)), Expr::int(0)),
    ));
    g.wire_c(
        "in_nofunc",
        1,
        Expr::and(
            not(id("in_pf")),
            ge(Expr::concat(vec![n(4, 0), id("in_vf")]), id("GEO_NUM_VF")),
        ),
        "no such VF",
    );
    g.wire(
        "eff_pages",
        5,
        Expr::ternary(
            Expr::or(
                Expr::eq(id("csr_page_cfg_active_pages_o"), n(5, 0)),
                Expr::bin(
                    BinOp::Gt,
                    id("csr_page_cfg_active_pages_o"),
                    id("GEO_PAGES"),
                ),
            ),
            id("GEO_PAGES"),
            id("csr_page_cfg_active_pages_o"),
        ),
    );
    g.wire_c(
        "in_pf_only",
        1,
        Expr::un(
            verilog_ast::UnOp::RedOr,
            Expr::band(
                id("csr_page_cfg_pf_only_mask_o"),
                Expr::bin(BinOp::Shl, n(16, 1), id("in_page_idx").bits(3, 0)),
            ),
        ),
        "page_cfg.pf_only_mask bit of the page index",
    );
    g.wire_c(
        "in_dis",
        1,
        Expr::or(
            not(id("csr_ctrl_enable_o")),
            Expr::all(vec![
                not(id("in_pf")),
                not(id("in_nofunc")),
                not(id("csr_vf_ctrl_enable_o").index(id("in_slot"))),
            ]),
        ),
        "the block or the writing VF is disabled",
    );
    g.wire_c(
        "in_outside",
        1,
        Expr::any_of(
            vec![
                id("in_nofunc"),
                ge(id("in_owner"), id("GEO_NUM_VF")),
                Expr::and(
                    not(id("in_pf")),
                    ne(id("in_owner"), Expr::concat(vec![n(4, 0), id("in_vf")])),
                ),
                ge(
                    id("in_page_idx"),
                    Expr::concat(vec![n(7, 0), id("eff_pages")]),
                ),
            ],
            b1(false),
        ),
        "a page of another function, or an inactive page index",
    );
    g.wire_c(
        "in_ok",
        1,
        // A flat AND of the checks' terms rather than through a reason's
        // priority encoding (in_outside covers in_nofunc), so that the 64:1 VF-enable select
        // feeds one AND; the registered checks and in_bf_cand both start from it.
        Expr::all(vec![
            id("csr_ctrl_enable_o"),
            Expr::or(id("in_pf"), id("csr_vf_ctrl_enable_o").index(id("in_slot"))),
            not(id("in_outside")),
            Expr::or(id("in_pf"), not(id("in_pf_only"))),
        ]),
        "no check refuses the write",
    );
    g.wire("in_single", 1, Expr::eq(id("s_axi_awlen"), n(8, 0)));
    g.wire(
        "in_burst_ok",
        1,
        Expr::and(
            Expr::eq(id("s_axi_awburst"), n(2, 1)),
            Expr::eq(id("s_axi_awsize"), n(3, 3)),
        ),
    );
    g.wire_c(
        "pre_reason",
        RW,
        Expr::ternary(
            id("aw_dis_q"),
            n(RW, r("DISABLED")),
            Expr::ternary(id("aw_out_q"), n(RW, r("UNMAPPED")), n(RW, r("PF_ONLY"))),
        ),
        "the AW check that refused the write (when pre_ok is low)",
    );
    g.wire("pre_ok", 1, id("aw_ok_q"));
    g.wire("last", 1, id("last_q"));
    g.wire("first_beat", 1, id("beat0_q"));
    g.wire("be64", 64, byteswap("w_data"));
    g.wire(
        "first_be",
        64,
        Expr::ternary(id("first_beat"), id("be64"), id("first_q")),
    );
    let strb = |v: u64| {
        let (s, _) = STRB_SHAPES
            .iter()
            .find(|&&(_, shape)| shape == v)
            .expect("a shape of STRB_SHAPES");
        id(format!("w_s{s}"))
    };
    g.wire("full_now", 1, Expr::and(id("full_q"), strb(0xFF)));
    // A BlueFlame burst is a whole WQE only if it holds the WQE its control segment sizes
    // (SPEC §3, FACTS §2): ds x 16 bytes <= (awlen + 1) x 8 bytes, i.e. 2 ds <= awlen + 1.
    // Decided at the first beat (ds is its byte 7) into `full_q`, so the last beat's decode
    // is unchanged.
    g.wire_c(
        "ds_fits",
        1,
        Expr::bin(
            BinOp::Le,
            Expr::concat(vec![n(1, 0), id("be64").bits(7, 0), n(1, 0)]),
            Expr::plus(Expr::concat(vec![n(2, 0), id("aw_len_q")]), n(10, 1)),
        ),
        "the first beat's ds (16-byte units) fits in the burst",
    );
    // Window hits on the AW: `in_hit[k]` a single beat in window k's 8 bytes, `in_bhit[k]` a
    // whole-WQE burst from BlueFlame window k's start; registered as the window and its role.
    let nwin = lay.len() as u32;
    let in_at8 = |o: u64| Expr::eq(id("in_off").bits(11, 3), n(9, o >> 3));
    let mut hits = Vec::new();
    let mut bhits = Vec::new();
    for l in lay.iter().rev() {
        hits.push(Expr::and(id("in_single"), in_at8(l.offset)));
        bhits.push(if l.role == Role::BlueFlame {
            Expr::all(vec![
                Expr::eq(id("in_off"), n(12, l.offset)),
                not(id("in_single")),
                id("in_burst_ok"),
                Expr::bin(BinOp::Lt, id("s_axi_awlen"), n(8, l.size / 8)),
            ])
        } else {
            b1(false)
        });
    }
    g.wire("in_hit", nwin, Expr::concat(hits));
    g.wire("in_bhit", nwin, Expr::concat(bhits));
    // Chunks: 64-byte multiples (awlen = 8 m - 1). A first chunk starts at the window's start
    // (a burst of `in_bhit`), a continuation chunk at one of its 64-byte offsets after it and
    // ends within it. Matched on the open write's registered AW, used at its first beat.
    let mut chits = Vec::new();
    for l in lay.iter().filter(|l| l.role == Role::BlueFlame) {
        for j in (64..l.size).step_by(64) {
            if l.size - j < 64 {
                continue;
            }
            // With awlen[2:0] = 7, awlen < 8 m is awlen[7:3] < m: a 5-bit compare.
            chits.push(Expr::all(vec![
                Expr::eq(id("aw_addr_q").bits(11, 0), n(12, l.offset + j)),
                Expr::bin(
                    BinOp::Lt,
                    id("aw_len_q").bits(7, 3),
                    n(5, (l.size - j) / 64),
                ),
            ]));
        }
    }
    if has_bf {
        g.wire_c(
            "len8",
            1,
            Expr::eq(id("aw_len_q").bits(2, 0), n(3, 7)),
            "the open burst is a multiple of 64 bytes",
        );
        g.wire_c(
            "cc_at",
            1,
            Expr::and(id("len8"), Expr::any_of(chits, b1(false))),
            "the open burst's offset and length are a continuation chunk's",
        );
    }
    // The window a 32-bit high half would complete a pair in (later windows win, as in the
    // decode below). `in_hwin` is matched on the offset alone, without `in_single`: it only
    // feeds `pm_q`, which counts only with `aw_hh_q` (a single beat), so `s_axi_awlen` is kept
    // off the pending-pair match (issue 9: `s_axi_awlen -> pm_q` was a 6-LUT path at 64 VFs).
    let mut hwin = n(4, 0);
    let mut hh = Vec::new();
    for (k, l) in lay.iter().enumerate() {
        if matches!((l.role, l.size), (Role::Forward, 4)) {
            continue;
        }
        let h = id("in_hit").index(Expr::int(k as i64));
        // Window 0 is the value with no later hit anyway.
        if k != 0 {
            hwin = Expr::ternary(in_at8(l.offset), n(4, k as u64), hwin);
        }
        hh.push(h);
    }
    g.wire("in_hh", 1, Expr::any_of(hh, b1(false)));
    g.wire("in_hwin", 4, hwin);
    // The window the write starts in (single beat or whole-WQE burst; windows do not overlap),
    // matched on the offset alone: a write no window takes by its shape (`in_hit`/`in_bhit`
    // low) is dropped, and a drop's window is not seen (the event's window goes out only with
    // a forwarded doorbell and into a stored low half), so `s_axi_awlen` is kept off
    // `aw_win_q` (issue 9: a 6-LUT path at 64 VFs).
    let mut win = n(4, 0);
    for (k, l) in lay.iter().enumerate().skip(1) {
        win = Expr::ternary(in_at8(l.offset), n(4, k as u64), win);
    }
    g.wire("in_win", 4, win);
    let fwd_wins: Vec<usize> = lay
        .iter()
        .enumerate()
        .filter(|(_, l)| l.role == Role::Forward)
        .map(|(k, _)| k)
        .collect();
    let any_hit = |ks: &[usize], v: &str| {
        Expr::any_of(
            ks.iter()
                .map(|k| id(v).index(Expr::int(*k as i64)))
                .collect(),
            b1(false),
        )
    };
    g.wire_c(
        "in_bf_cand",
        1,
        Expr::all(vec![
            id("in_ok"),
            id("csr_ctrl_bf_enable_o"),
            Expr::un(verilog_ast::UnOp::RedOr, id("in_bhit")),
        ]),
        "a whole-WQE burst from a BlueFlame window start",
    );
    // The decode's results as the block sees them: the skid's (decoded when the port took
    // its AW), else the port's.
    let mut dec_aw: Vec<(&str, u32, Expr)> = vec![
        ("dis", 1, id("in_dis")),
        ("out", 1, id("in_outside")),
        ("ok", 1, id("in_ok")),
        ("bfc", 1, id("in_bf_cand")),
        ("win", 4, id("in_win")),
        ("hh", 1, id("in_hh")),
        ("hwin", 4, id("in_hwin")),
    ];
    if has_bf {
        dec_aw.push(("bh", 1, Expr::un(verilog_ast::UnOp::RedOr, id("in_bhit"))));
        dec_aw.push((
            "ck",
            1,
            Expr::and(id("csr_ctrl_bf_enable_o"), id("in_burst_ok")),
        ));
    }
    if !f32_lo.is_empty() {
        dec_aw.push(("f32lo", 1, any_hit(&f32_lo, "in_hit")));
    }
    if !f32_hi.is_empty() {
        dec_aw.push(("f32hi", 1, any_hit(&f32_hi, "in_hit")));
    }
    if has_fwd {
        dec_aw.push(("fwd", 1, any_hit(&fwd_wins, "in_hit")));
    }
    // Each result from the port: the decode's own wire, or `in_d<name>` for an expression (no
    // alias of a wire that already has a name).
    let dec_aw: Vec<(&str, u32, Expr)> = dec_aw
        .into_iter()
        .map(|(name, w, e)| {
            if matches!(e, Expr::Ident(_)) {
                (name, w, e)
            } else {
                g.wire(&format!("in_d{name}"), w, e);
                (name, w, id(format!("in_d{name}")))
            }
        })
        .collect();
    for (name, w, from_port) in &dec_aw {
        g.flop(&format!("ask_d{name}"), *w, None);
        g.wire(
            &format!("a_d{name}"),
            *w,
            Expr::ternary(
                id("ask_valid_q"),
                id(format!("ask_d{name}_q")),
                from_port.clone(),
            ),
        );
    }
    // BlueFlame candidacy is known from AW alone; it claims the buffer at the first beat.
    g.wire("bf_cand", 1, id("aw_bfc_q"));
    g.wire(
        "owns_buf",
        1,
        Expr::ternary(id("first_beat"), id("bf_cand"), id("cand_q")),
    );

    // Window decode (one window per offset; map order).
    g.reg("dk", Range::bits(3));
    g.reg("dwin", Range::bits(4));
    g.reg("dval", Range::bits(64));
    let mut dec = vec![
        Stmt::Comment("Window decode: shape of the write in the window it starts in".into()),
        set("dk", n(3, D_NONE)),
        set("dwin", id("aw_win_q")),
        set("dval", id("be64")),
    ];
    // A continuation chunk of a WQE written in 64-byte pieces, decided first: the shapes below
    // exclude it anyway (other flags), and being overridden rather than overriding keeps its
    // term off their decode (the low half's `pend_we` sits in front of the AW taken with the
    // last beat). Its last beat is never its first (8 beats), so `full_now` covers them all.
    if has_bf {
        dec.push(Stmt::if_(
            Expr::and(id("cc_ok_q"), id("full_now")),
            vec![set("dk", n(3, D_CC))],
        ));
    }
    // An 8-byte window (send doorbell, 8-byte forward, a BlueFlame window's first 8 bytes):
    // the whole value or one of its 32-bit halves.
    dec.push(Stmt::if_(
        id("aw_hh_q"),
        vec![Stmt::If {
            cond: strb(0xFF),
            then: vec![set("dk", n(3, D_DB64))],
            els: vec![Stmt::If {
                cond: strb(0x0F),
                then: vec![set("dk", n(3, D_LO))],
                els: vec![Stmt::if_(strb(0xF0), vec![set("dk", n(3, D_HI))])],
            }],
        }],
    ));
    // A 4-byte forward window: its own four lanes.
    for (flag, wins, lanes, val) in [
        ("aw_f32lo_q", &f32_lo, 0x0F, id("be64").bits(63, 32)),
        ("aw_f32hi_q", &f32_hi, 0xF0, id("be64").bits(31, 0)),
    ] {
        if !wins.is_empty() {
            dec.push(Stmt::if_(
                Expr::and(id(flag), strb(lanes)),
                vec![
                    set("dk", n(3, D_F32)),
                    set("dval", Expr::concat(vec![n(32, 0), val])),
                ],
            ));
        }
    }
    if has_bf {
        dec.push(Stmt::if_(
            Expr::all(vec![id("aw_bh_q"), id("full_now"), id("owns_buf")]),
            // A first chunk (`fc_ok_q`: full strobes, the buffer claimed, shorter than its
            // ds x 16 bytes; `full_q` admits it) is the send doorbell of its first 8 bytes
            // (the WQE is in the send queue too; the fetch reads it from there): an 8-byte
            // doorbell of `first_be` (a BlueFlame window forwards nothing).
            vec![set(
                "dk",
                Expr::ternary(id("fc_ok_q"), n(3, D_DB64), n(3, D_BF)),
            )],
        ));
    }

    // Pending low halves, one per page owner.
    g.wire("pe", 36, id("pend_mem").index(id("slot")).bits(35, 0));
    g.wire_c(
        "pv",
        1,
        Expr::or(id("aw_pv_q"), Expr::and(id("aw_pt_q"), id("aw_ps_q"))),
        "the open write's owner has a low half pending",
    );
    g.wire_c(
        "complete",
        1,
        // pre_ok too: a write the AW checks refuse (another VF's high half at the same offset
        // of the owner's page, say) is dropped before the pair logic and must leave the
        // owner's pending half as it is.
        Expr::all(vec![
            id("pre_ok"),
            id("pv"),
            id("aw_hh_q"),
            strb(0xF0),
            id("pm_q"),
        ]),
        "the high half that completes the pending pair",
    );
    // The AW's owner as a slot index, and its page index, from the AW the block sees.
    // `a_addr[23:12] >> PW` cut to its slot bits (PW + VW <= 12: at most 16 pages, 256 VFs).
    g.decls.push(V::Decl(
        Decl::wire("a_owner", Some(Range::width(id("VW"))))
            .comment("the AW's page owner as a pending-half slot"),
    ));
    g.assigns.push(V::Assign(
        id("a_owner"),
        id("a_addr").part(Expr::plus(Expr::int(12), id("PW")), id("VW")),
    ));
    g.wire(
        "a_page_idx",
        4,
        Expr::band(id("a_addr").bits(15, 12), id("PAGE_MASK").bits(3, 0)),
    );
    let owner_slot = || id("a_owner").slice(Expr::minus(id("VW"), Expr::int(1)), Expr::int(0));
    let same_slot = || Expr::eq(id("slot"), owner_slot());
    // The pending half's window and page are compared with the write's when the AW is
    // accepted (`pm_q`), from pend_mem or, when the burst ending in that cycle stores the
    // same owner's low half, from what it stores.
    g.wire(
        "in_slot_pend",
        1,
        Expr::eq(
            id("pend_mem").index(owner_slot()).bits(39, 32),
            Expr::concat(vec![id("a_dhwin"), id("a_page_idx").bits(3, 0)]),
        ),
    );
    g.wire(
        "in_new_pend",
        1,
        // Used only with an AW taken while `last`: the open write's last beat is then taken
        // (no tear), so `pend_we` is `lo_now` there, without the handshake behind it.
        Expr::all(vec![id("last"), id("lo_now"), same_slot()]),
    );
    // The owner's pending bit: from `pend_valid_q`, or as the write ending in this cycle
    // leaves it when that write has the same owner: that write is the only one that can
    // change it before this AW's last beat (`last` is low while no write is open), and at its
    // last beat it stores a low half (`pend_we`), completes the pair or leaves the bit as it
    // was (a tear holds the beat, so no AW is taken with it).
    g.wire("in_same", 1, Expr::all(vec![id("last"), same_slot()]));
    // The owner's pending bit for the AW offered in this cycle (registered every cycle as
    // `aw_ps_q`): the port's AW selects it from `pend_valid_q`; an AW in the skid keeps the bit
    // it was sampled with as the skid took it, since `aw_ps_q` holds it while `ask_valid_q`
    // (no NUM_VF:1 select behind `ask_addr_q`; issue 9: `ask_addr_q -> aw_ps_q` was the
    // slowest path of both 64-VF rows once the CSR read select was split). Exact: the skid
    // takes an AW only while a write is open and not ending (else the block takes the AW
    // itself), and until the skid's AW is taken that open write is the only one that can change
    // a pending bit, its own owner's (a tear, or its last beat); the skid's AW is taken with
    // that write's last beat, where `in_same` replaces the sampled bit when the owners match.
    let src_slot = |addr: &str| {
        Expr::band(
            Expr::bin(
                BinOp::Shr,
                Expr::concat(vec![n(20, 0), id(addr).bits(23, 12)]),
                id("PW"),
            ),
            id("SLOT_MASK"),
        )
    };
    g.wire(
        "in_ps",
        1,
        Expr::ternary(
            id("ask_valid_q"),
            id("aw_ps_q"),
            id("pend_valid_q").index(src_slot("s_axi_awaddr")),
        ),
    );
    g.wire(
        "in_pv",
        1,
        Expr::all(vec![
            id("in_same"),
            Expr::or(id("lo_now"), Expr::all(vec![id("pv"), not(id("complete"))])),
        ]),
    );
    g.wire(
        "in_pm",
        1,
        Expr::ternary(
            id("in_new_pend"),
            Expr::eq(
                Expr::concat(vec![id("dwin"), id("page_idx").bits(3, 0)]),
                Expr::concat(vec![id("a_dhwin"), id("a_page_idx").bits(3, 0)]),
            ),
            id("in_slot_pend"),
        ),
    );
    g.wire_c(
        "tear",
        1,
        Expr::all(vec![
            id("last"),
            id("pre_ok"),
            id("pv"),
            not(id("complete")),
        ]),
        "another write breaks the pending pair: drop it first, then take this write",
    );

    // The event this write (or the tear) makes.
    for (name, w) in [
        ("ev_kind", 3),
        ("ev_reason", RW),
        ("ev_idx", 4),
        ("ev_data", 64),
        ("ev_resp", 2),
    ] {
        g.reg(name, Range::bits(w));
    }
    let drop = |why: u64| vec![set("ev_kind", kind(K_DROP)), set("ev_reason", n(RW, why))];
    let db_or_fwd = |data: Expr| {
        vec![
            set(
                "ev_kind",
                if has_fwd {
                    Expr::ternary(id("aw_fwd_q"), kind(K_FWD), kind(K_DB))
                } else {
                    kind(K_DB)
                },
            ),
            set("ev_data", data),
        ]
    };
    let mut classify = vec![
        Stmt::Comment("Classification of the write at its last beat".into()),
        set("ev_kind", kind(K_DROP)),
        set("ev_reason", n(RW, 0)),
        set("ev_idx", id("page_idx").bits(3, 0)),
        set("ev_data", n(64, 0)),
        set("ev_resp", n(2, 0)),
    ];
    let case_dk = Stmt::Case {
        subject: id("dk"),
        arms: vec![
            (vec![n(3, D_DB64)], db_or_fwd(id("first_be"))),
            (vec![n(3, D_LO)], vec![set("ev_kind", kind(K_PEND))]),
            (
                vec![n(3, D_HI)],
                vec![Stmt::if_else(
                    id("complete"),
                    db_or_fwd(Expr::concat(vec![
                        id("pe").bits(31, 0),
                        id("be64").bits(31, 0),
                    ])),
                    drop(r("TORN")),
                )],
            ),
            (
                vec![n(3, D_BF)],
                vec![set("ev_kind", kind(K_BF)), set("ev_data", id("first_be"))],
            ),
            (
                vec![n(3, D_F32)],
                vec![set("ev_kind", kind(K_FWD)), set("ev_data", id("dval"))],
            ),
            // A continuation chunk: that WQE is fetched, so its data is not needed (OKAY).
            (vec![n(3, D_CC)], drop(r("BF_CHUNK"))),
        ],
        default: {
            let mut v = drop(r("UNMAPPED"));
            v.push(set("ev_resp", n(2, 3)));
            v
        },
    };
    classify.push(Stmt::if_else(
        id("tear"),
        {
            let mut v = drop(r("TORN"));
            v.push(set("ev_idx", id("pe").bits(35, 32)));
            v
        },
        vec![Stmt::if_else(
            not(id("pre_ok")),
            vec![
                set("ev_kind", kind(K_DROP)),
                set("ev_reason", id("pre_reason")),
                set(
                    "ev_resp",
                    Expr::ternary(
                        id("aw_dis_q"),
                        n(2, 0),
                        Expr::ternary(id("aw_out_q"), n(2, 3), n(2, 2)),
                    ),
                ),
            ],
            vec![case_dk],
        )],
    ));

    // Handshakes.
    for (name, w) in EV {
        g.wire(&format!("e1_{name}"), w, ev_field("e1_q", name));
    }
    g.wire("q_full", 1, id("q_occ_q").index(Expr::int(3)));
    g.wire("e1_chk", 1, id("e1_chk_q"));
    g.wire(
        "e1_adv",
        1,
        Expr::all(vec![
            id("e1_valid_q"),
            not(id("q_full")),
            Expr::or(not(id("e1_chk")), id("db_req_ready")),
        ]),
    );
    g.wire("ev_room", 1, Expr::or(not(id("e1_valid_q")), id("e1_adv")));
    g.wire("b_free", 1, not(id("bsk_valid_q")));
    g.wire_c(
        "bf_block",
        1,
        Expr::all(vec![id("first_beat"), id("bf_cand"), id("bf_busy_q")]),
        "the BlueFlame buffer still holds an earlier WQE",
    );
    g.wire(
        "tear_now",
        1,
        Expr::all(vec![id("pre_ok"), id("pv"), not(id("complete"))]),
    );
    // A last beat is never a claiming first beat (a claim needs a burst of 2 beats or more),
    // so `bf_block` is left out of the last beat's terms: the handshake at the last beat (and
    // everything loaded with it: the event, the next AW) does not wait on the buffer's flops.
    g.wire(
        "w_ready",
        1,
        Expr::and(
            id("aw_valid_q"),
            Expr::ternary(
                id("last"),
                Expr::all(vec![id("ev_room"), id("b_free"), not(id("tear_now"))]),
                not(id("bf_block")),
            ),
        ),
    );
    g.wire("w_take", 1, Expr::and(id("w_valid"), id("w_ready")));
    g.wire_c(
        "wi_free",
        1,
        Expr::or(not(id("wi_valid_q")), id("w_take")),
        "the W head is empty or taken: it loads the skid's beat, else the port's",
    );
    g.wire(
        "wi_port",
        1,
        Expr::and(id("s_axi_wvalid"), id("s_axi_wready")),
    );
    g.wire("w_last_take", 1, Expr::and(id("w_take"), id("last")));
    g.wire_c(
        "ev_load",
        1,
        // At a last beat `bf_block` is low (see `w_ready`), so this is the tear's event or
        // the write's own (`w_ready` there: room, B free, no tear).
        Expr::all(vec![
            id("w_valid"),
            id("last"),
            id("ev_room"),
            Expr::or(id("tear_now"), id("b_free")),
        ]),
        "an event enters stage 1: the write's own, or the tear before it",
    );
    // The decode's D_LO (K_PEND) written out from flops: an 8-byte window's low half with
    // the AW checks passed. No other shape overrides it (a 4-byte window never shares an
    // 8-byte window's offset, a burst is not a single beat), so this is `ev_kind == K_PEND`
    // without the decode's priority chain in front of `pend_valid`, `pend_mem` and `pm_q`.
    g.wire_c(
        "lo_now",
        1,
        Expr::all(vec![id("pre_ok"), id("aw_hh_q"), strb(0x0F)]),
        "the last beat is a low half to store (unless a tear goes first)",
    );
    g.wire_c(
        "pend_we",
        1,
        Expr::all(vec![id("ev_load"), not(id("tear")), id("lo_now")]),
        "a low half is stored for the page owner",
    );

    // ---- retire stage: the head of the queue, with the QPC answer when it needs one
    g.wire("h_valid", 1, id("q_occ_q").index(Expr::int(0)));
    // The queue RAM is not reset (it stays a LUT RAM); the head reads as zero while the
    // queue is empty, so fetch_*, fwd_* and mon_* are known from reset on at one AND per
    // bit, off the QPC answer's path and without a cycle of latency.
    g.wire_c(
        "h",
        EV_W,
        Expr::ternary(id("h_valid"), id("q_mem").index(id("q_rd_q")), n(EV_W, 0)),
        "queue head; zero while the queue is empty",
    );
    for (name, w) in EV {
        if name != "kind" {
            g.wire(&format!("h_{name}"), w, ev_field("h", name));
        }
    }
    // One-hot head kind flags (`hk_q`, zero while empty, so no AND with `h_valid`).
    let hk = |k: u64| id("hk_q").index(Expr::int(k as i64));
    // A kind as the one-hot flags of `hk_q` (bit `K_*`).
    let onehot = |e: Expr| {
        Expr::concat(
            (0..5u64)
                .rev()
                .map(|k| Expr::eq(e.clone(), kind(k)))
                .collect(),
        )
    };
    g.wire("q_rd_n", 2, Expr::plus(id("q_rd_q"), n(2, 1)));
    g.wire_c(
        "hk_next",
        5,
        onehot(id("q_kind_q").part(
            Expr::bin(BinOp::Mul, id("q_rd_n"), Expr::int(3)),
            Expr::int(3),
        )),
        "kind flags of the entry after the head",
    );
    g.wire_c(
        "hk_e1",
        5,
        onehot(id("e1_kind")),
        "kind flags of the entering event",
    );
    g.wire("h_chk", 1, Expr::or(hk(K_DB), hk(K_BF)));
    g.wire(
        "h_fetch",
        1,
        Expr::all(vec![hk(K_DB), id("db_rsp_valid"), id("db_rsp_ok")]),
    );
    g.wire(
        "h_bf",
        1,
        Expr::all(vec![hk(K_BF), id("db_rsp_valid"), id("db_rsp_ok")]),
    );
    g.wire("h_fwd", 1, hk(K_FWD));
    g.wire("h_pend", 1, hk(K_PEND));
    g.wire("h_drop", 1, hk(K_DROP));
    let fwd_ready = if has_fwd { id("fwd_ready") } else { b1(true) };
    g.wire(
        "retire",
        1,
        // The flags are zero while the queue is empty: no `h_valid` term.
        Expr::ternary(
            id("h_chk"),
            Expr::and(
                id("db_rsp_valid"),
                Expr::or(not(id("h_fetch")), id("fetch_ready")),
            ),
            Expr::ternary(
                id("h_fwd"),
                fwd_ready.clone(),
                Expr::or(id("h_pend"), id("h_drop")),
            ),
        ),
    );
    g.wire(
        "chk_reason",
        RW,
        Expr::ternary(
            Expr::eq(id("db_rsp_reason"), n(3, 3)),
            n(RW, r("WRONG_PAGE")),
            Expr::ternary(
                Expr::eq(id("db_rsp_reason"), n(3, 4)),
                n(RW, r("QP_STATE")),
                n(RW, r("NOT_OWNER")),
            ),
        ),
    );
    // What retires, written without `retire` where the head's kind implies it (a drop or
    // a refused check retires once the QPC answers, a BlueFlame WQE too): the CSR strobes
    // then start from the flags and the QPC answer, not from the retire decision.
    g.wire_c(
        "qpc_drop",
        1,
        Expr::all(vec![id("h_chk"), id("db_rsp_valid"), not(id("db_rsp_ok"))]),
        "the QPC check refuses the head (it retires)",
    );
    g.wire_c(
        "ret_fetch",
        1,
        Expr::and(id("h_fetch"), id("fetch_ready")),
        "a doorbell retires into a WQE fetch",
    );
    g.wire("is_drop", 1, Expr::or(id("h_drop"), id("qpc_drop")));
    g.wire(
        "drop_reason",
        RW,
        Expr::ternary(id("h_chk"), id("chk_reason"), id("h_reason")),
    );
    g.wire(
        "h_qpn",
        24,
        Expr::ternary(id("h_chk"), id("h_data").bits(31, 8), n(24, 0)),
    );
    g.wire(
        "bf_end",
        1,
        Expr::all(vec![
            id("drain_q"),
            id("m_axis_bf_tready"),
            Expr::eq(id("drain_idx_q"), id("drain_last_q")),
        ]),
    );

    // ---- next state
    let mut aw_regs = vec![
        set("aw_valid_d", b1(true)),
        set("aw_addr_d", id("a_addr")),
        set("aw_len_d", id("a_len")),
        set("aw_user_d", id("a_user")),
        set("aw_id_d", id("a_id")),
        set("aw_dis_d", id("a_ddis")),
        set("aw_out_d", id("a_dout")),
        set("aw_ok_d", id("a_dok")),
        set("aw_bfc_d", id("a_dbfc")),
        set("aw_win_d", id("a_dwin")),
        set("aw_hh_d", id("a_dhh")),
        set("pm_d", id("in_pm")),
        set("aw_pv_d", id("in_pv")),
        set("aw_pt_d", not(id("in_same"))),
    ];
    if has_bf {
        aw_regs.push(set("aw_bh_d", id("a_dbh")));
        aw_regs.push(set("aw_ck_d", id("a_dck")));
    }
    if !f32_lo.is_empty() {
        aw_regs.push(set("aw_f32lo_d", id("a_df32lo")));
    }
    if !f32_hi.is_empty() {
        aw_regs.push(set("aw_f32hi_d", id("a_df32hi")));
    }
    if has_fwd {
        aw_regs.push(set("aw_fwd_d", id("a_dfwd")));
    }
    let c = &mut g.comb;
    c.push(Stmt::Comment(
        "AW: one burst at a time; the next AW with the last beat".into(),
    ));
    c.push(Stmt::if_else(
        id("aw_take"),
        aw_regs,
        vec![Stmt::if_(
            id("w_last_take"),
            vec![set("aw_valid_d", b1(false))],
        )],
    ));
    c.push(Stmt::Comment(
        "A tear drops the pending half; the held last beat then goes on without it".into(),
    ));
    c.push(Stmt::if_(
        Expr::all(vec![id("ev_load"), id("tear")]),
        vec![set("aw_pv_d", b1(false))],
    ));
    c.push(Stmt::if_else(
        id("w_last_take"),
        vec![
            set("beat_d", n(8, 0)),
            set("beat0_d", b1(true)),
            set("full_d", b1(true)),
            set("cand_d", b1(false)),
        ],
        vec![Stmt::if_(
            id("w_take"),
            vec![
                set("beat_d", Expr::plus(id("beat_q"), n(8, 1))),
                set("beat0_d", b1(false)),
                set("full_d", id("full_now")),
                set("cand_d", id("owns_buf")),
                Stmt::if_(
                    id("first_beat"),
                    vec![
                        set("first_d", id("be64")),
                        // full_q: full strobes, and the burst holds its WQE or is a chunk.
                        set(
                            "full_d",
                            Expr::and(
                                id("full_now"),
                                Expr::any_of(
                                    vec![
                                        id("ds_fits"),
                                        Expr::and(id("bf_cand"), id("len8")),
                                        Expr::and(id("aw_ck_q"), id("cc_at")),
                                    ],
                                    b1(false),
                                ),
                            ),
                        ),
                    ],
                ),
            ],
        )],
    ));
    if has_bf {
        c.push(Stmt::Comment(
            "Chunk shapes so far (cleared with the last beat)".into(),
        ));
        c.push(Stmt::if_else(
            id("w_last_take"),
            vec![set("fc_ok_d", b1(false)), set("cc_ok_d", b1(false))],
            vec![Stmt::if_(
                Expr::and(id("w_take"), id("first_beat")),
                vec![
                    // bf_cand: a burst from a BlueFlame window's start that claimed the
                    // buffer (the AW checks passed, bf_enable, INCR of 8-byte beats).
                    set(
                        "fc_ok_d",
                        Expr::all(vec![id("bf_cand"), id("len8"), not(id("ds_fits"))]),
                    ),
                    set("cc_ok_d", Expr::and(id("aw_ck_q"), id("cc_at"))),
                ],
            )],
        ));
    }
    c.push(Stmt::Comment(
        "The next beat is the burst's last (registered: no length compare at the beat)".into(),
    ));
    c.push(Stmt::if_else(
        id("aw_take"),
        // From the AW the block takes (the skid's or the port's), not the port's decode.
        vec![set("last_d", Expr::eq(id("a_len"), n(8, 0)))],
        vec![Stmt::if_else(
            id("w_last_take"),
            vec![set("last_d", b1(false))],
            vec![Stmt::if_(
                id("w_take"),
                vec![set(
                    "last_d",
                    Expr::eq(Expr::plus(id("beat_q"), n(8, 1)), id("aw_len_q")),
                )],
            )],
        )],
    ));
    c.push(Stmt::Comment(
        "Skids: hold what the port took and the block did not; a held entry goes first".into(),
    ));
    c.push(set(
        "ask_valid_d",
        Expr::and(id("a_valid"), not(id("aw_take"))),
    ));
    // W: the head is free when empty or taken; it then loads the skid's beat, else the
    // port's; a beat the port takes while the head is held waits in the skid.
    c.push(set(
        "wsk_valid_d",
        Expr::and(
            not(id("wi_free")),
            Expr::or(id("wsk_valid_q"), id("wi_port")),
        ),
    ));
    let mut fill_aw = Vec::new();
    for (name, _) in aw_fields().into_iter().filter(|(f, _)| kept_aw_field(f)) {
        fill_aw.push(set(&format!("ask_{name}_d"), id(format!("s_axi_aw{name}"))));
    }
    for (name, _, from_port) in &dec_aw {
        fill_aw.push(set(&format!("ask_d{name}_d"), from_port.clone()));
    }
    c.push(Stmt::if_(not(id("ask_valid_q")), fill_aw));
    let mut fill_w = vec![set("wsk_data_d", id("s_axi_wdata"))];
    for (name, v) in STRB_SHAPES {
        fill_w.push(set(&format!("wsk_{name}_d"), port_strb(v)));
    }
    c.push(Stmt::if_(not(id("wsk_valid_q")), fill_w));
    let mut fill_wi = vec![
        set("wi_valid_d", Expr::or(id("wsk_valid_q"), id("wi_port"))),
        set(
            "wi_data_d",
            Expr::ternary(id("wsk_valid_q"), id("wsk_data_q"), id("s_axi_wdata")),
        ),
    ];
    for (name, v) in STRB_SHAPES {
        fill_wi.push(set(
            &format!("wi_{name}_d"),
            Expr::ternary(id("wsk_valid_q"), id(format!("wsk_{name}_q")), port_strb(v)),
        ));
    }
    c.push(Stmt::if_(id("wi_free"), fill_wi));
    c.push(Stmt::Comment(
        "B: one response per burst, into the output register or, behind it, the skid".into(),
    ));
    c.push(Stmt::if_(
        not(id("bsk_valid_q")),
        vec![
            set("bsk_resp_d", id("ev_resp")),
            set("bsk_id_d", id("aw_id_q")),
        ],
    ));
    c.push(Stmt::if_else(
        Expr::or(not(id("b_valid_q")), id("s_axi_bready")),
        vec![Stmt::if_else(
            id("bsk_valid_q"),
            vec![
                set("b_valid_d", b1(true)),
                set("b_resp_d", id("bsk_resp_q")),
                set("b_id_d", id("bsk_id_q")),
                set("bsk_valid_d", b1(false)),
            ],
            vec![
                set("b_valid_d", id("w_last_take")),
                set("b_resp_d", id("ev_resp")),
                set("b_id_d", id("aw_id_q")),
            ],
        )],
        vec![Stmt::if_(
            id("w_last_take"),
            vec![set("bsk_valid_d", b1(true))],
        )],
    ));
    c.push(Stmt::Comment(
        "Reads: zero data, OKAY, arlen + 1 beats; the next AR is taken after the last beat".into(),
    ));
    c.push(Stmt::if_else(
        id("rd_valid_q"),
        vec![Stmt::if_(
            id("s_axi_rready"),
            vec![Stmt::if_else(
                id("rd_last_q"),
                vec![set("rd_valid_d", b1(false))],
                vec![
                    set("rd_left_d", Expr::minus(id("rd_left_q"), n(8, 1))),
                    set("rd_last_d", Expr::eq(id("rd_left_q"), n(8, 1))),
                ],
            )],
        )],
        vec![Stmt::if_(
            id("s_axi_arvalid"),
            vec![
                set("rd_valid_d", b1(true)),
                set("rd_left_d", id("s_axi_arlen")),
                set("rd_last_d", Expr::eq(id("s_axi_arlen"), n(8, 0))),
                set("rd_id_d", id("s_axi_arid")),
            ],
        )],
    ));
    c.push(Stmt::Comment("Pending halves".into()));
    c.push(Stmt::if_(
        id("ev_load"),
        vec![Stmt::if_else(
            Expr::or(id("tear"), id("complete")),
            vec![Stmt::assign(
                id("pend_valid_d").index(id("slot")),
                b1(false),
            )],
            vec![Stmt::if_(
                id("lo_now"),
                vec![Stmt::assign(id("pend_valid_d").index(id("slot")), b1(true))],
            )],
        )],
    ));
    c.push(Stmt::Comment(
        "Stage 1: the event, asking the QPC when it is a doorbell".into(),
    ));
    c.push(Stmt::if_else(
        id("ev_load"),
        vec![
            set("e1_valid_d", b1(true)),
            set(
                "e1_chk_d",
                Expr::or(
                    Expr::eq(id("ev_kind"), kind(K_DB)),
                    Expr::eq(id("ev_kind"), kind(K_BF)),
                ),
            ),
            set(
                "e1_d",
                Expr::concat(vec![
                    id("ev_kind"),
                    id("ev_reason"),
                    id("r_pf"),
                    id("ev_vf"),
                    id("ev_idx"),
                    id("dwin"),
                    id("aw_len_q").bits(4, 0),
                    id("ev_data"),
                ]),
            ),
        ],
        vec![Stmt::if_(id("e1_adv"), vec![set("e1_valid_d", b1(false))])],
    ));
    c.push(Stmt::Comment(
        "Queue of events in flight through the QPC check".into(),
    ));
    c.push(Stmt::if_(
        id("e1_adv"),
        vec![
            set("q_wr_d", Expr::plus(id("q_wr_q"), n(2, 1))),
            Stmt::assign(
                id("q_kind_d").part(
                    Expr::bin(BinOp::Mul, id("q_wr_q"), Expr::int(3)),
                    Expr::int(3),
                ),
                id("e1_kind"),
            ),
        ],
    ));
    c.push(Stmt::if_(
        id("retire"),
        vec![set("q_rd_d", Expr::plus(id("q_rd_q"), n(2, 1)))],
    ));
    // The head's kind flags: the entry after the head when one leaves and more are queued,
    // the entering event when the queue is (or becomes) empty, else unchanged.
    c.push(Stmt::Comment(
        "Queue head's kind flags (hk_q): next entry, entering event, or none".into(),
    ));
    c.push(Stmt::if_else(
        Expr::and(id("retire"), id("q_occ_q").index(Expr::int(1))),
        vec![set("hk_d", id("hk_next"))],
        vec![Stmt::if_(
            Expr::or(id("retire"), not(id("h_valid"))),
            vec![set(
                "hk_d",
                Expr::ternary(id("e1_adv"), id("hk_e1"), n(5, 0)),
            )],
        )],
    ));
    // The occupancy shifts in a one when an event enters and none leaves, and out when one
    // leaves and none enters (a full queue takes no event, an empty one retires none).
    c.push(Stmt::Comment(
        "Queue occupancy as a thermometer (bit i: more than i events queued)".into(),
    ));
    c.push(Stmt::if_else(
        Expr::and(id("e1_adv"), not(id("retire"))),
        vec![set(
            "q_occ_d",
            Expr::concat(vec![id("q_occ_q").bits(2, 0), b1(true)]),
        )],
        vec![Stmt::if_(
            Expr::and(id("retire"), not(id("e1_adv"))),
            vec![set(
                "q_occ_d",
                Expr::concat(vec![b1(false), id("q_occ_q").bits(3, 1)]),
            )],
        )],
    ));
    c.push(Stmt::Comment(
        "BlueFlame buffer: claimed at the first beat, freed when drained or dropped".into(),
    ));
    c.push(Stmt::if_(
        Expr::all(vec![id("w_take"), id("first_beat"), id("bf_cand")]),
        vec![set("bf_busy_d", b1(true))],
    ));
    // A burst that claimed the buffer and is no whole WQE frees it at its last beat. That beat
    // is never its first (a claim needs 2 beats or more), so `owns_buf` is `cand_q` there, and
    // the claim implies the AW checks passed, the last beat tears nothing (`w_last_take` waits
    // for a tear) and `aw_bh_q`: the write is a WQE exactly when `full_now` and it is no first
    // chunk. Written so, not as `ev_kind != K_BF`, which runs through the whole decode (with
    // that form `uar` at 64 VFs went to 7 levels, docs/BENCHMARKS.notes.md, s37-bfchunk).
    c.push(Stmt::if_(
        Expr::all(vec![
            id("w_last_take"),
            id("cand_q"),
            Expr::or(not(id("full_now")), id("fc_ok_q")),
        ]),
        vec![set("bf_busy_d", b1(false))],
    ));
    c.push(Stmt::if_(
        Expr::and(hk(K_BF), id("qpc_drop")),
        vec![set("bf_busy_d", b1(false))],
    ));
    c.push(Stmt::if_else(
        id("h_bf"),
        vec![
            set("drain_d", b1(true)),
            set("drain_idx_d", n(5, 0)),
            set("drain_last_d", id("h_len")),
            set(
                "drain_user_d",
                Expr::concat(vec![id("h_vf"), id("h_data").bits(31, 8)]),
            ),
        ],
        vec![Stmt::if_(
            Expr::and(id("drain_q"), id("m_axis_bf_tready")),
            vec![Stmt::if_else(
                id("bf_end"),
                vec![set("drain_d", b1(false)), set("bf_busy_d", b1(false))],
                vec![set("drain_idx_d", Expr::plus(id("drain_idx_q"), n(5, 1)))],
            )],
        )],
    ));
    // The retired event, registered for the CSR block: counters, int_status and last_drop
    // update one cycle after the event's mon_* pulse (invisible through AXI4-Lite reads), so
    // the QPC answer and the queue RAM read do not also run through the counters' adders.
    let mut fwd_counters: Vec<(String, Vec<u64>)> = Vec::new();
    for (k, l) in lay.iter().enumerate() {
        if l.role != Role::Forward {
            continue;
        }
        if let Some(reg) = forward_counter(map, &l.name) {
            if !csr_has(&format!("{reg}_count_incr_i")) {
                continue;
            }
            match fwd_counters.iter_mut().find(|(r, _)| *r == reg) {
                Some((_, ks)) => ks.push(k as u64),
                None => fwd_counters.push((reg, vec![k as u64])),
            }
        }
    }
    g.comb.push(Stmt::Comment(
        "CSR event stage: the retired event, one cycle later".into(),
    ));
    let mut cs: Vec<(String, u32, Expr)> = vec![
        ("fetch".into(), 1, id("ret_fetch")),
        ("bf".into(), 1, id("h_bf")),
        ("drop".into(), 1, id("is_drop")),
        ("reason".into(), RW, id("drop_reason")),
        ("idx".into(), 4, id("h_idx")),
        ("vf".into(), 8, id("h_vf")),
        ("qpn".into(), 24, id("h_qpn")),
    ];
    // Each drop counter's and forward counter's strobe is a flop of its own (decoded from the
    // retiring event, not from `cs_reason_q`/the window afterwards), so the counters' carry
    // chains start at a flop: a compare in front of a 32-bit chain set ABC9's critical delay.
    for (name, v) in &reasons {
        cs.push((
            format!("drop_{}", name.to_ascii_lowercase()),
            1,
            Expr::or(
                Expr::and(id("h_drop"), Expr::eq(id("h_reason"), n(RW, *v))),
                Expr::and(id("qpc_drop"), Expr::eq(id("chk_reason"), n(RW, *v))),
            ),
        ));
    }
    for (reg, ks) in &fwd_counters {
        if csr_has(&format!("{reg}_count_incr_i")) {
            cs.push((
                reg.clone(),
                1,
                Expr::all(vec![
                    id("h_fwd"),
                    fwd_ready.clone(),
                    Expr::any_of(
                        ks.iter().map(|k| Expr::eq(id("h_win"), n(4, *k))).collect(),
                        b1(false),
                    ),
                ]),
            ));
        }
    }
    for (name, w, d) in cs {
        let q = format!("cs_{name}_q");
        let dn = format!("cs_{name}_d");
        g.reg(&q, Range::bits(w));
        g.reg(&dn, Range::bits(w));
        g.flops.push(Flop {
            q: id(q),
            d: id(dn.clone()),
            reset: Some(n(w, 0)),
        });
        g.comb.push(set(&dn, d));
    }
    // Per-VF counter strobes, registered beside the CSR event stage: one comparator per VF on
    // the retiring event's VF, so the counters' adders start from a flop rather than from a
    // compare of `cs_vf_q` (which put two LUT levels before each 32-bit carry chain: the
    // longest path by ABC9's delays at 64 VFs). A VF at or above NUM_VF matches none.
    for name in ["vf_acc", "vf_drop"] {
        g.reg(&format!("{name}_q"), Some(Range::width(id("NUM_VF"))));
        g.reg(&format!("{name}_d"), Some(Range::width(id("NUM_VF"))));
        g.flops.push(Flop {
            q: id(format!("{name}_q")),
            d: id(format!("{name}_d")),
            reset: Some(Expr::repl(id("NUM_VF"), b1(false))),
        });
    }
    let mut vi = Decl::reg("vi", None);
    vi.kind = verilog_ast::Kind::Integer;
    g.decls.push(V::Decl(vi));
    let hit = Expr::eq(id("h_vf"), id("vi").bits(7, 0));
    let c = &mut g.comb;
    c.push(Stmt::Comment("Per-VF counters".into()));
    c.push(Stmt::for_(
        "vi",
        Expr::int(0),
        id("NUM_VF"),
        vec![
            Stmt::assign(
                id("vf_acc_d").index(id("vi")),
                Expr::and(Expr::or(id("ret_fetch"), id("h_bf")), hit.clone()),
            ),
            Stmt::assign(
                id("vf_drop_d").index(id("vi")),
                Expr::and(id("is_drop"), hit),
            ),
        ],
    ));

    // ---- memories
    g.mems.push(V::MemWrite {
        mem: "pend_mem".into(),
        en: id("pend_we"),
        addr: id("slot"),
        data: Expr::concat(vec![
            id("dwin"),
            id("page_idx").bits(3, 0),
            id("be64").bits(63, 32),
        ]),
    });
    g.mems.push(V::MemWrite {
        mem: "bf_mem".into(),
        en: Expr::all(vec![
            id("w_take"),
            id("owns_buf"),
            Expr::eq(id("beat_q").bits(7, 5), n(3, 0)),
        ]),
        addr: id("beat_q").bits(4, 0),
        data: id("w_data"),
    });
    g.mems.push(V::MemWrite {
        mem: "q_mem".into(),
        en: id("e1_adv"),
        addr: id("q_wr_q"),
        data: id("e1_q"),
    });

    // ---- outputs
    let out = |g: &mut Gen, name: &str, e: Expr| g.assigns.push(V::Assign(id(name), e));
    // Flops only (the skid is empty), and low in reset (SPEC §2: nothing is accepted while
    // in reset; the skids are held empty there, so a transfer taken then would be lost).
    // W also waits for its AW to be open in the block (`aw_valid_q`, as AXI allows): a beat
    // is then taken when the block can take it, as before the skids, not a cycle early into
    // the skid, and the latency from the last beat's handshake is unchanged.
    out(
        &mut g,
        "s_axi_awready",
        Expr::and(rst.released(), not(id("ask_valid_q"))),
    );
    out(
        &mut g,
        "s_axi_wready",
        Expr::and(rst.released(), not(id("wsk_valid_q"))),
    );
    out(&mut g, "s_axi_bvalid", id("b_valid_q"));
    out(&mut g, "s_axi_bresp", id("b_resp_q"));
    out(&mut g, "s_axi_bid", id("b_id_q"));
    out(
        &mut g,
        "s_axi_arready",
        Expr::and(rst.released(), not(id("rd_valid_q"))),
    );
    out(&mut g, "s_axi_rvalid", id("rd_valid_q"));
    out(&mut g, "s_axi_rid", id("rd_id_q"));
    out(&mut g, "s_axi_rdata", n(64, 0));
    out(&mut g, "s_axi_rresp", n(2, 0));
    out(&mut g, "s_axi_rlast", id("rd_last_q"));
    out(
        &mut g,
        "db_req_valid",
        Expr::all(vec![id("e1_valid_q"), id("e1_chk"), not(id("q_full"))]),
    );
    out(&mut g, "db_req_vf", id("e1_vf"));
    out(&mut g, "db_req_qpn", id("e1_data").bits(31, 8));
    out(
        &mut g,
        "db_req_page",
        Expr::concat(vec![n(20, 0), id("e1_idx")]),
    );
    out(&mut g, "db_req_user", n(32, 0));
    out(
        &mut g,
        "db_rsp_ready",
        Expr::and(id("h_chk"), Expr::or(not(id("h_fetch")), id("fetch_ready"))),
    );
    out(&mut g, "fetch_valid", id("h_fetch"));
    out(&mut g, "fetch_vf", id("h_vf"));
    out(&mut g, "fetch_qpn", id("h_data").bits(31, 8));
    out(&mut g, "fetch_wqe_index", id("h_data").bits(55, 40));
    out(&mut g, "fetch_ds", id("h_data").bits(7, 0));
    out(&mut g, "fetch_opcode", id("h_data").bits(39, 32));
    out(&mut g, "m_axis_bf_tvalid", id("drain_q"));
    // The BlueFlame buffer is not reset either: tdata is zero while tvalid is low.
    g.assigns.push(V::Comment(vec![
        "X after reset: the RAMs (q_mem, bf_mem, pend_mem) have no reset, so they map to".into(),
        "LUT RAM; the queue head reads as zero while the queue is empty and tdata while".into(),
        "tvalid is low (one AND per bit, no added cycle); the flops e1 (db_req_*) and".into(),
        "drain_last/drain_user (tlast/tuser) are reset.".into(),
    ]));
    out(
        &mut g,
        "m_axis_bf_tdata",
        Expr::ternary(
            id("drain_q"),
            id("bf_mem").index(id("drain_idx_q")),
            n(64, 0),
        ),
    );
    out(&mut g, "m_axis_bf_tkeep", n(8, 0xFF));
    out(
        &mut g,
        "m_axis_bf_tlast",
        Expr::eq(id("drain_idx_q"), id("drain_last_q")),
    );
    out(&mut g, "m_axis_bf_tuser", id("drain_user_q"));
    if has_fwd {
        out(&mut g, "fwd_valid", id("h_fwd"));
        out(&mut g, "fwd_vf", id("h_vf"));
        out(&mut g, "fwd_win", id("h_win"));
        out(&mut g, "fwd_data", id("h_data"));
    }
    out(&mut g, "mon_valid", id("retire"));
    out(
        &mut g,
        "mon_result",
        Expr::ternary(
            id("h_fetch"),
            n(3, 0),
            Expr::ternary(
                id("h_bf"),
                n(3, 1),
                Expr::ternary(
                    id("h_pend"),
                    n(3, 3),
                    Expr::ternary(id("h_fwd"), n(3, 4), n(3, 2)),
                ),
            ),
        ),
    );
    out(
        &mut g,
        "mon_reason",
        // is_drop, not the QPC answer alone: db_rsp_* mean nothing before db_rsp_valid.
        Expr::ternary(id("is_drop"), id("drop_reason"), n(RW, 0)),
    );
    out(&mut g, "mon_vf", id("h_vf"));
    out(&mut g, "mon_pf", id("h_pf"));
    out(&mut g, "mon_page", id("h_idx"));
    out(&mut g, "mon_qpn", id("h_qpn"));

    // ---- CSR hardware inputs
    let mut hw: Vec<(String, Expr)> = vec![
        ("db_accepted_count_incr_i".into(), id("cs_fetch_q")),
        ("bf_accepted_count_incr_i".into(), id("cs_bf_q")),
        ("last_drop_reason_we_i".into(), id("cs_drop_q")),
        ("last_drop_reason_d_i".into(), id("cs_reason_q")),
        ("last_drop_page_index_we_i".into(), id("cs_drop_q")),
        ("last_drop_page_index_d_i".into(), id("cs_idx_q")),
        ("last_drop_vf_we_i".into(), id("cs_drop_q")),
        ("last_drop_vf_d_i".into(), id("cs_vf_q")),
        ("last_drop_qpn_qpn_we_i".into(), id("cs_drop_q")),
        ("last_drop_qpn_qpn_d_i".into(), id("cs_qpn_q")),
        ("vf_doorbells_count_incr_i".into(), id("vf_acc_q")),
        ("vf_drops_count_incr_i".into(), id("vf_drop_q")),
    ];
    for (name, _) in &reasons {
        let low = name.to_ascii_lowercase();
        let hit = id(format!("cs_drop_{low}_q"));
        hw.push((format!("drop_{low}_count_incr_i"), hit.clone()));
        hw.push((format!("int_status_{low}_set_i"), hit));
    }
    for (reg, _) in &fwd_counters {
        let port = format!("{reg}_count_incr_i");
        if csr_has(&port) {
            hw.push((port, id(format!("cs_{reg}_q"))));
        }
    }
    // Every input the block drives must be one of the CSR block's: a map whose
    // `last_drop.page_index` lost its `hw_write` left the page-index flop unread (Verilator
    // UNUSEDSIGNAL) and the field silently unloaded.
    if let Some((name, _)) = hw.iter().find(|(n, _)| !csr_has(n)) {
        return Err(UarError(format!(
            "the map's CSR block has no port `{name}` (see register-maps/uar.yaml)"
        )));
    }
    let mut unused = Vec::new();
    for item in &csr.ports {
        let PortItem::Port(p) = item else { continue };
        if p.name == "clk"
            || p.name == rst.port_name()
            || p.name.starts_with("s_axil_")
            || p.name == "irq_o"
        {
            continue;
        }
        match p.dir {
            verilog_ast::Dir::Input => {
                let v = hw
                    .iter()
                    .find(|(n, _)| *n == p.name)
                    .map(|(_, e)| e.clone())
                    .unwrap_or_else(|| {
                        // Inputs this block does not drive (there are none in the UAR maps
                        // but a map may add status inputs): held at zero.
                        match &p.range {
                            None => b1(false),
                            Some(_) => Expr::int(0),
                        }
                    });
                g.assigns.push(V::Assign(id(format!("csr_{}", p.name)), v));
            }
            verilog_ast::Dir::Output => {
                let used = [
                    "ctrl_enable_o",
                    "ctrl_bf_enable_o",
                    "page_cfg_active_pages_o",
                    "page_cfg_pf_only_mask_o",
                    "vf_ctrl_enable_o",
                ];
                if !used.contains(&p.name.as_str()) {
                    unused.push(id(format!("csr_{}", p.name)));
                }
            }
        }
    }
    unused.extend([
        id("s_axi_wlast"),
        id("s_axi_araddr"),
        id("s_axi_arsize"),
        id("s_axi_arburst"),
        id("s_axi_aruser"),
        id("db_rsp_vf"),
        id("db_rsp_qpn"),
        id("db_rsp_user"),
        id("page_idx").bits(11, 4),
        id("owner").bits(11, 8),
        id("h_pf"),
        id("h_win"),
        id("dval"),
        id("h_data").bits(63, 56),
        id("e1_data").bits(63, 32),
        id("e1_data").bits(7, 0),
        id("e1_pf"),
        id("e1_reason"),
        id("e1_len"),
        id("e1_win"),
        // The head's kind is kept as flags in hk_q.
        ev_field("h", "kind"),
        // Stage 1's "needs the QPC check" is the flop e1_chk_q, stored with the event.
        id("e1_kind"),
    ]);
    g.wire_c(
        "unused_ok",
        1,
        Expr::un(verilog_ast::UnOp::RedXor, Expr::concat(unused)),
        "deliberately unused: wlast, the read address, echoed fields, CSR outputs nothing here reads",
    );

    // ---- assemble
    let mut items = Vec::new();
    items.push(V::Comment(vec![
        "Parameter range checks (simulation and lint only)".into(),
    ]));
    let checks = ["NUM_VF", "PAGES_PER_VF"]
        .iter()
        .map(|p| {
            let p = map.parameter(p).expect("checked");
            Stmt::param_range_check(&p.name.text, p.min, p.max)
        })
        .chain([Stmt::param_range_check("ID_WIDTH", 1, 32)])
        .collect();
    items.push(V::SimInitial(checks));
    items.push(V::Blank);
    items.extend(g.lp);
    items.push(V::Blank);
    items.extend(g.decls);
    items.push(V::Blank);
    items.extend(g.inst);
    items.push(V::Blank);
    items.extend(g.assigns);
    items.push(V::Blank);
    items.push(V::Comb(one_comb([dec, classify, g.comb])));
    items.push(V::Blank);
    items.push(V::Flops(g.flops));
    items.push(V::Blank);
    items.push(V::Comment(vec![
        "RAMs: pending halves, BlueFlame buffer, event queue".into(),
    ]));
    items.extend(g.mems);

    let mut header = vec![
        format!(
            "{}: UAR doorbell and BlueFlame block of `{}` (SR-IOV BAR2 pages).",
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
        "Address: awaddr[23:12] = page in the BAR2 aperture; owner = page >> PW,".into(),
        "index = page & (2^PW - 1), PW = clog2(PAGES_PER_VF). awuser = {pf, vf}.".into(),
        String::new(),
        "UAR page layout (space uar_page):".into(),
        "  offset  size  window            role".into(),
    ];
    for (k, l) in lay.iter().enumerate() {
        header.push(format!(
            "  {:#05x}  {:>4}  {:<16}  {} (fwd_win {k})",
            l.offset,
            l.size,
            l.name,
            match l.role {
                Role::SendDoorbell => "send doorbell",
                Role::BlueFlame => "BlueFlame (8-byte write: send doorbell)",
                Role::Forward => "forwarded doorbell",
            }
        ));
    }
    header.extend([
        String::new(),
        "Checks in order: DISABLED (ctrl.enable, vf.ctrl.enable; OKAY), UNMAPPED (a page".into(),
        "of another function, an inactive page index, an offset or shape no window takes;".into(),
        "DECERR), PF_ONLY (page_cfg.pf_only_mask; SLVERR), TORN (32-bit halves not in".into(),
        "pair; OKAY), then the QPC doorbell check: NOT_OWNER, WRONG_PAGE, QP_STATE (OKAY).".into(),
        String::new(),
        "Pipeline: last W beat (cycle t) -> stage 1 / QPC request (t+1) -> QPC answer and".into(),
        "fetch_valid (t+3). One write per cycle; every output holds under backpressure.".into(),
        String::new(),
        "mon_result".into(),
    ]);
    for (name, v) in RESULTS {
        header.push(format!("  {v} {name}"));
    }
    let param = |p: &str| map.parameter(p).map(|p| p.default).unwrap_or(1);
    Ok(Module {
        name: module_name(map),
        header,
        params: vec![
            Param {
                name: "NUM_VF".into(),
                default: Expr::int(param("NUM_VF") as i64),
                comment: Some("SR-IOV VFs; range 1..256".into()),
            },
            Param {
                name: "PAGES_PER_VF".into(),
                default: Expr::int(param("PAGES_PER_VF") as i64),
                comment: Some("UAR pages per function; range 1..16".into()),
            },
            Param {
                name: "ID_WIDTH".into(),
                default: Expr::int(4),
                comment: Some("AXI4 ID bits (AWID/BID, ARID/RID); 1 or more".into()),
            },
        ],
        ports: g.ports,
        items,
        reset: opts.reset,
    })
}

/// Lowers `<block>_top`: the UAR block wired to the QPC block of `qpc_map` through the
/// doorbell-check port. The QPC's WQE-check, RX and write-back ports are tied off; its CSR
/// port is `qpc_s_axil_*` (QP set-up through the command mailbox).
pub fn generate_top(map: &RegMap, qpc_map: &RegMap, opts: &Options) -> Result<Module, UarError> {
    let uar = generate(map, opts)?;
    let qpc = rdmagen_qpc::generate(
        qpc_map,
        &rdmagen_qpc::Options {
            reset: opts.reset,
            generator: opts.generator.clone(),
        },
    )
    .map_err(|e| UarError(format!("{}: {e}", qpc_map.file)))?;
    let rst = opts.reset;
    let mut g = Gen::default();
    clock_ports(&mut g, rst);
    let is_clock = |n: &str| n == "clk" || n == rst.port_name();
    let db_names: Vec<&str> = DB_PORT.iter().map(|(n, _, _)| *n).collect();
    // UAR ports except the doorbell-check port are the top's ports.
    let mut uar_conns = Vec::new();
    for item in &uar.ports {
        match item {
            PortItem::Banner(b) if !b.starts_with("Doorbell check") && !b.starts_with("Clock") => {
                g.ports.push(PortItem::Banner(format!("UAR: {b}")))
            }
            PortItem::Port(p) => {
                if !is_clock(&p.name) && !db_names.contains(&p.name.as_str()) {
                    let name = if p.name == "irq_o" {
                        "uar_irq_o".to_string()
                    } else {
                        p.name.clone()
                    };
                    g.ports.push(PortItem::Port(Port {
                        name: name.clone(),
                        ..p.clone()
                    }));
                    uar_conns.push((p.name.clone(), id(name)));
                } else if is_clock(&p.name) {
                    uar_conns.push((p.name.clone(), id(p.name.clone())));
                } else {
                    g.decls
                        .push(V::Decl(Decl::wire(p.name.clone(), p.range.clone())));
                    uar_conns.push((p.name.clone(), id(p.name.clone())));
                }
            }
            PortItem::Banner(_) => {}
        }
    }
    g.banner("QPC: AXI4-Lite slave of its CSR block (command mailbox)");
    // No WQE-check, RX lookup or write-back traffic: those inputs are tied off, their
    // responses always taken. The doorbell-check wires are declared with the UAR's ports.
    let hook = rdmagen_qpc::hook_up(&qpc, rst, |n| db_names.contains(&n), false)
        .map_err(|e| UarError(e.0))?;
    g.ports.extend(hook.ports.into_iter().map(PortItem::Port));
    g.decls.extend(hook.wires.into_iter().map(V::Decl));
    let (qpc_conns, unused) = (hook.conns, hook.unused);
    g.decls.push(V::Decl(
        Decl::wire("unused_ok", None).comment("the tied-off QPC ports' outputs"),
    ));
    g.assigns.push(V::Assign(
        id("unused_ok"),
        Expr::un(verilog_ast::UnOp::RedXor, Expr::concat(unused)),
    ));
    let mut items = vec![V::Comment(vec![
        "Doorbell-check port between the blocks".into()
    ])];
    items.extend(g.decls);
    items.push(V::Blank);
    items.push(V::Instance {
        module: uar.name.clone(),
        name: "u_uar".into(),
        params: vec![
            ("NUM_VF".into(), id("NUM_VF")),
            ("PAGES_PER_VF".into(), id("PAGES_PER_VF")),
            ("ID_WIDTH".into(), id("ID_WIDTH")),
        ],
        ports: uar_conns,
    });
    items.push(V::Blank);
    items.push(V::Instance {
        module: qpc.name.clone(),
        name: "u_qpc".into(),
        params: vec![
            ("NUM_VF".into(), id("NUM_VF")),
            ("QPS_PER_VF".into(), id("QPS_PER_VF")),
            // The UAR path checks no memory keys (the R_Key port is tied off): one entry keeps
            // the key-table clear after reset shorter than the context clear.
            ("NUM_MKEYS".into(), Expr::int(1)),
        ],
        ports: qpc_conns,
    });
    items.push(V::Blank);
    items.extend(g.assigns);
    let qps = qpc_map
        .parameter("QPS_PER_VF")
        .map(|p| p.default)
        .unwrap_or(16);
    Ok(Module {
        name: top_name(map),
        header: vec![
            format!(
                "{}: the UAR block `{}` checked by the QPC block `{}`.",
                top_name(map),
                uar.name,
                qpc.name
            ),
            String::new(),
            format!(
                "Generated by {} from {} and {}.",
                opts.generator, map.file, qpc_map.file
            ),
            "Do not edit: change the maps and run `make rtl`.".into(),
            String::new(),
            "QPs are set up through qpc_s_axil_* (the QPC command mailbox); doorbells arrive on"
                .into(),
            "s_axi_*. The QPC's WQE-check, RX lookup and write-back ports are tied off.".into(),
        ],
        params: vec![
            Param {
                name: "NUM_VF".into(),
                default: Expr::int(map.parameter("NUM_VF").map(|p| p.default).unwrap_or(8) as i64),
                comment: Some("SR-IOV VFs; range 1..256".into()),
            },
            Param {
                name: "PAGES_PER_VF".into(),
                default: Expr::int(
                    map.parameter("PAGES_PER_VF")
                        .map(|p| p.default)
                        .unwrap_or(1) as i64,
                ),
                comment: Some("UAR pages per function; range 1..16".into()),
            },
            Param {
                name: "QPS_PER_VF".into(),
                default: Expr::int(qps as i64),
                comment: Some("QPs per VF (QPC)".into()),
            },
            Param {
                name: "ID_WIDTH".into(),
                default: Expr::int(4),
                comment: Some("AXI4 ID bits of s_axi_*".into()),
            },
        ],
        ports: g.ports,
        items,
        reset: rst,
    })
}

/// The module's one `always @*` from its sections (the window decode, the classification at
/// the last beat, the next state), each a title comment, its defaults and then its logic: all
/// the defaults first, under one comment, then each section's logic under its title, in
/// order (each section reads the ones before it).
fn one_comb<const N: usize>(sections: [Vec<Stmt>; N]) -> Vec<Stmt> {
    let mut defaults = vec![Stmt::Comment("Defaults".into())];
    let mut logic = Vec::new();
    for mut section in sections {
        let n = section
            .iter()
            .skip(1)
            .take_while(|s| matches!(s, Stmt::Assign(..)))
            .count();
        let mut rest = section.split_off(1 + n);
        let title = section.remove(0);
        defaults.append(&mut section);
        if !matches!(&title, Stmt::Comment(t) if t.starts_with("Defaults")) {
            logic.push(title);
        }
        logic.append(&mut rest);
    }
    defaults.append(&mut logic);
    defaults
}
