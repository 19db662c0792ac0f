/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TX send queue: a cyclic ring of 64-byte WQEBBs, per-slot WQE info for
 * completion, a FIFO of what each WQE holds (DMA mappings and the skbs,
 * pages or XDP frames behind them), and the open enhanced multi-packet WQE
 * session. One ring type serves the stack's SQ and the XDP SQs; what a
 * completion releases is fixed per SQ (SqKind) and compiled in by template.
 */
#pragma once

#include "en/cq.h"
#include "en/params.h"
#include "en/stats.h"
#include "prm/packet.h"
#include "prm/wqe.h"
#include "softcx/core.h"

namespace softcx::en {

/* What an SQ carries, and so what its completions release. */
enum class SqKind : u8 {
	Skb,	/* the stack's SQ: unmap each mapping, free each skb */
	Page,	/* XDP_TX: RX pages, recycled into the RQ's page pool */
	Frame,	/* ndo_xdp_xmit: OS frames, unmapped (single) and handed back */
};

struct TxWqeInfo {
	void *skb;		/* single-packet skb WQE; nullptr otherwise */
	u32 num_bytes;		/* BQL bytes */
	u16 num_wqebbs;
	u16 num_dma;		/* entries in the FIFO */
	/* Skb SQ: what tx_packets/tx_bytes count once the WQE completes (wire packets, bytes) */
	u32 wire_bytes;
	u16 wire_pkts;
	u8 tstamp;		/* skb asked for a hardware TX timestamp (scx_tx_pkt.tstamp) */
};

/*
 * One FIFO entry. Skb SQ: a mapping, plus its skb for MPWQE packets.
 * Page SQ: obj is the RX page (dma unused: the pool owns the mapping).
 * Frame SQ: obj is the OS frame, dma its single mapping.
 */
struct TxDmaEntry {
	u64 dma;
	u32 len;
	u32 kind;	/* SCX_DMA_*; on the XDP_TX SQ kDmaXdpFrag for a frame's later pages */
	void *obj;
};
/* XDP_TX SQ: a multi-buffer frame's page after its first (recycled, not a frame of its own). */
constexpr u32 kDmaXdpFrag = 0x100;

/* The open enhanced multi-packet send WQE ("session"); ctrl == nullptr: none open. */
struct MpwSession {
	prm::CtrlSeg *ctrl;
	u32 bytes;		/* BQL bytes */
	u32 wire_bytes;
	u16 ds_count;
	u16 pkt_count;
	u8 cs_flags;		/* the shared eth segment's part that must match */
};

struct Sq {
	/* hot: posting */
	u16 pc;			/* producer counter (WQEBBs), free-running */
	u16 cc;			/* consumer counter, published by completion */
	u16 mask;
	u32 sqn;
	SqLimits lim;		/* fixed per SQ (params) */
	bool recovering;	/* error CQE seen; no wake until recovered */
	bool xdp_inline;	/* XDP MPWQE: inline small frames (hysteresis, per session) */
	u8 xmit_busy;		/* Frame SQ: a producer or the recovery is inside */
	prm::be32 lkey;		/* of every data segment (the error hook spoils it) */
	bool stalled;		/* test hook: doorbells are lost until the next recovery */
	bool bogus_cqe;		/* the CQE that stopped it named no outstanding WQE */
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
	void *os_port;
	void *os_channel;
	SqStats *stats;		/* Skb SQ */
	XdpSqStats *xstats;	/* XDP SQs */
	scx_os_rxq *pool;	/* Page SQ: the RQ's page pool */
	/* completion */
	Cq cq;
	/* cold */
	QueueMem mem;
	u8 log_size;
	SqKind kind;

