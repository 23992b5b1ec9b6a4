//! `dcqcn_top` (engine + CSR block + read-back window) next to the reference model, cycle by
//! cycle: parameters and window reads over AXI4-Lite, events on `s_evt_*`, all under random
//! idle and backpressure.
//!
//! The bench predicts, every cycle, the top's `s_evt_ready` (the engine's readiness from the
//! pipeline's cost model, the window's priority claim, the seven-event room) and `m_rsp_valid`,
//! and the value of every AXI4-Lite read of the window (`rdmagen_refmodel::dcqcn::Selector`):
//! the window's read-backs go through the same reference engine as the external events, in
//! the order the RTL takes them, so a read-back that is issued in the wrong cycle, lost,
//! duplicated, or answered with the wrong state fails the case.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::path::Path;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use rdmagen_harness::axil::{AxiLiteMaster, Event as LiteEvent, RawLite, Timing as LiteTiming};
use rdmagen_harness::stall::{split_seed, Profile, Stall};
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::csr::ReadStage;
use rdmagen_refmodel::dcqcn::{Engine, Kind, Params, Prescaler, Response, Selector};

use crate::bench::{param_port, rd, wr, Expect, Failure, Stage, Timing};
use crate::case::{fields, params};
use crate::regs::REGS;

/// Byte offset of a map register.
pub fn reg(name: &str) -> u64 {
    REGS.iter()
        .find(|r| r.0 == name)
        .unwrap_or_else(|| panic!("the dcqcn map has no register `{name}`"))
        .1
}

/// The read-back window's registers, in the order [`TopBench`] reads them.
pub const WINDOW_REGS: [&str; 6] = [
    "rp_flow_sel",
    "rp_rate",
    "rp_target",
    "rp_current",
    "rp_timer",
    "rp_state",
];

