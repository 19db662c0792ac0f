// SPDX-License-Identifier: GPL-2.0
/* Finding a tunnel's inner frame (hw/tunnel.h). */
#include "hw/tunnel.h"

namespace softcx::hw {
namespace {

/*
 * The length of the GENEVE header at h (at least kGeneveHdr bytes there):
 * 0 for a version the device does not know or a payload that is not
 * Ethernet.
 */
u32 geneve_hdr_len(const u8 *h)
{
	if ((h[0] >> 6) != 0 || prm::load_be16(h + 2) != prm::kEthTypeTeb)
		return 0;
	return kGeneveHdr + (u32)(h[0] & 0x3f) * 4;
}

/*
 * The length of the GRE header at h (at least kGreHdr bytes there) and,
 * in *l3_type, what it carries as parse_inner() takes it (0: Ethernet);
 * 0 for a version, a flag or a payload the device does not know.
 */
u32 gre_hdr_len(const u8 *h, u16 *l3_type)
{
	const u16 flags = prm::load_be16(h), proto = prm::load_be16(h + 2);

	if (flags & ~(prm::kGreCsum | prm::kGreKey | prm::kGreSeq))
		return 0;
	if (proto == kEthTypeIpv4 || proto == kEthTypeIpv6)
		*l3_type = proto;
	else if (proto == prm::kEthTypeTeb)
		*l3_type = 0;
	else
		return 0;
	return prm::kGreHdr + (flags & prm::kGreCsum ? 4 : 0) + (flags & prm::kGreKey ? 4 : 0) +
	       (flags & prm::kGreSeq ? 4 : 0);
}

/*
 * tunnel_inner() for a frame whose IP payload is no TCP or UDP: GRE, or
 * IP in IP. An inner IP header is given as if an Ethernet header ended
 * there (parse_inner()): the inner frame starts kEthHdrLen before it.
 */
u32 ip_tunnel_inner(const Function *fn, const u8 *f, const PacketInfo &pi, u32 *inner_len,
		    u16 *l3_type)
{
	const u8 caps = caps_of(fn).ip_tunnels;
	u32 hdr = 0;

	if (!pi.ip_len_ok || pi.fragment || !caps)
		return 0;
	switch (ip_proto(f, pi)) {
	case prm::kIpProtoGre:
		if (!(caps & prm::kCapTunnelGre) || pi.l4_len < prm::kGreHdr)
			return 0;
		hdr = gre_hdr_len(f + pi.l4_off, l3_type);
		if (!hdr || pi.l4_len < hdr + (*l3_type ? 1 : kEthHdrLen))
			return 0;
		break;
	case prm::kIpProtoIpip:
	case prm::kIpProtoIpv6:
		if (!(caps & prm::kCapTunnelIpOverIp) || !pi.l4_len)
			return 0;
		*l3_type = ip_proto(f, pi) == prm::kIpProtoIpip ? kEthTypeIpv4 : kEthTypeIpv6;
		break;
	default:
		return 0;
	}
	u32 start = pi.l4_off + hdr - (*l3_type ? kEthHdrLen : 0);
	*inner_len = pi.l4_off + pi.l4_len - start;
	return start;
}

} /* namespace */

u32 tunnel_inner(const Function *fn, const u8 *f, const PacketInfo &pi, u32 *inner_len,
		 u16 *l3_type)
{
	static_assert(kVxlanHdr == kGeneveHdr, "one length check for the shortest header");
	*l3_type = 0;
	if (!pi.l4_proto)
		return ip_tunnel_inner(fn, f, pi, inner_len, l3_type);
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

} /* namespace softcx::hw */
