//! Python bindings of rdmagen, imported as `rdmagen` (this crate is `rdmagen._native`; the
//! pure-Python half in `python/rdmagen` adds the bus drivers and re-exports everything).
//!
//! - the register access layer for every map: `regs` (validated maps, registers, fields,
//!   bus plans for read, write and read-modify-write);
//! - the reference models as scoreboards: `csr` (CSR block), `qpc` (QPC block), `uar` (UAR
//!   doorbell/BlueFlame block), `dcqcn` (DCQCN reaction point, lazy and eager);
//! - `roce`: the RoCEv2 packet builder and parser with the ICRC;
//! - `rx`: the RX parser's verdict model with its QP and memory-key table (`RxModel`).
//!
//! It links no Verilator and no simulator: benches drive the RTL (cocotb) and ask the models
//! what it must do.

mod csr;
mod dcqcn;
mod qpc;
mod regs;
mod roce;
mod rx;
mod uar;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("MapError", m.py().get_type::<regs::MapError>())?;
    m.add_class::<regs::PyRegMap>()?;
    m.add_class::<regs::PyRegister>()?;
    m.add_class::<regs::PyField>()?;
    m.add_class::<csr::PyCsrModel>()?;
    m.add_class::<qpc::PyQpcModel>()?;
    m.add_function(wrap_pyfunction!(qpc::qp_commands, m)?)?;
    m.add_class::<dcqcn::PyEngine>()?;
    m.add_class::<dcqcn::PyEager>()?;
    m.add_function(wrap_pyfunction!(dcqcn::dcqcn_defaults, m)?)?;
    m.add_class::<uar::PyUarModel>()?;
    roce::register(m)?;
    m.add_class::<rx::PyRxModel>()?;
    m.add_class::<rx::PyRxVerdict>()?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