/// The register words that program `p`: every map register with a parameter field.
pub fn param_writes(p: &Params) -> Vec<(u64, u32)> {
    let values: HashMap<String, u32> = fields(p)
        .into_iter()
        .map(|(f, v)| (param_port(f), v))
        .collect();
    let mut out = Vec::new();
    for (name, offset, flds) in REGS {
        let mut word = 0u32;
        let mut any = false;
        for (f, lsb) in *flds {
            if let Some(v) = values.get(&format!("{name}_{f}_i")) {
                word |= v << lsb;
                any = true;
            }
        }
        if any {
            out.push((*offset, word));
        }
    }
    out
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TopOp {
    /// An event offered on `s_evt_*`.
    Event { kind: Kind, flow: u32, bytes: u32 },
    /// An AXI4-Lite write of `rp_flow_sel` (queued; writes and reads run on their own).
    Select(u32),
    /// AXI4-Lite reads of the six window registers (queued).
    ReadWindow,
    /// Cycles with no event offered.
    Idle(u32),
    /// Wait until nothing is in flight, then program parameters over AXI4-Lite and wait for
    /// the writes to finish.
    Params(Params),
}

#[derive(Clone, Debug)]
pub struct TopCase {
    pub seed: u64,
    pub params: Params,
    pub evt: Profile,
    pub rsp: Profile,
    pub axi: Profile,
    pub ops: Vec<TopOp>,
}

/// Random top cases: events on a few hot flows, selections (some beyond the engine's flows),
/// window reads, idle, parameter changes.
pub fn top_strategy(flows: u32, max_ops: usize) -> impl Strategy<Value = TopCase> {
    let hot = [0, 1, flows / 2, flows - 1];
    let flow = prop_oneof![
        3 => (0..4usize).prop_map(move |i| hot[i]),
        1 => 0..flows,
    ];
    let sel = prop_oneof![
        6 => flow.clone(),
        1 => flows..=0xffff,
    ];
    let op = prop_oneof![
        5 => flow.clone().prop_map(|flow| TopOp::Event { kind: Kind::Cnp, flow, bytes: 0 }),
        4 => (flow.clone(), prop_oneof![Just(1500u32), 0u32..9000])
            .prop_map(|(flow, bytes)| TopOp::Event { kind: Kind::Tx, flow, bytes }),
        1 => flow.clone().prop_map(|flow| TopOp::Event { kind: Kind::Ce, flow, bytes: 0 }),
        1 => flow.clone().prop_map(|flow| TopOp::Event { kind: Kind::Read, flow, bytes: 0 }),
        4 => sel.prop_map(TopOp::Select),
        4 => Just(TopOp::ReadWindow),
        3 => prop_oneof![3 => 0u32..20, 1 => 0u32..300, 1 => 0u32..3000].prop_map(TopOp::Idle),
        1 => params().prop_map(TopOp::Params),
    ];
    let profile = || {
        prop_oneof![
            2 => Just(Profile::NONE),
            3 => (1u8..60, 1u8..8).prop_map(|(p, r)| Profile::new(p, r)),
        ]
    };
    (
        any::<u64>(),
        params(),
        profile(),
        profile(),
        profile(),
        prop::collection::vec(op, 1..max_ops),
    )
        .prop_map(|(seed, params, evt, rsp, axi, mut ops)| {
            // The mode stays as the case starts (changing it needs a flow clear).
            for op in &mut ops {
                if let TopOp::Params(p) = op {
                    p.paper = params.paper;
                }
            }
            TopCase {
                seed,
                params,
                evt,
                rsp,
                axi,
                ops,
            }
        })
}

struct EvtPorts {
    valid: RawPort,
    ready: RawPort,
    kind: RawPort,
    flow: RawPort,
    bytes: RawPort,
    rsp_valid: RawPort,
    rsp_ready: RawPort,
    rsp: [RawPort; 10],
}

/// The top and the model, stepped one cycle at a time.
pub struct TopBench<M: Model> {
    lite: RawLite,
    ports: EvtPorts,
    axi: AxiLiteMaster,
    pub model: Engine,
    /// The parameters the CSR block holds (what the engine sees).
    pub params: Params,
    pub sel: Selector,
    /// `rp_flow_sel.flow` as the CSR block holds it.
    pub sel_flow: u32,
    pre: Prescaler,
    timing: Timing,
    pub cycle: u64,
    /// Expected data of each AXI4-Lite read in flight, by tag.
    reads: HashMap<u64, (u64, u32)>,
    /// The CSR block's reads (tag, address) between AR and R: a read samples the window when
    /// it moves to R, not at AR.
    csr_read: ReadStage<(u64, u64)>,
    /// Data of the reads done, by tag.
    pub read_data: HashMap<u64, u32>,
    pub writes_done: u64,
    /// External responses taken, in order.
    pub responses: Vec<Response>,
    /// The window's read-backs the engine took: the cycle and microsecond of each.
    pub own_taken: Vec<(u64, u32)>,
    /// rp_flow_sel writes merged into a read-back still pending, responses of read-backs for
    /// an older selection dropped, selections beyond the engine's flows.
    pub merged: u64,
    pub stale_dropped: u64,
    pub beyond: u64,
    /// External events taken.
    pub events_taken: u64,
    last_progress: u64,
    // Last: the ports above point into it.
    dut: M,
}

impl<M: Model> TopBench<M> {
    pub fn flows() -> u32 {
        1 << M::param("FLOW_BITS").unwrap_or(10)
    }

    /// A fresh top out of reset, its state RAM cleared (waits until the engine takes events).
    pub fn new(seed: u64, axi: Profile) -> Result<Self, Failure> {
        Self::with_trace(seed, axi, None)
    }

    /// As [`TopBench::new`], writing an FST waveform from reset on.
    pub fn with_trace(seed: u64, axi: Profile, fst: Option<&Path>) -> Result<Self, Failure> {
        let mut dut = M::create();
        if let Some(f) = fst {
            if let Err(e) = dut.trace_open(f) {
                eprintln!("warning: {e}");
            }
        }
        let get = |name: &str| -> Result<RawPort, Failure> {
            let p = dut.port(name).ok_or_else(|| Failure {
                cycle: 0,
                message: format!("{}: the RTL has no port `{name}`", M::VARIANT),
            })?;
            // SAFETY: the bench owns `dut` and drops the ports with it.
            Ok(unsafe { p.detach() })
        };
        // SAFETY: the bench owns `dut` and drops `lite` with it.
        let lite = unsafe { RawLite::find("s_axil_", get) }?;
        let rsp: Vec<RawPort> = [
            "m_rsp_kind",
            "m_rsp_flow",
            "m_rsp_flag",
            "m_rsp_seen",
            "m_rsp_rc",
            "m_rsp_rt",
            "m_rsp_alpha",
            "m_rsp_timer_count",
            "m_rsp_time_us",
            "m_rsp_byte_count",
        ]
        .iter()
        .map(|n| get(n))
        .collect::<Result<_, _>>()?;
        let ports = EvtPorts {
            valid: get("s_evt_valid")?,
            ready: get("s_evt_ready")?,
            kind: get("s_evt_kind")?,
            flow: get("s_evt_flow")?,
            bytes: get("s_evt_bytes")?,
            rsp_valid: get("m_rsp_valid")?,
            rsp_ready: get("m_rsp_ready")?,
            rsp: rsp.try_into().map_err(|_| Failure {
                cycle: 0,
                message: "ports".into(),
            })?,
        };
        let mut b = TopBench {
            lite,
            ports,
            axi: AxiLiteMaster::new(split_seed(seed, 7), LiteTiming::uniform(axi)),
            model: Engine::new(Self::flows() as usize),
            params: Params::default(),
            sel: Selector::default(),
            sel_flow: 0,
            pre: Prescaler::default(),
            timing: Timing::default(),
            cycle: 0,
            reads: HashMap::new(),
            csr_read: ReadStage::default(),
            read_data: HashMap::new(),
            writes_done: 0,
            responses: Vec::new(),
            own_taken: Vec::new(),
            merged: 0,
            stale_dropped: 0,
            beyond: 0,
            events_taken: 0,
            last_progress: 0,
            dut,
        };
        b.dut.reset(2);
        // The state RAM clear after reset: the engine takes no event until it ends.
        let limit = u64::from(Self::flows()) + 16;
        loop {
            wr(&b.ports.valid, 0);
            wr(&b.ports.rsp_ready, 1);
            b.axi.drive(&b.lite);
            b.dut.eval();
            if rd(&b.ports.ready) != 0 {
                break;
            }
            if b.cycle > limit {
                return b.fail("s_evt_ready never rose after reset".into());
            }
            b.dut.tick();
            b.pre.tick(b.params.clk_per_us);
            b.cycle += 1;
        }
        Ok(b)
    }

    pub fn dut_mut(&mut self) -> &mut M {
        &mut self.dut
    }

    /// The engine's microsecond (the prescaler's count).
    pub fn now_us(&self) -> u32 {
        self.pre.now_us
    }

    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    /// Nothing in the engine, no read-back pending, no AXI4-Lite transfer outstanding.
    pub fn quiet(&self) -> bool {
        self.timing.pending.is_empty()
            && self.timing.fifo.is_empty()
            && !self.sel.pend
            && self.axi.is_idle()
    }

    pub fn write(&mut self, addr: u64, data: u32) -> u64 {
        self.axi.write(addr, u64::from(data), 0xf)
    }

    pub fn read(&mut self, addr: u64) -> u64 {
        self.axi.read(addr)
    }

    /// One clock cycle: `offer` an event on `s_evt_*` (returns whether it was taken) with
    /// `rsp_ready` on `m_rsp_ready`. Every output is checked against the prediction.
    pub fn step(
        &mut self,
        offer: Option<(Kind, u32, u32)>,
        rsp_ready: bool,
    ) -> Result<bool, Failure> {
        let flows = Self::flows();
        wr(&self.ports.valid, u64::from(offer.is_some()));
        let (kind, flow, bytes) = offer.unwrap_or((Kind::Cnp, 0, 0));
        wr(&self.ports.kind, kind as u64);
        wr(&self.ports.flow, u64::from(flow));
        wr(&self.ports.bytes, u64::from(bytes));
        wr(&self.ports.rsp_ready, u64::from(rsp_ready));
        self.axi.drive(&self.lite);
        self.dut.eval();
        let mut lite_events = Vec::new();
        self.axi.observe(&self.lite, &mut lite_events);
        if let Some(v) = self.axi.violations().first() {
            return self.fail(format!("AXI4-Lite: {v}"));
        }
        // AXI4-Lite: writes take effect at the clock edge; a read samples the window in the
        // cycle it moves to the CSR block's R register (R empty or taken now), the cycle after
        // its AR handshake at the earliest.
        let r_taken = lite_events
            .iter()
            .any(|e| matches!(e, LiteEvent::ReadDone { .. }));
        let accepted = lite_events.iter().find_map(|e| match *e {
            LiteEvent::ReadAccepted { tag, addr } => Some((tag, addr)),
            _ => None,
        });
        if let Some((tag, addr)) = self.csr_read.cycle(r_taken, accepted) {
            let w = &self.sel.window;
            let want = match addr {
                a if a == reg("rp_flow_sel") => w.flow_sel(self.sel_flow),
                a if a == reg("rp_rate") => w.rp_rate,
                a if a == reg("rp_target") => w.rp_target,
                a if a == reg("rp_current") => w.rp_current,
                a if a == reg("rp_timer") => w.rp_timer,
                a if a == reg("rp_state") => w.rp_state,
                _ => return self.fail(format!("the bench reads only the window, not {addr:#x}")),
            };
            self.reads.insert(tag, (addr, want));
        }
        let mut sel_write = None;
        let mut param_write = Vec::new();
        for e in lite_events {
            match e {
                LiteEvent::WriteAccepted { addr, data, .. } => {
                    if addr == reg("rp_flow_sel") {
                        sel_write = Some(data as u32 & 0xffff);
                    } else {
                        param_write.push((addr, data as u32));
                    }
                }
                LiteEvent::ReadAccepted { .. } => {}
                LiteEvent::WriteDone { resp, .. } => {
                    if resp != 0 {
                        return self.fail(format!("write response {resp}"));
                    }
                    self.writes_done += 1;
                    self.last_progress = self.cycle;
                }
                LiteEvent::ReadDone { tag, data, resp } => {
                    let (addr, want) = self.reads.remove(&tag).expect("a read accepted");
                    if resp != 0 || data as u32 != want {
                        return self.fail(format!(
                            "read of {addr:#05x}: RTL {data:#010x} (resp {resp}), model {want:#010x} (window {:?}, flow {})",
                            self.sel.window, self.sel_flow
                        ));
                    }
                    self.read_data.insert(tag, want);
                    self.last_progress = self.cycle;
                }
            }
        }
        // The engine: stage X, its readiness, the window's claim on its input.
        let applied = self.timing.apply(self.cycle, flows);
        let engine_ready = self.timing.ready(self.cycle, flows);
        let room = self.timing.pending.len() + self.timing.fifo.len() < 7;
        if !room && engine_ready {
            // The engine holds at most seven events (its input skid, stages M and R, stage
            // X's registers, X2's apply waiting for the FIFO, two response entries), so the
            // top's room check never decides anything.
            return self.fail("seven events in flight and the engine ready".into());
        }
        let in_range = self.sel_flow < flows;
        let claim = self.sel.request(in_range, room);
        let want_ready = engine_ready && room && !claim;
        let got_ready = rd(&self.ports.ready) != 0;
        if got_ready != want_ready {
            return self.fail(format!(
                "s_evt_ready is {}, expected {} (engine ready {engine_ready}, room {room}, window read-back pending {claim})",
                u8::from(got_ready),
                u8::from(want_ready)
            ));
        }
        let now = self.pre.now_us;
        let issued = claim && engine_ready;
        if issued {
            let out = self
                .model
                .event(&self.params, Kind::Read, self.sel_flow, 0, now);
            self.timing.take(Expect {
                out,
                accepted: self.cycle,
                own: true,
                stage: Stage::M,
            });
            self.own_taken.push((self.cycle, now));
            self.last_progress = self.cycle;
        }
        let taken = offer.is_some() && want_ready;
        if taken {
            let out = self.model.event(&self.params, kind, flow, bytes, now);
            self.timing.take(Expect {
                out,
                accepted: self.cycle,
                own: false,
                stage: Stage::M,
            });
            self.events_taken += 1;
            self.last_progress = self.cycle;
        }
        // Responses: the window's own are taken inside the top.
        let head_own = self.timing.fifo.front().map(|r| r.1);
        let want_valid = head_own == Some(false);
        let got_valid = rd(&self.ports.rsp_valid) != 0;
        if got_valid != want_valid {
            return self.fail(format!(
                "m_rsp_valid is {}, expected {} ({} responses predicted in the engine's FIFO)",
                u8::from(got_valid),
                u8::from(want_valid),
                self.timing.fifo.len()
            ));
        }
        let mut own = None;
        match head_own {
            Some(true) => own = self.timing.fifo.pop_front().map(|r| r.0),
            Some(false) if rsp_ready => {
                let want = self.timing.fifo.pop_front().expect("checked").0;
                let v: Vec<u64> = self.ports.rsp.iter().map(rd).collect();
                let got = Response {
                    kind: v[0] as u32,
                    flow: v[1] as u32,
                    flag: v[2] != 0,
                    seen: v[3] != 0,
                    rc: v[4] as u32,
                    rt: v[5] as u32,
                    alpha: v[6] as u32,
                    timer_count: v[7] as u32,
                    time_us: v[8] as u32,
                    byte_count: v[9] as u32,
                };
                if got != want {
                    return self.fail(format!("response:\n  RTL   {got:?}\n  model {want:?}"));
                }
                self.responses.push(got);
                self.last_progress = self.cycle;
            }
            _ => {}
        }
        if let Some(e) = applied {
            self.timing.fifo.push_back((e.out.rsp, e.own));
        }
        if sel_write.is_some() && self.sel.pend && !issued {
            self.merged += 1;
        }
        if sel_write.is_none() && own.is_some() && self.sel.stale > 0 {
            self.stale_dropped += 1;
        }
        if sel_write.is_none() && self.sel.pend && !in_range {
            self.beyond += 1;
        }
        self.sel.clock(
            &self.params,
            sel_write.is_some(),
            issued,
            in_range,
            own.as_ref(),
        );
        let limit = self.timing.hang_limit();
        if self.cycle - self.last_progress > limit {
            return self.fail(format!("no progress for {limit} cycles"));
        }
        self.dut.tick();
        self.pre.tick(self.params.clk_per_us);
        self.cycle += 1;
        if let Some(f) = sel_write {
            self.sel_flow = f;
        }
        for (addr, data) in param_write {
            self.apply_param_write(addr, data);
        }
        Ok(taken)
    }

    fn apply_param_write(&mut self, addr: u64, data: u32) {
        let Some((name, _, flds)) = REGS.iter().find(|r| r.1 == addr) else {
            return;
        };
        let mut p = self.params.clone();
        let mut text: Vec<(String, u32)> = Vec::new();
        for (f, lsb) in *flds {
            let port = format!("{name}_{f}_i");
            if let Some((field, _)) = fields(&p).into_iter().find(|(k, _)| param_port(k) == port) {
                text.push((field.to_string(), data >> lsb));
            }
        }
        for (field, v) in text {
            crate::case::set_param(&mut p, &field, v).expect("a parameter field");
        }
        // The CSR block holds each field at its width.
        self.params = p.masked();
    }

    /// Runs one case: the case's parameters first, then its operations; checks every cycle.
    pub fn run(&mut self, case: &TopCase) -> Result<(), Failure> {
        let mut evt_idle = Stall::new(split_seed(case.seed, 1), case.evt);
        let mut rsp_stall = Stall::new(split_seed(case.seed, 2), case.rsp);
        let mut ops: VecDeque<TopOp> = VecDeque::new();
        ops.push_back(TopOp::Params(case.params.clone()));
        ops.extend(case.ops.iter().cloned());
        let mut idle_left: Option<u32> = None;
        let mut params_wait = false;
        let mut drain = 4u32;
        loop {
            let mut offer = None;
            if params_wait {
                if self.axi.is_idle() {
                    params_wait = false;
                    ops.pop_front();
                }
            } else {
                match ops.front().cloned() {
                    Some(TopOp::Event { kind, flow, bytes }) => {
                        if !evt_idle.hold() {
                            offer = Some((kind, flow, bytes));
                        }
                    }
                    Some(TopOp::Select(flow)) => {
                        self.write(reg("rp_flow_sel"), flow);
                        ops.pop_front();
                    }
                    Some(TopOp::ReadWindow) => {
                        for r in WINDOW_REGS {
                            self.read(reg(r));
                        }
                        ops.pop_front();
                    }
                    Some(TopOp::Idle(n)) => {
                        let left = idle_left.get_or_insert(n);
                        if *left == 0 {
                            idle_left = None;
                            ops.pop_front();
                        } else {
                            *left -= 1;
                        }
                    }
                    Some(TopOp::Params(p)) => {
                        if self.quiet() {
                            for (addr, word) in param_writes(&p) {
                                self.write(addr, word);
                            }
                            params_wait = true;
                        }
                    }
                    None => {
                        if self.quiet() && self.sel.out == 0 {
                            if drain == 0 {
                                return Ok(());
                            }
                            drain -= 1;
                        }
                    }
                }
            }
            let ready = !rsp_stall.hold();
            if self.step(offer, ready)? {
                ops.pop_front();
            }
        }
    }
}

fn report<M: Model>(test: &str, case: &TopCase, why: &str) -> ! {
    let fst = crate::bench::failure_dir().join(format!("{}.fst", M::VARIANT));
    let replay =
        match TopBench::<M>::with_trace(case.seed, case.axi, Some(&fst)).and_then(|mut b| {
            let r = b.run(case);
            b.dut.trace_close();
            r
        }) {
            Ok(()) => "passed".to_string(),
            Err(f) => format!("fails again at {f}"),
        };
    panic!(
        "{variant}: {why}\n\nminimal case:\n{case:#?}\nreplayed with a waveform: {replay}\n  waveform: {fst}\n  \
         rerun:    cargo test -p rdmagen-dcqcn-tests --test top -- --exact {test}\n  \
         (proptest replays the seed it kept in tb/dcqcn-tests/proptest-regressions/{variant}.txt first)",
        variant = M::VARIANT,
        fst = fst.display(),
    );
}

/// The property test of one top variant: `cases` random cases, each from reset.
pub fn check_top<M: Model>(test: &str, cases: u32) {
    let flows = TopBench::<M>::flows();
    let persistence: &'static str = Box::leak(
        format!(
            "{}/proptest-regressions/{}.txt",
            env!("CARGO_MANIFEST_DIR"),
            M::VARIANT
        )
        .into_boxed_str(),
    );
    let config = Config {
        cases,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(persistence))),
        max_shrink_iters: 1024,
        ..Config::default()
    };
    let totals = RefCell::new([0u64; 7]);
    let mut runner = TestRunner::new(config);
    let result = runner.run(&top_strategy(flows, 80), |case| {
        let mut b = TopBench::<M>::new(case.seed, case.axi)
            .map_err(|f| TestCaseError::fail(f.to_string()))?;
        b.run(&case)
            .map_err(|f| TestCaseError::fail(f.to_string()))?;
        let mut t = totals.borrow_mut();
        for (i, v) in [
            b.events_taken,
            b.own_taken.len() as u64,
            b.read_data.len() as u64,
            b.merged,
            b.stale_dropped,
            b.beyond,
            b.cycle,
        ]
        .into_iter()
        .enumerate()
        {
            t[i] += v;
        }
        Ok(())
    });
    match result {
        Ok(()) => {
            let t = totals.borrow();
            eprintln!(
                "{}: {cases} cases, {} events, {} window read-backs, {} window reads, {} merged \
                 selections, {} stale read-backs dropped, {} selections beyond the flows, {} cycles",
                M::VARIANT,
                t[0],
                t[1],
                t[2],
                t[3],
                t[4],
                t[5],
                t[6]
            );
        }
        Err(TestError::Fail(why, case)) => report::<M>(test, &case, &why.to_string()),
        Err(TestError::Abort(why)) => panic!("{}: proptest aborted: {why}", M::VARIANT),
    }
}
