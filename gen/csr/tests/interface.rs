//! `interface()` must describe exactly the module `generate()` writes: same parameters and the
//! same ports in the same order, direction and declared range, for every committed map.

use rdmagen_csr::{interface, ElementCount, Options, PortWidth};
use verilog_ast::{Dir, Expr, PortItem, Range, ResetStyle};

fn declared_range(w: &PortWidth) -> Option<Range> {
    match w {
        PortWidth::Bits(b) => Range::bits(*b),
        PortWidth::PerElement { count, bits } => {
            let n = match count {
                ElementCount::Fixed(n) => Expr::int(*n as i64),
                ElementCount::Parameter(p) => Expr::id(p.clone()),
            };
            Some(Range::width(Expr::times(n, Expr::int(i64::from(*bits)))))
        }
    }
}

#[test]
fn interface_matches_the_generated_module() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../register-maps");
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "yaml") {
            continue;
        }
        let map = rdmagen_regmap::load(&path).unwrap();
        for reset in [ResetStyle::SyncHigh, ResetStyle::AsyncLow] {
            let module = rdmagen_csr::generate(
                &map,
                &Options {
                    reset,
                    generator: "test".into(),
                },
            );
            let iface = interface(&map, reset);
            assert_eq!(iface.module, module.name);
            let params: Vec<_> = module.params.iter().map(|p| p.name.clone()).collect();
            let described: Vec<_> = iface.parameters.iter().map(|p| p.name.clone()).collect();
            assert_eq!(params, described, "{}", path.display());
            let ports: Vec<_> = module
                .ports
                .iter()
                .filter_map(|p| match p {
                    PortItem::Port(p) => {
                        Some((p.name.clone(), p.dir == Dir::Output, p.range.clone()))
                    }
                    PortItem::Banner(_) => None,
                })
                .collect();
            let described: Vec<_> = iface
                .ports
                .iter()
                .map(|p| (p.name.clone(), p.output, declared_range(&p.width)))
                .collect();
            assert_eq!(ports, described, "{}", path.display());
        }
        checked += 1;
    }
    assert!(checked >= 6);
}
