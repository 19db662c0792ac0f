// SPDX-License-Identifier: GPL-2.0
/*
 * Flow table lookup. Like an RSS object, the table is read by RX engines
 * without a lock under a sequence count (they may run under a peer's SQ
 * lock, where the command lock must not be taken) and rewritten by
 * commands; a reader that saw the count move reads again. The table lives
 * in the function, so a racing reader never meets freed memory.
 */
#include "hw/flow.h"

namespace softcx::hw {
namespace {

inline u32 be_word(const u8 *p)
{
	return (u32)p[0] << 24 | (u32)p[1] << 16 | (u32)p[2] << 8 | p[3];
}

/* n address bytes (4 or 16) into 4 words, zero-filled. */
inline void addr_words(const u8 *a, u32 n, u32 *w)
{
	for (u32 i = 0; i < 4; i++)
		w[i] = i * 4 < n ? be_word(a + i * 4) : 0;
}

constexpr u32 kWordProto = 0;	/* ip_version << 24 | ip_protocol << 16 | l4_ok << 8 */
constexpr u32 kWordPorts = 1;	/* src_port << 16 | dst_port */
constexpr u32 kWordSrc = 2;
constexpr u32 kWordDst = 6;
constexpr u32 kWordDmac = 10;	/* dmac[0..3]; then dmac[4..5] << 16 | ethertype */
constexpr u32 kWordSmac = 12;	/* smac[0..3]; then smac[4..5] << 16 | cvlan */
static_assert(kWordSmac + 2 == kFlowWords);

/* A MAC address and the 16 bits after it as two words. */
inline void mac_words(const u8 *mac, u32 low16, u32 *w)
{
	w[0] = be_word(mac);
	w[1] = (u32)mac[4] << 24 | (u32)mac[5] << 16 | low16;
}

inline u32 proto_word(u32 version, u32 proto, u32 l4_ok)
{
	return version << 24 | proto << 16 | l4_ok << 8;
}

/* The first matching entry's action and dest (kFlowFree: none), as one consistent read. */
void lookup(FlowTable *t, const u32 *key, u32 *action, u32 *dest)
{
	for (;;) {
		u32 seq = load_u32(&t->seq);
		if (seq & 1)
			continue;	/* a command is rewriting an entry */
		u32 n = __atomic_load_n(&t->n, __ATOMIC_RELAXED);
		u32 a = prm::kFlowFree, d = 0;

		for (u32 i = 0; i < n && i < kMaxFlowEntries; i++) {
			const FlowEntry &e = t->e[i];
			u32 ea = __atomic_load_n(&e.action, __ATOMIC_RELAXED);
			if (ea == prm::kFlowFree)
				continue;
			u32 w = 0;
			for (; w < kFlowWords; w++)
				if ((key[w] & __atomic_load_n(&e.mask[w], __ATOMIC_RELAXED)) !=
				    __atomic_load_n(&e.value[w], __ATOMIC_RELAXED))
					break;
			if (w == kFlowWords) {
				a = ea;
				d = __atomic_load_n(&e.dest, __ATOMIC_RELAXED);
				break;
			}
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&t->seq, __ATOMIC_RELAXED) != seq)
			continue;
		*action = a;
		*dest = d;
		return;
	}
}

} /* namespace */

void flow_key(const u8 *frame, const PacketInfo &pi, u32 *key)
{
	for (u32 w = 0; w < kFlowWords; w++)
		key[w] = 0;
	if (pi.l3_off < kEthHdrLen)
		return;	/* shorter than an Ethernet header: the parser read nothing */
	/* L2: the type the parser stopped at (after the tags) sits right before l3_off */
	u16 outer = prm::load_be16(frame + 12);
	u32 cvlan = outer == kEthTypeVlan && pi.l3_off >= kEthHdrLen + kVlanHdrLen
			    ? prm::kFlowCvlanTag | (prm::load_be16(frame + kEthHdrLen) & 0xfff)
			    : 0;
	mac_words(frame, prm::load_be16(frame + pi.l3_off - 2), key + kWordDmac);
	mac_words(frame + 6, cvlan, key + kWordSmac);
	if (pi.l3 == L3::None)
		return;
	const u8 *ip = frame + pi.l3_off;
	bool v4 = pi.l3 == L3::Ipv4;
	u32 l4_ok = pi.l4_proto ? 1 : 0;

	key[kWordProto] = proto_word(v4 ? 4 : 6, v4 ? ip[9] : ip[6], l4_ok);
	if (l4_ok)
		key[kWordPorts] = be_word(frame + pi.l4_off);
	addr_words(v4 ? ip + 12 : ip + 8, v4 ? 4 : 16, key + kWordSrc);
	addr_words(v4 ? ip + 16 : ip + 24, v4 ? 4 : 16, key + kWordDst);
}

void flow_fields_words(const prm::FlowFields &f, u32 *w)
{
	w[kWordProto] = proto_word(f.ip_version, f.ip_protocol, f.l4_ok) | f.rsvd;
	w[kWordPorts] = (u32)f.src_port.get() << 16 | f.dst_port.get();
	addr_words(f.src_ip, 16, w + kWordSrc);
	addr_words(f.dst_ip, 16, w + kWordDst);
	mac_words(f.dmac, f.ethertype.get(), w + kWordDmac);
	mac_words(f.smac, f.cvlan.get(), w + kWordSmac);
}

FlowVerdict flow_steer(Function *fn, const u8 *frame, const PacketInfo &pi, RssResult *out)
{
	u32 key[kFlowWords];
	u32 action, dest;

	flow_key(frame, pi, key);
	lookup(&fn->flows, key, &action, &dest);
	switch (action) {
	case prm::kFlowFwdRq:
		out->rqn = dest;
		out->hash = 0;
		out->hash_type = 0;
		return FlowVerdict::Steered;
	case prm::kFlowFwdRss: {
		int ix = obj_slot(dest, ObjType::Rss, kMaxRss);
		if (ix < 0 || !rss_read(fn, &fn->rss[ix], dest, frame, pi, out))
			return FlowVerdict::Dead;
		return FlowVerdict::Steered;
	}
	case prm::kFlowDrop:
		return FlowVerdict::Drop;
	default:
		return FlowVerdict::Miss;
	}
}

void flow_update_n(FlowTable *t)
{
	u32 n = kMaxFlowEntries;
	while (n && t->e[n - 1].action == prm::kFlowFree)
		n--;
	__atomic_store_n(&t->n, n, __ATOMIC_RELAXED);
}

} /* namespace softcx::hw */
