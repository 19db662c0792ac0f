# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers for the VM tests (tests/vm/t-*.sh). Sourced, never run.
# The tests run as root inside the VM (scripts/vm-run.sh), chrooted into the
# host root, so the tools are the host's own ip, ethtool, ping, iperf3.
#
# Layout every traffic test uses (pair_setup):
#   root netns: DEV0 (scx0)  10.11.0.1/24   <-- cable -->   netns ns1: DEV1 (scx1)  10.11.0.2/24
# IPv6 is disabled on the test devices so that no background traffic
# (DAD, router solicitations, MLD) disturbs the packet counts; pair_ipv6
# turns it on, quietly, for the tests that need it.
#
# Conventions: a failed assertion prints "FAIL: <reason>" on stderr and exits
# 1; run-all.sh reports the first such line. Any command failing outside an
# `if`/`||` also fails the test (set -e with an ERR trap naming the command).
#
# Variables a test may override before sourcing: none. From the environment:
#   SCX_KO        module to load (default: <repo>/softcx.ko)
#   SCX_TEST_OUT  directory for this test's artifacts (run-all.sh sets it)

set -eEuo pipefail

SCX_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
# shellcheck source=tests/vm/kernel-log.sh
source "$SCX_ROOT/tests/vm/kernel-log.sh"
SCX_KO=${SCX_KO:-$SCX_ROOT/softcx.ko}
TEST_NAME=$(basename "$0" .sh)
SCX_TEST_OUT=${SCX_TEST_OUT:-/tmp/$TEST_NAME}
mkdir -p "$SCX_TEST_OUT"

NS=ns1
IP0=10.11.0.1
IP1=10.11.0.2
# Process creation is slow under TCG (0.1-0.5 s per exec): helpers parse
# with bash built-ins and avoid python/bc/awk where it matters.
_t_start=${EPOCHREALTIME/./}

# ---------------------------------------------------------------- reporting
log() {
	local us=$(( ${EPOCHREALTIME/./} - _t_start ))
	printf '[%3d.%02d] %s\n' $((us / 1000000)) $((us / 10000 % 100)) "$*"
}

fail() {
	echo "FAIL: $*" >&2
	exit 1
}
trap 'rc=$?; fail "command failed (status $rc) at ${BASH_SOURCE[0]##*/}:$LINENO: $BASH_COMMAND"' ERR

