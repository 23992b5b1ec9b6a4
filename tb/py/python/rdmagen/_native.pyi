"""Type stubs of the Rust half of rdmagen (``rdmagen._native``; the docstrings at run time
say more). Dict shapes are TypedDicts here only: at run time they are plain dicts."""

from os import PathLike
from typing import Any, ClassVar, Literal, Mapping, NotRequired, Self, TypedDict, final, type_check_only

__all__ = [
    "MapError",
    "RegMap",
    "Register",
    "Field",
    "CsrModel",
    "QpcModel",
    "qp_commands",
    "DcqcnEngine",
    "DcqcnEager",
    "dcqcn_defaults",
    "UarModel",
    "PacketError",
    "roce_packet",
    "roce_build",
    "roce_parse",
    "roce_icrc",
    "roce_ext_headers",
    "RxModel",
    "RxVerdict",
    "ROCE_UDP_PORT",
    "CNP_OPCODE",
    "__version__",
]

__version__: str

class MapError(ValueError):
    """The register map is invalid; the message lists every problem with its position."""

@final
class Field:
    name: str
    msb: int
    lsb: int
    access: str
    reset: int
    description: str
    constant: bool
    write_strobe: bool
    read_strobe: bool
    @property
    def width(self) -> int: ...
    @property
    def mask(self) -> int: ...
    @property
    def readable(self) -> bool: ...
    @property
    def writable(self) -> bool: ...
    @property
    def enum_values(self) -> dict[str, int] | None: ...

@final
class Register:
    name: str
    group: str | None
    path: str
    base: int
    stride: int
    count: int
    width: int
    description: str
    fields: list[Field]
    @property
    def reset(self) -> int: ...
    @property
    def readable(self) -> bool: ...
    @property
    def writable(self) -> bool: ...
    @property
    def read_side_effects(self) -> bool: ...
    def field(self, name: str) -> Field: ...
    def address(self, index: int = 0) -> int: ...
    def pack(self, value: int | None = None, /, **fields: int) -> int: ...
    def unpack(self, value: int) -> dict[str, int]: ...
    def get(self, value: int, field: str) -> int: ...
    def modify_value(self, old: int, /, **fields: int) -> int: ...
    def read_plan(self, index: int = 0) -> list[int]: ...
    def combine(self, words: list[int]) -> int: ...
    def write_plan(
        self, value: int, index: int = 0, strobe: int | None = None
    ) -> list[tuple[int, int, int]]: ...

@final
class RegMap:
    @staticmethod
    def load(path: str | PathLike[str]) -> RegMap: ...
    @staticmethod
    def parse(text: str, file: str = "<string>") -> RegMap: ...
    @staticmethod
    def builtin(name: str) -> RegMap: ...
    @staticmethod
    def builtin_names() -> list[str]: ...
    @property
    def block(self) -> str: ...
    @property
    def file(self) -> str: ...
    @property
    def version(self) -> str: ...
    @property
    def description(self) -> str: ...
    @property
    def address_width(self) -> int: ...
    @property
    def parameters(self) -> dict[str, tuple[int, int, int]]: ...
    @property
    def enums(self) -> dict[str, dict[str, int]]: ...
    def registers(self, params: Mapping[str, int] | None = None) -> list[Register]: ...
    def register(self, path: str, params: Mapping[str, int] | None = None) -> Register: ...
    def decode(
        self, address: int, params: Mapping[str, int] | None = None
    ) -> tuple[Register, int, bool] | None: ...

@final
class CsrModel:
    def __new__(cls, regmap: RegMap, params: Mapping[str, int] | None = None) -> Self: ...
    def reset(self) -> None: ...
    @property
    def hw_ports(self) -> list[tuple[str, str, int, int]]: ...
    @property
    def out_ports(self) -> list[tuple[str, int]]: ...
    def set_input(self, name: str, value: int) -> None: ...
    def cycle(
        self,
        write: tuple[int, int, int] | None = None,
        read: int | None = None,
        inputs: Mapping[str, int] | None = None,
        rready: bool = True,
    ) -> tuple[int | None, tuple[int, int] | None]: ...
    def output(self, name: str) -> int: ...
    def outputs(self) -> dict[str, int]: ...
    @property
    def irq(self) -> bool: ...
    def field_value(self, register: str, field: str, index: int = 0) -> int | None: ...

