//! `RxModel`: the RX parser's verdict model (`rdmagen_refmodel::rxqp::RxQpModel`, which runs
//! `roce::RxParserModel`'s header checks first) with its QP and memory-key table, one frame at
//! a time, plus what the RTL shows beside the verdict: the CNP/CE event pulses (gated by
//! `ctrl.cnp_event_en`/`ce_event_en`), the `frames_seen`/`verdict_*`/`drop_*`/`event_*`
//! counters and `last_drop`. The refmodel has no counters or event enables (its users, the
//! Rust bench, keep their own tallies): they are kept here, from docs/rx_parser.md.
//!
//! The table has the shape of `rdmagen sim rx-parser`'s QPS.yaml, as Python dicts:
//! `{"qps": [{vf, qpn, state, st, pd, epsn, pkey, mtu}], "keys": [{rkey, pd, va, length,
//! access, vf}]}`.

use std::collections::BTreeMap;

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::pybacked::PyBackedBytes;
use pyo3::types::{PyDict, PyList};
use rdmagen_refmodel::roce::{payload_packet, DropReason, RxConfig, RxOutcome, Verdict};
use rdmagen_refmodel::rxqp::{aeth, st, state, AckRequest, RxKey, RxQp, RxQpModel};

/// Verdict names, by code (the `m_hdr_verdict` encoding); `rdmagen sim rx-parser`'s words.
const VERDICTS: [&str; 5] = ["accept", "duplicate", "nak_seq", "nak_access", "drop"];
/// The counter each verdict code counts in (a drop counts in its reason's `drop_*`).
const VERDICT_COUNTERS: [&str; 4] = [
    "verdict_accept",
    "verdict_duplicate",
    "verdict_nak_psn_seq",
    "verdict_nak_remote_access",
];
const STATES: [(&str, u8); 7] = [
    ("RST", state::RST),
    ("INIT", state::INIT),
    ("RTR", state::RTR),
    ("RTS", state::RTS),
    ("SQER", state::SQER),
    ("SQD", state::SQD),
    ("ERR", state::ERR),
];
const SERVICE_TYPES: [(&str, u8); 4] = [
    ("RC", st::RC),
    ("UC", st::UC),
    ("UD", st::UD),
    ("QP1", st::QP1),
];
const MTUS: [(u32, u8); 5] = [(256, 1), (512, 2), (1024, 3), (2048, 4), (4096, 5)];

/// The map's `rx_drop_reason` value names in lower case (tests/test_rx.py compares them with
/// the builtin map's enum).
fn reason_name(r: DropReason) -> &'static str {
    match r {
        DropReason::NotRoce => "not_roce",
        DropReason::BadFcs => "bad_fcs",
        DropReason::BadIpChecksum => "bad_ip_checksum",
        DropReason::Fragment => "fragment",
        DropReason::BadIcrc => "bad_icrc",
        DropReason::Tver => "tver",
        DropReason::PKey => "p_key",
        DropReason::Qpn0 => "qpn0",
        DropReason::UnknownQp => "unknown_qp",
        DropReason::WrongVf => "wrong_vf",
        DropReason::State => "state",
        DropReason::TransportMismatch => "transport_mismatch",
        DropReason::Truncated => "truncated",
        DropReason::PsnSeq => "psn_seq",
        DropReason::BadOpcode => "bad_opcode",
        DropReason::QKey => "q_key",
    }
}

fn bad(msg: impl Into<String>) -> PyErr {
    PyValueError::new_err(msg.into())
}

/// One table entry's fields, taken one by one; unknown ones are an error.
struct Entry<'py> {
    at: String,
    d: Bound<'py, PyDict>,
}

