#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Reflected datagrams for t-xdp-mb: send and check.

xdp_mb_tx.py DEV SRC DST SIZE...: one UDP datagram of each SIZE payload
bytes (random) from SRC to DST port 9; the peer's XDP program sends each
frame back with its MAC addresses swapped (XDP_TX). The frames arriving on
DEV (an AF_PACKET socket, incoming only) that carry SRC -> DST port 9 are
matched to the datagrams byte for byte. Prints "sent N received R intact I
damaged D" and exits 0 only when every datagram came back intact.
"""
import os
import select
import socket
import struct
import sys
import time

ETH_P_IP = 0x0800
PACKET_HOST = 0


def main():
    dev, src, dst, sizes = sys.argv[1], sys.argv[2], sys.argv[3], [int(s) for s in sys.argv[4:]]
    cap = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_IP))
    cap.bind((dev, 0))
    cap.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    tx = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    tx.bind((src, 0))
    sport = tx.getsockname()[1]
    want = {}
    for n in sizes:
        payload = os.urandom(n)
        want[payload[:16]] = payload
        tx.sendto(payload, (dst, 9))
        time.sleep(0.05)
    got = intact = damaged = 0
    deadline = time.time() + 10
    while intact + damaged < len(sizes) and time.time() < deadline:
        r, _, _ = select.select([cap], [], [], 0.5)
        if not r:
            continue
        frame, addr = cap.recvfrom(65536)
        if addr[2] != PACKET_HOST or len(frame) < 42:
            continue
        ihl = (frame[14] & 0xF) * 4
        if frame[23] != 17 or socket.inet_ntoa(frame[26:30]) != src or \
                socket.inet_ntoa(frame[30:34]) != dst:
            continue
        s, d, ulen = struct.unpack("!HHH", frame[14 + ihl:14 + ihl + 6])
        if s != sport or d != 9:
            continue
        got += 1
        payload = frame[14 + ihl + 8:14 + ihl + ulen]
        if want.get(payload[:16]) == payload and ulen == len(payload) + 8:
            intact += 1
        else:
            damaged += 1
    print(f"sent {len(sizes)} received {got} intact {intact} damaged {damaged}")
    return 0 if intact == len(sizes) and damaged == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
