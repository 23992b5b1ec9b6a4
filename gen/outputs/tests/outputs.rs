//! Snapshots of every output of the example map, and checks over every committed map: each SVG
//! is well-formed XML, every output is deterministic and free of absolute paths.

use std::path::{Path, PathBuf};

use rdmagen_outputs::{c_header, ipxact, json, markdown, systemrdl, Options};
use rdmagen_regmap::RegMap;

const MAPS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps");

fn opts() -> Options {
    Options {
        generator: "rdmagen test".into(),
    }
}

/// Loads a map under the relative name `make rtl` gives it, as the committed outputs do.
fn load(name: &str) -> RegMap {
    let path = Path::new(MAPS).join(name);
    let text = std::fs::read_to_string(&path).unwrap();
    rdmagen_regmap::parse(&format!("register-maps/{name}"), &text).unwrap()
}

fn all_maps() -> Vec<RegMap> {
    let mut names: Vec<PathBuf> = std::fs::read_dir(MAPS)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    names.sort();
    assert!(names.len() >= 6);
    names
        .iter()
        .map(|p| load(p.file_name().unwrap().to_str().unwrap()))
        .collect()
}

#[test]
fn example_header() {
    insta::assert_snapshot!(c_header::generate(&load("example.yaml"), &opts()).unwrap());
}

#[test]
fn example_markdown() {
    insta::assert_snapshot!(markdown::generate(&load("example.yaml"), &opts()).markdown);
}

#[test]
fn example_pictures() {
    let doc = markdown::generate(&load("example.yaml"), &opts());
    assert_eq!(doc.picture_dir, "example");
    let names: Vec<&str> = doc.pictures.iter().map(|(n, _)| n.as_str()).collect();
    insta::assert_snapshot!(names.join("\n"));
    for (name, svg) in &doc.pictures {
        if name == "ctrl.svg" || name == "base_addr.svg" {
            insta::assert_snapshot!(name.as_str(), svg);
        }
    }
}

#[test]
fn example_systemrdl() {
    insta::assert_snapshot!(systemrdl::generate(&load("example.yaml"), &opts()));
}

#[test]
fn example_ipxact() {
    insta::assert_snapshot!(ipxact::generate(&load("example.yaml"), &opts()));
}

#[test]
fn example_json() {
    insta::assert_snapshot!(json::generate(&load("example.yaml"), &opts()));
}

#[test]
fn every_picture_is_well_formed_svg() {
    let mut count = 0;
    for map in all_maps() {
        let doc = markdown::generate(&map, &opts());
        // Every register section links a picture this map produces; alike registers share.
        let links: Vec<&str> = doc
            .markdown
            .lines()
            .filter_map(|l| l.strip_prefix("![bit fields of "))
            .collect();
        assert_eq!(links.len(), map.registers().count(), "{}", map.block);
        for link in links {
            let file = link
                .split_once("](")
                .and_then(|(_, f)| f.strip_suffix(')'))
                .and_then(|f| f.strip_prefix(&format!("{}/", map.block)))
                .unwrap_or_else(|| panic!("{}: bad picture link {link}", map.block));
            assert!(
                doc.pictures.iter().any(|(n, _)| n == file),
                "{}: {file} not produced",
                map.block
            );
        }
        assert!(doc.pictures.len() <= map.registers().count());
        for (name, svg) in &doc.pictures {
            let xml = roxmltree::Document::parse(svg)
                .unwrap_or_else(|e| panic!("{}/{name}: {e}", map.block));
            let root = xml.root_element();
            assert_eq!(root.tag_name().name(), "svg", "{}/{name}", map.block);
            assert_eq!(
                root.tag_name().namespace(),
                Some("http://www.w3.org/2000/svg")
            );
            let width: i32 = root.attribute("width").unwrap().parse().unwrap();
            let height: i32 = root.attribute("height").unwrap().parse().unwrap();
            assert!(width > 0 && height > 0, "{}/{name}", map.block);
            // Every drawn element lies inside the picture.
            for node in xml.descendants().filter(|n| n.is_element()) {
                for (attr, limit) in [("x", width), ("x2", width), ("y", height), ("y2", height)] {
                    if let Some(v) = node.attribute(attr) {
                        let v: i32 = v.parse().unwrap();
                        assert!((0..=limit).contains(&v), "{}/{name}: {attr}={v}", map.block);
                    }
                }
            }
            count += 1;
        }
    }
    // 80 distinct pictures for the 128 registers of the committed maps (counters share).
    assert!(count > 60, "{count} pictures");
}

#[test]
fn json_is_valid_and_matches_the_model() {
    for map in all_maps() {
        let text = json::generate(&map, &opts());
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(v["schema"], json::SCHEMA);
        assert_eq!(v["block"], map.block.text.as_str());
        assert_eq!(v["items"].as_array().unwrap().len(), map.items.len());
    }
}

