// SPDX-License-Identifier: GPL-2.0
/*
 * softcx RX: the RX buffer hooks of include/softcx/os.h (one page_pool per
 * core RQ, with its XDP memory model) and the delivery of a received
 * packet to the stack as an skb built around its page.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
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
	/* the core cuts pages into strides or fragments, each holding a reference */
	if (flags & SCX_RXQ_FRAGS)
		pp.flags |= PP_FLAG_PAGE_FRAG;
	q->pool = page_pool_create(&pp);
	if (IS_ERR(q->pool))
		goto err_free;
	err = scx_dma_pool_add(ch->priv->dmadev, q->pool, order);
	if (err)
		goto err_pool;
	/*
	 * An XDP pool's buffers are whole pages: a multi-buffer frame's last
	 * fragment may grow to its page's end (bpf_xdp_adjust_tail).
	 */
	err = __xdp_rxq_info_reg(&q->xdp_rxq, ch->priv->netdev, ch->ix, ch->napi.napi_id,
				 flags & SCX_RXQ_XDP ? PAGE_SIZE : 0);
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

void scx_os_rx_frag_set(struct scx_os_rxq *q, void *page, uint32_t n)
{
	page_pool_fragment_page(page, n);
}

void scx_os_rx_frag_put(struct scx_os_rxq *q, void *page, uint32_t n, int napi)
{
	if (!page_pool_defrag_page(page, n))
		page_pool_put_defragged_page(q->pool, page, -1, napi);
}

/*
 * The device's sum starts at the IP header: VLAN tags left in the frame
 * (rx-vlan-offload off, or the inner tag of two) sit between it and the
 * Ethernet header, where CHECKSUM_COMPLETE starts. Add theirs (whole tags:
 * an even offset). Before eth_type_trans(): skb->data is the MAC header.
 */
static noinline void scx_rx_csum_tags(struct sk_buff *skb)
{
	__be16 proto = ((const struct ethhdr *)skb->data)->h_proto;
	int depth = ETH_HLEN;

	while (eth_type_vlan(proto)) {
		struct vlan_hdr vh_buf;
		const struct vlan_hdr *vh = skb_header_pointer(skb, depth, sizeof(vh_buf), &vh_buf);

		if (!vh)
			break;
		proto = vh->h_vlan_encapsulated_proto;
		depth += VLAN_HLEN;
	}
	skb->csum = csum_add(skb->csum, skb_checksum(skb, ETH_HLEN, depth - ETH_HLEN, 0));
}

/* What every received skb gets from its CQE. */
static void scx_rx_meta(struct scx_chan *ch, struct sk_buff *skb, const struct scx_rx_pkt *pkt)
{
	struct net_device *dev = ch->priv->netdev;

	/* only with rx-checksum on (scx_port_set_rx_csum) */
	if (pkt->csum == SCX_CSUM_COMPLETE) {
		skb->ip_summed = CHECKSUM_COMPLETE;
		skb->csum = csum_unfold((__force __sum16)pkt->csum_raw);
		if (unlikely(eth_type_vlan(((const struct ethhdr *)skb->data)->h_proto)))
			scx_rx_csum_tags(skb);
	} else if (pkt->csum == SCX_CSUM_UNNECESSARY) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		if (unlikely(pkt->csum_inner)) {	/* a tunnel's inner checksums too */
			skb->csum_level = 1;
			skb->encapsulation = 1;
		}
	}
	skb->protocol = eth_type_trans(skb, dev);
	if (pkt->vlan)	/* the device stripped it: NETIF_F_HW_VLAN_CTAG_RX */
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q), pkt->vlan_tci);

	if (pkt->hash_type != SCX_HASH_NONE && (dev->features & NETIF_F_RXHASH))
		skb_set_hash(skb, pkt->hash, pkt->hash_type == SCX_HASH_L4 ?
			     PKT_HASH_TYPE_L4 : PKT_HASH_TYPE_L3);
	skb_record_rx_queue(skb, ch->ix);
	if (unlikely(pkt->ts))	/* the RQ's timestamps are on (SIOCSHWTSTAMP) */
		skb_hwtstamps(skb)->hwtstamp = scx_ptp_to_ktime(&ch->priv->ptp, pkt->ts);
}

