//! One Verilated DCQCN engine next to the reference model, driven cycle by cycle.

use std::cell::RefCell;
use std::collections::{HashMap, VecDeque};
use std::path::{Path, PathBuf};

use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use rdmagen_harness::stall::{split_seed, Stall};
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::dcqcn::{Engine, Kind, Outcome, Params, Prescaler, Response, Stats};

use crate::case::{fields, strategy, Case, Op};

/// A disagreement between the RTL and the model.
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

/// Cycles without progress, beyond the stage X cycles the model predicts for the oldest event
/// in flight ([`Timing::hang_limit`]), before the bench calls it a hang.
pub(crate) const HANG_LIMIT: u64 = 400_000;

/// The port a parameter field drives.
pub fn param_port(field: &str) -> String {
    match field {
        "rp_enable" | "np_enable" => format!("ctrl_{field}_i"),
        "algorithm" => "mode_algorithm_i".into(),
        "clk_per_us" => "clk_per_us_cycles_i".into(),
        "clamp_tgt_rate" | "clamp_tgt_rate_after_time_inc" => format!("{field}_enable_i"),
        _ => format!("{field}_value_i"),
    }
}

pub(crate) struct Expect {
    pub(crate) out: Outcome,
    pub(crate) accepted: u64,
    /// The top's own read-back (dcqcn_top's window), not an `s_evt_*` event.
    pub(crate) own: bool,
    /// Where the event is at the start of the cycle ([`Timing::ready`] keeps it; the
    /// property bench, which does not predict `s_evt_ready`, leaves it).
    pub(crate) stage: Stage,
}

/// An event's place in the engine before it is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Stage {
    /// X2's apply, formed by X1 (its response is pushed when the FIFO has room).
    P,
    /// Stage X's registers (X1 and the steps).
    X,
    R,
    M,
    /// The input skid: taken while stage M could not take it.
    Skid,
}

/// The pipeline's timing, from docs/dcqcn.md. An event taken in cycle t is in stage M (or
/// first the input skid, when stage M cannot take it), then stage R, each moving on when the
/// next is empty or moves on. Stage R's event enters stage X's registers when they are free
/// (empty, or their event's last X1 pass forms its apply in that cycle) and no earlier event
/// of its flow is still to write (in X, or X2's apply in that cycle or later: it waits for
/// the write and takes it the cycle after). Its first X1 cycle is the first one in stage X
/// with no earlier apply waiting in X2 for the FIFO; it spends `Outcome::cycles` cycles (two
/// per pass) until X1 forms its apply, which X2 pushes into the two-entry response FIFO in
/// the next cycle or, while the FIFO is full, later; the response is at the FIFO head (valid)
/// from the next cycle until taken.
#[derive(Default)]
pub(crate) struct Timing {
    /// Events taken and not applied yet (predicted), oldest first.
    pub(crate) pending: VecDeque<Expect>,
    /// Predicted FIFO contents, head first (with the top's `own` mark).
    pub(crate) fifo: VecDeque<(Response, bool)>,
    /// First X1 cycle of the event in stage X, once known.
    x_start: Option<u64>,
    /// Cycle X1 formed the apply of the event in stage P.
    p_issue: u64,
    /// Flow of the apply X2 pushed in the cycle of the last [`Timing::apply`].
    pushed: Option<u32>,
    /// Stage M is empty or moves on at the end of the cycle [`Timing::ready`] was last called
    /// for: where an event taken in it goes.
    m_free: bool,
}

impl Timing {
    /// Cycles without progress the bench allows now: [`HANG_LIMIT`] plus the catch-up the
    /// model predicts for the oldest event in flight (checked against
    /// `Params::catch_up_bound` when the event is taken). Rt climbing to a 1 Tb/s cap by
    /// 1 Mb/s per period is a million cycles: slow, within the bound, and checked to the cycle
    /// by [`Timing::apply`].
    pub(crate) fn hang_limit(&self) -> u64 {
        HANG_LIMIT
            + self
                .pending
                .iter()
                .take(2)
                .map(|e| u64::from(e.out.cycles))
                .sum::<u64>()
    }

