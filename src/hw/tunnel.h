/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The UDP tunnels the device sees into, as mlx5's: VXLAN (RFC 7348) to one
 * of the function's VXLAN ports (ADD_VXLAN_UDP_DPORT), an 8-byte VXLAN
 * header and an inner Ethernet frame; with cap geneve, GENEVE (RFC 8926)
 * to IANA's port 6081, an 8-byte header, its options and an inner Ethernet
 * frame (protocol type 0x6558). Behind either the TX engine offloads the
 * inner checksums and segments tunnels (tx_engine.cpp), and the RX engine
 * checks the inner checksums too (rx.h).
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"

namespace softcx::hw {

/*
 * The length of the GENEVE header at h (at least kGeneveHdr bytes there):
 * 0 for a version the device does not know or a payload that is not
 * Ethernet.
 */
inline u32 geneve_hdr_len(const u8 *h)
{
	if ((h[0] >> 6) != 0 || prm::load_be16(h + 2) != prm::kEthTypeTeb)
		return 0;
	return kGeneveHdr + (u32)(h[0] & 0x3f) * 4;
}

/*
 * Where the inner Ethernet frame of a tunnel's frame starts (0: pi's frame
 * is no tunnel the device parses, or too short to hold the tunnel header
 * and an inner Ethernet header); *inner_len: its length, to the end of the
 * outer UDP payload. A VXLAN port in the table wins over GENEVE's.
 */
inline u32 tunnel_inner(const Function *fn, const u8 *f, const PacketInfo &pi, u32 *inner_len)
{
	static_assert(kVxlanHdr == kGeneveHdr, "one length check for the shortest header");
	if (pi.l4_proto != kIpProtoUdp || pi.l4_len < kUdpHdr + kVxlanHdr + kEthHdrLen)
		return 0;
	const u16 dport = prm::load_be16(f + pi.l4_off + 2);
	u32 hdr = kVxlanHdr;
	if (!vxlan_port_known(fn, dport)) {
		if (dport != kGeneveUdpPort || !caps_of(fn).geneve)
			return 0;
		hdr = geneve_hdr_len(f + pi.l4_off + kUdpHdr);
		if (!hdr || pi.l4_len < kUdpHdr + hdr + kEthHdrLen)
			return 0;
	}
	*inner_len = pi.l4_len - kUdpHdr - hdr;
	return pi.l4_off + kUdpHdr + hdr;
}

/*
 * The same for a received frame, which is rarely a tunnel's: a frame not
 * UDP, or to a port whose bit is clear (tunnel_port_maybe()), costs a
 * compare or a load and a bit test.
 */
inline u32 tunnel_inner_rx(const Function *fn, const u8 *f, const PacketInfo &pi)
{
	u32 inner_len;

	if (pi.l4_proto != kIpProtoUdp ||
	    __builtin_expect(!tunnel_port_maybe(fn, prm::load_be16(f + pi.l4_off + 2)), 1))
		return 0;
	return tunnel_inner(fn, f, pi, &inner_len);
}

} /* namespace softcx::hw */
