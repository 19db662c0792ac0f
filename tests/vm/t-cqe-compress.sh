#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 420
#
# RX CQE compression (private flag rx_cqe_compress), whatever
# SCX_RX_CQE_COMPRESS says for the rest of the suite:
# - off by default (as mlx5); on while up (the safe channel switch);
# - pktgen bursts of 32 one-flow frames to scx1, paced: every frame
#   received (rx_packets = frames sent), most of them as mini CQEs
#   (rx_cqe_compress_pkts), and the CQE bytes the device writes per packet
#   (bus_wr_cqe_bytes) at least 4x fewer than with the flag off;
# - TCP (a file's SHA-256 at the receiver) and UDP (every datagram's
#   pattern checked) cross intact, no checksum errors;
# - on each RQ type: striding (cx7 default) and cyclic, and on cx5 (basic
#   layout, the stride derived from the mini CQE's byte count).
# run-all checks the kernel log (page_pool leaks, WARNs) after rmmod.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping python3
unset SCX_RX_CQE_COMPRESS SCX_RX_STRIDING SCX_RX_HW_GRO	# this test sets them itself

N=6400
DST=10.11.0.250	# on ns1's subnet, not owned by it: its stack drops the frames silently

pflag() { in_ns "${2:-}" ethtool --show-priv-flags "$1" | sed -n "s/^${3:-rx_cqe_compress} *: *//p"; }
set_flag() {	# FLAG on|off: on both ports, while up
	ethtool --set-priv-flags scx0 "$1" "$2"
	ip netns exec "$NS" ethtool --set-priv-flags scx1 "$1" "$2"
	assert_eq "$1 $2 (scx1)" "$2" "$(pflag scx1 "$NS" "$1")"
	wait_carrier scx0
	wait_carrier scx1 "$NS"
}

# burst LABEL: N 60-byte frames in bursts of 32; sets D_RX D_PKTS D_BLKS D_CQEB (scx1 deltas)
burst() {
	local mac r0 p0 b0 c0 sent
	mac=$(dev_mac scx1 "$NS")
	r0=$(ethtool_stat scx1 rx_packets "$NS"); p0=$(ethtool_stat scx1 rx_cqe_compress_pkts "$NS")
	b0=$(ethtool_stat scx1 rx_cqe_compress_blks "$NS"); c0=$(ethtool_stat scx1 bus_wr_cqe_bytes "$NS")
	# 200 us between bursts, and scx1's RX ring (big_ring) holds the whole
	# run: every frame is received even when a loaded TCG host starves
	# scx1's NAPI for the whole run (a full ring would show as counted
	# rx_out_of_buffer, which assert_conserved accepts but this test does not)
	pktgen_setup scx0 "$N" "$DST" "$mac" 200000 60
	pg_cmd scx0 burst 32
	sent=$(pktgen_sent "$1" "$N" 32 "$(pktgen_run scx0 180)")
	sleep 0.5
	assert_conserved "$1" scx0 "" scx1 "$NS"
	D_RX=$(( $(ethtool_stat scx1 rx_packets "$NS") - r0 ))
	D_PKTS=$(( $(ethtool_stat scx1 rx_cqe_compress_pkts "$NS") - p0 ))
	D_BLKS=$(( $(ethtool_stat scx1 rx_cqe_compress_blks "$NS") - b0 ))
	D_CQEB=$(( $(ethtool_stat scx1 bus_wr_cqe_bytes "$NS") - c0 ))
	log "$1: pktgen sent $sent; scx1 rx_packets +$D_RX, rx_cqe_compress_pkts +$D_PKTS, _blks +$D_BLKS, bus_wr_cqe_bytes +$D_CQEB ($(( D_CQEB * 100 / (D_RX ? D_RX : 1) )) / 100 per packet)"
	# every frame sent; the stack's own ARP/neighbour frames may add one or two
	assert_ge "$1: scx1 rx_packets delta (every frame sent)" "$sent" "$D_RX"
	assert_ge "$1: scx1 rx_packets delta (at most 4 of the stack's own)" "$D_RX" $((sent + 4))
	assert_eq "$1: scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"
	assert_eq "$1: scx1 rx_out_of_buffer" 0 "$(ethtool_stat scx1 rx_out_of_buffer "$NS")"
	echo stop > /proc/net/pktgen/pgctrl 2>/dev/null || true
	pg_cmd kpktgend_0 rem_device_all
}


