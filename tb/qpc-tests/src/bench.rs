//! The Verilated QPC block next to `rdmagen_refmodel::qpc`, cycle by cycle: random QP life
//! cycles through the command mailbox, lookups on the three ports and write-backs from any VF
//! (hostile ones included), each port with random idle and backpressure.

use std::collections::{HashMap, VecDeque};
use std::path::Path;

use proptest::prelude::*;
use rdmagen_harness::axil::{AxiLiteMaster, Event, Timing};
use rdmagen_harness::stall::{split_seed, Profile, Stall};
use rdmagen_harness::{HasAxiLite, Model, RawPort};
use rdmagen_refmodel::qpc::{
    addr, set, set64, CycleIn, DbRsp, Kind, MkReq, MkRsp, QpcModel, Req, RxRsp, Wb, WqeRsp,
    COMMANDS, MK_COMMANDS,
};

/// Mailbox contents of a create or modify command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Ctx {
    pub st: u32,
    pub pd: u32,
    pub page: u32,
    pub epsn: u32,
    pub mtu: u32,
    pub flags: u32,
    pub cqn: u32,
    pub qkey: u32,
}

/// Mailbox contents of CREATE_MKEY.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Key {
    pub pd: u32,
    pub key: u32,
    pub va: u64,
    pub length: u64,
    /// Access bits 13:9 of the word (remote atomic, write, read; local write, read).
    pub rights: u32,
    /// Junk in the valid and vf fields, which hardware sets.
    pub junk: u32,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Op {
    /// One command: opcode (from the table, or any 16-bit value), target, mailbox.
    Cmd {
        opcode: u16,
        vf: u32,
        index: u32,
        ctx: Ctx,
    },
    /// CREATE then the legal modifies up to `steps` (1 INIT, 2 RTR, 3 RTS).
    Bringup {
        vf: u32,
        local: u32,
        steps: u8,
        ctx: Ctx,
    },
    Db {
        vf: u8,
        qpn: u32,
        page: u32,
        user: u32,
    },
    Wqe {
        vf: u8,
        qpn: u32,
        pd: u32,
        user: u32,
    },
    Rx {
        vf: u8,
        qpn: u32,
        user: u32,
    },
    Wb {
        vf: u8,
        qpn: u32,
        epsn: u32,
        nak: bool,
        /// `rx_wb_err`: the QP reads as ERR (unless in RST or INIT) until the bit is rewritten
        /// (a command, or a write-back without it).
        err: bool,
    },
    /// An MKey command: opcode, target, key fields for the mailbox.
    MkCmd {
        opcode: u16,
        vf: u32,
        index: u32,
        key: Key,
    },
    /// An R_Key check.
    Mk(MkReq),
    /// An R_Key check aimed at the key at `index` as it is when the op runs (its VF, PD and
    /// variant byte), at an edge of its region: 0 first byte, 1 last 8 bytes, 2 one byte
    /// past the end, 3 one byte before the start, 4 the whole region, 5 zero length.
    MkProbe {
        index: u32,
        edge: u8,
        access: u8,
        user: u32,
    },
    /// ctrl.clear.
    Clear,
    Idle(u8),
    /// A command (`Cmd` or `MkCmd`) with `ctrl.clear` written `after` cycles after the
    /// model's engine sees its `go`: aims a clear at one cycle of the command (the random
    /// ops write `Clear` between commands only).
    CmdClear {
        cmd: Box<Op>,
        after: u8,
    },
    /// A command (`Cmd` or `MkCmd`) with a CSR read of `addr` issued `after` cycles after the
    /// model's engine sees its `go`: shows a register (the mailbox, the status) in the cycles
    /// of the command (software reads while busy; the random ops read after the command).
    CmdRead {
        cmd: Box<Op>,
        after: u8,
        addr: u64,
    },
    /// A command (`Cmd`) with an RX write-back queued `after` cycles after the model's engine
    /// sees its `go` (it is taken then, or a cycle later in the command's WRITE cycle), then
    /// an RX lookup of the write-back's QPN: aims a write-back at each cycle of a modify, the
    /// race between the RX path and software's mailbox (a write-back that lands after the
    /// mailbox was filled must survive every modify but CREATE and INIT2RTR). With `legal`,
    /// a free target is first brought up to RTR (the random ops leave most targets free),
    /// and the opcode is replaced, when the op runs, by a modify that loads the mailbox and
    /// is legal from the target's state then (as the model holds it), if there is one.
    CmdWb {
        cmd: Box<Op>,
        wb: Wb,
        after: u8,
        legal: bool,
    },
    /// A command (`Cmd`) with `n` lookups of its QP on one port queued `after` cycles after the model's engine sees its `go`: the port takes
    /// them in the cycles of the command and after (one per cycle unless stalled), so the
    /// responses show the cycle its write lands on that port's view of the context (the
    /// random ops queue a lookup between commands, which is answered before the next one's
    /// mailbox is filled). The doorbell and WQE requests carry the mailbox's UAR page and PD.
    /// With `legal`, a free target is first brought up to RTS, and the opcode is replaced,
    /// when the op runs, by a command legal from the target's state (as the model holds it).
    CmdLookups {
        cmd: Box<Op>,
        port: LookupPort,
        after: u8,
        n: u8,
        legal: bool,
    },
    /// `n` RX lookups of one QPN queued at once: the port takes one per cycle while the
    /// next ops run (a command, say), so the responses show the cycle its write lands.
    RxBurst {
        vf: u8,
        qpn: u32,
        n: u16,
    },
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Case {
    pub seed: u64,
    pub stall: Profile,
    pub ops: Vec<Op>,
}

/// The QPC's lookup ports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookupPort {
    Doorbell,
    Wqe,
    Rx,
}

