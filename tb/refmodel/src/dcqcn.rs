//! Reference model of the DCQCN reaction-point engine (`dcqcn_rp`, from `rdmagen-dcqcn`).
//!
//! [`Engine`] is bit-exact with the RTL: the same fixed-point formats, the same lazy timer
//! catch-up (one due period per step, earliest deadline first, alpha before cut before
//! increase), the same skip over periods that change nothing, the same folding of one alpha
//! period and one idle cut check into the apply cycle, and it counts the cycles each event
//! spends in the RTL's compute stage (docs/dcqcn.md gives the pipeline around it). [`Eager`] fires every period of every flow at its microsecond,
//! as a simulator with one timer per flow would; tests check that both give the same state.
//!
//! Formats: Rc and Rt in Mb/s with 8 fractional bits; alpha with 24 fractional bits (1.0 =
//! `1 << 24`); tokens in bits with 8 fractional bits; time in microseconds (u32, wrapping).

/// Engine parameters: the dcqcn map's CSR fields, in the map's units.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Params {
    /// `mode.algorithm`: PAPER (Zhu et al. 2015) instead of mlx5. Change it only with a flow
    /// clear: the cut timer does not run in PAPER mode.
    pub paper: bool,
    pub rp_enable: bool,
    pub np_enable: bool,
    pub clk_per_us: u32,
    pub line_rate: u32,
    pub shaper_burst: u32,
    pub rpg_time_reset: u32,
    /// Bytes granted between byte-counter increase events; 0 disables the byte counter.
    pub rpg_byte_reset: u32,
    pub rpg_threshold: u32,
    pub rpg_max_rate: u32,
    pub rpg_ai_rate: u32,
    pub rpg_hai_rate: u32,
    pub rpg_gd: u32,
    pub rpg_min_dec_fac: u32,
    pub rpg_min_rate: u32,
    pub rate_to_set_on_first_cnp: u32,
    pub dce_tcp_g: u32,
    pub dce_tcp_rtt: u32,
    pub rate_reduce_monitor_period: u32,
    pub initial_alpha_value: u32,
    pub clamp_tgt_rate: bool,
    pub clamp_tgt_rate_after_time_inc: bool,
    pub min_time_between_cnps: u32,
}

impl Default for Params {
    /// The map's reset values: the mlx5 defaults (FACTS §5), 250 MHz, 100 Gb/s.
    fn default() -> Self {
        Params {
            paper: false,
            rp_enable: true,
            np_enable: true,
            clk_per_us: 250,
            line_rate: 100_000,
            shaper_burst: 16384,
            rpg_time_reset: 300,
            rpg_byte_reset: 32767,
            rpg_threshold: 1,
            rpg_max_rate: 0,
            rpg_ai_rate: 5,
            rpg_hai_rate: 50,
            rpg_gd: 11,
            rpg_min_dec_fac: 50,
            rpg_min_rate: 1,
            rate_to_set_on_first_cnp: 0,
            dce_tcp_g: 1019,
            dce_tcp_rtt: 1,
            rate_reduce_monitor_period: 4,
            initial_alpha_value: 1023,
            clamp_tgt_rate: false,
            clamp_tgt_rate_after_time_inc: true,
            min_time_between_cnps: 4,
        }
    }
}

