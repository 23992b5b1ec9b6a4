//! Simulation speed on `rx_top` (512 bits): the Rust harness (the generated port struct)
//! against a plain C++ Verilator harness (`benches/cpp_harness.cpp`), both replaying the same
//! recorded pin file (`src/pins.rs`) cycle for cycle and folding every output into the same
//! checksum; interleaved, median of 5 rounds. The checksums must agree with each other and
//! with the recording run's.
//!
//! `cargo bench -p rdmagen-rxsim-bench --features verilated --bench rx_speed -- --pins FILE [--record] [--frames N] [--passes N]`
//!
//! `--record` first records the stimulus (`rdmagen_rxsim_bench::stimulus::record`, N frames)
//! into FILE; without it FILE is read (another Verilator's run recorded it). `--peer BENCH
//! CPP` also runs, in the same rounds, the Rust round of another build of this benchmark
//! (`BENCH --round-rust`) and its C++ harness: the two Verilators compared interleaved.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use rdmagen_harness::Model;
use rdmagen_rxsim_bench::pins::{fold, PinFile, FOLD, INPUTS};
use rdmagen_rxsim_bench::{stimulus, RxSimW512};

/// One pass over the pin file through the typed port struct; returns its checksum.
/// `$i`: the inputs in row order; `$o / $q`: the checksum's outputs and qualifiers.
macro_rules! pass_fn {
    ([$($i:ident),*], [$($o:ident $(/ $q:ident)?),*]) => {
        const MACRO_INPUTS: &[&str] = &[$(stringify!($i)),*];
        const MACRO_FOLD: &[(&str, Option<&str>)] = &[$((stringify!($o), pass_fn!(@q $($q)?))),*];

        #[allow(unused_assignments)]
        fn pass(dut: &mut RxSimW512, rows: &[u32], row: usize, offs: &[usize]) -> u64 {
            let mut sum = 0u64;
            for r in rows.chunks_exact(row) {
                let p = &dut.p;
                let mut k = 0;
                $(
                    p.$i.set_words(&r[offs[k]..offs[k + 1]]);
                    k += 1;
                )*
                dut.eval();
                // Reset cycles are not folded (src/pins.rs); `rst` is the first input.
                if r[0] == 0 {
                    let p = &dut.p;
                    $(
                        sum = fold(sum, pass_fn!(@val p, $o $(, $q)?));
                    )*
                }
                dut.tick();
            }
            sum
        }
    };
    (@q) => { None };
    (@q $q:ident) => { Some(stringify!($q)) };
    (@val $p:ident, $o:ident) => { $p.$o.get_u64() };
    (@val $p:ident, $o:ident, $q:ident) => {
        if $p.$q.get_u64() != 0 { $p.$o.get_u64() } else { 0 }
    };
}

pass_fn!(
    [
        rst,
        s_axil_awaddr,
        s_axil_awprot,
        s_axil_awvalid,
        s_axil_wdata,
        s_axil_wstrb,
        s_axil_wvalid,
        s_axil_bready,
        s_axil_araddr,
        s_axil_arprot,
        s_axil_arvalid,
        s_axil_rready,
        s_axis_tdata,
        s_axis_tkeep,
        s_axis_tvalid,
        s_axis_tlast,
        s_axis_tuser,
        m_hdr_ready,
        m_pay_tready,
        m_ack_ready,
        qpc_s_axil_awaddr,
        qpc_s_axil_awprot,
        qpc_s_axil_awvalid,
        qpc_s_axil_wdata,
        qpc_s_axil_wstrb,
        qpc_s_axil_wvalid,
        qpc_s_axil_bready,
        qpc_s_axil_araddr,
        qpc_s_axil_arprot,
        qpc_s_axil_arvalid,
        qpc_s_axil_rready
    ],
    [
        s_axil_awready,
        s_axil_wready,
        s_axil_bvalid,
        s_axil_bresp / s_axil_bvalid,
        s_axil_arready,
        s_axil_rvalid,
        s_axil_rdata / s_axil_rvalid,
        s_axil_rresp / s_axil_rvalid,
        s_axis_tready,
        m_hdr_valid,
        m_hdr_verdict / m_hdr_valid,
        m_hdr_reason / m_hdr_valid,
        m_hdr_vf / m_hdr_valid,
        m_hdr_opcode / m_hdr_valid,
        m_hdr_qpn / m_hdr_valid,
        m_hdr_psn / m_hdr_valid,
        m_hdr_se / m_hdr_valid,
        m_hdr_ack_req / m_hdr_valid,
        m_hdr_fecn / m_hdr_valid,
        m_hdr_becn / m_hdr_valid,
        m_hdr_pad / m_hdr_valid,
        m_hdr_va / m_hdr_valid,
        m_hdr_rkey / m_hdr_valid,
        m_hdr_dma_len / m_hdr_valid,
        m_hdr_imm / m_hdr_valid,
        m_hdr_src_qp / m_hdr_valid,
        m_hdr_ecn_ce / m_hdr_valid,
        m_hdr_cnp / m_hdr_valid,
        m_hdr_payload_len / m_hdr_valid,
        m_hdr_pay / m_hdr_valid,
        m_pay_tvalid,
        m_pay_tkeep / m_pay_tvalid,
        m_pay_tlast / m_pay_tvalid,
        m_pay_tuser / m_pay_tvalid,
        m_ack_valid,
        m_ack_vf / m_ack_valid,
        m_ack_qpn / m_ack_valid,
        m_ack_syndrome / m_ack_valid,
        m_ack_psn / m_ack_valid,
        cnp_valid,
        cnp_vf / cnp_valid,
        cnp_qpn / cnp_valid,
        ce_valid,
        ce_vf / ce_valid,
        ce_qpn / ce_valid,
        qpc_s_axil_awready,
        qpc_s_axil_wready,
        qpc_s_axil_bvalid,
        qpc_s_axil_bresp / qpc_s_axil_bvalid,
        qpc_s_axil_arready,
        qpc_s_axil_rvalid,
        qpc_s_axil_rdata / qpc_s_axil_rvalid,
        qpc_s_axil_rresp / qpc_s_axil_rvalid,
        qpc_irq_o
    ]
);

