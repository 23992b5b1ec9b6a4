#![doc = svgbobdoc::transform!(
//! The CSR block generator: a validated register map in, one AXI4-Lite slave module out.
//!
//! ```svgbob
//!            AXI4-Lite                        +-----------------------------+
//!  AW+W ---> wr_en ---> write decode -------->| field next-state, map order |---> "*_o" ports
//!                       (case on address,     | SW write / read effect,     |
//!                        group windows)       | then HW load/clear/set/count|<--- "*_i" ports
//!  B  <---- bvalid_q, bresp_q                 +-----------------------------+
//!  AR ---> rd_en ---> read decode + mux ----> rvalid_q, rdata_q, rresp_q ---> R
//!                      64-bit: latch high half      groups: generate loop per element
//! ```
//!
//! AWREADY, WREADY and ARREADY are flops (`wr_rdy_q`, `rd_rdy_q`): AXI allows no combinational
//! path from a subordinate's inputs to its outputs. Each rises the cycle after its valids (and
//! room for the response or in the decode stage) and stays high one cycle, in which the transfer
//! is taken: a write or read every two cycles, and from the handshake on the timing is the same
//! as when the readies followed the valids combinationally.
//!
//! The generated module has one `always @*` for the decode and the top-level fields (defaults
//! first), one flop block (`reset` then `q <= d`), and one generate loop per register group
//! whose bound is a module parameter, so its size does not grow with the element count.
)]

mod interface;

pub use interface::{interface, ElementCount, Interface, ModuleParameter, ModulePort, PortWidth};
use rdmagen_regmap::text::{push_decimal, push_hex, push_upper};
use std::borrow::Cow;
use std::collections::HashMap;

use rdmagen_regmap::{
    field_port_count, field_ports, Access, Count, Field, Group, Item, RegMap, Register,
};
use verilog_ast::{
    BinOp, Decl, DeclTable, Expr, Flop, Item as V, Module, Param, Port, PortItem, PrintedAssigns,
    PrintedFlops, PrintedStmts, Range, ResetStyle, Stmt, UnOp,
};

/// Generator settings that are not part of the map.
#[derive(Clone, Debug)]
pub struct Options {
    pub reset: ResetStyle,
    /// Name and version of the generator, written into the file header.
    pub generator: String,
}

/// The module name of a map's CSR block.
pub fn module_name(map: &RegMap) -> String {
    format!("{}_csr", map.block)
}

const RESP_OKAY: u128 = 0b00;
const RESP_SLVERR: u128 = 0b10;
const RESP_DECERR: u128 = 0b11;

/// Lowers a validated map to the CSR module. Infallible: validation already rejected every map
/// this could not lower.
pub fn generate(map: &RegMap, opts: &Options) -> Module {
    if map_fields(map) < PARALLEL_FIELDS {
        let mut g = Gen::new(map, opts);
        g.build();
        return g.finish(register_table(map));
    }
    // The header's register table depends on the map alone: written on another thread while
    // this one builds the logic (a few per cent of the CSR block's work on a big map, which is
    // the longest of `rdmagen all`'s threads).
    std::thread::scope(|s| {
        let table = rdmagen_regmap::apart::spawn_scoped(s, || register_table(map));
        let mut g = Gen::new(map, opts);
        g.build();
        let table = match table.map(|t| t.join()) {
            Ok(Ok(rows)) => rows,
            Ok(Err(panic)) => std::panic::resume_unwind(panic),
            // No thread to be had: the table here.
            Err(_) => register_table(map),
        };
        g.finish(table)
    })
}

/// Maps with at least this many fields get their register table, and the later half of their
/// top-level fields, made on other threads.
const PARALLEL_FIELDS: usize = 1024;

#[cfg(test)]
thread_local! {
    /// Set by a test to make a big map's fields on one thread, as a small map's are.
    static ONE_THREAD: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn one_thread_in_tests() -> bool {
    #[cfg(test)]
    return ONE_THREAD.with(|c| c.get());
    #[cfg(not(test))]
    false
}

fn id(s: impl Into<String>) -> Expr {
    Expr::id(s)
}

fn bit1(v: bool) -> Expr {
    Expr::num(1, u128::from(v))
}

fn resp(v: u128) -> Expr {
    Expr::num(2, v)
}

fn log2(v: u64) -> u32 {
    63 - v.leading_zeros()
}

/// `{{8{s[3]}}, …, {8{s[0]}}}`: a bit mask from byte strobes.
fn strobe_mask(strb: &str, lanes: u32) -> Expr {
    Expr::concat(
        (0..lanes)
            .rev()
            .map(|l| Expr::repl(Expr::int(8), id(strb).bits(l, l)))
            .collect(),
    )
}

/// A software write of field `f` into `d`, lane by lane: `if (strobe) d[..] = data[..];` for
/// each byte lane the field covers (the whole of `d` when it lies in one lane). A 64-bit
/// register's low four lanes take the strobes held with its low half (`wr_lo_strb_q`).
fn lane_writes(f: &Field, wide: bool, d: &Expr, data: &str) -> Vec<Stmt> {
    let (lsb, msb) = (f.lsb, f.msb);
    (lsb / 8..=msb / 8)
        .map(|lane| {
            let strobe = if wide && lane < 4 {
                id("wr_lo_strb_q").bits(lane, lane)
            } else {
                id("s_axil_wstrb").bits(lane % 4, lane % 4)
            };
            let (lo, hi) = ((8 * lane).max(lsb), (8 * lane + 7).min(msb));
            let lhs = if lo == lsb && hi == msb {
                d.clone()
            } else {
                d.clone().bits(hi - lsb, lo - lsb)
            };
            Stmt::if_(strobe, vec![Stmt::assign(lhs, id(data).bits(hi, lo))])
        })
        .collect()
}

/// The declared range of a port of width `w` (`None` for one bit).
fn port_range(w: &PortWidth) -> Option<Range> {
    match w {
        PortWidth::Bits(bits) => Range::bits(*bits),
        PortWidth::PerElement { count, bits } => Some(Range::width(Expr::times(
            match count {
                ElementCount::Fixed(n) => Expr::int(*n as i64),
                ElementCount::Parameter(p) => id(p.clone()),
            },
            Expr::int(i64::from(*bits)),
        ))),
    }
}

/// Where a register lives: at the top level, or in element `i` of a group.
#[derive(Clone, Copy)]
struct Scope<'a> {
    group: Option<&'a Group>,
}

impl Scope<'_> {
    fn prefix<'r>(&self, reg: &'r Register) -> Cow<'r, str> {
        match self.group {
            Some(g) => Cow::Owned(format!("{}_{}", g.name, reg.name)),
            // Borrowed: every field of every top-level register asks for it.
            None => Cow::Borrowed(&reg.name.text),
        }
    }
    /// A port of this scope: the whole port at the top level, element `i`'s slice in a group.
    /// `name` is moved into the expression (it is always freshly built).
    fn port(&self, name: String, width: u32) -> Expr {
        match self.group {
            None => id(name),
            Some(_) if width == 1 => id(name).index(id("i")),
            Some(_) => id(name).part(
                Expr::times(id("i"), Expr::int(i64::from(width))),
                Expr::int(i64::from(width)),
            ),
        }
    }
}

struct Gen<'a> {
    map: &'a RegMap,
    opts: &'a Options,
    aw: u32,
    has64: bool,
    /// Some field is written bit by bit (write 1 or 0 to clear, write 1 to set, a pulse, any
    /// write in an array) or has a write strobe, so WSTRB is needed as a bit mask (`wr_mask`;
    /// `wr_mask64` for such a field of a 64-bit register). Other plain writes go byte lane by
    /// byte lane ([`lane_writes`]).
    mask: bool,
    mask64: bool,
    /// Some reads take a fetch stage ([`Group::fetches_reads`], [`RegMap::fetches_top_reads`]).
    fetch: bool,
    /// Reads of registers outside groups take it ([`RegMap::fetches_top_reads`]).
    top_fetch: bool,
    /// Reads of some array's elements take it ([`Group::fetches_reads`]), and a second fetch
    /// cycle after it (`rd_fetch2_q`, see [`Gen::fetch_word`]).
    group_fetch: bool,
    ports: Vec<PortItem>,
    /// The module's items before its declarations, in order: parameter range checks,
    /// localparams. The list that becomes the module's item list.
    decls: Vec<V>,
    /// The module-level declarations, one table after `decls`.
    table: DeclTable,
    /// The module's parameters, made with their range checks.
    params: Vec<Param>,
    /// Continuous assignments of the module scope.
    assigns: PrintedAssigns,
    /// The `always @*` block's statements, printed as they are made (a tree of them was
    /// half the generator's memory on a 4096-register map).
    comb: PrintedStmts,
    /// Printed as they are made, as `comb` is.
    flops: PrintedFlops,
    /// Generate loops, one per group.
    generates: Vec<V>,
    irq_terms: Vec<Expr>,
}

impl<'a> Gen<'a> {
    fn new(map: &'a RegMap, opts: &'a Options) -> Self {
        let has64 = map.registers().any(|(_, r)| r.width == 64);
        // Array registers write `rw`/`wo` fields through the mask too (see `field_logic`), and
        // a write strobe ORs the field's mask bits.
        let masked = |g: Option<&Group>, r: &Register| {
            r.fields.iter().any(|f| {
                f.write_strobe
                    || match f.access {
                        Access::W1c | Access::W1s | Access::W0c | Access::Wp => true,
                        Access::Rw | Access::Wo => g.is_some(),
                        _ => false,
                    }
            })
        };
        let top_fetch = map.fetches_top_reads();
        let group_fetch = map
            .items
            .iter()
            .any(|i| matches!(i, Item::Group(g) if g.fetches_reads()));
        let fetch = top_fetch || group_fetch;
        // Sized up front from the map: on a 4096-register map, growing these one doubling at a
        // time copied megabytes of syntax tree (about 3 % of a whole run). The same pass finds
        // whether the WSTRB masks are needed.
        let (regs, fields, field_ports, mask, mask64) =
            map.registers()
                .fold((0, 0, 0, false, false), |(r, f, p, m, m64), (g, reg)| {
                    let ports: usize = reg.fields.iter().map(field_port_count).sum();
                    let bitwise = masked(g, reg);
                    (
                        r + 1,
                        f + reg.fields.len(),
                        p + ports,
                        m || bitwise,
                        m64 || (bitwise && reg.width == 64),
                    )
                });
        let assigns = 16 + regs + 2 * fields;
        // Room for localparams and then the rest of the items (see `finish`).
        let mut decls = Vec::with_capacity(64 + 2 * regs);
        let params = parameters(map, &mut decls);
        Gen {
            map,
            opts,
            aw: map.address_width,
            has64,
            mask,
            mask64,
            fetch,
            top_fetch,
            group_fetch,
            // The bus's, a banner per register, the fields' and the interrupt.
            ports: Vec::with_capacity(32 + regs + field_ports),
            decls,
            // About 40 bytes of text per declaration.
            table: DeclTable::with_capacity(3 * regs + 3 * fields, 40 * (3 * regs + 3 * fields)),
            params,
            // About 40 bytes of text per assignment.
            assigns: PrintedAssigns::with_capacity(0, 40 * assigns),
            // About 500 bytes of text per field (with its share of the decode).
            comb: PrintedStmts::with_capacity(0, 4096 + 512 * fields),
            // A flop per field (two for a wide `wp` one) and the read select of each register.
            flops: PrintedFlops::with_capacity(0, 16 + 2 * fields + regs),
            generates: Vec::new(),
            irq_terms: Vec::new(),
        }
    }

