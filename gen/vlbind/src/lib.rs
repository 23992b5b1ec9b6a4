//! Verilator bindings generated from the same port description that produces the RTL.
//!
//! A generator builds a [`verilog_ast::Module`]; [`bind`] evaluates its port widths for one set
//! of parameter values and recognises bus interfaces by their port names. The resulting
//! [`Binding`] prints
//!
//! - a C++ shim ([`Binding::cpp_shim`]): `extern "C"` new / ports / eval / tick / trace /
//!   delete functions around one Verilated model with its own `VerilatedContext`, and a
//!   `#[repr(C)]`-compatible table of pointers to the model's port members, and
//! - a Rust module ([`Binding::rust_module`]): the matching `extern` block, a typed struct whose
//!   fields are the ports (`In<u16>`, `Out<u8>`, `OutWide<4>` …), the model type implementing
//!   `rdmagen_harness::Model`, and one view per recognised bus (AXI4-Lite, AXI4 write, AXI4-Stream)
//!   implementing the harness's pin traits, so the bus-functional drivers work on any block.
//!
//! Nothing here parses Verilog: ports, widths and parameters come from the AST.

use std::fmt::Write as _;

use verilog_ast::{BinOp, Dir, Expr, Module, PortItem, ResetStyle};

/// One port with its width evaluated for the binding's parameter values.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BoundPort {
    pub name: String,
    pub dir: Dir,
    pub width: u32,
    pub comment: Option<String>,
}

impl BoundPort {
    /// The C++ storage Verilator uses for the port: `CData`, `SData`, `IData`, `QData` or a
    /// `VlWide` of 32-bit words.
    pub fn storage(&self) -> Storage {
        match self.width {
            0..=8 => Storage::U8,
            9..=16 => Storage::U16,
            17..=32 => Storage::U32,
            33..=64 => Storage::U64,
            w => Storage::Wide(w.div_ceil(32)),
        }
    }
    fn is_input(&self) -> bool {
        self.dir == Dir::Input
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Storage {
    U8,
    U16,
    U32,
    U64,
    /// `VlWide<N>`: N 32-bit words, least significant first.
    Wide(u32),
}

impl Storage {
    fn rust_scalar(self) -> &'static str {
        match self {
            Storage::U8 => "u8",
            Storage::U16 => "u16",
            Storage::U32 | Storage::Wide(_) => "u32",
            Storage::U64 => "u64",
        }
    }
    fn cpp_scalar(self) -> &'static str {
        match self {
            Storage::U8 => "uint8_t",
            Storage::U16 => "uint16_t",
            Storage::U32 | Storage::Wide(_) => "uint32_t",
            Storage::U64 => "uint64_t",
        }
    }
}

/// A bus interface recognised from port names (`<prefix>awaddr`, `<prefix>tvalid`, …).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Bundle {
    pub kind: BundleKind,
    /// The common port-name prefix, such as `s_axil_`.
    pub prefix: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BundleKind {
    /// AXI4-Lite slave: the block receives AW/W/AR and drives B/R.
    AxiLiteSlave,
    /// AXI4 write-only slave with bursts (AW/W/B).
    Axi4WriteSlave,
    /// AXI4-Stream into the block (the block is the sink).
    AxisIn,
    /// AXI4-Stream out of the block (the block is the source).
    AxisOut,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binding {
    /// Unique name of this model variant: C symbols, Verilator prefix and Rust type derive
    /// from it, so several variants of one module link into one binary.
    pub id: String,
    /// The Verilog module name.
    pub top: String,
    pub reset: ResetStyle,
    /// Every module parameter with the value this variant is built with.
    pub params: Vec<(String, i64)>,
    pub ports: Vec<BoundPort>,
    pub bundles: Vec<Bundle>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum BindError {
    UnknownParameter(String),
    /// A port width that is not a constant expression of the parameters.
    NotConstant {
        port: String,
        what: String,
    },
    BadWidth {
        port: String,
        width: i64,
    },
    NoClock,
    BadId(String),
}

impl std::fmt::Display for BindError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BindError::UnknownParameter(p) => write!(f, "the module has no parameter `{p}`"),
            BindError::NotConstant { port, what } => {
                write!(f, "port `{port}`: width is not constant ({what})")
            }
            BindError::BadWidth { port, width } => {
                write!(f, "port `{port}`: width {width} is outside 1..=65536")
            }
            BindError::NoClock => write!(f, "the module has no `clk` input"),
            BindError::BadId(id) => {
                write!(f, "binding id `{id}` must be snake_case ([a-z][a-z0-9_]*)")
            }
        }
    }
}

impl std::error::Error for BindError {}

