//! The Verilated `<block>_top` (UAR + QPC) next to `rdmagen_refmodel::uar`: QPs are set up
//! through the QPC's command mailbox, UAR writes arrive on the AXI4 write slave with random
//! idle on AW and W, the fetch, BlueFlame, forward and B channels see random backpressure,
//! and every output and every monitor event is compared with the model in order, in the
//! cycle it appears.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use proptest::prelude::*;
use rdmagen_harness::axil::{AxiLiteMaster, AxiLitePins, Event as LiteEvent, Timing};
use rdmagen_harness::stall::{split_seed, Profile, Stall};
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::uar::{Event, Fetch, Fwd, Outcome, Qp, Result_, UarModel, Write, RTS};

/// QPC command registers (register-maps/qpc.yaml).
mod qpc {
    pub const CMD_CTRL: u64 = 0x010;
    pub const CMD_TARGET: u64 = 0x014;
    pub const CMD_STATUS: u64 = 0x018;
    pub const MAILBOX: u64 = 0x080;
}

/// UAR CSRs (register-maps/uar.yaml and uar-mlx5.yaml share these offsets).
pub mod csr {
    pub const CTRL: u64 = 0x000;
    pub const PAGE_CFG: u64 = 0x004;
    pub const LAST_DROP: u64 = 0x018;
    pub const LAST_DROP_QPN: u64 = 0x01C;
    pub const DB_ACCEPTED: u64 = 0x020;
    pub const BF_ACCEPTED: u64 = 0x028;
    pub const DROPS: u64 = 0x030;
    pub const VF: u64 = 0x1000;
}

/// A QP operation through the QPC mailbox.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QpOp {
    /// CREATE then modify up to RTS (`to` = 0 RST, 1 INIT, 2 RTR, 3 RTS).
    Bringup {
        to: u8,
    },
    ToErr,
    ToSqd,
    Destroy,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    Qp {
        vf: u32,
        local: u32,
        page: u32,
        op: QpOp,
    },
    /// One UAR write.
    Write(Write),
    /// CSR configuration.
    Config {
        enable: bool,
        bf_enable: bool,
        active_pages: u32,
        pf_only_mask: u16,
        vf_disable: Option<u32>,
    },
    Idle(u8),
    /// One AXI4 read of a UAR page (`len` + 1 beats, ID `id`): answered with zeros, OKAY.
    Read {
        len: u8,
        id: u8,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub stall: Profile,
    pub ops: Vec<Op>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub cycle: u64,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.message)
    }
}

/// An AXI4-Lite slave's pins under a name prefix.
struct Lite {
    p: [RawPort; 17],
}

const LITE: [&str; 17] = [
    "awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb", "wvalid", "wready", "bresp",
    "bvalid", "bready", "araddr", "arprot", "arvalid", "arready", "rdata", "rresp",
];

fn rd(p: &RawPort) -> u64 {
    let mut w = [0u32; 2];
    // SAFETY: the bench owns the model; ports are only touched between evaluations.
    unsafe { p.get() }.read(&mut w);
    u64::from(w[0]) | u64::from(w[1]) << 32
}
fn wr(p: &RawPort, v: u64) {
    // SAFETY: see `rd`.
    unsafe { p.get() }.write(&[v as u32, (v >> 32) as u32]);
}

struct LiteView<'a>(&'a Lite, &'a RawPort, &'a RawPort);

impl AxiLitePins for LiteView<'_> {
    fn data_bytes(&self) -> usize {
        4
    }
    fn set_aw(&self, valid: bool, addr: u64) {
        wr(&self.0.p[2], u64::from(valid));
        wr(&self.0.p[0], addr);
        wr(&self.0.p[1], 0);
    }
    fn set_w(&self, valid: bool, data: u64, strb: u8) {
        wr(&self.0.p[6], u64::from(valid));
        wr(&self.0.p[4], data);
        wr(&self.0.p[5], u64::from(strb));
    }
    fn set_bready(&self, ready: bool) {
        wr(&self.0.p[10], u64::from(ready));
    }
    fn set_ar(&self, valid: bool, addr: u64) {
        wr(&self.0.p[13], u64::from(valid));
        wr(&self.0.p[11], addr);
        wr(&self.0.p[12], 0);
    }
    fn set_rready(&self, ready: bool) {
        wr(self.2, u64::from(ready));
    }
    fn awready(&self) -> bool {
        rd(&self.0.p[3]) == 1
    }
    fn wready(&self) -> bool {
        rd(&self.0.p[7]) == 1
    }
    fn arready(&self) -> bool {
        rd(&self.0.p[14]) == 1
    }
    fn b(&self) -> Option<u8> {
        (rd(&self.0.p[9]) == 1).then(|| rd(&self.0.p[8]) as u8)
    }
    fn r(&self) -> Option<(u64, u8)> {
        (rd(self.1) == 1).then(|| (rd(&self.0.p[15]), rd(&self.0.p[16]) as u8))
    }
}

/// The ports the bench drives every cycle, looked up once.
struct Pins {
    all: HashMap<String, RawPort>,
    uar: Lite,
    uar_rvalid: RawPort,
    uar_rready: RawPort,
    qpc: Lite,
    qpc_rvalid: RawPort,
    qpc_rready: RawPort,
}

impl Pins {
    fn p(&self, n: &str) -> &RawPort {
        self.all.get(n).unwrap_or_else(|| panic!("no port {n}"))
    }
}

/// AW payload of one write, with its index.
#[derive(Clone, Copy)]
struct Aw {
    addr: u32,
    len: u8,
    size: u8,
    burst: u8,
    user: u16,
    id: u8,
}

/// IDs the bench gives writes and reads: ID_WIDTH is 4 in the built models.
const ID_MASK: u8 = 0xF;