    /// The strobe in whose cycle a read of a register outside groups takes effect
    /// (`rc`/`rs`): its fetch cycle when such reads are fetched, else the cycle it moves to R.
    fn read_strobe(&self) -> &'static str {
        if self.top_fetch {
            "rd_fetch_q"
        } else {
            "rd_adv"
        }
    }

    fn addr_lit(&self, v: u64) -> Expr {
        Expr::num(self.aw, u128::from(v))
    }

    fn reg(&mut self, name: &str, width: u32, comment: Option<&str>) {
        self.table.push_reg(name, width, comment);
    }

    /// A flop pair `name_q`/`name_d` reset to `reset`.
    fn state(&mut self, name: &str, width: u32, reset: Expr, comment: Option<String>) {
        let (q, d) = (cat(name, "_q", ""), cat(name, "_d", ""));
        self.reg(&q, width, comment.as_deref());
        self.reg(&d, width, None);
        self.flops.push(Flop {
            q: id(q),
            d: id(d),
            reset: Some(reset),
        });
    }

    fn build(&mut self) {
        let map = self.map;
        let regs: Vec<&Register> = map.top_registers().collect();
        let by_name = by_name(&regs);
        // On a big map the later half of the top-level fields is made on a second thread
        // while this one makes the bus logic, the groups and the earlier half: the CSR block
        // is the longest of `rdmagen all`'s outputs, and the others finish well before it.
        let fields: usize = regs.iter().map(|r| r.fields.len()).sum();
        let split = if fields < PARALLEL_FIELDS || one_thread_in_tests() {
            regs.len()
        } else {
            let mut seen = 0;
            regs.iter()
                .position(|r| {
                    seen += r.fields.len();
                    2 * seen >= fields
                })
                .map_or(regs.len(), |i| i + 1)
        };
        let (earlier, later) = regs.split_at(split);
        let read_strobe = self.read_strobe();
        std::thread::scope(|s| {
            let made_later = if later.is_empty() {
                None
            } else {
                rdmagen_regmap::apart::spawn_scoped(s, || {
                    let mut code = FieldCode::for_registers(later);
                    let mut irq = Vec::new();
                    top_field_code(later, &by_name, read_strobe, &mut code, &mut irq);
                    (code, irq)
                })
                .ok()
            };
            self.bus_ports();
            self.hw_ports();
            self.bus_logic();
            for item in &map.items {
                if let Item::Group(g) = item {
                    self.group(g);
                }
            }
            match made_later {
                Some(t) => {
                    self.top_fields(earlier, &by_name);
                    let (code, irq) = t
                        .join()
                        .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
                    self.table.append(code.decls);
                    self.assigns.append(code.assigns);
                    self.comb.append(code.comb);
                    self.flops.append(code.flops);
                    self.irq_terms.extend(irq);
                }
                // Small map, or no thread to be had: all here.
                None => self.top_fields(&regs, &by_name),
            }
        });
        self.irq();
        self.unused();
    }

    fn bus_ports(&mut self) {
        let p = &mut self.ports;
        p.push(PortItem::Banner("Clock and reset".into()));
        p.push(PortItem::Port(Port::input("clk", None)));
        let rst = self.opts.reset;
        let rst_comment = match rst {
            ResetStyle::SyncHigh => "synchronous, active high",
            ResetStyle::AsyncLow => "asynchronous assert, active low",
        };
        p.push(PortItem::Port(
            Port::input(rst.port_name(), None).comment(rst_comment),
        ));
        p.push(PortItem::Banner("AXI4-Lite slave (32-bit data)".into()));
        for (suffix, output, w) in interface::axi_ports(self.aw) {
            let name = format!("s_axil_{suffix}");
            p.push(PortItem::Port(if output {
                Port::output(name, Range::bits(w))
            } else {
                Port::input(name, Range::bits(w))
            }));
        }
    }

    fn count_expr(g: &Group) -> Expr {
        match &g.count {
            Count::Fixed(n) => Expr::int(*n as i64),
            Count::Param(p) => id(p.text.clone()),
        }
    }

    fn hw_ports(&mut self) {
        for (g, r) in self.map.registers() {
            // `{name} @ {offset:#05x}`, in a group `{g}[].{name} @ {offset:#05x} + i * {stride:#x}`.
            let mut title = String::with_capacity(48);
            match g {
                Some(g) => {
                    title.push_str(&cat(&g.name, "[].", &r.name));
                    title.push_str(" @ ");
                    push_hex(&mut title, g.offset + r.offset, 3);
                    title.push_str(" + i * ");
                    push_hex(&mut title, g.stride, 1);
                }
                None => {
                    title.push_str(&r.name);
                    title.push_str(" @ ");
                    push_hex(&mut title, r.offset, 3);
                }
            }
            let banner = if r.description.is_empty() {
                title
            } else {
                wrap(&format!("{title}: {}", r.description), 94).join("\n")
            };
            self.ports.push(PortItem::Banner(banner));
            for f in &r.fields {
                // `field_ports` lists the value port (`_o`, or `_i` without storage) first.
                for (k, (name, out, w)) in field_ports(g, r, f).into_iter().enumerate() {
                    let range = port_range(&interface::field_port_width(g, w));
                    let port = if out {
                        Port::output(name, range)
                    } else {
                        Port::input(name, range)
                    };
                    let port = if k == 0 {
                        let bits = bits_text(f);
                        port.comment(cat(&cat("[", &bits, "] "), f.access.as_str(), ""))
                    } else {
                        port
                    };
                    self.ports.push(PortItem::Port(port));
                }
            }
        }
        if interface::has_interrupts(self.map) {
            self.ports.push(PortItem::Banner("Interrupt".into()));
            self.ports.push(PortItem::Port(
                Port::output("irq_o", None).comment("OR of every enabled interrupt status bit"),
            ));
        }
    }

    /// Handshakes, address decode, response and read-data registers, 64-bit shadows.
    fn bus_logic(&mut self) {
        let aw = self.aw;
        let live = self.opts.reset.released();
        self.decls
            .push(V::Comment(vec!["AXI response codes".into()]));
        for (n, v) in [
            ("RESP_OKAY", RESP_OKAY),
            ("RESP_SLVERR", RESP_SLVERR),
            ("RESP_DECERR", RESP_DECERR),
        ] {
            self.decls.push(V::LocalParam {
                name: n.into(),
                range: Range::bits(2),
                value: resp(v),
                comment: None,
            });
        }
        self.decls.push(V::Comment(vec![
            "Register byte addresses, and offsets inside group elements".into(),
        ]));
        for item in &self.map.items {
            match item {
                Item::Register(r) => {
                    self.decls.push(V::LocalParam {
                        name: upper_cat("ADDR_", &r.name, ""),
                        range: Range::bits(aw),
                        value: self.addr_lit(r.offset),
                        comment: None,
                    });
                    if r.width == 64 {
                        self.decls.push(V::LocalParam {
                            name: upper_cat("ADDR_", &r.name, "_HI"),
                            range: Range::bits(aw),
                            value: self.addr_lit(r.offset + 4),
                            comment: None,
                        });
                    }
                }
                // Offsets inside an element, when the stride holds more than one word.
                Item::Group(g) if g.stride > 4 => {
                    let sb = log2(g.stride);
                    for r in &g.registers {
                        let n = format!("OFF_{}_{}", g.name.to_uppercase(), r.name.to_uppercase());
                        let mut halves = vec![(n.clone(), r.offset)];
                        if r.width == 64 {
                            halves.push((format!("{n}_HI"), r.offset + 4));
                        }
                        for (name, v) in halves {
                            self.decls.push(V::LocalParam {
                                name,
                                range: Range::bits(sb),
                                value: Expr::num(sb, u128::from(v)),
                                comment: None,
                            });
                        }
                    }
                }
                Item::Group(_) => {}
            }
        }

        // The declarations follow the localparams.
        self.decls.push(V::Blank);

        // Handshakes. AXI forbids a combinational path from a subordinate's inputs to its
        // outputs, so the readies are flops: `wr_rdy_q` rises the cycle after AW and W are both
        // valid with room for the response, and the write is taken (both handshakes) in the
        // one cycle it is high; it never stays high, so a write takes two cycles. The valids
        // stay up until their handshake, so the address and data seen then are the ones seen
        // in the cycle before. Reads alike with `rd_rdy_q` and room in the decode stage.
        // A synchronous reset clears a ready flop only at the next edge, so the ready port is
        // masked while reset is asserted: nothing is taken in reset. An asynchronous one clears
        // it at once. Inside, the write and read enables need no mask: every flop of the block
        // is reset, and reset wins over what they would load.
        let gate = |q: &str| match self.opts.reset {
            ResetStyle::SyncHigh => Expr::and(id(q), live.clone()),
            ResetStyle::AsyncLow => id(q),
        };
        self.state(
            "wr_rdy",
            1,
            bit1(false),
            Some("AWREADY and WREADY: the write is taken this cycle".into()),
        );
        self.table
            .push(&Decl::wire("wr_en", None).comment("a write is accepted this cycle"));
        self.assigns.push(id("wr_en"), id("wr_rdy_q"));
        self.state(
            "rd_rdy",
            1,
            bit1(false),
            Some("ARREADY: the read is taken this cycle".into()),
        );
        // Reads take two stages: the accept cycle decodes the address into a one-hot register
        // select (registered), and the next cycle moves the selected value into the R register.
        // So no path runs from the address through the whole read mux.
        self.table
            .push(&Decl::wire("rd_en", None).comment("a read is accepted this cycle"));
        self.assigns.push(id("rd_en"), id("rd_rdy_q"));
        self.table
            .push(&Decl::wire("rd_adv", None).comment("the decoded read moves to R this cycle"));
        let r_free = Expr::or(Expr::lnot(id("rvalid_q")), id("s_axil_rready"));
        self.assigns.push(
            id("rd_adv"),
            if self.fetch {
                // A fetched read (a wide array's element, or any register outside groups in a
                // map with many) first spends a cycle fetching its word; an element two.
                let mut t = vec![id("rd_pend_q"), Expr::lnot(id("rd_fetch_q"))];
                if self.group_fetch {
                    t.push(Expr::lnot(id("rd_fetch2_q")));
                }
                t.push(r_free);
                Expr::all(t)
            } else {
                Expr::and(id("rd_pend_q"), r_free)
            },
        );
        let word = |a: &str| {
            Expr::concat(vec![
                id(a).slice(Expr::int(i64::from(aw) - 1), Expr::int(2)),
                Expr::num(2, 0),
            ])
        };
        // Only registers outside arrays are decoded from the whole address (arrays decode
        // their window, element and offset bits): a map of arrays alone has no use for them,
        // and `verilator -Wall` reports an unused wire.
        if self.map.top_registers().next().is_some() {
            self.table.push(
                &Decl::wire("wr_addr", Range::bits(aw)).comment("word-aligned write address"),
            );
            self.assigns.push(id("wr_addr"), word("s_axil_awaddr"));
            self.table
                .push(&Decl::wire("rd_addr", Range::bits(aw)).comment("word-aligned read address"));
            self.assigns.push(id("rd_addr"), word("s_axil_araddr"));
        }
        if self.mask {
            self.table
                .push(&Decl::wire("wr_mask", Range::bits(32)).comment("WSTRB as a bit mask"));
            self.assigns
                .push(id("wr_mask"), strobe_mask("s_axil_wstrb", 4));
        }

        self.state("bvalid", 1, bit1(false), None);
        self.state("bresp", 2, resp(RESP_OKAY), None);
        self.state("rvalid", 1, bit1(false), None);
        self.state("rresp", 2, resp(RESP_OKAY), None);
        self.state("rdata", 32, Expr::zero(32), None);
        self.reg("wr_resp", 2, Some("response of the write being accepted"));
        self.state(
            "rd_pend",
            1,
            bit1(false),
            Some("a decoded read waits for the R register".into()),
        );
        self.state(
            "rd_slverr",
            1,
            bit1(false),
            Some("the decoded read addresses a register with no readable field".into()),
        );
        if self.fetch {
            self.state(
                "rd_fetch",
                1,
                bit1(false),
                Some(if self.top_fetch {
                    "the decoded read fetches its word this cycle".into()
                } else {
                    "the decoded read fetches a wide array's element word this cycle".into()
                }),
            );
        }
        if self.group_fetch {
            self.state(
                "rd_fetch2",
                1,
                bit1(false),
                Some("the decoded read selects its array element's word this cycle".into()),
            );
        }
        if self.top_fetch {
            self.state(
                "rd_top_ok",
                1,
                bit1(false),
                Some("the decoded read selects a readable register outside groups".into()),
            );
        }
        self.reg("rd_resp", 2, Some("response of the decoded read"));
        self.reg("rd_data", 32, Some("data of the decoded read"));
        if self.has64 {
            self.state(
                "wr_lo",
                32,
                Expr::zero(32),
                Some("64-bit write shadow: low-half data".into()),
            );
            self.state(
                "wr_lo_strb",
                4,
                Expr::zero(4),
                Some("64-bit write shadow: low-half strobes".into()),
            );
            self.state(
                "rd_hi",
                32,
                Expr::zero(32),
                Some("64-bit read shadow: high half latched by a low-half read".into()),
            );
            self.reg(
                "wr_lo_store",
                1,
                Some("the write addresses the low half of a 64-bit register"),
            );
            self.state(
                "rd_latch",
                1,
                bit1(false),
                Some("the decoded read is the low half of a 64-bit register".into()),
            );
            self.state(
                "rd_hi_rsel",
                1,
                bit1(false),
                Some("the decoded read is the high half: it returns rd_hi_q".into()),
            );
            self.reg("rd_hi_next", 32, Some("high half to latch with it"));
            self.table.push(
                &Decl::wire("wr_data64", Range::bits(64))
                    .comment("a high-half write commits {data, shadow}"),
            );
            self.assigns.push(
                id("wr_data64"),
                Expr::concat(vec![id("s_axil_wdata"), id("wr_lo_q")]),
            );
            if self.mask64 {
                self.table.push(&Decl::wire("wr_mask64", Range::bits(64)));
                self.assigns.push(
                    id("wr_mask64"),
                    Expr::concat(vec![id("wr_mask"), strobe_mask("wr_lo_strb_q", 4)]),
                );
            }
        }
        for (n, e) in [
            ("awready", gate("wr_rdy_q")),
            ("wready", gate("wr_rdy_q")),
            ("bvalid", id("bvalid_q")),
            ("bresp", id("bresp_q")),
            ("arready", gate("rd_rdy_q")),
            ("rvalid", id("rvalid_q")),
            ("rdata", id("rdata_q")),
            ("rresp", id("rresp_q")),
        ] {
            self.assigns.push(id(format!("s_axil_{n}")), e);
        }

        // Select signals of every register, set by the decode below.
        // Lists sized from the map: thousands of registers, grown by doubling otherwise.
        let regs = self.map.registers().count();
        let mut wsel = Vec::with_capacity(regs);
        let mut rsel = Vec::with_capacity(regs);
        for (g, r) in self.map.registers() {
            let p = Scope { group: g }.prefix(r);
            if r.is_writable() {
                wsel.push(cat(&p, "_wsel", ""));
            }
            if r.is_readable() {
                rsel.push(cat(&p, "_rsel", ""));
            }
        }
        for s in &wsel {
            self.reg(s, 1, None);
        }
        // One registered select per readable register (per group register, with the element
        // index registered beside it).
        for s in &rsel {
            self.state(s, 1, bit1(false), None);
        }

        self.comb.push(Stmt::Comment(
            "Write decode: the response the address gets, and the register it selects".into(),
        ));
        self.comb
            .push(Stmt::assign(id("wr_resp"), id("RESP_DECERR")));
        for s in &wsel {
            self.comb.push(Stmt::assign(id(s.clone()), bit1(false)));
        }
        if self.has64 {
            self.comb.push(Stmt::assign(id("wr_lo_store"), bit1(false)));
        }
        // The responses as two arms listing addresses, and the selects as one single-statement
        // arm each: a register costs a label and a line, not a begin/end block.
        let map = self.map;
        let mut okay = Vec::with_capacity(regs);
        let mut slverr = Vec::new();
        for r in map.top_registers() {
            let labels = if r.is_writable() {
                &mut okay
            } else {
                &mut slverr
            };
            labels.push(id(upper_cat("ADDR_", &r.name, "")));
            if r.width == 64 {
                labels.push(id(upper_cat("ADDR_", &r.name, "_HI")));
            }
        }
        let has_writable = !okay.is_empty();
        let resp: Vec<_> = [(okay, "RESP_OKAY"), (slverr, "RESP_SLVERR")]
            .into_iter()
            .filter(|(labels, _)| !labels.is_empty())
            .map(|(labels, code)| (labels, vec![Stmt::assign(id("wr_resp"), id(code))]))
            .collect();
        if !resp.is_empty() {
            self.comb.push_case(&id("wr_addr"), resp, &[]);
        }
        // Printed arm by arm: the decode of a NIC-scale map has thousands.
        if has_writable {
            let arms = map
                .top_registers()
                .filter(|r| r.is_writable())
                .flat_map(|r| {
                    let addr = id(upper_cat("ADDR_", &r.name, ""));
                    let sel = vec![Stmt::assign(id(cat(&r.name, "_wsel", "")), bit1(true))];
                    // The low half of a 64-bit register goes to the shadow; the high half commits
                    // both.
                    let (first, second) = if r.width == 64 {
                        let lo = vec![Stmt::assign(id("wr_lo_store"), bit1(true))];
                        let hi = id(upper_cat("ADDR_", &r.name, "_HI"));
                        ((vec![addr], lo), Some((vec![hi], sel)))
                    } else {
                        ((vec![addr], sel), None)
                    };
                    std::iter::once(first).chain(second)
                });
            self.comb.push_case(&id("wr_addr"), arms, &[]);
        }
        for item in &self.map.items {
            if let Item::Group(g) = item {
                let decode = self.group_decode(g, true);
                self.comb.extend(decode);
            }
        }

        self.comb.push(Stmt::Comment(
            "Read decode, in the accept cycle: a one-hot register select, or SLVERR".into(),
        ));
        self.comb
            .push(Stmt::assign(id("rd_slverr_d"), id("rd_slverr_q")));
        if self.top_fetch {
            self.comb
                .push(Stmt::assign(id("rd_top_ok_d"), id("rd_top_ok_q")));
        }
        for s in &rsel {
            self.comb
                .push(Stmt::assign(id(cat(s, "_d", "")), id(cat(s, "_q", ""))));
        }
        if self.has64 {
            self.comb
                .push(Stmt::assign(id("rd_latch_d"), id("rd_latch_q")));
            self.comb
                .push(Stmt::assign(id("rd_hi_rsel_d"), id("rd_hi_rsel_q")));
        }
        let mut group_reads = Vec::new();
        for item in &self.map.items {
            if let Item::Group(g) = item {
                group_reads.push(self.group_decode(g, false));
            }
        }
        for item in &self.map.items {
            if let Item::Group(g) = item {
                if g.window > g.stride && g.registers.iter().any(|r| r.is_readable()) {
                    let elem = format!("{}_rd_elem", g.name);
                    self.comb.push(Stmt::assign(
                        id(format!("{elem}_d")),
                        id(format!("{elem}_q")),
                    ));
                }
            }
        }
        if self.fetch {
            // A fetch lasts the one cycle after the accept.
            self.comb.push(Stmt::assign(id("rd_fetch_d"), bit1(false)));
        }
        if self.group_fetch {
            // An array element's read fetches for a second cycle (the select's second half).
            let second = if self.top_fetch {
                let sels = map
                    .items
                    .iter()
                    .filter_map(|i| match i {
                        Item::Group(g) if g.fetches_reads() => Some(g),
                        _ => None,
                    })
                    .flat_map(|g| {
                        g.registers
                            .iter()
                            .filter(|r| r.is_readable())
                            .map(move |r| id(format!("{}_{}_rsel_q", g.name, r.name)))
                    })
                    .collect();
                Expr::and(id("rd_fetch_q"), Expr::any_of(sels, bit1(false)))
            } else {
                id("rd_fetch_q")
            };
            self.comb.push(Stmt::assign(id("rd_fetch2_d"), second));
        }
        let has64 = self.has64;
        let top_fetch = self.top_fetch;
        self.comb.push_if(&id("rd_en"), |dec| {
            dec.push(Stmt::assign(id("rd_slverr_d"), bit1(false)));
            if top_fetch {
                dec.push(Stmt::assign(id("rd_top_ok_d"), bit1(false)));
            }
            for s in &rsel {
                dec.push(Stmt::assign(id(cat(s, "_d", "")), bit1(false)));
            }
            if has64 {
                dec.push(Stmt::assign(id("rd_latch_d"), bit1(false)));
                dec.push(Stmt::assign(id("rd_hi_rsel_d"), bit1(false)));
            }
            let mut regs = map.top_registers();
            if let Some(first) = regs.next() {
                let arms = std::iter::once(first).chain(regs).flat_map(|r| {
                    let addr = id(upper_cat("ADDR_", &r.name, ""));
                    let hi = || vec![id(upper_cat("ADDR_", &r.name, "_HI"))];
                    let (first, second) = if !r.is_readable() {
                        let err = vec![Stmt::assign(id("rd_slverr_d"), bit1(true))];
                        let second = (r.width == 64).then(|| (hi(), err.clone()));
                        ((vec![addr], err), second)
                    } else {
                        let mut sel =
                            vec![Stmt::assign(id(cat(&r.name, "_rsel_d", "")), bit1(true))];
                        if top_fetch {
                            sel.push(Stmt::assign(id("rd_fetch_d"), bit1(true)));
                            sel.push(Stmt::assign(id("rd_top_ok_d"), bit1(true)));
                        }
                        if r.width == 64 {
                            sel.push(Stmt::assign(id("rd_latch_d"), bit1(true)));
                            let hi_sel = vec![Stmt::assign(id("rd_hi_rsel_d"), bit1(true))];
                            ((vec![addr], sel), Some((hi(), hi_sel)))
                        } else {
                            ((vec![addr], sel), None)
                        }
                    };
                    std::iter::once(first).chain(second)
                });
                dec.push_case(&id("rd_addr"), arms, &[]);
            }
            for decode in group_reads {
                dec.extend(decode);
            }
        });
        for item in &self.map.items {
            if let Item::Group(g) = item {
                if g.fetches_reads() {
                    self.fetch_word(g);
                }
            }
        }
        let top_words = if self.top_fetch {
            self.fetch_top_words()
        } else {
            Vec::new()
        };

        self.comb.push(Stmt::Comment(
            "Read data, in the next cycle: an AND-OR of the selected register's value".into(),
        ));
        self.comb.push(Stmt::assign(id("rd_data"), Expr::zero(32)));
        if self.has64 {
            self.comb
                .push(Stmt::assign(id("rd_hi_next"), Expr::zero(32)));
        }
        let or_in = |c: &mut PrintedStmts, acc: &str, sel: String, value: Expr| {
            c.push(Stmt::assign(
                id(acc),
                Expr::bor(
                    id(acc),
                    Expr::band(Expr::repl(Expr::int(32), id(sel)), value),
                ),
            ));
        };
        // Fetched in the cycle before; zero unless the read is of their registers.
        for (word, w) in top_words {
            let low = if w == 64 {
                id(&word).slice(Expr::int(31), Expr::int(0))
            } else {
                id(&word)
            };
            self.comb
                .push(Stmt::assign(id("rd_data"), Expr::bor(id("rd_data"), low)));
            if w == 64 {
                self.comb.push(Stmt::assign(
                    id("rd_hi_next"),
                    Expr::bor(
                        id("rd_hi_next"),
                        id(&word).slice(Expr::int(63), Expr::int(32)),
                    ),
                ));
            }
        }
        for item in &self.map.items {
            match item {
                Item::Register(_) if self.top_fetch => {}
                Item::Register(r) if r.is_readable() => {
                    let scope = Scope { group: None };
                    let sel = cat(&r.name, "_rsel_q", "");
                    or_in(
                        &mut self.comb,
                        "rd_data",
                        sel.clone(),
                        read_value(scope, r, 0, 31),
                    );
                    if r.width == 64 {
                        or_in(
                            &mut self.comb,
                            "rd_hi_next",
                            sel,
                            read_value(scope, r, 32, 63),
                        );
                    }
                }
                Item::Register(_) => {}
                Item::Group(g) if g.fetches_reads() => {
                    // Fetched in the cycle before; zero unless the read is of this group.
                    let word = id(format!("{}_rd_word_q", g.name));
                    let wide = fetch_word_width(g) == 64;
                    let low = if wide {
                        word.clone().slice(Expr::int(31), Expr::int(0))
                    } else {
                        word.clone()
                    };
                    self.comb
                        .push(Stmt::assign(id("rd_data"), Expr::bor(id("rd_data"), low)));
                    if wide {
                        self.comb.push(Stmt::assign(
                            id("rd_hi_next"),
                            Expr::bor(id("rd_hi_next"), word.slice(Expr::int(63), Expr::int(32))),
                        ));
                    }
                }
                Item::Group(g) => {
                    let elem = id(format!("{}_rd_elem", g.name));
                    for r in g.registers.iter().filter(|r| r.is_readable()) {
                        let p = format!("{}_{}", g.name, r.name);
                        let value = id(format!("{p}_rvalue"));
                        let base = Expr::times(elem.clone(), Expr::int(i64::from(r.width)));
                        let sel = format!("{p}_rsel_q");
                        or_in(
                            &mut self.comb,
                            "rd_data",
                            sel.clone(),
                            value.clone().part(base.clone(), Expr::int(32)),
                        );
                        if r.width == 64 {
                            or_in(
                                &mut self.comb,
                                "rd_hi_next",
                                sel,
                                value.part(Expr::plus(base, Expr::int(32)), Expr::int(32)),
                            );
                        }
                    }
                }
            }
        }
        if self.has64 {
            or_in(
                &mut self.comb,
                "rd_data",
                "rd_hi_rsel_q".into(),
                id("rd_hi_q"),
            );
        }
        // OKAY when a register is selected, SLVERR or DECERR (nothing there) otherwise.
        self.comb
            .push(Stmt::assign(id("rd_resp"), id("RESP_DECERR")));
        self.comb.push(Stmt::if_(
            id("rd_slverr_q"),
            vec![Stmt::assign(id("rd_resp"), id("RESP_SLVERR"))],
        ));
        let mut hits: Vec<Expr> = if self.top_fetch {
            // The fetch registered whether a register outside groups was selected.
            let groups = self
                .map
                .registers()
                .filter(|(g, r)| g.is_some() && r.is_readable());
            std::iter::once(id("rd_top_ok_q"))
                .chain(groups.map(|(g, r)| id(cat(&Scope { group: g }.prefix(r), "_rsel_q", ""))))
                .collect()
        } else {
            rsel.iter().map(|s| id(cat(s, "_q", ""))).collect()
        };
        if self.has64 {
            hits.push(id("rd_hi_rsel_q"));
        }
        if !hits.is_empty() {
            self.table
                .push(&Decl::wire("rd_hit", None).comment("the decoded read selects a register"));
            self.assigns.push(id("rd_hit"), or_reduce(hits));
            self.comb.push(Stmt::if_(
                id("rd_hit"),
                vec![Stmt::assign(id("rd_resp"), id("RESP_OKAY"))],
            ));
        }

        self.comb.push(Stmt::Comment(
            "Response channels: hold until taken; a new transfer replaces a taken one".into(),
        ));
        self.comb.push(Stmt::assign(
            id("bvalid_d"),
            Expr::and(id("bvalid_q"), Expr::lnot(id("s_axil_bready"))),
        ));
        self.comb.push(Stmt::assign(id("bresp_d"), id("bresp_q")));
        self.comb.push(Stmt::if_(
            id("wr_en"),
            vec![
                Stmt::assign(id("bvalid_d"), bit1(true)),
                Stmt::assign(id("bresp_d"), id("wr_resp")),
            ],
        ));
        self.comb.push(Stmt::assign(
            id("rd_pend_d"),
            Expr::or(
                id("rd_en"),
                Expr::and(id("rd_pend_q"), Expr::lnot(id("rd_adv"))),
            ),
        ));
        // The next write is taken when both its channels are valid and the B register is
        // empty in the taking cycle: empty now, or taken now (no write is taken now).
        self.comb.push(Stmt::assign(
            id("wr_rdy_d"),
            Expr::all(vec![
                id("s_axil_awvalid"),
                id("s_axil_wvalid"),
                Expr::lnot(id("wr_rdy_q")),
                Expr::or(Expr::lnot(id("bvalid_q")), id("s_axil_bready")),
            ]),
        ));
        // The next read is taken when the decode stage is empty in the taking cycle: nothing
        // waits now, or the waiting read moves on now (no read is taken now).
        self.comb.push(Stmt::assign(
            id("rd_rdy_d"),
            Expr::all(vec![
                id("s_axil_arvalid"),
                Expr::lnot(id("rd_rdy_q")),
                Expr::or(Expr::lnot(id("rd_pend_q")), id("rd_adv")),
            ]),
        ));
        self.comb.push(Stmt::assign(
            id("rvalid_d"),
            Expr::and(id("rvalid_q"), Expr::lnot(id("s_axil_rready"))),
        ));
        self.comb.push(Stmt::assign(id("rresp_d"), id("rresp_q")));
        self.comb.push(Stmt::assign(id("rdata_d"), id("rdata_q")));
        self.comb.push(Stmt::if_(
            id("rd_adv"),
            vec![
                Stmt::assign(id("rvalid_d"), bit1(true)),
                Stmt::assign(id("rresp_d"), id("rd_resp")),
                Stmt::assign(id("rdata_d"), id("rd_data")),
            ],
        ));
        if self.has64 {
            self.comb.push(Stmt::Comment("64-bit shadows".into()));
            self.comb.push(Stmt::assign(id("wr_lo_d"), id("wr_lo_q")));
            self.comb
                .push(Stmt::assign(id("wr_lo_strb_d"), id("wr_lo_strb_q")));
            self.comb.push(Stmt::if_(
                Expr::and(id("wr_en"), id("wr_lo_store")),
                vec![
                    Stmt::assign(id("wr_lo_d"), id("s_axil_wdata")),
                    Stmt::assign(id("wr_lo_strb_d"), id("s_axil_wstrb")),
                ],
            ));
            self.comb.push(Stmt::assign(id("rd_hi_d"), id("rd_hi_q")));
            self.comb.push(Stmt::if_(
                Expr::and(id("rd_adv"), id("rd_latch_q")),
                vec![Stmt::assign(id("rd_hi_d"), id("rd_hi_next"))],
            ));
        }
    }

    /// The word registers of the readable registers outside groups when their reads take a
    /// fetch stage: [`RegMap::FETCH_CHUNK`] registers' AND-OR each, loaded in the fetch cycle
    /// and cleared as the read moves to R, so the read mux ORs a few words instead of every
    /// register's value. Returns each word's name and width.
    fn fetch_top_words(&mut self) -> Vec<(String, u32)> {
        let map = self.map;
        let readable: Vec<&Register> = map.top_registers().filter(|r| r.is_readable()).collect();
        let scope = Scope { group: None };
        let mut words = Vec::new();
        for (k, chunk) in readable.chunks(RegMap::FETCH_CHUNK).enumerate() {
            let w = if chunk.iter().any(|r| r.width == 64) {
                64
            } else {
                32
            };
            let name = format!("rd_top{k}_word");
            let (first, last) = (&chunk[0].name, &chunk[chunk.len() - 1].name);
            self.state(
                &name,
                w,
                Expr::zero(w),
                Some(format!("{first} to {last}: the read being fetched")),
            );
            let terms = chunk
                .iter()
                .map(|r| {
                    let lo = read_value(scope, r, 0, 31);
                    let value = match (w, r.width) {
                        (64, 64) => Expr::concat(vec![read_value(scope, r, 32, 63), lo]),
                        (64, _) => Expr::concat(vec![Expr::zero(32), lo]),
                        _ => lo,
                    };
                    let sel = id(cat(&r.name, "_rsel_q", ""));
                    Expr::band(Expr::repl(Expr::int(i64::from(w)), sel), value)
                })
                .collect();
            let why = format!(
                "{first} to {last}, fetched in the cycle after the accept (an AND-OR of {} \
                 registers in a cycle of its own)",
                chunk.len()
            );
            self.fetched_word_logic(&name, w, why, "rd_fetch_q", terms);
            words.push((format!("{name}_q"), w));
        }
        words
    }

    /// The word register of a group whose reads take a fetch stage: loaded with the selected
    /// element's value, cleared as its read moves to R, so the read mux ORs it in without a
    /// select. The select takes two cycles: in the first (`rd_fetch_q`, when the read takes
    /// effect) every run of [`Group::FETCH_ABOVE`] elements selects its element by the index's
    /// low bits into `{g}_rd_grp_q` (a select as wide as an unfetched array's); in the second
    /// (`rd_fetch2_q`) the index's high bits pick one run's word. So no path holds the whole
    /// `count`:1 select (three LUT levels at 64 elements behind the register select's AND-OR
    /// and the hold; issue 9).
    fn fetch_word(&mut self, g: &Group) {
        let w = fetch_word_width(g);
        let name = format!("{}_rd_word", g.name);
        self.state(
            &name,
            w,
            Expr::zero(w),
            Some(format!("{} element of the read being fetched", g.name)),
        );
        let run = Group::FETCH_ABOVE;
        let run_bits = log2(run);
        let runs = format!("{}_RD_RUNS", g.name.to_uppercase());
        self.decls.push(V::LocalParam {
            name: runs.clone(),
            range: None,
            value: Expr::bin(
                BinOp::Shr,
                Expr::plus(Self::count_expr(g), Expr::int(run as i64 - 1)),
                Expr::int(i64::from(run_bits)),
            ),
            comment: Some(format!(
                "runs of {run} {} elements: the fetch's first select",
                g.name
            )),
        });
        let runs_w = || Range::width(Expr::times(id(&runs), Expr::int(i64::from(w))));
        let (grp, grp_q) = (format!("{}_rd_grp", g.name), format!("{}_rd_grp_q", g.name));
        self.table.push(
            &Decl::wire(grp.clone(), Some(runs_w()))
                .comment(format!("each run's selected {} word", g.name)),
        );
        self.table.push(
            &Decl::reg(grp_q.clone(), Some(runs_w()))
                .comment("registered in the first fetch cycle (no reset: read only after it)"),
        );
        self.flops.push(Flop {
            q: id(&grp_q),
            d: id(&grp),
            reset: None,
        });
        let elem = id(format!("{}_rd_elem", g.name));
        // Element `i * run + elem % run` of each run `i` (a genvar).
        let in_run = Expr::plus(
            Expr::times(id("i"), Expr::int(run as i64)),
            Expr::band(elem.clone(), Expr::int(run as i64 - 1)),
        );
        let mut terms = Vec::new();
        for r in g.registers.iter().filter(|r| r.is_readable()) {
            let p = format!("{}_{}", g.name, r.name);
            let base = Expr::times(in_run.clone(), Expr::int(i64::from(r.width)));
            let mut value = id(format!("{p}_rvalue")).part(base, Expr::int(i64::from(r.width)));
            if r.width < w {
                value = Expr::concat(vec![Expr::zero(w - r.width), value]);
            }
            terms.push(Expr::band(
                Expr::repl(Expr::int(i64::from(w)), id(format!("{p}_rsel_q"))),
                value,
            ));
        }
        let mut assigns = PrintedAssigns::new(1);
        assigns.push(
            id(&grp).part(
                Expr::times(id("i"), Expr::int(i64::from(w))),
                Expr::int(i64::from(w)),
            ),
            or_reduce_bits(terms),
        );
        self.generates.push(V::GenFor {
            var: "i".into(),
            to: id(&runs),
            label: format!("g_{}_rd_run", g.name),
            items: vec![
                V::Comment(vec![
                    format!(
                        "Run i of {run} {} elements: its element at the read's low index bits",
                        g.name
                    ),
                    // The last run may be partial: its slot reads past the array (X in
                    // simulation) only for a read of an element in another run.
                    "(in a last, partial run an index past the array is another run's read,".into(),
                    "which the second cycle does not pick from this one)".into(),
                ]),
                V::PrintedAssigns(assigns),
            ],
        });
        let pick = id(&grp_q).part(
            Expr::times(
                Expr::bin(BinOp::Shr, elem, Expr::int(i64::from(run_bits))),
                Expr::int(i64::from(w)),
            ),
            Expr::int(i64::from(w)),
        );
        let why = format!(
            "The {} element's word: each run's in the first fetch cycle, the read's run's in \
             the second (the array's select has two cycles of its own)",
            g.name
        );
        self.fetched_word_logic(&name, w, why, "rd_fetch2_q", vec![pick]);
    }

    /// The next value of fetched word `name` (`w` bits): the AND-OR `terms` in the cycle of
    /// `strobe` (the fetch's last), zero as its read moves to R, else held.
    fn fetched_word_logic(
        &mut self,
        name: &str,
        w: u32,
        why: String,
        strobe: &str,
        terms: Vec<Expr>,
    ) {
        let (d, q) = (id(format!("{name}_d")), id(format!("{name}_q")));
        self.comb.push(Stmt::Comment(why));
        self.comb.push(Stmt::assign(d.clone(), q));
        self.comb.push(Stmt::if_(
            id("rd_adv"),
            vec![Stmt::assign(d.clone(), Expr::zero(w))],
        ));
        self.comb.push(Stmt::if_(
            id(strobe),
            vec![Stmt::assign(d, or_reduce_bits(terms))],
        ));
    }

    /// Window, element index and offset wires of a group, and its decode statements.
    fn group_decode(&mut self, g: &Group, write: bool) -> Vec<Stmt> {
        let (d, addr, en_sel) = if write {
            ("w", "s_axil_awaddr", "wsel")
        } else {
            ("r", "s_axil_araddr", "rsel")
        };
        let aw = self.aw;
        let wb = log2(g.window);
        let sb = log2(g.stride);
        let win = format!("{}_{d}win", g.name);
        let idx = format!("{}_{d}idx", g.name);
        let off = format!("{}_{d}off", g.name);
        let win_e = if wb >= aw {
            bit1(true)
        } else if aw - wb == 1 {
            // One address bit picks the window: the bit itself (or its inverse).
            let bit = id(addr).index(Expr::int(i64::from(wb)));
            if (g.offset >> wb) & 1 == 1 {
                bit
            } else {
                Expr::lnot(bit)
            }
        } else {
            Expr::eq(
                id(addr).slice(Expr::int(i64::from(aw) - 1), Expr::int(i64::from(wb))),
                Expr::num(aw - wb, u128::from(g.offset >> wb)),
            )
        };
        self.table
            .push(&Decl::wire(win.clone(), None).comment(format!(
                "{} the {} window {:#x}..{:#x}",
                if write { "write in" } else { "read in" },
                g.name,
                g.offset,
                g.offset + g.window
            )));
        self.assigns.push(id(win.clone()), win_e);
        let idx_e = if wb > sb {
            let bits = id(addr).slice(Expr::int(i64::from(wb) - 1), Expr::int(i64::from(sb)));
            if wb - sb < 32 {
                Expr::concat(vec![Expr::zero(32 - (wb - sb)), bits])
            } else {
                bits
            }
        } else {
            Expr::zero(32)
        };
        self.table
            .push(&Decl::wire(idx.clone(), Range::bits(32)).comment("element index"));
        self.assigns.push(id(idx.clone()), idx_e);
        let has_off = sb > 2;
        if has_off {
            self.table.push(
                &Decl::wire(off.clone(), Range::bits(sb)).comment("byte offset in the element"),
            );
            self.assigns.push(
                id(off.clone()),
                Expr::concat(vec![
                    id(addr).slice(Expr::int(i64::from(sb) - 1), Expr::int(2)),
                    Expr::num(2, 0),
                ]),
            );
        }
        let resp_var = if write { "wr_resp" } else { "rd_slverr_d" };
        let mut arms = Vec::new();
        for r in &g.registers {
            let p = format!("{}_{}", g.name, r.name);
            let off = format!("OFF_{}_{}", g.name.to_uppercase(), r.name.to_uppercase());
            let lo = id(off.clone());
            let hi = id(format!("{off}_HI"));
            let ok = if write {
                r.is_writable()
            } else {
                r.is_readable()
            };
            let resp_stmt = if write {
                Stmt::assign(
                    id(resp_var),
                    id(if ok { "RESP_OKAY" } else { "RESP_SLVERR" }),
                )
            } else {
                Stmt::assign(id(resp_var), bit1(true))
            };
            let sel_needed = r.is_writable();
            let mut hit = vec![resp_stmt.clone()];
            if write {
                if r.width == 64 && ok {
                    arms.push((
                        vec![lo.clone()],
                        vec![
                            resp_stmt.clone(),
                            Stmt::assign(id("wr_lo_store"), bit1(true)),
                        ],
                    ));
                }
                if sel_needed {
                    hit.push(Stmt::assign(id(format!("{p}_{en_sel}")), bit1(true)));
                }
                if r.width == 64 {
                    if !ok {
                        arms.push((vec![lo.clone()], vec![resp_stmt.clone()]));
                    }
                    arms.push((vec![hi.clone()], hit));
                } else {
                    arms.push((vec![lo.clone()], hit));
                }
            } else if !ok {
                arms.push((vec![lo.clone()], hit.clone()));
                if r.width == 64 {
                    arms.push((vec![hi.clone()], hit));
                }
            } else {
                let mut hit = vec![Stmt::assign(id(format!("{p}_rsel_d")), bit1(true))];
                if g.fetches_reads() {
                    hit.push(Stmt::assign(id("rd_fetch_d"), bit1(true)));
                }
                if r.width == 64 {
                    hit.push(Stmt::assign(id("rd_latch_d"), bit1(true)));
                    arms.push((vec![lo.clone()], hit));
                    arms.push((
                        vec![hi.clone()],
                        vec![Stmt::assign(id("rd_hi_rsel_d"), bit1(true))],
                    ));
                } else {
                    arms.push((vec![lo.clone()], hit));
                }
            }
        }
        let inner = if has_off {
            vec![Stmt::Case {
                subject: id(off),
                arms,
                default: vec![],
            }]
        } else {
            arms.into_iter().next().map(|(_, s)| s).unwrap_or_default()
        };
        let hit = Stmt::if_(
            Expr::and(id(win), Expr::lt(id(idx.clone()), Self::count_expr(g))),
            inner,
        );
        // A read of an array without readable registers only answers SLVERR, from the address:
        // no element index to keep (nothing would read it; `verilator -Wall` UNUSEDSIGNAL).
        if write || !g.registers.iter().any(|r| r.is_readable()) {
            return vec![hit];
        }
        // The element index, registered for the data stage (`_rd_elem_q`), and widened to 32
        // bits there (`_rd_elem`) so it compares with the generate index without width warnings.
        let elem = format!("{}_rd_elem", g.name);
        self.table.push(
            &Decl::wire(elem.clone(), Range::bits(32)).comment("element of the decoded read"),
        );
        if wb > sb {
            let n = wb - sb;
            self.state(&elem, n, Expr::zero(n), None);
            let q = id(format!("{elem}_q"));
            self.assigns.push(
                id(elem.clone()),
                if n < 32 {
                    Expr::concat(vec![Expr::zero(32 - n), q])
                } else {
                    q
                },
            );
            let bits = if n == 1 {
                id(idx).index(Expr::int(0))
            } else {
                id(idx).slice(Expr::int(i64::from(n) - 1), Expr::int(0))
            };
            vec![Stmt::assign(id(format!("{elem}_d")), bits), hit]
        } else {
            self.assigns.push(id(elem), Expr::zero(32));
            vec![hit]
        }
    }

    /// Field code of the top-level registers `regs`, after what is in the module's lists.
    fn top_fields(&mut self, regs: &[&Register], by_name: &HashMap<&str, &Register>) {
        // Written straight after what is already in the module's (pre-sized) lists: no second
        // copy of every field's code.
        let mut body = FieldCode {
            decls: std::mem::take(&mut self.table),
            assigns: std::mem::take(&mut self.assigns),
            comb: std::mem::take(&mut self.comb),
            flops: std::mem::take(&mut self.flops),
        };
        let read_strobe = self.read_strobe();
        top_field_code(regs, by_name, read_strobe, &mut body, &mut self.irq_terms);
        self.table = body.decls;
        self.comb = body.comb;
        self.flops = body.flops;
        self.assigns = body.assigns;
    }

    fn group(&mut self, g: &Group) {
        let scope = Scope { group: Some(g) };
        let count = Self::count_expr(g);
        // The loop's items are one generate level deeper.
        let mut body = FieldCode {
            decls: DeclTable::new(),
            assigns: PrintedAssigns::new(1),
            comb: PrintedStmts::new(1),
            flops: PrintedFlops::new(1),
        };
        let mut irq = Vec::new();
        let scope_regs: Vec<&Register> = g.registers.iter().collect();
        let scope_by_name = by_name(&scope_regs);
        for r in &g.registers {
            let p = scope.prefix(r);
            // One software-access strobe per register of the element, shared by its fields.
            let mut strobe = |name: String, needed: bool, e: Expr, what: &str| {
                if !needed {
                    return e;
                }
                body.decls
                    .push(&Decl::wire(name.clone(), None).comment(what.to_string()));
                body.assigns.push(id(name.clone()), e);
                id(name)
            };
            let swe = strobe(
                format!("{p}_swe"),
                r.is_writable(),
                Expr::all(vec![
                    id("wr_en"),
                    id(format!("{p}_wsel")),
                    Expr::eq(id(format!("{}_widx", g.name)), id("i")),
                ]),
                "software writes this element's register",
            );
            let sre = strobe(
                format!("{p}_sre"),
                needs_rsel(r),
                Expr::all(vec![
                    // A fetched element is read (and cleared or set) as it is fetched.
                    id(if g.fetches_reads() {
                        "rd_fetch_q"
                    } else {
                        "rd_adv"
                    }),
                    id(format!("{p}_rsel_q")),
                    Expr::eq(id(format!("{}_rd_elem", g.name)), id("i")),
                ]),
                "software reads this element's register",
            );
            for f in &r.fields {
                field_logic(scope, r, f, &swe, &sre, &mut body);
            }
            if r.is_readable() {
                // Element i's read value, packed for the read mux.
                let value = format!("{p}_rvalue");
                let w = i64::from(r.width);
                self.table.push(&Decl::wire(
                    value.clone(),
                    Some(Range::width(Expr::times(count.clone(), Expr::int(w)))),
                ));
                body.assigns.push(
                    id(value).part(Expr::times(id("i"), Expr::int(w)), Expr::int(w)),
                    read_value(scope, r, 0, r.width - 1),
                );
            }
            if let Some(en) = &r.interrupt_enable {
                irq.extend(irq_terms(scope, r, en, &scope_by_name));
            }
        }
        if !irq.is_empty() {
            let name = format!("{}_irq", g.name);
            self.table.push(
                &Decl::wire(name.clone(), Some(Range::width(count.clone()))).comment("per element"),
            );
            body.assigns
                .push(id(name.clone()).index(id("i")), or_reduce(irq));
            self.irq_terms.push(id(name));
        }
        let mut items = vec![V::Comment(vec![format!(
            "Element i of {} at {:#x} + i * {:#x}{}",
            g.name,
            g.offset,
            g.stride,
            if g.description.is_empty() {
                String::new()
            } else {
                format!(": {}", g.description)
            }
        )])];
        if !body.decls.is_empty() {
            items.push(V::DeclTable(body.decls));
        }
        if !body.assigns.is_empty() {
            items.push(V::PrintedAssigns(body.assigns));
        }
        if !body.comb.is_empty() {
            items.push(V::PrintedComb(body.comb));
        }
        if !body.flops.is_empty() {
            items.push(V::PrintedFlops(body.flops));
        }
        self.generates.push(V::GenFor {
            var: "i".into(),
            to: count,
            label: format!("g_{}", g.name),
            items,
        });
    }

    fn irq(&mut self) {
        if self.irq_terms.is_empty() {
            return;
        }
        let terms = std::mem::take(&mut self.irq_terms);
        self.assigns.push(id("irq_o"), or_reduce(terms));
    }

    /// Inputs whose bits the block does not use, named so `verilator -Wall` knows it is
    /// deliberate: protection bits, the address byte offset, and write data/strobe bits that
    /// fall in reserved bit positions.
    fn unused(&mut self) {
        let mut v = vec![
            id("s_axil_awprot"),
            id("s_axil_arprot"),
            id("s_axil_awaddr").slice(Expr::int(1), Expr::int(0)),
            id("s_axil_araddr").slice(Expr::int(1), Expr::int(0)),
            id("s_axil_wdata"),
            id("s_axil_wstrb"),
        ];
        if self.mask {
            v.push(id("wr_mask"));
        }
        if self.has64 {
            v.push(id("wr_data64"));
            v.push(id("wr_lo_strb_q"));
        }
        if self.mask64 {
            v.push(id("wr_mask64"));
        }
        self.table
            .push(&Decl::wire("unused_ok", None).comment("deliberately unused bits (see below)"));
        self.assigns
            .push(id("unused_ok"), Expr::un(UnOp::RedXor, Expr::concat(v)));
    }

    /// The module, with `table` ([`register_table`] of the map) in its header.
    fn finish(self, table: Vec<String>) -> Module {
        let map = self.map;
        let mut header = vec![
            format!(
                "{}: AXI4-Lite control and status registers of block `{}`.",
                module_name(map),
                map.block
            ),
            String::new(),
            format!(
                "Generated by {} from {} (map version {}).",
                self.opts.generator, map.file, map.version
            ),
            "Do not edit: change the map and run `make rtl`.".into(),
        ];
        if !map.description.is_empty() {
            header.push(String::new());
            header.extend(wrap(&map.description, 96));
        }
        header.push(String::new());
        header.extend(
            [
                "Bus: 32-bit AXI4-Lite; WSTRB byte lanes are honoured. Responses: OKAY; SLVERR for a",
                "write to a register with no writable field or a read of one with no readable field;",
                "DECERR for an address that holds no register. 64-bit registers: reading the low half",
                "latches the high half; writing the high half commits both halves (one shared shadow).",
                "Field update order per cycle: software write or read effect, then hardware load,",
                "clear, set and count; so hardware wins and no event is lost. A write takes effect",
                "at its AW/W handshake (BVALID the next cycle). A read is decoded at its AR handshake",
                "and takes effect (value, clear or set on read, 64-bit latch) in the next cycle in",
                "which the R register is free, RVALID following: two cycles after AR when RREADY",
                "is high. One decoded read waits while R is full; AR stalls behind it.",
            ]
            .map(String::from),
        );
        header.push(String::new());
        header.extend(table);

        // The checks and localparams, in a list with room for the rest; the declarations'
        // table follows them.
        let mut items = self.decls;
        items.reserve(16 + 2 * self.generates.len());
        if !self.table.is_empty() {
            items.push(V::DeclTable(self.table));
        }
        items.push(V::Blank);
        items.push(V::PrintedAssigns(self.assigns));
        items.push(V::Blank);
        items.push(V::PrintedComb(self.comb));
        items.push(V::Blank);
        items.push(V::PrintedFlops(self.flops));
        if !self.generates.is_empty() {
            items.push(V::Blank);
            items.push(V::Decl(Decl::new(verilog_ast::Kind::Genvar, "i", None)));
        }
        for g in self.generates {
            items.push(V::Blank);
            items.push(g);
        }
        Module {
            name: module_name(map),
            header,
            params: self.params,
            ports: self.ports,
            items,
            reset: self.opts.reset,
        }
    }
}

