// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit implementations of the OS hooks that the kernel build has in the
 * shim's netdev glue (shim/tx.c, rx.c, napi.c, xdp_path.c), plus helpers the suites share. See
 * os_hooks.h for what each hook records.
 */
#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/dma-mapping.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/platform_device.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/page_pool.h>
#include <net/xdp.h>
#include <asm/unaligned.h>

#include "../shim/softcx.h"
#include "os_hooks.h"

/* ---- devices ---- */

struct device *scx_kt_dev_create(struct kunit *test)
{
	struct platform_device_info info = {
		.name = "softcx-kunit",
		.id = PLATFORM_DEVID_AUTO,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct platform_device *pdev = platform_device_register_full(&info);

	if (IS_ERR(pdev)) {
		kunit_err(test, "platform_device_register_full: %ld\n", PTR_ERR(pdev));
		return NULL;
	}
	/* the device's view of memory (shim/dma.c), as the module's adapter has */
	if (scx_dma_view_create(&pdev->dev)) {
		kunit_err(test, "scx_dma_view_create failed\n");
		platform_device_unregister(pdev);
		return NULL;
	}
	return &pdev->dev;
}

void scx_kt_dev_destroy(struct device *dev)
{
	if (!dev)
		return;
	scx_dma_view_destroy(dev);
	platform_device_unregister(to_platform_device(dev));
}

void scx_kt_chan_init(struct kunit *test, struct scx_kt_chan *ch, struct device *dev, u32 ix)
{
	memset(ch, 0, sizeof(*ch));
	ch->dev = dev;
	ch->ix = ix;
	ch->seen = kunit_kzalloc(test, BITS_TO_LONGS(SCX_KT_MAX_SEQ) * sizeof(long), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ch->seen);
}

/* ---- interrupts ---- */

void scx_os_raise_irq(void *irq_ctx, uint32_t vector)
{
	struct scx_kt_irq *irq = irq_ctx;

	if (vector >= SCX_MAX_CHANNELS) {
		atomic_inc(&irq->bad_vector);
		return;
	}
	atomic_inc(&irq->count[vector]);
}

/* ---- RX buffers: one page_pool per RQ ---- */

/*
 * page_pool frees itself only once no page is in flight; a pool destroyed
 * with pages still out lingers and retries. Registering as a second user
 * with a disconnect callback (as the XDP memory model does) tells us which
 * case happened: the callback runs when, and only when, the pool is freed.
 */
static struct page_pool *scx_kt_pool_freed;

static void scx_kt_pool_disconnect(void *pool)
{
	WRITE_ONCE(scx_kt_pool_freed, pool);
}

struct scx_os_rxq *scx_os_rxq_create(void *os_channel, uint32_t size, uint32_t order,
				     uint32_t flags)
{
	struct scx_kt_chan *ch = os_channel;
	struct xdp_mem_info mem = { .type = MEM_TYPE_PAGE_POOL };
	struct page_pool_params pp;
	struct scx_os_rxq *q;

	scx_pp_params_init(&pp, ch->dev, size, order,
			   flags & SCX_RXQ_XDP ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE);
	/* no init_callback: init_arg is only our way back to the channel */
	pp.init_arg = ch;

	if (order > MAX_ORDER - 1)
		return NULL;
	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return NULL;
	q->order = order;
	q->pool = page_pool_create(&pp);
	if (IS_ERR(q->pool)) {
		kfree(q);
		return NULL;
	}
	if (scx_dma_pool_add(ch->dev, q->pool, order)) {
		page_pool_destroy(q->pool);
		kfree(q);
		return NULL;
	}
	page_pool_use_xdp_mem(q->pool, scx_kt_pool_disconnect, &mem);
	ch->pools_created++;
	ch->order = order;
	return q;
}

void scx_os_rxq_destroy(struct scx_os_rxq *q)
{
	struct page_pool *pool;
	struct scx_kt_chan *ch;

	if (!q)
		return;
	pool = q->pool;
	ch = pool->p.init_arg;
	WRITE_ONCE(scx_kt_pool_freed, NULL);
	scx_dma_pool_del(pool->p.dev, pool);
	page_pool_destroy(pool);	/* the core's reference */
	page_pool_destroy(pool);	/* ours: frees the pool unless pages are out */
	if (ch) {
		ch->pools_destroyed++;
		if (READ_ONCE(scx_kt_pool_freed) != pool)
			ch->pools_inflight++;
	}
	kfree(q);
}

void *scx_os_rx_alloc(struct scx_os_rxq *q, uint64_t *dma)
{
	struct scx_kt_chan *ch = q->pool->p.init_arg;
	struct page *page;

	page = page_pool_dev_alloc_pages(q->pool);
	if (!page) {
		ch->rx_alloc_fails++;
		return NULL;
	}
	ch->rx_allocs++;
	ch->bufs_out++;
	*dma = scx_rx_page_dma(page);
	return page;
}

void scx_os_rx_recycle(struct scx_os_rxq *q, void *page, int napi)
{
	struct scx_kt_chan *ch = q->pool->p.init_arg;

	ch->rx_recycles++;
	ch->bufs_out--;
	/* never direct: the suites' pools are bound to no NAPI */
	page_pool_put_full_page(q->pool, page, false);
}

/* ---- XDP: the suites attach no program; a set built for XDP passes everything ---- */

int scx_os_xdp_run(void *os_channel, struct scx_xdp_buf *b)
{
	b->data = (const u8 *)page_address(b->page) + b->headroom;
	return SCX_XDP_PASS;
}

void scx_os_xdp_exception(void *os_channel, int verdict)
{
}

void scx_os_xdp_frame_free(void *os_channel, void *frame)
{
}

void scx_os_xdp_frames_free_bulk(void *os_channel, void *const *frames, uint32_t n)
{
}

/* ---- test frames ---- */

static const u8 scx_kt_dst[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x02 };
static const u8 scx_kt_src[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x01 };
#define SCX_KT_HDRS	(ETH_HLEN + sizeof(struct iphdr) + sizeof(struct udphdr))

static u8 scx_kt_payload_byte(u32 seq, u32 i)
{
	return (u8)(seq * 31 + i * 7 + (i >> 8));
}

void scx_kt_frame_fill(u8 *buf, u32 len, u32 seq)
{
	struct ethhdr *eth = (struct ethhdr *)buf;
	struct iphdr *ip = (struct iphdr *)(eth + 1);
	struct udphdr *udp = (struct udphdr *)(ip + 1);
	u8 *payload = (u8 *)(udp + 1);
	u32 i;

	memcpy(eth->h_dest, scx_kt_dst, ETH_ALEN);
	memcpy(eth->h_source, scx_kt_src, ETH_ALEN);
	eth->h_proto = htons(ETH_P_IP);
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = IPPROTO_UDP;
	ip->tot_len = htons(len - ETH_HLEN);
	ip->saddr = htonl(0x0a000001);
	ip->daddr = htonl(0x0a000002);
	ip->check = ip_fast_csum(ip, ip->ihl);
	udp->source = htons(1024 + (seq & 0x3fff));
	udp->dest = htons(9);
	udp->len = htons(len - ETH_HLEN - sizeof(*ip));
	udp->check = 0;		/* none: allowed over IPv4 */
	put_unaligned_be32(seq, payload);
	for (i = 4; i < len - SCX_KT_HDRS; i++)
		payload[i] = scx_kt_payload_byte(seq, i);
}

int scx_kt_frame_check(const u8 *buf, u32 len, u32 *seq)
{
	const struct iphdr *ip = (const struct iphdr *)(buf + ETH_HLEN);
	const u8 *payload = buf + SCX_KT_HDRS;
	u32 i, s;

	if (len < SCX_KT_FRAME_MIN)
		return -EINVAL;
	if (memcmp(buf, scx_kt_dst, ETH_ALEN) || memcmp(buf + ETH_ALEN, scx_kt_src, ETH_ALEN))
		return -EINVAL;
	if (ntohs(ip->tot_len) != len - ETH_HLEN || ip_fast_csum(ip, ip->ihl))
		return -EINVAL;
	s = get_unaligned_be32(payload);
	for (i = 4; i < len - SCX_KT_HDRS; i++)
		if (payload[i] != scx_kt_payload_byte(s, i))
			return -EBADMSG;
	*seq = s;
	return 0;
}

/* ---- RX delivery: a real skb on the page_pool page ---- */

int scx_os_rx_deliver(void *os_channel, const struct scx_rx_pkt *pkt)
{
	struct scx_kt_chan *ch = os_channel;
	struct page *page = pkt->page;
	struct page_pool *pool = page->pp;
	u32 size = PAGE_SIZE << pool->p.order;
	struct sk_buff *skb;
	u32 seq;

	ch->bufs_out--;
	if (pkt->len < ETH_HLEN || pkt->headroom + pkt->len + SCX_RX_TAILROOM > size)
		goto drop;
	dma_sync_single_for_cpu(pool->p.dev, scx_rx_page_dma(page) + pkt->headroom, pkt->len,
				DMA_FROM_DEVICE);
	skb = build_skb(page_address(page), size);
	if (!skb)
		goto drop;
	skb_mark_for_recycle(skb);
	skb_reserve(skb, pkt->headroom);
	skb_put(skb, pkt->len);

	if (ch->rx_hook) {
		ch->rx_hook(ch, pkt, skb);
	} else if (scx_kt_frame_check(skb->data, skb->len, &seq) || seq >= SCX_KT_MAX_SEQ) {
		ch->rx_bad++;
	} else {
		if (__test_and_set_bit(seq, ch->seen))
			ch->rx_dups++;
		ch->rx_last_seq = seq;
	}
	ch->rx_delivered++;
	ch->rx_bytes += pkt->len;
	if (pkt->csum == SCX_CSUM_UNNECESSARY)
		ch->rx_csum_ok++;
	if (pkt->hash_type == SCX_HASH_L4)
		ch->rx_hash_l4++;
	/* Frees the head through page_pool_return_skb_page(): back to the pool. */
	consume_skb(skb);
	return 0;

drop:
	ch->rx_refused++;
	page_pool_put_full_page(pool, page, false);
	return -1;
}

/* ---- TX ---- */

void scx_os_tx_free(void *os_channel, void *skb, int napi_budget)
{
	struct scx_kt_chan *ch = os_channel;

	if (!skb) {
		ch->tx_bad_ctx++;
		return;
	}
	ch->tx_freed++;
	consume_skb(skb);
}

int scx_kt_tx_build(struct device *dev, u32 seq, u32 len, bool split, struct scx_tx_pkt *pkt)
{
	u32 headlen = split ? SCX_KT_HDRS + 8 : len;
	struct sk_buff *skb;
	struct page *page;
	u8 *frame;

	if (len < SCX_KT_FRAME_MIN || len > PAGE_SIZE || headlen > len)
		return -EINVAL;
	frame = kmalloc(len, GFP_KERNEL);
	skb = alloc_skb(headlen, GFP_KERNEL);
	if (!frame || !skb)
		goto nomem;
	scx_kt_frame_fill(frame, len, seq);
	skb_put_data(skb, frame, headlen);
	memset(pkt, 0, sizeof(*pkt));
	if (split) {
		page = alloc_page(GFP_KERNEL);
		if (!page)
			goto nomem;
		memcpy(page_address(page), frame + headlen, len - headlen);
		skb_fill_page_desc(skb, 0, page, 0, len - headlen);
		skb->len += len - headlen;
		skb->data_len += len - headlen;
		skb->truesize += PAGE_SIZE;
	}
	kfree(frame);
	frame = NULL;

	if (scx_kt_tx_map(dev, skb, pkt)) {
		kfree_skb(skb);
		return -EIO;
	}
	return 0;

nomem:
	kfree(frame);
	kfree_skb(skb);
	return -ENOMEM;
}

int scx_kt_tx_map(struct device *dev, struct sk_buff *skb, struct scx_tx_pkt *pkt)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	dma_addr_t dma;
	u32 i;

