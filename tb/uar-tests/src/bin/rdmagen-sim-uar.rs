//! `rdmagen-sim-uar --trace FILE [--map uar|mlx5]`: the Verilated UAR + QPC top on a
//! JSON-lines trace (see `rdmagen_uar_tests::sim`). `rdmagen sim uar ...` runs this binary.

use std::process::ExitCode;

use rdmagen_uar_tests::bench::Bench;
use rdmagen_uar_tests::{sim, Mlx5V4Q16, UarV4Q16};

fn usage() -> ExitCode {
    eprintln!("usage: rdmagen sim uar --trace FILE [--map uar|mlx5]");
    ExitCode::from(2)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut trace = None;
    let mut map = "uar".to_string();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--trace" => trace = it.next().cloned(),
            "--map" => map = it.next().cloned().unwrap_or_default(),
            "-h" | "--help" => {
                println!("usage: rdmagen sim uar --trace FILE [--map uar|mlx5]\n\nRuns a JSON-lines trace of QP set-ups and UAR writes through the Verilated UAR + QPC top\n(uar_top, or uar_mlx5_top with --map mlx5); one JSON line per write.");
                return ExitCode::SUCCESS;
            }
            _ => return usage(),
        }
    }
    let Some(path) = trace else { return usage() };
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) => {
            eprintln!("error: cannot read {path}: {e}");
            return ExitCode::from(1);
        }
    };
    let result = match map.as_str() {
        "uar" => sim::run(&mut Bench::<UarV4Q16>::new("uar_v4_q16"), &text),
        "mlx5" => sim::run(&mut Bench::<Mlx5V4Q16>::new("mlx5_v4_q16"), &text),
        other => {
            eprintln!("error: --map {other}: expected uar or mlx5");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(lines) => {
            for l in lines {
                println!("{l}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {path}: {e}");
            ExitCode::from(1)
        }
    }
}