impl<'py> Entry<'py> {
    fn new(at: String, v: &Bound<'py, PyAny>, allowed: &[&str]) -> PyResult<Entry<'py>> {
        let d = v
            .cast::<PyDict>()
            .map_err(|_| bad(format!("{at} must be a dict")))?
            .clone();
        for k in d.keys() {
            let k: String = k
                .extract()
                .map_err(|_| bad(format!("{at} has a key that is not a string")))?;
            if !allowed.contains(&k.as_str()) {
                return Err(bad(format!(
                    "{at} has an unknown field `{k}` (fields: {})",
                    allowed.join(", ")
                )));
            }
        }
        Ok(Entry { at, d })
    }

    fn num(&self, k: &str, max: u64) -> PyResult<Option<u64>> {
        let Some(v) = self.d.get_item(k)? else {
            return Ok(None);
        };
        let n: u64 = v
            .extract()
            .map_err(|_| bad(format!("{}: `{k}` must be a non-negative int", self.at)))?;
        if n > max {
            return Err(bad(format!(
                "{}: `{k}` = {n:#x} is beyond {max:#x}",
                self.at
            )));
        }
        Ok(Some(n))
    }

    fn need(&self, k: &str, max: u64) -> PyResult<u64> {
        self.num(k, max)?
            .ok_or_else(|| bad(format!("{} has no `{k}`", self.at)))
    }

    fn flag(&self, k: &str, default: bool) -> PyResult<bool> {
        match self.d.get_item(k)? {
            None => Ok(default),
            Some(v) => v
                .extract()
                .map_err(|_| bad(format!("{}: `{k}` must be a bool", self.at))),
        }
    }

    /// A name of `table` (or its int code).
    fn name(&self, k: &str, table: &[(&str, u8)]) -> PyResult<u8> {
        let v = self
            .d
            .get_item(k)?
            .ok_or_else(|| bad(format!("{} has no `{k}`", self.at)))?;
        let names: Vec<&str> = table.iter().map(|(n, _)| *n).collect();
        if let Ok(s) = v.extract::<String>() {
            if let Some((_, c)) = table.iter().find(|(n, _)| n.eq_ignore_ascii_case(&s)) {
                return Ok(*c);
            }
        } else if let Ok(c) = v.extract::<u8>() {
            if table.iter().any(|(_, x)| *x == c) {
                return Ok(c);
            }
        }
        Err(bad(format!(
            "{}: `{k}` = {v}: expected one of {} (or its code)",
            self.at,
            names.join(", ")
        )))
    }
}

/// A QP entry: ((vf, global QPN), QP, P_Key if given).
fn parse_qp(at: String, v: &Bound<'_, PyAny>) -> PyResult<((u8, u32), RxQp, Option<u16>)> {
    let e = Entry::new(
        at,
        v,
        &[
            "vf", "qpn", "state", "st", "pd", "epsn", "pkey", "mtu", "rre", "rwe", "rae",
            "nak_sent", "qkey",
        ],
    )?;
    let vf = e.need("vf", 255)? as u32;
    let qpn = e.need("qpn", 0xFF_FFFF)? as u32;
    // As in QPS.yaml: the local QPN, or the global `vf << 12 | local`.
    let global = if qpn >> 12 == 0 {
        vf << 12 | qpn
    } else if qpn >> 12 == vf {
        qpn
    } else {
        return Err(bad(format!(
            "{}: QPN {qpn:#x} belongs to VF {} (bits 23:12), not vf {vf}",
            e.at,
            qpn >> 12
        )));
    };
    let mtu_bytes = e.num("mtu", 4096)?.unwrap_or(1024) as u32;
    let mtu = MTUS
        .iter()
        .find(|(b, _)| *b == mtu_bytes)
        .map(|(_, c)| *c)
        .ok_or_else(|| {
            bad(format!(
                "{}: mtu {mtu_bytes}: expected 256, 512, 1024, 2048 or 4096",
                e.at
            ))
        })?;
    let qp = RxQp {
        state: e.name("state", &STATES)?,
        st: e.name("st", &SERVICE_TYPES)?,
        pd: e.need("pd", 0xFF_FFFF)? as u32,
        epsn: e.num("epsn", 0xFF_FFFF)?.unwrap_or(0) as u32,
        nak_sent: e.flag("nak_sent", false)?,
        // QPS.yaml's QPs grant every remote right; the keys decide.
        rre: e.flag("rre", true)?,
        rwe: e.flag("rwe", true)?,
        rae: e.flag("rae", true)?,
        mtu,
        qkey: e.num("qkey", 0xFFFF_FFFF)?.unwrap_or(0) as u32,
    };
    let pkey = e.num("pkey", 0xFFFF)?.map(|p| p as u16);
    Ok(((vf as u8, global), qp, pkey))
}

/// A key entry: (index = rkey >> 8, key).
fn parse_key(at: String, v: &Bound<'_, PyAny>, default_vf: u8) -> PyResult<(u32, RxKey)> {
    let e = Entry::new(at, v, &["rkey", "pd", "va", "length", "access", "vf"])?;
    let rkey = e.need("rkey", 0xFFFF_FFFF)? as u32;
    let mut k = RxKey {
        key: rkey as u8,
        vf: e.num("vf", 255)?.map_or(default_vf, |v| v as u8),
        pd: e.need("pd", 0xFF_FFFF)? as u32,
        va: e.need("va", u64::MAX)?,
        length: e.need("length", u64::MAX)?,
        remote_read: false,
        remote_write: false,
        remote_atomic: false,
    };
    if let Some(a) = e.d.get_item("access")? {
        let names: Vec<String> = a.extract().map_err(|_| {
            bad(format!(
                "{}: `access` must be a list of remote_write, remote_read, remote_atomic",
                e.at
            ))
        })?;
        for n in names {
            match n.as_str() {
                "remote_write" => k.remote_write = true,
                "remote_read" => k.remote_read = true,
                "remote_atomic" => k.remote_atomic = true,
                other => {
                    return Err(bad(format!(
                        "{}: access `{other}`: expected remote_write, remote_read or remote_atomic",
                        e.at
                    )))
                }
            }
        }
    }
    Ok((rkey >> 8, k))
}

/// One frame's verdict as the header/verdict stream shows it, with the event pulses. For a
/// drop only verdict, reason, vf, opcode and qpn are what the RTL shows (opcode and qpn are 0
/// when the frame was dropped before its BTH); the other fields are 0 here and undefined on
/// the RTL's ports.
#[pyclass(module = "rdmagen", name = "RxVerdict", frozen, get_all)]
#[derive(Clone)]
pub struct PyRxVerdict {
    /// `accept`, `duplicate`, `nak_seq`, `nak_access` or `drop`.
    verdict: &'static str,
    /// `m_hdr_verdict`: 0 accept, 1 duplicate, 2 nak_seq, 3 nak_access, 4 drop.
    verdict_code: u8,
    /// The `rx_drop_reason` name in lower case, `none` unless dropped.
    reason: &'static str,
    /// `m_hdr_reason`: the enum value, 0 unless dropped.
    reason_code: u8,
    /// The VF from `tuser`.
    vf: u8,
    /// The frame got as far as the BTH (else opcode and qpn are 0).
    bth_seen: bool,
    opcode: u8,
    qpn: u32,
    psn: u32,
    se: bool,
    ack_req: bool,
    fecn: bool,
    becn: bool,
    /// BTH PadCnt.
    pad: u8,
    /// RETH or AtomicETH virtual address, else 0.
    va: u64,
    /// RETH or AtomicETH R_Key, else 0.
    rkey: u32,
    /// RETH DMA length, else 0.
    dma_len: u32,
    /// ImmDt, or the IETH R_Key, else 0.
    imm: u32,
    /// DETH source QP (UD), else 0.
    src_qp: u32,
    /// IP ECN = 11.
    ecn_ce: bool,
    /// BTH opcode 0x81.
    cnp: bool,
    /// Payload bytes after the extension headers (pad and ICRC excluded).
    payload_len: u32,
    /// The frame's packet on the payload stream, if it has one (`payload_packet`).
    payload: Option<Vec<u8>>,
    /// (vf, qpn) of the `cnp_*` pulse: an accepted CNP while `cnp_event_en`; else None.
    cnp_event: Option<(u8, u32)>,
    /// (vf, qpn) of the `ce_*` pulse: an accepted frame with ECN = 11 while `ce_event_en`.
    ce_event: Option<(u8, u32)>,
    /// The `m_ack_*` request raised with the verdict, (AETH syndrome, PSN of the answer):
    /// 0x1F ACK, 0x60 NAK PSN sequence error, 0x62 NAK remote access error; else None.
    ack: Option<(u8, u32)>,
}

/// The `m_hdr_*` fields, in port order (without the prefix).
const HDR_FIELDS: [&str; 19] = [
    "verdict",
    "reason",
    "vf",
    "opcode",
    "qpn",
    "psn",
    "se",
    "ack_req",
    "fecn",
    "becn",
    "pad",
    "va",
    "rkey",
    "dma_len",
    "imm",
    "src_qp",
    "ecn_ce",
    "cnp",
    "payload_len",
];

/// The fields a dropped frame's verdict defines.
const DROP_FIELDS: [&str; 5] = ["verdict", "reason", "vf", "opcode", "qpn"];

#[pymethods]
impl PyRxVerdict {
    /// The `m_hdr_*` port values as ints, keyed by the port name without `m_hdr_`
    /// (verdict and reason are the codes; payload_len is the 16-bit port's value). For a drop
    /// only verdict, reason, vf, opcode and qpn: the parser leaves the other fields of a
    /// dropped frame undefined (docs/rx_parser.md), so a scoreboard compares the keys given.
    fn hdr<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        let vals: [u64; 19] = [
            self.verdict_code.into(),
            self.reason_code.into(),
            self.vf.into(),
            self.opcode.into(),
            self.qpn.into(),
            self.psn.into(),
            self.se.into(),
            self.ack_req.into(),
            self.fecn.into(),
            self.becn.into(),
            self.pad.into(),
            self.va,
            self.rkey.into(),
            self.dma_len.into(),
            self.imm.into(),
            self.src_qp.into(),
            self.ecn_ce.into(),
            self.cnp.into(),
            u64::from(self.payload_len & 0xFFFF),
        ];
        let drop = self.verdict_code == Verdict::Drop as u8;
        for (k, v) in HDR_FIELDS.iter().zip(vals) {
            if drop && !DROP_FIELDS.contains(k) {
                continue;
            }
            d.set_item(*k, v)?;
        }
        Ok(d)
    }

