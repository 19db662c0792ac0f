// SPDX-License-Identifier: GPL-2.0
/*
 * softcx data path glue: ndo_start_xmit, NAPI poll, and the per-packet OS
 * hooks of include/softcx/os.h (interrupts, page_pool RX buffers, skb
 * delivery and release).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bottom_half.h>
#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <net/ipv6.h>
#include <linux/bpf_trace.h>
#include <linux/filter.h>
#include <net/page_pool.h>
#include <net/xdp.h>

#include "softcx.h"

/* ---- TX ---- */

static void scx_tx_unmap(struct device *dmadev, const struct scx_tx_pkt *pkt)
{
	u32 i;

	for (i = 0; i < pkt->nr_frags; i++)
		scx_os_dma_unmap(dmadev, pkt->frags[i].dma, pkt->frags[i].len,
				 pkt->frags[i].kind);
}

/* Map the linear part (frags[0]) and every page fragment of @skb. */
static int scx_tx_map(struct device *dmadev, struct sk_buff *skb,
		      struct scx_tx_pkt *pkt)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	struct scx_tx_frag *f = pkt->frags;
	dma_addr_t dma;
	u32 i;

	dma = scx_map_head(dmadev, skb->data, pkt->headlen);
	if (unlikely(scx_map_failed(dmadev, dma)))
		return -ENOMEM;
	f->dma = dma;
	f->len = pkt->headlen;
	f->kind = SCX_DMA_SINGLE;
	pkt->nr_frags = 1;

	for (i = 0; i < sh->nr_frags; i++) {
		const skb_frag_t *frag = &sh->frags[i];

		if (unlikely(!skb_frag_size(frag)))
			continue;
		dma = scx_map_frag(dmadev, frag);
		if (unlikely(scx_map_failed(dmadev, dma)))
			goto unmap;
		f = &pkt->frags[pkt->nr_frags++];
		f->dma = dma;
		f->len = skb_frag_size(frag);
		f->kind = SCX_DMA_PAGE;
	}
	return 0;

unmap:
	scx_tx_unmap(dmadev, pkt);
	return -ENOMEM;
}

/*
 * GSO attributes of @skb for an LSO WQE: type, MSS, wire packets and the
 * header length the core inlines (L2..L4 end, where the device wants it).
 * scx_features_check() keeps skbs with longer headers away (software GSO).
 */
static void scx_tx_gso(struct sk_buff *skb, struct scx_tx_pkt *pkt)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);

	pkt->gso_size = sh->gso_size;
	pkt->gso_segs = sh->gso_segs;
	/* IPv6 BIG TCP: the core leaves the jumbo hop-by-hop header out of the template */
	if ((sh->gso_type & SKB_GSO_TCPV6) && ipv6_has_hopopt_jumbo(skb))
		pkt->hbh_off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	if (sh->gso_type & SKB_GSO_UDP_L4) {
		pkt->gso_type = SCX_TX_GSO_UDP_L4;
		pkt->ihs = skb_transport_offset(skb) + sizeof(struct udphdr);
	} else {
		pkt->gso_type = sh->gso_type & SKB_GSO_TCPV6 ?
				SCX_TX_GSO_TCPV6 : SCX_TX_GSO_TCPV4;
		pkt->ihs = skb_tcp_all_headers(skb);
	}
}

/*
 * Make sure the linear part holds the Ethernet header and whatever the
 * device wants inlined (the core inlines from pkt->head only): the LSO
 * headers, or the minimum inline headers of a SEND.
 */
static bool scx_tx_linear_ok(const struct scx_priv *priv, struct sk_buff *skb,
			     u32 ihs)
{
	u32 need = min_t(u32, skb->len,
			 max_t(u32, max_t(u32, priv->min_inline, ETH_HLEN), ihs));

	if (likely(skb_headlen(skb) >= need))
		return true;
	if (skb_shared(skb))
		return false;
	return pskb_may_pull(skb, need);
}

