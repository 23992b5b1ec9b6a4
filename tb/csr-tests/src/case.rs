//! A test case: a seed for bus stalls, the stall profiles, and a list of operations, with a
//! text form that failing cases are saved in and committed regressions are written in.
//!
//! ```text
//! variant example_sync_p4
//! seed 0x2a
//! timing aw=30/2 w=0/1 ar=10/4 b=50/3 r=0/1
//! write 0x01c 0x12345678 0xf
//! read 0x010
//! hw int_status_rx_done_set_i[0] 0x1 x1
//! idle 3
//! ```

use proptest::prelude::*;
use proptest::sample::select;
use rdmagen_harness::axil::Timing;
use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::csr::{CsrModel, HwKind};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// Queue an AXI4-Lite write (the master runs it alongside what follows).
    Write { addr: u64, data: u32, strb: u8 },
    /// Queue an AXI4-Lite read.
    Read { addr: u64 },
    /// Drive element `elem` of hardware input `port` with `value` for `cycles` cycles. Event
    /// inputs (load enable, clear, set, increment) return to 0 afterwards; level inputs
    /// (live `_i` values, load data) keep the value.
    Hw {
        port: usize,
        elem: u32,
        value: u64,
        cycles: u8,
    },
    /// Clock cycles with no new operation.
    Idle(u8),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub timing: Timing,
    pub ops: Vec<Op>,
}

/// What the strategy needs to know of a block.
#[derive(Clone, Debug)]
pub struct Layout {
    pub address_width: u32,
    /// Every mapped byte address (64-bit registers twice).
    pub addrs: Vec<u64>,
    /// (name, bits per element, elements, kind) of each hardware input.
    pub hw: Vec<(String, u32, u32, HwKind)>,
}

impl Layout {
    pub fn of(model: &CsrModel) -> Layout {
        Layout {
            address_width: model.address_width(),
            addrs: model
                .registers()
                .iter()
                .flat_map(|r| r.addresses().collect::<Vec<_>>())
                .collect(),
            hw: model
                .hw_ports()
                .iter()
                .map(|p| (p.name.clone(), p.width, p.count, p.kind))
                .collect(),
        }
    }
}

fn profile() -> impl Strategy<Value = Profile> {
    prop_oneof![
        2 => Just(Profile::NONE),
        3 => (0u8..=70, 1u8..=6).prop_map(|(p, r)| Profile::new(p, r)),
    ]
}

fn timing() -> impl Strategy<Value = Timing> {
    (profile(), profile(), profile(), profile(), profile()).prop_map(|(aw, w, ar, b, r)| Timing {
        aw,
        w,
        ar,
        b,
        r,
    })
}

fn data() -> impl Strategy<Value = u32> {
    prop_oneof![
        4 => any::<u32>(),
        1 => Just(0u32),
        1 => Just(u32::MAX),
        1 => 0u32..16,
    ]
}

fn strb() -> impl Strategy<Value = u8> {
    prop_oneof![3 => Just(0xfu8), 1 => 0u8..16]
}

fn op(layout: &Layout) -> BoxedStrategy<Op> {
    let span = 1u64 << layout.address_width;
    let addrs = layout.addrs.clone();
    let mapped_write = (select(addrs.clone()), data(), strb())
        .prop_map(|(addr, data, strb)| Op::Write { addr, data, strb });
    let mapped_read = select(addrs).prop_map(|addr| Op::Read { addr });
    let any_write =
        (0..span, data(), strb()).prop_map(|(addr, data, strb)| Op::Write { addr, data, strb });
    let any_read = (0..span).prop_map(|addr| Op::Read { addr });
    let idle = (1u8..8).prop_map(Op::Idle);
    if layout.hw.is_empty() {
        return prop_oneof![
            4 => mapped_write,
            3 => mapped_read,
            1 => any_write,
            1 => any_read,
            1 => idle,
        ]
        .boxed();
    }
    let shapes: Vec<(u32, u32)> = layout.hw.iter().map(|h| (h.1, h.2)).collect();
    let hw = (0..shapes.len())
        .prop_flat_map(move |port| {
            let (_, count) = shapes[port];
            (
                Just(port),
                0..count,
                prop_oneof![3 => any::<u64>(), 1 => Just(u64::MAX), 1 => 0u64..4],
                prop_oneof![4 => Just(1u8), 1 => 2u8..5, 1 => 100u8..=255],
            )
        })
        .prop_map(|(port, elem, value, cycles)| Op::Hw {
            port,
            elem,
            value,
            cycles,
        });
    prop_oneof![
        4 => mapped_write,
        3 => mapped_read,
        1 => any_write,
        1 => any_read,
        4 => hw,
        1 => idle,
    ]
    .boxed()
}

