//! Directed cases kept as named tests (the pattern of the QPC suite: shrunk failures land here).
//! These pin the corner cases the design argues about, and the shrunk random failures.

use rdmagen_harness::stall::Profile;
use rdmagen_refmodel::uar::Write;
use rdmagen_uar_tests::bench::{doorbell_beat, Bench, Case, Op, QpOp};
use rdmagen_uar_tests::{Mlx5V4Q16, UarV4Q16};

/// An INCR write of VF `vf` at `addr` with 8-byte beats `beats` (data, strobes).
fn write(vf: u8, addr: u32, beats: Vec<(u64, u8)>) -> Op {
    Op::Write(Write {
        pf: false,
        vf,
        addr,
        size: 3,
        burst: 1,
        beats,
    })
}

fn one(vf: u8, addr: u32, data: u64, strb: u8) -> Op {
    write(vf, addr, vec![(data, strb)])
}

/// VF `vf`'s first QP on its first page, brought up to RTS (state 3): doorbells to it fetch.
fn bring_up(vf: u32) -> Op {
    Op::Qp {
        vf,
        local: 0,
        page: 0,
        op: QpOp::Bringup { to: 3 },
    }
}

/// A low half pending while a BlueFlame burst of the same VF holds the buffer: the burst's
/// last beat first drops the torn half (stalling the beat one cycle), then the WQE goes out;
/// a pair on the other BlueFlame half and a CQ doorbell pair complete normally afterwards.
#[test]
fn tear_by_a_blueflame_burst_then_pairs_complete() {
    let mut b = Bench::<Mlx5V4Q16>::new("mlx5_v4_q16");
    let page = |off: u32| b.model.address(1, 0, off);
    let db = doorbell_beat(5, 0x0A, 1 << 12, 4);
    let mut bf = vec![(db, 0xFF)];
    bf.extend((1..8u64).map(|k| (k * 0x0101_0101, 0xFF)));
    let case = Case {
        seed: 3,
        stall: Profile::new(40, 3),
        ops: vec![
            bring_up(1),
            one(1, page(0x800), db, 0x0F),
            write(1, page(0x900), bf),
            one(1, page(0x900), db, 0x0F),
            one(1, page(0x904), db, 0xF0),
            one(1, page(0x020), 0x0102_0304_0506_0708, 0x0F),
            one(1, page(0x024), 0x0102_0304_0506_0708, 0xF0),
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.stats.fetches, 1);
    assert_eq!(b.stats.blueflames, 1);
    assert_eq!(b.stats.forwards, 1);
}

/// The CSR block counts an event one cycle after its mon_* pulse (docs/uar.md): counters read
/// as soon as the last doorbell has retired must still include it. A `uar_v4_q16` random case
/// ending on a doorbell failed this way when the counter inputs were first registered and the
/// bench still read one cycle early (its seed is kept in proptest-regressions/).
#[test]
fn counters_read_right_after_the_last_doorbell() {
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    let page = b.model.address(1, 0, 0x000);
    let case = Case {
        seed: 0,
        stall: Profile::new(0, 0),
        ops: vec![
            bring_up(1),
            one(1, page, doorbell_beat(5, 0x0A, 1 << 12, 4), 0xFF),
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.stats.fetches, 1);
}

/// A low half pending on VF 1's page, then another VF's high half at the same offset of that
/// page: the foreign write is refused (UNMAPPED) before the pair logic, so VF 1's pending half
/// must survive it and VF 1's own high half must still complete the pair.
#[test]
fn foreign_high_half_leaves_the_pending_pair() {
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    let page = |off: u32| b.model.address(1, 0, off);
    let db = doorbell_beat(5, 0x0A, 1 << 12, 4);
    let case = Case {
        seed: 0,
        stall: Profile::new(0, 0),
        ops: vec![
            bring_up(1),
            one(1, page(0x000), db, 0x0F),
            one(2, page(0x004), db, 0xF0),
            one(1, page(0x004), db, 0xF0),
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.stats.fetches, 1);
}

/// A low half pending on VF 1's page, then a 4-beat burst of VF 2 (dropped: no window takes
/// it) that holds the block while VF 1's high half arrives, so that high half's AW waits in
/// the AW skid and is taken with the burst's last beat. Its pending bit is the one sampled as
/// the skid took it (`aw_ps_q`, held while the skid is full; branch s40-uar8): the pair must
/// complete. Forcing that bit to 0 for an AW from the skid made this a TORN drop.
#[test]
fn high_half_from_the_aw_skid_completes_the_pair() {
    let mut b = Bench::<UarV4Q16>::new("uar_v4_q16");
    let page = |vf: u32, off: u32| b.model.address(vf, 0, off);
    let db = doorbell_beat(5, 0x0A, 1 << 12, 4);
    let case = Case {
        seed: 0,
        stall: Profile::new(0, 0),
        ops: vec![
            bring_up(1),
            one(1, page(1, 0x000), db, 0x0F),
            write(2, page(2, 0x000), vec![(0, 0xFF); 4]),
            one(1, page(1, 0x004), db, 0xF0),
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.stats.fetches, 1);
}

/// SPEC §2: nothing is accepted while in reset. With AWVALID, WVALID and the CSR masters'
/// valids high and reset asserted (for several edges, in either reset style), no ready may
/// be high: an AW handshake in reset is lost (the AW flops are held in reset), so the master's
/// W beats would then wait forever for an AW the block never saw. Before the fix
/// `s_axi_awready` was `!aw_valid_q || w_last_take`, which is 1 in reset.
fn no_write_taken_in_reset<M: rdmagen_harness::Model>() {
    let mut m = M::create();
    m.zero_inputs();
    m.set_reset(true);
    // A single-beat doorbell of VF 0 to its page 0, and CSR writes and reads.
    m.poke("s_axi_awvalid", 1);
    m.poke("s_axi_wvalid", 1);
    m.poke("s_axi_wstrb", 0xFF);
    m.poke("s_axi_wlast", 1);
    m.poke("s_axi_bready", 1);
    m.poke("s_axi_arvalid", 1);
    m.poke("s_axi_rready", 1);
    for pre in ["s_axil_", "qpc_s_axil_"] {
        for v in ["awvalid", "wvalid", "arvalid", "bready", "rready"] {
            m.poke(&format!("{pre}{v}"), 1);
        }
    }
    for edge in 0..4 {
        m.eval();
        for p in [
            "s_axi_awready",
            "s_axi_wready",
            "s_axi_arready",
            "s_axi_rvalid",
            "s_axil_awready",
            "s_axil_wready",
            "s_axil_arready",
            "qpc_s_axil_awready",
            "qpc_s_axil_wready",
            "qpc_s_axil_arready",
        ] {
            assert_eq!(
                m.peek(p),
                0,
                "{} after {edge} edges in reset: {p} is 1",
                M::VARIANT
            );
        }
        m.tick();
    }
}

#[test]
fn no_write_taken_in_reset_sync_high() {
    no_write_taken_in_reset::<UarV4Q16>();
}

#[test]
fn no_write_taken_in_reset_async_low() {
    no_write_taken_in_reset::<Mlx5V4Q16>();
}

/// SPEC §3 / FACTS §2: BlueFlame pushes a *whole* WQE. A burst of full beats that is shorter
/// than the `ds` x 16 bytes its own control segment names is not one: it must be dropped
/// (UNMAPPED, DECERR, like a partial BlueFlame), not sent to the send engine as a truncated
/// WQE. Before the fix a 2-beat (16-byte) burst with ds = 4 (64 bytes) went out on
/// m_axis_bf as a 2-beat WQE. Bursts that hold their WQE still go out, on both maps. A short
/// burst of 64-byte multiples is a first chunk (docs/uar.md): its doorbell, never a WQE.
fn blueflame_shorter_than_its_ds<M: rdmagen_harness::Model>(variant: &str, bf: u32) {
    let mut b = Bench::<M>::new(variant);
    let page = b.model.address(1, 0, bf);
    let burst = |ds: u8, n: u64| {
        let mut beats = vec![(doorbell_beat(5, 0x0A, 1 << 12, ds), 0xFF)];
        beats.extend((1..n).map(|k| (k * 0x0101_0101, 0xFF)));
        write(1, page, beats)
    };
    let case = Case {
        seed: 0,
        stall: Profile::new(0, 0),
        ops: vec![
            bring_up(1),
            burst(4, 2),   // 16 bytes of a 64-byte WQE: dropped
            burst(4, 8),   // exactly the WQE: out
            burst(1, 2),   // 16 bytes, ds 1: out
            burst(9, 16),  // 128 bytes of a 144-byte WQE: a first chunk, a doorbell
            burst(16, 32), // 256 bytes, ds 16: out
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.stats.blueflames, 3);
}

#[test]
fn blueflame_shorter_than_its_ds_is_dropped() {
    blueflame_shorter_than_its_ds::<UarV4Q16>("uar_v4_q16", 0x800);
    blueflame_shorter_than_its_ds::<Mlx5V4Q16>("mlx5_v4_q16", 0x900);
}

/// AXI4 (IHI 0022, A3.2.1): no combinational path from an input of the `s_axi_*` port to its
/// outputs. Within each cycle every combination of `awvalid`, `wvalid`, `wstrb` (a whole
/// doorbell, a low half, a high half, none), `bready`, `arvalid` and `rready` must leave
/// `awready`, `wready`, `bvalid`, `bresp`, `bid`, `arready`, `rvalid`, `rlast` and `rid` as
/// they are (3-beat reads are offered every fifth cycle and R taken every other one); the cycles between take doorbell halves and whole
/// doorbells with B backpressure, so the probes see an open write at its last beat, a pending
/// low half (a high half completes it, anything else tears it) and a B response waiting.
/// Before the skid buffers `awready` followed `wvalid` (the next AW with the last beat) and
/// `wready` followed `bready` and `wstrb` (the tear).
fn axi_outputs_do_not_follow_inputs<M: rdmagen_harness::Model>() {
    let mut m = M::create();
    m.zero_inputs();
    m.set_reset(true);
    m.tick();
    m.tick();
    m.set_reset(false);
    // VF 0, its page 0, offset 0: a doorbell window in both maps' first page? Any offset
    // does: the readies must not depend on the inputs whatever the decode says.
    m.poke("s_axi_awaddr", 0);
    m.poke("s_axi_awuser", 0);
    m.poke("s_axi_awlen", 0);
    m.poke("s_axi_awsize", 3);
    m.poke("s_axi_awburst", 1);
    m.poke("s_axi_wlast", 1);
    m.poke("s_axi_wdata", 0x0102_0304);
    m.poke("s_axi_arlen", 2);
    let outs = [
        "s_axi_awready",
        "s_axi_wready",
        "s_axi_bvalid",
        "s_axi_bresp",
        "s_axi_bid",
        "s_axi_arready",
        "s_axi_rvalid",
        "s_axi_rlast",
        "s_axi_rid",
    ];
    let strobes = [0xFF, 0x0F, 0xF0, 0x00];
    let mut seen_open = false;
    for cycle in 0..64u32 {
        let drive = |m: &M, aw: u32, w: u32, strb: u32, b: u32, ar: u32, r: u32| {
            m.poke("s_axi_awvalid", aw);
            m.poke("s_axi_wvalid", w);
            m.poke("s_axi_wstrb", strb);
            m.poke("s_axi_bready", b);
            m.poke("s_axi_arvalid", ar);
            m.poke("s_axi_rready", r);
            m.poke("s_axi_awid", cycle % 16);
            m.poke("s_axi_arid", (cycle + 5) % 16);
        };
        let mut first: Option<Vec<u32>> = None;
        for combo in 0..128u32 {
            drive(
                &m,
                combo & 1,
                (combo >> 1) & 1,
                strobes[(combo >> 2) as usize & 3],
                (combo >> 4) & 1,
                (combo >> 5) & 1,
                combo >> 6,
            );
            m.eval();
            let got: Vec<u32> = outs.iter().map(|p| m.peek(p)).collect();
            match &first {
                None => first = Some(got),
                Some(f) => assert_eq!(
                    &got,
                    f,
                    "{} cycle {cycle}: {outs:?} changed with the inputs (combination {combo})",
                    M::VARIANT
                ),
            }
        }
        let f = first.expect("probed");
        seen_open |= f[0] == 1 && f[1] == 1;
        // The cycle's own inputs: AW and W offered, the strobes cycling through the shapes,
        // B taken every third cycle.
        // A read of 3 beats offered every fifth cycle, R taken every other cycle.
        drive(
            &m,
            1,
            1,
            strobes[(cycle % 3) as usize],
            u32::from(cycle % 3 == 0),
            u32::from(cycle % 5 == 0),
            cycle % 2,
        );
        m.eval();
        m.tick();
    }
    assert!(
        seen_open,
        "{}: never ready for AW and W at once",
        M::VARIANT
    );
}

#[test]
fn axi_outputs_do_not_follow_inputs_in_the_cycle() {
    axi_outputs_do_not_follow_inputs::<UarV4Q16>();
    axi_outputs_do_not_follow_inputs::<Mlx5V4Q16>();
}

/// A burst of `beats` full beats of VF `vf` at `addr`, the first beat `first`.
fn burst(vf: u8, addr: u32, first: u64, beats: usize) -> Op {
    let mut v = vec![(first, 0xFF)];
    v.extend((1..beats as u64).map(|k| (k * 0x0101_0101_0101, 0xFF)));
    write(vf, addr, v)
}

/// A 192-byte WQE (ds 12) written as mlx5_bf_copy's three 64-byte chunks, each its own
/// burst, with another VF's doorbell between the first two: the first chunk rings the
/// doorbell (a fetch with its wqe_index and ds, B OKAY), the two continuation chunks are
/// dropped as BF_CHUNK (B OKAY, not DECERR); then a stray continuation chunk (BF_CHUNK) and a
/// 32-byte burst at a chunk offset, which is no chunk (UNMAPPED). The bench checks every B
/// response, event and counter (drop_bf_chunk included) against the model; the events and
/// the fetch are also pinned here.
fn chunked_wqe_rings_its_doorbell<M: rdmagen_harness::Model>(variant: &str, bf: u32) {
    let mut b = Bench::<M>::new(variant);
    b.logging = true;
    let page = |vf: u32, off: u32| b.model.address(vf, 0, off);
    let db = doorbell_beat(7, 0x0A, 1 << 12, 12);
    let (bfc, unm) = (b.model.reasons.bf_chunk, b.model.reasons.unmapped);
    let case = Case {
        seed: 5,
        stall: Profile::new(30, 2),
        ops: vec![
            bring_up(1),
            bring_up(2),
            burst(1, page(1, bf), db, 8),
            one(2, page(2, 0x800), doorbell_beat(3, 0x0A, 2 << 12, 2), 0xFF),
            burst(1, page(1, bf + 0x40), 1, 8),
            burst(1, page(1, bf + 0x80), 2, 8),
            burst(1, page(1, bf + 0xC0), 3, 8),
            burst(1, page(1, bf + 0x40), 4, 4),
        ],
    };
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    let got: Vec<(usize, u8, u8)> = b
        .log
        .iter()
        .map(|l| (l.write, l.event.result.code(), l.event.reason))
        .collect();
    assert_eq!(
        got,
        vec![
            (0, 0, 0),
            (1, 0, 0),
            (2, 2, bfc),
            (3, 2, bfc),
            (4, 2, bfc),
            (5, 2, unm)
        ]
    );
    let f = b.log[0].fetch.expect("the first chunk's fetch");
    assert_eq!((f.vf, f.qpn, f.wqe_index, f.ds), (1, 1 << 12, 7, 12));
    assert_eq!(b.stats.blueflames, 0);
}

#[test]
fn chunked_wqe_rings_its_doorbell_uar() {
    chunked_wqe_rings_its_doorbell::<UarV4Q16>("uar_v4_q16", 0x800);
}

#[test]
fn chunked_wqe_rings_its_doorbell_mlx5() {
    chunked_wqe_rings_its_doorbell::<Mlx5V4Q16>("mlx5_v4_q16", 0x900);
}