    /// The event X2 applies (pushes into the response FIFO) in `cycle`, if any; moves stage
    /// X's event on (its first X1 cycle, its apply formed). Call once per cycle before the
    /// FIFO pops of that cycle.
    pub(crate) fn apply(&mut self, cycle: u64, flows: u32) -> Option<Expect> {
        self.pushed = None;
        let mut out = None;
        if self.pending.front().is_some_and(|e| e.stage == Stage::P)
            && cycle > self.p_issue
            && self.fifo.len() < 2
        {
            let e = self.pending.pop_front().expect("checked");
            self.pushed = Some(e.out.rsp.flow % flows);
            out = Some(e);
        }
        let p_waits = self.pending.iter().any(|e| e.stage == Stage::P);
        if let Some(e) = self.pending.iter_mut().find(|e| e.stage == Stage::X) {
            if self.x_start.is_none() && !p_waits {
                self.x_start = Some(cycle);
            }
            if let Some(start) = self.x_start {
                if cycle + 2 == start + u64::from(e.out.cycles) {
                    e.stage = Stage::P;
                    self.p_issue = cycle;
                    self.x_start = None;
                }
            }
        }
        out
    }

    /// Whether the engine (running, no clear pending) takes an event in `cycle`: its input
    /// skid is empty. Moves the events in flight to where they are at the end of the cycle;
    /// call once per cycle, after [`Timing::apply`] and before [`Timing::take`].
    pub(crate) fn ready(&mut self, _cycle: u64, flows: u32) -> bool {
        let ready = !self.pending.iter().any(|e| e.stage == Stage::Skid);
        // Stage R's event enters stage X when X is free and no earlier event of its flow is
        // still to write; each stage before it moves into the next when that one is empty or
        // moves.
        let x_busy = self.pending.iter().any(|e| e.stage == Stage::X);
        let writing: Vec<u32> = self
            .pending
            .iter()
            .filter(|e| e.stage == Stage::P)
            .map(|e| e.out.rsp.flow % flows)
            .chain(self.pushed)
            .collect();
        let mut free = true;
        for (at, to) in [
            (Stage::R, Stage::X),
            (Stage::M, Stage::R),
            (Stage::Skid, Stage::M),
        ] {
            let mut stays = false;
            for e in self.pending.iter_mut().filter(|e| e.stage == at) {
                let go = if at == Stage::R {
                    !x_busy && !writing.contains(&(e.out.rsp.flow % flows))
                } else {
                    free
                };
                if go {
                    e.stage = to;
                } else {
                    stays = true;
                }
            }
            free = !stays;
            if at == Stage::M {
                self.m_free = free;
            }
        }
        ready
    }

    /// An event taken in the cycle of the last [`Timing::ready`]: to stage M, or to the skid
    /// while stage M cannot take it.
    pub(crate) fn take(&mut self, mut e: Expect) {
        e.stage = if self.m_free { Stage::M } else { Stage::Skid };
        self.pending.push_back(e);
    }
}

struct Ports {
    params: Vec<RawPort>,
    clear: RawPort,
    evt_valid: RawPort,
    evt_ready: RawPort,
    evt_kind: RawPort,
    evt_flow: RawPort,
    evt_bytes: RawPort,
    rsp_valid: RawPort,
    rsp_ready: RawPort,
    rsp: [RawPort; 10],
    stats: [RawPort; 4],
    busy: RawPort,
}

pub struct Bench<M: Model> {
    ports: Ports,
    pub model: Engine,
    pre: Prescaler,
    cycle: u64,
    /// Cycles run over the life of the bench.
    pub total_cycles: u64,
    /// Events accepted over the life of the bench.
    pub total_events: u64,
    /// The responses of the last case, as the RTL gave them (equal to the model's).
    pub responses: Vec<Response>,
    /// What the model says each event of the last case cost in stage X, in taking order.
    pub outcomes: Vec<Outcome>,
    /// The cycle each event of the last case was taken in, and each response taken in.
    pub accepted_at: Vec<u64>,
    pub taken_at: Vec<u64>,
    // Last: the ports above point into it.
    dut: M,
}

