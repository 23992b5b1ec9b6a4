//! The DCQCN reaction-point models: `DcqcnEngine` (lazy timers, bit- and cycle-exact with
//! `rtl/dcqcn_rp.v`) and `DcqcnEager` (every period fires at its microsecond).

use pyo3::exceptions::{PyKeyError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rdmagen_refmodel::dcqcn::{Eager, Engine, Flow, Kind, Params, Response};

/// Generates the dict conversions of `Params` and `Flow` from one list of field names.
macro_rules! dict_io {
    ($ty:ident, $to:ident, $from:ident, [$($f:ident),* $(,)?]) => {
        fn $to<'py>(py: Python<'py>, v: &$ty) -> PyResult<Bound<'py, PyDict>> {
            let d = PyDict::new(py);
            $(d.set_item(stringify!($f), v.$f)?;)*
            Ok(d)
        }
        /// Overrides from a dict onto `v`; unknown keys are an error.
        fn $from(v: &mut $ty, d: &Bound<'_, PyDict>) -> PyResult<()> {
            for (k, x) in d.iter() {
                let k: String = k.extract()?;
                match k.as_str() {
                    $(stringify!($f) => v.$f = x.extract().map_err(|_| PyValueError::new_err(
                        format!("`{}` has the wrong type or is out of range", stringify!($f))))?,)*
                    other => return Err(PyKeyError::new_err(format!(
                        concat!("no ", stringify!($ty), " field `{}`"), other))),
                }
            }
            Ok(())
        }
    };
}

dict_io!(
    Params,
    params_to_dict,
    params_update,
    [
        paper,
        rp_enable,
        np_enable,
        clk_per_us,
        line_rate,
        shaper_burst,
        rpg_time_reset,
        rpg_byte_reset,
        rpg_threshold,
        rpg_max_rate,
        rpg_ai_rate,
        rpg_hai_rate,
        rpg_gd,
        rpg_min_dec_fac,
        rpg_min_rate,
        rate_to_set_on_first_cnp,
        dce_tcp_g,
        dce_tcp_rtt,
        rate_reduce_monitor_period,
        initial_alpha_value,
        clamp_tgt_rate,
        clamp_tgt_rate_after_time_inc,
        min_time_between_cnps,
    ]
);

dict_io!(
    Flow,
    flow_to_dict,
    flow_update,
    [
        seen, acnp, dcnp, incon, tokv, npv, alpha, rc, rt, tc, bc, bacc, a_next, d_next, i_next,
        tokens, tok_us, np_last,
    ]
);

fn params(overrides: Option<&Bound<'_, PyDict>>) -> PyResult<Params> {
    let mut p = Params::default();
    if let Some(d) = overrides {
        params_update(&mut p, d)?;
    }
    Ok(p)
}

fn kind(k: &str) -> PyResult<Kind> {
    Ok(match k {
        "cnp" => Kind::Cnp,
        "tx" => Kind::Tx,
        "ce" => Kind::Ce,
        "read" => Kind::Read,
        other => {
            return Err(PyValueError::new_err(format!(
                "event kind `{other}` is not one of cnp, tx, ce, read"
            )))
        }
    })
}

fn response<'py>(py: Python<'py>, r: &Response) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("kind", r.kind)?;
    d.set_item("flow", r.flow)?;
    d.set_item("flag", r.flag)?;
    d.set_item("seen", r.seen)?;
    d.set_item("rc", r.rc)?;
    d.set_item("rt", r.rt)?;
    d.set_item("alpha", r.alpha)?;
    d.set_item("timer_count", r.timer_count)?;
    d.set_item("time_us", r.time_us)?;
    Ok(d)
}

/// The engine parameters at the dcqcn map's reset values (mlx5 defaults, 250 MHz,
/// 100 Gb/s), as {name: value}; pass a dict of overrides to the models' `params`.
#[pyfunction]
pub fn dcqcn_defaults(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    params_to_dict(py, &Params::default())
}

fn flow_checked(flows: &[Flow], i: usize) -> PyResult<&Flow> {
    flows
        .get(i)
        .ok_or_else(|| PyValueError::new_err(format!("flow {i} of {}", flows.len())))
}

