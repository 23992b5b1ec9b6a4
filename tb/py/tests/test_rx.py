"""The RX parser's verdict model (RxModel): against the RTL's output on the example capture,
against frames scapy.contrib.roce builds (an independent builder and ICRC), and the table
validation."""

import json
import random
import struct
from pathlib import Path

import pytest

import rdmagen

ROOT = Path(__file__).resolve().parents[3]
EXAMPLE = ROOT / "sim" / "rx-parser"

# sim/rx-parser/example-qps.yaml as the dict RxModel takes (same field names).
EXAMPLE_TABLE = {
    "qps": [{"vf": 0, "qpn": 0x123, "state": "RTS", "st": "RC", "pd": 1, "epsn": 0xABCD, "pkey": 0xFFFF},
            {"vf": 0, "qpn": 0x125, "state": "RTS", "st": "UD", "pd": 1, "qkey": 0x11223344},
            {"vf": 0, "qpn": 0x001, "state": "RTS", "st": "QP1", "pd": 1}],
    "keys": [{"rkey": 0x1234, "pd": 1, "va": 0x7F0000000000, "length": 0x100000, "access": ["remote_write"]}],
}


def read_pcap(path: Path) -> list[bytes]:
    """The frames of a classic little-endian microsecond pcap (what scapy's wrpcap writes)."""
    data = path.read_bytes()
    magic, _, _, _, _, _, linktype = struct.unpack_from("<IHHiIII", data, 0)
    assert magic == 0xA1B2C3D4 and linktype == 1
    frames, off = [], 24
    while off < len(data):
        _, _, incl, orig = struct.unpack_from("<IIII", data, off)
        assert incl == orig
        frames.append(data[off + 16: off + 16 + incl])
        off += 16 + incl
    return frames


def test_reason_names_are_the_maps_enum():
    enum = rdmagen.RegMap.builtin("rx_parser").enums["rx_drop_reason"]
    assert {v: k.lower() for k, v in enum.items() if v} == rdmagen.RxModel.reasons
    assert rdmagen.RxModel.verdicts == ["accept", "duplicate", "nak_seq", "nak_access", "drop"]


def test_example_capture_matches_the_rtl_output():
    """example.expected.jsonl is what `rdmagen sim rx-parser` printed for the Verilated
    rx_top on example.pcap (checked by tests/rxparser_sim.rs): the model must agree."""
    text = (EXAMPLE / "example-qps.yaml").read_text()
    for token in ("0x123", "0xABCD", "0x1234", "0x7f0000000000", "0x100000", "remote_write", "RTS", "RC",
                  "0x125", "UD", "0x11223344", "0x001", "QP1"):
        assert token in text, f"example-qps.yaml changed ({token}): update EXAMPLE_TABLE"
    frames = read_pcap(EXAMPLE / "example.pcap")
    want = [json.loads(line) for line in (EXAMPLE / "example.expected.jsonl").read_text().splitlines()]
    assert len(frames) == len(want) == 15
    m = rdmagen.RxModel(EXAMPLE_TABLE)
    for i, (f, w) in enumerate(zip(frames, want)):
        v = m.receive(f, vf=0)
        got = dict(v.sim_line(), frame=i)
        if v.verdict == "drop":  # the RTL's other fields of a dropped frame are undefined
            w = {k: w[k] for k in ("frame", "verdict", "reason", "vf", "opcode", "qpn")}
            got = {k: got[k] for k in w}
        assert got == w, f"frame {i}"
    c = m.counters
    assert c["frames_seen"] == 15
    assert sum(v for k, v in c.items() if k.startswith(("verdict_", "drop_"))) == 15
    assert (c["drop_q_key"], want[9]["src_qp"]) == (1, 0xABC)
    # The remote access NAK (frame 6) moved the RC QP to ERR with its ePSN as it was.
    assert (m.qp(0, 0x123)["state"], m.qp(0, 0x123)["epsn"]) == ("ERR", 0xABD0)


