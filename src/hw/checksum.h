/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internet checksums as the device computes them: TX offload (IPv4 header,
 * TCP/UDP over IPv4 and IPv6, computed from scratch) and RX validation plus
 * the CQE's raw one's-complement sum. And the Ethernet FCS.
 */
#pragma once

#include "hw/packet.h"

namespace softcx::hw {

/* Add big-endian 16-bit words of [p, p+len) to acc; an odd tail byte is padded with 0. */
u64 csum_add(u64 acc, const u8 *p, u32 len);
/* Fold to 16 bits, not inverted. */
u16 csum_fold(u64 acc);

/* TX: fill the checksums cs_flags (prm::kCsL3 / kCsL4) ask for; frames the parser cannot read stay as they are. */
void csum_offload_tx(u8 *frame, u32 len, const PacketInfo &pi, u8 cs_flags);

/* RX: the CQE's raw sum (L3 header to the end of the frame) and its hds_ip_ext verdicts. */
struct RxCsum {
	u16 raw;	/* folded, not inverted */
	bool l3_ok;	/* IPv4 header checksum right, or IPv6 */
	bool l4_ok;	/* TCP/UDP checksum right (or UDP without one) */
};
void csum_rx(const u8 *frame, u32 len, const PacketInfo &pi, RxCsum *out);

/*
 * The FCS of a frame (IEEE 802.3 CRC-32, reflected, preset and inverted):
 * the value whose 4 little-endian bytes follow the frame on the wire.
 */
u32 eth_fcs(const u8 *frame, u32 len);

} /* namespace softcx::hw */
