#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# XDP and the MTU: a native program needs the frame in one page with
# XDP_PACKET_HEADROOM (256) and skb_shared_info (320) room: MTU <= 3498 on
# 4 KiB pages (4096 - 256 - 320 - 22).
# - MTU 9000: `ip link set dev scx1 xdp obj xdp_drop.o` fails, ip prints the
#   driver's extack ("MTU too large for XDP"), nothing is attached; a
#   multi-buffer aware program (xdp_frags.o, SEC("xdp.frags")) attaches
#   natively (frames in several buffers: t-xdp-mb) and jumbo pings pass it;
#   generic mode is the kernel's business and attaches;
# - MTU 3499 refused likewise; MTU 3498 accepted: xdp_pass.o attached, and
#   ping -s 3470 -M do (3512-byte frames, the largest) passes through it;
# - with the program attached, MTU 3499 and 9000 are refused with the message
#   (ip's extack or the kernel log) and the MTU stays; 1500 is accepted;
# - after detaching, MTU 9000 is accepted again and ping fills it.
source "$(dirname "$0")/lib.sh"
need_cmd ping
bpf_build

MSG="MTU too large for XDP"
scx_setup channels=2
set_mtu() {   # MTU: both ports
	ip link set scx0 mtu "$1"
	ip -n "$NS" link set scx1 mtu "$1"
	wait_carrier scx0
	wait_carrier scx1 "$NS"
}
# refused_attach MTU [OBJ SEC]: native attach must fail with MSG.
refused_attach() {
	local out rc=0 obj=${2:-xdp_drop} sec=${3:-xdp}
	out=$(ip -n "$NS" link set dev scx1 xdp obj "$BPF/$obj.o" sec "$sec" 2>&1) || rc=$?
	assert_ne "attach $obj at MTU $1: exit status" 0 "$rc"
	[[ "$out" == *"$MSG"* ]] || fail "attach $obj at MTU $1: ip did not print '$MSG': $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	log "ok: attach $obj at MTU $1 refused: $(echo "$out" | grep -m1 "$MSG")"
	assert_eq "XDP after the refused attach at MTU $1" "" "$(xdp_attached scx1 "$NS")"
}
# refused_mtu MTU: MTU change with a program attached must fail with MSG.
refused_mtu() {
	local out rc=0 km
	out=$(ip -n "$NS" link set dev scx1 mtu "$1" 2>&1) || rc=$?
	assert_ne "MTU $1 with XDP attached: exit status" 0 "$rc"
	km=$(dmesg | tail -n 20 | grep -F "$MSG" | tail -n 1 || true)
	[[ "$out" == *"$MSG"* || -n "$km" ]] ||
		fail "MTU $1 with XDP attached: '$MSG' neither from ip ('$out') nor in the kernel log"
	log "ok: MTU $1 refused: ${out:-$km}"
	assert_eq "scx1 MTU after the refused change to $1" 3498 "$(dev_mtu scx1 "$NS")"
}

set_mtu 9000
refused_attach 9000
# A multi-buffer aware program takes the frame in several buffers.
xdp_attach scx1 "$NS" "$BPF/xdp_frags.o" xdp xdp.frags
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "xdp.frags attach at MTU 9000: mode (1 = native)" 1 "$mode"
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 8972 -Mdo
xdp_detach scx1 "$NS"
wait_carrier scx1 "$NS"
xdp_attach scx1 "$NS" "$BPF/xdp_drop.o" xdpgeneric
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "generic attach at MTU 9000: mode (2 = skb)" 2 "$mode"
ip -n "$NS" link set dev scx1 xdpgeneric off

set_mtu 3499
refused_attach 3499
set_mtu 3498
xdp_attach scx1 "$NS" "$BPF/xdp_pass.o"
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "attach at MTU 3498: mode (1 = native)" 1 "$mode"
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 5 -s 3470 -Mdo
ping_ok "$NS" "$IP0" 5 -s 3470 -Mdo
assert_eq "scx1 rx_xdp_drop" 0 "$(ethtool_stat scx1 rx_xdp_drop "$NS")"

refused_mtu 3499
refused_mtu 9000
assert_ok "MTU 1500 with XDP attached" ip -n "$NS" link set dev scx1 mtu 1500
ip link set scx0 mtu 1500
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 1472 -Mdo
read -r mode _ <<< "$(xdp_attached scx1 "$NS")"
assert_eq "program still attached after the MTU changes" 1 "$mode"

xdp_detach scx1 "$NS"
set_mtu 9000
ping_ok "" "$IP1" 3 -s 8972 -Mdo
