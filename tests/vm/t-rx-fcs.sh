#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 480
#
# ethtool -K rx-fcs / rx-all, as mlx5 offers them (both off by default):
# - rx-fcs on a live port (no channel rebuild: the RQs are modified, the
#   CQ numbers in debugfs stay): AF_PACKET on scx1 sees each frame followed
#   by its FCS, which the test checks with its own CRC-32 (python zlib);
#   off again, the frames end where the IP length says. TCP (SHA-256) and
#   ping keep working with it on.
# - a damaged cable (debugfs scx0/inject_fcs_error N: the next N frames
#   scx0 sends carry a wrong FCS): with rx-all off scx1 drops them,
#   counted in rx_crc_errors_phy, ip -s link's crc errors and the eth-mac
#   group's FrameCheckSequenceErrors, the rest arrive intact; with rx-all
#   on they arrive too (with rx-fcs, their FCS as it came: wrong), still
#   counted. Frames sent = frames received + crc errors.
# - rx-fcs and rx-gro-hw (cx7): the kernel drops rx-gro-hw while rx-fcs is
#   on and gives it back after; frames carry the FCS meanwhile, and
#   HW-GRO works again afterwards.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping python3

scx_setup channels=2
debugfs_hook scx0/inject_fcs_error
FCS_INJ=$INJ
# static neighbours: an ARP frame of scx0 must not take an FCS error injected
# for the test's frames (a run on a loaded host saw 10 of 10 arrive, 2 damaged)
ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
debugfs_hook scx0/cqs
cqs() { cat /sys/kernel/debug/softcx/scx0/cqs /sys/kernel/debug/softcx/scx1/cqs; }

for f in rx-fcs rx-all; do
	feat_is scx0 "" "$f" off
	feat_is scx1 "$NS" "$f" off
done

READER=$SCX_TEST_OUT/reader.py
cat > "$READER" <<'EOF'
import socket, struct, sys, time, zlib
want = int(sys.argv[1])
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x0800))
s.bind(("scx1", 0))
s.settimeout(0.5)
print("ready", flush=True)
n = good = bad = plain = 0
end = time.time() + 30
last = 0
while time.time() < end and n < want and not (n and time.time() - last > 3):
    try:
        d = s.recv(4096)
    except socket.timeout:
        continue
    if len(d) < 42 or d[23] != 17 or struct.unpack("!H", d[36:38])[0] != 5310:
        continue
    n += 1
    last = time.time()
    l2 = 14 + struct.unpack("!H", d[16:18])[0]
    if len(d) == l2:
        plain += 1
    elif len(d) == l2 + 4 and d[-4:] == struct.pack("<I", zlib.crc32(d[:-4])):
        good += 1
    elif len(d) == l2 + 4:
        bad += 1
print(n, good, bad, plain, flush=True)
EOF
# frames LABEL N: N 300-byte UDP datagrams scx0 -> scx1 (port 5310) while
# AF_PACKET on scx1 looks at each frame's tail (READER). Sets SEEN GOOD BAD
# PLAIN: frames seen, followed by their right FCS, by a wrong one, by nothing.
frames() {
	local out=$SCX_TEST_OUT/frames-$1.txt
	bg_start in_ns "$NS" timeout 40 python3 "$READER" "$2" > "$out"
	wait_for 10 grep -q ready "$out" || fail "$1: AF_PACKET reader did not start"
	python3 - "$IP1" "$2" <<'EOF'
import socket, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(int(sys.argv[2])):
    s.sendto(bytes([i & 0xff]) * 300, (sys.argv[1], 5310))
    time.sleep(0.01)
EOF
	wait "$BG_PID" || fail "$1: AF_PACKET reader failed"
	read -r SEEN GOOD BAD PLAIN < <(tail -n 1 "$out")
	log "$1: $SEEN frames seen: $GOOD with their FCS, $BAD with a wrong one, $PLAIN without"
}

crc_stats() {	# sets C_ETH C_LINK C_MAC (scx1: ethtool -S, ip -s link, eth-mac group)
	C_ETH=$(ethtool_stat scx1 rx_crc_errors_phy "$NS")
	C_LINK=$(ip netns exec "$NS" cat /sys/class/net/scx1/statistics/rx_crc_errors)
	C_MAC=$(ip netns exec "$NS" ethtool -S scx1 --groups eth-mac |
		sed -n 's/.*FrameCheckSequenceErrors: *//p')
}