impl Params {
    /// Every field masked to its CSR width, as the RTL sees it.
    pub fn masked(&self) -> Params {
        let m = |v: u32, w: u32| v & ((1u32 << w) - 1);
        Params {
            clk_per_us: m(self.clk_per_us, 12),
            line_rate: m(self.line_rate, 20),
            shaper_burst: m(self.shaper_burst, 24),
            rpg_time_reset: m(self.rpg_time_reset, 17),
            rpg_byte_reset: m(self.rpg_byte_reset, 24),
            rpg_threshold: m(self.rpg_threshold, 5),
            rpg_max_rate: m(self.rpg_max_rate, 20),
            rpg_ai_rate: m(self.rpg_ai_rate, 20),
            rpg_hai_rate: m(self.rpg_hai_rate, 20),
            rpg_gd: m(self.rpg_gd, 4),
            rpg_min_dec_fac: m(self.rpg_min_dec_fac, 7),
            rpg_min_rate: m(self.rpg_min_rate, 20),
            rate_to_set_on_first_cnp: m(self.rate_to_set_on_first_cnp, 20),
            dce_tcp_g: m(self.dce_tcp_g, 10),
            dce_tcp_rtt: m(self.dce_tcp_rtt, 17),
            rate_reduce_monitor_period: m(self.rate_reduce_monitor_period, 17),
            initial_alpha_value: m(self.initial_alpha_value, 10),
            min_time_between_cnps: m(self.min_time_between_cnps, 16),
            ..self.clone()
        }
    }
    /// The rate cap in fixed point: `rpg_max_rate`, or the line rate when it is 0 or above
    /// the line rate (SPEC §6: the rate stays within the line rate).
    pub fn rmax_fx(&self) -> u32 {
        let r = if self.rpg_max_rate != 0 && self.rpg_max_rate < self.line_rate {
            self.rpg_max_rate
        } else {
            self.line_rate
        };
        r << 8
    }
    pub fn min_fx(&self) -> u32 {
        self.rpg_min_rate << 8
    }
    fn period(v: u32) -> u32 {
        v.max(1)
    }

    /// Stage X cycles one event can take however long its flow idled (`docs/dcqcn.md`, lazy
    /// timer catch-up): the state-changing periods a touch can find due — alpha decaying from
    /// its largest value to 0, Rt climbing to the cap by the smallest step that moves it
    /// (`rpg_ai_rate` or `rpg_hai_rate`), the stage changes up to F and Rc halving its way to
    /// Rt (F + 32 each way), the pending cut — one cycle each and at most one more each (a
    /// cut, or a PAPER CNP's next action, right after a step waits a cycle for the cut's
    /// registered rank), plus three skip phases and the apply cycle.
    pub fn catch_up_bound(&self) -> u64 {
        let p = self.masked();
        let mut alpha = 0x1ff_ffffu64;
        let mut alpha_steps = 0;
        while alpha != 0 {
            alpha = (alpha * u64::from(p.dce_tcp_g)) >> 10;
            alpha_steps += 1;
        }
        let climb: u64 = [p.rpg_ai_rate, p.rpg_hai_rate]
            .iter()
            .filter(|&&step| step != 0)
            .map(|&step| u64::from(p.rmax_fx()) / (u64::from(step) << 8) + 1)
            .sum();
        let steps = alpha_steps + climb + 2 * (u64::from(p.rpg_threshold) + 32) + 2;
        2 * (steps + 3 + 1) + 3 * 32
    }
    fn first_rate(&self) -> u32 {
        let first = self.rate_to_set_on_first_cnp << 8;
        if first == 0 {
            self.rmax_fx()
        } else {
            first.max(self.min_fx()).min(self.rmax_fx())
        }
    }
}

/// Event kinds (`s_evt_kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Cnp = 0,
    Tx = 1,
    Ce = 2,
    Read = 3,
}

impl Kind {
    pub fn from_bits(v: u32) -> Kind {
        match v & 3 {
            0 => Kind::Cnp,
            1 => Kind::Tx,
            2 => Kind::Ce,
            _ => Kind::Read,
        }
    }
}

/// One flow's state word. The all-zero word is a flow that has seen no CNP.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Flow {
    pub seen: bool,
    pub acnp: bool,
    pub dcnp: bool,
    pub incon: bool,
    pub tokv: bool,
    pub npv: bool,
    pub alpha: u32,
    pub rc: u32,
    pub rt: u32,
    pub tc: u32,
    /// Byte-counter increase events since the last cut (saturating at 0xFFFF).
    pub bc: u32,
    /// Bytes granted since the last byte-counter event or cut (below `rpg_byte_reset`).
    pub bacc: u32,
    pub a_next: u32,
    pub d_next: u32,
    pub i_next: u32,
    pub tokens: u64,
    pub tok_us: u32,
    pub np_last: u32,
}

