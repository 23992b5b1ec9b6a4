//! Named edge cases of the RX parser, at two or three widths against the model, and the
//! shrunk failures of the property tests.

use rdmagen_harness::stall::Profile;
use rdmagen_harness::Model;
use rdmagen_refmodel::roce::{DropReason, RxConfig, CNP_OPCODE};
use rdmagen_rxparser_tests::bench::{
    plain, plain_qp, Bench, Case, FrameSpec, Mutation, QpSpec, Tally,
};
use rdmagen_rxparser_tests::{RxParserW1024, RxParserW512, RxParserW64};

fn run<M: Model>(frames: &[FrameSpec], stall: Profile) -> Tally {
    run_on::<M>(plain_qp(), frames, stall)
}

fn run_on<M: Model>(qp: QpSpec, frames: &[FrameSpec], stall: Profile) -> Tally {
    let case = Case {
        seed: 3,
        idle: stall,
        stall,
        cfg: RxConfig::default(),
        qps: vec![qp],
        keys: Vec::new(),
        frames: frames.to_vec(),
    };
    Bench::<M>::new()
        .run(&case)
        .unwrap_or_else(|f| panic!("{}: {f}", M::VARIANT))
}

fn both(frames: &[FrameSpec]) -> Tally {
    let a = run::<RxParserW64>(frames, Profile::new(40, 3));
    let b = run::<RxParserW512>(frames, Profile::new(40, 3));
    assert_eq!(
        (a.accept, a.nak_access, a.drops.clone()),
        (b.accept, b.nak_access, b.drops.clone())
    );
    a
}

/// FACTS §3: on 64-bit beats a WRITE first header spans beats; with one VLAN tag it ends at
/// byte 74, with IPv6 at byte 90. Every field must still decode (no memory key exists, so
/// each is a remote access NAK). UC (same headers as RC): an RC QP would go to ERR at the
/// first NAK and drop the others for its state.
#[test]
fn write_first_headers_straddle_beats() {
    let uc = QpSpec {
        st: 1,
        ..plain_qp()
    };
    let frames = [
        plain(0x26, 100, 0, false),
        plain(0x26, 100, 1, false),
        plain(0x26, 100, 2, true),
    ];
    for t in [
        run_on::<RxParserW64>(uc.clone(), &frames, Profile::new(40, 3)),
        run_on::<RxParserW512>(uc.clone(), &frames, Profile::new(40, 3)),
    ] {
        assert_eq!((t.passed_headers, t.nak_access), (3, 3));
    }
}

/// IBA class C (rxe `do_class_ac_error`): a remote access NAK moves the RC QP to ERR (the
/// QPC's `rx_wb_err`), and every later frame to it but a CNP is dropped for its state. That
/// includes the frames right behind the NAKed one, whose lookups were answered before its
/// write-back landed: the write-back history forwards the bit as it forwards ePSN and
/// NAK-sent. Back to back at 512 and 1024 bits (a SEND is one beat, so those frames are in
/// p1-p3 at the write-back), and at 64 bits with idle and backpressure.
#[test]
fn remote_access_nak_moves_the_qp_to_err() {
    let send = plain(0x04, 0, 0, false);
    let mut frames = vec![send.clone(), plain(0x0A, 16, 0, false)];
    frames.extend(std::iter::repeat_n(send.clone(), 4));
    frames.push(plain(CNP_OPCODE, 0, 0, false));
    frames.extend(std::iter::repeat_n(send, 3));
    for t in [
        run::<RxParserW512>(&frames, Profile::NONE),
        run::<RxParserW1024>(&frames, Profile::NONE),
        run::<RxParserW64>(&frames, Profile::new(40, 3)),
    ] {
        assert_eq!((t.accept, t.nak_access, t.cnp), (2, 1, 1));
        assert_eq!(t.drops.get(&DropReason::State.code()), Some(&7));
    }
}

/// The ICRC's last byte at every lane of a 64-bit beat and of a 512-bit beat: the residue
/// must be advanced by the right number of trailing zero lanes (frame lengths 62..=62+64).
#[test]
fn icrc_end_at_every_lane() {
    let frames: Vec<FrameSpec> = (0..=64).map(|n| plain(0x04, n, 0, false)).collect();
    assert_eq!(both(&frames).accept, 65);
}

