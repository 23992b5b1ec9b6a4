"""The RoCEv2 packet builder/parser bindings, cross-checked against scapy.contrib.roce."""

import random

import pytest

import rdmagen

scapy = pytest.importorskip("scapy.contrib.roce")
from scapy.compat import raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402

SUPPORTED = [op for op in range(256) if rdmagen.roce_ext_headers(op) is not None]


def test_supported_opcodes_and_their_headers():
    assert len(SUPPORTED) == 23 + 12 + 2 + 1  # RC, UC, UD, CNP (FACTS §3)
    assert rdmagen.roce_ext_headers(0x0B) == ["reth", "imm"]  # RDMA WRITE ONLY with imm
    assert rdmagen.roce_ext_headers(0x12) == ["aeth", "atomic_ack"]
    assert rdmagen.roce_ext_headers(0x65) == ["deth", "imm"]
    assert rdmagen.roce_ext_headers(rdmagen.CNP_OPCODE) == ["cnp_reserved"]
    assert rdmagen.roce_ext_headers(0x15) is None
    p = rdmagen.roce_packet(rdmagen.CNP_OPCODE, 7)
    assert p["bth"]["becn"] and p["udp"]["dport"] == rdmagen.ROCE_UDP_PORT


def test_header_sizes():
    # RDMA WRITE FIRST: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16 = 70 (+4 per VLAN),
    # then the ICRC.
    p = rdmagen.roce_packet(0x06, 0x12, 7)
    assert len(rdmagen.roce_build(p)) == 70 + 4
    p["eth"]["vlans"] = [5]
    assert len(rdmagen.roce_build(p)) == 74 + 4
    p = rdmagen.roce_packet(0x06, ipv6=True)
    assert len(rdmagen.roce_build(p)) == 90 + 4


def random_packet(rng: random.Random) -> dict:
    op = rng.choice(SUPPORTED)
    p = rdmagen.roce_packet(op, rng.randrange(1, 1 << 24), rng.randrange(1 << 24),
                            ipv6=rng.random() < 0.4)
    p["eth"]["vlans"] = [rng.randrange(1 << 16) for _ in range(rng.choice([0, 0, 1, 2]))]
    if "ipv4" in p:
        p["ipv4"].update(tos=rng.randrange(256), ttl=rng.randrange(1, 256), id=rng.randrange(1 << 16),
                         options=bytes([1] * 4 * rng.randrange(3)))
    else:
        p["ipv6"].update(traffic_class=rng.randrange(256), flow_label=rng.randrange(1 << 20),
                         hop_limit=rng.randrange(256), dst="2001:db8::2")
    p["bth"].update(se=rng.random() < 0.5, fecn=rng.random() < 0.5, ack_req=rng.random() < 0.5,
                    pad_count=rng.randrange(4), pkey=rng.choice([0xFFFF, 0x7FFF, 0x8001]))
    for name in rdmagen.roce_ext_headers(op):
        h = p[name]
        if isinstance(h, dict):
            for k in h:
                h[k] = rng.getrandbits(24 if k in ("msn", "src_qp") else 8 if k == "syndrome" else 32)
        elif isinstance(h, bytes):
            p[name] = bytes(rng.getrandbits(8) for _ in range(16))
        else:
            p[name] = rng.getrandbits(32)
    p["payload"] = bytes(rng.getrandbits(8) for _ in range(rng.randrange(0, 200)))
    return p


def scapy_icrc(frame: bytes) -> bytes:
    """The frame as scapy rebuilds it with the ICRC recomputed (BTH.icrc = None)."""
    pkt = Ether(frame)
    pkt[BTH].icrc = None
    return raw(pkt)


def test_builder_icrc_matches_scapy():
    rng = random.Random(4791)
    for _ in range(40):
        p = random_packet(rng)
        frame = rdmagen.roce_build(p)
        assert scapy_icrc(frame) == frame, p
        assert rdmagen.roce_icrc(frame) == int.from_bytes(frame[-4:], "little")


