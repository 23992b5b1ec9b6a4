//! Directed QPC cases that the random suite does not reach: its `Clear` op is written between
//! commands, never during one.

use rdmagen_harness::stall::Profile;
use rdmagen_qpc_tests::bench::{Bench, Case, Ctx, Key, Op};
use rdmagen_qpc_tests::{QpcV256Q64, QpcV4Q16};
use rdmagen_refmodel::qpc::{addr, state, Wb};

fn ctx(epsn: u32) -> Ctx {
    Ctx {
        st: 0,
        pd: 1,
        page: 1,
        epsn,
        mtu: 3,
        flags: 0b111,
        cqn: 2,
        qkey: 0x8001_0000,
    }
}

fn key(pd: u32) -> Key {
    Key {
        pd,
        key: 7,
        va: 0x1000,
        length: 0x1000,
        rights: 0b00100, // remote read
        junk: 0,
    }
}

/// A clear that starts in a command's WRITE cycle takes the RAM ports: the command reports
/// the status EXEC decided, its write is dropped, and the clear zeroes address 0 in that
/// cycle. The commands target context 0 and key 0, the first the clear zeroes, so a write
/// that went ahead of the clear would outlive it (QUERY_QP, QUERY_MKEY and the lookups after
/// the clear compare the RAMs with the model, which drops the write). `ctrl.clear` is swept
/// across the command's cycles; the model must have dropped a context write and a key write
/// (so the sweep reached the WRITE cycle), and every other clear start is compared too.
#[test]
fn clear_starting_in_write_drops_the_write() {
    let (mut ctx_dropped, mut key_dropped) = (0, 0);
    for after in 0..6u8 {
        for mk in [false, true] {
            let cmd = if mk {
                // CREATE_MKEY on a free key: EXEC decides OK and WRITE loads the key.
                Op::MkCmd {
                    opcode: 0x200,
                    vf: 0,
                    index: 0,
                    key: key(3),
                }
            } else {
                // INIT2RTR on a QP in INIT: EXEC decides OK and WRITE loads context and
                // ePSN (the other modifies keep ePSN).
                Op::Cmd {
                    opcode: 0x503,
                    vf: 0,
                    index: 0,
                    ctx: ctx(0x77),
                }
            };
            let ops = vec![
                Op::Bringup {
                    vf: 0,
                    local: 0,
                    steps: 1,
                    ctx: ctx(0x10),
                },
                Op::CmdClear {
                    cmd: Box::new(cmd),
                    after,
                },
                // 64 contexts and 16 keys to clear.
                Op::Idle(100),
                Op::Cmd {
                    opcode: 0x50B,
                    vf: 0,
                    index: 0,
                    ctx: ctx(0),
                },
                Op::MkCmd {
                    opcode: 0x201,
                    vf: 0,
                    index: 0,
                    key: key(0),
                },
                Op::Rx {
                    vf: 0,
                    qpn: 0,
                    user: 1,
                },
                Op::MkProbe {
                    index: 0,
                    edge: 4,
                    access: 0b001,
                    user: 2,
                },
            ];
            let case = Case {
                seed: u64::from(after),
                stall: Profile::NONE,
                ops,
            };
            let mut b = Bench::<QpcV4Q16>::new();
            b.run(&case)
                .unwrap_or_else(|f| panic!("clear {after} cycles after go, MKey {mk}: {f}"));
            let dropped = b.model().writes_dropped_by_clear;
            if mk {
                key_dropped += dropped;
            } else {
                ctx_dropped += dropped;
            }
        }
    }
    eprintln!("writes dropped by a clear: {ctx_dropped} QP, {key_dropped} MKey");
    assert!(
        ctx_dropped > 0,
        "no clear started in a QP command's WRITE cycle"
    );
    assert!(
        key_dropped > 0,
        "no clear started in an MKey command's WRITE cycle"
    );
}

