//! `rdmagen sim uar --trace FILE`: a JSON-lines trace of QP set-ups and UAR writes, run
//! through the Verilated UAR + QPC top; one JSON line out per event of each write.
//!
//! Input lines:
//! - `{"op":"qp","vf":V,"qpn":Q,"state":"RTS","st":"RC","pd":P,"uar_page":U}` sets QP Q of
//!   VF V up through the QPC command port (Q is the local QPN, or the global `V << 12 | local`);
//!   states RST, INIT, RTR, RTS, SQD, ERR.
//! - `{"op":"write","vf":V,"page":U,"offset":"0x800","data":"HEX"}` is one AXI4 write by
//!   function V to page U of its own BAR2 (`"pf":true` makes the PF the writer), data bytes in
//!   address order; U beyond the VF's pages is a hostile write.
//!
//! Output: per write, in order, `{"write":N,"result":R,"vf":..,"qpn":..,"wqe_index":..,
//! "ds":..,"reason":..,"latency":..}` with R one of fetch, blueflame, drop, pending, forward.
//! A torn 32-bit pair gives a second line (a drop with reason TORN) for the pending write.

use rdmagen_harness::Model;
use rdmagen_refmodel::uar::{Result_, Write};
use serde_json::{json, Value};

use crate::bench::Bench;

fn field<'a>(v: &'a Value, k: &str, line: usize) -> Result<&'a Value, String> {
    v.get(k)
        .ok_or_else(|| format!("line {line}: missing field `{k}`"))
}

fn num(v: &Value, k: &str, line: usize) -> Result<u32, String> {
    let x = field(v, k, line)?;
    let n = match x {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => {
            let t = s.trim_start_matches("0x");
            u64::from_str_radix(t, if s.starts_with("0x") { 16 } else { 10 }).ok()
        }
        _ => None,
    };
    n.and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| format!("line {line}: `{k}` must be a non-negative integer, got {x}"))
}

fn hex_bytes(s: &str, line: usize) -> Result<Vec<u8>, String> {
    let s = s.trim_start_matches("0x");
    if s.is_empty() || s.len() % 2 != 0 {
        return Err(format!(
            "line {line}: `data` must be an even number of hex digits"
        ));
    }
    (0..s.len())
        .step_by(2)
        .map(|i| {
            u8::from_str_radix(&s[i..i + 2], 16)
                .map_err(|_| format!("line {line}: `data` is not hex: {s}"))
        })
        .collect()
}

/// The AXI write of `bytes` at `addr`: 8-byte beats, strobes on the bytes present.
fn axi_write(pf: bool, vf: u8, addr: u32, bytes: &[u8]) -> Write {
    let start = (addr & 7) as usize;
    let mut beats = Vec::new();
    let mut lane = start;
    let mut cur = (0u64, 0u8);
    for b in bytes {
        cur.0 |= u64::from(*b) << (8 * lane);
        cur.1 |= 1 << lane;
        lane += 1;
        if lane == 8 {
            beats.push(cur);
            cur = (0, 0);
            lane = 0;
        }
    }
    if cur.1 != 0 {
        beats.push(cur);
    }
    let size = if beats.len() > 1 {
        3
    } else {
        bytes.len().next_power_of_two().trailing_zeros().min(3) as u8
    };
    Write {
        pf,
        vf,
        addr,
        size,
        burst: 1,
        beats,
    }
}

