//! `rdmagen sim dcqcn`: a DCQCN trajectory computed by the Verilated `dcqcn_rp` engine.
//!
//! [`params`] reads `P.yaml` (user units, checked against the CSR widths), [`events`] reads
//! `E.csv`, [`run`] drives the RTL (the 65,536-flow model verilated by `rdmagen-dcqcn-tests`,
//! so no second Verilator build) and checks every response against the reference model, and
//! [`plot`] draws the chart. The `rdmagen` CLI runs the `rdmagen-sim-dcqcn` binary, so the
//! generator builds without Verilator.

pub mod events;
pub mod params;
pub mod plot;
pub mod run;

use std::path::Path;

/// The Verilated engine the simulator runs: 65,536 flows.
pub type Rtl = rdmagen_dcqcn_tests::DcqcnRpF64k;

/// The options of one run.
#[derive(Clone, Debug)]
pub struct Options<'a> {
    pub params: &'a Path,
    pub events: &'a Path,
    pub sample_us: u32,
    /// Last sample time; `None`: the last event's microsecond plus 3000.
    pub until_us: Option<u32>,
    pub out: &'a Path,
    pub plot: Option<&'a Path>,
}

/// Reads the inputs, runs the RTL, writes the CSV (and the chart). Returns a one-line summary.
pub fn sim(o: &Options) -> Result<String, String> {
    use rdmagen_harness::Model;
    let read = |p: &Path| std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()));
    let params = params::parse(&o.params.display().to_string(), &read(o.params)?)?;
    let flows = 1u32 << Rtl::param("FLOW_BITS").unwrap_or(16);
    let evs = events::parse(&o.events.display().to_string(), &read(o.events)?, flows)?;
    if o.sample_us == 0 {
        return Err("--sample-us must be at least 1".into());
    }
    let last_us = evs.last().map(|e| e.t_ns / 1000).unwrap_or(0);
    let until = match o.until_us {
        Some(u) => u,
        None => {
            u32::try_from(last_us + 3000).map_err(|_| "the events run past 2**32 µs".to_string())?
        }
    };
    let trace = run::simulate::<Rtl>(&params, &evs, o.sample_us, until)?;
    let mut csv = String::from(run::CSV_HEADER);
    csv.push('\n');
    for r in &trace.rows {
        csv.push_str(&r.csv());
        csv.push('\n');
    }
    std::fs::write(o.out, csv).map_err(|e| format!("{}: {e}", o.out.display()))?;
    if let Some(svg) = o.plot {
        let title = format!(
            "DCQCN ({} mode) from the RTL: {} on {}",
            if params.paper { "PAPER" } else { "mlx5" },
            o.events.file_name().unwrap_or_default().to_string_lossy(),
            o.params.file_name().unwrap_or_default().to_string_lossy()
        );
        plot::svg(&trace.rows, params.line_rate, &title, svg)?;
    }
    let mut s = format!(
        "{} events, {} rows, {} cycles at {} MHz",
        evs.len(),
        trace.rows.len(),
        trace.cycles,
        params.clk_per_us
    );
    if trace.late_events + trace.late_samples > 0 {
        s.push_str(&format!(
            "; the engine was busy: {} events and {} read-backs taken in a later microsecond",
            trace.late_events, trace.late_samples
        ));
    }
    Ok(s)
}
