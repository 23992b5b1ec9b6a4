//! The register access layer: a validated map, its registers (with array shape resolved for
//! given parameter values) and fields, and the bus plans that read and write them.
//!
//! Plans, not callbacks: a read is a list of word addresses and a write a list of
//! `(address, data, strobe)` beats, so the same code serves a blocking bus function and a
//! cocotb coroutine (the drivers in `python/rdmagen/__init__.py` run the plans).

use std::collections::HashMap;
use std::sync::Arc;

use pyo3::exceptions::{PyIndexError, PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rdmagen_regmap::{Access, Count, Item, RegMap};

pyo3::create_exception!(
    rdmagen,
    MapError,
    PyValueError,
    "The register map is invalid; the message lists every problem with its position."
);

/// The repository's maps, compiled in so a bench can use them without a checkout.
const BUILTIN: &[(&str, &str, &str)] = &[
    (
        "example",
        "register-maps/example.yaml",
        include_str!("../../../register-maps/example.yaml"),
    ),
    (
        "qpc",
        "register-maps/qpc.yaml",
        include_str!("../../../register-maps/qpc.yaml"),
    ),
    (
        "dcqcn",
        "register-maps/dcqcn.yaml",
        include_str!("../../../register-maps/dcqcn.yaml"),
    ),
    (
        "rx_parser",
        "register-maps/rx_parser.yaml",
        include_str!("../../../register-maps/rx_parser.yaml"),
    ),
    (
        "uar",
        "register-maps/uar.yaml",
        include_str!("../../../register-maps/uar.yaml"),
    ),
    (
        "uar-mlx5",
        "register-maps/uar-mlx5.yaml",
        include_str!("../../../register-maps/uar-mlx5.yaml"),
    ),
];

/// A validated register map (`RegMap.load`, `RegMap.parse` or `RegMap.builtin`).
#[pyclass(frozen, module = "rdmagen", name = "RegMap")]
pub struct PyRegMap {
    pub map: Arc<RegMap>,
}

/// Parameter values: the caller's, checked against the map, over the defaults.
pub fn resolve_params(
    map: &RegMap,
    params: Option<&Bound<'_, PyDict>>,
) -> PyResult<HashMap<String, u64>> {
    let mut out: HashMap<String, u64> = map
        .parameters
        .iter()
        .map(|p| (p.name.text.clone(), p.default))
        .collect();
    if let Some(d) = params {
        for (k, v) in d.iter() {
            let name: String = k.extract()?;
            let Some(p) = map.parameter(&name) else {
                let known: Vec<&str> = map
                    .parameters
                    .iter()
                    .map(|p| p.name.text.as_str())
                    .collect();
                return Err(PyKeyError::new_err(format!(
                    "map `{}` has no parameter `{name}` (parameters: {})",
                    map.block,
                    known.join(", ")
                )));
            };
            let value: u64 = v.extract().map_err(|_| {
                PyValueError::new_err(format!("parameter `{name}` must be a non-negative int"))
            })?;
            if value < p.min || value > p.max {
                return Err(PyValueError::new_err(format!(
                    "parameter `{name}` = {value} is outside the map's range {}..{}",
                    p.min, p.max
                )));
            }
            out.insert(name, value);
        }
    }
    Ok(out)
}

/// One field of a register.
#[pyclass(frozen, module = "rdmagen", name = "Field")]
#[derive(Clone)]
pub struct PyField {
    #[pyo3(get)]
    pub name: String,
    #[pyo3(get)]
    pub msb: u32,
    #[pyo3(get)]
    pub lsb: u32,
    /// Software access type: rw, ro, wo, w1c, w1s, w0c, rc, rs or wp.
    #[pyo3(get)]
    pub access: String,
    /// The value after reset; a constant's value (`constant`); 0 for a hardware input.
    #[pyo3(get)]
    pub reset: u64,
    #[pyo3(get)]
    pub description: String,
    /// A read-only constant: reads `reset` for ever, and has no port.
    #[pyo3(get)]
    pub constant: bool,
    /// The field has a write strobe output (`_stb_o`): asked for, or a wider `wp`'s.
    #[pyo3(get)]
    pub write_strobe: bool,
    /// The field has a read strobe output (`_rd_stb_o`), pulsed after each read of it.
    #[pyo3(get)]
    pub read_strobe: bool,
    pub enum_values: Option<Vec<(String, u64)>>,
    acc: Access,
}

#[pymethods]
impl PyField {
    #[getter]
    fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
    /// The field's bits within the register value.
    #[getter]
    fn mask(&self) -> u64 {
        ones(self.width()) << self.lsb
    }
    /// A software read returns the field (false for wo and wp).
    #[getter]
    fn readable(&self) -> bool {
        self.acc.sw_reads()
    }
    /// A software write has an effect (false for ro, rc and rs).
    #[getter]
    fn writable(&self) -> bool {
        self.acc.sw_writes()
    }
    /// The field's enumeration as {name: value}, or None.
    #[getter]
    fn enum_values<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.enum_values.as_ref().map(|v| pairs(py, v)).transpose()
    }
    fn __repr__(&self) -> String {
        format!(
            "Field({} [{}:{}] {} reset={:#x})",
            self.name, self.msb, self.lsb, self.access, self.reset
        )
    }
}