/// Evaluates the module's ports for `overrides` (other parameters keep their defaults).
pub fn bind(module: &Module, id: &str, overrides: &[(&str, i64)]) -> Result<Binding, BindError> {
    let id_ok = id.starts_with(|c: char| c.is_ascii_lowercase())
        && id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    if !id_ok {
        return Err(BindError::BadId(id.to_string()));
    }
    for (name, _) in overrides {
        if !module.params.iter().any(|p| p.name == *name) {
            return Err(BindError::UnknownParameter(name.to_string()));
        }
    }
    let mut params: Vec<(String, i64)> = Vec::new();
    for p in &module.params {
        let value = match overrides.iter().find(|(n, _)| *n == p.name) {
            Some((_, v)) => *v,
            None => eval(&p.default, &params).map_err(|what| BindError::NotConstant {
                port: p.name.clone(),
                what,
            })?,
        };
        params.push((p.name.clone(), value));
    }
    let mut ports = Vec::new();
    for item in &module.ports {
        let PortItem::Port(p) = item else { continue };
        let width = match &p.range {
            None => 1,
            Some(r) => {
                let not_const = |what| BindError::NotConstant {
                    port: p.name.clone(),
                    what,
                };
                let msb = eval(&r.msb, &params).map_err(not_const)?;
                let lsb = eval(&r.lsb, &params).map_err(not_const)?;
                msb - lsb + 1
            }
        };
        if !(1..=65536).contains(&width) {
            return Err(BindError::BadWidth {
                port: p.name.clone(),
                width,
            });
        }
        ports.push(BoundPort {
            name: p.name.clone(),
            dir: p.dir,
            width: width as u32,
            comment: p.comment.clone(),
        });
    }
    if !ports.iter().any(|p| p.name == "clk" && p.is_input()) {
        return Err(BindError::NoClock);
    }
    let bundles = find_bundles(&ports);
    Ok(Binding {
        id: id.to_string(),
        top: module.name.clone(),
        reset: module.reset,
        params,
        ports,
        bundles,
    })
}

/// Constant evaluation of the parameter arithmetic generators put in ranges.
fn eval(e: &Expr, params: &[(String, i64)]) -> Result<i64, String> {
    match e {
        Expr::Int(v) => Ok(*v),
        Expr::Num { value, .. } => i64::try_from(*value).map_err(|_| "literal too large".into()),
        Expr::Ident(n) => params
            .iter()
            .find(|(p, _)| p == n)
            .map(|(_, v)| *v)
            .ok_or_else(|| format!("`{n}` is not a parameter")),
        Expr::Binary(op, a, b) => {
            let (a, b) = (eval(a, params)?, eval(b, params)?);
            let r = match op {
                BinOp::Add => a.checked_add(b),
                BinOp::Sub => a.checked_sub(b),
                BinOp::Mul => a.checked_mul(b),
                BinOp::Shl => u32::try_from(b).ok().and_then(|b| a.checked_shl(b)),
                BinOp::Shr => u32::try_from(b).ok().and_then(|b| a.checked_shr(b)),
                _ => return Err(format!("operator `{op:?}`")),
            };
            r.ok_or_else(|| "arithmetic overflow".into())
        }
        other => Err(format!("expression {other:?}")),
    }
}

const AXIL: &[(&str, Dir)] = &[
    ("awaddr", Dir::Input),
    ("awvalid", Dir::Input),
    ("awready", Dir::Output),
    ("wdata", Dir::Input),
    ("wstrb", Dir::Input),
    ("wvalid", Dir::Input),
    ("wready", Dir::Output),
    ("bresp", Dir::Output),
    ("bvalid", Dir::Output),
    ("bready", Dir::Input),
    ("araddr", Dir::Input),
    ("arvalid", Dir::Input),
    ("arready", Dir::Output),
    ("rdata", Dir::Output),
    ("rresp", Dir::Output),
    ("rvalid", Dir::Output),
    ("rready", Dir::Input),
];

const AXI4_WRITE: &[(&str, Dir)] = &[
    ("awaddr", Dir::Input),
    ("awlen", Dir::Input),
    ("awsize", Dir::Input),
    ("awburst", Dir::Input),
    ("awvalid", Dir::Input),
    ("awready", Dir::Output),
    ("wdata", Dir::Input),
    ("wstrb", Dir::Input),
    ("wlast", Dir::Input),
    ("wvalid", Dir::Input),
    ("wready", Dir::Output),
    ("bresp", Dir::Output),
    ("bvalid", Dir::Output),
    ("bready", Dir::Input),
];

fn find_bundles(ports: &[BoundPort]) -> Vec<Bundle> {
    let has = |name: &str, dir: Dir| ports.iter().any(|p| p.name == name && p.dir == dir);
    let mut out = Vec::new();
    for p in ports {
        if let Some(prefix) = p.name.strip_suffix("awaddr") {
            let all =
                |set: &[(&str, Dir)]| set.iter().all(|(s, d)| has(&format!("{prefix}{s}"), *d));
            if all(AXI4_WRITE) {
                out.push(Bundle {
                    kind: BundleKind::Axi4WriteSlave,
                    prefix: prefix.to_string(),
                });
            } else if all(AXIL) {
                out.push(Bundle {
                    kind: BundleKind::AxiLiteSlave,
                    prefix: prefix.to_string(),
                });
            }
        }
        if let Some(prefix) = p.name.strip_suffix("tvalid") {
            let opposite = match p.dir {
                Dir::Input => Dir::Output,
                Dir::Output => Dir::Input,
            };
            if has(&format!("{prefix}tdata"), p.dir) && has(&format!("{prefix}tready"), opposite) {
                out.push(Bundle {
                    kind: match p.dir {
                        Dir::Input => BundleKind::AxisIn,
                        Dir::Output => BundleKind::AxisOut,
                    },
                    prefix: prefix.to_string(),
                });
            }
        }
    }
    out
}

