//! `QpcModel`: the cycle-by-cycle reference model of the QPC block (`rtl/qpc.v`).

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use rdmagen_refmodel::qpc::{CycleIn, MkReq, QpcModel, Req, Wb};

use crate::regs::PyRegMap;

/// A lookup request (vf, qpn, arg, user); `arg` is the doorbell's UAR page or the WQE's PD.
type ReqTuple = (u8, u32, u32, u32);
/// An R_Key check (vf, pd, rkey, va, len, access, user); access [0] read, [1] write, [2] atomic.
type MkTuple = (u8, u32, u32, u64, u32, u8, u32);

fn req(r: Option<ReqTuple>) -> Option<Req> {
    r.map(|(vf, qpn, arg, user)| Req { vf, qpn, arg, user })
}

/// Reference model of the QPC block: QP context RAM partitioned per VF, the mlx5 QP command
/// mailbox and the doorbell, WQE and RX lookup ports, cycle by cycle (`docs/qpc.md`).
///
/// Call `cycle` once per clock with what the block accepted in that cycle; it returns the
/// responses that cycle produces. The CSR side models full-word writes of the command
/// registers; the CSR block itself is checked with `CsrModel`.
#[pyclass(module = "rdmagen", name = "QpcModel")]
pub struct PyQpcModel {
    model: QpcModel,
}

#[pymethods]
impl PyQpcModel {
    /// `regmap` is the qpc map (its `qpc` and `mkey` memories give the layouts); `num_vf`,
    /// `qps_per_vf` and `num_mkeys` are the block's NUM_VF, QPS_PER_VF and NUM_MKEYS.
    #[new]
    #[pyo3(signature = (regmap, num_vf, qps_per_vf, num_mkeys = 4096))]
    fn new(regmap: &PyRegMap, num_vf: u32, qps_per_vf: u32, num_mkeys: u32) -> PyResult<Self> {
        if num_vf == 0 || qps_per_vf == 0 || num_mkeys == 0 {
            return Err(PyValueError::new_err(
                "num_vf, qps_per_vf and num_mkeys must be at least 1",
            ));
        }
        let model = QpcModel::new(&regmap.map, num_vf, qps_per_vf, num_mkeys)
            .map_err(|e| PyValueError::new_err(format!("not a QPC map: {e}")))?;
        Ok(PyQpcModel { model })
    }

    /// The state right after reset: every context is cleared, one per cycle.
    fn reset(&mut self) {
        self.model.reset();
    }

