//! The generator is deterministic, uses the map's names, and refuses a map it cannot serve
//! with an error instead of a panic.

use std::path::Path;

use rdmagen_dcqcn::{generate, state_width, Options, MODULE};
use verilog_ast::ResetStyle;

fn map(name: &str) -> rdmagen_regmap::RegMap {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../register-maps")
        .join(name);
    rdmagen_regmap::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn opts(reset: ResetStyle) -> Options {
    Options {
        reset,
        generator: "rdmagen test".into(),
    }
}

#[test]
fn deterministic_and_named_from_the_map() {
    let m = map("dcqcn.yaml");
    let a = generate(&m, &opts(ResetStyle::SyncHigh)).map(|m| m.print());
    let b = generate(&m, &opts(ResetStyle::SyncHigh)).map(|m| m.print());
    assert_eq!(a, b);
    let text = a.unwrap_or_default();
    assert!(text.contains(&format!("module {MODULE} #(")));
    assert!(text.contains("`default_nettype none"));
    assert!(text.contains("from register-maps/dcqcn.yaml") || text.contains("dcqcn.yaml"));
    for port in [
        "rpg_time_reset_value_i",
        "dce_tcp_g_value_i",
        "min_time_between_cnps_value_i",
        "rp_rate_cuts_count_incr_o",
    ] {
        assert!(text.contains(port), "no port {port}");
    }
    assert!(text.contains(&format!("localparam integer STATE_W = {};", state_width())));
}

#[test]
fn both_reset_styles() {
    let m = map("dcqcn.yaml");
    let text = generate(&m, &opts(ResetStyle::AsyncLow))
        .map(|m| m.print())
        .unwrap_or_default();
    assert!(text.contains("posedge clk or negedge rst_n"));
}

#[test]
fn another_map_is_an_error_not_a_panic() {
    let err = generate(&map("example.yaml"), &opts(ResetStyle::SyncHigh)).err();
    let err = err.unwrap_or_default();
    assert!(err.contains("the DCQCN engine needs"), "{err}");
}