/// `example_csr_sync` → `ExampleCsrSync`.
pub fn camel(id: &str) -> String {
    id.split('_')
        .filter(|s| !s.is_empty())
        .map(|s| {
            let mut c = s.chars();
            match c.next() {
                Some(f) => f.to_ascii_uppercase().to_string() + c.as_str(),
                None => String::new(),
            }
        })
        .collect()
}

impl Binding {
    /// The class Verilator generates (`--prefix`): `V<id>`.
    pub fn verilator_prefix(&self) -> String {
        format!("V{}", self.id)
    }

    /// `-G` options for the parameter values of this variant.
    pub fn verilator_param_args(&self) -> Vec<String> {
        self.params
            .iter()
            .map(|(n, v)| format!("-G{n}={v}"))
            .collect()
    }

    fn sym(&self, f: &str) -> String {
        format!("rdmagen_{}_{f}", self.id)
    }

    fn port(&self, name: &str) -> Option<&BoundPort> {
        self.ports.iter().find(|p| p.name == name)
    }

    fn param_text(&self) -> String {
        if self.params.is_empty() {
            "no parameters".into()
        } else {
            self.params
                .iter()
                .map(|(n, v)| format!("{n} = {v}"))
                .collect::<Vec<_>>()
                .join(", ")
        }
    }