/// The AXI4 write master: AW and W on their own random schedules, in order.
struct AxiW {
    aw: VecDeque<Aw>,
    /// (data, strobes, write index, last)
    w: VecDeque<(u64, u8, usize, bool)>,
    aw_valid: bool,
    w_valid: bool,
    aw_idle: Stall,
    w_idle: Stall,
    b_stall: Stall,
    /// Reads not yet taken on AR: (arlen, arid).
    ar: VecDeque<(u8, u8)>,
    ar_valid: bool,
    ar_idle: Stall,
    r_stall: Stall,
    /// Reads taken, answered in order: (arlen, arid), and the beats of the head answered.
    want_r: VecDeque<(u8, u8)>,
    r_beat: u8,
}

/// Timing statistics of a bench (cycles).
#[derive(Clone, Debug, Default)]
pub struct Stats {
    /// Last W beat accepted → fetch_valid, per fetch.
    pub fetch_latency: Vec<u64>,
    /// Max over all writes of last W beat accepted → its monitor event.
    pub max_event_latency: u64,
    pub writes: u64,
    pub hostile: u64,
    /// Stray AXI4 reads answered (every beat zero, OKAY, its ARID).
    pub reads: u64,
    pub fetches: u64,
    pub blueflames: u64,
    pub forwards: u64,
    pub cycles: u64,
    /// (VF, cycle) of every fetch handshake.
    pub fetch_done: Vec<(u8, u64)>,
    /// Cycles from queueing a `run_writes` list to the last output.
    pub burst_cycles: u64,
}

/// What the RTL did with one write (for `rdmagen sim uar`): its events, its fetch request
/// and the cycles from the acceptance of its last W beat.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Logged {
    pub write: usize,
    pub event: Event,
    pub fetch: Option<Fetch>,
    pub latency: u64,
}

pub struct Bench<M: Model> {
    pub model: UarModel,
    /// Filled when `logging` is set.
    pub log: Vec<Logged>,
    pub logging: bool,
    /// Service type and PD that QP set-up puts in the mailbox.
    pub mailbox_st: u32,
    pub mailbox_pd: u32,
    /// Stall only the output ports (fetch, BlueFlame, forward); the AXI master never idles.
    pub output_stall_only: bool,
    pins: Pins,
    cycle: u64,
    pub stats: Stats,
    dut: M,
}

fn load_map(name: &str) -> rdmagen_regmap::RegMap {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../register-maps")
        .join(name);
    rdmagen_regmap::load(&p).unwrap_or_else(|e| panic!("{e}"))
}

/// The map a variant was built from.
pub fn map_of(variant: &str) -> &'static str {
    if variant.starts_with("mlx5") {
        "uar-mlx5.yaml"
    } else {
        "uar.yaml"
    }
}

/// The drivers of a `rdmagen sim` session.
pub struct Session(Run);

struct Run {
    uar: AxiLiteMaster,
    qpc: AxiLiteMaster,
    axi: AxiW,
    fetch_stall: Stall,
    bf_stall: Stall,
    fwd_stall: Stall,
    lite_events: Vec<LiteEvent>,
    read_want: HashMap<u64, (u64, u32)>,
    qpc_reads: HashMap<u64, u64>,
    qpc_status: Vec<u32>,
    want_events: VecDeque<(usize, Event)>,
    want_fetch: VecDeque<(usize, Fetch)>,
    want_bf: VecDeque<(u64, bool, u32)>,
    want_fwd: VecDeque<Fwd>,
    want_b: VecDeque<(u8, u8)>,
    accepted_at: HashMap<usize, u64>,
    fetch_seen: Option<u64>,
    next_write: usize,
}

impl Run {
    fn new(seed: u64, p: Profile, output_only: bool) -> Run {
        let s = |i| split_seed(seed, i);
        let out = p;
        let p = if output_only { Profile::NONE } else { p };
        Run {
            uar: AxiLiteMaster::new(s(1), Timing::uniform(p)),
            qpc: AxiLiteMaster::new(s(2), Timing::uniform(p)),
            axi: AxiW {
                aw: VecDeque::new(),
                w: VecDeque::new(),
                aw_valid: false,
                w_valid: false,
                aw_idle: Stall::new(s(3), p),
                w_idle: Stall::new(s(4), p),
                b_stall: Stall::new(s(5), p),
                ar: VecDeque::new(),
                ar_valid: false,
                ar_idle: Stall::new(s(9), p),
                r_stall: Stall::new(s(10), p),
                want_r: VecDeque::new(),
                r_beat: 0,
            },
            fetch_stall: Stall::new(s(6), out),
            bf_stall: Stall::new(s(7), out),
            fwd_stall: Stall::new(s(8), out),
            lite_events: Vec::new(),
            read_want: HashMap::new(),
            qpc_reads: HashMap::new(),
            qpc_status: Vec::new(),
            want_events: VecDeque::new(),
            want_fetch: VecDeque::new(),
            want_bf: VecDeque::new(),
            want_fwd: VecDeque::new(),
            want_b: VecDeque::new(),
            accepted_at: HashMap::new(),
            fetch_seen: None,
            next_write: 0,
        }
    }
    fn uar_quiet(&self) -> bool {
        self.axi.aw.is_empty()
            && self.axi.w.is_empty()
            && self.want_events.is_empty()
            && self.want_fetch.is_empty()
            && self.want_bf.is_empty()
            && self.want_fwd.is_empty()
            && self.want_b.is_empty()
            && self.axi.ar.is_empty()
            && self.axi.want_r.is_empty()
    }
    fn quiet(&self) -> bool {
        self.uar_quiet() && self.uar.is_idle() && self.qpc.is_idle()
    }
}

