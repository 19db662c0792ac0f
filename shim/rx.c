// SPDX-License-Identifier: GPL-2.0
/*
 * softcx RX: the RX buffer hooks of include/softcx/os.h (one page_pool per
 * core RQ, with its XDP memory model) and the delivery of a received
 * packet to the stack as an skb built around its page.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <net/page_pool.h>
#include <net/xdp.h>

#include "softcx.h"

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
