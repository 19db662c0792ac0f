#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# ethtool -t, the self-test mlx5e has (Link, Speed and Loopback Test):
# - port down: every test fails, the log says the loopback test needs the
#   port up;
# - scx0 up, scx1 down: no link, every test fails (the stack sends no
#   frame without a carrier; the device's loopback itself needs no link:
#   host tests HwFlow.LocalLoopbackTurnsOwnUnicastBack and
#   Pair.LocalLoopbackThroughTheCore);
# - both up: PASS, every result 0; the loopback frame neither reached scx1
#   (its rx_steer_missed_packets would count a frame to scx0's address)
#   nor any MAC (tx/rx_packets_phy of scx0 +0), and it came back to
#   scx0's RX (rx_packets +1);
# - after the test the device's loopback is off again: a frame to scx0's
#   own address sent on scx0 by a packet socket crosses to scx1, which
#   turns it away (rx_steer_missed_packets +1);
# - with an XDP_DROP program on scx0 the loopback frame is dropped there:
#   Loopback Test fails (rx_xdp_drop +1), Link and Speed pass.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool python3
bpf_build

# selftest DEV: sets ST_RESULT (PASS/FAIL) and ST[name] (each test's number).
declare -A ST
selftest() {
	local out line re='^(.*[^[:space:]])[[:space:]]+([0-9]+)$'
	out=$(ethtool -t "$1" 2>&1) || true	# status 2 (FL_FAILED) when a test failed
	ST=() ST_RESULT=
	while IFS= read -r line; do
		if [[ "$line" == "The test result is "* ]]; then
			ST_RESULT=${line#The test result is }
		elif [[ "$line" =~ $re ]]; then
			ST[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
		fi
	done <<< "$out"
	[ -n "$ST_RESULT" ] || fail "ethtool -t $1: no result: $out"
	log "ethtool -t $1: $ST_RESULT (link ${ST[Link Test]-?}, speed ${ST[Speed Test]-?}, loopback ${ST[Loopback Test]-?})"
}
# expect_st RESULT LINK SPEED LOOPBACK
expect_st() {
	assert_eq "test result" "$1" "$ST_RESULT"
	assert_eq "Link Test" "$2" "${ST[Link Test]-none}"
	assert_eq "Speed Test" "$3" "${ST[Speed Test]-none}"
	assert_eq "Loopback Test" "$4" "${ST[Loopback Test]-none}"
}

scx_load
dmesg -C
selftest scx0
expect_st FAIL 1 1 1
klog_has "scx0: self-test: the loopback test needs the port up" || fail "no reason for the loopback failure in the log"

ns_create "$NS"
ip link set scx1 netns "$NS"
ip link set scx0 up
wait_no_carrier scx0
dmesg -C
selftest scx0
expect_st FAIL 1 1 1
klog_has "scx0: self-test: the loopback test needs the carrier" || fail "no reason for the loopback failure in the log"
log "ok: scx1 down: no link, every test fails"

ip -n "$NS" link set scx1 up
wait_carrier scx0
wait_carrier scx1 "$NS"
read -r tx_phy rx_phy rxp <<< "$(cnt scx0 "" tx_packets_phy rx_packets_phy rx_packets)"
read -r missed <<< "$(cnt scx1 "$NS" rx_steer_missed_packets)"
selftest scx0
expect_st PASS 0 0 0
read -r tx_phy2 rx_phy2 rxp2 <<< "$(cnt scx0 "" tx_packets_phy rx_packets_phy rx_packets)"
read -r missed2 <<< "$(cnt scx1 "$NS" rx_steer_missed_packets)"
assert_eq "scx0 tx_packets_phy delta" 0 $((tx_phy2 - tx_phy))
assert_eq "scx0 rx_packets_phy delta" 0 $((rx_phy2 - rx_phy))
assert_eq "scx0 rx_packets delta" 1 $((rxp2 - rxp))
assert_eq "scx1 rx_steer_missed_packets delta" 0 $((missed2 - missed))
log "ok: both up: PASS; the frame came back inside the device"

# after it, the loopback is off: a frame to scx0's own address leaves on the wire
mac=$(dev_mac scx0)
python3 - "$mac" <<'EOF'
import socket, sys
mac = bytes.fromhex(sys.argv[1].replace(":", ""))
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind(("scx0", 0))
s.send(mac + mac + b"\x88\xb5" + bytes(46))	# local experimental EtherType
EOF
wait_for 5 sh -c "[ \$(ip netns exec $NS ethtool -S scx1 | awk '/ rx_steer_missed_packets:/ {print \$2}') -eq $((missed2 + 1)) ]" ||
	fail "a frame to scx0's own address did not reach scx1 after the self-test (the loopback stayed on?)"
read -r rxp3 <<< "$(cnt scx0 "" rx_packets)"
assert_eq "scx0 rx_packets delta after the test" 0 $((rxp3 - rxp2))
log "ok: the device's loopback is off after the test"

xdp_attach scx0 "" "$BPF/xdp_drop.o"
read -r drop <<< "$(cnt scx0 "" rx_xdp_drop)"
selftest scx0
expect_st FAIL 0 0 1
read -r drop2 <<< "$(cnt scx0 "" rx_xdp_drop)"
assert_eq "scx0 rx_xdp_drop delta" 1 $((drop2 - drop))
klog_has "scx0: self-test: the loopback frame did not come back" || fail "no reason for the loopback failure in the log"
xdp_detach scx0
selftest scx0
expect_st PASS 0 0 0
log "ok: XDP_DROP on scx0 fails the loopback test, and only it"
