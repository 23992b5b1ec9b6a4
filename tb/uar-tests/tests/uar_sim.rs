//! `rdmagen sim uar` on the shipped example trace gives the shipped output, and bad traces
//! give clear errors.

use std::path::Path;

use rdmagen_uar_tests::bench::Bench;
use rdmagen_uar_tests::{sim, UarV4Q16};

fn read(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../sim/uar")
        .join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn example_trace_gives_the_shipped_output() {
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    let got = sim::run(&mut b, &read("example.jsonl")).unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<String> = read("example.expected.jsonl")
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
    // The same trace saved with a byte order mark (it was "line 1, column 1: expected value").
    let marked = format!("\u{feff}{}", read("example.jsonl"));
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    let again = sim::run(&mut b, &marked).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, want);
    let results: Vec<&str> = ["fetch", "pending", "drop", "blueflame"].to_vec();
    for r in results {
        assert!(
            got.iter()
                .any(|l| l.contains(&format!("\"result\":\"{r}\""))),
            "no {r} line"
        );
    }
}

#[test]
fn bad_traces_are_errors() {
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    for (trace, says) in [
        ("{\"op\":\"nope\",\"vf\":0}", "is not `qp` or `write`"),
        (
            "{\"op\":\"write\",\"vf\":9,\"page\":0,\"offset\":0,\"data\":\"00\"}",
            "NUM_VF",
        ),
        (
            "{\"op\":\"write\",\"vf\":0,\"page\":0,\"offset\":\"0x800\",\"data\":\"0g\"}",
            "not hex",
        ),
        (
            "{\"op\":\"qp\",\"vf\":0,\"qpn\":1,\"state\":\"XYZ\",\"uar_page\":0}",
            "state",
        ),
        ("not json", "line 1"),
        // Wider than the QPC's 24-bit fields: the RTL would cut them and the model not.
        (
            "{\"op\":\"qp\",\"vf\":0,\"qpn\":1,\"state\":\"RTS\",\"pd\":16777216,\"uar_page\":0}",
            "line 1: `pd` 0x1000000 does not fit the QPC's 24-bit field",
        ),
        (
            "{\"op\":\"qp\",\"vf\":0,\"qpn\":1,\"state\":\"RTS\",\"uar_page\":16777216}",
            "line 1: `uar_page` 0x1000000 does not fit the QPC's 24-bit field",
        ),
    ] {
        let e = sim::run(&mut b, trace).expect_err(trace);
        assert!(e.contains(says), "{trace}: {e}");
    }
}
