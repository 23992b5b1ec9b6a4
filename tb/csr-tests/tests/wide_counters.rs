//! Counters wider than 32 bits (the test-only map `maps/wide_counters.yaml`): the generator adds
//! the step to the low 32 bits and picks the high part or the high part + 1 by the low half's
//! carry (carry select), and saturates by the same carries. The maps in register-maps/ count
//! such counters by 1, so their property tests never carry out of the low half.
//!
//! Directed cases run on the Verilated block next to the reference model (the bench compares
//! every response and output in every cycle) and also check the values read against numbers
//! worked out here, so a mistake shared by the RTL and the model fails too. A random test shows
//! that the property tests' stimulus does reach the carry, saturation and wrap.
//!
//! Compiled only when build.rs has built both variants (not under `RDMAGEN_CSR_VARIANTS=...`
//! naming others).
#![cfg(wide_counters_built)]

use rdmagen_csr_tests::bench::{check_seeded, Bench};
use rdmagen_csr_tests::case::Case;
use rdmagen_csr_tests::{WideCountersAsync, WideCountersSync};
use rdmagen_harness::{HasAxiLite, Model};
use std::path::Path;

fn map() -> rdmagen_regmap::RegMap {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("maps/wide_counters.yaml");
    rdmagen_regmap::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs a case written in the `.case` text form (without its `variant` and `seed` lines) on
/// a fresh block; panics on any disagreement with the model. Returns the data of every read,
/// in order.
fn run_on<M: Model + HasAxiLite>(seed: u64, timing: &str, script: &str) -> Vec<u64> {
    let mut bench = Bench::<M>::new(&map()).unwrap_or_else(|e| panic!("{e}"));
    let text = format!(
        "variant {}\nseed {seed:#x}\ntiming {timing}\n{script}",
        M::VARIANT
    );
    let (_, case) = Case::parse(&text, &bench.layout()).unwrap_or_else(|e| panic!("{e}"));
    if let Err(f) = bench.run(&case) {
        panic!("{}: {f}\ncase:\n{text}", M::VARIANT);
    }
    bench.reads.iter().map(|&(_, d)| d).collect()
}

const NO_STALLS: &str = "aw=0/1 w=0/1 ar=0/1 b=0/1 r=0/1";

fn run(script: &str) -> Vec<u64> {
    run_on::<WideCountersSync>(0, NO_STALLS, script)
}

/// The 64-bit value of each (low, high) pair of reads.
fn pairs(reads: &[u64]) -> Vec<u64> {
    assert_eq!(
        reads.len() % 2,
        0,
        "reads come in low/high pairs: {reads:x?}"
    );
    reads.chunks(2).map(|p| p[1] << 32 | p[0]).collect()
}

const ONES32: u64 = 0xffff_ffff;

#[test]
fn low_half_carry_reaches_the_high_bits() {
    // Each counter from 0: 0xFFFF_FFFF, then + 1 carries (high part 0 -> 1); three more
    // all-ones steps and + 3 carry with a non-zero high part: 0x1_0000_0000 + 3 * 0xFFFF_FFFF
    // + 3 = 0x4_0000_0000.
    let counters = [
        ("sat40_count_incr_i[0]", 0x000u64), // read-only, saturating
        ("rc64_count_incr_i[0]", 0x010),     // clear-on-read, counts before the clear
        ("wrap64_count_incr_i[0]", 0x020),   // wrapping
        ("rc40_clr_count_incr_i[0]", 0x028), // clear-on-read with a hardware clear
        ("w1c33_count_incr_i[0]", 0x030),    // a one-bit high part
        ("lane_bytes_count_incr_i[1]", 0x110),
    ];
    for (port, addr) in counters {
        let hi = addr + 4;
        let got = pairs(&run(&format!(
            "hw {port} 0xffffffff x1\nhw {port} 0x1 x1\nread {addr:#x}\nread {hi:#x}\n"
        )));
        assert_eq!(got, vec![1 << 32], "{port}");
        if addr == 0x030 {
            continue; // 33 bits: the next steps would saturate it
        }
        let got = pairs(&run(&format!(
            "hw {port} 0xffffffff x1\nhw {port} 0x1 x1\nhw {port} 0xffffffff x3\n\
             hw {port} 0x3 x1\nread {addr:#x}\nread {hi:#x}\n"
        )));
        assert_eq!(got, vec![4 << 32], "{port}");
    }
}

#[test]
fn carry_from_a_software_written_low_half() {
    // rw48_step8.count is bits 63:16 with an 8-bit step: its low 32 bits are register bits
    // 47:16, across both halves. Software sets them to all ones; + 1 carries into field bit 32
    // (register bit 48).
    let got = pairs(&run(
        "write 0x038 0xffff0000 0xf\nwrite 0x03c 0x0000ffff 0xf\nidle 4\n\
         hw rw48_step8_count_incr_i[0] 0x1 x1\nread 0x038\nread 0x03c\nidle 10\n\
         hw rw48_step8_count_incr_i[0] 0xff x1\nread 0x038\nread 0x03c\n",
    ));
    assert_eq!(got, vec![1 << 48, (1 << 48) + (0xff << 16)]);
    // rw64 (saturating): the high half all ones is not yet saturation; without a carry it
    // stays, with one it saturates.
    let got = pairs(&run(
        "write 0x018 0x00000000 0xf\nwrite 0x01c 0xffffffff 0xf\nidle 4\n\
         hw rw64_count_incr_i[0] 0x5 x1\nread 0x018\nread 0x01c\nidle 10\n\
         hw rw64_count_incr_i[0] 0xfffffffa x1\nread 0x018\nread 0x01c\nidle 10\n\
         hw rw64_count_incr_i[0] 0x1 x1\nread 0x018\nread 0x01c\n",
    ));
    assert_eq!(got, vec![0xffff_ffff_0000_0005, u64::MAX, u64::MAX]);
}

#[test]
fn saturation_holds_at_all_ones() {
    // 40 bits: 256 steps of 0xFFFF_FFFF leave 0xFF_FFFF_FF00; + 0xFF is exactly all ones (no
    // saturation yet); + 1 saturates; more all-ones steps hold it there.
    for (port, addr) in [
        ("sat40_count_incr_i[0]", 0x000u64),
        ("rc40_clr_count_incr_i[0]", 0x028),
    ] {
        let got = pairs(&run(&format!(
            "hw {port} 0xffffffff x255\nhw {port} 0xffffffff x1\nread {addr:#x}\nread {hi:#x}\n\
             idle 10\nhw {port} 0xff x1\nread {addr:#x}\nread {hi:#x}\n",
            hi = addr + 4
        )));
        let rc = addr == 0x028;
        if rc {
            assert_eq!(got, vec![0xff_ffff_ff00, 0xff]);
        } else {
            assert_eq!(got, vec![0xff_ffff_ff00, 0xff_ffff_ffff]);
        }
        let got = pairs(&run(&format!(
            "hw {port} 0xffffffff x255\nhw {port} 0xffffffff x1\nhw {port} 0xff x1\n\
             hw {port} 0x1 x1\nread {addr:#x}\nread {hi:#x}\nidle 10\n\
             hw {port} 0xffffffff x200\nread {addr:#x}\nread {hi:#x}\n",
            hi = addr + 4
        )));
        let after = if rc { 200 * ONES32 } else { 0xff_ffff_ffff };
        assert_eq!(got, vec![0xff_ffff_ffff, after], "{port}");
    }
    // 33 bits (a one-bit high part): 2 * 0xFFFF_FFFF + 1 is all ones, + 1 and + 0xFFFF_FFFF
    // hold; a 36-bit lane counter saturates after 17 all-ones steps.
    let got = pairs(&run("hw w1c33_count_incr_i[0] 0xffffffff x2\n\
         hw w1c33_count_incr_i[0] 0x1 x1\nread 0x030\nread 0x034\nidle 10\n\
         hw w1c33_count_incr_i[0] 0x1 x1\nhw w1c33_count_incr_i[0] 0xffffffff x1\n\
         read 0x030\nread 0x034\n\
         hw lane_sat36_count_incr_i[1] 0xffffffff x16\nread 0x118\nread 0x11c\nidle 10\n\
         hw lane_sat36_count_incr_i[1] 0xffffffff x1\nread 0x118\nread 0x11c\n"));
    assert_eq!(
        got,
        vec![0x1_ffff_ffff, 0x1_ffff_ffff, 16 * ONES32, 0xf_ffff_ffff]
    );
    // rw64: software sets all ones; any step holds it.
    let got = pairs(&run(
        "write 0x018 0xffffffff 0xf\nwrite 0x01c 0xffffffff 0xf\nidle 4\n\
         hw rw64_count_incr_i[0] 0xffffffff x3\nread 0x018\nread 0x01c\n",
    ));
    assert_eq!(got, vec![u64::MAX]);
}

#[test]
fn wrapping_counters_wrap() {
    // wrap40.count is bits 47:8 beside the byte `tag` (7:0): set it to 0xFF_FFFF_FFF0
    // (register 0xFFFF_FFFF_F05A); + 0x20 wraps to 0x10, and the tag stays.
    let got = pairs(&run(
        "write 0x008 0xfffff05a 0xf\nwrite 0x00c 0x0000ffff 0xf\nidle 4\n\
         hw wrap40_count_incr_i[0] 0x20 x1\nread 0x008\nread 0x00c\n",
    ));
    assert_eq!(got, vec![0x105a]);
    // wrap40 by increments alone: 257 steps of 0xFFFF_FFFF from 0 are 2^40 + 2^32 - 257.
    let got = pairs(&run(
        "write 0x008 0x00000000 0xf\nwrite 0x00c 0x00000000 0xf\nidle 4\n\
         hw wrap40_count_incr_i[0] 0xffffffff x255\nhw wrap40_count_incr_i[0] 0xffffffff x2\n\
         read 0x008\nread 0x00c\n",
    ));
    assert_eq!(got, vec![((1u64 << 32) - 257) << 8]);
    // wrap64: all ones + 1 is 0; 0xFFFF_FFFF_FFFF_FFF0 + 0xFFFF_FFFF is 0xFFFF_FFEF.
    let got = pairs(&run(
        "write 0x020 0xffffffff 0xf\nwrite 0x024 0xffffffff 0xf\nidle 4\n\
         hw wrap64_count_incr_i[0] 0x1 x1\nread 0x020\nread 0x024\nidle 10\n\
         write 0x020 0xfffffff0 0xf\nwrite 0x024 0xffffffff 0xf\nidle 4\n\
         hw wrap64_count_incr_i[0] 0xffffffff x1\nread 0x020\nread 0x024\n",
    ));
    assert_eq!(got, vec![0, 0xffff_ffef]);
}

/// A clear-on-read while the counter counts: every step lands either in the value read or in
/// what the counter holds after the read (it restarts at the step of the clearing cycle). With
/// random stalls the clear falls in a different cycle of the burst each time.
fn clear_during_increments<M: Model + HasAxiLite>() {
    let timings = [
        NO_STALLS,
        "aw=0/1 w=0/1 ar=50/3 b=0/1 r=40/2",
        "aw=20/2 w=10/1 ar=70/6 b=30/3 r=60/6",
    ];
    for (port, addr, start) in [
        ("rc64_count_incr_i[0]", 0x010u64, 1u64 << 32),
        ("lane_bytes_count_incr_i[0]", 0x100, 1 << 32),
        ("rc40_clr_count_incr_i[0]", 0x028, 1 << 32),
    ] {
        let mut restarts = std::collections::BTreeSet::new();
        for (i, timing) in timings.iter().enumerate() {
            for seed in 0..8u64 {
                let script = format!(
                    "hw {port} 0xffffffff x1\nhw {port} 0x1 x1\n\
                     read {addr:#x}\nread {hi:#x}\nhw {port} 0xffffffff x40\nidle 20\n\
                     read {addr:#x}\nread {hi:#x}\n",
                    hi = addr + 4
                );
                let got = pairs(&run_on::<M>(seed + 100 * i as u64, timing, &script));
                let total = start + 40 * ONES32;
                assert!(
                    got[0] >= start,
                    "{port}: read {:#x}, before the burst it was {start:#x}",
                    got[0]
                );
                assert_eq!(
                    got[0] + got[1],
                    total,
                    "{port}: steps lost or counted twice"
                );
                // Whole steps on both sides (the one in the clearing cycle is kept).
                assert_eq!(got[1] % ONES32, 0, "{port}: {got:x?}");
                restarts.insert(got[1] / ONES32);
            }
        }
        // The clear fell in different cycles of the burst.
        assert!(
            restarts.iter().filter(|&&n| n > 0).count() > 1,
            "{port}: steps after the clear: {restarts:?}"
        );
    }
}

#[test]
fn clear_on_read_during_increments_restarts_at_the_increment() {
    clear_during_increments::<WideCountersSync>();
    clear_during_increments::<WideCountersAsync>();
}

/// The property tests' random stimulus drives these counters across the low half's carry and
/// past all ones: a property test of this map that passes has compared those cycles with the
/// model. Left out, and covered by the directed tests above: the carry of `rw48_step8` (an
/// 8-bit step needs software to set the low 32 bits to nearly all ones first), saturation of
/// `rc40_clr` (random reads and hardware clears keep it low) and of the two clear-on-read
/// 64-bit counters (out of reach of 32-bit steps). 400 cases from a fixed seed, so the tally is
/// the same every run: the rarest events (software setting a wrapping counter near all ones,
/// then a carry) come about 7 times in 200 cases, and a random seed missed one now and then.
#[test]
fn random_cases_cross_the_carry_and_saturate() {
    let hits = check_seeded::<WideCountersAsync>(
        "random_cases_cross_the_carry_and_saturate",
        400,
        Some(0x5eed_c0de),
    );
    let get = |name: &str| {
        hits.iter()
            .find(|h| h.0 == name)
            .unwrap_or_else(|| panic!("no counter {name}"))
            .2
    };
    for name in [
        "sat40.count",
        "wrap40.count",
        "rc64.count",
        "rw64.count",
        "wrap64.count",
        "rc40_clr.count",
        "w1c33.count",
        "sat48_step40.count",
        "lane.bytes.count",
        "lane.sat36.count",
    ] {
        assert!(
            get(name).low_carry > 0,
            "{name}: no low-half carry: {hits:?}"
        );
    }
    for name in [
        "sat40.count",
        "wrap40.count",
        "rw64.count",
        "wrap64.count",
        "w1c33.count",
        "sat48_step40.count",
        "lane.sat36.count",
    ] {
        assert!(
            get(name).overflow > 0,
            "{name}: never past all ones: {hits:?}"
        );
    }
}
