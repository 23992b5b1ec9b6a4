//! Software-facing outputs of a validated register map, each a pure function of the map:
//!
//! - [`c_header`]: a C11/C++17 header of offsets, masks, shifts, resets, enums and array strides,
//!   with `static_assert`s on the layout;
//! - [`markdown`]: a Markdown register reference with one [`svg`] bit-field picture per register;
//! - [`systemrdl`]: a SystemRDL 2.0 `addrmap` for other register tools;
//! - [`json`]: the validated model as JSON (schema in `docs/json-schema.md`).
//!
//! Every output is deterministic, in map order, and names the map by the path it was given
//! (never an absolute path), so regenerating on another machine gives the same bytes.

pub mod c_header;
pub mod ipxact;
pub mod json;
pub mod markdown;
pub mod svg;
pub mod systemrdl;

use rdmagen_regmap::text::push_hex;
use rdmagen_regmap::{Group, Item, RegMap, Register};

/// Generator settings that are not part of the map.
#[derive(Clone, Debug)]
pub struct Options {
    /// Name and version of the generator, written into every file header.
    pub generator: String,
}

/// The map's path as written into outputs: as given when relative, the bare file name when
/// absolute, so no output depends on where the checkout lives.
pub fn source_name(map: &RegMap) -> &str {
    let path = std::path::Path::new(&map.file);
    if path.is_absolute() {
        path.file_name()
            .and_then(|n| n.to_str())
            .unwrap_or(&map.file)
    } else {
        &map.file
    }
}

/// The names of the map's memories and spaces, which the CSR exports (SystemRDL, IP-XACT)
/// leave out and name in a comment; `None` when there are none.
pub fn non_csr_names(map: &RegMap) -> Option<String> {
    let names: Vec<&str> = map
        .memories
        .iter()
        .map(|m| m.name.text.as_str())
        .chain(map.spaces.iter().map(|s| s.name.text.as_str()))
        .collect();
    (!names.is_empty()).then(|| names.join(", "))
}

/// A register with where it sits: its group (if any) and the absolute byte offset of its
/// first instance (element 0 for a group register).
#[derive(Clone, Copy, Debug)]
pub struct Placed<'a> {
    pub group: Option<&'a Group>,
    pub reg: &'a Register,
    pub offset: u64,
}

impl Placed<'_> {
    /// `reg` at the top level, `group_reg` inside a group: unique within the map, because the
    /// hardware port names derived the same way are checked to be unique.
    pub fn flat_name(&self) -> String {
        match self.group {
            Some(g) => format!("{}_{}", g.name, self.reg.name),
            None => self.reg.name.text.clone(),
        }
    }
    /// `reg` or `group.reg`, as a reader writes it.
    pub fn dotted_name(&self) -> String {
        match self.group {
            Some(g) => format!("{}.{}", g.name, self.reg.name),
            None => self.reg.name.text.clone(),
        }
    }
}

/// Every register in map order with its absolute offset.
pub fn placed_registers(map: &RegMap) -> impl Iterator<Item = Placed<'_>> {
    map.items
        .iter()
        .flat_map(|item| -> Box<dyn Iterator<Item = Placed<'_>>> {
            match item {
                Item::Register(reg) => Box::new(std::iter::once(Placed {
                    group: None,
                    reg,
                    offset: reg.offset,
                })),
                Item::Group(g) => Box::new(g.registers.iter().map(move |reg| Placed {
                    group: Some(g),
                    reg,
                    offset: g.offset + reg.offset,
                })),
            }
        })
}

/// The value a register reads after reset, counting hardware-driven fields as 0.
pub fn register_reset(reg: &Register) -> u64 {
    reg.fields
        .iter()
        .filter_map(|f| f.reset_value().map(|r| r << f.lsb))
        .fold(0, |acc, r| acc | r)
}

/// Bits of a register covered by fields.
pub fn register_mask(reg: &Register) -> u64 {
    reg.fields.iter().fold(0, |acc, f| acc | f.mask())
}

/// `0x` and at least `digits` hex digits.
pub fn hex(value: u64, digits: usize) -> String {
    let mut s = String::with_capacity(2 + digits.max(16));
    push_hex(&mut s, value, digits);
    s
}

/// `msb:lsb`, or the bit alone for a one-bit field.
pub fn bit_range(msb: u32, lsb: u32) -> String {
    if msb == lsb {
        msb.to_string()
    } else {
        format!("{msb}:{lsb}")
    }
}

/// Hex digits that show every offset of the map (at least 3).
pub fn offset_digits(map: &RegMap) -> usize {
    (map.address_width as usize).div_ceil(4).max(3)
}

#[cfg(test)]
mod hex_tests {
    #[test]
    fn hex_matches_format() {
        for v in [
            0u64,
            1,
            0xf,
            0x10,
            0xabc,
            0x1000,
            0xdead_beef,
            u64::MAX,
            1 << 63,
        ] {
            for d in [1usize, 3, 4, 8, 16, 20] {
                assert_eq!(super::hex(v, d), format!("0x{v:0d$x}"));
            }
        }
    }
}
