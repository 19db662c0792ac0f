#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 300
#
# ethtool -x/-X and -n/-N (RSS), as an mlx5 user sets them, channels=4:
# - the default key is the kernel's netdev_rss_key (the same on both ports),
#   hash function toeplitz, the table spread over the 4 channels;
# - UDP flows with chosen 4-tuples land on the queues that the Toeplitz hash
#   with the key and table `ethtool -x` shows predicts (computed by
#   rss_flows.py, bit by bit), after each change: a new key (hkey), a
#   table (equal 2, weight), udp4 hashed on the addresses only (-N sd:
#   every flow on one queue of 4);
# - the changes are made under iperf3 TCP, which runs through them (each
#   read back there), then again with the flows checked;
# - with a user table, -L below the channels it names is refused; after
#   -X default, -L 2 spreads the table over 2 channels and -L 4 back;
# - refused: hfunc xor, a table naming a missing queue, rx-flow-hash with a
#   VLAN field or for sctp4; nothing changes.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
need_cmd iperf3
PY=$(dirname "$0")/rss_flows.py
scx_setup channels=4
OUT=$SCX_TEST_OUT

x_of() { in_ns "$2" ethtool -x "$1" > "$OUT/x.$1" || fail "ethtool -x $1"; }
FLOWS=("$IP0:40001->$IP1:5001" "$IP0:40002->$IP1:5001" "$IP0:40003->$IP1:5002"
	"$IP0:40104->$IP1:7000" "$IP0:41005->$IP1:9" "$IP0:50000->$IP1:53"
	"$IP0:50001->$IP1:53" "$IP0:33333->$IP1:4444")