@final
class QpcModel:
    def __new__(cls, regmap: RegMap, num_vf: int, qps_per_vf: int, num_mkeys: int = 4096) -> Self: ...
    def reset(self) -> None: ...
    def cycle(
        self,
        db: tuple[int, int, int, int] | None = None,
        wqe: tuple[int, int, int, int] | None = None,
        rx: tuple[int, int, int, int] | None = None,
        wb: tuple[int, int, int, bool, bool] | None = None,
        csr_write: tuple[int, int] | None = None,
        csr_read: int | None = None,
        mk: tuple[int, int, int, int, int, int, int] | None = None,
        csr_rready: bool = True,
    ) -> dict[str, Any]: ...
    @property
    def depth(self) -> int: ...
    @property
    def clearing(self) -> bool: ...
    @property
    def busy(self) -> bool: ...
    @property
    def wb_ready(self) -> bool: ...
    def context(self, vf: int, local: int) -> tuple[list[int], tuple[int, bool]]: ...
    def rx_error(self, vf: int, local: int) -> bool: ...
    def address(self, vf: int, qpn: int) -> int | None: ...
    def csr_value(self, address: int) -> int: ...
    @property
    def counters(self) -> dict[str, int]: ...
    @property
    def layout(self) -> dict[str, tuple[int, int]]: ...

def qp_commands() -> list[tuple[str, int]]:
    """The mlx5 QP commands: [(name, opcode)]."""

def dcqcn_defaults() -> dict[str, int | bool]:
    """The DCQCN parameters at the dcqcn map's reset values (mlx5 mode, 250 MHz, 100 Gb/s):
    paper, rp_enable, np_enable, clk_per_us, line_rate, shaper_burst, rpg_time_reset,
    rpg_byte_reset, rpg_threshold, rpg_max_rate, rpg_ai_rate, rpg_hai_rate, rpg_gd,
    rpg_min_dec_fac, rpg_min_rate, rate_to_set_on_first_cnp, dce_tcp_g, dce_tcp_rtt,
    rate_reduce_monitor_period, initial_alpha_value, clamp_tgt_rate,
    clamp_tgt_rate_after_time_inc, min_time_between_cnps. ``paper`` is ``mode.algorithm``."""

_DcqcnKind = Literal["cnp", "tx", "ce", "read"]

@type_check_only
class DcqcnResponse(TypedDict):
    """One response as on ``m_rsp_*`` (kind 0 CNP, 1 send, 2 CE, 3 read-back)."""

    kind: int
    flow: int
    flag: bool
    seen: bool
    rc: int
    rt: int
    alpha: int
    timer_count: int
    time_us: int

@type_check_only
class DcqcnStats(TypedDict):
    rp_cnps: int
    rate_cuts: int
    np_cnps: int
    deferrals: int

@type_check_only
class DcqcnOutcome(TypedDict):
    rsp: DcqcnResponse
    stats: DcqcnStats
    cycles: int
    steps: int
    skips: int

@final
class DcqcnEngine:
    """The lazy DCQCN engine, bit-exact with ``rtl/dcqcn_rp.v``. Rates are Mb/s with 8
    fractional bits, alpha has 24 fractional bits, time is in microseconds. ``params`` is a
    dict of overrides of :func:`dcqcn_defaults` (``paper=True`` for PAPER mode)."""

    def __new__(cls, flows: int) -> Self: ...
    def clear(self) -> None:
        """Every flow back to its all-zero word (``ctrl.flow_clear``)."""
    def event(
        self,
        kind: _DcqcnKind,
        flow: int,
        bytes: int,
        now: int,
        params: Mapping[str, Any] | None = None,
    ) -> DcqcnOutcome:
        """Processes one event taken at microsecond ``now``; ``cycles`` is the event's stage X
        cycles in ``dcqcn_rp`` (two per pass, 32 per skip phase: docs/dcqcn.md, cost model)."""
    def flow(self, index: int) -> dict[str, int | bool]:
        """One flow's state word as a dict."""
    def set_flow(self, index: int, fields: Mapping[str, Any]) -> None:
        """Overwrites fields of one flow's state word."""
    @property
    def flows(self) -> int: ...

