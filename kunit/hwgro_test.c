// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_hwgro: rx-gro-hw (SHAMPO) through the shim's real delivery hook.
 * A cabled cx7 pair, the receiver with striding RQs and hardware GRO; a
 * burst of in-order TCP segments (real skbs, every checksum right, ACK
 * only, sequence numbers and IPv4 ids wrapping) goes out of side 0 behind
 * one doorbell, side 1's device merges them into one session and the
 * shim's scx_os_rx_deliver_hds() builds the skb the stack gets: headers
 * in its head, the payload as page_pool fragments, the GSO fields and
 * CHECKSUM_PARTIAL as software GRO's tcp4/6_gro_complete() leave a merged
 * packet. The kernel's own skb_gso_segment() must split it back into the
 * very frames that were sent. A pure ACK after the burst arrives as a
 * linear skb of its headers. Every page goes back to its page_pool.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/tcp.h>
#include <asm/unaligned.h>

#include "../shim/softcx.h"
#include "hooks.h"
#include "pair.h"

struct scx_hwgro_case {
	const char *name;
	bool v6;
	u32 segs;
	u32 mss;	/* payload of every segment but the last */
	u32 last;	/* payload of the last */
	u16 id_step;	/* IPv4 ID: +1 per segment, or 0 (the same in all, DF) */
	bool cwr;	/* CWR in the first segment */
};

static const struct scx_hwgro_case scx_hwgro_cases[] = {
	{ "tcp4 16 x 1448, short last", false, 16, 1448, 1000, 1, false },
	{ "tcp4 fixed id, cwr first", false, 8, 1448, 1448, 0, true },
	{ "tcp6 12 x 1428", true, 12, 1428, 1428, 1, false },
};

static void scx_hwgro_case_desc(const struct scx_hwgro_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(scx_hwgro, scx_hwgro_cases, scx_hwgro_case_desc);

#define SCX_HWGRO_SEQ0		0xffffc000u	/* sequence numbers wrap inside the burst */
#define SCX_HWGRO_ID0		0xfff8		/* and so do incrementing IPv4 ids */
#define SCX_HWGRO_OPT		12		/* NOP, NOP, timestamps */
#define SCX_HWGRO_STRIDE	256		/* SHAMPO stride (en/params.h rx_shampo_layout) */
#define SCX_HWGRO_MAX_SKBS	8

static const u8 scx_hwgro_dst[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x22 };
static const u8 scx_hwgro_src[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x21 };
static const struct scx_kt_flow scx_hwgro_flow[2] = {
	{ scx_hwgro_dst, scx_hwgro_src, false, 0x0a0c0001, 0x0a0c0002 },
	{ scx_hwgro_dst, scx_hwgro_src, true,
	  .saddr6 = { { { 0xfd, 0x00, [14] = 0x12, [15] = 1 } } },
	  .daddr6 = { { { 0xfd, 0x00, [14] = 0x12, [15] = 2 } } } },
};

/* What the receiver's rx_handler got: the first skbs, held for the test thread. */
struct scx_hwgro_rx {
	u32 n;
	struct sk_buff *skb[SCX_HWGRO_MAX_SKBS];
};

struct scx_hwgro {
	struct scx_pair p;
	struct scx_hwgro_rx rx;
	struct scx_tx_pkt pkt;
	u8 want[2048];		/* one frame as sent */
	u8 got[2048];
};

static u32 scx_hwgro_l4_off(const struct scx_hwgro_case *c)
{
	return ETH_HLEN + (c->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr));
}

static u32 scx_hwgro_hlen(const struct scx_hwgro_case *c)
{
	return scx_hwgro_l4_off(c) + sizeof(struct tcphdr) + SCX_HWGRO_OPT;
}

static u32 scx_hwgro_payload(const struct scx_hwgro_case *c)
{
	return (c->segs - 1) * c->mss + c->last;
}

/* Byte `off` of the flow's stream. */
static u8 scx_hwgro_byte(u32 off)
{
	return (u8)(off * 7 + (off >> 8) + 3);
}

/*
 * A segment of the flow as a TCP stack sends it: plen payload bytes from
 * stream offset off (sequence number SEQ0 + off), IPv4 id `id` with DF,
 * timestamps option, `flags`, the IPv4 header and TCP checksums right.
 * Returns the frame's length.
 */
