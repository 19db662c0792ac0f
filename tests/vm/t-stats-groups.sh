#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 240
#
# ethtool's standard statistics groups come from the device's port (MAC)
# counters and are exact. With static neighbours and IPv6 off there is no
# traffic but ours, so pings of chosen sizes (MTU 9000, -Mdo) land in
# chosen buckets of `ethtool -S scx1 --groups eth-mac eth-ctrl rmon`: an
# echo of -s S is S + 42 bytes, S + 46 octets on the wire (padded to 60
# bytes first, plus the FCS). Each size: scx1 receives K requests and sends
# K replies of that size. Then K broadcast and K multicast pings, which ns1
# ignores (icmp_echo_ignore_broadcasts): group counters by direction. The
# *_phy counters of `ethtool -S` agree with the groups; MAC control, pause
# and the error counters stay 0; `ethtool -a` shows no flow control.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool ping

scx_setup
ip link set scx0 mtu 9000
ip -n "$NS" link set scx1 mtu 9000
wait_carrier scx0
wait_carrier scx1 "$NS"
MAC0=$(dev_mac scx0)
MAC1=$(dev_mac scx1 "$NS")
ip neigh replace "$IP1" lladdr "$MAC1" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$MAC0" dev scx1 nud permanent
ip netns exec "$NS" sysctl -qw net.ipv4.icmp_echo_ignore_broadcasts=1
sleep 2   # let the link settle (no traffic expected at all)