@final
class DcqcnEager:
    """The every-period-fires DCQCN model (one timer per flow)."""

    def __new__(cls, flows: int) -> Self: ...
    def advance_to(self, now: int, params: Mapping[str, Any] | None = None) -> None:
        """Fires every period due up to microsecond ``now``, in time order."""
    def event(
        self, kind: _DcqcnKind, flow: int, bytes: int, params: Mapping[str, Any] | None = None
    ) -> DcqcnResponse:
        """An event at the current time (after ``advance_to``)."""
    def flow(self, index: int) -> dict[str, int | bool]: ...

# --- UAR ---------------------------------------------------------------------------------

@type_check_only
class UarEvent(TypedDict):
    """A monitor event as on ``mon_*``."""

    result: int  # 0 fetch, 1 blueflame, 2 drop, 3 pending, 4 forward
    reason: int
    vf: int
    pf: bool
    page: int
    qpn: int

@type_check_only
class UarFetch(TypedDict):
    vf: int
    qpn: int
    wqe_index: int
    ds: int
    opcode: int

@type_check_only
class UarWqe(TypedDict):
    beats: list[int]
    user: int  # {vf[7:0], qpn[23:0]}

@type_check_only
class UarFwd(TypedDict):
    vf: int
    win: int
    data: int

@type_check_only
class UarOutcome(TypedDict):
    events: list[UarEvent]
    fetch: UarFetch | None
    wqe: UarWqe | None
    fwd: UarFwd | None
    bresp: int
    hostile: bool

@final
class UarModel:
    """Reference model of the UAR doorbell/BlueFlame block, one AXI4 write at a time
    (docs/uar.md). Mirror QPC commands with :meth:`set_qp`, CSR writes with the
    configuration properties."""

    def __new__(cls, regmap: RegMap, num_vf: int, pages_per_vf: int) -> Self: ...
    def reset(self) -> None:
        """Reset configuration, counters zero, no QPs, no pending half."""
    def write(
        self,
        addr: int,
        beats: list[tuple[int, int]],
        *,
        vf: int = 0,
        pf: bool = False,
        size: int = 3,
        burst: int = 1,
    ) -> UarOutcome:
        """One AXI4 write (beats: (64-bit data, 8-bit strobe)) in the order the block takes
        them; what it produces on every output."""
    def set_qp(self, qpn: int, state: int, uar_page: int) -> None:
        """QP ``qpn`` (``vf << 12 | local``) as the QPC holds it (mlx5 state, page index)."""
    def remove_qp(self, qpn: int) -> None: ...
    def qp(self, qpn: int) -> tuple[int, int] | None:
        """(state, uar_page), or None."""
    def address(self, vf: int, page: int, offset: int = 0) -> int:
        """The AXI address of ``offset`` in page index ``page`` of function ``vf``."""
    @staticmethod
    def doorbell(wqe_index: int, opcode: int, qpn: int, ds: int, opmod: int = 0) -> int:
        """The 64-bit AXI beat of a send doorbell as rdma-core writes it (big-endian)."""
    @property
    def num_vf(self) -> int: ...
    @property
    def pages_per_vf(self) -> int: ...
    @property
    def pw(self) -> int:
        """Page-index bits: a function's BAR2 is ``2**pw`` pages."""
    @property
    def windows(self) -> list[tuple[str, int, int, Literal["doorbell", "blueflame", "forward"]]]:
        """[(name, offset, size, role)]; the index is ``fwd_win``."""
    @property
    def results(self) -> dict[str, int]: ...
    @property
    def reasons(self) -> dict[str, int]:
        """The map's ``drop_reason`` values by lower-case name."""
    enable: bool
    bf_enable: bool
    active_pages: int
    pf_only_mask: int
    @property
    def vf_enable(self) -> list[bool]: ...
    def set_vf_enable(self, vf: int, on: bool) -> None: ...
    @property
    def counters(self) -> dict[str, Any]:
        """{db_accepted, bf_accepted, drops: {reason: n}, vf_doorbells, vf_drops, forwarded,
        last_drop: (reason, page, vf, qpn) | None}."""
    def clear_counters(self) -> None:
        """Zeroes the read-to-clear counters (``last_drop`` stays)."""

# --- RoCEv2 packets ----------------------------------------------------------------------

ROCE_UDP_PORT: int
CNP_OPCODE: int

class PacketError(ValueError):
    """A packet dict that cannot be built, or bytes that are not a well-formed RoCEv2 frame."""

@type_check_only
class EthDict(TypedDict):
    dst: str | bytes
    src: str | bytes
    vlans: list[int]