	pkt->skb = skb;
	pkt->head = skb->data;
	pkt->headlen = skb_headlen(skb);
	pkt->len = skb->len;
	pkt->nr_frags = 0;
	if (sh->nr_frags + 1 > SCX_TX_MAX_FRAGS)
		return -EIO;
	dma = scx_map_head(dev, skb->data, skb_headlen(skb));
	if (scx_map_failed(dev, dma))
		return -EIO;
	pkt->frags[0] = (struct scx_tx_frag){ dma, skb_headlen(skb), SCX_DMA_SINGLE };
	pkt->nr_frags = 1;
	for (i = 0; i < sh->nr_frags; i++) {
		const skb_frag_t *f = &sh->frags[i];

		dma = scx_map_frag(dev, f);
		if (scx_map_failed(dev, dma)) {
			for (i = 0; i < pkt->nr_frags; i++)
				scx_os_dma_unmap(dev, pkt->frags[i].dma, pkt->frags[i].len,
						 pkt->frags[i].kind);
			pkt->nr_frags = 0;
			return -EIO;
		}
		pkt->frags[pkt->nr_frags++] = (struct scx_tx_frag){ dma, skb_frag_size(f),
								    SCX_DMA_PAGE };
	}
	return 0;
}

void scx_kt_tx_abort(struct device *dev, struct scx_tx_pkt *pkt)
{
	u32 i;

	for (i = 0; i < pkt->nr_frags; i++)
		scx_os_dma_unmap(dev, pkt->frags[i].dma, pkt->frags[i].len, pkt->frags[i].kind);
	kfree_skb(pkt->skb);
}

/* ---- NAPI ---- */

int scx_kt_napi(struct scx_channel *c, int budget, struct scx_tx_done *done)
{
	int work;

	local_bh_disable();
	work = scx_channel_poll(c, budget, done);
	local_bh_enable();
	if (work < budget)
		scx_channel_arm(c);
	return work;
}

MODULE_LICENSE("GPL");