#[test]
fn outputs_are_deterministic_and_name_no_absolute_path() {
    let abs = Path::new(MAPS).join("example.yaml").canonicalize().unwrap();
    let text = std::fs::read_to_string(&abs).unwrap();
    let abs_name = abs.display().to_string();
    let map = rdmagen_regmap::parse(&abs_name, &text).unwrap();
    let doc = markdown::generate(&map, &opts());
    let outputs = [
        c_header::generate(&map, &opts()).unwrap(),
        doc.markdown.clone(),
        systemrdl::generate(&map, &opts()),
        ipxact::generate(&map, &opts()),
        json::generate(&map, &opts()),
    ];
    for out in &outputs {
        assert!(!out.contains(&abs_name), "absolute path in output");
        assert!(out.contains("example.yaml"));
    }
    let again = markdown::generate(&map, &opts());
    assert_eq!(doc.markdown, again.markdown);
    assert_eq!(doc.pictures, again.pictures);
}

#[test]
fn registers_drawn_alike_share_one_picture() {
    // `b` and `d` repeat `a`'s fields (other description, offset and name); `c` differs only
    // in a reset value, so it gets its own picture.
    let text = "block: share\nversion: 1.0.0\nregisters:\n\
                \x20 - name: a\n    offset: 0x0\n    fields: [{ name: f, bits: 3:0, access: rw, reset: 1 }]\n\
                \x20 - name: b\n    offset: 0x4\n    description: Same layout.\n    fields: [{ name: f, bits: 3:0, access: rw, reset: 1 }]\n\
                \x20 - name: c\n    offset: 0x8\n    fields: [{ name: f, bits: 3:0, access: rw, reset: 2 }]\n\
                \x20 - name: d\n    offset: 0xc\n    fields: [{ name: f, bits: 3:0, access: rw, reset: 1 }]\n";
    let map = rdmagen_regmap::parse("share.yaml", text).unwrap();
    let doc = markdown::generate(&map, &opts());
    let names: Vec<&str> = doc.pictures.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["a.svg", "c.svg"]);
    for (reg, file) in [("a", "a"), ("b", "a"), ("c", "c"), ("d", "a")] {
        let link = format!("![bit fields of {reg}](share/{file}.svg)");
        assert!(doc.markdown.contains(&link), "{link}");
    }
    assert!(doc.pictures[0].1.contains(
        "<title>Bit fields of register a and of 2 other registers with the same fields</title>"
    ));
    assert!(doc.pictures[1]
        .1
        .contains("<title>Bit fields of register c</title>"));
}

#[test]
fn c_name_clash_is_reported_not_emitted() {
    // A group register `port.cfg` and a register `port_cfg` would both define
    // CLASH_PORT_CFG_*: validation refuses the map, at both places.
    let text = "block: clash\nversion: 1.0.0\nregisters:\n\
                \x20 - name: port_cfg\n    offset: 0x0\n    fields: [{ name: a, bits: 0, access: rw }]\n\
                \x20 - name: port\n    offset: 0x10\n    array: { count: 2, stride: 0x4 }\n    registers:\n\
                \x20     - name: cfg\n        offset: 0x0\n        fields: [{ name: b, bits: 0, access: rw }]\n";
    let err = rdmagen_regmap::parse("clash.yaml", text).unwrap_err();
    assert_eq!(err.codes(), ["regmap::c_name_clash"], "{err}");
    let short = err.render_short();
    assert!(short.starts_with("clash.yaml:11:15: "), "{short}");
    assert!(short.contains("`CLASH_PORT_CFG_OFFSET`"), "{short}");
    assert!(short.contains("at clash.yaml:4:11"), "{short}");
    // The header's own guard: the same clash made after validation (a renamed register) is
    // refused, not written. The object-like `_OFFSET` and the function-like `_OFFSET(i)` are
    // one macro name.
    let mut map =
        rdmagen_regmap::parse("clash.yaml", &text.replace("port_cfg", "port_cf")).unwrap();
    let rdmagen_regmap::Item::Register(r) = &mut map.items[0] else {
        panic!("a register first")
    };
    r.name.text = "port_cfg".into();
    let err = c_header::generate(&map, &opts()).unwrap_err();
    assert_eq!(
        err.names,
        [
            "CLASH_PORT_CFG_OFFSET",
            "CLASH_PORT_CFG_RDMASK",
            "CLASH_PORT_CFG_RESET_VALUE",
            "CLASH_PORT_CFG_WRMASK"
        ],
        "{err}"
    );
}

/// A map of `n` plain registers (several KiB of JSON each with their fields).
fn many_registers(n: usize) -> RegMap {
    let mut text = String::from("block: big\nversion: 1.0.0\nregisters:\n");
    for i in 0..n {
        text.push_str(&format!(
            "  - name: r{i}\n    offset: {:#x}\n    fields:\n      - {{ name: a, bits: \"7:0\", access: rw }}\n      - {{ name: b, bits: \"15:8\", access: ro }}\n",
            4 * i
        ));
    }
    rdmagen_regmap::parse("big.yaml", &text).unwrap()
}