impl<M: Model> Bench<M> {
    pub fn new(variant: &str) -> Self {
        let dut = M::create();
        let p = |n: &str| M::param(n).unwrap_or_else(|| panic!("no parameter {n}")) as u32;
        let model = UarModel::new(&load_map(map_of(variant)), p("NUM_VF"), p("PAGES_PER_VF"))
            .expect("uar map");
        let all: HashMap<String, RawPort> = M::PORTS
            .iter()
            .map(|info| {
                // SAFETY: the bench owns the model and drops the handles with it.
                let raw = unsafe { dut.port(info.name).expect("listed port").detach() };
                (info.name.to_string(), raw)
            })
            .collect();
        let lite = |pre: &str| Lite {
            p: LITE.map(|n| all[&format!("{pre}{n}")]),
        };
        let pins = Pins {
            uar: lite("s_axil_"),
            uar_rvalid: all["s_axil_rvalid"],
            uar_rready: all["s_axil_rready"],
            qpc: lite("qpc_s_axil_"),
            qpc_rvalid: all["qpc_s_axil_rvalid"],
            qpc_rready: all["qpc_s_axil_rready"],
            all,
        };
        Bench {
            model,
            log: Vec::new(),
            logging: false,
            mailbox_st: 0,
            mailbox_pd: 1,
            output_stall_only: false,
            pins,
            cycle: 0,
            stats: Stats::default(),
            dut,
        }
    }

    pub fn dut_trace(&mut self, path: &Path) -> std::io::Result<()> {
        self.dut.trace_open(path)
    }

    fn set(&self, n: &str, v: u64) {
        wr(self.pins.p(n), v)
    }
    fn get(&self, n: &str) -> u64 {
        rd(self.pins.p(n))
    }
    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    /// Resets the DUT and the model, waits for the QPC clear, enables the block and every VF.
    fn start(&mut self, r: &mut Run) -> Result<(), Failure> {
        self.dut.reset(2);
        self.model.reset();
        self.cycle = 0;
        // The QPC clears one context per cycle after reset.
        let depth = self.model.num_vf as u64 * 64 + 8;
        for _ in 0..depth {
            self.step(r)?;
        }
        self.config(r, true, true, 0, 0, None)?;
        Ok(())
    }

    fn config(
        &mut self,
        r: &mut Run,
        enable: bool,
        bf_enable: bool,
        active_pages: u32,
        pf_only_mask: u16,
        vf_disable: Option<u32>,
    ) -> Result<(), Failure> {
        self.drain(r)?;
        r.uar.write(
            csr::CTRL,
            u64::from(enable) | u64::from(bf_enable) << 1,
            0xf,
        );
        r.uar.write(
            csr::PAGE_CFG,
            u64::from(active_pages) | u64::from(pf_only_mask) << 16,
            0xf,
        );
        self.model.cfg.enable = enable;
        self.model.cfg.bf_enable = bf_enable;
        self.model.cfg.active_pages = active_pages;
        self.model.cfg.pf_only_mask = pf_only_mask;
        for vf in 0..self.model.num_vf {
            let on = vf_disable != Some(vf);
            if self.model.cfg.vf_enable[vf as usize] != on {
                r.uar
                    .write(csr::VF + 16 * u64::from(vf), u64::from(on), 0xf);
                self.model.cfg.vf_enable[vf as usize] = on;
            }
        }
        self.drain(r)
    }

    /// Runs until every queued write, read and output is done.
    fn drain(&mut self, r: &mut Run) -> Result<(), Failure> {
        let start = self.cycle;
        while !r.quiet() {
            if self.cycle - start > 200_000 {
                return self.fail("the block stopped answering".into());
            }
            self.step(r)?;
        }
        // The CSR block counts an event one cycle after its mon_* pulse (docs/uar.md): one
        // more cycle, so that a counter read issued after drain() sees every event.
        self.step(r)
    }

    /// One QPC command through the mailbox; its status must be OK.
    fn command(
        &mut self,
        r: &mut Run,
        opcode: u16,
        vf: u32,
        local: u32,
        page: u32,
    ) -> Result<(), Failure> {
        // Mailbox word 0..: st RC (0), pd 1, uar_page, mtu 3 — positions from qpc.yaml's
        // `qpc` memory: st [7:0]... set through the refmodel's layout.
        let map = load_qpc_layout();
        let mut w = vec![0u32; 12];
        rdmagen_refmodel::qpc::set(&mut w, map.pd, self.mailbox_pd);
        rdmagen_refmodel::qpc::set(&mut w, map.st, self.mailbox_st);
        rdmagen_refmodel::qpc::set(&mut w, map.uar_page, page);
        rdmagen_refmodel::qpc::set(&mut w, map.mtu, 3);
        for (i, d) in w.iter().enumerate() {
            r.qpc.write(qpc::MAILBOX + 4 * i as u64, u64::from(*d), 0xf);
        }
        r.qpc
            .write(qpc::CMD_TARGET, u64::from(vf << 24 | local), 0xf);
        r.qpc.write(
            qpc::CMD_CTRL,
            u64::from(1u32 << 31 | u32::from(opcode)),
            0xf,
        );
        self.drain(r)?;
        for _ in 0..4 {
            self.step(r)?;
        }
        r.qpc_status.clear();
        let tag = r.qpc.read(qpc::CMD_STATUS);
        r.qpc_reads.insert(tag, qpc::CMD_STATUS);
        self.drain(r)?;
        let st = r.qpc_status.first().copied().unwrap_or(u32::MAX);
        if st & 1 != 0 || (st >> 8) & 0xff != 0 {
            return self.fail(format!(
                "QPC command {opcode:#x} on vf {vf} local {local}: cmd_status {st:#x}"
            ));
        }
        Ok(())
    }

    fn qp_op(
        &mut self,
        r: &mut Run,
        vf: u32,
        local: u32,
        page: u32,
        op: QpOp,
    ) -> Result<(), Failure> {
        self.drain(r)?;
        let qpn = vf << 12 | local;
        let cur = self.model.qp(qpn);
        match op {
            QpOp::Bringup { to } => {
                if cur.is_some() {
                    self.command(r, 0x501, vf, local, page)?;
                }
                for (i, opc) in [0x500u16, 0x502, 0x503, 0x504].iter().enumerate() {
                    if i <= to as usize {
                        self.command(r, *opc, vf, local, page)?;
                    }
                }
                self.model.set_qp(
                    qpn,
                    Some(Qp {
                        state: u32::from(to),
                        uar_page: page,
                    }),
                );
            }
            QpOp::ToErr => {
                if let Some(q) = cur {
                    self.command(r, 0x507, vf, local, page)?;
                    self.model.set_qp(qpn, Some(Qp { state: 6, ..q }));
                }
            }
            QpOp::ToSqd => {
                if let Some(q) = cur.filter(|q| q.state == RTS) {
                    self.command(r, 0x508, vf, local, page)?;
                    self.model.set_qp(qpn, Some(Qp { state: 5, ..q }));
                }
            }
            QpOp::Destroy => {
                if cur.is_some() {
                    self.command(r, 0x501, vf, local, page)?;
                    self.model.set_qp(qpn, None);
                }
            }
        }
        Ok(())
    }

