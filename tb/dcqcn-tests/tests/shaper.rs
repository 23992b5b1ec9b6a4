//! The shaper's long-run throughput on the RTL equals Rc within 0.5%: a flow held at a fixed
//! Rc (`rate_to_set_on_first_cnp`, no cut pending, no increase timer) gets back-to-back send
//! requests for thousands of microseconds, and the bytes the RTL grants are measured against
//! Rc over the span between the first and the last request (both from the responses' time
//! stamps). Every response is also checked against the model by the bench.

use rdmagen_dcqcn_tests::bench::Bench;
use rdmagen_dcqcn_tests::case::{Case, Op};
use rdmagen_dcqcn_tests::*;
use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::dcqcn::{Kind, Params};

#[test]
fn shaper_long_run_throughput_equals_rc() {
    let mut b = Bench::<DcqcnRpF16>::new().unwrap_or_else(|e| panic!("{e}"));
    // (line rate, Rc, request size): requests are offered faster than Rc in every case (about
    // 10 per µs at 20 clocks per µs and 2 cycles per event on one flow).
    for (line, rate, bytes) in [
        (100_000u32, 2_000u32, 1500u32),
        (100_000, 7_777, 1024),
        (100_000, 99_000, 9000),
        (400_000, 250_000, 9000),
    ] {
        let params = Params {
            clk_per_us: 20,
            line_rate: line,
            rate_to_set_on_first_cnp: rate,
            ..Params::default()
        };
        let mut ops = vec![Op::Event {
            kind: Kind::Cnp,
            flow: 5,
            bytes: 0,
        }];
        ops.extend((0..15_000).map(|_| Op::Event {
            kind: Kind::Tx,
            flow: 5,
            bytes,
        }));
        let case = Case {
            seed: 7,
            params,
            evt: Profile::NONE,
            rsp: Profile::NONE,
            ops,
        };
        b.run(&case).unwrap_or_else(|f| panic!("{f}"));
        let tx = &b.responses[1..];
        let rc = f64::from(tx[0].rc) / 256.0;
        assert_eq!(
            rc,
            f64::from(rate),
            "Rc is held at rate_to_set_on_first_cnp"
        );
        let span = f64::from(tx[tx.len() - 1].time_us - tx[0].time_us);
        let granted = tx.iter().filter(|r| r.flag).count() as f64 * f64::from(bytes) * 8.0;
        // The bucket starts full and is drained by the first requests: leave the burst out.
        let burst = f64::from(Params::default().shaper_burst) * 8.0;
        let mbps = (granted - burst) / span;
        let err = (mbps - rc).abs() / rc;
        eprintln!(
            "Rc {rc} Mb/s, {bytes}-byte requests: {:.0} Mb/s granted over {span} us (error {:.4}%)",
            mbps,
            err * 100.0
        );
        assert!(
            tx.iter().any(|r| !r.flag),
            "the requests never outran the shaper"
        );
        assert!(err < 0.005, "throughput {mbps} Mb/s against Rc {rc} Mb/s");
    }
}
