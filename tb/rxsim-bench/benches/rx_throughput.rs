//! RX parser throughput against frame size at 64, 512 and 1024 bits, counted in simulated
//! cycles (`rdmagen_rxsim_bench::throughput`), converted to Gb/s at a stated clock; writes
//! the rows as JSON and the chart as SVG.
//!
//! `cargo bench -p rdmagen-rxsim-bench --features widths --bench rx_throughput -- [--frames N] [--clock-mhz F] [--json FILE] [--svg FILE]`

use std::path::PathBuf;
use std::time::Instant;

use rdmagen_rxsim_bench::throughput::{measure, svg, Row, SIZES};
use rdmagen_rxsim_bench::{RxSimW1024, RxSimW512, RxSimW64};

fn main() {
    if let Err(e) = run() {
        eprintln!("rx_throughput: {e}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |k: &str| {
        args.iter()
            .position(|a| a == k)
            .and_then(|i| args.get(i + 1))
            .cloned()
    };
    let frames: usize = opt("--frames").map_or(Ok(32), |v| v.parse().map_err(|_| "--frames"))?;
    let clock: f64 =
        opt("--clock-mhz").map_or(Ok(250.0), |v| v.parse().map_err(|_| "--clock-mhz"))?;
    let t0 = Instant::now();
    let mut rows: Vec<Row> = Vec::new();
    rows.extend(measure::<RxSimW64>(SIZES, frames)?);
    rows.extend(measure::<RxSimW512>(SIZES, frames)?);
    rows.extend(measure::<RxSimW1024>(SIZES, frames)?);
    println!(
        "rx_throughput: {frames} back-to-back RC SEND frames per size to one QP, sinks always ready, every verdict accept at tlast + {} cycles; Gb/s at {clock} MHz; {:.1} s",
        rdmagen_rxsim_bench::rig::VERDICT_LATENCY,
        t0.elapsed().as_secs_f64()
    );
    println!("width bytes frames beats cycles frames/cycle beats/cycle Gb/s");
    let mut json = Vec::new();
    for r in &rows {
        println!(
            "{} {} {} {} {} {:.4} {:.4} {:.1}",
            r.width,
            r.frame_bytes,
            r.frames,
            r.beats,
            r.cycles,
            r.frames_per_cycle(),
            r.beats_per_cycle(),
            r.gbps(clock)
        );
        json.push(serde_json::json!({
            "width": r.width,
            "frame_bytes": r.frame_bytes,
            "frames": r.frames,
            "beats": r.beats,
            "cycles": r.cycles,
            "frames_per_cycle": r.frames_per_cycle(),
            "beats_per_cycle": r.beats_per_cycle(),
            "gbps": r.gbps(clock),
        }));
    }
    if let Some(p) = opt("--json") {
        let doc =
            serde_json::json!({ "clock_mhz": clock, "frames_per_size": frames, "rows": json });
        let text = serde_json::to_string_pretty(&doc).map_err(|e| e.to_string())?;
        std::fs::write(&p, text + "\n").map_err(|e| format!("{p}: {e}"))?;
    }
    if let Some(p) = opt("--svg") {
        svg(&rows, clock, &PathBuf::from(p))?;
    }
    Ok(())
}