/// Every tail length of a 1024-bit beat: the ICRC's last byte at each of the 128 lanes
/// (frame lengths 58..=186), accepted; then the same frames with that byte flipped, each
/// dropped as BAD_ICRC (the bench checks every verdict against the model). At 64 and 512
/// bits, the flipped frames of `icrc_end_at_every_lane`.
#[test]
fn icrc_every_tail_length() {
    let good: Vec<FrameSpec> = (0..=128).map(|n| plain(0x04, n, 0, false)).collect();
    let flipped: Vec<FrameSpec> = good
        .iter()
        .map(|f| FrameSpec {
            // Untagged IPv4 SEND only: the ICRC ends at byte 57 + payload.
            mutation: Mutation::Flip {
                pos: 57 + usize::from(f.payload),
                bit: 5,
            },
            ..f.clone()
        })
        .collect();
    let t = run::<RxParserW1024>(&good, Profile::new(40, 3));
    assert_eq!(t.accept, 129);
    let t = run::<RxParserW1024>(&flipped, Profile::new(40, 3));
    assert_eq!((t.accept, t.drops.values().sum::<u64>()), (0, 129));
    let t = both(&flipped[..=64]);
    assert_eq!((t.accept, t.drops.values().sum::<u64>()), (0, 65));
}

/// PSNs on both sides of the 2^24 wrap: READ requests of length 0 (no key to check), one
/// response packet each, from ePSN 0xFFFFFE.
#[test]
fn psn_wrap() {
    let frames: Vec<FrameSpec> = [0xFF_FFFE, 0xFF_FFFF, 0, 1]
        .iter()
        .map(|&psn| FrameSpec {
            psn,
            psn_rel: None,
            ..plain(0x0C, 0, 0, false)
        })
        .collect();
    assert_eq!(both(&frames).accept, 4);
}

/// The longest header: two VLAN tags, 40 bytes of IPv4 options and an AtomicETH (130
/// bytes before the payload).
#[test]
fn longest_header() {
    let f = FrameSpec {
        ip_options: 10,
        ..plain(0x13, 8, 2, false)
    };
    let t = both(&[f.clone(), f]);
    // The first is NAKed (no key exists) and moves the RC QP to ERR; the second is dropped
    // for the state (after the same header decode).
    assert_eq!((t.passed_headers, t.nak_access), (2, 1));
    assert_eq!(t.drops.get(&DropReason::State.code()), Some(&1));
}

/// Ethernet padding after the datagram is ignored; a frame cut inside its ICRC is truncated.
#[test]
fn padding_and_cut_icrc() {
    let padded = FrameSpec {
        mutation: Mutation::Pad(20),
        ..plain(0x11, 0, 0, false)
    };
    let cut = FrameSpec {
        mutation: Mutation::Truncate(60),
        ..plain(0x11, 0, 0, false)
    };
    let t = both(&[padded, cut]);
    assert_eq!(t.accept, 1);
    assert_eq!(t.drops.get(&13), Some(&1), "{t:?}");
}

/// Shrunk from a 53,000-case run at 64 bits: three multi-beat frames (a 383-byte SEND over
/// IPv4 with options, a UC WRITE first over IPv6 with pad) behind a source idle 57% of the
/// time in runs of up to 5 cycles. The bench's hang limit was too tight (it counted the
/// beats still queued); the RTL was right. Kept so the limit stays honest.
#[test]
fn long_source_idle_runs() {
    let frames = [
        plain(0x00, 15, 0, false),
        FrameSpec {
            ip_options: 2,
            ..plain(0x00, 383, 0, false)
        },
        FrameSpec {
            pad: 2,
            ..plain(0x26, 337, 0, true)
        },
    ];
    let t = run::<RxParserW64>(&frames, Profile::new(57, 5));
    assert_eq!(t.passed_headers, 3);
}

