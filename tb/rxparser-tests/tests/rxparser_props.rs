//! RX parser property tests: Verilated RTL against `rdmagen_refmodel::roce::RxParserModel`
//! at three data widths (64 and 1024 bits with a synchronous reset, 512 bits with an
//! asynchronous one).
//!
//! `RDMAGEN_RX_CASES` sets the number of cases per width (default 300). A failing case
//! shrinks, replays on a fresh model with an FST waveform under `target/tb-failures/`, and
//! proptest keeps its seed in `proptest-regressions/`, so rerunning the test replays it first.

use std::cell::RefCell;
use std::path::Path;

use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use rdmagen_harness::figures::{record, Figure};
use rdmagen_harness::Model;
use rdmagen_rxparser_tests::bench::{plain, strategy, Bench, PAY_LAST_LATENCY, VERDICT_LATENCY};
use rdmagen_rxparser_tests::*;

fn cases() -> u32 {
    std::env::var("RDMAGEN_RX_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

fn check<M: Model>(test: &str) {
    let bench = RefCell::new(Bench::<M>::new());
    let persistence: &'static str = Box::leak(
        format!(
            "{}/proptest-regressions/{}.txt",
            env!("CARGO_MANIFEST_DIR"),
            M::VARIANT
        )
        .into_boxed_str(),
    );
    let mut runner = TestRunner::new(Config {
        cases: cases(),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(persistence))),
        ..Config::default()
    });
    let result = runner.run(&strategy(40, 400), |case| {
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
                "{}: {} cases, {} frames ({} accepted, {} ACK/NAK requests, {} payload packets of which {} discarded), {} beats, {} cycles; outcomes (drop reason, or 100 + verdict): {:?}",
                M::VARIANT,
                cases(),
                b.frames,
                b.accepted,
                b.acks,
                b.pay_packets,
                b.pay_discarded,
                b.beats,
                b.total_cycles,
                b.reasons
            );
        }
        Err(TestError::Fail(why, case)) => {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tb-failures");
            let _ = std::fs::create_dir_all(&dir);
            let fst = dir.join(format!("{}.fst", M::VARIANT));
            let mut b = Bench::<M>::new();
            let traced = match b.dut_trace(&fst) {
                Ok(()) => b
                    .run(&case)
                    .err()
                    .map_or("passed".into(), |f| f.to_string()),
                Err(e) => format!("no waveform: {e}"),
            };
            panic!(
                "{}: {why}\nminimal case: {case:#?}\nreplayed with a waveform: {traced}\n  waveform: {}\n  rerun:    cargo test -p rdmagen-rxparser-tests --test rxparser_props -- --exact {test}   (proptest replays the saved seed first)",
                M::VARIANT,
                fst.display()
            );
        }
        Err(TestError::Abort(why)) => panic!("{why}"),
    }
}

#[test]
fn rx_parser_w64() {
    check::<RxParserW64>("rx_parser_w64");
}

#[test]
fn rx_parser_w512() {
    check::<RxParserW512>("rx_parser_w512");
}

#[test]
fn rx_parser_w1024() {
    check::<RxParserW1024>("rx_parser_w1024");
}

/// Line rate: back-to-back frames (62-byte ACKs, minimum SENDs, WRITE firsts whose headers
/// straddle beats, IPv6 with VLAN tags, long payloads) are taken at one beat per cycle with
/// the verdict sink ready, and every verdict comes exactly VERDICT_LATENCY (16) cycles after
/// its tlast beat.
fn line_rate<M: Model>() {
    let mut frames = Vec::new();
    for i in 0..64u16 {
        frames.push(plain(0x11, 0, 0, false));
        frames.push(plain(0x04, i % 3, 0, false));
        frames.push(plain(0x06, 64 + i, (i % 3) as u8, i % 2 == 1));
        frames.push(plain(0x81, 0, 2, true));
        frames.push(plain(0x0A, 1000 + i, 1, false));
    }
    let mut b = Bench::<M>::new();
    let (beats, cycles) = b.line_rate(&frames).unwrap_or_else(|f| panic!("{f}"));
    eprintln!(
        "{}: {} frames, {} ACK/NAK requests, {} payload packets, {beats} beats in {cycles} cycles: {:.2} beats per cycle",
        M::VARIANT,
        frames.len(),
        b.acks,
        b.pay_packets,
        beats as f64 / cycles as f64
    );
    assert_eq!(
        beats, cycles,
        "a bubble: {beats} beats took {cycles} cycles"
    );
    let test = "cargo test -p rdmagen-rxparser-tests --test rxparser_props line_rate";
    record(&Figure {
        block: "rx_parser",
        variant: M::VARIANT,
        figure: &format!(
            "{} back-to-back frames (62 bytes and up), sinks ready",
            frames.len()
        ),
        value: beats as f64 / cycles as f64,
        unit: "beats per cycle",
        bound: "= 1",
        test,
    });
    // `line_rate` fails unless every frame's verdict (and ACK/NAK request) comes exactly this
    // many cycles after its tlast beat.
    record(&Figure {
        block: "rx_parser",
        variant: M::VARIANT,
        figure: "tlast beat to verdict, every frame",
        value: VERDICT_LATENCY as f64,
        unit: "cycles",
        bound: &format!("= {VERDICT_LATENCY}"),
        test,
    });
    // ... and every payload packet's tlast beat exactly PAY_LAST_LATENCY cycles after it.
    record(&Figure {
        block: "rx_parser",
        variant: M::VARIANT,
        figure: "tlast beat to payload packet's tlast, every frame with a payload",
        value: PAY_LAST_LATENCY as f64,
        unit: "cycles",
        bound: &format!("= {PAY_LAST_LATENCY}"),
        test,
    });
}

#[test]
fn line_rate_w64() {
    line_rate::<RxParserW64>();
}

#[test]
fn line_rate_w512() {
    line_rate::<RxParserW512>();
}

#[test]
fn line_rate_w1024() {
    line_rate::<RxParserW1024>();
}
