#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 480
#
# ethtool ntuple rules (-N/-n) and RSS contexts (-X/-x context), as an mlx5
# user sets them; scx1 with channels=5, run on 4 (room for an -L switch):
# - ntuple is off by default and a rule is refused then; -K ntuple on;
# - a rule `action 2` puts its UDP flows on rx2 only (per-queue counters);
#   a lower location wins over it (udp4 src-ip; ip4 l4proto with a mask
#   `m`, read back), deleting that one gives them back;
# - `context new weight 0 1 0 1` and a rule naming it: its flows land only
#   on rx1/rx3, each on the queue the Toeplitz hash with the context's key
#   and table (`ethtool -x context`) predicts (rss_flows.py, bit by bit);
#   on 5 channels a second rule with `action 1` (ethtool's offset) puts its
#   flows on the prediction + 1 (rx2/rx4); refused on 4;
# - a drop rule (action -1, no loc: the driver picks one): its datagrams
#   reach no queue and no UDP socket, and count in rx_steer_drop_packets;
# - `ethtool -n` lists them (rule count, table size, each rule read back);
# - they survive down/up, -L 5 and back, an MTU change, XDP attach and
#   detach, a private flag (rx_striding_rq); -L below what they name is
#   refused with the reason in the log;
# - refused with the reason in the log: a queue beyond the channels, a
#   missing context, tos, a VLAN match with its priority bits (mlx5 takes
#   the VLAN ID only: `vlan N vlan-mask 0xf000`), VLAN 4096, vlan-etype,
#   user-def, l4data, sctp4; deleting a
#   context a rule uses; nothing changes;
# - L2 (mlx5's ether flows, FLOW_EXT and FLOW_MAC_EXT): `flow-type ether
#   src MAC0 proto 0x0800` takes scx0's IPv4 flows to rx3; a udp4 rule with
#   `vlan 100 vlan-mask 0xf000` takes the datagrams of scx0.100 -> scx1.100
#   to rx2 and leaves the same flows untagged to RSS; a udp4 rule with
#   `dst-mac` for another address changes nothing, for scx1's takes its
#   flows to rx1; each read back with ethtool -n;
# - IPv6: with no rule, udp6 flows land where the Toeplitz hash of their
#   IPv6 fields predicts; a udp6 rule (dst-ip, dst-port) takes them to rx2,
#   a tcp6 rule on the same port does not, an ip6 rule with a prefix mask
#   and l4proto at a lower location wins (rx3); both read back; deleting
#   them gives the flows back to RSS;
# - delete returns flows to the default RSS; ntuple off removes every rule;
# - packet conservation both ways at the end.
source "$(dirname "$0")/lib.sh"
need_cmd ethtool
PY=$(dirname "$0")/rss_flows.py
scx_setup channels=5
bpf_build
OUT=$SCX_TEST_OUT
NQ=5

