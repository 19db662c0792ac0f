/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TX send queue: a cyclic ring of 64-byte WQEBBs, per-slot WQE info for
 * completion, and a FIFO of the DMA mappings each WQE holds.
 */
#pragma once

#include "en/cq.h"
#include "en/stats.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

struct TxWqeInfo {
	void *skb;		/* nullptr for NOPs */
	u32 num_bytes;		/* BQL bytes */
	u16 num_wqebbs;
	u16 num_dma;		/* entries in the DMA FIFO */
};

struct TxDmaEntry {
	u64 dma;
	u32 len;
	u32 kind;
};

struct Sq {
	/* hot: posting */
	u16 pc;			/* producer counter (WQEBBs), free-running */
	u16 cc;			/* consumer counter, published by completion */
	u16 mask;
	u16 stop_room;
	u32 sqn;
	u32 min_inline;
	u8 *wqes;
	prm::be32 *dbrec;
	prm::CtrlSeg *doorbell_cseg;	/* last WQE not yet announced */
	u32 unrung;			/* WQEs posted since the last doorbell */
	TxWqeInfo *wqe_info;
	TxDmaEntry *dma_fifo;
	u32 dma_pc;
	u32 dma_cc;
	u32 dma_mask;
	bus::Function *fn;
	void *os_dev;
	void *os_channel;
	SqStats *stats;
	/* completion */
	Cq cq;
	/* cold */
	DmaBuf ring;
	DmaBuf db;
	u8 log_size;

	u32 size() const { return mask + 1u; }
	u16 cc_acquire() const { return __atomic_load_n(&cc, __ATOMIC_ACQUIRE); }
	bool has_room(u32 n) const
	{
		return (u32)(size() - (u16)(pc - cc_acquire())) >= n;
	}
	u8 *wqe_at(u16 ctr) const { return wqes + (u32)(ctr & mask) * prm::kSendWqeBB; }
};

/* Largest WQE this driver posts, in WQEBBs: ctrl+eth, inline DS, one DS per fragment. */
constexpr u32 kMaxInline = 18;	/* L2 incl. one VLAN tag */
constexpr u32 kSqMaxWqeBBs =
	(prm::kEmptyDsCount + (kMaxInline - 2 + 15) / 16 + SCX_TX_MAX_FRAGS + 3) / 4;
static_assert(kSqMaxWqeBBs <= prm::kMaxSendWqeBBs);

int sq_create(Sq *sq, bus::Function *fn, void *os_dev, void *os_channel, u8 log_size,
	      u32 min_inline, u32 vector, SqStats *stats);
void sq_destroy(Sq *sq);

int sq_xmit(Sq *sq, scx_tx_pkt *pkt);
void sq_doorbell(Sq *sq);
/* Handle TX CQEs; true when more remain than one poll may take. */
bool sq_poll_cq(Sq *sq, int napi_budget, scx_tx_done *done);

} /* namespace softcx::en */
