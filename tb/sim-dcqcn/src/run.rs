//! Drives the Verilated `dcqcn_rp` with the events and the periodic read-backs, cycle by cycle.
//!
//! Time 0 is the first microsecond boundary after the state RAM clear that follows reset. An
//! event at `t_ns` is offered at cycle `t_ns · clock_mhz / 1000`; every `sample_us` µs each
//! flow named in the events is read back (event kind 3, after the events of that cycle). A
//! read-back advances the flow's timers exactly as if every period had fired (the lazy
//! catch-up is proven equal to firing every period), so sampling does not change the
//! trajectory. Every response is also checked against the reference model: a disagreement is a
//! bug, reported as an error.

use std::collections::{BTreeSet, VecDeque};

use rdmagen_dcqcn_tests::bench::param_port;
use rdmagen_dcqcn_tests::case::fields;
use rdmagen_harness::{Model, RawPort};
use rdmagen_refmodel::dcqcn::{Engine, Kind, Params, Prescaler, Response};

use crate::events::Event;

/// One row of `T.csv`: a read-back of one flow, in the RTL's fixed point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Row {
    /// Microseconds since time 0, from the response's time stamp.
    pub t_us: u32,
    pub flow: u32,
    /// Mb/s with 8 fractional bits.
    pub rc: u32,
    pub rt: u32,
    /// 24 fractional bits.
    pub alpha: u32,
}

pub const CSV_HEADER: &str = "t_us,flow,rc_mbps,rt_mbps,alpha";

impl Row {
    /// The CSV line. The values are printed exactly (a fixed-point value fits an f64).
    pub fn csv(&self) -> String {
        format!(
            "{},{},{},{},{}",
            self.t_us,
            self.flow,
            f64::from(self.rc) / 256.0,
            f64::from(self.rt) / 256.0,
            f64::from(self.alpha) / f64::from(1u32 << 24)
        )
    }
}

/// What a run produced.
#[derive(Clone, Debug, Default)]
pub struct Trace {
    pub rows: Vec<Row>,
    /// Events the engine took in a later microsecond than asked (it was busy).
    pub late_events: u32,
    /// Read-backs taken in a later microsecond than their sample time.
    pub late_samples: u32,
    pub cycles: u64,
}

struct Item {
    due: u64,
    kind: Kind,
    flow: u32,
    bytes: u32,
    /// The microsecond it is meant for.
    us: u64,
}

fn rd(p: &RawPort) -> u64 {
    let mut w = [0u32; 2];
    // SAFETY: the caller owns the model the port points into.
    unsafe { p.get() }.read(&mut w);
    u64::from(w[0]) | u64::from(w[1]) << 32
}

fn wr(p: &RawPort, v: u64) {
    // SAFETY: as above.
    unsafe { p.get() }.write(&[v as u32, (v >> 32) as u32]);
}

/// The most read-backs (samples × flows) one run schedules: each is a row of the output, and
/// the schedule is built before the run (`--until-us 100000000` at 1 µs was 10**8 of them,
/// gigabytes, before the first cycle).
pub const MAX_READS: u64 = 10_000_000;

/// Cycles without an event taken or a response, while one is offered or outstanding, before
/// the run is called hung.
const HANG_LIMIT: u64 = 2_000_000;

