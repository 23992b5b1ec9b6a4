//! `rdmagen sim rx-parser` on the shipped example capture gives the shipped output (every
//! verdict appears), and bad captures or QP files give clear errors.

use std::path::Path;

use rdmagen_rxparser_tests::bench::Bench;
use rdmagen_rxparser_tests::{sim, RxParserW512};

fn example(name: &str) -> Vec<u8> {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../sim/rx-parser")
        .join(name);
    std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn qps() -> String {
    String::from_utf8(example("example-qps.yaml")).unwrap()
}

#[test]
fn example_capture_gives_the_shipped_output() {
    let mut b = Bench::<RxParserW512>::new();
    let got =
        sim::run(&mut b, &example("example.pcap"), &qps(), 0).unwrap_or_else(|e| panic!("{e}"));
    let want: Vec<String> = String::from_utf8(example("example.expected.jsonl"))
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(got, want);
    // The same QP file saved with a byte order mark (it was "not YAML: 2:4: mapping values are
    // not allowed in this context").
    let marked = format!("\u{feff}{}", qps());
    let again =
        sim::run(&mut b, &example("example.pcap"), &marked, 0).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(again, want);
    for v in ["accept", "duplicate", "nak_seq", "nak_access", "drop"] {
        assert!(
            got.iter()
                .any(|l| l.contains(&format!("\"verdict\":\"{v}\""))),
            "no {v} line"
        );
    }
}

#[test]
fn bad_inputs_are_errors() {
    let pcap = example("example.pcap");
    let mut b = Bench::<RxParserW512>::new();
    for (yaml, says) in [
        (
            "qps: [{vf: 0, qpn: 0x123, state: RTS, st: XX, pd: 1}]",
            "st `XX`",
        ),
        (
            "qps: [{vf: 0, qpn: 0x123, state: ON, st: RC, pd: 1}]",
            "state `ON`",
        ),
        ("qps: [{vf: 0, qpn: 0x123, st: RC, pd: 1}]", "no `state`"),
        (
            "qps: [{vf: 0, qpn: 0x12345, state: RTS, st: RC, pd: 1}]",
            "belongs to VF",
        ),
        (
            "qps: [{vf: 0, qpn: 0x4000, state: RTS, st: RC, pd: 1}]",
            "belongs to VF",
        ),
        (
            "qps: [{vf: 0, qpn: 0xFFF, state: RTS, st: RC, pd: 1}]",
            "QPS_PER_VF",
        ),
        (
            "qps: [{vf: 0, qpn: 1, state: RTS, st: RC, pd: zz}]",
            "0x-hex",
        ),
        (
            "qps: [{vf: 0, qpn: 1, state: RTS, st: RC, pd: 1, colour: red}]",
            "unknown field",
        ),
        (
            "keys: [{rkey: 0x1234, pd: 1, va: 0, length: 1, access: [remote_jump]}]",
            "access",
        ),
        (
            "keys: [{rkey: 0xFFFFFF00, pd: 1, va: 0, length: 1}]",
            "NUM_MKEYS",
        ),
        ("qps: 7", "must be a list"),
        ("[1, 2", "not YAML"),
    ] {
        let e = sim::run(&mut b, &pcap, yaml, 0).expect_err(yaml);
        assert!(e.contains(says), "{yaml}: {e}");
    }
    for (capture, says) in [
        (b"not a capture at all".to_vec(), "capture: not a pcap"),
        (
            pcap[..30].to_vec(),
            "capture: packet 0: the file ends inside it (a truncated capture)",
        ),
        (
            pcap[..pcap.len() - 7].to_vec(),
            "the file ends inside it (a truncated capture)",
        ),
        (
            pcap[..20].to_vec(),
            "capture: not a pcap capture: the file ends inside it",
        ),
    ] {
        let e = sim::run(&mut b, &capture, &qps(), 0).expect_err(says);
        assert!(e.contains(says), "{e}");
    }
    let e = sim::run(&mut b, &pcap, &qps(), 9).expect_err("vf 9");
    assert!(e.contains("NUM_VF"), "{e}");
}

/// `--vf` past the simulated QPC's VFs is a usage error (exit 2), as a `--vf` that is no
/// number is; it was exit 1, the code of a bad input file.
#[test]
fn a_vf_the_qpc_does_not_have_is_a_usage_error() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../sim/rx-parser");
    let run = |vf: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rdmagen-sim-rx-parser"))
            .args(["--pcap", &format!("{dir}/example.pcap")])
            .args(["--qps", &format!("{dir}/example-qps.yaml"), "--vf", vf])
            .output()
            .expect("rdmagen-sim-rx-parser runs")
    };
    for vf in ["x", "255", "300"] {
        let out = run(vf);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "--vf {vf}: {err}");
        assert!(err.contains("expected a VF number 0.."), "{err}");
    }
    assert_eq!(run("0").status.code(), Some(0));
}
