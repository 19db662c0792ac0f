#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 400
#
# insmod/rmmod softcx 20 times, cycling through parameter sets. After each
# insmod exactly the ports of nr_pairs pairs exist (scx0..scx(2N-1), not
# scx(2N)) and `ethtool -i` says driver softcx; after rmmod they are gone.
source "$(dirname "$0")/lib.sh"
need_cmd insmod rmmod ethtool modinfo

[ -f "$SCX_KO" ] || fail "$SCX_KO not built (make module)"
parms=$(modinfo -F parm "$SCX_KO")
for p in nr_pairs channels model; do
	grep -q "^$p:" <<< "$parms" || fail "modinfo: no parameter '$p' (have: $(echo "$parms" | cut -d: -f1 | tr '\n' ' '))"
done
log "ok: modinfo lists nr_pairs, channels, model"

# Parameter sets and the number of pairs each creates.
sets=("" "nr_pairs=2 channels=2 model=cx4" "channels=1 model=cx6dx" "model=cx5 nr_pairs=1" "nr_pairs=2")
pairs=(1 2 1 1 2)

for ((i = 0; i < 20; i++)); do
	k=$((i % ${#sets[@]}))
	# shellcheck disable=SC2086
	scx_load ${sets[$k]}
	np=${pairs[$k]}
	for ((d = 0; d < 2 * np; d++)); do
		dev_exists "scx$d" || fail "iteration $i (${sets[$k]:-defaults}): scx$d missing after insmod (have: $(ls /sys/class/net | tr '\n' ' '))"
	done
	dev_exists "scx$((2 * np))" && fail "iteration $i (${sets[$k]:-defaults}): scx$((2 * np)) exists with nr_pairs=$np"
	drv=$(ethtool -i "scx$((2 * np - 1))")
	[[ "$drv" =~ (^|$'\n')driver:\ softcx($'\n'|$) ]] ||
		fail "iteration $i: ethtool -i scx$((2 * np - 1)) does not say 'driver: softcx': $(echo "$drv" | head -n 1)"
	[ $i -lt 5 ] && { drv=$(ethtool -i scx0); [[ "$drv" =~ (^|$'\n')driver:\ softcx($'\n'|$) ]] ||
		fail "iteration $i: ethtool -i scx0 does not say 'driver: softcx': $(echo "$drv" | head -n 1)"; }
	scx_unload
	for ((d = 0; d < 2 * np; d++)); do
		dev_exists "scx$d" && fail "iteration $i: scx$d still exists after rmmod"
	done
	log "ok: iteration $i (${sets[$k]:-defaults}): $((2 * np)) ports, driver softcx, gone after rmmod"
done

# And once with traffic-ready ports: both pairs can come up at the same time.
scx_load nr_pairs=2 channels=2
for d in scx0 scx1 scx2 scx3; do ip link set "$d" up; done
wait_carrier scx0; wait_carrier scx1; wait_carrier scx2; wait_carrier scx3
scx_unload
dev_exists scx0 && fail "scx0 still exists after rmmod of running ports"
log "ok: rmmod with all four ports up"
