//! Compiles the Verilator runtime once; dependents get its root, binary and version.
fn main() {
    let vl = match rdmagen_vlbuild::Verilator::locate() {
        Ok(v) => v,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    };
    if let Err(e) = rdmagen_vlbuild::build_runtime(&vl) {
        eprintln!("error: {e}");
        std::process::exit(1);
    }
}