pub(crate) fn rd(p: &RawPort) -> u64 {
    let mut w = [0u32; 2];
    // SAFETY: the bench owns the model the port points into.
    unsafe { p.get() }.read(&mut w);
    u64::from(w[0]) | u64::from(w[1]) << 32
}

pub(crate) fn wr(p: &RawPort, v: u64) {
    // SAFETY: as above.
    unsafe { p.get() }.write(&[v as u32, (v >> 32) as u32]);
}

impl<M: Model> Bench<M> {
    pub fn flows() -> u32 {
        1 << M::param("FLOW_BITS").unwrap_or(10)
    }

    pub fn new() -> Result<Self, String> {
        let dut = M::create();
        let get = |name: &str| -> Result<RawPort, String> {
            let p = dut
                .port(name)
                .ok_or_else(|| format!("{}: the RTL has no port `{name}`", M::VARIANT))?;
            // SAFETY: the bench owns `dut` and drops the ports with it.
            Ok(unsafe { p.detach() })
        };
        let params = fields(&Params::default())
            .iter()
            .map(|(f, _)| get(&param_port(f)))
            .collect::<Result<Vec<_>, _>>()?;
        let rsp = [
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
        .map(get);
        let stats = [
            "rp_cnps_count_incr_o",
            "rp_rate_cuts_count_incr_o",
            "np_cnps_sent_count_incr_o",
            "shaper_deferrals_count_incr_o",
        ]
        .map(get);
        let ports = Ports {
            params,
            clear: get("ctrl_flow_clear_i")?,
            evt_valid: get("s_evt_valid")?,
            evt_ready: get("s_evt_ready")?,
            evt_kind: get("s_evt_kind")?,
            evt_flow: get("s_evt_flow")?,
            evt_bytes: get("s_evt_bytes")?,
            rsp_valid: get("m_rsp_valid")?,
            rsp_ready: get("m_rsp_ready")?,
            rsp: rsp
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?
                .try_into()
                .map_err(|_| "ports")?,
            stats: stats
                .into_iter()
                .collect::<Result<Vec<_>, _>>()?
                .try_into()
                .map_err(|_| "ports")?,
            busy: get("status_clear_busy_o")?,
        };
        Ok(Bench {
            ports,
            model: Engine::new(Self::flows() as usize),
            pre: Prescaler::default(),
            cycle: 0,
            total_cycles: 0,
            total_events: 0,
            responses: Vec::new(),
            outcomes: Vec::new(),
            accepted_at: Vec::new(),
            taken_at: Vec::new(),
            dut,
        })
    }

    pub fn dut_mut(&mut self) -> &mut M {
        &mut self.dut
    }

    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    fn drive_params(&self, p: &Params) {
        for (port, (_, v)) in self.ports.params.iter().zip(fields(p)) {
            wr(port, u64::from(v));
        }
    }

    fn response(&self) -> Response {
        let v: Vec<u64> = self.ports.rsp.iter().map(rd).collect();
        Response {
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
        }
    }

    /// Runs one case from reset. Returns the model's statistics totals.
    pub fn run(&mut self, case: &Case) -> Result<Stats, Failure> {
        self.dut.reset(2);
        self.model.clear();
        self.pre = Prescaler::default();
        self.cycle = 0;
        self.responses.clear();
        self.outcomes.clear();
        self.accepted_at.clear();
        self.taken_at.clear();
        let mut params = case.params.clone();
        // Computed once per parameter set: the alpha decay count is a loop of up to ~17,000.
        let mut bound = params.catch_up_bound();
        let mut evt_idle = Stall::new(split_seed(case.seed, 1), case.evt);
        let mut rsp_stall = Stall::new(split_seed(case.seed, 2), case.rsp);
        let mut ops: VecDeque<Op> = case.ops.iter().cloned().collect();
        let mut timing = Timing::default();
        let flows = Self::flows();
        let mut want_stats = Stats::default();
        let mut got_stats = Stats::default();
        let mut idle_left: Option<u32> = None;
        let mut last_progress = 0u64;
        let mut drain = 3u32;
        loop {
            // Inputs.
            self.drive_params(&params);
            wr(&self.ports.clear, 0);
            wr(&self.ports.evt_valid, 0);
            let mut offered: Option<(Kind, u32, u32)> = None;
            let quiet = timing.pending.is_empty() && timing.fifo.is_empty();
            match ops.front().cloned() {
                Some(Op::Event { kind, flow, bytes }) => {
                    if !evt_idle.hold() {
                        offered = Some((kind, flow, bytes));
                        wr(&self.ports.evt_valid, 1);
                        wr(&self.ports.evt_kind, kind as u64);
                        wr(&self.ports.evt_flow, u64::from(flow));
                        wr(&self.ports.evt_bytes, u64::from(bytes));
                    }
                }
                // A quiet idle longer than the hang limit (the 2**31 us idle of
                // `idle_past_2_pow_31_us_*`): nothing is in flight, so the only thing to check
                // per cycle is that nothing comes out; run the clock without the bench's
                // per-cycle bookkeeping (and without counting it as a hang).
                Some(Op::Idle(n)) if quiet && u64::from(idle_left.unwrap_or(n)) > HANG_LIMIT => {
                    let left = idle_left.take().unwrap_or(n);
                    wr(&self.ports.rsp_ready, 1);
                    for _ in 0..left {
                        self.dut.eval();
                        if rd(&self.ports.rsp_valid) != 0 {
                            return self.fail("a response in a quiet idle".into());
                        }
                        self.dut.tick();
                        self.pre.tick(params.clk_per_us);
                        self.cycle += 1;
                        self.total_cycles += 1;
                    }
                    last_progress = self.cycle;
                    ops.pop_front();
                }
                Some(Op::Idle(n)) => {
                    let left = idle_left.get_or_insert(n);
                    if *left == 0 {
                        idle_left = None;
                        ops.pop_front();
                    } else {
                        *left -= 1;
                    }
                }
                Some(Op::Params(p)) if quiet => {
                    params = p;
                    bound = params.catch_up_bound();
                    self.drive_params(&params);
                    ops.pop_front();
                    last_progress = self.cycle;
                }
                Some(Op::Clear) if quiet => {
                    wr(&self.ports.clear, 1);
                    self.model.clear();
                    ops.pop_front();
                    last_progress = self.cycle;
                }
                Some(_) => {}
                None => {
                    if quiet {
                        if drain == 0 {
                            break;
                        }
                        drain -= 1;
                    }
                }
            }
            let ready = !rsp_stall.hold();
            wr(&self.ports.rsp_ready, u64::from(ready));
            self.dut.eval();
            let applied = timing.apply(self.cycle, flows);
            let engine_ready = timing.ready(self.cycle, flows);
            // Handshakes.
            if let Some((kind, flow, bytes)) = offered {
                if rd(&self.ports.evt_ready) != 0 {
                    let out = self
                        .model
                        .event(&params, kind, flow, bytes, self.pre.now_us);
                    want_stats += out.stats;
                    if u64::from(out.cycles) > bound {
                        return self.fail(format!(
                            "the model predicts {} stage X cycles for {kind:?} on flow {flow}, above the parameters' catch-up bound {}",
                            out.cycles,
                            bound
                        ));
                    }
                    self.outcomes.push(out);
                    self.accepted_at.push(self.cycle);
                    if !engine_ready {
                        return self.fail("s_evt_ready with the input skid predicted full".into());
                    }
                    timing.take(Expect {
                        out,
                        accepted: self.cycle,
                        own: false,
                        stage: Stage::M,
                    });
                    ops.pop_front();
                    self.total_events += 1;
                    last_progress = self.cycle;
                }
            }
            let valid = rd(&self.ports.rsp_valid) != 0;
            if valid != !timing.fifo.is_empty() {
                let next = timing.pending.front().map(|e| {
                    format!(
                        "; oldest event pending taken at cycle {} ({} cycles in stage X: {} catch-up steps, {} skips)",
                        e.accepted, e.out.cycles, e.out.steps, e.out.skips
                    )
                });
                return self.fail(format!(
                    "m_rsp_valid is {}, the pipeline timing expects {} ({} responses predicted in the FIFO{})",
                    u8::from(valid),
                    u8::from(!valid),
                    timing.fifo.len(),
                    next.unwrap_or_default()
                ));
            }
            if valid && ready {
                let got = self.response();
                let want = timing.fifo.pop_front().expect("checked above").0;
                if got != want {
                    return self.fail(format!("response:\n  RTL   {got:?}\n  model {want:?}"));
                }
                if want.alpha > 1 << 24 {
                    return self.fail(format!("alpha {:#x} above 1.0", want.alpha));
                }
                self.responses.push(got);
                self.taken_at.push(self.cycle);
                last_progress = self.cycle;
            }
            if let Some(e) = applied {
                timing.fifo.push_back((e.out.rsp, false));
            }
            let s: Vec<u64> = self.ports.stats.iter().map(rd).collect();
            got_stats += Stats {
                rp_cnps: s[0],
                rate_cuts: s[1],
                np_cnps: s[2],
                deferrals: s[3],
            };
            if self.cycle - last_progress > timing.hang_limit() {
                return self.fail(format!(
                    "no progress for {} cycles ({} responses outstanding, clear busy {})",
                    timing.hang_limit(),
                    timing.pending.len() + timing.fifo.len(),
                    rd(&self.ports.busy)
                ));
            }
            self.dut.tick();
            self.pre.tick(params.clk_per_us);
            self.cycle += 1;
            self.total_cycles += 1;
        }
        if got_stats != want_stats {
            return self.fail(format!(
                "statistics pulses: RTL {got_stats:?}, model {want_stats:?}"
            ));
        }
        Ok(want_stats)
    }

    /// Runs `warm` (not measured), then `ops` back to back with no input idle and no response
    /// backpressure, and counts the cycles from the first event taken to the last response
    /// taken. Every response and its cycle are checked against the model as in [`Bench::run`].
    pub fn burst(&mut self, params: &Params, warm: &[Op], ops: &[Op]) -> Result<Burst, Failure> {
        let case = |ops: &[Op]| Case {
            seed: 0,
            params: params.clone(),
            evt: Default::default(),
            rsp: Default::default(),
            ops: ops.to_vec(),
        };
        // A parameter write waits until the pipeline is empty: the burst starts from there.
        let mut all = warm.to_vec();
        all.push(Op::Params(params.clone()));
        all.extend_from_slice(ops);
        self.run(&case(&all))?;
        let skip = self.outcomes.len() - ops.len();
        Ok(Burst::from_run(self, skip, ops))
    }
}

/// The cycle count of one measured burst and what the pipeline's cost model predicts for it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Burst {
    pub events: u64,
    /// Cycles from the first measured event taken to the last response taken.
    pub cycles: u64,
    /// Stage X cycles beyond one per event (two per unfolded catch-up step or skip jump), from
    /// the model.
    pub catch_up: u64,
    /// Cycles events wait for an earlier event of their flow to write (stage R takes the
    /// write the cycle after X2 applies it: the next event of a flow enters X1 three cycles
    /// after the apply's X1, and an event two behind one cycle later than otherwise when the
    /// one between has a single pass).
    pub holds: u64,
    pub steps: u64,
    pub skips: u64,
    pub folded: u64,
}

