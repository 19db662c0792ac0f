// SPDX-License-Identifier: GPL-2.0
/*
 * Cyclic RX queue: each WQE's fragments carved from the RQ's page_pool
 * pages; CQEs turned into packet descriptors for the shim, which builds
 * the skb.
 */
#include "en/rq.h"

#include "en/channel.h"
#include "en/cmd.h"
#include "en/rx_pkt.h"
#include "en/xdpsq.h"

namespace softcx::en {

/*
 * Run the program on the frame b describes and carry out its verdict;
 * the caller recycles the pages of a Dropped frame (b's, as the program
 * left them).
 */
template <RxXdp X>
[[gnu::always_inline]] inline XdpFate xdp_verdict(Rq *rq, scx_xdp_buf *b, scx_rx_pkt *pkt)
{
	switch (scx_os_xdp_run(rq->os_channel, b)) {
	case SCX_XDP_PASS:
		pkt->headroom = b->headroom;
		pkt->len = b->len;
		pkt->meta_len = (u16)b->meta_len;
		return XdpFate::Pass;
	case SCX_XDP_TX: {
		Sq *sq = rq->xdpsq;
		XdpTxDesc d = {b->dma + b->headroom, b->data, b->len, b->page};

		/* counted as full or err when refused */
		if (__builtin_expect(!__atomic_load_n(&sq->recovering, __ATOMIC_RELAXED), 1)) {
			/* the SQ holds the pages until its completion */
			if (__builtin_expect(!b->nr_frags, 1)) {
				if (!xdpsq_xmit<SqKind::Page, X == RxXdp::TxMpw>(sq, d))
					return XdpFate::Taken;
			} else if (!xdpsq_send_wqe<SqKind::Page, X == RxXdp::TxMpw>(
					   sq, d, b->frags, b->nr_frags)) {
				return XdpFate::Taken;
			}
		} else {
			sq->xstats->err.inc();	/* in ERR and not recovered yet */
		}
		scx_os_xdp_exception(rq->os_channel, SCX_XDP_TX);
		break;
	}
	case SCX_XDP_REDIRECT:
		rq->stats->xdp_redirect.inc();
		return XdpFate::Taken;
	default:	/* DROP, ABORTED (traced by the OS), anything unknown */
		break;
	}
	rq->stats->xdp_drop.inc();
	return XdpFate::Dropped;
}

template <RxXdp X>
XdpFate rx_run_xdp(Rq *rq, void *page, u64 dma, u32 frame_sz, scx_rx_pkt *pkt)
{
	scx_xdp_buf b;

	b.rxq = rq->pool;
	b.page = page;
	b.dma = dma;
	b.frame_sz = frame_sz;
	b.headroom = pkt->headroom;
	b.len = pkt->len;
	b.meta_len = 0;
	b.data = nullptr;
	b.nr_frags = 0;		/* frags[] unread */
	return xdp_verdict<X>(rq, &b, pkt);
}

template XdpFate rx_run_xdp<RxXdp::Off>(Rq *, void *, u64, u32, scx_rx_pkt *);
template XdpFate rx_run_xdp<RxXdp::TxSend>(Rq *, void *, u64, u32, scx_rx_pkt *);
template XdpFate rx_run_xdp<RxXdp::TxMpw>(Rq *, void *, u64, u32, scx_rx_pkt *);

void rq_deliver_pieces(Rq *rq, scx_rx_pkt *pkt, const scx_rx_piece *pieces, u32 n)
{
	pkt->page = nullptr;
	pkt->buf_off = 0;
	pkt->buf_size = 0;
	pkt->headroom = 0;
	if (scx_os_rx_deliver_pieces(rq->os_channel, pkt, pieces, n)) {
		rq->stats->skb_err.inc();
		return;
	}
	rx_count_delivered(rq->stats, *pkt);
}

namespace {

constexpr u32 kRqBulk = 8;	/* refill only when this many WQEs are missing */

/* Give back the references of a cyclic WQE's fragments (not delivered, or the RQ stops). */
void frags_put(Rq *rq, const RxSlot *s, int napi)
{
	for (u32 i = 0; i < rq->layout.nfrags; i++)
		scx_os_rx_recycle(rq->pool, s[i].page, napi);
}

/* A frame over several fragments: the ones it filled go to the skb, the rest back. */
void nonlinear_frame(Rq *rq, const RxSlot *s, scx_rx_pkt *pkt)
{
	scx_rx_piece pieces[kMaxRxFrags];
	u32 n = 0, left = pkt->len;

	for (u32 i = 0; i < rq->layout.nfrags; i++) {
		const RxFragInfo &fi = rq->layout.frag[i];
		u32 take = left < fi.size ? left : fi.size;

		if (!take) {
			scx_os_rx_recycle(rq->pool, s[i].page, 1);
			continue;
		}
		pieces[n++] = scx_rx_piece{s[i].page, s[i].off, take, fi.stride};
		left -= take;
	}
	rq_deliver_pieces(rq, pkt, pieces, n);
}

/*
 * XDP, a frame over several pages (an MTU past one page, a program that
 * takes multi-buffer frames): the first page's bytes and the others as
 * fragments. The pages it did not fill go back at once.
 */
template <RxXdp X>
void xdp_multi_frame(Rq *rq, const RxSlot *s, scx_rx_pkt *pkt)
{
	const RqLayout &l = rq->layout;
	scx_xdp_buf b;
	u32 left = pkt->len, n = 0;

	b.rxq = rq->pool;
	b.page = s[0].page;
	b.dma = s[0].dma;
	b.frame_sz = kPageSize;
	b.headroom = s[0].off + l.headroom;
	b.len = left < l.frag[0].size ? left : l.frag[0].size;
	b.meta_len = 0;
	b.data = nullptr;
	left -= b.len;
	for (u32 i = 1; i < l.nfrags; i++) {
		u32 take = left < l.frag[i].size ? left : l.frag[i].size;

		if (!take) {
			scx_os_rx_recycle(rq->pool, s[i].page, 1);
			continue;
		}
		b.frags[n++] = scx_xdp_frag{s[i].page, s[i].dma, s[i].off, take};
		left -= take;
	}
	b.nr_frags = n;

	pkt->page = s[0].page;
	pkt->buf_off = s[0].off;
	pkt->buf_size = kPageSize;
	pkt->headroom = b.headroom;
	switch (xdp_verdict<X>(rq, &b, pkt)) {
	case XdpFate::Taken:
		return;
	case XdpFate::Dropped:
		scx_os_rx_recycle(rq->pool, b.page, 1);
		for (u32 i = 0; i < b.nr_frags; i++)
			scx_os_rx_recycle(rq->pool, b.frags[i].page, 1);
		return;
	case XdpFate::Pass:
		break;
	}
	u32 bytes = pkt->len;

	for (u32 i = 0; i < b.nr_frags; i++)
		bytes += b.frags[i].len;
	if (b.nr_frags ? scx_os_rx_deliver_xdp_mb(rq->os_channel, pkt, b.nr_frags)
		       : scx_os_rx_deliver(rq->os_channel, pkt)) {
		rq->stats->skb_err.inc();
		return;
	}
	rx_count_delivered(rq->stats, *pkt, 1, bytes);
}

/* inlined in each poll loop (one per CQE compression mode) */
template <RxXdp X>
__attribute__((always_inline)) inline void handle_cyclic_cqe(Rq *rq, const prm::Cqe64 *cqe)
{
	u16 ix = rq->cc & rq->mask;
	RxSlot *slot = &rq->slots[(u32)ix << rq->layout.log_wqe_segs];
	scx_rx_pkt pkt SCX_SCRATCH;	/* every field written below (rx_pkt_meta: the CQE's) */

	u8 op = cqe->opcode();
	/* the CQE names the next posted WQE */
	bool in_order = rq->cc != rq->pc && cqe->wqe_counter.get() == rq->cc;

	/*
	 * An error CQE (the RQ is in ERR), one out of order, or one for a WQE
	 * never posted (the RQ may still be RDY): the frame is lost and the
	 * WQE stays posted; the device may still own its buffers, so only
	 * the recovery, after the RQ is in RST, releases the posted buffers.
	 */
	if (__builtin_expect(op == prm::kCqeRespErr && in_order, 0)) {
		rq->stats->wqe_err.inc();
		rq->recover = kRecoverErrCqe;
		return;
	}
	if (__builtin_expect(op != prm::kCqeRespSend || !in_order, 0)) {
		rq->stats->wqe_err.inc();
		rq->recover = kRecoverConfused;
		return;
	}
	rq->cc++;	/* its fragments' references move to the skb (or back to the pool) */

	pkt.len = cqe->byte_cnt.get();
	if (__builtin_expect(pkt.len > rq->layout.frame_room || pkt.len < prm::kMinFrame, 0)) {
		/* more than the buffers hold: no program or skb may look past them */
		rq->stats->skb_err.inc();
		frags_put(rq, slot, 1);
		return;
	}
	rx_pkt_meta(cqe, &pkt, rx_ts_mask(rq), rx_csum_mask(rq));
	/* XDP: a whole page, or a page per fragment (rx_layout) */
	if (!rq->layout.linear) {
		if (X == RxXdp::Off)
			nonlinear_frame(rq, slot, &pkt);
		else
			xdp_multi_frame<X>(rq, slot, &pkt);
		return;
	}
	pkt.page = slot->page;
	pkt.buf_off = slot->off;
	pkt.buf_size = rq->layout.frag[0].stride;
	pkt.headroom = slot->off + rq->layout.headroom;
	if (X != RxXdp::Off) {
		XdpFate f = rx_run_xdp<X>(rq, slot->page, slot->dma, kPageSize, &pkt);

		if (f == XdpFate::Dropped)
			scx_os_rx_recycle(rq->pool, slot->page, 1);
		if (f != XdpFate::Pass)
			return;
	}
	if (scx_os_rx_deliver(rq->os_channel, &pkt)) {
		rq->stats->skb_err.inc();
		return;
	}
	rx_count_delivered(rq->stats, pkt);
}

/*
 * Post every WQE missing: each takes nfrags fragments, carved in order from
 * the carving page; a page opened by WQE fragment i holds page_frags[i] of
 * them, one reference each, so they all go out with the fragments. The
 * carving state stays in registers through the loop. A WQE that cannot
 * have all its fragments gives back those it took and ends the refill.
 * Linear: one fragment a WQE, at the layout's headroom (non-linear: only
 * XDP's first fragment has one).
 */
template <bool Linear>
void cyclic_post(Rq *rq)
{
	const RqLayout &l = rq->layout;
	const u32 nfrags = Linear ? 1 : l.nfrags, log_segs = Linear ? 0 : l.log_wqe_segs;
	const u32 headroom = l.headroom;
	const prm::be32 lkey = rq->lkey;
	/*
	 * Locals, not reloads: the slot and WQE stores below may alias the RQ
	 * for the compiler (a linear refill with the loads in its loop took
	 * about 8 instructions a packet more, bench/host)
	 */
	RxFragInfo frag[kMaxRxFrags];
	__builtin_memcpy(frag, l.frag, sizeof(frag));
	RxSlot *const slots = rq->slots;
	prm::DataSeg *const wqes = rq->wqes;
	const u16 mask = rq->mask, cc = rq->cc;
	void *page = rq->carve_page;
	u64 dma = rq->carve_dma;
	u32 off = rq->carve_off, left = rq->carve_left;
	const u16 end = (u16)(cc + mask + 1);	/* the ring full */
	u16 pc = rq->pc;

	for (; pc != end; pc++) {
		u32 first = (u32)(pc & mask) << log_segs;
		RxSlot *s = &slots[first];
		prm::DataSeg *d = &wqes[first];
		u32 i;

		for (i = 0; i < nfrags; i++) {
			if (!left) {
				u64 got;	/* not &dma: that would keep dma on the stack */

				page = scx_os_rx_alloc(rq->pool, &got);
				if (!page)
					break;
				dma = got;
				left = l.page_frags[i];
				scx_os_rx_frag_set(rq->pool, page, left);
				off = 0;
			}
			s[i] = RxSlot{page, dma, off};
			/* the headroom is the first fragment's (non-linear without XDP: 0) */
			put_dseg(&d[i], dma + off + (i ? 0 : headroom), frag[i].size, lkey);
			off += frag[i].stride;
			left--;
		}
		if (i < nfrags) {
			rq->stats->buff_alloc_err.inc();
			while (i--)
				scx_os_rx_recycle(rq->pool, s[i].page, 0);
			break;
		}
	}
	rq->pc = pc;
	rq->carve_page = page;
	rq->carve_dma = dma;
	rq->carve_off = off;
	rq->carve_left = left;
}

/* The carving page's references not handed out back (the RQ stops or restarts). */
void carve_end(Rq *rq, int napi)
{
	if (rq->carve_left)
		scx_os_rx_frag_put(rq->pool, rq->carve_page, rq->carve_left, napi);
	rq->carve_left = 0;
}

/* Every posted cyclic WQE's fragments back to the pool (the RQ is in RST or gone). */
void cyclic_release_posted(Rq *rq, int napi)
{
	for (; rq->cc != rq->pc; rq->cc++)
		frags_put(rq, &rq->slots[(u32)(rq->cc & rq->mask) << rq->layout.log_wqe_segs], napi);
	carve_end(rq, napi);
}

} /* namespace */

int rq_create(Rq *rq, const ChannelParams &p, RqStats *stats)
{
	const RqLayout &layout = p.rx;
	bus::Function *fn = p.fn;
	void *os_dev = p.os_dev, *os_port = p.os_port, *os_channel = p.os_channel;
	u8 log_size = p.log_rq_size;
	bool xdp = p.xdp;
	CqComp comp = { p.rx_comp != RxComp::Off, rx_comp_format(p.rx_comp, layout.striding),
			rx_comp_layout(p.rx_comp) };
	prm::CreateRqIn in = {};
	u32 n = 1u << (layout.striding ? layout.log_wqes : log_size);
	int err;

	rq->fn = fn;
	rq->os_dev = os_dev;
	rq->os_port = os_port;
	rq->os_channel = os_channel;
	rq->stats = stats;
	rq->layout = layout;
	rq->mask = (u16)(n - 1);
	/* a striding WQE is many packets: post each as soon as it is free */
	rq->bulk = n < kRqBulk || layout.striding ? 1 : kRqBulk;
	rq->lkey.set(prm::kReservedLkey);
	rq->recover = kRecoverNone;
	rq->comp = p.rx_comp;
	cqe_decomp_init(&rq->decomp);

	/* the CQ holds a CQE per packet of the ring (striding: per stride) */
	err = cq_create(&rq->cq, fn, os_dev, os_port,
			layout.striding ? layout.log_cqes : log_size, p.ix, p.moder.rx, comp);
	if (err)
		return err;
	err = -SCX_ENOMEM;
	if (layout.striding) {
		rq->pool = scx_os_rxq_create(os_channel, n * layout.pages_per_wqe, 0,
					     SCX_RXQ_FRAGS | (xdp ? SCX_RXQ_XDP : 0));
		if (!rq->pool)
			goto err;
		err = mpw_alloc(rq);
		if (err)
			goto err;
		in.log_wq_stride = layout.log_wqe_bytes;
		in.wq_type = prm::kWqLinkedListStriding;
		in.log_wqe_stride_size = prm::enc_log_stride_size(layout.log_stride);
		in.log_wqe_num_of_strides = prm::enc_log_num_strides(layout.log_num_strides);
		if (layout.shampo) {
			err = shampo_alloc(rq, &in);
			if (err)
				goto err;
		}
	} else {
		u32 segs = 1u << layout.log_wqe_segs;

		rq->slots = zalloc_array<RxSlot>((u64)n * segs);
		if (!rq->slots)
			goto err;
		/* pages: a WQE's fragments, and one more each for the carving and its tail */
		rq->pool = scx_os_rxq_create(os_channel, n * layout.nfrags + 2, 0,
					     SCX_RXQ_FRAGS | (xdp ? SCX_RXQ_XDP : 0));
		if (!rq->pool)
			goto err;
		err = rq->mem.alloc(os_dev, (u64)n * segs * sizeof(prm::DataSeg));
		if (err)
			goto err;
		rq->wqes = static_cast<prm::DataSeg *>(rq->mem.ring.cpu);
		/* segments past the fragments end each WQE's list, for good */
		prm::be32 end;
		end.set(prm::kInvalidLkey);
		for (u32 i = 0; i < n * segs; i++)
			if (i % segs >= layout.nfrags)
				put_dseg(&rq->wqes[i], 0, 0, end);
		in.log_wq_stride = (u8)(prm::kRxWqeCycMinLogStride + layout.log_wqe_segs);
		in.wq_type = prm::kWqCyclic;
	}
	rq->dbrec = static_cast<prm::be32 *>(rq->mem.db.cpu);

	in.cqn.set(rq->cq.cqn);
	in.log_wq_sz = (u8)(layout.striding ? layout.log_wqes : log_size);
	in.vsd = rq->vsd = p.rx_vlan_strip ? 0 : 1;
	rq_set_tstamp(rq, p.rx_tstamp);
	rq->csum_complete_ok = !p.xdp && !layout.shampo;
	rq_set_csum(rq, p.rx_csum, p.rx_csum_complete);
	in.scatter_fcs = rq->scatter_fcs = p.rx_fcs ? 1 : 0;
	err = cmd_queue_create(fn, os_port, kRqCmds, &in, rq->mem, &rq->rqn);
	if (err)
		goto err;
	rq->has_rqn = true;
	/* Fill the ring before any traffic can be steered here. */
	rq_refill(rq);
	if (rq->pc == rq->cc) {
		err = -SCX_ENOMEM;
		goto err;
	}
	return 0;

err:
	rq_destroy(rq);
	return err;
}

void rq_destroy(Rq *rq)
{
	if (rq->has_rqn)
		cmd_destroy(rq->fn, rq->os_port, kRqCmds.destroy, rq->rqn);
	rq->has_rqn = false;
	/* Frames the device placed but NAPI never saw die with the RQ: count them. */
	if (rq->cq.cqes)
		rq->stats->flushed.add(rq_drain_cq(rq));
	if (rq->slots) {
		if (rq->pool)
			cyclic_release_posted(rq, 0);
		scx_os_free(rq->slots);
		rq->slots = nullptr;
	}
	if (rq->mpw) {
		mpw_release_posted(rq, 0);
		mpw_free(rq);
	}
	shampo_free(rq);
	if (rq->pool)
		scx_os_rxq_destroy(rq->pool);
	rq->pool = nullptr;
	rq->mem.free(rq->os_dev);
	cq_destroy(&rq->cq, rq->os_dev);
}

namespace {

/* The cyclic RQ's refill, out of line: most polls find fewer than a bulk missing. */
[[gnu::noinline]] bool cyclic_refill(Rq *rq)
{
	u16 start = rq->pc;

	if (rq->layout.nfrags == 1)
		cyclic_post<true>(rq);
	else
		cyclic_post<false>(rq);
	rq_post_doorbell(rq, start);
	return rq->missing() >= rq->bulk;
}

} /* namespace */

bool rq_refill(Rq *rq)
{
	/*
	 * Nothing retired (most polls of a port that only sends): no call.
	 * mpw_refill() saves its registers before its own check, 29
	 * instructions a poll (bench/vm/icount.sh).
	 */
	if (rq->layout.striding)
		return rq->missing() && mpw_refill(rq);
	if (rq->missing() < rq->bulk)
		return false;
	return cyclic_refill(rq);
}

namespace {

/*
 * ERR -> RST -> RDY from NAPI (commands are synchronous and BH-safe): the
 * posted buffers go back to the pool, both sides restart at 0, the ring is
 * filled again. Frames the device sent after the error were counted by it
 * (rx_if_down_packets); CQEs left behind the error CQE count as flushed.
 */
int rq_recover(Rq *rq)
{
	int err;

	err = cmd_queue_reset(rq->fn, rq->os_port, prm::kCmdModifyRq, rq->rqn,
			      rq->recover != kRecoverErrCqe);
	if (err)
		return err;
	rq->stats->flushed.add(rq_drain_cq(rq));
	/* frames whose CQE the driver could not see (lost owner bit, overrun leftovers) too */
	rq->stats->flushed.add(cq_resync(&rq->cq));
	if (rq->layout.striding)
		mpw_release_posted(rq, 1);
	else
		cyclic_release_posted(rq, 1);
	rq->pc = 0;
	rq->cc = 0;
	rq->strides_used = 0;
	shampo_reset(rq);
	rq->lkey.set(prm::kReservedLkey);
	rq->dbrec[prm::kRcvDbr].set(0);
	wmb();
	err = rq_ready_with_ctx(rq);
	if (err)
		return err;
	rq->recover = kRecoverNone;
	rq->stats->recover.inc();
	rq_refill(rq);
	return 0;
}

} /* namespace */

int rq_poll_recover(Rq *rq, int work, int budget)
{
	u8 why = rq->recover;
	int err = rq_recover(rq);

	if (err)
		scx_os_chan_log(rq->os_channel, SCX_LOG_ERR,
				"RQ 0x%x: recovery failed (%d), retrying\n", rq->rqn, err);
	else
		scx_os_chan_log(rq->os_channel, SCX_LOG_WARN, "RQ 0x%x recovered from %s\n",
				rq->rqn, why == kRecoverCqErr ? "a CQ error" : "an error CQE");
	scx_os_queue_recovered(rq->os_channel, SCX_OS_QUEUE_RQ, err);
	/* a failed recovery keeps NAPI polling to retry */
	if (err && work < budget)
		work = budget;
	return work;
}

u32 rq_drain_cq(Rq *rq)
{
	/* the format and RQ type change what a packet's CQE says, not where the CQEs are */
	constexpr prm::MiniCqeFormat F = prm::kMiniCqeCsum;
	Cq *cq = &rq->cq;
	u32 n = 0;

	switch (rq->comp) {
	case RxComp::Off:
		for (; cq->peek(); cq->pop())
			n++;
		break;
	case RxComp::Basic:
		while (cqe_decomp_next<prm::kCqeCompBasic, F, false>(&rq->decomp, cq))
			n++;
		break;
	default:
		while (cqe_decomp_next<prm::kCqeCompEnhanced, F, false>(&rq->decomp, cq))
			n++;
		break;
	}
	rq_comp_fold(rq);
	cqe_decomp_init(&rq->decomp);
	return n;
}

template <RxXdp X> int rq_poll_cq(Rq *rq, int budget)
{
	/* a lambda: a type of this file's own, and a direct call */
	return rq_poll_comp<false>(rq, budget,
				   [](Rq *r, const prm::Cqe64 *c) { handle_cyclic_cqe<X>(r, c); });
}
template int rq_poll_cq<RxXdp::Off>(Rq *rq, int budget);
template int rq_poll_cq<RxXdp::TxSend>(Rq *rq, int budget);
template int rq_poll_cq<RxXdp::TxMpw>(Rq *rq, int budget);

void rq_cq_error(Rq *rq)
{
	rq->recover = kRecoverCqErr;
}

void rq_inject_error(Rq *rq)
{
	rq->lkey.set(0xbad);
	for (u16 i = rq->cc; i != rq->pc; i++) {
		if (rq->layout.striding) {
			u8 *w = rq->swqes + ((usize)(i & rq->mask) << rq->layout.log_wqe_bytes);
			auto *d = reinterpret_cast<prm::DataSeg *>(w + sizeof(prm::SrqNextSeg));

			for (u32 k = 0; k < rq->layout.wqe_segs(); k++)
				d[k].lkey = rq->lkey;
		} else {
			u32 first = (u32)(i & rq->mask) << rq->layout.log_wqe_segs;

			for (u32 k = 0; k < rq->layout.nfrags; k++)
				rq->wqes[first + k].lkey = rq->lkey;
		}
	}
}

namespace {
RqCtx rq_ctx(Rq *rq)
{
	return { __atomic_load_n(&rq->vsd, __ATOMIC_ACQUIRE),
		 __atomic_load_n(&rq->scatter_fcs, __ATOMIC_ACQUIRE) };
}
} /* namespace */

int rq_ready_with_ctx(Rq *rq)
{
	RqCtx ctx = rq_ctx(rq);
	int err = cmd_modify_rq_ctx(rq->fn, rq->os_port, rq->rqn, prm::kQueueRst, prm::kQueueRdy,
				    ctx);
	if (err)
		return err;
	/*
	 * A change (rq_set_ctx) whose MODIFY came while the RQ was not ready
	 * failed there, but stored its setting first: seen now.
	 */
	RqCtx now = rq_ctx(rq);
	if (now == ctx)
		return 0;
	return cmd_modify_rq_ctx(rq->fn, rq->os_port, rq->rqn, prm::kQueueRdy, prm::kQueueRdy, now);
}

int rq_set_ctx(Rq *rq, u8 *field, u8 value)
{
	/* stored first: a recovery running now restarts the RQ with it (rq_ready_with_ctx) */
	__atomic_store_n(field, value, __ATOMIC_RELEASE);
	return cmd_modify_rq_ctx(rq->fn, rq->os_port, rq->rqn, prm::kQueueRdy, prm::kQueueRdy,
				 rq_ctx(rq));
}

} /* namespace softcx::en */
