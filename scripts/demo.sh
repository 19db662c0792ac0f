#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: install what is missing, build softcx.ko, boot the VM and, in
# it, load softcx, connect scx0 <-> scx1 (in a netns), ping, run iperf3 TCP
# and print `ethtool -S` for both ports and `ip -s link`.
#
#   scripts/demo.sh [module parameters...]     e.g. scripts/demo.sh channels=2 model=cx5
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/deps.sh
make --no-print-directory module
echo "demo: booting the VM (software emulation: about a minute)..."
exec scripts/vm-run.sh --timeout "${VM_TIMEOUT:-600}" tests/vm/demo-guest.sh "$@"