/// The RX write-back owns ePSN and NAK-sent from RTR on: a modify other than INIT2RTR (and
/// CREATE) keeps them, whatever the mailbox holds. A write-back to the QP is aimed at each
/// cycle of the modify, from the cycle `go` is seen (software filled the mailbox before) to
/// after its WRITE cycle; the QP must come out with the write-back's ePSN and NAK-sent, not
/// the mailbox's. Before the fix every modify reloaded them from the mailbox, so a write-back
/// that landed between the mailbox write and the command's WRITE was lost (the next packet
/// NAKed as out of sequence, or a duplicate executed again).
#[test]
fn modify_keeps_the_written_back_epsn() {
    let (vf, local) = (1u32, 2u32);
    let qpn = vf << 12 | local;
    // (opcode, bring-up steps, extra command to reach the source state, destination)
    let modifies: [(u16, u8, Option<u16>, u32); 5] = [
        (0x502, 0, None, state::INIT),       // RST2INIT
        (0x50E, 1, None, state::INIT),       // INIT2INIT
        (0x504, 2, None, state::RTS),        // RTR2RTS
        (0x505, 3, None, state::RTS),        // RTS2RTS
        (0x50C, 3, Some(0x508), state::RTS), // RTS2SQD, then SQD_RTS
    ];
    for (opcode, steps, pre, to) in modifies {
        for after in 0..6u8 {
            let mut ops = vec![Op::Bringup {
                vf,
                local,
                steps,
                ctx: ctx(0x10),
            }];
            if let Some(p) = pre {
                ops.push(Op::Cmd {
                    opcode: p,
                    vf,
                    index: local,
                    ctx: ctx(0x10),
                });
            }
            ops.push(Op::CmdWb {
                cmd: Box::new(Op::Cmd {
                    opcode,
                    vf,
                    index: local,
                    ctx: ctx(0x77),
                }),
                wb: Wb {
                    vf: vf as u8,
                    qpn,
                    epsn: 0x42,
                    nak_sent: true,
                    err: false,
                },
                after,
                legal: false,
            });
            // QUERY_QP reads back the live ePSN and NAK-sent too.
            ops.push(Op::Cmd {
                opcode: 0x50B,
                vf,
                index: local,
                ctx: ctx(0),
            });
            let case = Case {
                seed: u64::from(after),
                stall: Profile::NONE,
                ops,
            };
            let what = format!("opcode {opcode:#x}, write-back {after} cycles after go");
            let mut b = Bench::<QpcV4Q16>::new();
            b.run(&case).unwrap_or_else(|f| panic!("{what}: {f}"));
            // The RTL agreed with the model; the model must also say what the rule says.
            let m = b.model();
            let (w, psn) = m.context(vf, local);
            let l = m.layout();
            assert_eq!(rdmagen_refmodel::qpc::get(w, l.state), to, "{what}");
            assert_eq!(psn, (0x42, true), "{what}");
            assert_eq!(m.loads_kept_live_psn, 1, "{what}");
        }
    }
    // INIT2RTR sets the receive PSN: the mailbox's ePSN replaces a write-back that came
    // before it (while software filled the mailbox) and NAK-sent is cleared.
    let case = Case {
        seed: 9,
        stall: Profile::NONE,
        ops: vec![
            Op::Bringup {
                vf,
                local,
                steps: 1,
                ctx: ctx(0x10),
            },
            Op::Wb {
                vf: vf as u8,
                qpn,
                epsn: 0x42,
                nak: true,
                err: false,
            },
            Op::Cmd {
                opcode: 0x503,
                vf,
                index: local,
                ctx: ctx(0x77),
            },
            Op::Rx {
                vf: vf as u8,
                qpn,
                user: 3,
            },
        ],
    };
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&case).unwrap_or_else(|f| panic!("INIT2RTR: {f}"));
    assert_eq!(b.model().context(vf, local).1, (0x77, false));
}

