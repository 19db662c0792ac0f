// SPDX-License-Identifier: GPL-2.0
/* Ethernet / VLAN / IPv4 / IPv6 / TCP / UDP header parser. */
#include "hw/packet.h"

namespace softcx::hw {
namespace {

constexpr u32 kMaxVlanTags = 2;		/* 802.1ad outer + 802.1Q inner */

using prm::load_be16;

/*
 * use_ip_len: take the IP payload length from the header (a frame) or from
 * `len` (an LSO header template, whose length fields describe the whole
 * send and are rewritten per segment). Always inlined: out of line, as GCC
 * left them once parse_inner_at() was a second caller, they cost about 14
 * instructions a frame (bench/vm/icount.sh).
 */
[[gnu::always_inline]] inline void parse_ipv4(const u8 *f, u32 len, bool use_ip_len,
					       PacketInfo *pi)
{
	const u8 *ip = f + pi->l3_off;
	u32 ihl = (u32)(ip[0] & 0xf) * 4;

	if ((ip[0] >> 4) != 4 || ihl < kIpv4MinHdr || pi->l3_off + ihl > len)
		return;
	pi->l3 = L3::Ipv4;
	pi->l3_hdr_len = ihl;

	u32 tot = use_ip_len ? load_be16(ip + 2) : len - pi->l3_off;
	if (tot < ihl || pi->l3_off + tot > len)
		return;
	pi->ip_len_ok = true;
	pi->fragment = (load_be16(ip + 6) & 0x3fff) != 0;	/* MF or offset */
	pi->l4_off = pi->l3_off + ihl;
	pi->l4_len = tot - ihl;
	if (!pi->fragment)
		pi->l4_proto = ip[9];
}

[[gnu::always_inline]] inline void parse_ipv6(const u8 *f, u32 len, bool use_ip_len,
					       PacketInfo *pi)
{
	const u8 *ip = f + pi->l3_off;

	if ((ip[0] >> 4) != 6)
		return;
	pi->l3 = L3::Ipv6;
	pi->l3_hdr_len = kIpv6Hdr;

	u32 plen = use_ip_len ? load_be16(ip + 4) : len - pi->l3_off - kIpv6Hdr;
	if (pi->l3_off + kIpv6Hdr + plen > len)
		return;
	pi->ip_len_ok = true;
	pi->l4_off = pi->l3_off + kIpv6Hdr;
	pi->l4_len = plen;
	pi->l4_proto = ip[6];	/* extension headers are not parsed: no L4 then */
}

/* Whether the L4 header named by l4_proto is complete inside the IP payload. */
bool l4_header_fits(const u8 *f, const PacketInfo *pi)
{
	if (pi->l4_proto == kIpProtoUdp)
		return pi->l4_len >= kUdpHdr;
	if (pi->l4_proto != kIpProtoTcp || pi->l4_len < kTcpMinHdr)
		return false;
	u32 doff = (u32)(f[pi->l4_off + 12] >> 4) * 4;
	return doff >= kTcpMinHdr && doff <= pi->l4_len;
}

/* From the L3 header of ethertype `type` at off on. */
[[gnu::always_inline]] inline void parse_l3(const u8 *f, u32 len, bool use_ip_len, u32 off,
					    u16 type, PacketInfo *pi)
{
	pi->l3_off = off;
	if (type == kEthTypeIpv4 && off + kIpv4MinHdr <= len)
		parse_ipv4(f, len, use_ip_len, pi);
	else if (type == kEthTypeIpv6 && off + kIpv6Hdr <= len)
		parse_ipv6(f, len, use_ip_len, pi);
	if (pi->ip_len_ok && !l4_header_fits(f, pi))
		pi->l4_proto = 0;
}

void parse(const u8 *f, u32 len, bool use_ip_len, PacketInfo *pi)
{
	__builtin_memset(pi, 0, sizeof(*pi));
	pi->l3 = L3::None;
	if (len < kEthHdrLen)
		return;

	u32 off = kEthHdrLen;
	u16 type = load_be16(f + 12);
	for (u32 tags = 0; tags < kMaxVlanTags; tags++) {
		if ((type != kEthTypeVlan && type != kEthTypeQinQ) || off + kVlanHdrLen > len)
			break;
		type = load_be16(f + off + 2);
		off += kVlanHdrLen;
	}
	parse_l3(f, len, use_ip_len, off, type, pi);
}

void parse_inner_at(const u8 *f, u32 len, bool use_ip_len, u16 l3_type, PacketInfo *pi)
{
	if (!l3_type) {
		parse(f, len, use_ip_len, pi);
		return;
	}
	__builtin_memset(pi, 0, sizeof(*pi));
	pi->l3 = L3::None;
	if (len >= kEthHdrLen)
		parse_l3(f, len, use_ip_len, kEthHdrLen, l3_type, pi);
}

} /* namespace */

void parse_frame(const u8 *frame, u32 len, PacketInfo *pi) { parse(frame, len, true, pi); }

void parse_headers(const u8 *hdr, u32 len, PacketInfo *pi) { parse(hdr, len, false, pi); }

void parse_inner(const u8 *f, u32 len, u16 l3_type, PacketInfo *pi)
{
	parse_inner_at(f, len, true, l3_type, pi);
}

void parse_inner_headers(const u8 *hdr, u32 len, u16 l3_type, PacketInfo *pi)
{
	parse_inner_at(hdr, len, false, l3_type, pi);
}

} /* namespace softcx::hw */
