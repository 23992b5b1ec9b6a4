//! `rdmagen`: validate register maps and generate the CSR RTL, C headers, the Markdown/SVG
//! register reference, SystemRDL, IP-XACT and JSON, and the QPC and DCQCN blocks.
//!
//! Every generating command is all-or-nothing: all maps are validated and every output is
//! produced in memory before the first file is written, and unchanged files are left alone.
//!
//! Exit codes: 0 success, 1 a map is invalid (diagnostics on stderr), 2 usage or I/O error.
//! `diff` has its own: 0 compatible, 1 breaking (or, with `--check-version`, a breaking change
//! without the version bump it needs), 2 error (see docs/diff.md); so has `versions`: 0 every
//! version the map had in git still holds, 1 one does not, 2 error.

mod alloc;
mod history;

use std::collections::VecDeque;
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::{Mutex, PoisonError};

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use rdmagen_regmap::{LoadError, RegMap};
use verilog_ast::ResetStyle;

// Generating a big map allocates millions of small strings and syntax nodes on several threads;
// mimalloc does that at about half the CPU time of the C library's allocator (see
// docs/BENCHMARKS.gen.md); `alloc` says why not through `mimalloc::MiMalloc`.
#[global_allocator]
static ALLOCATOR: alloc::Allocator = alloc::Allocator;