    /// The fields of one `rdmagen sim rx-parser` output line (without `frame`): verdict,
    /// reason, vf, qpn, opcode, psn, va, rkey, dmalen, ecn_ce, cnp, payload_len, payload, ack.
    fn sim_line<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        d.set_item("verdict", self.verdict)?;
        d.set_item("reason", self.reason)?;
        d.set_item("vf", self.vf)?;
        d.set_item("qpn", self.qpn)?;
        d.set_item("opcode", self.opcode)?;
        d.set_item("psn", self.psn)?;
        d.set_item("va", self.va)?;
        d.set_item("rkey", self.rkey)?;
        d.set_item("dmalen", self.dma_len)?;
        d.set_item("imm", self.imm)?;
        d.set_item("src_qp", self.src_qp)?;
        d.set_item("ecn_ce", self.ecn_ce)?;
        d.set_item("cnp", self.cnp)?;
        let hex = |b: &Vec<u8>| b.iter().map(|x| format!("{x:02x}")).collect::<String>();
        d.set_item("payload_len", self.payload.as_ref().map_or(0, Vec::len))?;
        d.set_item("payload", self.payload.as_ref().map(hex))?;
        let ack = match self.ack {
            Some((syndrome, psn)) => {
                let a = PyDict::new(py);
                let kind = match syndrome {
                    aeth::ACK => "ack",
                    aeth::NAK_PSN_SEQ => "nak_seq",
                    aeth::NAK_REMOTE_ACCESS => "nak_access",
                    _ => "?",
                };
                a.set_item("kind", kind)?;
                a.set_item("syndrome", syndrome)?;
                a.set_item("psn", psn)?;
                Some(a)
            }
            None => None,
        };
        d.set_item("ack", ack)?;
        Ok(d)
    }

    fn __repr__(&self) -> String {
        let why = if self.verdict_code == Verdict::Drop as u8 {
            format!("({})", self.reason)
        } else {
            String::new()
        };
        format!(
            "RxVerdict({}{why}, vf={}, qpn={:#x}, opcode={:#04x}, psn={:#x})",
            self.verdict, self.vf, self.qpn, self.opcode, self.psn
        )
    }
}

