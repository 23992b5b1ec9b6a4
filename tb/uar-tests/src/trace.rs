//! The lines of a `rdmagen sim uar` trace (see [`crate::sim`]), read without the Verilated
//! model, so that the fuzz targets of `tb/fuzz` (which include this file) build without
//! Verilator. Only external crates are named here.

use rdmagen_refmodel::uar::Write;
use serde_json::Value;

/// One line of a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Set QP `local` of `vf` up through the QPC command port, in service type `st` (0 RC, 1
    /// UC, 2 UD) and protection domain `pd`, owning UAR page `page`, to state `state`.
    Qp {
        vf: u32,
        local: u32,
        state: u32,
        st: u32,
        pd: u32,
        page: u32,
    },
    /// One AXI4 write.
    Write(Write),
}

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
    // Checked whole first: pairs of bytes are then pairs of digits (slicing a non-ASCII
    // string in two-byte steps would cut a character).
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return Err(format!("line {line}: `data` is not hex: {s}"));
    }
    s.as_bytes()
        .chunks(2)
        .map(|pair| {
            let digit = |c: u8| (c as char).to_digit(16).unwrap_or(0) as u8;
            Ok(digit(pair[0]) << 4 | digit(pair[1]))
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

/// Reads line `line` of a trace for a model of `num_vf` VFs whose BAR2 takes `pw` page bits
/// per function; `None` for a blank line.
pub fn parse_line(text: &str, line: usize, num_vf: u32, pw: u32) -> Result<Option<Op>, String> {
    if text.trim().is_empty() {
        return Ok(None);
    }
    let v: Value = serde_json::from_str(text).map_err(|e| {
        // serde_json counts the lines of the one line it was given: name the trace's line
        // and the column instead of its "at line 1 column N".
        let msg = e.to_string();
        let msg = msg
            .rsplit_once(" at line ")
            .map_or(msg.as_str(), |(m, _)| m);
        format!("line {line}, column {}: {msg}", e.column())
    })?;
    let op = field(&v, "op", line)?.as_str().unwrap_or("");
    let vf = num(&v, "vf", line)?;
    if vf >= num_vf {
        return Err(format!(
            "line {line}: vf {vf} is not below NUM_VF = {num_vf}"
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
            let st = match v.get("st").and_then(Value::as_str).unwrap_or("RC") {
                "RC" => 0,
                "UC" => 1,
                "UD" => 2,
                other => return Err(format!("line {line}: st {other} is not RC, UC or UD")),
            };
            let pd = v.get("pd").map_or(Ok(1), |_| num(&v, "pd", line))?;
            let page = num(&v, "uar_page", line)?;
            Ok(Some(Op::Qp {
                vf,
                local,
                state,
                st,
                pd,
                page,
            }))
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
            if (offset as usize & 7) + bytes.len() > 256 || (offset as usize) + bytes.len() > 0x1000
            {
                return Err(format!(
                    "line {line}: {} bytes at {offset:#x} do not fit one burst in the page",
                    bytes.len()
                ));
            }
            let pf = v.get("pf").and_then(Value::as_bool).unwrap_or(false);
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
            Ok(Some(Op::Write(axi_write(pf, vf as u8, addr, &bytes))))
        }
        other => Err(format!("line {line}: op {other:?} is not `qp` or `write`")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the `sim_inputs` fuzz target: `data` with a multi-byte character at an odd
    /// byte offset panicked (the string was sliced two bytes at a time).
    #[test]
    fn non_ascii_data_is_an_error_not_a_panic() {
        for data in ["a\u{e9}1", "\u{e9}\u{e9}", "0x\u{1F680}"] {
            let text =
                format!(r#"{{"op":"write","vf":0,"page":0,"offset":"0x800","data":"{data}"}}"#);
            let e = parse_line(&text, 3, 4, 2).unwrap_err();
            assert!(e.starts_with("line 3: `data`"), "{e}");
        }
    }

    /// A line that is not JSON names the trace's line and the column, not serde_json's own
    /// "line 1" of the one line it was given.
    #[test]
    fn bad_json_names_the_trace_line() {
        let e = parse_line(r#"{"op":"write""#, 7, 4, 2).unwrap_err();
        assert_eq!(e, "line 7, column 13: EOF while parsing an object");
    }

    #[test]
    fn reads_a_write_and_a_qp() {
        let w = r#"{"op":"write","vf":1,"page":2,"offset":"0x800","data":"0a0B"}"#;
        let Some(Op::Write(w)) = parse_line(w, 1, 4, 2).unwrap() else {
            panic!("not a write");
        };
        assert_eq!(w.addr, ((1 << 2) + 2) << 12 | 0x800);
        assert_eq!(w.beats, vec![(0x0b0a, 0b11)]);
        let q = r#"{"op":"qp","vf":0,"qpn":3,"state":"RTS","uar_page":1}"#;
        assert_eq!(
            parse_line(q, 1, 4, 2).unwrap(),
            Some(Op::Qp {
                vf: 0,
                local: 3,
                state: 3,
                st: 0,
                pd: 1,
                page: 1
            })
        );
        assert_eq!(parse_line("  ", 1, 4, 2).unwrap(), None);
    }
}
