/* SPDX-License-Identifier: GPL-2.0 */
/*
 * softcx TX marshalling: an skb described for scx_channel_xmit() and
 * DMA-mapped. Inline in scx_start_xmit() (shim/tx.c), the per-packet path;
 * a header so that KUnit (kunit/os_hooks.c) builds and tests the same code.
 */
#ifndef SCX_TX_BUILD_H
#define SCX_TX_BUILD_H

#include <linux/if_vlan.h>
#include <linux/ipv6.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ipv6.h>

#include "softcx.h"

/* Map the linear part (frags[0]) and every page fragment of @skb. */
static inline int scx_tx_map(struct device *dmadev, struct sk_buff *skb,
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
static inline void scx_tx_gso(struct sk_buff *skb, struct scx_tx_pkt *pkt)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);

	pkt->gso_size = sh->gso_size;
	pkt->gso_segs = sh->gso_segs;
	/* IPv6 BIG TCP: the core leaves the jumbo hop-by-hop header out of the template */
	if ((sh->gso_type & SKB_GSO_TCPV6) && ipv6_has_hopopt_jumbo(skb))
		pkt->hbh_off = skb_network_offset(skb) + sizeof(struct ipv6hdr);
	if (sh->gso_type & SCX_GSO_TUNNELS) {
		/*
		 * TCP in a tunnel the device parses (scx_features_check() lets
		 * no other tunnel GSO through); with outer UDP or GRE checksums
		 * only as GSO_PARTIAL: segments of one size, whose outer
		 * checksum the device keeps
		 */
		pkt->gso_type = SCX_TX_GSO_TUNNEL;
		pkt->ihs = skb_inner_tcp_all_headers(skb);
	} else if (sh->gso_type & SKB_GSO_UDP_L4) {
		pkt->gso_type = SCX_TX_GSO_UDP_L4;
		pkt->ihs = skb_transport_offset(skb) + sizeof(struct udphdr);
	} else {
		pkt->gso_type = sh->gso_type & SKB_GSO_TCPV6 ?
				SCX_TX_GSO_TCPV6 : SCX_TX_GSO_TCPV4;
		pkt->ihs = skb_tcp_all_headers(skb);
	}
}

/*
 * Checksum offload of a CHECKSUM_PARTIAL skb: the L3 and L4 flags, or, for
 * an encapsulated one whose partial checksum is the inner L4 one, mlx5's
 * L3 | L3_INNER | L4_INNER (the outer UDP checksum is the stack's).
 */
static inline u32 scx_tx_csum(const struct sk_buff *skb)
{
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	if (unlikely(skb->encapsulation) &&
	    skb_checksum_start_offset(skb) == skb_inner_transport_offset(skb))
		return SCX_TX_CSUM_L3 | SCX_TX_CSUM_L3_INNER | SCX_TX_CSUM_L4_INNER;
	return SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4;
}

/*
 * Make sure the linear part holds the Ethernet header and whatever the
 * device wants inlined (the core inlines from pkt->head only): the LSO
 * headers, or the minimum inline headers of a SEND.
 */
static inline bool scx_tx_linear_ok(u32 min_inline, struct sk_buff *skb, u32 ihs)
{
	u32 need = min_t(u32, skb->len, max_t(u32, max_t(u32, min_inline, ETH_HLEN), ihs));

	if (likely(skb_headlen(skb) >= need))
		return true;
	if (skb_shared(skb))
		return false;
	return pskb_may_pull(skb, need);
}

/*
 * Describe @skb in @pkt for scx_channel_xmit() (GSO attributes, checksum
 * offload, VLAN, the part the core inlines from) and DMA-map it on
 * @dmadev. -EINVAL: the skb cannot be sent (empty, or its headers do not
 * fit the linear part); -ENOMEM: a mapping failed (nothing left mapped).
 */
static __always_inline int scx_tx_pkt_build(struct device *dmadev, u32 min_inline,
					    struct sk_buff *skb, struct scx_tx_pkt *pkt)
{
	pkt->gso_type = SCX_TX_GSO_NONE;
	pkt->gso_size = 0;
	pkt->gso_segs = 0;
	pkt->ihs = 0;
	pkt->hbh_off = 0;
	if (skb_is_gso(skb))
		scx_tx_gso(skb, pkt);
	if (unlikely(!skb->len || !scx_tx_linear_ok(min_inline, skb, pkt->ihs)))
		return -EINVAL;

	pkt->skb = skb;
	pkt->head = skb->data;
	pkt->headlen = skb_headlen(skb);
	pkt->len = skb->len;
	pkt->csum = scx_tx_csum(skb);
	pkt->vlan = !skb_vlan_tag_present(skb) ? SCX_TX_VLAN_NONE :
		    skb->vlan_proto == htons(ETH_P_8021AD) ? SCX_TX_VLAN_8021AD : SCX_TX_VLAN_8021Q;
	pkt->vlan_tci = skb_vlan_tag_get(skb);
	pkt->tstamp = 0;	/* the caller asks for one */
	pkt->num_bytes = 0;
	return scx_tx_map(dmadev, skb, pkt);
}

#endif /* SCX_TX_BUILD_H */