en() { in_ns "$NS" ethtool "$@"; }
# refused LABEL CMD...: ethtool refuses (it may print the error yet exit 0)
refused() {
	local what=$1 out rc=0; shift
	out=$("$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || [[ "$out" == *Cannot* ]] || fail "$what: '$*' was accepted: $out"
	log "ok: $what (status $rc: $(echo "$out" | tail -n 1))"
}
# logged LABEL TEXT: the kernel log has "scx1: ... TEXT"
logged() { klog_has "scx1: .*$2" || fail "$1: no log line '$2'"; log "ok: $1 logged"; }
queues() {	# the per-queue RX packets of scx1, rx0..rx(NQ-1)
	local q out=()
	eth_dump scx1 "$NS"
	for ((q = 0; q < NQ; q++)); do out+=("$(eth_get rx${q}_packets)"); done
	echo "${out[*]}"
}
# send_check LABEL "WANT..." N FLOW...: N datagrams of each flow; the
# per-queue deltas of scx1 must be WANT (NQ numbers). A window with more
# frames than WANT adds up to (a stray frame of the stack's) is measured
# again, up to 3 times.
send_check() {
	local label=$1 want=$2 n=$3 before after i try sum sent got w; shift 3
	sent=0
	for w in $want; do sent=$((sent + w)); done
	for try in 1 2 3; do
		read -r -a before <<< "$(queues)"
		python3 "$PY" send "$n" "$@"
		sleep 0.3
		read -r -a after <<< "$(queues)"
		got=() sum=0
		for ((i = 0; i < NQ; i++)); do
			got+=("$((after[i] - before[i]))")
			sum=$((sum + after[i] - before[i]))
		done
		[ "$sum" -gt "$sent" ] && [ "${got[*]}" != "$want" ] || break
		log "$label: ${got[*]}: $((sum - sent)) frame(s) more than sent, again"
	done
	assert_eq "$label: datagrams per queue (rx0..rx$((NQ - 1)))" "$want" "${got[*]}"
}
# predict_want N XFILE FLOW...: the per-queue counts N datagrams of each
# flow should give by the table and key in XFILE (ethtool -x output), each
# queue OFFSET (default 0) further, hashed as HASHTYPE (default udp4) is
predict_want() {
	local n=$1 x=$2 q pred want=(); shift 2
	for ((q = 0; q < NQ; q++)); do want[q]=0; done
	en -n scx1 rx-flow-hash "${HASHTYPE:-udp4}" > "$OUT/n.scx1" || fail "ethtool -n rx-flow-hash"
	read -r -a pred <<< "$(python3 "$PY" predict "$x" "$OUT/n.scx1" "$@")"
	[ ${#pred[@]} -eq $# ] || fail "no prediction"
	for q in "${pred[@]}"; do want[q + ${OFFSET:-0}]=$((want[q + ${OFFSET:-0}] + n)); done
	log "predicted queues: ${pred[*]}" >&2
	echo "${want[*]}"
}

R5001=("$IP0:40001->$IP1:5001" "$IP0:40002->$IP1:5001" "$IP0:40033->$IP1:5001"
	"$IP0:47104->$IP1:5001")
R6000=()
for p in 40001 40002 40003 40104 41005 50000 50001 33333; do R6000+=("$IP0:$p->$IP1:6000"); done
RDROP=("$IP0:40009->$IP1:9999")

# static neighbours: no ARP frame (non-IP: table[0]) among the counted ones;
# scx1's goes at its link down (neigh_ifdown), so set again after one
static_neigh() {
	ip neigh replace "$IP1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
	ip -n "$NS" neigh replace "$IP0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
}
static_neigh
assert_ok "scx1 combined 4" en -L scx1 combined 4
wait_carrier scx1 "$NS"
ping_ok "" "$IP1" 3

# ---- ntuple off by default
assert_eq "ntuple off by default" "ntuple-filters: off" "$(en -k scx1 | grep '^ntuple-filters:')"
refused "a rule while ntuple is off" en -N scx1 flow-type udp4 dst-port 5001 action 2
logged "ntuple off" "ntuple: ntuple filters are off"
assert_ok "ntuple on" en -K scx1 ntuple on

# ---- a rule to queue 2; a lower location wins
en -x scx1 > "$OUT/x.main"
DEF5001=$(predict_want 8 "$OUT/x.main" "${R5001[@]}")
assert_ok "rule udp4 dst-port 5001 action 2 loc 10" \
	en -N scx1 flow-type udp4 dst-port 5001 action 2 loc 10
send_check "rule loc 10 -> rx2" "0 0 32 0 0" 8 "${R5001[@]}"
assert_ok "rule src-ip dst-port 5001 action 1 loc 5" \
	en -N scx1 flow-type udp4 src-ip "$IP0" dst-port 5001 action 1 loc 5
send_check "loc 5 wins over loc 10" "0 32 0 0 0" 8 "${R5001[@]}"
assert_ok "delete loc 5" en -N scx1 delete 5
send_check "loc 10 again" "0 0 32 0 0" 8 "${R5001[@]}"
# ip4 with l4proto, and a mask as ethtool's command line gives it (bits to
# ignore): 10.11.0.250 m 0.0.0.255 matches 10.11.0.1
assert_ok "rule ip4 src-ip .250 m 0.0.0.255 l4proto 17 action 3 loc 7" \
	en -N scx1 flow-type ip4 src-ip "${IP0%.*}.250" m 0.0.0.255 l4proto 17 action 3 loc 7
send_check "ip4 loc 7 wins over loc 10" "0 0 0 32 0" 8 "${R5001[@]}"
en -n scx1 rule 7 > "$OUT/n.7" || fail "ethtool -n rule 7"
grep -q "Src IP addr: ${IP0%.*}.250 mask: 0.0.0.255" "$OUT/n.7" && grep -q "Protocol: 17" "$OUT/n.7" ||
	fail "rule 7 read back: $(tr '\n' '|' < "$OUT/n.7")"
assert_ok "delete loc 7" en -N scx1 delete 7
send_check "loc 10 after loc 7 went" "0 0 32 0 0" 8 "${R5001[@]}"

# ---- an RSS context and a rule naming it
out=$(en -X scx1 context new weight 0 1 0 1) || fail "context new: $out"
CTX=$(echo "$out" | grep -o 'New RSS context is [0-9]*' | grep -o '[0-9]*$')
[ -n "$CTX" ] || fail "no context id in: $out"
log "context $CTX"
en -x scx1 context "$CTX" > "$OUT/x.ctx" || fail "ethtool -x context $CTX"
assert_eq "context table: rx1 and rx3 only" "0 128 0 128" "$(awk '
	/^ +[0-9]+:/ { for (i = 2; i <= NF; i++) n[$i]++ }
	END { printf "%d %d %d %d", n[0], n[1], n[2], n[3] }' "$OUT/x.ctx")"
KEYCTX=$(python3 -c 'print(":".join("%02x" % ((i * 29 + 3) & 0xff) for i in range(40)))')
assert_ok "context hkey" en -X scx1 context "$CTX" hkey "$KEYCTX"
en -x scx1 context "$CTX" > "$OUT/x.ctx" || fail "ethtool -x context $CTX"
assert_eq "context key read back" "$KEYCTX" "$(grep -A1 'RSS hash key' "$OUT/x.ctx" | tail -n1)"
WCTX=$(predict_want 8 "$OUT/x.ctx" "${R6000[@]}")
read -r -a w <<< "$WCTX"
assert_eq "context flows predicted on rx1/rx3 only" "0 0 0" "${w[0]} ${w[2]} ${w[4]}"
assert_ok "rule dst-port 6000 context $CTX loc 20" \
	en -N scx1 flow-type udp4 dst-port 6000 context "$CTX" action 0 loc 20
send_check "context rule: as the context's Toeplitz predicts" "$WCTX" 8 "${R6000[@]}"

# ---- a drop rule, location chosen by the driver
out=$(en -N scx1 flow-type udp4 dst-port 9999 action -1 2>&1) || fail "drop rule: $out"
DLOC=$(echo "$out" | grep -o 'Added rule with ID [0-9]*' | grep -o '[0-9]*$')
[ -n "$DLOC" ] || fail "no rule id in: $out"
log "drop rule at $DLOC"
drops0=$(ethtool_stat scx1 rx_steer_drop_packets "$NS")
udp0=$(( $(snmp_get Udp InDatagrams "$NS") + $(snmp_get Udp NoPorts "$NS") ))
send_check "drop rule: no queue" "0 0 0 0 0" 20 "${RDROP[@]}"
assert_eq "rx_steer_drop_packets" $((drops0 + 20)) "$(ethtool_stat scx1 rx_steer_drop_packets "$NS")"
assert_eq "no dropped datagram at the UDP layer" "$udp0" \
	"$(( $(snmp_get Udp InDatagrams "$NS") + $(snmp_get Udp NoPorts "$NS") ))"

# ---- ethtool -n
en -n scx1 > "$OUT/n.all" || fail "ethtool -n scx1"
grep -q "Total 3 rules" "$OUT/n.all" || fail "ethtool -n: $(head -n 3 "$OUT/n.all")"
for loc in 10 20 "$DLOC"; do grep -q "^Filter: $loc\$" "$OUT/n.all" || fail "no filter $loc"; done
en -n scx1 rule 10 > "$OUT/n.10" || fail "ethtool -n rule 10"
grep -q "Dest port: 5001 mask: 0x0" "$OUT/n.10" && grep -q "Action: Direct to queue 2" "$OUT/n.10" ||
	fail "rule 10 read back: $(tr '\n' '|' < "$OUT/n.10")"
grep -qiE "context id:? $CTX" <(en -n scx1 rule 20) || fail "rule 20: no context $CTX"
grep -q "Action: Drop" <(en -n scx1 rule "$DLOC") || fail "rule $DLOC: not a drop"
log "ok: ethtool -n lists the 3 rules, read back"

checks() {	# LABEL: every rule still steers
	send_check "$1: rule loc 10" "0 0 32 0 0" 8 "${R5001[@]}"
	send_check "$1: context rule" "$WCTX" 8 "${R6000[@]}"
	send_check "$1: drop rule" "0 0 0 0 0" 4 "${RDROP[@]}"
}

# ---- they survive down/up, -L and MTU switches
ip -n "$NS" link set scx1 down
ip -n "$NS" link set scx1 up
wait_carrier scx1 "$NS"
static_neigh
checks "after down/up"
refused "context rule action 1 on 4 channels (rx3 + 1)" \
	en -N scx1 flow-type udp4 dst-port 6001 context "$CTX" action 1 loc 21
logged "context offset too far" "ntuple: the action offset plus the RSS context's table names a channel"
assert_ok "combined 5" en -L scx1 combined 5
checks "on 5 channels"
# on 5 channels a context rule may add 1 to the table's entries (ethtool's
# offset for FLOW_RSS): rx2/rx4, each the context's prediction + 1
R6001=()
for p in 40001 40002 40003 40104 41005 50000 50001 33333; do R6001+=("$IP0:$p->$IP1:6001"); done
assert_ok "rule dst-port 6001 context $CTX action 1 loc 21" \
	en -N scx1 flow-type udp4 dst-port 6001 context "$CTX" action 1 loc 21
W6001=$(OFFSET=1 predict_want 8 "$OUT/x.ctx" "${R6001[@]}")
read -r -a w <<< "$W6001"
assert_eq "offset flows predicted on rx2/rx4 only" "0 0 0" "${w[0]} ${w[1]} ${w[3]}"
send_check "context rule with offset 1" "$W6001" 8 "${R6001[@]}"
send_check "the offset 0 rule of the same context" "$WCTX" 8 "${R6000[@]}"
assert_fails "combined 4 refused (rx3 + 1)" en -L scx1 combined 4
assert_ok "delete loc 21" en -N scx1 delete 21
assert_ok "combined 4" en -L scx1 combined 4
checks "back on 4"
assert_ok "mtu 1400" ip -n "$NS" link set scx1 mtu 1400
checks "mtu 1400"
assert_ok "mtu 1500" ip -n "$NS" link set scx1 mtu 1500
xdp_attach scx1 "$NS" "$BPF/xdp_pass.o"
checks "XDP attached"
xdp_detach scx1 "$NS"
checks "XDP detached"
assert_ok "rx_striding_rq off" en --set-priv-flags scx1 rx_striding_rq off
checks "rx_striding_rq off"
assert_ok "rx_striding_rq on" en --set-priv-flags scx1 rx_striding_rq on
assert_fails "combined 3 refused (the context names rx3)" en -L scx1 combined 3
logged "-L below a context" "channels: an ntuple rule's RSS context table (plus its offset) names a channel beyond the new count"

# ---- refusals, nothing changes
refused "queue 7 (4 channels)" en -N scx1 flow-type udp4 dst-port 1 action 7 loc 30
logged "queue out of range" "ntuple: the action names a channel the port does not have"
refused "missing context" en -N scx1 flow-type udp4 dst-port 1 context 9 action 0 loc 30
logged "missing context" "ntuple: no such RSS context"
refused "tos" en -N scx1 flow-type udp4 tos 4 action 1 loc 30
logged "tos" "ntuple: no tos match"
refused "vlan with its priority (ethtool's default mask)" en -N scx1 flow-type udp4 vlan 5 action 1 loc 30
logged "vlan" "ntuple: a VLAN match takes the whole VLAN ID (mask 0xfff)"
refused "vlan 4096" en -N scx1 flow-type udp4 vlan 4096 vlan-mask 0xf000 action 1 loc 30
refused "vlan-etype" en -N scx1 flow-type udp4 vlan-etype 0x8100 action 1 loc 30
logged "vlan-etype" "ntuple: no vlan-etype or user-def match"
refused "user-def" en -N scx1 flow-type udp4 user-def 0x5 action 1 loc 30
refused "ip4 l4data" en -N scx1 flow-type ip4 l4data 0x1 action 1 loc 30
logged "l4data" "ntuple: no l4data match"
refused "sctp4" en -N scx1 flow-type sctp4 dst-port 1 action 1 loc 30
logged "sctp4" "ntuple: flow types tcp4, udp4, ip4, tcp6, udp6, ip6 and ether only"
refused "loc beyond the table" en -N scx1 flow-type udp4 dst-port 1 action 1 loc 4000
refused "context in use" en -X scx1 context "$CTX" delete
logged "context in use" "RSS context $CTX: an ntuple rule uses the RSS context"
assert_eq "still 3 rules" "Total 3 rules" "$(en -n scx1 | grep -o 'Total [0-9]* rules')"
checks "after the refusals"

# ---- IPv6: udp6, tcp6 and ip6 rules (address, a prefix mask, l4proto), read back
B0=fd00:12::1 B1=fd00:12::2
pair_ipv6 "$B0" "$B1"
ip neigh replace "$B1" lladdr "$(dev_mac scx1 "$NS")" dev scx0 nud permanent
ip -n "$NS" neigh replace "$B0" lladdr "$(dev_mac scx0)" dev scx1 nud permanent
R7001=()
for p in 40001 40002 40003 40104 41005 50000 50001 33333; do R7001+=("[$B0]:$p->[$B1]:7001"); done
en -x scx1 > "$OUT/x.main"
DEF7001=$(HASHTYPE=udp6 predict_want 8 "$OUT/x.main" "${R7001[@]}")
send_check "udp6, no rule: default RSS as predicted" "$DEF7001" 8 "${R7001[@]}"
assert_ok "rule udp6 dst-ip $B1 dst-port 7001 action 2 loc 40" \
	en -N scx1 flow-type udp6 dst-ip "$B1" dst-port 7001 action 2 loc 40
send_check "udp6 rule loc 40 -> rx2" "0 0 64 0 0" 8 "${R7001[@]}"
assert_ok "rule tcp6 dst-port 7001 action 1 loc 38 (not these datagrams)" \
	en -N scx1 flow-type tcp6 dst-port 7001 action 1 loc 38
send_check "a tcp6 rule leaves UDP alone" "0 0 64 0 0" 8 "${R7001[@]}"
# fd00:12::ff with the low 8 bits ignored (ethtool's m) matches fd00:12::1
assert_ok "rule ip6 src-ip fd00:12::ff m ::ff l4proto 17 action 3 loc 39" \
	en -N scx1 flow-type ip6 src-ip fd00:12::ff m ::ff l4proto 17 action 3 loc 39
send_check "ip6 loc 39 wins over loc 40" "0 0 0 64 0" 8 "${R7001[@]}"
en -n scx1 rule 39 > "$OUT/n.39" || fail "ethtool -n rule 39"
grep -q "Src IP addr: fd00:12::ff mask: ::ff" "$OUT/n.39" && grep -q "Protocol: 17" "$OUT/n.39" ||
	fail "rule 39 read back: $(tr '\n' '|' < "$OUT/n.39")"
en -n scx1 rule 40 > "$OUT/n.40" || fail "ethtool -n rule 40"
grep -q "Dest IP addr: $B1 mask: ::" "$OUT/n.40" && grep -q "Action: Direct to queue 2" "$OUT/n.40" ||
	fail "rule 40 read back: $(tr '\n' '|' < "$OUT/n.40")"
send_check "IPv4 rules unchanged beside the IPv6 ones" "0 0 32 0 0" 8 "${R5001[@]}"
for loc in 39 38 40; do assert_ok "delete loc $loc" en -N scx1 delete $loc; done
send_check "udp6 rules deleted: default RSS" "$DEF7001" 8 "${R7001[@]}"

# ---- L2: an ether rule (source MAC, ethertype), a VLAN ID (FLOW_EXT) and
# a destination MAC (FLOW_MAC_EXT) on udp4 rules, as mlx5 takes them; read back
MAC0=$(dev_mac scx0) MAC1=$(dev_mac scx1 "$NS")
R7500=() R7600=() R7700=() RV7600=()
for p in 40001 40002 40003 40104 41005 50000 50001 33333; do
	R7500+=("$IP0:$p->$IP1:7500") R7600+=("$IP0:$p->$IP1:7600") R7700+=("$IP0:$p->$IP1:7700")
	RV7600+=("10.12.0.1:$p->10.12.0.2:7600")
done
en -x scx1 > "$OUT/x.main"
assert_ok "rule ether src $MAC0 proto 0x0800 action 3 loc 41" \
	en -N scx1 flow-type ether src "$MAC0" proto 0x0800 action 3 loc 41
send_check "ether rule loc 41 -> rx3" "0 0 0 64 0" 8 "${R7500[@]}"
en -n scx1 rule 41 > "$OUT/n.41" || fail "ethtool -n rule 41"
grep -qi "Src MAC addr: $MAC0 mask: 00:00:00:00:00:00" "$OUT/n.41" &&
	grep -qi "Ethertype: 0x800 mask: 0x0" "$OUT/n.41" ||
	fail "rule 41 read back: $(tr '\n' '|' < "$OUT/n.41")"
assert_ok "delete loc 41" en -N scx1 delete 41
send_check "ether rule deleted: default RSS" "$(predict_want 8 "$OUT/x.main" "${R7500[@]}")" 8 \
	"${R7500[@]}"

modprobe 8021q
ip link add link scx0 name scx0.100 type vlan id 100
ip -n "$NS" link add link scx1 name scx1.100 type vlan id 100
ip addr add 10.12.0.1/24 dev scx0.100
ip -n "$NS" addr add 10.12.0.2/24 dev scx1.100
ip link set scx0.100 up
ip -n "$NS" link set scx1.100 up
ip neigh replace 10.12.0.2 lladdr "$MAC1" dev scx0.100 nud permanent
ip -n "$NS" neigh replace 10.12.0.1 lladdr "$MAC0" dev scx1.100 nud permanent
assert_ok "rule udp4 dst-port 7600 vlan 100 vlan-mask 0xf000 action 2 loc 42" \
	en -N scx1 flow-type udp4 dst-port 7600 vlan 100 vlan-mask 0xf000 action 2 loc 42
send_check "VLAN 100 rule: tagged datagrams -> rx2" "0 0 64 0 0" 8 "${RV7600[@]}"
send_check "VLAN 100 rule: untagged ones keep RSS" "$(predict_want 8 "$OUT/x.main" "${R7600[@]}")" 8 \
	"${R7600[@]}"
en -n scx1 rule 42 > "$OUT/n.42" || fail "ethtool -n rule 42"
grep -q "VLAN: 0x64 mask: 0xf000" "$OUT/n.42" || fail "rule 42 read back: $(tr '\n' '|' < "$OUT/n.42")"
assert_ok "delete loc 42" en -N scx1 delete 42
ip link del scx0.100
ip -n "$NS" link del scx1.100

assert_ok "rule udp4 dst-port 7700 dst-mac 02:00:00:00:00:99 action 1 loc 43 (not scx1's)" \
	en -N scx1 flow-type udp4 dst-port 7700 dst-mac 02:00:00:00:00:99 action 1 loc 43
send_check "a dst-mac rule for another address: RSS" "$(predict_want 8 "$OUT/x.main" "${R7700[@]}")" 8 \
	"${R7700[@]}"
assert_ok "rule udp4 dst-port 7700 dst-mac $MAC1 action 1 loc 43" \
	en -N scx1 flow-type udp4 dst-port 7700 dst-mac "$MAC1" action 1 loc 43
send_check "dst-mac rule for scx1's address -> rx1" "0 64 0 0 0" 8 "${R7700[@]}"
en -n scx1 rule 43 > "$OUT/n.43" || fail "ethtool -n rule 43"
# (ethtool 6.1 prints the FLOW_MAC_EXT mask as the kernel holds it: FF compares)
grep -qi "Dest MAC addr: $MAC1 mask: FF:FF:FF:FF:FF:FF" "$OUT/n.43" ||
	fail "rule 43 read back: $(tr '\n' '|' < "$OUT/n.43")"
assert_ok "delete loc 43" en -N scx1 delete 43

# ---- delete: default RSS again; ntuple off removes the rest
assert_ok "delete loc 10" en -N scx1 delete 10
en -x scx1 > "$OUT/x.main"
send_check "loc 10 deleted: default RSS" "$(predict_want 8 "$OUT/x.main" "${R5001[@]}")" 8 \
	"${R5001[@]}"
assert_ok "ntuple off" en -K scx1 ntuple off
assert_eq "no rule left" "Total 0 rules" "$(en -n scx1 | grep -o 'Total [0-9]* rules')"
send_check "context rule gone: default RSS" "$(predict_want 8 "$OUT/x.main" "${R6000[@]}")" 8 \
	"${R6000[@]}"
assert_ok "context delete" en -X scx1 context "$CTX" delete
refused "the deleted context" en -x scx1 context "$CTX"

assert_conserved "ntuple" scx0 "" scx1 "$NS"
