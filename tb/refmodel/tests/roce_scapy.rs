//! scapy as an independent oracle for the RoCEv2 builder, decoder, ICRC and parser model:
//! `scripts/scapy-roce.py` builds frames with `scapy.contrib.roce` (which computes the
//! ICRC its own way), and every well-formed one must decode, be accepted, and be rebuilt by
//! our builder byte for byte; the corrupted ones must get the drop reason scapy's side
//! names. Needs scapy in `.venv` (`scripts/setup.sh`); `RDMAGEN_PYTHON` overrides the
//! interpreter and `RDMAGEN_SCAPY_FRAMES` the frame count.

use std::path::PathBuf;
use std::process::Command;

use rdmagen_refmodel::roce::{decode, icrc, DropReason, RxParserModel, Verdict};

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex from the script"))
        .collect()
}

#[test]
fn scapy_built_frames_agree_with_the_model() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..");
    let python = std::env::var("RDMAGEN_PYTHON")
        .map(PathBuf::from)
        .unwrap_or_else(|_| root.join(".venv/bin/python"));
    let count = std::env::var("RDMAGEN_SCAPY_FRAMES").unwrap_or_else(|_| "400".into());
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("scapy-roce.hex");
    let status = Command::new(&python)
        .arg(root.join("scripts/scapy-roce.py"))
        .arg(&out)
        .arg(&count)
        .status()
        .unwrap_or_else(|e| panic!("{}: {e} (run scripts/setup.sh)", python.display()));
    assert!(status.success(), "scripts/scapy-roce.py failed: {status}");
    let text = std::fs::read_to_string(&out).unwrap();
    let model = RxParserModel::default();
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for (i, line) in text.lines().enumerate() {
        let (expect, hex) = line.split_once(' ').unwrap();
        let frame = unhex(hex);
        let out = model.classify(&frame, false, 0);
        *seen.entry(expect).or_default() += 1;
        let want = match expect {
            "accept" => None,
            "bad_icrc" => Some(DropReason::BadIcrc),
            "fragment" => Some(DropReason::Fragment),
            "not_roce" => Some(DropReason::NotRoce),
            other => panic!("unknown expectation {other}"),
        };
        assert_eq!(out.reason, want, "frame {i}: {hex}");
        if want.is_none() {
            assert_eq!(out.verdict, Verdict::Accept);
            let at = frame.len() - 4;
            let carried = u32::from_le_bytes(frame[at..].try_into().unwrap());
            assert_eq!(icrc(&frame), Some(carried), "frame {i}: ICRC");
            let p = decode(&frame).unwrap_or_else(|e| panic!("frame {i}: {e}"));
            assert_eq!(p.to_bytes().unwrap(), frame, "frame {i}: rebuilt differs");
        }
    }
    // The script's mix: mostly well-formed frames, and every kind of corruption.
    assert!(seen["accept"] * 2 > text.lines().count(), "{seen:?}");
    assert!(seen.len() == 4, "{seen:?}");
}