/// One register (or register array of a group), addresses resolved for parameter values.
#[pyclass(frozen, module = "rdmagen", name = "Register")]
#[derive(Clone)]
pub struct PyRegister {
    #[pyo3(get)]
    pub name: String,
    /// The group's name, or None at the top level.
    #[pyo3(get)]
    pub group: Option<String>,
    /// `name` or `group.name`: what `RegMap.register` and the bus drivers take.
    #[pyo3(get)]
    pub path: String,
    /// Byte address of element 0.
    #[pyo3(get)]
    pub base: u64,
    /// Bytes between array elements (0 outside groups).
    #[pyo3(get)]
    pub stride: u64,
    /// Array elements (1 outside groups).
    #[pyo3(get)]
    pub count: u64,
    /// 32 or 64.
    #[pyo3(get)]
    pub width: u32,
    #[pyo3(get)]
    pub description: String,
    #[pyo3(get)]
    pub fields: Vec<PyField>,
}

/// An ordered dict from (name, value) pairs.
fn pairs<'py>(py: Python<'py>, v: &[(String, u64)]) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    for (k, x) in v {
        d.set_item(k, x)?;
    }
    Ok(d)
}

pub fn ones(w: u32) -> u64 {
    if w >= 64 {
        u64::MAX
    } else {
        (1u64 << w) - 1
    }
}

impl PyRegister {
    fn field_ref(&self, name: &str) -> PyResult<&PyField> {
        self.fields.iter().find(|f| f.name == name).ok_or_else(|| {
            let known: Vec<&str> = self.fields.iter().map(|f| f.name.as_str()).collect();
            PyKeyError::new_err(format!(
                "register `{}` has no field `{name}` (fields: {})",
                self.path,
                known.join(", ")
            ))
        })
    }
    fn check_value(&self, value: u64) -> PyResult<u64> {
        if value & !ones(self.width) != 0 {
            return Err(PyValueError::new_err(format!(
                "{value:#x} does not fit the {}-bit register `{}`",
                self.width, self.path
            )));
        }
        Ok(value)
    }
    /// `value` with the named fields replaced.
    fn replace(&self, mut value: u64, fields: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
        if let Some(d) = fields {
            for (k, v) in d.iter() {
                let name: String = k.extract()?;
                let f = self.field_ref(&name)?;
                let w = f.width();
                let v: u64 = v.extract().map_err(|_| {
                    PyValueError::new_err(format!(
                        "field `{}.{name}` takes a non-negative int",
                        self.path
                    ))
                })?;
                if v & !ones(w) != 0 {
                    return Err(PyValueError::new_err(format!(
                        "{v:#x} does not fit the {w}-bit field `{}.{name}`",
                        self.path
                    )));
                }
                value = value & !(ones(w) << f.lsb) | v << f.lsb;
            }
        }
        Ok(value)
    }
}

