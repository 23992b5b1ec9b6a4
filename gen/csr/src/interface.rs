//! The instantiation interface of a map's CSR module: its parameters and ports as data.
//!
//! The generator builds its port list and parameter list from these functions, so tools that
//! reason about instantiations (`rdmagen diff`) see exactly the module the RTL declares.

use rdmagen_regmap::{field_ports, Count, Group, Item, Parameter, RegMap};
use verilog_ast::ResetStyle;

use crate::module_name;

/// Everything an instantiation of the CSR module connects or overrides.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interface {
    pub module: String,
    pub parameters: Vec<ModuleParameter>,
    pub ports: Vec<ModulePort>,
}

/// A `parameter integer` of the module.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModuleParameter {
    pub name: String,
    pub default: u64,
    pub min: u64,
    pub max: u64,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModulePort {
    pub name: String,
    pub output: bool,
    pub width: PortWidth,
}

/// A port's width: constant, or one slice per group element (a packed vector).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PortWidth {
    Bits(u32),
    PerElement { count: ElementCount, bits: u32 },
}

/// A group's element count as the module writes it. Unlike [`Count`] it carries no source
/// position, so two maps' interfaces compare equal when their modules are the same.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ElementCount {
    Fixed(u64),
    Parameter(String),
}

impl From<&Count> for ElementCount {
    fn from(c: &Count) -> Self {
        match c {
            Count::Fixed(n) => ElementCount::Fixed(*n),
            Count::Param(p) => ElementCount::Parameter(p.text.clone()),
        }
    }
}

impl std::fmt::Display for PortWidth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            PortWidth::Bits(w) => write!(f, "{w}"),
            PortWidth::PerElement {
                count: ElementCount::Fixed(n),
                bits,
            } => write!(f, "{n}*{bits}"),
            PortWidth::PerElement {
                count: ElementCount::Parameter(p),
                bits,
            } => write!(f, "{p}*{bits}"),
        }
    }
}

/// The AXI4-Lite slave ports after clock and reset: name suffix, output, width.
pub(crate) fn axi_ports(address_width: u32) -> [(&'static str, bool, u32); 19] {
    let aw = address_width;
    [
        ("awaddr", false, aw),
        ("awprot", false, 3),
        ("awvalid", false, 1),
        ("awready", true, 1),
        ("wdata", false, 32),
        ("wstrb", false, 4),
        ("wvalid", false, 1),
        ("wready", true, 1),
        ("bresp", true, 2),
        ("bvalid", true, 1),
        ("bready", false, 1),
        ("araddr", false, aw),
        ("arprot", false, 3),
        ("arvalid", false, 1),
        ("arready", true, 1),
        ("rdata", true, 32),
        ("rresp", true, 2),
        ("rvalid", true, 1),
        ("rready", false, 1),
    ]
}

/// The width of one of a field's ports, replicated per element inside a group.
pub(crate) fn field_port_width(group: Option<&Group>, bits: u32) -> PortWidth {
    match group {
        None => PortWidth::Bits(bits),
        Some(g) => PortWidth::PerElement {
            count: (&g.count).into(),
            bits,
        },
    }
}

/// The module has `irq_o` when any register is an interrupt status register.
pub(crate) fn has_interrupts(map: &RegMap) -> bool {
    map.registers().any(|(_, r)| r.interrupt_enable.is_some())
}

/// Map parameters that size a group; only these become module parameters (an unused one would
/// be a `verilator -Wall` warning).
pub(crate) fn module_parameters(map: &RegMap) -> impl Iterator<Item = &Parameter> {
    map.parameters.iter().filter(|p| {
        map.items.iter().any(|i| {
            matches!(i, Item::Group(g) if matches!(&g.count, Count::Param(n) if n.text == p.name.text))
        })
    })
}

/// The parameters and ports of the module `generate` writes for `map` with reset style `reset`,
/// in declaration order.
pub fn interface(map: &RegMap, reset: ResetStyle) -> Interface {
    let parameters = module_parameters(map)
        .map(|p| ModuleParameter {
            name: p.name.to_string(),
            default: p.default,
            min: p.min,
            max: p.max,
        })
        .collect();
    let port = |name: String, output: bool, width: PortWidth| ModulePort {
        name,
        output,
        width,
    };
    let mut ports = vec![
        port("clk".into(), false, PortWidth::Bits(1)),
        port(reset.port_name().into(), false, PortWidth::Bits(1)),
    ];
    for (suffix, output, w) in axi_ports(map.address_width) {
        ports.push(port(format!("s_axil_{suffix}"), output, PortWidth::Bits(w)));
    }
    for (g, r) in map.registers() {
        for f in &r.fields {
            for (name, output, w) in field_ports(g, r, f) {
                ports.push(port(name, output, field_port_width(g, w)));
            }
        }
    }
    if has_interrupts(map) {
        ports.push(port("irq_o".into(), true, PortWidth::Bits(1)));
    }
    Interface {
        module: module_name(map),
        parameters,
        ports,
    }
}