# --- scapy as the independent builder ------------------------------------------------------

scapy = pytest.importorskip("scapy.contrib.roce")
from scapy.compat import raw  # noqa: E402
from scapy.contrib.roce import AETH, BTH, cnp  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

VF = 2
RC, UC, UD, RTR_QP, ERR_QP = (VF << 12 | n for n in (0x11, 0x12, 0x13, 0x14, 0x15))
VA, RKEY = 0x10_0000_0000, 0x0305  # key index 3, variant byte 5


def table() -> dict:
    return {
        "qps": [
            {"vf": VF, "qpn": RC, "state": "RTS", "st": "RC", "pd": 7, "epsn": 0xFFFFFE, "mtu": 256},
            {"vf": VF, "qpn": 0x12, "state": "RTS", "st": "UC", "pd": 7, "epsn": 10},
            {"vf": VF, "qpn": UD, "state": "RTR", "st": 2, "pd": 7, "qkey": 0x11111111},
            {"vf": VF, "qpn": RTR_QP, "state": "RTR", "st": "RC", "pd": 7},
            {"vf": VF, "qpn": ERR_QP, "state": "ERR", "st": "RC", "pd": 7, "rwe": False},
        ],
        "keys": [{"rkey": RKEY, "pd": 7, "va": VA, "length": 0x1000, "vf": VF,
                  "access": ["remote_write", "remote_read"]}],
    }


def frame(opcode, qpn, psn, ext=b"", payload=b"", *, tos=0, v6=False, vlans=(), se=0, ackreq=0,
          dport=4791) -> bytes:
    """A RoCEv2 frame built by scapy (its ICRC); the extension headers are raw bytes."""
    pad = (4 - len(payload) % 4) % 4
    l2 = Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
    for v in vlans:
        l2 = l2 / Dot1Q(vlan=v)
    ip = IPv6(tc=tos, src="fd00::1", dst="fd00::2") if v6 else IP(tos=tos, flags="DF", src="10.0.0.1", dst="10.0.0.2")
    return raw(l2 / ip / UDP(sport=49152, dport=dport, chksum=0)
               / BTH(opcode=opcode, solicited=se, padcount=pad, pkey=0xFFFF, dqpn=qpn, ackreq=ackreq, psn=psn)
               / Raw(ext + payload + b"\0" * pad))


def reth(va, rkey, length) -> bytes:
    return struct.pack(">QII", va, rkey, length)


def test_scapy_frames_decode_to_their_fields():
    m = rdmagen.RxModel(table(), vf=VF)
    payload = bytes(range(37))
    v = m.receive(frame(0x04, RC, 0xFFFFFE, payload=payload, se=1, ackreq=1, vlans=[5, 6]), vf=VF)
    assert (v.verdict, v.reason, v.reason_code) == ("accept", "none", 0)
    assert (v.vf, v.qpn, v.opcode, v.psn, v.se, v.ack_req, v.pad, v.payload_len) == (
        VF, RC, 0x04, 0xFFFFFE, True, True, 3, 37)
    assert v.cnp_event is None and v.ce_event is None
    assert v.ack == (0x1F, 0xFFFFFE)  # AckReq on an accepted RC SEND: ACK with its PSN
    # WRITE FIRST with a RETH inside the key's region: accepted; the PSN wraps.
    v = m.receive(frame(0x06, RC, 0xFFFFFF, reth(VA + 8, RKEY, 0x100), payload), vf=VF)
    assert (v.verdict, v.va, v.rkey, v.dma_len) == ("accept", VA + 8, RKEY, 0x100)
    assert m.qp(VF, RC)["epsn"] == 0
    # SEND ONLY with immediate; IPv6 with CE marked: the CE event.
    v = m.receive(frame(0x05, RC, 0, struct.pack(">I", 0xDEADBEEF), tos=3, v6=True), vf=VF)
    assert (v.verdict, v.imm, v.ecn_ce, v.ce_event) == ("accept", 0xDEADBEEF, True, (VF, RC))
    # A CNP (scapy's cnp layer) on the RC QP: the CNP event.
    c = raw(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=1, dport=4791, chksum=0) / cnp(RC))
    v = m.receive(c, vf=VF)
    assert (v.verdict, v.cnp, v.cnp_event, v.opcode) == ("accept", True, (VF, RC), rdmagen.CNP_OPCODE)
    # An ACK (scapy's AETH layer) needs RTS: fine on RC, a STATE drop on the RTR QP.
    ack = raw(Ether() / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(dport=4791, chksum=0)
              / BTH(opcode=0x11, pkey=0xFFFF, dqpn=RC, psn=123) / AETH(syndrome=0, msn=1))
    assert m.receive(ack, vf=VF).verdict == "accept"
    ack_rtr = bytearray(frame(0x11, RTR_QP, 1, b"\0\0\0\1"))
    assert m.receive(ack_rtr, vf=VF).reason == "state", "a bytearray is taken as well"
    assert m.qp(VF, RC)["epsn"] == 1, "responses, ACKs and CNPs do not move ePSN"


