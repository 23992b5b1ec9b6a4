//! `rdmagen`: validate register maps and generate the CSR RTL.
//!
//! Exit codes: 0 success, 1 a map is invalid (diagnostics on stderr), 2 usage or I/O error.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use clap::{Parser, Subcommand, ValueEnum};
use rdmagen_regmap::{LoadError, RegMap};
use verilog_ast::ResetStyle;

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
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
    },
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
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

/// Loads every map; prints diagnostics of the invalid ones. `None` if any map is invalid, so
/// nothing is generated from a partly valid set.
fn load_all(paths: &[PathBuf], format: Format) -> Result<Option<Vec<RegMap>>> {
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
                    Format::Human => eprint!("{}", d.render(color)),
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
            let Some(loaded) = load_all(&maps, format)? else {
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
        } => {
            let Some(loaded) = load_all(&maps, format)? else {
                return Ok(ExitCode::from(1));
            };
            let opts = rdmagen_csr::Options {
                reset: match reset {
                    Reset::SyncHigh => ResetStyle::SyncHigh,
                    Reset::AsyncLow => ResetStyle::AsyncLow,
                },
                generator: format!("rdmagen {}", env!("CARGO_PKG_VERSION")),
            };
            std::fs::create_dir_all(&out)
                .with_context(|| format!("cannot create {}", out.display()))?;
            for m in &loaded {
                let module = rdmagen_csr::generate(m, &opts);
                let path = out.join(format!("{}.v", module.name));
                write_if_changed(&path, &module.print())?;
            }
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Writes through a temporary file and a rename, so a reader never sees half a file, and leaves
/// an unchanged file alone so build tools do not rebuild.
fn write_if_changed(path: &Path, text: &str) -> Result<()> {
    if std::fs::read_to_string(path).is_ok_and(|old| old == text) {
        return Ok(());
    }
    let tmp = path.with_extension("v.tmp");
    std::fs::write(&tmp, text).with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}
