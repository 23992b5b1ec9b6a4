//! The three renderings of a [`Report`]: text for people, JSON for scripts, SARIF 2.1.0 for code
//! review tools. JSON and SARIF are built from typed structs and written by serde_json.

use serde::Serialize;

use crate::{Class, Located, Report};

/// Output format of `rdmagen diff`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
    Sarif,
}

pub(crate) fn render(report: &Report, format: Format) -> String {
    match format {
        Format::Text => text(report),
        // Serializing plain structs of strings and numbers cannot fail.
        Format::Json => to_json(&json(report)),
        Format::Sarif => to_json(&sarif(report)),
    }
}

fn to_json<T: Serialize>(value: &T) -> String {
    let mut s = serde_json::to_string_pretty(value).unwrap_or_default();
    s.push('\n');
    s
}

fn old_to_new(c: &Located) -> String {
    match (&c.change.old, &c.change.new) {
        (Some(o), Some(n)) => format!(": {o} → {n}"),
        (Some(o), None) => format!(": was {o}"),
        (None, Some(n)) => format!(": {n}"),
        (None, None) => String::new(),
    }
}

fn text(r: &Report) -> String {
    let mut s = String::new();
    for c in &r.changes {
        s.push_str(&format!(
            "{:<11}  {}: {}{}\n",
            c.change.class.as_str(),
            c.change.path,
            c.change.message,
            old_to_new(c)
        ));
    }
    if r.changes.is_empty() {
        s.push_str("no changes\n");
    } else {
        s.push_str(&format!(
            "summary: {} breaking for software, {} breaking for hardware, {} compatible\n",
            r.count(Class::BreakingSoftware),
            r.count(Class::BreakingHardware),
            r.count(Class::Compatible)
        ));
    }
    let versions = format!("version {} → {}", r.old.version, r.new.version);
    match (r.required_bump(), r.required_version()) {
        (Some(bump), Some(need)) => {
            let verdict = if r.version_is_enough() {
                "ok"
            } else {
                "not bumped enough"
            };
            s.push_str(&format!(
                "{versions}: suggested bump {} (to {need} or later): {verdict}\n",
                bump.as_str()
            ));
        }
        _ => s.push_str(&format!("{versions}: no bump needed\n")),
    }
    s
}

#[derive(Serialize)]
struct JsonReport<'a> {
    old: JsonSide<'a>,
    new: JsonSide<'a>,
    changes: Vec<JsonChange<'a>>,
    summary: JsonSummary,
    required_bump: Option<&'static str>,
    required_version: Option<String>,
    version_ok: bool,
}

#[derive(Serialize)]
struct JsonSide<'a> {
    file: &'a str,
    block: &'a str,
    version: String,
}

#[derive(Serialize)]
struct JsonChange<'a> {
    class: &'static str,
    kind: &'static str,
    path: &'a str,
    message: &'a str,
    old: Option<&'a str>,
    new: Option<&'a str>,
    bump: &'static str,
    location: JsonLocation<'a>,
}

#[derive(Serialize)]
struct JsonLocation<'a> {
    file: &'a str,
    line: usize,
    column: usize,
}

#[derive(Serialize)]
struct JsonSummary {
    breaking_software: usize,
    breaking_hardware: usize,
    compatible: usize,
}

fn side(s: &crate::Side) -> JsonSide<'_> {
    JsonSide {
        file: &s.file,
        block: &s.block,
        version: s.version.to_string(),
    }
}

fn json(r: &Report) -> JsonReport<'_> {
    JsonReport {
        old: side(&r.old),
        new: side(&r.new),
        changes: r
            .changes
            .iter()
            .map(|c| JsonChange {
                class: c.change.class.as_str(),
                kind: c.change.kind,
                path: &c.change.path,
                message: &c.change.message,
                old: c.change.old.as_deref(),
                new: c.change.new.as_deref(),
                bump: c.change.bump().as_str(),
                location: JsonLocation {
                    file: &r.new.file,
                    line: c.line,
                    column: c.column,
                },
            })
            .collect(),
        summary: JsonSummary {
            breaking_software: r.count(Class::BreakingSoftware),
            breaking_hardware: r.count(Class::BreakingHardware),
            compatible: r.count(Class::Compatible),
        },
        required_bump: r.required_bump().map(|b| b.as_str()),
        required_version: r.required_version().map(|v| v.to_string()),
        version_ok: r.version_is_enough(),
    }
}

// SARIF 2.1.0: the subset of the OASIS schema this tool fills, with its field names.

#[derive(Serialize)]
struct SarifLog {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<SarifRun>,
}

#[derive(Serialize)]
struct SarifRun {
    tool: SarifTool,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct SarifTool {
    driver: SarifDriver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifDriver {
    name: &'static str,
    version: &'static str,
    rules: Vec<SarifRule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRule {
    id: &'static str,
    short_description: SarifMessage,
}

#[derive(Serialize)]
struct SarifMessage {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: &'static str,
    rule_index: usize,
    level: &'static str,
    message: SarifMessage,
    locations: Vec<SarifLocation>,
    properties: SarifProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    physical_location: SarifPhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifPhysicalLocation {
    artifact_location: SarifArtifactLocation,
    region: SarifRegion,
}

#[derive(Serialize)]
struct SarifArtifactLocation {
    uri: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifRegion {
    start_line: usize,
    start_column: usize,
}

#[derive(Serialize)]
struct SarifProperties {
    class: &'static str,
    path: String,
    bump: &'static str,
}

/// A relative file path as a URI reference: forward slashes, and the few characters a path may
/// hold that a URI may not, escaped.
fn uri(path: &str) -> String {
    let mut s = String::new();
    for ch in path.replace('\\', "/").chars() {
        match ch {
            ' ' => s.push_str("%20"),
            '%' => s.push_str("%25"),
            '#' => s.push_str("%23"),
            '?' => s.push_str("%3F"),
            c => s.push(c),
        }
    }
    s
}

fn sarif(r: &Report) -> SarifLog {
    let mut rules: Vec<SarifRule> = Vec::new();
    let mut results = Vec::new();
    for c in &r.changes {
        let kind = c.change.kind;
        let rule_index = match rules.iter().position(|rule| rule.id == kind) {
            Some(i) => i,
            None => {
                rules.push(SarifRule {
                    id: kind,
                    short_description: SarifMessage {
                        text: kind.replace('-', " "),
                    },
                });
                rules.len() - 1
            }
        };
        results.push(SarifResult {
            rule_id: kind,
            rule_index,
            level: if c.change.class.is_breaking() {
                "error"
            } else {
                "note"
            },
            message: SarifMessage {
                text: format!(
                    "{}: {}: {}{}",
                    c.change.class.as_str(),
                    c.change.path,
                    c.change.message,
                    old_to_new(c)
                ),
            },
            locations: vec![SarifLocation {
                physical_location: SarifPhysicalLocation {
                    artifact_location: SarifArtifactLocation {
                        uri: uri(&r.new.file),
                    },
                    region: SarifRegion {
                        start_line: c.line,
                        start_column: c.column,
                    },
                },
            }],
            properties: SarifProperties {
                class: c.change.class.as_str(),
                path: c.change.path.clone(),
                bump: c.change.bump().as_str(),
            },
        });
    }
    SarifLog {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: vec![SarifRun {
            tool: SarifTool {
                driver: SarifDriver {
                    name: "rdmagen-diff",
                    version: env!("CARGO_PKG_VERSION"),
                    rules,
                },
            },
            results,
        }],
    }
}
