#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RSS flows for t-rss: predict and send.

predict: read `ethtool -x DEV` and `ethtool -n DEV rx-flow-hash udp4` (or
udp6) output (files), and for each UDP flow SRC:SPORT -> DST:DPORT (IPv4,
or IPv6 as [SRC]:SPORT->[DST]:DPORT) print the
queue that the Toeplitz hash of the hashed fields with that key, through
that table, names. The hash is computed here, bit by bit, not by the
driver.
send: N datagrams of each flow from SRC:SPORT (bound) to DST:DPORT.
"""
import socket
import sys


def parse_x(text):
    key, table, hfunc, it = None, {}, None, iter(text.splitlines())
    for line in it:
        s = line.strip()
        if s.startswith("RSS hash key:"):
            key = bytes(int(b, 16) for b in next(it).strip().split(":"))
        elif ":" in s and s.split(":")[0].isdigit():
            base, vals = s.split(":", 1)
            for i, v in enumerate(vals.split()):
                table[int(base) + i] = int(v)
        elif s.endswith(": on") and hfunc is None and s.split(":")[0] in ("toeplitz", "xor", "crc32"):
            hfunc = s.split(":")[0]
    return key, [table[i] for i in range(len(table))], hfunc


def parse_n(text):
    """`ethtool -n DEV rx-flow-hash udp4` -> the fields (s, d, f, n)."""
    f = ""
    for line in text.splitlines():
        s = line.strip()
        f += {"IP SA": "s", "IP DA": "d", "L4 bytes 0 & 1 [TCP/UDP src port]": "f",
              "L4 bytes 2 & 3 [TCP/UDP dst port]": "n"}.get(s, "")
    return f


def toeplitz(key, data):
    kbits = int.from_bytes(key, "big")
    klen = len(key) * 8
    h = 0
    for i in range(len(data) * 8):
        if data[i // 8] & (0x80 >> (i % 8)):
            h ^= (kbits >> (klen - 32 - i)) & 0xffffffff
    return h


def addr_bytes(a):
    return socket.inet_pton(socket.AF_INET6 if ":" in a else socket.AF_INET, a)


def flow_input(fields, src, sport, dst, dport):
    d = b""
    if "s" in fields:
        d += addr_bytes(src)
    if "d" in fields:
        d += addr_bytes(dst)
    if "f" in fields:
        d += sport.to_bytes(2, "big")
    if "n" in fields:
        d += dport.to_bytes(2, "big")
    return d


def flows(args):
    """SRC:SPORT->DST:DPORT, an IPv6 address in brackets: [SRC]:SPORT."""
    for a in args:
        s, d = a.split("->")
        src, sport = s.rsplit(":", 1)
        dst, dport = d.rsplit(":", 1)
        yield src.strip("[]"), int(sport), dst.strip("[]"), int(dport)


def main():
    if sys.argv[1] == "predict":
        key, table, _ = parse_x(open(sys.argv[2]).read())
        fields = parse_n(open(sys.argv[3]).read())
        out = []
        for src, sport, dst, dport in flows(sys.argv[4:]):
            h = toeplitz(key, flow_input(fields, src, sport, dst, dport))
            out.append(str(table[h % len(table)]))
        print(" ".join(out))
    elif sys.argv[1] == "hfunc":
        print(parse_x(open(sys.argv[2]).read())[2])
    elif sys.argv[1] == "send":
        n = int(sys.argv[2])
        for src, sport, dst, dport in flows(sys.argv[3:]):
            so = socket.socket(socket.AF_INET6 if ":" in src else socket.AF_INET,
                               socket.SOCK_DGRAM)
            so.bind((src, sport))
            for _ in range(n):
                so.sendto(b"rss" * 10, (dst, dport))
            so.close()


main()