/// The RX path's move to ERR (`rx_wb_err`, sent with an RC remote access NAK): the doorbell,
/// WQE and RX ports and the commands see the QP in ERR (the responses are compared with the
/// model), a modify from RTS is refused, QUERY_QP reports ERR, and TO_RST ends it. A
/// write-back with the bit that lands in RST (one that waited out TO_RST's WRITE cycle) is
/// ignored there and in INIT, and INIT2RTR clears it; so does a write-back without the bit.
#[test]
fn rx_error_write_back_moves_the_qp_to_err() {
    let (vf, local) = (1u32, 2u32);
    let qpn = vf << 12 | local;
    let wb = |err| Op::Wb {
        vf: vf as u8,
        qpn,
        epsn: 0x42,
        nak: false,
        err,
    };
    let cmd = |opcode| Op::Cmd {
        opcode,
        vf,
        index: local,
        ctx: ctx(0x10),
    };
    let probes = || {
        vec![
            Op::Db {
                vf: vf as u8,
                qpn,
                page: 1,
                user: 1,
            },
            Op::Wqe {
                vf: vf as u8,
                qpn,
                pd: 1,
                user: 2,
            },
            Op::Rx {
                vf: vf as u8,
                qpn,
                user: 3,
            },
            Op::Idle(4),
        ]
    };
    let seen = |b: &Bench<QpcV4Q16>| {
        let m = b.model();
        let l = m.layout();
        let st = rdmagen_refmodel::qpc::get(m.context(vf, local).0, l.state);
        state::seen(st, m.rx_error(vf, local))
    };
    let up = Op::Bringup {
        vf,
        local,
        steps: 3,
        ctx: ctx(0x10),
    };
    // In RTS, then the bit: ERR everywhere; RTS2SQD refused; QUERY_QP says ERR.
    let mut ops = vec![up.clone()];
    ops.extend(probes());
    ops.push(wb(true));
    ops.extend(probes());
    ops.extend([cmd(0x508), cmd(0x50B)]);
    ops.extend(probes());
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&Case {
        seed: 1,
        stall: Profile::NONE,
        ops: ops.clone(),
    })
    .unwrap_or_else(|f| panic!("RTS, then rx_wb_err: {f}"));
    assert_eq!(seen(&b), state::ERR);
    let m = b.model();
    let raw = rdmagen_refmodel::qpc::get(m.context(vf, local).0, m.layout().state);
    assert_eq!(raw, state::RTS, "RTS2SQD from ERR is refused");
    // TO_RST ends it; the bit again in RST is ignored, RST2INIT is legal, INIT2RTR clears it.
    ops.extend([cmd(0x50A), wb(true)]);
    ops.extend(probes());
    ops.push(cmd(0x502));
    ops.extend(probes());
    ops.push(cmd(0x503));
    ops.extend(probes());
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&Case {
        seed: 2,
        stall: Profile::NONE,
        ops,
    })
    .unwrap_or_else(|f| panic!("TO_RST and back up: {f}"));
    assert_eq!(seen(&b), state::RTR);
    assert!(!b.model().rx_error(vf, local), "INIT2RTR clears the bit");
    // A write-back writes the whole {err, nak_sent, ePSN} word: one without the bit clears
    // it (the RX parser sends none for a QP it moved to ERR).
    let mut ops = vec![up, wb(true)];
    ops.extend(probes());
    ops.push(wb(false));
    ops.extend(probes());
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&Case {
        seed: 3,
        stall: Profile::NONE,
        ops,
    })
    .unwrap_or_else(|f| panic!("rx_wb_err, then a write-back without it: {f}"));
    assert_eq!(seen(&b), state::RTS);
}

