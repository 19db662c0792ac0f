/* SPDX-License-Identifier: GPL-2.0 */
/*
 * CQE decompression, driver side: walks an RX CQ created with cqe_comp_en
 * and hands out one CQE per packet, whether the device wrote it whole or as
 * a mini CQE (formats in prm/cqe.h). Nothing is copied back into the ring:
 * a regular CQE is handed out in place, a mini CQE's packet as the
 * decompressor's copy of the title with the mini CQE's fields patched in
 * (one 64-byte copy per title, three fields per packet).
 *
 * The poll loop, specialised once per channel on the CQ's layout, mini CQE
 * format and RQ type (no per-packet test of configuration):
 *
 *	while (work < budget && (cqe = cqe_decomp_next<L, F, S>(&d, &cq))) {
 *		handle_cqe(rq, cqe);	// as for an uncompressed CQE
 *		work++;
 *	}
 *	cqe_decomp_poll_done<L>(&d, &cq);
 *	cq.update_ci();
 *
 * cqe_decomp_next() consumes what it hands out (cq->cc moves on; no pop()).
 * The CQE stays readable until the next call or until update_ci().
 *
 * The budget counts packets (mini CQEs), so a run, and a mini slot, may be
 * split across polls: `left` remembers the rest, and the slot being read
 * is not consumed (set_ci stays before it) until its last mini CQE is
 * handed out. Basic layout: each mini slot, once consumed, gets op_own =
 * INVALID with the slot's lap parity, so that on the next lap it looks
 * like a CQE the device has not written. Enhanced layout: validity by
 * iteration count, no rewrite. (mlx5 leaves an enhanced slot bigger than
 * the rest of its budget for the next poll; splitting it instead keeps a
 * poll from ending early with work pending, and a budget below 7, as busy
 * polling may give, from never reading it.)
 *
 * The packets' CQEs are those the device writes without compression, but
 * for op_own's owner bit and byte 62 (signature), which are 0 in the copies.
 */
#pragma once

#include "en/cq.h"
#include "prm/cqe.h"
#include "prm/wqe.h"

