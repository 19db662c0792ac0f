#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# rmmod while traffic runs: (1) iperf3 TCP (2 streams), (2) a pktgen flood
# into scx1 plus iperf3 UDP. rmmod succeeds, the ports are gone in both
# namespaces, the traffic tools notice and are stopped; afterwards insmod
# again and ping works. run-all then checks the kernel log (WARN, refcount,
# "waiting for scx0 to become free") and that every page_pool destroyed
# during the test drains (no RX page still in flight once the sockets that
# held them are closed).
source "$(dirname "$0")/lib.sh"
need_cmd iperf3 ping pgrep

gone() {
	dev_exists scx0 && fail "scx0 still present after rmmod"
	ip netns exec "$NS" test -e /sys/class/net/scx1 && fail "scx1 still present in $NS after rmmod"
	log "ok: ports gone"
}

# 1. TCP streams.
scx_setup channels=2
iperf_server "$NS" 5201
srv=$BG_PID
bg_start timeout 60 iperf3 -c "$IP1" -p 5201 -t 30 -P 2 -i 1 --logfile "$SCX_TEST_OUT/tcp.log"
cli=$BG_PID
sleep 3
kill -0 "$cli" 2>/dev/null || fail "iperf3 client ended before rmmod: $(tail -n 3 "$SCX_TEST_OUT/tcp.log")"
grep -q 'bits/sec' "$SCX_TEST_OUT/tcp.log" || fail "no TCP throughput reported before rmmod: $(tail -n 3 "$SCX_TEST_OUT/tcp.log")"
scx_unload
gone
# Close the sockets (and with them the skbs holding RX pages).
bg_stop "$cli" "$srv"

# 2. pktgen flood (count 0: until stopped) into scx1, and UDP.
ip -all netns delete
scx_setup channels=2
iperf_server "$NS" 5202
srv=$BG_PID
bg_start timeout 60 iperf3 -c "$IP1" -p 5202 -u -b 20M -l 1400 -t 30 -i 1 --logfile "$SCX_TEST_OUT/udp.log"
cli=$BG_PID
pktgen_setup scx0 0 10.11.0.250 "$(dev_mac scx1 "$NS")" 0
bg_start timeout 60 sh -c "echo start > $PG/pgctrl"
pg=$BG_PID
sleep 2
kill -0 "$pg" 2>/dev/null || fail "pktgen ended before rmmod: $(grep -E 'Result|sofar' "$PG/scx0" | tr '\n' ' ')"
kill -0 "$cli" 2>/dev/null || fail "iperf3 UDP client ended before rmmod: $(tail -n 3 "$SCX_TEST_OUT/udp.log")"
scx_unload
gone
# pktgen drops a device that unregisters: its run must end by itself.
wait_for 20 sh -c "! kill -0 $pg 2>/dev/null" || fail "pktgen still running 20 s after rmmod"
log "ok: pktgen run ended with the device"
bg_stop "$cli" "$srv"

# 3. Back to normal.
ip -all netns delete
scx_setup
ping_ok "" "$IP1" 10
ping_ok "$NS" "$IP0" 10
