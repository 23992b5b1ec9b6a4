#!/usr/bin/env python3
"""RoCEv2 frames built by scapy (scapy.contrib.roce computes the ICRC): an independent
oracle for rdmagen's packet builder and parser model (tb/refmodel/src/roce.rs).

Usage: scapy-roce.py OUT [COUNT] [SEED]

Writes one frame per line as `<expect> <hex>`, where <expect> is what the parser model
must say: `accept` (well formed; the model must also rebuild it byte for byte), or the
name of a drop reason (`bad_icrc`, `fragment`, `bad_ip_checksum`, `not_roce`).
"""
import random
import struct
import sys

from scapy.compat import raw
from scapy.contrib.roce import AETH, BTH, cnp
from scapy.layers.inet import IP, UDP, IPOption_NOP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Dot1Q, Ether
from scapy.packet import Raw

# Opcode -> bytes of extension headers after the BTH (FACTS §3). AETH-only opcodes use
# scapy's AETH layer; the others are raw bytes, as scapy has no layer for them.
EXT_LEN = {
    0x00: 0, 0x01: 0, 0x02: 0, 0x03: 4, 0x04: 0, 0x05: 4, 0x06: 16, 0x07: 0, 0x08: 0,
    0x09: 4, 0x0A: 16, 0x0B: 20, 0x0C: 16, 0x0D: 4, 0x0E: 0, 0x0F: 4, 0x10: 4,
    0x11: 4, 0x12: 12, 0x13: 28, 0x14: 28, 0x16: 4, 0x17: 4,
    0x64: 8, 0x65: 12,
}
for op in range(0x0C):
    EXT_LEN[0x20 + op] = EXT_LEN[op]


def rand_bytes(rng, n):
    return bytes(rng.getrandbits(8) for _ in range(n))


def build(rng):
    """One random well-formed frame, and the opcode."""
    eth = Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
    l2 = eth
    for _ in range(rng.choice([0, 0, 1, 2])):
        l2 = l2 / Dot1Q(prio=rng.randrange(8), vlan=rng.randrange(4096))
    if rng.random() < 0.5:
        ip = IP(tos=rng.randrange(256), id=rng.randrange(65536), flags="DF",
                ttl=rng.randrange(1, 256), src="10.0.0.1", dst="10.0.0.2",
                options=[IPOption_NOP()] * (4 * rng.randrange(0, 3)))
    else:
        ip = IPv6(tc=rng.randrange(256), fl=rng.randrange(1 << 20), hlim=rng.randrange(256),
                  src="fe80::1", dst="2001:db8::2")
    udp = UDP(sport=rng.randrange(49152, 65536), dport=4791,
              chksum=rng.choice([0, None]))
    kind = rng.random()
    if kind < 0.1:
        op = 0x81
        bth = cnp(rng.randrange(1, 1 << 24))
        return l2 / ip / udp / bth, op
    op = 0x11 if kind < 0.2 else rng.choice(sorted(EXT_LEN))
    pad = rng.randrange(4)
    bth = BTH(opcode=op, solicited=rng.randrange(2), migreq=rng.randrange(2), padcount=pad,
              pkey=rng.choice([0xFFFF, 0x7FFF]), fecn=rng.randrange(2), becn=rng.randrange(2),
              dqpn=rng.randrange(1, 1 << 24), ackreq=rng.randrange(2),
              psn=rng.randrange(1 << 24))
    if op == 0x11:
        ext = AETH(syndrome=rng.randrange(256), msn=rng.randrange(1 << 24))
    else:
        ext = Raw(rand_bytes(rng, EXT_LEN[op]))
    if op == 0x64 or op == 0x65:
        # DETH: the source QP's top byte is reserved (0 on the wire).
        e = bytearray(raw(ext))
        e[4] = 0
        ext = Raw(bytes(e))
    payload = rand_bytes(rng, rng.randrange(0, 300)) + b"\x00" * pad
    return l2 / ip / udp / bth / ext / Raw(payload), op


def main():
    out = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
    rng = random.Random(int(sys.argv[3]) if len(sys.argv) > 3 else 4791)
    lines = []
    for i in range(count):
        pkt, _ = build(rng)
        frame = bytearray(raw(pkt))
        expect = "accept"
        r = i % 10
        if r == 7:
            # One flipped bit anywhere in the ICRC-covered part after the IP header checksum
            # region (payload or ICRC itself) must be a bad ICRC.
            pos = rng.randrange(len(frame) - 4, len(frame))
            frame[pos] ^= 1 << rng.randrange(8)
            expect = "bad_icrc"
        elif r == 8 and IP in pkt:
            pkt[IP].flags = "MF"
            del pkt[IP].chksum
            frame = bytearray(raw(pkt))
            expect = "fragment"
        elif r == 9:
            pkt[UDP].dport = 4792
            frame = bytearray(raw(pkt))
            expect = "not_roce"
        lines.append("%s %s" % (expect, frame.hex()))
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