# std_dump DEV [NS]: the standard groups into STD (name as ethtool prints it
# after the group prefix: FramesReceivedOK, etherStatsPkts65to127Octets, ...).
declare -gA STD=()
std_dump() {
	local out k v
	out=$(in_ns "${2:-}" ethtool -S "$1" --groups eth-mac eth-ctrl rmon 2>&1) ||
		fail "ethtool -S $1 --groups ... failed: $out"
	STD=()
	while IFS=: read -r k v; do
		k=${k//[[:space:]]/}; v=${v//[[:space:]]/}
		[[ "$v" =~ ^[0-9]+$ ]] || continue
		k=${k#eth-mac-}; k=${k#eth-ctrl-}; k=${k#rmon-}; k=${k#rx-rmon-}; k=${k#rmon-rx-}
		STD[$k]=$v
	done <<< "$out"
}
std_get() {
	[ -n "${STD[$1]+x}" ] || fail "ethtool -S --groups: no '$1' (have: ${!STD[*]})"
	echo "${STD[$1]}"
}
# The RX histogram, mlx5's buckets: "low high" each; ethtool names the
# first (0..64) etherStatsPkts64Octets.
BUCKETS=("0 64" "65 127" "128 255" "256 511" "512 1023" "1024 1518" "1519 2047" "2048 4095"
	 "4096 8191" "8192 10239")
bucket_name() {
	local lo=${1% *} hi=${1#* }
	if [ "$lo" -eq 0 ]; then echo "etherStatsPkts${hi}Octets"; else echo "etherStatsPkts${lo}to${hi}Octets"; fi
}
MAC_NAMES="FramesTransmittedOK FramesReceivedOK OctetsTransmittedOK OctetsReceivedOK
	MulticastFramesXmittedOK BroadcastFramesXmittedOK MulticastFramesReceivedOK
	BroadcastFramesReceivedOK FrameCheckSequenceErrors AlignmentErrors FrameTooLongErrors
	MACControlFramesTransmitted MACControlFramesReceived UnsupportedOpcodesReceived
	etherStatsUndersizePkts etherStatsOversizePkts etherStatsFragments etherStatsJabbers"
# snap PREFIX DEV [NS]: every group counter into PREFIX_<name> variables.
snap() {
	local p=$1 n b
	std_dump "$2" "${3:-}"
	for n in $MAC_NAMES; do printf -v "${p}_$n" '%s' "$(std_get "$n")"; done
	for b in "${BUCKETS[@]}"; do
		n=$(bucket_name "$b")
		printf -v "${p}_$n" '%s' "$(std_get "$n")"
	done
}
# delta NAME: after - before, for scx1 (A1/B1) or scx0 (A0/B0) given as $2.
delta() { local a="A$2_$1" b="B$2_$1"; echo $(( ${!a} - ${!b} )); }

K=5
SIZES=(10 60 150 300 700 1200 1700 3000 6000 8900)
declare -A WANT_HIST=()
want_frames=0 want_octets=0
snap B1 scx1 "$NS"
snap B0 scx0
for s in "${SIZES[@]}"; do
	ping_ok "" "$IP1" $K -s "$s" -Mdo
	len=$((s + 42)); wire=$(( (len < 60 ? 60 : len) + 4 ))
	for b in "${BUCKETS[@]}"; do
		[ "$wire" -ge "${b% *}" ] && [ "$wire" -le "${b#* }" ] &&
			WANT_HIST[$(bucket_name "$b")]=$(( ${WANT_HIST[$(bucket_name "$b")]:-0} + K ))
	done
	want_frames=$((want_frames + K)); want_octets=$((want_octets + K * wire))
done
assert_eq "every bucket has its pings" ${#BUCKETS[@]} ${#WANT_HIST[@]}
snap A1 scx1 "$NS"
snap A0 scx0

for who in 1 0; do
	d=scx$who
	assert_eq "$d FramesReceivedOK delta" $want_frames "$(delta FramesReceivedOK $who)"
	assert_eq "$d FramesTransmittedOK delta" $want_frames "$(delta FramesTransmittedOK $who)"
	assert_eq "$d OctetsReceivedOK delta" $want_octets "$(delta OctetsReceivedOK $who)"
	assert_eq "$d OctetsTransmittedOK delta" $want_octets "$(delta OctetsTransmittedOK $who)"
	for b in "${BUCKETS[@]}"; do
		n=$(bucket_name "$b")
		assert_eq "$d rmon $n delta" "${WANT_HIST[$n]}" "$(delta "$n" $who)"
	done
	for n in MulticastFramesXmittedOK BroadcastFramesXmittedOK MulticastFramesReceivedOK \
		 BroadcastFramesReceivedOK; do
		assert_eq "$d $n delta (unicast pings)" 0 "$(delta $n $who)"
	done
done

# Group addresses: scx0 sends, ns1 does not answer.
snap B1 scx1 "$NS"
snap B0 scx0
ping -n -q -c $K -i 0.05 -W 1 -b -I scx0 255.255.255.255 >/dev/null 2>&1 || true
ping -n -q -c $K -i 0.05 -W 1 -I scx0 224.0.0.1 >/dev/null 2>&1 || true
sleep 0.5
snap A1 scx1 "$NS"
snap A0 scx0
assert_eq "scx0 BroadcastFramesXmittedOK delta" $K "$(delta BroadcastFramesXmittedOK 0)"
assert_eq "scx0 MulticastFramesXmittedOK delta" $K "$(delta MulticastFramesXmittedOK 0)"
assert_eq "scx1 BroadcastFramesReceivedOK delta" $K "$(delta BroadcastFramesReceivedOK 1)"
assert_eq "scx1 MulticastFramesReceivedOK delta" $K "$(delta MulticastFramesReceivedOK 1)"
assert_eq "scx1 FramesReceivedOK delta (group pings)" $((2 * K)) "$(delta FramesReceivedOK 1)"
assert_eq "scx1 FramesTransmittedOK delta (no answers)" 0 "$(delta FramesTransmittedOK 1)"
assert_eq "scx0 BroadcastFramesReceivedOK delta" 0 "$(delta BroadcastFramesReceivedOK 0)"
assert_eq "scx1 MulticastFramesXmittedOK delta" 0 "$(delta MulticastFramesXmittedOK 1)"

# True zeros, and ethtool -S shows the same device counters.
for who in 0 1; do
	d=scx$who; ns=; [ $who == 1 ] && ns=$NS
	for n in FrameCheckSequenceErrors AlignmentErrors FrameTooLongErrors MACControlFramesTransmitted \
		 MACControlFramesReceived UnsupportedOpcodesReceived etherStatsUndersizePkts \
		 etherStatsOversizePkts etherStatsFragments etherStatsJabbers; do
		v="A${who}_$n"
		assert_eq "$d $n" 0 "${!v}"
	done
	snap A$who $d "$ns"
	eth_dump $d "$ns"
	v="A${who}_FramesReceivedOK"; assert_eq "$d rx_packets_phy = FramesReceivedOK" "${!v}" "$(eth_get rx_packets_phy)"
	v="A${who}_FramesTransmittedOK"; assert_eq "$d tx_packets_phy = FramesTransmittedOK" "${!v}" "$(eth_get tx_packets_phy)"
	v="A${who}_OctetsReceivedOK"; assert_eq "$d rx_bytes_phy = OctetsReceivedOK" "${!v}" "$(eth_get rx_bytes_phy)"
	v="A${who}_etherStatsPkts65to127Octets"
	assert_eq "$d rx_65_to_127_bytes_phy = rmon bucket" "${!v}" "$(eth_get rx_65_to_127_bytes_phy)"

	# pause: no flow control, no PAUSE frames
	out=$(in_ns "$ns" ethtool --include-statistics -a $d 2>&1) || fail "ethtool --include-statistics -a $d: $out"
	for f in tx_pause_frames rx_pause_frames; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' <<< "$out")
		assert_eq "$d $f" 0 "$v"
	done
	for f in Autonegotiate RX TX; do
		v=$(awk -v f="$f:" '$1 == f { print $2 }' <<< "$out")
		assert_eq "$d pause $f" off "$v"
	done
done