def test_rc_psn_window_and_nak_sent():
    m = rdmagen.RxModel(table(), vf=VF)
    m.receive(frame(0x04, RC, 0xFFFFFE), vf=VF)  # ePSN -> 0xFFFFFF
    assert m.receive(frame(0x04, RC, 0xFFFFFE), vf=VF).verdict == "duplicate"
    assert m.receive(frame(0x04, RC, 0x7FFFFF), vf=VF).verdict == "duplicate", "half behind"
    v = m.receive(frame(0x04, RC, 3), vf=VF)
    assert (v.verdict, v.ack) == ("nak_seq", (0x60, 0xFFFFFF)), "NAK PSN sequence error with ePSN"
    assert m.qp(VF, RC)["nak_sent"]
    v = m.receive(frame(0x04, RC, 4), vf=VF)
    assert (v.verdict, v.reason) == ("drop", "psn_seq")
    assert m.receive(frame(0x04, RC, 0xFFFFFF), vf=VF).verdict == "accept"
    assert m.qp(VF, RC) == dict(m.qp(VF, RC), epsn=0, nak_sent=False)
    # READ request of 600 bytes at MTU 256: ePSN moves by 3 responses.
    assert m.receive(frame(0x0C, RC, 0, reth(VA, RKEY, 600)), vf=VF).verdict == "accept"
    assert m.qp(VF, RC)["epsn"] == 3
    c = m.counters
    assert (c["verdict_accept"], c["verdict_duplicate"], c["verdict_nak_psn_seq"], c["drop_psn_seq"]) == (3, 2, 1, 1)