    /// One clock cycle. Requests are (vf, qpn, arg, user) tuples, `wb` is
    /// (vf, qpn, epsn, nak_sent, err), `mk` an R_Key check (vf, pd, rkey, va, len, access, user),
    /// `csr_write` (address, data) with full strobes, `csr_read` an address accepted this
    /// cycle, `csr_rready` RREADY this cycle. Returns {"db", "wqe", "rx", "mk", "csr_read",
    /// "done"}: each a dict (or int, tuple for done = (status, previous state)) when produced
    /// this cycle, else None; "csr_read" is the data of the read that moves to the R register
    /// this cycle (accepted earlier: one cycle later when R is free).
    #[pyo3(signature = (db = None, wqe = None, rx = None, wb = None, csr_write = None, csr_read = None, mk = None, csr_rready = true))]
    #[allow(clippy::too_many_arguments)]
    fn cycle<'py>(
        &mut self,
        py: Python<'py>,
        db: Option<ReqTuple>,
        wqe: Option<ReqTuple>,
        rx: Option<ReqTuple>,
        wb: Option<(u8, u32, u32, bool, bool)>,
        csr_write: Option<(u64, u32)>,
        csr_read: Option<u64>,
        mk: Option<MkTuple>,
        csr_rready: bool,
    ) -> PyResult<Bound<'py, PyDict>> {
        let out = self.model.cycle(&CycleIn {
            db: req(db),
            wqe: req(wqe),
            rx: req(rx),
            wb: wb.map(|(vf, qpn, epsn, nak_sent, err)| Wb {
                vf,
                qpn,
                epsn,
                nak_sent,
                err,
            }),
            mk: mk.map(|(vf, pd, rkey, va, len, access, user)| MkReq {
                vf,
                pd,
                rkey,
                va,
                len,
                access,
                user,
            }),
            csr_write,
            csr_read,
            csr_rready,
        });
        let d = PyDict::new(py);
        let db = out
            .db
            .map(|r| -> PyResult<_> {
                let e = PyDict::new(py);
                e.set_item("ok", r.ok)?;
                e.set_item("reason", r.reason)?;
                e.set_item("vf", r.vf)?;
                e.set_item("qpn", r.qpn)?;
                e.set_item("user", r.user)?;
                Ok(e)
            })
            .transpose()?;
        d.set_item("db", db)?;
        let wqe = out
            .wqe
            .map(|r| -> PyResult<_> {
                let e = PyDict::new(py);
                e.set_item("status", r.status)?;
                e.set_item("cqn", r.cqn)?;
                e.set_item("vf", r.vf)?;
                e.set_item("qpn", r.qpn)?;
                e.set_item("user", r.user)?;
                Ok(e)
            })
            .transpose()?;
        d.set_item("wqe", wqe)?;
        let rx = out
            .rx
            .map(|r| -> PyResult<_> {
                let e = PyDict::new(py);
                e.set_item("ok", r.ok)?;
                e.set_item("state", r.state)?;
                e.set_item("st", r.st)?;
                e.set_item("pd", r.pd)?;
                e.set_item("epsn", r.epsn)?;
                e.set_item("nak_sent", r.nak_sent)?;
                e.set_item("rre", r.rre)?;
                e.set_item("rwe", r.rwe)?;
                e.set_item("rae", r.rae)?;
                e.set_item("qkey", r.qkey)?;
                e.set_item("vf", r.vf)?;
                e.set_item("qpn", r.qpn)?;
                e.set_item("user", r.user)?;
                Ok(e)
            })
            .transpose()?;
        d.set_item("rx", rx)?;
        let mk = out
            .mk
            .map(|r| -> PyResult<_> {
                let e = PyDict::new(py);
                e.set_item("ok", r.ok)?;
                e.set_item("reason", r.reason)?;
                e.set_item("vf", r.vf)?;
                e.set_item("rkey", r.rkey)?;
                e.set_item("user", r.user)?;
                Ok(e)
            })
            .transpose()?;
        d.set_item("mk", mk)?;
        d.set_item("csr_read", out.csr_read)?;
        d.set_item("done", out.done)?;
        Ok(d)
    }

    /// Contexts (NUM_VF * QPS_PER_VF).
    #[getter]
    fn depth(&self) -> usize {
        self.model.depth()
    }
    /// The reset/`ctrl.clear` sweep is still running.
    #[getter]
    fn clearing(&self) -> bool {
        self.model.clearing()
    }
    /// A command is executing (`cmd_status.busy`).
    #[getter]
    fn busy(&self) -> bool {
        self.model.busy()
    }
    /// The RX write-back port is ready this cycle (ask before calling `cycle`).
    #[getter]
    fn wb_ready(&self) -> bool {
        self.model.wb_ready()
    }
    /// (context dwords least significant first, (epsn, nak_sent)) of (vf, local QPN).
    fn context(&self, vf: u32, local: u32) -> PyResult<(Vec<u32>, (u32, bool))> {
        if vf >= self.model.num_vf || local >= self.model.qps {
            return Err(PyValueError::new_err(format!(
                "({vf}, {local}) is outside {} VFs x {} QPs",
                self.model.num_vf, self.model.qps
            )));
        }
        let (w, p) = self.model.context(vf, local);
        Ok((w.to_vec(), p))
    }
    /// Whether the RX write-back moved (vf, local QPN) to ERR (`rx_wb_err`).
    fn rx_error(&self, vf: u32, local: u32) -> PyResult<bool> {
        if vf >= self.model.num_vf || local >= self.model.qps {
            return Err(PyValueError::new_err(format!(
                "({vf}, {local}) is outside {} VFs x {} QPs",
                self.model.num_vf, self.model.qps
            )));
        }
        Ok(self.model.rx_error(vf, local))
    }
    /// The context address of global `qpn` requested by `vf`, or None outside its partition.
    fn address(&self, vf: u8, qpn: u32) -> Option<usize> {
        self.model.address(vf, qpn)
    }
    /// What a read of the CSR at byte address `address` returns (the registers modelled).
    fn csr_value(&self, address: u64) -> u32 {
        self.model.csr_value(address)
    }
    /// {illegal, cmd_errors, pd_mismatches, partition, collisions, rkey_violations}.
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let c = &self.model.counters;
        let d = PyDict::new(py);
        d.set_item("illegal", c.illegal)?;
        d.set_item("cmd_errors", c.cmd_errors)?;
        d.set_item("pd_mismatches", c.pd_mismatches)?;
        d.set_item("partition", c.partition)?;
        d.set_item("collisions", c.collisions)?;
        d.set_item("rkey_violations", c.rkey_violations)?;
        Ok(d)
    }
    /// The context word's fields {name: (msb, lsb)} the model reads and writes.
    #[getter]
    fn layout<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let l = self.model.layout();
        let d = PyDict::new(py);
        for (n, b) in [
            ("valid", l.valid),
            ("state", l.state),
            ("st", l.st),
            ("pd", l.pd),
            ("uar_page", l.uar_page),
            ("mtu", l.mtu),
            ("rre", l.rre),
            ("rwe", l.rwe),
            ("rae", l.rae),
            ("q_key", l.qkey),
            ("cqn_snd", l.cqn_snd),
            ("next_rcv_psn", l.epsn),
            ("nak_sent", l.nak),
        ] {
            d.set_item(n, (b.msb, b.lsb))?;
        }
        Ok(d)
    }
}

/// The mlx5 QP commands: [(name, opcode)].
#[pyfunction]
pub fn qp_commands() -> Vec<(&'static str, u16)> {
    rdmagen_refmodel::qpc::COMMANDS
        .iter()
        .map(|(n, op, ..)| (*n, *op))
        .collect()
}
