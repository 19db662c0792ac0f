#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The kernel's RX hash test (tools/testing/selftests/net/toeplitz.c, built
# from linux-source-6.1 by scripts/kselftest.sh) on scx1: every TCP and UDP
# frame of 64 flows to port 8000, over IPv4 and IPv6, must reach the stack
# with skb->hash (the packet ring's tp_rxhash, from the CQE) equal to the
# Toeplitz hash of its 4-tuple under the key `ethtool -x scx1` shows; the
# program fails on any frame whose hash differs and on fewer than 10 frames
# with one. Here no frame may come without a hash either, and at least 32
# (of 192 UDP, 64 or more TCP) reach its rings in the 5 s it reads. As its
# toeplitz.sh runs it without -rss/-rps (the queue-to-CPU check needs an
# IRQ per queue; t-rss checks softcx's queues). The traffic is this test's
# own (toeplitz_client.sh needs nc): datagrams and SYNs from new sockets.
# run-all's @cqe runs it with CQE compression, where a session's mini-CQEs
# take their hash from its title CQE.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3

BIN=$SCX_ROOT/build/kselftest/bin
[ -x "$BIN/toeplitz" ] || fail "$BIN/toeplitz not built (scripts/kselftest.sh; make vm-test builds it)"

A0=fd00:13::1 A1=fd00:13::2

scx_setup
pair_ipv6 "$A0" "$A1"
key=$(ip netns exec "$NS" ethtool -x scx1 | sed -n '/^RSS hash key:/{n;p}')
[ -n "$key" ] || fail "no RSS hash key in ethtool -x scx1"
log "scx1 RSS key $key, rx-hashing $(ip netns exec "$NS" ethtool -k scx1 | sed -n 's/^receive-hashing: *//p')"

# send FAMILY PROTO ADDR: 64 flows (new source ports), 3 frames each, to port 8000
send() {
	python3 - "$@" <<'EOF'
import socket, sys, time
fam = socket.AF_INET if sys.argv[1] == '-4' else socket.AF_INET6
udp = sys.argv[2] == '-u'
for i in range(64):
    s = socket.socket(fam, socket.SOCK_DGRAM if udp else socket.SOCK_STREAM)
    s.setblocking(False)
    for _ in range(3):
        try:
            if udp:
                s.sendto(b'msg %d' % i, (sys.argv[3], 8000))
            else:
                s.connect_ex((sys.argv[3], 8000))	# a SYN (and its retry); the port is closed
        except OSError:
            pass
    time.sleep(0.005)
    s.close()
EOF
}

rx0=$(ethtool_stat scx1 rx_packets "$NS")
for fam in -4 -6; do
	for proto in -u -t; do
		addr=$IP1; [ $fam == -6 ] && addr=$A1
		out=$SCX_TEST_OUT/toeplitz$fam$proto.log
		bg_start ip netns exec "$NS" timeout 60 "$BIN/toeplitz" $fam $proto -d 8000 -i scx1 \
			-k "$key" -T 5000 -s -v > "$out" 2>&1
		pid=$BG_PID
		sleep 0.5
		send $fam $proto "$addr"
		rc=0
		wait "$pid" || rc=$?
		line=$(grep '^count:' "$out" || true)
		[ $rc -eq 0 ] || fail "toeplitz $fam $proto: exit $rc (${line:-no count}); $(grep -m 3 'expected\|error' "$out" | tr '\n' ' ')"
		[[ "$line" =~ pass=([0-9]+)\ nohash=([0-9]+)\ fail=([0-9]+) ]] || fail "toeplitz $fam $proto: no count line"
		n=("${BASH_REMATCH[@]}")
		assert_ge "toeplitz $fam $proto: frames whose hash is the Toeplitz hash" 32 "${n[1]}"
		assert_eq "toeplitz $fam $proto: frames without a hash" 0 "${n[2]}"
		assert_eq "toeplitz $fam $proto: frames with another hash" 0 "${n[3]}"
	done
done
# the frames went through softcx's RX
assert_ge "scx1 rx_packets" 256 $(( $(ethtool_stat scx1 rx_packets "$NS") - rx0 ))
