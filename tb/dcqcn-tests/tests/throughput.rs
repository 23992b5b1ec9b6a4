//! Events per cycle, counted in simulation (docs/BENCHMARKS.dcqcn.md prints these lines).
//!
//! Every burst runs with no input idle and no response backpressure at 500 clocks per µs and
//! the map's defaults otherwise, after a warm-up that gives every flow used a CNP. The bench
//! checks every response and the cycle it appears in against the model; here the whole
//! burst's cycle count must equal the pipeline's cost model ([`Burst::predicted`]): one cycle
//! per event, plus the model's catch-up cycles (two per state-changing period not folded into
//! the apply, two per skip jump), plus the cycles events wait for an earlier event of their
//! flow to write (two for the same flow as the one before, one for the flow two before when
//! the one between has a single pass), plus five cycles of fill. The common case — flows
//! touched at least once per period, no CNP pending a cut — must cost exactly one cycle per
//! event.

use rdmagen_dcqcn_tests::bench::{Bench, Burst};
use rdmagen_dcqcn_tests::case::Op;
use rdmagen_dcqcn_tests::*;
use rdmagen_harness::figures::{record, Figure};
use rdmagen_harness::Model;
use rdmagen_refmodel::dcqcn::{Kind, Params};

const EVENTS: u32 = 2000;

fn params(paper: bool) -> Params {
    Params {
        paper,
        clk_per_us: 500,
        // No cut pending after the first CNP (mlx5): only later CNPs mark one.
        rate_to_set_on_first_cnp: 50_000,
        ..Params::default()
    }
}

/// `n` flows spread over the flow space.
fn spread<M: Model>(n: u32) -> Vec<u32> {
    let all = Bench::<M>::flows();
    let n = n.min(all);
    (0..n).map(|i| i * (all / n)).collect()
}

fn warm(flows: &[u32]) -> Vec<Op> {
    flows
        .iter()
        .map(|&flow| Op::Event {
            kind: Kind::Cnp,
            flow,
            bytes: 0,
        })
        .collect()
}

/// `EVENTS` events round robin over `flows`, the kinds cycling through `kinds`.
fn round_robin(flows: &[u32], kinds: &[Kind]) -> Vec<Op> {
    (0..EVENTS as usize)
        .map(|i| Op::Event {
            kind: kinds[i % kinds.len()],
            flow: flows[i % flows.len()],
            bytes: 1500,
        })
        .collect()
}

fn measure<M: Model>(b: &mut Bench<M>, what: &str, paper: bool, warm: &[Op], ops: &[Op]) -> Burst {
    let r = b
        .burst(&params(paper), warm, ops)
        .unwrap_or_else(|f| panic!("{} {what}: {f}", M::VARIANT));
    eprintln!(
        "{} | {} | {what} | {} | {} | {:.3} | {} steps, {} skips, {} folded, {} holds",
        M::VARIANT,
        if paper { "PAPER" } else { "mlx5" },
        r.events,
        r.cycles,
        r.rate(),
        r.steps,
        r.skips,
        r.folded,
        r.holds
    );
    assert_eq!(r.events, u64::from(EVENTS));
    record(&Figure {
        block: "dcqcn",
        variant: M::VARIANT,
        figure: &format!("{} mode, {what}", if paper { "PAPER" } else { "mlx5" }),
        value: r.rate(),
        unit: "events per cycle",
        bound: "cycles = the pipeline's cost model",
        test: "cargo test -p rdmagen-dcqcn-tests --test throughput",
    });
    assert_eq!(
        r.cycles,
        r.predicted(),
        "{} {what}: {r:?}: the cycle count is not the pipeline's cost model",
        M::VARIANT
    );
    r
}

fn all<M: Model>() {
    let mut b = Bench::<M>::new().unwrap_or_else(|e| panic!("{e}"));
    let sends = [Kind::Tx, Kind::Ce, Kind::Read];
    for paper in [false, true] {
        // (a) Back to back over many flows, each touched more often than every dce_tcp_rtt
        // (256 flows at 500 cycles per µs): at most one alpha period and one idle cut check
        // are due, and they fold into the apply cycle.
        let flows = spread::<M>(256);
        let r = measure(
            &mut b,
            &format!("(a) {} flows round robin: send, CE, read", flows.len()),
            paper,
            &warm(&flows),
            &round_robin(&flows, &sends),
        );
        assert_eq!(
            r.cycles,
            r.events + 5,
            "the common case is one event per cycle"
        );
        assert!(r.folded > 0, "the burst crossed no period: {r:?}");

        // (b) A burst on one flow: each event waits two cycles for the one before it.
        let one = spread::<M>(1);
        let r = measure(
            &mut b,
            "(b) 1 flow: send, CE, read",
            paper,
            &warm(&one),
            &round_robin(&one, &sends),
        );
        assert_eq!(r.holds, 2 * (r.events - 1));

        // (b) Two flows alternating: an event whose predecessor entered X1 right after the
        // one before it (its flow) waits a cycle for that one's write, which X2 makes in the
        // predecessor's X1 cycle; every second event waits (0.666 events per cycle).
        let two = spread::<M>(2);
        let r = measure(
            &mut b,
            "(b) 2 flows alternating: send, CE, read",
            paper,
            &warm(&two),
            &round_robin(&two, &sends),
        );
        assert_eq!(r.holds, (r.events - 1) / 2);

        // (c) Due periods that change state: CNPs mark cuts (mlx5: a cut check every
        // rate_reduce_monitor_period µs; PAPER: every CNP cuts and restarts alpha), and
        // flows idle for 100 µs before the burst (100 alpha periods each).
        for n in [4u32, 64] {
            let flows = spread::<M>(n);
            measure(
                &mut b,
                &format!("(c) {} flows: send and CNP alternating", flows.len()),
                paper,
                &warm(&flows),
                &round_robin(&flows, &[Kind::Tx, Kind::Cnp]),
            );
        }
        let flows = spread::<M>(64);
        let mut idle = warm(&flows);
        idle.push(Op::Params(params(paper)));
        idle.push(Op::Idle(100 * 500));
        measure(
            &mut b,
            &format!("(c) {} flows idle 100 us, then send, CE, read", flows.len()),
            paper,
            &idle,
            &round_robin(&flows, &sends),
        );
    }
}

#[test]
fn throughput_16_flows() {
    all::<DcqcnRpF16>();
}

#[test]
fn throughput_65536_flows() {
    all::<DcqcnRpF64k>();
}