    /// Queues one write and what the model says it produces.
    fn write(&mut self, r: &mut Run, w: &Write) {
        let i = r.next_write;
        r.next_write += 1;
        let o: Outcome = self.model.write(w);
        self.stats.writes += 1;
        self.stats.hostile += u64::from(self.model.hostile(&o));
        r.axi.aw.push_back(Aw {
            addr: w.addr,
            len: (w.beats.len() - 1) as u8,
            size: w.size,
            burst: w.burst,
            user: u16::from(w.pf) << 8 | u16::from(w.vf),
            id: i as u8 & ID_MASK,
        });
        for (k, (d, s)) in w.beats.iter().enumerate() {
            r.axi.w.push_back((*d, *s, i, k + 1 == w.beats.len()));
        }
        for e in &o.events {
            r.want_events.push_back((i, *e));
        }
        if let Some(f) = o.fetch {
            r.want_fetch.push_back((i, f));
        }
        if let Some(q) = &o.wqe {
            for (k, b) in q.beats.iter().enumerate() {
                r.want_bf.push_back((*b, k + 1 == q.beats.len(), q.user));
            }
        }
        if let Some(f) = o.fwd {
            r.want_fwd.push_back(f);
        }
        r.want_b.push_back((o.bresp, i as u8 & ID_MASK));
    }

    /// A session for `rdmagen sim`: reset, then operations one by one.
    pub fn session(&mut self) -> Result<Session, Failure> {
        let mut r = Run::new(1, Profile::NONE, false);
        self.start(&mut r)?;
        Ok(Session(r))
    }

    /// Sets a QP up (`state` 0..3 by bring-up; 5 SQD and 6 ERR from RTS).
    pub fn sim_qp(
        &mut self,
        s: &mut Session,
        vf: u32,
        local: u32,
        page: u32,
        state: u32,
    ) -> Result<(), Failure> {
        let r = &mut s.0;
        match state {
            0..=3 => self.qp_op(r, vf, local, page, QpOp::Bringup { to: state as u8 }),
            5 | 6 => {
                self.qp_op(r, vf, local, page, QpOp::Bringup { to: 3 })?;
                let op = if state == 5 { QpOp::ToSqd } else { QpOp::ToErr };
                self.qp_op(r, vf, local, page, op)
            }
            _ => self.fail(format!("state {state} cannot be set up")),
        }
    }

    /// One write, run until every output it makes is out.
    pub fn sim_write(&mut self, s: &mut Session, w: &Write) -> Result<(), Failure> {
        self.write(&mut s.0, w);
        self.drain(&mut s.0)
    }

    /// Runs one case from reset; at the end, checks the QPC contexts and the counters.
    pub fn run(&mut self, case: &Case) -> Result<(), Failure> {
        let mut r = Run::new(case.seed, case.stall, self.output_stall_only);
        self.start(&mut r)?;
        for op in &case.ops {
            match op {
                Op::Qp {
                    vf,
                    local,
                    page,
                    op,
                } => self.qp_op(&mut r, *vf, *local, *page, *op)?,
                Op::Write(w) => {
                    self.write(&mut r, w);
                    self.step(&mut r)?;
                }
                Op::Config {
                    enable,
                    bf_enable,
                    active_pages,
                    pf_only_mask,
                    vf_disable,
                } => self.config(
                    &mut r,
                    *enable,
                    *bf_enable,
                    *active_pages,
                    *pf_only_mask,
                    *vf_disable,
                )?,
                Op::Idle(n) => {
                    for _ in 0..*n {
                        self.step(&mut r)?;
                    }
                }
                Op::Read { len, id } => {
                    r.axi.ar.push_back((*len, id & ID_MASK));
                    self.step(&mut r)?;
                }
            }
        }
        self.drain(&mut r)?;
        self.check_counters(&mut r)
    }

    /// Runs a list of writes as fast as the block takes them (no QP changes in between).
    pub fn run_writes(&mut self, case: &Case, writes: &[Write]) -> Result<(), Failure> {
        let mut r = Run::new(case.seed, case.stall, self.output_stall_only);
        self.start(&mut r)?;
        for op in &case.ops {
            if let Op::Qp {
                vf,
                local,
                page,
                op,
            } = op
            {
                self.qp_op(&mut r, *vf, *local, *page, *op)?;
            }
        }
        let start = self.cycle;
        for w in writes {
            self.write(&mut r, w);
        }
        self.drain(&mut r)?;
        self.stats.burst_cycles = self.cycle - start;
        self.check_counters(&mut r)
    }