/// Reference model of the RX parser's verdicts (`docs/rx_parser.md`): the header checks,
/// the QP lookup (VF, existence, transport, state), the PSN window with NAK-sent and the
/// R_Key check against the memory keys, one frame at a time, in frame order.
///
/// `table` has the shape of `rdmagen sim rx-parser`'s QPS.yaml:
/// `{"qps": [{"vf", "qpn", "state", "st", "pd", "epsn"?, "pkey"?, "mtu"?, "rre"?, "rwe"?,
/// "rae"?, "nak_sent"?, "qkey"?}], "keys": [{"rkey", "pd", "va", "length", "access"?, "vf"?}]}`.
/// `qpn` is the local QPN or the global `vf << 12 | local`; `state` RST, INIT, RTR, RTS,
/// SQER, SQD or ERR and `st` RC, UC or UD (or their codes); `mtu` in bytes (default 1024);
/// the rights default to granted; `access` lists `remote_write`, `remote_read`,
/// `remote_atomic`; a key's `vf` defaults to `vf`. A QP's `pkey` sets the port P_Key (all
/// must agree, and agree with the `pkey` argument when given; default 0xFFFF).
///
/// The other arguments are the parser's CSRs at their reset values: `ctrl.icrc_check_en`,
/// `ctrl.ipv6_en`, `udp_dport`, `p_key`, `ctrl.cnp_event_en`, `ctrl.ce_event_en`.
#[pyclass(module = "rdmagen", name = "RxModel")]
pub struct PyRxModel {
    model: RxQpModel,
    default_vf: u8,
    cnp_event_en: bool,
    ce_event_en: bool,
    counters: BTreeMap<&'static str, u64>,
    /// (reason, vf, opcode, qpn) of the newest drop.
    last_drop: Option<(u8, u8, u8, u32)>,
}

