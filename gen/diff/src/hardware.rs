//! The hardware view: the CSR module an RTL designer instantiates, compared port by port and
//! parameter by parameter from [`rdmagen_csr::interface`], the same description the generator
//! declares the module from.
//!
//! The rule for an instantiation written against the old module:
//! - a removed, renamed, resized or reversed port, and a removed parameter, fail elaboration;
//! - an added input port would float (the instance does not drive it): breaking;
//! - an added output port is left unconnected, which Verilog allows and which changes nothing
//!   the instance sees: compatible;
//! - a changed parameter default changes every instance that relies on it, and a narrowed range
//!   can reject an override that used to be accepted: breaking; a wider range is compatible.

use std::collections::BTreeMap;

use rdmagen_csr::{interface, Interface, ModulePort};
use rdmagen_regmap::{RegMap, Span};
use verilog_ast::ResetStyle;

use crate::software::FieldPair;
use crate::{Change, Class};

fn change(
    class: Class,
    kind: &'static str,
    path: String,
    message: &str,
    old: Option<String>,
    new: Option<String>,
    span: Span,
) -> Change {
    Change {
        class,
        kind,
        path,
        message: message.into(),
        old,
        new,
        span,
    }
}

fn describe(p: &ModulePort) -> String {
    format!(
        "{} [{}]",
        if p.output { "output" } else { "input" },
        p.width
    )
}

pub(crate) fn compare(old: &RegMap, new: &RegMap, field_pairs: &[FieldPair]) -> Vec<Change> {
    // Both sides in one reset style: the style is a project setting, not part of the map.
    let oi = interface(old, ResetStyle::SyncHigh);
    let ni = interface(new, ResetStyle::SyncHigh);
    let block = new.block.span;
    let mut out = Vec::new();
    if oi.module != ni.module {
        out.push(change(
            Class::BreakingHardware,
            "module-renamed",
            "module".into(),
            "CSR module renamed",
            Some(oi.module.clone()),
            Some(ni.module.clone()),
            block,
        ));
    }
    parameters(&oi, &ni, block, &mut out);
    ports(old, new, &oi, &ni, field_pairs, &mut out);
    out
}

fn parameters(oi: &Interface, ni: &Interface, block: Span, out: &mut Vec<Change>) {
    let module = &ni.module;
    for op in &oi.parameters {
        let path = format!("{module} parameter {}", op.name);
        let Some(np) = ni.parameters.iter().find(|p| p.name == op.name) else {
            out.push(change(
                Class::BreakingHardware,
                "module-parameter-removed",
                path,
                "module parameter removed",
                Some(op.default.to_string()),
                None,
                block,
            ));
            continue;
        };
        if op.default != np.default {
            out.push(change(
                Class::BreakingHardware,
                "module-parameter-default",
                path.clone(),
                "module parameter default changed",
                Some(op.default.to_string()),
                Some(np.default.to_string()),
                block,
            ));
        }
        if (op.min, op.max) != (np.min, np.max) {
            let narrowed = np.min > op.min || np.max < op.max;
            out.push(change(
                if narrowed {
                    Class::BreakingHardware
                } else {
                    Class::Compatible
                },
                "module-parameter-range",
                path,
                if narrowed {
                    "module parameter range narrowed"
                } else {
                    "module parameter range widened"
                },
                Some(format!("{}..{}", op.min, op.max)),
                Some(format!("{}..{}", np.min, np.max)),
                block,
            ));
        }
    }
    for np in &ni.parameters {
        if !oi.parameters.iter().any(|p| p.name == np.name) {
            out.push(change(
                Class::Compatible,
                "module-parameter-added",
                format!("{module} parameter {}", np.name),
                "module parameter added (with a default)",
                None,
                Some(np.default.to_string()),
                block,
            ));
        }
    }
}

fn ports(
    old: &RegMap,
    new: &RegMap,
    oi: &Interface,
    ni: &Interface,
    field_pairs: &[FieldPair],
    out: &mut Vec<Change>,
) {
    let block = new.block.span;
    // Where the new map declares each port's field, and where a port of a field that is still
    // there (under any name) went.
    let mut new_span: BTreeMap<String, Span> = BTreeMap::new();
    for (g, r) in new.registers() {
        for f in &r.fields {
            for (name, _, _) in rdmagen_regmap::field_ports(g, r, f) {
                new_span.insert(name, f.name.span);
            }
        }
    }
    let mut renamed: BTreeMap<String, String> = BTreeMap::new();
    let mut old_field_span: BTreeMap<String, Span> = BTreeMap::new();
    for (g, r) in old.registers() {
        for f in &r.fields {
            let prefix = rdmagen_regmap::field_port_prefix(g, r, f);
            let Some(pair) = field_pairs.iter().find(|p| p.old_prefix == prefix) else {
                continue;
            };
            for (name, _, _) in rdmagen_regmap::field_ports(g, r, f) {
                old_field_span.insert(name.clone(), pair.span);
                let suffix = &name[prefix.len()..];
                let target = format!("{}{suffix}", pair.new_prefix);
                if target != name {
                    renamed.insert(name, target);
                }
            }
        }
    }
    let module = &ni.module;
    let path = |name: &str| format!("{module} port {name}");
    let mut matched_new: Vec<&str> = Vec::new();
    for op in &oi.ports {
        let target = renamed
            .get(&op.name)
            .map_or(op.name.as_str(), |t| t.as_str());
        let span = new_span
            .get(target)
            .or_else(|| old_field_span.get(&op.name))
            .copied()
            .unwrap_or(block);
        let found = ni
            .ports
            .iter()
            .find(|p| p.name == target)
            .or_else(|| ni.ports.iter().find(|p| p.name == op.name));
        let Some(np) = found else {
            out.push(change(
                Class::BreakingHardware,
                "port-removed",
                path(&op.name),
                "port removed",
                Some(describe(op)),
                None,
                span,
            ));
            continue;
        };
        matched_new.push(&np.name);
        if np.name != op.name {
            out.push(change(
                Class::BreakingHardware,
                "port-renamed",
                path(&np.name),
                "port renamed",
                Some(op.name.clone()),
                Some(np.name.clone()),
                span,
            ));
        }
        if np.output != op.output {
            out.push(change(
                Class::BreakingHardware,
                "port-direction",
                path(&np.name),
                "port direction changed",
                Some(describe(op)),
                Some(describe(np)),
                span,
            ));
        } else if np.width != op.width {
            out.push(change(
                Class::BreakingHardware,
                "port-width",
                path(&np.name),
                "port width changed",
                Some(describe(op)),
                Some(describe(np)),
                span,
            ));
        }
    }
    for np in &ni.ports {
        if matched_new.contains(&np.name.as_str()) {
            continue;
        }
        let span = new_span.get(np.name.as_str()).copied().unwrap_or(block);
        out.push(if np.output {
            change(
                Class::Compatible,
                "port-added",
                path(&np.name),
                "output port added (an old instance leaves it unconnected)",
                None,
                Some(describe(np)),
                span,
            )
        } else {
            change(
                Class::BreakingHardware,
                "port-added",
                path(&np.name),
                "input port added (an old instance leaves it floating)",
                None,
                Some(describe(np)),
                span,
            )
        });
    }
}
