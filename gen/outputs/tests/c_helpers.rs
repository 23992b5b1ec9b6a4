//! The C header's register masks and field helpers, compiled and run: for every committed map
//! and every CSR test map, a C program sets and gets every field through `<reg>_<field>_set`
//! and `_get` and compares the results, and each register's `_RDMASK` and `_WRMASK`, with
//! values this test computes from the map itself (bit ranges and access types). Built as C11
//! and as C++17 with warnings as errors, as scripts/check-headers.sh builds the headers.

use std::fmt::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use rdmagen_outputs::{c_header, Options};
use rdmagen_regmap::{Access, RegMap};

fn maps() -> Vec<RegMap> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut paths: Vec<PathBuf> = ["register-maps", "tb/csr-tests/maps"]
        .iter()
        .flat_map(|d| std::fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    paths.sort();
    assert!(paths.len() >= 10, "{paths:?}");
    let mut maps: Vec<RegMap> = paths
        .iter()
        .map(|p| rdmagen_regmap::load(p).unwrap_or_else(|e| panic!("{e}")))
        .collect();
    // Field edges the maps above lack: a 64-bit field (no bit above it to cut), the top bit of
    // a 64-bit register, a 32-bit field, every access type in one register.
    let edge = "block: edges\nversion: 1.0.0\nregisters:\n\
        \x20 - name: full\n    offset: 0x0\n    width: 64\n    fields: [{ name: v, bits: \"63:0\", access: rw }]\n\
        \x20 - name: top\n    offset: 0x8\n    width: 64\n    fields:\n\
        \x20     - { name: lo, bits: \"31:0\", access: ro }\n\
        \x20     - { name: hi, bits: 63, access: w1c, hw_set: true }\n\
        \x20 - name: word\n    offset: 0x10\n    fields: [{ name: all, bits: \"31:0\", access: wo }]\n\
        \x20 - name: mix\n    offset: 0x14\n    fields:\n\
        \x20     - { name: a, bits: 0, access: rw }\n\
        \x20     - { name: b, bits: 1, access: ro }\n\
        \x20     - { name: c, bits: \"3:2\", access: wo }\n\
        \x20     - { name: d, bits: 4, access: w1c, hw_set: true }\n\
        \x20     - { name: e, bits: 5, access: w1s, hw_clear: true }\n\
        \x20     - { name: f, bits: 6, access: w0c, hw_set: true }\n\
        \x20     - { name: g, bits: \"15:8\", access: rc, counter: {} }\n\
        \x20     - { name: h, bits: 16, access: rs, hw_clear: true }\n\
        \x20     - { name: i, bits: \"30:28\", access: wp }\n\
        \x20     - { name: j, bits: 31, access: wp }\n";
    maps.push(rdmagen_regmap::parse("edges.yaml", edge).unwrap_or_else(|e| panic!("{e}")));
    maps
}

/// Software reads return the field / software writes act on it, by the access table of
/// docs/regmap-format.md (written out here, not taken from the model's helpers).
fn readable(a: Access) -> bool {
    match a {
        Access::Rw | Access::Ro | Access::W1c | Access::W1s | Access::W0c => true,
        Access::Rc | Access::Rs => true,
        Access::Wo | Access::Wp => false,
    }
}

fn writable(a: Access) -> bool {
    match a {
        Access::Rw | Access::Wo | Access::W1c | Access::W1s | Access::W0c | Access::Wp => true,
        Access::Ro | Access::Rc | Access::Rs => false,
    }
}

