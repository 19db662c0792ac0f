// SPDX-License-Identifier: GPL-2.0
/* Channel lifecycle and the per-channel entry points the shim's NAPI and xmit call. */
#include "en/channel.h"

namespace softcx::en {

int channel_open(Channel *c, const ChannelParams &p)
{
	int err;

	c->ix = p.ix;
	err = sq_create(&c->sq, p.fn, p.os_dev, p.os_channel, p.log_sq_size, p.min_inline,
			p.tx_mpwqe, p.ix,
			&c->stats.sq);
	if (err)
		return err;
	err = rq_create(&c->rq, p.fn, p.os_dev, p.os_channel, p.log_rq_size, p.rx, p.ix,
			&c->stats.rq);
	if (err)
		sq_destroy(&c->sq);
	return err;
}

void channel_close(Channel *c)
{
	rq_destroy(&c->rq);
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
	busy = sq_poll_cq(&c->sq, budget, done);
	if (budget <= 0)
		return 0;	/* netpoll: TX only */
	work = rq_poll_cq(&c->rq, budget);
	busy |= rq_refill(&c->rq);
	return busy ? budget : work;
}

extern "C" void scx_channel_arm(scx_channel *c)
{
	c->stats.ch.arm.inc();
	c->sq.cq.arm();
	c->rq.cq.arm();
}

extern "C" int scx_channel_xmit(scx_channel *c, scx_tx_pkt *pkt)
{
	/* one predictable branch on a hot, per-SQ constant; each side specialised */
	if (c->sq.mpwqe)
		return sq_xmit<true>(&c->sq, pkt);
	return sq_xmit<false>(&c->sq, pkt);
}

extern "C" void scx_channel_doorbell(scx_channel *c)
{
	sq_doorbell(&c->sq);
}

extern "C" int scx_channel_tx_room(scx_channel *c)
{
	return c->sq.has_room(c->sq.stop_room) &&
	       !__atomic_load_n(&c->sq.recovering, __ATOMIC_ACQUIRE);
}

extern "C" int scx_channel_tx_recover(scx_channel *c)
{
	if (!__atomic_load_n(&c->sq.recovering, __ATOMIC_ACQUIRE))
		return 1;	/* nothing to recover (e.g. a new channel set) */
	return sq_recover(&c->sq);
}

extern "C" void scx_channel_inject_tx_error(scx_channel *c)
{
	c->sq.lkey.set(0xbad);
}

extern "C" void scx_channel_count_tx(scx_channel *c, int stopped, int woken, int dropped)
{
	if (stopped)
		c->stats.sq.stopped.inc();
	if (woken)
		c->stats.sq.wake.inc();
	if (dropped)
		c->stats.sq.dropped.inc();
}
