//! A FIFO popped by a register read (`read_strobe: true`, `P_rd_stb_o`): the bench holds a
//! FIFO of known entries, drives its head on the field's `_i` input in every cycle and pops it
//! in each cycle the strobe is high, while software reads the register back to back (and under
//! random AR/R stalls). Every entry must be read exactly once, in order: the strobe comes one
//! cycle after the read takes the value, and no read of the register takes a value in that
//! cycle, so none sees an entry twice or misses one. The property tests compare the strobe
//! with the reference model in every cycle; this checks the use it is for, on the RTL alone.
//!
//! Compiled only when build.rs has built the variants (not under `RDMAGEN_CSR_VARIANTS=...`
//! naming others).
#![cfg(read_strobe_built)]

use rdmagen_csr_tests::{EmacReviewAsync, EmacReviewSync, ManyRegistersAsync};
use rdmagen_harness::axil::{AxiLiteMaster, Event, Timing};
use rdmagen_harness::stall::Profile;
use rdmagen_harness::{HasAxiLite, Model};

/// A register field fed from the bench's FIFO: the register's address, the field's input
/// and read strobe, and its place in the register.
#[derive(Clone, Copy)]
struct FifoField {
    addr: u64,
    input: &'static str,
    strobe: &'static str,
    lsb: u32,
    width: u32,
}

/// `reads` reads of the field's register, its input driven from the FIFO's head and the FIFO
/// popped by its strobe; returns the entries read, in order, and the pops.
fn pop_by_reads<M: Model + HasAxiLite>(
    field: &FifoField,
    reads: usize,
    timing: Timing,
    seed: u64,
) -> (Vec<u64>, usize) {
    let FifoField {
        addr,
        input,
        strobe,
        lsb,
        width,
    } = *field;
    let mut dut = M::create();
    dut.reset(2);
    let mask = (1u64 << width) - 1;
    // Entries 1, 2, 3, ... (never 0, the value after reset), wrapping within the field.
    let entry = |i: usize| (i as u64 % mask) + 1;
    let mut head = 0usize;
    let mut master = AxiLiteMaster::new(seed, timing);
    for _ in 0..reads {
        master.read(addr);
    }
    let mut events = Vec::new();
    let mut got = Vec::new();
    for _ in 0..reads * 40 + 100 {
        dut.poke(input, entry(head) as u32);
        master.drive(&dut.axil());
        dut.eval();
        events.clear();
        master.observe(&dut.axil(), &mut events);
        for e in &events {
            if let Event::ReadDone { data, resp, .. } = *e {
                assert_eq!(resp, 0, "{}: RRESP of a read of {addr:#x}", M::VARIANT);
                got.push(data >> lsb & mask);
            }
        }
        assert!(
            master.violations().is_empty(),
            "{}: {:?}",
            M::VARIANT,
            master.violations()
        );
        dut.tick();
        // The strobe after the edge: the FIFO pops at the next one.
        if dut.peek(strobe) & 1 == 1 {
            head += 1;
        }
        if master.is_idle() && got.len() == reads {
            break;
        }
    }
    // A strobe still to come would show after the last read.
    for _ in 0..4 {
        dut.poke(input, entry(head) as u32);
        dut.eval();
        dut.tick();
        if dut.peek(strobe) & 1 == 1 {
            head += 1;
        }
    }
    let want: Vec<u64> = (0..reads).map(entry).collect();
    assert_eq!(
        got,
        want,
        "{}: FIFO entries read from {addr:#x}",
        M::VARIANT
    );
    (got, head)
}

fn timings() -> Vec<Timing> {
    let none = Profile::NONE;
    vec![
        Timing::uniform(none),
        Timing {
            ar: none,
            r: Profile::new(50, 3),
            ..Timing::uniform(none)
        },
        Timing::uniform(Profile::new(40, 4)),
    ]
}

/// emac's rx_fifo (0x34): data [15:0] with a read strobe.
const RX_FIFO: FifoField = FifoField {
    addr: 0x34,
    input: "rx_fifo_data_i",
    strobe: "rx_fifo_data_rd_stb_o",
    lsb: 0,
    width: 16,
};

#[test]
fn fifo_popped_by_reads_of_a_top_level_register() {
    for (i, t) in timings().into_iter().enumerate() {
        let (_, pops) = pop_by_reads::<EmacReviewSync>(&RX_FIFO, 200, t, i as u64);
        assert_eq!(pops, 200, "one pop per read");
        let (_, pops) = pop_by_reads::<EmacReviewAsync>(&RX_FIFO, 200, t, 100 + i as u64);
        assert_eq!(pops, 200, "one pop per read");
    }
}

#[test]
fn fifo_popped_by_fetched_reads() {
    // many_registers reads its top-level registers through a fetch stage: r1_status (0x004),
    // level [15:8].
    for (i, t) in timings().into_iter().enumerate() {
        let level = FifoField {
            addr: 0x004,
            input: "r1_status_level_i",
            strobe: "r1_status_level_rd_stb_o",
            lsb: 8,
            width: 8,
        };
        let (_, pops) = pop_by_reads::<ManyRegistersAsync>(&level, 200, t, 200 + i as u64);
        assert_eq!(pops, 200, "one pop per read");
    }
}