def test_scapy_frames_parse_and_rebuild():
    rng = random.Random(7)
    for i in range(20):
        l2 = Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
        if i % 3 == 1:
            l2 = l2 / Dot1Q(vlan=rng.randrange(4096))
        ip = (IP(tos=rng.randrange(256), flags="DF", src="10.1.2.3", dst="10.3.2.1") if i % 2
              else IPv6(tc=rng.randrange(256), fl=rng.randrange(1 << 20), src="fe80::1", dst="fe80::2"))
        psn, qp = rng.randrange(1 << 24), rng.randrange(1, 1 << 24)
        pad = rng.randrange(4)
        payload = bytes(rng.getrandbits(8) for _ in range(rng.randrange(1, 64)))
        frame = raw(l2 / ip / UDP(sport=0xC123, dport=4791, chksum=0)
                    / BTH(opcode=0x04, padcount=pad, dqpn=qp, psn=psn) / Raw(payload + b"\0" * pad))
        p, icrc = rdmagen.roce_parse(frame)
        assert icrc["ok"] and icrc["carried"] == icrc["expected"]
        assert (p["bth"]["opcode"], p["bth"]["dest_qp"], p["bth"]["psn"]) == (0x04, qp, psn)
        assert p["payload"] == payload and p["udp"]["sport"] == 0xC123
        assert ("ipv4" in p) == bool(i % 2)
        assert rdmagen.roce_build(p) == frame


def test_parse_reports_a_bad_icrc_and_keeps_the_fields():
    p = rdmagen.roce_packet(0x0A, 0x345, 9)
    p["reth"] = {"va": 0x1000, "rkey": 0xABCD, "dma_len": 4}
    p["payload"] = b"abcd"
    good = rdmagen.roce_build(p)
    bad = rdmagen.roce_build(p, icrc=0xDEADBEEF)
    assert bad[:-4] == good[:-4] and bad[-4:] == (0xDEADBEEF).to_bytes(4, "little")
    q, icrc = rdmagen.roce_parse(bad)
    assert not icrc["ok"] and icrc["carried"] == 0xDEADBEEF
    assert icrc["expected"] == int.from_bytes(good[-4:], "little")
    assert q == p
    # Fields outside the ICRC (TTL, FECN, UDP checksum) do not change it; the PSN does.
    r = rdmagen.roce_parse(good)[0]
    r["ipv4"]["ttl"] = 1
    r["bth"]["fecn"] = True
    r["udp"]["checksum"] = 0x1234
    assert rdmagen.roce_build(r)[-4:] == good[-4:]
    r["bth"]["psn"] ^= 1
    assert rdmagen.roce_build(r)[-4:] != good[-4:]


def test_partial_dicts_take_defaults():
    f = rdmagen.roce_build({"bth": {"opcode": 0x04, "dest_qp": 5}, "payload": b"x",
                            "ipv6": {"src": bytes(range(16))}})
    p, _ = rdmagen.roce_parse(f)
    assert p["ipv6"]["src"] == "1:203:405:607:809:a0b:c0d:e0f" and p["ipv6"]["hop_limit"] == 64
    assert p["bth"]["pkey"] == 0xFFFF and p["payload"] == b"x"


@pytest.mark.parametrize("packet,message", [
    ({}, "needs `bth`"),
    ({"bth": {"opcode": 0x15}}, "unsupported BTH opcode 0x15"),
    ({"bth": {"opcode": 0x04, "psn": 1 << 24}}, "bth.psn = 0x1000000 does not fit 24 bits"),
    ({"bth": {"opcode": 0x04}, "reth": {}}, "carries no `reth`"),
    ({"bth": {"opcode": 0x04, "qpn": 1}}, "`bth` has no field qpn"),
    ({"bth": {"opcode": 0x04}, "ipv4": {}, "ipv6": {}}, "not both"),
    ({"bth": {"opcode": 0x04}, "eth": {"vlans": [1, 2, 3]}}, "at most 2"),
    ({"bth": {"opcode": 0x04}, "ipv4": {"src": "10.0.0.300"}}, "ipv4.src"),
    ({"bth": {"opcode": 0x04}, "ipv4": {"options": b"\1"}}, "multiple of 4"),
    ({"bth": {"opcode": 0x04}, "payload": "text"}, "takes bytes"),
    ({"bth": {"opcode": 0x04}, "payload": bytes(70000)}, "do not fit"),
])
def test_build_errors_name_the_field(packet, message):
    with pytest.raises(rdmagen.PacketError, match=message.replace("(", r"\(")):
        rdmagen.roce_build(packet)


def test_parse_refuses_non_roce_frames():
    f = rdmagen.roce_build(rdmagen.roce_packet(0x04, 3))
    with pytest.raises(rdmagen.PacketError, match="Truncated"):
        rdmagen.roce_parse(f[:40])
    p = rdmagen.roce_packet(0x04, 3)
    p["udp"]["dport"] = 4792
    with pytest.raises(rdmagen.PacketError, match="NotRoce"):
        rdmagen.roce_parse(rdmagen.roce_build(p))
    assert rdmagen.roce_icrc(b"\0" * 10) is None
    assert isinstance(rdmagen.PacketError("x"), ValueError)
