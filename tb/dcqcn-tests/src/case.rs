//! A DCQCN test case: parameters, stall profiles and operations, with a text form for saved
//! failures.

use proptest::prelude::*;
use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::dcqcn::{Kind, Params};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// An event offered on `s_evt_*` (after the input's random idle).
    Event { kind: Kind, flow: u32, bytes: u32 },
    /// Cycles with no event offered.
    Idle(u32),
    /// Wait until no event is in flight, then drive new parameters.
    Params(Params),
    /// Wait until no event is in flight, then pulse `ctrl_flow_clear_i`.
    Clear,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub params: Params,
    /// Idle on the event input.
    pub evt: Profile,
    /// Backpressure on the response output.
    pub rsp: Profile,
    pub ops: Vec<Op>,
}

/// Parameter fields by name, in the order of the text form.
pub fn fields(p: &Params) -> Vec<(&'static str, u32)> {
    vec![
        ("algorithm", u32::from(p.paper)),
        ("rp_enable", u32::from(p.rp_enable)),
        ("np_enable", u32::from(p.np_enable)),
        ("clk_per_us", p.clk_per_us),
        ("line_rate", p.line_rate),
        ("shaper_burst", p.shaper_burst),
        ("rpg_time_reset", p.rpg_time_reset),
        ("rpg_byte_reset", p.rpg_byte_reset),
        ("rpg_threshold", p.rpg_threshold),
        ("rpg_max_rate", p.rpg_max_rate),
        ("rpg_ai_rate", p.rpg_ai_rate),
        ("rpg_hai_rate", p.rpg_hai_rate),
        ("rpg_gd", p.rpg_gd),
        ("rpg_min_dec_fac", p.rpg_min_dec_fac),
        ("rpg_min_rate", p.rpg_min_rate),
        ("rate_to_set_on_first_cnp", p.rate_to_set_on_first_cnp),
        ("dce_tcp_g", p.dce_tcp_g),
        ("dce_tcp_rtt", p.dce_tcp_rtt),
        ("rate_reduce_monitor_period", p.rate_reduce_monitor_period),
        ("initial_alpha_value", p.initial_alpha_value),
        ("clamp_tgt_rate", u32::from(p.clamp_tgt_rate)),
        (
            "clamp_tgt_rate_after_time_inc",
            u32::from(p.clamp_tgt_rate_after_time_inc),
        ),
        ("min_time_between_cnps", p.min_time_between_cnps),
    ]
}

/// Sets the parameter field `name` (a name of [`fields`]).
pub fn set_param(p: &mut Params, name: &str, v: u32) -> Result<(), String> {
    match name {
        "algorithm" => p.paper = v != 0,
        "rp_enable" => p.rp_enable = v != 0,
        "np_enable" => p.np_enable = v != 0,
        "clk_per_us" => p.clk_per_us = v,
        "line_rate" => p.line_rate = v,
        "shaper_burst" => p.shaper_burst = v,
        "rpg_time_reset" => p.rpg_time_reset = v,
        "rpg_byte_reset" => p.rpg_byte_reset = v,
        "rpg_threshold" => p.rpg_threshold = v,
        "rpg_max_rate" => p.rpg_max_rate = v,
        "rpg_ai_rate" => p.rpg_ai_rate = v,
        "rpg_hai_rate" => p.rpg_hai_rate = v,
        "rpg_gd" => p.rpg_gd = v,
        "rpg_min_dec_fac" => p.rpg_min_dec_fac = v,
        "rpg_min_rate" => p.rpg_min_rate = v,
        "rate_to_set_on_first_cnp" => p.rate_to_set_on_first_cnp = v,
        "dce_tcp_g" => p.dce_tcp_g = v,
        "dce_tcp_rtt" => p.dce_tcp_rtt = v,
        "rate_reduce_monitor_period" => p.rate_reduce_monitor_period = v,
        "initial_alpha_value" => p.initial_alpha_value = v,
        "clamp_tgt_rate" => p.clamp_tgt_rate = v != 0,
        "clamp_tgt_rate_after_time_inc" => p.clamp_tgt_rate_after_time_inc = v != 0,
        "min_time_between_cnps" => p.min_time_between_cnps = v,
        _ => return Err(format!("unknown parameter `{name}`")),
    }
    Ok(())
}

