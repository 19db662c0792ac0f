/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tunnels the device sees into, as mlx5's. In UDP: VXLAN (RFC 7348)
 * to one of the function's VXLAN ports (ADD_VXLAN_UDP_DPORT), an 8-byte
 * VXLAN header and an inner Ethernet frame; with cap geneve, GENEVE (RFC
 * 8926) to IANA's port 6081, an 8-byte header, its options and an inner
 * Ethernet frame (protocol type 0x6558). In IP, with cap ip_tunnels: GRE
 * (kCapTunnelGre) carrying Ethernet, IPv4 or IPv6, and IPv4 or IPv6
 * straight in IP (kCapTunnelIpOverIp). Behind any of them the TX engine
 * offloads the inner checksums and segments tunnels (tx_engine.cpp), and
 * the RX engine checks the inner checksums too (rx.h).
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"

namespace softcx::hw {

/*
 * Where the inner frame of a tunnel's frame starts (0: pi's frame is no
 * tunnel the device parses, or too short to hold the tunnel header and an
 * inner Ethernet header, or for an inner IP header its first byte); as
 * parse_inner() takes it with *l3_type; *inner_len: its length, to the
 * end of the outer IP payload. A VXLAN port in the table wins over
 * GENEVE's. Out of line (tunnel.cpp): the TX and RX engines both call it,
 * and a copy inline in both, not inlined, is a COMDAT copy the module
 * link refuses (__mcount_loc).
 */
u32 tunnel_inner(const Function *fn, const u8 *f, const PacketInfo &pi, u32 *inner_len,
		 u16 *l3_type);

/*
 * The same for a received frame, which is rarely a tunnel's: a TCP frame,
 * or a UDP one to a port whose bit is clear (tunnel_port_maybe()), costs
 * two compares or a load and a bit test more; any other IP frame a call.
 */
inline u32 tunnel_inner_rx(const Function *fn, const u8 *f, const PacketInfo &pi, u16 *l3_type)
{
	u32 inner_len;

	if (__builtin_expect(pi.l4_proto != 0, 1)) {
		if (pi.l4_proto != kIpProtoUdp ||
		    __builtin_expect(!tunnel_port_maybe(fn, prm::load_be16(f + pi.l4_off + 2)), 1))
			return 0;
	} else if (!pi.ip_len_ok || pi.fragment) {
		return 0;	/* not IP, or no payload to look into */
	}
	return tunnel_inner(fn, f, pi, &inner_len, l3_type);
}

} /* namespace softcx::hw */