static u32 scx_hwgro_frame(const struct scx_hwgro_case *c, u8 *f, u32 off, u32 plen, u16 id,
			   u8 flags)
{
	u32 l4 = scx_hwgro_l4_off(c), hlen = scx_hwgro_hlen(c), l4_len = hlen - l4 + plen, i;
	struct tcphdr *th = (struct tcphdr *)(f + l4);
	u8 *opt = (u8 *)(th + 1);

	scx_kt_ip_fill(f, &scx_hwgro_flow[c->v6], IPPROTO_TCP, l4_len, id);
	memset(th, 0, sizeof(*th));
	th->source = htons(40000);
	th->dest = htons(5201);
	th->seq = htonl(SCX_HWGRO_SEQ0 + off);
	th->ack_seq = htonl(0x01020304);
	th->doff = (sizeof(*th) + SCX_HWGRO_OPT) / 4;
	tcp_flag_byte(th) = flags;
	th->window = htons(502);
	opt[0] = TCPOPT_NOP;
	opt[1] = TCPOPT_NOP;
	opt[2] = TCPOPT_TIMESTAMP;
	opt[3] = TCPOLEN_TIMESTAMP;
	put_unaligned_be32(0x11223344, opt + 4);
	put_unaligned_be32(0x55667788, opt + 8);
	for (i = 0; i < plen; i++)
		f[hlen + i] = scx_hwgro_byte(off + i);
	th->check = scx_kt_l4_csum(f, IPPROTO_TCP, l4_len, csum_partial(th, l4_len, 0));
	return hlen + plen;
}

/* Segment k of the burst (0 .. segs - 1; segs: the pure ACK after it) into f: its length. */
static u32 scx_hwgro_seg(const struct scx_hwgro_case *c, u8 *f, u32 k)
{
	u32 plen = k + 1 < c->segs ? c->mss : k + 1 == c->segs ? c->last : 0;
	u32 off = min(k * c->mss, scx_hwgro_payload(c));
	u8 flags = TCPHDR_ACK | (k == 0 && c->cwr ? TCPHDR_CWR : 0);

	return scx_hwgro_frame(c, f, off, plen, SCX_HWGRO_ID0 + k * c->id_step, flags);
}

/* Post one frame from side 0's channel 0 in a real skb (no doorbell). */
static int scx_hwgro_post(struct scx_hwgro *t, const u8 *f, u32 len)
{
	struct scx_pair *p = &t->p;
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	int rc;

	if (!skb)
		return -ENOMEM;
	skb_put_data(skb, f, len);
	rc = scx_kt_tx_map(&p->ch[0][0], skb, &t->pkt);
	if (rc) {
		kfree_skb(skb);
		return rc;
	}
	rc = scx_channel_xmit(scx_port_channel(p->port[0], 0), &t->pkt);
	if (rc < 0)
		scx_kt_tx_abort(p->dev, &t->pkt);
	return rc;
}

/* Ring side 0's doorbell; NAPI on the receiver, then on the sender. */
static void scx_hwgro_ring(struct scx_hwgro *t)
{
	scx_channel_doorbell(scx_port_channel(t->p.port[0], 0));
	scx_pair_poll(&t->p, 1);
	scx_pair_poll(&t->p, 0);
}

/* Runs in the rx_handler (BHs off): keep the skb for the test thread. */
static void scx_hwgro_rx_hook(struct scx_kt_chan *ch, const u8 *frame, u32 len,
			      const struct sk_buff *skb)
{
	struct scx_hwgro_rx *rx = ch->rx_hook_ctx;

	if (rx->n < SCX_HWGRO_MAX_SKBS)
		rx->skb[rx->n] = skb_get((struct sk_buff *)skb);
	rx->n++;
}

/* Give the held skbs back (their pages to the page_pool). */
static void scx_hwgro_rx_release(struct scx_hwgro_rx *rx)
{
	u32 i;

	for (i = 0; i < min_t(u32, rx->n, SCX_HWGRO_MAX_SKBS); i++)
		consume_skb(rx->skb[i]);
	rx->n = 0;
}

/* Index of the first byte where a and b differ, or -1. */
static int scx_hwgro_diff(const u8 *a, const u8 *b, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (a[i] != b[i])
			return i;
	return -1;
}

