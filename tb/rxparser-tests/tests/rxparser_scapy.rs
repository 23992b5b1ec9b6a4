//! Frames built by scapy (`scripts/scapy-roce.py`, `scapy.contrib.roce` computing the
//! ICRC) streamed through the Verilated parser at both widths: the RTL must give the
//! verdict scapy's side expects (accept, bad ICRC, fragment, not RoCE) and agree with the
//! model on every field and counter. Needs scapy in `.venv` (`scripts/setup.sh`);
//! `RDMAGEN_PYTHON` overrides the interpreter.

use std::path::PathBuf;
use std::process::Command;

use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;
use rdmagen_refmodel::roce::{DropReason, RxConfig};
use rdmagen_rxparser_tests::bench::{Bench, RawFrame};
use rdmagen_rxparser_tests::{RxParserW512, RxParserW64};

fn scapy_frames() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var("RDMAGEN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join(".venv/bin/python"));
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("rx-scapy.hex");
    let status = Command::new(&python)
        .arg(root.join("scripts/scapy-roce.py"))
        .arg(&out)
        .arg("300")
        .arg("6")
        .status()
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh)", python.display()));
    assert!(status.success(), "scripts/scapy-roce.py failed: {status}");
    std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| {
            let (kind, hex) = l.split_once(' ').unwrap();
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (kind.to_string(), bytes)
        })
        .collect()
}

fn run<M: Model>() {
    let frames = scapy_frames();
    let raw: Vec<RawFrame> = frames
        .iter()
        .enumerate()
        .map(|(i, (_, bytes))| RawFrame {
            bytes: bytes.clone(),
            bad_fcs: false,
            vf: i as u8,
        })
        .collect();
    let mut b = Bench::<M>::new();
    let tally = b
        .run_raw(
            7,
            Profile::new(30, 3),
            Profile::new(30, 3),
            &RxConfig::default(),
            &raw,
            false,
        )
        .unwrap_or_else(|f| panic!("{}: {f}", M::VARIANT));
    let count = |k: &str| frames.iter().filter(|(x, _)| x == k).count() as u64;
    let drops = |r: DropReason| tally.drops.get(&r.code()).copied().unwrap_or(0);
    assert_eq!(tally.passed_headers, count("accept"), "{tally:?}");
    assert_eq!(drops(DropReason::BadIcrc), count("bad_icrc"));
    assert_eq!(drops(DropReason::Fragment), count("fragment"));
    assert_eq!(drops(DropReason::NotRoce), count("not_roce"));
    eprintln!(
        "{}: {} scapy frames: {} passed the header checks, {} bad ICRC, {} fragments, {} not RoCE",
        M::VARIANT,
        frames.len(),
        tally.passed_headers,
        count("bad_icrc"),
        count("fragment"),
        count("not_roce")
    );
}

#[test]
fn scapy_frames_w64() {
    run::<RxParserW64>();
}

#[test]
fn scapy_frames_w512() {
    run::<RxParserW512>();
}