# bg_start CMD...: run CMD in the background (its pid in BG_PID); such
# processes are killed when the test exits. A failure there does not fail the
# test by itself (no ERR trap in the background): the test checks results.
_bg_pids=()
bg_start() { ( trap - ERR EXIT; set +e; "$@" ) & _bg_pids+=($!); BG_PID=$!; }
# bg_stop PID...: kill background jobs with all their descendants, and reap.
_kill_tree() {
	local c
	for c in $(pgrep -P "$1" 2>/dev/null || true); do _kill_tree "$c"; done
	kill -KILL "$1" 2>/dev/null || true
}
bg_stop() {
	local p
	for p in "$@"; do _kill_tree "$p"; done
	for p in "$@"; do wait "$p" 2>/dev/null || true; done
}
_cleanup_bg() { [ ${#_bg_pids[@]} -eq 0 ] || bg_stop "${_bg_pids[@]}"; }
trap _cleanup_bg EXIT

# ---------------------------------------------------------------- assertions
# assert_eq WHAT EXPECTED ACTUAL
assert_eq() {
	[ "$2" == "$3" ] || fail "$1: expected '$2', got '$3'"
	log "ok: $1 == $3"
}
# assert_ne WHAT UNEXPECTED ACTUAL
assert_ne() {
	[ "$2" != "$3" ] || fail "$1: expected anything but '$2'"
	log "ok: $1 = $3 (!= $2)"
}
# assert_ge WHAT MIN ACTUAL (integers)
assert_ge() {
	[[ "$3" =~ ^-?[0-9]+$ ]] || fail "$1: expected a number >= $2, got '$3'"
	[ "$3" -ge "$2" ] || fail "$1: expected >= $2, got $3"
	log "ok: $1 = $3 (>= $2)"
}
# assert_gt WHAT MIN ACTUAL (integers)
assert_gt() {
	[[ "$3" =~ ^-?[0-9]+$ ]] || fail "$1: expected a number > $2, got '$3'"
	[ "$3" -gt "$2" ] || fail "$1: expected > $2, got $3"
	log "ok: $1 = $3 (> $2)"
}
# assert_ok WHAT CMD...: CMD must succeed.
assert_ok() {
	local what=$1 out rc=0; shift
	out=$("$@" 2>&1) || rc=$?
	[ $rc -eq 0 ] || fail "$what: '$*' failed with status $rc: $(echo "$out" | tail -n 3 | tr '\n' ' ')"
	log "ok: $what"
}
# assert_fails WHAT CMD...: CMD must exit non-zero.
assert_fails() {
	local what=$1 out rc=0; shift
	out=$("$@" 2>&1) || rc=$?
	[ $rc -ne 0 ] || fail "$what: '$*' succeeded but must fail"
	log "ok: $what (status $rc: $(echo "$out" | tail -n 1))"
}

# debugfs_hook NAME: sets INJ to softcx's debugfs file NAME (relative to
# /sys/kernel/debug/softcx, e.g. scx0/inject_tx_error), mounting debugfs
# first; fails the test when the module did not create it.
debugfs_hook() {
	INJ=/sys/kernel/debug/softcx/$1
	[ -d /sys/kernel/debug/softcx ] || mount -t debugfs debugfs /sys/kernel/debug 2>/dev/null || true
	[ -e "$INJ" ] || fail "$INJ missing"
}

need_cmd() {
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null || fail "tool '$c' missing on the host root (run scripts/deps.sh)"
	done
}

# in_ns NS CMD...: run CMD in netns NS ("" = the root netns).
in_ns() {
	local ns=$1; shift
	if [ -n "$ns" ]; then ip netns exec "$ns" "$@"; else "$@"; fi
}

# wait_for SECS CMD...: poll CMD every 0.1 s until it succeeds; 1 on timeout.
wait_for() {
	local secs=$1 i; shift
	for ((i = 0; i < secs * 10; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

# ---------------------------------------------------------------- devices
# Attributes of a device in the root netns come from /sys/class/net; in
# another netns from one `ip -n NS -o link show` (same kernel state: LOWER_UP
# is netif_running && netif_carrier_ok, "state" is operstate).
# (read, not $(< f): a read error such as carrier's EINVAL on a down device
# must be a failure, not an empty string.)
_sysattr() { local v; { IFS= read -r v < "/sys/class/net/$1/$2"; } 2>/dev/null && [ -n "$v" ] || return 1; echo "$v"; }
_nslink() { ip -n "$2" -o link show dev "$1" 2>/dev/null; }

dev_exists() {   # DEV [NS]
	if [ -z "${2:-}" ]; then [ -e "/sys/class/net/$1" ]; else _nslink "$1" "$2" | grep -q .; fi
}
# dev_carrier DEV [NS]: 1, 0, or "-" when the device is down.
dev_carrier() {
	if [ -z "${2:-}" ]; then _sysattr "$1" carrier 2>/dev/null || echo "-"; return; fi
	local l; l=$(_nslink "$1" "$2")
	local re_up='[<]([^>]*,)?UP[,>]' re_lower='[<,]LOWER_UP[,>]'
	if ! [[ "$l" =~ $re_up ]]; then echo "-"
	elif [[ "$l" =~ $re_lower ]]; then echo 1
	else echo 0; fi
}
dev_operstate() {   # DEV [NS]: up, down, lowerlayerdown, ...
	if [ -z "${2:-}" ]; then _sysattr "$1" operstate; return; fi
	local l; l=$(_nslink "$1" "$2")
	[[ "$l" =~ \ state\ ([A-Za-z]+) ]] && echo "${BASH_REMATCH[1],,}"
}
dev_mtu() {
	if [ -z "${2:-}" ]; then _sysattr "$1" mtu; return; fi
	local l; l=$(_nslink "$1" "$2"); [[ "$l" =~ \ mtu\ ([0-9]+) ]] && echo "${BASH_REMATCH[1]}"
}
dev_mac() {
	if [ -z "${2:-}" ]; then _sysattr "$1" address; return; fi
	local l; l=$(_nslink "$1" "$2"); [[ "$l" =~ link/ether\ ([0-9a-f:]+) ]] && echo "${BASH_REMATCH[1]}"
}
# dev_flags DEV [NS]: the <...> flag list of `ip link show`, e.g. NO-CARRIER,BROADCAST,UP
dev_flags() {
	local l re='[<]([^>]*)[>]'; l=$(ip ${2:+-n "$2"} -o link show dev "$1")
	[[ "$l" =~ $re ]] && echo "${BASH_REMATCH[1]}"
}

_carrier_up() { [ "$(dev_carrier "$1" "${2:-}")" == 1 ] && [ "$(dev_operstate "$1" "${2:-}")" == up ]; }
# wait_carrier DEV [NS] [SECS]: carrier 1 and operstate up, else fail.
wait_carrier() {
	wait_for "${3:-10}" _carrier_up "$1" "${2:-}" ||
		fail "$1${2:+ (netns $2)}: no carrier after ${3:-10}s (carrier=$(dev_carrier "$1" "${2:-}") operstate=$(dev_operstate "$1" "${2:-}"))"
}

# wait_no_carrier DEV [NS] [SECS]: carrier 0 (up, no link), else fail.
_carrier_off() { [ "$(dev_carrier "$1" "${2:-}")" == 0 ]; }
wait_no_carrier() {
	wait_for "${3:-5}" _carrier_off "$1" "${2:-}" ||
		fail "$1${2:+ (netns $2)}: still carrier=$(dev_carrier "$1" "${2:-}") after ${3:-5}s"
}

# ns_create NS: a fresh netns with lo up and IPv6 off for new devices.
ns_create() {
	ip netns del "$1" 2>/dev/null || true
	ip netns add "$1"
	ip -n "$1" link set lo up
	ip netns exec "$1" sysctl -qw net.ipv6.conf.default.disable_ipv6=1 net.ipv6.conf.all.disable_ipv6=1
}

# pair_setup DEV0 DEV1: the standard layout (see top); waits for carrier.
pair_setup() {
	local d0=$1 d1=$2
	echo 1 > "/proc/sys/net/ipv6/conf/$d0/disable_ipv6" 2>/dev/null || true
	ns_create "$NS"
	ip link set "$d1" netns "$NS"
	# (IPv6 stays off on DEV1: it takes ns1's default config, set by ns_create)
	ip addr add "$IP0/24" dev "$d0"
	ip -n "$NS" addr add "$IP1/24" dev "$d1"
	ip link set "$d0" up
	ip -n "$NS" link set "$d1" up
	wait_carrier "$d0"
	wait_carrier "$d1" "$NS"
	DEV0=$d0 DEV1=$d1
	log "pair up: $d0 ($IP0) <-> $d1 ($IP1, netns $NS)"
}

# pair_ipv6 ADDR0 ADDR1: after pair_setup, IPv6 on DEV0 and DEV1 only (the
# rest of ns1 keeps it off) with ADDR0/64 on DEV0 and ADDR1/64 on DEV1,
# without DAD (nodad: usable at once) and without link-local addresses
# (addr_gen_mode 1: no router solicitations or DAD of their own in the
# counts); waits until DEV0 reaches ADDR1 (ping -6).
pair_ipv6() {
	local a0=$1 a1=$2
	need_cmd ping
	# (addr_gen_mode before disable_ipv6: enabling would make the link-local)
	echo 1 > "/proc/sys/net/ipv6/conf/$DEV0/addr_gen_mode"
	echo 0 > "/proc/sys/net/ipv6/conf/$DEV0/disable_ipv6"
	ip netns exec "$NS" sysctl -qw "net.ipv6.conf.$DEV1.addr_gen_mode=1" \
		"net.ipv6.conf.$DEV1.disable_ipv6=0"
	ip addr add "$a0/64" dev "$DEV0" nodad
	ip -n "$NS" addr add "$a1/64" dev "$DEV1" nodad
	wait_for 10 ping -6 -n -q -c 1 -W 1 "$a1" ||
		fail "no IPv6 between $DEV0 ($a0) and $DEV1 ($a1, netns $NS)"
	log "pair IPv6: $DEV0 ($a0) <-> $DEV1 ($a1, netns $NS)"
}

# ---------------------------------------------------------------- softcx
scx_loaded() { [ -d /sys/module/softcx ]; }

# scx_insmod [PARAMS...]: insmod, status returned (for tests of failures).
scx_insmod() {
	[ -f "$SCX_KO" ] || fail "$SCX_KO not built (make module)"
	# Devices are born with IPv6 off (no background traffic in the counts).
	echo 1 > /proc/sys/net/ipv6/conf/default/disable_ipv6
	insmod "$SCX_KO" "$@"
}

# scx_load [PARAMS...]: insmod, must succeed; scx0 must appear.
scx_load() {
	scx_loaded && scx_unload
	local out rc=0
	out=$(scx_insmod "$@" 2>&1) || rc=$?
	[ $rc -eq 0 ] || fail "insmod softcx.ko $* failed ($rc): $out; dmesg: $(dmesg | tail -n 5 | tr '\n' ' ')"
	wait_for 5 dev_exists scx0 || fail "insmod softcx.ko $*: scx0 did not appear"
	scx_rq_type
	log "loaded softcx ${*:-(default params)}${SCX_RX_STRIDING:+ rx_striding_rq $SCX_RX_STRIDING}${SCX_RX_CQE_COMPRESS:+ rx_cqe_compress $SCX_RX_CQE_COMPRESS}${SCX_RX_HW_GRO:+ rx-gro-hw $SCX_RX_HW_GRO}"
}

# klog_has PATTERN: the kernel log holds a line matching PATTERN (a basic
# regular expression). Not `dmesg | grep -q`: under pipefail, grep -q
# leaving at the first match makes dmesg die of SIGPIPE while it still
# writes a long log, and the pipeline fails although the line is there.
klog_has() { dmesg | grep -c -- "$1" > /dev/null; }

# pflag_refused DEV FLAG: turning private flag FLAG on must fail (cx4), say
# why in the kernel log, and leave it off.
pflag_refused() {
	local dev=$1 flag=$2 out rc=0
	out=$(ethtool --set-priv-flags "$dev" "$flag" on 2>&1) || rc=$?
	assert_ne "set $flag on, cx4: exit status" 0 "$rc"
	dmesg | tail -n 20 | grep -c "$flag: not supported" > /dev/null ||
		fail "cx4: no clear kernel log line for the refused $flag (ethtool said: $out)"
	assert_eq "$flag on cx4 after refusal" off \
		"$(ethtool --show-priv-flags "$dev" | sed -n "s/^$flag *: *//p")"
}

# SCX_RX_STRIDING=on|off, SCX_RX_CQE_COMPRESS=on|off and SCX_RX_HW_GRO=on|off
# (rx-gro-hw, where the device has it) (scripts/vm-test.sh
# passes SCX_* variables into the guest; run-all's test@variant names set
# them): every port scx_load brings starts with that RQ type and CQE
# compression (the private flags rx_striding_rq and rx_cqe_compress, set
# while down: no rebuild), so the suite runs in each mode. Unset: the
# driver's defaults (striding on where the device has it, compression
# off). A device without the feature (cx4: striding) stays without it.
scx_rq_type() {
	local d
	for d in /sys/class/net/scx*; do
		[ -e "$d" ] || continue
		[ -z "${SCX_RX_STRIDING:-}" ] ||
			ethtool --set-priv-flags "${d##*/}" rx_striding_rq "$SCX_RX_STRIDING" 2>/dev/null || true
		[ -z "${SCX_RX_CQE_COMPRESS:-}" ] ||
			ethtool --set-priv-flags "${d##*/}" rx_cqe_compress "$SCX_RX_CQE_COMPRESS" 2>/dev/null || true
		[ -z "${SCX_RX_HW_GRO:-}" ] ||
			ethtool -K "${d##*/}" rx-gro-hw "$SCX_RX_HW_GRO" >/dev/null 2>&1 || true
	done
}

# scx_unload: rmmod softcx (within 60 s); all scx* devices must be gone.
scx_unload() {
	scx_loaded || return 0
	local rc=0
	timeout 60 rmmod softcx || rc=$?
	[ $rc -eq 0 ] || fail "rmmod softcx failed or hung (status $rc)"
	scx_loaded && fail "rmmod softcx returned 0 but /sys/module/softcx remains"
	log "unloaded softcx"
}

# scx_setup [PARAMS...]: load and bring up scx0 <-> scx1 (in ns1).
scx_setup() {
	scx_load "$@"
	pair_setup scx0 scx1
}

# redirect_topology: after scx_load nr_pairs=2: scx0 (root) <-> scx1 and
# scx3 (netns nsr) <-> scx2 (netns ns2), all up, no addresses, no
# forwarding: the layout of XDP redirect scx1 -> scx3 (frames from scx0
# land at scx2). Sets NSR, NS2, MAC0, MAC1.
NSR=nsr NS2=ns2
redirect_topology() {
	local d
	for d in scx0 scx1 scx2 scx3; do echo 1 > "/proc/sys/net/ipv6/conf/$d/disable_ipv6"; done
	ns_create $NSR
	ns_create $NS2
	ip link set scx1 netns $NSR
	ip link set scx3 netns $NSR
	ip link set scx2 netns $NS2
	ip link set scx0 up
	ip -n $NSR link set scx1 up
	ip -n $NSR link set scx3 up
	ip -n $NS2 link set scx2 up
	# scx2 takes frames to scx1's MAC (they leave scx3 as pktgen sent them):
	# without this its device's address filter would turn them away
	ip -n $NS2 link set scx2 promisc on
	wait_carrier scx0; wait_carrier scx1 $NSR; wait_carrier scx3 $NSR; wait_carrier scx2 $NS2
	ip netns exec $NSR sysctl -qw net.ipv4.ip_forward=0
	ip netns exec $NS2 sysctl -qw net.ipv4.ip_forward=0
	MAC0=$(dev_mac scx0) MAC1=$(dev_mac scx1 $NSR)
}
# ifindex DEV [NS]
ifindex() { local l; l=$(ip ${2:+-n "$2"} -o link show dev "$1"); echo "${l%%:*}"; }
# cnt DEV NS NAME...: the named ethtool -S counters of DEV, space-separated.
cnt() {
	local dev=$1 ns=$2 n out=(); shift 2
	eth_dump "$dev" "$ns"
	for n in "$@"; do out+=("$(eth_get "$n")"); done
	echo "${out[*]}"
}
# napi_threaded DEV NS 0|1: NAPI of DEV in kthreads (1) or softirq (0).
napi_threaded() {
	in_ns "$2" sh -c "echo $3 > /sys/class/net/$1/threaded" ||
		fail "cannot write $3 to /sys/class/net/$1/threaded"
	[ "$(in_ns "$2" cat "/sys/class/net/$1/threaded")" == "$3" ] ||
		fail "$1: threaded is not $3 after writing it"
}

# ethtool_field OPT DEV NS max|cur FIELD: a value of `ethtool OPT DEV` (-g,
# -l, ...) from its "Pre-set maximums" or "Current hardware settings" part.
ethtool_field() {
	in_ns "$3" ethtool "$1" "$2" | awk -v s="$4" -v f="$5:" '
		/^Pre-set maximums/ { sec = "max" } /^Current hardware settings/ { sec = "cur" }
		sec == s && $1 == f { print $2; exit }'
}

# ---------------------------------------------------------------- counters
# eth_dump DEV [NS]: read `ethtool -S DEV` once into the associative array
# ETH (name -> value; names exactly as before the colon).
declare -gA ETH=()
eth_dump() {
	local out k v
	out=$(in_ns "${2:-}" ethtool -S "$1" 2>&1) || fail "ethtool -S $1${2:+ (netns $2)} failed: $out"
	ETH=()
	while IFS=: read -r k v; do
		k=${k//[[:space:]]/}; v=${v//[[:space:]]/}
		[[ "$v" =~ ^[0-9]+$ ]] && ETH[$k]=$v
	done <<< "$out"
	return 0
}
# eth_get NAME: a counter from the last eth_dump; fails the test if absent.
eth_get() {
	[ -n "${ETH[$1]+x}" ] || fail "ethtool -S: no counter named '$1'"
	echo "${ETH[$1]}"
}
# eth_sum REGEX: "SUM COUNT" of the eth_dump counters whose whole name
# matches REGEX (e.g. 'rx[0-9]+_packets').
eth_sum() {
	local k s=0 n=0
	for k in "${!ETH[@]}"; do
		[[ "$k" =~ ^($1)$ ]] && { s=$((s + ETH[$k])); n=$((n + 1)); }
	done
	echo "$s $n"
}

# ethtool_stat DEV NAME [NS]: one `ethtool -S` counter (exact name).
ethtool_stat() { eth_dump "$1" "${3:-}"; eth_get "$2"; }
# ethtool_has DEV NAME [NS]: whether the counter exists.
ethtool_has() { eth_dump "$1" "${3:-}"; [ -n "${ETH[$2]+x}" ]; }
# ethtool_sum DEV REGEX [NS]: "SUM COUNT" as eth_sum.
ethtool_sum() { eth_dump "$1" "${3:-}"; eth_sum "$2"; }

# feat_is DEV NS NAME on|off: `ethtool -k DEV` (in netns NS, "" for the
# root) shows feature NAME on or off ([fixed] or not).
feat_is() {
	local line
	line=$(in_ns "$2" ethtool -k "$1" | grep -E "^[[:space:]]*$3:") || true
	[[ "$line" =~ :\ $4 ]] || fail "$1 $3: expected $4, ethtool -k says '$line'"
}

# link_dump DEV [NS]: the `ip -s link` counters (rtnl_link_stats64, what
# `ip -s link` prints; read through `ip -s -j link`) into the associative
# array LINK: rx_packets, rx_bytes, rx_errors, rx_dropped, tx_..., etc.
declare -gA LINK=()
link_dump() {
	local out dir kv
	out=$(ip ${2:+-n "$2"} -s -j link show dev "$1" 2>&1) || fail "ip -s -j link show dev $1 failed: $out"
	LINK=()
	for dir in rx tx; do
		[[ "$out" =~ \"$dir\":\{([^\}]*)\} ]] || fail "ip -s -j link $1: no $dir stats in: $out"
		for kv in ${BASH_REMATCH[1]//,/ }; do
			kv=${kv//\"/}
			LINK[${dir}_${kv%%:*}]=${kv#*:}
		done
	done
}
# link_stat DEV FIELD [NS]: one counter (FIELD as in link_dump).
link_stat() {
	link_dump "$1" "${3:-}"
	[ -n "${LINK[$2]+x}" ] || fail "ip -s link $1: no counter '$2' (have: ${!LINK[*]})"
	echo "${LINK[$2]}"
}
# sysfs_stat DEV FIELD: /sys/class/net/DEV/statistics/FIELD (root netns).
sysfs_stat() { _sysattr "$1" "statistics/$2" || fail "no /sys/class/net/$1/statistics/$2"; }

# assert_counters_agree DEV DIR [NS]: ethtool -S DIR_packets/DIR_bytes equal
# ip -s link's, and the per-channel DIRn_packets add up to DIR_packets. Read
# a few times in case a stray packet lands between the reads.
assert_counters_agree() {
	local dev=$1 dir=$2 ns=${3:-} i e_p e_b l_p l_b s_p n_p s_b
	for i in 1 2 3; do
		eth_dump "$dev" "$ns"
		link_dump "$dev" "$ns"
		e_p=$(eth_get "${dir}_packets"); e_b=$(eth_get "${dir}_bytes")
		l_p=${LINK[${dir}_packets]}; l_b=${LINK[${dir}_bytes]}
		read -r s_p n_p <<< "$(eth_sum "${dir}[0-9]+_packets")"
		read -r s_b _ <<< "$(eth_sum "${dir}[0-9]+_bytes")"
		[ "$e_p" == "$l_p" ] && [ "$e_b" == "$l_b" ] && [ "$s_p" == "$e_p" ] && [ "$s_b" == "$e_b" ] && break
		sleep 0.3
	done
	assert_eq "$dev ethtool ${dir}_packets vs ip -s link" "$l_p" "$e_p"
	assert_eq "$dev ethtool ${dir}_bytes vs ip -s link" "$l_b" "$e_b"
	assert_gt "$dev number of ${dir}N_packets counters" 0 "$n_p"
	assert_eq "$dev sum of ${dir}N_packets vs ${dir}_packets" "$e_p" "$s_p"
	assert_eq "$dev sum of ${dir}N_bytes vs ${dir}_bytes" "$e_b" "$s_b"
}

# snmp_get PROTO FIELD [NS]: a /proc/net/snmp value (e.g. Udp InCsumErrors).
snmp_get() {
	in_ns "${3:-}" cat /proc/net/snmp | awk -v p="$1:" -v f="$2" '
		$1 == p && !h { for (i = 2; i <= NF; i++) if ($i == f) c = i; h = 1; next }
		$1 == p && h { print $c; exit }'
}
# snmp6 FIELD [NS]: a /proc/net/snmp6 value (e.g. Udp6InCsumErrors); status 1
# (and nothing printed) when there is no such field.
snmp6() {
	local k v
	while read -r k v; do
		[ "$k" == "$1" ] && { echo "$v"; return 0; }
	done < <(in_ns "${2:-}" cat /proc/net/snmp6)
	return 1
}

# ---------------------------------------------------------------- conservation
# Packet conservation over one cable (Documentation/reliability.md): every
# frame port A put on the wire is counted exactly once by its peer B, in
# rx_packets or in a named drop. From ethtool -S:
#   sent(A)     = the CONS_TX counters of A - the CONS_TX_MINUS ones it has
#   received(B) = the CONS_RX counters of B (those marked ? only where B has them)
# tx_packets counts wire packets the device sent, at their completion (an
# LSO skb: its segments); packets posted and then flushed by a recovery or a
# close (never sent) count in tx_flushed instead. A's XDP frames go out on
# A's wire too: ndo_xdp_xmit (tx_xdp_xmit) and XDP_TX (rx_xdp_tx_xmit, A's
# own program), both counted when posted: those flushed unsent are taken off
# (tx_xdp_flushed, rx_xdp_tx_flushed), and so are those A's MAC discarded
# because the link was down (tx_discards_phy: B closed, say).
CONS_TX=(tx_packets tx_xdp_xmit rx_xdp_tx_xmit)
CONS_TX_MINUS=(tx_xdp_flushed? rx_xdp_tx_flushed? tx_discards_phy)
CONS_RX=(rx_packets rx_out_of_buffer rx_if_down_packets rx_oversize_pkts_buffer rx_malformed rx_steer_drop_packets
	rx_steer_missed_packets
	rx_wqe_err rx_flushed rx_skb_err? rx_xdp_drop rx_xdp_redirect rx_xdp_tx_xmit
	rx_cq_overrun rx_oversize_pkts_sw_drop?)

# _cons_sum SIGN NAME...: add (SIGN 1) or subtract (-1) the named counters of
# the last eth_dump to CONS_V, their "name=value" to CONS_T. A name ending
# in ? may be absent.
_cons_sum() {
	local sign=$1 c n; shift
	for c in "$@"; do
		n=${c%\?}
		if [ -z "${ETH[$n]+x}" ]; then
			[ "$n" != "$c" ] && continue
			fail "conservation: ethtool -S has no counter '$n'"
		fi
		CONS_V=$((CONS_V + sign * ETH[$n]))
		CONS_T+=" $n=${ETH[$n]}"
	done
}
# cons_read DEV [NS]: one ethtool -S of DEV: what it sent (CONS_SENT, terms
# in CONS_SENT_T) and what it counted as received (CONS_RECV, CONS_RECV_T).
cons_read() {
	eth_dump "$1" "${2:-}"
	CONS_V=0 CONS_T=
	_cons_sum 1 "${CONS_TX[@]}"
	_cons_sum -1 "${CONS_TX_MINUS[@]}"
	CONS_SENT=$CONS_V CONS_SENT_T=$CONS_T
	CONS_V=0 CONS_T=
	_cons_sum 1 "${CONS_RX[@]}"
	CONS_RECV=$CONS_V CONS_RECV_T=$CONS_T
}

# assert_conserved LABEL A NS_A B NS_B: sent(A) == received(B) and
# sent(B) == received(A). Call with the traffic stopped: frames the device
# placed but NAPI has not polled yet are waited for (up to 10 reads of both
# ports, 0.3 s apart, which also absorb a stray ARP between the two reads).
# On failure prints every term of both sides. CONS_AB: sent(A).
assert_conserved() {
	local label=$1 a=$2 nsa=$3 b=$4 nsb=$5 i sa sat ra rat sb sbt rb rbt
	for ((i = 0; i < 10; i++)); do
		cons_read "$a" "$nsa"; sa=$CONS_SENT sat=$CONS_SENT_T ra=$CONS_RECV rat=$CONS_RECV_T
		cons_read "$b" "$nsb"; sb=$CONS_SENT sbt=$CONS_SENT_T rb=$CONS_RECV rbt=$CONS_RECV_T
		[ "$sa" == "$rb" ] && [ "$sb" == "$ra" ] && break
		sleep 0.3
	done
	[ "$sa" == "$rb" ] ||
		fail "$label: packet conservation $a -> $b: sent $sa != received $rb (missing $((sa - rb))); sent by $a:$sat; counted by $b:$rbt"
	[ "$sb" == "$ra" ] ||
		fail "$label: packet conservation $b -> $a: sent $sb != received $ra (missing $((sb - ra))); sent by $b:$sbt; counted by $a:$rat"
	log "ok: $label: $a -> $b: $sa sent, all counted at $b ($(_cons_nonzero "$rbt")); $b -> $a: $sb sent, all counted ($(_cons_nonzero "$rat"))"
	CONS_AB=$sa
}
# the nonzero terms of a CONS_T string
_cons_nonzero() {
	local t out=()
	for t in $1; do [ "${t#*=}" == 0 ] || out+=("$t"); done
	echo "${out[*]}"
}

# ---------------------------------------------------------------- traffic
# ping_ok NS DST COUNT [PING ARGS...]: all COUNT replies must arrive.
ping_ok() {
	local ns=$1 dst=$2 count=$3 out rc=0; shift 3
	need_cmd ping
	out=$(in_ns "$ns" timeout $((count + 20)) ping -n -q -c "$count" -i 0.05 -W 2 -w $((count / 5 + 10)) "$@" "$dst" 2>&1) || rc=$?
	echo "$out" | grep -q ' 0% packet loss' && [ $rc -eq 0 ] ||
		fail "ping ${ns:+(netns $ns) }$* $dst: $(echo "$out" | grep -E 'packet loss|ping:' | head -n 2 | tr '\n' ' ') (status $rc)"
	log "ok: ping ${ns:+(netns $ns) }-c $count $* $dst: $(echo "$out" | grep -o '[0-9]* received')"
}

# tcp_verified LABEL [BYTES] [ADDR]: BYTES (default 4000000) of seeded data
# over TCP scx0 -> scx1 (tests/vm/xfer6.py; ADDR default ::ffff:$IP1, IPv4
# on v4-mapped sockets, or an IPv6 address of ns1); the receiver's SHA-256
# and length must be the sender's.
X6=$SCX_ROOT/tests/vm/xfer6.py
tcp_verified() {
	local out=$SCX_TEST_OUT/tcp-$1.recv sent got
	rm -f "$out"
	bg_start in_ns "$NS" timeout 120 python3 "$X6" tcp-recv 5302 "$out"
	wait_for 10 sh -c "ip netns exec $NS ss -Htln 'sport = :5302' | grep -q ." ||
		fail "$1: TCP receiver did not start"
	sent=$(timeout 120 python3 "$X6" tcp-send "${3:-::ffff:$IP1}" 5302 "${2:-4000000}") ||
		fail "$1: TCP sender failed"
	wait_for 20 test -s "$out" || fail "$1: TCP receiver wrote nothing"
	got=$(cat "$out")
	assert_eq "$1: TCP sha256 and length at the receiver" "$sent" "$got"
}

# udp_verified LABEL N MIN [K]: N patterned 1000-byte datagrams over UDP/IPv4
# scx0 -> scx1 (with K: K to a send, UDP GSO); at least MIN must arrive
# intact (each checked).
udp_verified() {
	local out=$SCX_TEST_OUT/udp-$1.recv n send=(udp-send)
	[ -z "${4:-}" ] || send=(udp-gso-send)
	rm -f "$out"
	bg_start in_ns "$NS" timeout 120 python3 "$X6" udp-recv 5303 "$2" "$out"
	wait_for 10 sh -c "ip netns exec $NS ss -Huln 'sport = :5303' | grep -q ." ||
		fail "$1: UDP receiver did not start"
	timeout 60 python3 "$X6" "${send[@]}" "::ffff:$IP1" 5303 "$2" ${4:+"$4"} || fail "$1: UDP sender failed"
	wait_for 60 test -s "$out" || fail "$1: UDP receiver wrote nothing"
	n=$(cat "$out")
	assert_ge "$1: intact UDP datagrams at the receiver (of $2)" "$3" "$n"
}

# iperf_server NS PORT: start `iperf3 -s` in NS in the background (JSON log
# in $SCX_TEST_OUT/iperf-server-PORT.json); waits until it listens.
iperf_server() {
	local ns=$1 port=$2
	need_cmd iperf3
	bg_start in_ns "$ns" iperf3 -s -p "$port" -J --logfile "$SCX_TEST_OUT/iperf-server-$port.json"
	local i out
	for ((i = 0; i < 40; i++)); do
		out=$(in_ns "$ns" ss -Htln "sport = :$port" 2>/dev/null) || true
		[ -n "$out" ] && return 0
		kill -0 "$BG_PID" 2>/dev/null || break
		sleep 0.25
	done
	fail "iperf3 server on port $port did not start: $(cat "$SCX_TEST_OUT/iperf-server-$port.json" 2>/dev/null | tail -n 3)"
}

# json_get FILE EXPR...: evaluate Python expressions on the JSON in FILE
# (as j); prints the values space-separated (one python start: slow in TCG).
json_get() {
	python3 -c 'import json,sys
j = json.load(open(sys.argv[1]))
print(" ".join(str(eval(e)) for e in sys.argv[2:]))' "$@"
}

# csum_errors NS: TCP + UDP InCsumErrors of netns NS ("" for the root).
csum_errors() { echo $(( $(snmp_get Tcp InCsumErrors "$1") + $(snmp_get Udp InCsumErrors "$1") )); }

# assert_pair_counters_agree: assert_counters_agree rx and tx for scx0 (root)
# and scx1 (netns $NS).
assert_pair_counters_agree() {
	local d ns
	for d in scx0 scx1; do
		ns=; [ $d == scx1 ] && ns=$NS
		assert_counters_agree $d rx "$ns"
		assert_counters_agree $d tx "$ns"
	done
}

# ---------------------------------------------------------------- pktgen
PG=/proc/net/pktgen

pg_cmd() {  # pg_cmd FILE CMD: write one pktgen command, check the result
	local f=$PG/$1 l; shift
	echo "$*" > "$f" || fail "pktgen: '$*' > $f failed"
	[ "${f##*/}" == pgctrl ] && return 0
	while IFS= read -r l; do
		[[ "$l" == *"Result: OK"* ]] && return 0
		[[ "$l" == *"Result:"* ]] && fail "pktgen: '$*' > $f: $l"
	done < "$f"
	fail "pktgen: '$*' > $f: no result line"
}

# pktgen_setup DEV COUNT DST_IP DST_MAC [DELAY_NS] [PKT_SIZE]: configure
# kpktgend_0 to send COUNT UDP packets of PKT_SIZE bytes (default 60, FCS not
# included; COUNT 0 = until stopped) from DEV (root netns) to DST_MAC, with
# random UDP source ports (so RSS spreads them) and DELAY_NS between packets
# (pktgen busy-waits delays under 100 us and sleeps on an hrtimer above, which
# under TCG costs milliseconds per packet: pace with <= 50000).
pktgen_setup() {
	pktgen_setup_mt "$1" 1 "${@:2}"
}

# pktgen_setup_mt DEV THREADS COUNT DST_IP DST_MAC [DELAY_NS] [PKT_SIZE]: as
# pktgen_setup, from THREADS pktgen threads at once (kpktgend_0..N-1, one per
# CPU): thread 0 sends as device DEV, thread K > 0 as "DEV@K"; each sends
# COUNT packets with its own sequence numbers 1..COUNT. PG_DEVS lists the
# pktgen device names.
PG_DEVS=()
pktgen_setup_mt() {
	local dev=$1 threads=$2 try k
	[ -d $PG ] || modprobe pktgen || fail "modprobe pktgen failed"
	[ "$threads" -le "$(nproc)" ] || fail "pktgen: $threads threads but $(nproc) CPUs"
	pg_cmd pgctrl reset
	# "reset" and "rem_device_all" only flag the threads, which act on it
	# when they next run (pktgen waits 125 ms for that; a busy TCG guest can
	# take longer and then remove a device added since): check, and redo.
	for ((try = 0; try < 5; try++)); do
		_pg_setup_devs "$@" || { sleep 0.3; continue; }
		sleep 0.2
		for k in "${PG_DEVS[@]}"; do [ -e "$PG/$k" ] || continue 2; done
		return 0
	done
	fail "pktgen: the setup of ${PG_DEVS[*]} did not hold in 5 attempts (a device removed meanwhile, or a command refused: $(grep -h "Result:" "$PG/${PG_DEVS[0]}" 2>/dev/null))"
}
# _pg_setup_devs DEV THREADS COUNT DST_IP DST_MAC [DELAY_NS] [PKT_SIZE]:
# one attempt of pktgen_setup_mt (status 1 if a device vanished meanwhile).
_pg_setup_devs() {
	local dev=$1 threads=$2 count=$3 dst=$4 mac=$5 delay=${6:-0} size=${7:-0} k name c
	[ "$size" -gt 0 ] || size=60
	PG_DEVS=()
	for ((k = 0; k < threads; k++)); do
		name=$dev; [ $k -eq 0 ] || name=$dev@$k
		PG_DEVS+=("$name")
		pg_cmd kpktgend_$k rem_device_all
		pg_cmd kpktgend_$k add_device "$name"
		for c in "count $count" "clone_skb 0" "pkt_size $size" "delay $delay" \
			"flag NO_TIMESTAMP" "dst_mac $mac" "dst_min $dst" "dst_max $dst" \
			"flag UDPSRC_RND" "udp_src_min 9" "udp_src_max 1009"; do
			# (a write error: the device went meanwhile)
			{ echo "$c" > "$PG/$name"; } 2>/dev/null || return 1
			grep -q 'Result: OK' "$PG/$name" 2>/dev/null || return 1
		done
	done
}

# pg_sent NAME: packets pktgen device NAME reports sent (pkts-sofar).
pg_sent() {
	local l re='pkts-sofar: ([0-9]+)'
	while IFS= read -r l; do
		[[ "$l" =~ $re ]] && { echo "${BASH_REMATCH[1]}"; return 0; }
	done < "$PG/$1"
	fail "pktgen: no pkts-sofar in $PG/$1"
}

# pktgen_sent LABEL COUNT BURST SENT: check what pktgen_run reported and
# print the number to count with. With a burst, pktgen checks its count only
# between bursts, so a burst cut short by a stopped queue makes it overshoot
# by up to BURST - 1; without one it sends exactly COUNT.
pktgen_sent() {
	local label=$1 count=$2 burst=$3 sent=$4
	if [ "$burst" -gt 1 ]; then
		{ [ "$sent" -ge "$count" ] && [ "$sent" -lt $((count + burst)) ]; } ||
			fail "$label: pktgen sent $sent, not $count..$((count + burst - 1)) (burst $burst)"
	else
		[ "$sent" == "$count" ] || fail "$label: pktgen sent $sent, not $count"
	fi
	echo "$sent"
}

# pktgen_run DEV SECS: start and wait for the run to end (at most SECS);
# prints the number of packets pktgen reports sent (by all of PG_DEVS).
pktgen_run() {
	local dev=$1 secs=$2 rc=0
	timeout "$secs" sh -c "echo start > $PG/pgctrl" || rc=$?
	if [ $rc -ne 0 ]; then
		echo stop > $PG/pgctrl 2>/dev/null || true
		fail "pktgen on $dev did not finish within ${secs}s (status $rc): $(grep -E 'Result|sofar' $PG/"$dev" 2>/dev/null | tr '\n' ' ')"
	fi
	local d n=0
	for d in "${PG_DEVS[@]:-$dev}"; do n=$((n + $(pg_sent "$d"))); done
	echo "$n"
}

# ---------------------------------------------------------------- stress
# The stress tests (t-stress-*.sh): STRESS_CYCLES cycles of one operation,
# each under traffic scx0 -> scx1 (pair_setup layout): an iperf3 TCP run and
# a paced pktgen stream (10.11.0.250, dropped by ns1's stack after being
# counted). After each cycle, with the traffic stopped: no WARN/BUG/page_pool
# line in the kernel log since the cycle began, and packet conservation in
# both directions (assert_conserved). SCX_STRESS_CYCLES sets the count
# (make check: 5; make stress: 100).
STRESS_CYCLES=${SCX_STRESS_CYCLES:-5}
STRESS_FLUSHED=0
STRESS_PORT=5201
# stress_setup [PARAMS...]: load, pair up, iperf3 server in ns1.
stress_setup() {
	need_cmd iperf3
	scx_setup "$@"
	STRESS_MAC1=$(dev_mac scx1 "$NS")
	iperf_server "$NS" $STRESS_PORT
	STRESS_SRV=$BG_PID
	STRESS_MARK=
}
# stress_traffic_start: iperf3 TCP scx0 -> scx1 for 1 s and pktgen (one
# 60-byte packet every 20 us until stopped) in the background; marks the
# kernel log.
stress_traffic_start() {
	STRESS_MARK="softcx-stress: $TEST_NAME cycle $RANDOM$RANDOM"
	echo "<6>$STRESS_MARK" > /dev/kmsg
	bg_start timeout 30 iperf3 -c "$IP1" -p $STRESS_PORT -t 1 --connect-timeout 3000 \
		--logfile "$SCX_TEST_OUT/iperf-client.log"
	STRESS_IPERF=$BG_PID
	pktgen_setup scx0 0 10.11.0.250 "$STRESS_MAC1" 20000 60
	bg_start sh -c "echo start > $PG/pgctrl"
	STRESS_PG=$BG_PID
}
# stress_traffic_stop: pktgen stopped (it also ends by itself when scx0 loses
# carrier), the iperf3 run waited for (it is not required to succeed: some
# operations break its connection); its exit status in STRESS_IPERF_RC; the
# CPUs' skb defer lists emptied (flush_skb_defer_lists) when the last time
# is 20 s or more ago.
stress_traffic_stop() {
	STRESS_IPERF_RC=0
	echo stop > $PG/pgctrl 2>/dev/null || true
	bg_stop "$STRESS_PG"
	wait "$STRESS_IPERF" 2>/dev/null || STRESS_IPERF_RC=$?
	# pages of destroyed pools held by freed skbs on idle CPUs (kernel-log.sh):
	# well within the kernel's 60 s, not at every cycle (execs are slow)
	if ((SECONDS - STRESS_FLUSHED >= 20)); then
		flush_skb_defer_lists
		STRESS_FLUSHED=$SECONDS
	fi
}
# stress_kernel_log_clean LABEL: no BAD_RE line in the kernel log since
# stress_traffic_start.
stress_kernel_log_clean() {
	local bad
	bad=$(dmesg_since "$STRESS_MARK" | bad_lines)
	[ -z "$bad" ] || fail "$1: kernel log: $(echo "$bad" | head -n 3 | tr '\n' ' ')"
}
# stress_check LABEL: the kernel log is clean and the packets add up over
# scx0 <-> scx1 (assert_conserved); STRESS_SENT: scx0's sent figure.
stress_check() {
	stress_kernel_log_clean "$1"
	assert_conserved "$1" scx0 "" scx1 "$NS"
	STRESS_SENT=$CONS_AB
}
# stress_loop OP: STRESS_CYCLES cycles of: traffic start, `OP CYCLE` (which
# sets STRESS_WHAT, what it did), traffic stop, stress_check. scx0 must have
# sent more than in the cycle before (the traffic ran), and at least one
# iperf3 run of all must have completed.
stress_loop() {
	local op=$1 i ok=0 prev=0 t0=$SECONDS t1 t2 t3
	for ((i = 1; i <= STRESS_CYCLES; i++)); do
		t1=${EPOCHREALTIME/./}
		stress_traffic_start
		sleep 0.3
		STRESS_WHAT=
		"$op" "$i"
		t2=${EPOCHREALTIME/./}
		stress_traffic_stop
		t3=${EPOCHREALTIME/./}
		[ "$STRESS_IPERF_RC" != 0 ] || ok=$((ok + 1))
		stress_check "cycle $i ($STRESS_WHAT)"
		log "cycle $i: traffic and operation $(((t2 - t1) / 1000)) ms, traffic stop $(((t3 - t2) / 1000)) ms, checks $(((${EPOCHREALTIME/./} - t3) / 1000)) ms"
		assert_gt "cycle $i: packets scx0 sent since the load" "$prev" "$STRESS_SENT"
		prev=$STRESS_SENT
	done
	log "$STRESS_CYCLES cycles of $op in $((SECONDS - t0)) s; iperf3 runs completed: $ok of $STRESS_CYCLES"
	assert_gt "iperf3 runs that completed" 0 "$ok"
}

# ---------------------------------------------------------------- BPF / XDP
# The test BPF programs (tests/bpf/*.c) are compiled with clang in the test
# run. bpf_build: use <repo>/build/bpf when `make -C tests/bpf` already built
# it up to date (on the host before the VM boots), else build into
# $SCX_RESULTS/bpf (writable inside the VM; shared by the tests of one run).
# Sets BPF to the directory holding NAME.o.
bpf_build() {
	local src=$SCX_ROOT/tests/bpf out rc=0
	need_cmd clang make bpftool
	if make -s -q -C "$src" OUT="$SCX_ROOT/build/bpf" >/dev/null 2>&1; then
		BPF=$SCX_ROOT/build/bpf
	else
		out=${SCX_RESULTS:-$SCX_TEST_OUT}/bpf
		out=$(make -s -C "$src" OUT="$out" 2>&1) || rc=$?
		[ $rc -eq 0 ] || fail "building tests/bpf failed: $(echo "$out" | tail -n 5 | tr '\n' ' ')"
		BPF=${SCX_RESULTS:-$SCX_TEST_OUT}/bpf
	fi
	# The guest cannot autoload modules (its usermode helper runs outside
	# the chroot): clsact and cls_bpf for the tc programs.
	modprobe -a sch_ingress cls_bpf || fail "modprobe sch_ingress cls_bpf failed"
	# libxdp (xdp-loader, xdp-bench) pins its dispatcher in a bpffs; not
	# under /sys, which `ip netns exec` remounts.
	mkdir -p /run/scx-bpffs
	mountpoint -q /run/scx-bpffs || mount -t bpf bpf /run/scx-bpffs || fail "cannot mount bpffs"
	export LIBXDP_BPFFS=/run/scx-bpffs
	log "BPF objects in $BPF"
}

# bpf_pin NAME...: load $BPF/NAME.o once (bpftool, its maps included) and
# pin the program as $BPF_PIN/NAME, for `ip link set ... xdp pinned PATH`
# (no ELF parsing and verification per attach: fast under TCG).
BPF_PIN=/run/scx-bpffs/progs
bpf_pin() {
	local n
	mkdir -p "$BPF_PIN"
	for n in "$@"; do
		rm -f "$BPF_PIN/$n"
		bpftool prog load "$BPF/$n.o" "$BPF_PIN/$n" type xdp ||
			fail "bpftool prog load $BPF/$n.o failed"
	done
}

# xdp_attached DEV [NS]: "MODE PROG_ID" of the XDP program on DEV (MODE as
# in `ip -j link`: 1 native/driver, 2 generic/skb, 3 offload), empty if none.
xdp_attached() {
	local out re='"xdp":\{"mode":([0-9]+),"prog":\{"id":([0-9]+)'
	out=$(ip ${2:+-n "$2"} -j link show dev "$1")
	[[ "$out" =~ $re ]] && echo "${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
	return 0
}

# xdp_attach DEV NS OBJ [KIND] [SEC]: `ip link set dev DEV KIND obj OBJ sec SEC`
# (KIND: xdp (default), xdpdrv, xdpgeneric, xdpoffload; SEC: xdp (default),
# xdp.frags), must succeed.
xdp_attach() {
	local dev=$1 ns=$2 obj=$3 kind=${4:-xdp} sec=${5:-xdp} out rc=0
	out=$(ip ${ns:+-n "$ns"} link set dev "$dev" "$kind" obj "$obj" sec "$sec" 2>&1) || rc=$?
	[ $rc -eq 0 ] || fail "attach ${obj##*/} ($kind) to $dev: status $rc: $(echo "$out" | grep -v '^$' | tail -n 4 | tr '\n' ' ')"
	[ -n "$(xdp_attached "$dev" "$ns")" ] || fail "attach ${obj##*/} to $dev: ip link shows no XDP program"
}
# xdp_detach DEV [NS]
xdp_detach() {
	ip ${2:+-n "$2"} link set dev "$1" xdp off
	[ -z "$(xdp_attached "$1" "${2:-}")" ] || fail "$1: XDP program still attached after 'xdp off'"
}

# bpf_map_id NAME: id of the newest BPF map called NAME (maps are not per
# netns); fails if there is none.
bpf_map_id() {
	local out id='' re="\"id\":([0-9]+),\"type\":\"[a-z_]+\",\"name\":\"$1\""
	out=$(bpftool -j map show)
	while [[ "$out" =~ $re ]]; do
		id=${BASH_REMATCH[1]}
		out=${out#*"${BASH_REMATCH[0]}"}
	done
	[ -n "$id" ] || fail "no BPF map named $1"
	echo "$id"
}

# bpf_map_dump ID: the u64 values of array map ID into the array BPFV
# (index = key), from one `bpftool map dump`.
declare -ga BPFV=()
bpf_map_dump() {
	local out re='"formatted":\{"key":([0-9]+),"value":([0-9]+)\}'
	out=$(bpftool -j map dump id "$1") || fail "bpftool map dump id $1 failed"
	BPFV=()
	while [[ "$out" =~ $re ]]; do
		BPFV[BASH_REMATCH[1]]=${BASH_REMATCH[2]}
		out=${out#*"${BASH_REMATCH[0]}"}
	done
	[ ${#BPFV[@]} -gt 0 ] || fail "bpftool map dump id $1: no values"
}

# u32le N: the 4 bytes of N, little endian, as bpftool arguments.
u32le() { echo $(($1 & 255)) $(($1 >> 8 & 255)) $(($1 >> 16 & 255)) $(($1 >> 24 & 255)); }
# bpf_map_set_u32 ID KEY VALUE [NS]: map ID[KEY] = VALUE (u32 keys and values),
# from netns NS (a devmap resolves the ifindex in the caller's netns).
bpf_map_set_u32() {
	local -a k v
	read -r -a k <<< "$(u32le "$2")"; read -r -a v <<< "$(u32le "$3")"
	in_ns "${4:-}" bpftool map update id "$1" key "${k[@]}" value "${v[@]}" ||
		fail "bpftool map update id $1 key $2 value $3 failed"
}

# chk_attach DEV NS [DST_MAC SRC_MAC [TRAILER]]: tests/bpf/tc_check.o on
# DEV's clsact ingress (needs bpf_build); with MACs, frames must carry them;
# TRAILER: bytes xdp_tail appends. Sets CHK (its counter map's id).
chk_attach() {
	local dev=$1 ns=$2 dst=${3:-} src=${4:-} trailer=${5:-0} cfg
	local -a bytes
	in_ns "$ns" tc qdisc replace dev "$dev" clsact
	in_ns "$ns" tc filter replace dev "$dev" ingress pref 1 handle 1 bpf direct-action \
		obj "$BPF/tc_check.o" sec tc 2>&1 | grep -v '^$' | tail -n 3 >&2 || true
	in_ns "$ns" tc filter show dev "$dev" ingress | grep -q 'tc_check' ||
		fail "tc_check not attached to $dev ingress"
	cfg=$(bpf_map_id chk_cfg); CHK=$(bpf_map_id chk_cnt)
	if [ -n "$dst" ]; then
		read -r -a bytes <<< "${dst//:/ } ${src//:/ } 01 00 00 00 $(printf '%02x ' $((trailer & 255)) $((trailer >> 8 & 255))) 00 00"
		bpftool map update id "$cfg" key 0 0 0 0 value hex "${bytes[@]}"
	fi
	log "tc_check on $dev ingress (counter map $CHK${dst:+, MACs $dst <- $src}, trailer $trailer)"
}
# chk_read ID: counters of a tc_check map: CHK_OK CHK_BAD_L2 CHK_BAD_HDR
# CHK_BAD_PAYLOAD CHK_OTHER CHK_BYTES CHK_SEQSUM.
# shellcheck disable=SC2034
chk_read() {
	bpf_map_dump "$1"
	CHK_OK=${BPFV[0]} CHK_BAD_L2=${BPFV[1]} CHK_BAD_HDR=${BPFV[2]} CHK_BAD_PAYLOAD=${BPFV[3]}
	CHK_OTHER=${BPFV[4]} CHK_BYTES=${BPFV[5]} CHK_SEQSUM=${BPFV[6]}
}
# chk_detach DEV [NS]
chk_detach() { in_ns "${2:-}" tc qdisc del dev "$1" clsact 2>/dev/null || true; }

# xdp_exc_start / xdp_exc_count [ACTION] / xdp_exc_stop: count
# xdp:xdp_exception tracepoint hits (trace_xdp_exception) in a tracefs
# instance of our own (run-all.sh uses the main buffer for page_pool_release);
# xdp_exc_count prints the hits since xdp_exc_start whose action is ACTION
# (e.g. XDP_ABORTED), or all of them.
XDP_TI=/sys/kernel/tracing/instances/scx_xdp
xdp_exc_start() {
	[ -d /sys/kernel/tracing/instances ] || mount -t tracefs nodev /sys/kernel/tracing ||
		fail "cannot mount tracefs"
	[ -d $XDP_TI ] || mkdir $XDP_TI || fail "cannot create tracefs instance $XDP_TI"
	echo 0 > $XDP_TI/tracing_on
	echo 1024 > $XDP_TI/buffer_size_kb
	: > $XDP_TI/trace
	echo 1 > $XDP_TI/events/xdp/xdp_exception/enable
	echo 1 > $XDP_TI/tracing_on
}
xdp_exc_count() {
	local n
	n=$(grep -c "xdp_exception:.*${1:-}" $XDP_TI/trace || true)
	echo "${n:-0}"
}
xdp_exc_stop() {
	[ -d $XDP_TI ] || return 0
	echo 0 > $XDP_TI/events/xdp/xdp_exception/enable
	rmdir $XDP_TI 2>/dev/null || true
}

# fwd_selftest SCRIPT TESTS MIN IF...: run one of the kernel's forwarding
# tests (tools/testing/selftests/net/forwarding, extracted by
# scripts/kselftest.sh) unchanged on the ports IF... (its NETIFS p1, p2,
# ...), with only the test cases TESTS (empty: all of them). It must exit 0,
# report no TEST line that is not OK, and at least MIN that are.
FWD_DIR=$SCX_ROOT/build/kselftest/src/net/forwarding
fwd_selftest() {
	local script=$1 tests=$2 min=$3 out rc=0 ok bad
	shift 3
	[ -f "$FWD_DIR/$script" ] ||
		fail "$FWD_DIR/$script not extracted (scripts/kselftest.sh; make vm-test runs it)"
	out=$(cd "$FWD_DIR" && TESTS="$tests" bash "./$script" "$@" 2>&1) || rc=$?
	echo "$out" | sed "s/^/  $script: /"
	[ $rc -eq 0 ] || fail "$script exited $rc"
	ok=$(echo "$out" | grep -c '^TEST: .*\[ *OK *\]' || true)
	bad=$(echo "$out" | grep '^TEST: ' | grep -vc '\[ *OK *\]' || true)
	[ "$bad" -eq 0 ] || fail "$script: $bad test(s) not OK"
	[ "$ok" -ge "$min" ] || fail "$script: only $ok test(s) ran"
	log "ok: $script: $ok tests passed"
}
