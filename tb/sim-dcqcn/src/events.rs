//! `E.csv`: `t_ns,flow,event,bytes`, one event a line, in time order.

use rdmagen_refmodel::dcqcn::Kind;

/// The header every events file starts with.
pub const HEADER: &str = "t_ns,flow,event,bytes";

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    pub t_ns: u64,
    pub flow: u32,
    /// `Kind::Cnp` or `Kind::Tx`.
    pub kind: Kind,
    pub bytes: u32,
}

/// Reads `E.csv` for an engine of `flows` flows. Blank lines and lines starting with `#` are
/// skipped. Errors are `file:line: message`.
pub fn parse(file: &str, text: &str, flows: u32) -> Result<Vec<Event>, String> {
    // A UTF-8 byte order mark (spreadsheets and Windows editors write one) is not part of it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.trim()))
        .filter(|(_, l)| !l.is_empty() && !l.starts_with('#'));
    match lines.next() {
        Some((_, h)) if h.replace(' ', "") == HEADER => {}
        Some((n, h)) => return Err(format!("{file}:{n}: header `{h}`: expected `{HEADER}`")),
        None => return Err(format!("{file}: empty, expected the header `{HEADER}`")),
    }
    let mut out: Vec<Event> = Vec::new();
    for (n, l) in lines {
        let at = |msg: String| format!("{file}:{n}: {msg}");
        let cols: Vec<&str> = l.split(',').map(str::trim).collect();
        if cols.len() != 4 {
            return Err(at(format!(
                "{} columns, expected 4 (`{HEADER}`)",
                cols.len()
            )));
        }
        let t_ns: u64 = cols[0].parse().map_err(|_| {
            at(format!(
                "t_ns `{}`: expected nanoseconds (a whole number)",
                cols[0]
            ))
        })?;
        let flow: u32 = cols[1]
            .parse()
            .ok()
            .filter(|f| *f < flows)
            .ok_or_else(|| at(format!("flow `{}`: expected 0 to {}", cols[1], flows - 1)))?;
        let kind = match cols[2] {
            "cnp" => Kind::Cnp,
            "tx" => Kind::Tx,
            other => return Err(at(format!("event `{other}`: expected `cnp` or `tx`"))),
        };
        let bytes: u32 = match (kind, cols[3]) {
            (Kind::Cnp, "") => 0,
            (_, b) => b.parse().ok().filter(|b| *b <= 0xffff).ok_or_else(|| {
                at(format!(
                    "bytes `{b}`: expected 0 to 65535 (a send request's size)"
                ))
            })?,
        };
        if let Some(prev) = out.last() {
            if t_ns < prev.t_ns {
                return Err(at(format!(
                    "t_ns {t_ns} is before the previous event's {}: events must be in time order",
                    prev.t_ns
                )));
            }
        }
        out.push(Event {
            t_ns,
            flow,
            kind,
            bytes,
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_events() {
        let e = parse(
            "e.csv",
            "t_ns,flow,event,bytes\n0,3,cnp,\n# a comment\n\n1500,3,tx,1500\n",
            16,
        )
        .unwrap();
        assert_eq!(e.len(), 2);
        assert_eq!(
            (e[1].t_ns, e[1].flow, e[1].kind, e[1].bytes),
            (1500, 3, Kind::Tx, 1500)
        );
    }

    /// A file saved with a byte order mark: its header was `header `\u{feff}t_ns,...`:
    /// expected `t_ns,...``, the same text to the eye.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let text = "t_ns,flow,event,bytes\r\n0,3,cnp,\r\n";
        let marked = format!("\u{feff}{text}");
        assert_eq!(parse("e.csv", &marked, 16), parse("e.csv", text, 16));
        assert_eq!(parse("e.csv", text, 16).map(|e| e.len()), Ok(1));
    }

    #[test]
    fn errors_name_the_line() {
        let bad = |text: &str, want: &str| {
            let e = parse("e.csv", text, 16).unwrap_err();
            assert!(e.starts_with(want), "{e}");
        };
        bad("t,flow\n", "e.csv:1: header");
        bad("", "e.csv: empty");
        bad("t_ns,flow,event,bytes\n0,16,cnp,0\n", "e.csv:2: flow `16`");
        bad("t_ns,flow,event,bytes\n0,1,ce,0\n", "e.csv:2: event `ce`");
        bad("t_ns,flow,event,bytes\n0,1,tx,70000\n", "e.csv:2: bytes");
        bad(
            "t_ns,flow,event,bytes\n5,1,cnp,0\n\n4,1,cnp,0\n",
            "e.csv:4: t_ns 4 is before",
        );
        bad("t_ns,flow,event,bytes\n5,1,cnp\n", "e.csv:2: 3 columns");
        bad("t_ns,flow,event,bytes\n-5,1,cnp,0\n", "e.csv:2: t_ns");
    }
}
