//! Cycle figures that the timing tests measure, for the benchmark report.
//!
//! A test that checks a latency bound or a throughput in simulation also hands the measured
//! value to [`record`]. When `RDMAGEN_FIGURES` names a file, each call appends one JSON line
//! to it; `scripts/bench-cycles.sh` runs the timing tests with it set and turns the lines
//! into the cycles table of `docs/BENCHMARKS.md`. Unset (as in `make test`), `record` does
//! nothing: the tests' assertions are what they check, the figures are what they saw.

use std::fs::OpenOptions;
use std::io::Write;

/// One measured figure: which block and model variant, what was measured, the value, its
/// unit, the bound the test asserts (as text, e.g. "<= 4"), and the test that measured it.
pub struct Figure<'a> {
    pub block: &'a str,
    pub variant: &'a str,
    pub figure: &'a str,
    pub value: f64,
    pub unit: &'a str,
    pub bound: &'a str,
    pub test: &'a str,
}

/// Appends `f` as a JSON line to `$RDMAGEN_FIGURES` when it is set.
///
/// # Panics
///
/// When the file cannot be written: a benchmark run that loses figures must not pass.
pub fn record(f: &Figure) {
    let Some(path) = std::env::var_os("RDMAGEN_FIGURES") else {
        return;
    };
    let line = format!(
        "{{\"block\":{},\"variant\":{},\"figure\":{},\"value\":{},\"unit\":{},\"bound\":{},\"test\":{}}}\n",
        json_str(f.block),
        json_str(f.variant),
        json_str(f.figure),
        if f.value.is_finite() { f.value } else { -1.0 },
        json_str(f.unit),
        json_str(f.bound),
        json_str(f.test),
    );
    // One write of the whole line with O_APPEND: tests of one binary run on parallel threads.
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .and_then(|mut file| file.write_all(line.as_bytes()))
        .unwrap_or_else(|e| panic!("RDMAGEN_FIGURES={}: {e}", path.to_string_lossy()));
}

fn json_str(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::json_str;

    #[test]
    fn strings_are_escaped() {
        assert_eq!(json_str("a\"b\\c\nd"), "\"a\\\"b\\\\c\\u000ad\"");
    }
}
