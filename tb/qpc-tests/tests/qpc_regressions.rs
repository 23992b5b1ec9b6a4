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
        qkey: 0x8001_0000,
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

/// A key whose region ends at 2^64: accesses ending exactly at the end pass, one byte
/// further fails without wrapping around to address 0, and a zero-length access passes even
/// with a key that does not exist (IBA C9-88). Written when the R_Key check was added, from
/// the mutation that turned the range test's `>` into `>=` (the random suite then caught it
/// only through `MkProbe`).
#[test]
fn rkey_region_edges() {
    use rdmagen_qpc_tests::bench::Key;
    let key = Key {
        pd: 2,
        key: 1,
        va: u64::MAX - 0xfff,
        length: 0x1000,
        rights: 0b01100, // remote read and write (word bits 11, 12), no atomic
        junk: 0,
    };
    let mut ops = vec![Op::MkCmd {
        opcode: 0x200,
        vf: 1,
        index: 2,
        key,
    }];
    for edge in 0..6 {
        ops.push(Op::MkProbe {
            index: 2,
            edge,
            access: 0b011,
            user: u32::from(edge),
        });
    }
    ops.push(Op::MkCmd {
        opcode: 0x201,
        vf: 1,
        index: 2,
        key: Key {
            pd: 0,
            key: 0,
            va: 0,
            length: 0,
            rights: 0,
            junk: 0,
        },
    });
    let case = Case {
        seed: 2,
        stall: Profile::NONE,
        ops,
    };
    let mut b = Bench::<QpcV4Q16>::new();
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    assert_eq!(b.rkey_checks, 6);
    // The RTL agreed with the model; the model must also say what the spec says.
    use rdmagen_refmodel::qpc::{mk_reason, MkReq};
    let top = u64::MAX - 0xfff;
    let req = |va: u64, len: u32, rkey: u32| MkReq {
        vf: 1,
        pd: 2,
        rkey,
        va,
        len,
        access: 0b011,
        user: 0,
    };
    let m = b.model();
    assert_eq!(m.rkey_check(&req(top, 1, 0x201)), mk_reason::OK);
    assert_eq!(m.rkey_check(&req(u64::MAX - 7, 8, 0x201)), mk_reason::OK);
    assert_eq!(m.rkey_check(&req(u64::MAX - 6, 8, 0x201)), mk_reason::RANGE);
    assert_eq!(m.rkey_check(&req(top - 1, 1, 0x201)), mk_reason::RANGE);
    assert_eq!(m.rkey_check(&req(top, 0x1000, 0x201)), mk_reason::OK);
    assert_eq!(m.rkey_check(&req(top, 1, 0x202)), mk_reason::INVALID);
    assert_eq!(m.rkey_check(&req(0, 0, 0x302)), mk_reason::OK);
    assert_eq!(
        m.rkey_check(&MkReq {
            access: 0b100,
            ..req(top, 8, 0x201)
        }),
        mk_reason::ACCESS
    );
}
