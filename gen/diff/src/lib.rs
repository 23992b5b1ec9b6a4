//! Compatibility diff of two versions of a register map.
//!
//! [`compare`] lists every change between an old and a new map and classifies each one:
//!
//! - **breaking for software**: a driver written against the old map misbehaves on the new one
//!   (a register or field moved, narrowed, removed or renamed; an access type, reset value,
//!   enum value, array stride or count changed);
//! - **breaking for hardware**: an instantiation of the old CSR module no longer fits the new one
//!   (a port removed, renamed, resized or turned around, an input port added, a module parameter
//!   removed or its default or range narrowed). Ports come from [`rdmagen_csr::interface`], the
//!   description the generator itself declares its ports from;
//! - **compatible**: additions in free space and text.
//!
//! [`Report`] adds the suggested semantic-version bump and renders text, JSON or SARIF 2.1.0.
//! The rules are documented in `docs/diff.md`.

mod hardware;
mod output;
mod software;
mod version;

use rdmagen_regmap::{RegMap, Source, Span};

pub use output::Format;
pub use version::{required_version, Bump};

/// Who a change breaks, if anyone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    BreakingSoftware,
    BreakingHardware,
    Compatible,
}

impl Class {
    /// The stable name used in every output format.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::BreakingSoftware => "breaking-sw",
            Class::BreakingHardware => "breaking-hw",
            Class::Compatible => "compatible",
        }
    }
    pub fn is_breaking(self) -> bool {
        self != Class::Compatible
    }
}

/// One change between the maps.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Change {
    pub class: Class,
    /// Stable identifier of the kind of change, e.g. `field-access`; the SARIF rule id.
    pub kind: &'static str,
    /// What changed, e.g. `ctrl.tx_enable`, `vf.ctrl`, `enum qp_state.RTR`, `port ctrl_en_o`.
    pub path: String,
    /// What happened, in words.
    pub message: String,
    pub old: Option<String>,
    pub new: Option<String>,
    /// Where the new map shows the change (for a removal: the nearest thing that is still there).
    pub span: Span,
}

impl Change {
    /// The version bump this change needs on its own.
    pub fn bump(&self) -> Bump {
        match self.class {
            Class::BreakingSoftware | Class::BreakingHardware => Bump::Major,
            Class::Compatible if self.kind == "description" => Bump::Patch,
            Class::Compatible => Bump::Minor,
        }
    }
}

/// Every change from `old` to `new`, software changes first, each group in map order.
pub fn compare(old: &RegMap, new: &RegMap) -> Vec<Change> {
    let sw = software::compare(old, new);
    let mut changes = sw.changes;
    changes.extend(hardware::compare(old, new, &sw.field_pairs));
    changes
}

/// The file, block and version of one side of the diff.
#[derive(Clone, Debug)]
pub struct Side {
    pub file: String,
    pub block: String,
    pub version: rdmagen_regmap::Version,
}

impl Side {
    fn of(map: &RegMap) -> Side {
        Side {
            file: map.file.clone(),
            block: map.block.to_string(),
            version: map.version,
        }
    }
}

/// A change with its position in the new map's text (1-based line and column).
#[derive(Clone, Debug)]
pub struct Located {
    pub change: Change,
    pub line: usize,
    pub column: usize,
}

/// The diff of two maps with everything the outputs need.
#[derive(Clone, Debug)]
pub struct Report {
    pub old: Side,
    pub new: Side,
    pub changes: Vec<Located>,
}

impl Report {
    /// Compares the maps; `new_text` is the new map's source, for line and column numbers.
    pub fn new(old: &RegMap, new: &RegMap, new_text: &str) -> Report {
        let source = Source::new(new.file.clone(), new_text);
        let changes = compare(old, new)
            .into_iter()
            .map(|change| {
                let (line, column) = source.line_col(change.span.start);
                Located {
                    change,
                    line,
                    column,
                }
            })
            .collect();
        Report {
            old: Side::of(old),
            new: Side::of(new),
            changes,
        }
    }

    pub fn count(&self, class: Class) -> usize {
        self.changes
            .iter()
            .filter(|c| c.change.class == class)
            .count()
    }

    pub fn is_breaking(&self) -> bool {
        self.changes.iter().any(|c| c.change.class.is_breaking())
    }

    /// The largest bump any change needs; `None` when nothing changed.
    pub fn required_bump(&self) -> Option<Bump> {
        self.changes.iter().map(|c| c.change.bump()).max()
    }

    /// The lowest version the new map may carry given the changes.
    pub fn required_version(&self) -> Option<rdmagen_regmap::Version> {
        self.required_bump()
            .map(|b| required_version(self.old.version, b))
    }

    /// Did the new map's version get at least the bump the changes need?
    pub fn version_is_enough(&self) -> bool {
        self.required_version()
            .is_none_or(|v| self.new.version >= v)
    }

    /// The `--check-version` verdict: an error message when a breaking change came without the
    /// bump it needs. Compatible changes without their bump are only warned about (see
    /// [`Report::version_warning`]).
    pub fn version_error(&self) -> Option<String> {
        if !self.is_breaking() || self.version_is_enough() {
            return None;
        }
        let need = self.required_version()?;
        Some(format!(
            "{}: breaking changes need version {} or later (a {} bump from {}), but the map says {}",
            self.new.file,
            need,
            self.required_bump()?.as_str(),
            self.old.version,
            self.new.version
        ))
    }

    /// A note when only compatible changes happened and the version was not bumped for them.
    pub fn version_warning(&self) -> Option<String> {
        if self.is_breaking() || self.version_is_enough() {
            return None;
        }
        let need = self.required_version()?;
        Some(format!(
            "{}: the changes suggest version {} (a {} bump from {}), the map says {}",
            self.new.file,
            need,
            self.required_bump()?.as_str(),
            self.old.version,
            self.new.version
        ))
    }

    /// Renders the report in `format`.
    pub fn render(&self, format: Format) -> String {
        output::render(self, format)
    }
}
