//! Runs the `rdmagen-sim-dcqcn` command on the shipped inputs (and on a busier scenario) and
//! checks every row of its CSV against the reference model fed the same schedule.

use std::path::{Path, PathBuf};
use std::process::Command;

use rdmagen_refmodel::dcqcn::{Engine, Kind, Params};
use rdmagen_sim_dcqcn::{events, params};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn scratch(name: &str) -> PathBuf {
    let d = root().join("target/sim-dcqcn-tests");
    std::fs::create_dir_all(&d).unwrap();
    d.join(name)
}

/// Runs the command; returns the CSV text. The engine must have taken every event and
/// read-back in the microsecond it was meant for (the model below assumes it).
fn run(params: &Path, events: &Path, extra: &[&str], out: &Path, plot: Option<&Path>) -> String {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_rdmagen-sim-dcqcn"));
    cmd.arg("--params").arg(params).arg("--events").arg(events);
    cmd.args(extra).arg("--out").arg(out);
    if let Some(p) = plot {
        cmd.arg("--plot").arg(p);
    }
    let o = cmd.output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("busy"), "{err}");
    std::fs::read_to_string(out).unwrap()
}

/// The rows the reference model gives for the documented schedule: an event at `t_ns` in
/// cycle ⌊t_ns·clock_mhz/1000⌋, read-backs of every flow named in the events every
/// `sample_us` µs (cycle us·clock_mhz), events first in the same cycle.
fn model_rows(p: &Params, evs: &[events::Event], sample_us: u32, until_us: u32) -> Vec<String> {
    let cpu = u64::from(p.clk_per_us);
    let mut flows: Vec<u32> = evs.iter().map(|e| e.flow).collect();
    flows.sort();
    flows.dedup();
    let mut sched: Vec<(u64, u8, usize, Kind, u32, u32)> = Vec::new();
    for (i, e) in evs.iter().enumerate() {
        sched.push((e.t_ns * cpu / 1000, 0, i, e.kind, e.flow, e.bytes));
    }
    for us in (0..=until_us).step_by(sample_us as usize) {
        for (j, &f) in flows.iter().enumerate() {
            sched.push((u64::from(us) * cpu, 1, j, Kind::Read, f, 0));
        }
    }
    sched.sort_by_key(|s| (s.0, s.1, s.2));
    let mut m = Engine::new(1 << 16);
    let mut rows = Vec::new();
    for (cycle, _, _, kind, flow, bytes) in sched {
        let now = (cycle / cpu) as u32;
        let r = m.event(p, kind, flow, bytes, now).rsp;
        if kind == Kind::Read {
            rows.push(format!(
                "{},{},{},{},{}",
                now,
                flow,
                f64::from(r.rc) / 256.0,
                f64::from(r.rt) / 256.0,
                f64::from(r.alpha) / f64::from(1u32 << 24)
            ));
        }
    }
    rows
}

fn check(csv: &str, want: &[String]) {
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("t_us,flow,rc_mbps,rt_mbps,alpha"));
    let got: Vec<&str> = lines.collect();
    assert_eq!(got.len(), want.len(), "row count");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert_eq!(g, w, "row {}", i + 1);
    }
}

#[test]
fn shipped_one_cnp_matches_the_model() {
    let pf = root().join("sim/dcqcn/params.yaml");
    let ef = root().join("sim/dcqcn/one_cnp.csv");
    let svg = scratch("one_cnp.svg");
    let csv = run(&pf, &ef, &[], &scratch("one_cnp.csv"), Some(&svg));
    let p = params::parse("params.yaml", &std::fs::read_to_string(&pf).unwrap()).unwrap();
    let evs = events::parse(
        "one_cnp.csv",
        &std::fs::read_to_string(&ef).unwrap(),
        1 << 16,
    )
    .unwrap();
    check(&csv, &model_rows(&p, &evs, 1, 3000));
    // The trajectory itself: line rate until the first cut check at 4 µs, about 51% after it,
    // fast recovery from 304 µs on, close to the line rate at 3 ms.
    let rc = |t: usize| -> f64 {
        let line = csv.lines().nth(t + 1).unwrap();
        line.split(',').nth(2).unwrap().parse().unwrap()
    };
    assert_eq!(rc(3), 100_000.0);
    assert!((50_900.0..51_100.0).contains(&rc(4)), "{}", rc(4));
    assert_eq!(rc(303), rc(4));
    assert!(rc(304) > rc(303));
    assert!(rc(3000) > 99_000.0);
    let svg = std::fs::read_to_string(&svg).unwrap();
    for text in [
        "time (µs)",
        "rate (Gb/s)",
        "flow 0 Rc",
        "flow 0 Rt",
        "<polyline",
    ] {
        assert!(svg.contains(text), "the chart has no `{text}`");
    }
}

