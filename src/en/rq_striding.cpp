// SPDX-License-Identifier: GPL-2.0
/*
 * Striding RQ (multi-packet RX WQEs): linked-list WQEs, each a run of
 * page_pool pages cut into strides (params.h: RqLayout). The device puts
 * each frame at the next free stride(s) of its current WQE and names WQE,
 * first stride and strides consumed in the CQE; a filler CQE covers the
 * strides it skips at a WQE's end. The driver counts the strides of the
 * WQE at cc; when all are accounted for, the WQE's pages go back (the
 * references no skb, fragment or XDP frame took) and the slot is posted
 * again.
 *
 * Pages: each starts with kMpwPageBias references (scx_os_rx_frag_set);
 * every skb, fragment or XDP frame built on it takes one (MpwPage::refs)
 * and gives it back when freed; the WQE's release drops the rest at once.
 *
 * Headroom (linear strides): the WQE's buffer starts `headroom` bytes into
 * its first page, so stride k's frame lands at its stride's start plus
 * the headroom, inside its own stride; the buffer's last `headroom` bytes
 * are a small per-RQ tail the device only reaches with a frame too long
 * for a stride (dropped).
 */
#include "en/rq.h"

#include "en/rq_mpw.h"
#include "en/rx_pkt.h"
#include "en/sq.h"