/// Random cases for a block: up to `max_ops` operations.
pub fn strategy(layout: &Layout, max_ops: usize) -> impl Strategy<Value = Case> {
    (
        any::<u64>(),
        timing(),
        prop::collection::vec(op(layout), 1..max_ops),
    )
        .prop_map(|(seed, timing, ops)| Case { seed, timing, ops })
}

fn profile_text(p: Profile) -> String {
    format!("{}/{}", p.percent, p.max_run.max(1))
}

impl Case {
    /// The text form (see the module docs).
    pub fn to_text(&self, variant: &str, layout: &Layout) -> String {
        let t = &self.timing;
        let mut s = format!(
            "variant {variant}\nseed {:#x}\ntiming aw={} w={} ar={} b={} r={}\n",
            self.seed,
            profile_text(t.aw),
            profile_text(t.w),
            profile_text(t.ar),
            profile_text(t.b),
            profile_text(t.r)
        );
        for op in &self.ops {
            let line = match op {
                Op::Write { addr, data, strb } => {
                    format!("write {addr:#05x} {data:#010x} {strb:#x}")
                }
                Op::Read { addr } => format!("read {addr:#05x}"),
                Op::Hw {
                    port,
                    elem,
                    value,
                    cycles,
                } => format!(
                    "hw {}[{elem}] {value:#x} x{cycles}",
                    layout.hw.get(*port).map_or("?", |h| h.0.as_str())
                ),
                Op::Idle(n) => format!("idle {n}"),
            };
            s.push_str(&line);
            s.push('\n');
        }
        s
    }

    /// Parses the text form; returns the variant it names and the case.
    pub fn parse(text: &str, layout: &Layout) -> Result<(String, Case), String> {
        let mut variant = None;
        let mut case = Case {
            seed: 0,
            timing: Timing::default(),
            ops: Vec::new(),
        };
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let err = |what: &str| format!("line {}: {what}: `{line}`", n + 1);
            let words: Vec<&str> = line.split_whitespace().collect();
            let num = |s: &str| parse_num(s).ok_or_else(|| err("bad number"));
            match words[..] {
                ["variant", v] => variant = Some(v.to_string()),
                ["seed", s] => case.seed = num(s)?,
                ["timing", ref rest @ ..] => {
                    for item in rest {
                        let (ch, p) = item.split_once('=').ok_or_else(|| err("bad timing"))?;
                        let (pct, run) = p.split_once('/').ok_or_else(|| err("bad timing"))?;
                        let prof = Profile::new(num(pct)? as u8, num(run)? as u8);
                        let prof = if prof.percent == 0 {
                            Profile::NONE
                        } else {
                            prof
                        };
                        match ch {
                            "aw" => case.timing.aw = prof,
                            "w" => case.timing.w = prof,
                            "ar" => case.timing.ar = prof,
                            "b" => case.timing.b = prof,
                            "r" => case.timing.r = prof,
                            _ => return Err(err("unknown channel")),
                        }
                    }
                }
                ["write", a, d, s] => case.ops.push(Op::Write {
                    addr: num(a)?,
                    data: num(d)? as u32,
                    strb: num(s)? as u8,
                }),
                ["read", a] => case.ops.push(Op::Read { addr: num(a)? }),
                ["idle", c] => case.ops.push(Op::Idle(num(c)? as u8)),
                ["hw", p, v, c] => {
                    let (name, elem) = p
                        .strip_suffix(']')
                        .and_then(|p| p.split_once('['))
                        .ok_or_else(|| err("expected port[elem]"))?;
                    let port = layout
                        .hw
                        .iter()
                        .position(|h| h.0 == name)
                        .ok_or_else(|| err("no such hardware port"))?;
                    let cycles = c.strip_prefix('x').ok_or_else(|| err("expected xN"))?;
                    case.ops.push(Op::Hw {
                        port,
                        elem: num(elem)? as u32,
                        value: num(v)?,
                        cycles: num(cycles)? as u8,
                    });
                }
                _ => return Err(err("unknown line")),
            }
        }
        let variant = variant.ok_or("no `variant` line")?;
        Ok((variant, case))
    }
}

fn parse_num(s: &str) -> Option<u64> {
    match s.strip_prefix("0x") {
        Some(h) => u64::from_str_radix(h, 16).ok(),
        None => s.parse().ok(),
    }
}
