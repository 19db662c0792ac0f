// SPDX-License-Identifier: GPL-2.0
/* The device-pair fixture of the datapath and counter suites (see pair.h). */
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/tracepoint.h>
#include <net/sch_generic.h>
#include <net/xdp.h>
#include <net/xdp_priv.h>
#include <trace/events/xdp.h>

#include "../shim/softcx.h"
#include "pair.h"

/* ---- page_pools, seen through the XDP memory model the shim registers them with ---- */

static void scx_pair_pool_connect(void *data, const struct xdp_mem_allocator *xa,
				  const struct xdp_rxq_info *rxq)
{
	struct scx_pair *p = data;
	struct scx_kt_chan *ch;
	unsigned long flags;
	int side;
	u32 i;

	if (xa->mem.type != MEM_TYPE_PAGE_POOL)
		return;
	for (side = 0; side < 2; side++)
		if (p->netdev[side] && rxq->dev == p->netdev[side])
			break;
	if (side == 2 || rxq->queue_index >= SCX_KT_NCH)
		return;
	ch = &p->ch[side][rxq->queue_index];
	spin_lock_irqsave(&p->pools_lock, flags);
	for (i = 0; i < ARRAY_SIZE(p->pools); i++) {
		if (!p->pools[i].pool) {
			p->pools[i].pool = xa->page_pool;
			p->pools[i].ch = ch;
			break;
		}
	}
	if (i == ARRAY_SIZE(p->pools))
		p->pools_untracked++;
	ch->pools_created++;
	ch->order = xa->page_pool->p.order;
	spin_unlock_irqrestore(&p->pools_lock, flags);
}

/* page_pool_free() -> the memory model's disconnect: the pool is gone, every page back. */
static void scx_pair_pool_disconnect(void *data, const struct xdp_mem_allocator *xa)
{
	struct scx_pair *p = data;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&p->pools_lock, flags);
	for (i = 0; i < ARRAY_SIZE(p->pools); i++) {
		if (p->pools[i].pool && p->pools[i].pool == xa->allocator) {
			p->pools[i].ch->pools_freed++;
			p->pools[i].pool = NULL;
			break;
		}
	}
	spin_unlock_irqrestore(&p->pools_lock, flags);
}

static int scx_pair_probes_add(struct scx_pair *p)
{
	int err;

	err = register_trace_mem_connect(scx_pair_pool_connect, p);
	if (err)
		return err;
	err = register_trace_mem_disconnect(scx_pair_pool_disconnect, p);
	if (err) {
		unregister_trace_mem_connect(scx_pair_pool_connect, p);
		tracepoint_synchronize_unregister();
		return err;
	}
	p->probes = true;
	return 0;
}

static void scx_pair_probes_del(struct scx_pair *p)
{
	if (!p->probes)
		return;
	unregister_trace_mem_disconnect(scx_pair_pool_disconnect, p);
	unregister_trace_mem_connect(scx_pair_pool_connect, p);
	tracepoint_synchronize_unregister();
	p->probes = false;
}

/* ---- the netdevs ---- */

static int scx_pair_netdev_create(struct scx_pair *p, int side)
{
	struct scx_priv *priv;
	struct net_device *dev;
	int err;
	u32 i;

	dev = alloc_etherdev_mqs(struct_size(priv, ch, SCX_KT_NCH), SCX_KT_NCH, SCX_KT_NCH);
	if (!dev)
		return -ENOMEM;
	p->netdev[side] = dev;
	snprintf(dev->name, IFNAMSIZ, "scxkt%d", side);
	/* what the shim's deliver hook looks at; no GRO: every frame reaches the rx_handler */
	dev->features = NETIF_F_RXCSUM | NETIF_F_RXHASH;
	priv = netdev_priv(dev);
	p->priv[side] = priv;
	priv->netdev = dev;
	priv->dmadev = p->dev;
	priv->index = side;
	for (i = 0; i < SCX_KT_NCH; i++) {
		struct scx_chan *ch = &priv->ch[i];

		ch->priv = priv;
		ch->ix = i;
		ch->txq = netdev_get_tx_queue(dev, i);
		/*
		 * As register_netdevice() leaves them: BQL's wake in the shim's
		 * poll (softcx_napi) schedules the queue's qdisc.
		 */
		rcu_assign_pointer(ch->txq->qdisc, &noop_qdisc);
		ch->txq->qdisc_sleeping = &noop_qdisc;
		spin_lock_init(&ch->xdp_xmit_lock);
		/*
		 * The shim's poll. Disabled (the shim's hook schedules nothing)
		 * unless a suite enables it; it gives the RX queues their NAPI
		 * id and napi_gro_receive() its batch list.
		 */
		netif_napi_add(dev, &ch->napi, scx_napi_poll);
		p->os_ch[side][i] = ch;
	}
	rtnl_lock();
	err = netdev_rx_handler_register(dev, scx_kt_rx_handler, p->ch[side]);
	rtnl_unlock();
	return err;
}