	u32 size() const { return mask + 1u; }
	u16 cc_acquire() const { return __atomic_load_n(&cc, __ATOMIC_ACQUIRE); }
	bool has_room(u32 n) const
	{
		return (u32)(size() - (u16)(pc - cc_acquire())) >= n;
	}
	u8 *wqe_at(u16 ctr) const { return wqes + (u32)(ctr & mask) * prm::kSendWqeBB; }
};

struct SqConfig {
	bus::Function *fn;
	void *os_dev;
	void *os_port;
	void *os_channel;
	u8 log_size;
	SqKind kind;
	u32 vector;
	SqLimits lim;
	scx_cq_moder moder;	/* of its CQ */
	SqStats *stats;		/* Skb */
	XdpSqStats *xstats;	/* Page, Frame */
	scx_os_rxq *pool;	/* Page */
};

int sq_create(Sq *sq, const SqConfig &cfg);
void sq_destroy(Sq *sq);

/* Stack posting, specialised on the MPWQE setting of the SQ (chosen at open). */
template <bool kMpw> int sq_xmit(Sq *sq, scx_tx_pkt *pkt);
void sq_doorbell(Sq *sq);
/* Request a CQE on the last WQE posted and ring for everything posted. */
void sq_ring(Sq *sq);
/*
 * Handle CQEs, releasing what the WQEs held (napi: from NAPI, so the RQ's
 * own pages may go to its pool's cache; redirected frames never do: they
 * belong to other pools and go back in bulk); true when more remain than one
 * poll may take. tx_packets/tx_bytes count here, at completion. An error
 * CQE (or one that names no outstanding WQE) completes what the device did
 * before it, sets `recovering` and done->tx_error.
 */
template <SqKind K> bool sq_poll_cqes(Sq *sq, int napi_budget, scx_tx_done *done);
template <SqKind K> inline bool sq_poll_cq(Sq *sq, int napi_budget, scx_tx_done *done)
{
	/* an SQ with nothing completed (most polls of the XDP SQs): no call, no frame */
	if (!sq->cq.peek())
		return false;
	return sq_poll_cqes<K>(sq, napi_budget, done);
}
/*
 * Flush and reset after an error CQE or a TX timeout (posting and
 * completion quiesced): CQEs still waiting complete their WQEs, everything
 * else outstanding is flushed (counted, never sent), ERR -> RST -> RDY.
 */
template <SqKind K> int sq_recover(Sq *sq);

/* ---- pieces the WQE builders share ---- */

template <SqKind K> inline Counter &nop_counter(Sq *sq)
{
	if constexpr (K == SqKind::Skb)
		return sq->stats->nop;
	else
		return sq->xstats->nops;
}

/* One-WQEBB NOPs up to the ring edge so the next num_wqebbs are contiguous. */
template <SqKind K> inline void pad_to_edge(Sq *sq, u32 num_wqebbs)
{
	u32 contig = sq->size() - (sq->pc & sq->mask);

	if (contig >= num_wqebbs)
		return;
	while (contig--) {
		auto *ctrl = reinterpret_cast<prm::CtrlSeg *>(sq->wqe_at(sq->pc));

		__builtin_memset(ctrl, 0, prm::kSendWqeBB);
		ctrl->set(prm::kOpNop, sq->pc, sq->sqn, 1);
		sq->wqe_info[sq->pc & sq->mask] = TxWqeInfo{nullptr, 0, 1, 0, 0, 0};
		sq->doorbell_cseg = ctrl;
		sq->pc++;
		nop_counter<K>(sq).inc();
	}
}

/* Inline ihs header bytes: two in the eth segment, the rest in the DS after it. */
inline void put_inline_hdr(prm::EthSeg *eth, const u8 *src, u32 ihs)
{
	eth->inline_hdr_sz.set((u16)ihs);
	__builtin_memcpy(eth->inline_hdr_start, src, ihs < 2 ? ihs : 2);
	if (ihs > 2)
		__builtin_memcpy(eth + 1, src + 2, ihs - 2);
}

/* A data segment: a pointer to len bytes at dma, reached with the SQ's or RQ's lkey. */
inline void put_dseg(prm::DataSeg *d, u64 dma, u32 len, prm::be32 lkey)
{
	d->byte_count.set(len);
	d->lkey = lkey;
	d->addr.set(dma);
}

/* A session's first WQEBB: ctrl and eth zeroed, the session open at pc (already padded). */
inline void mpw_open(Sq *sq, u8 cs_flags)
{
	u8 *wqe = sq->wqe_at(sq->pc);
	auto *eth = reinterpret_cast<prm::EthSeg *>(wqe + sizeof(prm::CtrlSeg));

	__builtin_memset(wqe, 0, sizeof(prm::CtrlSeg) + sizeof(prm::EthSeg));
	eth->cs_flags = cs_flags;
	sq->mpw = MpwSession{reinterpret_cast<prm::CtrlSeg *>(wqe), 0, 0, (u16)prm::kEmptyDsCount,
			     0, cs_flags};
}

/* Complete the open session: ctrl, WQE info, pc. No doorbell. */
inline void mpw_close(Sq *sq)
{
	MpwSession &s = sq->mpw;
	prm::CtrlSeg *ctrl = s.ctrl;

	if (!ctrl)
		return;
	u32 num_wqebbs = div_round_up(s.ds_count, prm::kDsPerWqeBB);

	ctrl->set(prm::kOpEnhancedMpsw, sq->pc, sq->sqn, s.ds_count);
	sq->wqe_info[sq->pc & sq->mask] = TxWqeInfo{nullptr, s.bytes, (u16)num_wqebbs,
						    s.pkt_count, s.wire_bytes, s.pkt_count};
	sq->doorbell_cseg = ctrl;
	sq->pc += num_wqebbs;
	s.ctrl = nullptr;
}

/* Append a data pointer to the open session's next DS. */
inline void mpw_add_dseg(Sq *sq, u64 dma, u32 len)
{
	MpwSession &s = sq->mpw;
	auto *d = reinterpret_cast<prm::DataSeg *>(reinterpret_cast<u8 *>(s.ctrl) +
						   s.ds_count * prm::kSendWqeDS);

	put_dseg(d, dma, len, sq->lkey);
	s.ds_count++;
}

inline void fifo_push(Sq *sq, u64 dma, u32 len, u32 kind, void *obj)
{
	sq->dma_fifo[sq->dma_pc++ & sq->dma_mask] = TxDmaEntry{dma, len, kind, obj};
}

} /* namespace softcx::en */
