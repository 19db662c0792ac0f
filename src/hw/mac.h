/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The port's MAC: what it counts of each frame it sends or receives
 * (prm::PortCounters, read by QUERY_PORT_COUNTERS). A frame is counted by
 * its length on the wire (prm::wire_len: padded, with FCS). Two atomic
 * adds a frame sent, three a frame received, no division; group addresses
 * and MAC control frames take a call of their own (mac.cpp).
 */
#pragma once

#include "hw/adapter.h"

namespace softcx::hw {

constexpr u16 kEtherTypeMacControl = 0x8808;
constexpr u16 kMacControlPause = 0x0001;

/*
 * Frames to a group address (multicast, broadcast: all ones) or MAC
 * control frames (EtherType 0x8808): what takes the slower path below.
 */
[[gnu::always_inline]] inline bool mac_special(const u8 *frame)
{
	return (frame[0] & 1) | (prm::load_be16(frame + 12) == kEtherTypeMacControl);
}

/*
 * The slower path's counters of one direction (mac.cpp); out of line, so
 * that the engines' inlining stays as it was (the common unicast frame
 * pays two tests for it). With `unsupported` set (RX), MAC control frames
 * that are not PAUSE count there.
 */
struct MacDir {
	u64 *multicast, *broadcast, *control, *pause, *unsupported;
};

void mac_count_special(const MacDir &d, const u8 *frame, u32 len);

/* A frame leaves the port (len >= kMinFrame). */
[[gnu::always_inline]] inline void mac_tx(Function *fn, const u8 *frame, u32 len)
{
	prm::PortCounters *c = &fn->port;

	bus_add(&c->tx_packets, 1);
	bus_add(&c->tx_bytes, prm::wire_len(len));
	if (__builtin_expect(mac_special(frame), 0))
		mac_count_special({ &c->tx_multicast, &c->tx_broadcast, &c->tx_mac_control,
				    &c->tx_pause, nullptr },
				  frame, len);
}

/*
 * A frame reaches the port (kMinFrame <= len <= max_hw_mtu: the peer's TX
 * engine sends nothing longer, so no frame is too long for this port).
 * MAC control frames are counted and still delivered: the port has no
 * flow control.
 */
/* The length histogram's count of a received frame (wire octets). */
[[gnu::always_inline]] inline void mac_rx_hist(prm::PortCounters *c, u32 wire)
{
	u32 b = prm::rx_hist_bucket(wire);
	u64 *hist = reinterpret_cast<u64 *>(reinterpret_cast<u8 *>(c) +
					    __builtin_offsetof(prm::PortCounters, rx_64_bytes));

	if (__builtin_expect(b < prm::kRxHistBuckets, 1))
		bus_add(&hist[b], 1);
}

[[gnu::always_inline]] inline void mac_rx(Function *fn, const u8 *frame, u32 len)
{
	prm::PortCounters *c = &fn->port;
	u32 wire = prm::wire_len(len);

	mac_rx_hist(c, wire);
	bus_add(&c->rx_packets, 1);
	bus_add(&c->rx_bytes, wire);
	if (__builtin_expect(mac_special(frame), 0))
		mac_count_special({ &c->rx_multicast, &c->rx_broadcast, &c->rx_mac_control,
				    &c->rx_pause, &c->rx_unsupported_op },
				  frame, len);
}

/*
 * A frame whose FCS is wrong reaches the port: counted in rx_crc_errors
 * and the length histogram, not as received OK. Returns whether the port
 * receives it anyway (MODIFY_PORT fcs_chk 0: ethtool's rx-all).
 */
bool mac_rx_bad_fcs(Function *fn, u32 len);

/* What the wire does to a frame (Function::wire_faults). */
enum WireFault : u32 {
	kFaultNone = 0,
	kFaultFcs = 1,	/* its FCS arrives wrong: a FEC could not correct it */
	kFaultBits = 2,	/* bit errors: a FEC corrects them, else the FCS is wrong */
};

/* The fault a test asked for (scx_hw_inject_*_errors) for the next frame fn sends. */
[[gnu::always_inline]] inline u32 mac_tx_fault(Function *fn)
{
	u64 n = __atomic_load_n(&fn->wire_faults, __ATOMIC_RELAXED);
	while (__builtin_expect(n != 0, 0)) {
		const u64 one = (u32)n ? 1 : 1ull << 32;
		if (__atomic_compare_exchange_n(&fn->wire_faults, &n, n - one, false,
						__ATOMIC_RELAXED, __ATOMIC_RELAXED))
			return (u32)n ? kFaultFcs : kFaultBits;
	}
	return kFaultNone;
}

/*
 * A frame the wire damaged (fault not kFaultNone) reaches fn's PHY: a FEC
 * running corrects bit errors (fec_corrected_blocks) and counts what it
 * could not (fec_uncorrectable_blocks); one block per frame. True when the
 * frame still reaches the MAC with a wrong FCS.
 */
bool phy_rx_fault(Function *fn, u32 fault);

} /* namespace softcx::hw */