/// A value per field that differs from field to field (splitmix64).
fn pattern(seed: &mut u64) -> u64 {
    *seed = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *seed;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The test program of one map; the number of checks it makes.
fn program(map: &RegMap) -> (String, usize) {
    let block = map.block.to_uppercase();
    let mut c = String::new();
    let _ = writeln!(c, "#include \"{}.h\"\n#include <stdio.h>\n", map.block);
    c.push_str(
        "static int failures;\n\
         static void check(int ok, const char *what) {\n  \
         if (!ok) { printf(\"FAIL %s\\n\", what); failures++; }\n}\n\n\
         int main(void) {\n",
    );
    let mut checks = 0;
    let mut seed = 1u64;
    for (g, r) in map.registers() {
        let mut reg = block.clone();
        if let Some(g) = g {
            reg.push('_');
            reg.push_str(&g.name.to_uppercase());
        }
        reg.push('_');
        reg.push_str(&r.name.to_uppercase());
        let ty = if r.width == 64 {
            "uint64_t"
        } else {
            "uint32_t"
        };
        let all = if r.width == 64 { u64::MAX } else { 0xffff_ffff };
        let (mut read, mut write, mut every) = (0u64, 0u64, 0u64);
        let mut fields = Vec::new();
        for f in &r.fields {
            let ones = if f.width() == 64 {
                u64::MAX
            } else {
                (1u64 << f.width()) - 1
            };
            let mask = ones << f.lsb;
            every |= mask;
            if readable(f.access) {
                read |= mask;
            }
            if writable(f.access) {
                write |= mask;
            }
            let func = format!("{reg}_{}", f.name.to_uppercase()).to_lowercase();
            fields.push((func, f.lsb, ones, pattern(&mut seed) & ones));
        }
        let _ = writeln!(c, "  {{ /* {reg} */");
        let _ = writeln!(
            c,
            "    check({reg}_RDMASK == {read:#x}ull, \"{reg}_RDMASK\");\n    \
             check({reg}_WRMASK == {write:#x}ull, \"{reg}_WRMASK\");"
        );
        checks += 2;
        // Each field alone: all ones in, its mask out; cleared from all ones, its mask gone.
        for (func, lsb, ones, _) in &fields {
            let mask = ones << lsb;
            let _ = writeln!(
                c,
                "    check({func}_set(({ty})0, ({ty}){all:#x}ull) == {mask:#x}ull, \"{func}_set ones\");\n    \
                 check({func}_set(({ty}){all:#x}ull, ({ty})0) == {:#x}ull, \"{func}_set zero\");\n    \
                 check({func}_get(({ty}){all:#x}ull) == {ones:#x}ull, \"{func}_get ones\");",
                all & !mask
            );
            checks += 3;
        }
        // Every field set in turn in one value, then read back: no field disturbs another.
        let _ = writeln!(c, "    {ty} v = ({ty}){:#x}ull;", all & !every);
        let mut value = all & !every;
        for (func, lsb, _, p) in &fields {
            let _ = writeln!(c, "    v = {func}_set(v, ({ty}){p:#x}ull);");
            value |= p << lsb;
        }
        let _ = writeln!(
            c,
            "    check(v == {value:#x}ull, \"{reg} every field set\");"
        );
        checks += 1;
        for (func, _, _, p) in &fields {
            let _ = writeln!(c, "    check({func}_get(v) == {p:#x}ull, \"{func}_get\");");
            checks += 1;
        }
        // A value wider than the field is cut to it.
        for (func, lsb, ones, _) in &fields {
            if ones.count_ones() < r.width {
                let _ = writeln!(
                    c,
                    "    check({func}_set(({ty})0, ({ty}){:#x}ull) == {:#x}ull, \"{func}_set cuts\");",
                    (ones << 1 | 1) & all,
                    ones << lsb
                );
                checks += 1;
            }
        }
        c.push_str("  }\n");
    }
    let _ = writeln!(
        c,
        "  printf(\"%d failed of {checks}\\n\", failures);\n  return failures != 0;\n}}"
    );
    (c, checks)
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("{what}: cannot run: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{what} failed:\n{text}");
    text
}

#[test]
fn field_helpers_and_masks_compile_and_agree_with_the_map() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("c_helpers");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let opts = Options {
        generator: "rdmagen test".into(),
    };
    let mut total = 0;
    for map in maps() {
        let header = c_header::generate(&map, &opts).unwrap();
        std::fs::write(dir.join(c_header::file_name(&map)), header).unwrap();
        let (text, checks) = program(&map);
        total += checks;
        for (compiler, std, ext) in [("gcc", "-std=c11", "c"), ("g++", "-std=c++17", "cpp")] {
            let src = dir.join(format!("{}_test.{ext}", map.block));
            let exe = dir.join(format!("{}_test_{ext}", map.block));
            std::fs::write(&src, &text).unwrap();
            let what = format!("{compiler} {}", src.display());
            run(
                Command::new(compiler)
                    .args([std, "-Wall", "-Wextra", "-Werror", "-pedantic", "-I"])
                    .arg(&dir)
                    .arg("-o")
                    .arg(&exe)
                    .arg(&src),
                &what,
            );
            let out = run(&mut Command::new(&exe), &format!("{}", exe.display()));
            assert_eq!(out.trim(), format!("0 failed of {checks}"), "{}", map.block);
        }
    }
    assert!(total > 1000, "{total} checks");
}
