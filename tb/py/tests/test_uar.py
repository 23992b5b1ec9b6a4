"""The UAR reference model through the bindings (docs/uar.md)."""

import pytest

import rdmagen

DB = rdmagen.UarModel.doorbell


@pytest.fixture
def uar():
    m = rdmagen.UarModel(rdmagen.RegMap.builtin("uar"), 4, 2)
    m.enable = True
    m.active_pages = 2
    for vf in range(4):
        m.set_vf_enable(vf, True)
    return m


def test_layout_and_codes(uar):
    assert uar.windows == [("doorbell", 0, 8, "doorbell"), ("blueflame", 0x800, 256, "blueflame")]
    assert uar.reasons["torn"] == 6 and uar.results["pending"] == 3
    assert uar.pw == 1 and uar.address(3, 1, 0x800) == (3 << 1 | 1) << 12 | 0x800
    # rdma-core's big-endian doorbell as the bytes of a little-endian beat.
    assert DB(0x1234, 0x0A, 0x001003, 4).to_bytes(8, "little") == bytes.fromhex("0012340a00100304")
    mlx5 = rdmagen.UarModel(rdmagen.RegMap.builtin("uar-mlx5"), 2, 1)
    assert [w[3] for w in mlx5.windows].count("forward") == 3
    with pytest.raises(ValueError, match="not a UAR map"):
        rdmagen.UarModel(rdmagen.RegMap.builtin("qpc"), 2, 1)
    with pytest.raises(ValueError):
        uar.address(0, 2, 0)


def test_doorbell_fetch_and_drops(uar):
    qpn = 1 << 12 | 3
    uar.set_qp(qpn, 3, 1)  # RTS, page index 1
    o = uar.write(uar.address(1, 1), [(DB(7, 0x0A, qpn, 4), 0xFF)], vf=1)
    assert o["fetch"] == {"vf": 1, "qpn": qpn, "wqe_index": 7, "ds": 4, "opcode": 0x0A}
    assert o["events"] == [{"result": 0, "reason": 0, "vf": 1, "pf": False, "page": 1, "qpn": qpn}]
    assert o["bresp"] == 0 and not o["hostile"]
    # Another VF naming that QP through its own page: NOT_OWNER, nothing else.
    o = uar.write(uar.address(2, 1), [(DB(7, 0x0A, qpn, 4), 0xFF)], vf=2)
    assert o["fetch"] is None and o["hostile"]
    assert o["events"][0]["reason"] == uar.reasons["not_owner"]
    # Through the wrong page index, and through another VF's page (DECERR).
    assert uar.write(uar.address(1, 0), [(DB(7, 0x0A, qpn, 4), 0xFF)], vf=1)["events"][0]["reason"] == 2
    o = uar.write(uar.address(1, 1), [(DB(7, 0x0A, qpn, 4), 0xFF)], vf=0)
    assert (o["events"][0]["reason"], o["bresp"]) == (uar.reasons["unmapped"], 3)
    uar.set_qp(qpn, 6, 1)
    assert uar.write(uar.address(1, 1), [(DB(7, 0x0A, qpn, 4), 0xFF)], vf=1)["events"][0]["reason"] == 3
    c = uar.counters
    assert c["db_accepted"] == 1 and c["vf_doorbells"] == [0, 1, 0, 0]
    assert c["drops"]["not_owner"] == 1 and c["last_drop"] == (3, 1, 1, qpn)
    uar.clear_counters()
    assert uar.counters["db_accepted"] == 0 and uar.counters["last_drop"] == (3, 1, 1, qpn)


def test_pairs_torn_halves_and_blueflame(uar):
    qpn = 0 << 12 | 1
    uar.set_qp(qpn, 3, 0)
    db = DB(1, 0x08, qpn, 2)
    a = uar.address(0, 0)
    assert uar.write(a, [(db, 0x0F)])["events"][0]["result"] == 3  # pending
    assert uar.write(a + 4, [(db, 0xF0)])["fetch"]["qpn"] == qpn
    # A low half broken by another write: a TORN drop, then the write itself.
    uar.write(a, [(db, 0x0F)])
    o = uar.write(a, [(db, 0xFF)])
    assert [e["result"] for e in o["events"]] == [2, 0] and o["events"][0]["reason"] == 6
    # A whole WQE through the BlueFlame window goes out as is, tuser = {vf, qpn}.
    beats = [(db, 0xFF)] + [(0x1111 * k, 0xFF) for k in range(1, 8)]
    o = uar.write(a + 0x800, beats)
    assert o["wqe"] == {"beats": [b for b, _ in beats], "user": qpn} and o["events"][0]["result"] == 1
    uar.bf_enable = False
    o = uar.write(a + 0x800, beats)
    assert o["wqe"] is None and o["bresp"] == 3
    # PF-only pages, disabled VF.
    uar.pf_only_mask = 0b10
    assert uar.write(uar.address(0, 1), [(db, 0xFF)])["bresp"] == 2
    assert uar.write(uar.address(0, 1), [(db, 0xFF)], pf=True)["events"][0]["reason"] == 2  # wrong page
    uar.set_vf_enable(0, False)
    o = uar.write(a, [(db, 0xFF)])
    assert o["events"][0]["reason"] == uar.reasons["disabled"] and not o["hostile"]
    uar.reset()
    assert uar.qp(qpn) is None and not uar.enable


def test_write_argument_checks(uar):
    with pytest.raises(ValueError, match="1 to 256 beats"):
        uar.write(0, [])
    with pytest.raises(ValueError, match="24-bit"):
        uar.write(1 << 24, [(0, 0xFF)])
    with pytest.raises(ValueError, match="VF 9"):
        uar.set_vf_enable(9, True)