/// Back-to-back one-beat frames on one QP (512 bits): each verdict must see the ePSN and
/// NAK-sent the previous ones wrote back, though their lookups were taken before those
/// write-backs (the parser forwards them). In order: in sequence, in sequence, a gap (one
/// NAK), beyond the gap (silent), a duplicate, the expected PSN again (accept, clears
/// NAK-sent), three duplicates (no write-back: the next frame's lookup misses the accept's
/// write-back 4 pipeline moves back), then in sequence through the 2^24 wrap.
#[test]
fn back_to_back_same_qp_sees_write_backs() {
    let rel = [0, 0, 2, 3, -1, 0, -1, -1, -1, 0, 0, 0];
    let frames: Vec<FrameSpec> = rel
        .iter()
        .map(|&r| FrameSpec {
            psn_rel: Some(r),
            ..plain(0x04, 0, 0, false)
        })
        .collect();
    for t in [
        run::<RxParserW512>(&frames, Profile::NONE),
        run::<RxParserW64>(&frames, Profile::NONE),
        run::<RxParserW512>(&frames, Profile::new(40, 3)),
    ] {
        assert_eq!(
            (t.accept, t.nak_seq, t.duplicate, t.drops.get(&14).copied()),
            (6, 1, 4, Some(1)),
            "{t:?}"
        );
    }
}

/// Shrunk from `rx_parser_w1024` (proptest-regressions/rx_parser_w1024.txt): a verdict taken
/// while the ACK/NAK register was full and not taken (so the pipeline could not move)
/// showed a second time. Here back-to-back duplicate SENDs each need a re-ACK (ePSN - 1)
/// while both sinks stall at random; every verdict and request must show exactly once.
#[test]
fn verdict_taken_while_an_ack_waits_shows_once() {
    let frames: Vec<FrameSpec> = (0..24)
        .map(|i| FrameSpec {
            psn_rel: Some(-1 - i % 3),
            ..plain(0x04, (i % 5) as u16, 0, false)
        })
        .collect();
    for stall in [Profile::new(60, 8), Profile::new(90, 30)] {
        let a = run::<RxParserW64>(&frames, stall);
        let b = run::<RxParserW1024>(&frames, stall);
        assert_eq!((a.duplicate, a.acks), (24, 24));
        assert_eq!((b.duplicate, b.acks), (24, 24));
    }
}

/// No combinational path from a sink's ready to `s_axis_tready` or another sink's valid
/// (UG934; the parser's enable used to be a function of `m_hdr_ready` and `m_ack_ready`):
/// every cycle of a run with frames that need ACKs under random backpressure, the three
/// sink readies go through all 8 combinations and the outputs must not move. The run also
/// checks every verdict, request and packet against the model as usual.
#[test]
fn sink_readies_do_not_reach_the_input_ready_in_the_cycle() {
    let frames: Vec<FrameSpec> = (0..24)
        .map(|i| FrameSpec {
            psn_rel: Some(if i % 4 == 0 { -1 } else { 0 }),
            ..plain(0x04, (i % 5) as u16 * 9, 0, false)
        })
        .collect();
    fn probe<M: Model>(frames: &[FrameSpec]) {
        let case = Case {
            seed: 11,
            idle: Profile::new(20, 2),
            stall: Profile::new(60, 8),
            cfg: RxConfig::default(),
            qps: vec![plain_qp()],
            keys: Vec::new(),
            frames: frames.to_vec(),
        };
        let mut b = Bench::<M>::new();
        b.probe_readies();
        b.run(&case)
            .unwrap_or_else(|f| panic!("{}: {f}", M::VARIANT));
        let p = b.probed.expect("probed");
        // The probe must have seen verdicts and requests waiting, else it proves nothing.
        assert!(
            p.hdr_waiting > 20 && p.ack_waiting > 5,
            "{}: {p:?}",
            M::VARIANT
        );
    }
    probe::<RxParserW64>(&frames);
    probe::<RxParserW512>(&frames);
}

