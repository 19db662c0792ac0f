/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Wire formats both sides of the bus reason about: Ethernet, VLAN, IPv4,
 * IPv6, TCP and UDP header sizes, protocol numbers and flag bits, and the
 * frame limits of the port (what the device sends and receives at most).
 */
#pragma once

#include "types.h"

namespace softcx::prm {

constexpr u32 kEthHdrLen = 14;
constexpr u32 kEthAddrsLen = 12;	/* destination + source MAC: a VLAN tag follows them */
constexpr u32 kVlanHdrLen = 4;
constexpr u32 kFcsLen = 4;
constexpr u16 kEthTypeIpv4 = 0x0800;
constexpr u16 kEthTypeIpv6 = 0x86dd;
constexpr u16 kEthTypeVlan = 0x8100;
constexpr u16 kEthTypeQinQ = 0x88a8;

constexpr u8 kIpProtoTcp = 6;
constexpr u8 kIpProtoUdp = 17;
constexpr u32 kIpv4MinHdr = 20;
constexpr u32 kIpv4CsumOff = 10;
constexpr u32 kIpv6Hdr = 40;
constexpr u32 kIpv6PayloadLenOff = 4;
constexpr u32 kIpv6NextHdrOff = 6;
/* IPv6 BIG TCP: hop-by-hop header holding only the jumbo payload option */
constexpr u32 kIpv6JumboHbhLen = 8;

constexpr u32 kTcpMinHdr = 20;
constexpr u32 kTcpCsumOff = 16;
constexpr u32 kTcpFlagsOff = 13;
constexpr u8 kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpPsh = 0x08, kTcpAck = 0x10,
	     kTcpUrg = 0x20, kTcpEce = 0x40, kTcpCwr = 0x80;
constexpr u32 kUdpHdr = 8;
constexpr u32 kVxlanHdr = 8;	/* flags, reserved, VNI, reserved (RFC 7348) */
/*
 * GENEVE (RFC 8926) on IANA's UDP port: version (2 bits, 0) and option
 * length (6 bits, in 4-byte words), flags, protocol type (0x6558: an
 * Ethernet frame follows), VNI, reserved; then the options.
 */
constexpr u16 kGeneveUdpPort = 6081;
constexpr u32 kGeneveHdr = 8;
constexpr u16 kEthTypeTeb = 0x6558;	/* transparent Ethernet bridging */
/*
 * IP tunnels. GRE (RFC 2784, RFC 2890) is IP protocol 47: 16 bits of
 * flags and version, then the protocol type (kEthTypeTeb: an Ethernet
 * frame; or IPv4, IPv6); each of the checksum, key and sequence flags
 * adds a 4-byte field after it; no other flag, version 0. IPv4 (4) and
 * IPv6 (41) may follow an IP header straight away (IP in IP).
 */
constexpr u8 kIpProtoIpip = 4;
constexpr u8 kIpProtoIpv6 = 41;
constexpr u8 kIpProtoGre = 47;
constexpr u32 kGreHdr = 4;
constexpr u16 kGreCsum = 0x8000, kGreKey = 0x2000, kGreSeq = 0x1000;
constexpr u32 kUdpCsumOff = 6;

/* Frame limits: the shortest frame is an Ethernet header; the longest the
 * port carries is a 9000-byte MTU plus L2 overhead (Ethernet header, one VLAN
 * tag, FCS), as mlx5 counts it. */
constexpr u32 kMinFrame = kEthHdrLen;
constexpr u32 kHwMtuOverhead = kEthHdrLen + kVlanHdrLen + kFcsLen;
constexpr u32 kMaxSwMtu = 9978;
constexpr u32 kMaxHwMtu = kMaxSwMtu + kHwMtuOverhead;
static_assert(kHwMtuOverhead == 22);

} /* namespace softcx::prm */