static void scx_tx_drop(struct scx_chan *ch, struct sk_buff *skb, int err)
{
	if (err == -EMSGSIZE)
		net_warn_ratelimited("%s: TX queue %u: dropped a %u-byte %s skb the device cannot send (gso_size %u)\n",
				     netdev_name(ch->priv->netdev), ch->ix, skb->len,
				     skb_is_gso(skb) ? "GSO" : "linear",
				     skb_is_gso(skb) ? skb_shinfo(skb)->gso_size : 0);
	dev_kfree_skb_any(skb);
	scx_channel_count_drop(ch->core);
	/* Earlier packets of an xmit_more batch still wait for a doorbell. */
	if (!netdev_xmit_more())
		scx_channel_doorbell(ch->core);
}

netdev_tx_t scx_start_xmit(struct sk_buff *skb, struct net_device *dev)
{
	struct scx_priv *priv = netdev_priv(dev);
	u16 qid = skb_get_queue_mapping(skb);
	struct netdev_queue *txq;
	struct scx_tx_pkt pkt;
	struct scx_chan *ch;
	int ret;

	BUILD_BUG_ON(MAX_SKB_FRAGS + 1 > SCX_TX_MAX_FRAGS);

	if (unlikely(qid >= priv->nch || !priv->ch[qid].core)) {
		dev_core_stats_tx_dropped_inc(dev);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	ch = &priv->ch[qid];
	txq = ch->txq;

	pkt.gso_type = SCX_TX_GSO_NONE;
	pkt.ihs = 0;
	pkt.hbh_off = 0;
	if (skb_is_gso(skb))
		scx_tx_gso(skb, &pkt);
	if (unlikely(!skb->len || !scx_tx_linear_ok(priv, skb, pkt.ihs))) {
		scx_tx_drop(ch, skb, -EINVAL);
		return NETDEV_TX_OK;
	}

	pkt.skb = skb;
	pkt.head = skb->data;
	pkt.headlen = skb_headlen(skb);
	pkt.len = skb->len;
	pkt.csum = skb->ip_summed == CHECKSUM_PARTIAL ?
		   SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4 : 0;
	pkt.vlan = skb_vlan_tag_present(skb);
	pkt.num_bytes = 0;
	if (unlikely(scx_tx_map(priv->dmadev, skb, &pkt))) {
		scx_tx_drop(ch, skb, -ENOMEM);
		return NETDEV_TX_OK;
	}

	ret = scx_channel_xmit(ch->core, &pkt);
	if (unlikely(ret < 0)) {
		scx_tx_unmap(priv->dmadev, &pkt);
		scx_tx_drop(ch, skb, ret);
		return NETDEV_TX_OK;
	}
	/* Last touch of the skb: after the doorbell its completion may free it. */
	skb_tx_timestamp(skb);

	if (unlikely(ret & SCX_TX_STOP)) {
		netif_tx_stop_queue(txq);
		scx_channel_count_stop(ch->core);
		/* Pairs with the barrier in scx_napi_poll(): no lost wake-up. */
		smp_mb();
		if (scx_channel_tx_room(ch->core)) {
			netif_tx_start_queue(txq);
			scx_channel_count_wake(ch->core);
		}
	}

	if (__netdev_tx_sent_queue(txq, pkt.num_bytes, netdev_xmit_more()))
		scx_channel_doorbell(ch->core);
	return NETDEV_TX_OK;
}

/*
 * Headers the LSO WQE cannot inline: let the stack segment in software.
 * (An skb is dropped, not sent, when the core cannot express it.)
 */
netdev_features_t scx_features_check(struct sk_buff *skb, struct net_device *dev,
				     netdev_features_t features)
{
	/*
	 * The device parses no IPv6 extension header: it finds neither the L4
	 * checksum nor an LSO template behind one. The stack does both then;
	 * only BIG TCP's jumbo hop-by-hop header, which the core leaves out of
	 * the template, stays offloaded.
	 */
	if (skb->ip_summed == CHECKSUM_PARTIAL && vlan_get_protocol(skb) == htons(ETH_P_IPV6) &&
	    skb_transport_offset(skb) != skb_network_offset(skb) + sizeof(struct ipv6hdr) &&
	    !(skb_is_gso(skb) && ipv6_has_hopopt_jumbo(skb)))
		features &= ~(NETIF_F_CSUM_MASK | NETIF_F_GSO_MASK);
	if (skb_is_gso(skb)) {
		const struct scx_priv *priv = netdev_priv(dev);
		u32 hdr = skb_shinfo(skb)->gso_type & SKB_GSO_UDP_L4 ?
			  skb_transport_offset(skb) + sizeof(struct udphdr) :
			  skb_tcp_all_headers(skb);

		if (unlikely(hdr > priv->max_lso_hdr))
			features &= ~NETIF_F_GSO_MASK;
	}
	return features;
}

/*
 * TX recovery, process context, after an error CQE or a TX timeout: with
 * xmit (tx lock) and this channel's NAPI quiesced, the core completes what
 * the device sent, flushes the rest (tx_flushed) and resets the SQ to RDY;
 * BQL restarts from 0; the queue wakes.
 */
void scx_tx_recover_work(struct work_struct *work)
{
	struct scx_chan *ch = container_of(work, struct scx_chan, tx_recover_work);
	struct scx_priv *priv = ch->priv;
	struct netdev_queue *txq = ch->txq;
	bool timeout;
	int err;

	rtnl_lock();
	timeout = xchg(&ch->tx_timed_out, false);
	/* Closed meanwhile: the close released everything. */
	if (!priv->up || !ch->core)
		goto out;
	napi_disable(&ch->napi);
	__netif_tx_lock_bh(txq);
	netif_tx_stop_queue(txq);
	err = scx_channel_tx_recover(ch->core, timeout);
	netdev_tx_reset_queue(txq);
	__netif_tx_unlock_bh(txq);
	napi_enable(&ch->napi);
	if (err < 0) {
		netdev_err(priv->netdev, "TX queue %u: recovery failed (%d); queue stays stopped\n",
			   ch->ix, err);
		goto out;
	}
	if (err == 0)
		netdev_info(priv->netdev, "TX queue %u: recovered after %s\n", ch->ix,
			    timeout ? "a TX timeout" : "an error CQE");
	netif_tx_wake_queue(txq);
	/* One poll re-arms the CQs in case the last one was consumed by the error. */
	local_bh_disable();
	napi_schedule(&ch->napi);
	local_bh_enable();
out:
	rtnl_unlock();
}

/*
 * TX watchdog (ndo_tx_timeout): the queue stayed stopped with work posted
 * for watchdog_timeo. Recover it as after an error CQE, from process context.
 */
void scx_tx_timeout(struct net_device *dev, unsigned int txqueue)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_chan *ch;

	if (txqueue >= priv->nch || !priv->ch[txqueue].core)
		return;
	ch = &priv->ch[txqueue];
	scx_channel_count_timeout(ch->core);
	netdev_warn(dev, "TX queue %u timed out: recovering it\n", txqueue);
	WRITE_ONCE(ch->tx_timed_out, true);
	schedule_work(&ch->tx_recover_work);
}