namespace softcx::en {

struct CqeDecomp {
	prm::Cqe64 cqe;			/* the title; patched for the packet handed out last */
	const prm::Cqe64 *slot;		/* the mini slot being read */
	u32 left;			/* mini CQEs not yet handed out (basic: of the session; enhanced: of the slot) */
	u32 ix;				/* the next mini CQE's index in its slot */
	u16 wqe_counter;		/* the next packet's, when the mini CQEs do not carry it */
	bool title_fresh;		/* enhanced: cqe is a title none of whose slots was read yet */
	const prm::Cqe64 *last_regular;	/* enhanced: the last regular CQE handed out (a title?) */
	/* rx_cqe_compress_blks / _pkts material: the caller folds and clears them */
	u32 blks;			/* titles with mini CQEs */
	u32 pkts;			/* packets from mini CQEs */
};

/* A clean decompressor (a new CQ, or one the RQ's recovery resynced). */
inline void cqe_decomp_init(CqeDecomp *d) { *d = {}; }

/*
 * Enhanced layout: stamp every slot's validity iteration as not written on
 * the lap it is next written in (kCqeInitValidity on a new CQ), after
 * cq_create() and after cq_resync().
 */
void cqe_decomp_stamp(Cq *cq);

namespace decomp {

/* What the packet after one with this byte_cnt carries as wqe_counter. */
template <bool Striding> inline u16 next_counter(u16 wqe_counter, u32 byte_cnt)
{
	if (Striding)
		return (u16)(wqe_counter +
			     ((byte_cnt >> prm::kMpwrqCqeStridesShift) & prm::kMpwrqCqeStridesMask));
	return (u16)(wqe_counter + 1);
}

/* The title copy becomes mini CQE m's packet. */
template <prm::MiniCqeFormat F, bool Striding>
inline const prm::Cqe64 *expand(CqeDecomp *d, const prm::MiniCqe8 &m)
{
	prm::Cqe64 *c = &d->cqe;

	c->byte_cnt = m.byte_cnt;
	if (F == prm::kMiniCqeHash) {
		c->rss_hash_result = m.rx_hash_result;
	} else {
		c->check_sum = m.csum.checksum;
	}
	if (F == prm::kMiniCqeCsumStridx) {
		c->wqe_counter = m.csum.stridx;
	} else {
		c->wqe_counter.set(d->wqe_counter);
		d->wqe_counter = next_counter<Striding>(d->wqe_counter, m.byte_cnt.get());
	}
	return c;
}

/* Basic layout: the next mini CQE of the open session (left > 0). */
template <prm::MiniCqeFormat F, bool Striding>
inline const prm::Cqe64 *basic_mini(CqeDecomp *d, Cq *cq)
{
	prm::Cqe64 *slot = &cq->cqes[cq->cc & cq->mask];
	u32 k = d->ix;
	const prm::Cqe64 *c = expand<F, Striding>(d, reinterpret_cast<const prm::MiniCqe8 *>(slot)[k]);

	d->left--;
	d->ix = (k + 1) % prm::kMiniCqesPerSlot;
	if (!d->ix || !d->left) {
		/* slot read: not valid on its next lap until the device writes it */
		__atomic_store_n(&slot->op_own, (u8)(prm::kCqeInvalid << 4 | cq->owner_for(cq->cc)),
				 __ATOMIC_RELAXED);
		cq->pop();
		d->ix = 0;
	}
	return c;
}

/* Enhanced layout: the next CQE, valid when its iteration count is the lap's. */
inline const prm::Cqe64 *enhanced_peek(const Cq *cq)
{
	const prm::Cqe64 *cqe = &cq->cqes[cq->cc & cq->mask];
	u8 it = __atomic_load_n(&cqe->signature, __ATOMIC_RELAXED);

	if (it != (u8)(cq->cc >> cq->log_size))
		return nullptr;
	dma_rmb();
	return cqe;
}

/* Enhanced layout: the last regular CQE is the title of the slots that follow it. */
template <bool Striding> inline void take_title(CqeDecomp *d)
{
	d->cqe = *d->last_regular;
	d->cqe.signature = 0;
	d->cqe.op_own = (u8)(d->cqe.op_own & 0xf0);
	d->wqe_counter = next_counter<Striding>(d->cqe.wqe_counter.get(), d->cqe.byte_cnt.get());
	d->last_regular = nullptr;
	d->title_fresh = true;
}

template <prm::MiniCqeFormat F, bool Striding>
inline const prm::Cqe64 *enhanced_mini(CqeDecomp *d, Cq *cq)
{
	const auto *slot = reinterpret_cast<const prm::EnhancedMiniSlot *>(d->slot);
	const prm::Cqe64 *c = expand<F, Striding>(d, slot->mini[d->ix++]);

	if (!--d->left)
		cq->pop();
	return c;
}

} /* namespace decomp */

/* The next packet's CQE, or nullptr (nothing valid yet). */
template <prm::CqeCompLayout L, prm::MiniCqeFormat F, bool Striding>
inline const prm::Cqe64 *cqe_decomp_next(CqeDecomp *d, Cq *cq)
{
	if (L == prm::kCqeCompBasic) {
		if (d->left)
			return decomp::basic_mini<F, Striding>(d, cq);
		const prm::Cqe64 *cqe = cq->peek();
		if (!cqe)
			return nullptr;
		cq->pop();
		if (__builtin_expect(cqe->format() != prm::kCqeFormatCompressed, 1))
			return cqe;
		d->cqe = *cqe;
		d->cqe.op_own = (u8)(cqe->op_own & 0xf0);
		d->left = cqe->byte_cnt.get();
		d->ix = 0;
		d->wqe_counter = cqe->wqe_counter.get();
		d->blks++;
		d->pkts += d->left;
		if (__builtin_expect(!d->left, 0))
			return cqe_decomp_next<L, F, Striding>(d, cq);	/* empty title */
		return decomp::basic_mini<F, Striding>(d, cq);
	}

	if (d->left)
		return decomp::enhanced_mini<F, Striding>(d, cq);
	const prm::Cqe64 *cqe = decomp::enhanced_peek(cq);
	if (!cqe)
		return nullptr;
	if (__builtin_expect(cqe->format() != prm::kCqeFormatCompressed, 1)) {
		d->last_regular = cqe;
		cq->pop();
		return cqe;
	}
	u32 n = (u32)cqe->opcode() + 1;
	if (d->last_regular)
		decomp::take_title<Striding>(d);
	if (d->title_fresh) {
		d->title_fresh = false;
		d->blks++;
	}
	d->pkts += n;
	d->slot = cqe;
	d->left = n;
	d->ix = 0;
	return decomp::enhanced_mini<F, Striding>(d, cq);
}

/*
 * End of a poll, before update_ci(): the enhanced layout's title may be the
 * last CQE consumed, whose slot the device may reuse once set_ci passes it:
 * keep a copy.
 */
template <prm::CqeCompLayout L, bool Striding> inline void cqe_decomp_poll_done(CqeDecomp *d, Cq *)
{
	if (L == prm::kCqeCompEnhanced && d->last_regular)
		decomp::take_title<Striding>(d);
}

} /* namespace softcx::en */
