// SPDX-License-Identifier: GPL-2.0
/* Channel lifecycle and the per-channel entry points the shim's NAPI and xmit call. */
#include "en/channel.h"

#include "en/xdpsq.h"

namespace softcx::en {

namespace {

SqConfig sq_config(const ChannelParams &p, SqKind kind)
{
	SqConfig cfg = {};

	cfg.fn = p.fn;
	cfg.os_dev = p.os_dev;
	cfg.os_port = p.os_port;
	cfg.os_channel = p.os_channel;
	cfg.log_size = p.log_sq_size;
	cfg.kind = kind;
	cfg.vector = p.ix;
	cfg.lim = kind == SqKind::Skb ? p.skb_sq : p.xdp_sq;
	cfg.moder = p.moder.tx;
	return cfg;
}

/*
 * The redirect target SQ's producer runs on any CPU (serialised by the
 * caller), its completions and its recovery in this channel's NAPI. The
 * recovery rewrites the ring, so the two exclude each other with a flag:
 * a producer that finds it taken (or the SQ in error) refuses the frame
 * as full; a recovery that finds it taken retries on the next poll.
 */
bool xmit_enter(Sq *sq)
{
	if (__atomic_exchange_n(&sq->xmit_busy, 1, __ATOMIC_ACQUIRE))
		return false;
	if (!__atomic_load_n(&sq->recovering, __ATOMIC_RELAXED))
		return true;
	__atomic_store_n(&sq->xmit_busy, 0, __ATOMIC_RELEASE);
	return false;
}

void xmit_exit(Sq *sq)
{
	__atomic_store_n(&sq->xmit_busy, 0, __ATOMIC_RELEASE);
}

/* An XDP SQ in ERR is recovered here, in NAPI, without the OS: nothing else posts to it. */
template <SqKind K> bool xdpsq_recover(Sq *sq)
{
	int err;

	if (K == SqKind::Frame && __atomic_exchange_n(&sq->xmit_busy, 1, __ATOMIC_ACQUIRE))
		return false;
	err = sq_recover<K>(sq);
	if (K == SqKind::Frame)
		xmit_exit(sq);
	if (err)
		scx_os_chan_log(sq->os_channel, SCX_LOG_ERR,
				"XDP SQ 0x%x: recovery failed (%d), retrying\n", sq->sqn, err);
	else
		scx_os_chan_log(sq->os_channel, SCX_LOG_WARN, "XDP SQ 0x%x recovered\n", sq->sqn);
	scx_os_queue_recovered(sq->os_channel, SCX_OS_QUEUE_XDPSQ, err);
	return !err;
}

/* A CQ the device stopped (overrun): logged; true when its queue must recover. */
bool cq_failed(Cq *cq, void *os_channel, const char *queue, u32 qn)
{
	u8 status;
	u32 pc;

	if (!cq->mem.ring.cpu || cq_query(cq, &status, &pc) || status == prm::kCqStatusOk)
		return false;
	scx_os_chan_log(os_channel, SCX_LOG_ERR,
			"CQ 0x%x of %s 0x%x: error event, status 0x%x (overrun: pc 0x%x cc 0x%x); recovering\n",
			cq->cqn, queue, qn, status, pc, cq->cc);
	return true;
}

/* The device moved the SQ to ERR when its CQ could not take a CQE. */
bool sq_cq_failed(Sq *sq, const char *queue)
{
	if (!cq_failed(&sq->cq, sq->os_channel, queue, sq->sqn))
		return false;
	__atomic_store_n(&sq->recovering, true, __ATOMIC_RELAXED);
	return true;
}

/* Completions of an XDP SQ; true when NAPI must run again (more CQEs, recovery pending). */
template <SqKind K> bool xdpsq_poll(Sq *sq)
{
	scx_tx_done done = {};
	bool busy = sq_poll_cq<K>(sq, 1, &done);

	if (__builtin_expect(done.tx_error || __atomic_load_n(&sq->recovering, __ATOMIC_RELAXED), 0))
		busy |= !xdpsq_recover<K>(sq);
	return busy;
}

/* The RX handler for the channel's RQ type and XDP mode, each compiled on its own. */
template <bool Striding, RxXdp X> int rq_poll(Rq *rq, int budget)
{
	return Striding ? rq_poll_cq_striding<X>(rq, budget) : rq_poll_cq<X>(rq, budget);
}

template <bool Striding> int rx_poll(Channel *c, int budget)
{
	switch (c->rx_xdp) {
	case RxXdp::Off:
		return rq_poll<Striding, RxXdp::Off>(&c->rq, budget);
	case RxXdp::TxSend:
		return rq_poll<Striding, RxXdp::TxSend>(&c->rq, budget);
	default:
		return rq_poll<Striding, RxXdp::TxMpw>(&c->rq, budget);
	}
}

} /* namespace */

int channel_open(Channel *c, const ChannelParams &p)
{
	SqConfig cfg;
	int err;

	c->ix = p.ix;
	c->rx_xdp = !p.xdp ? RxXdp::Off : p.xdp_sq.mpwqe ? RxXdp::TxMpw : RxXdp::TxSend;
	cfg = sq_config(p, SqKind::Skb);
	cfg.stats = &c->stats.sq;
	err = sq_create(&c->sq, cfg);
	if (err)
		return err;
	cfg = sq_config(p, SqKind::Frame);
	cfg.xstats = &c->stats.xmitsq;
	err = sq_create(&c->xmitsq, cfg);
	if (err)
		goto err_sq;
	err = rq_create(&c->rq, p, &c->stats.rq);
	if (err)
		goto err_xmitsq;
	if (p.xdp) {
		cfg = sq_config(p, SqKind::Page);
		cfg.xstats = &c->stats.xdpsq;
		cfg.pool = c->rq.pool;
		err = sq_create(&c->xdpsq, cfg);
		if (err)
			goto err_rq;
		c->rq.xdpsq = &c->xdpsq;
	}
	return 0;

err_rq:
	rq_destroy(&c->rq);
err_xmitsq:
	sq_destroy(&c->xmitsq);
err_sq:
	sq_destroy(&c->sq);
	return err;
}

int channel_set_moder(Channel *c, const scx_port_moder &m, bool rx)
{
	int err = rx ? cq_modify_moder(&c->rq.cq, m.rx) : 0;
	Cq *tx[] = {&c->sq.cq, &c->xmitsq.cq, &c->xdpsq.cq};

	for (Cq *cq : tx) {
		int e = cq_modify_moder(cq, m.tx);

		err = err ? err : e;
	}
	return err;
}

void channel_close(Channel *c)
{
	/* XDP_TX pages go back to the RQ's pool before the pool goes */
	sq_destroy(&c->xdpsq);
	rq_destroy(&c->rq);
	sq_destroy(&c->xmitsq);
	sq_destroy(&c->sq);
}

} /* namespace softcx::en */

