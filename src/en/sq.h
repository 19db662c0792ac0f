/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TX send queue: a cyclic ring of 64-byte WQEBBs, per-slot WQE info for
 * completion, a FIFO of the DMA mappings (and, for multi-packet WQEs, the
 * skbs) each WQE holds, and the open enhanced multi-packet WQE session.
 */
#pragma once

#include "en/cq.h"
#include "en/stats.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

struct TxWqeInfo {
	void *skb;		/* single-packet WQE; nullptr for NOPs and MPWQE sessions */
	u32 num_bytes;		/* BQL bytes */
	u16 num_wqebbs;
	u16 num_dma;		/* entries in the DMA FIFO */
};

/* One mapping; an MPWQE session's entries also carry their skb (one each). */
struct TxDmaEntry {
	u64 dma;
	u32 len;
	u32 kind;
	void *skb;
};

/* The open enhanced multi-packet send WQE ("session"); ctrl == nullptr: none open. */
struct MpwSession {
	prm::CtrlSeg *ctrl;
	u32 bytes;
	u16 ds_count;
	u16 pkt_count;
	u8 cs_flags;		/* the shared eth segment's part that must match */
};

/*
 * Session size: at most 15 WQEBBs (the ds field cannot express 16 * 4) and
 * an even number on 128-byte cacheline hosts. 64-byte lines: 60 DS, i.e.
 * ctrl + eth + 58 packets.
 */
#ifndef SCX_L1_CACHE_BYTES
#define SCX_L1_CACHE_BYTES 64
#endif
constexpr u32 kMpwMaxWqeBBs = SCX_L1_CACHE_BYTES >= 128 ? 14 : 15;
constexpr u32 kMpwMaxDs = kMpwMaxWqeBBs * prm::kDsPerWqeBB;
constexpr u32 kMpwMaxPkts = kMpwMaxDs - prm::kEmptyDsCount;
static_assert(kMpwMaxDs <= prm::kMaxDsCount);

/* Inline header limits: L2 incl. one VLAN tag (min inline); L2..L4 with options (LSO). */
constexpr u32 kMaxInline = 18;
constexpr u32 kMaxLsoInline = 256;

/* Largest single WQE this driver posts, in WQEBBs: ctrl+eth, inline DS, one DS per fragment. */
constexpr u32 kSqMaxDs = prm::kEmptyDsCount + (kMaxLsoInline - 2 + 15) / 16 + SCX_TX_MAX_FRAGS;
constexpr u32 kSqMaxWqeBBs = (kSqMaxDs + 3) / 4;
static_assert(kSqMaxDs <= prm::kMaxDsCount);
static_assert(kSqMaxWqeBBs <= prm::kMaxSendWqeBBs);

struct Sq {
	/* hot: posting */
	u16 pc;			/* producer counter (WQEBBs), free-running */
	u16 cc;			/* consumer counter, published by completion */
	u16 mask;
	u16 stop_room;
	u32 sqn;
	u32 min_inline;
	bool mpwqe;		/* post eligible skbs in MPWQE sessions (fixed per SQ) */
	bool recovering;	/* error CQE seen; no wake until recovered */
	prm::be32 lkey;		/* of every data segment (the error hook spoils it) */
	MpwSession mpw;
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

int sq_create(Sq *sq, bus::Function *fn, void *os_dev, void *os_channel, u8 log_size,
	      u32 min_inline, bool mpwqe, u32 vector, SqStats *stats);
void sq_destroy(Sq *sq);

/* Posting, specialised on the MPWQE setting of the SQ (chosen at open). */
template <bool kMpw> int sq_xmit(Sq *sq, scx_tx_pkt *pkt);
void sq_doorbell(Sq *sq);
/* Handle TX CQEs; true when more remain than one poll may take. */
bool sq_poll_cq(Sq *sq, int napi_budget, scx_tx_done *done);
/* Flush and reset after an error CQE (xmit and NAPI quiesced). */
int sq_recover(Sq *sq);

} /* namespace softcx::en */