/// CPU seconds this process has used: rounds are timed in CPU time, which other jobs on a
/// shared machine disturb far less than wall time.
fn cpu_seconds() -> f64 {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `t` is a valid timespec; the clock id is a constant of this platform.
    unsafe { libc::clock_gettime(libc::CLOCK_PROCESS_CPUTIME_ID, &mut t) };
    t.tv_sec as f64 + t.tv_nsec as f64 * 1e-9
}

/// `passes` passes on a fresh model: (CPU seconds, checksum of a pass). Every pass must fold
/// to the file's checksum.
fn rust_round(pf: &PinFile, passes: u64) -> Result<(f64, u64), String> {
    let mut dut = RxSimW512::new();
    let (row, offs) = (pf.words_per_cycle(), pf.offsets());
    let t0 = cpu_seconds();
    for i in 0..passes {
        let s = pass(&mut dut, &pf.data, row, &offs);
        if s != pf.checksum {
            return Err(format!(
                "Rust harness pass {i}: checksum {s:016x}, file {:016x}",
                pf.checksum
            ));
        }
    }
    Ok((cpu_seconds() - t0, pf.checksum))
}

/// Runs `cmd` (a harness printing `seconds=S checksum=X`): (seconds, checksum).
fn timed_run(mut cmd: Command) -> Result<(f64, u64), String> {
    let out = cmd.output().map_err(|e| format!("run {cmd:?}: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!(
            "{cmd:?} failed: {}{}",
            text,
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let field = |k: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(k))
            .map(str::to_string)
            .ok_or_else(|| format!("{cmd:?} printed `{text}`"))
    };
    let s: f64 = field("seconds=")?.parse().map_err(|_| "seconds")?;
    let sum = u64::from_str_radix(&field("checksum=")?, 16).map_err(|_| "checksum")?;
    Ok((s, sum))
}

fn cpp_round(exe: &Path, pins: &Path, passes: u64) -> Result<(f64, u64), String> {
    let mut cmd = Command::new(exe);
    cmd.arg(pins).arg(passes.to_string());
    timed_run(cmd)
}