/// The answer to one event, as on the response channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Response {
    pub kind: u32,
    pub flow: u32,
    /// Send granted (Tx) or CNP to send (Ce).
    pub flag: bool,
    pub seen: bool,
    pub rc: u32,
    pub rt: u32,
    pub alpha: u32,
    pub timer_count: u32,
    pub time_us: u32,
    /// Byte-counter increase events since the last cut (`m_rsp_byte_count`).
    pub byte_count: u32,
}

/// Statistics pulses one event produced.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub rp_cnps: u64,
    pub rate_cuts: u64,
    pub np_cnps: u64,
    pub deferrals: u64,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, o: Stats) {
        self.rp_cnps += o.rp_cnps;
        self.rate_cuts += o.rate_cuts;
        self.np_cnps += o.np_cnps;
        self.deferrals += o.deferrals;
    }
}

/// The furthest an active deadline can lie ahead of now: every period is a 17-bit field, and
/// a deadline is set or advanced at most one period past the time of the touch.
pub const MAX_AHEAD_US: u32 = (1 << 17) - 1;

/// Whether a deadline is reached. A deadline "ahead" by more than any period can be is in the
/// past: the flow idled 2^31 µs or more (read as a signed distance, such deadlines looked ahead
/// and every timer of the flow stood still until the clock wrapped past them). Exact while a
/// flow idles less than 2^32 − 2^17 µs (71 minutes); beyond that the idle time is seen
/// modulo 2^32 µs.
fn due(now: u32, next: u32) -> bool {
    next.wrapping_sub(now).wrapping_sub(1) >= MAX_AHEAD_US
}
/// Of two due deadlines, whether `a` is not later than `b`: the larger elapsed time.
fn not_later(now: u32, a: u32, b: u32) -> bool {
    now.wrapping_sub(a) >= now.wrapping_sub(b)
}

/// alpha = G·alpha/1024, plus (1024 − G)/1024 when a CNP counts.
fn alpha_next(p: &Params, alpha: u32, cnp: bool) -> u32 {
    let prod = u64::from(p.dce_tcp_g) * u64::from(alpha);
    let gain = if cnp { (1024 - p.dce_tcp_g) << 14 } else { 0 };
    ((prod >> 10) as u32 + gain) & 0x1ff_ffff
}

/// One alpha period.
pub fn alpha_step(p: &Params, f: &mut Flow) {
    f.alpha = alpha_next(p, f.alpha, f.acnp);
    f.acnp = false;
    f.a_next = f.a_next.wrapping_add(Params::period(p.dce_tcp_rtt));
}

/// Rc after a cut of `rc` by `alpha` (never above `rc`). PAPER mode ignores
/// `rpg_min_dec_fac`.
pub fn cut_rate(p: &Params, rc: u32, alpha: u32) -> u32 {
    let prod = u64::from(rc) * u64::from(alpha);
    let amount = prod >> (p.rpg_gd + 14);
    let cut = if amount > u64::from(rc) {
        0
    } else {
        rc - amount as u32
    };
    let keep = if p.paper {
        0
    } else {
        ((u64::from(rc) * u64::from(p.rpg_min_dec_fac) * 655) >> 16) as u32
    };
    let v = cut.max(keep).max(p.min_fx());
    v.min(rc)
}

/// One cut-check period. Returns whether it cut.
pub fn cut_step(p: &Params, f: &mut Flow) -> bool {
    let at = f.d_next;
    f.d_next = at.wrapping_add(Params::period(p.rate_reduce_monitor_period));
    if !f.dcnp {
        return false;
    }
    let clamp = p.clamp_tgt_rate || (p.clamp_tgt_rate_after_time_inc && f.tc != 0);
    let new = cut_rate(p, f.rc, f.alpha);
    if clamp {
        f.rt = f.rc;
    }
    f.rc = new;
    f.tc = 0;
    f.bc = 0;
    f.bacc = 0;
    f.incon = true;
    f.i_next = at.wrapping_add(Params::period(p.rpg_time_reset));
    f.dcnp = false;
    true
}

