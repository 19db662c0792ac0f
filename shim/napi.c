// SPDX-License-Identifier: GPL-2.0
/*
 * softcx NAPI: the poll of one channel (RX, TX completions, BQL, queue
 * wake) and the interrupt hook of include/softcx/os.h that schedules it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/dim.h>
#include <linux/filter.h>
#include <linux/netdevice.h>

#include "softcx.h"

/* ---- adaptive moderation: samples at NAPI completion, profiles applied by a work ---- */

/*
 * At NAPI completion, with the CQ event bits it took (@ev): each direction's
 * DIM counts the events of its own CQ, as mlx5 feeds an RQ's or SQ's CQ
 * event counter, not the vector's (a CQ raises at most one event per arm,
 * and every arm comes after such a completion).
 */
static void scx_dim_feed(struct scx_chan *ch, u64 ev)
{
	struct scx_priv *priv = ch->priv;
	bool rx = READ_ONCE(priv->rx_dim_enabled), tx = READ_ONCE(priv->tx_dim_enabled);
	struct scx_chan_totals t;
	struct dim_sample s;

	ch->rx_events += !!(ev & ch->rx_cq_bit);
	ch->tx_events += !!(ev & ch->tx_cq_bit);
	if (likely(!rx && !tx))
		return;
	scx_channel_totals(ch->core, &t);
	/* one clock read for both samples (dim_update_sample() takes one each) */
	s.time = ktime_get();
	if (rx) {
		s.event_ctr = ch->rx_events;
		s.pkt_ctr = t.rx_packets;
		s.byte_ctr = t.rx_bytes;
		net_dim(&ch->rx_dim, s);
	}
	if (tx) {
		s.event_ctr = ch->tx_events;
		s.pkt_ctr = t.tx_packets;
		s.byte_ctr = t.tx_bytes;
		net_dim(&ch->tx_dim, s);
	}
}

static struct scx_cq_moder scx_dim_moder(const struct dim *dim, bool rx)
{
	struct dim_cq_moder m = rx ? net_dim_get_rx_moderation(dim->mode, dim->profile_ix) :
				     net_dim_get_tx_moderation(dim->mode, dim->profile_ix);

	return (struct scx_cq_moder){
		.usecs = m.usec,
		.frames = m.pkts,
		.from_cqe = m.cq_period_mode == DIM_CQ_PERIOD_MODE_START_FROM_CQE,
	};
}

static void scx_dim_apply(struct dim *dim, bool rx)
{
	struct scx_chan *ch = dim->priv;
	struct scx_cq_moder m = scx_dim_moder(dim, rx);

	/* The channel set cannot go meanwhile: scx_dim_pause() waits for this work. */
	if (ch->core)
		scx_channel_set_moder(ch->core, rx, &m);
	dim->state = DIM_START_MEASURE;
}

static void scx_rx_dim_work(struct work_struct *work)
{
	scx_dim_apply(container_of(work, struct dim, work), true);
}

static void scx_tx_dim_work(struct work_struct *work)
{
	scx_dim_apply(container_of(work, struct dim, work), false);
}

static void scx_dim_reset(struct dim *dim, struct scx_chan *ch, bool from_cqe,
			  work_func_t fn)
{
	*dim = (struct dim){
		.priv = ch,
		.mode = from_cqe ? DIM_CQ_PERIOD_MODE_START_FROM_CQE :
				   DIM_CQ_PERIOD_MODE_START_FROM_EQE,
	};
	INIT_WORK(&dim->work, fn);
}

void scx_chan_bind(struct scx_chan *ch, struct scx_channel *core)
{
	ch->core = core;
	ch->rx_cq_bit = core ? BIT_ULL(scx_channel_cqn(core, 1) & 63) : 0;
	ch->tx_cq_bit = core ? BIT_ULL(scx_channel_cqn(core, 0) & 63) : 0;
}

void scx_dim_init(struct scx_chan *ch)
{
	scx_dim_reset(&ch->rx_dim, ch, false, scx_rx_dim_work);
	scx_dim_reset(&ch->tx_dim, ch, false, scx_tx_dim_work);
}

void scx_dim_start(struct scx_priv *priv)
{
	u32 i;

	for (i = 0; i < priv->nch; i++) {
		struct scx_chan *ch = &priv->ch[i];

		scx_dim_reset(&ch->rx_dim, ch, priv->moder.rx.from_cqe, scx_rx_dim_work);
		scx_dim_reset(&ch->tx_dim, ch, priv->moder.tx.from_cqe, scx_tx_dim_work);
	}
}

void scx_dim_pause(struct scx_priv *priv)
{
	u32 i;

	WRITE_ONCE(priv->rx_dim_enabled, false);
	WRITE_ONCE(priv->tx_dim_enabled, false);
	/* NAPI polls run in softirq: once this returns none feeds DIM any more */
	synchronize_net();
	for (i = 0; i < priv->nch; i++) {
		cancel_work_sync(&priv->ch[i].rx_dim.work);
		cancel_work_sync(&priv->ch[i].tx_dim.work);
	}
}

/* DIM's default profile for a direction, in the period mode of `m`. */
static void scx_dim_default(bool rx, struct scx_cq_moder *m)
{
	u8 mode = m->from_cqe ? DIM_CQ_PERIOD_MODE_START_FROM_CQE :
				DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	struct dim_cq_moder d = rx ? net_dim_get_def_rx_moderation(mode) :
				     net_dim_get_def_tx_moderation(mode);

	m->usecs = d.usec;
	m->frames = d.pkts;
}