/// The module's parameters; their range checks (simulation only) are pushed to `items`.
fn parameters(map: &RegMap, items: &mut Vec<V>) -> Vec<Param> {
    let mut params = Vec::new();
    let mut checks = Vec::new();
    for p in interface::module_parameters(map) {
        params.push(Param {
            name: p.name.to_string(),
            default: Expr::int(p.default as i64),
            comment: Some(format!(
                "{}{}range {}..{}",
                p.description.trim_end_matches('.'),
                if p.description.is_empty() { "" } else { "; " },
                p.min,
                p.max
            )),
        });
        checks.push(Stmt::param_range_check(&p.name.text, p.min, p.max));
    }
    if !checks.is_empty() {
        items.push(V::Comment(vec![
            "Parameter range checks (simulation and lint only)".into(),
        ]));
        items.push(V::SimInitial(checks));
        items.push(V::Blank);
    }
    params
}

fn bits_text(f: &Field) -> String {
    let mut s = String::with_capacity(5);
    push_decimal(&mut s, u64::from(f.msb));
    if f.msb != f.lsb {
        s.push(':');
        push_decimal(&mut s, u64::from(f.lsb));
    }
    s
}

/// Bits of a fetched group's word register: its widest readable register.
fn fetch_word_width(g: &Group) -> u32 {
    g.registers
        .iter()
        .filter(|r| r.is_readable())
        .map(|r| r.width)
        .max()
        .unwrap_or(32)
}

