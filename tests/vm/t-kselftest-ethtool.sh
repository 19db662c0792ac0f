#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vm-timeout: 900
#
# The kernel's link tests (tools/testing/selftests/net/forwarding, from
# linux-source-6.1 by scripts/kselftest.sh), unchanged, on the cable
# scx0 <-> scx1, as they run on two cabled ports of a switch or NIC:
# - ethtool.sh: each common speed forced at both ends comes up and pings;
#   different forced speeds do not; one end forced, the other negotiating,
#   comes up; a subset of speeds advertised against one speed comes up;
#   the highest common speed is chosen.
# - ethtool_extended_state.sh: the reason ethtool gives for a link that is
#   down: "Autoneg, No partner detected" (the peer down), "Autoneg, No
#   partner detected during force mode" (different forced speeds). Its third
#   case, "No cable", needs a port without a cable: every softcx port has
#   one, so it is not run.
# On model cx5 (up to 100G): ethtool.sh builds its advertise masks with
# bash's 64-bit shifts, which wrap for the link modes above bit 63 that
# the 200G and 400G protocols of cx6dx/cx7 have (t-link covers those).
source "$(dirname "$0")/lib.sh"
need_cmd ethtool jq ping

# the tests put each port in a VRF of its own (simple_if_init); the guest
# autoloads no module, so the VRF driver is loaded here
modprobe vrf || fail "cannot load the vrf module"
scx_load model=cx5
# six speeds forced at both ends, six forced at one, four advertised, and
# three more (check_highest_speed_is_chosen, the two different-speed cases)
fwd_selftest ethtool.sh "" 19 scx0 scx1
fwd_selftest ethtool_extended_state.sh "autoneg autoneg_force_mode" 2 scx0 scx1