def test_rkey_checks():
    m = rdmagen.RxModel(table(), vf=VF)
    m.receive(frame(0x04, RC, 0xFFFFFE), vf=VF)
    m.receive(frame(0x04, RC, 0xFFFFFF), vf=VF)
    end = VA + 0x1000
    for va, rkey, length, want in [
        (end - 16, RKEY, 16, "accept"),        # ends at the region's end
        (end - 15, RKEY, 16, "nak_access"),    # one past
        (VA - 1, RKEY, 1, "nak_access"),       # one before
        (VA, RKEY ^ 1, 16, "nak_access"),      # wrong variant byte
        (0, 0, 0, "accept"),                   # zero length needs no key
    ]:
        v = m.receive(frame(0x0A, RC, m.qp(VF, RC)["epsn"], reth(va, rkey, length)), vf=VF)
        assert v.verdict == want, (hex(va), hex(rkey), length)
        # A remote access NAK moves the RC QP to ERR (IBA class C); software brings it back.
        assert (m.qp(VF, RC)["state"] == "ERR") == (want == "nak_access")
        m.add_qp(dict(m.qp(VF, RC), state="RTS"))
    # Atomics need remote_atomic, which the key does not grant.
    atomic = struct.pack(">QIQQ", VA, RKEY, 1, 0)
    assert m.receive(frame(0x13, RC, m.qp(VF, RC)["epsn"], atomic), vf=VF).verdict == "nak_access"
    assert m.receive(frame(0x04, RC, m.qp(VF, RC)["epsn"]), vf=VF).reason == "state", "in ERR"
    m.add_qp(dict(m.qp(VF, RC), state="RTS"))
    # A duplicate gets no access verdict (PSN first, as rxe).
    assert m.receive(frame(0x0A, RC, 0, reth(VA - 1, RKEY, 1)), vf=VF).verdict == "duplicate"
    assert m.counters["verdict_nak_remote_access"] == 4
    m.remove_key(RKEY)
    assert m.receive(frame(0x0A, RC, m.qp(VF, RC)["epsn"], reth(VA, RKEY, 1)), vf=VF).verdict == "nak_access"
    m.add_qp(dict(m.qp(VF, RC), state="RTS"))
    m.add_key({"rkey": RKEY, "pd": 7, "va": VA, "length": 1, "access": ["remote_write"]})
    assert m.receive(frame(0x0A, RC, m.qp(VF, RC)["epsn"], reth(VA, RKEY, 1)), vf=VF).verdict == "accept"


def test_uc_ud_and_qp_checks():
    m = rdmagen.RxModel(table(), vf=VF)
    assert m.receive(frame(0x24, UC, 10), vf=VF).verdict == "accept"
    assert m.receive(frame(0x21, UC, 20), vf=VF).reason == "psn_seq", "UC middle out of order"
    assert m.receive(frame(0x20, UC, 30), vf=VF).verdict == "accept", "a first resynchronises"
    assert m.qp(VF, UC)["epsn"] == 31
    deth = struct.pack(">II", 0x11111111, 0x1)
    v = m.receive(frame(0x64, UD, 999, deth), vf=VF)
    assert (v.verdict, v.src_qp, v.hdr()["src_qp"]) == ("accept", 1, 1)
    for f, vf, reason in [
        (frame(0x04, UC, 31), VF, "transport_mismatch"),
        (frame(0x04, VF << 12 | 0x99, 0), VF, "unknown_qp"),
        (frame(0x04, RC, 0), VF + 1, "wrong_vf"),
        (frame(0x04, ERR_QP, 0), VF, "state"),
        (frame(0x04, 0, 0), VF, "qpn0"),
        (frame(0x04, RC, 0, dport=4792), VF, "not_roce"),
        (frame(0x04, RC, 0)[:50], VF, "truncated"),
        (frame(0x15, RC, 0), VF, "bad_opcode"),
        (frame(0x64, UD, 999, struct.pack(">II", 0x11111110, 0x1)), VF, "q_key"),
    ]:
        v = m.receive(f, vf=vf)
        assert (v.verdict, v.reason) == ("drop", reason)
        assert m.last_drop == {"reason": v.reason_code, "vf": vf, "opcode": v.opcode, "qpn": v.qpn}
        assert v.hdr() == {"verdict": 4, "reason": v.reason_code, "vf": vf, "opcode": v.opcode, "qpn": v.qpn}
    v = m.receive(frame(0x04, RC, 0), vf=VF, bad_fcs=True)
    assert (v.reason, v.opcode, v.qpn, v.bth_seen) == ("bad_fcs", 0, 0, False)