/* What the CQs are built with: the static values, or DIM's default profile where adaptive. */
static void scx_moder_applied(const struct scx_port_moder *m, bool rx_dim, bool tx_dim,
			      struct scx_port_moder *out)
{
	*out = *m;
	if (rx_dim)
		scx_dim_default(true, &out->rx);
	if (tx_dim)
		scx_dim_default(false, &out->tx);
}

int scx_moder_update(struct scx_priv *priv, const struct scx_port_moder *m, bool rx_dim,
		     bool tx_dim, struct netlink_ext_ack *extack)
{
	struct scx_port_moder applied;
	const char *why = "";
	int err;

	err = scx_port_moder_check(priv->port, m, &why);
	if (err) {
		/* the core's reasons are static strings, as NL_SET_ERR_MSG keeps them */
		if (extack)
			extack->_msg = why;
		return err;
	}
	scx_moder_applied(m, rx_dim, tx_dim, &applied);
	if (priv->up)
		scx_dim_pause(priv);
	priv->moder = *m;
	err = scx_port_set_moder(priv->port, &applied, &why);
	if (err)
		netdev_err(priv->netdev, "moderation not applied to every CQ: %d\n", err);
	if (priv->up)
		scx_dim_start(priv);
	WRITE_ONCE(priv->rx_dim_enabled, rx_dim);
	WRITE_ONCE(priv->tx_dim_enabled, tx_dim);
	return err;
}

/*
 * A queue recovered (SCX_HEALTH_*: NAPI's RQ and XDP SQs, the TX recovery
 * work's SQ): devlink hears of it from process context. Without reporters
 * (e.g. under KUnit) there is nothing to report.
 */
void scx_health_event(struct scx_chan *ch, int event)
{
	if (!READ_ONCE(ch->priv->tx_reporter))
		return;
	set_bit(event, &ch->health_events);
	schedule_work(&ch->health_work);
}

void scx_os_queue_recovered(void *os_channel, uint32_t kind, int err)
{
	int ok = kind == SCX_OS_QUEUE_RQ ? SCX_HEALTH_RQ_OK : SCX_HEALTH_XDPSQ_OK;

	scx_health_event(os_channel, ok + (err != 0));
}

int scx_napi_poll(struct napi_struct *napi, int budget)
{
	struct scx_chan *ch = container_of(napi, struct scx_chan, napi);
	struct scx_tx_done done = {};
	struct netdev_queue *txq = ch->txq;
	int work;

	/* A CQ error event (overrun): find the CQ, mark its queue for recovery. */
	if (unlikely(test_and_clear_bit(0, &ch->cq_error)) && scx_channel_cq_error(ch->core))
		done.tx_error = 1;
	work = scx_channel_poll(ch->core, budget, &done);
	if (ch->xdp_redirected) {
		ch->xdp_redirected = false;
		xdp_do_flush();
	}

	netdev_tx_completed_queue(txq, done.packets, done.bytes);
	if (unlikely(done.tx_error)) {
		/* The SQ is in ERR: no wake until the recovery work reset it. */
		netif_tx_stop_queue(txq);
		schedule_work(&ch->tx_recover_work);
	}
	/* The core freed SQ room: pairs with the barrier in scx_start_xmit(). */
	smp_mb();
	if (unlikely(netif_tx_queue_stopped(txq)) &&
	    scx_channel_tx_room(ch->core) &&
	    netif_running(ch->priv->netdev)) {
		netif_tx_wake_queue(txq);
		scx_channel_count_wake(ch->core);
	}

	if (work < budget && napi_complete_done(napi, work)) {
		/* only now: a poll that does not complete must leave the bits for the next */
		u64 ev = atomic64_xchg(&ch->cq_events, 0);

		scx_dim_feed(ch, ev);
		scx_channel_arm(ch->core, ev);
	}
	return min(work, budget);
}

/* ---- OS hooks: interrupts ---- */

/*
 * The vector of a CQ of the live set, or of a set a switch is replacing
 * (any context, no RTNL): nch read once, locklessly. A stale value is
 * harmless: it never exceeds nch_max (ch[] stays in bounds), an interrupt
 * of a set being replaced finds its NAPI disabled, and the new set's CQs
 * raise none before the first poll after the switch (which stored nch
 * before) arms them.
 */
static inline bool scx_irq_vector_ok(const struct scx_priv *priv, u32 vector)
{
	return likely(priv) && likely(vector < READ_ONCE(priv->nch));
}

void scx_os_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn)
{
	struct scx_priv *priv = irq_ctx;

	if (unlikely(!scx_irq_vector_ok(priv, vector)))
		return;
	/* before napi_schedule(), whose atomic state update orders it */
	atomic64_or(BIT_ULL(cqn & 63), &priv->ch[vector].cq_events);
	/*
	 * With BHs off (an xmit, a NAPI poll) or in hard interrupt context,
	 * the raised softirq runs when that ends. Only from process context
	 * with BHs on, turn them off and on around it so it runs now.
	 */
	if (in_hardirq() || irqs_disabled() || in_softirq()) {
		napi_schedule(&priv->ch[vector].napi);
		return;
	}
	local_bh_disable();
	napi_schedule(&priv->ch[vector].napi);
	local_bh_enable();
}

/* The core's NAPI handler queries the CQs (scx_channel_cq_error()) and logs the one it finds. */
void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome)
{
	struct scx_priv *priv = irq_ctx;

	if (unlikely(!scx_irq_vector_ok(priv, vector)))
		return;
	set_bit(0, &priv->ch[vector].cq_error);
	scx_os_raise_irq(irq_ctx, vector, cqn);
}
