#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 150
#
# Out-of-range module parameters make insmod fail, with a kernel log line
# that names the parameter, and leave no module or port behind.
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

# The module still loads after the refusals.
scx_load
dev_exists scx1 || fail "scx1 missing after a valid insmod following refused ones"
