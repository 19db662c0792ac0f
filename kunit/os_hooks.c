// SPDX-License-Identifier: GPL-2.0
/*
 * The KUnit fixture's view of the shim's OS hooks (see os_hooks.h): the
 * interrupt controller, the rx_handler that receives what the real
 * scx_os_rx_deliver() hands to the stack, TX skbs built and DMA-mapped by
 * the shim's own code, and NAPI rounds.
 */
#include <linux/bitmap.h>
#include <linux/bottom_half.h>
#include <linux/dma-mapping.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/platform_device.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/gro.h>
#include <asm/unaligned.h>

#include "../shim/softcx.h"
#include "../shim/tx_build.h"
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

/* Count an interrupt of `vector`; the port to hand it on to, or NULL. */
static struct scx_priv *scx_kt_irq_count(struct scx_kt_irq *irq, uint32_t vector)
{
	if (vector >= SCX_MAX_CHANNELS) {
		atomic_inc(&irq->bad_vector);
		return NULL;
	}
	atomic_inc(&irq->count[vector]);
	return irq->priv;
}

void scx_os_raise_irq(void *irq_ctx, uint32_t vector, uint32_t cqn)
{
	struct scx_priv *priv = scx_kt_irq_count(irq_ctx, vector);

	if (priv)
		scx_shim_raise_irq(priv, vector, cqn);
}

