//! The input readers of `rdmagen sim` on any bytes, no panic or hang: the DCQCN events CSV and
//! parameters YAML, the RX parser's QPS.yaml and capture (pcap / pcapng), the UAR trace. The
//! first byte picks the reader (and the UAR model's page bits); the rest is the file. The
//! readers live in the simulators' crates, which need Verilator: they are included by path.
#![no_main]
#![allow(dead_code)]

use libfuzzer_sys::fuzz_target;

#[path = "../../sim-dcqcn/src/events.rs"]
mod events;
#[path = "../../sim-dcqcn/src/params.rs"]
mod params;
#[path = "../../rxparser-tests/src/input.rs"]
mod rx_input;
#[path = "../../uar-tests/src/trace.rs"]
mod uar_trace;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, file)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(file);
    match pick % 5 {
        // The simulator's engine: 65,536 flows.
        0 => drop(events::parse("e.csv", &text, 1 << 16)),
        1 => drop(params::parse("p.yaml", &text)),
        // The simulated QPC: 4 VFs of 16 QPs, 64 memory keys.
        2 => drop(rx_input::parse_qps(&text, pick >> 3, 4, 16, 64)),
        3 => drop(rx_input::read_pcap(file)),
        _ => {
            for (i, line) in text.lines().enumerate() {
                let _ = uar_trace::parse_line(line, i + 1, 4, u32::from(pick >> 5));
            }
        }
    }
});
