#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""IPv6 transfers with verifiable payloads, for the VM tests.

  xfer6.py tcp-recv PORT OUT [RCVBUF] accept one connection, write sha256 and byte count to OUT
                                      (RCVBUF: fixed receive buffer in bytes, no autotuning)
  xfer6.py tcp-send ADDR PORT BYTES [hbh]   send BYTES of seeded data; print its sha256
  xfer6.py udp-recv PORT N OUT        receive up to N datagrams (10 s idle timeout), write count of intact ones
  xfer6.py udp-send ADDR PORT N [hbh]  send N 1000-byte datagrams with a checkable pattern
  xfer6.py udp-gso-send ADDR PORT N K  the same N datagrams, K to a send (UDP_SEGMENT 1000: UDP GSO)

"hbh": every packet carries a hop-by-hop options header (one PadN option),
an IPv6 extension header the device does not parse.
"""
import hashlib
import random
import socket
import sys

SO_RCVBUFFORCE = getattr(socket, "SO_RCVBUFFORCE", 33)
UDP_SEGMENT = getattr(socket, "UDP_SEGMENT", 103)
HBH = bytes([0, 0, 1, 4, 0, 0, 0, 0])	# next header (kernel fills), len 0, PadN of 4


def data(n):
	rnd = random.Random(1234)
	out = bytearray()
	while len(out) < n:
		out += rnd.getrandbits(8 * 4096).to_bytes(4096, "little")
	return bytes(out[:n])


def hbh(s, on):
	if on:
		s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_HOPOPTS, HBH)


def pattern(i):
	return i.to_bytes(4, "big") + bytes((i + k) & 0xff for k in range(996))


def main(a):
	if a[0] == "tcp-recv":
		ls = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
		ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		if len(a) > 3:
			# A fixed receive buffer, set before listen() so the window
			# scale allows for it. The sender sizes its skbs to half the
			# largest window it has seen; with autotuning, a slow TCG
			# reader can hold the buffer at the 128 KiB default (window
			# 64 KiB), and then no skb over 64 KiB (BIG TCP) is ever built.
			ls.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, int(a[3]))
		ls.bind(("::", int(a[1])))
		ls.listen(1)
		c, _ = ls.accept()
		h, n = hashlib.sha256(), 0
		while True:
			b = c.recv(1 << 16)
			if not b:
				break
			h.update(b)
			n += len(b)
		open(a[2], "w").write("%s %d\n" % (h.hexdigest(), n))
	elif a[0] == "tcp-send":
		d = data(int(a[3]))
		s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
		hbh(s, len(a) > 4)
		s.settimeout(60)
		s.connect((a[1], int(a[2])))
		s.sendall(d)
		s.shutdown(socket.SHUT_WR)
		s.recv(1)
		s.close()
		print("%s %d" % (hashlib.sha256(d).hexdigest(), len(d)))
	elif a[0] == "udp-recv":
		s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
		# Room for every datagram of an unpaced burst: the default receive
		# buffer (rmem_default) holds ~50 of them, and a slow TCG receiver
		# then loses the rest to Udp6RcvbufErrors, not to the driver.
		s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
		s.bind(("::", int(a[1])))
		# Generous timeouts: the TCG guest can stall a sender for seconds, and
		# datagrams sent after the receiver gave up count as Udp6NoPorts.
		s.settimeout(30)
		ok = 0
		try:
			for _ in range(int(a[2])):
				b = s.recv(2048)
				s.settimeout(10)
				i = int.from_bytes(b[:4], "big")
				ok += b == pattern(i)
		except socket.timeout:
			pass
		open(a[3], "w").write("%d\n" % ok)
	elif a[0] == "udp-send":
		s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
		hbh(s, len(a) > 4)
		for i in range(int(a[3])):
			s.sendto(pattern(i), (a[1], int(a[2])))
	elif a[0] == "udp-gso-send":
		s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
		s.setsockopt(socket.IPPROTO_UDP, UDP_SEGMENT, 1000)
		n, k = int(a[3]), int(a[4])
		for i in range(0, n, k):
			s.sendto(b"".join(pattern(j) for j in range(i, min(n, i + k))), (a[1], int(a[2])))
	else:
		sys.exit("unknown mode " + a[0])


main(sys.argv[1:])