# check LABEL: send 8 datagrams of each flow; each queue of scx1 must get
# exactly 8 per flow predicted on it from scx1's ethtool -x and -n udp4
check() {
	local label=$1 pred q before=() want=(0 0 0 0) got=()
	x_of scx1 "$NS"
	in_ns "$NS" ethtool -n scx1 rx-flow-hash udp4 > "$OUT/n.scx1" || fail "ethtool -n scx1"
	read -r -a pred <<< "$(python3 "$PY" predict "$OUT/x.scx1" "$OUT/n.scx1" "${FLOWS[@]}")"
	[ ${#pred[@]} -eq ${#FLOWS[@]} ] || fail "$label: no prediction"
	for q in "${pred[@]}"; do want[$q]=$((want[q] + 8)); done
	eth_dump scx1 "$NS"
	for q in 0 1 2 3; do before+=("$(eth_get rx${q}_packets)"); done
	python3 "$PY" send 8 "${FLOWS[@]}"
	sleep 0.3
	eth_dump scx1 "$NS"
	for q in 0 1 2 3; do got+=("$(($(eth_get rx${q}_packets) - before[q]))"); done
	log "$label: flows predicted on rx ${pred[*]}"
	assert_eq "$label: datagrams per queue (rx0..rx3)" "${want[*]}" "${got[*]}"
	CHECKS=$((CHECKS + 1))
}
CHECKS=0
# refused LABEL CMD...: ethtool refuses (it may print the error yet exit 0)
refused() {
	local what=$1 out rc=0; shift
	out=$("$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || [[ "$out" == *Cannot* ]] || fail "$what: '$*' was accepted: $out"
	log "ok: $what (status $rc: $(echo "$out" | tail -n 1))"
}
table_is() {	# LABEL N: scx1's table is i % N
	local t
	x_of scx1 "$NS"
	t=$(awk '/^ +[0-9]+:/ { for (i = 2; i <= NF; i++) printf "%s ", $i }' "$OUT/x.scx1")
	assert_eq "$1: table spread over $2" \
		"$(for ((i = 0; i < 256; i++)); do printf '%s ' $((i % $2)); done)" "$t"
}

# defaults
# static neighbours: no ARP frame (hash 0, table[0]) among the counted ones
ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
ping_ok "" "$IP1" 3
x_of scx0 ""
x_of scx1 "$NS"
key0=$(grep -A1 'RSS hash key' "$OUT/x.scx0" | tail -n1)
key1=$(grep -A1 'RSS hash key' "$OUT/x.scx1" | tail -n1)
log "scx1 key $key1"
assert_eq "the same kernel key on both ports" "$key0" "$key1"
assert_ne "not the core's fixed key" "6d:5a:56:da:25:5b:0e:c2:41:67:25:3d:43:a3:8f:b0:d0:ca:2b:cb:ae:7b:30:b4:77:cb:2d:a3:80:30:f2:0c:6a:42:b7:3b:be:ac:01:fa" "$key1"
assert_eq "hash function" toeplitz "$(python3 "$PY" hfunc "$OUT/x.scx1")"
table_is "default" 4
check "default"

# changes under iperf3 TCP (set and read back; the flows are checked once
# it is over: its own segments would land on the queues counted)
KEY2=$(python3 -c 'print(":".join("%02x" % ((i * 53 + 17) & 0xff) for i in range(40)))')
iperf_server "$NS" 5201
bg_start iperf3 -c "$IP1" -p 5201 -t 20 -J --logfile "$OUT/iperf.json"
IPERF=$BG_PID
sleep 2
for round in 1 2; do
	assert_ok "scx1 -X default" in_ns "$NS" ethtool -X scx1 default
	assert_ok "scx1 hkey" in_ns "$NS" ethtool -X scx1 hkey "$KEY2"
	assert_eq "key read back" "$KEY2" \
		"$(in_ns "$NS" ethtool -x scx1 | grep -A1 'RSS hash key' | tail -n1)"
	[ $round = 1 ] || check "new key"
	assert_ok "scx1 equal 2" in_ns "$NS" ethtool -X scx1 equal 2
	table_is "equal 2" 2
	[ $round = 1 ] || check "equal 2"
	assert_ok "scx1 weight 0 1 0 3" in_ns "$NS" ethtool -X scx1 weight 0 1 0 3
	assert_eq "weight 0 1 0 3: table read back" "0 64 0 192" "$(x_of scx1 "$NS"; awk '
		/^ +[0-9]+:/ { for (i = 2; i <= NF; i++) n[$i]++ }
		END { printf "%d %d %d %d", n[0], n[1], n[2], n[3] }' "$OUT/x.scx1")"
	[ $round = 1 ] || check "weight 0 1 0 3"
	assert_ok "scx1 equal 4" in_ns "$NS" ethtool -X scx1 equal 4
	assert_ok "scx1 rx-flow-hash udp4 sd" in_ns "$NS" ethtool -N scx1 rx-flow-hash udp4 sd
	assert_eq "udp4 fields read back" "IP SA,IP DA" \
		"$(in_ns "$NS" ethtool -n scx1 rx-flow-hash udp4 | grep '^IP\|^L4' | paste -sd,)"
	[ $round = 1 ] || check "udp4 sd"
	assert_eq "tcp4 fields unchanged" 4 \
		"$(in_ns "$NS" ethtool -n scx1 rx-flow-hash tcp4 | grep -c '^IP\|^L4')"
	if [ $round = 1 ]; then
		wait "$IPERF" || fail "iperf3 through the RSS changes failed: $(tail -n 5 "$OUT/iperf.json")"
		read -r bytes <<< "$(json_get "$OUT/iperf.json" "j['end']['sum_received']['bytes']")"
		log "iperf3 through the changes: $bytes bytes received"
		assert_gt "iperf3 bytes through the changes" 1000000 "$bytes"
		assert_ok "scx1 rx-flow-hash udp4 sdfn" in_ns "$NS" ethtool -N scx1 rx-flow-hash udp4 sdfn
	fi
done

# refusals, nothing changed
x_of scx1 "$NS"; cp "$OUT/x.scx1" "$OUT/x.before"
assert_fails "hfunc xor refused" in_ns "$NS" ethtool -X scx1 hfunc xor
assert_fails "equal 5 refused (4 queues)" in_ns "$NS" ethtool -X scx1 equal 5
refused "rx-flow-hash udp4 sdv refused" in_ns "$NS" ethtool -N scx1 rx-flow-hash udp4 sdv
refused "rx-flow-hash sctp4 refused" in_ns "$NS" ethtool -N scx1 rx-flow-hash sctp4 sd
assert_fails "combined 2 refused (the table names rx3)" in_ns "$NS" ethtool -L scx1 combined 2
x_of scx1 "$NS"
assert_ok "ethtool -x unchanged by the refusals" cmp "$OUT/x.before" "$OUT/x.scx1"
assert_eq "udp4 fields unchanged by the refusals" "IP SA,IP DA" \
	"$(in_ns "$NS" ethtool -n scx1 rx-flow-hash udp4 | grep '^IP\|^L4' | paste -sd,)"
log "kernel says: $(dmesg | grep -E 'scx1: (RSS|rx-flow-hash)' | tail -n 3 | tr '\n' '|')"
klog_has 'scx1: RSS: the device hashes with Toeplitz only' ||
	fail "no log line for hfunc xor"
klog_has 'scx1: rx-flow-hash: the device hashes IP addresses and L4 ports only' ||
	fail "no log line for rx-flow-hash sdv"

# back to the default table: -L respreads it
assert_ok "scx1 -X default" in_ns "$NS" ethtool -X scx1 default
assert_ok "scx1 combined 2" in_ns "$NS" ethtool -L scx1 combined 2
table_is "combined 2" 2
assert_ok "scx1 combined 4" in_ns "$NS" ethtool -L scx1 combined 4
table_is "combined 4" 4
assert_ok "scx1 rx-flow-hash udp4 sdfn" in_ns "$NS" ethtool -N scx1 rx-flow-hash udp4 sdfn
check "combined 4, sdfn"
assert_eq "flow checks made" 6 "$CHECKS"