/// Runs `events` on a fresh `M` and reads back every flow they name every `sample_us` µs
/// from 0 to `until_us`.
pub fn simulate<M: Model>(
    params: &Params,
    events: &[Event],
    sample_us: u32,
    until_us: u32,
) -> Result<Trace, String> {
    let sample_us = u64::from(sample_us.max(1));
    let cpu = u64::from(params.clk_per_us);
    if cpu == 0 {
        return Err("clock_mhz must be at least 1".into());
    }
    // Build the schedule in cycles from time 0.
    let flows: BTreeSet<u32> = events.iter().map(|e| e.flow).collect();
    let samples = u64::from(until_us) / sample_us + 1;
    let reads = samples * flows.len() as u64;
    if reads > MAX_READS {
        return Err(format!(
            "{samples} samples × {} flow(s) = {reads} read-backs, more than {MAX_READS}: \
             raise --sample-us or lower --until-us",
            flows.len()
        ));
    }
    let mut items: Vec<(u64, u8, usize, Item)> = Vec::new();
    for (i, e) in events.iter().enumerate() {
        // At most 2**32 µs (the engine's time stamps), which keeps the product within 64 bits.
        if e.t_ns / 1000 > u64::from(u32::MAX) {
            return Err(format!("event {}: t_ns {} is past 2**32 µs", i + 1, e.t_ns));
        }
        let item = Item {
            due: e.t_ns * cpu / 1000,
            kind: e.kind,
            flow: e.flow,
            bytes: e.bytes,
            us: e.t_ns / 1000,
        };
        items.push((item.due, 0, i, item));
    }
    let mut k = 0u64;
    while k * sample_us <= u64::from(until_us) {
        let us = k * sample_us;
        for (j, &flow) in flows.iter().enumerate() {
            let due = us * cpu;
            let item = Item {
                due,
                kind: Kind::Read,
                flow,
                bytes: 0,
                us,
            };
            items.push((due, 1, j, item));
        }
        k += 1;
    }
    items.sort_by_key(|(due, order, i, _)| (*due, *order, *i));
    let mut queue: VecDeque<Item> = items.into_iter().map(|(_, _, _, it)| it).collect();

    let mut dut = M::create();
    let port = |name: &str| -> Result<RawPort, String> {
        let p = dut
            .port(name)
            .ok_or_else(|| format!("{}: the RTL has no port `{name}`", M::VARIANT))?;
        // SAFETY: the ports are dropped before `dut` at the end of this function.
        Ok(unsafe { p.detach() })
    };
    let param_ports = fields(params)
        .iter()
        .map(|(f, v)| Ok((port(&param_port(f))?, *v)))
        .collect::<Result<Vec<_>, String>>()?;
    let evt_valid = port("s_evt_valid")?;
    let evt_ready = port("s_evt_ready")?;
    let evt_kind = port("s_evt_kind")?;
    let evt_flow = port("s_evt_flow")?;
    let evt_bytes = port("s_evt_bytes")?;
    let rsp_valid = port("m_rsp_valid")?;
    let rsp_ready = port("m_rsp_ready")?;
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
    .map(port)
    .into_iter()
    .collect::<Result<Vec<_>, _>>()?;
    let busy = port("status_clear_busy_o")?;

    dut.reset(2);
    let mut pre = Prescaler::default();
    let drive = || {
        for (p, v) in &param_ports {
            wr(p, u64::from(*v));
        }
        wr(&rsp_ready, 1);
    };
    // Reset leaves the state RAM clear running: wait for it, then for a microsecond boundary.
    let mut cycle = 0u64;
    loop {
        drive();
        dut.eval();
        if rd(&busy) == 0 && pre.count == 0 && cycle > 0 {
            break;
        }
        dut.tick();
        pre.tick(params.clk_per_us);
        cycle += 1;
        if cycle > (1 << 20) * cpu {
            return Err("the state RAM clear after reset did not finish".into());
        }
    }
    let t0_cycle = cycle;
    let t0_us = pre.now_us;

    let mut model = Engine::new(1 << M::param("FLOW_BITS").unwrap_or(10));
    let mut expect: VecDeque<(Response, bool, u64)> = VecDeque::new();
    let mut trace = Trace::default();
    let mut last_progress = cycle;
    while !queue.is_empty() || !expect.is_empty() {
        let rel = cycle - t0_cycle;
        let offered = queue.front().filter(|it| it.due <= rel);
        let waiting = offered.is_some() || !expect.is_empty();
        wr(&evt_valid, u64::from(offered.is_some()));
        if let Some(it) = offered {
            wr(&evt_kind, it.kind as u64);
            wr(&evt_flow, u64::from(it.flow));
            wr(&evt_bytes, u64::from(it.bytes));
        }
        dut.eval();
        if offered.is_some() && rd(&evt_ready) != 0 {
            let it = queue.pop_front().expect("offered an item");
            let now = pre.now_us;
            let out = model.event(params, it.kind, it.flow, it.bytes, now);
            let late = u64::from(now.wrapping_sub(t0_us)) != it.us;
            match (it.kind, late) {
                (Kind::Read, true) => trace.late_samples += 1,
                (_, true) => trace.late_events += 1,
                _ => {}
            }
            expect.push_back((out.rsp, it.kind == Kind::Read, it.us));
            last_progress = cycle;
        }
        if rd(&rsp_valid) != 0 {
            let v: Vec<u64> = rsp.iter().map(rd).collect();
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
            let Some((want, is_read, _)) = expect.pop_front() else {
                return Err(format!(
                    "cycle {cycle}: a response with no event outstanding"
                ));
            };
            if got != want {
                return Err(format!(
                    "cycle {cycle}: the RTL and the reference model disagree (a bug):\n  RTL   {got:?}\n  model {want:?}"
                ));
            }
            if is_read {
                trace.rows.push(Row {
                    t_us: got.time_us.wrapping_sub(t0_us),
                    flow: got.flow,
                    rc: got.rc,
                    rt: got.rt,
                    alpha: got.alpha,
                });
            }
            last_progress = cycle;
        }
        // Only a wait for the engine counts: with nothing offered or outstanding, the run is
        // idle until the next event or read-back is due, however far away that is.
        if !waiting {
            last_progress = cycle;
        }
        if cycle - last_progress > HANG_LIMIT {
            return Err(format!(
                "cycle {cycle}: the engine made no progress for {HANG_LIMIT} cycles"
            ));
        }
        dut.tick();
        pre.tick(params.clk_per_us);
        cycle += 1;
    }
    trace.cycles = cycle - t0_cycle;
    drop(param_ports);
    Ok(trace)
}