def test_configuration_registers():
    m = rdmagen.RxModel(table(), vf=VF, ce_event=False)
    f = frame(0x04, RC, 0xFFFFFE, tos=3, v6=True)
    bad = bytearray(f)
    bad[-1] ^= 1
    assert m.receive(bytes(bad), vf=VF).reason == "bad_icrc"
    m.icrc_check = False
    v = m.receive(bytes(bad), vf=VF)
    assert v.verdict == "accept" and v.ce_event is None, "ce_event_en off"
    assert m.counters["event_ce_marked"] == 1, "counted either way"
    m.ipv6 = False
    assert m.receive(f, vf=VF).reason == "not_roce"
    m.ipv6, m.udp_dport = True, 4792
    assert m.receive(f, vf=VF).reason == "not_roce"
    m.udp_dport, m.pkey = 4791, 0x1234
    assert m.receive(f, vf=VF).reason == "p_key"
    m.clear_counters()
    assert set(m.counters.values()) == {0}


def test_random_scapy_frames_count_once():
    """Random scapy frames (some corrupted) at random QPs/PSNs: each frame counts in
    frames_seen and in exactly one verdict or drop counter; the events follow the verdicts."""
    rng = random.Random(7)
    m = rdmagen.RxModel(table(), vf=VF)
    events = 0
    for i in range(300):
        qpn = rng.choice([RC, UC, UD, RTR_QP, ERR_QP, VF << 12 | 0x77])
        op = rng.choice([0x04, 0x0A, 0x24, 0x64, 0x11, 0x0C])
        ext = {0x0A: reth(VA, RKEY, 4), 0x0C: reth(VA, RKEY, 300), 0x64: b"\0" * 8, 0x11: b"\0" * 4}.get(op, b"")
        f = bytearray(frame(op, qpn, rng.randrange(1 << 24) if rng.random() < 0.3 else 0,
                            ext, bytes(rng.randrange(20)), tos=rng.choice([0, 3])))
        if rng.random() < 0.2:
            f[rng.randrange(len(f))] ^= 1 << rng.randrange(8)
        v = m.receive(bytes(f), vf=VF)
        assert (v.verdict == "drop") == (v.reason != "none")
        assert v.ce_event == ((VF, v.qpn) if v.verdict == "accept" and v.ecn_ce else None)
        events += v.ce_event is not None
    c = m.counters
    assert c["frames_seen"] == 300
    assert sum(v for k, v in c.items() if k.startswith(("verdict_", "drop_"))) == 300
    assert c["event_ce_marked"] == events


@pytest.mark.parametrize(
    "tbl, message",
    [
        ({"qps": [{"vf": 0, "qpn": 1, "state": "RTS", "st": "RC"}]}, "has no `pd`"),
        ({"qps": [{"vf": 0, "qpn": 1, "state": "READY", "st": "RC", "pd": 1}]}, "expected one of RST"),
        ({"qps": [{"vf": 1, "qpn": 0x2001, "state": "RTS", "st": "RC", "pd": 1}]}, "belongs to VF 2"),
        ({"qps": [{"vf": 0, "qpn": 1, "state": "RTS", "st": "RC", "pd": 1, "mtu": 1500}]}, "mtu 1500"),
        ({"qps": [{"vf": 0, "qpn": 1, "state": "RTS", "st": "RC", "pd": 1, "colour": 1}]}, "unknown field `colour`"),
        ({"qps": [{"vf": 0, "qpn": 1, "state": "RTS", "st": "RC", "pd": 1}] * 2}, "listed twice"),
        ({"qps": [{"vf": 0, "qpn": n, "state": "RTS", "st": "RC", "pd": 1, "pkey": 0x8000 | n} for n in (1, 2)]},
         "one port P_Key"),
        ({"keys": [{"rkey": 1, "pd": 1, "va": 0, "length": 1, "access": ["local_write"]}]}, "access `local_write`"),
        ({"keys": [{"rkey": 1, "pd": 1, "va": 1 << 64, "length": 1}]}, "must be a non-negative int"),
        ({"qp": []}, "unknown key `qp`"),
    ],
)
def test_bad_tables_are_errors(tbl, message):
    with pytest.raises(ValueError, match=message):
        rdmagen.RxModel(tbl)
