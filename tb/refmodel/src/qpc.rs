//! Reference model of the QPC block (queue-pair context RAM partitioned per SR-IOV VF),
//! cycle by cycle, written from SPEC §4, FACTS §1 and the block's documented contract:
//!
//! - context address `vf * QPS_PER_VF + local`; a QPN is `{4'b0, owning VF, local[11:0]}` and
//!   a request whose QPN names another VF or lies outside the partition is refused;
//! - a lookup sees the state before the cycle it is accepted in (read-first);
//! - a command whose `go` is seen at cycle g reads its context during g+1, decides in g+2
//!   (the RTL checks the mailbox's parameters as they are in g+1 and adds a new key's end,
//!   va + length, from the mailbox as it is in g+2; QUERY_QP loads the mailbox at the end of
//!   g+2, QUERY_MKEY at the end of g+3 with the key read in g+1) and writes and reports its
//!   status at the end of g+3, loading the mailbox as it is in g+3 (software does not write
//!   it while the command is busy); a clear that starts in g+3 drops the command's write
//!   (the clear zeroes that context too);
//! - ePSN and NAK-sent are loaded from the mailbox only by CREATE_QP and INIT2RTR_QP
//!   (`RQ_PSN_LOADERS`); every other modify keeps the RX write-back's values;
//! - after reset and on `ctrl.clear` every context is zeroed, one per cycle; meanwhile lookups
//!   answer "invalid", commands complete with RES_BUSY and write-backs wait.
//!
//! - the memory-key table (`NUM_MKEYS` keys shared by all VFs, each naming its owner) is
//!   cleared alongside, one key per cycle; the R_Key check port answers like a lookup port:
//!   a zero-length access passes unchecked (IBA C9-88), else the first failing check of
//!   existence (index, valid, variant byte, owning VF), PD, access rights, range.
//!
//! The software side is modelled for full-word writes of the command registers only; the CSR
//! block itself is verified on its own by the CSR property tests. Counters are exact once the
//! block is quiet (the RTL counts a PD mismatch when the response is registered, this model
//! when the request is accepted).

use rdmagen_regmap::RegMap;

use crate::csr::ReadStage;

/// Statuses (mlx5 MLX5_CMD_STAT_* values, as in the map).
pub mod status {
    pub const OK: u8 = 0x00;
    pub const BAD_OP: u8 = 0x02;
    pub const BAD_PARAM: u8 = 0x03;
    pub const BAD_RES: u8 = 0x05;
    pub const RES_BUSY: u8 = 0x06;
    pub const BAD_RES_STATE: u8 = 0x09;
    pub const BAD_INDEX: u8 = 0x0A;
}

/// mlx5 QP states.
pub mod state {
    pub const RST: u32 = 0;
    pub const INIT: u32 = 1;
    pub const RTR: u32 = 2;
    pub const RTS: u32 = 3;
    pub const SQER: u32 = 4;
    pub const SQD: u32 = 5;
    pub const ERR: u32 = 6;