    /// The C++ shim: one `VerilatedContext` per instance, a pointer table of the ports, and
    /// `tick` inside C++ so a clock edge costs one FFI call.
    pub fn cpp_shim(&self) -> String {
        let v = self.verilator_prefix();
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Verilator shim of `{}` ({}), generated by rdmagen-vlbind. Do not edit.",
            self.top,
            self.param_text()
        );
        s.push_str("#include <cstdint>\n#include <memory>\n\n");
        s.push_str("#include \"verilated.h\"\n#include \"verilated_fst_c.h\"\n");
        let _ = writeln!(s, "#include \"{v}.h\"\n");
        s.push_str("namespace {\nstruct Inst {\n");
        s.push_str("  std::unique_ptr<VerilatedContext> ctx;\n");
        let _ = writeln!(s, "  std::unique_ptr<{v}> top;");
        s.push_str("  std::unique_ptr<VerilatedFstC> fst;\n");
        s.push_str("  uint64_t half = 0;  // half clock periods since construction: trace time\n");
        s.push_str(
            "  uint64_t dumped = ~0ull;  // time of the last dump: one dump per time step\n",
        );
        s.push_str("};\n}  // namespace\n\n");
        s.push_str("// Field order and types match the Rust #[repr(C)] table.\n");
        let _ = writeln!(s, "struct {} {{", self.sym("ptrs"));
        for p in &self.ports {
            let _ = writeln!(s, "  {}* {};", p.storage().cpp_scalar(), p.name);
        }
        s.push_str("};\n\nextern \"C\" {\n\n");
        let _ = writeln!(s, "void* {}() {{", self.sym("new"));
        s.push_str("  Inst* i = new Inst;\n  i->ctx.reset(new VerilatedContext);\n");
        s.push_str("  i->ctx->traceEverOn(true);\n");
        let _ = writeln!(s, "  i->top.reset(new {v}(i->ctx.get(), \"TOP\"));");
        s.push_str("  return i;\n}\n\n");
        let _ = writeln!(
            s,
            "void {}(void* p, {}* o) {{",
            self.sym("ports"),
            self.sym("ptrs")
        );
        let _ = writeln!(s, "  {v}& t = *static_cast<Inst*>(p)->top;");
        for p in &self.ports {
            match p.storage() {
                Storage::Wide(_) => {
                    let _ = writeln!(s, "  o->{0} = &t.{0}[0];", p.name);
                }
                _ => {
                    let _ = writeln!(s, "  o->{0} = &t.{0};", p.name);
                }
            }
        }
        s.push_str("}\n\n");
        let _ = writeln!(s, "void {}(void* p) {{", self.sym("eval"));
        s.push_str("  Inst* i = static_cast<Inst*>(p);\n  i->top->eval();\n");
        s.push_str(
            "  if (i->fst && i->dumped != i->half) i->fst->dump(i->dumped = i->half);\n}\n\n",
        );
        s.push_str(
            "// Rising edge, then clk back to 0 without an eval: the next eval (after the\n",
        );
        s.push_str("// testbench drives new inputs) settles both.\n");
        let _ = writeln!(s, "void {}(void* p) {{", self.sym("tick"));
        s.push_str("  Inst* i = static_cast<Inst*>(p);\n  i->top->clk = 1;\n");
        s.push_str("  i->ctx->time(++i->half);\n  i->top->eval();\n");
        s.push_str("  if (i->fst) i->fst->dump(i->dumped = i->half);\n");
        s.push_str("  i->top->clk = 0;\n  i->ctx->time(++i->half);\n}\n\n");
        let _ = writeln!(
            s,
            "int {}(void* p, const char* path) {{",
            self.sym("trace_open")
        );
        s.push_str("  Inst* i = static_cast<Inst*>(p);\n  if (i->fst) return -1;\n");
        s.push_str("  i->fst.reset(new VerilatedFstC);\n  i->top->trace(i->fst.get(), 99);\n");
        s.push_str(
            "  i->fst->open(path);\n  if (!i->fst->isOpen()) { i->fst.reset(); return -1; }\n",
        );
        s.push_str("  return 0;\n}\n\n");
        let _ = writeln!(s, "void {}(void* p) {{", self.sym("trace_close"));
        s.push_str("  Inst* i = static_cast<Inst*>(p);\n");
        s.push_str("  if (i->fst) { i->fst->close(); i->fst.reset(); }\n}\n\n");
        let _ = writeln!(s, "void {}(void* p) {{", self.sym("delete"));
        s.push_str("  Inst* i = static_cast<Inst*>(p);\n");
        s.push_str("  if (i->fst) i->fst->close();\n  i->top->final();\n  delete i;\n}\n\n");
        s.push_str("}  // extern \"C\"\n");
        s
    }

    /// The Rust side: `include!` it in a crate that depends on `rdmagen-harness`.
    pub fn rust_module(&self) -> String {
        let ty = camel(&self.id);
        let ports_ty = format!("{ty}Ports");
        let ptrs_ty = format!("{ty}PortPtrs");
        let mut s = String::new();
        let _ = writeln!(
            s,
            "// Rust binding of `{}` ({}), generated by rdmagen-vlbind. Do not edit.\n",
            self.top,
            self.param_text()
        );
        // The pointer table.
        s.push_str("#[repr(C)]\n");
        let _ = writeln!(s, "struct {ptrs_ty} {{");
        for p in &self.ports {
            let _ = writeln!(s, "    {}: *mut {},", p.name, p.storage().rust_scalar());
        }
        s.push_str("}\n\n");
        s.push_str("extern \"C\" {\n");
        let _ = writeln!(
            s,
            "    fn {}() -> *mut ::core::ffi::c_void;",
            self.sym("new")
        );
        let _ = writeln!(
            s,
            "    fn {}(m: *mut ::core::ffi::c_void, out: *mut {ptrs_ty});",
            self.sym("ports")
        );
        for f in ["eval", "tick", "trace_close", "delete"] {
            let _ = writeln!(s, "    fn {}(m: *mut ::core::ffi::c_void);", self.sym(f));
        }
        let _ = writeln!(
            s,
            "    fn {}(m: *mut ::core::ffi::c_void, path: *const ::core::ffi::c_char) -> ::core::ffi::c_int;",
            self.sym("trace_open")
        );
        s.push_str("}\n\n");

        // The typed port struct.
        let _ = writeln!(
            s,
            "/// Ports of `{}` ({}): one field per port, in declaration order.",
            self.top,
            self.param_text()
        );
        let _ = writeln!(s, "pub struct {ports_ty} {{");
        for p in &self.ports {
            let dir = if p.is_input() { "input" } else { "output" };
            let doc = match &p.comment {
                Some(c) => format!("{dir}, {} bit(s): `{}`", p.width, c.replace('`', "'")),
                None => format!("{dir}, {} bit(s)", p.width),
            };
            let _ = writeln!(s, "    /// {doc}");
            let _ = writeln!(s, "    pub {}: {},", p.name, handle_type(p));
        }
        s.push_str("}\n\n");

        // The model.
        let _ = writeln!(
            s,
            "/// A Verilated `{}` with its own `VerilatedContext`. Not `Send`: Verilator wants a\n/// model constructed and evaluated on one thread.",
            self.top
        );
        let _ = writeln!(s, "pub struct {ty} {{");
        s.push_str("    raw: ::core::ptr::NonNull<::core::ffi::c_void>,\n");
        let _ = writeln!(s, "    /// The ports.\n    pub p: {ports_ty},");
        s.push_str("}\n\n");
        let _ = writeln!(s, "impl {ty} {{");
        s.push_str("    /// A new instance with every input at 0 (not yet reset).\n");
        s.push_str("    #[allow(clippy::new_without_default)]\n");
        s.push_str("    pub fn new() -> Self {\n");
        let _ = writeln!(
            s,
            "        let raw = ::core::ptr::NonNull::new(unsafe {{ {}() }}).expect(\"Verilated model allocation\");",
            self.sym("new")
        );
        let _ = writeln!(
            s,
            "        let mut t = ::core::mem::MaybeUninit::<{ptrs_ty}>::uninit();"
        );
        let _ = writeln!(
            s,
            "        // SAFETY: the shim fills every field of the table with a pointer into the model."
        );
        let _ = writeln!(
            s,
            "        let t = unsafe {{ {}(raw.as_ptr(), t.as_mut_ptr()); t.assume_init() }};",
            self.sym("ports")
        );
        s.push_str("        // SAFETY: the pointers live as long as the model, which owns these handles.\n");
        let _ = writeln!(s, "        let p = unsafe {{ {ports_ty} {{");
        for p in &self.ports {
            let ctor = match (p.is_input(), p.storage()) {
                (true, Storage::Wide(_)) => "InWide::from_raw",
                (false, Storage::Wide(_)) => "OutWide::from_raw",
                (true, _) => "In::from_raw",
                (false, _) => "Out::from_raw",
            };
            let _ = writeln!(
                s,
                "            {0}: ::rdmagen_harness::port::{ctor}(t.{0}, {1}),",
                p.name, p.width
            );
        }
        s.push_str("        } };\n");
        let _ = writeln!(s, "        {ty} {{ raw, p }}");
        s.push_str("    }\n");
        // Bundle views.
        for b in &self.bundles {
            let (view, doc) = self.bundle_view_names(b);
            let method = b.prefix.trim_end_matches('_');
            let _ = writeln!(
                s,
                "\n    /// {doc} `{}*` as the harness's pin trait.\n    pub fn {method}(&self) -> {view}<'_> {{\n        {view}(&self.p)\n    }}",
                b.prefix
            );
        }
        s.push_str("}\n\n");

        let _ = writeln!(s, "impl Drop for {ty} {{");
        let _ = writeln!(
            s,
            "    fn drop(&mut self) {{\n        unsafe {{ {}(self.raw.as_ptr()) }}\n    }}\n}}\n",
            self.sym("delete")
        );

        let _ = writeln!(s, "impl ::rdmagen_harness::Model for {ty} {{");
        let _ = writeln!(s, "    const MODULE: &'static str = \"{}\";", self.top);
        let _ = writeln!(s, "    const VARIANT: &'static str = \"{}\";", self.id);
        s.push_str("    const PARAMS: &'static [(&'static str, i64)] = &[");
        for (n, v) in &self.params {
            let _ = write!(s, "(\"{n}\", {v}), ");
        }
        s.push_str("];\n");
        s.push_str("    const PORTS: &'static [::rdmagen_harness::PortInfo] = &[\n");
        for p in &self.ports {
            let _ = writeln!(
                s,
                "        ::rdmagen_harness::PortInfo {{ name: \"{}\", input: {}, width: {} }},",
                p.name,
                p.is_input(),
                p.width
            );
        }
        s.push_str("    ];\n");
        s.push_str("    fn create() -> Self {\n        Self::new()\n    }\n");
        let _ = writeln!(
            s,
            "    fn eval(&mut self) {{\n        unsafe {{ {}(self.raw.as_ptr()) }}\n    }}",
            self.sym("eval")
        );
        let _ = writeln!(
            s,
            "    fn tick(&mut self) {{\n        unsafe {{ {}(self.raw.as_ptr()) }}\n    }}",
            self.sym("tick")
        );
        let (rst, level) = match self.reset {
            ResetStyle::SyncHigh => ("rst", "asserted"),
            ResetStyle::AsyncLow => ("rst_n", "!asserted"),
        };
        let _ = writeln!(
            s,
            "    fn set_reset(&mut self, asserted: bool) {{\n        self.p.{rst}.set_bool({level});\n    }}"
        );
        s.push_str("    fn zero_inputs(&mut self) {\n");
        for p in self
            .ports
            .iter()
            .filter(|p| p.is_input() && p.name != "clk")
        {
            let _ = writeln!(s, "        self.p.{}.clear();", p.name);
        }
        s.push_str("    }\n");
        let _ = writeln!(
            s,
            "    fn trace_open(&mut self, path: &::std::path::Path) -> ::std::io::Result<()> {{\n        let c = ::rdmagen_harness::c_path(path)?;\n        match unsafe {{ {}(self.raw.as_ptr(), c.as_ptr()) }} {{\n            0 => Ok(()),\n            _ => Err(::std::io::Error::other(format!(\"cannot open FST trace {{}}\", path.display()))),\n        }}\n    }}",
            self.sym("trace_open")
        );
        let _ = writeln!(
            s,
            "    fn trace_close(&mut self) {{\n        unsafe {{ {}(self.raw.as_ptr()) }}\n    }}",
            self.sym("trace_close")
        );
        s.push_str("    fn port(&self, name: &str) -> Option<::rdmagen_harness::DynPort<'_>> {\n");
        s.push_str("        Some(match name {\n");
        for p in &self.ports {
            let _ = writeln!(s, "            \"{0}\" => self.p.{0}.dynamic(),", p.name);
        }
        s.push_str("            _ => return None,\n        })\n    }\n}\n");

        for b in &self.bundles {
            s.push('\n');
            s.push_str(&self.bundle_impl(b, &ports_ty));
        }
        let axil: Vec<&Bundle> = self
            .bundles
            .iter()
            .filter(|b| b.kind == BundleKind::AxiLiteSlave)
            .collect();
        if let [b] = axil[..] {
            let (view, _) = self.bundle_view_names(b);
            let method = b.prefix.trim_end_matches('_');
            let _ = writeln!(
                s,
                "\nimpl ::rdmagen_harness::HasAxiLite for {ty} {{\n    type Pins<'a> = {view}<'a>;\n    fn axil(&self) -> {view}<'_> {{\n        self.{method}()\n    }}\n}}"
            );
        }
        s
    }

    fn bundle_view_names(&self, b: &Bundle) -> (String, &'static str) {
        let ty = camel(&self.id);
        let view = format!("{ty}{}", camel(b.prefix.trim_end_matches('_')));
        let doc = match b.kind {
            BundleKind::AxiLiteSlave => "The AXI4-Lite slave",
            BundleKind::Axi4WriteSlave => "The AXI4 write slave",
            BundleKind::AxisIn => "The AXI4-Stream input",
            BundleKind::AxisOut => "The AXI4-Stream output",
        };
        (view, doc)
    }

    fn bundle_impl(&self, b: &Bundle, ports_ty: &str) -> String {
        let (view, doc) = self.bundle_view_names(b);
        let pre = &b.prefix;
        let has = |s: &str| self.port(&format!("{pre}{s}")).is_some();
        let width = |s: &str| self.port(&format!("{pre}{s}")).map_or(0, |p| p.width);
        let mut s = String::new();
        let _ = writeln!(s, "/// {doc} `{pre}*` of `{}`.", self.top);
        let _ = writeln!(s, "pub struct {view}<'a>(&'a {ports_ty});\n");
        let opt_set = |s: &mut String, port: &str, value: &str| {
            if has(port) {
                let _ = writeln!(s, "        self.0.{pre}{port}.set_u64({value});");
            }
        };
        match b.kind {
            BundleKind::AxiLiteSlave => {
                let _ = writeln!(
                    s,
                    "impl ::rdmagen_harness::axil::AxiLitePins for {view}<'_> {{"
                );
                let _ = writeln!(
                    s,
                    "    fn data_bytes(&self) -> usize {{\n        {}\n    }}",
                    width("wdata") / 8
                );
                s.push_str("    fn set_aw(&self, valid: bool, addr: u64) {\n");
                let _ = writeln!(s, "        self.0.{pre}awvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}awaddr.set_u64(addr);");
                opt_set(&mut s, "awprot", "0");
                s.push_str("    }\n");
                s.push_str("    fn set_w(&self, valid: bool, data: u64, strb: u8) {\n");
                let _ = writeln!(s, "        self.0.{pre}wvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}wdata.set_u64(data);");
                let _ = writeln!(s, "        self.0.{pre}wstrb.set_u64(u64::from(strb));");
                s.push_str("    }\n");
                let _ = writeln!(
                    s,
                    "    fn set_bready(&self, ready: bool) {{\n        self.0.{pre}bready.set_bool(ready);\n    }}"
                );
                s.push_str("    fn set_ar(&self, valid: bool, addr: u64) {\n");
                let _ = writeln!(s, "        self.0.{pre}arvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}araddr.set_u64(addr);");
                opt_set(&mut s, "arprot", "0");
                s.push_str("    }\n");
                let _ = writeln!(
                    s,
                    "    fn set_rready(&self, ready: bool) {{\n        self.0.{pre}rready.set_bool(ready);\n    }}"
                );
                for ch in ["awready", "wready", "arready"] {
                    let _ = writeln!(
                        s,
                        "    fn {ch}(&self) -> bool {{\n        self.0.{pre}{ch}.is_high()\n    }}"
                    );
                }
                let _ = writeln!(
                    s,
                    "    fn b(&self) -> Option<u8> {{\n        self.0.{pre}bvalid.is_high().then(|| self.0.{pre}bresp.get_u64() as u8)\n    }}"
                );
                let _ = writeln!(
                    s,
                    "    fn r(&self) -> Option<(u64, u8)> {{\n        self.0.{pre}rvalid\n            .is_high()\n            .then(|| (self.0.{pre}rdata.get_u64(), self.0.{pre}rresp.get_u64() as u8))\n    }}"
                );
                s.push_str("}\n");
            }
            BundleKind::Axi4WriteSlave => {
                let _ = writeln!(
                    s,
                    "impl ::rdmagen_harness::axi4::Axi4WritePins for {view}<'_> {{"
                );
                let _ = writeln!(
                    s,
                    "    fn data_bytes(&self) -> usize {{\n        {}\n    }}",
                    width("wdata") / 8
                );
                s.push_str(
                    "    fn set_aw(&self, valid: bool, aw: &::rdmagen_harness::axi4::AwBeat) {\n",
                );
                let _ = writeln!(s, "        self.0.{pre}awvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}awaddr.set_u64(aw.addr);");
                let _ = writeln!(s, "        self.0.{pre}awlen.set_u64(u64::from(aw.len));");
                let _ = writeln!(s, "        self.0.{pre}awsize.set_u64(u64::from(aw.size));");
                let _ = writeln!(
                    s,
                    "        self.0.{pre}awburst.set_u64(u64::from(aw.burst));"
                );
                opt_set(&mut s, "awid", "u64::from(aw.id)");
                opt_set(&mut s, "awprot", "0");
                opt_set(&mut s, "awcache", "0");
                opt_set(&mut s, "awlock", "0");
                s.push_str("    }\n");
                s.push_str(
                    "    fn set_w(&self, valid: bool, data: &[u32], strb: u128, last: bool) {\n",
                );
                let _ = writeln!(s, "        self.0.{pre}wvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}wdata.set_words(data);");
                let _ = writeln!(s, "        self.0.{pre}wstrb.set_u128(strb);");
                let _ = writeln!(s, "        self.0.{pre}wlast.set_bool(last);");
                s.push_str("    }\n");
                let _ = writeln!(
                    s,
                    "    fn set_bready(&self, ready: bool) {{\n        self.0.{pre}bready.set_bool(ready);\n    }}"
                );
                for ch in ["awready", "wready"] {
                    let _ = writeln!(
                        s,
                        "    fn {ch}(&self) -> bool {{\n        self.0.{pre}{ch}.is_high()\n    }}"
                    );
                }
                let bid = if has("bid") {
                    format!("self.0.{pre}bid.get_u64() as u32")
                } else {
                    "0".into()
                };
                let _ = writeln!(
                    s,
                    "    fn b(&self) -> Option<(u32, u8)> {{\n        self.0.{pre}bvalid.is_high().then(|| ({bid}, self.0.{pre}bresp.get_u64() as u8))\n    }}"
                );
                s.push_str("}\n");
            }
            BundleKind::AxisIn => {
                let _ = writeln!(
                    s,
                    "impl ::rdmagen_harness::axis::AxisInPins for {view}<'_> {{"
                );
                let _ = writeln!(
                    s,
                    "    fn data_bytes(&self) -> usize {{\n        {}\n    }}",
                    width("tdata").div_ceil(8)
                );
                s.push_str(
                    "    fn set_beat(&self, valid: bool, beat: &::rdmagen_harness::axis::Beat) {\n",
                );
                let _ = writeln!(s, "        self.0.{pre}tvalid.set_bool(valid);");
                let _ = writeln!(s, "        self.0.{pre}tdata.set_words(&beat.data);");
                if has("tkeep") {
                    let _ = writeln!(s, "        self.0.{pre}tkeep.set_u128(beat.keep);");
                }
                if has("tlast") {
                    let _ = writeln!(s, "        self.0.{pre}tlast.set_bool(beat.last);");
                }
                opt_set(&mut s, "tuser", "beat.user");
                s.push_str("    }\n");
                let _ = writeln!(
                    s,
                    "    fn ready(&self) -> bool {{\n        self.0.{pre}tready.is_high()\n    }}"
                );
                s.push_str("}\n");
            }
            BundleKind::AxisOut => {
                let _ = writeln!(
                    s,
                    "impl ::rdmagen_harness::axis::AxisOutPins for {view}<'_> {{"
                );
                let _ = writeln!(
                    s,
                    "    fn data_bytes(&self) -> usize {{\n        {}\n    }}",
                    width("tdata").div_ceil(8)
                );
                let _ = writeln!(
                    s,
                    "    fn set_ready(&self, ready: bool) {{\n        self.0.{pre}tready.set_bool(ready);\n    }}"
                );
                let _ = writeln!(
                    s,
                    "    fn valid(&self) -> bool {{\n        self.0.{pre}tvalid.is_high()\n    }}"
                );
                s.push_str("    fn read_beat(&self, beat: &mut ::rdmagen_harness::axis::Beat) {\n");
                let _ = writeln!(s, "        self.0.{pre}tdata.get_words(&mut beat.data);");
                let keep = if has("tkeep") {
                    format!("self.0.{pre}tkeep.get_u128()")
                } else {
                    "::rdmagen_harness::axis::all_bytes(self.data_bytes())".into()
                };
                let _ = writeln!(s, "        beat.keep = {keep};");
                let last = if has("tlast") {
                    format!("self.0.{pre}tlast.is_high()")
                } else {
                    "true".into()
                };
                let _ = writeln!(s, "        beat.last = {last};");
                let user = if has("tuser") {
                    format!("self.0.{pre}tuser.get_u64()")
                } else {
                    "0".into()
                };
                let _ = writeln!(s, "        beat.user = {user};");
                s.push_str("    }\n}\n");
            }
        }
        s
    }
}

