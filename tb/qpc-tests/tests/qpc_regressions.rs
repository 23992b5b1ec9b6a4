//! Shrunk failing cases of the QPC property tests, kept as named tests.

use rdmagen_harness::stall::Profile;
use rdmagen_qpc_tests::bench::{Bench, Case, Ctx, Op};
use rdmagen_qpc_tests::QpcV4Q16;

fn ctx(epsn: u32) -> Ctx {
    Ctx {
        st: 0,
        pd: 1,
        page: 1,
        epsn,
        mtu: 3,
        flags: 0,
        cqn: 2,
    }
}

/// CREATE_QP must store the mailbox's ePSN, and QUERY_QP must report it. Found when the
/// generator computed the ePSN to write before the command engine had chosen its word (the
/// ePSN RAM got 0).
#[test]
fn query_reports_the_created_epsn() {
    let case = Case {
        seed: 1,
        stall: Profile::NONE,
        ops: vec![
            Op::Bringup {
                vf: 1,
                local: 1,
                steps: 0,
                ctx: ctx(1),
            },
            Op::Cmd {
                opcode: 0x50B,
                vf: 1,
                index: 1,
                ctx: ctx(0),
            },
        ],
    };
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
}
