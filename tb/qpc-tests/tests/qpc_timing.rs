//! Timing of the QPC lookup ports, in cycles inside simulation: with no idle and no
//! backpressure each port answers exactly 2 cycles after it accepts a request and takes one
//! request per cycle (docs/qpc.md, "Ports"). The property suite only checks "at least 2"
//! (under backpressure a response waits); this pins the number. Also the cycle a command's
//! context write lands.

use rdmagen_harness::figures::{record, Figure};
use rdmagen_harness::stall::Profile;
use rdmagen_harness::{HasAxiLite, Model};
use rdmagen_qpc_tests::bench::{Bench, Case, Ctx, Op};
use rdmagen_qpc_tests::*;
use rdmagen_refmodel::qpc::MkReq;

const PER_PORT: u32 = 1000;
const QPS: u32 = 4;

fn lookups<M: Model + HasAxiLite>() {
    let ctx = Ctx {
        st: 0,
        pd: 1,
        page: 0,
        epsn: 0x10,
        mtu: 3,
        flags: 0b111,
        cqn: 1,
        qkey: 0x1234_5678,
    };
    let mut ops: Vec<Op> = (0..QPS)
        .map(|local| Op::Bringup {
            vf: 1,
            local,
            steps: 3,
            ctx: ctx.clone(),
        })
        .collect();
    ops.push(Op::Idle(8));
    // One request per cycle on each port in turn (every op queues one and runs a cycle).
    let qpn = |i: u32| (1 << 12) | (i % QPS);
    ops.extend((0..PER_PORT).map(|i| Op::Db {
        vf: 1,
        qpn: qpn(i),
        page: 0,
        user: i,
    }));
    ops.extend((0..PER_PORT).map(|i| Op::Wqe {
        vf: 1,
        qpn: qpn(i),
        pd: 1,
        user: i,
    }));
    ops.extend((0..PER_PORT).map(|i| Op::Rx {
        vf: 1,
        qpn: qpn(i),
        user: i,
    }));
    ops.extend((0..PER_PORT).map(|i| {
        Op::Mk(MkReq {
            vf: 1,
            pd: 1,
            rkey: (i % 4) << 8,
            va: 0x1000,
            len: 64,
            access: 1,
            user: i,
        })
    }));
    let case = Case {
        seed: 3,
        stall: Profile::NONE,
        ops,
    };
    let mut b = Bench::<M>::new();
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    for port in ["doorbell check", "WQE check", "RX lookup", "R_Key check"] {
        let rsp: Vec<(u64, u64)> = b
            .responses
            .iter()
            .filter(|r| r.0 == port)
            .map(|r| (r.1, r.2))
            .collect();
        assert_eq!(rsp.len(), PER_PORT as usize, "{port}: responses");
        let latencies: Vec<u64> = rsp.iter().map(|(at, done)| done - at).collect();
        let (min, max) = (
            *latencies.iter().min().expect("responses"),
            *latencies.iter().max().expect("responses"),
        );
        let span = rsp.last().expect("responses").1 - rsp[0].1 + 1;
        let per_cycle = f64::from(PER_PORT) / span as f64;
        eprintln!(
            "{}: {port}: {PER_PORT} lookups, latency {min}..{max} cycles, {per_cycle:.3} responses per cycle",
            M::VARIANT
        );
        assert_eq!((min, max), (2, 2), "{port}: latency {min}..{max} cycles");
        assert_eq!(
            span,
            u64::from(PER_PORT),
            "{port}: {PER_PORT} responses in {span} cycles"
        );
        let test = "cargo test -p rdmagen-qpc-tests --test qpc_timing";
        record(&Figure {
            block: "qpc",
            variant: M::VARIANT,
            figure: &format!("{port}: request accepted to response"),
            value: max as f64,
            unit: "cycles",
            bound: "= 2",
            test,
        });
        record(&Figure {
            block: "qpc",
            variant: M::VARIANT,
            figure: &format!("{port}: responses per cycle"),
            value: per_cycle,
            unit: "per cycle",
            bound: "= 1",
            test,
        });
    }
}

/// A command's context write, in cycles after its `cmd_ctrl` write is accepted: `go` is seen
/// the cycle after, then READ, EXEC and WRITE, whose end writes the RAMs (docs/qpc.md,
/// "Command timing"). Measured on the RTL's RX lookup port, which takes a lookup of the QP
/// being created every cycle: the first that finds it was accepted the cycle after the write
/// (a lookup sees the writes of earlier cycles), and the one before it still did not.
fn command_write<M: Model + HasAxiLite>() {
    let ctx = Ctx {
        st: 0,
        pd: 1,
        page: 0,
        epsn: 0x10,
        mtu: 3,
        flags: 0b111,
        cqn: 1,
        qkey: 0x1234_5678,
    };
    let qpn = 1 << 12 | 2;
    let case = Case {
        seed: 4,
        stall: Profile::NONE,
        ops: vec![
            // Enough lookups to span the mailbox writes, the command and some cycles after.
            Op::RxBurst { vf: 1, qpn, n: 300 },
            Op::Cmd {
                opcode: 0x500,
                vf: 1,
                index: 2,
                ctx,
            },
        ],
    };
    let mut b = Bench::<M>::new();
    b.run(&case).unwrap_or_else(|f| panic!("{f}"));
    let go = *b.go_accepted.first().expect("the command's go");
    let rx: Vec<(u64, bool)> = b
        .responses
        .iter()
        .filter(|r| r.0 == "RX lookup")
        .map(|r| (r.1, r.3))
        .collect();
    let first = rx
        .iter()
        .position(|&(_, ok)| ok)
        .expect("a lookup that finds the created QP");
    assert!(first > 0 && rx[first - 1].0 + 1 == rx[first].0 && !rx[first - 1].1);
    let latency = rx[first].0 - 1 - go;
    eprintln!(
        "{}: CREATE_QP: cmd_ctrl write accepted at cycle {go}, context written {latency} cycles later",
        M::VARIANT
    );
    assert_eq!(latency, 4, "cmd_ctrl write accepted to context write");
    record(&Figure {
        block: "qpc",
        variant: M::VARIANT,
        figure: "command (CREATE_QP): cmd_ctrl write accepted to context write",
        value: latency as f64,
        unit: "cycles",
        bound: "= 4",
        test: "cargo test -p rdmagen-qpc-tests --test qpc_timing",
    });
}

#[test]
fn qpc_v4_q16_command_write() {
    command_write::<QpcV4Q16>();
}

#[test]
fn qpc_v256_q64_command_write() {
    command_write::<QpcV256Q64>();
}

#[test]
fn qpc_v4_q16_lookups() {
    lookups::<QpcV4Q16>();
}

#[test]
fn qpc_v256_q64_lookups() {
    lookups::<QpcV256Q64>();
}
