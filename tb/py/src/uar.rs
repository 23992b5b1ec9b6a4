//! `UarModel`: the reference model of the UAR doorbell/BlueFlame block (`rtl/uar.v`,
//! `rtl/uar_mlx5.v`), one AXI4 write at a time, as a scoreboard.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use rdmagen_refmodel::uar::{Event, Outcome, Qp, Result_, Role, UarModel, Write};

use crate::regs::PyRegMap;

/// Event results in `mon_result` order.
const RESULTS: [&str; 5] = ["fetch", "blueflame", "drop", "pending", "forward"];

fn event<'py>(py: Python<'py>, e: &Event) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("result", e.result.code())?;
    d.set_item("reason", e.reason)?;
    d.set_item("vf", e.vf)?;
    d.set_item("pf", e.pf)?;
    d.set_item("page", e.page)?;
    d.set_item("qpn", e.qpn)?;
    Ok(d)
}

fn outcome<'py>(py: Python<'py>, o: &Outcome, hostile: bool) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    let events = PyList::empty(py);
    for e in &o.events {
        events.append(event(py, e)?)?;
    }
    d.set_item("events", events)?;
    let fetch = o
        .fetch
        .map(|f| -> PyResult<_> {
            let x = PyDict::new(py);
            x.set_item("vf", f.vf)?;
            x.set_item("qpn", f.qpn)?;
            x.set_item("wqe_index", f.wqe_index)?;
            x.set_item("ds", f.ds)?;
            x.set_item("opcode", f.opcode)?;
            Ok(x)
        })
        .transpose()?;
    d.set_item("fetch", fetch)?;
    let wqe = o
        .wqe
        .as_ref()
        .map(|w| -> PyResult<_> {
            let x = PyDict::new(py);
            x.set_item("beats", w.beats.clone())?;
            x.set_item("user", w.user)?;
            Ok(x)
        })
        .transpose()?;
    d.set_item("wqe", wqe)?;
    let fwd = o
        .fwd
        .map(|f| -> PyResult<_> {
            let x = PyDict::new(py);
            x.set_item("vf", f.vf)?;
            x.set_item("win", f.win)?;
            x.set_item("data", f.data)?;
            Ok(x)
        })
        .transpose()?;
    d.set_item("fwd", fwd)?;
    d.set_item("bresp", o.bresp)?;
    d.set_item("hostile", hostile)?;
    Ok(d)
}

/// Reference model of the UAR block (`docs/uar.md`): each AXI4 write to the UAR pages in,
/// what the block makes of it out: its monitor events (`mon_*`), the WQE-fetch request
/// (`fetch_*`), the BlueFlame WQE (`m_axis_bf_*`), the forwarded doorbell (`fwd_*`, mlx5
/// map) and the B response, in the order the block serves the writes.
///
/// The model keeps its own QP table: mirror every QPC command that changes a QP into it with
/// `set_qp`. Configuration (`enable`, `bf_enable`, `active_pages`, `pf_only_mask`,
/// `set_vf_enable`) mirrors the CSR writes; everything starts at the map's reset values.
#[pyclass(module = "rdmagen", name = "UarModel")]
pub struct PyUarModel {
    model: UarModel,
}

impl PyUarModel {
    fn check_vf(&self, vf: u32) -> PyResult<usize> {
        if vf >= self.model.num_vf {
            return Err(PyValueError::new_err(format!(
                "VF {vf} of a block with {} VFs",
                self.model.num_vf
            )));
        }
        Ok(vf as usize)
    }
}

#[pymethods]
impl PyUarModel {
    /// `regmap` is the UAR map the block was generated from (`uar` or `uar-mlx5`: its
    /// `uar_page` windows and `drop_reason` enum); `num_vf` and `pages_per_vf` its NUM_VF and
    /// PAGES_PER_VF.
    #[new]
    fn new(regmap: &PyRegMap, num_vf: u32, pages_per_vf: u32) -> PyResult<Self> {
        if !(1..=256).contains(&num_vf) || !(1..=16).contains(&pages_per_vf) {
            return Err(PyValueError::new_err(
                "num_vf is 1..256 and pages_per_vf 1..16 (the maps' ranges)",
            ));
        }
        let model = UarModel::new(&regmap.map, num_vf, pages_per_vf)
            .map_err(|e| PyValueError::new_err(format!("not a UAR map: {e}")))?;
        Ok(PyUarModel { model })
    }

    /// Back to the reset state: reset configuration, counters zero, no QPs, no pending half.
    fn reset(&mut self) {
        self.model.reset();
    }