/// The register needs a read strobe of its own: a field changes on a read (`rc`, `rs`) or
/// tells hardware of one (`read_strobe`).
fn needs_rsel(r: &Register) -> bool {
    r.fields
        .iter()
        .any(|f| matches!(f.access, Access::Rc | Access::Rs) || f.read_strobe)
}

/// The value software reads from bits `lo..=hi` of `r`: fields in bit order, reserved bits 0.
fn read_value(scope: Scope, r: &Register, lo: u32, hi: u32) -> Expr {
    let mut fields: Vec<&Field> = r
        .fields
        .iter()
        // Write-only fields read as 0, so they are gaps like reserved bits.
        .filter(|f| f.access.sw_reads() && f.msb >= lo && f.lsb <= hi)
        .collect();
    fields.sort_by_key(|f| std::cmp::Reverse(f.lsb));
    // A part per field and one per gap before it, and the gap below the last.
    let mut parts = Vec::with_capacity(2 * fields.len() + 1);
    let mut next = hi + 1; // one past the next bit to fill, counting down
    for f in fields {
        let top = f.msb.min(hi);
        let bot = f.lsb.max(lo);
        if top + 1 < next {
            parts.push(Expr::zero(next - top - 1));
        }
        let value = field_value(scope, r, f);
        let sliced = if top == f.msb && bot == f.lsb {
            value
        } else {
            value.bits(top - f.lsb, bot - f.lsb)
        };
        parts.push(sliced);
        next = bot;
    }
    if next > lo {
        parts.push(Expr::zero(next - lo));
    }
    if parts.len() == 1 {
        parts.pop().unwrap_or_else(|| Expr::zero(hi - lo + 1))
    } else {
        Expr::concat(parts)
    }
}