impl Burst {
    fn from_run<M: Model>(b: &Bench<M>, skip: usize, ops: &[Op]) -> Burst {
        let mut r = Burst::default();
        let flows: Vec<u32> = ops
            .iter()
            .filter_map(|op| match op {
                Op::Event { flow, .. } => Some(*flow),
                _ => None,
            })
            .collect();
        // With the input saturated, an event's first X1 cycle is the one after its
        // predecessor's apply was formed (issue), unless an earlier event of its flow writes
        // later than two cycles before (its apply's X2 is the cycle after its issue).
        let mut issue: Option<u64> = None;
        let mut written: HashMap<u32, u64> = HashMap::new();
        for (o, &flow) in b.outcomes[skip..].iter().zip(&flows) {
            r.events += 1;
            r.catch_up += u64::from(o.cycles - 2);
            r.steps += u64::from(o.steps);
            r.skips += u64::from(o.skips);
            r.folded += u64::from(o.folded);
            let free = issue.map_or(0, |i| i + 1);
            let start = written.get(&flow).map_or(free, |&w| free.max(w + 2));
            r.holds += start - free;
            let i = start + u64::from(o.cycles) - 2;
            written.insert(flow, i + 1);
            issue = Some(i);
        }
        r.cycles = b.taken_at.last().map_or(0, |&t| t + 1) - b.accepted_at[skip];
        r
    }