#[pymethods]
impl PyRegister {
    /// The register's value at reset (every field's reset value in place).
    #[getter]
    fn reset(&self) -> u64 {
        self.fields.iter().fold(0, |v, f| v | f.reset << f.lsb)
    }
    /// Software can read something (reading it is not an error).
    #[getter]
    fn readable(&self) -> bool {
        self.fields.iter().any(|f| f.acc.sw_reads())
    }
    /// Software can write something (writing it is not an error).
    #[getter]
    fn writable(&self) -> bool {
        self.fields.iter().any(|f| f.acc.sw_writes())
    }
    /// Reading has an effect (an `rc` or `rs` field), so read-modify-write is refused.
    #[getter]
    fn read_side_effects(&self) -> bool {
        self.fields
            .iter()
            .any(|f| matches!(f.acc, Access::Rc | Access::Rs))
    }
    fn field(&self, name: &str) -> PyResult<PyField> {
        self.field_ref(name).cloned()
    }
    /// Byte address of array element `index`.
    #[pyo3(signature = (index = 0))]
    fn address(&self, index: u64) -> PyResult<u64> {
        if index >= self.count {
            return Err(PyIndexError::new_err(format!(
                "`{}` has {} element(s); index {index} is out of range",
                self.path, self.count
            )));
        }
        Ok(self.base + index * self.stride)
    }
    /// A register value from field values; fields not named keep `value`'s bits (default:
    /// the reset value). Raises KeyError for an unknown field, ValueError for a too-wide one.
    #[pyo3(signature = (value = None, /, **fields))]
    fn pack(&self, value: Option<u64>, fields: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
        let base = self.check_value(value.unwrap_or_else(|| self.reset()))?;
        self.replace(base, fields)
    }
    /// The register value split into {field: value}.
    fn unpack<'py>(&self, py: Python<'py>, value: u64) -> PyResult<Bound<'py, PyDict>> {
        let value = self.check_value(value)?;
        let d = PyDict::new(py);
        for f in &self.fields {
            d.set_item(&f.name, value >> f.lsb & ones(f.width()))?;
        }
        Ok(d)
    }
    /// One field of a register value.
    fn get(&self, value: u64, field: &str) -> PyResult<u64> {
        let f = self.field_ref(field)?;
        Ok(value >> f.lsb & ones(f.width()))
    }
    /// The value to write back in a read-modify-write that changes only `fields`, given the
    /// value read. Unnamed fields get the value that leaves them as they are: their read
    /// value for rw, 0 for w1c/w1s/wp, all ones for w0c. A `wo` field reads as 0, so it
    /// is written 0 unless named.
    #[pyo3(signature = (old, /, **fields))]
    fn modify_value(&self, old: u64, fields: Option<&Bound<'_, PyDict>>) -> PyResult<u64> {
        let old = self.check_value(old)?;
        let neutral = self.fields.iter().fold(0u64, |v, f| {
            let m = ones(f.width()) << f.lsb;
            v | match f.acc {
                Access::Rw | Access::Wo | Access::Ro | Access::Rc | Access::Rs => old & m,
                Access::W1c | Access::W1s | Access::Wp => 0,
                Access::W0c => m,
            }
        });
        self.replace(neutral, fields)
    }
    /// Word addresses to read, in order: the low half first for a 64-bit register (reading
    /// it latches the high half, which the second read returns).
    #[pyo3(signature = (index = 0))]
    fn read_plan(&self, index: u64) -> PyResult<Vec<u64>> {
        let a = self.address(index)?;
        Ok(if self.width == 64 {
            vec![a, a + 4]
        } else {
            vec![a]
        })
    }
    /// The register value from the words `read_plan` read.
    fn combine(&self, words: Vec<u64>) -> PyResult<u64> {
        let n = (self.width / 32) as usize;
        if words.len() != n || words.iter().any(|w| *w > 0xffff_ffff) {
            return Err(PyValueError::new_err(format!(
                "`{}` takes {n} 32-bit word(s), got {words:x?}",
                self.path
            )));
        }
        Ok(words
            .iter()
            .enumerate()
            .fold(0, |v, (i, w)| v | w << (32 * i)))
    }
    /// The (address, data, strobe) beats that write `value`: for a 64-bit register the low
    /// half first (held in the block's write shadow) and the high half, which commits both.
    /// `strobe` has one bit per byte of the register (default: all bytes).
    #[pyo3(signature = (value, index = 0, strobe = None))]
    fn write_plan(
        &self,
        value: u64,
        index: u64,
        strobe: Option<u8>,
    ) -> PyResult<Vec<(u64, u64, u8)>> {
        let a = self.address(index)?;
        let value = self.check_value(value)?;
        let lanes = if self.width == 64 { 0xffu8 } else { 0xf };
        let strobe = strobe.unwrap_or(lanes);
        if strobe & !lanes != 0 {
            return Err(PyValueError::new_err(format!(
                "strobe {strobe:#x} has lanes outside the {}-bit register `{}`",
                self.width, self.path
            )));
        }
        Ok(if self.width == 64 {
            vec![
                (a, value & 0xffff_ffff, strobe & 0xf),
                (a + 4, value >> 32, strobe >> 4),
            ]
        } else {
            vec![(a, value, strobe)]
        })
    }
    fn __repr__(&self) -> String {
        if self.count > 1 || self.group.is_some() {
            format!(
                "Register({} @ {:#x} + i*{:#x}, i < {}, {} bits)",
                self.path, self.base, self.stride, self.count, self.width
            )
        } else {
            format!(
                "Register({} @ {:#x}, {} bits)",
                self.path, self.base, self.width
            )
        }
    }
}

