"""Reference models through the bindings: CSR, QPC and DCQCN."""

import pytest

import rdmagen


def test_csr_model_ports_and_responses():
    m = rdmagen.RegMap.builtin("example")
    c = rdmagen.CsrModel(m, {"NUM_PORTS": 2})
    ports = {p[0]: p[1:] for p in c.hw_ports}
    assert ports["port_link_speed_d_i"] == ("load_data", 2, 2)
    assert dict(c.out_ports)["port_link_errors_o"] == 32
    # A read is accepted in one cycle and answered in the next (the CSR block's two-stage read).
    assert c.cycle(read=0x40) == (None, None)
    assert c.cycle() == (None, (0, 3))  # DECERR: no register
    assert c.cycle(write=(0x4, 1, 0xF)) == (2, None)  # SLVERR: status is read-only
    assert c.cycle(write=(0x1C, 0xFFFFFFFF, 0b0010)) == (0, None)
    assert c.output("scratch_value_o") == 0x0000FF00


def test_csr_model_hardware_inputs_are_held():
    m = rdmagen.RegMap.builtin("example")
    c = rdmagen.CsrModel(m)
    c.cycle(inputs={"pkt_count_count_incr_i": 1})
    c.cycle()
    assert c.output("pkt_count_count_o") == 2  # the input stays driven
    c.cycle(read=0x10, inputs={"pkt_count_count_incr_i": 0})
    _, (data, resp) = c.cycle()
    assert (data, resp) == (2, 0)
    assert c.output("pkt_count_count_o") == 0  # rc: the read cleared it
    with pytest.raises(ValueError, match="1-bit"):
        c.set_input("pkt_count_count_incr_i", 2)
    with pytest.raises(KeyError):
        c.set_input("nope_i", 0)
    # wp: one cycle pulse, then 0.
    c.cycle(write=(0x0, 1 << 31, 0xF))
    assert c.output("ctrl_soft_reset_o") == 1
    c.cycle()
    assert c.output("ctrl_soft_reset_o") == 0


def test_csr_model_interrupt():
    m = rdmagen.RegMap.builtin("example")
    c = rdmagen.CsrModel(m)
    c.cycle(write=(0xC, 0b100, 0xF))
    assert not c.irq
    c.cycle(inputs={"int_status_error_set_i": 1})
    assert c.irq and c.output("irq_o") == 1
    assert c.field_value("int_status", "error") == 1
    c.reset()
    assert not c.irq


def test_csr_model_wide_array_input():
    # 16-bit counters x 4 ports: 64-bit packed input and output.
    m = rdmagen.RegMap.builtin("example")
    c = rdmagen.CsrModel(m)
    c.cycle(inputs={"port_link_speed_we_i": 0b1010, "port_link_speed_d_i": 0b11_10_01_00})
    assert c.output("port_link_speed_o") == 0b11_00_01_00
    c.cycle(read=0x134, inputs={"port_link_speed_we_i": 0})
    _, (data, _) = c.cycle()
    assert data == 3


def qpc_command(q, opcode, vf, local, fields):
    """Runs one mlx5 command through the model's CSR port; returns (status, prev state)."""
    word = 0
    for name, value in fields.items():
        msb, lsb = q.layout[name]
        word |= value << lsb
    for i in range(12):
        q.cycle(csr_write=(0x80 + 4 * i, word >> (32 * i) & 0xFFFFFFFF))
    q.cycle(csr_write=(0x14, vf << 24 | local))
    q.cycle(csr_write=(0x10, 1 << 31 | opcode))
    for _ in range(10):
        out = q.cycle()
        if out["done"] is not None:
            return out["done"]
    raise AssertionError("the command never completed")


