//! `rdmagen-sim-dcqcn --params P.yaml --events E.csv [--sample-us N] [--until-us N] --out
//! T.csv [--plot T.svg]` (also run as `rdmagen sim dcqcn ...`). Exit codes: 0 success, 1 bad
//! input or a failed run, 2 usage.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// DCQCN trajectory from the Verilated dcqcn_rp engine: Rc, Rt and alpha of every flow named
/// in the events, sampled every N µs.
#[derive(Parser)]
#[command(name = "rdmagen sim dcqcn", bin_name = "rdmagen sim dcqcn", version)]
struct Args {
    /// Parameters (YAML): the mlx5 names plus `mode`, `line_rate_mbps`, `clock_mhz`.
    #[arg(long)]
    params: PathBuf,
    /// Events (CSV): `t_ns,flow,event,bytes`, event `cnp` or `tx`.
    #[arg(long)]
    events: PathBuf,
    /// Sample period in µs.
    #[arg(long, default_value_t = 1)]
    sample_us: u32,
    /// Last sample time in µs (default: the last event's microsecond plus 3000).
    #[arg(long)]
    until_us: Option<u32>,
    /// Output CSV: `t_us,flow,rc_mbps,rt_mbps,alpha`.
    #[arg(long)]
    out: PathBuf,
    /// Also draw Rc and Rt over time per flow as an SVG chart.
    #[arg(long)]
    plot: Option<PathBuf>,
}

fn main() -> ExitCode {
    let a = Args::parse();
    let o = rdmagen_sim_dcqcn::Options {
        params: &a.params,
        events: &a.events,
        sample_us: a.sample_us,
        until_us: a.until_us,
        out: &a.out,
        plot: a.plot.as_deref(),
    };
    match rdmagen_sim_dcqcn::sim(&o) {
        Ok(summary) => {
            eprintln!("{}: {summary}", a.out.display());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
