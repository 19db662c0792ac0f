/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internet checksums as the device computes them: TX offload (IPv4 header,
 * TCP/UDP over IPv4 and IPv6, computed from scratch) and RX validation plus
 * the CQE's raw one's-complement sum. And the Ethernet FCS.
 */
#pragma once

#include "hw/packet.h"

namespace softcx::hw {

/* Add big-endian 16-bit words of [p, p+len) to acc; an odd tail byte is padded with 0. */
u64 csum_add(u64 acc, const u8 *p, u32 len);
/*
 * Fold to 16 bits, not inverted: two end-around-carry additions, no loop
 * (0 only for a sum of 0, as a one's-complement sum of bytes not all 0 is
 * never 0).
 */
inline u16 csum_fold(u64 acc)
{
	u32 hi = (u32)(acc >> 32), s = (u32)acc + hi;
	s += s < hi;
	u16 h = (u16)(s >> 16), r = (u16)(s + h);
	return (u16)(r + (r < h));
}

/* TX: fill the checksums cs_flags (prm::kCsL3 / kCsL4) ask for; frames the parser cannot read stay as they are. */
void csum_offload_tx(u8 *frame, u32 len, const PacketInfo &pi, u8 cs_flags);

/* RX: the CQE's raw sum (L3 header to the end of the frame) and its hds_ip_ext verdicts. */
struct RxCsum {
	u16 raw;	/* folded, not inverted */
	bool l3_ok;	/* IPv4 header checksum right, or IPv6 */
	bool l4_ok;	/* TCP/UDP checksum right (or UDP without one) */
};
/* Any frame: csum_rx() for those its one-pass paths do not take. */
void csum_rx_general(const u8 *frame, u32 len, const PacketInfo &pi, RxCsum *out);

/* Where a TCP/UDP header keeps its checksum. */
inline u32 l4_csum_off(const PacketInfo &pi)
{
	return pi.l4_off + (pi.l4_proto == kIpProtoTcp ? kTcpCsumOff : kUdpCsumOff);
}

/* The 16-bit word of bytes hi, lo (network order) as a 16-bit load sees it. */
constexpr u32 to_load_order(u8 hi, u8 lo)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return (u32)lo << 8 | hi;
#else
	return (u32)hi << 8 | lo;
#endif
}

/* A folded sum in load order as the network-order value. */
inline u16 net_order(u16 folded)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	return __builtin_bswap16(folded);
#else
	return folded;
#endif
}

/* a + b with the carry out added back in: one's-complement addition of 64-bit words */
[[gnu::always_inline]] inline u64 csum_add64(u64 a, u64 b)
{
	u64 r;
	return __builtin_add_overflow(a, b, &r) ? r + 1 : r;
}

/*
 * The one's-complement sum of [p, p + len) in the CPU's load order,
 * unfolded: 64-bit words two at a time with end-around carries (an add
 * and an add-with-carry each; 2^64 - 1 is a multiple of 0xffff, so the
 * fold is the same as over 16-bit words), then folded to 33 bits so that
 * callers may add a few more 32-bit words without a carry; then a 32-bit
 * word, a 16-bit one, and an odd last byte as the high byte of a
 * big-endian word padded with 0. 0 only when every byte is.
 */
[[gnu::always_inline]] inline u64 csum_words(const u8 *p, u32 len)
{
	u64 w = 0;
	u32 i = 0;

	for (; i + 16 <= len; i += 16) {
		u64 a, b;
		__builtin_memcpy(&a, p + i, 8);
		__builtin_memcpy(&b, p + i + 8, 8);
		w = csum_add64(csum_add64(w, a), b);
	}
	if (i + 8 <= len) {
		u64 a;
		__builtin_memcpy(&a, p + i, 8);
		w = csum_add64(w, a);
		i += 8;
	}
	u64 s = (w & 0xffffffffu) + (w >> 32);
	if (i + 4 <= len) {
		u32 a;
		__builtin_memcpy(&a, p + i, 4);
		s += a;
		i += 4;
	}
	if (i + 2 <= len) {
		u16 h;
		__builtin_memcpy(&h, p + i, 2);
		s += h;
		i += 2;
	}
	if (i < len)
		s += to_load_order(p[i], 0);
	return s;
}

/*
 * The usual frame, IPv4 without options or IPv6 without extension headers
 * carrying TCP or UDP up to the frame's end, in one pass without folds in
 * between: the header as kHdrWords 32-bit words, the addresses (its last
 * words from kAddrWord on) reused for the pseudo header, then the
 * segment. Every sum stays in the CPU's load order and is turned into
 * network order once, at the end (RFC 1071, 2.B, as csum_add).
 */
template <u32 kHdrWords, u32 kAddrWord>
[[gnu::always_inline]] inline void csum_rx_ip(const u8 *frame, const PacketInfo &pi, RxCsum *out)
{
	const u8 *l3 = frame + pi.l3_off;
	u64 hdr = 0, addrs = 0;

#pragma GCC unroll 10
	for (u32 i = 0; i < kHdrWords; i++) {
		u32 w;
		__builtin_memcpy(&w, l3 + 4 * i, 4);
		hdr += w;
		if (i >= kAddrWord)
			addrs += w;
	}
	u64 seg = csum_words(frame + pi.l4_off, pi.l4_len);
	/* protocol and L4 length, big-endian 16-bit words, in load order */
	u64 pseudo = addrs + to_load_order(0, pi.l4_proto) +
		     to_load_order((u8)(pi.l4_len >> 8), (u8)pi.l4_len);

	out->raw = net_order(csum_fold(hdr + seg));
	out->l3_ok = kAddrWord == 2 || csum_fold(hdr) == 0xffff;
	if (pi.l4_proto == kIpProtoUdp && prm::load_be16(frame + l4_csum_off(pi)) == 0)
		out->l4_ok = true;	/* sender did not checksum */
	else
		out->l4_ok = csum_fold(pseudo + seg) == 0xffff;
}

/*
 * Inline into the RX engine's CQE writer: the usual frames take the
 * one-pass path without a call.
 */
[[gnu::always_inline]] inline void csum_rx(const u8 *frame, u32 len, const PacketInfo &pi,
					   RxCsum *out)
{
	if (__builtin_expect(pi.l4_proto && pi.l4_off + pi.l4_len == len, 1)) {
		if (pi.l3 == L3::Ipv4 && pi.l3_hdr_len == kIpv4MinHdr) {
			csum_rx_ip<kIpv4MinHdr / 4, 3>(frame, pi, out);
			return;
		}
		if (pi.l3 == L3::Ipv6 && pi.l3_hdr_len == kIpv6Hdr) {
			csum_rx_ip<kIpv6Hdr / 4, 2>(frame, pi, out);
			return;
		}
	}
	csum_rx_general(frame, len, pi, out);
}

/*
 * The FCS of a frame (IEEE 802.3 CRC-32, reflected, preset and inverted):
 * the value whose 4 little-endian bytes follow the frame on the wire.
 */
u32 eth_fcs(const u8 *frame, u32 len);

} /* namespace softcx::hw */
