//! The UAR generator on the shipped maps: roles from the layout, determinism, names, errors.

use rdmagen_regmap::RegMap;
use rdmagen_uar::{generate, generate_top, layout, Options, Role};
use verilog_ast::ResetStyle;

fn map(name: &str) -> RegMap {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../register-maps")
        .join(name);
    rdmagen_regmap::load(&p).expect("map loads")
}

fn opts(reset: ResetStyle) -> Options {
    Options {
        reset,
        generator: "rdmagen test".into(),
    }
}

#[test]
fn the_layout_is_the_maps() {
    let roles = |m: &str| -> Vec<(u64, Role)> {
        layout(&map(m))
            .expect("layout")
            .iter()
            .map(|l| (l.offset, l.role))
            .collect()
    };
    assert_eq!(
        roles("uar.yaml"),
        vec![(0x000, Role::SendDoorbell), (0x800, Role::BlueFlame)]
    );
    assert_eq!(
        roles("uar-mlx5.yaml"),
        vec![
            (0x020, Role::Forward),
            (0x040, Role::Forward),
            (0x048, Role::Forward),
            (0x800, Role::BlueFlame),
            (0x900, Role::BlueFlame),
        ]
    );
}

#[test]
fn output_is_deterministic_and_names_come_from_the_map() {
    for m in ["uar.yaml", "uar-mlx5.yaml"] {
        let map = map(m);
        for reset in [ResetStyle::SyncHigh, ResetStyle::AsyncLow] {
            let a = generate(&map, &opts(reset)).expect("generates").print();
            let b = generate(&map, &opts(reset)).expect("generates").print();
            assert_eq!(a, b);
            assert!(a.contains(&format!("module {} #(", map.block)));
            assert!(a.contains(&format!("{}_csr #(", map.block)) && a.contains(") u_csr ("));
            assert!(a.contains(reset.port_name()));
        }
    }
    let mlx5 = generate(&map("uar-mlx5.yaml"), &opts(ResetStyle::SyncHigh))
        .expect("generates")
        .print();
    assert!(mlx5.contains("fwd_valid") && mlx5.contains("cq_db_forwarded_count_incr_i"));
    let article = generate(&map("uar.yaml"), &opts(ResetStyle::SyncHigh))
        .expect("generates")
        .print();
    assert!(!article.contains("fwd_valid"));
}

#[test]
fn a_map_without_a_uar_page_is_an_error() {
    let e = generate(&map("qpc.yaml"), &opts(ResetStyle::SyncHigh)).expect_err("no space");
    assert!(e.0.contains("uar_page"), "{e}");
}

#[test]
fn the_top_wires_the_qpc() {
    let top = generate_top(
        &map("uar.yaml"),
        &map("qpc.yaml"),
        &opts(ResetStyle::AsyncLow),
    )
    .expect("top")
    .print();
    assert!(top.contains("module uar_top #("));
    assert!(top.contains(") u_qpc (") && top.contains(") u_uar ("));
    assert!(top.contains("qpc_s_axil_awvalid"));
}

/// Found by tb/fuzz (check-outputs.sh on the `generate` corpus): uar-mlx5.yaml without its
/// interrupt register pairing gave a CSR block without `irq_o`, and the UAR block's `irq_o`
/// was left undriven (Verilator UNDRIVEN, Yosys `check -assert`). It is now constant low.
#[test]
fn a_map_without_an_interrupt_ties_irq_low() {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps/uar-mlx5.yaml");
    let text = std::fs::read_to_string(p).unwrap();
    let line = "    interrupt: { enable: int_en }\n";
    assert!(text.contains(line));
    let m = rdmagen_regmap::parse("uar-mlx5.yaml", &text.replace(line, "")).expect("map loads");
    let v = generate(&m, &opts(ResetStyle::SyncHigh))
        .expect("generates")
        .print();
    assert!(v.contains("assign irq_o = 1'b0;"), "irq_o not tied low");
    // With the interrupt, the CSR block drives it.
    let v = generate(&map("uar-mlx5.yaml"), &opts(ResetStyle::SyncHigh))
        .unwrap()
        .print();
    assert!(!v.contains("assign irq_o"));
}

/// Found by tb/fuzz (check-outputs.sh): uar-mlx5.yaml with `last_drop.page_index` made
/// `hw_clear` instead of `hw_write` generated a block whose page-index flop nothing read
/// (Verilator UNUSEDSIGNAL) and whose field was never loaded. A missing CSR input is an error.
#[test]
fn a_map_without_a_driven_csr_input_is_refused() {
    let p =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps/uar-mlx5.yaml");
    let text = std::fs::read_to_string(p).unwrap();
    let field = "{ name: page_index, bits: \"11:8\", access: ro, hw_write: true,";
    assert!(text.contains(field));
    let text = text.replace(
        field,
        "{ name: page_index, bits: \"11:8\", access: ro, hw_clear: true,",
    );
    let m = rdmagen_regmap::parse("uar-mlx5.yaml", &text).expect("map loads");
    let e = generate(&m, &opts(ResetStyle::SyncHigh)).unwrap_err();
    assert!(e.to_string().contains("`last_drop_page_index_we_i`"), "{e}");
}