# big_ring: scx1's RX ring at the maximum (8192 > N frames), set while up
big_ring() {
	assert_ok "scx1 rx ring 8192" ip netns exec "$NS" ethtool -G scx1 rx 8192
	assert_eq "scx1 rx ring" 8192 "$(ip netns exec "$NS" ethtool -g scx1 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')"
	wait_carrier scx1 "$NS"
}

# xfer LABEL: TCP and UDP scx0 -> scx1, every byte checked, no checksum errors
xfer() {
	local c1
	c1=$(csum_errors "$NS")
	tcp_verified "$1"
	udp_verified "$1" 300 290
	assert_eq "$1: ns1 checksum errors" 0 $(( $(csum_errors "$NS") - c1 ))
}

# ---- cx7, striding RQ (enhanced layout, stride index in the mini CQEs)
scx_setup channels=1
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
big_ring
assert_eq "rx_cqe_compress default off" off "$(pflag scx0)"
burst "cx7 striding, compression off"
off_cqeb=$D_CQEB off_rx=$D_RX
assert_eq "no mini CQEs with the flag off" 0 "$D_PKTS"
set_flag rx_cqe_compress on
burst "cx7 striding, compression on"
assert_gt "rx_cqe_compress_pkts delta (x2 > rx_packets delta)" "$D_RX" $(( 2 * D_PKTS ))
assert_gt "rx_cqe_compress_blks delta" 0 "$D_BLKS"
# CQE bytes per packet, off / on (the bench's figure; goal >= 4x)
assert_ge "CQE bytes per packet off/on (x100, >= 4x)" 400 $(( off_cqeb * 100 * D_RX / (off_rx * (D_CQEB ? D_CQEB : 1)) ))
xfer cx7-striding

# ---- cx7, cyclic RQ (enhanced layout, checksum format)
set_flag rx_cqe_compress off
set_flag rx_striding_rq off
burst "cx7 cyclic, compression off"
off_cqeb=$D_CQEB off_rx=$D_RX
set_flag rx_cqe_compress on
assert_eq "rx_striding_rq stays off" off "$(pflag scx1 "$NS" rx_striding_rq)"
burst "cx7 cyclic, compression on"
assert_gt "cyclic: rx_cqe_compress_pkts delta (x2 > rx_packets delta)" "$D_RX" $(( 2 * D_PKTS ))
assert_ge "cyclic: CQE bytes per packet off/on (x100, >= 4x)" 400 $(( off_cqeb * 100 * D_RX / (off_rx * (D_CQEB ? D_CQEB : 1)) ))
xfer cx7-cyclic
set_flag rx_cqe_compress off
ping_ok "" "$IP1" 3 -s 1000

# ---- cx5, striding RQ (basic layout, strides derived), flag set before up
scx_unload
scx_load model=cx5 channels=1
for d in scx0 scx1; do ethtool --set-priv-flags $d rx_cqe_compress on; done
pair_setup scx0 scx1
ip netns exec "$NS" sysctl -qw net.ipv4.ip_forward=0
big_ring
assert_eq "rx_striding_rq on cx5" on "$(pflag scx1 "$NS" rx_striding_rq)"
burst "cx5 striding basic, compression on"
assert_gt "cx5: rx_cqe_compress_pkts delta (x2 > rx_packets delta)" "$D_RX" $(( 2 * D_PKTS ))
xfer cx5-striding