/// Write-backs the QPC cannot take (`rx_wb_ready` is low in every QPC command's WRITE cycle)
/// wait in the parser's skid while the pipeline and the lookups stop; none may be lost or
/// applied after a lookup that misses it. QPC commands on an unrelated QP every few cycles
/// while back-to-back SENDs stream at line rate and under backpressure: to 6 QPs in turn
/// (a frame's QP was last written back 6 frames earlier, beyond the 4-deep forwarding
/// history: its lookup must see the QPC updated), and to one QP with runs of 5 duplicates
/// (no write-back) between accepts. Every verdict must match the model.
#[test]
fn write_backs_wait_while_the_qpc_runs_commands() {
    let qps: Vec<QpSpec> = (0..6)
        .map(|k| QpSpec {
            local: 2 + k,
            ..plain_qp()
        })
        .collect();
    let spread: Vec<FrameSpec> = (0..60)
        .map(|i| FrameSpec {
            target: Some((i % 6) as u8),
            psn_rel: Some(if i % 13 == 7 { -1 } else { 0 }),
            ..plain(0x04, (i % 3) as u16 * 20, 0, false)
        })
        .collect();
    let runs: Vec<FrameSpec> = (0..48)
        .map(|i| FrameSpec {
            psn_rel: Some(if i % 6 == 0 { 0 } else { -1 }),
            ..plain(0x04, (i % 2) as u16 * 8, 0, false)
        })
        .collect();
    fn noisy<M: Model>(qps: &[QpSpec], frames: &[FrameSpec], stall: Profile, period: u64) -> Tally {
        let case = Case {
            seed: 5,
            idle: Profile::NONE,
            stall,
            cfg: RxConfig::default(),
            qps: qps.to_vec(),
            keys: Vec::new(),
            frames: frames.to_vec(),
        };
        let mut b = Bench::<M>::new();
        b.qpc_noise(period);
        let t = b
            .run(&case)
            .unwrap_or_else(|f| panic!("{}: {f}", M::VARIANT));
        assert!(b.qpc_noise_issued() > 4, "{}", b.qpc_noise_issued());
        t
    }
    for period in [5, 7, 11] {
        for stall in [Profile::NONE, Profile::new(40, 3)] {
            for t in [
                noisy::<RxParserW64>(&qps, &spread, stall, period),
                noisy::<RxParserW512>(&qps, &spread, stall, period),
            ] {
                assert_eq!((t.accept, t.duplicate), (55, 5), "{t:?}");
            }
            for t in [
                noisy::<RxParserW64>(&qps[..1], &runs, stall, period),
                noisy::<RxParserW512>(&qps[..1], &runs, stall, period),
            ] {
                assert_eq!((t.accept, t.duplicate), (8, 40), "{t:?}");
            }
        }
    }
}

/// The payload stream at every start lane and length: 0–2 VLAN tags (IPv4 and IPv6) ×
/// extension headers of 0, 4, 16, 20 and 28 bytes (SEND only, SEND only+imm, WRITE only,
/// WRITE only+imm, compare-swap) × pad 0–3 × payloads around one, two and three beats, under
/// random backpressure on every sink (m_pay_tready included) at 64 and 1024 bits. Every
/// frame has a packet; each must be its payload, realigned, with the verdict's discard flag.
#[test]
fn payload_realigned_at_every_offset_and_length() {
    let mut frames = Vec::new();
    let lens: Vec<u16> = (1..=9).chain(60..=66).chain(125..=130).collect();
    for (k, &len) in lens.iter().enumerate() {
        for (j, op) in [0x04u8, 0x05, 0x0A, 0x0B, 0x13].into_iter().enumerate() {
            let vlans = ((k + j) % 3) as u8;
            frames.push(FrameSpec {
                pad: ((k + 2 * j) % 4) as u8,
                ..plain(op, len, vlans, (k + j) % 2 == 1)
            });
        }
    }
    for stall in [Profile::new(50, 4), Profile::NONE] {
        let a = run::<RxParserW64>(&frames, stall);
        let b = run::<RxParserW1024>(&frames, stall);
        assert_eq!(a.pay_packets, frames.len() as u64);
        assert_eq!(b.pay_packets, frames.len() as u64);
    }
}

/// A frame cut inside its payload still gets its packet: the payload bytes that arrived,
/// flagged discard (the verdict is a TRUNCATED drop). Cut before its payload starts, or with
/// an empty payload (an ACK), a frame gets none.
#[test]
fn truncated_payload_is_cut_and_discarded() {
    let cut = |n: usize| FrameSpec {
        mutation: Mutation::Truncate(n),
        ..plain(0x0A, 200, 1, false)
    };
    // The payload of a WRITE only with one VLAN tag starts at byte 74.
    let frames = [
        cut(74),
        cut(75),
        cut(100),
        cut(138),
        cut(139),
        cut(270),
        plain(0x11, 0, 0, false),
        plain(0x0A, 200, 1, false),
    ];
    for stall in [Profile::new(60, 6), Profile::NONE] {
        let t = run::<RxParserW64>(&frames, stall);
        assert_eq!((t.pay_packets, t.drops.get(&13).copied()), (6, Some(6)));
        let t = run::<RxParserW512>(&frames, stall);
        assert_eq!(t.pay_packets, 6);
    }
}

