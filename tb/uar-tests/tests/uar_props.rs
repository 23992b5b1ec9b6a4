//! UAR property tests: the Verilated `<block>_top` (UAR + QPC) against
//! `rdmagen_refmodel::uar` for both UAR maps at 4 VFs x 16 QPs and 256 VFs x 64 QPs.
//!
//! Per variant: `RDMAGEN_UAR_CASES` random state-machine cases (default 24, 6 at 256 VFs)
//! that shrink on failure, then one long flood of `RDMAGEN_UAR_FLOOD` operations (default
//! 58,000, 17,500 at 256 VFs) on one bench, which must make at least 40,000 (12,000) hostile
//! accesses: 104,000 in the suite. Every monitor event, fetch request, BlueFlame beat, forwarded doorbell and
//! B response is compared with the model in the cycle it appears; counters and the QPC
//! contexts are read back at the end of each case. A failing case replays on a fresh model
//! with an FST waveform under `target/tb-failures/`.

use std::cell::RefCell;
use std::path::Path;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use rdmagen_harness::Model;
use rdmagen_uar_tests::bench::{strategy, Bench};
use rdmagen_uar_tests::*;

fn env(name: &str, default: u32) -> u32 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// (flood operations, hostile accesses the flood must reach) per variant: the 256-VF models
/// cost ~10x more per cycle, so the 4-VF ones carry most of the suite's 104,000.
fn flood(variant: &str) -> (u32, u64) {
    // Ops, not writes: about one op in 26 is a stray read (no hostile write).
    if variant.contains("v256") {
        (18_400, 12_000)
    } else {
        (61_000, 40_000)
    }
}

fn check<M: Model>(test: &str) {
    let bench = RefCell::new(Bench::<M>::new(M::VARIANT));
    let persistence: &'static str = Box::leak(
        format!(
            "{}/proptest-regressions/{}.txt",
            env!("CARGO_MANIFEST_DIR"),
            M::VARIANT
        )
        .into_boxed_str(),
    );
    let mut runner = TestRunner::new(Config {
        cases: env(
            "RDMAGEN_UAR_CASES",
            if M::VARIANT.contains("v256") { 6 } else { 24 },
        ),
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(persistence))),
        ..Config::default()
    });
    let strat = strategy(&bench.borrow().model, 1, 60);
    let result = runner.run(&strat, |case| {
        bench
            .borrow_mut()
            .run(&case)
            .map_err(|f| TestCaseError::fail(f.to_string()))
    });
    let fail = |why: String, case: &bench::Case| -> ! {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/tb-failures");
        let _ = std::fs::create_dir_all(&dir);
        let fst = dir.join(format!("{}.fst", M::VARIANT));
        let mut b = Bench::<M>::new(M::VARIANT);
        let traced = match b.dut_trace(&fst) {
            Ok(()) => b.run(case).err().map_or("passed".into(), |f| f.to_string()),
            Err(e) => format!("no waveform: {e}"),
        };
        panic!(
            "{}: {why}\nminimal case: {case:#?}\nreplayed with a waveform: {traced}\n  waveform: {}\n  rerun:    cargo test -p rdmagen-uar-tests --test uar_props -- --exact {test}   (proptest replays the saved seed first)",
            M::VARIANT,
            fst.display()
        );
    };
    match result {
        Ok(()) => {}
        Err(TestError::Fail(why, case)) => fail(why.to_string(), &case),
        Err(TestError::Abort(why)) => panic!("{why}"),
    }
    let cases_hostile = bench.borrow().stats.hostile;
    // The flood: one long case, so the reset and QPC clear are paid once.
    let (default_ops, min_hostile) = flood(M::VARIANT);
    let n = env("RDMAGEN_UAR_FLOOD", default_ops) as usize;
    let mut flood_runner = TestRunner::deterministic();
    let flood = strategy(&bench.borrow().model, n, n + 1)
        .new_tree(&mut flood_runner)
        .expect("flood case")
        .current();
    if let Err(f) = bench.borrow_mut().run(&flood) {
        fail(f.to_string(), &flood);
    }
    let b = bench.borrow();
    let s = &b.stats;
    eprintln!(
        "{}: {} writes ({} hostile: {} in the shrinking cases, {} in the flood), {} reads, {} fetches, {} BlueFlame WQEs, {} forwarded, {} cycles; max write-to-event latency {} cycles",
        M::VARIANT,
        s.writes,
        s.hostile,
        cases_hostile,
        s.hostile - cases_hostile,
        s.reads,
        s.fetches,
        s.blueflames,
        s.forwards,
        s.cycles,
        s.max_event_latency
    );
    if n >= default_ops as usize {
        assert!(s.reads > 0, "{}: no read was answered", M::VARIANT);
        assert!(
            s.hostile - cases_hostile >= min_hostile,
            "{}: the flood made only {} hostile accesses",
            M::VARIANT,
            s.hostile - cases_hostile
        );
    }
}

#[test]
fn uar_v4_q16() {
    check::<UarV4Q16>("uar_v4_q16");
}

#[test]
fn uar_v256_q64() {
    check::<UarV256Q64>("uar_v256_q64");
}

#[test]
fn mlx5_v4_q16() {
    check::<Mlx5V4Q16>("mlx5_v4_q16");
}

#[test]
fn mlx5_v256_q64() {
    check::<Mlx5V256Q64>("mlx5_v256_q64");
}
