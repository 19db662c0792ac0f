/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The device's packet parser: where L3 and L4 start in an Ethernet frame.
 * Used by the TX engine (checksum offload, LSO) and the RX engine (RSS,
 * checksum validation, CQE header types). It trusts nothing: every offset it
 * returns lies inside the frame.
 */
#pragma once

#include "prm/types.h"

namespace softcx::hw {

constexpr u32 kEthHdrLen = 14;
constexpr u32 kVlanHdrLen = 4;
constexpr u16 kEthTypeIpv4 = 0x0800;
constexpr u16 kEthTypeIpv6 = 0x86dd;
constexpr u16 kEthTypeVlan = 0x8100;
constexpr u16 kEthTypeQinQ = 0x88a8;
constexpr u8 kIpProtoTcp = 6;
constexpr u8 kIpProtoUdp = 17;
constexpr u32 kIpv4MinHdr = 20;
constexpr u32 kIpv6Hdr = 40;
constexpr u32 kTcpMinHdr = 20;
constexpr u32 kUdpHdr = 8;
constexpr u32 kTcpCsumOff = 16;
constexpr u32 kUdpCsumOff = 6;
constexpr u32 kIpv4CsumOff = 10;

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

} /* namespace softcx::hw */