@type_check_only
class Ipv4Dict(TypedDict):
    tos: int
    id: int
    flags: int
    frag_offset: int
    ttl: int
    protocol: int
    src: str | bytes
    dst: str | bytes
    options: bytes

@type_check_only
class Ipv6Dict(TypedDict):
    traffic_class: int
    flow_label: int
    next_header: int
    hop_limit: int
    src: str | bytes
    dst: str | bytes

@type_check_only
class UdpDict(TypedDict):
    sport: int
    dport: int
    checksum: int

@type_check_only
class BthDict(TypedDict):
    opcode: int
    se: bool
    migreq: bool
    pad_count: int
    tver: int
    pkey: int
    fecn: bool
    becn: bool
    resv6: int
    dest_qp: int
    ack_req: bool
    resv7: int
    psn: int

@type_check_only
class DethDict(TypedDict):
    qkey: int
    src_qp: int

@type_check_only
class RethDict(TypedDict):
    va: int
    rkey: int
    dma_len: int

@type_check_only
class AtomicDict(TypedDict):
    va: int
    rkey: int
    swap_add: int
    compare: int

@type_check_only
class AethDict(TypedDict):
    syndrome: int
    msn: int

@type_check_only
class RocePacket(TypedDict):
    """A packet as ``roce_packet``/``roce_parse`` return it and ``roce_build`` takes it
    (``roce_build`` also takes partial layers: missing fields keep their defaults)."""

    eth: EthDict
    ipv4: NotRequired[Ipv4Dict]
    ipv6: NotRequired[Ipv6Dict]
    udp: UdpDict
    bth: BthDict
    deth: NotRequired[DethDict]
    reth: NotRequired[RethDict]
    atomic: NotRequired[AtomicDict]
    aeth: NotRequired[AethDict]
    atomic_ack: NotRequired[int]
    imm: NotRequired[int]
    ieth: NotRequired[int]
    cnp_reserved: NotRequired[bytes]
    payload: bytes

@type_check_only
class IcrcCheck(TypedDict):
    ok: bool
    carried: int
    expected: int

def roce_packet(opcode: int, dest_qp: int = 1, psn: int = 0, *, ipv6: bool = False) -> RocePacket:
    """The default packet of ``opcode`` with every field, to change in place."""

def roce_build(packet: Mapping[str, Any], *, icrc: int | None = None) -> bytes:
    """The frame (no FCS): lengths, IPv4 checksum, pad and ICRC computed (``icrc``
    overrides the ICRC). Raises PacketError."""

def roce_parse(frame: bytes) -> tuple[RocePacket, IcrcCheck]:
    """(packet, ICRC check) of a frame; PacketError when it is not well-formed RoCEv2."""

def roce_icrc(frame: bytes) -> int | None:
    """The ICRC the frame should carry, or None."""

def roce_ext_headers(opcode: int) -> list[str] | None:
    """The extension headers of an opcode in wire order, or None if unsupported."""

# --- the RX parser's verdict model ------------------------------------------------------------

_QpState = Literal["RST", "INIT", "RTR", "RTS", "SQER", "SQD", "ERR"]
_ServiceType = Literal["RC", "UC", "UD"]
_Verdict = Literal["accept", "duplicate", "nak_seq", "nak_access", "drop"]

@type_check_only
class RxQpEntry(TypedDict):
    """A ``qps`` entry of the table (QPS.yaml's QP fields, plus the rights and NAK-sent)."""

    vf: int
    qpn: int
    state: _QpState | int
    st: _ServiceType | int
    pd: int
    epsn: NotRequired[int]
    pkey: NotRequired[int]
    mtu: NotRequired[Literal[256, 512, 1024, 2048, 4096]]
    rre: NotRequired[bool]
    rwe: NotRequired[bool]
    rae: NotRequired[bool]
    nak_sent: NotRequired[bool]

@type_check_only
class RxKeyEntry(TypedDict):
    """A ``keys`` entry of the table (QPS.yaml's key fields)."""

    rkey: int
    pd: int
    va: int
    length: int
    access: NotRequired[list[Literal["remote_write", "remote_read", "remote_atomic"]]]
    vf: NotRequired[int]

@type_check_only
class RxTable(TypedDict, total=False):
    qps: list[RxQpEntry]
    keys: list[RxKeyEntry]

@type_check_only
class RxQpState(TypedDict):
    vf: int
    qpn: int
    state: _QpState
    st: _ServiceType
    pd: int
    epsn: int
    nak_sent: bool
    rre: bool
    rwe: bool
    rae: bool
    mtu: int

