/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Receive side scaling: the Toeplitz hash, and how a port's RX engine picks
 * an RQ through the function's RSS object.
 *
 * Steering rule: the most recently created live RSS object of a function
 * (kRssFlowOnly ones aside) steers all of its received packets that no flow
 * table entry took (hw/flow.h). A driver that builds a new channel set
 * can therefore create the new object, which takes over at once, and destroy
 * the old one afterwards (or MODIFY_RSS one object in place).
 */
#pragma once

#include "hw/adapter.h"
#include "hw/packet.h"

namespace softcx::hw {

constexpr u32 kToeplitzMaxInput = prm::kRssKeySize - 4;	/* 36: IPv6 4-tuple */
/* Rss::fields holds each traffic type's prm::kRssField* bits in 4 bits. */
constexpr u32 kRssTypeShift = 4;
static_assert(prm::kRssTypes * kRssTypeShift <= 32, "Rss::fields packs every type");

/*
 * The Toeplitz hash of a key, by table: for input byte position i and byte
 * value x, v[i][x] is the XOR of the 32-bit key windows starting at the
 * input bits set in x. The hash of an input is then one lookup and one XOR
 * per byte instead of eight conditional XORs and shifts. 36 KiB, built by
 * a command (CREATE_RSS, MODIFY_RSS with a new key), read by RX engines.
 */
struct ToeplitzTable {
	u32 v[kToeplitzMaxInput][256];
};

/* Fill t for a 40-byte key. */
void toeplitz_build(const u8 *key, ToeplitzTable *t);
/* Toeplitz hash of input[0..len) by t; len <= kToeplitzMaxInput. */
u32 toeplitz_hash(const ToeplitzTable *t, const u8 *input, u32 len);

/*
 * Pick the RQ for a parsed frame by one RSS object of fn: false when it is
 * not live, or (num != 0) no longer the object num names.
 */
bool rss_read(const Function *fn, Rss *r, u32 num, const u8 *frame, const PacketInfo &pi,
	      RssResult *out);
/* rss_steer() without the inline hit check first: any frame, any cache state. */
bool rss_steer_slow(Function *fn, const u8 *frame, const PacketInfo &pi, RssCache *cache,
		    RssResult *out);

/* The N bytes at p and q are equal: word loads, no memcmp call nor stack copy. */
template <u32 N> [[gnu::always_inline]] inline bool same_bytes(const u8 *p, const u8 *q)
{
	u64 diff = 0;

#pragma GCC unroll 8
	for (u32 i = 0; i + 8 <= N; i += 8) {
		u64 a, b;
		__builtin_memcpy(&a, p + i, 8);
		__builtin_memcpy(&b, q + i, 8);
		diff |= a ^ b;
	}
	if constexpr (N % 8 != 0) {
		static_assert(N % 8 == 4, "whole words");
		u32 a, b;
		__builtin_memcpy(&a, p + N - 4, 4);
		__builtin_memcpy(&b, q + N - 4, 4);
		diff |= a ^ b;
	}
	return !diff;
}

/*
 * The cache key of a TCP/UDP frame: its addresses, then its ports (N:
 * address bytes). A hit compares the frame's bytes where they lie.
 */
template <u32 N>
[[gnu::always_inline]] inline bool cache_hit(const RssCache *c, const Rss *r, u32 seq,
					    const u8 *frame, const PacketInfo &pi)
{
	const u8 *addrs = frame + pi.l3_off + (N == 4 ? 12 : 8);

	return c->rss == r && c->seq == seq && c->l4_proto == pi.l4_proto && c->ipv6 == (N == 16) &&
	       same_bytes<2 * N>(c->key, addrs) &&
	       same_bytes<4>(c->key + 2 * N, frame + pi.l4_off);
}

/*
 * Pick the RQ for a parsed frame by the default object; false when the
 * function has none. cache: the sending SQ's (RssCache), or null. A hit
 * is decided inline (a cached answer is only valid at an even sequence
 * count, so an object being rewritten never hits); the rest is out of line.
 */
[[gnu::always_inline]] inline bool rss_steer(Function *fn, const u8 *frame, const PacketInfo &pi,
					    RssCache *cache, RssResult *out)
{
	s32 ix = __atomic_load_n(&fn->active_rss, __ATOMIC_ACQUIRE);

	if (cache && ix >= 0 && (pi.l4_proto == kIpProtoTcp || pi.l4_proto == kIpProtoUdp)) {
		const Rss *r = &fn->rss[ix];
		u32 seq = load_u32(&r->seq);

		if (pi.l3 == L3::Ipv4 ? cache_hit<4>(cache, r, seq, frame, pi) :
					cache_hit<16>(cache, r, seq, frame, pi)) {
			*out = cache->res;
			return true;
		}
	}
	return rss_steer_slow(fn, frame, pi, cache, out);
}

/*
 * Writers, called under the command lock. The object's Toeplitz table is
 * rebuilt (when the key changed) between begin and end: rss_set_key().
 */
void rss_write_begin(Rss *r);
void rss_set_key(Rss *r, const u8 *key);
void rss_write_end(Rss *r);
/* Recompute which live RSS object steers (the newest not kRssFlowOnly). */
void rss_update_active(Function *fn);

} /* namespace softcx::hw */