/// CNPs and sends a few µs apart on three flows, at varied points inside the microsecond,
/// with quiet stretches; spaced so the 4-cycle engine is never still busy at the next one.
/// Runs `yaml` on them and compares every row with the model.
fn three_flows(name: &str, yaml: &str, every_tx: u64) {
    let pf = scratch(&format!("{name}.yaml"));
    std::fs::write(&pf, yaml).unwrap();
    let mut text = String::from("t_ns,flow,event,bytes\n");
    for i in 0..80u64 {
        let flow = [7u32, 300, 65535][(i % 3) as usize];
        let kind = if i % every_tx != 0 { "tx" } else { "cnp" };
        text.push_str(&format!(
            "{},{flow},{kind},9000\n",
            i * 3000 + (i * i * 37) % 900 + 50 + 90_000 * (i / 20)
        ));
    }
    let ef = scratch(&format!("{name}.csv"));
    std::fs::write(&ef, &text).unwrap();
    let out = scratch(&format!("{name}_t.csv"));
    let csv = run(
        &pf,
        &ef,
        &["--sample-us", "7", "--until-us", "1200"],
        &out,
        None,
    );
    let p = params::parse("p.yaml", yaml).unwrap();
    let evs = events::parse("e.csv", &text, 1 << 16).unwrap();
    check(&csv, &model_rows(&p, &evs, 7, 1200));
}

#[test]
fn cnp_bursts_and_sends_on_three_flows_match_the_model() {
    three_flows(
        "mlx5",
        "mode: mlx5\nline_rate_mbps: 25000\nclock_mhz: 500\nrpg_time_reset: 20\nrate_reduce_monitor_period: 3\nrpg_byte_reset: 0\nshaper_burst: 20000\n",
        4,
    );
}

#[test]
fn paper_mode_with_the_byte_counter_matches_the_model() {
    three_flows(
        "paper",
        "mode: paper\nline_rate_mbps: 40000\nclock_mhz: 500\nrpg_time_reset: 25\nrpg_byte_reset: 20000\nrpg_threshold: 2\nrpg_ai_rate: 40\nrpg_hai_rate: 100\ndce_tcp_g: 1020\ndce_tcp_rtt: 10\nshaper_burst: 20000\n",
        5,
    );
}

#[test]
fn bad_inputs_fail_with_the_line() {
    let pf = scratch("bad.yaml");
    std::fs::write(&pf, "mode: mlx5\nrpg_ai_rate: 5\nrpg_time_rest: 300\n").unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rdmagen-sim-dcqcn"))
        .arg("--params")
        .arg(&pf)
        .arg("--events")
        .arg(root().join("sim/dcqcn/one_cnp.csv"))
        .arg("--out")
        .arg(scratch("bad.csv"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("bad.yaml:3: unknown key `rpg_time_rest`"),
        "{err}"
    );
}

/// A quiet stretch longer than the hang limit (2,000,000 cycles: 4 ms at 500 MHz) between
/// events, with no read-back in it, is idle time, not a hung engine; the rows still match the
/// model.
#[test]
fn a_quiet_gap_longer_than_the_hang_limit_is_not_a_hang() {
    let pf = root().join("sim/dcqcn/params.yaml");
    let text = "t_ns,flow,event,bytes\n0,5,cnp,0\n5000000,5,cnp,0\n";
    let ef = scratch("gap.csv");
    std::fs::write(&ef, text).unwrap();
    let csv = run(
        &pf,
        &ef,
        &["--sample-us", "10000", "--until-us", "10000"],
        &scratch("gap_t.csv"),
        None,
    );
    let p = params::parse("params.yaml", &std::fs::read_to_string(&pf).unwrap()).unwrap();
    let evs = events::parse("gap.csv", text, 1 << 16).unwrap();
    check(&csv, &model_rows(&p, &evs, 10000, 10000));
}

/// A run of more read-backs than `run::MAX_READS` is refused at once: the schedule of
/// 4,000,000,001 read-backs was built in memory before the first cycle (gigabytes).
#[test]
fn too_many_read_backs_are_refused_before_the_run() {
    let o = Command::new(env!("CARGO_BIN_EXE_rdmagen-sim-dcqcn"))
        .arg("--params")
        .arg(root().join("sim/dcqcn/params.yaml"))
        .arg("--events")
        .arg(root().join("sim/dcqcn/one_cnp.csv"))
        .args(["--until-us", "4000000000", "--out"])
        .arg(scratch("long_t.csv"))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("4000000001 samples × 1 flow(s) = 4000000001 read-backs, more than 10000000"),
        "{err}"
    );
}

/// An event past 2**32 µs is an input error naming it, also when `--until-us` is given (the
/// default end time is checked on its own): it overflowed the cycle count, a panic.
#[test]
fn an_event_past_the_engine_time_is_an_error_not_a_panic() {
    let ef = scratch("far.csv");
    std::fs::write(
        &ef,
        "t_ns,flow,event,bytes\n0,0,cnp,0\n100000000000000000,0,cnp,0\n",
    )
    .unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_rdmagen-sim-dcqcn"))
        .arg("--params")
        .arg(root().join("sim/dcqcn/params.yaml"))
        .arg("--events")
        .arg(&ef)
        .args(["--until-us", "10", "--out"])
        .arg(scratch("far_t.csv"))
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("event 2: t_ns 100000000000000000 is past 2**32 µs"),
        "{err}"
    );
}
