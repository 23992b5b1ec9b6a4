//! Prints the QPC block of a map: `cargo run -p rdmagen-qpc --example emit -- MAP [async]`.
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let map = rdmagen_regmap::load(std::path::Path::new(&args[1])).expect("valid map");
    let reset = if args.get(2).map(String::as_str) == Some("async") {
        verilog_ast::ResetStyle::AsyncLow
    } else {
        verilog_ast::ResetStyle::SyncHigh
    };
    let m = rdmagen_qpc::generate(
        &map,
        &rdmagen_qpc::Options {
            reset,
            generator: "rdmagen".into(),
        },
    )
    .expect("qpc block");
    print!("{}", m.print());
}
