// SPDX-License-Identifier: GPL-2.0
/*
 * The RX address filter past its inline part (vport.h): the lists and the
 * VLAN maps read under the sequence count, and their writers.
 */
#include "hw/vport.h"
#include "hw/packet.h"
#include "prm/cmd.h"

namespace softcx::hw {
namespace {

constexpr u64 kBroadcast = 0xffffffffffffull;

bool in_list(const VportFilter *v, u32 from, u32 n, u64 w)
{
	for (u32 i = from; i < from + n && i < kMaxVportAddrs; i++)
		if (__atomic_load_n(&v->addr[i], __ATOMIC_RELAXED) == w)
			return true;
	return false;
}

/* Entry i of a VportMac list (unaligned bytes). */
u64 list_word(const u8 *list, u32 i)
{
	prm::VportMac m;

	__builtin_memcpy(&m, list + i * sizeof(m), sizeof(m));
	return vport_word(m.addr);
}

/*
 * read(v) under the filter's sequence count: retried while a command
 * rewrites the filter, so that it sees one whole filter.
 */
template <typename Read>
[[gnu::always_inline]] inline bool vport_read(const VportFilter *v, Read read)
{
	for (;;) {
		u32 seq = load_u32(&v->seq);
		if (seq & 1)
			continue;	/* a command is rewriting the filter */
		bool r = read(v);
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&v->seq, __ATOMIC_RELAXED) == seq)
			return r;
	}
}

} /* namespace */

bool vport_match(Function *fn, const u8 *frame)
{
	const u64 w = vport_word(frame);

	if (w == kBroadcast)
		return true;
	return vport_read(&fn->vport, [&](const VportFilter *v) {
		u8 promisc = __atomic_load_n(&v->promisc, __ATOMIC_RELAXED);
		u32 n_uc = __atomic_load_n(&v->n_uc, __ATOMIC_RELAXED);
		u32 n_mc = __atomic_load_n(&v->n_mc, __ATOMIC_RELAXED);

		if (__atomic_load_n(&v->fast, __ATOMIC_RELAXED) & kVportPassAll)
			return true;
		if (frame[0] & 1)	/* the group bit */
			return (promisc & prm::kVportPromiscMc) || in_list(v, n_uc, n_mc, w);
		return (promisc & prm::kVportPromiscUc) || in_list(v, 0, n_uc, w);
	});
}

bool vport_own_unicast(Function *fn, const u8 *frame)
{
	const u64 w = vport_word(frame);

	if (frame[0] & 1)
		return false;
	return vport_read(&fn->vport, [&](const VportFilter *v) {
		return in_list(v, 0, __atomic_load_n(&v->n_uc, __ATOMIC_RELAXED), w);
	});
}

bool vport_vlan_accepts(Function *fn, const u8 *frame)
{
	u16 type = prm::load_be16(frame + 12);
	u32 vid = prm::load_be16(frame + 14) & (prm::kVlanIds - 1);
	u32 kind = type == kEthTypeVlan ? 0 : 1;	/* the parser saw 802.1Q or 802.1ad */
	u8 filtered = kind == 0 ? prm::kVportVlanCtag : prm::kVportVlanStag;

	return vport_read(&fn->vport, [&](const VportFilter *v) {
		return (__atomic_load_n(&v->fast, __ATOMIC_RELAXED) & kVportPassAll) ||
		       !(__atomic_load_n(&v->vlan, __ATOMIC_RELAXED) & filtered) ||
		       ((__atomic_load_n(&v->vids[kind][vid / 64], __ATOMIC_RELAXED) >> (vid % 64)) & 1);
	});
}

void vport_set_vlans(Function *fn, u8 vlan, const u8 *maps)
{
	VportFilter *v = &fn->vport;

	seq_write_begin(&v->seq);
	__atomic_store_n(&v->vlan, vlan, __ATOMIC_RELAXED);
	for (u32 k = 0; k < 2; k++) {
		const u8 *m = maps + k * prm::kVportVlanMapBytes;

		for (u32 w = 0; w < kVlanMapWords; w++) {
			u64 bits = 0;

			for (u32 b = 0; b < 8; b++)
				bits |= (u64)m[w * 8 + b] << (8 * b);
			__atomic_store_n(&v->vids[k][w], bits, __ATOMIC_RELAXED);
		}
	}
	seq_write_end(&v->seq);
}

void vport_set(Function *fn, u8 promisc, const u8 *list, u32 n_uc, u32 n_mc)
{
	VportFilter *v = &fn->vport;
	u64 fast = promisc & prm::kVportPromiscAll ? kVportPassAll
		   : n_uc			    ? kVportFirstUc | list_word(list, 0)
						    : 0;

	seq_write_begin(&v->seq);
	__atomic_store_n(&v->promisc, promisc, __ATOMIC_RELAXED);
	__atomic_store_n(&v->n_uc, (u8)n_uc, __ATOMIC_RELAXED);
	__atomic_store_n(&v->n_mc, (u8)n_mc, __ATOMIC_RELAXED);
	for (u32 i = 0; i < n_uc + n_mc; i++)
		__atomic_store_n(&v->addr[i], list_word(list, i), __ATOMIC_RELAXED);
	__atomic_store_n(&v->fast, fast, __ATOMIC_RELAXED);
	seq_write_end(&v->seq);
}

} /* namespace softcx::hw */
