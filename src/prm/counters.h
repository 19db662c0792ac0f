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
#include "packet.h"
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

/* the FEC blocks first: the histogram is the tail (below) */
struct PortCounters {
	SCX_PRM_FEC_COUNTERS(SCX_PRM_CTR_U64)
	SCX_PRM_PORT_COUNTERS(SCX_PRM_CTR_U64)
};

/* ---- the port's MAC ---- */

/* Shortest frame a MAC sends (the sender pads), FCS excluded. */
constexpr u32 kMinMacFrame = 60;

/* Octets of a len-byte frame (no FCS) on the wire: padded, plus the FCS. */
constexpr u32 wire_len(u32 len) { return (len < kMinMacFrame ? kMinMacFrame : len) + kFcsLen; }

struct HistRange {
	u16 low, high;	/* inclusive */
};

#define SCX_PRM_HIST_RANGE(X, field, name, low, high) { low, high },
constexpr HistRange kRxHist[] = { SCX_PRM_RX_HIST(_, SCX_PRM_HIST_RANGE) };
#undef SCX_PRM_HIST_RANGE
constexpr u32 kRxHistBuckets = sizeof(kRxHist) / sizeof(kRxHist[0]);

/*
 * Bucket of kRxHist for a wire length (64 .. 10239): compares and the bit
 * length, no division or search. Checked against kRxHist for every
 * length at compile time (rx_hist_bucket_ok).
 */
constexpr u32 rx_hist_bucket(u32 wire)
{
	u32 bits = 32 - (u32)__builtin_clz(wire | 1);	/* 65..127: 7, ... 8192..16383: 14 */

	if (wire <= 64)
		return 0;
	if (wire < 1024)
		return bits - 6;
	if (wire <= 1518)
		return 5;
	if (wire < 2048)
		return 6;
	return bits - 5;
}

constexpr bool rx_hist_bucket_ok()
{
	for (u32 w = wire_len(0); w <= kRxHist[kRxHistBuckets - 1].high; w++) {
		u32 b = rx_hist_bucket(w);
		if (b >= kRxHistBuckets || w < kRxHist[b].low || w > kRxHist[b].high)
			return false;
	}
	return true;
}
static_assert(rx_hist_bucket_ok());
/* the longest frame the port carries fits the last bucket */
static_assert(wire_len(kMaxHwMtu) <= kRxHist[kRxHistBuckets - 1].high);
/* the histogram is the list's tail, one u64 a bucket: the MAC indexes it */
static_assert(sizeof(PortCounters) - __builtin_offsetof(PortCounters, rx_64_bytes) ==
	      kRxHistBuckets * sizeof(u64));

} /* namespace softcx::prm */
