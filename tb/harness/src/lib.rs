#![doc = "Runtime of the Verilator testbench."]
//!
//! The generated bindings (see `rdmagen-vlbind`) give each Verilated block a struct of typed
//! port handles ([`port`]) and an implementation of [`Model`]. The bus-functional drivers
//! ([`axil`], [`axi4`], [`axis`]) talk to any block through small pin traits that the bindings
//! implement for every recognised bus, with random idle and backpressure from [`stall`].
//!
//! One clock cycle, as every driver and test here runs it:
//!
//! 1. drivers set inputs (`drive`),
//! 2. [`Model::eval`] settles combinational outputs (a `ready` may depend on `valid`),
//! 3. drivers see which handshakes happen in this cycle (`observe`),
//! 4. [`Model::tick`] makes the rising edge.
//!
//! This crate's build script compiles the Verilator runtime (with FST tracing) once and tells
//! dependent build scripts which Verilator it used (`DEP_VERILATED_ROOT`, `_BIN`, `_VERSION`),
//! so every model of a test binary comes from the same Verilator.

pub mod axi4;
pub mod axil;
pub mod axis;
pub mod figures;
pub mod port;
pub mod stall;

use std::ffi::CString;
use std::io;
use std::path::Path;

pub use port::{DynPort, RawPort};

/// Verilator version the runtime was built with, read from `verilated_config.h`.
pub const VERILATOR_VERSION: &str = env!("RDMAGEN_VERILATOR_VERSION");

/// Name, direction and width of one port of a bound model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortInfo {
    pub name: &'static str,
    pub input: bool,
    pub width: u32,
}

/// A Verilated block, as its generated binding implements it.
pub trait Model {
    /// The Verilog module name.
    const MODULE: &'static str;
    /// The binding id (module plus reset style and parameter set).
    const VARIANT: &'static str;
    /// Parameter values the model was verilated with.
    const PARAMS: &'static [(&'static str, i64)];
    const PORTS: &'static [PortInfo];

    /// A new instance with its own `VerilatedContext`, every input at 0, not yet reset.
    fn create() -> Self
    where
        Self: Sized;
    /// Settles combinational logic after inputs changed.
    fn eval(&mut self);
    /// One rising clock edge (and `clk` back to 0 for the next `eval`).
    fn tick(&mut self);
    /// Drives the reset port (`rst` high or `rst_n` low when `asserted`).
    fn set_reset(&mut self, asserted: bool);
    /// Every input except `clk` to 0 (this includes asserting `rst_n`).
    fn zero_inputs(&mut self);
    /// Starts an FST waveform. A model can be traced once in its life (a Verilator rule), so
    /// tests trace a fresh instance.
    fn trace_open(&mut self, path: &Path) -> io::Result<()>;
    fn trace_close(&mut self);
    /// A port by name.
    fn port(&self, name: &str) -> Option<DynPort<'_>>;

    /// Drives input `name` (up to 32 bits) to `v`, for directed tests that set ports by name.
    ///
    /// # Panics
    /// When the model has no such input: a testbench bug.
    fn poke(&self, name: &str, v: u32) {
        self.port(name)
            .unwrap_or_else(|| panic!("no port {name}"))
            .write(&[v]);
    }

    /// The low 32 bits of port `name`.
    ///
    /// # Panics
    /// When the model has no such port: a testbench bug.
    fn peek(&self, name: &str) -> u32 {
        let port = self.port(name).unwrap_or_else(|| panic!("no port {name}"));
        let mut w = vec![0u32; port.words().max(1)];
        port.read(&mut w);
        w[0]
    }

    fn param(name: &str) -> Option<i64> {
        Self::PARAMS
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| *v)
    }

    /// Inputs to 0, reset asserted for `cycles` edges, then released: the state of a fresh
    /// instance, so one model serves many test cases.
    fn reset(&mut self, cycles: u32) {
        self.zero_inputs();
        self.set_reset(true);
        for _ in 0..cycles.max(1) {
            self.eval();
            self.tick();
        }
        self.set_reset(false);
    }

    /// `eval` then `tick`: a cycle with no driver in between.
    fn cycle(&mut self) {
        self.eval();
        self.tick();
    }
}

/// A model that has exactly one AXI4-Lite slave port (every CSR block).
pub trait HasAxiLite {
    type Pins<'a>: axil::AxiLitePins
    where
        Self: 'a;
    fn axil(&self) -> Self::Pins<'_>;
}

/// A path as a C string for the shim.
pub fn c_path(path: &Path) -> io::Result<CString> {
    let s = path
        .to_str()
        .ok_or_else(|| io::Error::other(format!("path is not UTF-8: {}", path.display())))?;
    CString::new(s).map_err(io::Error::other)
}