using namespace softcx;
using namespace softcx::en;

extern "C" int scx_channel_poll(scx_channel *c, int budget, scx_tx_done *done)
{
	bool busy;
	int work;

	c->stats.ch.poll.inc();
	done->packets = 0;
	done->bytes = 0;
	busy = sq_poll_cq<SqKind::Skb>(&c->sq, budget, done);
	if (budget <= 0)
		return 0;	/* netpoll: the stack's TX only */
	/* XDP SQ completions before RX: their room and pages are what RX needs */
	if (c->rx_xdp != RxXdp::Off)
		busy |= xdpsq_poll<SqKind::Page>(&c->xdpsq);
	busy |= xdpsq_poll<SqKind::Frame>(&c->xmitsq);
	if (c->rq.layout.shampo)
		work = rq_poll_cq_shampo(&c->rq, budget);	/* never with XDP */
	else if (c->rq.layout.striding)
		work = rx_poll<true>(c, budget);
	else
		work = rx_poll<false>(c, budget);
	busy |= rq_refill(&c->rq);
	/* one doorbell for everything XDP_TX posted in this poll */
	if (c->rx_xdp != RxXdp::Off)
		xdpsq_doorbell(&c->xdpsq);
	return busy ? budget : work;
}

extern "C" int scx_channel_cq_error(scx_channel *c)
{
	if (cq_failed(&c->rq.cq, c->rq.os_channel, "RQ", c->rq.rqn))
		rq_cq_error(&c->rq);
	if (c->rx_xdp != RxXdp::Off)
		sq_cq_failed(&c->xdpsq, "XDP SQ");
	sq_cq_failed(&c->xmitsq, "XDP SQ");
	return sq_cq_failed(&c->sq, "SQ") ? 1 : 0;
}