/* The merged skb's fragments: page_pool pages, payload back to back, truesize by strides. */
static void scx_hwgro_check_frags(struct kunit *test, const struct scx_hwgro_case *c,
				  const struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u32 payload = scx_hwgro_payload(c), frag_truesize = 0, i, off0;

	KUNIT_ASSERT_GT(test, (u32)sh->nr_frags, 0u);
	KUNIT_EXPECT_LE(test, (u32)sh->nr_frags, (u32)MAX_SKB_FRAGS);
	KUNIT_EXPECT_TRUE(test, (bool)skb->pp_recycle);
	off0 = skb_frag_off(&sh->frags[0]);
	/* one WQE's pages, the payload contiguous in them: one fragment per page touched */
	KUNIT_EXPECT_EQ(test, (u32)sh->nr_frags, DIV_ROUND_UP(off0 + payload, (u32)PAGE_SIZE));
	for (i = 0; i < sh->nr_frags; i++) {
		const skb_frag_t *fr = &sh->frags[i];
		u32 off = skb_frag_off(fr), end = off + skb_frag_size(fr);
		struct page *page = skb_frag_page(fr);

		KUNIT_EXPECT_EQ_MSG(test, page->pp_magic & ~0x3UL, (unsigned long)PP_SIGNATURE,
				    "fragment %u: not a page_pool page", i);
		if (i)
			KUNIT_EXPECT_EQ_MSG(test, off, 0u, "fragment %u starts inside its page", i);
		if (i + 1 < sh->nr_frags)
			KUNIT_EXPECT_EQ_MSG(test, end, (u32)PAGE_SIZE,
					    "fragment %u ends inside its page", i);
		frag_truesize += ALIGN(end, SCX_HWGRO_STRIDE) - ALIGN_DOWN(off, SCX_HWGRO_STRIDE);
	}
	/* the head as allocated, plus the strides each fragment covers */
	KUNIT_EXPECT_EQ(test, skb->truesize,
			(u32)SKB_TRUESIZE(skb_end_offset(skb)) + frag_truesize);
}

/* The headers the merged skb must carry: the first segment's, lengths and checksums as GRO's. */
static void scx_hwgro_merged_headers(const struct scx_hwgro_case *c, u8 *h)
{
	u32 l4 = scx_hwgro_l4_off(c), hlen = scx_hwgro_hlen(c);
	u32 l4_len = hlen - l4 + scx_hwgro_payload(c);
	struct tcphdr *th = (struct tcphdr *)(h + l4);

	scx_hwgro_seg(c, h, 0);
	if (c->v6) {
		((struct ipv6hdr *)(h + ETH_HLEN))->payload_len = htons(l4_len);
	} else {
		struct iphdr *ip = (struct iphdr *)(h + ETH_HLEN);

		ip->tot_len = htons(l4 - ETH_HLEN + l4_len);
		ip->check = 0;
		ip->check = ip_fast_csum(ip, ip->ihl);
	}
	/* tcp4/6_gro_complete(): the pseudo-header sum, not inverted */
	th->check = ~scx_kt_l4_csum(h, IPPROTO_TCP, l4_len, 0);
}

/* The kernel's GSO splits a clone of the merged skb back into the frames sent. */
static void scx_hwgro_check_resegment(struct kunit *test, struct scx_hwgro *t,
				      const struct scx_hwgro_case *c, struct sk_buff *skb)
{
	struct sk_buff *clone, *segs, *seg, *next;
	u32 k = 0;

	/* the GSO callbacks of IPv4/IPv6 and TCP (.kunitconfig enables both) */
	if (!IS_ENABLED(CONFIG_INET) || (c->v6 && !IS_ENABLED(CONFIG_IPV6))) {
		kunit_info(test, "no %s in this kernel: the GSO re-split is not checked\n",
			   c->v6 ? "CONFIG_IPV6" : "CONFIG_INET");
		return;
	}
	clone = skb_clone(skb, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, clone);
	segs = skb_gso_segment(clone, 0);	/* no features: linear segments, software checksums */
	if (IS_ERR_OR_NULL(segs)) {
		KUNIT_FAIL(test, "skb_gso_segment: %ld", PTR_ERR(segs));
		consume_skb(clone);
		return;
	}
	skb_list_walk_safe(segs, seg, next) {
		if (k < c->segs) {
			u32 len = scx_hwgro_seg(c, t->want, k);

			KUNIT_EXPECT_PTR_EQ(test, seg->data, skb_mac_header(seg));
			KUNIT_EXPECT_EQ_MSG(test, seg->len, len, "segment %u length", k);
			if (seg->len == len && !skb_copy_bits(seg, 0, t->got, len))
				KUNIT_EXPECT_EQ_MSG(test, scx_hwgro_diff(t->got, t->want, len), -1,
						    "segment %u: first byte that differs from the frame sent",
						    k);
		}
		k++;
		kfree_skb(seg);
	}
	KUNIT_EXPECT_EQ(test, k, c->segs);
	consume_skb(clone);
}

