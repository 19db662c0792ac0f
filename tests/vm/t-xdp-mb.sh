#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 600
#
# Multi-buffer XDP: at MTU 9000 a program that takes multi-buffer frames
# (xdp_mb.o, SEC("xdp.frags")) attaches natively to scx1 and sees each frame
# past a page in several buffers (a cyclic RQ, a page each; the striding RQ
# the port would use is set aside). ARP is made permanent so that only the
# test's frames cross. Each step checks the program's own counts
# (mb_cnt: frames, those in more than one buffer, bytes by
# bpf_xdp_get_buff_len) against the driver's:
# - PASS: ping -s 8000 -M do both ways, and 4 MB over TCP scx0 -> scx1
#   (SHA-256 at the receiver); the echo requests reach the program as
#   8042-byte multi-buffer frames; rx_xdp_drop +0;
# - DROP: 5 jumbo pings lost, rx_xdp_drop +5, rx_packets +0;
# - TX: UDP datagrams of 100 to 8972 bytes reflected (MACs swapped) come back
#   to scx0 byte for byte (tests/vm/xdp_mb_tx.py on an AF_PACKET socket);
#   rx_xdp_tx_xmit +5;
# - adjust_tail -5000: 5 echo requests of 8042 bytes reach the stack as
#   3042 bytes (the kernel frees the pages cut off): rx_bytes +5 x 3042,
#   IpExtInTruncatedPkts +5 in ns1, the pings lost;
# - adjust_tail +16 (the last buffer grows into its page): the pings pass
#   (IP trims the 16 bytes), rx_bytes +5 x 8058 on scx1;
# - redirect to a cpumap: the pings pass through it, rx_xdp_redirect +5;
#   to a devmap 6.1 refuses a multi-buffer frame: rx_xdp_drop +5, traced
#   as xdp_exception;
# - a program without multi-buffer support cannot replace it at MTU 9000
#   (ip prints the extack; xdp_mb.o stays); MTU 9000 -> 1500 -> 9000 with
#   it attached rebuilds the channels each time and jumbo pings pass again.
source "$(dirname "$0")/lib.sh"
need_cmd ping ethtool python3
bpf_build

scx_setup channels=1
ip link set scx0 mtu 9000
ip -n "$NS" link set scx1 mtu 9000
wait_carrier scx0
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 2
ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent

xdp_attach scx1 "$NS" "$BPF/xdp_mb.o" xdp xdp.frags
read -r mode MBID <<< "$(xdp_attached scx1 "$NS")"
assert_eq "xdp.frags program at MTU 9000: mode (1 = native)" 1 "$mode"
wait_carrier scx1 "$NS"
CFG=$(bpf_map_id mb_cfg) CNT=$(bpf_map_id mb_cnt) CPUS=$(bpf_map_id mb_cpus)
DEVS=$(bpf_map_id mb_devs)
setmode() { bpf_map_set_u32 "$CFG" 0 "$1"; bpf_map_set_u32 "$CFG" 1 "${2:-0}"; }
netstat_get() {   # GROUP FIELD [NS]: a /proc/net/netstat value
	in_ns "${3:-}" cat /proc/net/netstat | awk -v p="$1:" -v f="$2" '
		$1 == p && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == p && h { print $c; exit }'
}
# snap: S = program frames, multi-buffer frames, bytes, adjust_tail refused;
# scx1 rx_packets rx_bytes rx_xdp_drop rx_xdp_tx_xmit rx_xdp_redirect; truncated in ns1
S=()
snap() {
	bpf_map_dump "$CNT"
	S=("${BPFV[0]}" "${BPFV[1]}" "${BPFV[2]}" "${BPFV[3]}")
	eth_dump scx1 "$NS"
	S+=("$(eth_get rx_packets)" "$(eth_get rx_bytes)" "$(eth_get rx_xdp_drop)"
	    "$(eth_get rx_xdp_tx_xmit)" "$(eth_get rx_xdp_redirect)"
	    "$(netstat_get IpExt InTruncatedPkts "$NS")")
}
D=()
delta() { local -a b=("${S[@]}"); local i; snap; D=(); for i in "${!S[@]}"; do D[i]=$((S[i] - b[i])); done; }
# ping_lost COUNT: jumbo pings scx0 -> scx1 that must all be lost
ping_lost() {
	local out
	out=$(timeout 30 ping -n -q -c "$1" -i 0.1 -W 1 -s 8000 -M do "$IP1" 2>&1 || true)
	echo "$out" | grep -q ' 0 received' || fail "pings expected lost: $(echo "$out" | grep 'packet loss')"
}
FRAME=8042	# ping -s 8000: 8 + 8000 ICMP, 20 IP, 14 Ethernet