@type_check_only
class RxLastDrop(TypedDict):
    reason: int
    vf: int
    opcode: int
    qpn: int

@type_check_only
class RxAck(TypedDict):
    kind: Literal["ack", "nak_seq", "nak_access"]
    syndrome: int
    psn: int

@type_check_only
class RxSimLine(TypedDict):
    verdict: _Verdict
    reason: str
    vf: int
    qpn: int
    opcode: int
    psn: int
    va: int
    rkey: int
    dmalen: int
    ecn_ce: bool
    cnp: bool
    payload_len: int
    payload: str | None
    ack: RxAck | None

@final
class RxVerdict:
    """One frame's verdict as the header/verdict stream shows it, with the event pulses.
    For a drop only verdict, reason, vf, opcode and qpn are defined (the rest are 0 here)."""

    @property
    def verdict(self) -> _Verdict: ...
    @property
    def verdict_code(self) -> int: ...
    @property
    def reason(self) -> str: ...
    @property
    def reason_code(self) -> int: ...
    @property
    def vf(self) -> int: ...
    @property
    def bth_seen(self) -> bool: ...
    @property
    def opcode(self) -> int: ...
    @property
    def qpn(self) -> int: ...
    @property
    def psn(self) -> int: ...
    @property
    def se(self) -> bool: ...
    @property
    def ack_req(self) -> bool: ...
    @property
    def fecn(self) -> bool: ...
    @property
    def becn(self) -> bool: ...
    @property
    def pad(self) -> int: ...
    @property
    def va(self) -> int: ...
    @property
    def rkey(self) -> int: ...
    @property
    def dma_len(self) -> int: ...
    @property
    def imm(self) -> int: ...
    @property
    def ecn_ce(self) -> bool: ...
    @property
    def cnp(self) -> bool: ...
    @property
    def payload_len(self) -> int: ...
    @property
    def payload(self) -> list[int] | None:
        """The frame's packet on the payload stream (``m_pay_*``) as byte values, or None when
        it gets none (not RoCE-shaped, or no payload byte arrived); a dropped frame's packet
        is the one the stream flags discard."""
    @property
    def cnp_event(self) -> tuple[int, int] | None: ...
    @property
    def ce_event(self) -> tuple[int, int] | None: ...
    @property
    def ack(self) -> tuple[int, int] | None:
        """The ``m_ack_*`` request raised with the verdict, (AETH syndrome, PSN): 0x1F ACK,
        0x60 NAK PSN sequence error, 0x62 NAK remote access error; None when none."""
    def hdr(self) -> dict[str, int]:
        """The ``m_hdr_*`` values by port name without the prefix (a drop: only verdict,
        reason, vf, opcode, qpn)."""
    def sim_line(self) -> RxSimLine:
        """The fields of a ``rdmagen sim rx-parser`` output line, without ``frame``."""

@final
class RxModel:
    """The RX parser's verdicts with its QP and memory-key table, one frame at a time."""

    verdicts: ClassVar[list[_Verdict]]
    reasons: ClassVar[dict[int, str]]
    def __new__(
        cls,
        table: RxTable | Mapping[str, Any] | None = None,
        *,
        vf: int = 0,
        icrc_check: bool = True,
        ipv6: bool = True,
        udp_dport: int = 4791,
        pkey: int | None = None,
        cnp_event: bool = True,
        ce_event: bool = True,
    ) -> Self: ...
    def receive(self, frame: bytes | bytearray, vf: int = 0, bad_fcs: bool = False) -> RxVerdict: ...
    def add_qp(self, entry: RxQpEntry | Mapping[str, Any]) -> None: ...
    def remove_qp(self, vf: int, qpn: int) -> bool: ...
    def add_key(self, entry: RxKeyEntry | Mapping[str, Any]) -> None: ...
    def remove_key(self, rkey: int) -> bool: ...
    def qp(self, vf: int, qpn: int) -> RxQpState | None: ...
    @property
    def qps(self) -> list[RxQpState]: ...
    @property
    def counters(self) -> dict[str, int]: ...
    def clear_counters(self) -> None: ...
    @property
    def last_drop(self) -> RxLastDrop | None: ...
    icrc_check: bool
    ipv6: bool
    cnp_event: bool
    ce_event: bool
    udp_dport: int
    pkey: int
