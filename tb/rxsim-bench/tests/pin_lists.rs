//! The pin file's port lists follow `rx_top` as the generator writes it. The speed benchmark
//! checks them against the Verilated model, but that model is built only for `make bench`; a
//! port added to the parser once broke the benchmark unnoticed until the next run (the UD
//! source QP, `m_hdr_src_qp`). These run in `cargo test` without Verilator.

use rdmagen_rxsim_bench::pins::{FOLD, INPUTS, UNFOLDED};
use verilog_ast::{Dir, PortItem, ResetStyle};

fn map(name: &str) -> rdmagen_regmap::RegMap {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../register-maps")
        .join(name);
    rdmagen_regmap::load(&path).expect("map loads")
}

/// (inputs without `clk`, outputs) of `rx_top` at 512 bits, in port order.
fn rx_top_ports() -> (Vec<String>, Vec<String>) {
    let top = rdmagen_rxparser::generate_top(
        &map("rx_parser.yaml"),
        &map("qpc.yaml"),
        &rdmagen_rxparser::Options {
            reset: ResetStyle::SyncHigh,
            generator: "test".into(),
            width: 512,
        },
    )
    .expect("rx_top");
    let (mut inputs, mut outputs) = (Vec::new(), Vec::new());
    for p in &top.ports {
        if let PortItem::Port(p) = p {
            match p.dir {
                Dir::Input if p.name != "clk" => inputs.push(p.name.clone()),
                Dir::Input => {}
                Dir::Output => outputs.push(p.name.clone()),
            }
        }
    }
    (inputs, outputs)
}

#[test]
fn inputs_and_fold_list_are_rx_tops_ports() {
    let (inputs, outputs) = rx_top_ports();
    assert_eq!(inputs, INPUTS, "src/pins.rs INPUTS");
    // As the rig compares them: the same set (FOLD lists a valid before its data).
    let mut folded: Vec<&str> = outputs
        .iter()
        .map(String::as_str)
        .filter(|n| !UNFOLDED.contains(n))
        .collect();
    let mut fold: Vec<&str> = FOLD.iter().map(|(n, _)| *n).collect();
    folded.sort_unstable();
    fold.sort_unstable();
    assert_eq!(
        folded, fold,
        "src/pins.rs FOLD and UNFOLDED: rx_top's outputs"
    );
}

/// The plain C++ harness folds the same outputs with the same qualifiers, in the same order.
#[test]
fn cpp_harness_folds_the_same_list() {
    let cpp = include_str!("../benches/cpp_harness.cpp");
    let start = cpp.find("#define RX_FOLD(A, Q)").expect("RX_FOLD");
    // The macro's body: its continuation lines, up to the first line without a backslash.
    let mut body = String::new();
    for line in cpp[start..].lines().skip(1) {
        let continued = line.trim_end().ends_with('\\');
        body.push_str(line.trim_end().trim_end_matches('\\'));
        body.push(' ');
        if !continued {
            break;
        }
    }
    let mut got = Vec::new();
    for item in body.split(')').map(str::trim).filter(|s| !s.is_empty()) {
        let (kind, args) = item.split_once('(').expect("A(port) or Q(port, valid)");
        let args: Vec<String> = args.split(',').map(|a| a.trim().to_string()).collect();
        got.push(match kind.trim() {
            "A" => (args[0].clone(), None),
            "Q" => (args[0].clone(), Some(args[1].clone())),
            other => panic!("unexpected {other}({args:?}) in RX_FOLD"),
        });
    }
    let want: Vec<(String, Option<String>)> = FOLD
        .iter()
        .map(|(n, q)| (n.to_string(), q.map(str::to_string)))
        .collect();
    assert_eq!(got, want, "benches/cpp_harness.cpp RX_FOLD");
}

/// The typed replay of the speed benchmark (`benches/rx_speed.rs`, `pass_fn!`) drives and folds
/// the same lists (it checks so at run time, with a model that only `make bench` builds).
#[test]
fn typed_replay_has_the_same_lists() {
    let src = include_str!("../benches/rx_speed.rs");
    let start = src.find("\npass_fn!(").expect("pass_fn! invocation") + 1;
    let body = &src[start..start + src[start..].find(");").expect("end of pass_fn!")];
    let lists: Vec<&str> = body
        .split('[')
        .skip(1)
        .map(|l| l.split(']').next().expect("list"))
        .collect();
    assert_eq!(lists.len(), 2, "pass_fn!([inputs], [fold])");
    let names = |l: &str| -> Vec<String> {
        l.split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect()
    };
    assert_eq!(names(lists[0]), INPUTS, "rx_speed.rs inputs");
    let fold: Vec<(String, Option<String>)> = names(lists[1])
        .iter()
        .map(|e| match e.split_once('/') {
            Some((o, q)) => (o.trim().to_string(), Some(q.trim().to_string())),
            None => (e.clone(), None),
        })
        .collect();
    let want: Vec<(String, Option<String>)> = FOLD
        .iter()
        .map(|(n, q)| (n.to_string(), q.map(str::to_string)))
        .collect();
    assert_eq!(fold, want, "rx_speed.rs fold list");
}
