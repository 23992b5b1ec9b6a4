//! A map saved with a UTF-8 byte order mark (as Windows editors do) reads like the same map
//! without one, diagnostics at the same line and column: the mark was read as part of the
//! first key (a bad indentation on line 5 of the example map).

const EXAMPLE: &str = include_str!("../../../register-maps/example.yaml");
const BAD: &str = include_str!("bad/44_multi_register_errors.yaml");

#[test]
fn a_byte_order_mark_is_not_part_of_the_map() {
    let plain = rdmagen_regmap::parse("example.yaml", EXAMPLE).unwrap_or_else(|e| panic!("{e}"));
    let marked = rdmagen_regmap::parse("example.yaml", &format!("\u{feff}{EXAMPLE}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(format!("{marked:?}"), format!("{plain:?}"));

    let plain = rdmagen_regmap::parse("bad.yaml", BAD).unwrap_err();
    let marked = rdmagen_regmap::parse("bad.yaml", &format!("\u{feff}{BAD}")).unwrap_err();
    assert_eq!(marked.render_short(), plain.render_short());
    assert_eq!(marked.render(false), plain.render(false));
}