fn counter_names() -> Vec<&'static str> {
    let mut v = vec!["frames_seen"];
    v.extend(VERDICT_COUNTERS);
    v.extend(DropReason::ALL.iter().map(|r| drop_counter(*r)));
    v.extend(["event_cnp_received", "event_ce_marked"]);
    v
}

fn drop_counter(r: DropReason) -> &'static str {
    match r {
        DropReason::NotRoce => "drop_not_roce",
        DropReason::BadFcs => "drop_bad_fcs",
        DropReason::BadIpChecksum => "drop_bad_ip_checksum",
        DropReason::Fragment => "drop_fragment",
        DropReason::BadIcrc => "drop_bad_icrc",
        DropReason::Tver => "drop_tver",
        DropReason::PKey => "drop_p_key",
        DropReason::Qpn0 => "drop_qpn0",
        DropReason::UnknownQp => "drop_unknown_qp",
        DropReason::WrongVf => "drop_wrong_vf",
        DropReason::State => "drop_state",
        DropReason::TransportMismatch => "drop_transport_mismatch",
        DropReason::Truncated => "drop_truncated",
        DropReason::PsnSeq => "drop_psn_seq",
        DropReason::BadOpcode => "drop_bad_opcode",
        DropReason::QKey => "drop_q_key",
    }
}

