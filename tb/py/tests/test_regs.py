"""Register access layer: maps, registers, fields, plans and the bus drivers."""

import asyncio
from pathlib import Path

import pytest

import rdmagen

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="module")
def example():
    return rdmagen.RegMap.builtin("example")


def test_load_matches_builtin(example):
    loaded = rdmagen.RegMap.load(REPO / "register-maps" / "example.yaml")
    assert [r.path for r in loaded.registers()] == [r.path for r in example.registers()]
    assert loaded.block == "example" and loaded.address_width == example.address_width


def test_every_builtin_map_validates():
    for name in rdmagen.RegMap.builtin_names():
        m = rdmagen.RegMap.builtin(name)
        assert m.registers(), name


def test_invalid_map_lists_problems_with_positions():
    with pytest.raises(rdmagen.MapError) as e:
        rdmagen.RegMap.parse("block: x\nversion: 1.0.0\nregisters:\n  - name: a\n    offset: 3\n", "bad.yaml")
    assert "bad.yaml" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_file_is_oserror(tmp_path):
    with pytest.raises(OSError):
        rdmagen.RegMap.load(tmp_path / "none.yaml")


def test_unknown_builtin_names_the_known_ones():
    with pytest.raises(KeyError, match="example"):
        rdmagen.RegMap.builtin("nope")


def test_arrays_follow_parameters(example):
    assert example.register("port.cfg").count == 4  # NUM_PORTS default
    cfg = example.register("port.cfg", {"NUM_PORTS": 2})
    assert cfg.count == 2 and cfg.address(1) == 0x110
    with pytest.raises(IndexError):
        cfg.address(2)
    with pytest.raises(ValueError, match="range"):
        example.registers({"NUM_PORTS": 9})
    with pytest.raises(KeyError):
        example.registers({"NUM_PORTZ": 2})


def test_fields_pack_unpack(example):
    ctrl = example.register("ctrl")
    assert [f.name for f in ctrl.fields] == ["enable", "mode", "soft_reset"]
    mode = ctrl.field("mode")
    assert (mode.msb, mode.lsb, mode.width, mode.mask, mode.access) == (3, 1, 3, 0xE, "rw")
    v = ctrl.pack(enable=1, mode=5)
    assert v == 0b1011
    assert ctrl.unpack(v) == {"enable": 1, "mode": 5, "soft_reset": 0}
    assert ctrl.get(v, "mode") == 5
    assert ctrl.pack(0x8000_0000, enable=1) == 0x8000_0001
    with pytest.raises(ValueError, match="3-bit"):
        ctrl.pack(mode=8)
    with pytest.raises(KeyError, match="fields: enable, mode, soft_reset"):
        ctrl.pack(nope=1)
    assert example.register("port.cfg").reset == 1


def test_modify_value_keeps_side_effect_fields_still(example):
    ev = example.register("events")  # retrain w1s, link_seen w0c, lock rs
    assert ev.read_side_effects
    ist = example.register("int_status")  # w1c
    # A read value with every status bit set: writing it back would clear them all.
    assert ist.modify_value(0b111) == 0
    assert ist.modify_value(0b111, tx_done=1) == 0b010
    ctrl = example.register("ctrl")  # soft_reset is wp: never written back
    assert ctrl.modify_value(0b1011, mode=2) == 0b0101


def test_wide_register_plans(example):
    b = example.register("base_addr")
    assert b.width == 64 and b.read_plan() == [0x20, 0x24]
    assert b.write_plan(0x1122334455667788) == [(0x20, 0x55667788, 0xF), (0x24, 0x11223344, 0xF)]
    assert b.write_plan(1, strobe=0x31) == [(0x20, 1, 0x1), (0x24, 0, 0x3)]
    assert b.combine([0x55667788, 0x11223344]) == 0x1122334455667788
    with pytest.raises(ValueError):
        b.combine([1])
    with pytest.raises(ValueError):
        example.register("ctrl").write_plan(1 << 32)
    with pytest.raises(ValueError):
        example.register("ctrl").write_plan(1, strobe=0x10)


def test_decode(example):
    r, i, high = example.decode(0x124)
    assert (r.path, i, high) == ("port.link", 2, False)
    r, i, high = example.decode(0x24)
    assert (r.path, high) == ("base_addr", True)
    assert example.decode(0x40) is None


class FakeBus:
    """A bus backed by the CSR model: a write takes one cycle, a read two."""

    def __init__(self, regmap, params=None):
        self.model = rdmagen.CsrModel(regmap, params)
        self.log = []

    def read(self, a):
        self.model.cycle(read=a)  # accepted; answered in the next cycle
        _, (data, resp) = self.model.cycle()
        self.log.append(("r", a))
        if resp:
            raise rdmagen.BusError("read", a, resp)
        return data

    def write(self, a, d, s):
        resp, _ = self.model.cycle(write=(a, d, s))
        self.log.append(("w", a, d, s))
        if resp:
            raise rdmagen.BusError("write", a, resp)


