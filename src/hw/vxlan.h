/* SPDX-License-Identifier: GPL-2.0 */
/*
 * VXLAN (RFC 7348) as the device sees it: UDP to one of the function's
 * VXLAN ports (ADD_VXLAN_UDP_DPORT) carries an 8-byte VXLAN header and an
 * inner Ethernet frame. The TX engine offloads the inner checksums and
 * segments tunnels (tx_engine.cpp).
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

} /* namespace softcx::hw */