/* ---- NAPI ---- */

int scx_napi_poll(struct napi_struct *napi, int budget)
{
	struct scx_chan *ch = container_of(napi, struct scx_chan, napi);
	struct scx_tx_done done = {};
	struct netdev_queue *txq = ch->txq;
	int work;

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

	if (work < budget && napi_complete_done(napi, work))
		scx_channel_arm(ch->core);
	return min(work, budget);
}

/* ---- OS hooks: interrupts ---- */

void scx_os_raise_irq(void *irq_ctx, uint32_t vector)
{
	struct scx_priv *priv = irq_ctx;

	if (unlikely(!priv || vector >= priv->nch))
		return;
	/* From process context, let the softirq run when BHs come back on. */
	if (in_hardirq() || irqs_disabled()) {
		napi_schedule(&priv->ch[vector].napi);
		return;
	}
	local_bh_disable();
	napi_schedule(&priv->ch[vector].napi);
	local_bh_enable();
}

/* ---- OS hooks: RX buffers ---- */

struct scx_os_rxq *scx_os_rxq_create(void *os_channel, uint32_t size, uint32_t order,
				     uint32_t flags)
{
	struct scx_chan *ch = os_channel;
	struct page_pool_params pp;
	struct scx_os_rxq *q;
	int err;

	if (order > MAX_ORDER - 1)
		return NULL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;
	q->order = order;
	/* XDP_TX sends RX pages back out: the device reads them too. */
	q->dir = flags & SCX_RXQ_XDP ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE;
	scx_pp_params_init(&pp, ch->priv->dmadev, size, order, q->dir);
	q->pool = page_pool_create(&pp);
	if (IS_ERR(q->pool))
		goto err_free;
	err = scx_dma_pool_add(ch->priv->dmadev, q->pool, order);
	if (err)
		goto err_pool;
	err = xdp_rxq_info_reg(&q->xdp_rxq, ch->priv->netdev, ch->ix, ch->napi.napi_id);
	if (err)
		goto err_view;
	err = xdp_rxq_info_reg_mem_model(&q->xdp_rxq, MEM_TYPE_PAGE_POOL, q->pool);
	if (err)
		goto err_unreg;
	return q;

err_unreg:
	xdp_rxq_info_unreg(&q->xdp_rxq);
err_view:
	scx_dma_pool_del(ch->priv->dmadev, q->pool);
err_pool:
	page_pool_destroy(q->pool);
err_free:
	kfree(q);
	return NULL;
}