extern "C" void scx_channel_arm(scx_channel *c, uint64_t cq_events)
{
	c->stats.ch.arm.inc();
	c->sq.cq.arm(cq_events);
	if (c->rx_xdp != RxXdp::Off)
		c->xdpsq.cq.arm(cq_events);
	c->xmitsq.cq.arm(cq_events);
	c->rq.cq.arm(cq_events);
}

extern "C" int scx_channel_xmit(scx_channel *c, scx_tx_pkt *pkt)
{
	/* one predictable branch on a hot, per-SQ constant; each side specialised */
	if (c->sq.lim.mpwqe)
		return sq_xmit<true>(&c->sq, pkt);
	return sq_xmit<false>(&c->sq, pkt);
}

extern "C" void scx_channel_doorbell(scx_channel *c)
{
	sq_doorbell(&c->sq);
}

extern "C" int scx_channel_tx_room(scx_channel *c)
{
	return c->sq.has_room(c->sq.lim.stop_room) &&
	       !__atomic_load_n(&c->sq.recovering, __ATOMIC_ACQUIRE);
}

extern "C" int scx_channel_tx_recover(scx_channel *c, int force)
{
	if (!force && !__atomic_load_n(&c->sq.recovering, __ATOMIC_ACQUIRE))
		return 1;	/* nothing to recover (e.g. a new channel set) */
	return sq_recover<SqKind::Skb>(&c->sq);
}

extern "C" void scx_channel_inject_tx_error(scx_channel *c)
{
	c->sq.lkey.set(0xbad);
}

extern "C" void scx_channel_inject_tx_stall(scx_channel *c)
{
	c->sq.stalled = true;
}

extern "C" void scx_channel_inject_rx_error(scx_channel *c)
{
	rq_inject_error(&c->rq);
}

extern "C" void scx_channel_inject_rx_cq_overrun(scx_channel *c)
{
	c->rq.cq.ci_frozen = true;
}

extern "C" void scx_channel_count_timeout(scx_channel *c)
{
	c->stats.sq.timeout.inc();
}

extern "C" void scx_channel_count_stop(scx_channel *c)
{
	c->stats.sq.stopped.inc();
}

extern "C" void scx_channel_count_wake(scx_channel *c)
{
	/* the xmit path (tx lock) and NAPI both wake */
	c->stats.sq.wake.inc_shared();
}

extern "C" void scx_channel_count_drop(scx_channel *c)
{
	c->stats.sq.dropped.inc();
}

extern "C" void scx_channel_xdp_xmit_refused(scx_channel *c, uint32_t n, int err)
{
	if (err == -SCX_ENOSPC)
		c->xmitsq.xstats->full.add(n);		/* producers only, serialised */
	else
		c->xmitsq.xstats->err.add_shared(n);	/* NAPI counts error CQEs here */
}

extern "C" int scx_channel_xdp_xmit(scx_channel *c, const scx_xdp_frame *f)
{
	Sq *sq = &c->xmitsq;
	XdpTxDesc d = {f->dma, f->data, f->len, f->frame};
	int err;

	if (__builtin_expect(!xmit_enter(sq), 0)) {
		sq->xstats->full.inc();	/* in error, being recovered */
		return -SCX_ENOSPC;
	}
	if (sq->lim.mpwqe)
		err = xdpsq_xmit<SqKind::Frame, true>(sq, d);
	else
		err = xdpsq_xmit<SqKind::Frame, false>(sq, d);
	xmit_exit(sq);
	return err;
}

extern "C" void scx_channel_xdp_xmit_flush(scx_channel *c, int flush)
{
	Sq *sq = &c->xmitsq;

	/* being recovered: whatever was posted is flushed with the ring */
	if (!xmit_enter(sq))
		return;
	if (flush)
		xdpsq_doorbell(sq);
	else
		mpw_close(sq);
	xmit_exit(sq);
}
