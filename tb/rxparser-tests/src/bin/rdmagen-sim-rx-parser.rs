//! `rdmagen-sim-rx-parser --pcap FILE --qps QPS.yaml [--vf N]`: a capture through the
//! Verilated 512-bit `rx_top` (see `rdmagen_rxparser_tests::sim`). `rdmagen sim rx-parser ...`
//! runs this binary.

use std::process::ExitCode;

use rdmagen_harness::Model;
use rdmagen_rxparser_tests::bench::Bench;
use rdmagen_rxparser_tests::{sim, RxParserW512};

fn usage() -> ExitCode {
    eprintln!("usage: rdmagen sim rx-parser --pcap FILE --qps QPS.yaml [--vf N]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut pcap, mut qps, mut vf) = (None, None, "0".to_string());
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--pcap" => pcap = it.next().cloned(),
            "--qps" => qps = it.next().cloned(),
            "--vf" => vf = it.next().cloned().unwrap_or_default(),
            "-h" | "--help" => {
                println!("usage: rdmagen sim rx-parser --pcap FILE --qps QPS.yaml [--vf N]\n\nReplays a capture (Ethernet frames without FCS) through the Verilated 512-bit RX parser\nand QPC after creating the QPs and memory keys of QPS.yaml; one JSON line per frame.");
                return ExitCode::SUCCESS;
            }
            _ => return usage(),
        }
    }
    let (Some(pcap), Some(qps)) = (pcap, qps) else {
        return usage();
    };
    // A VF the simulated QPC does not have is a usage error too, like one that is no number.
    let num_vf = <RxParserW512 as Model>::param("NUM_VF").unwrap_or(256);
    let vf = match vf.parse::<u8>() {
        Ok(v) if i64::from(v) < num_vf => v,
        _ => {
            eprintln!(
                "error: --vf {vf}: expected a VF number 0..{} (the simulated QPC's NUM_VF = {num_vf})",
                num_vf - 1
            );
            return ExitCode::from(2);
        }
    };
    let capture = match std::fs::read(&pcap) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("error: cannot read {pcap}: {e}");
            return ExitCode::from(1);
        }
    };
    let yaml = match std::fs::read_to_string(&qps) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {qps}: {e}");
            return ExitCode::from(1);
        }
    };
    match sim::run(&mut Bench::<RxParserW512>::new(), &capture, &yaml, vf) {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e} (capture {pcap}, QPs {qps})");
            ExitCode::from(1)
        }
    }
}
