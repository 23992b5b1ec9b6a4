//! QPC property tests: Verilated RTL against `rdmagen_refmodel::qpc` at two parameter sets
//! (4 VFs x 16 QPs, synchronous reset; 256 VFs x 64 QPs, asynchronous reset).
//!
//! `RDMAGEN_QPC_CASES` sets the number of cases per variant (default 150). A failing case
//! shrinks, replays on a fresh model with an FST waveform under `target/tb-failures/`, and
//! proptest keeps its seed in `proptest-regressions/`, so rerunning the test replays it first.

use std::cell::RefCell;
use std::path::Path;

use proptest::test_runner::{Config, FileFailurePersistence, TestCaseError, TestError, TestRunner};
use rdmagen_harness::{HasAxiLite, Model};
use rdmagen_qpc_tests::bench::{strategy, Bench};
use rdmagen_qpc_tests::*;

fn cases() -> u32 {
    std::env::var("RDMAGEN_QPC_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(150)
}

fn check<M: Model + HasAxiLite>(test: &str) {
    let bench = RefCell::new(Bench::<M>::new());
    let (vfs, qps, mkeys) = {
        let b = bench.borrow();
        (b.model().num_vf, b.model().qps, b.model().num_mkeys)
    };
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
    let result = runner.run(&strategy(vfs, qps, mkeys, 60), |case| {
        bench
            .borrow_mut()
            .run(&case)
            .map_err(|f| TestCaseError::fail(f.to_string()))
    });
    match result {
        Ok(()) => {
            let b = bench.borrow();
            eprintln!(
                "{}: {} cases, {} cycles, {} lookups ({} outside the requester's partition), {} R_Key checks, {} modifies that kept a written-back ePSN",
                M::VARIANT,
                cases(),
                b.total_cycles,
                b.lookups,
                b.hostile,
                b.rkey_checks,
                b.psn_kept
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
                "{}: {why}\nminimal case: {case:#?}\nreplayed with a waveform: {traced}\n  waveform: {}\n  rerun:    cargo test -p rdmagen-qpc-tests --test qpc_props -- --exact {test}   (proptest replays the saved seed first)",
                M::VARIANT,
                fst.display()
            );
        }
        Err(TestError::Abort(why)) => panic!("{why}"),
    }
}

#[test]
fn qpc_v4_q16() {
    check::<QpcV4Q16>("qpc_v4_q16");
}

#[test]
fn qpc_v256_q64() {
    check::<QpcV256Q64>("qpc_v256_q64");
}