static void scx_hwgro_check_merged(struct kunit *test, struct scx_hwgro *t,
				   const struct scx_hwgro_case *c, struct sk_buff *skb)
{
	const struct skb_shared_info *sh = skb_shinfo(skb);
	u32 l4 = scx_hwgro_l4_off(c), hlen = scx_hwgro_hlen(c);
	u32 payload = scx_hwgro_payload(c), off, n;
	u32 gso_type = (c->v6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4) |
		       (!c->v6 && !c->id_step ? SKB_GSO_TCP_FIXEDID : 0) |
		       (c->cwr ? SKB_GSO_TCP_ECN : 0);
	const struct tcphdr *th;
	u8 *buf;

	/* as eth_type_trans() left it: data at the network header */
	KUNIT_EXPECT_EQ(test, ntohs(skb->protocol), c->v6 ? ETH_P_IPV6 : ETH_P_IP);
	KUNIT_ASSERT_PTR_EQ(test, skb->data, skb_mac_header(skb) + ETH_HLEN);
	skb_push(skb, ETH_HLEN);

	KUNIT_EXPECT_EQ(test, skb->len, hlen + payload);
	KUNIT_EXPECT_EQ(test, skb_headlen(skb), hlen);
	KUNIT_EXPECT_EQ(test, (u32)sh->gso_size, c->mss);
	KUNIT_EXPECT_EQ(test, (u32)sh->gso_segs, c->segs);
	KUNIT_EXPECT_EQ(test, sh->gso_type, gso_type);
	KUNIT_EXPECT_EQ(test, (u32)skb->ip_summed, (u32)CHECKSUM_PARTIAL);
	KUNIT_EXPECT_PTR_EQ(test, skb_checksum_start(skb), skb->data + l4);
	KUNIT_EXPECT_EQ(test, (u32)skb->csum_offset, (u32)offsetof(struct tcphdr, check));
	/*
	 * where software GRO leaves it (and where a TSO driver this skb is
	 * forwarded to, bridged, looks for the TCP header)
	 */
	KUNIT_EXPECT_PTR_EQ(test, skb_transport_header(skb), skb->data + l4);
	KUNIT_EXPECT_EQ(test, (u32)skb_get_rx_queue(skb), 0u);
	scx_hwgro_check_frags(test, c, skb);

	/* headers: the first segment's, as GRO leaves them */
	scx_hwgro_merged_headers(c, t->want);
	th = (const struct tcphdr *)(skb->data + l4);
	if (c->v6) {
		KUNIT_EXPECT_EQ(test, ntohs(((struct ipv6hdr *)(skb->data + ETH_HLEN))->payload_len),
				skb->len - l4);
		KUNIT_EXPECT_EQ(test, (u16)th->check,
				(u16)~csum_ipv6_magic(&scx_hwgro_flow[1].saddr6, &scx_hwgro_flow[1].daddr6,
						      skb->len - l4, IPPROTO_TCP, 0));
	} else {
		const struct iphdr *ip = (const struct iphdr *)(skb->data + ETH_HLEN);

		KUNIT_EXPECT_EQ(test, ntohs(ip->tot_len), skb->len - ETH_HLEN);
		KUNIT_EXPECT_EQ(test, ip_fast_csum(ip, ip->ihl), 0);
		KUNIT_EXPECT_EQ(test, ntohs(ip->id), (u16)SCX_HWGRO_ID0);
		KUNIT_EXPECT_EQ(test, (u16)th->check,
				(u16)~csum_tcpudp_magic(ip->saddr, ip->daddr, skb->len - l4,
							IPPROTO_TCP, 0));
	}
	KUNIT_EXPECT_EQ(test, ntohl(th->seq), SCX_HWGRO_SEQ0);
	KUNIT_EXPECT_EQ(test, scx_hwgro_diff(skb->data, t->want, hlen), -1);

	/* the payload: the stream as sent, in order */
	buf = kunit_kmalloc(test, payload, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	KUNIT_ASSERT_EQ(test, skb_copy_bits(skb, hlen, buf, payload), 0);
	for (off = 0, n = 0; off < payload; off++)
		n += buf[off] != scx_hwgro_byte(off);
	KUNIT_EXPECT_EQ_MSG(test, n, 0u, "payload bytes out of place");

	scx_hwgro_check_resegment(test, t, c, skb);
}

static int scx_hwgro_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_hwgro), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_hwgro_test_exit(struct kunit *test)
{
	struct scx_hwgro *t = test->priv;

	scx_hwgro_rx_release(&t->rx);
	scx_pair_destroy(&t->p);
}

