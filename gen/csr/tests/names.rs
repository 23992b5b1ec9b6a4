//! Every map the validator accepts gives a CSR module that declares each name once. The block
//! derives `<register>_<field>_q`, `<register>_rsel_q`, `ADDR_<REGISTER>_HI`, … from the map
//! beside flops of its own (`rd_hi_q`, `wr_rdy_q`, `<group>_rd_elem_q`, …); a map whose names
//! would make one of those twice must be rejected (`regmap::rtl_name_clash`), not turned into
//! RTL that no Verilog tool reads (a duplicate declaration, or one in a generate block hiding
//! the module's own).

use std::collections::HashMap;

use rdmagen_csr::{generate, Options};
use verilog_ast::ResetStyle;

/// The CSR block of `map` as printed Verilog, once per reset style.
fn in_both_reset_styles(map: &rdmagen_regmap::RegMap) -> Vec<String> {
    [ResetStyle::SyncHigh, ResetStyle::AsyncLow]
        .into_iter()
        .map(|reset| {
            generate(
                map,
                &Options {
                    reset,
                    generator: "test".into(),
                },
            )
            .print()
        })
        .collect()
}

/// Each identifier the printed module declares (`reg`, `wire`, `localparam`, `genvar`), with
/// how many times; generate blocks count with the module, as a name declared in both hides
/// the outer one (Verilator's VARHIDDEN).
fn declarations(text: &str) -> HashMap<String, usize> {
    let mut seen = HashMap::new();
    for line in text.lines() {
        let line = line.trim_start();
        let Some(rest) = ["reg ", "wire ", "localparam ", "genvar "]
            .iter()
            .find_map(|k| line.strip_prefix(k))
        else {
            continue;
        };
        let mut rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix('[') {
            rest = r.split_once(']').map_or("", |(_, r)| r).trim_start();
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        if !name.is_empty() {
            *seen.entry(name).or_insert(0) += 1;
        }
    }
    seen
}

/// A map with one register `reg_name` (in group `group` when given) holding field `field`,
/// beside what makes the block declare its optional flops: a 64-bit register (`has64`), a
/// 32-element group (a read fetch stage), and 70 more readable registers (`top_fetch`: the
/// registers outside groups read through fetched words).
fn map_text(
    group: Option<&str>,
    reg_name: &str,
    field: &str,
    has64: bool,
    top_fetch: bool,
) -> String {
    let mut t = String::from("block: names\nversion: 1.0.0\nregisters:\n");
    let reg = |indent: &str, name: &str, offset: u64, width: u32, field: &str| {
        format!(
            "{indent}- name: {name}\n{indent}  offset: {offset:#x}\n{indent}  width: {width}\n{indent}  fields:\n{indent}    - {{ name: {field}, bits: 0, access: rw }}\n"
        )
    };
    match group {
        None => t.push_str(&reg("  ", reg_name, 0x0, 32, field)),
        Some(g) => {
            t.push_str(&format!(
                "  - name: {g}\n    offset: 0x4000\n    array: {{ count: 4, stride: 0x10 }}\n    registers:\n"
            ));
            t.push_str(&reg("      ", reg_name, 0x0, 32, field));
            t.push_str(&reg("      ", "other", 0x8, 64, "v"));
        }
    }
    if has64 {
        t.push_str(&reg("  ", "wide", 0x8, 64, "v"));
    }
    t.push_str(
        "  - name: big\n    offset: 0x8000\n    array: { count: 32, stride: 0x10 }\n    registers:\n",
    );
    t.push_str(&reg("      ", "r", 0x0, 32, "v"));
    if top_fetch {
        for k in 0..70u64 {
            t.push_str(&reg("  ", &format!("pad{k}"), 0x100 + 4 * k, 32, "v"));
        }
    }
    t
}

/// Every way to cut `stem` at its underscores into `n` snake_case names.
fn splits(stem: &str, n: usize) -> Vec<Vec<String>> {
    let parts: Vec<&str> = stem.split('_').collect();
    if n == 1 {
        return vec![vec![stem.to_string()]];
    }
    let mut out = Vec::new();
    for k in 1..parts.len() {
        let head = parts[..k].join("_");
        for mut rest in splits(&parts[k..].join("_"), n - 1) {
            rest.insert(0, head.clone());
            out.push(rest);
        }
    }
    out
}

#[test]
fn accepted_maps_declare_each_name_once() {
    // The block's own flops (`<stem>_q`), and stems it derives from other registers and groups
    // of the maps above: `wide`'s high half, group `big`'s element index and fetched word,
    // group `port`'s index, `r`'s read select.
    let stems = [
        "wr_rdy",
        "rd_rdy",
        "rd_pend",
        "rd_slverr",
        "rd_fetch",
        "rd_top_ok",
        "wr_lo",
        "wr_lo_strb",
        "rd_hi",
        "rd_latch",
        "rd_hi_rsel",
        "rd_top0_word",
        "rd_top2_word",
        "big_rd_elem",
        "big_rd_word",
        "port_rd_elem",
        "wide_hi",
        "pad3_rsel",
        "x_rsel",
    ];
    let (mut accepted, mut rejected) = (0, 0);
    for stem in stems {
        let mut shapes: Vec<(Option<String>, String, String)> = splits(stem, 2)
            .into_iter()
            .map(|v| (None, v[0].clone(), v[1].clone()))
            .collect();
        shapes.extend(
            splits(stem, 3)
                .into_iter()
                .map(|v| (Some(v[0].clone()), v[1].clone(), v[2].clone())),
        );
        // A register named after the whole stem: its own read select, and `ADDR_<R>_HI`.
        shapes.push((None, stem.to_string(), "f".into()));
        for (group, reg, field) in shapes {
            for has64 in [false, true] {
                for top_fetch in [false, true] {
                    let text = map_text(group.as_deref(), &reg, &field, has64, top_fetch);
                    let map = match rdmagen_regmap::parse("names.yaml", &text) {
                        Ok(map) => map,
                        Err(d) => {
                            // Names the validator refuses for reasons of their own (a
                            // duplicate register, a C macro clash, …) prove nothing here.
                            if d.codes().contains(&"regmap::rtl_name_clash") {
                                rejected += 1;
                            }
                            continue;
                        }
                    };
                    accepted += 1;
                    for text in in_both_reset_styles(&map) {
                        let twice: Vec<_> = declarations(&text)
                            .into_iter()
                            .filter(|(_, n)| *n > 1)
                            .map(|(name, _)| name)
                            .collect();
                        assert!(
                            twice.is_empty(),
                            "group {group:?} register `{reg}` field `{field}` (64-bit: {has64}, \
                             top fetch: {top_fetch}): declared more than once: {twice:?}"
                        );
                    }
                }
            }
        }
    }
    // Both sides are exercised: clashes refused, and the same names accepted where the block
    // has no such flop (no 64-bit register, no fetch stage).
    assert!(
        rejected > 40,
        "only {rejected} maps refused as rtl_name_clash"
    );
    assert!(accepted > 40, "only {accepted} maps accepted");
}

/// A map with registers in arrays only (tb/csr-tests/maps/arrays_only.yaml): every address is
/// decoded through the arrays' windows, so the top-level decode's word addresses must not be
/// declared (they were, unused: `verilator -Wall` UNUSEDSIGNAL on `wr_addr` and `rd_addr`).
/// Each wire of the module is declared, driven and read: at least three mentions.
#[test]
fn a_map_of_arrays_only_reads_every_wire_it_declares() {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tb/csr-tests/maps/arrays_only.yaml"
    );
    let map = rdmagen_regmap::load(std::path::Path::new(path)).expect("map loads");
    assert!(
        map.top_registers().next().is_none(),
        "the map has registers outside arrays"
    );
    for text in in_both_reset_styles(&map) {
        let mut mentions: HashMap<&str, usize> = HashMap::new();
        for word in text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
            *mentions.entry(word).or_insert(0) += 1;
        }
        let wires: Vec<String> = text
            .lines()
            .filter_map(|l| l.trim_start().strip_prefix("wire "))
            .map(|rest| {
                let rest = rest.trim_start();
                let rest = match rest.strip_prefix('[') {
                    Some(r) => r.split_once(']').map_or("", |(_, r)| r).trim_start(),
                    None => rest,
                };
                rest.chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect()
            })
            .collect();
        assert!(!wires.is_empty());
        // `unused_ok` gathers deliberately unused bits for the linter, which reads no further.
        for w in wires.iter().filter(|w| *w != "unused_ok") {
            let n = mentions.get(w.as_str()).copied().unwrap_or(0);
            assert!(
                n >= 3,
                "wire `{w}` is mentioned {n} times (declared, driven, never read?)"
            );
        }
    }
}
