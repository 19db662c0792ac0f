# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What in the kernel log means a test broke the kernel: sourced by run-all.sh
# (after every test) and lib.sh (stress tests, after every cycle).

# Lines that mean the kernel is hurt. The two taint lines of loading an
# unsigned out-of-tree module are expected.
BAD_RE='WARNING:|WARN_ON|\bWARN\b|BUG:|kernel BUG|Oops|general protection fault|'
BAD_RE+='page_pool.*(leak|in-?flight|stalled)|still in-flight|'
BAD_RE+='lockdep|possible circular locking|possible recursive locking|inconsistent lock state|'
BAD_RE+='suspicious RCU usage|DEADLOCK|objtool|Call Trace|KASAN|UBSAN|refcount_t|'
BAD_RE+='unreferenced object|blocked for more than|soft lockup|hard LOCKUP|rcu_sched detected stall|'
BAD_RE+='unregister_netdevice: waiting for|NETDEV WATCHDOG|Bad page|list_add corruption|list_del corruption|'
BAD_RE+='hw csum failure'
OK_RE='loading out-of-tree module taints kernel|module verification failed: signature and/or required key missing - tainting kernel'

# dmesg_since MARK: kernel log lines after the last line containing MARK
# (the whole log if MARK has been rotated out).
dmesg_since() {
	dmesg | awk -v m="$1" '{ l[NR] = $0; if (index($0, m)) s = NR } END { for (i = s + 1; i <= NR; i++) print l[i] }'
}
# bad_lines: the BAD_RE lines of stdin, expected ones left out.
bad_lines() { grep -E "$BAD_RE" | grep -Ev "$OK_RE" || true; }

# Kernel 6.1 frees TCP RX skbs through the allocating CPU's defer list
# (skb_attempt_defer_free), which is emptied only when that CPU runs NET_RX:
# an idle CPU can hold a freed skb, and its page_pool page, indefinitely
# (long enough for the kernel's "stalled pool shutdown" message 60 s after
# a channel set was destroyed). A loopback ping from each CPU runs NET_RX
# there and empties the list. run-all.sh does this after each test, the
# stress tests after each cycle.
flush_skb_defer_lists() {
	local c pids=() f
	{ read -r f < /sys/class/net/lo/flags; } 2>/dev/null || f=0
	(( f & 1 )) || ip link set lo up 2>/dev/null
	for ((c = 0; c < $(nproc); c++)); do
		taskset -c $c ping -n -q -c 1 -W 1 127.0.0.1 >/dev/null 2>&1 &
		pids+=($!)
	done
	wait "${pids[@]}" 2>/dev/null || true
}