/* A CQ error event: counted as an interrupt of its vector, then the shim's hook for a port. */
void scx_os_cq_error(void *irq_ctx, uint32_t vector, uint32_t cqn, uint32_t syndrome)
{
	struct scx_priv *priv = scx_kt_irq_count(irq_ctx, vector);

	if (priv)
		scx_shim_cq_error(priv, vector, cqn, syndrome);
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

u32 scx_kt_ip_fill(u8 *h, const struct scx_kt_flow *fl, u8 proto, u32 l4_len, u16 id)
{
	struct ethhdr *eth = (struct ethhdr *)h;
	struct ipv6hdr *ip6 = (struct ipv6hdr *)(eth + 1);
	struct iphdr *ip = (struct iphdr *)(eth + 1);

	memcpy(eth->h_dest, fl->dst, ETH_ALEN);
	memcpy(eth->h_source, fl->src, ETH_ALEN);
	eth->h_proto = htons(fl->v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (fl->v6) {
		memset(ip6, 0, sizeof(*ip6));
		ip6->version = 6;
		ip6->payload_len = htons(l4_len);
		ip6->nexthdr = proto;
		ip6->hop_limit = 64;
		ip6->saddr = fl->saddr6;
		ip6->daddr = fl->daddr6;
		return ETH_HLEN + sizeof(*ip6);
	}
	memset(ip, 0, sizeof(*ip));
	ip->version = 4;
	ip->ihl = 5;
	ip->ttl = 64;
	ip->protocol = proto;
	ip->tot_len = htons(sizeof(*ip) + l4_len);
	ip->id = htons(id);
	ip->frag_off = htons(IP_DF);
	ip->saddr = htonl(fl->saddr4);
	ip->daddr = htonl(fl->daddr4);
	ip->check = ip_fast_csum(ip, ip->ihl);
	return ETH_HLEN + sizeof(*ip);
}

__sum16 scx_kt_l4_csum(const u8 *f, u8 proto, u32 l4_len, __wsum sum)
{
	const struct ethhdr *eth = (const struct ethhdr *)f;

	if (eth->h_proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)(eth + 1);

		return csum_ipv6_magic(&ip6->saddr, &ip6->daddr, l4_len, proto, sum);
	}
	return csum_tcpudp_magic(((const struct iphdr *)(eth + 1))->saddr,
				 ((const struct iphdr *)(eth + 1))->daddr, l4_len, proto, sum);
}

/* ---- RX: what the shim delivered to the stack ---- */

rx_handler_result_t scx_kt_rx_handler(struct sk_buff **pskb)
{
	struct sk_buff *skb = *pskb;
	struct scx_kt_chan *chs = rcu_dereference(skb->dev->rx_handler_data);
	const u8 *frame;
	struct scx_kt_chan *ch;
	u32 seq, len;

	/* the shim records the channel as the RX queue */
	if (!skb_rx_queue_recorded(skb) || skb_get_rx_queue(skb) >= SCX_KT_NCH) {
		chs[0].rx_bad++;
		goto out;
	}
	ch = &chs[skb_get_rx_queue(skb)];
	/* without a hook, a non-linear skb (headers copied, the rest in page fragments) as one piece */
	if (!ch->rx_hook && skb_linearize(skb)) {
		ch->rx_bad++;
		goto out;
	}
	frame = skb_mac_header(skb);
	len = skb->len + (u32)(skb->data - frame);
	if (ch->rx_hook) {
		ch->rx_hook(ch, frame, len, skb);
	} else if (skb->protocol != htons(ETH_P_IP) || skb->data != frame + ETH_HLEN ||
		   scx_kt_frame_check(frame, len, &seq) || seq >= SCX_KT_MAX_SEQ) {
		ch->rx_bad++;
	} else {
		if (__test_and_set_bit(seq, ch->seen))
			ch->rx_dups++;
		ch->rx_last_seq = seq;
	}
	ch->rx_delivered++;
	ch->rx_bytes += len;
	if (scx_kt_csum_ok(skb))
		ch->rx_csum_ok++;
	if (skb->l4_hash)
		ch->rx_hash_l4++;
out:
	/* Frees the head through page_pool_return_skb_page(): back to the pool. */
	consume_skb(skb);
	return RX_HANDLER_CONSUMED;
}

/* ---- TX: skbs mapped by the shim, their release counted ---- */

static void scx_kt_tx_destructor(struct sk_buff *skb)
{
	struct scx_kt_chan *ch = *(struct scx_kt_chan **)skb->cb;

	ch->tx_freed++;
}

int scx_kt_tx_map(struct scx_kt_chan *ch, struct sk_buff *skb, struct scx_tx_pkt *pkt)
{
	int err;

	memset(pkt, 0, sizeof(*pkt));
	err = scx_tx_pkt_build(ch->dev, ch->min_inline, skb, pkt);
	if (err)
		return err;
	*(struct scx_kt_chan **)skb->cb = ch;
	skb->destructor = scx_kt_tx_destructor;
	return 0;
}

int scx_kt_tx_build(struct scx_kt_chan *ch, u32 seq, u32 len, bool split, struct scx_tx_pkt *pkt)
{
	u32 headlen = split ? SCX_KT_HDRS + 8 : len;
	struct sk_buff *skb;
	struct page *page;
	u8 *frame;
	int err;

	if (len < SCX_KT_FRAME_MIN || len > PAGE_SIZE || headlen > len)
		return -EINVAL;
	frame = kmalloc(len, GFP_KERNEL);
	skb = alloc_skb(headlen, GFP_KERNEL);
	if (!frame || !skb)
		goto nomem;
	scx_kt_frame_fill(frame, len, seq);
	skb_put_data(skb, frame, headlen);
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

	err = scx_kt_tx_map(ch, skb, pkt);
	if (err) {
		kfree_skb(skb);
		return err;
	}
	return 0;

nomem:
	kfree(frame);
	kfree_skb(skb);
	return -ENOMEM;
}

void scx_kt_tx_abort(struct device *dev, struct scx_tx_pkt *pkt)
{
	struct sk_buff *skb = pkt->skb;

	scx_tx_unmap(dev, pkt);
	skb->destructor = NULL;	/* never handed over: not a release to count */
	kfree_skb(skb);
}

/* ---- NAPI ---- */

int scx_kt_napi(struct scx_chan *ch, int budget, struct scx_tx_done *done)
{
	int work;

	local_bh_disable();
	work = scx_channel_poll(ch->core, budget, done);
	/* the skbs GRO batched (no GRO here: all of them), as napi_complete_done() passes them on */
	gro_normal_list(&ch->napi);
	local_bh_enable();
	/* the CQ events the shim's hook noted, as the shim's NAPI takes them */
	if (work < budget)
		scx_channel_arm(ch->core, atomic64_xchg(&ch->cq_events, 0));
	return work;
}

MODULE_LICENSE("GPL");
