#!/usr/bin/env python3
"""Builds sim/rx-parser/example.pcap with scapy (scapy.contrib.roce computes the ICRC): a
short conversation with the QP and memory key of example-qps.yaml that meets every verdict.

Usage: make_example.py [OUT]     (default: example.pcap next to this script; needs scapy,
installed by scripts/setup.sh: .venv/bin/python sim/rx-parser/make_example.py)
"""
import os
import struct
import sys

from scapy.contrib.roce import BTH, cnp
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import wrpcap

QPN = 0x123      # QP 0x123 of VF 0 (example-qps.yaml), ePSN 0xABCD
VA = 0x7F0000000000
RKEY = 0x1234    # key of example-qps.yaml: [VA, VA + 0x100000), remote write
UD_QPN = 0x125   # the UD QP of example-qps.yaml, Q_Key 0x11223344
GSI_QKEY = 0x80010000  # the GSI's well-known Q_Key (QP 1, example-qps.yaml's QP1 QP)


def frame(opcode, psn, qpn=QPN, ext=b"", payload=b"", tos=0):
    pad = (4 - len(payload) % 4) % 4
    return (Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
            / IP(src="10.0.0.1", dst="10.0.0.2", tos=tos, flags="DF")
            / UDP(sport=49152, dport=4791, chksum=0)
            / BTH(opcode=opcode, padcount=pad, pkey=0xFFFF, dqpn=qpn, ackreq=1, psn=psn)
            / Raw(ext + payload + b"\x00" * pad))


def reth(va, rkey, length):
    return struct.pack(">QII", va, rkey, length)


def deth(qkey, src_qp):
    return struct.pack(">II", qkey, src_qp)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "example.pcap")
    data = bytes(range(16))
    frames = [
        frame(0x04, 0xABCD, payload=b"hello"),                       # accept (ePSN -> ABCE)
        frame(0x04, 0xABCD, payload=b"hello"),                       # duplicate
        frame(0x04, 0xABD0),                                         # nak_seq (gap)
        frame(0x04, 0xABD1),                                         # drop psn_seq (NAK sent)
        frame(0x04, 0xABCE),                                         # accept (ePSN -> ABCF)
        frame(0x0A, 0xABCF, ext=reth(VA, RKEY, 16), payload=data),   # accept: WRITE in range
        frame(0x0A, 0xABD0, ext=reth(VA + 0x100000 - 8, RKEY, 16),
              payload=data),                                         # nak_access: past the end;
                                                                     # the QP goes to ERR
        frame(0x04, 0xABD0),                                         # drop state (QP in ERR)
        frame(0x04, 0xABD0, qpn=0x124),                              # drop unknown_qp
        frame(0x64, 7, qpn=UD_QPN, ext=deth(0x11223344, 0xABC),
              payload=b"ud"),                                        # accept, src_qp 0xABC
        frame(0x64, 8, qpn=UD_QPN, ext=deth(0x11223345, 0xABC)),     # drop q_key
        frame(0x64, 0, qpn=1, ext=deth(GSI_QKEY, 0x1),
              payload=b"cm mad"),                                    # accept: GSI, src_qp 1
        Ether(dst="02:00:00:00:00:01", src="02:00:00:00:00:02")
        / IP(src="10.0.0.1", dst="10.0.0.2") / UDP(sport=49152, dport=4791, chksum=0)
        / cnp(QPN),                                                  # accept, cnp (in ERR too)
        frame(0x64, 9, qpn=UD_QPN, ext=deth(0x11223344, 0xABC),
              tos=3),                                                # accept, ecn_ce
    ]
    raw_frames = [bytes(f) for f in frames]
    bad = bytearray(raw_frames[-1])
    bad[-1] ^= 0x01
    raw_frames.append(bytes(bad))                                    # drop bad_icrc
    packets = [Ether(f) for f in raw_frames]
    # Fixed time stamps (one frame per microsecond from the epoch), so that the capture is the
    # same file every time it is built, not one that differs in each record's clock time.
    for i, p in enumerate(packets):
        p.time = i / 1_000_000
    wrpcap(out, packets)


if __name__ == "__main__":
    main()