    /// The pipeline's cost model: one cycle per event, plus the catch-up cycles, plus the
    /// same-flow holds, plus 5 cycles to fill (take, read, register, X2, and the response
    /// register).
    pub fn predicted(&self) -> u64 {
        self.events + self.catch_up + self.holds + 5
    }

    pub fn rate(&self) -> f64 {
        self.events as f64 / self.cycles as f64
    }
}

/// Where failing cases and their waveforms go: `target/tb-failures/`.
pub fn failure_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tb-failures");
    let _ = std::fs::create_dir_all(&root);
    root.canonicalize().unwrap_or(root)
}

fn trace<M: Model>(case: &Case, fst: &Path) -> Result<Stats, Failure> {
    let mut b = Bench::<M>::new().map_err(|message| Failure { cycle: 0, message })?;
    if let Err(e) = b.dut.trace_open(fst) {
        eprintln!("warning: {e}");
    }
    let r = b.run(case);
    b.dut.trace_close();
    r
}

fn report<M: Model>(test: &str, case: &Case, why: &str) -> ! {
    let dir = failure_dir();
    let case_path = dir.join(format!("{}.case", M::VARIANT));
    let fst = dir.join(format!("{}.fst", M::VARIANT));
    let text = case.to_text(M::VARIANT);
    let _ = std::fs::write(&case_path, &text);
    let traced = trace::<M>(case, &fst);
    panic!(
        "{variant}: {why}\n\nminimal case ({n} ops), saved to {case}:\n{text}\nreplayed with a waveform: {replay}\n  waveform: {fst}\n  rerun:    RDMAGEN_CASE={case} cargo test -p rdmagen-dcqcn-tests --test dcqcn_props -- --exact {test}\n",
        variant = M::VARIANT,
        n = case.ops.len(),
        case = case_path.display(),
        replay = match traced {
            Ok(_) => "passed (the failure depends on state before reset?)".to_string(),
            Err(f) => format!("fails again at {f}"),
        },
        fst = fst.display(),
    );
}