/// What a field contributes to a read.
fn field_value(scope: Scope, r: &Register, f: &Field) -> Expr {
    if !f.access.sw_reads() {
        return Expr::zero(f.width());
    }
    if f.constant {
        return Expr::num(f.width(), u128::from(f.reset));
    }
    // `prefix_field_q` or `_i` built in one string (each field of each register comes here).
    let prefix = scope.prefix(r);
    let mut name = String::with_capacity(prefix.len() + f.name.len() + 3);
    for piece in [&*prefix, "_", &f.name] {
        name.push_str(piece);
    }
    if f.is_stored() {
        name.push_str("_q");
        id(name)
    } else {
        name.push_str("_i");
        scope.port(name, f.width())
    }
}

/// The registers of one scope by name (the first of a name), so pairing interrupt status and
/// enable registers stays linear in maps with thousands of them.
fn by_name<'a>(regs: &[&'a Register]) -> HashMap<&'a str, &'a Register> {
    let mut map = HashMap::with_capacity(regs.len());
    for r in regs {
        map.entry(r.name.text.as_str()).or_insert(*r);
    }
    map
}

/// `status & enable` of every field of an interrupt status register.
/// `regs` are the registers of the status register's scope, where validation found the enable.
fn irq_terms(
    scope: Scope,
    r: &Register,
    enable: &str,
    regs: &HashMap<&str, &Register>,
) -> Vec<Expr> {
    let Some(&en) = regs.get(enable) else {
        return Vec::new();
    };
    r.fields
        .iter()
        .filter_map(|f| {
            let ef = en.fields.iter().find(|e| e.name.text == f.name.text)?;
            Some(Expr::band(
                field_value(scope, r, f),
                field_value(scope, en, ef),
            ))
        })
        .collect()
}

