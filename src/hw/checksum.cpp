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

/*
 * The one's-complement sum does not depend on the byte order it is computed
 * in (RFC 1071, 2.B): sum 32-bit words as the CPU loads them, fold, and
 * swap the folded 16 bits into network order once. The result is congruent
 * to the big-endian word sum modulo 0xffff and is 0 only when every byte
 * is, so every fold of a sum of such pieces is the same as the word-by-word
 * one.
 */
u64 csum_add(u64 acc, const u8 *p, u32 len)
{
	return acc + net_order(csum_fold(csum_words(p, len)));
}

void csum_offload_tx(u8 *frame, u32 len, const PacketInfo &pi, u8 cs_flags)
{
	(void)len;	/* the parser already bounded every offset by len */
	if ((cs_flags & prm::kCsL3) && pi.l3 == L3::Ipv4)
		fill_ipv4_header(frame, pi);
	if ((cs_flags & prm::kCsL4) && pi.l4_proto)
		fill_l4(frame, pi);
}

/*
 * One pass over the frame: the L3 header's sum serves the IPv4 check and
 * the L4 segment's sum the TCP/UDP check, and both are pieces of the raw
 * sum (each piece starts at an even distance from the L3 header).
 */
void csum_rx_general(const u8 *frame, u32 len, const PacketInfo &pi, RxCsum *out)
{
	const u8 *l3 = frame + pi.l3_off;
	u32 l3_len = len - pi.l3_off;

	out->l3_ok = false;
	out->l4_ok = false;
	if (pi.l3 == L3::None) {
		out->raw = csum_fold(csum_add(0, l3, l3_len));
		return;
	}
	/* The parser saw a complete IP header: l3_hdr_len (even) <= l3_len. */
	u64 hdr = csum_add(0, l3, pi.l3_hdr_len);
	out->l3_ok = pi.l3 == L3::Ipv6 || csum_fold(hdr) == 0xffff;
	if (!pi.l4_proto) {
		out->raw = csum_fold(hdr + csum_add(0, l3 + pi.l3_hdr_len, l3_len - pi.l3_hdr_len));
		return;
	}

	/* l4_off = l3_off + l3_hdr_len; the segment ends inside the frame (padding may follow). */
	u64 seg = csum_add(0, frame + pi.l4_off, pi.l4_len);
	u32 end = pi.l4_off + pi.l4_len;
	if (end == len)
		out->raw = csum_fold(hdr + seg);
	else if (!(pi.l4_len & 1))
		out->raw = csum_fold(hdr + seg + csum_add(0, frame + end, len - end));
	else	/* padding after an odd segment: its bytes sit in the other half of the words */
		out->raw = csum_fold(csum_add(0, l3, l3_len));

	if (pi.l4_proto == kIpProtoUdp && prm::load_be16(frame + l4_csum_off(pi)) == 0)
		out->l4_ok = true;	/* sender did not checksum */
	else
		out->l4_ok = csum_fold(pseudo_header(frame, pi) + seg) == 0xffff;
}

/* ---- Ethernet FCS: a byte at a time through a table built at compile time ---- */
namespace {

constexpr u32 kCrc32Poly = 0xedb88320;	/* 0x04c11db7 reflected */

struct Crc32Table {
	u32 v[256];
	constexpr Crc32Table() : v()
	{
		for (u32 i = 0; i < 256; i++) {
			u32 c = i;
			for (int b = 0; b < 8; b++)
				c = (c >> 1) ^ (c & 1 ? kCrc32Poly : 0);
			v[i] = c;
		}
	}
};
constexpr Crc32Table kCrc32;

} /* namespace */

u32 eth_fcs(const u8 *frame, u32 len)
{
	u32 c = 0xffffffff;
	for (u32 i = 0; i < len; i++)
		c = kCrc32.v[(c ^ frame[i]) & 0xff] ^ (c >> 8);
	return ~c;
}

} /* namespace softcx::hw */