/// The stage counts (larger, smaller) of the timer and byte counts; the byte count only
/// while the byte counter is enabled.
fn counts(p: &Params, f: &Flow) -> (u32, u32) {
    if p.rpg_byte_reset != 0 {
        (f.tc.max(f.bc), f.tc.min(f.bc))
    } else {
        (f.tc, f.tc)
    }
}

/// Rt after an increase event in the flow's current stage (FACTS §5): both counts below F
/// fast recovery (Rt holds), both above F hyper, else additive (`rpg_ai_rate`). The hyper step
/// is `rpg_hai_rate` in mlx5 mode (the HPCC ns-3 model), i × `rpg_hai_rate` with i = smaller
/// count − F in PAPER mode. Without the byte counter both counts are the timer count.
fn rt_after(p: &Params, f: &Flow) -> u32 {
    let rt = f.rt;
    let cap = |step: u64| (u64::from(rt) + (step << 8)).min(u64::from(p.rmax_fx())) as u32;
    let thr = p.rpg_threshold;
    let (hi, lo) = counts(p, f);
    if hi < thr {
        rt
    } else if lo > thr {
        if p.paper {
            cap(u64::from(lo - thr) * u64::from(p.rpg_hai_rate))
        } else {
            cap(u64::from(p.rpg_hai_rate))
        }
    } else {
        cap(u64::from(p.rpg_ai_rate))
    }
}

/// Rt and Rc after an increase event (timer or byte counter).
fn raise(p: &Params, f: &mut Flow) {
    let rt = rt_after(p, f);
    f.rc = (f.rc + rt + 1) >> 1;
    f.rt = rt;
}

/// Whether every further increase period leaves Rc and Rt alone (only the timer count moves).
fn increase_still(p: &Params, f: &Flow) -> bool {
    let (_, lo) = counts(p, f);
    let thr = p.rpg_threshold;
    let flat = if p.paper {
        // While the flow idles only the timer count moves: with the byte counter on and the
        // byte count at or below F the smaller count never passes F, so only the additive
        // stage is left; otherwise the hyper stage comes (or is here).
        let lo_stays_low = p.rpg_byte_reset != 0 && f.bc <= thr;
        f.rt == p.rmax_fx()
            || ((p.rpg_ai_rate == 0 || lo > thr) && (p.rpg_hai_rate == 0 || lo_stays_low))
    } else if lo > thr {
        // Hyper for good (the counts only grow).
        rt_after(p, f) == f.rt
    } else {
        // Additive for good: the timer count is above F, so the byte count (on, at or below
        // F) is the smaller one, and it does not move while the flow idles. (The timer count,
        // not the larger one: after a cut both are 0, and only an increase step tells the RTL
        // where Rc stands against Rt.)
        f.tc > thr && rt_after(p, f) == f.rt
    };
    // (Rc + Rt + 1) / 2 is Rc at Rc = Rt and also at Rc = Rt + 1, where Rc settles when it
    // starts above Rt (Rt clamped by a lower rpg_max_rate).
    let rc_still = f.rc == f.rt || u64::from(f.rc) == u64::from(f.rt) + 1;
    !f.dcnp && rc_still && flat
}

/// One rate-increase period.
pub fn increase_step(p: &Params, f: &mut Flow) {
    raise(p, f);
    f.tc = (f.tc + 1).min(0xffff);
    f.i_next = f.i_next.wrapping_add(Params::period(p.rpg_time_reset));
}

/// Which period is due first at `now` (alpha, cut, increase), if any.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Due {
    Alpha,
    Cut,
    Increase,
}

fn first_due(p: &Params, f: &Flow, now: u32) -> Option<Due> {
    let a = f.seen && due(now, f.a_next);
    let d = f.seen && !p.paper && due(now, f.d_next);
    let i = f.seen && f.incon && due(now, f.i_next);
    let le = |x: u32, y: u32| not_later(now, x, y);
    if a && (!d || le(f.a_next, f.d_next)) && (!i || le(f.a_next, f.i_next)) {
        Some(Due::Alpha)
    } else if d && (!i || le(f.d_next, f.i_next)) {
        Some(Due::Cut)
    } else if i {
        Some(Due::Increase)
    } else {
        None
    }
}