def test_qpc_model_create_and_lookup():
    m = rdmagen.RegMap.builtin("qpc")
    q = rdmagen.QpcModel(m, 2, 4, num_mkeys=4)
    assert q.depth == 8 and q.clearing
    for _ in range(8):
        q.cycle()
    assert not q.clearing
    assert q.address(1, (1 << 12) | 3) == 7
    assert q.address(0, (1 << 12) | 3) is None
    ops = dict(rdmagen.qp_commands())
    ctx = {"st": 0, "pd": 0x1234, "mtu": 3, "next_rcv_psn": 0x55, "cqn_snd": 9}
    assert qpc_command(q, ops["CREATE_QP"], 1, 3, ctx) == (0, 0)
    assert qpc_command(q, ops["CREATE_QP"], 1, 3, ctx)[0] == 0x05  # BAD_RES: exists
    assert qpc_command(q, ops["RST2INIT_QP"], 1, 3, ctx) == (0, 0)
    words, (epsn, nak) = q.context(1, 3)
    assert epsn == 0x55 and not nak
    # RX lookup: the response comes two cycles after acceptance.
    outs = [q.cycle(rx=(1, (1 << 12) | 3, 0, 0xAB))] + [q.cycle() for _ in range(3)]
    rsp = [o["rx"] for o in outs if o["rx"]]
    assert len(rsp) == 1
    r = rsp[0]
    assert (r["ok"], r["state"], r["pd"], r["epsn"], r["user"]) == (True, 1, 0x1234, 0x55, 0xAB)
    # Another VF asking for it: refused, counted.
    outs = [q.cycle(db=(0, (1 << 12) | 3, 0, 1))] + [q.cycle() for _ in range(3)]
    d = [o["db"] for o in outs if o["db"]][0]
    assert (d["ok"], d["reason"]) == (False, 1)
    assert q.counters["partition"] == 1
    assert set(q.layout) >= {"valid", "state", "pd", "next_rcv_psn"}
    with pytest.raises(ValueError):
        rdmagen.QpcModel(rdmagen.RegMap.builtin("example"), 1, 1)
    with pytest.raises(ValueError):
        q.context(2, 0)


def test_dcqcn_engine_cuts_rate_on_cnp():
    p = rdmagen.dcqcn_defaults()
    assert p["rpg_gd"] == 11 and p["rp_enable"] is True
    e = rdmagen.DcqcnEngine(4)
    out = e.event("cnp", 1, 0, 10)
    assert out["rsp"]["seen"] and out["stats"]["rp_cnps"] == 1
    f = e.flow(1)
    assert f["seen"] and f["rc"] <= (p["line_rate"] << 8)
    assert not e.flow(0)["seen"]
    with pytest.raises(ValueError):
        e.event("nope", 0, 0, 0)
    with pytest.raises(KeyError):
        e.event("tx", 0, 64, 11, params={"bogus": 1})
    e.clear()
    assert not e.flow(1)["seen"]


def test_dcqcn_lazy_and_eager_agree():
    lazy, eager = rdmagen.DcqcnEngine(2), rdmagen.DcqcnEager(2)
    params = {"rpg_time_reset": 5, "rate_reduce_monitor_period": 2}
    events = [("cnp", 0, 0, 3), ("tx", 0, 1500, 9), ("cnp", 1, 0, 20), ("tx", 0, 9000, 400), ("read", 1, 0, 1000)]
    for kind, flow, nbytes, now in events:
        a = lazy.event(kind, flow, nbytes, now, params=params)["rsp"]
        eager.advance_to(now, params=params)
        b = eager.event(kind, flow, nbytes, params=params)
        assert a == b, (kind, now)


def test_dcqcn_paper_mode_and_byte_counter_are_bound():
    d = rdmagen.dcqcn_defaults()
    assert d["paper"] is False and d["rpg_byte_reset"] == 32767
    lazy, paper = rdmagen.DcqcnEngine(2), rdmagen.DcqcnEngine(2)
    a = lazy.event("cnp", 0, 0, 10)["rsp"]
    b = paper.event("cnp", 0, 0, 10, {"paper": True})["rsp"]
    # mlx5: the first CNP sets Rc to the line rate with a cut pending; PAPER cuts at once.
    assert a["rc"] == 100_000 << 8 and b["rc"] < 100_000 << 8 and b["rt"] == 100_000 << 8
    assert set(paper.flow(0)) >= {"bc", "bacc"}
    paper.set_flow(1, {"bc": 3})
    assert paper.flow(1)["bc"] == 3
