#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""SO_TIMESTAMPING helper for t-hw-tstamp.sh.

  hwts.py drift PTPDEV SECS      the PHC's and CLOCK_REALTIME's progress over SECS
  hwts.py rx PORT N PTPDEV       receive N UDP datagrams on PORT
  hwts.py tx DST PORT N PTPDEV [WAIT]
                                 send N UDP datagrams, stamps from the error
                                 queue (waiting up to WAIT s for each, 2)

Each prints one line: "count=C hw=H mono=M inwin=W lo=... hi=..." where C is
the datagrams (or error-queue stamps) seen, H how many carried a hardware
stamp (raw, ts[2] of SCM_TIMESTAMPING), M 1 when those increase strictly,
W how many fall between the PHC (PTPDEV) read before the first and after
the last datagram.
"""
import os
import select
import socket
import struct
import sys
import time

SO_TIMESTAMPING = 37
SCM_TIMESTAMPING = SO_TIMESTAMPING
TX_HARDWARE, RX_HARDWARE, RX_SOFTWARE, SOFTWARE = 1 << 0, 1 << 2, 1 << 3, 1 << 4
RAW_HARDWARE, OPT_ID, OPT_TSONLY = 1 << 6, 1 << 7, 1 << 11


def phc_ns(fd):
    # a dynamic POSIX clock: FD_TO_CLOCKID(fd) = (~fd << 3) | 3
    return time.clock_gettime_ns(((~fd) << 3) | 3)


def hw_stamp(ancdata):
    for level, typ, data in ancdata:
        if level == socket.SOL_SOCKET and typ == SCM_TIMESTAMPING and len(data) >= 48:
            sec, nsec = struct.unpack_from("qq", data, 32)
            return sec * 1000000000 + nsec
    return None


def phc_and_real(fd):
    """The PHC and CLOCK_REALTIME at one instant: the tightest of 5 reads of
    the PHC between two of CLOCK_REALTIME (a scheduling hiccup widens one)."""
    best = None
    for _ in range(5):
        r1 = time.clock_gettime_ns(time.CLOCK_REALTIME)
        p = phc_ns(fd)
        r2 = time.clock_gettime_ns(time.CLOCK_REALTIME)
        if best is None or r2 - r1 < best[2]:
            best = (p, (r1 + r2) // 2, r2 - r1)
    return best[0], best[1]


def drift(ptpdev, secs):
    fd = os.open(ptpdev, os.O_RDONLY)
    p1, r1 = phc_and_real(fd)
    time.sleep(secs)
    p2, r2 = phc_and_real(fd)
    print(f"phc={p2 - p1} real={r2 - r1}")


def report(count, stamps, lo, hi):
    hw = [s for s in stamps if s]
    mono = int(all(b > a for a, b in zip(hw, hw[1:])))
    inwin = sum(1 for s in hw if lo <= s <= hi)
    print(f"count={count} hw={len(hw)} mono={mono} inwin={inwin} lo={lo} hi={hi} "
          f"first={hw[0] if hw else 0} last={hw[-1] if hw else 0}")


def rx(port, n, ptpdev):
    fd = os.open(ptpdev, os.O_RDONLY)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING,
                 RX_HARDWARE | RAW_HARDWARE | RX_SOFTWARE | SOFTWARE)
    s.bind(("0.0.0.0", port))
    s.settimeout(20)
    stamps = []
    lo = phc_ns(fd)
    print("ready", flush=True, file=sys.stderr)
    try:
        while len(stamps) < n:
            _, anc, _, _ = s.recvmsg(2048, 1024)
            stamps.append(hw_stamp(anc) or 0)
    except socket.timeout:
        pass
    hi = phc_ns(fd)
    report(len(stamps), stamps, lo, hi)


def tx(dst, port, n, ptpdev, wait):
    fd = os.open(ptpdev, os.O_RDONLY)
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPING,
                 TX_HARDWARE | RAW_HARDWARE | OPT_TSONLY | OPT_ID)
    stamps = []
    lo = phc_ns(fd)
    for i in range(n):
        s.sendto(b"ts%04d" % i + bytes(100), (dst, port))
        # the stamp arrives on the error queue once the device completed it
        if not select.select([s], [], [], wait)[0]:
            continue
        try:
            _, anc, _, _ = s.recvmsg(1, 1024, socket.MSG_ERRQUEUE)
        except BlockingIOError:
            continue
        stamps.append(hw_stamp(anc) or 0)
        time.sleep(0.01)
    hi = phc_ns(fd)
    report(len(stamps), stamps, lo, hi)


if __name__ == "__main__":
    if sys.argv[1] == "drift":
        drift(sys.argv[2], float(sys.argv[3]))
    elif sys.argv[1] == "rx":
        rx(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    else:
        tx(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5],
           float(sys.argv[6]) if len(sys.argv) > 6 else 2.0)