/// Token accrual when a flow is touched at `now`, at the rate stored at its last touch.
///
/// Tokens arrive in one-microsecond quanta, so the bucket holds the burst plus one microsecond
/// of tokens at the rate: otherwise a burst smaller than a microsecond's worth (16 KB is 1.3 µs
/// at 100 Gb/s) would cap the throughput below the rate.
fn accrue(p: &Params, f: &mut Flow, touch_rc: u32, now: u32) {
    let rate = if f.seen && p.rp_enable {
        touch_rc
    } else {
        p.rmax_fx()
    };
    let cap = ((u64::from(p.shaper_burst) << 11) + u64::from(rate)).min((1 << 35) - 1);
    let span = now.wrapping_sub(f.tok_us).min(0xf_ffff);
    let sum = f.tokens + u64::from(rate) * u64::from(span);
    f.tokens = if !f.tokv || sum > cap { cap } else { sum };
    f.tokv = true;
    f.tok_us = now;
}

/// Applies the event itself (after catch-up) and builds the response.
fn apply(
    p: &Params,
    f: &mut Flow,
    kind: Kind,
    flow: u32,
    bytes: u32,
    now: u32,
) -> (Response, Stats) {
    let mut st = Stats::default();
    let mut flag = false;
    match kind {
        Kind::Cnp => {
            if p.rp_enable && p.paper {
                // PAPER: every CNP cuts now (the first one from the cap, with the initial
                // alpha), Rt = Rc, then alpha takes the CNP's gain and its timer restarts.
                st.rp_cnps = 1;
                st.rate_cuts = 1;
                if !f.seen {
                    f.seen = true;
                    f.alpha = p.initial_alpha_value << 14;
                    f.rc = p.rmax_fx();
                    f.d_next = now.wrapping_add(Params::period(p.rate_reduce_monitor_period));
                }
                f.rt = f.rc;
                f.rc = cut_rate(p, f.rc, f.alpha);
                f.alpha = alpha_next(p, f.alpha, true);
                f.acnp = false;
                f.dcnp = false;
                f.a_next = now.wrapping_add(Params::period(p.dce_tcp_rtt));
                f.tc = 0;
                f.bc = 0;
                f.bacc = 0;
                f.incon = true;
                f.i_next = now.wrapping_add(Params::period(p.rpg_time_reset));
            } else if p.rp_enable {
                st.rp_cnps = 1;
                if f.seen {
                    f.acnp = true;
                    f.dcnp = true;
                } else {
                    f.seen = true;
                    f.alpha = p.initial_alpha_value << 14;
                    f.rc = p.first_rate();
                    f.rt = f.rc;
                    f.acnp = false;
                    f.dcnp = p.rate_to_set_on_first_cnp == 0;
                    f.incon = false;
                    f.tc = 0;
                    f.bc = 0;
                    f.bacc = 0;
                    f.a_next = now.wrapping_add(Params::period(p.dce_tcp_rtt));
                    f.d_next = now.wrapping_add(Params::period(p.rate_reduce_monitor_period));
                }
            }
        }
        Kind::Tx => {
            let need = u64::from(bytes & 0xffff) << 11;
            if f.tokens >= need {
                f.tokens -= need;
                flag = true;
                // The byte counter counts granted bytes while the rate recovers from a cut.
                if f.seen && f.incon && p.rpg_byte_reset != 0 {
                    let sum = f.bacc + (bytes & 0xffff);
                    if sum >= p.rpg_byte_reset {
                        raise(p, f);
                        f.bc = (f.bc + 1).min(0xffff);
                        f.bacc = 0;
                    } else {
                        f.bacc = sum;
                    }
                }
            } else {
                st.deferrals = 1;
            }
        }
        Kind::Ce => {
            let gap = now.wrapping_sub(f.np_last);
            if p.np_enable && (!f.npv || gap >= p.min_time_between_cnps) {
                f.npv = true;
                f.np_last = now;
                flag = true;
                st.np_cnps = 1;
            }
        }
        Kind::Read => {}
    }
    let rsp = Response {
        kind: kind as u32,
        flow,
        flag,
        seen: f.seen,
        rc: if f.seen { f.rc } else { p.rmax_fx() },
        rt: if f.seen { f.rt } else { p.rmax_fx() },
        alpha: f.alpha,
        timer_count: f.tc,
        time_us: now,
        byte_count: f.bc,
    };
    (rsp, st)
}

