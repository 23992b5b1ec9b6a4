//! Properties of the DCQCN reference model alone: the lazy catch-up gives bit-identical state
//! to firing every period, the DCQCN invariants hold, flows never affect each other, and the
//! shaper's long-run throughput equals Rc.

use proptest::prelude::*;
use rdmagen_refmodel::dcqcn::{Eager, Engine, Kind, Params};

const FLOWS: usize = 4;

#[derive(Clone, Debug)]
enum Op {
    /// An event `gap` microseconds after the previous one.
    Event {
        gap: u32,
        kind: Kind,
        flow: u32,
        bytes: u32,
    },
}

fn kind() -> impl Strategy<Value = Kind> {
    prop_oneof![
        4 => Just(Kind::Cnp),
        3 => Just(Kind::Tx),
        1 => Just(Kind::Ce),
        1 => Just(Kind::Read),
    ]
}

fn gap() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => 0u32..3,
        3 => 0u32..40,
        1 => 0u32..3000,
    ]
}

fn ops() -> impl Strategy<Value = Vec<Op>> {
    prop::collection::vec(
        (gap(), kind(), 0..FLOWS as u32, 0u32..9000).prop_map(|(gap, kind, flow, bytes)| {
            Op::Event {
                gap,
                kind,
                flow,
                bytes,
            }
        }),
        1..80,
    )
}