/// SPEC §2: nothing is accepted while in reset. With every request `valid` high and reset
/// asserted (for several edges, in either reset style), no request port may show `ready`: a
/// handshake then would be lost, since the stage-1 flops are held in reset. Before the fix
/// the lookup ports' `ready` was `!rsp_valid_q || rsp_ready`, which is 1 in reset.
fn no_request_taken_in_reset<M: rdmagen_harness::Model>() {
    let mut m = M::create();
    m.zero_inputs();
    m.set_reset(true);
    for p in ["db", "wqe", "rx", "mk"] {
        m.poke(&format!("{p}_req_valid"), 1);
        m.poke(&format!("{p}_rsp_ready"), 1);
    }
    m.poke("rx_wb_valid", 1);
    m.poke("s_axil_awvalid", 1);
    m.poke("s_axil_wvalid", 1);
    m.poke("s_axil_arvalid", 1);
    for edge in 0..4 {
        m.eval();
        for p in [
            "db_req_ready",
            "wqe_req_ready",
            "rx_req_ready",
            "mk_req_ready",
            "rx_wb_ready",
            "s_axil_awready",
            "s_axil_wready",
            "s_axil_arready",
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
fn no_request_taken_in_reset_sync_high() {
    no_request_taken_in_reset::<QpcV4Q16>();
}

#[test]
fn no_request_taken_in_reset_async_low() {
    no_request_taken_in_reset::<rdmagen_qpc_tests::QpcV256Q64>();
}

/// The mailbox and the status read in every cycle of the MKey commands: a CSR read is issued
/// 0-9 cycles after the engine sees `go`, so that the register is sampled before, in and after
/// the command's EXEC and WRITE cycles. QUERY_MKEY copies the key into the mailbox at the end
/// of WRITE (the key compare ends in a flop in EXEC; issue 9) and only when the key is the
/// VF's; DESTROY_MKEY and QUERY_MKEY of another VF's key report BAD_RES and change nothing.
/// The mailbox holds other values than the key (software filled it for the query), so a copy
/// one cycle earlier or later than the model's, or one that should not happen, is seen.
#[test]
fn mkey_commands_read_in_every_cycle() {
    let stored = Key {
        pd: 3,
        key: 7,
        va: 0x1000,
        length: 0x1000,
        rights: 0b00100,
        junk: 0,
    };
    let filled = Key {
        pd: 0x55,
        key: 0x99,
        va: 0xdead_0000,
        length: 0x20,
        rights: 0b11011,
        junk: 0,
    };
    // (opcode, target VF): QUERY_MKEY and DESTROY_MKEY; the key belongs to VF 1.
    let cmds = [(0x201u16, 1u32), (0x201, 2), (0x202, 2), (0x202, 1)];
    let mut runs = 0;
    for (opcode, vf) in cmds {
        for after in 0..10u8 {
            for a in (0..6)
                .map(|i| addr::MAILBOX + 4 * i)
                .chain([addr::CMD_STATUS])
            {
                let ops = vec![
                    Op::MkCmd {
                        opcode: 0x200,
                        vf: 1,
                        index: 3,
                        key: stored.clone(),
                    },
                    Op::CmdRead {
                        cmd: Box::new(Op::MkCmd {
                            opcode,
                            vf,
                            index: 3,
                            key: filled.clone(),
                        }),
                        after,
                        addr: a,
                    },
                    // The key as the command left it.
                    Op::MkCmd {
                        opcode: 0x201,
                        vf: 1,
                        index: 3,
                        key: filled.clone(),
                    },
                ];
                let case = Case {
                    seed: u64::from(after),
                    stall: Profile::NONE,
                    ops,
                };
                let what = format!(
                    "opcode {opcode:#x} from VF {vf}, read of {a:#x} {after} cycles after go"
                );
                Bench::<QpcV4Q16>::new()
                    .run(&case)
                    .unwrap_or_else(|f| panic!("{what}: {f}"));
                Bench::<QpcV256Q64>::new()
                    .run(&case)
                    .unwrap_or_else(|f| panic!("{what}, 256 VFs: {f}"));
                runs += 1;
            }
        }
    }
    assert_eq!(runs, 4 * 10 * 7);
}

/// The doorbell and WQE ports have a two-entry response (docs/qpc.md): `{p}_req_ready` is a
/// flop's, the same whatever `{p}_rsp_ready` is in the cycle, and with the response held the
/// port still takes three requests (the head, the second entry and stage 1), then waits; once
/// released the answers come in order with none lost or repeated. Requests go to QP 0 of VF 0,
/// which does not exist (every answer is a refusal; `user` tells them apart).
fn response_skid<M: rdmagen_harness::Model>() {
    for p in ["db", "wqe"] {
        let mut m = M::create();
        m.reset(4);
        // The QPC clears its tables after reset; lookups answer "invalid" meanwhile, which
        // is all this test needs.
        m.poke(&format!("{p}_rsp_ready"), 0);
        let mut taken = Vec::new();
        let mut user = 0;
        for cycle in 0..12 {
            m.poke(&format!("{p}_req_valid"), 1);
            m.poke(&format!("{p}_req_user"), user);
            let mut readies = [0; 2];
            for (i, r) in [1, 0].into_iter().enumerate() {
                m.poke(&format!("{p}_rsp_ready"), r);
                m.eval();
                readies[i] = m.peek(&format!("{p}_req_ready"));
            }
            assert_eq!(
                readies[0],
                readies[1],
                "{} {p}: cycle {cycle}: {p}_req_ready follows {p}_rsp_ready",
                M::VARIANT
            );
            if readies[1] == 1 {
                taken.push(user);
                user += 1;
            }
            m.tick();
        }
        assert_eq!(
            taken,
            [0, 1, 2],
            "{} {p}: requests taken while the response is held",
            M::VARIANT
        );
        // Release the response: the three answers in order, one per cycle, nothing more.
        m.poke(&format!("{p}_req_valid"), 0);
        m.poke(&format!("{p}_rsp_ready"), 1);
        let mut answers = Vec::new();
        for _ in 0..8 {
            m.eval();
            if m.peek(&format!("{p}_rsp_valid")) == 1 {
                answers.push(m.peek(&format!("{p}_rsp_user")));
            }
            m.tick();
        }
        assert_eq!(
            answers,
            [0, 1, 2],
            "{} {p}: answers after the release",
            M::VARIANT
        );
    }
}

#[test]
fn response_skid_sync_high() {
    response_skid::<QpcV4Q16>();
}

#[test]
fn response_skid_async_low() {
    response_skid::<rdmagen_qpc_tests::QpcV256Q64>();
}
