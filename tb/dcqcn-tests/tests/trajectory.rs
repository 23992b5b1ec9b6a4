//! One CNP at t = 0 on a 100 Gb/s line with the mlx5 defaults, read back from the RTL every
//! few microseconds: the cut at the first cut check and the recovery toward the line rate.
//! (`clk_per_us` is 4 instead of 250 so the run is short; the trajectory in microseconds is
//! the same.)

use rdmagen_dcqcn_tests::bench::Bench;
use rdmagen_dcqcn_tests::case::{Case, Op};
use rdmagen_dcqcn_tests::*;
use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::dcqcn::{Kind, Params};

#[test]
fn one_cnp_at_t0_mlx5_defaults() {
    let params = Params {
        clk_per_us: 4,
        ..Params::default()
    };
    let mut ops = vec![Op::Event {
        kind: Kind::Cnp,
        flow: 3,
        bytes: 0,
    }];
    // Read back every 2 µs for 40 µs, then every 100 µs for 3 ms.
    for i in 0..20 + 30 {
        let us = if i < 20 { 2 } else { 100 };
        ops.push(Op::Idle(us * 4 - 4));
        ops.push(Op::Event {
            kind: Kind::Read,
            flow: 3,
            bytes: 0,
        });
    }
    let case = Case {
        seed: 1,
        params,
        evt: Profile::NONE,
        rsp: Profile::NONE,
        ops,
    };
    let mut b = Bench::<DcqcnRpF16>::new().unwrap_or_else(|e| panic!("{e}"));
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    // The CNP is taken once the state RAM clear after reset is done: times count from it.
    let t0 = b.responses[0].time_us;
    let rc = |t: u32| {
        b.responses
            .iter()
            .rev()
            .find(|r| r.time_us <= t0 + t)
            .map(|r| f64::from(r.rc) / 256.0)
            .unwrap_or(0.0)
    };
    for r in &b.responses {
        eprintln!(
            "t {:5} us  rc {:10.2} Mb/s  rt {:10.2} Mb/s  alpha {:.5}",
            r.time_us - t0,
            f64::from(r.rc) / 256.0,
            f64::from(r.rt) / 256.0,
            f64::from(r.alpha) / f64::from(1u32 << 24)
        );
    }
    // Line rate until the first cut check at 4 µs, then about 51% (alpha decayed 4 periods).
    assert_eq!(rc(3), 100_000.0);
    let cut = rc(6);
    assert!((50_900.0..51_100.0).contains(&cut), "cut to {cut}");
    // Fast recovery after rpg_time_reset = 300 µs, then additive and hyper increase.
    assert!(rc(350) > cut);
    assert!(rc(3000) > rc(1000));
}