namespace softcx::en {

namespace {

u32 round_up(u32 n, u32 pow2)
{
	return (n + pow2 - 1) & ~(pow2 - 1);
}

/* Pieces of the longest frame a non-linear stride run may hold, across pages. */
constexpr u32 kMaxRxPieces = prm::kMaxHwMtu / kPageSize + 2;

u8 *wqe_at(const Rq *rq, u16 i)
{
	return rq->swqes + ((usize)(i & rq->mask) << rq->layout.log_wqe_bytes);
}

prm::DataSeg *wqe_dsegs(const Rq *rq, u16 i)
{
	return reinterpret_cast<prm::DataSeg *>(wqe_at(rq, i) + sizeof(prm::SrqNextSeg));
}

/* Pages for WQE i and its data segments; false (nothing held) when the pool ran dry. */
bool alloc_wqe(Rq *rq, u16 i)
{
	const RqLayout &l = rq->layout;
	MpwPage *pg = mpw_wqe_pages(rq, i);
	prm::DataSeg *d = wqe_dsegs(rq, i);

	for (u32 k = 0; k < l.pages_per_wqe; k++) {
		pg[k].page = scx_os_rx_alloc(rq->pool, &pg[k].dma);
		if (!pg[k].page) {
			mpw_release_wqe(rq, i, 0);
			return false;
		}
		scx_os_rx_frag_set(rq->pool, pg[k].page, kMpwPageBias);
		pg[k].refs = 0;
	}
	/* the buffer: its first page from the headroom on, the others whole, then the tail */
	for (u32 k = 0; k < l.pages_per_wqe; k++) {
		u32 skip = k ? 0 : l.headroom;

		put_dseg(&d[k], pg[k].dma + skip, kPageSize - skip, rq->lkey);
	}
	if (l.headroom)
		put_dseg(&d[l.pages_per_wqe], rq->tail.dma, l.headroom, rq->lkey);
	return true;
}

/* A frame in one stride: the skb (or the XDP program) gets the stride itself. */
template <RxXdp X> void linear_frame(Rq *rq, MpwPage *pg, u32 off, scx_rx_pkt *pkt)
{
	const RqLayout &l = rq->layout;
	MpwPage *p = &pg[off / kPageSize];
	u32 at = off % kPageSize;

	pkt->page = p->page;
	pkt->buf_off = at - l.headroom;
	pkt->buf_size = l.stride_size();
	pkt->headroom = at;
	if (X != RxXdp::Off) {
		/* one stride per page with XDP: frame_sz is the page */
		XdpFate f = rx_run_xdp<X>(rq, p->page, p->dma, kPageSize, pkt);

		if (f == XdpFate::Taken)
			p->refs++;
		if (f != XdpFate::Pass)
			return;
	}
	p->refs++;	/* the skb's, given back by the shim if it cannot build one */
	if (scx_os_rx_deliver(rq->os_channel, pkt)) {
		rq->stats->skb_err.inc();
		return;
	}
	rx_count_delivered(rq->stats, *pkt);
}

/* inlined in each poll loop (one per CQE compression mode) */
template <RxXdp X>
__attribute__((always_inline)) inline void handle_striding_cqe(Rq *rq, const prm::Cqe64 *cqe)
{
	mpw_handle_cqe<false>(rq, cqe, [](Rq *r, const prm::Cqe64 *c, MpwPage *pg, u32 len) {
		const RqLayout &l = r->layout;
		u32 off = ((u32)c->wqe_counter.get() << l.log_stride) + l.headroom;
		/* every field written: here, rx_pkt_meta, and the frame's buffer fields */
		scx_rx_pkt pkt SCX_SCRATCH;

		if (!mpw_frame_len_ok(r, len))
			return;
		pkt.len = len;
		rx_pkt_meta(c, &pkt, rx_ts_mask(r), rx_csum_mask(r));
		if (l.linear)
			linear_frame<X>(r, pg, off, &pkt);
		else
			mpw_nonlinear_frame(r, pg, off, &pkt);
	});
}

} /* namespace */

void mpw_nonlinear_frame(Rq *rq, MpwPage *pg, u32 off, scx_rx_pkt *pkt)
{
	scx_rx_piece pieces[kMaxRxPieces];
	u32 n = 0, left = pkt->len;

	while (left) {
		MpwPage *p = &pg[off / kPageSize];
		u32 at = off % kPageSize;
		u32 take = left < kPageSize - at ? left : kPageSize - at;

		pieces[n++] = scx_rx_piece{p->page, at, take, round_up(take, rq->layout.stride_size())};
		p->refs++;
		off += take;
		left -= take;
	}
	rq_deliver_pieces(rq, pkt, pieces, n);
}

int mpw_alloc(Rq *rq)
{
	const RqLayout &l = rq->layout;
	u32 n = rq->size();
	int err;

	rq->mpw = zalloc_array<MpwPage>((u64)n * l.pages_per_wqe);
	if (!rq->mpw)
		return -SCX_ENOMEM;
	err = rq->mem.alloc(rq->os_dev, n << l.log_wqe_bytes);
	if (err)
		return err;
	if (l.headroom) {
		err = rq->tail.alloc(rq->os_dev, l.headroom);
		if (err)
			return err;
	}
	rq->swqes = static_cast<u8 *>(rq->mem.ring.cpu);
	/* posted and retired in order: each WQE names the next slot */
	for (u32 i = 0; i < n; i++)
		reinterpret_cast<prm::SrqNextSeg *>(wqe_at(rq, (u16)i))
			->next_wqe_index.set((u16)((i + 1) & rq->mask));
	rq->strides_used = 0;
	return 0;
}

void mpw_free(Rq *rq)
{
	rq->tail.free(rq->os_dev);
	scx_os_free(rq->mpw);
	rq->mpw = nullptr;
}

bool mpw_refill(Rq *rq)
{
	u16 start = rq->pc;

	while (rq->missing()) {
		if (!alloc_wqe(rq, rq->pc)) {
			rq->stats->buff_alloc_err.inc();
			break;
		}
		rq->pc++;
	}
	rq_post_doorbell(rq, start);
	return rq->missing() != 0;
}

void mpw_release_posted(Rq *rq, int napi)
{
	for (; rq->cc != rq->pc; rq->cc++)
		mpw_release_wqe(rq, rq->cc, napi);
	rq->strides_used = 0;
}

template <RxXdp X> int rq_poll_cq_striding(Rq *rq, int budget)
{
	/* a lambda: a type of this file's own, and a direct call */
	return rq_poll_comp<true>(rq, budget,
				  [](Rq *r, const prm::Cqe64 *c) { handle_striding_cqe<X>(r, c); });
}
template int rq_poll_cq_striding<RxXdp::Off>(Rq *rq, int budget);
template int rq_poll_cq_striding<RxXdp::TxSend>(Rq *rq, int budget);
template int rq_poll_cq_striding<RxXdp::TxMpw>(Rq *rq, int budget);

} /* namespace softcx::en */
