//! `rdmagen`: validate register maps and generate the CSR RTL and the DCQCN engine.
//!
//! Exit codes: 0 success, 1 a map is invalid (diagnostics on stderr), 2 usage or I/O error.
//! `diff` has its own: 0 compatible, 1 breaking (or, with `--check-version`, a breaking change
//! without the version bump it needs), 2 error (see docs/diff.md).

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
    /// Generate the DCQCN reaction-point engine (`dcqcn_rp.v`) from the dcqcn map.
    Dcqcn {
        map: PathBuf,
        /// Output directory.
        #[arg(short, long, default_value = "rtl")]
        out: PathBuf,
        #[arg(long, value_enum, default_value_t = Reset::SyncHigh)]
        reset: Reset,
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
        #[arg(long, value_enum, default_value_t = DiffFormat::Text)]
        format: DiffFormat,
        /// Fail (exit 1) only when a breaking change came without the version bump it needs.
        #[arg(long)]
        check_version: bool,
    },
}

#[derive(Clone, Copy, ValueEnum)]
enum DiffFormat {
    /// One line per change, then a summary and the version verdict.
    Text,
    Json,
    /// SARIF 2.1.0, results at the new map's file:line:col.
    Sarif,
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
                reset: reset_style(reset),
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
            std::fs::create_dir_all(&out)
                .with_context(|| format!("cannot create {}", out.display()))?;
            write_if_changed(&out.join(format!("{}.v", module.name)), &module.print())?;
            Ok(ExitCode::SUCCESS)
        }
        Command::Diff {
            old,
            new,
            format,
            check_version,
        } => diff(&old, &new, format, check_version),
    }
}

fn reset_style(reset: Reset) -> ResetStyle {
    match reset {
        Reset::SyncHigh => ResetStyle::SyncHigh,
        Reset::AsyncLow => ResetStyle::AsyncLow,
    }
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
            eprint!("{}", d.render(color));
            None
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
