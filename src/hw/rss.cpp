// SPDX-License-Identifier: GPL-2.0
/*
 * Toeplitz hashing and RQ selection.
 *
 * RX engines read the RSS object without a lock (they may run under a peer's
 * SQ lock, where the command lock must not be taken). Commands rewrite it
 * inside a sequence count, and the reader retries when the count moved.
 * RSS slots and their Toeplitz tables live as long as the adapter, so a
 * racing reader only ever sees a stale or changing object, never freed
 * memory. A new key rebuilds the table inside the write section (a few
 * microseconds with BHs off, readers of that object spin meanwhile).
 */
#include "hw/rss.h"
#include "hw/tunnel.h"
#include "prm/cqe.h"

namespace softcx::hw {
namespace {

/*
 * The Toeplitz value of N input bytes at input offset pos: one table load
 * per byte, unrolled (the fields of a frame have fixed sizes). The table
 * may be rewritten under a reader: relaxed loads, the sequence count
 * decides.
 */
template <u32 N>
[[gnu::always_inline]] inline u32 hash_bytes(const ToeplitzTable *t, u32 pos, const u8 *p)
{
	u32 h = 0;

#pragma GCC unroll 16
	for (u32 i = 0; i < N; i++)
		h ^= __atomic_load_n(&t->v[pos + i][p[i]], __ATOMIC_RELAXED);
	return h;
}

/*
 * The same at a constant offset, for the usual selections: each row is a
 * constant displacement, and a byte costs a load and an XOR from memory.
 * The loads are plain ones, as a kernel seqcount reader's: a value torn
 * by a rewrite is thrown away by the sequence count check. With the loop
 * above (relaxed atomics, the row index kept in a register) a byte took
 * six instructions (rss_read: 148 -> 128 a packet, bench/vm/icount.sh).
 */
template <u32 Pos, u32 N, u32 I = 0>
[[gnu::always_inline]] inline u32 hash_at(const ToeplitzTable *t, const u8 *p)
{
	if constexpr (I == N) {
		return 0;
	} else {
		return t->v[Pos + I][p[I]] ^ hash_at<Pos, N, I + 1>(t, p);
	}
}

/* The frame's traffic type's fields out of the object's packed ones. */
inline u32 type_fields(const PacketInfo &pi, u32 packed)
{
	u32 t = pi.l3 == L3::Ipv4 ? prm::kRssTcp4 : prm::kRssTcp6;

	if (pi.l4_proto == kIpProtoUdp)
		t += prm::kRssUdp4 - prm::kRssTcp4;
	else if (pi.l4_proto != kIpProtoTcp)
		t += prm::kRssIp4 - prm::kRssTcp4;
	return (packed >> (t * kRssTypeShift)) & ((1u << kRssTypeShift) - 1);
}

constexpr u32 kBothAddrs = prm::kRssFieldSrcIp | prm::kRssFieldDstIp;
constexpr u32 kBothPorts = prm::kRssFieldL4SPort | prm::kRssFieldL4DPort;

/*
 * Hash input: source IP, destination IP, source port, destination port,
 * each as selected by the fields of the frame's traffic type (N: the
 * address size). The usual selections (both addresses, both ports or
 * none) take a path with constant offsets; any other goes field by field.
 */
template <u32 N>
u8 hash_ip(const ToeplitzTable *t, const u8 *saddr, const u8 *l4, u8 l4_proto, u32 fields,
	   u32 *hash)
{
	u8 type = N == 4 ? prm::kRssHashIpv4 : prm::kRssHashIpv6;
	u8 l4_type = l4_proto == kIpProtoTcp ? prm::kRssHashTcp : prm::kRssHashUdp;
	u32 ports = l4_proto ? fields & kBothPorts : 0;

	if ((fields & kBothAddrs) == kBothAddrs && (ports == kBothPorts || !ports)) {
		u32 h = hash_at<0, 2 * N>(t, saddr);
		if (ports) {
			h ^= hash_at<2 * N, 4>(t, l4);
			type |= l4_type;
		}
		*hash = h;
		return type;
	}
	u32 h = 0, pos = 0;
	if (fields & prm::kRssFieldSrcIp) {
		h ^= hash_bytes<N>(t, pos, saddr);
		pos += N;
	}
	if (fields & prm::kRssFieldDstIp) {
		h ^= hash_bytes<N>(t, pos, saddr + N);
		pos += N;
	}
	if (!pos)
		type = 0;
	if (ports) {
		if (fields & prm::kRssFieldL4SPort) {
			h ^= hash_bytes<2>(t, pos, l4);
			pos += 2;
		}
		if (fields & prm::kRssFieldL4DPort)
			h ^= hash_bytes<2>(t, pos, l4 + 2);
		type |= l4_type;
	}
	*hash = h;
	return type;
}

/* Returns the CQE hash type bits; the hash goes to *hash (0 when the input is empty). */
inline u8 hash_frame(const ToeplitzTable *t, const u8 *f, const PacketInfo &pi, u32 packed,
		     u32 *hash)
{
	*hash = 0;
	if (pi.l3 == L3::None || !t)
		return 0;
	u32 fields = type_fields(pi, packed);
	const u8 *ip = f + pi.l3_off;
	if (pi.l3 == L3::Ipv4)
		return hash_ip<4>(t, ip + 12, f + pi.l4_off, pi.l4_proto, fields, hash);
	return hash_ip<16>(t, ip + 8, f + pi.l4_off, pi.l4_proto, fields, hash);
}

} /* namespace */

void toeplitz_build(const u8 *key, ToeplitzTable *t)
{
	for (u32 i = 0; i < kToeplitzMaxInput; i++) {
		/* Key bits [i*8, i*8+40): input bit b of byte i uses the 32 starting at i*8+b. */
		u64 window = ((u64)key[i] << 32) | ((u64)key[i + 1] << 24) | ((u64)key[i + 2] << 16) |
			     ((u64)key[i + 3] << 8) | key[i + 4];
		u32 bit[8];	/* bit[k]: the window of the input bit with value 1 << k */
		for (u32 k = 0; k < 8; k++)
			bit[k] = (u32)(window >> (k + 1));
		u32 *row = t->v[i];
		row[0] = 0;
		/* Each value = the value without its lowest set bit, XOR that bit's window. */
		for (u32 x = 1; x < 256; x++)
			row[x] = row[x & (x - 1)] ^ bit[__builtin_ctz(x)];
	}
}

u32 toeplitz_hash(const ToeplitzTable *t, const u8 *input, u32 len)
{
	u32 h = 0;

	for (u32 i = 0; i < len && i < kToeplitzMaxInput; i++)
		h ^= hash_bytes<1>(t, i, input + i);
	return h;
}

namespace {

/* rss_read(), and the sequence count its answer was read at (*seq). */
[[gnu::always_inline]] inline bool read_at(Rss *r, u32 num, const u8 *frame, const PacketInfo &pi,
					  RssResult *out, u32 *seq_out)
{
	for (;;) {
		u32 seq = load_u32(&r->seq);
		if (seq & 1)
			continue;	/* a command is rewriting it */

		u32 fields = __atomic_load_n(&r->fields, __ATOMIC_RELAXED);
		u32 mask = (1u << (__atomic_load_n(&r->log_size, __ATOMIC_RELAXED) & 0xf)) - 1;
		const ToeplitzTable *t = __atomic_load_n(&r->toeplitz, __ATOMIC_RELAXED);
		u32 hash;
		u8 type = hash_frame(t, frame, pi, fields, &hash);
		u32 rqn = __atomic_load_n(&r->rqn[hash & mask & 0xff], __ATOMIC_RELAXED);
		u32 live = __atomic_load_n(&r->num, __ATOMIC_RELAXED);

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&r->seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (!live || (num && live != num))
			return false;
		out->rqn = rqn;
		out->hash = hash;
		out->hash_type = type;
		*seq_out = seq;
		return true;
	}
}

/* A miss: the object decides, and the cache keeps its answer. Out of line, off the hit path. */
[[gnu::noinline]] bool cache_fill(Rss *r, const u8 *frame, const PacketInfo &pi, RssCache *c,
				  RssResult *out)
{
	u32 seq, n = pi.l3 == L3::Ipv4 ? 4 : 16;

	if (!read_at(r, 0, frame, pi, out, &seq))
		return false;
	c->rss = r;
	c->seq = seq;
	c->l4_proto = pi.l4_proto;
	c->ipv6 = n == 16;
	__builtin_memcpy(c->key, frame + pi.l3_off + (n == 4 ? 12 : 8), 2 * n);
	__builtin_memcpy(c->key + 2 * n, frame + pi.l4_off, 4);
	c->res = *out;
	return true;
}

/*
 * The inner packet of an IP tunnel's frame, parsed into *in (kRssInner);
 * null when pi's frame is none the device parses, or its inner IP header
 * is not whole.
 */
[[gnu::noinline]] const u8 *ip_tunnel_packet(const Function *fn, const u8 *frame,
					      const PacketInfo &pi, PacketInfo *in)
{
	u32 len;
	u16 type;
	u32 off = tunnel_inner(fn, frame, pi, &len, &type);

	if (!off)
		return nullptr;
	parse_inner(frame + off, len, type, in);
	return in->l3 != L3::None ? frame + off : nullptr;
}

} /* namespace */

bool rss_read(const Function *fn, Rss *r, u32 num, const u8 *frame, const PacketInfo &pi,
	      RssResult *out)
{
	u32 seq;

	/* no TCP/UDP: maybe an IP tunnel (tunnel_inner() takes those only then) */
	if (__builtin_expect(!pi.l4_proto && pi.ip_len_ok, 0) &&
	    __atomic_load_n(&r->inner, __ATOMIC_RELAXED)) {
		PacketInfo in;
		if (const u8 *packet = ip_tunnel_packet(fn, frame, pi, &in))
			return read_at(r, num, packet, in, out, &seq);
	}
	return read_at(r, num, frame, pi, out, &seq);
}

bool rss_steer_slow(Function *fn, const u8 *frame, const PacketInfo &pi, RssCache *cache,
		    RssResult *out)
{
	bool flow = pi.l4_proto == kIpProtoTcp || pi.l4_proto == kIpProtoUdp;

	for (;;) {
		s32 ix = __atomic_load_n(&fn->active_rss, __ATOMIC_ACQUIRE);
		if (ix < 0)
			return false;
		Rss *r = &fn->rss[ix];
		u32 seq = load_u32(&r->seq);
		bool ok;

		/* the parser sets a TCP/UDP protocol only with the L4 header in the frame */
		if (cache && flow && !(seq & 1)) {
			if (pi.l3 == L3::Ipv4 ? cache_hit<4>(cache, r, seq, frame, pi) :
						cache_hit<16>(cache, r, seq, frame, pi)) {
				*out = cache->res;
				return true;
			}
			ok = cache_fill(r, frame, pi, cache, out);
		} else {
			ok = rss_read(fn, r, 0, frame, pi, out);
		}
		if (ok)
			return true;
		/* destroyed since we read active_rss: read it again */
	}
}

void rss_write_begin(Rss *r)
{
	seq_write_begin(&r->seq);
}

void rss_set_key(Rss *r, const u8 *key)
{
	if (!__builtin_memcmp(r->key, key, sizeof(r->key)))
		return;		/* same key, same table (MODIFY_RSS of the table only) */
	__builtin_memcpy(r->key, key, sizeof(r->key));
	toeplitz_build(r->key, r->toeplitz);
}

void rss_write_end(Rss *r)
{
	seq_write_end(&r->seq);
}

void rss_update_active(Function *fn)
{
	s32 best = -1;
	for (u32 i = 0; i < kMaxRss; i++) {
		const Rss &r = fn->rss[i];
		if (r.num && !r.flow_only && (best < 0 || r.created > fn->rss[best].created))
			best = (s32)i;
	}
	__atomic_store_n(&fn->active_rss, best, __ATOMIC_RELEASE);
}

} /* namespace softcx::hw */
