//! The YAML reader alone on any bytes (as `load` sees them: invalid UTF-8 replaced): no panic,
//! no hang, every position on a character boundary of the text, and the same tree or error
//! read on one thread as on two (the `fuzz` feature starts the split on small texts).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let alone = rdmagen_regmap::fuzz::yaml(&text, false);
    let split = rdmagen_regmap::fuzz::yaml(&text, true);
    assert_eq!(alone, split, "one thread and two read the text differently");
});