fn params_text(p: &Params) -> String {
    fields(p)
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn parse_params(words: &[&str]) -> Result<Params, String> {
    let mut p = Params::default();
    for w in words {
        let (k, v) = w
            .split_once('=')
            .ok_or_else(|| format!("`{w}`: expected NAME=VALUE"))?;
        set_param(
            &mut p,
            k,
            v.parse().map_err(|_| format!("`{w}`: bad value"))?,
        )?;
    }
    Ok(p)
}

fn kind_name(k: Kind) -> &'static str {
    match k {
        Kind::Cnp => "cnp",
        Kind::Tx => "tx",
        Kind::Ce => "ce",
        Kind::Read => "read",
    }
}

impl Case {
    pub fn to_text(&self, variant: &str) -> String {
        let mut s = format!(
            "variant {variant}\nseed {:#x}\nstall evt={}/{} rsp={}/{}\nparams {}\n",
            self.seed,
            self.evt.percent,
            self.evt.max_run,
            self.rsp.percent,
            self.rsp.max_run,
            params_text(&self.params)
        );
        for op in &self.ops {
            match op {
                Op::Event { kind, flow, bytes } => {
                    s.push_str(&format!("{} {flow} {bytes}\n", kind_name(*kind)))
                }
                Op::Idle(n) => s.push_str(&format!("idle {n}\n")),
                Op::Params(p) => s.push_str(&format!("params {}\n", params_text(p))),
                Op::Clear => s.push_str("clear\n"),
            }
        }
        s
    }

    /// Parses [`Case::to_text`] output; returns the variant too. `#` starts a comment line.
    pub fn parse(text: &str) -> Result<(String, Case), String> {
        let mut variant = String::new();
        let mut case = Case {
            seed: 0,
            params: Params::default(),
            evt: Profile::NONE,
            rsp: Profile::NONE,
            ops: Vec::new(),
        };
        let mut have_params = false;
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |m: String| format!("line {}: {m}", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let num = |i: usize| -> Result<u32, String> {
                words
                    .get(i)
                    .and_then(|w| w.parse().ok())
                    .ok_or_else(|| err(format!("`{line}`: expected a number")))
            };
            match words[0] {
                "variant" => variant = words.get(1).unwrap_or(&"").to_string(),
                "seed" => {
                    let w = words.get(1).copied().unwrap_or("0");
                    case.seed = u64::from_str_radix(w.trim_start_matches("0x"), 16)
                        .map_err(|_| err(format!("bad seed `{w}`")))?;
                }
                "stall" => {
                    for w in &words[1..] {
                        let (k, v) = w.split_once('=').ok_or_else(|| err(format!("`{w}`")))?;
                        let (a, b) = v.split_once('/').ok_or_else(|| err(format!("`{w}`")))?;
                        let prof = Profile::new(
                            a.parse().map_err(|_| err(format!("`{w}`")))?,
                            b.parse().map_err(|_| err(format!("`{w}`")))?,
                        );
                        match k {
                            "evt" => case.evt = prof,
                            "rsp" => case.rsp = prof,
                            _ => return Err(err(format!("unknown stall `{k}`"))),
                        }
                    }
                }
                "params" => {
                    let p = parse_params(&words[1..]).map_err(err)?;
                    if have_params {
                        case.ops.push(Op::Params(p));
                    } else {
                        case.params = p;
                        have_params = true;
                    }
                }
                "idle" => case.ops.push(Op::Idle(num(1)?)),
                "clear" => case.ops.push(Op::Clear),
                k @ ("cnp" | "tx" | "ce" | "read") => {
                    let kind = match k {
                        "cnp" => Kind::Cnp,
                        "tx" => Kind::Tx,
                        "ce" => Kind::Ce,
                        _ => Kind::Read,
                    };
                    case.ops.push(Op::Event {
                        kind,
                        flow: num(1)?,
                        bytes: num(2)?,
                    });
                }
                other => return Err(err(format!("unknown operation `{other}`"))),
            }
        }
        Ok((variant, case))
    }
}