# ---- rx-fcs off (default): frames end at the IP length
frames off 20
assert_eq "rx-fcs off: frames without a tail" 20 "$PLAIN"

# ---- rx-fcs on, live
cq0=$(cqs)
ip netns exec "$NS" ethtool -K scx1 rx-fcs on
feat_is scx1 "$NS" rx-fcs on
assert_eq "CQ numbers after rx-fcs on (no rebuild)" "$cq0" "$(cqs)"
frames on 20
assert_eq "rx-fcs on: frames followed by their FCS" 20 "$GOOD"
ping_ok "" "$IP1" 5
tcp_verified rx-fcs-on 2000000

# ---- a damaged cable, rx-all off: dropped and counted
crc_stats; c0=("$C_ETH" "$C_LINK" "$C_MAC")
tx0=$(ethtool_stat scx0 tx_packets); rx0=$(ethtool_stat scx1 rx_packets "$NS")
echo 5 > "$FCS_INJ"
frames damaged 20
assert_eq "rx-all off: frames that arrived (5 damaged dropped)" 15 "$SEEN"
assert_eq "rx-all off: all with their right FCS" 15 "$GOOD"
crc_stats
assert_eq "rx_crc_errors_phy delta" 5 $((C_ETH - c0[0]))
assert_eq "ip -s link rx_crc_errors delta" 5 $((C_LINK - c0[1]))
assert_eq "eth-mac FrameCheckSequenceErrors delta" 5 $((C_MAC - c0[2]))
sleep 0.5
assert_eq "scx0 tx_packets delta = scx1 rx_packets delta + crc errors" \
	$(( $(ethtool_stat scx0 tx_packets) - tx0 )) \
	$(( $(ethtool_stat scx1 rx_packets "$NS") - rx0 + 5 ))

# ---- rx-all on: damaged frames received, their wrong FCS with them
ip netns exec "$NS" ethtool -K scx1 rx-all on
feat_is scx1 "$NS" rx-all on
echo 5 > "$FCS_INJ"
frames rx-all 20
assert_eq "rx-all on: every frame arrived" 20 "$SEEN"
assert_eq "rx-all on: frames with a wrong FCS" 5 "$BAD"
assert_eq "rx-all on: frames with their right FCS" 15 "$GOOD"
crc_stats
assert_eq "rx-all on: rx_crc_errors_phy delta (still counted)" 10 $((C_ETH - c0[0]))

# ---- both off: as before
ip netns exec "$NS" ethtool -K scx1 rx-all off rx-fcs off
feat_is scx1 "$NS" rx-fcs off
feat_is scx1 "$NS" rx-all off
echo 2 > "$FCS_INJ"
frames off-again 10
assert_eq "both off: frames without a tail (2 damaged dropped)" 8 "$PLAIN"
assert_eq "both off: frames seen" 8 "$SEEN"

# ---- rx-fcs and rx-gro-hw (cx7; SHAMPO needs the striding RQ without CQE
# compression, which SCX_RX_STRIDING / SCX_RX_CQE_COMPRESS may have changed)
ip netns exec "$NS" ethtool --set-priv-flags scx1 rx_striding_rq on rx_cqe_compress off
ip netns exec "$NS" ethtool -K scx1 rx-gro-hw on
feat_is scx1 "$NS" rx-gro-hw on
ip netns exec "$NS" ethtool -K scx1 rx-fcs on
feat_is scx1 "$NS" rx-fcs on
feat_is scx1 "$NS" rx-gro-hw off
frames gro-dropped 10
assert_eq "rx-fcs on (rx-gro-hw dropped): frames with their FCS" 10 "$GOOD"
ip netns exec "$NS" ethtool -K scx1 rx-fcs off
feat_is scx1 "$NS" rx-gro-hw on
g0=$(ethtool_stat scx1 rx_gro_packets "$NS")
tcp_verified gro-back 2000000
assert_gt "rx-gro-hw back: rx_gro_packets delta" 0 $(( $(ethtool_stat scx1 rx_gro_packets "$NS") - g0 ))

sleep 0.5
assert_eq "scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"
assert_eq "scx0 tx_cqe_err" 0 "$(ethtool_stat scx0 tx_cqe_err)"
assert_pair_counters_agree