static void scx_hwgro_burst(struct kunit *test)
{
	const struct scx_hwgro_case *c = test->param_value;
	struct scx_hwgro *t = test->priv;
	struct scx_pair *p = &t->p;
	struct scx_kt_dev_counters dc;
	u64 wire = 0;
	u32 k, len;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	p->rx_striding[1] = true;
	p->rx_hw_gro[1] = true;
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 8, 7), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 8, 7), 0);
	p->ch[1][0].rx_hook = scx_hwgro_rx_hook;
	p->ch[1][0].rx_hook_ctx = &t->rx;

	/* the burst behind one doorbell: the device sees it whole, one NAPI poll takes it */
	for (k = 0; k < c->segs; k++) {
		len = scx_hwgro_seg(c, t->want, k);
		wire += len;
		KUNIT_ASSERT_EQ_MSG(test, scx_hwgro_post(t, t->want, len), 0, "segment %u", k);
	}
	scx_hwgro_ring(t);
	KUNIT_ASSERT_EQ_MSG(test, t->rx.n, 1u, "skbs for %u segments", c->segs);
	scx_hwgro_check_merged(test, t, c, t->rx.skb[0]);
	scx_hwgro_rx_release(&t->rx);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_gro_skbs"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_gro_packets"), (u64)c->segs);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_gro_bytes"), wire);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_gro_match_packets"),
			(u64)c->segs - 1);

	/* a pure ACK: split, no payload, no session: its headers alone, the device's verdict */
	len = scx_hwgro_seg(c, t->want, c->segs);
	KUNIT_ASSERT_EQ(test, len, scx_hwgro_hlen(c));
	KUNIT_ASSERT_EQ(test, scx_hwgro_post(t, t->want, len), 0);
	scx_hwgro_ring(t);
	KUNIT_ASSERT_EQ(test, t->rx.n, 1u);
	{
		struct sk_buff *skb = t->rx.skb[0];

		skb_push(skb, ETH_HLEN);
		KUNIT_EXPECT_FALSE(test, skb_is_gso(skb));
		KUNIT_EXPECT_EQ(test, skb->len, len);
		KUNIT_EXPECT_EQ(test, skb_headlen(skb), len);
		KUNIT_EXPECT_EQ(test, (u32)skb_shinfo(skb)->nr_frags, 0u);
		KUNIT_EXPECT_EQ(test, (u32)skb->ip_summed, (u32)CHECKSUM_UNNECESSARY);
		KUNIT_EXPECT_EQ(test, scx_hwgro_diff(skb->data, t->want, len), -1);
	}
	scx_hwgro_rx_release(&t->rx);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_hds_nodata_packets"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_gro_skbs"), 1ull);

	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_packets"), (u64)c->segs + 1);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_bytes"), wire + len);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_skb_err"), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_hds_nosplit_packets"), 0ull);
	KUNIT_EXPECT_EQ(test, p->ch[1][0].rx_delivered, 2ull);
	KUNIT_EXPECT_EQ(test, p->ch[0][0].tx_freed, (u64)c->segs + 1);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[1], &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.rx_out_of_buffer + dc.rx_oversize_pkts_buffer + dc.rx_malformed,
			0ull);

	p->ch[1][0].rx_hook = NULL;
	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

static struct kunit_case scx_hwgro_test_cases[] = {
	KUNIT_CASE_PARAM(scx_hwgro_burst, scx_hwgro_gen_params),
	{}
};

static struct kunit_suite scx_hwgro_suite = {
	.name = "softcx_hwgro",
	.init = scx_hwgro_test_init,
	.exit = scx_hwgro_test_exit,
	.test_cases = scx_hwgro_test_cases,
};

kunit_test_suite(scx_hwgro_suite);