/// Parameter sets with short periods, so a case crosses many of them, in mlx5 or PAPER mode,
/// with the byte counter off or firing every few sends, and `rpg_max_rate` off (the line
/// rate caps) or set below or above the line rate.
fn params(paper: bool) -> impl Strategy<Value = Params> {
    (
        prop_oneof![Just(0u32), 1u32..20_000],
        (1u32..8, 1u32..12, 1u32..40, 0u32..6),
        (
            prop_oneof![Just(0u32), 0u32..200],
            prop_oneof![Just(0u32), 0u32..500],
            0u32..=1023,
            0u32..=1023,
        ),
        (9u32..14, 0u32..=100, 0u32..50, any::<bool>(), any::<bool>()),
        (
            prop_oneof![Just(0u32), 1u32..3000],
            1000u32..400_000,
            0u32..10,
            prop_oneof![Just(0u32), 1u32..400_000],
        ),
    )
        .prop_map(
            move |(
                byte_reset,
                (rtt, rrmp, trst, thr),
                (ai, hai, g, ia),
                (gd, fac, minr, c1, c2),
                (first, line, mtc, max),
            )| {
                Params {
                    paper,
                    rpg_byte_reset: byte_reset,
                    dce_tcp_rtt: rtt,
                    rate_reduce_monitor_period: rrmp,
                    rpg_time_reset: trst,
                    rpg_threshold: thr,
                    rpg_ai_rate: ai,
                    rpg_hai_rate: hai,
                    dce_tcp_g: g,
                    initial_alpha_value: ia,
                    rpg_gd: gd,
                    rpg_min_dec_fac: fac,
                    rpg_min_rate: minr,
                    clamp_tgt_rate: c1,
                    clamp_tgt_rate_after_time_inc: c2,
                    rate_to_set_on_first_cnp: first,
                    line_rate: line,
                    min_time_between_cnps: mtc,
                    rpg_max_rate: max,
                    ..Params::default()
                }
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Lazy catch-up on touch == every period fired on time, for every flow, after every event.
    #[test]
    fn lazy_equals_eager(p in prop_oneof![params(false), params(true)], ops in ops()) {
        let mut lazy = Engine::new(FLOWS);
        let mut eager = Eager::new(FLOWS);
        let mut now = 0u32;
        for Op::Event { gap, kind, flow, bytes } in ops {
            now += gap;
            eager.advance_to(&p, now);
            let want = eager.event(&p, kind, flow, bytes);
            let got = lazy.event(&p, kind, flow, bytes, now);
            prop_assert_eq!(got.rsp, want);
            prop_assert_eq!(&lazy.flows[flow as usize], &eager.flows[flow as usize]);
        }
        // Touch every flow at a later time: all timers caught up must match.
        now += 5000;
        eager.advance_to(&p, now);
        for f in 0..FLOWS as u32 {
            let want = eager.event(&p, Kind::Read, f, 0);
            let got = lazy.event(&p, Kind::Read, f, 0, now);
            prop_assert_eq!(got.rsp, want);
        }
        prop_assert_eq!(lazy.flows, eager.flows);
    }

    /// Rc within [min, cap]; alpha within [0, 1]; a cut never raises Rc; without a cut Rc
    /// never falls; cycles per event within the documented bound.
    #[test]
    fn invariants(p in prop_oneof![params(false), params(true)], ops in ops()) {
        let p = Params { rpg_min_rate: p.rpg_min_rate.min(p.line_rate), ..p };
        let mut e = Engine::new(FLOWS);
        let mut now = 0u32;
        for Op::Event { gap, kind, flow, bytes } in ops {
            now += gap;
            let before = e.flows[flow as usize];
            let out = e.event(&p, kind, flow, bytes, now);
            let r = out.rsp;
            prop_assert!(r.alpha <= 1 << 24);
            prop_assert!(r.rc <= p.rmax_fx() && r.rt <= p.rmax_fx());
            prop_assert!(r.rc >= p.min_fx(), "rc {} below min {}", r.rc, p.min_fx());
            prop_assert!(r.rc <= r.rt || !r.seen);
            if before.seen && out.stats.rate_cuts == 0 {
                prop_assert!(r.rc >= before.rc, "rc fell without a cut");
            }
            if before.seen && kind == Kind::Cnp {
                // The CNP itself never raises Rc: the state after catch-up alone is the same.
                let mut probe = Engine { flows: vec![before] };
                let read = probe.event(&p, Kind::Read, 0, 0, now);
                prop_assert!(r.rc <= read.rsp.rc);
            }
            prop_assert!(out.skips <= 3);
        }
    }

    /// However long a flow idles, an event costs at most `Params::catch_up_bound` stage X
    /// cycles (the rest is skipped in bulk), also after `rpg_max_rate` changes under live
    /// flows.
    #[test]
    fn catch_up_bounded_by_parameters(
        p in prop_oneof![params(false), params(true)],
        ops in ops(),
        switch_at in 0usize..80,
        max_rate in prop_oneof![Just(0u32), 1000u32..400_000],
    ) {
        let q = Params { rpg_max_rate: max_rate, ..p.clone() };
        let mut e = Engine::new(FLOWS);
        let mut now = 0u32;
        let mut cur = &p;
        let mut bound = p.catch_up_bound();
        for (i, Op::Event { gap, kind, flow, bytes }) in ops.into_iter().enumerate() {
            if i == switch_at {
                cur = &q;
                bound = q.catch_up_bound();
            }
            now += gap;
            let out = e.event(cur, kind, flow, bytes, now);
            prop_assert!(u64::from(out.cycles) <= bound);
        }
        now += 1 << 22;
        for f in 0..FLOWS as u32 {
            let before = e.flows[f as usize];
            let out = e.event(cur, Kind::Read, f, 0, now);
            prop_assert!(
                u64::from(out.cycles) <= bound,
                "flow {} took {} cycles after 2^22 us idle, bound {}; state before {:?}",
                f, out.cycles, bound, before
            );
        }
    }

    /// A flow's answers do not depend on what other flows do.
    #[test]
    fn flows_independent(p in prop_oneof![params(false), params(true)], ops in ops()) {
        let mut all = Engine::new(FLOWS);
        let mut only = Engine::new(FLOWS);
        let mut now = 0u32;
        for Op::Event { gap, kind, flow, bytes } in ops {
            now += gap;
            let a = all.event(&p, kind, flow, bytes, now);
            if flow == 0 {
                let b = only.event(&p, kind, flow, bytes, now);
                prop_assert_eq!(a.rsp, b.rsp);
            }
        }
    }
}

/// One CNP at t = 0 on a 100 Gb/s line with the mlx5 defaults: cut to about 51% at 4 µs,
/// then recovery toward the line rate.
#[test]
fn one_cnp_trajectory() {
    let p = Params::default();
    let mut e = Engine::new(1);
    e.event(&p, Kind::Cnp, 0, 0, 0);
    let at = |e: &mut Engine, t: u32| e.event(&p, Kind::Read, 0, 0, t).rsp;
    assert_eq!(at(&mut e, 3).rc, 100_000 << 8);
    let cut = at(&mut e, 4).rc >> 8;
    // alpha decayed for 4 µs (1023/1024 × (1019/1024)^4 ≈ 0.98) before the cut check.
    assert!((50_900..51_100).contains(&cut), "cut to {cut} Mb/s");
    let later = at(&mut e, 304).rc >> 8;
    assert!(later > cut, "recovered to {later}");
    let much_later = at(&mut e, 4_000_000).rc >> 8;
    assert_eq!(much_later, 100_000);
}

/// A flow cut by a CNP and then idle for more than 2^31 µs (36 minutes: a storage QP between
/// jobs) must come back recovered (FACTS §5: with no CNPs alpha decays and the rate climbs
/// back to the line rate) and must still react to a CNP. The deadlines are 32-bit
/// microseconds; read as a signed distance they looked 36 minutes in the future, so every
/// timer stood still: the flow stayed at its cut rate, and a new CNP was never applied,
/// until the clock wrapped past them (up to another 36 minutes).
#[test]
fn idle_past_2_pow_31_us_recovers_and_still_cuts() {
    let p = Params::default();
    let mut e = Engine::new(1);
    e.event(&p, Kind::Cnp, 0, 0, 0);
    let cut = e.event(&p, Kind::Read, 0, 0, 10).rsp;
    assert!(cut.rc < 60_000 << 8, "cut: {}", cut.rc >> 8);
    for idle in [(1u32 << 31) + 1_000, 3_000_000_000, u32::MAX - (1 << 17)] {
        let mut e = e.clone();
        let back = e.event(&p, Kind::Read, 0, 0, 10 + idle).rsp;
        assert_eq!(
            (back.rc >> 8, back.rt >> 8, back.alpha),
            (100_000, 100_000, 0),
            "after {idle} idle µs"
        );
        // A CNP now is cut at the next cut check, 4 µs later.
        let t = 10 + idle + 1;
        e.event(&p, Kind::Cnp, 0, 0, t);
        let again = e.event(&p, Kind::Read, 0, 0, t + 5).rsp;
        assert!(again.rc < 100_000 << 8, "after {idle} idle µs no cut");
    }
}

/// The shaper's long-run throughput equals Rc within 0.5%: a sender asking for 1500 bytes
/// every microsecond at rates below what it asks for.
#[test]
fn shaper_throughput_matches_rc() {
    for (line, rate) in [(100_000u32, 2_000u32), (100_000, 7_777), (400_000, 10_000)] {
        let p = Params {
            line_rate: line,
            rate_to_set_on_first_cnp: rate,
            rpg_time_reset: 100_000_000,
            ..Params::default()
        };
        let mut e = Engine::new(1);
        e.event(&p, Kind::Cnp, 0, 0, 0);
        let mut bytes = 0u64;
        let span = 20_000u32;
        for t in 1..=span {
            // Several requests per microsecond: the shaper, not the sender, limits.
            for _ in 0..4 {
                if e.event(&p, Kind::Tx, 0, 1500, t).rsp.flag {
                    bytes += 1500;
                }
            }
        }
        let rc = e.flows[0].rc as f64 / 256.0;
        let want = rc * f64::from(span) / 8.0;
        let err = (bytes as f64 - want).abs() / want;
        assert!(
            err < 0.005,
            "rate {rc} Mb/s: {bytes} bytes vs {want:.0}: {err:.4}"
        );
    }
}

/// FACTS §5: hyper increase needs both counts above F ("once both exceed F"); while the byte
/// counter alone is above F the stage is additive. mlx5 mode staged by the larger count, so
/// with the byte counter on (the default) a fast sender went hyper (+`rpg_hai_rate` per
/// event) a few byte events after a cut, long before its first timer event.
#[test]
fn byte_counter_alone_gives_additive_not_hyper_increase() {
    use rdmagen_refmodel::dcqcn::{stage, STAGE_ADDITIVE};
    let p = Params {
        rpg_byte_reset: 1000,
        clamp_tgt_rate: true,
        ..Params::default()
    };
    let mut e = Engine::new(1);
    e.event(&p, Kind::Cnp, 0, 0, 0);
    // The first cut (at 4 µs) sets Rt to the line rate; the second (at 8 µs) to the cut Rc.
    e.event(&p, Kind::Cnp, 0, 0, 5);
    let before = e.event(&p, Kind::Read, 0, 0, 9).rsp;
    assert!(before.rt < 60_000 << 8, "Rt {}", before.rt >> 8);
    // Three byte-counter events, no timer event (rpg_time_reset is 300 µs): fast recovery
    // (both counts 0), then additive at byte count 1 (= F) and 2 (> F, timer count 0 ≤ F).
    for t in 10..13 {
        assert!(e.event(&p, Kind::Tx, 0, 1000, t).rsp.flag);
    }
    let after = e.event(&p, Kind::Read, 0, 0, 13).rsp;
    assert_eq!((after.timer_count, after.byte_count), (0, 3));
    assert_eq!(
        after.rt - before.rt,
        2 * (5 << 8),
        "two additive steps of 5 Mb/s"
    );
    assert_eq!(stage(&p, 0, 3), STAGE_ADDITIVE);
}

/// SPEC §6: the rate stays within [rpg_min_rate, line rate] (mlx5 documents `rpg_max_rate` as
/// 0 .. line rate). An `rpg_max_rate` above `line_rate` was the cap as it stood, so a flow
/// with no CNP was shaped above the line rate and a recovering flow's Rt and Rc climbed past it.
#[test]
fn rpg_max_rate_above_the_line_rate_caps_at_the_line_rate() {
    let p = Params {
        line_rate: 100_000,
        rpg_max_rate: 150_000,
        ..Params::default()
    };
    let mut e = Engine::new(2);
    assert_eq!(e.event(&p, Kind::Read, 1, 0, 0).rsp.rc >> 8, 100_000);
    e.event(&p, Kind::Cnp, 0, 0, 0);
    let r = e.event(&p, Kind::Read, 0, 0, 4_000_000).rsp;
    assert_eq!((r.rc >> 8, r.rt >> 8), (100_000, 100_000));
}