    /// Reads the counters back (they clear on read) and compares them with the model.
    fn check_counters(&mut self, r: &mut Run) -> Result<(), Failure> {
        let c = self.model.counters.clone();
        let mut want: Vec<(u64, u32)> = vec![
            (csr::DB_ACCEPTED, c.db_accepted as u32),
            (csr::BF_ACCEPTED, c.bf_accepted as u32),
        ];
        for reason in 1..=8u64 {
            want.push((
                csr::DROPS + 4 * (reason - 1),
                c.drops[reason as usize] as u32,
            ));
        }
        if let Some((reason, page, vf, qpn)) = c.last_drop {
            want.push((
                csr::LAST_DROP,
                u32::from(reason) | u32::from(page) << 8 | u32::from(vf) << 16,
            ));
            want.push((csr::LAST_DROP_QPN, qpn));
        }
        // Per-VF counters: all VFs of a small block, a sample of a large one.
        let n = self.model.num_vf;
        let vfs: Vec<u32> = if n <= 8 {
            (0..n).collect()
        } else {
            vec![0, 1, 2, n / 2, n - 1]
        };
        for vf in vfs {
            want.push((
                csr::VF + 16 * u64::from(vf) + 4,
                c.vf_doorbells[vf as usize] as u32,
            ));
            want.push((
                csr::VF + 16 * u64::from(vf) + 8,
                c.vf_drops[vf as usize] as u32,
            ));
        }
        for (a, v) in want {
            let tag = r.uar.read(a);
            r.read_want.insert(tag, (a, v));
        }
        self.drain(r)?;
        // The QPC contexts: every QP the model holds, through QUERY_QP (state and page).
        let qps: Vec<(u32, Qp)> = {
            let mut v: Vec<(u32, Qp)> = (0..n)
                .flat_map(|vf| (0..4).map(move |l| vf << 12 | l))
                .filter_map(|q| self.model.qp(q).map(|x| (q, x)))
                .collect();
            v.sort_by_key(|x| x.0);
            v
        };
        let lay = load_qpc_layout();
        for (qpn, qp) in qps {
            let (vf, local) = (qpn >> 12, qpn & 0xfff);
            r.qpc
                .write(qpc::CMD_TARGET, u64::from(vf << 24 | local), 0xf);
            r.qpc
                .write(qpc::CMD_CTRL, u64::from(1u32 << 31 | 0x50B), 0xf);
            self.drain(r)?;
            for _ in 0..4 {
                self.step(r)?;
            }
            r.qpc_status.clear();
            for i in 0..12u64 {
                let tag = r.qpc.read(qpc::MAILBOX + 4 * i);
                r.qpc_reads.insert(tag, qpc::MAILBOX + 4 * i);
            }
            self.drain(r)?;
            let w = r.qpc_status.clone();
            let get = |b: rdmagen_refmodel::qpc::Bits| {
                rdmagen_refmodel::bits::get(&w, b.lsb, b.msb - b.lsb + 1) as u32
            };
            if get(lay.state) != qp.state || get(lay.uar_page) != qp.uar_page {
                return self.fail(format!(
                    "QP {qpn:#x}: QPC holds state {} page {}, the model {:?}",
                    get(lay.state),
                    get(lay.uar_page),
                    qp
                ));
            }
        }
        self.model.counters = rdmagen_refmodel::uar::Counters {
            vf_doorbells: vec![0; n as usize],
            vf_drops: vec![0; n as usize],
            forwarded: vec![0; self.model.windows.len()],
            last_drop: c.last_drop,
            ..Default::default()
        };
        Ok(())
    }