/// What one event did in the lazy engine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub rsp: Response,
    pub stats: Stats,
    /// Cycles the event spends in the RTL's compute stage X (catch-up steps, skip phases, the
    /// waits for the cut's rank after a step, and the apply cycle): with an empty pipeline and
    /// no response backpressure the response is valid this many cycles after the cycle
    /// following acceptance plus one.
    pub cycles: u32,
    /// Timer periods applied one by one, a cycle each.
    pub steps: u32,
    /// Skip phases (33 cycles each, the first of which also steps the earliest due period).
    pub skips: u32,
    /// Periods folded into the apply cycle (at most one alpha period and one cut check with
    /// no CNP marked, when nothing else was due): they cost no cycle.
    pub folded: u32,
}

/// The lazy engine, bit-exact and cycle-exact with `dcqcn_rp`.
#[derive(Clone, Debug)]
pub struct Engine {
    pub flows: Vec<Flow>,
}

impl Engine {
    pub fn new(flows: usize) -> Engine {
        Engine {
            flows: vec![Flow::default(); flows],
        }
    }
    /// Every flow back to the all-zero word (`ctrl.flow_clear`).
    pub fn clear(&mut self) {
        self.flows.fill(Flow::default());
    }

    /// Processes one event taken at microsecond `now`.
    pub fn event(&mut self, p: &Params, kind: Kind, flow: u32, bytes: u32, now: u32) -> Outcome {
        let p = &p.masked();
        let n = self.flows.len();
        let f = &mut self.flows[flow as usize % n];
        let rc = f.rc;
        accrue(p, f, rc, now);
        let (mut cycles, mut steps, mut skips, mut folded) = (0, 0, 0, 0);
        let mut stats = Stats::default();
        // Stage X takes two cycles per pass (a step, a skip phase's first step, the apply):
        // X1 forms every value from its registers into registers, X2 selects and acts; a skip
        // phase's 32 jumps take one cycle each. `cycles` counts passes here and is doubled on
        // return, `jumps` the jump cycles.
        let mut jumps = 0;
        loop {
            let el = |next: u32| now.wrapping_sub(next);
            let a_due = f.seen && due(now, f.a_next);
            let d_due = f.seen && !p.paper && due(now, f.d_next);
            let i_due = f.seen && f.incon && due(now, f.i_next);
            let k = Params::period(p.dce_tcp_rtt);
            let dp = Params::period(p.rate_reduce_monitor_period);
            let t = Params::period(p.rpg_time_reset);
            let a_skip = a_due && f.alpha == 0 && !f.acnp && el(f.a_next) >= k;
            let d_skip = d_due && !f.dcnp && el(f.d_next) >= dp;
            let i_still = increase_still(p, f);
            let i_skip = i_due && i_still && el(f.i_next) >= t;
            // The apply cycle folds in one alpha period and one cut check without a marked
            // CNP when nothing else is due (neither changes what the other or the event reads;
            // a PAPER CNP reads alpha for its cut, so it takes the alpha period separately).
            if !a_skip && !d_skip && !i_due && (a_due || d_due) {
                let a_once = !a_due || el(f.a_next) < k;
                let d_light = !d_due || (!f.dcnp && el(f.d_next) < dp);
                let paper_cnp = p.paper && kind == Kind::Cnp && p.rp_enable && a_due;
                if a_once && d_light && !paper_cnp {
                    if a_due {
                        alpha_step(p, f);
                        folded += 1;
                    }
                    if d_due {
                        cut_step(p, f);
                        folded += 1;
                    }
                    continue;
                }
            }
            cycles += 1;
            let next = first_due(p, f, now);
            // The earliest due period steps, also in a skip phase's first cycle: the skipped
            // timers' periods change nothing the step reads or writes (and the step leaves
            // them idle), so the jumps that follow are exact from the stepped state.
            match next {
                Some(Due::Alpha) => alpha_step(p, f),
                Some(Due::Cut) => {
                    if cut_step(p, f) {
                        stats.rate_cuts += 1;
                    }
                }
                Some(Due::Increase) => increase_step(p, f),
                None => {
                    let (rsp, st) = apply(p, f, kind, flow, bytes, now);
                    stats += st;
                    return Outcome {
                        rsp,
                        stats,
                        cycles: 2 * cycles + jumps,
                        steps,
                        skips,
                        folded,
                    };
                }
            }
            steps += 1;
            if a_skip || d_skip || i_skip {
                skips += 1;
                jumps += 32;
                for j in (0..32).rev() {
                    let jump = |per: u32| u64::from(per) << j;
                    if a_skip && jump(k) <= u64::from(el(f.a_next)) {
                        f.a_next = f.a_next.wrapping_add(jump(k) as u32);
                    }
                    if d_skip && jump(dp) <= u64::from(el(f.d_next)) {
                        f.d_next = f.d_next.wrapping_add(jump(dp) as u32);
                    }
                    if i_skip && jump(t) <= u64::from(el(f.i_next)) {
                        f.i_next = f.i_next.wrapping_add(jump(t) as u32);
                        f.tc = (u64::from(f.tc) + (1u64 << j)).min(0xffff) as u32;
                    }
                }
            }
        }
    }
}

