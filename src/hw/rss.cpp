// SPDX-License-Identifier: GPL-2.0
/*
 * Toeplitz hashing and RQ selection.
 *
 * RX engines read the RSS object without a lock (they may run under a peer's
 * SQ lock, where the command lock must not be taken). Commands rewrite it
 * inside a sequence count, and the reader retries when the count moved.
 * RSS slots live as long as the adapter, so a racing reader only ever sees
 * a stale or changing object, never freed memory.
 */
#include "hw/rss.h"
#include "prm/cqe.h"

namespace softcx::hw {
namespace {

/* Hash input in the standard order: source IP, destination IP, source port, destination port. */
struct HashInput {
	u8 bytes[kToeplitzMaxInput];
	u32 len;
	u8 type;
};

void append(HashInput *in, const u8 *p, u32 n)
{
	__builtin_memcpy(in->bytes + in->len, p, n);
	in->len += n;
}

void build_input(const u8 *f, const PacketInfo &pi, u32 fields, HashInput *in)
{
	in->len = 0;
	in->type = 0;
	if (pi.l3 == L3::None)
		return;

	const u8 *ip = f + pi.l3_off;
	u32 alen = pi.l3 == L3::Ipv4 ? 4 : 16;
	const u8 *saddr = pi.l3 == L3::Ipv4 ? ip + 12 : ip + 8;
	if (fields & prm::kRssFieldSrcIp)
		append(in, saddr, alen);
	if (fields & prm::kRssFieldDstIp)
		append(in, saddr + alen, alen);
	if (in->len)
		in->type |= pi.l3 == L3::Ipv4 ? prm::kRssHashIpv4 : prm::kRssHashIpv6;

	if (!pi.l4_proto || !(fields & (prm::kRssFieldL4SPort | prm::kRssFieldL4DPort)))
		return;
	const u8 *l4 = f + pi.l4_off;
	if (fields & prm::kRssFieldL4SPort)
		append(in, l4, 2);
	if (fields & prm::kRssFieldL4DPort)
		append(in, l4 + 2, 2);
	in->type |= pi.l4_proto == kIpProtoTcp ? prm::kRssHashTcp : prm::kRssHashUdp;
}

} /* namespace */

u32 toeplitz_hash(const u8 *key, const u8 *input, u32 len)
{
	u32 hash = 0;
	for (u32 i = 0; i < len && i < kToeplitzMaxInput; i++) {
		/* The 40 key bits starting at input bit i*8: bit b uses key bits [i*8+b, i*8+b+32). */
		u64 window = ((u64)key[i] << 32) | ((u64)key[i + 1] << 24) | ((u64)key[i + 2] << 16) |
			     ((u64)key[i + 3] << 8) | key[i + 4];
		for (u32 b = 0; b < 8; b++)
			if (input[i] & (0x80 >> b))
				hash ^= (u32)(window >> (8 - b));
	}
	return hash;
}

bool rss_steer(Function *fn, const u8 *frame, const PacketInfo &pi, RssResult *out)
{
	for (;;) {
		s32 ix = __atomic_load_n(&fn->active_rss, __ATOMIC_ACQUIRE);
		if (ix < 0)
			return false;
		Rss *r = &fn->rss[ix];
		u32 seq = load_u32(&r->seq);
		if (seq & 1)
			continue;	/* a command is rewriting it: a few stores away */

		HashInput in;
		u8 key[prm::kRssKeySize];
		u32 fields = __atomic_load_n(&r->fields, __ATOMIC_RELAXED);
		u32 mask = (1u << (__atomic_load_n(&r->log_size, __ATOMIC_RELAXED) & 0xf)) - 1;
		__builtin_memcpy(key, r->key, sizeof(key));
		build_input(frame, pi, fields, &in);
		u32 hash = in.len ? toeplitz_hash(key, in.bytes, in.len) : 0;
		u32 rqn = __atomic_load_n(&r->rqn[hash & mask & 0xff], __ATOMIC_RELAXED);
		u32 num = __atomic_load_n(&r->num, __ATOMIC_RELAXED);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (!num)
			continue;	/* destroyed since we read active_rss: read it again */
		out->rqn = rqn;
		out->hash = hash;
		out->hash_type = in.type;
		return true;
	}
}

void rss_write_begin(Rss *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

void rss_write_end(Rss *r)
{
	__atomic_store_n(&r->seq, r->seq + 1, __ATOMIC_RELEASE);
}

void rss_update_active(Function *fn)
{
	s32 best = -1;
	for (u32 i = 0; i < kMaxRss; i++) {
		const Rss &r = fn->rss[i];
		if (r.num && (best < 0 || r.created > fn->rss[best].created))
			best = (s32)i;
	}
	__atomic_store_n(&fn->active_rss, best, __ATOMIC_RELEASE);
}

} /* namespace softcx::hw */
