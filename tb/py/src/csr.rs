//! `CsrModel`: the cycle-by-cycle reference model of a map's CSR block, as a scoreboard.

use std::collections::HashMap;

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyInt};
use rdmagen_refmodel::csr::{Bus, CsrModel, HwKind};

use crate::regs::{resolve_params, PyRegMap};

/// A Python int of at most `width` bits as packed 32-bit words, least significant first.
pub fn int_to_words(v: &Bound<'_, PyAny>, width: u32, what: &str) -> PyResult<Vec<u32>> {
    let nbytes = width.div_ceil(8).max(1) as usize;
    let too_wide = || PyValueError::new_err(format!("{what} takes a {width}-bit non-negative int"));
    let raw = v
        .call_method1("to_bytes", (nbytes, "little"))
        .map_err(|_| too_wide())?;
    let bytes: Vec<u8> = raw.extract()?;
    let mut words = vec![0u32; nbytes.div_ceil(4)];
    for (i, b) in bytes.iter().enumerate() {
        words[i / 4] |= u32::from(*b) << (8 * (i % 4));
    }
    // Bits above `width` inside the last byte.
    if !width.is_multiple_of(8) && u32::from(bytes[nbytes - 1]) >> (width % 8) != 0 {
        return Err(too_wide());
    }
    Ok(words)
}

/// Packed 32-bit words as a Python int.
pub fn words_to_int<'py>(py: Python<'py>, words: &[u32]) -> PyResult<Bound<'py, PyAny>> {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    py.get_type::<PyInt>()
        .call_method1("from_bytes", (PyBytes::new(py, &bytes), "little"))
}

/// (write response, (read data, read response)) of one cycle, each when a transfer was accepted.
type Responses = (Option<u8>, Option<(u64, u8)>);

fn kind_name(k: HwKind) -> &'static str {
    match k {
        HwKind::Input => "input",
        HwKind::LoadEnable => "load_enable",
        HwKind::LoadData => "load_data",
        HwKind::Clear => "clear",
        HwKind::Set => "set",
        HwKind::Increment => "increment",
    }
}

/// Cycle-accurate reference model of a map's CSR block (`<block>_csr`).
///
/// Call `cycle` once per clock with the AXI4-Lite transfers the block accepted in that
/// cycle (a write when AWVALID and WVALID handshake together, a read on an AR handshake)
/// and the hardware inputs driven in it; compare the block's outputs after the clock edge
/// with `output(name)`. Hardware inputs keep their value until set again, like driven ports.
#[pyclass(module = "rdmagen", name = "CsrModel")]
pub struct PyCsrModel {
    model: CsrModel,
    hw: Vec<Vec<u32>>,
    hw_index: HashMap<String, usize>,
    out_index: HashMap<String, usize>,
}

impl PyCsrModel {
    fn set(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(&i) = self.hw_index.get(name) else {
            return Err(PyKeyError::new_err(format!(
                "the block has no hardware input `{name}`"
            )));
        };
        let w = self.model.hw_ports()[i].total_width();
        let words = int_to_words(value, w, name)?;
        // int_to_words returned exactly ceil(width / 32) words.
        let dst = &mut self.hw[i];
        let n = words.len().min(dst.len());
        dst.fill(0);
        dst[..n].copy_from_slice(&words[..n]);
        Ok(())
    }
}

#[pymethods]
impl PyCsrModel {
    /// A model of `regmap`'s CSR block with parameter values `params` (others: defaults).
    #[new]
    #[pyo3(signature = (regmap, params = None))]
    fn new(regmap: &PyRegMap, params: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let values = resolve_params(&regmap.map, params)?;
        let pairs: Vec<(&str, i64)> = values
            .iter()
            .map(|(k, v)| (k.as_str(), i64::try_from(*v).unwrap_or(i64::MAX)))
            .collect();
        let model =
            CsrModel::new(&regmap.map, &pairs).map_err(|e| PyValueError::new_err(e.to_string()))?;
        let hw = model
            .hw_ports()
            .iter()
            .map(|p| vec![0u32; p.total_width().div_ceil(32) as usize])
            .collect();
        let hw_index = model
            .hw_ports()
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        let out_index = model
            .out_ports()
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        Ok(PyCsrModel {
            model,
            hw,
            hw_index,
            out_index,
        })
    }

    /// The state right after reset (hardware inputs keep their values).
    fn reset(&mut self) {
        self.model.reset();
    }

    /// Hardware input ports: [(name, kind, bits per element, elements)], kind one of
    /// input, load_enable, load_data, clear, set, increment.
    #[getter]
    fn hw_ports(&self) -> Vec<(String, &'static str, u32, u32)> {
        self.model
            .hw_ports()
            .iter()
            .map(|p| (p.name.clone(), kind_name(p.kind), p.width, p.count))
            .collect()
    }

    /// Output ports the model predicts: [(name, total bits)], `irq_o` included when the map
    /// has interrupts.
    #[getter]
    fn out_ports(&self) -> Vec<(String, u32)> {
        self.model
            .out_ports()
            .iter()
            .map(|p| (p.name.clone(), p.width))
            .collect()
    }

    /// Drives hardware input `name` (packed over array elements) from now on.
    fn set_input(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set(name, value)
    }

    /// One clock cycle. `write` = (address, data, strobe) accepted this cycle, `read` = the
    /// address accepted this cycle, `rready` = RREADY this cycle, `inputs` = {hw input: value}
    /// to drive from this cycle on. Returns (response of the write accepted this cycle or None,
    /// (read data, read response) of the read that moves to the R register this cycle or
    /// None): a read accepted in one cycle is answered in a later one, one cycle later when
    /// the R register is free. Responses are 0 OKAY, 2 SLVERR, 3 DECERR.
    #[pyo3(signature = (write = None, read = None, inputs = None, rready = true))]
    fn cycle(
        &mut self,
        write: Option<(u64, u64, u8)>,
        read: Option<u64>,
        inputs: Option<&Bound<'_, PyDict>>,
        rready: bool,
    ) -> PyResult<Responses> {
        if let Some(d) = inputs {
            for (k, v) in d.iter() {
                let name: String = k.extract()?;
                self.set(&name, &v)?;
            }
        }
        Ok(self.model.cycle(
            Bus {
                write,
                read,
                rready,
            },
            &self.hw,
        ))
    }

    /// The value of output port `name` after the last cycle, packed over array elements.
    fn output<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let Some(&i) = self.out_index.get(name) else {
            return Err(PyKeyError::new_err(format!(
                "the block has no modelled output `{name}`"
            )));
        };
        let mut out = vec![0u32; self.model.out_ports()[i].width.div_ceil(32) as usize];
        self.model.output(i, &mut out);
        words_to_int(py, &out)
    }

    /// {output port: value} for every modelled output.
    fn outputs<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in self.model.out_ports() {
            d.set_item(&p.name, self.output(py, &p.name)?)?;
        }
        Ok(d)
    }

    /// `irq_o`: some interrupt status bit is set and enabled.
    #[getter]
    fn irq(&self) -> bool {
        self.model.irq()
    }

    /// The stored value of a field (element `index` of an array), or None when the register
    /// or field does not exist. `register` is the register's name without its group.
    #[pyo3(signature = (register, field, index = 0))]
    fn field_value(&self, register: &str, field: &str, index: u32) -> Option<u64> {
        self.model.field_value(register, field, index)
    }
}
