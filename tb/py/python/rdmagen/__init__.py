"""rdmagen for Python: the register access layer of every rdmagen map, the reference
models of the generated blocks and the RoCEv2 packet builder/parser, for cocotb benches and
scripts.

The maps, the register arithmetic and the models are Rust (``rdmagen._native``, the same
code the Rust test benches use); this module adds the bus drivers that run the register
plans over your bus functions, blocking (:class:`Registers`) or in coroutines
(:class:`AsyncRegisters`, for cocotb). ``rdmagen.rdl_import`` (pure Python, imported on its
own: ``python -m rdmagen.rdl_import design.rdl -o map.yaml``) turns a SystemRDL design into
an rdmagen map with systemrdl-compiler.

    >>> import rdmagen
    >>> m = rdmagen.RegMap.builtin("example")
    >>> regs = rdmagen.Registers(m, read=my_read, write=my_write)
    >>> regs.modify("ctrl", enable=1, mode=2)
"""

from __future__ import annotations

from typing import Any, Awaitable, Callable, Mapping

from ._native import (
    CNP_OPCODE,
    ROCE_UDP_PORT,
    CsrModel,
    DcqcnEager,
    DcqcnEngine,
    Field,
    MapError,
    PacketError,
    QpcModel,
    RegMap,
    Register,
    RxModel,
    RxVerdict,
    UarModel,
    __version__,
    dcqcn_defaults,
    qp_commands,
    roce_build,
    roce_ext_headers,
    roce_icrc,
    roce_packet,
    roce_parse,
)

__all__ = [
    "AsyncRegisters",
    "BusError",
    "CNP_OPCODE",
    "CsrModel",
    "DcqcnEager",
    "DcqcnEngine",
    "Field",
    "MapError",
    "PacketError",
    "QpcModel",
    "ROCE_UDP_PORT",
    "RegMap",
    "Register",
    "Registers",
    "RxModel",
    "RxVerdict",
    "UarModel",
    "axil_bus",
    "dcqcn_defaults",
    "qp_commands",
    "roce_build",
    "roce_ext_headers",
    "roce_icrc",
    "roce_packet",
    "roce_parse",
    "__version__",
]

OKAY, SLVERR, DECERR = 0, 2, 3


class BusError(Exception):
    """A bus transfer ended with an error response (SLVERR or DECERR)."""

    def __init__(self, op: str, address: int, resp: int):
        name = {SLVERR: "SLVERR", DECERR: "DECERR"}.get(resp, f"resp {resp}")
        super().__init__(f"{op} of {address:#x} answered {name}")
        self.op, self.address, self.resp = op, address, resp


def _merge(fields: Mapping[str, int] | None, kw: Mapping[str, int]) -> dict[str, int]:
    both = dict(fields or {})
    for k, v in kw.items():
        if k in both:
            raise TypeError(f"field `{k}` given twice")
        both[k] = v
    return both


class _Base:
    def __init__(self, regmap: RegMap, params: Mapping[str, int] | None = None):
        self.regmap = regmap
        # Resolved once: array sizes follow the parameter values the RTL was built with.
        self._regs = {r.path: r for r in regmap.registers(dict(params or {}))}

    def register(self, path: str) -> Register:
        """The register at ``path`` (``name`` or ``group.name``)."""
        try:
            return self._regs[path]
        except KeyError:
            raise KeyError(
                f"map `{self.regmap.block}` has no register `{path}` "
                f"(registers: {', '.join(self._regs)})"
            ) from None

    def _rmw_register(self, path: str) -> Register:
        reg = self.register(path)
        if reg.read_side_effects:
            raise ValueError(
                f"`{path}` has a field that reading changes (rc/rs): "
                "read-modify-write would change it; use write()"
            )
        return reg