fn map_error(e: rdmagen_regmap::LoadError) -> PyErr {
    match e {
        rdmagen_regmap::LoadError::Io { path, source } => {
            pyo3::exceptions::PyOSError::new_err(format!("cannot read {path}: {source}"))
        }
        rdmagen_regmap::LoadError::Invalid(d) => MapError::new_err(d.render(false)),
    }
}

impl PyRegMap {
    pub fn resolved(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<PyRegister>> {
        let map = &self.map;
        let values = resolve_params(map, params)?;
        let field = |f: &rdmagen_regmap::Field| PyField {
            name: f.name.text.clone(),
            msb: f.msb,
            lsb: f.lsb,
            access: f.access.as_str().to_string(),
            reset: f.reset,
            description: f.description.clone(),
            constant: f.constant,
            write_strobe: f.has_write_strobe(),
            read_strobe: f.read_strobe,
            enum_values: f.enumeration.as_ref().and_then(|e| {
                map.enumeration(e).map(|e| {
                    e.values
                        .iter()
                        .map(|v| (v.name.text.clone(), v.value))
                        .collect()
                })
            }),
            acc: f.access,
        };
        let mut out = Vec::new();
        for item in &map.items {
            match item {
                Item::Register(r) => out.push(PyRegister {
                    name: r.name.text.clone(),
                    group: None,
                    path: r.name.text.clone(),
                    base: r.offset,
                    stride: 0,
                    count: 1,
                    width: r.width,
                    description: r.description.clone(),
                    fields: r.fields.iter().map(field).collect(),
                }),
                Item::Group(g) => {
                    let count = match &g.count {
                        Count::Fixed(n) => *n,
                        // Every parameter has a value: the map's validation checked the name.
                        Count::Param(p) => values.get(&p.text).copied().unwrap_or(g.max_count),
                    };
                    for r in &g.registers {
                        out.push(PyRegister {
                            name: r.name.text.clone(),
                            group: Some(g.name.text.clone()),
                            path: format!("{}.{}", g.name, r.name),
                            base: g.offset + r.offset,
                            stride: g.stride,
                            count,
                            width: r.width,
                            description: r.description.clone(),
                            fields: r.fields.iter().map(field).collect(),
                        });
                    }
                }
            }
        }
        Ok(out)
    }
}

#[pymethods]
impl PyRegMap {
    /// Reads and validates a map file. Raises MapError listing every problem.
    #[staticmethod]
    fn load(path: std::path::PathBuf) -> PyResult<PyRegMap> {
        let map = rdmagen_regmap::load(&path).map_err(map_error)?;
        Ok(PyRegMap { map: Arc::new(map) })
    }
    /// Validates map text; `file` is the name shown in error messages.
    #[staticmethod]
    #[pyo3(signature = (text, file = "<string>"))]
    fn parse(text: &str, file: &str) -> PyResult<PyRegMap> {
        let map = rdmagen_regmap::parse(file, text)
            .map_err(|d| map_error(rdmagen_regmap::LoadError::Invalid(d)))?;
        Ok(PyRegMap { map: Arc::new(map) })
    }
    /// One of the repository's maps, compiled into the extension (see `builtin_names`).
    #[staticmethod]
    fn builtin(name: &str) -> PyResult<PyRegMap> {
        let Some((_, file, text)) = BUILTIN.iter().find(|(n, _, _)| *n == name) else {
            return Err(PyKeyError::new_err(format!(
                "no built-in map `{name}` (built-in: {})",
                Self::builtin_names().join(", ")
            )));
        };
        Self::parse(text, file)
    }
    #[staticmethod]
    fn builtin_names() -> Vec<&'static str> {
        BUILTIN.iter().map(|(n, _, _)| *n).collect()
    }
    /// The block name (module `<block>_csr`).
    #[getter]
    fn block(&self) -> String {
        self.map.block.text.clone()
    }
    #[getter]
    fn file(&self) -> String {
        self.map.file.clone()
    }
    #[getter]
    fn version(&self) -> String {
        self.map.version.to_string()
    }
    #[getter]
    fn description(&self) -> String {
        self.map.description.clone()
    }
    /// AXI4-Lite address bits of the CSR block.
    #[getter]
    fn address_width(&self) -> u32 {
        self.map.address_width
    }
    /// {name: (default, min, max)}.
    #[getter]
    fn parameters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for p in &self.map.parameters {
            d.set_item(&p.name.text, (p.default, p.min, p.max))?;
        }
        Ok(d)
    }
    /// The map's enumerations: {enum name: {value name: value}}.
    #[getter]
    fn enums<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for e in &self.map.enums {
            let v: Vec<(String, u64)> = e
                .values
                .iter()
                .map(|v| (v.name.text.clone(), v.value))
                .collect();
            d.set_item(&e.name.text, pairs(py, &v)?)?;
        }
        Ok(d)
    }
    /// Every register in map order, arrays sized by `params` (others: their defaults).
    #[pyo3(signature = (params = None))]
    fn registers(&self, params: Option<&Bound<'_, PyDict>>) -> PyResult<Vec<PyRegister>> {
        self.resolved(params)
    }
    /// The register at `path` (`name` or `group.name`). Raises KeyError when there is none.
    #[pyo3(signature = (path, params = None))]
    fn register(&self, path: &str, params: Option<&Bound<'_, PyDict>>) -> PyResult<PyRegister> {
        let regs = self.resolved(params)?;
        let known: Vec<String> = regs.iter().map(|r| r.path.clone()).collect();
        regs.into_iter().find(|r| r.path == path).ok_or_else(|| {
            PyKeyError::new_err(format!(
                "map `{}` has no register `{path}` (registers: {})",
                self.map.block,
                known.join(", ")
            ))
        })
    }
    /// Which register a byte address falls in: (register, index, high_half), or None.
    #[pyo3(signature = (address, params = None))]
    fn decode(
        &self,
        address: u64,
        params: Option<&Bound<'_, PyDict>>,
    ) -> PyResult<Option<(PyRegister, u64, bool)>> {
        let a = address & ones(self.map.address_width) & !3;
        for r in self.resolved(params)? {
            for i in 0..r.count {
                let base = r.base + i * r.stride;
                if a == base || (r.width == 64 && a == base + 4) {
                    let high = a != base;
                    return Ok(Some((r, i, high)));
                }
            }
        }
        Ok(None)
    }
    fn __repr__(&self) -> String {
        format!(
            "RegMap({} v{} from {})",
            self.map.block, self.map.version, self.map.file
        )
    }
}
