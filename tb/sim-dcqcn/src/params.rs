//! `P.yaml`: the engine's parameters in user units (Mb/s, µs, MHz), checked against the CSR
//! field widths. Keys left out take the map's reset values (the mlx5 defaults of FACTS §5).

use marked_yaml::{LoaderOptions, Node};
use rdmagen_refmodel::dcqcn::Params;

/// A key: its name, the largest value its CSR field holds, and where it goes.
struct Key {
    name: &'static str,
    max: u32,
    set: fn(&mut Params, u32),
}

const fn key(name: &'static str, bits: u32, set: fn(&mut Params, u32)) -> Key {
    Key {
        name,
        max: if bits >= 32 {
            u32::MAX
        } else {
            (1 << bits) - 1
        },
        set,
    }
}

/// Every numeric key, with its CSR width. `mode` is handled on its own.
const KEYS: &[Key] = &[
    key("line_rate_mbps", 20, |p, v| p.line_rate = v),
    key("clock_mhz", 12, |p, v| p.clk_per_us = v),
    key("rpg_time_reset", 17, |p, v| p.rpg_time_reset = v),
    key("rpg_byte_reset", 24, |p, v| p.rpg_byte_reset = v),
    key("rpg_threshold", 5, |p, v| p.rpg_threshold = v),
    key("rpg_max_rate", 20, |p, v| p.rpg_max_rate = v),
    key("rpg_ai_rate", 20, |p, v| p.rpg_ai_rate = v),
    key("rpg_hai_rate", 20, |p, v| p.rpg_hai_rate = v),
    key("rpg_gd", 4, |p, v| p.rpg_gd = v),
    key("rpg_min_dec_fac", 7, |p, v| p.rpg_min_dec_fac = v),
    key("rpg_min_rate", 20, |p, v| p.rpg_min_rate = v),
    key("rate_to_set_on_first_cnp", 20, |p, v| {
        p.rate_to_set_on_first_cnp = v
    }),
    key("dce_tcp_g", 10, |p, v| p.dce_tcp_g = v),
    key("dce_tcp_rtt", 17, |p, v| p.dce_tcp_rtt = v),
    key("rate_reduce_monitor_period", 17, |p, v| {
        p.rate_reduce_monitor_period = v
    }),
    key("initial_alpha_value", 10, |p, v| p.initial_alpha_value = v),
    key("clamp_tgt_rate", 1, |p, v| p.clamp_tgt_rate = v != 0),
    key("clamp_tgt_rate_after_time_inc", 1, |p, v| {
        p.clamp_tgt_rate_after_time_inc = v != 0
    }),
    key("min_time_between_cnps", 16, |p, v| {
        p.min_time_between_cnps = v
    }),
    key("shaper_burst", 24, |p, v| p.shaper_burst = v),
    // The NP's CNP header fields: they do not change the trajectory, but a file written for
    // the hardware may set them.
    key("cnp_dscp", 6, |_, _| ()),
    key("cnp_802p_prio", 3, |_, _| ()),
];

fn line_of(node: &Node) -> usize {
    node.span().start().map(|m| m.line()).unwrap_or(1)
}