class Registers(_Base):
    """Named register access over blocking bus functions.

    ``read(address) -> int`` returns the 32-bit word at a byte address;
    ``write(address, data, strobe)`` writes one with byte strobes (bit i = byte lane i).
    Either may raise :class:`BusError` for an error response. ``params`` gives the
    parameter values the block was built with (array sizes); others take their defaults.
    """

    def __init__(
        self,
        regmap: RegMap,
        read: Callable[[int], int],
        write: Callable[[int, int, int], Any],
        params: Mapping[str, int] | None = None,
    ):
        super().__init__(regmap, params)
        self._read, self._write = read, write

    def read(self, path: str, index: int = 0) -> int:
        """The register's value (both halves of a 64-bit register, low half first)."""
        reg = self.register(path)
        return reg.combine([self._read(a) for a in reg.read_plan(index)])

    def read_fields(self, path: str, index: int = 0) -> dict[str, int]:
        """The register's value as {field: value}."""
        return self.register(path).unpack(self.read(path, index))

    def read_field(self, path: str, field: str, index: int = 0) -> int:
        return self.register(path).get(self.read(path, index), field)

    def write(
        self,
        path: str,
        value: int | None = None,
        /,
        index: int = 0,
        strobe: int | None = None,
        fields: Mapping[str, int] | None = None,
        **kw: int,
    ) -> None:
        """Writes ``value`` (default: the reset value) with the named fields replaced.
        Fields are keyword arguments; one named ``index``, ``strobe`` or ``fields`` goes in
        the ``fields`` dict instead."""
        reg = self.register(path)
        for a, d, s in reg.write_plan(reg.pack(value, **_merge(fields, kw)), index, strobe):
            self._write(a, d, s)

    def modify(
        self, path: str, /, index: int = 0, fields: Mapping[str, int] | None = None, **kw: int
    ) -> int:
        """Read-modify-write that changes only the named fields: other rw fields keep their
        value, w1c/w1s/w0c/wp fields are written so they do not change. Returns the value
        written. Fields as in :meth:`write`."""
        reg = self._rmw_register(path)
        new = reg.modify_value(self.read(path, index), **_merge(fields, kw))
        for a, d, s in reg.write_plan(new, index):
            self._write(a, d, s)
        return new


class AsyncRegisters(_Base):
    """:class:`Registers` for coroutines (cocotb): ``read`` and ``write`` are async
    functions with the same arguments, and every method is awaited."""

    def __init__(
        self,
        regmap: RegMap,
        read: Callable[[int], Awaitable[int]],
        write: Callable[[int, int, int], Awaitable[Any]],
        params: Mapping[str, int] | None = None,
    ):
        super().__init__(regmap, params)
        self._read, self._write = read, write

    async def read(self, path: str, index: int = 0) -> int:
        reg = self.register(path)
        return reg.combine([await self._read(a) for a in reg.read_plan(index)])

    async def read_fields(self, path: str, index: int = 0) -> dict[str, int]:
        return self.register(path).unpack(await self.read(path, index))

    async def read_field(self, path: str, field: str, index: int = 0) -> int:
        return self.register(path).get(await self.read(path, index), field)

    async def write(
        self,
        path: str,
        value: int | None = None,
        /,
        index: int = 0,
        strobe: int | None = None,
        fields: Mapping[str, int] | None = None,
        **kw: int,
    ) -> None:
        reg = self.register(path)
        for a, d, s in reg.write_plan(reg.pack(value, **_merge(fields, kw)), index, strobe):
            await self._write(a, d, s)

    async def modify(
        self, path: str, /, index: int = 0, fields: Mapping[str, int] | None = None, **kw: int
    ) -> int:
        reg = self._rmw_register(path)
        new = reg.modify_value(await self.read(path, index), **_merge(fields, kw))
        for a, d, s in reg.write_plan(new, index):
            await self._write(a, d, s)
        return new


def _lanes(strobe: int) -> tuple[int, int]:
    """(first lane, lane count) of a contiguous 4-bit strobe."""
    if not 0 < strobe <= 0xF:
        raise ValueError(f"strobe {strobe:#x} selects no byte of a 32-bit word")
    first = (strobe & -strobe).bit_length() - 1
    n = (strobe >> first).bit_length()
    if strobe >> first != (1 << n) - 1:
        raise ValueError(
            f"strobe {strobe:#x} is not contiguous: cocotbext-axi derives WSTRB from "
            "address and length"
        )
    return first, n


def axil_bus(master: Any) -> tuple[Callable[[int], Awaitable[int]], Callable[[int, int, int], Awaitable[None]]]:
    """(read, write) coroutines for :class:`AsyncRegisters` over a cocotbext-axi
    ``AxiLiteMaster``; error responses raise :class:`BusError`."""

    async def read(address: int) -> int:
        rsp = await master.read(address, 4)
        if int(rsp.resp) != OKAY:
            raise BusError("read", address, int(rsp.resp))
        return int.from_bytes(rsp.data, "little")

    async def write(address: int, data: int, strobe: int) -> None:
        first, n = _lanes(strobe)
        payload = data.to_bytes(4, "little")[first : first + n]
        rsp = await master.write(address + first, payload)
        if int(rsp.resp) != OKAY:
            raise BusError("write", address, int(rsp.resp))

    return read, write
