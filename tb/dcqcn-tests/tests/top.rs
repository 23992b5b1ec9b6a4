//! `dcqcn_top`: the per-flow read-back window (AXI4-Lite `rp_flow_sel` writes and window
//! reads) interleaved with events under backpressure, against the reference model (one
//! property test per verilated variant, from `build.rs`), and named scenarios whose expected
//! values come from the DCQCN equations.
//!
//! `RDMAGEN_DCQCN_CASES` sets the number of random cases per variant.

use rdmagen_dcqcn_tests::top::check_top;
use rdmagen_dcqcn_tests::*;

fn cases(default: u32) -> u32 {
    std::env::var("RDMAGEN_DCQCN_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

include!(concat!(env!("OUT_DIR"), "/top_props.rs"));

use rdmagen_dcqcn_tests::top::{param_writes, reg, TopBench};
use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::dcqcn::{Kind, Params};

type Top = TopBench<DcqcnTopF16>;

fn ok<T>(r: Result<T, rdmagen_dcqcn_tests::bench::Failure>) -> T {
    r.unwrap_or_else(|f| panic!("{f}"))
}

fn idle(b: &mut Top, cycles: u32) {
    for _ in 0..cycles {
        ok(b.step(None, true));
    }
}

fn write(b: &mut Top, addr: u64, data: u32) {
    let before = b.writes_done;
    b.write(addr, data);
    while b.writes_done == before {
        ok(b.step(None, true));
    }
}

fn read(b: &mut Top, name: &str) -> u32 {
    let tag = b.read(reg(name));
    loop {
        ok(b.step(None, true));
        if let Some(v) = b.read_data.get(&tag) {
            return *v;
        }
    }
}

fn event(b: &mut Top, kind: Kind, flow: u32) {
    while !ok(b.step(Some((kind, flow, 0)), true)) {}
    // Until its response is taken.
    let n = b.responses.len();
    while b.responses.len() == n {
        ok(b.step(None, true));
    }
}

/// Polls rp_flow_sel until `ready`; returns the polls it took.
fn wait_ready(b: &mut Top) -> u32 {
    for polls in 1..100 {
        if read(b, "rp_flow_sel") >> 31 == 1 {
            return polls;
        }
    }
    panic!("rp_flow_sel.ready never rose");
}

/// alpha after the first CNP (initial_alpha_value 1023) and `n` alpha periods without a CNP:
/// alpha = G * alpha / 1024 each period, G = 1019 (24 fractional bits).
fn alpha_after(n: u32) -> u32 {
    (0..n).fold(1023 << 14, |a: u32, _| ((u64::from(a) * 1019) >> 10) as u32)
}

/// The mlx5 defaults on a 100 Gb/s line, one microsecond every 10 cycles. One CNP for flow 5,
/// then software selects flow 5 and reads the window. The spec's numbers (docs/dcqcn.md): the
/// first CNP sets Rc = Rt = 100,000 Mb/s and alpha = 1023/1024 with a cut pending; alpha
/// decays every microsecond (G = 1019, no CNP marked since); at 4 µs (after that
/// microsecond's alpha period) the cut takes Rc·alpha/2: 100,000 × 0xFACA94/2**25 → Rc =
/// 51,017.32 Mb/s (above the 50 % floor); Rt stays (no timer increase since the last cut:
/// clamp_tgt_rate_after_time_inc has nothing to clamp); no increase before 304 µs.
#[test]
fn window_after_one_cnp_reads_the_spec_values() {
    let mut b = ok(Top::new(1, Profile::NONE));
    let p = Params {
        clk_per_us: 10,
        ..Params::default()
    };
    for (addr, word) in param_writes(&p) {
        write(&mut b, addr, word);
    }
    event(&mut b, Kind::Cnp, 5);
    let t0 = b.responses[0].time_us;
    while b.now_us() < t0 + 20 {
        idle(&mut b, 1);
    }
    write(&mut b, reg("rp_flow_sel"), 5);
    // Right after the write, ready is low: the read-back is still in the engine.
    assert_eq!(read(&mut b, "rp_flow_sel"), 5, "flow 5, not ready yet");
    wait_ready(&mut b);
    let (_, at) = *b.own_taken.last().expect("a read-back was issued");
    let n = at - t0;
    assert!((20..300).contains(&n), "read-back {n} us after the CNP");
    assert_eq!(alpha_after(4), 0xFA_CA94);
    assert_eq!(read(&mut b, "rp_flow_sel"), 1 << 31 | 5);
    assert_eq!(read(&mut b, "rp_rate"), 51_017, "Rc after one cut");
    assert_eq!(read(&mut b, "rp_target"), 100_000, "Rt: line rate");
    assert_eq!(
        read(&mut b, "rp_current"),
        alpha_after(n),
        "alpha after {n} periods"
    );
    assert_eq!(read(&mut b, "rp_timer"), 0);
    // cnp_seen, stage FAST_RECOVERY (timer count 0 < rpg_threshold 1), byte count 0.
    assert_eq!(read(&mut b, "rp_state"), 1 << 31);
    let rc_before = read(&mut b, "rp_rate");

    // Snapshot: a second CNP cuts flow 5 again at its next cut check, but the window keeps
    // the values of the read-back until rp_flow_sel is written again.
    event(&mut b, Kind::Cnp, 5);
    let t1 = b.now_us();
    while b.now_us() < t1 + 10 {
        idle(&mut b, 1);
    }
    assert_eq!(read(&mut b, "rp_flow_sel"), 1 << 31 | 5, "still ready");
    assert_eq!(read(&mut b, "rp_rate"), rc_before, "snapshot: unchanged");
    write(&mut b, reg("rp_flow_sel"), 5);
    wait_ready(&mut b);
    let rc_after = read(&mut b, "rp_rate");
    assert!(
        rc_after < rc_before,
        "a new read-back shows the second cut: {rc_after}"
    );

    // A flow beyond the engine's 16 reads as zero, ready.
    write(&mut b, reg("rp_flow_sel"), 100);
    wait_ready(&mut b);
    for r in ["rp_rate", "rp_target", "rp_current", "rp_timer", "rp_state"] {
        assert_eq!(read(&mut b, r), 0, "{r} of flow 100");
    }
    // A flow that never saw a CNP runs at the line rate.
    write(&mut b, reg("rp_flow_sel"), 9);
    wait_ready(&mut b);
    assert_eq!(read(&mut b, "rp_rate"), 100_000);
    assert_eq!(read(&mut b, "rp_state") >> 31, 0, "cnp_seen");
}

/// Back-to-back rp_flow_sel writes while a saturating event stream runs: the stream loses
/// exactly one slot per read-back the window issues, no event is lost or duplicated (the bench
/// compares every response), and only the last selection's values load the window.
#[test]
fn window_read_backs_cost_one_slot_each_in_a_saturated_stream() {
    let mut b = ok(Top::new(2, Profile::NONE));
    let p = Params {
        clk_per_us: 10,
        ..Params::default()
    };
    for (addr, word) in param_writes(&p) {
        write(&mut b, addr, word);
    }
    for f in [3, 7, 11] {
        b.write(reg("rp_flow_sel"), f);
    }
    let start = b.cycle;
    let events = 400u32;
    let mut taken = 0u32;
    // Flows 0, 1, 2, ... never the same twice in a row: one event per cycle when nothing else
    // takes the engine's input.
    while taken < events {
        if ok(b.step(Some((Kind::Tx, taken % 16, 64)), true)) {
            taken += 1;
        }
    }
    let span = b.cycle - start;
    let own = b.own_taken.len() as u64;
    assert!(
        own >= 1 && b.merged + own == 3,
        "three writes: {own} read-backs, {} merged",
        b.merged
    );
    assert_eq!(span, u64::from(events) + own, "one slot per read-back");
    wait_ready(&mut b);
    assert_eq!(read(&mut b, "rp_flow_sel"), 1 << 31 | 11);
}