    /// One AXI4 write, in the order the block takes them (AW order). `beats` is a list of
    /// (64-bit data, 8-bit strobe): byte i of the data is the byte at address + i. `pf` and
    /// `vf` are the requester (`s_axi_awuser = {pf, vf}`), `size` and `burst` AWSIZE and
    /// AWBURST. Returns {"events": [{result, reason, vf, pf, page, qpn}, ...] (as on mon_*:
    /// a torn pair's drop first, then this write's event), "fetch": {vf, qpn, wqe_index,
    /// ds, opcode} or None, "wqe": {beats, user} or None, "fwd": {vf, win, data} or None,
    /// "bresp": 0 OKAY / 2 SLVERR / 3 DECERR, "hostile": dropped for a reason other than
    /// DISABLED}.
    #[pyo3(signature = (addr, beats, *, vf = 0, pf = false, size = 3, burst = 1))]
    #[allow(clippy::too_many_arguments)] // the AXI write's fields, as Python keywords
    fn write<'py>(
        &mut self,
        py: Python<'py>,
        addr: u32,
        beats: Vec<(u64, u8)>,
        vf: u8,
        pf: bool,
        size: u8,
        burst: u8,
    ) -> PyResult<Bound<'py, PyDict>> {
        if beats.is_empty() || beats.len() > 256 {
            return Err(PyValueError::new_err("a write has 1 to 256 beats"));
        }
        if addr >> 24 != 0 {
            return Err(PyValueError::new_err(format!(
                "address {addr:#x} is wider than the 24-bit s_axi_awaddr"
            )));
        }
        let o = self.model.write(&Write {
            pf,
            vf,
            addr,
            size,
            burst,
            beats,
        });
        let hostile = self.model.hostile(&o);
        outcome(py, &o, hostile)
    }

    /// Sets QP `qpn` (global: `vf << 12 | local`) as the QPC holds it: mlx5 `state` (0 RST,
    /// 1 INIT, 2 RTR, 3 RTS, 5 SQD, 6 ERR) and `uar_page` (page index within its VF).
    fn set_qp(&mut self, qpn: u32, state: u32, uar_page: u32) {
        self.model.set_qp(qpn, Some(Qp { state, uar_page }));
    }

    /// Removes QP `qpn` (destroyed).
    fn remove_qp(&mut self, qpn: u32) {
        self.model.set_qp(qpn, None);
    }

    /// (state, uar_page) of QP `qpn`, or None when it does not exist.
    fn qp(&self, qpn: u32) -> Option<(u32, u32)> {
        self.model.qp(qpn).map(|q| (q.state, q.uar_page))
    }

    /// The AXI address of `offset` in page index `page` of function `vf`'s BAR2.
    #[pyo3(signature = (vf, page, offset = 0))]
    fn address(&self, vf: u32, page: u32, offset: u32) -> PyResult<u32> {
        let pw = self.model.pw();
        if offset > 0xfff || page >> pw != 0 || vf >= 1 << (12 - pw) {
            return Err(PyValueError::new_err(format!(
                "VF {vf} page {page} offset {offset:#x} is outside the 24-bit BAR2 aperture \
                 ({} pages per function)",
                1u32 << pw
            )));
        }
        Ok(self.model.address(vf, page, offset))
    }

    /// The 64-bit AXI beat of a send doorbell as rdma-core writes it: the big-endian
    /// `opmod_idx_opcode` then `qpn_ds` words (`opmod[63:56] wqe_index[55:40] opcode[39:32]
    /// qpn[31:8] ds[7:0]` of the big-endian value), as the 8 bytes of a little-endian beat.
    #[staticmethod]
    #[pyo3(signature = (wqe_index, opcode, qpn, ds, opmod = 0))]
    fn doorbell(wqe_index: u16, opcode: u8, qpn: u32, ds: u8, opmod: u8) -> PyResult<u64> {
        if qpn > 0xff_ffff {
            return Err(PyValueError::new_err("qpn is 24-bit"));
        }
        let be = u64::from(opmod) << 56
            | u64::from(wqe_index) << 40
            | u64::from(opcode) << 32
            | u64::from(qpn) << 8
            | u64::from(ds);
        Ok(be.swap_bytes())
    }

    #[getter]
    fn num_vf(&self) -> u32 {
        self.model.num_vf
    }
    #[getter]
    fn pages_per_vf(&self) -> u32 {
        self.model.pages_per_vf
    }
    /// Page-index bits of the address: a function's BAR2 is `2**pw` pages.
    #[getter]
    fn pw(&self) -> u32 {
        self.model.pw()
    }
    /// The page's windows: [(name, offset, size, role)], role one of "doorbell",
    /// "blueflame", "forward"; the index in this list is `fwd_win`.
    #[getter]
    fn windows(&self) -> Vec<(String, u64, u64, &'static str)> {
        self.model
            .windows
            .iter()
            .map(|w| {
                let role = match w.role {
                    Role::SendDoorbell => "doorbell",
                    Role::BlueFlame => "blueflame",
                    Role::Forward => "forward",
                };
                (w.name.clone(), w.offset, w.size, role)
            })
            .collect()
    }
    /// The `mon_result` codes: {"fetch": 0, "blueflame": 1, "drop": 2, "pending": 3,
    /// "forward": 4}.
    #[getter]
    fn results<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for r in [
            Result_::Fetch,
            Result_::BlueFlame,
            Result_::Drop,
            Result_::Pending,
            Result_::Forward,
        ] {
            debug_assert_eq!(RESULTS[r.code() as usize], r.name());
            d.set_item(r.name(), r.code())?;
        }
        Ok(d)
    }
    /// The map's drop reasons: {"not_owner": 1, ...} (the `drop_reason` enum).
    #[getter]
    fn reasons<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let r = &self.model.reasons;
        let d = PyDict::new(py);
        for (n, v) in [
            ("not_owner", r.not_owner),
            ("wrong_page", r.wrong_page),
            ("qp_state", r.qp_state),
            ("unmapped", r.unmapped),
            ("pf_only", r.pf_only),
            ("torn", r.torn),
            ("disabled", r.disabled),
            ("bf_chunk", r.bf_chunk),
        ] {
            d.set_item(n, v)?;
        }
        Ok(d)
    }

    /// `ctrl.enable`.
    #[getter]
    fn enable(&self) -> bool {
        self.model.cfg.enable
    }
    #[setter]
    fn set_enable(&mut self, v: bool) {
        self.model.cfg.enable = v;
    }
    /// `ctrl.bf_enable`.
    #[getter]
    fn bf_enable(&self) -> bool {
        self.model.cfg.bf_enable
    }
    #[setter]
    fn set_bf_enable(&mut self, v: bool) {
        self.model.cfg.bf_enable = v;
    }
    /// `page_cfg.active_pages` (0 or above PAGES_PER_VF: all pages).
    #[getter]
    fn active_pages(&self) -> u32 {
        self.model.cfg.active_pages
    }
    #[setter]
    fn set_active_pages(&mut self, v: u32) {
        self.model.cfg.active_pages = v;
    }
    /// `page_cfg.pf_only_mask`: page indices only the PF may write.
    #[getter]
    fn pf_only_mask(&self) -> u16 {
        self.model.cfg.pf_only_mask
    }
    #[setter]
    fn set_pf_only_mask(&mut self, v: u16) {
        self.model.cfg.pf_only_mask = v;
    }
    /// `vf[i].ctrl.enable` of every VF.
    #[getter]
    fn vf_enable(&self) -> Vec<bool> {
        self.model.cfg.vf_enable.clone()
    }
    /// Sets `vf[vf].ctrl.enable`.
    fn set_vf_enable(&mut self, vf: u32, on: bool) -> PyResult<()> {
        let i = self.check_vf(vf)?;
        self.model.cfg.vf_enable[i] = on;
        Ok(())
    }

    /// The counters as the CSRs hold them: {"db_accepted", "bf_accepted", "drops":
    /// {reason name: n}, "vf_doorbells": [per VF], "vf_drops": [per VF], "forwarded": [per
    /// window], "last_drop": (reason, page, vf, qpn) or None}.
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.model.counters;
        let d = PyDict::new(py);
        d.set_item("db_accepted", c.db_accepted)?;
        d.set_item("bf_accepted", c.bf_accepted)?;
        let drops = PyDict::new(py);
        for (name, v) in self.reasons(py)?.iter() {
            let v: usize = v.extract()?;
            drops.set_item(name, c.drops.get(v).copied().unwrap_or(0))?;
        }
        d.set_item("drops", drops)?;
        d.set_item("vf_doorbells", c.vf_doorbells.clone())?;
        d.set_item("vf_drops", c.vf_drops.clone())?;
        d.set_item("forwarded", c.forwarded.clone())?;
        d.set_item("last_drop", c.last_drop)?;
        Ok(d)
    }

    /// Zeroes the event counters, as reading them does (they are read-to-clear);
    /// `last_drop` keeps its value.
    fn clear_counters(&mut self) {
        let c = &mut self.model.counters;
        c.db_accepted = 0;
        c.bf_accepted = 0;
        c.drops = [0; 16];
        c.vf_doorbells.fill(0);
        c.vf_drops.fill(0);
        c.forwarded.fill(0);
    }
}
