#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 150
#
# Out-of-range module parameters make insmod fail, with a kernel log line
# that names the parameter, and leave no module or port behind. Settings
# whose queues cannot fit the machine's RAM (the core's estimate: two
# channel sets per port, RX buffers for MTU 9978) are refused with the
# figures; a large setting that fits loads.
source "$(dirname "$0")/lib.sh"
need_cmd insmod

[ -f "$SCX_KO" ] || fail "$SCX_KO not built (make module)"

# Control: a valid set loads (so the failures below are about the values).
scx_load nr_pairs=1 channels=1 model=cx7
scx_unload

n=0
for bad in nr_pairs=0 nr_pairs=100 channels=1000 model=cx9; do
	name=${bad%%=*}
	mark="softcx-vm-test-params-$n-$RANDOM"; n=$((n + 1))
	echo "<6>$mark" > /dev/kmsg
	rc=0
	out=$(scx_insmod "$bad" 2>&1) || rc=$?
	if [ $rc -eq 0 ]; then
		scx_unload
		fail "insmod softcx.ko $bad succeeded; it must fail"
	fi
	scx_loaded && fail "insmod $bad failed ($rc) but /sys/module/softcx exists"
	dev_exists scx0 && fail "insmod $bad failed but scx0 exists"
	msgs=$(dmesg | sed -n "/$mark/,\$p" | tail -n +2)
	grep -qw -- "$name" <<< "$msgs" ||
		fail "insmod $bad failed ($rc) but no kernel log line names '$name'; log: $(echo "$msgs" | tail -n 3 | tr '\n' ' ')"
	log "ok: insmod $bad refused (status $rc): $(grep -w -- "$name" <<< "$msgs" | head -n 1 | sed 's/^\[[ 0-9.]*\] //')"
done

# Memory: nr_pairs=8 channels=64 (16 ports x 64 channels, tens of GiB of
# rings and jumbo buffers) cannot fit this guest (2 GiB).
mark="softcx-vm-test-params-mem-$RANDOM"
echo "<6>$mark" > /dev/kmsg
rc=0
out=$(scx_insmod nr_pairs=8 channels=64 2>&1) || rc=$?
if [ $rc -eq 0 ]; then
	scx_unload
	fail "insmod softcx.ko nr_pairs=8 channels=64 succeeded on a $(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE) >> 20)) MiB machine; it must be refused"
fi
scx_loaded && fail "insmod nr_pairs=8 channels=64 failed ($rc) but /sys/module/softcx exists"
dev_exists scx0 && fail "insmod nr_pairs=8 channels=64 failed but scx0 exists"
[[ "$out" == *"Cannot allocate memory"* ]] || fail "insmod nr_pairs=8 channels=64: expected ENOMEM, got: $out"
msg=$(dmesg | sed -n "/$mark/,\$p" | grep -m1 'nr_pairs=8 channels=64' || true)
re='may take ([0-9]+) MiB .* RAM \(([0-9]+) MiB\)'
[[ "$msg" =~ $re ]] || fail "insmod nr_pairs=8 channels=64 refused ($rc) but no kernel log line with the figures; log: $(dmesg | sed -n "/$mark/,\$p" | tail -n 3 | tr '\n' ' ')"
need=${BASH_REMATCH[1]} avail=${BASH_REMATCH[2]}
assert_gt "MiB needed by nr_pairs=8 channels=64 vs MiB available" "$avail" "$need"
# 16 ports * 64 channels * 2 sets * 1024 RX buffers of 16 KiB: at least 32 GiB
assert_ge "MiB needed by nr_pairs=8 channels=64" 32768 "$need"
log "ok: refused: ${msg#*] }"

# A large setting that fits: 4 ports of 4 channels (about 0.5 GiB at worst) loads.
scx_load nr_pairs=2 channels=4
dev_exists scx3 || fail "nr_pairs=2 channels=4: scx3 missing"
assert_eq "scx3 TX queues" 4 "$(ls -d /sys/class/net/scx3/queues/tx-* | wc -l)"
scx_unload

# The module still loads after the refusals.
scx_load
dev_exists scx1 || fail "scx1 missing after a valid insmod following refused ones"