#[test]
fn json_and_ipxact_written_as_made_are_the_same_text_in_chunks() {
    struct Chunks(Vec<usize>, Vec<u8>);
    impl std::io::Write for Chunks {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.push(buf.len());
            self.1.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    type Whole = fn(&RegMap, &Options) -> String;
    type Streamed = fn(&RegMap, &Options, &mut dyn std::io::Write) -> std::io::Result<()>;
    let outputs: [(Whole, Streamed); 2] = [
        (json::generate, json::generate_to),
        (ipxact::generate, ipxact::generate_to),
    ];
    for (map, (whole, streamed)) in [load("example.yaml"), many_registers(2000)]
        .into_iter()
        .flat_map(|m| outputs.map(|o| (m.clone(), o)))
    {
        let text = whole(&map, &opts());
        let mut w = Chunks(Vec::new(), Vec::new());
        streamed(&map, &opts(), &mut w).unwrap();
        assert_eq!(String::from_utf8(w.1).unwrap(), text);
        if map.block.text == "big" {
            assert!(
                text.len() > 4 << 18,
                "{} bytes: too few for chunks",
                text.len()
            );
            assert!(
                w.0.len() >= 4,
                "{} writes of {} bytes",
                w.0.len(),
                text.len()
            );
            assert!(w.0.iter().all(|&n| n < 2 << 18), "{:?}", w.0);
        }
    }
    // The sink's error comes back.
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    for (_, streamed) in outputs {
        let e = streamed(&many_registers(2000), &opts(), &mut Full).unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }
}

/// Register masks are `_RDMASK`/`_WRMASK`, not `_RD_MASK`/`_WR_MASK`, which fields named `rd`
/// and `wr` would define as their `_MASK`: such a map is valid and its header defines each
/// name once.
#[test]
fn fields_named_rd_and_wr_do_not_meet_the_register_masks() {
    let text = "block: dma\nversion: 1.0.0\nregisters:\n\
                \x20 - name: ptr\n    offset: 0x0\n    fields:\n\
                \x20     - { name: rd, bits: \"7:0\", access: ro }\n\
                \x20     - { name: wr, bits: \"15:8\", access: rw }\n";
    let map = rdmagen_regmap::parse("dma.yaml", text).unwrap_or_else(|e| panic!("{e}"));
    let header = c_header::generate(&map, &opts()).unwrap();
    for line in [
        "#define DMA_PTR_RD_MASK 0xffu",
        "#define DMA_PTR_WR_MASK 0xff00u",
        "#define DMA_PTR_RDMASK 0xffffu",
        "#define DMA_PTR_WRMASK 0xff00u",
    ] {
        assert!(header.lines().any(|l| l == line), "{line}");
    }
}

/// The SystemRDL export says what the CSR block does: a `wp` field wider than one bit is a
/// one-cycle pulse (`swmod` plus the declared `rdmagen_pulse` property, not a stored value), a
/// status field that hardware loads (`hw_write`) is a non-sticky interrupt, and fields that
/// both software and hardware change give hardware precedence; a wider field's per-bit
/// `hw_set` is marked `rdmagen_bitwise`. The properties are declared only where used.
#[test]
fn systemrdl_export_says_what_the_rtl_does() {
    let path = Path::new(MAPS).join("../tb/csr-tests/maps/emac_review.yaml");
    let map = rdmagen_regmap::load(&path).unwrap_or_else(|e| panic!("{e}"));
    let rdl = systemrdl::generate(&map, &opts());
    let field = |name: &str| -> String {
        let end = rdl
            .find(&format!("}} {name}["))
            .unwrap_or_else(|| panic!("{name}"));
        let start = rdl[..end].rfind("field {").unwrap();
        rdl[start..end]
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert!(rdl.contains("property rdmagen_pulse { type = boolean; component = field; };"));
    assert_eq!(
        field("flush"),
        "field { sw = w; hw = r; swmod; rdmagen_pulse = true;"
    );
    assert_eq!(
        field("pause_rx"),
        "field { sw = rw; hw = rw; onwrite = woclr; precedence = hw; we; nonsticky intr;"
    );
    assert_eq!(
        field("link_change"),
        "field { sw = rw; hw = r; onwrite = woclr; precedence = hw; hwset; intr;"
    );
    // A per-bit hw_set on 8 bits: SystemRDL's hwset alone would be one signal for all 8. The
    // field has no `_o` output (`hw_read: false`): hardware does not read it, `hw = na`.
    assert!(rdl.contains("property rdmagen_bitwise { type = boolean; component = field; };"));
    assert_eq!(
        field("fatal"),
        "field { sw = rw; hw = na; onwrite = woclr; precedence = hw; hwset; rdmagen_bitwise = true; intr;"
    );
    // 1-bit pulses and set/clear only: no declaration.
    let example = systemrdl::generate(&load("example.yaml"), &opts());
    assert!(example.contains("singlepulse;"));
    assert!(!example.contains("rdmagen_pulse"));
    assert!(!example.contains("rdmagen_bitwise"));
}
