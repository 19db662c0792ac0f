/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VXLAN (RFC 7348) as the device sees it: UDP to one of the function's
 * VXLAN ports (ADD_VXLAN_UDP_DPORT) carries an 8-byte VXLAN header and an
 * inner Ethernet frame. The TX engine offloads the inner checksums and
 * segments tunnels (tx_engine.cpp); the RX engine checks the inner
 * checksums too (rx.h).
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"

namespace softcx::hw {

/*
 * Where the inner Ethernet frame of a VXLAN frame starts (0: pi's frame is
 * not UDP to one of the function's VXLAN ports, or too short to carry the
 * VXLAN header and an inner Ethernet header); *inner_len: its length, to
 * the end of the outer UDP payload.
 */
inline u32 vxlan_inner(const Function *fn, const u8 *f, const PacketInfo &pi, u32 *inner_len)
{
	if (pi.l4_proto != kIpProtoUdp || pi.l4_len < kUdpHdr + kVxlanHdr + kEthHdrLen ||
	    !vxlan_port_known(fn, prm::load_be16(f + pi.l4_off + 2)))
		return 0;
	*inner_len = pi.l4_len - kUdpHdr - kVxlanHdr;
	return pi.l4_off + kUdpHdr + kVxlanHdr;
}

/*
 * The same for a received frame, which is rarely VXLAN: a frame not UDP,
 * or to a port whose bit is clear (vxlan_port_maybe()), costs a compare
 * or a load and a bit test.
 */
inline u32 vxlan_inner_rx(const Function *fn, const u8 *f, const PacketInfo &pi)
{
	u32 inner_len;

	if (pi.l4_proto != kIpProtoUdp ||
	    __builtin_expect(!vxlan_port_maybe(fn, prm::load_be16(f + pi.l4_off + 2)), 1))
		return 0;
	return vxlan_inner(fn, f, pi, &inner_len);
}

} /* namespace softcx::hw */
