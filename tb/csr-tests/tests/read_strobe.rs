//! A FIFO popped by a register read (`read_strobe: true`, `P_rd_stb_o`): the bench holds a
//! FIFO of known entries per element of the field, drives each head on the field's `_i` input
//! in every cycle and pops a FIFO in each cycle its strobe bit is high, while software reads
//! the register back to back (and under random AR/R stalls), mixed with reads that must not pop
//! it (the high half of a 64-bit register, other registers and elements, SLVERR and DECERR
//! addresses) and with writes in the same cycles. Every entry must be read exactly once, in
//! order: the strobe comes one cycle after the read takes the value, and no read of the
//! register takes a value in that cycle, so none sees an entry twice or misses one. Every path
//! a read takes: a register outside groups read directly and through the fetch stage (a map
//! with more than 64 of them), the low half of a 64-bit register, an array's element read
//! directly and a wide array's over its two fetch cycles (elements in both runs of 16). The
//! property tests compare the strobe with the reference model in every cycle; this checks the
//! use it is for, on the RTL alone.
//!
//! Compiled only when build.rs has built the variants (not under `RDMAGEN_CSR_VARIANTS=...`
//! naming others).
#![cfg(read_strobe_built)]

use rdmagen_csr_tests::{EmacReviewAsync, EmacReviewSync, ManyRegistersAsync};
use rdmagen_harness::axil::{AxiLiteMaster, Event, Timing, DECERR, OKAY, SLVERR};
use rdmagen_harness::stall::{split_seed, Profile};
use rdmagen_harness::{HasAxiLite, Model};
use rdmagen_refmodel::bits;

/// A field fed from the bench's FIFOs, one per element: element `e`'s register at `addr + e *
/// stride`, its slice of the packed input, bit `e` of the read strobe, the field's place in
/// the register. The element count is the strobe port's width.
#[derive(Clone, Copy)]
struct FifoField {
    addr: u64,
    stride: u64,
    input: &'static str,
    strobe: &'static str,
    lsb: u32,
    width: u32,
}

/// What the bench mixes in with the FIFO reads: reads that must not pop any FIFO (address,
/// RRESP) and writes (address, data), taken beside the reads.
struct Mix {
    reads: &'static [(u64, u8)],
    writes: &'static [(u64, u64)],
}

/// Entry `i` of element `e`'s FIFO: never 0 (the value after reset), different from entry
/// `i + 1` and from the other elements' entry `i`.
fn entry(e: usize, i: usize, mask: u64) -> u64 {
    ((e as u64 * 37 + i as u64) % mask) + 1
}

fn port_width<M: Model>(name: &str) -> u32 {
    M::PORTS
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("{}: no port {name}", M::VARIANT))
        .width
}

/// Drives every element's FIFO head on the packed input.
fn drive_heads<M: Model>(dut: &M, f: &FifoField, heads: &[usize]) {
    let mask = (1u64 << f.width) - 1;
    let mut words = vec![0u32; bits::words(f.width * heads.len() as u32)];
    for (e, &h) in heads.iter().enumerate() {
        bits::set(&mut words, e as u32 * f.width, f.width, entry(e, h, mask));
    }
    dut.port(f.input).expect("input port").write(&words);
}

/// Pops the FIFOs whose strobe bit is high after this edge.
fn pop_strobed<M: Model>(dut: &M, f: &FifoField, heads: &mut [usize]) {
    let port = dut.port(f.strobe).expect("strobe port");
    let mut w = vec![0u32; port.words().max(1)];
    port.read(&mut w);
    for (e, h) in heads.iter_mut().enumerate() {
        *h += bits::get(&w, e as u32, 1) as usize;
    }
}