/// `|{a, b, ...}`, or the single operand's reduction.
fn or_reduce(mut terms: Vec<Expr>) -> Expr {
    if terms.len() == 1 {
        Expr::un(UnOp::RedOr, terms.pop().unwrap_or_else(|| bit1(false)))
    } else {
        Expr::un(UnOp::RedOr, Expr::concat(terms))
    }
}

/// The bitwise OR of `terms` (at least one).
fn or_reduce_bits(terms: Vec<Expr>) -> Expr {
    terms
        .into_iter()
        .reduce(Expr::bor)
        .unwrap_or_else(|| bit1(false))
}

/// A strobe output `<p><kind>_o` from its flop `<p><kind>_q`, reset to 0, loaded with `d`.
fn strobe_flop(scope: Scope, p: &str, kind: &str, d: Expr, out: &mut FieldCode) {
    let sq = cat(p, kind, "_q");
    let sd = cat(p, kind, "_d");
    out.decls.push_reg(&sq, 1, None);
    out.decls.push_reg(&sd, 1, None);
    out.flops.push(Flop {
        q: id(sq.clone()),
        d: id(sd.clone()),
        reset: Some(bit1(false)),
    });
    out.assigns.push(scope.port(cat(p, kind, "_o"), 1), id(sq));
    out.comb.push(Stmt::assign(id(sd), d));
}

