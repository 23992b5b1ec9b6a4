//! Directed QPC cases that the random suite does not reach: its `Clear` op is written between
//! commands, never during one.

use rdmagen_harness::stall::Profile;
use rdmagen_qpc_tests::bench::{Bench, Case, Ctx, Key, Op};
use rdmagen_qpc_tests::QpcV4Q16;

fn ctx(epsn: u32) -> Ctx {
    Ctx {
        st: 0,
        pd: 1,
        page: 1,
        epsn,
        mtu: 3,
        flags: 0b111,
        cqn: 2,
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
                // RTS2RTS on a QP in RTS: EXEC decides OK and WRITE loads context and ePSN.
                Op::Cmd {
                    opcode: 0x505,
                    vf: 0,
                    index: 0,
                    ctx: ctx(0x77),
                }
            };
            let ops = vec![
                Op::Bringup {
                    vf: 0,
                    local: 0,
                    steps: 3,
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