/// Parameter sets with short periods and a fast microsecond, so cases cross many periods;
/// mlx5 or PAPER mode, the byte counter off or firing every few sends.
pub fn params() -> impl Strategy<Value = Params> {
    (
        (
            any::<bool>(),
            // Sizes the send requests below also use, so sums land exactly on the threshold.
            prop_oneof![Just(0u32), Just(1500), Just(3000), Just(4096), 1u32..20_000],
        ),
        (1u32..6, 1u32..8, 1u32..12, 1u32..40, 0u32..6),
        (0u32..200, 0u32..500, 0u32..=1023, 0u32..=1023),
        (9u32..14, 0u32..=100, 0u32..50, any::<bool>(), any::<bool>()),
        (
            prop_oneof![3 => Just(0u32), 1 => 1u32..3000],
            prop_oneof![Just(100_000u32), Just(400_000u32), 1000u32..1_000_000],
            0u32..10,
            prop_oneof![Just(0u32), 1u32..200_000],
        ),
        (
            prop_oneof![Just(16384u32), 1u32..100_000],
            prop::bool::weighted(0.9),
        ),
    )
        .prop_map(
            |(
                (paper, byte_reset),
                (cpu, rtt, rrmp, trst, thr),
                (ai, hai, g, ia),
                (gd, fac, minr, c1, c2),
                (first, line, mtc, maxr),
                (burst, en),
            )| Params {
                paper,
                rpg_byte_reset: byte_reset,
                clk_per_us: cpu,
                dce_tcp_rtt: rtt,
                rate_reduce_monitor_period: rrmp,
                rpg_time_reset: trst,
                rpg_threshold: thr,
                rpg_ai_rate: ai,
                rpg_hai_rate: hai,
                dce_tcp_g: g,
                initial_alpha_value: ia,
                rpg_gd: gd,
                rpg_min_dec_fac: fac,
                rpg_min_rate: minr,
                clamp_tgt_rate: c1,
                clamp_tgt_rate_after_time_inc: c2,
                rate_to_set_on_first_cnp: first,
                line_rate: line,
                min_time_between_cnps: mtc,
                rpg_max_rate: maxr,
                shaper_burst: burst,
                rp_enable: en,
                np_enable: en,
            },
        )
}

fn profile() -> impl Strategy<Value = Profile> {
    prop_oneof![
        2 => Just(Profile::NONE),
        3 => (1u8..60, 1u8..8).prop_map(|(p, r)| Profile::new(p, r)),
    ]
}

/// Flows: mostly a few hot ones (so state builds up), sometimes any flow.
fn flow(flows: u32) -> impl Strategy<Value = u32> {
    let hot = [0, 1, flows / 2, flows - 1];
    prop_oneof![
        3 => (0..4usize).prop_map(move |i| hot[i]),
        1 => 0..flows,
    ]
}

/// Random cases: groups of operations (a CNP burst on one flow is one group).
pub fn strategy(flows: u32, max_groups: usize) -> impl Strategy<Value = Case> {
    let one = |op: Op| vec![op];
    let group = prop_oneof![
        6 => flow(flows).prop_map(move |flow| one(Op::Event { kind: Kind::Cnp, flow, bytes: 0 })),
        5 => (flow(flows), prop_oneof![Just(1500u32), Just(4096), 0u32..9000])
            .prop_map(move |(flow, bytes)| one(Op::Event { kind: Kind::Tx, flow, bytes })),
        2 => flow(flows).prop_map(move |flow| one(Op::Event { kind: Kind::Ce, flow, bytes: 0 })),
        2 => flow(flows).prop_map(move |flow| one(Op::Event { kind: Kind::Read, flow, bytes: 0 })),
        4 => prop_oneof![4 => 0u32..40, 2 => 0u32..400, 1 => 0u32..20_000]
            .prop_map(move |n| one(Op::Idle(n))),
        1 => params().prop_map(move |p| one(Op::Params(p))),
        1 => (flow(flows), 2usize..12).prop_map(|(flow, n)| {
            vec![Op::Event { kind: Kind::Cnp, flow, bytes: 0 }; n]
        }),
    ];
    (
        any::<u64>(),
        params(),
        profile(),
        profile(),
        prop::collection::vec(group, 1..max_groups),
        prop::bool::weighted(0.05),
    )
        .prop_map(|(seed, params, evt, rsp, groups, clear)| {
            let mut ops: Vec<Op> = groups.into_iter().flatten().collect();
            // The mode stays as the case starts: changing it needs a flow clear (the cut timer
            // does not run in PAPER mode).
            for op in &mut ops {
                if let Op::Params(p) = op {
                    p.paper = params.paper;
                }
            }
            if clear {
                let at = (seed as usize) % (ops.len() + 1);
                ops.insert(at, Op::Clear);
            }
            Case {
                seed,
                params,
                evt,
                rsp,
                ops,
            }
        })
}
