// SPDX-License-Identifier: GPL-2.0
/* One's-complement sums for checksum offload and validation (RFC 1071). */
#include "hw/checksum.h"
#include "prm/wqe.h"

namespace softcx::hw {
namespace {

/* Sum of the TCP/UDP pseudo header: addresses, protocol, L4 length. */
u64 pseudo_header(const u8 *f, const PacketInfo &pi)
{
	const u8 *ip = f + pi.l3_off;
	u64 acc;

	if (pi.l3 == L3::Ipv4)
		acc = csum_add(0, ip + 12, 8);		/* saddr, daddr */
	else
		acc = csum_add(0, ip + 8, 32);
	return acc + pi.l4_proto + pi.l4_len;
}

u32 l4_csum_off(const PacketInfo &pi)
{
	return pi.l4_off + (pi.l4_proto == kIpProtoTcp ? kTcpCsumOff : kUdpCsumOff);
}

void fill_ipv4_header(u8 *f, const PacketInfo &pi)
{
	u8 *ip = f + pi.l3_off;
	prm::store_be16(ip + kIpv4CsumOff, 0);
	prm::store_be16(ip + kIpv4CsumOff, (u16)~csum_fold(csum_add(0, ip, pi.l3_hdr_len)));
}

void fill_l4(u8 *f, const PacketInfo &pi)
{
	u8 *csum = f + l4_csum_off(pi);
	prm::store_be16(csum, 0);
	u16 c = (u16)~csum_fold(csum_add(pseudo_header(f, pi), f + pi.l4_off, pi.l4_len));
	/* 0 means "no checksum" in UDP; the same value in one's complement is 0xffff. */
	if (c == 0 && pi.l4_proto == kIpProtoUdp)
		c = 0xffff;
	prm::store_be16(csum, c);
}

} /* namespace */

u64 csum_add(u64 acc, const u8 *p, u32 len)
{
	u32 i = 0;
	for (; i + 1 < len; i += 2)
		acc += prm::load_be16(p + i);
	if (i < len)
		acc += (u32)p[i] << 8;
	return acc;
}

u16 csum_fold(u64 acc)
{
	while (acc >> 16)
		acc = (acc & 0xffff) + (acc >> 16);
	return (u16)acc;
}

void csum_offload_tx(u8 *frame, u32 len, const PacketInfo &pi, u8 cs_flags)
{
	(void)len;	/* the parser already bounded every offset by len */
	if ((cs_flags & prm::kCsL3) && pi.l3 == L3::Ipv4)
		fill_ipv4_header(frame, pi);
	if ((cs_flags & prm::kCsL4) && pi.l4_proto)
		fill_l4(frame, pi);
}

bool csum_l3_ok(const u8 *frame, const PacketInfo &pi)
{
	if (pi.l3 == L3::Ipv6)
		return true;
	if (pi.l3 != L3::Ipv4)
		return false;
	return csum_fold(csum_add(0, frame + pi.l3_off, pi.l3_hdr_len)) == 0xffff;
}

bool csum_l4_ok(const u8 *frame, const PacketInfo &pi)
{
	if (!pi.l4_proto)
		return false;
	if (pi.l4_proto == kIpProtoUdp && prm::load_be16(frame + l4_csum_off(pi)) == 0)
		return true;	/* sender did not checksum */
	u64 acc = csum_add(pseudo_header(frame, pi), frame + pi.l4_off, pi.l4_len);
	return csum_fold(acc) == 0xffff;
}

} /* namespace softcx::hw */
