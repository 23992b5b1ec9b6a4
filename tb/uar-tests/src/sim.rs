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
use rdmagen_refmodel::uar::Result_;
use serde_json::{json, Value};

use crate::bench::Bench;
pub use crate::trace::{parse_line, Op};

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
            (x.bf_chunk, "BF_CHUNK"),
        ];
        n.iter()
            .find(|(v, _)| *v == r)
            .map_or(Value::Null, |(_, name)| json!(name))
    };
    let mut out = Vec::new();
    // A UTF-8 byte order mark (Windows editors write one) is not part of the first line.
    let trace = trace.strip_prefix('\u{feff}').unwrap_or(trace);
    for (i, text) in trace.lines().enumerate() {
        let line = i + 1;
        let op = parse_line(text, line, b.model.num_vf, b.model.pw())?;
        match op {
            None => {}
            Some(Op::Qp {
                vf,
                local,
                state,
                st,
                pd,
                page,
            }) => {
                // The QPC keeps these in fields of the map's width; a wider value would be cut
                // in the RTL and not in the model, which then disagree (a bug it is not).
                let lay = crate::bench::load_qpc_layout();
                for (key, v, f) in [("pd", pd, lay.pd), ("uar_page", page, lay.uar_page)] {
                    let w = f.msb - f.lsb + 1;
                    if w < 32 && v >> w != 0 {
                        return Err(format!(
                            "line {line}: `{key}` {v:#x} does not fit the QPC's {w}-bit field"
                        ));
                    }
                }
                b.mailbox_st = st;
                b.mailbox_pd = pd;
                b.sim_qp(&mut s, vf, local, page, state)
                    .map_err(|f| format!("line {line}: {f}"))?;
            }
            Some(Op::Write(w)) => {
                let first = b.log.len();
                b.sim_write(&mut s, &w)
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
            }
        }
    }
    Ok(out)
}