static void scx_pair_netdev_destroy(struct scx_pair *p, int side)
{
	struct net_device *dev = p->netdev[side];

	if (!dev)
		return;
	rtnl_lock();
	if (rtnl_dereference(dev->rx_handler))
		netdev_rx_handler_unregister(dev);
	rtnl_unlock();
	free_netdev(dev);	/* deletes the NAPI contexts */
	p->netdev[side] = NULL;
	p->priv[side] = NULL;
}

int scx_pair_create(struct kunit *test, struct scx_pair *p, const char *model, u32 nch_max)
{
	struct scx_port_caps caps;
	int side, err;
	u32 i;

	memset(p, 0, sizeof(*p));
	p->test = test;
	p->nch_max = nch_max;
	spin_lock_init(&p->pools_lock);
	if (nch_max > SCX_KT_NCH)
		return -EINVAL;
	p->dev = scx_kt_dev_create(test);
	if (!p->dev)
		return -ENODEV;
	err = scx_pair_probes_add(p);
	if (err)
		return err;
	err = scx_hw_adapter_create(scx_hw_model_parse(model), 2, p->dev, &p->hw);
	if (err) {
		p->hw = NULL;
		return err;
	}
	for (side = 0; side < 2; side++) {
		const struct scx_os_layout os = SCX_OS_LAYOUT;

		err = scx_pair_netdev_create(p, side);
		if (err)
			return err;
		p->fn[side] = scx_hw_function(p->hw, side);
		p->priv[side]->fn = p->fn[side];
		p->irq[side].priv = p->priv[side];
		scx_hw_set_irq_ctx(p->fn[side], &p->irq[side]);
		err = scx_port_create(p->fn[side], p->dev, p->priv[side], nch_max, &os,
				      &p->port[side]);
		if (err) {
			p->port[side] = NULL;
			return err;
		}
		p->priv[side]->port = p->port[side];
		scx_port_get_caps(p->port[side], &caps);
		p->priv[side]->min_inline = caps.min_inline;
		p->priv[side]->max_lso_hdr = caps.max_lso_hdr;
		p->priv[side]->xdp_max_mtu = caps.xdp_max_mtu;
		for (i = 0; i < SCX_KT_NCH; i++) {
			scx_kt_chan_init(test, &p->ch[side][i], p->dev, i);
			p->ch[side][i].min_inline = caps.min_inline;
		}
	}
	return 0;
}

void scx_pair_destroy(struct scx_pair *p)
{
	int side;

	for (side = 0; side < 2; side++) {
		if (p->open[side])
			scx_pair_close(p, side);
		scx_port_destroy(p->port[side]);
		p->port[side] = NULL;
	}
	if (p->hw)
		scx_hw_adapter_destroy(p->hw);
	p->hw = NULL;
	for (side = 0; side < 2; side++)
		scx_pair_netdev_destroy(p, side);
	scx_pair_probes_del(p);
	scx_kt_dev_destroy(p->dev);
	p->dev = NULL;
}

int scx_pair_open(struct scx_pair *p, int side, u32 nch, u32 mtu, u32 log_sq, u32 log_rq)
{
	struct scx_port_params *pp = &p->params[side];
	struct scx_tx_done done;
	int err;
	u32 i;

	*pp = (struct scx_port_params){
		.nch = nch,
		.mtu = mtu,
		.log_sq_size = log_sq,
		.log_rq_size = log_rq,
		.tx_mpwqe = p->tx_mpwqe[side],
		.rx_striding = p->rx_striding[side],
		.rx_hw_gro = p->rx_hw_gro[side],
	};
	err = scx_port_open(p->port[side], pp, p->os_ch[side]);
	if (err)
		return err;
	p->open[side] = true;
	p->priv[side]->nch = nch;
	for (i = 0; i < nch; i++)
		scx_chan_bind(&p->priv[side]->ch[i], scx_port_channel(p->port[side], i));
	p->priv[side]->up = true;
	WRITE_ONCE(p->priv[side]->xdp_xmit_ready, true);
	/* the shim schedules every NAPI once after open; that poll arms the CQs */
	for (i = 0; i < nch; i++)
		scx_kt_napi(scx_pair_chan(p, side, i), 64, &done);
	return 0;
}