/// Reads `P.yaml`. Errors are `file:line: message`.
pub fn parse(file: &str, text: &str) -> Result<Params, String> {
    // A UTF-8 byte order mark (spreadsheets and Windows editors write one) is not part of it.
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let options = LoaderOptions::default().error_on_duplicate_keys(true);
    // The YAML library asserts on states it considers impossible: never let a user file panic.
    let parsed =
        std::panic::catch_unwind(|| marked_yaml::parse_yaml_with_options(0, text, options));
    let root = match parsed {
        Ok(Ok(n)) => n,
        Ok(Err(e)) => return Err(format!("{file}: {e}")),
        Err(_) => {
            return Err(format!(
                "{file}:1: the YAML parser could not read this file"
            ))
        }
    };
    let map = root.as_mapping().ok_or_else(|| {
        format!(
            "{file}:{}: expected `key: value` lines at the top level",
            line_of(&root)
        )
    })?;
    let mut p = Params::default();
    for (k, v) in map.iter() {
        let line = k.span().start().map(|m| m.line()).unwrap_or(1);
        let name = k.as_str();
        let at = |msg: String| format!("{file}:{line}: {msg}");
        let value = v
            .as_scalar()
            .ok_or_else(|| at(format!("`{name}` takes a single value")))?
            .as_str()
            .trim();
        if name == "mode" {
            p.paper = match value {
                "mlx5" => false,
                "paper" => true,
                _ => return Err(at(format!("mode `{value}`: expected `mlx5` or `paper`"))),
            };
            continue;
        }
        let Some(key) = KEYS.iter().find(|k| k.name == name) else {
            let known: Vec<&str> = std::iter::once("mode")
                .chain(KEYS.iter().map(|k| k.name))
                .collect();
            return Err(at(format!(
                "unknown key `{name}` (known keys: {})",
                known.join(", ")
            )));
        };
        let n: u32 = value.parse().map_err(|_| {
            at(format!(
                "`{name}: {value}`: expected a whole number from 0 to {}",
                key.max
            ))
        })?;
        if n > key.max {
            return Err(at(format!(
                "`{name}: {n}` does not fit its CSR field (at most {})",
                key.max
            )));
        }
        (key.set)(&mut p, n);
    }
    if p.clk_per_us == 0 {
        return Err(format!("{file}: `clock_mhz` must be at least 1"));
    }
    if p.line_rate == 0 {
        return Err(format!("{file}: `line_rate_mbps` must be at least 1"));
    }
    if p.rpg_min_dec_fac > 100 {
        return Err(format!(
            "{file}: `rpg_min_dec_fac` is a percentage (at most 100)"
        ));
    }
    Ok(p)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_overrides() {
        let p = parse(
            "p.yaml",
            "mode: mlx5\nline_rate_mbps: 25000\nclock_mhz: 500\n",
        )
        .unwrap();
        assert_eq!(p.line_rate, 25000);
        assert_eq!(p.clk_per_us, 500);
        assert_eq!(p.rpg_time_reset, Params::default().rpg_time_reset);
        assert!(!p.paper);
        assert!(parse("p.yaml", "mode: paper\n").unwrap().paper);
    }

    /// With a byte order mark the first key was `\u{feff}mode`, an unknown key.
    #[test]
    fn a_byte_order_mark_is_skipped() {
        let p = parse("p.yaml", "\u{feff}mode: paper\nline_rate_mbps: 25000\n").unwrap();
        assert!(p.paper);
        assert_eq!(p.line_rate, 25000);
    }

    #[test]
    fn unknown_key_names_its_line() {
        let e = parse("p.yaml", "mode: mlx5\n\nrpg_tme_reset: 300\n").unwrap_err();
        assert!(
            e.starts_with("p.yaml:3: unknown key `rpg_tme_reset`"),
            "{e}"
        );
    }

    #[test]
    fn bad_values_are_errors() {
        let e = parse("p.yaml", "rpg_gd: 16\n").unwrap_err();
        assert!(e.starts_with("p.yaml:1: `rpg_gd: 16` does not fit"), "{e}");
        let e = parse("p.yaml", "dce_tcp_rtt: -1\n").unwrap_err();
        assert!(
            e.starts_with("p.yaml:1: `dce_tcp_rtt: -1`: expected"),
            "{e}"
        );
        let e = parse("p.yaml", "mode: fast\n").unwrap_err();
        assert!(e.starts_with("p.yaml:1: mode `fast`"), "{e}");
        assert!(parse("p.yaml", "a: [1\n").is_err());
        assert!(parse("p.yaml", "- 1\n").is_err());
        assert!(parse("p.yaml", "clock_mhz: 0\n").is_err());
    }
}
