/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port's MAC: what it counts of each frame it sends or receives
 * (prm::PortCounters, read by QUERY_PORT_COUNTERS). A frame is counted by
 * its length on the wire (prm::wire_len: padded, with FCS). A few atomic
 * adds a frame, no division; control frames take a branch of their own.
 */
#pragma once

#include "hw/adapter.h"

namespace softcx::hw {

constexpr u16 kEtherTypeMacControl = 0x8808;
constexpr u16 kMacControlPause = 0x0001;

/* Group destination address: broadcast (all ones) or multicast. */
[[gnu::always_inline]] inline void mac_count_group(u64 *multicast, u64 *broadcast, const u8 *frame)
{
	if (__builtin_expect(!(frame[0] & 1), 1))
		return;
	bool bcast = (frame[0] & frame[1] & frame[2] & frame[3] & frame[4] & frame[5]) == 0xff;
	bus_add(bcast ? broadcast : multicast, 1);
}

/* A MAC control frame's opcode (0 when it has none); -1 for any other frame. */
[[gnu::always_inline]] inline int mac_control_opcode(const u8 *frame, u32 len)
{
	if (__builtin_expect(prm::load_be16(frame + 12) != kEtherTypeMacControl, 1))
		return -1;
	return len >= prm::kEthHdrLen + 2 ? prm::load_be16(frame + prm::kEthHdrLen) : 0;
}

/* A frame leaves the port (len >= kMinFrame). */
[[gnu::always_inline]] inline void mac_tx(Function *fn, const u8 *frame, u32 len)
{
	prm::PortCounters *c = &fn->port;

	bus_add(&c->tx_packets, 1);
	bus_add(&c->tx_bytes, prm::wire_len(len));
	mac_count_group(&c->tx_multicast, &c->tx_broadcast, frame);
	int op = mac_control_opcode(frame, len);
	if (__builtin_expect(op >= 0, 0)) {
		bus_add(&c->tx_mac_control, 1);
		if (op == kMacControlPause)
			bus_add(&c->tx_pause, 1);
	}
}

/*
 * A frame reaches the port (kMinFrame <= len <= max_hw_mtu: the peer's TX
 * engine sends nothing longer, so no frame is too long for this port).
 * MAC control frames are counted and still delivered: the port has no
 * flow control.
 */
[[gnu::always_inline]] inline void mac_rx(Function *fn, const u8 *frame, u32 len)
{
	prm::PortCounters *c = &fn->port;
	u32 wire = prm::wire_len(len);
	u32 b = prm::rx_hist_bucket(wire);
	u64 *hist = reinterpret_cast<u64 *>(reinterpret_cast<u8 *>(c) +
					    __builtin_offsetof(prm::PortCounters, rx_64_bytes));

	if (__builtin_expect(b < prm::kRxHistBuckets, 1))
		bus_add(&hist[b], 1);
	bus_add(&c->rx_packets, 1);
	bus_add(&c->rx_bytes, wire);
	mac_count_group(&c->rx_multicast, &c->rx_broadcast, frame);
	int op = mac_control_opcode(frame, len);
	if (__builtin_expect(op >= 0, 0)) {
		bus_add(&c->rx_mac_control, 1);
		bus_add(op == kMacControlPause ? &c->rx_pause : &c->rx_unsupported_op, 1);
	}
}

} /* namespace softcx::hw */
