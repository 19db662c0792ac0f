# SPDX-License-Identifier: GPL-2.0
# Sourced by the VM benchmarks (after tests/vm/lib.sh): the two senders side
# by side, softcx scx0 -> scx1 (netns $NS_S) and veth0 -> veth1 (netns $NS_V),
# each receiver in a netns without addresses so IP drops the frames cheaply.
# Sets MAC_S and MAC_V, the receivers' MACs.
# bench_scx_pair NS [PARAMS...]: load softcx with PARAMS, scx0 up in the root
# netns, scx1 up in netns NS (created if needed, no addresses); sets MAC to
# scx1's MAC.
bench_scx_pair() {
	local ns=$1; shift
	scx_load "$@"
	ns_create "$ns"
	sysctl -qw net.ipv6.conf.scx0.disable_ipv6=1
	ip link set scx1 netns "$ns"
	ip link set scx0 up
	ip -n "$ns" link set scx1 up
	wait_carrier scx0
	wait_carrier scx1 "$ns"
	MAC=$(dev_mac scx1 "$ns")
}

# bench_napi_thread DEV NS CPU: DEV's NAPI (in netns NS, "" for the root) threaded, polled from a timer
# (napi_defer_hard_irqs 100, gro_flush_timeout 1 ms), its kthreads pinned
# to CPU: the receiver's work on a vCPU of its own.
bench_napi_thread() {
	local dev=$1 ns=$2 cpu=$3 p
	in_ns "$ns" sh -c "echo 1 > /sys/class/net/$dev/threaded && echo 100 > /sys/class/net/$dev/napi_defer_hard_irqs &&
		echo 1000000 > /sys/class/net/$dev/gro_flush_timeout" || fail "cannot make $dev's NAPI threaded"
	for p in $(pgrep "^napi/$dev-"); do
		taskset -p -c "$cpu" "$p" > /dev/null || fail "cannot pin napi kthread $p to CPU $cpu"
	done
}

# SCX_BENCH_SCX_PARAMS: more module parameters (e.g. "dma_view=0").
# SCX_BENCH_COALESCE: `ethtool -C` arguments for scx0 and scx1 once up, e.g.
# "adaptive-rx off adaptive-tx off rx-usecs 0 rx-frames 1 tx-usecs 0
# tx-frames 1": interrupt moderation off, so that instruction counts do not
# depend on when the moderation timers fire.
# SCX_BENCH_PRIVFLAGS: `ethtool --set-priv-flags` arguments for scx0 and
# scx1, e.g. "rx_cqe_moder off" (the RX period starts from the event).
bench_setup_pairs() {
	modprobe pktgen
	modprobe veth
	# shellcheck disable=SC2086
	scx_load channels=1 ${SCX_BENCH_SCX_PARAMS:-}
	ns_create "$NS_S"
	ns_create "$NS_V"
	sysctl -qw net.ipv6.conf.scx0.disable_ipv6=1
	ip link set scx1 netns "$NS_S"
	ip link add veth0 type veth peer name veth1 netns "$NS_V"
	sysctl -qw net.ipv6.conf.veth0.disable_ipv6=1
	ip link set scx0 up
	ip link set veth0 up
	ip -n "$NS_S" link set scx1 up
	ip -n "$NS_V" link set veth1 up
	wait_carrier scx0
	wait_carrier veth0
	wait_carrier scx1 "$NS_S"
	wait_carrier veth1 "$NS_V"
	MAC_S=$(dev_mac scx1 "$NS_S")
	MAC_V=$(dev_mac veth1 "$NS_V")
	if [ -n "${SCX_BENCH_COALESCE:-}" ]; then
		# shellcheck disable=SC2086
		ethtool -C scx0 $SCX_BENCH_COALESCE || fail "ethtool -C scx0 $SCX_BENCH_COALESCE"
		# shellcheck disable=SC2086
		in_ns "$NS_S" ethtool -C scx1 $SCX_BENCH_COALESCE || fail "ethtool -C scx1 $SCX_BENCH_COALESCE"
		log "scx0, scx1: ethtool -C $SCX_BENCH_COALESCE"
	fi
	if [ -n "${SCX_BENCH_PRIVFLAGS:-}" ]; then
		# shellcheck disable=SC2086
		ethtool --set-priv-flags scx0 $SCX_BENCH_PRIVFLAGS || fail "priv flags scx0"
		# shellcheck disable=SC2086
		in_ns "$NS_S" ethtool --set-priv-flags scx1 $SCX_BENCH_PRIVFLAGS || fail "priv flags scx1"
		log "scx0, scx1: ethtool --set-priv-flags $SCX_BENCH_PRIVFLAGS"
	fi
}

# pg_detach_all: detach every device from kpktgend_0 and wait until the
# thread has done it. pktgen's rem_device_all only sleeps 125 ms for the
# thread to act; a slow TCG guest may not have removed the old device by
# then, and an add_device right after can see its /proc entry vanish
# (reads fail with EIO). Waits up to 20 s.
pg_detach_all() {
	local t l busy
	pg_cmd kpktgend_0 rem_device_all
	for ((t = 0; t < 200; t++)); do
		busy=0
		while IFS= read -r l; do
			[[ "$l" =~ ^(Running|Stopped):\ *[^\ ] ]] && busy=1
		done < "$PG/kpktgend_0"
		[ $busy -eq 0 ] && return 0
		sleep 0.1
	done
	fail "pktgen: kpktgend_0 still has devices 20 s after rem_device_all: $(tr '\n' ' ' < "$PG/kpktgend_0")"
}
