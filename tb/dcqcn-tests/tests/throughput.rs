//! Events per cycle, counted in simulation: back-to-back send requests and CNPs on flows that
//! were touched within the last microsecond (no catch-up work) and on flows idle for longer.

use rdmagen_dcqcn_tests::bench::Bench;
use rdmagen_dcqcn_tests::*;
use rdmagen_harness::Model;

fn measure<M: Model>() {
    let mut b = Bench::<M>::new().unwrap_or_else(|e| panic!("{e}"));
    for paper in [false, true] {
        for flows in [4u32, 64].map(|n| n.min(Bench::<M>::flows())) {
            let (events, cycles) = b
                .throughput(flows, 2000, paper)
                .unwrap_or_else(|f| panic!("{}: {f}", M::VARIANT));
            let rate = events as f64 / cycles as f64;
            eprintln!(
                "{} ({} mode): {flows} flows interleaved: {events} events in {cycles} cycles = {rate:.3} events/cycle",
                M::VARIANT,
                if paper { "PAPER" } else { "mlx5" }
            );
            // The sequential engine: 4 cycles per event (take, read, apply, respond) plus one
            // per due period; events here come at most a microsecond apart per flow.
            assert!(rate > 0.2, "{rate}");
        }
    }
}

#[test]
fn throughput_16_flows() {
    measure::<DcqcnRpF16>();
}

#[test]
fn throughput_65536_flows() {
    measure::<DcqcnRpF64k>();
}