void scx_os_rxq_destroy(struct scx_os_rxq *q)
{
	if (!q)
		return;
	/* Drops the memory model's hold on the pool, then ours. */
	xdp_rxq_info_unreg(&q->xdp_rxq);
	scx_dma_pool_del(q->pool->p.dev, q->pool);
	page_pool_destroy(q->pool);
	kfree(q);
}

void *scx_os_rx_alloc(struct scx_os_rxq *q, uint64_t *dma)
{
	struct page *page;

	page = page_pool_dev_alloc_pages(q->pool);
	if (unlikely(!page))
		return NULL;
	*dma = scx_rx_page_dma(page);
	return page;
}

void scx_os_rx_recycle(struct scx_os_rxq *q, void *page, int napi)
{
	page_pool_put_full_page(q->pool, page, napi);
}

int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt)
{
	struct scx_chan *ch = os_channel;
	struct net_device *dev = ch->priv->netdev;
	struct page *page = pkt->page;
	struct page_pool *pool = page->pp;
	u32 size = PAGE_SIZE << pool->p.order;
	struct sk_buff *skb;

	if (unlikely(pkt->len < ETH_HLEN || pkt->meta_len > pkt->headroom ||
		     pkt->headroom + pkt->len + SCX_RX_TAILROOM > size))
		goto drop;

	/* An XDP RQ's pool (bidirectional) synced the frame before running the program. */
	if (pool->p.dma_dir != DMA_BIDIRECTIONAL)
		scx_rx_sync_for_cpu(pool->p.dev, scx_rx_page_dma(page) + pkt->headroom,
				    pkt->len, DMA_FROM_DEVICE);
	skb = napi_build_skb(page_address(page), size);
	if (unlikely(!skb))
		goto drop;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, pkt->headroom);
	skb_put(skb, pkt->len);
	if (pkt->meta_len)
		skb_metadata_set(skb, pkt->meta_len);
	skb->protocol = eth_type_trans(skb, dev);

	if (pkt->csum == SCX_CSUM_UNNECESSARY && (dev->features & NETIF_F_RXCSUM))
		skb->ip_summed = CHECKSUM_UNNECESSARY;
	if (pkt->hash_type != SCX_HASH_NONE && (dev->features & NETIF_F_RXHASH))
		skb_set_hash(skb, pkt->hash, pkt->hash_type == SCX_HASH_L4 ?
			     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
	skb_record_rx_queue(skb, ch->ix);
	napi_gro_receive(&ch->napi, skb);
	return 0;

drop:
	page_pool_recycle_direct(pool, page);
	return -1;
}

/* ---- OS hooks: XDP ---- */