/// The lazy DCQCN engine, bit- and cycle-exact with `dcqcn_rp`. Rates are Mb/s with 8
/// fractional bits, alpha has 24 fractional bits, time is in microseconds.
#[pyclass(module = "rdmagen", name = "DcqcnEngine")]
pub struct PyEngine {
    engine: Engine,
}

#[pymethods]
impl PyEngine {
    #[new]
    fn new(flows: usize) -> PyResult<Self> {
        if flows == 0 {
            return Err(PyValueError::new_err("an engine needs at least one flow"));
        }
        Ok(PyEngine {
            engine: Engine::new(flows),
        })
    }
    /// Every flow back to its all-zero word (`ctrl.flow_clear`).
    fn clear(&mut self) {
        self.engine.clear();
    }
    /// Processes one event (`kind`: cnp, tx, ce or read) taken at microsecond `now`.
    /// Returns {"rsp": {...}, "stats": {rp_cnps, rate_cuts, np_cnps, deferrals}, "cycles",
    /// "steps", "skips"}.
    #[pyo3(signature = (kind, flow, bytes, now, params = None))]
    fn event<'py>(
        &mut self,
        py: Python<'py>,
        kind: &str,
        flow: u32,
        bytes: u32,
        now: u32,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = self::params(params)?;
        let o = self.engine.event(&p, self::kind(kind)?, flow, bytes, now);
        let d = PyDict::new(py);
        d.set_item("rsp", response(py, &o.rsp)?)?;
        let s = PyDict::new(py);
        s.set_item("rp_cnps", o.stats.rp_cnps)?;
        s.set_item("rate_cuts", o.stats.rate_cuts)?;
        s.set_item("np_cnps", o.stats.np_cnps)?;
        s.set_item("deferrals", o.stats.deferrals)?;
        d.set_item("stats", s)?;
        d.set_item("cycles", o.cycles)?;
        d.set_item("steps", o.steps)?;
        d.set_item("skips", o.skips)?;
        Ok(d)
    }
    /// One flow's state word as a dict.
    fn flow<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyDict>> {
        flow_to_dict(py, flow_checked(&self.engine.flows, index)?)
    }
    /// Overwrites fields of one flow's state word (a preloaded state for a directed test).
    fn set_flow(&mut self, index: usize, fields: &Bound<'_, PyDict>) -> PyResult<()> {
        flow_checked(&self.engine.flows, index)?;
        flow_update(&mut self.engine.flows[index], fields)
    }
    #[getter]
    fn flows(&self) -> usize {
        self.engine.flows.len()
    }
}

/// The every-period-fires DCQCN model: what a simulator with one timer per flow computes.
#[pyclass(module = "rdmagen", name = "DcqcnEager")]
pub struct PyEager {
    eager: Eager,
}

#[pymethods]
impl PyEager {
    #[new]
    fn new(flows: usize) -> PyResult<Self> {
        if flows == 0 {
            return Err(PyValueError::new_err("a model needs at least one flow"));
        }
        Ok(PyEager {
            eager: Eager::new(flows),
        })
    }
    /// Fires every period due up to microsecond `now`, in time order.
    #[pyo3(signature = (now, params = None))]
    fn advance_to(&mut self, now: u32, params: Option<&Bound<'_, PyDict>>) -> PyResult<()> {
        let p = self::params(params)?;
        self.eager.advance_to(&p, now);
        Ok(())
    }
    /// An event at the current time (after `advance_to`); returns the response dict.
    #[pyo3(signature = (kind, flow, bytes, params = None))]
    fn event<'py>(
        &mut self,
        py: Python<'py>,
        kind: &str,
        flow: u32,
        bytes: u32,
        params: Option<&Bound<'py, PyDict>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let p = self::params(params)?;
        let r = self.eager.event(&p, self::kind(kind)?, flow, bytes);
        response(py, &r)
    }
    fn flow<'py>(&self, py: Python<'py>, index: usize) -> PyResult<Bound<'py, PyDict>> {
        flow_to_dict(py, flow_checked(&self.eager.flows, index)?)
    }
}