/* The CQE's metadata, then GRO. */
static void scx_rx_complete(struct scx_chan *ch, struct sk_buff *skb,
			    const struct scx_rx_pkt *pkt)
{
	scx_rx_meta(ch, skb, pkt);
	napi_gro_receive(&ch->napi, skb);
}

/*
 * A multi-buffer XDP frame passed (scx_os_xdp_run() listed its later pages
 * in the head page's shared info, where build_skb() keeps the list): the
 * skb takes them as fragments.
 */
static noinline void scx_rx_xdp_frags(struct sk_buff *skb, u32 nr)
{
	struct skb_shared_info *sh = skb_shinfo(skb);
	bool pfmemalloc = false;
	u32 i;

	for (i = 0; i < nr; i++)
		pfmemalloc |= page_is_pfmemalloc(skb_frag_page(&sh->frags[i]));
	xdp_update_skb_shared_info(skb, nr, sh->xdp_frags_size, nr * PAGE_SIZE, pfmemalloc);
}

/* Those pages back to their pool: the skb could not be built. */
static noinline void scx_rx_xdp_frags_put(void *buf, u32 size, u32 nr)
{
	struct skb_shared_info *sh = scx_rx_buf_shinfo(buf, size);
	u32 i;

	for (i = 0; i < nr; i++) {
		struct page *page = skb_frag_page(&sh->frags[i]);

		page_pool_recycle_direct(page->pp, page);
	}
}

/* The skb built around the packet's buffer; nr_frags: a multi-buffer XDP frame's later pages. */
static __always_inline int scx_rx_deliver_page(void *os_channel, const struct scx_rx_pkt *pkt,
					       u32 nr_frags)
{
	struct scx_chan *ch = os_channel;
	struct page *page = pkt->page;
	struct page_pool *pool = page->pp;
	u32 size = pkt->buf_size ?: PAGE_SIZE << pool->p.order;
	u32 headroom = pkt->headroom - pkt->buf_off;
	struct sk_buff *skb;

	if (unlikely(pkt->len < ETH_HLEN || pkt->headroom < pkt->buf_off ||
		     pkt->meta_len > headroom || headroom + pkt->len + SCX_RX_TAILROOM > size))
		goto drop;

	/* An XDP RQ's pool (bidirectional) synced the frame before running the program. */
	if (pool->p.dma_dir != DMA_BIDIRECTIONAL)
		scx_rx_sync_for_cpu(pool->p.dev, scx_rx_page_dma(page) + pkt->headroom,
				    pkt->len, DMA_FROM_DEVICE);
	/* the whole buffer, or one stride of a striding RQ's page */
	skb = napi_build_skb(page_address(page) + pkt->buf_off, size);
	if (unlikely(!skb))
		goto drop;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, headroom);
	skb_put(skb, pkt->len);
	if (pkt->meta_len)
		skb_metadata_set(skb, pkt->meta_len);
	if (nr_frags)
		scx_rx_xdp_frags(skb, nr_frags);
	scx_rx_complete(ch, skb, pkt);
	return 0;

drop:
	if (nr_frags)
		scx_rx_xdp_frags_put(page_address(page) + pkt->buf_off, size, nr_frags);
	page_pool_recycle_direct(pool, page);
	return -1;
}

int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt)
{
	return scx_rx_deliver_page(os_channel, pkt, 0);
}

int scx_os_rx_deliver_xdp_mb(void *os_channel, const struct scx_rx_pkt *pkt, uint32_t nr_frags)
{
	return scx_rx_deliver_page(os_channel, pkt, nr_frags);
}

/*
 * A frame over several strides: the headers copied into a small skb's
 * head (so the stack parses them without touching page fragments), the
 * rest attached as page_pool fragments, one page reference each.
 */
