/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's packet parser: where L3 and L4 start in an Ethernet frame.
 * Used by the TX engine (checksum offload, LSO) and the RX engine (RSS,
 * checksum validation, CQE header types). It trusts nothing: every offset it
 * returns lies inside the frame.
 */
#pragma once

#include "prm/packet.h"

namespace softcx::hw {

using prm::kEthAddrsLen;
using prm::kEthHdrLen;
using prm::kEthTypeIpv4;
using prm::kEthTypeIpv6;
using prm::kEthTypeQinQ;
using prm::kEthTypeVlan;
using prm::kIpProtoTcp;
using prm::kIpProtoUdp;
using prm::kIpv4CsumOff;
using prm::kIpv4MinHdr;
using prm::kIpv6Hdr;
using prm::kTcpCsumOff;
using prm::kTcpMinHdr;
using prm::kUdpCsumOff;
using prm::kUdpHdr;
using prm::kVxlanHdr;
using prm::kGeneveHdr;
using prm::kGeneveUdpPort;
using prm::kVlanHdrLen;

enum class L3 : u8 { None, Ipv4, Ipv6 };

struct PacketInfo {
	u32 l3_off;		/* first byte after the Ethernet header and VLAN tags */
	u32 l3_hdr_len;		/* IPv4 IHL * 4, or 40 */
	u32 l4_off;
	u32 l4_len;		/* L4 header + payload, from the IP length field */
	L3 l3;			/* the IP header is complete and of this version */
	bool ip_len_ok;		/* IP length fields agree with the frame */
	bool fragment;		/* IPv4 fragment (L4 not parsed) */
	u8 l4_proto;		/* kIpProtoTcp/Udp when that header is complete, else 0 */
};

void parse_frame(const u8 *frame, u32 len, PacketInfo *pi);
/*
 * Parse an LSO header template (L2..L4, nothing after): IP length fields are
 * ignored and the IP payload is taken to end at len.
 */
void parse_headers(const u8 *hdr, u32 len, PacketInfo *pi);

/*
 * A tunnel's inner frame (hw/tunnel.h): parse_frame() / parse_headers()
 * for l3_type 0; else an IP header of ethertype l3_type at f + kEthHdrLen,
 * where an inner Ethernet header would end (the 14 bytes before it, the
 * tunnel's, are not read). Its offsets are from f either way.
 */
void parse_inner(const u8 *f, u32 len, u16 l3_type, PacketInfo *pi);
void parse_inner_headers(const u8 *hdr, u32 len, u16 l3_type, PacketInfo *pi);

/* The IP protocol (IPv6: next header) of a frame whose IP lengths agree and that is no fragment. */
inline u8 ip_proto(const u8 *f, const PacketInfo &pi)
{
	return f[pi.l3_off + (pi.l3 == L3::Ipv4 ? 9 : prm::kIpv6NextHdrOff)];
}

} /* namespace softcx::hw */