/// Runs a saved case (a committed regression or a `RDMAGEN_CASE` file).
pub fn replay<M: Model>(test: &str, text: &str) {
    let (variant, case) = Case::parse(text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        variant,
        M::VARIANT,
        "the case was recorded on another variant"
    );
    let mut b = Bench::<M>::new().unwrap_or_else(|e| panic!("{e}"));
    if let Err(f) = b.run(&case) {
        report::<M>(test, &case, &f.to_string());
    }
}

/// The property test of one variant: `cases` random cases on one reused model.
///
/// With `RDMAGEN_CASE=path` set, runs only that saved case instead.
pub fn check<M: Model>(test: &str, cases: u32) {
    if let Ok(path) = std::env::var("RDMAGEN_CASE") {
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
        return replay::<M>(test, &text);
    }
    let bench = Bench::<M>::new().unwrap_or_else(|e| panic!("{e}"));
    let flows = Bench::<M>::flows();
    let bench = RefCell::new(bench);
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
        max_shrink_iters: 2048,
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let result = runner.run(&strategy(flows, 60), |case| {
        bench
            .borrow_mut()
            .run(&case)
            .map(|_| ())
            .map_err(|f| TestCaseError::fail(f.to_string()))
    });
    match result {
        Ok(()) => {
            let b = bench.borrow();
            eprintln!(
                "{}: {cases} cases, {} events, {} cycles",
                M::VARIANT,
                b.total_events,
                b.total_cycles
            );
        }
        Err(TestError::Fail(why, case)) => report::<M>(test, &case, &why.to_string()),
        Err(TestError::Abort(why)) => panic!("{}: proptest aborted: {why}", M::VARIANT),
    }
}