/// Storage, logic and ports of top-level registers `regs` (in order) into `body`, and the
/// interrupt terms of those with an enable into `irq`; `by_name` holds every top-level register;
/// reads take effect with `read_strobe` ([`Gen::read_strobe`]).
fn top_field_code(
    regs: &[&Register],
    by_name: &HashMap<&str, &Register>,
    read_strobe: &str,
    body: &mut FieldCode,
    irq: &mut Vec<Expr>,
) {
    let scope = Scope { group: None };
    for &r in regs {
        let swe = Expr::and(id("wr_en"), id(cat(&r.name, "_wsel", "")));
        let sre = Expr::and(id(read_strobe), id(cat(&r.name, "_rsel_q", "")));
        for f in &r.fields {
            field_logic(scope, r, f, &swe, &sre, body);
        }
        if let Some(en) = &r.interrupt_enable {
            irq.extend(irq_terms(scope, r, en, by_name));
        }
    }
}

struct FieldCode {
    decls: DeclTable,
    assigns: PrintedAssigns,
    comb: PrintedStmts,
    flops: PrintedFlops,
}

impl FieldCode {
    /// Empty lists for the module-level code of `regs`, sized as [`Gen::new`] sizes the
    /// module's.
    fn for_registers(regs: &[&Register]) -> Self {
        let fields: usize = regs.iter().map(|r| r.fields.len()).sum();
        FieldCode {
            decls: DeclTable::with_capacity(3 * fields, 120 * fields),
            assigns: PrintedAssigns::with_capacity(0, 80 * fields),
            comb: PrintedStmts::with_capacity(0, 512 * fields),
            flops: PrintedFlops::with_capacity(0, 2 * fields),
        }
    }
}

/// Storage, next-state logic and ports of one field, in the one documented order.
fn field_logic(scope: Scope, r: &Register, f: &Field, swe: &Expr, sre: &Expr, out: &mut FieldCode) {
    let stored = f.is_stored();
    if !stored && !f.read_strobe {
        return;
    }
    let bits = bits_text(f);
    let mut comment = String::with_capacity(32 + bits.len() + f.description.len());
    for piece in [
        r.name.text.as_str(),
        ".",
        &f.name,
        " [",
        &bits,
        "] ",
        f.access.as_str(),
    ] {
        comment.push_str(piece);
    }
    if !f.description.is_empty() {
        comment.push_str(": ");
        comment.push_str(&f.description);
    }
    let w = f.width();
    let p = cat(&scope.prefix(r), "_", &f.name);
    let q = id(cat(&p, "_q", ""));
    let d = id(cat(&p, "_d", ""));
    let port = |suffix: &str, width: u32| scope.port(cat(&p, "_", suffix), width);
    if stored {
        out.decls.push_reg(&cat(&p, "_q", ""), w, None);
        out.decls.push_reg(&cat(&p, "_d", ""), w, None);
        out.flops.push(Flop {
            q: q.clone(),
            d: d.clone(),
            reset: Some(Expr::num(w, u128::from(f.reset))),
        });
        if f.hw_read {
            out.assigns.push(port("o", w), q.clone());
        }
    }
    out.comb
        .extend(wrap_owned(comment, 92).into_iter().map(Stmt::Comment));
    // The read strobe `P_rd_stb_o`: high for one cycle, the cycle after a read takes the
    // field's value (when an `rc` field's `_o` first shows the clear), like `_stb_o` after a
    // write. Registered, so the output does not follow RREADY through the read's move to R; a
    // read is taken at most every other cycle, so hardware that pops a FIFO on the strobe
    // shows the next entry to the next read. An input's only logic.
    if f.read_strobe {
        strobe_flop(scope, &p, "_rd_stb", sre.clone(), out);
    }
    if !stored {
        return;
    }

    let (data, mask) = if r.width == 64 {
        ("wr_data64", "wr_mask64")
    } else {
        ("s_axil_wdata", "wr_mask")
    };
    // Write data and mask bits, made where used: read-only fields need neither, and a fresh
    // one costs what a copy would (no copy left over to free).
    let wd = || id(data).bits(f.msb, f.lsb);
    let wm = || id(mask).bits(f.msb, f.lsb);
    let c = &mut out.comb;
    // A clear-on-read counter that nothing else loads: the count is taken from `q`, and a read
    // then replaces it with this cycle's increment alone (the same value as clearing first).
    // So the adder's carry chain does not wait for the read strobe.
    let clear_after_count =
        f.access == Access::Rc && f.hw.counter.is_some() && !(f.hw.write || f.hw.clear || f.hw.set);
    // 1. software
    match f.access {
        Access::Wp => {
            c.push(Stmt::assign(d.clone(), Expr::zero(w)));
            c.push(Stmt::if_(
                swe.clone(),
                vec![Stmt::assign(d.clone(), Expr::band(wd(), wm()))],
            ));
        }
        _ => {
            // The last use of `q`: moved, not copied.
            c.push(Stmt::assign(d.clone(), q));
            if matches!(f.access, Access::Rw | Access::Wo) && scope.group.is_none() {
                // One `if` per byte lane: a flop's enable is then the register's write strobe
                // and that lane's WSTRB bit, and its D input the write data (no LUT per bit,
                // as a mask expression needs). Not in an array, whose write strobe already
                // compares the element index: with the lane there too, the enable of a
                // 64-element array measured one LUT level over the target (issue 9).
                let lanes = lane_writes(f, r.width == 64, &d, data);
                c.push(Stmt::if_(swe.clone(), lanes));
            }
            let write = match f.access {
                Access::Rw | Access::Wo if scope.group.is_some() => Some(Expr::bor(
                    Expr::band(d.clone(), Expr::bitnot(wm())),
                    Expr::band(wd(), wm()),
                )),
                Access::W1c => Some(Expr::band(d.clone(), Expr::bitnot(Expr::band(wd(), wm())))),
                Access::W1s => Some(Expr::bor(d.clone(), Expr::band(wd(), wm()))),
                Access::W0c => Some(Expr::band(d.clone(), Expr::bor(wd(), Expr::bitnot(wm())))),
                _ => None,
            };
            if let Some(e) = write {
                c.push(Stmt::if_(swe.clone(), vec![Stmt::assign(d.clone(), e)]));
            }
            match f.access {
                Access::Rc if clear_after_count => {}
                Access::Rc => c.push(Stmt::if_(
                    sre.clone(),
                    vec![Stmt::assign(d.clone(), Expr::zero(w))],
                )),
                Access::Rs => c.push(Stmt::if_(
                    sre.clone(),
                    vec![Stmt::assign(d.clone(), Expr::ones(w))],
                )),
                _ => {}
            }
        }
    }
    // The write strobe: high the cycle after a write whose WSTRB covers a byte of the field,
    // when `_o` already shows what it wrote, whatever the value.
    if f.has_write_strobe() {
        let d = Expr::and(swe.clone(), Expr::un(UnOp::RedOr, wm()));
        strobe_flop(scope, &p, "_stb", d, out);
    }
    let c = &mut out.comb;
    // 2-5. hardware: load, clear, set, count
    if f.hw.write {
        c.push(Stmt::if_(
            port("we_i", 1),
            vec![Stmt::assign(d.clone(), port("d_i", w))],
        ));
    }
    if f.hw.clear {
        c.push(Stmt::assign(
            d.clone(),
            Expr::band(d.clone(), Expr::bitnot(port("clr_i", w))),
        ));
    }
    if f.hw.set {
        c.push(Stmt::assign(
            d.clone(),
            Expr::bor(d.clone(), port("set_i", w)),
        ));
    }
    if let Some(cnt) = &f.hw.counter {
        let sw = cnt.step_width;
        let incr = port("incr_i", sw);
        let widened = |total: u32| {
            if total > sw {
                Expr::concat(vec![Expr::zero(total - sw), incr.clone()])
            } else {
                incr.clone()
            }
        };
        // Wider than 32 bits: the low 32 bits take the step and the high part's +1 is formed
        // beside them, chosen by the low part's carry (carry select), so that no carry chain
        // runs through all the bits. A 64-bit chain was the longest path of the UAR block by
        // ABC9's delays, and every other path was then mapped against it, deeper (issue 9).
        // Only a saturating counter keeps the high part's carry: a wrapping one drops it, and
        // an unused bit would fail `verilator -Wall`.
        let split = (w > 32 && sw <= 32).then(|| {
            let lo = cat(&p, "_sum_lo", "");
            let hi = cat(&p, "_inc_hi", "");
            out.decls
                .push_reg(&lo, 33, Some("low 32 bits + step, with carry"));
            if cnt.saturate {
                out.decls
                    .push_reg(&hi, w - 31, Some("high bits + 1, with carry"));
            } else {
                out.decls.push_reg(&hi, w - 32, Some("high bits + 1"));
            }
            c.push(Stmt::assign(
                id(lo.clone()),
                Expr::plus(
                    Expr::concat(vec![Expr::zero(1), d.clone().bits(31, 0)]),
                    Expr::concat(vec![Expr::zero(33 - sw), incr.clone()]),
                ),
            ));
            c.push(Stmt::assign(
                id(hi.clone()),
                if cnt.saturate {
                    Expr::plus(
                        Expr::concat(vec![Expr::zero(1), d.clone().bits(w - 1, 32)]),
                        Expr::num(w - 31, 1),
                    )
                } else {
                    Expr::plus(d.clone().bits(w - 1, 32), Expr::num(w - 32, 1))
                },
            ));
            (lo, hi)
        });
        if cnt.saturate {
            let sum = cat(&p, "_sum", "");
            out.decls.push(
                &Decl::reg(sum.clone(), Some(Range::width(Expr::int(i64::from(w) + 1))))
                    .comment("count with carry"),
            );
            c.push(Stmt::assign(
                id(sum.clone()),
                match &split {
                    Some((lo, hi)) => Expr::ternary(
                        id(lo.clone()).index(Expr::int(32)),
                        Expr::concat(vec![id(hi.clone()), id(lo.clone()).bits(31, 0)]),
                        Expr::concat(vec![
                            Expr::zero(1),
                            d.clone().bits(w - 1, 32),
                            id(lo.clone()).bits(31, 0),
                        ]),
                    ),
                    None => {
                        Expr::plus(Expr::concat(vec![Expr::zero(1), d.clone()]), widened(w + 1))
                    }
                },
            ));
            c.push(Stmt::assign(
                d.clone(),
                Expr::ternary(
                    id(sum.clone()).index(Expr::int(i64::from(w))),
                    Expr::ones(w),
                    id(sum).bits(w - 1, 0),
                ),
            ));
        } else if let Some((lo, hi)) = &split {
            c.push(Stmt::assign(
                d.clone(),
                Expr::ternary(
                    id(lo.clone()).index(Expr::int(32)),
                    Expr::concat(vec![id(hi.clone()), id(lo.clone()).bits(31, 0)]),
                    Expr::concat(vec![d.clone().bits(w - 1, 32), id(lo.clone()).bits(31, 0)]),
                ),
            ));
        } else {
            c.push(Stmt::assign(d.clone(), Expr::plus(d.clone(), widened(w))));
        }
        if clear_after_count {
            c.push(Stmt::if_(
                sre.clone(),
                vec![Stmt::assign(d.clone(), widened(w))],
            ));
        }
    }
}