/// A row of the QP command table (`COMMANDS`): name, opcode, kind, from-state, to-state.
type Command = (&'static str, u16, Kind, Option<u32>, u32);

/// Something aimed at one cycle of a command, counted from the cycle the engine sees `go`.
#[derive(Clone, Copy)]
enum Aim {
    Clear,
    Wb(Wb),
    Read(u64),
    /// `n` copies of a lookup on a port.
    Lookups(LookupPort, Req, u8),
}

/// A valid/ready source: keeps `valid` and the payload until taken.
struct Src<T> {
    queue: VecDeque<T>,
    valid: bool,
    idle: Stall,
}

impl<T: Copy> Src<T> {
    fn new(seed: u64, p: Profile) -> Self {
        Src {
            queue: VecDeque::new(),
            valid: false,
            idle: Stall::new(seed, p),
        }
    }
    fn drive(&mut self) -> Option<T> {
        self.valid = !self.queue.is_empty() && (self.valid || !self.idle.hold());
        if self.valid {
            self.queue.front().copied()
        } else {
            None
        }
    }
    fn take(&mut self, ready: bool) -> Option<T> {
        if self.valid && ready {
            self.valid = false;
            self.queue.pop_front()
        } else {
            None
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub cycle: u64,
    pub message: String,
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cycle {}: {}", self.cycle, self.message)
    }
}

pub struct Bench<M: Model + HasAxiLite> {
    model: QpcModel,
    pins: HashMap<&'static str, RawPort>,
    cycle: u64,
    pub total_cycles: u64,
    /// Requests and responses checked over the bench's life.
    pub lookups: u64,
    pub hostile: u64,
    /// R_Key checks compared.
    pub rkey_checks: u64,
    /// Modifies that kept a live ePSN/NAK-sent other than the mailbox's (the model's
    /// `loads_kept_live_psn`, summed over the bench's runs).
    pub psn_kept: u64,
    /// Per response taken: the port (as in failure messages), the cycle its request was
    /// accepted, the cycle the response was taken and its `ok` (WQE check: status EXECUTE).
    /// Cleared by `run`.
    pub responses: Vec<(&'static str, u64, u64, bool)>,
    /// The cycles in which a `cmd_ctrl` write with `go` set was accepted. Cleared by `run`.
    pub go_accepted: Vec<u64>,
    dut: M,
}

fn map() -> rdmagen_regmap::RegMap {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../register-maps/qpc.yaml");
    rdmagen_regmap::load(&p).unwrap_or_else(|e| panic!("{e}"))
}

impl<M: Model + HasAxiLite> Bench<M> {
    pub fn new() -> Self {
        let dut = M::create();
        let p = |n: &str| M::param(n).unwrap_or_else(|| panic!("no parameter {n}")) as u32;
        let model =
            QpcModel::new(&map(), p("NUM_VF"), p("QPS_PER_VF"), p("NUM_MKEYS")).expect("qpc map");
        let pins = M::PORTS
            .iter()
            .map(|info| {
                // SAFETY: the bench owns the model and drops the handles with it.
                let raw = unsafe { dut.port(info.name).expect("listed port").detach() };
                (info.name, raw)
            })
            .collect();
        Bench {
            model,
            pins,
            cycle: 0,
            total_cycles: 0,
            lookups: 0,
            hostile: 0,
            rkey_checks: 0,
            psn_kept: 0,
            responses: Vec::new(),
            go_accepted: Vec::new(),
            dut,
        }
    }

    pub fn model(&self) -> &QpcModel {
        &self.model
    }

    /// Starts an FST waveform of this (fresh) bench's model.
    pub fn dut_trace(&mut self, path: &Path) -> std::io::Result<()> {
        self.dut.trace_open(path)
    }

    fn set(&self, name: &str, v: u64) {
        let p = self
            .pins
            .get(name)
            .unwrap_or_else(|| panic!("no port {name}"));
        // SAFETY: see `new`.
        unsafe { p.get() }.write(&[v as u32, (v >> 32) as u32]);
    }

    fn get(&self, name: &str) -> u64 {
        let p = self
            .pins
            .get(name)
            .unwrap_or_else(|| panic!("no port {name}"));
        let mut w = [0u32; 2];
        // SAFETY: see `new`.
        unsafe { p.get() }.read(&mut w);
        u64::from(w[0]) | u64::from(w[1]) << 32
    }

    fn fail<T>(&self, message: String) -> Result<T, Failure> {
        Err(Failure {
            cycle: self.cycle,
            message,
        })
    }

    /// Runs one case from reset.
    pub fn run(&mut self, case: &Case) -> Result<(), Failure> {
        self.dut.reset(2);
        self.model.reset();
        self.cycle = 0;
        self.responses.clear();
        self.go_accepted.clear();
        let mut r = Run::new(case.seed, case.stall);
        // Let the clear sequence finish first, so most lookups meet real contexts; the
        // `Clear` op exercises lookups during a clear.
        while self.model.clearing() {
            self.step(&mut r)?;
        }
        for op in &case.ops {
            self.op(&mut r, op)?;
        }
        let start = self.cycle;
        while !r.quiet() || self.model.busy() {
            if self.cycle - start > 100_000 {
                return self.fail("the block stopped answering".into());
            }
            self.step(&mut r)?;
        }
        // Counters and `int_status`, once quiet: they count (are set) one or two cycles after
        // their event (docs/qpc.md); the reads are accepted later than that.
        self.step(&mut r)?;
        for a in [
            addr::ILLEGAL,
            addr::CMD_ERRORS,
            addr::PD_MISMATCHES,
            addr::PARTITION,
            addr::COLLISIONS,
            addr::RKEY_VIOLATIONS,
            addr::CMD_STATUS,
            addr::INT_STATUS,
        ] {
            r.axil.read(a);
        }
        while !r.quiet() {
            self.step(&mut r)?;
        }
        self.psn_kept += u64::from(self.model.loads_kept_live_psn);
        Ok(())
    }

    fn command(
        &mut self,
        r: &mut Run,
        opcode: u16,
        vf: u32,
        index: u32,
        ctx: &Ctx,
        aim: Option<(u8, Aim)>,
    ) -> Result<(), Failure> {
        let l = self.model.layout().clone();
        let mut w = vec![0u32; 12];
        set(&mut w, l.st, ctx.st);
        set(&mut w, l.pd, ctx.pd);
        set(&mut w, l.uar_page, ctx.page);
        set(&mut w, l.epsn, ctx.epsn);
        set(&mut w, l.mtu, ctx.mtu);
        set(&mut w, l.rre, ctx.flags & 1);
        set(&mut w, l.rwe, ctx.flags >> 1 & 1);
        set(&mut w, l.rae, ctx.flags >> 2 & 1);
        set(&mut w, l.cqn_snd, ctx.cqn);
        set(&mut w, l.qkey, ctx.qkey);
        // Junk where hardware decides: it must be ignored.
        set(&mut w, l.valid, ctx.flags >> 3 & 1);
        set(&mut w, l.state, ctx.flags >> 4 & 0xf);
        self.run_command(r, opcode, vf, index, &w, aim)
    }

    fn mk_command(
        &mut self,
        r: &mut Run,
        opcode: u16,
        vf: u32,
        index: u32,
        key: &Key,
        aim: Option<(u8, Aim)>,
    ) -> Result<(), Failure> {
        let l = self.model.mk_layout().clone();
        let mut w = vec![0u32; 6];
        set(&mut w, l.pd, key.pd);
        set(&mut w, l.key, key.key);
        set64(&mut w, l.va, key.va);
        set64(&mut w, l.length, key.length);
        w[0] |= (key.rights & 0x1f) << 9;
        set(&mut w, l.valid, key.junk & 1);
        set(&mut w, l.vf, key.junk >> 1 & 0xff);
        self.run_command(r, opcode, vf, index, &w, aim)
    }

    /// Fills the mailbox with `w`, starts `opcode` on (vf, index), waits for it and reads the
    /// status (and the mailbox after a query). With `aim`, writes `ctrl.clear` or queues an RX
    /// write-back that many cycles after the cycle the engine sees `go` in.
    fn run_command(
        &mut self,
        r: &mut Run,
        opcode: u16,
        vf: u32,
        index: u32,
        w: &[u32],
        aim: Option<(u8, Aim)>,
    ) -> Result<(), Failure> {
        for (i, d) in w.iter().enumerate() {
            r.axil
                .write(addr::MAILBOX + 4 * i as u64, u64::from(*d), 0xf);
        }
        r.axil
            .write(addr::CMD_TARGET, u64::from(vf << 24 | index), 0xf);
        r.axil.write(
            addr::CMD_CTRL,
            u64::from(1u32 << 31 | u32::from(opcode)),
            0xf,
        );
        // Wait for the engine, then read the status (and the mailbox of a query).
        let start = self.cycle;
        let mut go_seen = None;
        let mut aimed = false;
        while !r.axil.is_idle() || self.model.busy() || self.cycle - start < 4 {
            if self.cycle - start > 10_000 {
                return self.fail("a command never completed".into());
            }
            if let Some((after, what)) = aim {
                // From the cycle `go` pulses: the next write is taken two cycles after
                // `cmd_ctrl` at the earliest (the CSR block's registered ready), and a clear
                // taken then starts in the command's WRITE cycle.
                if go_seen.is_none() && self.model.go_seen() {
                    go_seen = Some(self.cycle);
                }
                if go_seen.is_some_and(|g| self.cycle - g == u64::from(after)) {
                    aimed = true;
                    r.aim(what);
                }
            }
            self.step(r)?;
        }
        // A write-back or lookups aimed past the command's end still come, after it.
        if let (false, Some((_, what @ (Aim::Wb(_) | Aim::Lookups(..))))) = (aimed, aim) {
            r.aim(what);
        }
        r.axil.read(addr::CMD_STATUS);
        if opcode == 0x50B || opcode == 0x201 {
            for i in 0..12 {
                r.axil.read(addr::MAILBOX + 4 * i);
            }
        }
        Ok(())
    }

    /// For an op aimed at a command's cycles: brings a free target (`vf`, `index`) up
    /// `steps` transitions (as `Op::Bringup`), then picks, by `pick`, one of the commands
    /// `fits` allows from its state as the model holds it; `None` when the target is out of
    /// range, not valid or nothing fits (the op's own opcode runs then).
    #[allow(clippy::too_many_arguments)]
    fn legal_command(
        &mut self,
        r: &mut Run,
        vf: u32,
        index: u32,
        ctx: &Ctx,
        steps: u8,
        fits: impl Fn(&Command, u32) -> bool,
        pick: usize,
    ) -> Result<Option<u16>, Failure> {
        if vf >= self.model.num_vf || index >= self.model.qps {
            return Ok(None);
        }
        let l = self.model.layout().clone();
        if rdmagen_refmodel::qpc::get(self.model.context(vf, index).0, l.valid) == 0 {
            let bringup = Op::Bringup {
                vf,
                local: index,
                steps,
                ctx: ctx.clone(),
            };
            self.op(r, &bringup)?;
        }
        let (w, _) = self.model.context(vf, index);
        let s = rdmagen_refmodel::qpc::get(w, l.state);
        let fit: Vec<u16> = COMMANDS
            .iter()
            .filter(|c| fits(c, s))
            .map(|c| c.1)
            .collect();
        if rdmagen_refmodel::qpc::get(w, l.valid) == 1 && !fit.is_empty() {
            Ok(Some(fit[pick % fit.len()]))
        } else {
            Ok(None)
        }
    }

    fn op(&mut self, r: &mut Run, op: &Op) -> Result<(), Failure> {
        match op {
            Op::Cmd {
                opcode,
                vf,
                index,
                ctx,
            } => self.command(r, *opcode, *vf, *index, ctx, None)?,
            Op::Bringup {
                vf,
                local,
                steps,
                ctx,
            } => {
                for op in [0x500u16, 0x502, 0x503, 0x504]
                    .iter()
                    .take(1 + *steps as usize)
                {
                    self.command(r, *op, *vf, *local, ctx, None)?;
                }
            }
            Op::Db {
                vf,
                qpn,
                page,
                user,
            } => r.db.queue.push_back(Req {
                vf: *vf,
                qpn: *qpn,
                arg: *page,
                user: *user,
            }),
            Op::Wqe { vf, qpn, pd, user } => r.wqe.queue.push_back(Req {
                vf: *vf,
                qpn: *qpn,
                arg: *pd,
                user: *user,
            }),
            Op::Rx { vf, qpn, user } => r.rx.queue.push_back(Req {
                vf: *vf,
                qpn: *qpn,
                arg: 0,
                user: *user,
            }),
            Op::Wb {
                vf,
                qpn,
                epsn,
                nak,
                err,
            } => r.wb.queue.push_back(Wb {
                vf: *vf,
                qpn: *qpn,
                epsn: *epsn,
                nak_sent: *nak,
                err: *err,
            }),
            Op::MkCmd {
                opcode,
                vf,
                index,
                key,
            } => self.mk_command(r, *opcode, *vf, *index, key, None)?,
            Op::Mk(q) => r.mk.queue.push_back(*q),
            Op::MkProbe {
                index,
                edge,
                access,
                user,
            } => {
                let l = self.model.mk_layout().clone();
                let i = index % self.model.num_mkeys;
                let w = self.model.mkey(i).to_vec();
                let g = |b| rdmagen_refmodel::qpc::get(&w, b);
                let (va, length) = (
                    rdmagen_refmodel::qpc::get64(&w, l.va),
                    rdmagen_refmodel::qpc::get64(&w, l.length),
                );
                let len32 = length.min(u64::from(u32::MAX));
                let (va, len) = match edge {
                    0 => (va, 1),
                    1 => (va.wrapping_add(length).wrapping_sub(8), 8),
                    2 => (va.wrapping_add(length).wrapping_sub(7), 8),
                    3 => (va.wrapping_sub(1), 1),
                    4 => (va, len32),
                    _ => (va, 0),
                };
                r.mk.queue.push_back(MkReq {
                    vf: g(l.vf) as u8,
                    pd: g(l.pd),
                    rkey: i << 8 | g(l.key),
                    va,
                    len: len as u32,
                    access: *access,
                    user: *user,
                });
            }
            Op::Clear => {
                r.axil.write(addr::CTRL, 1, 0xf);
            }
            Op::CmdClear { cmd, after } => match &**cmd {
                Op::Cmd {
                    opcode,
                    vf,
                    index,
                    ctx,
                } => self.command(r, *opcode, *vf, *index, ctx, Some((*after, Aim::Clear)))?,
                Op::MkCmd {
                    opcode,
                    vf,
                    index,
                    key,
                } => self.mk_command(r, *opcode, *vf, *index, key, Some((*after, Aim::Clear)))?,
                other => panic!("CmdClear wraps a command, not {other:?}"),
            },
            Op::CmdRead { cmd, after, addr } => {
                let aim = Some((*after, Aim::Read(*addr)));
                match &**cmd {
                    Op::Cmd {
                        opcode,
                        vf,
                        index,
                        ctx,
                    } => self.command(r, *opcode, *vf, *index, ctx, aim)?,
                    Op::MkCmd {
                        opcode,
                        vf,
                        index,
                        key,
                    } => self.mk_command(r, *opcode, *vf, *index, key, aim)?,
                    other => panic!("CmdRead wraps a command, not {other:?}"),
                }
            }
            Op::CmdWb {
                cmd,
                wb,
                after,
                legal,
            } => {
                let Op::Cmd {
                    opcode,
                    vf,
                    index,
                    ctx,
                } = &**cmd
                else {
                    panic!("CmdWb wraps a QP command, not {cmd:?}");
                };
                let mut opcode = *opcode;
                if *legal {
                    let loads = |c: &Command, s| c.2 == Kind::Load && c.3 == Some(s);
                    let pick = wb.epsn as usize;
                    if let Some(o) = self.legal_command(r, *vf, *index, ctx, 2, loads, pick)? {
                        opcode = o;
                    }
                }
                self.command(r, opcode, *vf, *index, ctx, Some((*after, Aim::Wb(*wb))))?;
                r.rx.queue.push_back(Req {
                    vf: wb.vf,
                    qpn: wb.qpn,
                    arg: 0,
                    user: 0x5eb,
                });
            }
            Op::CmdLookups {
                cmd,
                port,
                after,
                n,
                legal,
            } => {
                let Op::Cmd {
                    opcode,
                    vf,
                    index,
                    ctx,
                } = &**cmd
                else {
                    panic!("CmdLookups wraps a QP command, not {cmd:?}");
                };
                let mut opcode = *opcode;
                if *legal {
                    // Any QP command the state allows (the from-any ones included), so the
                    // lookups see RTS left for SQD, ERR and RST, and the loads that keep it.
                    let allowed =
                        |c: &Command, s| c.3.is_none_or(|from| from == s) && c.2 != Kind::Create;
                    let pick = usize::from(*after) * 7 + usize::from(*n);
                    if let Some(o) = self.legal_command(r, *vf, *index, ctx, 3, allowed, pick)? {
                        opcode = o;
                    }
                }
                let req = Req {
                    vf: (*vf).min(255) as u8,
                    qpn: vf << 12 | index,
                    arg: if *port == LookupPort::Doorbell {
                        ctx.page
                    } else {
                        ctx.pd
                    },
                    user: (*port as u32) << 16,
                };
                let aim = Some((*after, Aim::Lookups(*port, req, *n)));
                self.command(r, opcode, *vf, *index, ctx, aim)?;
            }
            Op::RxBurst { vf, qpn, n } => {
                for user in 0..u32::from(*n) {
                    r.rx.queue.push_back(Req {
                        vf: *vf,
                        qpn: *qpn,
                        arg: 0,
                        user,
                    });
                }
            }
            Op::Idle(n) => {
                for _ in 0..*n {
                    self.step(r)?;
                }
            }
        }
        // Requests queue up; run a cycle so traffic overlaps the next operation.
        self.step(r)
    }

    fn step(&mut self, r: &mut Run) -> Result<(), Failure> {
        // 1. drive
        // Port names are literals: this runs every cycle.
        let drive_req = |b: &Self, names: [&str; 4], q: Option<Req>, arg: Option<&str>| {
            b.set(names[0], u64::from(q.is_some()));
            let q = q.unwrap_or_default();
            b.set(names[1], u64::from(q.vf));
            b.set(names[2], u64::from(q.qpn));
            b.set(names[3], u64::from(q.user));
            if let Some(a) = arg {
                b.set(a, u64::from(q.arg));
            }
        };
        let db = r.db.drive();
        let wqe = r.wqe.drive();
        let rx = r.rx.drive();
        drive_req(
            self,
            ["db_req_valid", "db_req_vf", "db_req_qpn", "db_req_user"],
            db,
            Some("db_req_page"),
        );
        drive_req(
            self,
            ["wqe_req_valid", "wqe_req_vf", "wqe_req_qpn", "wqe_req_user"],
            wqe,
            Some("wqe_req_pd"),
        );
        drive_req(
            self,
            ["rx_req_valid", "rx_req_vf", "rx_req_qpn", "rx_req_user"],
            rx,
            None,
        );
        let wb = r.wb.drive();
        let w = wb.unwrap_or_default();
        self.set("rx_wb_valid", u64::from(wb.is_some()));
        self.set("rx_wb_vf", u64::from(w.vf));
        self.set("rx_wb_qpn", u64::from(w.qpn));
        self.set("rx_wb_epsn", u64::from(w.epsn));
        self.set("rx_wb_nak_sent", u64::from(w.nak_sent));
        self.set("rx_wb_err", u64::from(w.err));
        let mk = r.mk.drive();
        let q = mk.unwrap_or_default();
        self.set("mk_req_valid", u64::from(mk.is_some()));
        self.set("mk_req_vf", u64::from(q.vf));
        self.set("mk_req_pd", u64::from(q.pd));
        self.set("mk_req_rkey", u64::from(q.rkey));
        self.set("mk_req_va", q.va);
        self.set("mk_req_len", u64::from(q.len));
        self.set("mk_req_access", u64::from(q.access));
        self.set("mk_req_user", u64::from(q.user));
        let ready: Vec<bool> = r.rsp_stall.iter_mut().map(|s| !s.hold()).collect();
        self.set("db_rsp_ready", u64::from(ready[0]));
        self.set("wqe_rsp_ready", u64::from(ready[1]));
        self.set("rx_rsp_ready", u64::from(ready[2]));
        self.set("mk_rsp_ready", u64::from(ready[3]));
        r.axil.drive(&self.dut.axil());
        // 2. settle
        self.dut.eval();
        // 3. handshakes
        r.events.clear();
        r.axil.observe(&self.dut.axil(), &mut r.events);
        let wb_ready = self.get("rx_wb_ready") == 1;
        if wb.is_some() && wb_ready != self.model.wb_ready() {
            return self.fail(format!(
                "rx_wb_ready is {wb_ready}, the model expects {}",
                self.model.wb_ready()
            ));
        }
        let mut inp = CycleIn {
            db: r.db.take(self.get("db_req_ready") == 1),
            wqe: r.wqe.take(self.get("wqe_req_ready") == 1),
            rx: r.rx.take(self.get("rx_req_ready") == 1),
            wb: r.wb.take(wb_ready),
            mk: r.mk.take(self.get("mk_req_ready") == 1),
            ..CycleIn::default()
        };
        for e in &r.events {
            match *e {
                Event::WriteAccepted { addr, data, .. } => {
                    inp.csr_write = Some((addr, data as u32));
                    if addr & !3 == addr::CMD_CTRL && data >> 31 & 1 == 1 {
                        self.go_accepted.push(self.cycle);
                    }
                }
                Event::ReadAccepted { tag, addr } => {
                    inp.csr_read = Some(addr);
                    r.read_tag.insert(tag, addr);
                    r.read_order.push_back(tag);
                }
                Event::ReadDone { .. } => inp.csr_rready = true,
                _ => {}
            }
        }
        for q in [inp.db, inp.wqe, inp.rx].into_iter().flatten() {
            self.lookups += 1;
            self.hostile += u64::from(self.model.address(q.vf, q.qpn).is_none());
        }
        let out = self.model.cycle(&inp);
        let now = self.cycle;
        if let Some(x) = out.db {
            r.db_want.push_back((now, x));
        }
        if let Some(x) = out.wqe {
            r.wqe_want.push_back((now, x));
        }
        if let Some(x) = out.rx {
            r.rx_want.push_back((now, x));
        }
        if let Some(x) = out.mk {
            self.rkey_checks += 1;
            r.mk_want.push_back((now, x));
        }
        // The model answers the oldest accepted read.
        if let Some(v) = out.csr_read {
            match r.read_order.pop_front() {
                Some(tag) => {
                    r.read_want.insert(tag, v);
                }
                None => return self.fail("the model answers a CSR read never accepted".into()),
            }
        }
        // Responses taken this cycle.
        if ready[0] && self.get("db_rsp_valid") == 1 {
            let got = DbRsp {
                ok: self.get("db_rsp_ok") == 1,
                reason: self.get("db_rsp_reason") as u8,
                vf: self.get("db_rsp_vf") as u8,
                qpn: self.get("db_rsp_qpn") as u32,
                user: self.get("db_rsp_user") as u32,
            };
            let ok = got.ok;
            self.check("doorbell check", &mut r.db_want, got, ok)?;
        }
        if ready[1] && self.get("wqe_rsp_valid") == 1 {
            let got = WqeRsp {
                status: self.get("wqe_rsp_status") as u8,
                cqn: self.get("wqe_rsp_cqn") as u32,
                vf: self.get("wqe_rsp_vf") as u8,
                qpn: self.get("wqe_rsp_qpn") as u32,
                user: self.get("wqe_rsp_user") as u32,
            };
            let ok = got.status == 0;
            self.check("WQE check", &mut r.wqe_want, got, ok)?;
        }
        if ready[2] && self.get("rx_rsp_valid") == 1 {
            let got = RxRsp {
                ok: self.get("rx_rsp_ok") == 1,
                state: self.get("rx_rsp_state") as u32,
                st: self.get("rx_rsp_st") as u32,
                pd: self.get("rx_rsp_pd") as u32,
                epsn: self.get("rx_rsp_epsn") as u32,
                nak_sent: self.get("rx_rsp_nak_sent") == 1,
                rre: self.get("rx_rsp_rre") == 1,
                rwe: self.get("rx_rsp_rwe") == 1,
                rae: self.get("rx_rsp_rae") == 1,
                mtu: self.get("rx_rsp_mtu") as u32,
                qkey: self.get("rx_rsp_qkey") as u32,
                vf: self.get("rx_rsp_vf") as u8,
                qpn: self.get("rx_rsp_qpn") as u32,
                user: self.get("rx_rsp_user") as u32,
            };
            let ok = got.ok;
            self.check("RX lookup", &mut r.rx_want, got, ok)?;
        }
        if ready[3] && self.get("mk_rsp_valid") == 1 {
            let got = MkRsp {
                ok: self.get("mk_rsp_ok") == 1,
                reason: self.get("mk_rsp_reason") as u8,
                vf: self.get("mk_rsp_vf") as u8,
                rkey: self.get("mk_rsp_rkey") as u32,
                user: self.get("mk_rsp_user") as u32,
            };
            let ok = got.ok;
            self.check("R_Key check", &mut r.mk_want, got, ok)?;
        }
        for e in &r.events {
            if let Event::ReadDone { tag, data, resp } = *e {
                let a = r.read_tag.remove(&tag).unwrap_or(0);
                let want = r.read_want.remove(&tag);
                if resp != 0 || want != Some(data as u32) {
                    return self.fail(format!(
                        "CSR read {a:#05x}: RTL {data:#010x} (resp {resp}), model {want:x?}"
                    ));
                }
            }
        }
        if let Some(v) = r.axil.violations().first() {
            return self.fail(format!("AXI4-Lite: {v}"));
        }
        // 4. edge
        self.dut.tick();
        self.cycle += 1;
        self.total_cycles += 1;
        Ok(())
    }

    fn check<T: PartialEq + std::fmt::Debug>(
        &mut self,
        port: &'static str,
        want: &mut VecDeque<(u64, T)>,
        got: T,
        ok: bool,
    ) -> Result<(), Failure> {
        match want.pop_front() {
            None => self.fail(format!(
                "{port}: response {got:?} with no request outstanding"
            )),
            Some((at, w)) if w != got => self.fail(format!(
                "{port} (request accepted at cycle {at}): RTL {got:?}, model {w:?}"
            )),
            Some((at, _)) if self.cycle < at + 2 => self.fail(format!(
                "{port}: response after {} cycles, the pipeline takes 2",
                self.cycle - at
            )),
            Some((at, _)) => {
                self.responses.push((port, at, self.cycle, ok));
                Ok(())
            }
        }
    }
}

impl<M: Model + HasAxiLite> Default for Bench<M> {
    fn default() -> Self {
        Self::new()
    }
}

/// Drivers and expectations of one case.
struct Run {
    axil: AxiLiteMaster,
    db: Src<Req>,
    wqe: Src<Req>,
    rx: Src<Req>,
    wb: Src<Wb>,
    mk: Src<MkReq>,
    rsp_stall: [Stall; 4],
    events: Vec<Event>,
    db_want: VecDeque<(u64, DbRsp)>,
    wqe_want: VecDeque<(u64, WqeRsp)>,
    rx_want: VecDeque<(u64, RxRsp)>,
    mk_want: VecDeque<(u64, MkRsp)>,
    read_tag: HashMap<u64, u64>,
    read_want: HashMap<u64, u32>,
    /// Accepted CSR reads the model has not answered yet, oldest first.
    read_order: VecDeque<u64>,
}

impl Run {
    fn new(seed: u64, p: Profile) -> Run {
        let s = |i| split_seed(seed, i);
        Run {
            axil: AxiLiteMaster::new(s(1), Timing::uniform(p)),
            db: Src::new(s(2), p),
            wqe: Src::new(s(3), p),
            rx: Src::new(s(4), p),
            wb: Src::new(s(5), p),
            mk: Src::new(s(9), p),
            rsp_stall: [
                Stall::new(s(6), p),
                Stall::new(s(7), p),
                Stall::new(s(8), p),
                Stall::new(s(10), p),
            ],
            events: Vec::new(),
            db_want: VecDeque::new(),
            wqe_want: VecDeque::new(),
            rx_want: VecDeque::new(),
            mk_want: VecDeque::new(),
            read_tag: HashMap::new(),
            read_want: HashMap::new(),
            read_order: VecDeque::new(),
        }
    }
    /// Issues what a command op aims at one of its cycles.
    fn aim(&mut self, what: Aim) {
        match what {
            Aim::Clear => {
                self.axil.write(addr::CTRL, 1, 0xf);
            }
            Aim::Wb(wb) => self.wb.queue.push_back(wb),
            Aim::Read(a) => {
                self.axil.read(a);
            }
            Aim::Lookups(port, req, n) => {
                let q = match port {
                    LookupPort::Doorbell => &mut self.db.queue,
                    LookupPort::Wqe => &mut self.wqe.queue,
                    LookupPort::Rx => &mut self.rx.queue,
                };
                for i in 0..u32::from(n) {
                    q.push_back(Req {
                        user: req.user.wrapping_add(i),
                        ..req
                    });
                }
            }
        }
    }

    fn quiet(&self) -> bool {
        self.axil.is_idle()
            && self.db.queue.is_empty()
            && self.wqe.queue.is_empty()
            && self.rx.queue.is_empty()
            && self.wb.queue.is_empty()
            && self.mk.queue.is_empty()
            && self.mk_want.is_empty()
            && self.db_want.is_empty()
            && self.wqe_want.is_empty()
            && self.rx_want.is_empty()
    }
}

/// Random cases for a block with `vfs` VFs of `qps` QPs: a few QPs in a few VFs so that
/// commands, lookups and write-backs keep meeting each other; QPNs from the right VF, from
/// another VF, beyond the partition, or junk.
pub fn strategy(vfs: u32, qps: u32, mkeys: u32, max_ops: usize) -> impl Strategy<Value = Case> {
    let vf = 0..vfs.min(3);
    let local = 0..qps.min(4);
    let ctx = (
        prop_oneof![4 => Just(0u32), 1 => 0u32..16],
        0u32..3,
        0u32..3,
        any::<u32>().prop_map(|v| v & 0xff_ffff),
        prop_oneof![4 => 1u32..=5, 1 => 0u32..8],
        0u32..256,
        0u32..4,
        prop_oneof![1 => Just(0u32), 2 => any::<u32>()],
    )
        .prop_map(|(st, pd, page, epsn, mtu, flags, cqn, qkey)| Ctx {
            st,
            pd,
            page,
            epsn,
            mtu,
            flags,
            cqn,
            qkey,
        });
    // (requesting VF, QPN): mostly the VF's own QPs, else another VF's, beyond the
    // partition, or junk in the high bits.
    let target = (vf.clone(), local.clone(), 0u32..8).prop_map(move |(v, l, k)| {
        let qpn = match k {
            0 => (v + 1) << 12 | l,
            1 => v << 12 | (qps + l),
            2 => 0xf0_0000 | v << 12 | l,
            _ => v << 12 | l,
        };
        (v as u8, qpn)
    });
    let opcodes: Vec<u16> = COMMANDS
        .iter()
        .map(|c| c.1)
        .chain([0x200, 0x000, 0x7ff])
        .collect();
    let op = prop_oneof![
        3 => (proptest::sample::select(opcodes), vf.clone(), prop_oneof![4 => local.clone(), 1 => 0u32..0x2000], ctx.clone())
            .prop_map(|(opcode, vf, index, ctx)| Op::Cmd { opcode, vf, index, ctx }),
        2 => (vf, local, 0u8..4, ctx.clone())
            .prop_map(|(vf, local, steps, ctx)| Op::Bringup { vf, local, steps, ctx }),
        4 => (target.clone(), 0u32..3, any::<u32>())
            .prop_map(|((vf, qpn), page, user)| Op::Db { vf, qpn, page, user }),
        3 => (target.clone(), 0u32..3, any::<u32>())
            .prop_map(|((vf, qpn), pd, user)| Op::Wqe { vf, qpn, pd, user }),
        3 => (target.clone(), any::<u32>())
            .prop_map(|((vf, qpn), user)| Op::Rx { vf, qpn, user }),
        2 => (target, any::<u32>(), any::<bool>(), prop_oneof![3 => Just(false), 1 => Just(true)])
            .prop_map(|((vf, qpn), epsn, nak, err)| Op::Wb { vf, qpn, epsn: epsn & 0xff_ffff, nak, err }),
        1 => (1u8..20).prop_map(Op::Idle),
        1 => Just(Op::Clear),
    ];
    // Memory keys: a few indexes, variant bytes, PDs and regions (one ending at 2^64), so
    // that checks hit, miss by one field, or straddle a region's edges.
    const BASES: [u64; 4] = [0, 0x1000, 0x7f00_0000_0000, u64::MAX - 0xfff];
    const LENGTHS: [u64; 4] = [0, 0x100, 0x1000, u64::MAX];
    let mk_index = prop_oneof![6 => 0u32..mkeys.min(3), 1 => mkeys..mkeys + 2, 1 => 0u32..0x2000];
    let mk_vf = prop_oneof![6 => 0u32..vfs.min(3), 1 => Just(vfs.min(255))];
    let key = (
        0u32..3,
        0u32..3,
        proptest::sample::select(BASES.to_vec()),
        proptest::sample::select(LENGTHS.to_vec()),
        0u32..32,
        0u32..512,
    )
        .prop_map(|(pd, key, va, length, rights, junk)| Key {
            pd,
            key,
            va,
            length,
            rights,
            junk,
        });
    let mk_ops: Vec<u16> = MK_COMMANDS.iter().map(|c| c.1).collect();
    let mk_cmd = (
        proptest::sample::select(mk_ops),
        mk_vf.clone(),
        mk_index.clone(),
        key,
    )
        .prop_map(|(opcode, vf, index, key)| Op::MkCmd {
            opcode,
            vf,
            index,
            key,
        });
    let offsets: [u64; 7] = [u64::MAX - 7, 0, 8, 0xf8, 0x100, 0xff8, 0x1000];
    let mk_check = (
        (mk_vf, 0u32..3, mk_index, 0u32..3),
        proptest::sample::select(BASES.to_vec()),
        proptest::sample::select(offsets.to_vec()),
        prop_oneof![Just(0u32), Just(1), Just(8), Just(0x100), Just(u32::MAX)],
        0u8..8,
        any::<u32>(),
    )
        .prop_map(|((vf, pd, index, kb), base, off, len, access, user)| {
            Op::Mk(MkReq {
                vf: vf as u8,
                pd,
                rkey: index << 8 | kb,
                va: base.wrapping_add(off),
                len,
                access,
                user,
            })
        });
    let mk_probe =
        (0u32..3, 0u8..6, 0u8..8, any::<u32>()).prop_map(|(index, edge, access, user)| {
            Op::MkProbe {
                index,
                edge,
                access,
                user,
            }
        });
    // A command (mostly a modify that keeps the receive PSN) on one of the QPs, with a
    // write-back to that QP aimed at one of its cycles, then a lookup of it.
    let loads: Vec<u16> = COMMANDS
        .iter()
        .filter(|c| c.2 == Kind::Load)
        .map(|c| c.1)
        .collect();
    let cmd_wb = (
        prop_oneof![
            3 => proptest::sample::select(loads),
            1 => proptest::sample::select(COMMANDS.iter().map(|c| c.1).collect::<Vec<_>>()),
        ],
        (0..vfs.min(3), 0..qps.min(4), ctx.clone()),
        (
            any::<u32>(),
            any::<bool>(),
            0u8..6,
            prop_oneof![3 => Just(true), 1 => Just(false)],
            prop_oneof![3 => Just(false), 1 => Just(true)],
        ),
    )
        .prop_map(
            move |(opcode, (vf, local, ctx), (epsn, nak, after, legal, err))| Op::CmdWb {
                cmd: Box::new(Op::Cmd {
                    opcode,
                    vf,
                    index: local,
                    ctx,
                }),
                wb: Wb {
                    vf: vf as u8,
                    qpn: vf << 12 | local,
                    epsn: epsn & 0xff_ffff,
                    nak_sent: nak,
                    err,
                },
                after,
                legal,
            },
        );
    // A command on one of the QPs (mostly one the state allows, from RTS) with lookups of
    // it on one port aimed at its cycles.
    let cmd_lookups = (
        proptest::sample::select(COMMANDS.iter().map(|c| c.1).collect::<Vec<_>>()),
        (0..vfs.min(3), 0..qps.min(4), ctx.clone()),
        (
            proptest::sample::select(vec![LookupPort::Doorbell, LookupPort::Wqe, LookupPort::Rx]),
            0u8..6,
            1u8..8,
            prop_oneof![3 => Just(true), 1 => Just(false)],
        ),
    )
        .prop_map(
            |(opcode, (vf, index, ctx), (port, after, n, legal))| Op::CmdLookups {
                cmd: Box::new(Op::Cmd {
                    opcode,
                    vf,
                    index,
                    ctx,
                }),
                port,
                after,
                n,
                legal,
            },
        );
    let op = prop_oneof![
        10 => op,
        2 => cmd_wb,
        2 => cmd_lookups,
        2 => mk_cmd,
        1 => mk_check,
        2 => mk_probe,
    ];
    let stall = prop_oneof![
        2 => Just(Profile::NONE),
        3 => (0u8..=60, 1u8..=5).prop_map(|(p, r)| Profile::new(p, r)),
    ];
    (any::<u64>(), stall, prop::collection::vec(op, 1..max_ops))
        .prop_map(|(seed, stall, ops)| Case { seed, stall, ops })
}
