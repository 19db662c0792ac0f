/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The counters a function of the device keeps, declared once. Each list
 * names a counter set that one query command returns; an entry is
 * X(field, ethtool name). From these lists come the device's live counters
 * (host-order u64, hw), the query outboxes (big-endian, cmd.h), the copies
 * between the two, and the driver's ethtool -S entries (en/stats.cpp), in
 * list order. The lists are in counter_list.h (macros only, which the C
 * KUnit hooks expand too): add a counter there and in
 * Documentation/counters.rst only.
 */
#pragma once

#include "counter_list.h"
#include "types.h"

#define SCX_PRM_CTR_U64(field, name) u64 field;
#define SCX_PRM_CTR_BE64(field, name) be64 field;

namespace softcx::prm {

/* Host-order values of each set: the device's live counters, a driver's snapshot. */
struct QCounters {
	SCX_PRM_Q_COUNTERS(SCX_PRM_CTR_U64)
};

struct BusCounters {
	SCX_PRM_BUS_COUNTERS(SCX_PRM_CTR_U64)
};

} /* namespace softcx::prm */