#[derive(Parser)]
#[command(
    name = "rdmagen",
    version,
    about = "Register maps to Verilog for RDMA NIC hardware"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Validate maps and report every problem with file:line:col and a hint.
    Check {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// Diagnostic style: `human` (carets and labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the QPC block (`<block>.v`: context RAMs, command engine, lookup ports) of a
    /// map with a `qpc` memory, such as register-maps/qpc.yaml.
    Qpc {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the RoCEv2 RX parser (`<block>.v`: header extraction, checks, datapath
    /// ICRC, one verdict per frame) of a map shaped like register-maps/rx_parser.yaml.
    RxParser {
        map: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        /// AXI4-Stream data width in bits: 64, 128, 256, 512 or 1024.
        #[arg(long, default_value_t = 512)]
        width: u32,
        /// Also write `rx_top.v`: the parser wired to this QPC map's block (QP lookup,
        /// ePSN write-back, R_Key check).
        #[arg(long)]
        qpc: Option<PathBuf>,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the AXI4-Lite CSR block (`<block>_csr.v`) of each map.
    Csr {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the DCQCN reaction-point engine (`dcqcn_rp.v`) and its top with the CSR block
    /// and the per-flow read-back window (`dcqcn_top.v`) from the dcqcn map.
    Dcqcn {
        map: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the UAR doorbell/BlueFlame block (`<block>.v`) of each map with a `uar_page`
    /// space (register-maps/uar.yaml, uar-mlx5.yaml); with `--qpc`, also `<block>_top.v`
    /// wiring it to that map's QPC block.
    Uar {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        /// The QPC map whose block checks the doorbells (writes `<block>_top.v`).
        #[arg(long)]
        qpc: Option<PathBuf>,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Classify every change between two versions of a map: breaking for software, breaking
    /// for hardware, or compatible; suggest the version bump.
    Diff {
        /// The old map: a file, or `git:REV:PATH` to read it with `git show REV:PATH`.
        old: String,
        /// The new map file.
        new: PathBuf,
        /// Output format.
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Fail (exit 1) only when a breaking change came without the version bump it needs.
        #[arg(long)]
        check_version: bool,
    },
    /// Check each map's `version` against its git history: against every commit that set a
    /// version (the current one and each earlier one), the changes since need the bump `diff`
    /// asks for. Catches a breaking change spread over commits, or made with too small a bump.
    Versions {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// The revision whose history is read (the map's file itself is read as it is now).
        #[arg(long, default_value = "HEAD")]
        rev: String,
    },
    /// Generate the C header (`<block>.h`) of each map.
    Header {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        #[arg(short, long, default_value = "sw/include")]
        out: PathBuf,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the Markdown register reference (`<block>.md`, `<block>/<register>.svg`).
    Docs {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        #[arg(short, long, default_value = "docs/regs")]
        out: PathBuf,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the SystemRDL 2.0 export (`<block>.rdl`) of each map.
    Rdl {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        #[arg(short, long, default_value = "export")]
        out: PathBuf,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the IP-XACT (IEEE 1685-2014) export (`<block>.xml`) of each map.
    Ipxact {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        #[arg(short, long, default_value = "export")]
        out: PathBuf,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Generate the JSON dump of the validated model (`<block>.json`) of each map.
    Json {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        #[arg(short, long, default_value = "export")]
        out: PathBuf,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
    /// Run a Verilated block on a scenario: `rdmagen sim dcqcn --params P.yaml --events E.csv
    /// --out T.csv [--plot T.svg]`, `rdmagen sim uar --trace FILE [--map uar|mlx5]`,
    /// `rdmagen sim rx-parser --pcap F.pcap --qps QPS.yaml [--vf N]`. Runs the
    /// `rdmagen-sim-<block>` binary next to this one (`cargo build --bin rdmagen-sim-<block>`;
    /// it needs Verilator, the generator does not).
    #[command(disable_help_flag = true)]
    Sim {
        /// The block: `dcqcn`, `uar` or `rx-parser`.
        #[arg(allow_hyphen_values = true)]
        block: String,
        /// The simulator's arguments (`rdmagen sim dcqcn --help` lists them).
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<std::ffi::OsString>,
    },
    /// Generate every output of each map: CSR RTL, C header, register reference, SystemRDL,
    /// IP-XACT, JSON.
    All {
        #[arg(required = true)]
        maps: Vec<PathBuf>,
        /// Root of the output directories that are not given one by one: OUT/rtl,
        /// OUT/sw/include, OUT/docs/regs and OUT/export, as in this repository (`-o` as in
        /// the other commands).
        #[arg(short, long, default_value = ".")]
        out: PathBuf,
        /// Directory of the CSR RTL [default: OUT/rtl].
        #[arg(long)]
        rtl: Option<PathBuf>,
        /// Directory of the C headers [default: OUT/sw/include].
        #[arg(long)]
        include: Option<PathBuf>,
        /// Directory of the register reference [default: OUT/docs/regs].
        #[arg(long)]
        docs: Option<PathBuf>,
        /// Directory of the SystemRDL, IP-XACT and JSON exports [default: OUT/export].
        #[arg(long)]
        export: Option<PathBuf>,
        /// Reset style of every flop: the project-wide setting.
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
        /// Diagnostics of an invalid map: `human` (carets, labels) or `short` (one line each).
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    /// One line per change, then a summary and the version verdict.
    Text,
    /// `{old, new, changes, summary, required_bump, required_version, version_ok}`, for
    /// scripts (docs/diff.md).
    Json,
    /// SARIF 2.1.0, results at the new map's file:line:col.
    Sarif,
}

/// Where each kind of output goes; `None` skips it.
#[derive(Default)]
struct Targets {
    rtl: Option<(PathBuf, ResetStyle)>,
    header: Option<PathBuf>,
    docs: Option<PathBuf>,
    rdl: Option<PathBuf>,
    ipxact: Option<PathBuf>,
    json: Option<PathBuf>,
}

/// One file to write: its text is the pieces one after the other.
struct Planned {
    path: PathBuf,
    pieces: Vec<String>,
}

impl Planned {
    fn new(path: PathBuf, text: String) -> Self {
        Planned {
            path,
            pieces: vec![text],
        }
    }
}

#[derive(Clone, Copy, ValueEnum)]
enum Format {
    Human,
    Short,
}

#[derive(Clone, Copy, ValueEnum)]
enum Reset {
    /// `rst`, synchronous, active high (the default).
    SyncHigh,
    /// `rst_n`, asynchronous assert, active low.
    AsyncLow,
}

fn main() -> ExitCode {
    alloc::no_transparent_huge_pages();
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) if code == ExitCode::SUCCESS => alloc::exit_success_without_cleanup(),
        Ok(code) => code,
        // Every subcommand, `diff` included, uses 2 for usage and I/O errors.
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Loads every map; prints diagnostics of the invalid ones. `None` if any map is invalid, so
/// nothing is generated from a partly valid set.
fn load_all(paths: &[PathBuf], format: Format) -> Result<Option<Vec<RegMap>>> {
    load_all_ending(paths, format, "; nothing was generated")
}

/// [`load_all`] with `ending` after the count of problems (`check` generates nothing).
fn load_all_ending(paths: &[PathBuf], format: Format, ending: &str) -> Result<Option<Vec<RegMap>>> {
    let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut maps = Vec::new();
    let mut ok = true;
    for p in paths {
        match rdmagen_regmap::load(p) {
            Ok(m) => maps.push(m),
            Err(LoadError::Io { path, source }) => {
                return Err(source).with_context(|| format!("cannot read {path}"));
            }
            Err(LoadError::Invalid(d)) => {
                ok = false;
                match format {
                    Format::Human => eprint!("{}", d.render_ending(color, ending)),
                    Format::Short => eprint!("{}", d.render_short()),
                }
            }
        }
    }
    Ok(ok.then_some(maps))
}

fn run(cli: Cli) -> Result<ExitCode> {
    match cli.command {
        Command::Check { maps, format } => {
            let Some(loaded) = load_all_ending(&maps, format, "")? else {
                return Ok(ExitCode::from(1));
            };
            for m in &loaded {
                let regs = m.registers().count();
                println!(
                    "{}: ok (block {}, version {}, {} registers)",
                    m.file, m.block, m.version, regs
                );
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Csr {
            maps,
            out,
            reset,
            format,
        } => generate(
            &maps,
            format,
            &Targets {
                rtl: Some((out, reset_style(reset))),
                ..Targets::default()
            },
        ),
        Command::Header { maps, out, format } => generate(
            &maps,
            format,
            &Targets {
                header: Some(out),
                ..Targets::default()
            },
        ),
        Command::Docs { maps, out, format } => generate(
            &maps,
            format,
            &Targets {
                docs: Some(out),
                ..Targets::default()
            },
        ),
        Command::Rdl { maps, out, format } => generate(
            &maps,
            format,
            &Targets {
                rdl: Some(out),
                ..Targets::default()
            },
        ),
        Command::Ipxact { maps, out, format } => generate(
            &maps,
            format,
            &Targets {
                ipxact: Some(out),
                ..Targets::default()
            },
        ),
        Command::Json { maps, out, format } => generate(
            &maps,
            format,
            &Targets {
                json: Some(out),
                ..Targets::default()
            },
        ),
        Command::All {
            maps,
            out,
            rtl,
            include,
            docs,
            export,
            reset,
            format,
        } => {
            // `rtl`, not `./rtl`, in messages when OUT is the current directory.
            let under = |dir: &str| {
                if out == Path::new(".") {
                    PathBuf::from(dir)
                } else {
                    out.join(dir)
                }
            };
            let export = export.unwrap_or_else(|| under("export"));
            generate(
                &maps,
                format,
                &Targets {
                    rtl: Some((rtl.unwrap_or_else(|| under("rtl")), reset_style(reset))),
                    header: Some(include.unwrap_or_else(|| under("sw/include"))),
                    docs: Some(docs.unwrap_or_else(|| under("docs/regs"))),
                    rdl: Some(export.clone()),
                    ipxact: Some(export.clone()),
                    json: Some(export),
                },
            )
        }
        Command::Qpc {
            maps,
            out,
            reset,
            format,
        } => {
            let Some(loaded) = load_all(&maps, format)? else {
                return Ok(ExitCode::from(1));
            };
            let opts = rdmagen_qpc::Options {
                reset: match reset {
                    Reset::SyncHigh => ResetStyle::SyncHigh,
                    Reset::AsyncLow => ResetStyle::AsyncLow,
                },
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            };
            // Lower every map before writing anything: all or nothing.
            let mut modules = Vec::new();
            for m in &loaded {
                match rdmagen_qpc::generate(m, &opts) {
                    Ok(module) => modules.push(module),
                    Err(e) => {
                        eprintln!("error: {}: {e}", m.file);
                        return Ok(ExitCode::from(1));
                    }
                }
            }
            create_output_dir(&out)?;
            for module in &modules {
                let path = out.join(format!("{}.v", module.name));
                write_if_changed(&path, &[&module.print()])?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Dcqcn {
            map,
            out,
            reset,
            format,
        } => {
            let Some(loaded) = load_all(std::slice::from_ref(&map), format)? else {
                return Ok(ExitCode::from(1));
            };
            let opts = rdmagen_dcqcn::Options {
                reset: reset_style(reset),
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            };
            let module = match rdmagen_dcqcn::generate(&loaded[0], &opts) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            // The engine with its CSR block and the read-back window (dcqcn_top.v).
            let top = match rdmagen_dcqcn::generate_top(&loaded[0], &opts) {
                Ok(m) => m,
                Err(e) => {
                    eprintln!("error: {e}");
                    return Ok(ExitCode::from(1));
                }
            };
            create_output_dir(&out)?;
            write_if_changed(&out.join(format!("{}.v", module.name)), &[&module.print()])?;
            write_if_changed(&out.join(format!("{}.v", top.name)), &[&top.print()])?;
            Ok(ExitCode::SUCCESS)
        }
        Command::RxParser {
            map,
            out,
            width,
            qpc,
            reset,
            format,
        } => {
            let Some(loaded) = load_all(std::slice::from_ref(&map), format)? else {
                return Ok(ExitCode::from(1));
            };
            let opts = rdmagen_rxparser::Options {
                reset: reset_style(reset),
                generator: generator(),
                width,
            };
            let mut modules = match rdmagen_rxparser::generate(&loaded[0], &opts) {
                Ok(m) => vec![m],
                Err(e) => {
                    eprintln!("error: {}: {e}", loaded[0].file);
                    return Ok(ExitCode::from(1));
                }
            };
            if let Some(path) = &qpc {
                let Some(qpc_map) = load_all(std::slice::from_ref(path), format)? else {
                    return Ok(ExitCode::from(1));
                };
                match rdmagen_rxparser::generate_top(&loaded[0], &qpc_map[0], &opts) {
                    Ok(m) => modules.push(m),
                    Err(e) => {
                        eprintln!("error: {e}");
                        return Ok(ExitCode::from(1));
                    }
                }
            }
            create_output_dir(&out)?;
            for module in &modules {
                write_if_changed(&out.join(format!("{}.v", module.name)), &[&module.print()])?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Uar {
            maps,
            out,
            qpc,
            reset,
            format,
        } => {
            let Some(loaded) = load_all(&maps, format)? else {
                return Ok(ExitCode::from(1));
            };
            let qpc_map = match &qpc {
                Some(path) => match load_all(std::slice::from_ref(path), format)? {
                    Some(mut m) => Some(m.remove(0)),
                    None => return Ok(ExitCode::from(1)),
                },
                None => None,
            };
            let opts = rdmagen_uar::Options {
                reset: reset_style(reset),
                generator: generator(),
            };
            // Lower every map before writing anything: all or nothing.
            let mut modules = Vec::new();
            for m in &loaded {
                let lowered = rdmagen_uar::generate(m, &opts).and_then(|block| {
                    let top = match &qpc_map {
                        Some(q) => Some(rdmagen_uar::generate_top(m, q, &opts)?),
                        None => None,
                    };
                    Ok((block, top))
                });
                match lowered {
                    Ok((block, top)) => {
                        modules.push(block);
                        modules.extend(top);
                    }
                    Err(e) => {
                        eprintln!("error: {}: {e}", m.file);
                        return Ok(ExitCode::from(1));
                    }
                }
            }
            create_output_dir(&out)?;
            for module in &modules {
                write_if_changed(&out.join(format!("{}.v", module.name)), &[&module.print()])?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff {
            old,
            new,
            format,
            check_version,
        } => diff(&old, &new, format, check_version),
        Command::Versions { maps, rev } => versions(&maps, &rev),
        Command::Sim { block, args } => sim(&block, &args),
    }
}

/// The blocks this repository builds a simulator for (`rdmagen-sim-<block>`).
const SIM_BLOCKS: [&str; 3] = ["dcqcn", "uar", "rx-parser"];

/// `rdmagen sim <block> ...`: runs `rdmagen-sim-<block>` from this executable's directory (or
/// the PATH) with the same arguments, and passes its exit code on.
fn sim(block: &str, args: &[std::ffi::OsString]) -> Result<ExitCode> {
    if block == "-h" || block == "--help" {
        println!(
            "Usage: rdmagen sim <BLOCK> [ARGS]...   (blocks: {})\n\n`rdmagen sim dcqcn --help` lists the simulator's arguments.",
            SIM_BLOCKS.join(", ")
        );
        return Ok(ExitCode::SUCCESS);
    }
    let name = format!("rdmagen-sim-{block}{}", std::env::consts::EXE_SUFFIX);
    let dir = std::env::current_exe()
        .ok()
        .and_then(|e| e.parent().map(Path::to_path_buf));
    let beside = dir.as_ref().map(|d| d.join(&name)).filter(|p| p.is_file());
    let program = beside.unwrap_or_else(|| PathBuf::from(&name));
    let status = match std::process::Command::new(&program).args(args).status() {
        Ok(s) => s,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound && !SIM_BLOCKS.contains(&block) => {
            anyhow::bail!(
                "no simulator for `{block}`: the blocks are {} (`{name}` is neither beside rdmagen nor on the PATH)",
                SIM_BLOCKS.join(", ")
            )
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            // A release rdmagen looks in target/release: a debug build of the simulator is
            // not found there.
            let release = dir.as_ref().is_some_and(|d| d.ends_with("release"));
            anyhow::bail!(
                "no simulator for `{block}`: `{name}` is not built beside this rdmagen ({}) nor on the PATH (run `cargo build{} --bin rdmagen-sim-{block}`; it needs Verilator)",
                dir.as_ref().map_or("?".into(), |d| d.display().to_string()),
                if release { " --release" } else { "" }
            )
        }
        Err(e) => return Err(e).with_context(|| format!("cannot run {}", program.display())),
    };
    Ok(ExitCode::from(
        status.code().unwrap_or(2).clamp(0, 255) as u8
    ))
}

fn reset_style(reset: Reset) -> ResetStyle {
    match reset {
        Reset::SyncHigh => ResetStyle::SyncHigh,
        Reset::AsyncLow => ResetStyle::AsyncLow,
    }
}

fn generator() -> String {
    format!("rdmagen {}", env!("CARGO_PKG_VERSION"))
}

/// A block command's output directory, created after [`output_dir`]'s check.
fn create_output_dir(dir: &Path) -> Result<()> {
    output_dir(dir)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))
}

/// An output directory that is a file: said so, before anything is generated (creating it
/// said "File exists", or named a file inside it).
fn output_dir(dir: &Path) -> Result<()> {
    // The nearest part of the path that exists must be a directory (`all -o FILE` writes
    // FILE/rtl).
    if let Some(found) = dir.ancestors().find(|a| a.exists()) {
        if !found.is_dir() {
            anyhow::bail!("output directory {} is a file", found.display());
        }
    }
    Ok(())
}

/// Validates every map, then generates every requested output, each written to a temporary
/// file beside its destination as soon as it is generated; only when every output of every map
/// exists are they renamed into place, so a map the C header cannot name leaves every file as
/// it was.
fn generate(paths: &[PathBuf], format: Format, targets: &Targets) -> Result<ExitCode> {
    let Some(loaded) = load_all(paths, format)? else {
        return Ok(ExitCode::from(1));
    };
    // Two maps of one block would write the same files.
    let mut blocks: Vec<(&str, &str)> = loaded.iter().map(|m| (&*m.block, &*m.file)).collect();
    blocks.sort_unstable();
    if let Some(pair) = blocks.windows(2).find(|p| p[0].0 == p[1].0) {
        anyhow::bail!(
            "{} and {} both describe block `{}`, so their outputs would overwrite each other; \
             generate them in separate runs or rename one block",
            pair[0].1,
            pair[1].1,
            pair[0].0
        );
    }
    for dir in [
        targets.rtl.as_ref().map(|(d, _)| d),
        targets.header.as_ref(),
        targets.docs.as_ref(),
        targets.rdl.as_ref(),
        targets.ipxact.as_ref(),
        targets.json.as_ref(),
    ]
    .into_iter()
    .flatten()
    {
        output_dir(dir)?;
    }
    let opts = rdmagen_outputs::Options {
        generator: generator(),
    };
    let mut staged = Vec::new();
    // Picture directories the docs own: pictures there that no map produces are removed.
    let mut picture_dirs = Vec::new();
    let mut failed = false;
    for m in &loaded {
        match map_outputs(m, targets, &opts) {
            Ok(Ok((files, pictures))) => {
                staged.extend(files);
                picture_dirs.extend(pictures);
            }
            Ok(Err(message)) => {
                eprintln!("error: {}: {message}", m.file);
                failed = true;
            }
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    if failed {
        discard(&staged);
        return Ok(ExitCode::from(1));
    }
    commit(&staged, &picture_dirs)?;
    Ok(ExitCode::SUCCESS)
}

/// Exit code of `diff` on an error, so a script can tell "breaking" (1) from "could not compare".
const DIFF_ERROR: u8 = 2;

fn diff(old: &str, new: &Path, format: DiffFormat, check_version: bool) -> Result<ExitCode> {
    let old_text = read_map_text(old)?;
    let new_name = new.display().to_string();
    let new_text =
        std::fs::read_to_string(new).with_context(|| format!("cannot read {new_name}"))?;
    let (Some(old_map), Some(new_map)) = (
        parse_or_report(old, &old_text),
        parse_or_report(&new_name, &new_text),
    ) else {
        return Ok(ExitCode::from(DIFF_ERROR));
    };
    let report = rdmagen_diff::Report::new(&old_map, &new_map, &new_text);
    print!(
        "{}",
        report.render(match format {
            DiffFormat::Text => rdmagen_diff::Format::Text,
            DiffFormat::Json => rdmagen_diff::Format::Json,
            DiffFormat::Sarif => rdmagen_diff::Format::Sarif,
        })
    );
    if check_version {
        if let Some(error) = report.version_error() {
            eprintln!("error: {error}");
            return Ok(ExitCode::from(1));
        }
        if let Some(warning) = report.version_warning() {
            eprintln!("warning: {warning}");
        }
        return Ok(ExitCode::SUCCESS);
    }
    Ok(if report.is_breaking() {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// `rdmagen versions`: prints, for each map, every version start and whether it still holds.
fn versions(maps: &[PathBuf], rev: &str) -> Result<ExitCode> {
    let mut broken = false;
    for map in maps {
        let name = map.display().to_string();
        let text = std::fs::read_to_string(map).with_context(|| format!("cannot read {name}"))?;
        let Some(now) = parse_or_report(&name, &text) else {
            return Ok(ExitCode::from(DIFF_ERROR));
        };
        let history = history::walk(map, rev)?;
        let verdicts = history::check(&history, &now, &text);
        println!("{name}: version {}", now.version);
        if verdicts.is_empty() {
            println!("  no commit of {rev} has this map yet");
        }
        let mut held = 0;
        for v in &verdicts {
            let at = format!(
                "  {} set in {}",
                v.start.map.version,
                history::short(&v.start.commit)
            );
            if v.holds() {
                held += 1;
                let note = match v.report.required_bump() {
                    None => "no change since".to_string(),
                    Some(b) if v.report.version_is_enough() => {
                        format!(
                            "changes since need a {} bump, which {} is",
                            b.as_str(),
                            now.version
                        )
                    }
                    Some(b) => format!(
                        "compatible changes since suggest a {} bump; a warning only",
                        b.as_str()
                    ),
                };
                println!("{at}: holds ({note})");
            } else {
                broken = true;
                println!("{at}: BROKEN");
                let rendered = v.report.render(rdmagen_diff::Format::Text);
                for line in rendered.lines() {
                    println!("    {line}");
                }
                if let Some(error) = v.report.version_error() {
                    eprintln!(
                        "error: {error} (since {} set {})",
                        history::short(&v.start.commit),
                        v.start.map.version
                    );
                }
            }
        }
        if let Some(why) = &history.cut_short {
            println!("  history read back to the commit above only: {why}");
        }
        println!("{name}: {held} of {} version starts hold", verdicts.len());
    }
    Ok(if broken {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The text of a map given as a file or as `git:REV:PATH`.
fn read_map_text(spec: &str) -> Result<String> {
    let Some(rest) = spec.strip_prefix("git:") else {
        return std::fs::read_to_string(spec).with_context(|| format!("cannot read {spec}"));
    };
    let Some((rev, path)) = rest.split_once(':') else {
        anyhow::bail!(
            "`{spec}`: expected git:REV:PATH, for example git:HEAD~1:register-maps/qpc.yaml"
        );
    };
    let out = std::process::Command::new("git")
        .arg("show")
        .arg(format!("{rev}:{path}"))
        .output()
        .context("cannot run git")?;
    if !out.status.success() {
        anyhow::bail!(
            "`git show {rev}:{path}` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    String::from_utf8(out.stdout).with_context(|| format!("{spec} is not UTF-8"))
}

/// Validates a map; prints its diagnostics and returns `None` when it is invalid.
fn parse_or_report(name: &str, text: &str) -> Option<RegMap> {
    match rdmagen_regmap::parse(name, text) {
        Ok(m) => Some(m),
        Err(d) => {
            let color = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
            eprint!("{}", d.render_ending(color, ""));
            None
        }
    }
}

/// What one generator thread produced: its files (staged), or a message when the map cannot
/// have this output.
type ThreadOutput = Result<Result<Vec<Staged>, String>>;

/// Every requested output of one map, generated and staged on threads beside the CSR block's
/// (they only read the map), gathered in a fixed order. The inner error is a map the C header cannot
/// name; on any error nothing of this map stays staged.
#[allow(clippy::type_complexity)]
fn map_outputs(
    m: &RegMap,
    targets: &Targets,
    opts: &rdmagen_outputs::Options,
) -> Result<Result<(Vec<Staged>, Option<PathBuf>), String>> {
    use rdmagen_outputs::{c_header, ipxact, json, markdown, systemrdl};
    type Job<'j> = Box<dyn FnOnce() -> (ThreadOutput, Option<PathBuf>) + Send + 'j>;
    let mut jobs: Vec<Job> = Vec::new();
    if let Some((dir, reset)) = &targets.rtl {
        jobs.push(Box::new(move || {
            let csr = rdmagen_csr::Options {
                reset: *reset,
                generator: generator(),
            };
            let module = rdmagen_csr::generate(m, &csr);
            // Printed straight into the staging (megabytes on a NIC-scale map).
            let staged = stage_streamed(dir.join(format!("{}.v", module.name)), |w| {
                module.print_to(w)
            });
            // The process ends after writing: freeing a syntax tree of a million nodes
            // one by one would cost a sixth of the whole run on a 4096-register map.
            std::mem::forget(module);
            (staged.map(|f| Ok(vec![f])), None)
        }));
    }
    if let Some(dir) = &targets.header {
        jobs.push(Box::new(move || {
            // Written as it is made (megabytes on a NIC-scale map); a name clash is found
            // at the end, and its staged file is then discarded.
            let mut clash = None;
            let made = MadeDirs::before(dir);
            let staged = stage_streamed(dir.join(c_header::file_name(m)), |w| {
                clash = c_header::generate_to(m, opts, w)?.err();
                Ok(())
            });
            let staged = match (staged, clash) {
                (Ok(file), Some(clash)) => {
                    discard(std::slice::from_ref(&file));
                    made.remove();
                    Ok(Err(clash.to_string()))
                }
                (staged, _) => staged.map(|file| Ok(vec![file])),
            };
            (staged, None)
        }));
    }
    if let Some(dir) = &targets.docs {
        jobs.push(Box::new(move || {
            let doc = markdown::generate(m, opts);
            let pictures = dir.join(&doc.picture_dir);
            let mut planned = Vec::with_capacity(doc.pictures.len() + 1);
            planned.push(Planned::new(
                dir.join(format!("{}.md", m.block)),
                doc.markdown,
            ));
            planned.extend(
                doc.pictures
                    .into_iter()
                    .map(|(name, svg)| Planned::new(pictures.join(name), svg)),
            );
            (stage_all(planned).map(Ok), Some(pictures))
        }));
    }
    if let Some(dir) = &targets.rdl {
        jobs.push(Box::new(move || {
            let planned = Planned::new(
                dir.join(systemrdl::file_name(m)),
                systemrdl::generate(m, opts),
            );
            (stage_all(vec![planned]).map(Ok), None)
        }));
    }
    if let Some(dir) = &targets.ipxact {
        jobs.push(Box::new(move || {
            // Written as it is made (tens of megabytes on a NIC-scale map).
            let staged = stage_streamed(dir.join(ipxact::file_name(m)), |w| {
                ipxact::generate_to(m, opts, w)
            });
            (staged.map(|f| Ok(vec![f])), None)
        }));
    }
    if let Some(dir) = &targets.json {
        jobs.push(Box::new(move || {
            // Written as it is made (megabytes on a NIC-scale map).
            let staged = stage_streamed(dir.join(format!("{}.json", m.block)), |w| {
                json::generate_to(m, opts, w)
            });
            (staged.map(|f| Ok(vec![f])), None)
        }));
    }
    // The CSR block, when asked for, is the longest output: it starts first, on its own
    // thread. The other outputs wait in a queue that this thread takes from the front and the
    // CSR thread from the back once its block is written, so that neither idles while the
    // other still has outputs to make; with more than two CPUs, more threads take from the
    // front. Outputs made one after the other on a thread reuse the memory the one before
    // freed (fresh memory costs a page fault per 4 KiB).
    let cpus = std::thread::available_parallelism().map_or(1, |n| n.get());
    let csr = match targets.rtl {
        Some(_) if !jobs.is_empty() => Some(jobs.remove(0)),
        _ => None,
    };
    let first = usize::from(csr.is_some());
    // Threads besides this one and the CSR block's, one per CPU left, each with a job to take.
    let more_threads = (cpus.saturating_sub(1 + first)).min(jobs.len().saturating_sub(1));
    let queue: Mutex<VecDeque<(usize, Job)>> = Mutex::new((first..).zip(jobs).collect());
    let failed = || {
        let e = anyhow::anyhow!("a generator failed unexpectedly on {}", m.file);
        (Err(e), None)
    };
    // A generator that panics loses its own output, not the others (whose staged files are
    // then discarded with the rest).
    let run = |job: Job| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(job)).unwrap_or_else(|_| failed())
    };
    let take_turns = |from_back: bool| {
        let mut done = Vec::new();
        loop {
            let next = {
                let mut queue = queue.lock().unwrap_or_else(PoisonError::into_inner);
                if from_back {
                    queue.pop_back()
                } else {
                    queue.pop_front()
                }
            };
            let Some((i, job)) = next else {
                return done;
            };
            done.push((i, run(job)));
        }
    };
    let mut outputs: Vec<(usize, (ThreadOutput, Option<PathBuf>))> = std::thread::scope(|s| {
        let (run, take_turns) = (&run, &take_turns);
        let csr = csr.map(|job| {
            rdmagen_regmap::apart::spawn_scoped(s, move || {
                let mut done = vec![(0, run(job))];
                done.extend(take_turns(true));
                done
            })
        });
        // Started after the CSR thread has pinned this one: left to the scheduler (`apart`).
        let helpers: Vec<_> = (0..more_threads)
            .map(|_| rdmagen_regmap::apart::spawn_scoped(s, move || take_turns(false)))
            .filter_map(Result::ok)
            .collect();
        let mut outputs = take_turns(false);
        match csr.map(|t| t.map(|t| t.join())) {
            None => {}
            Some(Ok(Ok(done))) => outputs.extend(done),
            Some(Ok(Err(_))) => outputs.push((0, failed())),
            Some(Err(e)) => {
                let e = anyhow::Error::new(e).context("cannot start the CSR block's thread");
                outputs.push((0, (Err(e), None)));
            }
        }
        for t in helpers {
            match t.join() {
                Ok(done) => outputs.extend(done),
                Err(_) => outputs.push((usize::MAX, failed())),
            }
        }
        outputs
    });
    outputs.sort_by_key(|&(i, _)| i);
    let mut files = Vec::new();
    let mut picture_dir = None;
    let mut clash = None;
    let mut error = None;
    for (_, (output, pictures)) in outputs {
        match output {
            Ok(Ok(staged)) => files.extend(staged),
            Ok(Err(message)) => clash = Some(message),
            Err(e) => error = error.or(Some(e)),
        }
        picture_dir = picture_dir.or(pictures);
    }
    if let Some(e) = error {
        discard(&files);
        return Err(e);
    }
    Ok(match clash {
        Some(message) => {
            discard(&files);
            Err(message)
        }
        None => Ok((files, picture_dir)),
    })
}

/// A generated file written beside its destination as `<path>.tmp`, renamed into place by
/// [`commit`]; `tmp` is `None` when the file already holds exactly this text (left alone, so
/// build tools do not rebuild).
struct Staged {
    path: PathBuf,
    tmp: Option<PathBuf>,
}

/// Writes `pieces` one after the other to `<path>.tmp` (creating the directory), unless the file
/// already holds them: [`stage_streamed`] with the text's length known, so a file of another
/// length is not read at all.
fn stage<S: AsRef<str>>(path: PathBuf, pieces: &[S]) -> Result<Staged> {
    let total: usize = pieces.iter().map(|p| p.as_ref().len()).sum();
    stage_streamed_as(path, Some(total as u64), |w| {
        pieces
            .iter()
            .try_for_each(|piece| w.write_all(piece.as_ref().as_bytes()))
    })
}

/// The temporary name of `path` while it is staged: `<path>.tmp`.
fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Stages the file `produce` writes as it goes (see [`Staged`]): while its bytes match the
/// existing file they are only compared, and from the first difference they go to
/// `<path>.tmp`, the matching start copied from the old file first. So a file of megabytes is
/// never held whole in memory, and an unchanged one is never written.
fn stage_streamed(
    path: PathBuf,
    produce: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<Staged> {
    stage_streamed_as(path, None, produce)
}

/// [`stage_streamed`] for a text of `len` bytes when known: an existing file of another length
/// (or not a file) is not compared.
fn stage_streamed_as(
    path: PathBuf,
    len: Option<u64>,
    produce: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<Staged> {
    let old = std::fs::File::open(&path).ok().filter(|f| {
        f.metadata()
            .is_ok_and(|m| m.is_file() && len.is_none_or(|n| m.len() == n))
    });
    let mut w = StageWriter {
        old,
        matched: 0,
        buf: Vec::new(),
        tmp: None,
        tmp_path: tmp_path(&path),
        path,
    };
    let done = produce(&mut w).and_then(|()| w.finish());
    match done {
        Ok(unchanged) => Ok(Staged {
            tmp: (!unchanged).then_some(w.tmp_path),
            path: w.path,
        }),
        Err(e) => {
            // Also when `diverge` created the file and failed before taking it.
            drop(w.tmp.take());
            let _ = std::fs::remove_file(&w.tmp_path);
            Err(e).with_context(|| format!("cannot write {}", w.tmp_path.display()))
        }
    }
}

/// The writer of [`stage_streamed`].
struct StageWriter {
    path: PathBuf,
    /// The existing file, read alongside while the output still matches it.
    old: Option<std::fs::File>,
    /// Bytes of the output that matched the existing file.
    matched: u64,
    /// Room for reading the existing file, as long as the longest write.
    buf: Vec<u8>,
    /// `<path>.tmp`, once the output differs.
    tmp: Option<std::fs::File>,
    tmp_path: PathBuf,
}

impl StageWriter {
    /// From now on the output goes to `<path>.tmp`, which starts with the matched bytes.
    fn diverge(&mut self) -> std::io::Result<&mut std::fs::File> {
        use std::io::{Read, Seek};
        if self.tmp.is_none() {
            if let Some(dir) = self.path.parent() {
                std::fs::create_dir_all(dir)?;
            }
            let mut tmp = std::fs::File::create(&self.tmp_path)?;
            if let Some(mut old) = self.old.take() {
                old.rewind()?;
                let copied = std::io::copy(&mut (&mut old).take(self.matched), &mut tmp)?;
                if copied != self.matched {
                    return Err(std::io::Error::other(format!(
                        "{} changed while it was compared",
                        self.path.display()
                    )));
                }
            }
            self.tmp = Some(tmp);
        }
        Ok(self.tmp.as_mut().expect("just created"))
    }

    /// Whether the output was exactly the existing file (nothing written); otherwise the
    /// temporary file is complete.
    fn finish(&mut self) -> std::io::Result<bool> {
        use std::io::Read;
        if self.tmp.is_none() {
            // Matched so far: unchanged if the old file ends here too.
            if let Some(old) = self.old.as_mut() {
                let mut one = [0u8; 1];
                if old.read(&mut one)? == 0 {
                    return Ok(true);
                }
            }
            self.diverge()?;
        }
        Ok(false)
    }
}

impl std::io::Write for StageWriter {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        use std::io::Read;
        if self.tmp.is_none() {
            if let Some(old) = self.old.as_mut() {
                if self.buf.len() < data.len() {
                    self.buf.resize(data.len(), 0);
                }
                let same = match old.read_exact(&mut self.buf[..data.len()]) {
                    Ok(()) => self.buf[..data.len()] == *data,
                    Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => false,
                    Err(e) => return Err(e),
                };
                if same {
                    self.matched += data.len() as u64;
                    return Ok(data.len());
                }
            }
        }
        self.diverge()?.write_all(data)?;
        Ok(data.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One file written at once: staged, then renamed into place (a reader never sees half a file);
/// an unchanged file is left alone so build tools do not rebuild.
fn write_if_changed(path: &Path, pieces: &[&str]) -> Result<()> {
    commit(&[stage(path.to_owned(), pieces)?], &[])
}

/// Stages every file in order; on an error removes what it had staged.
fn stage_all(files: Vec<Planned>) -> Result<Vec<Staged>> {
    let mut staged = Vec::with_capacity(files.len());
    for f in files {
        match stage(f.path, &f.pieces) {
            Ok(s) => staged.push(s),
            Err(e) => {
                discard(&staged);
                return Err(e);
            }
        }
    }
    Ok(staged)
}

/// Removes the temporary files of outputs that will not be committed.
fn discard(staged: &[Staged]) {
    for tmp in staged.iter().filter_map(|f| f.tmp.as_ref()) {
        let _ = std::fs::remove_file(tmp);
    }
}

/// The directories a streamed output is about to create (it creates them at its first
/// byte), so that an output refused at its end leaves none behind.
struct MadeDirs<'a> {
    dir: &'a Path,
    /// The nearest ancestor of `dir` (or `dir` itself) that exists now.
    existing: Option<&'a Path>,
}

impl<'a> MadeDirs<'a> {
    fn before(dir: &'a Path) -> Self {
        MadeDirs {
            dir,
            existing: dir.ancestors().find(|d| d.exists()),
        }
    }

    /// Removes the directories made since [`MadeDirs::before`], if they are empty.
    fn remove(&self) {
        for d in self.dir.ancestors() {
            if Some(d) == self.existing || std::fs::remove_dir(d).is_err() {
                break;
            }
        }
    }
}

/// Renames every staged file into place (a reader never sees half a file), then removes `.svg`
/// files in the picture directories that this run did not produce (a renamed register leaves no
/// stale picture).
fn commit(staged: &[Staged], picture_dirs: &[PathBuf]) -> Result<()> {
    for (k, f) in staged.iter().enumerate() {
        let Some(tmp) = &f.tmp else { continue };
        if let Err(e) = std::fs::rename(tmp, &f.path) {
            discard(&staged[k..]);
            return Err(e).with_context(|| format!("cannot write {}", f.path.display()));
        }
    }
    let produced: std::collections::HashSet<&Path> =
        staged.iter().map(|f| f.path.as_path()).collect();
    for dir in picture_dirs {
        let entries =
            std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))?;
        for entry in entries {
            let path = entry?.path();
            if path.extension().is_some_and(|e| e == "svg") && !produced.contains(path.as_path()) {
                std::fs::remove_file(&path)
                    .with_context(|| format!("cannot remove {}", path.display()))?;
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::{stage, stage_streamed};

    /// Streams `new` in `chunk`-byte writes over a file holding `old` (none: no file), and
    /// returns whether it came out unchanged and the staged file's bytes (the old file's when
    /// unchanged).
    fn streamed(old: Option<&[u8]>, new: &[u8], chunk: usize) -> (bool, Vec<u8>) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/f.v");
        if let Some(old) = old {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, old).unwrap();
        }
        let staged = stage_streamed(path.clone(), |w| {
            for piece in new.chunks(chunk.max(1)) {
                w.write_all(piece)?;
            }
            Ok(())
        })
        .unwrap();
        match staged.tmp {
            None => (true, std::fs::read(&path).unwrap()),
            Some(tmp) => {
                assert_eq!(
                    std::fs::read(&path).ok().as_deref(),
                    old,
                    "old file untouched"
                );
                (false, std::fs::read(tmp).unwrap())
            }
        }
    }

    #[test]
    fn streamed_staging_writes_only_what_differs() {
        let text: Vec<u8> = (0..5000u32)
            .flat_map(|i| format!("line {i}\n").into_bytes())
            .collect();
        for chunk in [1, 7, 4096, 100_000] {
            // Same bytes: nothing written.
            assert_eq!(streamed(Some(&text), &text, chunk), (true, text.clone()));
            // No file yet, an empty output, a change in the middle, shorter, longer.
            assert_eq!(streamed(None, &text, chunk), (false, text.clone()));
            assert_eq!(streamed(None, b"", chunk), (false, Vec::new()));
            let mut changed = text.clone();
            changed[20_000] = b'#';
            assert_eq!(streamed(Some(&text), &changed, chunk), (false, changed));
            let short = &text[..text.len() - 3];
            assert_eq!(streamed(Some(&text), short, chunk), (false, short.to_vec()));
            assert_eq!(streamed(Some(short), &text, chunk), (false, text.clone()));
        }
    }

    #[test]
    fn a_failed_copy_of_the_matched_start_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.v");
        std::fs::write(&path, "same start, old end").unwrap();
        let err = stage_streamed(path.clone(), |w| {
            w.write_all(b"same start")?;
            // The old file shrinks under the comparison: its matched start cannot be copied.
            std::fs::write(&path, "same")?;
            w.write_all(b", new end")
        });
        assert!(err.is_err());
        let names: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["f.v"]);
    }

    #[test]
    fn a_failing_producer_leaves_no_temporary() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f.v");
        let err = stage_streamed(path.clone(), |w| {
            w.write_all(b"half")?;
            Err(std::io::Error::other("generator gave up"))
        });
        assert!(err.is_err());
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
    }

    /// Whether [`stage`] finds a file holding `old` (none: no file) unchanged by `pieces`; when
    /// it does not, the staged file must hold exactly the pieces joined.
    fn same_text_as(old: Option<&[u8]>, pieces: &[&str]) -> bool {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        if let Some(old) = old {
            std::fs::write(&path, old).unwrap();
        }
        let staged = stage(path, pieces).unwrap();
        match staged.tmp {
            None => true,
            Some(tmp) => {
                assert_eq!(std::fs::read(tmp).unwrap(), pieces.concat().into_bytes());
                false
            }
        }
    }

    fn same_text(old: &[u8], pieces: &[&str]) -> bool {
        same_text_as(Some(old), pieces)
    }

    #[test]
    fn stage_compares_the_pieces_joined() {
        assert!(same_text(b"abcdef", &["ab", "", "cde", "f"]));
        assert!(same_text(b"", &[]));
        assert!(same_text(b"", &["", ""]));
        assert!(!same_text(b"abcdef", &["ab", "cde"]));
        assert!(!same_text(b"abcde", &["ab", "cde", "f"]));
        assert!(!same_text(b"abcdef", &["ab", "cdx", "f"]));
        assert!(!same_text(b"abc", &[]));
        // Longer than a chunk, differing only in the last byte.
        let big = "x".repeat(200_000);
        let mut other = big.clone().into_bytes();
        assert!(same_text(&other, &[&big[..70_000], &big[70_000..]]));
        *other.last_mut().unwrap() = b'y';
        assert!(!same_text(&other, &[&big[..70_000], &big[70_000..]]));
        assert!(!same_text_as(None, &["a"]));
    }
}
