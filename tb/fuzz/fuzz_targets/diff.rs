//! `rdmagen diff`: two maps (the input split at its first line `#~~~`, or the input against
//! register-maps/example.yaml both ways) compared and rendered in every format, no panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use rdmagen_diff::{Format, Report};

const EXAMPLE: &str = include_str!("../../../register-maps/example.yaml");

fn compare(old: &str, new: &str) {
    let (Ok(a), Ok(b)) = (
        rdmagen_regmap::fuzz::parse_bytes(old.as_bytes(), true),
        rdmagen_regmap::fuzz::parse_bytes(new.as_bytes(), true),
    ) else {
        return;
    };
    let report = Report::new(&a, &b, new);
    for format in [Format::Text, Format::Json, Format::Sarif] {
        let _ = report.render(format);
    }
    let _ = (
        report.version_error(),
        report.version_warning(),
        report.is_breaking(),
    );
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    match text.split_once("\n#~~~\n") {
        Some((old, new)) => compare(old, new),
        None => {
            compare(EXAMPLE, &text);
            compare(&text, EXAMPLE);
        }
    }
});