/// Runs a trace on the bench; returns the output lines.
pub fn run<M: Model>(b: &mut Bench<M>, trace: &str) -> Result<Vec<String>, String> {
    b.logging = true;
    let mut s = b.session().map_err(|f| f.to_string())?;
    let reason_name = |m: &rdmagen_refmodel::uar::UarModel, r: u8| -> Value {
        let x = &m.reasons;
        let n = [
            (x.not_owner, "NOT_OWNER"),
            (x.wrong_page, "WRONG_PAGE"),
            (x.qp_state, "QP_STATE"),
            (x.unmapped, "UNMAPPED"),
            (x.pf_only, "PF_ONLY"),
            (x.torn, "TORN"),
            (x.disabled, "DISABLED"),
        ];
        n.iter()
            .find(|(v, _)| *v == r)
            .map_or(Value::Null, |(_, name)| json!(name))
    };
    let mut out = Vec::new();
    let mut writes = 0usize;
    for (i, text) in trace.lines().enumerate() {
        let line = i + 1;
        if text.trim().is_empty() {
            continue;
        }
        let v: Value = serde_json::from_str(text).map_err(|e| format!("line {line}: {e}"))?;
        let op = field(&v, "op", line)?.as_str().unwrap_or("");
        let vf = num(&v, "vf", line)?;
        if vf >= b.model.num_vf {
            return Err(format!(
                "line {line}: vf {vf} is not below NUM_VF = {}",
                b.model.num_vf
            ));
        }
        match op {
            "qp" => {
                let q = num(&v, "qpn", line)?;
                let local = if q >> 12 == vf && q >= 4096 {
                    q & 0xfff
                } else {
                    q
                };
                if local >= 4 {
                    return Err(format!("line {line}: local QPN {local}: the sim top has 16 QPs per VF, of which 0..3 are set up by traces"));
                }
                let state = match field(&v, "state", line)?.as_str() {
                    Some("RST") => 0,
                    Some("INIT") => 1,
                    Some("RTR") => 2,
                    Some("RTS") => 3,
                    Some("SQD") => 5,
                    Some("ERR") => 6,
                    other => {
                        return Err(format!(
                            "line {line}: state {other:?} is not one of RST INIT RTR RTS SQD ERR"
                        ))
                    }
                };
                b.mailbox_st = match v.get("st").and_then(Value::as_str).unwrap_or("RC") {
                    "RC" => 0,
                    "UC" => 1,
                    "UD" => 2,
                    other => return Err(format!("line {line}: st {other} is not RC, UC or UD")),
                };
                b.mailbox_pd = v.get("pd").map_or(Ok(1), |_| num(&v, "pd", line))?;
                let page = num(&v, "uar_page", line)?;
                b.sim_qp(&mut s, vf, local, page, state)
                    .map_err(|f| format!("line {line}: {f}"))?;
            }
            "write" => {
                let page = num(&v, "page", line)?;
                let offset = num(&v, "offset", line)?;
                if offset >= 0x1000 {
                    return Err(format!(
                        "line {line}: offset {offset:#x} is outside the 4 KiB page"
                    ));
                }
                let bytes = hex_bytes(field(&v, "data", line)?.as_str().unwrap_or(""), line)?;
                if (offset as usize & 7) + bytes.len() > 256
                    || (offset as usize) + bytes.len() > 0x1000
                {
                    return Err(format!(
                        "line {line}: {} bytes at {offset:#x} do not fit one burst in the page",
                        bytes.len()
                    ));
                }
                let pf = v.get("pf").and_then(Value::as_bool).unwrap_or(false);
                let pw = b.model.pw();
                if page >= (1 << (12 - 8)) << 8 {
                    return Err(format!(
                        "line {line}: page {page} is outside the BAR2 aperture"
                    ));
                }
                let addr = ((vf << pw) + page) << 12 | offset;
                if addr >> 24 != 0 {
                    return Err(format!(
                        "line {line}: page {page} is outside the BAR2 aperture"
                    ));
                }
                let first = b.log.len();
                b.sim_write(&mut s, &axi_write(pf, vf as u8, addr, &bytes))
                    .map_err(|f| format!("line {line}: the RTL and the model disagree: {f}"))?;
                for l in &b.log[first..] {
                    let e = l.event;
                    let mut o = json!({
                        "write": l.write,
                        "result": e.result.name(),
                        "vf": e.vf,
                        "qpn": e.qpn,
                        "wqe_index": Value::Null,
                        "ds": Value::Null,
                        "reason": if e.result == Result_::Drop { reason_name(&b.model, e.reason) } else { Value::Null },
                        "latency": l.latency,
                    });
                    if let Some(f) = l.fetch {
                        o["qpn"] = json!(f.qpn);
                        o["wqe_index"] = json!(f.wqe_index);
                        o["ds"] = json!(f.ds);
                    }
                    out.push(o.to_string());
                }
                writes += 1;
                let _ = writes;
            }
            other => return Err(format!("line {line}: op {other:?} is not `qp` or `write`")),
        }
    }
    Ok(out)
}