/// The every-period-fires model: all flows' timers advance at every microsecond.
#[derive(Clone, Debug)]
pub struct Eager {
    pub flows: Vec<Flow>,
    /// Rc at each flow's last touch: the shaper's rate until the next touch.
    touch_rc: Vec<u32>,
    now: u32,
}

impl Eager {
    pub fn new(flows: usize) -> Eager {
        Eager {
            flows: vec![Flow::default(); flows],
            touch_rc: vec![0; flows],
            now: 0,
        }
    }
    /// Fires every period due in microseconds `self.now + 1 ..= now`, in time order.
    pub fn advance_to(&mut self, p: &Params, now: u32) {
        let p = &p.masked();
        while self.now != now {
            self.now = self.now.wrapping_add(1);
            let t = self.now;
            for f in &mut self.flows {
                if !f.seen {
                    continue;
                }
                if f.a_next == t {
                    alpha_step(p, f);
                }
                if !p.paper && f.d_next == t {
                    cut_step(p, f);
                }
                if f.incon && f.i_next == t {
                    increase_step(p, f);
                }
            }
        }
    }
    /// An event at the current time (after [`Eager::advance_to`]).
    pub fn event(&mut self, p: &Params, kind: Kind, flow: u32, bytes: u32) -> Response {
        let p = &p.masked();
        let n = self.flows.len();
        let i = flow as usize % n;
        let now = self.now;
        let f = &mut self.flows[i];
        accrue(p, f, self.touch_rc[i], now);
        debug_assert!(first_due(p, f, now).is_none(), "a period was not fired");
        let (rsp, _) = apply(p, f, kind, flow, bytes, now);
        self.touch_rc[i] = f.rc;
        rsp
    }
}

/// The microsecond prescaler: `tick` once per clock cycle.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Prescaler {
    pub count: u32,
    pub now_us: u32,
}

impl Prescaler {
    pub fn tick(&mut self, clk_per_us: u32) {
        let cpu = clk_per_us & 0xfff;
        if cpu != 0 && self.count + 1 >= cpu {
            self.count = 0;
            self.now_us = self.now_us.wrapping_add(1);
        } else if cpu != 0 {
            self.count = (self.count + 1) & 0xfff;
        }
    }
}

