#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The striding RQ (private flag rx_striding_rq), whatever SCX_RX_STRIDING
# says for the rest of the suite:
# - cx7: on by default; pings of every size cross (2 KiB linear strides);
#   at MTU 9000 (256-byte non-linear strides) jumbo pings cross and the
#   WQE ends give filler CQEs;
# - a frame longer than scx1's linear stride (scx0 at 9000, scx1 at 1500)
#   is dropped and counted (rx_oversize_pkts_sw_drop);
# - off and on again while up (the safe channel switch) with pings running:
#   the flag follows, traffic flows, no error CQE;
# - model=cx4: off, and turning it on is refused with a kernel log line.
# run-all checks the kernel log (page_pool leaks, WARNs) after rmmod.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping
unset SCX_RX_STRIDING	# the driver's defaults here

pflag() { ethtool --show-priv-flags "$1" | sed -n 's/^rx_striding_rq *: *//p'; }
pflag1() { ip netns exec "$NS" ethtool --show-priv-flags scx1 | sed -n 's/^rx_striding_rq *: *//p'; }
set_mtu() {
	ip link set scx0 mtu "$1"
	ip -n "$NS" link set scx1 mtu "$2"
	wait_carrier scx0
	wait_carrier scx1 "$NS"
}

# ---- cx7: default on, linear and non-linear strides
scx_setup channels=2
assert_eq "rx_striding_rq default on cx7 (scx0)" on "$(pflag scx0)"
assert_eq "rx_striding_rq default on cx7 (scx1)" on "$(pflag1)"
r0=$(ethtool_stat scx1 rx_packets "$NS")
for s in 0 56 200 1000 1472; do
	ping_ok "" "$IP1" 3 -s "$s" -Mdo
done
assert_ge "scx1 rx_packets after the pings" 15 $(( $(ethtool_stat scx1 rx_packets "$NS") - r0 ))

set_mtu 9000 9000
f0=$(ethtool_stat scx1 rx_mpwqe_filler_cqes "$NS")
ping_ok "" "$IP1" 12 -s 8972 -Mdo
ping_ok "$NS" "$IP0" 3 -s 5000 -Mdo
assert_gt "scx1 rx_mpwqe_filler_cqes after 12 jumbo frames (7 fill a WQE)" 0 \
	$(( $(ethtool_stat scx1 rx_mpwqe_filler_cqes "$NS") - f0 ))
assert_gt "scx1 rx_mpwqe_filler_strides" 0 "$(ethtool_stat scx1 rx_mpwqe_filler_strides "$NS")"

# ---- oversize for a linear stride: the driver drops it
set_mtu 9000 1500
o0=$(ethtool_stat scx1 rx_oversize_pkts_sw_drop "$NS")
ping -c 3 -i 0.2 -W 1 -s 3000 -Mdo "$IP1" >/dev/null 2>&1 || true
assert_ge "scx1 rx_oversize_pkts_sw_drop after 3 frames of 3028 bytes" 3 \
	$(( $(ethtool_stat scx1 rx_oversize_pkts_sw_drop "$NS") - o0 ))
set_mtu 1500 1500
ping_ok "" "$IP1" 3

# ---- off and on while up, traffic running
bg_start ping -q -i 0.05 -c 120 -W 1 "$IP1"
pinger=$BG_PID
sleep 1
ethtool --set-priv-flags scx0 rx_striding_rq off
ip netns exec "$NS" ethtool --set-priv-flags scx1 rx_striding_rq off
assert_eq "rx_striding_rq after off (scx0)" off "$(pflag scx0)"
assert_eq "rx_striding_rq after off (scx1)" off "$(pflag1)"
sleep 2
ethtool --set-priv-flags scx0 rx_striding_rq on
ip netns exec "$NS" ethtool --set-priv-flags scx1 rx_striding_rq on
assert_eq "rx_striding_rq back on (scx0)" on "$(pflag scx0)"
wait "$pinger" || true
wait_carrier scx0
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 1400
ping_ok "$NS" "$IP0" 3 -s 100
assert_eq "scx0 rx_wqe_err" 0 "$(ethtool_stat scx0 rx_wqe_err)"
assert_eq "scx1 rx_wqe_err" 0 "$(ethtool_stat scx1 rx_wqe_err "$NS")"

# ---- cx4: never
scx_unload
scx_setup channels=1 model=cx4
assert_eq "rx_striding_rq on cx4" off "$(pflag scx0)"
pflag_refused scx0 rx_striding_rq
ping_ok "" "$IP1" 3 -s 1000