int scx_os_rx_deliver_pieces(void *os_channel, const struct scx_rx_pkt *pkt,
			     const struct scx_rx_piece *pieces, uint32_t n)
{
	struct scx_chan *ch = os_channel;
	struct page_pool *pool = ((struct page *)pieces[0].page)->pp;
	struct sk_buff *skb = NULL;
	u32 i, headlen = 0;
	void *va;

	for (i = 0; i < n; i++)
		if (pool->p.dma_dir != DMA_BIDIRECTIONAL)
			scx_rx_sync_for_cpu(pool->p.dev,
					    scx_rx_page_dma(pieces[i].page) + pieces[i].off,
					    pieces[i].len, DMA_FROM_DEVICE);
	if (unlikely(pkt->len < ETH_HLEN || pieces[0].len < ETH_HLEN))
		goto drop;
	skb = napi_alloc_skb(&ch->napi, SCX_RX_MAX_HEAD);
	if (unlikely(!skb))
		goto drop;
	skb_mark_for_recycle(skb);
	va = page_address(pieces[0].page) + pieces[0].off;
	headlen = eth_get_headlen(ch->priv->netdev, va, min_t(u32, pieces[0].len, SCX_RX_MAX_HEAD));
	skb_put_data(skb, va, headlen);
	for (i = 0; i < n; i++) {
		u32 off = pieces[i].off + (i ? 0 : headlen);
		u32 len = pieces[i].len - (i ? 0 : headlen);

		if (!len) {	/* all copied: its reference goes back */
			page_pool_recycle_direct(pool, pieces[i].page);
			continue;
		}
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, pieces[i].page, off, len,
				pieces[i].truesize);
	}
	scx_rx_complete(ch, skb, pkt);
	return 0;

drop:
	for (i = 0; i < n; i++)
		page_pool_recycle_direct(pool, pieces[i].page);
	return -1;
}

/* SHAMPO: the GSO fields of a hardware GRO session, as tcp_gro_complete() leaves them. */
static void scx_rx_set_gso(struct sk_buff *skb, const struct scx_rx_gso *gso)
{
	struct skb_shared_info *sh = skb_shinfo(skb);

	sh->gso_size = gso->size;
	sh->gso_segs = gso->segs;
	sh->gso_type = gso->type & SCX_RX_GSO_TCPV6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
	if (gso->type & SCX_RX_GSO_FIXEDID)
		sh->gso_type |= SKB_GSO_TCP_FIXEDID;
	if (gso->type & SCX_RX_GSO_ECN)
		sh->gso_type |= SKB_GSO_TCP_ECN;
	/* the core left the pseudo-header sum in the TCP checksum field */
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_mac_header(skb) - skb->head + gso->l4_off;
	skb->csum_offset = offsetof(struct tcphdr, check);
	/*
	 * The TCP header where software GRO leaves it. Unset, the stack puts
	 * it at the IP header (__netif_receive_skb_core), and a TSO driver
	 * this skb is bridged to takes its header length from there.
	 */
	skb_set_transport_header(skb, skb_checksum_start_offset(skb));
}

/*
 * A split packet or a hardware GRO session (SHAMPO): the headers copied
 * from the header ring into a small head, the payload attached as the
 * strides' page fragments.
 */
int scx_os_rx_deliver_hds(void *os_channel, const struct scx_rx_pkt *pkt, const void *hdr,
			  uint32_t hdr_len, const struct scx_rx_piece *pieces, uint32_t n,
			  const struct scx_rx_gso *gso)
{
	struct scx_chan *ch = os_channel;
	struct sk_buff *skb;
	u32 i;

	BUILD_BUG_ON(SCX_RX_GRO_MAX_FRAGS > MAX_SKB_FRAGS);
	for (i = 0; i < n; i++)
		scx_rx_sync_for_cpu(ch->priv->dmadev, scx_rx_page_dma(pieces[i].page) + pieces[i].off,
				    pieces[i].len, DMA_FROM_DEVICE);
	if (unlikely(hdr_len < ETH_HLEN || n > SCX_RX_GRO_MAX_FRAGS))
		goto drop;
	skb = napi_alloc_skb(&ch->napi, max_t(u32, hdr_len, SCX_RX_HDS_HEAD));
	if (unlikely(!skb))
		goto drop;
	skb_mark_for_recycle(skb);
	skb_put_data(skb, hdr, hdr_len);
	for (i = 0; i < n; i++)
		skb_add_rx_frag(skb, i, pieces[i].page, pieces[i].off, pieces[i].len,
				pieces[i].truesize);
	scx_rx_meta(ch, skb, pkt);
	if (gso)
		scx_rx_set_gso(skb, gso);
	napi_gro_receive(&ch->napi, skb);
	return 0;

drop:
	for (i = 0; i < n; i++)
		page_pool_recycle_direct(((struct page *)pieces[i].page)->pp, pieces[i].page);
	return -1;
}