void scx_pair_close(struct scx_pair *p, int side)
{
	struct scx_priv *priv = p->priv[side];
	u32 i;

	WRITE_ONCE(priv->xdp_xmit_ready, false);
	priv->up = false;
	scx_port_close(p->port[side]);
	for (i = 0; i < SCX_KT_NCH; i++)
		scx_chan_bind(&priv->ch[i], NULL);
	p->open[side] = false;
}

void scx_pair_poll(struct scx_pair *p, int side)
{
	const int budget = 64;
	struct scx_tx_done done;
	bool again = true;
	int rounds = 0;
	u32 i;

	if (!p->open[side])
		return;
	while (again && rounds++ < 10000) {
		again = false;
		for (i = 0; i < p->params[side].nch; i++) {
			if (scx_kt_napi(scx_pair_chan(p, side, i), budget, &done) >= budget)
				again = true;
			p->done[side].packets += done.packets;
			p->done[side].bytes += done.bytes;
		}
	}
	KUNIT_EXPECT_LT_MSG(p->test, rounds, 10000, "NAPI on side %d never completes", side);
}

u32 scx_pair_len(u32 seq)
{
	return 60 + (seq * 97) % (1514 - 60 + 1);
}

int scx_pair_send(struct scx_pair *p, int side, u32 ch, u32 seq0, u32 n, u32 batch)
{
	struct scx_channel *c = scx_port_channel(p->port[side], ch);
	struct scx_tx_pkt *pkt;
	u32 i, unrung = 0;
	int rc = 0;

	if (!c)
		return -ENODEV;
	pkt = kmalloc(sizeof(*pkt), GFP_KERNEL);
	if (!pkt)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		u32 seq = seq0 + i, len = scx_pair_len(seq);

		rc = scx_kt_tx_build(&p->ch[side][ch], seq, len, seq % 3 == 1, pkt);
		if (rc)
			break;
		rc = scx_channel_xmit(c, pkt);
		if (rc < 0) {
			scx_kt_tx_abort(p->dev, pkt);
			break;
		}
		p->sent[side]++;
		p->sent_bytes[side] += len;
		if (rc == SCX_TX_STOP) {
			/* the shim stops the queue; completions wake it */
			scx_channel_count_stop(c);
			scx_channel_doorbell(c);
			unrung = 0;
			scx_pair_poll(p, !side);
			scx_pair_poll(p, side);
			if (!scx_channel_tx_room(c)) {
				rc = -ENOSPC;
				break;
			}
			scx_channel_count_wake(c);
			rc = 0;
			continue;
		}
		if (++unrung == batch) {
			scx_channel_doorbell(c);
			unrung = 0;
			scx_pair_poll(p, !side);
			scx_pair_poll(p, side);
		}
	}
	if (unrung)
		scx_channel_doorbell(c);
	scx_pair_poll(p, !side);
	scx_pair_poll(p, side);
	kfree(pkt);
	return rc < 0 ? rc : (int)i;
}

u32 scx_pair_received(struct scx_pair *p, int side, u32 seq0, u32 n, u32 *dups)
{
	u32 got = 0, seq, i, copies;

	*dups = 0;
	for (seq = seq0; seq < seq0 + n && seq < SCX_KT_MAX_SEQ; seq++) {
		copies = 0;
		for (i = 0; i < SCX_KT_NCH; i++)
			copies += test_bit(seq, p->ch[side][i].seen);
		got += copies > 0;
		*dups += copies > 1 ? copies - 1 : 0;
	}
	for (i = 0; i < SCX_KT_NCH; i++)
		*dups += p->ch[side][i].rx_dups;
	return got;
}

void scx_pair_expect_pools_clean(struct scx_pair *p, int side)
{
	struct kunit *test = p->test;
	u32 i;

	for (i = 0; i < SCX_KT_NCH; i++) {
		struct scx_kt_chan *ch = &p->ch[side][i];

		KUNIT_EXPECT_EQ_MSG(test, ch->pools_freed, ch->pools_created,
				    "side %d ch %u: page_pools not freed (pages in flight, or never destroyed)",
				    side, i);
	}
	KUNIT_EXPECT_EQ(test, p->pools_untracked, 0u);
}

u64 scx_pair_stat(struct kunit *test, struct scx_port *port, const char *name)
{
	u32 n = scx_stats_count(port), i;
	char *names = kunit_kcalloc(test, n, SCX_STAT_NAME_LEN, GFP_KERNEL);
	u64 *vals = kunit_kcalloc(test, n, sizeof(u64), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, names);
	KUNIT_ASSERT_NOT_NULL(test, vals);
	scx_stats_names(port, names);
	scx_stats_values(port, vals);
	for (i = 0; i < n; i++)
		if (!strcmp(names + i * SCX_STAT_NAME_LEN, name))
			return vals[i];
	KUNIT_FAIL(test, "no counter %s", name);
	return U64_MAX;
}