/// `ops` random operations: a read of a random element's FIFO register (about half), a read
/// from `mix.reads`, or a write from `mix.writes` (queued beside the reads: the master takes
/// them in the same cycles). Checks every FIFO read's entry and response, every mixed-in read's
/// response, and that each FIFO was popped once per read of it. Returns the FIFO reads per
/// element.
fn pop_by_reads<M: Model + HasAxiLite>(
    f: &FifoField,
    mix: &Mix,
    ops: usize,
    timing: Timing,
    seed: u64,
) -> Vec<usize> {
    let count = port_width::<M>(f.strobe) as usize;
    assert_eq!(port_width::<M>(f.input), count as u32 * f.width);
    let mask = (1u64 << f.width) - 1;
    let mut dut = M::create();
    dut.reset(2);
    let mut master = AxiLiteMaster::new(seed, timing);
    // Per read, in order: Some(element) for a FIFO read, else None and the RRESP it must get.
    let mut expect: std::collections::VecDeque<(Option<usize>, u8)> = Default::default();
    let mut reads = vec![0usize; count];
    for k in 0..ops as u64 {
        let r = split_seed(seed, k + 1000);
        match r % 8 {
            0..=3 => {
                let e = (r >> 8) as usize % count;
                master.read(f.addr + e as u64 * f.stride);
                expect.push_back((Some(e), OKAY));
                reads[e] += 1;
            }
            4..=6 if !mix.reads.is_empty() => {
                let (a, resp) = mix.reads[(r >> 8) as usize % mix.reads.len()];
                master.read(a);
                expect.push_back((None, resp));
            }
            _ if !mix.writes.is_empty() => {
                let (a, d) = mix.writes[(r >> 8) as usize % mix.writes.len()];
                master.write(a, d, 0xf);
            }
            _ => {}
        }
    }
    let mut heads = vec![0usize; count];
    // Per element, the FIFO reads answered so far: the entry the next one must return.
    let mut seen = vec![0usize; count];
    let mut events = Vec::new();
    for _ in 0..ops * 40 + 100 {
        drive_heads(&dut, f, &heads);
        master.drive(&dut.axil());
        dut.eval();
        events.clear();
        master.observe(&dut.axil(), &mut events);
        for ev in &events {
            if let Event::ReadDone { data, resp, .. } = *ev {
                let (elem, want) = expect.pop_front().expect("a read outstanding");
                assert_eq!(resp, want, "{}: RRESP", M::VARIANT);
                if let Some(e) = elem {
                    assert_eq!(
                        data >> f.lsb & mask,
                        entry(e, seen[e], mask),
                        "{}: read {} of element {e}'s FIFO ({:#x}): a strobe missed or doubled",
                        M::VARIANT,
                        seen[e],
                        f.addr + e as u64 * f.stride
                    );
                    seen[e] += 1;
                }
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
        pop_strobed(&dut, f, &mut heads);
        if master.is_idle() {
            break;
        }
    }
    assert!(master.is_idle(), "{}: transfers left", M::VARIANT);
    // A strobe still to come would show after the last read.
    for _ in 0..4 {
        drive_heads(&dut, f, &heads);
        dut.cycle();
        pop_strobed(&dut, f, &mut heads);
    }
    assert_eq!(seen, reads, "{}: FIFO reads answered", M::VARIANT);
    assert_eq!(
        heads,
        reads,
        "{}: one pop per read of each element",
        M::VARIANT
    );
    reads
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

/// Runs `pop_by_reads` under every timing; each element's FIFO must have been read.
fn check<M: Model + HasAxiLite>(f: &FifoField, mix: &Mix, seed: u64) {
    for (i, t) in timings().into_iter().enumerate() {
        let reads = pop_by_reads::<M>(f, mix, 400, t, seed + i as u64);
        assert!(reads.iter().all(|&n| n > 0), "{}: {reads:?}", M::VARIANT);
    }
}

/// emac's rx_fifo (0x34): data [15:0] with a read strobe.
const RX_FIFO: FifoField = FifoField {
    addr: 0x34,
    stride: 0,
    input: "rx_fifo_data_i",
    strobe: "rx_fifo_data_rd_stb_o",
    lsb: 0,
    width: 16,
};

/// emac reads that pop none of its FIFOs: ts's high half (0x2c), mac_addr's halves, the
/// control register, port 0's cfg (whose loopback has a strobe of its own), the write-only
/// tx_kick (SLVERR), an unmapped word (DECERR). Writes: rx_fifo and ts are read-only (SLVERR),
/// ctrl, port 0's cfg and tx_kick are not.
const EMAC_MIX: Mix = Mix {
    reads: &[
        (0x2c, OKAY),
        (0x20, OKAY),
        (0x24, OKAY),
        (0x04, OKAY),
        (0x100, OKAY),
        (0x38, SLVERR),
        (0x3c, DECERR),
    ],
    writes: &[
        (0x34, 0xffff),
        (0x28, 0x1234),
        (0x04, 0),
        (0x100, 0x205),
        (0x38, 1),
    ],
};

#[test]
fn fifo_popped_by_reads_of_a_top_level_register() {
    check::<EmacReviewSync>(&RX_FIFO, &EMAC_MIX, 0);
    check::<EmacReviewAsync>(&RX_FIFO, &EMAC_MIX, 100);
}

#[test]
fn fifo_popped_by_low_half_reads_of_a_64_bit_register() {
    // ts (0x28): ns [29:0] an input with a read strobe; the high half's reads (0x2c, in the mix)
    // return the latched half and must not pop.
    let ns = FifoField {
        addr: 0x28,
        stride: 0,
        input: "ts_ns_i",
        strobe: "ts_ns_rd_stb_o",
        lsb: 0,
        width: 30,
    };
    check::<EmacReviewSync>(&ns, &EMAC_MIX, 200);
    check::<EmacReviewAsync>(&ns, &EMAC_MIX, 300);
}

#[test]
fn fifos_popped_by_reads_of_array_elements() {
    // port[i].status (0x104 + i * 0x40): rx_head [31:16], one FIFO per port, read without a
    // fetch; reads of the other elements must not pop this one's.
    let rx_head = FifoField {
        addr: 0x104,
        stride: 0x40,
        input: "port_status_rx_head_i",
        strobe: "port_status_rx_head_rd_stb_o",
        lsb: 16,
        width: 16,
    };
    check::<EmacReviewSync>(&rx_head, &EMAC_MIX, 400);
    check::<EmacReviewAsync>(&rx_head, &EMAC_MIX, 500);
}

/// many_registers reads that pop none of its FIFOs: a 64-bit register's halves (wide10,
/// 0x28/0x2c), another chunk's register, the write-only tail (SLVERR), an unmapped word, lane
/// 0's drops (the small array, 0x204) and queue 16's hits (the wide array). Writes beside them.
const MANY_MIX: Mix = Mix {
    reads: &[
        (0x028, OKAY),
        (0x02c, OKAY),
        (0x000, OKAY),
        (0x0ac, SLVERR),
        (0x3fc, DECERR),
        (0x204, OKAY),
        (0x484, OKAY),
    ],
    writes: &[(0x004, 0xffff), (0x000, 0x5a5a), (0x0ac, 7), (0x400, 0x77)],
};

#[test]
fn fifo_popped_by_fetched_reads() {
    // many_registers reads its top-level registers through a fetch stage: r1_status (0x004),
    // level [15:8].
    let level = FifoField {
        addr: 0x004,
        stride: 0,
        input: "r1_status_level_i",
        strobe: "r1_status_level_rd_stb_o",
        lsb: 8,
        width: 8,
    };
    check::<ManyRegistersAsync>(&level, &MANY_MIX, 600);
}

#[test]
fn fifos_popped_by_fetched_reads_of_a_wide_array() {
    // queue[i].head (0x400 + i * 8): next [31:16], one FIFO per queue; 17 queues in this
    // variant, so the array's reads take two fetch cycles and queue 16 is in the second run.
    let next = FifoField {
        addr: 0x400,
        stride: 0x8,
        input: "queue_head_next_i",
        strobe: "queue_head_next_rd_stb_o",
        lsb: 16,
        width: 16,
    };
    assert_eq!(port_width::<ManyRegistersAsync>(next.strobe), 17);
    check::<ManyRegistersAsync>(&next, &MANY_MIX, 700);
}