    /// The state the ports and commands see: ERR once the RX path moved the QP there (the
    /// write-back's `err`), unless the context is in RST or INIT (a write-back that waited
    /// out TO_RST's WRITE cycle lands after it; INIT2RTR clears the bit).
    pub fn seen(state: u32, rx_err: bool) -> u32 {
        if rx_err && state != RST && state != INIT {
            ERR
        } else {
            state
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Create,
    Destroy,
    Load,
    StateOnly,
    Query,
    MkCreate,
    MkDestroy,
    MkQuery,
}

/// The MKey commands: (name, opcode, kind).
pub const MK_COMMANDS: [(&str, u16, Kind); 3] = [
    ("CREATE_MKEY", 0x200, Kind::MkCreate),
    ("QUERY_MKEY", 0x201, Kind::MkQuery),
    ("DESTROY_MKEY", 0x202, Kind::MkDestroy),
];

/// R_Key check reasons (`mk_rsp_reason`).
pub mod mk_reason {
    pub const OK: u8 = 0;
    pub const INVALID: u8 = 1;
    pub const PD: u8 = 2;
    pub const ACCESS: u8 = 3;
    pub const RANGE: u8 = 4;
}

/// The QP commands: (name, opcode, kind, from-state (None = any), to-state), per IBTA's QP
/// state machine and the mlx5 opcodes.
pub const COMMANDS: [(&str, u16, Kind, Option<u32>, u32); 13] = [
    ("CREATE_QP", 0x500, Kind::Create, None, state::RST),
    ("DESTROY_QP", 0x501, Kind::Destroy, None, state::RST),
    (
        "RST2INIT_QP",
        0x502,
        Kind::Load,
        Some(state::RST),
        state::INIT,
    ),
    (
        "INIT2RTR_QP",
        0x503,
        Kind::Load,
        Some(state::INIT),
        state::RTR,
    ),
    (
        "RTR2RTS_QP",
        0x504,
        Kind::Load,
        Some(state::RTR),
        state::RTS,
    ),
    (
        "RTS2RTS_QP",
        0x505,
        Kind::Load,
        Some(state::RTS),
        state::RTS,
    ),
    (
        "SQERR2RTS_QP",
        0x506,
        Kind::Load,
        Some(state::SQER),
        state::RTS,
    ),
    ("TO_ERR_QP", 0x507, Kind::StateOnly, None, state::ERR),
    (
        "RTS2SQD_QP",
        0x508,
        Kind::StateOnly,
        Some(state::RTS),
        state::SQD,
    ),
    ("TO_RST_QP", 0x50A, Kind::StateOnly, None, state::RST),
    ("QUERY_QP", 0x50B, Kind::Query, None, state::RST),
    (
        "SQD_RTS_QP",
        0x50C,
        Kind::Load,
        Some(state::SQD),
        state::RTS,
    ),
    (
        "INIT2INIT_QP",
        0x50E,
        Kind::Load,
        Some(state::INIT),
        state::INIT,
    ),
];

/// The commands that load the receive PSN state (ePSN from the mailbox, NAK-sent cleared):
/// CREATE_QP (a free context, nothing live to keep) and INIT2RTR_QP, the one transition whose
/// attributes carry the receive PSN (IBA's RQ PSN, required on INIT to RTR only; mlx5
/// `next_rcv_psn`). From RTR on the RX write-back keeps ePSN and NAK-sent up to date, so every
/// other modify keeps them: loading software's copy would undo a write-back that landed after
/// software filled the mailbox (the next packet NAKed as out of sequence, or a duplicate
/// executed again). TO_RST, DESTROY and the clear zero them.
pub const RQ_PSN_LOADERS: [u16; 2] = [0x500, 0x503];

/// CSR byte addresses the model understands.
pub mod addr {
    pub const CTRL: u64 = 0x000;
    pub const CMD_CTRL: u64 = 0x010;
    pub const CMD_TARGET: u64 = 0x014;
    pub const CMD_STATUS: u64 = 0x018;
    pub const ILLEGAL: u64 = 0x030;
    pub const CMD_ERRORS: u64 = 0x034;
    pub const PD_MISMATCHES: u64 = 0x038;
    pub const PARTITION: u64 = 0x03C;
    pub const COLLISIONS: u64 = 0x040;
    pub const RKEY_VIOLATIONS: u64 = 0x044;
    pub const INT_STATUS: u64 = 0x01C;
    pub const MAILBOX: u64 = 0x080;
}

#[derive(Clone, Copy, Debug)]
pub struct Bits {
    pub msb: u32,
    pub lsb: u32,
}

/// Context word fields, from the map's `qpc` memory.
#[derive(Clone, Debug)]
pub struct Layout {
    pub width: u32,
    pub valid: Bits,
    pub state: Bits,
    pub st: Bits,
    pub pd: Bits,
    pub uar_page: Bits,
    pub mtu: Bits,
    pub rre: Bits,
    pub rwe: Bits,
    pub rae: Bits,
    pub qkey: Bits,
    pub cqn_snd: Bits,
    pub epsn: Bits,
    pub nak: Bits,
    pub service_types: Vec<u32>,
}

impl Layout {
    pub fn of(map: &RegMap) -> Result<Layout, String> {
        let m = map.memory("qpc").ok_or("the map has no `qpc` memory")?;
        let get = |n: &str| {
            m.fields
                .iter()
                .find(|f| f.name.text == n)
                .map(|f| Bits {
                    msb: f.msb,
                    lsb: f.lsb,
                })
                .ok_or(format!("no field `{n}`"))
        };
        Ok(Layout {
            width: m.width,
            valid: get("valid")?,
            state: get("state")?,
            st: get("st")?,
            pd: get("pd")?,
            uar_page: get("uar_page")?,
            mtu: get("mtu")?,
            rre: get("rre")?,
            rwe: get("rwe")?,
            rae: get("rae")?,
            qkey: get("q_key")?,
            cqn_snd: get("cqn_snd")?,
            epsn: get("next_rcv_psn")?,
            nak: get("nak_sent")?,
            service_types: map
                .enumeration("service_type")
                .ok_or("no enum `service_type`")?
                .values
                .iter()
                .map(|v| v.value as u32)
                .collect(),
        })
    }
}

/// Memory-key word fields, from the map's `mkey` memory.
#[derive(Clone, Debug)]
pub struct MkLayout {
    pub width: u32,
    pub valid: Bits,
    pub vf: Bits,
    pub remote_read: Bits,
    pub remote_write: Bits,
    pub remote_atomic: Bits,
    pub pd: Bits,
    pub key: Bits,
    pub va: Bits,
    pub length: Bits,
}

impl MkLayout {
    pub fn of(map: &RegMap) -> Result<MkLayout, String> {
        let m = map.memory("mkey").ok_or("the map has no `mkey` memory")?;
        let get = |n: &str| {
            m.fields
                .iter()
                .find(|f| f.name.text == n)
                .map(|f| Bits {
                    msb: f.msb,
                    lsb: f.lsb,
                })
                .ok_or(format!("no mkey field `{n}`"))
        };
        Ok(MkLayout {
            width: m.width,
            valid: get("valid")?,
            vf: get("vf")?,
            remote_read: get("remote_read")?,
            remote_write: get("remote_write")?,
            remote_atomic: get("remote_atomic")?,
            pd: get("pd")?,
            key: get("key")?,
            va: get("va")?,
            length: get("length")?,
        })
    }
}

/// A context word: 32-bit dwords, least significant first.
pub type Word = Vec<u32>;

/// A write of one cycle: address, new context word, new {ePSN, NAK-sent} and RX error bit.
type RamWrite = (usize, Option<Word>, Option<((u32, bool), bool)>);

pub fn get(w: &[u32], b: Bits) -> u32 {
    crate::bits::get(w, b.lsb, b.msb - b.lsb + 1) as u32
}

pub fn set(w: &mut [u32], b: Bits, v: u32) {
    crate::bits::set(w, b.lsb, b.msb - b.lsb + 1, u64::from(v));
}

/// A field of up to 64 bits.
pub fn get64(w: &[u32], b: Bits) -> u64 {
    crate::bits::get(w, b.lsb, b.msb - b.lsb + 1)
}

pub fn set64(w: &mut [u32], b: Bits, v: u64) {
    crate::bits::set(w, b.lsb, b.msb - b.lsb + 1, v);
}

/// An R_Key check as the `mk` port accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct MkReq {
    pub vf: u8,
    pub pd: u32,
    pub rkey: u32,
    pub va: u64,
    pub len: u32,
    /// Bit 0 remote read, bit 1 remote write, bit 2 remote atomic.
    pub access: u8,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MkRsp {
    pub ok: bool,
    pub reason: u8,
    pub vf: u8,
    pub rkey: u32,
    pub user: u32,
}

/// A lookup request as the port accepts it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Req {
    pub vf: u8,
    pub qpn: u32,
    /// `db_req_page` or `wqe_req_pd`; unused for RX.
    pub arg: u32,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DbRsp {
    pub ok: bool,
    pub reason: u8,
    pub vf: u8,
    pub qpn: u32,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WqeRsp {
    pub status: u8,
    pub cqn: u32,
    pub vf: u8,
    pub qpn: u32,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct RxRsp {
    pub ok: bool,
    pub state: u32,
    pub st: u32,
    pub pd: u32,
    pub epsn: u32,
    pub nak_sent: bool,
    pub rre: bool,
    pub rwe: bool,
    pub rae: bool,
    /// Path MTU code (1 = 256 ... 5 = 4096 bytes).
    pub mtu: u32,
    pub qkey: u32,
    pub vf: u8,
    pub qpn: u32,
    pub user: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Wb {
    pub vf: u8,
    pub qpn: u32,
    pub epsn: u32,
    pub nak_sent: bool,
    /// The RX path moves the QP to ERR (an RC remote access NAK).
    pub err: bool,
}

/// What the block is given in one cycle (requests only when accepted).
#[derive(Clone, Debug, Default)]
pub struct CycleIn {
    pub db: Option<Req>,
    pub wqe: Option<Req>,
    pub rx: Option<Req>,
    pub wb: Option<Wb>,
    pub mk: Option<MkReq>,
    /// An AXI write accepted this cycle (full strobes).
    pub csr_write: Option<(u64, u32)>,
    /// An AXI read accepted this cycle.
    pub csr_read: Option<u64>,
    /// RREADY this cycle (only an R handshake matters: it empties the R register).
    pub csr_rready: bool,
}

#[derive(Clone, Debug, Default)]
pub struct CycleOut {
    pub db: Option<DbRsp>,
    pub wqe: Option<WqeRsp>,
    pub rx: Option<RxRsp>,
    pub mk: Option<MkRsp>,
    /// The data of the read that moves to the R register this cycle (an earlier accepted
    /// one: the CSR block decodes a read in its accept cycle and reads in the next free one).
    pub csr_read: Option<u32>,
    /// (status, prev_state) when a command completed this cycle.
    pub done: Option<(u8, u32)>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fsm {
    Idle,
    Read,
    Exec,
    Write,
}

/// What EXEC decided, held for the WRITE cycle. A write that loads the mailbox (`load`:
/// the destination state; `mk_load`) takes it as it is in WRITE.
#[derive(Clone, Debug, Default)]
struct Pending {
    status: u8,
    prev: u32,
    ctx: Option<Word>,
    psn: Option<(u32, bool)>,
    load: Option<u32>,
    /// The load also takes the mailbox's ePSN (`RQ_PSN_LOADERS`).
    load_psn: bool,
    mk: Option<Word>,
    mk_load: bool,
    /// QUERY_MKEY's key, copied into the mailbox in WRITE (the RTL's key compare ends in a
    /// flop in EXEC; issue 9).
    mk_query: Option<Word>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub illegal: u32,
    pub cmd_errors: u32,
    pub pd_mismatches: u32,
    pub partition: u32,
    pub collisions: u32,
    pub rkey_violations: u32,
}

/// What the EXEC cycle of a command does.
struct Exec {
    status: u8,
    ctx: Option<Word>,
    load: Option<u32>,
    mk_load: bool,
    psn_we: bool,
    query: bool,
    psn: (u32, bool),
    mk: Option<Word>,
    mk_query: bool,
}

impl Exec {
    fn fail(status: u8) -> Exec {
        Exec {
            status,
            ctx: None,
            load: None,
            mk_load: false,
            psn_we: false,
            query: false,
            psn: (0, false),
            mk: None,
            mk_query: false,
        }
    }
}

#[derive(Clone, Debug)]
pub struct QpcModel {
    pub num_vf: u32,
    pub qps: u32,
    pub num_mkeys: u32,
    layout: Layout,
    mk_layout: MkLayout,
    ctx: Vec<Word>,
    psn: Vec<(u32, bool)>,
    /// The RX path's move to ERR (`rx_wb_err`), stored beside the PSN state.
    rx_err: Vec<bool>,
    mkeys: Vec<Word>,
    clearing: Option<usize>,
    mk_clearing: Option<usize>,
    clear_pulse: bool,
    go_pulse: bool,
    opcode: u16,
    target: u32,
    mailbox: Vec<u32>,
    fsm: Fsm,
    cmd: Option<(Kind, Option<u32>, u32)>,
    /// The command in flight is one of `RQ_PSN_LOADERS`.
    cmd_rq_psn: bool,
    cmd_addr: usize,
    cmd_vf: u32,
    cmd_mk_addr: usize,
    cmd_pre: u8,
    pending: Pending,
    snap: (Word, (u32, bool)),
    snap_err: bool,
    snap_mk: Word,
    last_status: u8,
    /// `int_status` (bit 0 `cmd_done`, bit 1 `cmd_error`): set here in a command's WRITE
    /// cycle, by the RTL one cycle later (from flops); exact once the block is quiet.
    int_status: u32,
    last_prev: u32,
    pub counters: Counters,
    /// Commands whose RAM write a clear starting in their WRITE cycle dropped (the clear
    /// zeroes that context or key anyway), since reset: directed tests check they made one.
    pub writes_dropped_by_clear: u32,
    /// Modifies that kept a live {ePSN, NAK-sent} other than what loading the mailbox would
    /// have written (`RQ_PSN_LOADERS`), since reset: tests check that they reached the case.
    pub loads_kept_live_psn: u32,
    /// The CSR block's reads between AR and R.
    csr_read: ReadStage<u64>,
}

impl QpcModel {
    pub fn new(map: &RegMap, num_vf: u32, qps: u32, num_mkeys: u32) -> Result<QpcModel, String> {
        let layout = Layout::of(map)?;
        let mk_layout = MkLayout::of(map)?;
        let words = layout.width.div_ceil(32) as usize;
        let mk_words = mk_layout.width.div_ceil(32) as usize;
        let depth = (num_vf * qps) as usize;
        let mut m = QpcModel {
            num_vf,
            qps,
            num_mkeys,
            ctx: vec![vec![0; words]; depth],
            psn: vec![(0, false); depth],
            rx_err: vec![false; depth],
            mkeys: vec![vec![0; mk_words]; num_mkeys as usize],
            clearing: Some(0),
            mk_clearing: Some(0),
            clear_pulse: false,
            go_pulse: false,
            opcode: 0,
            target: 0,
            mailbox: vec![0; 12],
            fsm: Fsm::Idle,
            cmd: None,
            cmd_rq_psn: false,
            cmd_addr: 0,
            cmd_vf: 0,
            cmd_mk_addr: 0,
            cmd_pre: status::OK,
            pending: Pending::default(),
            snap: (vec![0; words], (0, false)),
            snap_err: false,
            snap_mk: vec![0; mk_words],
            last_status: 0,
            int_status: 0,
            last_prev: 0,
            counters: Counters::default(),
            writes_dropped_by_clear: 0,
            loads_kept_live_psn: 0,
            csr_read: ReadStage::default(),
            layout,
            mk_layout,
        };
        m.reset();
        Ok(m)
    }

    /// The state right after reset: the clear sequence starts (RAM contents are not reset,
    /// but every lookup answers "invalid" until the clear has zeroed them).
    pub fn reset(&mut self) {
        self.clearing = Some(0);
        self.mk_clearing = Some(0);
        self.clear_pulse = false;
        self.go_pulse = false;
        self.opcode = 0;
        self.target = 0;
        self.mailbox.fill(0);
        self.fsm = Fsm::Idle;
        self.cmd = None;
        self.cmd_rq_psn = false;
        self.cmd_addr = 0;
        self.cmd_pre = status::OK;
        self.pending = Pending::default();
        self.last_status = 0;
        self.int_status = 0;
        self.last_prev = 0;
        self.counters = Counters::default();
        self.writes_dropped_by_clear = 0;
        self.loads_kept_live_psn = 0;
        self.csr_read.reset();
    }

    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    pub fn mk_layout(&self) -> &MkLayout {
        &self.mk_layout
    }
    /// The memory-key word at `index`, for checks.
    pub fn mkey(&self, index: u32) -> &[u32] {
        &self.mkeys[index as usize]
    }
    pub fn depth(&self) -> usize {
        self.ctx.len()
    }
    /// Either clear sequence (contexts or keys) is running.
    pub fn clearing(&self) -> bool {
        self.clearing.is_some() || self.mk_clearing.is_some()
    }
    pub fn busy(&self) -> bool {
        self.fsm != Fsm::Idle
    }
    /// `go` is seen in this cycle (the pulse the accepted `cmd_ctrl` write makes next cycle).
    pub fn go_seen(&self) -> bool {
        self.go_pulse
    }
    /// The context word and receive PSN state of (vf, local QPN), for checks.
    pub fn context(&self, vf: u32, local: u32) -> (&[u32], (u32, bool)) {
        let a = (vf * self.qps + local) as usize;
        (&self.ctx[a], self.psn[a])
    }

    /// Whether the RX path moved (vf, local QPN) to ERR (the bit beside the PSN state).
    pub fn rx_error(&self, vf: u32, local: u32) -> bool {
        self.rx_err[(vf * self.qps + local) as usize]
    }

    /// The state of context `a` as the ports see it.
    fn seen_state(&self, a: usize, w: &[u32]) -> u32 {
        state::seen(get(w, self.layout.state), self.rx_err[a])
    }

    /// The context address of a global QPN requested by `vf`, if it is in `vf`'s partition.
    pub fn address(&self, vf: u8, qpn: u32) -> Option<usize> {
        let local = qpn & 0xfff;
        let inpart = qpn >> 20 == 0
            && (qpn >> 12) & 0xff == u32::from(vf)
            && u32::from(vf) < self.num_vf
            && local < self.qps;
        inpart.then(|| (u32::from(vf) * self.qps + local) as usize)
    }

    fn exists(&self, a: Option<usize>) -> Option<&Word> {
        let w = &self.ctx[a?];
        (self.clearing.is_none() && get(w, self.layout.valid) == 1).then_some(w)
    }

    /// Whether the RX write-back is ready in this cycle (before `cycle` is called): not while
    /// the clear runs, nor in a command's WRITE cycle (whether or not it writes the PSN).
    pub fn wb_ready(&self) -> bool {
        self.clearing.is_none() && self.fsm != Fsm::Write
    }

    /// The R_Key check of `r` against the key table as it is now.
    pub fn rkey_check(&self, r: &MkReq) -> u8 {
        if r.len == 0 {
            return mk_reason::OK;
        }
        let l = &self.mk_layout;
        let index = r.rkey >> 8;
        let Some(w) = self.mkeys.get(index as usize).filter(|w| {
            self.mk_clearing.is_none()
                && get(w, l.valid) == 1
                && get(w, l.key) == r.rkey & 0xff
                && get(w, l.vf) == u32::from(r.vf)
        }) else {
            return mk_reason::INVALID;
        };
        let granted =
            get(w, l.remote_read) | get(w, l.remote_write) << 1 | get(w, l.remote_atomic) << 2;
        let (va, len) = (u128::from(get64(w, l.va)), u128::from(get64(w, l.length)));
        let (rva, rlen) = (u128::from(r.va), u128::from(r.len));
        if get(w, l.pd) != r.pd {
            mk_reason::PD
        } else if u32::from(r.access) & !granted != 0 {
            mk_reason::ACCESS
        } else if rva < va || rva + rlen > va + len {
            mk_reason::RANGE
        } else {
            mk_reason::OK
        }
    }

    /// The EXEC decision of the command in flight (a no-op outside EXEC).
    fn exec_outcome(&self) -> Exec {
        if self.fsm != Fsm::Exec {
            return Exec::fail(status::OK);
        }
        let l = &self.layout;
        let (cur, _) = &self.snap;
        let valid = get(cur, l.valid) == 1;
        let mb_ok = {
            let st = get(&self.mailbox, l.st);
            let mtu = get(&self.mailbox, l.mtu);
            l.service_types.contains(&st) && (1..=5).contains(&mtu)
        };
        if self.cmd_pre != status::OK {
            return Exec::fail(self.cmd_pre);
        }
        if self.clearing() {
            return Exec::fail(status::RES_BUSY);
        }
        let Some((kind, from, to)) = self.cmd else {
            return Exec::fail(status::BAD_OP);
        };
        let ok = Exec::fail(status::OK);
        let loaded = |to: u32| Exec {
            load: Some(to),
            psn_we: self.cmd_rq_psn,
            ..Exec::fail(status::OK)
        };
        let ml = &self.mk_layout;
        let mk_valid = get(&self.snap_mk, ml.valid) == 1;
        let mk_exists = mk_valid && get(&self.snap_mk, ml.vf) == self.cmd_vf;
        match kind {
            Kind::Create if valid => Exec::fail(status::BAD_RES),
            Kind::Create if mb_ok => loaded(to),
            Kind::Create => Exec::fail(status::BAD_PARAM),
            Kind::Destroy if valid => Exec {
                ctx: Some(vec![0; cur.len()]),
                psn_we: true,
                ..ok
            },
            Kind::Destroy => Exec::fail(status::BAD_RES),
            Kind::Query if valid => Exec { query: true, ..ok },
            Kind::Query => Exec::fail(status::BAD_RES),
            Kind::Load | Kind::StateOnly if !valid => Exec::fail(status::BAD_RES),
            Kind::Load | Kind::StateOnly
                if from.is_some_and(|f| f != state::seen(get(cur, l.state), self.snap_err)) =>
            {
                Exec::fail(status::BAD_RES_STATE)
            }
            Kind::StateOnly => {
                let mut w = cur.clone();
                set(&mut w, l.state, to);
                Exec {
                    ctx: Some(w),
                    psn_we: to == state::RST,
                    ..ok
                }
            }
            Kind::Load if mb_ok => loaded(to),
            Kind::Load => Exec::fail(status::BAD_PARAM),
            Kind::MkCreate if mk_valid => Exec::fail(status::BAD_RES),
            Kind::MkCreate => Exec {
                mk_load: true,
                ..ok
            },
            Kind::MkDestroy if mk_exists => Exec {
                mk: Some(vec![0; self.snap_mk.len()]),
                ..ok
            },
            Kind::MkQuery if mk_exists => Exec {
                mk_query: true,
                ..ok
            },
            Kind::MkDestroy | Kind::MkQuery => Exec::fail(status::BAD_RES),
        }
    }

    /// One clock cycle.
    pub fn cycle(&mut self, inp: &CycleIn) -> CycleOut {
        let l = self.layout.clone();
        let mut out = CycleOut::default();
        let mut partition = 0u32;

        // Lookups see the state before this cycle's writes.
        if let Some(r) = inp.db {
            let a = self.address(r.vf, r.qpn);
            let reason = match (a, self.exists(a)) {
                (None, _) => 1,
                (_, None) => 2,
                (_, Some(w)) if get(w, l.uar_page) != r.arg => 3,
                (Some(a), Some(w)) if self.seen_state(a, w) != state::RTS => 4,
                _ => 0,
            };
            partition += u32::from(a.is_none());
            out.db = Some(DbRsp {
                ok: reason == 0,
                reason,
                vf: r.vf,
                qpn: r.qpn,
                user: r.user,
            });
        }
        if let Some(r) = inp.wqe {
            let a = self.address(r.vf, r.qpn);
            let (status, cqn) = match self.exists(a) {
                None => (3, 0),
                Some(w) => {
                    let s = self.seen_state(a.unwrap_or(0), w);
                    let st = if s == state::ERR {
                        1
                    } else if s != state::RTS {
                        3
                    } else if get(w, l.pd) != r.arg {
                        2
                    } else {
                        0
                    };
                    (st, get(w, l.cqn_snd))
                }
            };
            partition += u32::from(a.is_none());
            self.counters.pd_mismatches += u32::from(status == 2);
            out.wqe = Some(WqeRsp {
                status,
                cqn,
                vf: r.vf,
                qpn: r.qpn,
                user: r.user,
            });
        }
        if let Some(r) = inp.rx {
            let a = self.address(r.vf, r.qpn);
            partition += u32::from(a.is_none());
            let mut rsp = RxRsp {
                vf: r.vf,
                qpn: r.qpn,
                user: r.user,
                ..RxRsp::default()
            };
            if let Some(w) = self.exists(a) {
                let (epsn, nak) = self.psn[a.unwrap_or(0)];
                rsp.ok = true;
                rsp.state = self.seen_state(a.unwrap_or(0), w);
                rsp.st = get(w, l.st);
                rsp.pd = get(w, l.pd);
                rsp.epsn = epsn;
                rsp.nak_sent = nak;
                rsp.rre = get(w, l.rre) == 1;
                rsp.rwe = get(w, l.rwe) == 1;
                rsp.rae = get(w, l.rae) == 1;
                rsp.mtu = get(w, l.mtu);
                rsp.qkey = get(w, l.qkey);
            }
            out.rx = Some(rsp);
        }
        if let Some(r) = inp.mk {
            let reason = self.rkey_check(&r);
            self.counters.rkey_violations += u32::from(reason != mk_reason::OK);
            out.mk = Some(MkRsp {
                ok: reason == mk_reason::OK,
                reason,
                vf: r.vf,
                rkey: r.rkey,
                user: r.user,
            });
        }
        if let (Some(d), Some(r)) = (inp.db, inp.rx) {
            let (a, b) = (self.address(d.vf, d.qpn), self.address(r.vf, r.qpn));
            if a.is_some() && a == b {
                self.counters.collisions += 1;
            }
        }

        // Software reads, in the cycle a read moves to the R register (empty or taken now):
        // the value before this cycle; counters clear on read.
        if let Some(a) = self.csr_read.cycle(inp.csr_rready, inp.csr_read) {
            out.csr_read = Some(self.csr_value(a));
            let c = &mut self.counters;
            match a & !3 {
                addr::ILLEGAL => c.illegal = 0,
                addr::CMD_ERRORS => c.cmd_errors = 0,
                addr::PD_MISMATCHES => c.pd_mismatches = 0,
                addr::PARTITION => c.partition = 0,
                addr::COLLISIONS => c.collisions = 0,
                addr::RKEY_VIOLATIONS => c.rkey_violations = 0,
                _ => {}
            }
        }

        // The command engine.
        let ex = self.exec_outcome();
        let st = ex.status;
        let mut writes: Vec<RamWrite> = Vec::new();
        let mut mk_write = None;
        let mut mailbox_mk_load = None;
        match self.fsm {
            Fsm::Idle => {
                if self.go_pulse {
                    let vf = self.target >> 24;
                    let index = self.target & 0xff_ffff;
                    let qpn = vf << 12 | (index & 0xfff);
                    let a = self.address(vf as u8, qpn).filter(|_| index >> 12 == 0);
                    let cmd = COMMANDS
                        .iter()
                        .find(|c| c.1 == self.opcode)
                        .map(|c| (c.2, c.3, c.4))
                        .or_else(|| {
                            MK_COMMANDS
                                .iter()
                                .find(|c| c.1 == self.opcode)
                                .map(|c| (c.2, None, state::RST))
                        });
                    let is_mk = matches!(
                        cmd,
                        Some((Kind::MkCreate | Kind::MkDestroy | Kind::MkQuery, _, _))
                    );
                    let vf_ok = vf < self.num_vf;
                    let mk_ok = vf_ok && index < self.num_mkeys;
                    self.cmd = cmd;
                    self.cmd_rq_psn = RQ_PSN_LOADERS.contains(&self.opcode);
                    self.cmd_addr = a.unwrap_or(0);
                    self.cmd_vf = vf;
                    self.cmd_mk_addr = if mk_ok { index as usize } else { 0 };
                    self.cmd_pre = match (cmd, is_mk) {
                        (None, _) => status::BAD_OP,
                        (_, true) if !mk_ok => status::BAD_INDEX,
                        (_, false) if a.is_none() => status::BAD_INDEX,
                        _ => status::OK,
                    };
                    partition += u32::from(if is_mk { !vf_ok } else { a.is_none() });
                    self.fsm = Fsm::Read;
                }
            }
            Fsm::Read => {
                // The engine's read port: the context as it is before this cycle's writes.
                self.snap = (self.ctx[self.cmd_addr].clone(), self.psn[self.cmd_addr]);
                self.snap_err = self.rx_err[self.cmd_addr];
                self.snap_mk = self.mkeys[self.cmd_mk_addr].clone();
                self.fsm = Fsm::Exec;
            }
            Fsm::Exec => {
                let valid = get(&self.snap.0, l.valid) == 1;
                let is_mk = matches!(
                    self.cmd,
                    Some((Kind::MkCreate | Kind::MkDestroy | Kind::MkQuery, _, _))
                );
                let prev = if self.cmd_pre == status::OK && !self.clearing() && valid && !is_mk {
                    state::seen(get(&self.snap.0, l.state), self.snap_err)
                } else {
                    0
                };
                self.pending = Pending {
                    status: st,
                    prev,
                    ctx: ex.ctx,
                    psn: ex.psn_we.then_some(ex.psn),
                    load: ex.load,
                    load_psn: ex.load.is_some() && ex.psn_we,
                    mk: ex.mk,
                    mk_load: ex.mk_load,
                    mk_query: ex.mk_query.then(|| self.snap_mk.clone()),
                };
                self.fsm = Fsm::Write;
            }
            Fsm::Write => {
                let mut p = std::mem::take(&mut self.pending);
                mailbox_mk_load = p.mk_query.take();
                if let Some(to) = p.load {
                    let mut w = self.mailbox.clone();
                    set(&mut w, l.state, to);
                    set(&mut w, l.valid, 1);
                    set(&mut w, l.nak, 0);
                    if p.load_psn {
                        p.psn = Some((get(&w, l.epsn), false));
                    } else if self.psn[self.cmd_addr] != (get(&w, l.epsn), false) {
                        self.loads_kept_live_psn += 1;
                    }
                    p.ctx = Some(w);
                }
                if p.mk_load {
                    let ml = &self.mk_layout;
                    let mut w = self.mailbox[..self.snap_mk.len()].to_vec();
                    set(&mut w, ml.valid, 1);
                    set(&mut w, ml.vf, self.cmd_vf);
                    p.mk = Some(w);
                }
                let st = p.status;
                out.done = Some((st, p.prev));
                self.last_status = st;
                self.last_prev = p.prev;
                self.int_status |= 1;
                if st != status::OK {
                    self.counters.cmd_errors += 1;
                    self.int_status |= 2;
                }
                if st == status::BAD_RES_STATE {
                    self.counters.illegal += 1;
                }
                // A clear that starts this cycle wins the RAM port (and zeroes the context
                // later if not now).
                if self.clearing.is_none() {
                    writes.push((self.cmd_addr, p.ctx, p.psn.map(|p| (p, false))));
                } else if p.ctx.is_some() || p.psn.is_some() {
                    self.writes_dropped_by_clear += 1;
                }
                if self.mk_clearing.is_none() {
                    mk_write = p.mk.map(|w| (self.cmd_mk_addr, w));
                } else if p.mk.is_some() {
                    self.writes_dropped_by_clear += 1;
                }
                self.fsm = Fsm::Idle;
            }
        }
        let mut mailbox_load = None;
        if ex.query {
            let mut w = self.snap.0.clone();
            set(&mut w, l.epsn, self.snap.1 .0);
            set(&mut w, l.nak, u32::from(self.snap.1 .1));
            let seen = state::seen(get(&w, l.state), self.snap_err);
            set(&mut w, l.state, seen);
            mailbox_load = Some(w);
        }

        // RX write-back (the caller passes it only when `wb_ready()` said so).
        if let Some(wb) = inp.wb {
            match self.address(wb.vf, wb.qpn) {
                Some(a) => writes.push((a, None, Some(((wb.epsn, wb.nak_sent), wb.err)))),
                None => partition += 1,
            }
        }
        self.counters.partition += partition;

        // The clear writes zero; it and the commands never overlap the write-back.
        if let Some(a) = self.clearing {
            self.ctx[a].fill(0);
            self.psn[a] = (0, false);
            self.rx_err[a] = false;
        }
        if let Some(a) = self.mk_clearing {
            self.mkeys[a].fill(0);
        }
        if let Some((a, w)) = mk_write {
            self.mkeys[a] = w;
        }
        for (a, w, p) in writes {
            if let Some(w) = w {
                self.ctx[a] = w;
            }
            if let Some((p, err)) = p {
                self.psn[a] = p;
                self.rx_err[a] = err;
            }
        }
        let advance = |c: Option<usize>, depth: usize| match c {
            Some(a) if a + 1 < depth => Some(a + 1),
            _ => None,
        };
        self.clearing = if self.clear_pulse {
            Some(0)
        } else {
            advance(self.clearing, self.ctx.len())
        };
        self.mk_clearing = if self.clear_pulse {
            Some(0)
        } else {
            advance(self.mk_clearing, self.mkeys.len())
        };

        // Software writes land at the end of the cycle; `go` and `clear` pulse next cycle.
        self.go_pulse = false;
        self.clear_pulse = false;
        if let Some((a, d)) = inp.csr_write {
            match a & !3 {
                addr::CTRL => self.clear_pulse = d & 1 == 1,
                addr::CMD_CTRL => {
                    self.opcode = d as u16;
                    self.go_pulse = d >> 31 == 1;
                }
                addr::CMD_TARGET => self.target = d,
                addr::INT_STATUS => self.int_status &= !d,
                a if (addr::MAILBOX..addr::MAILBOX + 48).contains(&a) => {
                    self.mailbox[((a - addr::MAILBOX) / 4) as usize] = d;
                }
                _ => {}
            }
        }
        // Hardware loads the mailbox after software (hardware wins).
        if let Some(w) = mailbox_load {
            self.mailbox.copy_from_slice(&w[..12]);
        }
        if let Some(w) = mailbox_mk_load {
            self.mailbox[..w.len()].copy_from_slice(&w);
        }
        out
    }

    /// What a read of CSR `a` returns (the registers this model covers).
    pub fn csr_value(&self, a: u64) -> u32 {
        let c = &self.counters;
        match a & !3 {
            addr::CMD_CTRL => u32::from(self.opcode),
            addr::CMD_TARGET => self.target,
            addr::CMD_STATUS => {
                u32::from(self.busy()) | u32::from(self.last_status) << 8 | self.last_prev << 16
            }
            addr::ILLEGAL => c.illegal,
            addr::CMD_ERRORS => c.cmd_errors,
            addr::PD_MISMATCHES => c.pd_mismatches,
            addr::PARTITION => c.partition,
            addr::COLLISIONS => c.collisions,
            addr::RKEY_VIOLATIONS => c.rkey_violations,
            addr::INT_STATUS => self.int_status,
            a if (addr::MAILBOX..addr::MAILBOX + 48).contains(&a) => {
                self.mailbox[((a - addr::MAILBOX) / 4) as usize]
            }
            _ => 0,
        }
    }
}