log "PASS"
setmode 0
snap
ping_ok "" "$IP1" 5 -s 8000 -Mdo
delta
assert_eq "PASS: frames the program saw" 5 "${D[0]}"
assert_eq "PASS: of them in more than one buffer" 5 "${D[1]}"
assert_eq "PASS: bytes the program saw (bpf_xdp_get_buff_len)" $((5 * FRAME)) "${D[2]}"
assert_eq "PASS: scx1 rx_packets" 5 "${D[4]}"
assert_eq "PASS: scx1 rx_bytes" $((5 * FRAME)) "${D[5]}"
ping_ok "$NS" "$IP0" 5 -s 8972 -Mdo
ping_ok "" "$IP1" 5 -s 100
tcp_verified mb-pass 4000000 "::ffff:$IP1"
delta
assert_eq "PASS: scx1 rx_xdp_drop" 0 "${D[6]}"
assert_gt "PASS: TCP segments in more than one buffer" 0 "${D[1]}"

log "DROP"
setmode 1
snap
ping_lost 5
delta
assert_eq "DROP: scx1 rx_xdp_drop" 5 "${D[6]}"
assert_eq "DROP: scx1 rx_packets" 0 "${D[4]}"
assert_eq "DROP: multi-buffer frames the program saw" 5 "${D[1]}"

log "TX"
setmode 2
snap
out=$(python3 "$SCX_ROOT/tests/vm/xdp_mb_tx.py" scx0 "$IP0" "$IP1" 100 3000 3600 8000 8972) ||
	fail "XDP_TX of multi-buffer frames: $out"
log "ok: XDP_TX: $out"
delta
assert_eq "TX: scx1 rx_xdp_tx_xmit" 5 "${D[7]}"
assert_eq "TX: multi-buffer frames the program saw" 3 "${D[1]}"
assert_eq "TX: scx1 rx_xdp_drop" 0 "${D[6]}"

log "adjust_tail -5000"
setmode 3 5000
snap
ping_lost 5
delta
assert_eq "shrink: adjust_tail refused" 0 "${D[3]}"
assert_eq "shrink: scx1 rx_packets" 5 "${D[4]}"
assert_eq "shrink: scx1 rx_bytes (the cut frames)" $((5 * (FRAME - 5000))) "${D[5]}"
assert_eq "shrink: IpExtInTruncatedPkts in $NS" 5 "${D[9]}"

log "adjust_tail +16"
setmode 4 16
snap
ping_ok "" "$IP1" 5 -s 8000 -Mdo
delta
assert_eq "grow: adjust_tail refused" 0 "${D[3]}"
assert_eq "grow: scx1 rx_bytes" $((5 * (FRAME + 16))) "${D[5]}"

log "redirect to a cpumap, then to a devmap"
bpf_map_set_u32 "$CPUS" 0 192
setmode 5
snap
ping_ok "" "$IP1" 5 -s 8000 -Mdo
delta
assert_eq "cpumap: scx1 rx_xdp_redirect" 5 "${D[8]}"
assert_eq "cpumap: scx1 rx_xdp_drop" 0 "${D[6]}"
bpf_map_set_u32 "$DEVS" 0 "$(ifindex scx1 "$NS")" "$NS"
setmode 6
xdp_exc_start
snap
ping_lost 5
delta
exc=$(xdp_exc_count)
xdp_exc_stop
assert_eq "devmap: scx1 rx_xdp_drop (6.1 refuses multi-buffer frames there)" 5 "${D[6]}"
assert_eq "devmap: scx1 rx_xdp_redirect" 0 "${D[8]}"
assert_eq "devmap: xdp_exception events" 5 "$exc"

log "MTU and program changes"
setmode 0
out=$(ip -n "$NS" -force link set dev scx1 xdp obj "$BPF/xdp_pass.o" sec xdp 2>&1) && fail "a single-buffer program replaced xdp_mb at MTU 9000"
[[ "$out" == *"MTU too large for XDP"* ]] || fail "no extack from the refused replacement: $out"
read -r _ id <<< "$(xdp_attached scx1 "$NS")"
assert_eq "xdp_mb still attached (program id)" "$MBID" "$id"
ip -n "$NS" link set scx1 mtu 1500
ip link set scx0 mtu 1500
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3 -s 1472 -Mdo
ip link set scx0 mtu 9000
ip -n "$NS" link set scx1 mtu 9000
wait_carrier scx1 "$NS"
snap
ping_ok "" "$IP1" 3 -s 8000 -Mdo
delta
assert_eq "back at MTU 9000: multi-buffer frames" 3 "${D[1]}"
xdp_detach scx1 "$NS"
ping_ok "" "$IP1" 3 -s 8972 -Mdo