/// `a` + `b` + `c`: names are built per field of every register, and `format!` costs several
/// times as much for such short pieces.
fn cat(a: &str, b: &str, c: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len() + c.len());
    s.push_str(a);
    s.push_str(b);
    s.push_str(c);
    s
}

/// `a` + `b` in upper case + `c` (`ADDR_` names of registers), without `format!`.
fn upper_cat(a: &str, b: &str, c: &str) -> String {
    let mut s = String::with_capacity(a.len() + b.len() + c.len());
    s.push_str(a);
    push_upper(&mut s, b);
    s.push_str(c);
    s
}

/// True when `text` is already one wrapped line: at most `width` bytes, words separated by
/// single spaces.
fn fits_one_line(text: &str, width: usize) -> bool {
    text.len() <= width && rdmagen_regmap::text::single_spaced(text)
}

/// [`wrap`] of an owned text: a text that already fits is the one line, without a copy.
fn wrap_owned(text: String, width: usize) -> Vec<String> {
    if fits_one_line(&text, width) {
        vec![text]
    } else {
        wrap(&text, width)
    }
}

fn wrap(text: &str, width: usize) -> Vec<String> {
    // Most comments (one per field) already fit on a line with single spaces: one copy.
    if fits_one_line(text, width) {
        return vec![text.to_owned()];
    }
    let mut lines = Vec::new();
    let mut cur = String::with_capacity(width.min(text.len()));
    for word in text.split_whitespace() {
        if !cur.is_empty() && cur.len() + 1 + word.len() > width {
            lines.push(std::mem::take(&mut cur));
        }
        if !cur.is_empty() {
            cur.push(' ');
        }
        cur.push_str(word);
    }
    if !cur.is_empty() {
        lines.push(cur);
    }
    lines
}

/// The register table in the file header: offset, register, bits, field, access, reset.
fn register_table(map: &RegMap) -> Vec<String> {
    // Every cell is written into one buffer and kept as a range: a NIC-scale map has a row per
    // field, thousands of them, and six strings per row were most of the table's cost.
    let mut cells = String::with_capacity(64 * 1024);
    let mut rows: Vec<[std::ops::Range<usize>; 6]> = Vec::with_capacity(1 + map_fields(map));
    let cell = |cells: &mut String, text: &str| {
        let start = cells.len();
        cells.push_str(text);
        start..cells.len()
    };
    rows.push(
        ["offset", "register", "bits", "field", "access", "reset"].map(|h| cell(&mut cells, h)),
    );
    let mut fields: Vec<&Field> = Vec::new();
    for (g, r) in map.registers() {
        let off_start = cells.len();
        match g {
            Some(g) => push_hex(&mut cells, g.offset + r.offset, 4),
            None => push_hex(&mut cells, r.offset, 4),
        }
        if let Some(g) = g {
            cells.push_str("+i*");
            push_hex(&mut cells, g.stride, 1);
        }
        let off = off_start..cells.len();
        let name = match g {
            Some(g) => {
                let start = cells.len();
                for piece in [g.name.text.as_str(), "[i].", &r.name] {
                    cells.push_str(piece);
                }
                start..cells.len()
            }
            None => cell(&mut cells, &r.name),
        };
        fields.clear();
        fields.extend(r.fields.iter());
        fields.sort_by_key(|f| std::cmp::Reverse(f.lsb));
        for (k, f) in fields.iter().enumerate() {
            let bits = {
                let start = cells.len();
                push_decimal(&mut cells, u64::from(f.msb));
                if f.msb != f.lsb {
                    cells.push(':');
                    push_decimal(&mut cells, u64::from(f.lsb));
                }
                start..cells.len()
            };
            let field = cell(&mut cells, &f.name);
            let access = {
                let start = cells.len();
                f.push_access_label(&mut cells);
                start..cells.len()
            };
            let reset = match f.reset_value() {
                Some(v) => {
                    let start = cells.len();
                    push_hex(&mut cells, v, 1);
                    start..cells.len()
                }
                None => cell(&mut cells, "-"),
            };
            let (o, n) = if k == 0 {
                (off.clone(), name.clone())
            } else {
                (0..0, 0..0)
            };
            rows.push([o, n, bits, field, access, reset]);
        }
    }
    let mut w = [0usize; 6];
    for r in &rows {
        for c in 0..6 {
            w[c] = w[c].max(r[c].len());
        }
    }
    let line_len: usize = w.iter().sum::<usize>() + 10;
    const SPACES: &str = "                                                                ";
    // Padding counts characters, as `format!` does.
    let pad = |line: &mut String, text: &str, width: usize| {
        let chars = if text.is_ascii() {
            text.len()
        } else {
            text.chars().count()
        };
        let n = width.saturating_sub(chars);
        match SPACES.get(..n) {
            Some(s) => line.push_str(s),
            None => line.extend(std::iter::repeat_n(' ', n)),
        }
    };
    rows.iter()
        .map(|r| {
            // `{:<w0$}  {:<w1$}  {:>w2$}  {:<w3$}  {:<w4$}  {}`, trailing blanks trimmed.
            let mut line = String::with_capacity(line_len);
            for c in 0..6 {
                let text = &cells[r[c].clone()];
                if c == 2 {
                    pad(&mut line, text, w[c]);
                    line.push_str(text);
                } else {
                    line.push_str(text);
                    if c < 5 {
                        pad(&mut line, text, w[c]);
                    }
                }
                if c < 5 {
                    line.push_str("  ");
                }
            }
            line.truncate(line.trim_end().len());
            line
        })
        .collect()
}

/// The number of fields of every register of the map (element registers once).
fn map_fields(map: &RegMap) -> usize {
    map.registers().map(|(_, r)| r.fields.len()).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A flat map of `n` registers of three fields each, every fourth an interrupt status
    /// register enabled by the next one, with counters and 64-bit registers among them.
    fn flat_map(n: usize) -> RegMap {
        let mut text = String::from("block: wide\nversion: 1.0.0\nregisters:\n");
        let mut offset = 0;
        for i in 0..n {
            let (width, step) = if i % 7 == 6 { (64, 8) } else { (32, 4) };
            text.push_str(&format!(
                "  - name: r{i}\n    offset: {offset:#x}\n    width: {width}\n"
            ));
            if i % 4 == 0 {
                text.push_str(&format!("    interrupt: {{ enable: r{} }}\n", i + 1));
                text.push_str("    fields:\n      - { name: a, bits: 0, access: w1c, hw_set: true }\n      - { name: b, bits: 1, access: w1c, hw_set: true }\n      - { name: c, bits: 2, access: w1c, hw_set: true }\n");
            } else if i % 4 == 1 {
                text.push_str("    fields:\n      - { name: a, bits: 0, access: rw }\n      - { name: b, bits: 1, access: rw }\n      - { name: c, bits: 2, access: rw }\n");
            } else {
                text.push_str("    fields:\n      - { name: a, bits: \"7:0\", access: rw, reset: 3 }\n      - { name: n, bits: \"31:16\", access: rc, counter: { step_width: 2 } }\n      - { name: s, bits: 8, access: ro, hw_write: true }\n");
            }
            offset += step;
        }
        rdmagen_regmap::parse("wide.yaml", &text).unwrap_or_else(|d| panic!("{}", d.render(false)))
    }

    /// 64 readable registers outside groups are read in one stage; more move them all to a
    /// fetch stage, whose cycle is also when a read clears (`rc`). (`flat_map(65)` would end
    /// on an interrupt register without its enable.)
    #[test]
    fn many_top_registers_are_read_through_a_fetch_stage() {
        let opts = Options {
            reset: ResetStyle::SyncHigh,
            generator: "test".into(),
        };
        let at = generate(&flat_map(RegMap::TOP_FETCH_ABOVE), &opts).print();
        assert!(
            !at.contains("rd_fetch_q") && !at.contains("rd_top0_word_q"),
            "{at}"
        );
        assert!(at.contains("rd_adv && r2_rsel_q"), "{at}");
        let above = generate(&flat_map(RegMap::TOP_FETCH_ABOVE + 2), &opts).print();
        for want in [
            "rd_top0_word_q",
            "rd_top2_word_q",
            "rd_fetch_q && r2_rsel_q",
            "rd_hit = |{rd_top_ok_q, rd_hi_rsel_q}",
        ] {
            assert!(above.contains(want), "no `{want}` in:\n{above}");
        }
        assert!(!above.contains("rd_top3_word_q") && !above.contains("rd_adv && r2_rsel_q"));
    }

    /// An input's read strobe is the only logic it has: it sits under its own field's
    /// heading, as a stored field's does, not under the field before it.
    #[test]
    fn an_inputs_read_strobe_has_its_fields_heading() {
        let text = "block: q\nversion: 1.0.0\nregisters:\n  - name: fifo\n    offset: 0x0\n    fields:\n      - { name: mode, bits: \"3:0\", access: rw }\n      - { name: data, bits: \"15:8\", access: ro, read_strobe: true }\n      - { name: lost, bits: \"23:16\", access: rc, counter: {}, read_strobe: true }\n";
        let map =
            rdmagen_regmap::parse("q.yaml", text).unwrap_or_else(|d| panic!("{}", d.render(false)));
        let opts = Options {
            reset: ResetStyle::SyncHigh,
            generator: "test".into(),
        };
        let rtl = generate(&map, &opts).print();
        let lines: Vec<&str> = rtl.lines().map(str::trim).collect();
        for (heading, strobe) in [
            (
                "// fifo.data [15:8] ro",
                "fifo_data_rd_stb_d = rd_adv && fifo_rsel_q;",
            ),
            (
                "// fifo.lost [23:16] rc",
                "fifo_lost_rd_stb_d = rd_adv && fifo_rsel_q;",
            ),
        ] {
            let at = lines
                .iter()
                .position(|l| *l == strobe)
                .unwrap_or_else(|| panic!("no `{strobe}` in:\n{rtl}"));
            assert_eq!(lines[at - 1], heading, "{rtl}");
        }
    }

    #[test]
    fn fields_made_on_two_threads_print_as_on_one() {
        let map = flat_map(600);
        assert!(map_fields(&map) >= PARALLEL_FIELDS);
        let opts = Options {
            reset: ResetStyle::SyncHigh,
            generator: "test".into(),
        };
        let two = generate(&map, &opts).print();
        ONE_THREAD.with(|c| c.set(true));
        let one = generate(&map, &opts).print();
        ONE_THREAD.with(|c| c.set(false));
        assert!(
            one.contains("r599_s_d") && one.contains("r596_a_q & r597_a_q"),
            "{one}"
        );
        assert_eq!(two, one);
    }
}
