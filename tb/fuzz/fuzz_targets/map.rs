//! A map file's bytes through `load` (YAML, reading, every check) and the rendering of its
//! diagnostics in both styles: no panic, no hang, and the same model or diagnostics on one
//! thread as on two (the `fuzz` feature starts the two-thread paths on small maps).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let alone = rdmagen_regmap::fuzz::parse_bytes(data, false);
    let split = rdmagen_regmap::fuzz::parse_bytes(data, true);
    match (&alone, &split) {
        (Ok(a), Ok(b)) => assert_eq!(format!("{a:?}"), format!("{b:?}")),
        (Err(a), Err(b)) => {
            let short = a.render_short();
            assert_eq!(short, b.render_short());
            assert_eq!(a.render(false), b.render(false));
            let _ = a.render(true);
            assert!(
                a.items.iter().all(|d| d.help.is_some()),
                "a diagnostic has no hint: {short}"
            );
        }
        _ => panic!("one thread and two disagree on whether the map is valid"),
    }
});