/// `rp_state.stage` values (the map's enum `rp_stage`).
pub const STAGE_FAST_RECOVERY: u32 = 0;
pub const STAGE_ADDITIVE: u32 = 1;
pub const STAGE_HYPER: u32 = 2;

/// The stage a flow's next increase event uses, from its timer and byte counts (both modes):
/// fast recovery while both are below F, hyper when both are above F, else additive.
pub fn stage(p: &Params, timer_count: u32, byte_count: u32) -> u32 {
    let p = &p.masked();
    let f = Flow {
        tc: timer_count,
        bc: byte_count,
        ..Flow::default()
    };
    let (hi, lo) = counts(p, &f);
    let thr = p.rpg_threshold;
    if hi < thr {
        STAGE_FAST_RECOVERY
    } else if lo > thr {
        STAGE_HYPER
    } else {
        STAGE_ADDITIVE
    }
}

/// The per-flow read-back window of `dcqcn_top` as software reads it: the register words of
/// `rp_rate`, `rp_target`, `rp_current`, `rp_timer`, `rp_state` and `rp_flow_sel.ready`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Window {
    pub ready: bool,
    pub rp_rate: u32,
    pub rp_target: u32,
    pub rp_current: u32,
    pub rp_timer: u32,
    pub rp_state: u32,
}

impl Window {
    /// The window loaded from a read-back's response: rates in Mb/s rounded down, alpha with
    /// 24 fractional bits, the counts, the stage (with the parameters at that moment) and
    /// `cnp_seen` in bit 31 of `rp_state`.
    pub fn of(p: &Params, r: &Response) -> Window {
        Window {
            ready: true,
            rp_rate: r.rc >> 8,
            rp_target: r.rt >> 8,
            rp_current: r.alpha,
            rp_timer: r.timer_count,
            rp_state: r.byte_count
                | stage(p, r.timer_count, r.byte_count) << 16
                | u32::from(r.seen) << 31,
        }
    }
    /// A flow at or beyond the engine's number of flows: zeros, ready.
    pub fn beyond() -> Window {
        Window {
            ready: true,
            ..Window::default()
        }
    }
    /// The `rp_flow_sel` word for the selected `flow`.
    pub fn flow_sel(&self, flow: u32) -> u32 {
        flow & 0xffff | u32::from(self.ready) << 31
    }
}

/// The window's control in `dcqcn_top`, cycle by cycle: a write of `rp_flow_sel` makes a
/// read-back pending (writes merge until it is taken) and drops `ready`; the pending read-back
/// takes the engine's input before `s_evt_*`; only the response of the newest selection's
/// read-back loads the window (older ones still in the engine are stale).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Selector {
    /// A read-back of the selected flow waits for the engine.
    pub pend: bool,
    /// The window's read-backs in the engine.
    pub out: u32,
    /// How many of them (the oldest) are for an older selection.
    pub stale: u32,
    pub window: Window,
}

impl Selector {
    /// Whether the window claims the engine's input this cycle (`room`: the engine holds fewer
    /// than six events).
    pub fn request(&self, in_range: bool, room: bool) -> bool {
        self.pend && in_range && room
    }

    /// The end of one cycle: `write` (rp_flow_sel written), `issued` (the engine took the
    /// window's read-back), `own` (the window's response taken this cycle).
    pub fn clock(
        &mut self,
        p: &Params,
        write: bool,
        issued: bool,
        in_range: bool,
        own: Option<&Response>,
    ) {
        let out = self.out + u32::from(issued) - u32::from(own.is_some());
        if write {
            self.pend = true;
            self.window.ready = false;
            self.stale = out;
        } else {
            let zero = self.pend && !in_range;
            if issued || zero {
                self.pend = false;
            }
            match own {
                Some(_) if self.stale > 0 => self.stale -= 1,
                Some(r) => self.window = Window::of(p, r),
                None => {}
            }
            if zero {
                self.window = Window::beyond();
            }
        }
        self.out = out;
    }
}