    fn step(&mut self, r: &mut Run) -> Result<(), Failure> {
        // 1. drive
        let ax = &mut r.axi;
        ax.aw_valid = !ax.aw.is_empty() && (ax.aw_valid || !ax.aw_idle.hold());
        ax.w_valid = !ax.w.is_empty() && (ax.w_valid || !ax.w_idle.hold());
        let aw = ax.aw.front().copied();
        let a = aw.unwrap_or(Aw {
            addr: 0,
            len: 0,
            size: 0,
            burst: 0,
            user: 0,
            id: 0,
        });
        self.set("s_axi_awvalid", u64::from(ax.aw_valid));
        self.set("s_axi_awaddr", u64::from(a.addr));
        self.set("s_axi_awlen", u64::from(a.len));
        self.set("s_axi_awsize", u64::from(a.size));
        self.set("s_axi_awburst", u64::from(a.burst));
        self.set("s_axi_awuser", u64::from(a.user));
        self.set("s_axi_awid", u64::from(a.id));
        ax.ar_valid = !ax.ar.is_empty() && (ax.ar_valid || !ax.ar_idle.hold());
        let (ar_len, ar_id) = ax.ar.front().copied().unwrap_or((0, 0));
        self.set("s_axi_arvalid", u64::from(ax.ar_valid));
        self.set("s_axi_araddr", 0x1008);
        self.set("s_axi_arlen", u64::from(ar_len));
        self.set("s_axi_arsize", 3);
        self.set("s_axi_arburst", 1);
        self.set("s_axi_arid", u64::from(ar_id));
        let rready = !ax.r_stall.hold();
        self.set("s_axi_rready", u64::from(rready));
        let wb = ax.w.front().copied().unwrap_or((0, 0, 0, false));
        self.set("s_axi_wvalid", u64::from(ax.w_valid));
        self.set("s_axi_wdata", wb.0);
        self.set("s_axi_wstrb", u64::from(wb.1));
        self.set("s_axi_wlast", u64::from(wb.3));
        let bready = !ax.b_stall.hold();
        self.set("s_axi_bready", u64::from(bready));
        let fetch_ready = !r.fetch_stall.hold();
        let bf_ready = !r.bf_stall.hold();
        let fwd_ready = !r.fwd_stall.hold();
        self.set("fetch_ready", u64::from(fetch_ready));
        self.set("m_axis_bf_tready", u64::from(bf_ready));
        let has_fwd = self.pins.all.contains_key("fwd_ready");
        if has_fwd {
            self.set("fwd_ready", u64::from(fwd_ready));
        }
        {
            let p = &self.pins;
            r.uar.drive(&LiteView(&p.uar, &p.uar_rvalid, &p.uar_rready));
            r.qpc.drive(&LiteView(&p.qpc, &p.qpc_rvalid, &p.qpc_rready));
        }
        // 2. settle
        self.dut.eval();
        // 3. observe
        let now = self.cycle;
        r.lite_events.clear();
        {
            let p = &self.pins;
            r.uar.observe(
                &LiteView(&p.uar, &p.uar_rvalid, &p.uar_rready),
                &mut r.lite_events,
            );
        }
        for e in &r.lite_events {
            if let LiteEvent::ReadDone { tag, data, resp } = *e {
                if let Some((a, v)) = r.read_want.remove(&tag) {
                    if resp != 0 || data as u32 != v {
                        return self.fail(format!(
                            "UAR CSR {a:#06x}: RTL {data:#x} (resp {resp}), model {v:#x}"
                        ));
                    }
                }
            }
        }
        r.lite_events.clear();
        {
            let p = &self.pins;
            r.qpc.observe(
                &LiteView(&p.qpc, &p.qpc_rvalid, &p.qpc_rready),
                &mut r.lite_events,
            );
        }
        for e in &r.lite_events {
            if let LiteEvent::ReadDone { tag, data, .. } = *e {
                if r.qpc_reads.remove(&tag).is_some() {
                    r.qpc_status.push(data as u32);
                }
            }
        }
        if let Some(v) = r.uar.violations().first().or(r.qpc.violations().first()) {
            return self.fail(format!("AXI4-Lite: {v}"));
        }
        let ax = &mut r.axi;
        if ax.aw_valid && self.get("s_axi_awready") == 1 {
            ax.aw.pop_front();
            ax.aw_valid = false;
        }
        if ax.w_valid && self.get("s_axi_wready") == 1 {
            let (_, _, i, last) = ax.w.pop_front().expect("valid");
            ax.w_valid = false;
            if last {
                r.accepted_at.insert(i, now);
            }
        }
        if bready && self.get("s_axi_bvalid") == 1 {
            let got = (self.get("s_axi_bresp") as u8, self.get("s_axi_bid") as u8);
            match r.want_b.pop_front() {
                Some(w) if w == got => {}
                w => {
                    return self.fail(format!(
                        "B response (bresp, bid) {got:?}, the model expects {w:?}"
                    ))
                }
            }
        }
        if ax.ar_valid && self.get("s_axi_arready") == 1 {
            let a = ax.ar.pop_front().expect("valid");
            ax.ar_valid = false;
            ax.want_r.push_back(a);
        }
        if rready && self.get("s_axi_rvalid") == 1 {
            let got = (
                self.get("s_axi_rid") as u8,
                self.get("s_axi_rdata"),
                self.get("s_axi_rresp"),
                self.get("s_axi_rlast") == 1,
            );
            let Some(&(len, id)) = ax.want_r.front() else {
                return self.fail(format!("an R beat {got:?} with no read taken"));
            };
            let last = ax.r_beat == len;
            if got != (id, 0, 0, last) {
                return self.fail(format!(
                    "R beat {} of a read of {} (ARID {id}): (rid, rdata, rresp, rlast) {got:?}, \
                     want {:?}",
                    ax.r_beat,
                    u16::from(len) + 1,
                    (id, 0, 0, last)
                ));
            }
            if last {
                ax.want_r.pop_front();
                ax.r_beat = 0;
                self.stats.reads += 1;
            } else {
                ax.r_beat += 1;
            }
        }
        if self.get("fetch_valid") == 1 && r.fetch_seen.is_none() {
            r.fetch_seen = Some(now);
            if let Some((i, _)) = r.want_fetch.front() {
                if let Some(at) = r.accepted_at.get(i) {
                    self.stats.fetch_latency.push(now - at);
                }
            }
        }
        if self.get("mon_valid") == 1 {
            let got = Event {
                result: match self.get("mon_result") {
                    0 => Result_::Fetch,
                    1 => Result_::BlueFlame,
                    2 => Result_::Drop,
                    3 => Result_::Pending,
                    _ => Result_::Forward,
                },
                reason: self.get("mon_reason") as u8,
                vf: self.get("mon_vf") as u8,
                pf: self.get("mon_pf") == 1,
                page: self.get("mon_page") as u8,
                qpn: self.get("mon_qpn") as u32,
            };
            match r.want_events.pop_front() {
                Some((i, w)) if w == got => {
                    let at = r.accepted_at.get(&i).copied().unwrap_or(now);
                    self.stats.max_event_latency = self.stats.max_event_latency.max(now - at);
                    if self.logging {
                        // A fetch's latency is to fetch_valid, which may precede this event
                        // (the event is the handshake).
                        let lat = match (got.result, r.fetch_seen) {
                            (Result_::Fetch, Some(seen)) => seen - at,
                            _ => now - at,
                        };
                        let fetch = (got.result == Result_::Fetch).then(|| Fetch {
                            vf: self.get("fetch_vf") as u8,
                            qpn: self.get("fetch_qpn") as u32,
                            wqe_index: self.get("fetch_wqe_index") as u16,
                            ds: self.get("fetch_ds") as u8,
                            opcode: self.get("fetch_opcode") as u8,
                        });
                        self.log.push(Logged {
                            write: i,
                            event: got,
                            fetch,
                            latency: lat,
                        });
                    }
                }
                w => return self.fail(format!("monitor event {got:?}, the model expects {w:?}")),
            }
        }
        if self.get("fetch_valid") == 1 {
            if fetch_ready {
                r.fetch_seen = None;
                let got = Fetch {
                    vf: self.get("fetch_vf") as u8,
                    qpn: self.get("fetch_qpn") as u32,
                    wqe_index: self.get("fetch_wqe_index") as u16,
                    ds: self.get("fetch_ds") as u8,
                    opcode: self.get("fetch_opcode") as u8,
                };
                match r.want_fetch.pop_front() {
                    Some((_, w)) if w == got => {
                        self.stats.fetches += 1;
                        self.stats.fetch_done.push((got.vf, now));
                    }
                    w => return self.fail(format!("fetch {got:?}, the model expects {w:?}")),
                }
            }
        } else if r.fetch_seen.is_some() {
            return self.fail("fetch_valid dropped before fetch_ready".into());
        }
        if self.get("m_axis_bf_tvalid") == 1 && bf_ready {
            let got = (
                self.get("m_axis_bf_tdata"),
                self.get("m_axis_bf_tlast") == 1,
                self.get("m_axis_bf_tuser") as u32,
            );
            if self.get("m_axis_bf_tkeep") != 0xff {
                return self.fail("BlueFlame tkeep is not all ones".into());
            }
            match r.want_bf.pop_front() {
                Some(w) if w == got => self.stats.blueflames += u64::from(got.1),
                w => {
                    return self.fail(format!("BlueFlame beat {got:x?}, the model expects {w:x?}"))
                }
            }
        }
        if has_fwd && self.get("fwd_valid") == 1 && fwd_ready {
            let got = Fwd {
                vf: self.get("fwd_vf") as u8,
                win: self.get("fwd_win") as u8,
                data: self.get("fwd_data"),
            };
            match r.want_fwd.pop_front() {
                Some(w) if w == got => self.stats.forwards += 1,
                w => {
                    return self.fail(format!(
                        "forwarded doorbell {got:x?}, the model expects {w:x?}"
                    ))
                }
            }
        }
        // 4. edge
        self.dut.tick();
        self.cycle += 1;
        self.stats.cycles += 1;
        Ok(())
    }
}