fn qp_dict<'py>(py: Python<'py>, vf: u8, qpn: u32, q: &RxQp) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("vf", vf)?;
    d.set_item("qpn", qpn)?;
    let name = |t: &[(&'static str, u8)], c| t.iter().find(|(_, x)| *x == c).map(|(n, _)| *n);
    d.set_item("state", name(&STATES, q.state))?;
    d.set_item("st", name(&SERVICE_TYPES, q.st))?;
    d.set_item("pd", q.pd)?;
    d.set_item("epsn", q.epsn)?;
    d.set_item("nak_sent", q.nak_sent)?;
    d.set_item("rre", q.rre)?;
    d.set_item("rwe", q.rwe)?;
    d.set_item("rae", q.rae)?;
    let mtu = MTUS.iter().find(|(_, c)| *c == q.mtu).map(|(b, _)| *b);
    d.set_item("mtu", mtu)?;
    d.set_item("qkey", q.qkey)?;
    Ok(d)
}

impl PyRxModel {
    fn agree_pkey(&mut self, given: &mut Option<u16>, p: u16, at: &str) -> PyResult<()> {
        if let Some(q) = *given {
            if q != p {
                return Err(bad(format!(
                    "{at}: pkey {p:#x} differs from {q:#x}: the parser has one port P_Key"
                )));
            }
        }
        *given = Some(p);
        self.model.hdr.cfg.pkey = p;
        Ok(())
    }

    fn verdict_of(
        &self,
        o: &RxOutcome,
        ack: Option<&AckRequest>,
        payload: Option<Vec<u8>>,
    ) -> PyRxVerdict {
        let f = &o.fields;
        let accept = o.verdict == Verdict::Accept;
        let ev = |on: bool| on.then_some((f.vf, f.qpn));
        PyRxVerdict {
            verdict: VERDICTS[o.verdict as usize],
            verdict_code: o.verdict as u8,
            reason: o.reason.map_or("none", reason_name),
            reason_code: o.reason.map_or(0, DropReason::code),
            vf: f.vf,
            bth_seen: f.bth_seen,
            opcode: f.opcode,
            qpn: f.qpn,
            psn: f.psn,
            se: f.se,
            ack_req: f.ack_req,
            fecn: f.fecn,
            becn: f.becn,
            pad: f.pad_count,
            va: f.va,
            rkey: f.rkey,
            dma_len: f.dma_len,
            imm: f.imm,
            src_qp: f.src_qp,
            ecn_ce: f.ecn_ce,
            cnp: f.cnp,
            payload_len: f.payload_len,
            payload,
            cnp_event: ev(accept && f.cnp && self.cnp_event_en),
            ce_event: ev(accept && f.ecn_ce && self.ce_event_en),
            ack: ack.map(|a| (a.syndrome, a.psn)),
        }
    }

    fn count(&mut self, name: &'static str) {
        let c = self.counters.entry(name).or_default();
        *c = c.saturating_add(1);
    }
}

#[pymethods]
impl PyRxModel {
    #[new]
    #[pyo3(signature = (table = None, *, vf = 0, icrc_check = true, ipv6 = true, udp_dport = 4791, pkey = None, cnp_event = true, ce_event = true))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        table: Option<&Bound<'_, PyAny>>,
        vf: u8,
        icrc_check: bool,
        ipv6: bool,
        udp_dport: u16,
        pkey: Option<u16>,
        cnp_event: bool,
        ce_event: bool,
    ) -> PyResult<Self> {
        let mut m = PyRxModel {
            model: RxQpModel::new(RxConfig {
                icrc_check,
                ipv6,
                udp_dport,
                pkey: pkey.unwrap_or(0xFFFF),
            }),
            default_vf: vf,
            cnp_event_en: cnp_event,
            ce_event_en: ce_event,
            counters: BTreeMap::new(),
            last_drop: None,
        };
        let Some(t) = table else {
            return Ok(m);
        };
        let t = t
            .cast::<PyDict>()
            .map_err(|_| bad("the table must be a dict with `qps` and `keys`"))?;
        for k in t.keys() {
            let k: String = k.extract().unwrap_or_default();
            if k != "qps" && k != "keys" {
                return Err(bad(format!(
                    "the table has an unknown key `{k}` (keys: qps, keys)"
                )));
            }
        }
        let list = |k: &str| -> PyResult<Vec<Bound<'_, PyAny>>> {
            match t.get_item(k)? {
                None => Ok(Vec::new()),
                Some(l) => Ok(l
                    .cast::<PyList>()
                    .map_err(|_| bad(format!("`{k}` must be a list")))?
                    .iter()
                    .collect()),
            }
        };
        let mut given = pkey;
        for (i, e) in list("qps")?.iter().enumerate() {
            let at = format!("qps[{i}]");
            let (id, qp, p) = parse_qp(at.clone(), e)?;
            if m.model.qps.contains_key(&id) {
                return Err(bad(format!("{at}: QP {:#x} is listed twice", id.1)));
            }
            if let Some(p) = p {
                m.agree_pkey(&mut given, p, &at)?;
            }
            m.model.qps.insert(id, qp);
        }
        for (i, e) in list("keys")?.iter().enumerate() {
            let at = format!("keys[{i}]");
            let (index, k) = parse_key(at.clone(), e, vf)?;
            if m.model.keys.contains_key(&index) {
                return Err(bad(format!(
                    "{at}: R_Key index {index:#x} (bits 31:8) is listed twice"
                )));
            }
            m.model.keys.insert(index, k);
        }
        Ok(m)
    }

    /// One frame (Ethernet, no FCS; bytes or bytearray) steered to `vf` with the MAC's
    /// bad-FCS flag, in frame order: returns its verdict and updates the QP (ePSN, NAK-sent)
    /// as the write-back does, and the counters.
    #[pyo3(signature = (frame, vf = 0, bad_fcs = false))]
    fn receive(&mut self, frame: PyBackedBytes, vf: u8, bad_fcs: bool) -> PyRxVerdict {
        let (o, ack) = self.model.receive_with_ack(&frame, bad_fcs, vf);
        let packet = payload_packet(&frame, &self.model.hdr.cfg).map(<[u8]>::to_vec);
        let v = self.verdict_of(&o, ack.as_ref(), packet);
        self.count("frames_seen");
        match o.verdict {
            Verdict::Drop => {
                let r = o.reason.expect("a drop has a reason");
                self.count(drop_counter(r));
                self.last_drop = Some((r.code(), v.vf, v.opcode, v.qpn));
            }
            other => self.count(VERDICT_COUNTERS[other as usize]),
        }
        if o.verdict == Verdict::Accept {
            if v.cnp {
                self.count("event_cnp_received");
            }
            if v.ecn_ce {
                self.count("event_ce_marked");
            }
        }
        v
    }

    /// Adds or replaces a QP (a table `qps` entry), as CREATE_QP and the modify commands do.
    fn add_qp(&mut self, entry: &Bound<'_, PyAny>) -> PyResult<()> {
        let (id, qp, p) = parse_qp("QP".into(), entry)?;
        if let Some(p) = p {
            let mut given = None;
            self.agree_pkey(&mut given, p, "QP")?;
        }
        self.model.qps.insert(id, qp);
        Ok(())
    }

    /// Removes the QP (DESTROY_QP); `qpn` local or global. True if it existed.
    fn remove_qp(&mut self, vf: u8, qpn: u32) -> bool {
        let global = if qpn >> 12 == 0 {
            u32::from(vf) << 12 | qpn
        } else {
            qpn
        };
        self.model.qps.remove(&(vf, global)).is_some()
    }

    /// Adds or replaces a memory key (a table `keys` entry), as CREATE_MKEY does.
    fn add_key(&mut self, entry: &Bound<'_, PyAny>) -> PyResult<()> {
        let (index, k) = parse_key("key".into(), entry, self.default_vf)?;
        self.model.keys.insert(index, k);
        Ok(())
    }

    /// Removes the key of `rkey`'s index (`rkey >> 8`; DESTROY_MKEY). True if it existed.
    fn remove_key(&mut self, rkey: u32) -> bool {
        self.model.keys.remove(&(rkey >> 8)).is_some()
    }

    /// The QP as the model holds it now ({vf, qpn (global), state, st, pd, epsn, nak_sent,
    /// rre, rwe, rae, mtu}), or None; `qpn` local or global.
    fn qp<'py>(&self, py: Python<'py>, vf: u8, qpn: u32) -> PyResult<Option<Bound<'py, PyDict>>> {
        let global = if qpn >> 12 == 0 {
            u32::from(vf) << 12 | qpn
        } else {
            qpn
        };
        self.model
            .qps
            .get(&(vf, global))
            .map(|q| qp_dict(py, vf, global, q))
            .transpose()
    }

    /// Every QP, in (vf, qpn) order, as `qp` returns them.
    #[getter]
    fn qps<'py>(&self, py: Python<'py>) -> PyResult<Vec<Bound<'py, PyDict>>> {
        self.model
            .qps
            .iter()
            .map(|((vf, qpn), q)| qp_dict(py, *vf, *qpn, q))
            .collect()
    }

    /// The counters a CSR read would return, by register name: frames_seen,
    /// verdict_accept, verdict_duplicate, verdict_nak_psn_seq, verdict_nak_remote_access,
    /// drop_<reason> for every reason, event_cnp_received, event_ce_marked (counted since
    /// the model was made or `clear_counters`; the RTL's clear on read).
    #[getter]
    fn counters<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyDict>> {
        let d = PyDict::new(py);
        for n in counter_names() {
            d.set_item(n, self.counters.get(n).copied().unwrap_or(0))?;
        }
        Ok(d)
    }

    /// Sets every counter to 0 (after the bench has read the RTL's, which clear on read).
    fn clear_counters(&mut self) {
        self.counters.clear();
    }

    /// The newest drop as `last_drop`/`last_drop_qpn` hold it: {reason (code), vf, opcode,
    /// qpn}, or None before the first drop.
    #[getter]
    fn last_drop<'py>(&self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyDict>>> {
        self.last_drop
            .map(|(reason, vf, opcode, qpn)| -> PyResult<_> {
                let d = PyDict::new(py);
                d.set_item("reason", reason)?;
                d.set_item("vf", vf)?;
                d.set_item("opcode", opcode)?;
                d.set_item("qpn", qpn)?;
                Ok(d)
            })
            .transpose()
    }

    /// `ctrl.icrc_check_en`.
    #[getter]
    fn icrc_check(&self) -> bool {
        self.model.hdr.cfg.icrc_check
    }
    #[setter]
    fn set_icrc_check(&mut self, v: bool) {
        self.model.hdr.cfg.icrc_check = v;
    }
    /// `ctrl.ipv6_en`.
    #[getter]
    fn ipv6(&self) -> bool {
        self.model.hdr.cfg.ipv6
    }
    #[setter]
    fn set_ipv6(&mut self, v: bool) {
        self.model.hdr.cfg.ipv6 = v;
    }
    /// `ctrl.cnp_event_en`.
    #[getter]
    fn cnp_event(&self) -> bool {
        self.cnp_event_en
    }
    #[setter]
    fn set_cnp_event(&mut self, v: bool) {
        self.cnp_event_en = v;
    }
    /// `ctrl.ce_event_en`.
    #[getter]
    fn ce_event(&self) -> bool {
        self.ce_event_en
    }
    #[setter]
    fn set_ce_event(&mut self, v: bool) {
        self.ce_event_en = v;
    }
    /// `udp_dport`.
    #[getter]
    fn udp_dport(&self) -> u16 {
        self.model.hdr.cfg.udp_dport
    }
    #[setter]
    fn set_udp_dport(&mut self, v: u16) {
        self.model.hdr.cfg.udp_dport = v;
    }
    /// `p_key`: the port P_Key.
    #[getter]
    fn pkey(&self) -> u16 {
        self.model.hdr.cfg.pkey
    }
    #[setter(pkey)]
    fn set_port_pkey(&mut self, v: u16) {
        self.model.hdr.cfg.pkey = v;
    }

    /// The verdict names by code (`m_hdr_verdict`).
    #[classattr]
    fn verdicts() -> Vec<&'static str> {
        VERDICTS.to_vec()
    }

    /// {code: name} of the drop reasons (`m_hdr_reason`, the map's `rx_drop_reason`).
    #[classattr]
    fn reasons() -> BTreeMap<u8, &'static str> {
        DropReason::ALL
            .iter()
            .map(|r| (r.code(), reason_name(*r)))
            .collect()
    }
}
