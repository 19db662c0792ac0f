#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# The kernel's MSG_ZEROCOPY test (tools/testing/selftests/net/msg_zerocopy.c,
# built from linux-source-6.1 by scripts/kselftest.sh) from scx0 to scx1 in
# ns1, as its msg_zerocopy.sh runs it on a veth pair (MTU 65535 there, 9000
# here; optmem_max 1000000): TCP and UDP over IPv4 and IPv6, each without
# and with -z. UDP datagrams are of 8000 bytes (-s): the program's default
# (64 KiB) needs IP fragments beyond a 9000 MTU, and the stack copies such
# a datagram whatever the device. With -z the user's pages go to the device as skb frags and
# are the sender's again only when the TX completion frees the skb; the
# program fails on a malformed or out-of-range notification. Here, as on a
# NIC (veth copies instead: zc=n), every send must be notified (txc = tx)
# as sent without a copy (zc=y); without -z the same traffic must pass.
# UDP: every datagram sent is read by the receiver or counted by ns1's
# stack (UDP InErrors: no room in the socket; NoPorts).
# The receiver runs 3 s (msg_zerocopy.sh: 2) around the sender's 1 s: a
# sender still sending when it closes would fail under a slow TCG host.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool

BIN=$SCX_ROOT/build/kselftest/bin
[ -x "$BIN/msg_zerocopy" ] || fail "$BIN/msg_zerocopy not built (scripts/kselftest.sh; make vm-test builds it)"

A0=fd00:14::1 A1=fd00:14::2

scx_setup
ip link set scx0 mtu 9000
ip -n "$NS" link set scx1 mtu 9000
wait_carrier scx0
wait_carrier scx1 "$NS"
pair_ipv6 "$A0" "$A1"
optmem=$(sysctl -n net.core.optmem_max)
sysctl -qw net.core.optmem_max=1000000
restore() { sysctl -qw net.core.optmem_max="$optmem"; }
trap 'restore; _cleanup_bg' EXIT

# udp_lost 4|6: UDP datagrams ns1's stack counted as not delivered (no
# room in the socket, other input errors, no socket on the port)
udp_lost() {
	if [ "$1" == 4 ]; then
		echo $(( $(snmp_get Udp InErrors "$NS") + $(snmp_get Udp NoPorts "$NS") ))
	else
		echo $(( $(snmp6 Udp6InErrors "$NS") + $(snmp6 Udp6NoPorts "$NS") ))
	fi
}
# listening t|u: the receiver's socket on port 8000 is bound in ns1
listening() { [ -n "$(ip netns exec "$NS" ss -Hln$1 'sport = :8000')" ]; }

tx0=$(ethtool_stat scx0 tx_packets)
for ipv in 4 6; do
	src=$IP0 dst=$IP1
	[ $ipv == 6 ] && { src=$A0; dst=$A1; }
	for mode in tcp udp; do
		for z in "" -z; do
			name="ipv$ipv $mode${z:+ $z}"
			size=(); [ $mode == udp ] && size=(-s 8000)
			out=$SCX_TEST_OUT/zc-$ipv-$mode$z
			# the receiver stops -t + 0.6 s after it starts, whatever came: long
			# enough for the sender's start and its 1.2 s under a loaded TCG host
			# (at -t 3 a UDP sender once outlived it: ICMP port unreachable, send:
			# Connection refused)
			bg_start ip netns exec "$NS" timeout 60 "$BIN/msg_zerocopy" -$ipv -i scx1 -t 6 \
				"${size[@]}" -S "$src" -D "$dst" -r $mode > "$out.rx" 2>&1
			pid=$BG_PID
			# its socket first (msg_zerocopy.sh sleeps 0.2 s; TCG may take longer)
			wait_for 10 listening "${mode:0:1}" || fail "$name: the receiver did not open port 8000"
			lost0=$(udp_lost $ipv)
			rc=0
			timeout 60 "$BIN/msg_zerocopy" -$ipv -i scx0 -t 1 "${size[@]}" -S "$src" -D "$dst" $z $mode \
				> "$out.tx" 2>&1 || rc=$?
			rrc=0
			wait "$pid" || rrc=$?
			[ $rc -eq 0 ] || fail "$name: sender exit $rc: $(tail -n 3 "$out.tx" | tr '\n' ' ')"
			[ $rrc -eq 0 ] || fail "$name: receiver exit $rrc: $(tail -n 3 "$out.rx" | tr '\n' ' ')"
			line=$(grep '^tx=' "$out.tx" || true)
			[[ "$line" =~ ^tx=([0-9]+)\ .*txc=([0-9]+)\ zc=([yn]) ]] || fail "$name: no summary ($line)"
			n=("${BASH_REMATCH[@]}")
			log "$name: $line; receiver $(grep '^rx=' "$out.rx" || echo '(no summary)')"
			assert_gt "$name: sends" 0 "${n[1]}"
			if [ $mode == udp ]; then
				# every datagram read by the receiver or counted by the stack
				[[ "$(grep '^rx=' "$out.rx")" =~ ^rx=([0-9]+) ]] || fail "$name: no receiver summary"
				got=${BASH_REMATCH[1]}
				assert_eq "$name: datagrams read + counted as lost at ns1 (UDP InErrors, NoPorts)" \
					"${n[1]}" $((got + $(udp_lost $ipv) - lost0))
			fi
			if [ -n "$z" ]; then
				assert_eq "$name: sends notified" "${n[1]}" "${n[2]}"
				assert_eq "$name: zerocopy (no copy reported)" y "${n[3]}"
				grep -q 'missing notifications\|inconsistent' "$out.tx" &&
					fail "$name: $(grep -m 1 'missing notifications\|inconsistent' "$out.tx")"
			fi
		done
	done
done
assert_gt "scx0 tx_packets" 0 $(( $(ethtool_stat scx0 tx_packets) - tx0 ))