/// Runs `frames` on `qps` (no keys, default configuration) at 64 and 512 bits, each without
/// and with input idle and sink stalls: the four tallies.
fn at_64_and_512_bits(seed: u64, qps: &[QpSpec], frames: &[FrameSpec]) -> Vec<Tally> {
    let mut tallies = Vec::new();
    for stall in [Profile::new(0, 1), Profile::new(40, 3)] {
        let case = Case {
            seed,
            idle: stall,
            stall,
            cfg: RxConfig::default(),
            qps: qps.to_vec(),
            keys: Vec::new(),
            frames: frames.to_vec(),
        };
        tallies.push(Bench::<RxParserW64>::new().run(&case).unwrap());
        tallies.push(Bench::<RxParserW512>::new().run(&case).unwrap());
    }
    tallies
}

/// DestQP 1, the GSI (RDMA CM's MADs on RoCE), is the receiving VF's own QP 1: VF 3's and
/// VF 2's GSI QPs (service type QP1) each take UD sends to DestQP 1 from their own VF with the
/// well-known Q_Key 0x8001_0000 (their contexts hold another key, which is not the one
/// compared), the verdict names the VF's QP 1 (the bench compares every field with the
/// model); a VF without a QP 1 drops them as UNKNOWN_QP (not WRONG_VF), another Q_Key as
/// Q_KEY, and an RC opcode as TRANSPORT_MISMATCH.
#[test]
fn dest_qp_1_reaches_each_vfs_gsi_qp() {
    let gsi = |vf| QpSpec {
        vf,
        local: 1,
        st: 8,
        qkey: 0x1234,
        ..plain_qp()
    };
    let to_gsi = |opcode, vf, qkey| FrameSpec {
        opcode,
        vf,
        qpn: 1,
        qkey,
        target: None,
        psn_rel: None,
        ..plain(0x64, 16, 0, false)
    };
    let frames = [
        to_gsi(0x64, 3, 0x8001_0000),
        to_gsi(0x65, 2, 0x8001_0000),
        to_gsi(0x64, 3, 0x1234),
        to_gsi(0x64, 1, 0x8001_0000),
        to_gsi(0x04, 2, 0),
        plain(0x04, 16, 0, false),
    ];
    for t in at_64_and_512_bits(7, &[plain_qp(), gsi(3), gsi(2)], &frames) {
        assert_eq!(t.accept, 3);
        assert_eq!(t.drops.get(&DropReason::QKey.code()), Some(&1));
        assert_eq!(t.drops.get(&DropReason::UnknownQp.code()), Some(&1));
        assert_eq!(t.drops.get(&DropReason::TransportMismatch.code()), Some(&1));
        assert_eq!(t.drops.get(&DropReason::WrongVf.code()), None);
    }
}

/// UD requests carry the destination QP's Q_Key in their DETH (IBA 10.2.4): the right key
/// is accepted, any other (one bit off, the controlled-key bit, zero) is dropped as Q_KEY and
/// counted in `drop_q_key`; an RC QP's frames are not affected.
#[test]
fn ud_q_key_is_checked() {
    let ud = QpSpec {
        local: 0x0D,
        st: 2,
        qkey: 0x8001_0000,
        ..plain_qp()
    };
    // `fill` 4: the frame keeps its opcode and takes the target QP's Q_Key; 0: it keeps its own.
    let to_ud = |opcode, fill, qkey| FrameSpec {
        opcode,
        fill,
        qkey,
        target: Some(1),
        ..plain(0x64, 16, 0, false)
    };
    let frames = [
        to_ud(0x64, 4, 0),
        to_ud(0x65, 4, 0),
        to_ud(0x64, 0, 0x8001_0001),
        to_ud(0x65, 0, 0x0001_0000),
        to_ud(0x64, 0, 0),
        plain(0x04, 16, 0, false),
    ];
    for t in at_64_and_512_bits(5, &[plain_qp(), ud], &frames) {
        assert_eq!(t.accept, 3);
        assert_eq!(t.drops.get(&DropReason::QKey.code()), Some(&3));
    }
}