pub(crate) fn load_qpc_layout() -> rdmagen_refmodel::qpc::Layout {
    thread_local! {
        static L: rdmagen_refmodel::qpc::Layout =
            rdmagen_refmodel::qpc::Layout::of(&load_map("qpc.yaml")).expect("qpc layout");
    }
    L.with(|l| l.clone())
}

/// A send doorbell value as rdma-core writes it: `opmod_idx_opcode` then `qpn_ds`, both
/// big-endian, as the 8 bytes of one little-endian AXI beat.
pub fn doorbell_beat(wqe_index: u16, opcode: u8, qpn: u32, ds: u8) -> u64 {
    let be: u64 =
        u64::from(wqe_index) << 40 | u64::from(opcode) << 32 | u64::from(qpn) << 8 | u64::from(ds);
    be.swap_bytes()
}

/// What a generated write is.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Db64,
    Pair,
    /// High half alone, or low half alone then something else.
    Torn,
    Bf,
    /// A WQE written in 64-byte chunks, each its own burst (mlx5_bf_copy through a root
    /// complex that sends each write-combining buffer as its own TLP), or one stray chunk.
    Chunks,
    /// A forwarded doorbell window (or a random in-page offset elsewhere).
    Other,
    Unmapped,
}

/// Random cases for a variant: QP life cycles on a few QPs of a few VFs, then doorbells from
/// owners and attackers (other VFs' QPNs, wrong pages, non-RTS QPs, PF-only pages, foreign
/// pages, unmapped offsets, torn pairs), BlueFlame writes and forwarded doorbells.
pub fn strategy(model: &UarModel, min_ops: usize, max_ops: usize) -> impl Strategy<Value = Case> {
    let nvf = model.num_vf;
    let pages = model.pages_per_vf;
    let pw = model.pw();
    let windows = model.windows.clone();
    let send_offs: Vec<u32> = windows
        .iter()
        .filter(|w| w.size >= 8 && w.role != rdmagen_refmodel::uar::Role::Forward)
        .map(|w| w.offset as u32)
        .collect();
    let bf_offs: Vec<u32> = windows
        .iter()
        .filter(|w| w.size > 8)
        .map(|w| w.offset as u32)
        .collect();
    let other_offs: Vec<u32> = windows
        .iter()
        .filter(|w| w.role == rdmagen_refmodel::uar::Role::Forward)
        .map(|w| w.offset as u32)
        .chain([0x10, 0x400, 0xff8])
        .collect();
    let vfs = nvf.min(3);
    let vf_s = move || prop_oneof![4 => 0..vfs, 1 => 0..nvf];
    let qp_op = (
        vf_s(),
        0u32..4,
        prop_oneof![6 => Just(None), 1 => (0..pages).prop_map(Some)],
        prop_oneof![
            6 => Just(QpOp::Bringup { to: 3 }),
            2 => (0u8..3).prop_map(|to| QpOp::Bringup { to }),
            1 => Just(QpOp::ToErr),
            1 => Just(QpOp::ToSqd),
            1 => Just(QpOp::Destroy),
        ],
    )
        // QP `local` mostly uses page `local % pages`, which most doorbells come through.
        .prop_map(move |(vf, local, page, op)| Op::Qp {
            vf,
            local,
            page: page.unwrap_or(local % pages),
            op,
        });
    let write = (
        (vf_s(), prop_oneof![8 => Just(false), 1 => Just(true)]),
        // Target function (own mostly), page index, QP (own VF or another), local QPN.
        (
            prop_oneof![6 => Just(None), 1 => (0..nvf + 1).prop_map(Some)],
            prop_oneof![6 => Just(None), 1 => (0..pages + 1).prop_map(Some)],
        ),
        (
            prop_oneof![6 => Just(None), 1 => (0..nvf).prop_map(Some)],
            0u32..5,
        ),
        (
            prop_oneof![
                6 => Just(Kind::Db64),
                2 => Just(Kind::Pair),
                1 => Just(Kind::Torn),
                2 => Just(Kind::Bf),
                2 => Just(Kind::Chunks),
                1 => Just(Kind::Other),
                1 => Just(Kind::Unmapped),
            ],
            any::<u16>(),
            1u8..16,
            0usize..8,
            any::<u64>(),
        ),
    )
        .prop_map(
            move |((vf, pf), (target, page), (qvf, local), (kind, idx, ds, pick, junk))| {
                let owner = target.unwrap_or(vf);
                let page = page.unwrap_or(local % pages).min(15);
                let addr_of = |off: u32| ((owner << pw) + page) << 12 | off;
                let qpn = qvf.unwrap_or(vf) << 12 | local;
                let db = doorbell_beat(idx, 0x0A, qpn, ds);
                let so = send_offs[pick % send_offs.len()];
                let one = |addr: u32, d: u64, s: u8| Write {
                    pf,
                    vf: vf as u8,
                    addr,
                    size: 3,
                    burst: 1,
                    beats: vec![(d, s)],
                };
                match kind {
                    Kind::Db64 => vec![one(addr_of(so), db, 0xFF)],
                    // One pair in eight has another VF's 4-beat burst (no window takes it)
                    // between its halves: the high half's AW then waits in the AW skid while
                    // the burst's beats go in, and the pair must still complete (the skid's
                    // pending bit; docs/uar.md "Logic depth").
                    Kind::Pair if pick == 7 => {
                        let other = (owner + 1) % nvf;
                        vec![
                            one(addr_of(so), db, 0x0F),
                            Write {
                                pf: false,
                                vf: other as u8,
                                addr: (other << pw) << 12,
                                size: 3,
                                burst: 1,
                                beats: vec![(junk, 0xFF); 4],
                            },
                            one(addr_of(so + 4), db, 0xF0),
                        ]
                    }
                    Kind::Pair => vec![one(addr_of(so), db, 0x0F), one(addr_of(so + 4), db, 0xF0)],
                    Kind::Torn => {
                        if pick % 2 == 0 {
                            vec![one(addr_of(so + 4), db, 0xF0)]
                        } else {
                            vec![one(addr_of(so), db, 0x0F), one(addr_of(so), db, 0xFF)]
                        }
                    }
                    Kind::Bf => {
                        let off = bf_offs
                            .get(pick % bf_offs.len().max(1))
                            .copied()
                            .unwrap_or(so);
                        let n = [2usize, 4, 8, 8, 16, 32, 33, 3][pick];
                        // Mostly a ds that the burst holds (a whole WQE); every fourth
                        // `idx` keeps the random ds, which may claim more than was written.
                        let ds = if idx % 4 == 0 {
                            ds
                        } else {
                            ds.min((n / 2) as u8)
                        };
                        let db = doorbell_beat(idx, 0x0A, qpn, ds);
                        let mut beats = vec![(db, 0xFF)];
                        for k in 1..n {
                            beats.push((junk.rotate_left(k as u32 * 7) ^ k as u64, 0xFF));
                        }
                        if pick == 7 {
                            beats[1].1 = 0x0F; // a hole: not a whole WQE
                        }
                        vec![Write {
                            pf,
                            vf: vf as u8,
                            addr: addr_of(off),
                            size: 3,
                            burst: 1,
                            beats,
                        }]
                    }
                    Kind::Chunks => {
                        let off = bf_offs
                            .get(pick % bf_offs.len().max(1))
                            .copied()
                            .unwrap_or(so);
                        // 2 to 4 chunks; ds needs all of them (more than 64 (c - 1) bytes).
                        let c = 2 + (idx as usize >> 2) % 3;
                        let ds = (4 * (c - 1) + 1 + ds as usize % 4) as u8;
                        let db = doorbell_beat(idx, 0x0A, qpn, ds);
                        let data = |j: usize| junk.rotate_left(j as u32 * 7) ^ j as u64;
                        let chunk = |at: u32, from: usize, beats: usize| Write {
                            pf,
                            vf: vf as u8,
                            addr: addr_of(off + at),
                            size: 3,
                            burst: 1,
                            beats: (from..from + beats)
                                .map(|j| (if j == 0 { db } else { data(j) }, 0xFF))
                                .collect(),
                        };
                        match pick {
                            // The whole WQE, chunk by chunk.
                            0..=3 => (0..c).map(|j| chunk(64 * j as u32, 8 * j, 8)).collect(),
                            // A first burst of two chunks (write-combining merged them).
                            4 => {
                                let mut v = vec![chunk(0, 0, 16)];
                                v.extend((2..c).map(|j| chunk(64 * j as u32, 8 * j, 8)));
                                v
                            }
                            // A continuation chunk alone (its first chunk never came).
                            5 => vec![chunk(64 * (1 + (idx as u32 >> 4) % 3), 8, 8)],
                            // A continuation chunk with a hole: DECERR.
                            6 => {
                                let mut w = chunk(64, 8, 8);
                                w.beats[(idx as usize >> 3) % 8].1 = 0xF0;
                                vec![chunk(0, 0, 8), w]
                            }
                            // Too long for the window, or not at a 64-byte offset: DECERR.
                            _ => {
                                if idx % 2 == 0 {
                                    vec![chunk(0xC0, 8, 16)]
                                } else {
                                    vec![chunk(0x20, 8, 8)]
                                }
                            }
                        }
                    }
                    Kind::Other => {
                        let off = other_offs[pick % other_offs.len()];
                        let s = if off % 8 == 4 {
                            0xF0
                        } else if pick % 3 == 0 {
                            0xFF
                        } else {
                            0x0F
                        };
                        vec![one(addr_of(off & !7), junk, s)]
                    }
                    Kind::Unmapped => vec![one(addr_of(0x100 + 8 * (pick as u32)), junk, 0xFF)],
                }
            },
        );
    let config = (
        any::<bool>(),
        0u32..=(pages + 1),
        any::<u16>(),
        prop_oneof![3 => Just(None), 1 => (0..nvf).prop_map(Some)],
    )
        .prop_map(|(bf, ap, mask, dis)| Op::Config {
            enable: true,
            bf_enable: bf,
            active_pages: ap,
            pf_only_mask: mask & 0x0006,
            vf_disable: dis,
        });
    let op = prop_oneof![
        3 => qp_op.prop_map(|o| vec![o]),
        20 => write.prop_map(|ws| ws.into_iter().map(Op::Write).collect::<Vec<_>>()),
        1 => config.prop_map(|o| vec![o]),
        1 => (1u8..10).prop_map(|n| vec![Op::Idle(n)]),
        // A stray read (mlx5 software never reads the pages): answered beside the writes.
        1 => (prop_oneof![3 => 0u8..4, 1 => any::<u8>()], any::<u8>())
            .prop_map(|(len, id)| vec![Op::Read { len, id }]),
    ];
    let stall = prop_oneof![
        1 => Just(Profile::NONE),
        3 => (0u8..=50, 1u8..=4).prop_map(|(p, r)| Profile::new(p, r)),
    ];
    (
        any::<u64>(),
        stall,
        prop::collection::vec(op, min_ops..max_ops),
    )
        .prop_map(|(seed, stall, ops)| Case {
            seed,
            stall,
            ops: ops.into_iter().flatten().collect(),
        })
}