def test_registers_over_a_sync_bus(example):
    bus = FakeBus(example)
    regs = rdmagen.Registers(example, bus.read, bus.write)
    regs.write("ctrl", enable=1, mode=3)
    assert regs.read_fields("ctrl") == {"enable": 1, "mode": 3, "soft_reset": 0}
    assert regs.modify("ctrl", mode=6) == 0b1101
    assert regs.read_field("ctrl", "mode") == 6 and regs.read_field("ctrl", "enable") == 1
    regs.write("base_addr", 0xAABBCCDD_00112233)
    assert regs.read("base_addr") == 0xAABBCCDD_00112233
    regs.write("port.cfg", index=3, enable=0, promisc=1)
    assert bus.model.output("port_cfg_promisc_o") == 0b1000
    assert bus.model.output("port_cfg_enable_o") == 0b0111
    with pytest.raises(ValueError, match="rc/rs"):
        regs.modify("pkt_count", count=0)
    with pytest.raises(rdmagen.BusError, match="SLVERR"):
        regs.write("status", 0)


def test_registers_over_an_async_bus(example):
    bus = FakeBus(example, {"NUM_PORTS": 2})

    async def read(a):
        return bus.read(a)

    async def write(a, d, s):
        bus.write(a, d, s)

    regs = rdmagen.AsyncRegisters(example, read, write, params={"NUM_PORTS": 2})

    async def run():
        await regs.write("scratch", 0x12345678)
        await regs.modify("int_en", error=1)
        with pytest.raises(IndexError):
            await regs.read("port.cfg", index=2)
        return await regs.read("scratch"), await regs.read_fields("int_en")

    assert asyncio.run(run()) == (0x12345678, {"rx_done": 0, "tx_done": 0, "error": 1})
    assert bus.log[-1] == ("r", 0xC)


def test_axil_bus_strobes():
    calls = []

    class Rsp:
        def __init__(self, resp, data=b""):
            self.resp, self.data = resp, data

    class Master:
        async def write(self, a, data):
            calls.append((a, bytes(data)))
            return Rsp(0)

        async def read(self, a, n):
            return Rsp(3, b"\0" * n)

    read, write = rdmagen.axil_bus(Master())
    asyncio.run(write(0x10, 0xAABBCCDD, 0b0110))
    assert calls == [(0x11, bytes([0xCC, 0xBB]))]
    with pytest.raises(ValueError, match="contiguous"):
        asyncio.run(write(0x10, 0, 0b0101))
    with pytest.raises(rdmagen.BusError, match="DECERR"):
        asyncio.run(read(0x40))


def test_field_names_that_are_argument_names():
    # qpc's cmd_target has a field named `index`: it goes in `fields=`.
    qpc = rdmagen.RegMap.builtin("qpc")
    tgt = next(r for r in qpc.registers() if "index" in [f.name for f in r.fields])
    bus = FakeBus(qpc)
    regs = rdmagen.Registers(qpc, bus.read, bus.write)
    regs.write(tgt.path, fields={"index": 5})
    assert regs.read_field(tgt.path, "index") == 5
    assert tgt.pack(0, index=3) == tgt.pack(0, **{"index": 3})
    other = next(f.name for f in tgt.fields if f.name != "index")
    with pytest.raises(TypeError, match="twice"):
        regs.modify(tgt.path, fields={other: 1}, **{other: 0})


def test_enums():
    qpc = rdmagen.RegMap.builtin("qpc")
    assert qpc.enums["service_type"]["RC"] == 0


def test_constants_and_write_strobes():
    emac = rdmagen.RegMap.load(REPO / "tb" / "csr-tests" / "maps" / "emac_review.yaml")
    fields = {(r.path, f.name): f for r in emac.registers() for f in r.fields}
    magic = fields[("id", "magic")]
    assert (magic.constant, magic.reset, magic.writable, magic.write_strobe) == (
        True, 0xE3AC, False, False)
    assert not fields[("port.status", "link_up")].constant
    strobes = sorted(k for k, f in fields.items() if f.write_strobe)
    assert strobes == [("ctrl", "flush"), ("ctrl", "mtu"), ("mac_addr", "valid"),
                       ("port.cfg", "loopback"), ("sem", "flags"), ("sem", "knock")]


def test_read_strobes():
    """`Field.read_strobe`: the fields with a `_rd_stb_o` output (inputs, an `rc` counter
    without `_o`, a 64-bit register's low-half input, array fields), and no others."""
    emac = rdmagen.RegMap.load(REPO / "tb" / "csr-tests" / "maps" / "emac_review.yaml")
    strobes = sorted((r.path, f.name) for r in emac.registers() for f in r.fields
                     if f.read_strobe)
    assert strobes == [("cnt_sat", "crc_err"), ("port.cfg", "loopback"),
                       ("port.status", "link_up"), ("port.status", "rx_head"),
                       ("rx_fifo", "data"), ("ts", "ns")]