/// One Rust round of another build of this benchmark (the other Verilator's).
fn peer_rust_round(bench: &Path, pins: &Path, passes: u64) -> Result<(f64, u64), String> {
    let mut cmd = Command::new(bench);
    cmd.arg("--pins")
        .arg(pins)
        .args(["--passes", &passes.to_string(), "--round-rust"]);
    timed_run(cmd)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    if let Err(e) = run() {
        eprintln!("rx_speed: {e}");
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
    let pins = PathBuf::from(opt("--pins").ok_or("--pins FILE is required")?);
    let passes: u64 = opt("--passes").map_or(Ok(10), |v| v.parse().map_err(|_| "--passes"))?;
    let frames: usize = opt("--frames").map_or(Ok(300), |v| v.parse().map_err(|_| "--frames"))?;
    if MACRO_INPUTS != INPUTS || MACRO_FOLD != FOLD {
        return Err("the typed replay's port lists differ from src/pins.rs".into());
    }
    if args.iter().any(|a| a == "--record") {
        let t0 = Instant::now();
        let (pf, sum) = stimulus::record::<RxSimW512>(frames, 0x5EED_0F0A)?;
        pf.write(&pins)?;
        println!(
            "recorded {} cycles ({} frames, {} beats; verdicts {:?}) checked against the reference model in {:.2} s: {}",
            sum.cycles,
            sum.frames,
            sum.beats,
            sum.verdicts,
            t0.elapsed().as_secs_f64(),
            pins.display()
        );
    }
    let pf = PinFile::read(&pins)?;
    pf.check_lists()?;
    if args.iter().any(|a| a == "--round-rust") {
        // One round for a peer (see --peer).
        let (s, sum) = rust_round(&pf, passes)?;
        println!("seconds={s:.6} checksum={sum:016x}");
        return Ok(());
    }
    // The build script's C++ harness, unless RDMAGEN_RX_CPP_HARNESS names a copy
    // (scripts/bench-build.sh: the Debian and wheel builds write the same build-script directory).
    let cpp_exe = std::env::var_os("RDMAGEN_RX_CPP_HARNESS").map_or_else(
        || PathBuf::from(env!("RDMAGEN_RX_CPP_HARNESS")),
        PathBuf::from,
    );
    let me = std::env::current_exe().map_err(|e| e.to_string())?;
    println!(
        "rx_speed (Verilator {}): {} and {}",
        rdmagen_harness::VERILATOR_VERSION,
        me.display(),
        cpp_exe.display()
    );
    // --peer BENCH CPP: the same two harnesses built with another Verilator, run in the same
    // rounds (each in its own process, timed inside as ours are).
    let peer = args
        .iter()
        .position(|a| a == "--peer")
        .map(|i| match (args.get(i + 1), args.get(i + 2)) {
            (Some(b), Some(c)) => Ok((PathBuf::from(b), PathBuf::from(c))),
            _ => Err("--peer BENCH CPP_HARNESS"),
        })
        .transpose()?;
    let cycles = pf.cycles() as u64 * passes;
    let (mut rust, mut cpp, mut prust, mut pcpp) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 1..=5 {
        let (rs, rsum) = rust_round(&pf, passes)?;
        let (cs, csum) = cpp_round(&cpp_exe, &pins, passes)?;
        let mut sums = vec![rsum, csum];
        let (r, c) = (cycles as f64 / rs, cycles as f64 / cs);
        let mut line = format!(
            "round {round}: rust {:.3} Mcycles/s, c++ {:.3} Mcycles/s",
            r / 1e6,
            c / 1e6
        );
        if let Some((pb, pc)) = &peer {
            let (prs, prsum) = peer_rust_round(pb, &pins, passes)?;
            let (pcs, pcsum) = cpp_round(pc, &pins, passes)?;
            sums.extend([prsum, pcsum]);
            let (pr, pcc) = (cycles as f64 / prs, cycles as f64 / pcs);
            line += &format!(
                ", peer rust {:.3} Mcycles/s, peer c++ {:.3} Mcycles/s",
                pr / 1e6,
                pcc / 1e6
            );
            prust.push(pr);
            pcpp.push(pcc);
        }
        if sums.iter().any(|s| *s != rsum) {
            return Err(format!("checksums differ: {sums:016x?}"));
        }
        println!("{line}, checksum {rsum:016x}");
        rust.push(r);
        cpp.push(c);
    }
    let (r, c) = (median(rust), median(cpp));
    println!(
        "rx_speed: model rx_top (512 bits, NUM_VF=4 QPS_PER_VF=16 NUM_MKEYS=16, Verilator {}), {} passes of {} cycles per round, median of 5 interleaved rounds, cycles per CPU second, checksum {:016x}",
        rdmagen_harness::VERILATOR_VERSION,
        passes,
        pf.cycles(),
        pf.checksum
    );
    println!(
        "rust {:.3} Mcycles/s, c++ {:.3} Mcycles/s, ratio rust/c++ = {:.3}",
        r / 1e6,
        c / 1e6,
        r / c
    );
    if peer.is_some() {
        let (pr, pc) = (median(prust), median(pcpp));
        println!(
            "peer rust {:.3} Mcycles/s, peer c++ {:.3} Mcycles/s, ratio rust/peer rust = {:.3}, c++/peer c++ = {:.3}",
            pr / 1e6,
            pc / 1e6,
            r / pr,
            c / pc
        );
    }
    Ok(())
}