fn handle_type(p: &BoundPort) -> String {
    let base = if p.is_input() { "In" } else { "Out" };
    match p.storage() {
        Storage::Wide(n) => format!("::rdmagen_harness::port::{base}Wide<{n}>"),
        st => format!("::rdmagen_harness::port::{base}<{}>", st.rust_scalar()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use verilog_ast::{Param, Port, Range};

    fn module() -> Module {
        let mut ports = vec![
            PortItem::Port(Port::input("clk", None)),
            PortItem::Port(Port::input("rst", None)),
        ];
        for (n, w, input) in [
            ("s_axil_awaddr", 9, true),
            ("s_axil_awvalid", 1, true),
            ("s_axil_awready", 1, false),
            ("s_axil_wdata", 32, true),
            ("s_axil_wstrb", 4, true),
            ("s_axil_wvalid", 1, true),
            ("s_axil_wready", 1, false),
            ("s_axil_bresp", 2, false),
            ("s_axil_bvalid", 1, false),
            ("s_axil_bready", 1, true),
            ("s_axil_araddr", 9, true),
            ("s_axil_arvalid", 1, true),
            ("s_axil_arready", 1, false),
            ("s_axil_rdata", 32, false),
            ("s_axil_rresp", 2, false),
            ("s_axil_rvalid", 1, false),
            ("s_axil_rready", 1, true),
            ("m_axis_tdata", 512, false),
            ("m_axis_tkeep", 64, false),
            ("m_axis_tvalid", 1, false),
            ("m_axis_tready", 1, true),
        ] {
            let r = Range::bits(w);
            ports.push(PortItem::Port(if input {
                Port::input(n, r)
            } else {
                Port::output(n, r)
            }));
        }
        ports.push(PortItem::Port(Port::output(
            "vf_en_o",
            Some(Range::width(Expr::times(Expr::id("NUM_VF"), Expr::int(3)))),
        )));
        Module {
            name: "blk".into(),
            header: vec![],
            params: vec![Param {
                name: "NUM_VF".into(),
                default: Expr::int(4),
                comment: None,
            }],
            ports,
            items: vec![],
            reset: ResetStyle::SyncHigh,
        }
    }

    #[test]
    fn widths_follow_parameters() {
        let b = bind(&module(), "blk_a", &[("NUM_VF", 40)]).unwrap();
        let p = b.ports.iter().find(|p| p.name == "vf_en_o").unwrap();
        assert_eq!(p.width, 120);
        assert_eq!(p.storage(), Storage::Wide(4));
        let d = bind(&module(), "blk_b", &[]).unwrap();
        assert_eq!(
            d.ports.iter().find(|p| p.name == "vf_en_o").unwrap().width,
            12
        );
        assert_eq!(d.verilator_param_args(), vec!["-GNUM_VF=4".to_string()]);
    }

    #[test]
    fn recognises_bundles() {
        let b = bind(&module(), "blk_a", &[]).unwrap();
        assert_eq!(
            b.bundles,
            vec![
                Bundle {
                    kind: BundleKind::AxiLiteSlave,
                    prefix: "s_axil_".into()
                },
                Bundle {
                    kind: BundleKind::AxisOut,
                    prefix: "m_axis_".into()
                },
            ]
        );
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            bind(&module(), "blk", &[("NUM_PF", 1)]),
            Err(BindError::UnknownParameter("NUM_PF".into()))
        );
        assert_eq!(
            bind(&module(), "Blk", &[]),
            Err(BindError::BadId("Blk".into()))
        );
        assert!(matches!(
            bind(&module(), "blk", &[("NUM_VF", 0)]),
            Err(BindError::BadWidth { .. })
        ));
    }

    #[test]
    fn shim_and_rust_agree_on_the_table() {
        let b = bind(&module(), "blk_a", &[]).unwrap();
        let cpp = b.cpp_shim();
        let rs = b.rust_module();
        // Same fields in the same order on both sides of the FFI.
        let cpp_fields: Vec<&str> = cpp
            .lines()
            .skip_while(|l| !l.starts_with("struct rdmagen_blk_a_ptrs"))
            .skip(1)
            .take_while(|l| !l.starts_with('}'))
            .map(|l| l.trim().trim_end_matches(';').rsplit(' ').next().unwrap())
            .collect();
        let rs_fields: Vec<&str> = rs
            .lines()
            .skip_while(|l| !l.starts_with("struct BlkAPortPtrs"))
            .skip(1)
            .take_while(|l| !l.starts_with('}'))
            .map(|l| l.trim().split(':').next().unwrap())
            .collect();
        assert_eq!(cpp_fields, rs_fields);
        assert_eq!(cpp_fields.len(), b.ports.len());
        assert!(cpp.contains("uint32_t* m_axis_tdata;"));
        assert!(cpp.contains("o->m_axis_tdata = &t.m_axis_tdata[0];"));
        assert!(rs.contains("pub m_axis_tdata: ::rdmagen_harness::port::OutWide<16>,"));
        assert!(rs.contains("pub s_axil_awaddr: ::rdmagen_harness::port::In<u16>,"));
        assert!(rs.contains("impl ::rdmagen_harness::axis::AxisOutPins for BlkAMAxis<'_>"));
    }
}