int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b)
{
	struct scx_chan *ch = os_channel;
	struct bpf_prog *prog = READ_ONCE(ch->xdp_prog);
	struct scx_os_rxq *q = b->rxq;
	struct page *page = b->page;
	struct xdp_buff xdp;
	u8 *va = page_address(page);
	u32 act;
	int err;

	/* A set built for XDP never runs without a program; be safe anyway. */
	if (unlikely(!prog))
		return SCX_XDP_PASS;
	scx_rx_sync_for_cpu(q->pool->p.dev, b->dma + b->headroom, b->len, q->dir);
	xdp_init_buff(&xdp, b->frame_sz, &q->xdp_rxq);
	xdp_prepare_buff(&xdp, va, b->headroom, b->len, true);

	act = bpf_prog_run_xdp(prog, &xdp);
	switch (act) {
	case XDP_PASS:
	case XDP_TX:
		b->headroom = xdp.data - (void *)va;
		b->len = xdp.data_end - xdp.data;
		b->meta_len = xdp.data - xdp.data_meta;
		b->data = xdp.data;
		if (act == XDP_PASS)
			return SCX_XDP_PASS;
		scx_rx_sync_for_device(q->pool->p.dev, b->dma + b->headroom, b->len);
		return SCX_XDP_TX;
	case XDP_REDIRECT:
		err = xdp_do_redirect(ch->priv->netdev, &xdp, prog);
		if (unlikely(err))
			break;
		ch->xdp_redirected = true;
		return SCX_XDP_REDIRECT;
	case XDP_DROP:
		return SCX_XDP_DROP;
	default:
		bpf_warn_invalid_xdp_action(ch->priv->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		break;
	}
	trace_xdp_exception(ch->priv->netdev, prog, act);
	return SCX_XDP_ABORTED;
}

void scx_os_xdp_exception(void *os_channel, int verdict)
{
	struct scx_chan *ch = os_channel;
	struct bpf_prog *prog = READ_ONCE(ch->xdp_prog);

	if (prog)
		trace_xdp_exception(ch->priv->netdev, prog,
				    verdict == SCX_XDP_TX ? XDP_TX : XDP_ABORTED);
}

void scx_os_xdp_frame_free(void *os_channel, void *frame)
{
	xdp_return_frame(frame);
}

void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n)
{
	struct xdp_frame_bulk bq;
	u32 i;

	xdp_frame_bulk_init(&bq);
	rcu_read_lock();	/* the memory model lookup */
	for (i = 0; i < n; i++)
		xdp_return_frame_bulk(frames[i], &bq);
	xdp_flush_frame_bulk(&bq);
	rcu_read_unlock();
}

/*
 * ndo_xdp_xmit: frames redirected to this port (from another device's
 * NAPI, a devmap or a cpumap) go out through the XDP SQ of the channel
 * this CPU maps to. Returns how many frames were taken; the caller frees
 * the rest.
 */
int scx_xdp_xmit(struct net_device *dev, int n, struct xdp_frame **frames, u32 flags)
{
	struct scx_priv *priv = netdev_priv(dev);
	struct scx_xdp_frame f;
	struct scx_chan *ch;
	int i, err = 0;
	u32 cpu;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	/* RCU reader (the caller's NAPI or BH section): the switch waits for us. */
	if (unlikely(!READ_ONCE(priv->xdp_xmit_ready)))
		return -ENETDOWN;
	cpu = smp_processor_id();
	ch = &priv->ch[cpu < priv->nch ? cpu : cpu % priv->nch];
	if (unlikely(!ch->core))
		return -ENETDOWN;

	spin_lock(&ch->xdp_xmit_lock);
	for (i = 0; i < n; i++) {
		struct xdp_frame *xdpf = frames[i];

		/* The SQ sends one buffer per frame: a multi-buffer frame is refused whole. */
		if (unlikely(xdp_frame_has_frags(xdpf))) {
			err = -EINVAL;
			break;
		}
		f.frame = xdpf;
		f.data = xdpf->data;
		f.len = xdpf->len;
		f.dma = scx_map_xdp_frame(priv->dmadev, xdpf);
		if (unlikely(scx_map_failed(priv->dmadev, f.dma))) {
			err = -ENOMEM;
			break;
		}
		err = scx_channel_xdp_xmit(ch->core, &f);
		if (unlikely(err)) {
			scx_os_dma_unmap(priv->dmadev, f.dma, f.len, SCX_DMA_SINGLE);
			/* the core counted this one; the rest of the batch is refused with it */
			if (n - i > 1)
				scx_channel_xdp_xmit_refused(ch->core, n - i - 1, err);
			err = 0;
			break;
		}
	}
	/* what the core never saw is counted here: the caller frees it */
	if (err)
		scx_channel_xdp_xmit_refused(ch->core, n - i, err);
	scx_channel_xdp_xmit_flush(ch->core, flags & XDP_XMIT_FLUSH);
	spin_unlock(&ch->xdp_xmit_lock);
	return i;
}

/* ---- OS hooks: TX completion ---- */

void scx_os_tx_free(void *os_channel, void *skb, int napi_budget)
{
	napi_consume_skb(skb, napi_budget);
}
