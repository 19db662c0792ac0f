// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_lso: one GSO skb as the stack hands it to ndo_start_xmit (headers
 * in the linear part, payload mostly in page fragments, CHECKSUM_PARTIAL
 * with the pseudo-header sum in the L4 checksum field, gso_size/type/segs
 * set) is posted as one LSO WQE through a cabled pair. The receiver must
 * get gso_segs valid frames: lengths, IPv4 ids, TCP sequence numbers and
 * flags, UDP lengths and every checksum right, the payload in order; the
 * sender's counters count one TSO packet and the wire packets and bytes.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/tcp.h>

#include "../shim/softcx.h"
#include "hooks.h"
#include "pair.h"

struct scx_lso_case {
	const char *name;
	bool v6;
	bool udp;
	u32 mss;
	u32 payload;		/* bytes after the headers */
	u32 tcp_opt;		/* TCP option bytes (multiple of 4) */
	u32 head_payload;	/* payload bytes in the linear part, the rest in pages */
};

static const struct scx_lso_case scx_lso_cases[] = {
	{ "tcp4 mss 1448, options, short last", false, false, 1448, 10000, 12, 0 },
	{ "tcp4 odd mss, 1-byte last", false, false, 999, 2998, 0, 100 },
	{ "tcp6 mss 1000, full last", true, false, 1000, 3000, 12, 0 },
	{ "tcp6 mss 1220, split head", true, false, 1220, 5000, 0, 37 },
	{ "udp4 mss 1400", false, true, 1400, 4000, 0, 0 },
	{ "udp6 odd mss", true, true, 1001, 2500, 0, 10 },
};

static void scx_lso_case_desc(const struct scx_lso_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(scx_lso, scx_lso_cases, scx_lso_case_desc);

#define SCX_LSO_SEQ	0xfffffc00u	/* TCP sequence numbers wrap within a send */
#define SCX_LSO_IP_ID	0xfffe		/* and so do IPv4 ids */
#define SCX_LSO_TCP_FLAGS (TCPHDR_ACK | TCPHDR_PSH | TCPHDR_FIN | TCPHDR_CWR)
#define SCX_LSO_MAX_SEGS 16

static const u8 scx_lso_dst[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x12 };
static const u8 scx_lso_src[ETH_ALEN] = { 0x02, 0x00, 0x5c, 0x00, 0x00, 0x11 };
static const struct scx_kt_flow scx_lso_flow[2] = {
	{ scx_lso_dst, scx_lso_src, false, 0x0a0b0001, 0x0a0b0002 },
	{ scx_lso_dst, scx_lso_src, true,
	  .saddr6 = { { { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 } } },
	  .daddr6 = { { { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 } } } },
};

/* What the receiver saw, frame by frame. */
struct scx_lso_rx {
	struct kunit *test;
	const struct scx_lso_case *c;
	u32 ihs;
	u32 frames;
	u32 payload_seen;	/* payload bytes checked so far, in order */
	u32 csum_ok;		/* frames with a checksum the stack can trust (scx_kt_csum_ok) */
	u64 bytes;
};

static u8 scx_lso_byte(u32 i)
{
	return (u8)(i * 13 + (i >> 9) + 1);
}

static u32 scx_lso_l3_hlen(const struct scx_lso_case *c)
{
	return c->v6 ? sizeof(struct ipv6hdr) : sizeof(struct iphdr);
}

static u32 scx_lso_l4_hlen(const struct scx_lso_case *c)
{
	return c->udp ? sizeof(struct udphdr) : sizeof(struct tcphdr) + c->tcp_opt;
}

static u32 scx_lso_ihs(const struct scx_lso_case *c)
{
	return ETH_HLEN + scx_lso_l3_hlen(c) + scx_lso_l4_hlen(c);
}

/* Headers of the whole send, as the stack builds them for a GSO skb. */
static void scx_lso_fill_headers(const struct scx_lso_case *c, u8 *h)
{
	u32 l4_len = scx_lso_l4_hlen(c) + c->payload;
	u8 proto = c->udp ? IPPROTO_UDP : IPPROTO_TCP;
	u32 l4 = scx_kt_ip_fill(h, &scx_lso_flow[c->v6], proto, l4_len, SCX_LSO_IP_ID);

	if (c->udp) {
		struct udphdr *uh = (struct udphdr *)(h + l4);

		uh->source = htons(4000);
		uh->dest = htons(4001);
		uh->len = htons(l4_len);
		uh->check = 0;
	} else {
		struct tcphdr *th = (struct tcphdr *)(h + l4);
		u32 i;

		memset(th, 0, sizeof(*th) + c->tcp_opt);
		th->source = htons(5000);
		th->dest = htons(5001);
		th->seq = htonl(SCX_LSO_SEQ);
		th->ack_seq = htonl(0x12345678);
		th->doff = (sizeof(*th) + c->tcp_opt) / 4;
		tcp_flag_byte(th) = SCX_LSO_TCP_FLAGS;
		th->window = htons(512);
		for (i = 0; i < c->tcp_opt; i++)	/* NOPs, then end of options */
			h[l4 + sizeof(*th) + i] = i + 1 < c->tcp_opt ? TCPOPT_NOP : TCPOPT_EOL;
	}
	/* L4 checksum: the pseudo-header sum without the length, as for CHECKSUM_PARTIAL GSO */
	*(__sum16 *)(h + l4 + (c->udp ? 6 : 16)) = ~scx_kt_l4_csum(h, proto, 0, 0);
}

/* The GSO skb: headers + head_payload linear, the rest of the payload in pages. */
static struct sk_buff *scx_lso_skb(const struct scx_lso_case *c)
{
	u32 ihs = scx_lso_ihs(c), headlen = ihs + c->head_payload, off, i;
	struct sk_buff *skb = alloc_skb(headlen, GFP_KERNEL);
	u8 *h;

	if (!skb)
		return NULL;
	h = skb_put(skb, headlen);
	scx_lso_fill_headers(c, h);
	for (i = 0; i < c->head_payload; i++)
		h[ihs + i] = scx_lso_byte(i);
	for (off = c->head_payload; off < c->payload;) {
		u32 n = min_t(u32, PAGE_SIZE, c->payload - off);
		struct page *page = alloc_page(GFP_KERNEL);
		u8 *va;

		if (!page) {
			kfree_skb(skb);
			return NULL;
		}
		va = page_address(page);
		for (i = 0; i < n; i++)
			va[i] = scx_lso_byte(off + i);
		skb_fill_page_desc(skb, skb_shinfo(skb)->nr_frags, page, 0, n);
		skb->len += n;
		skb->data_len += n;
		skb->truesize += PAGE_SIZE;
		off += n;
	}
	skb_reset_mac_header(skb);
	skb_set_network_header(skb, ETH_HLEN);
	skb_set_transport_header(skb, ETH_HLEN + scx_lso_l3_hlen(c));
	skb->ip_summed = CHECKSUM_PARTIAL;
	skb->csum_start = skb_transport_header(skb) - skb->head;
	skb->csum_offset = c->udp ? offsetof(struct udphdr, check) : offsetof(struct tcphdr, check);
	skb_shinfo(skb)->gso_size = c->mss;
	skb_shinfo(skb)->gso_segs = DIV_ROUND_UP(c->payload, c->mss);
	skb_shinfo(skb)->gso_type = c->udp ? SKB_GSO_UDP_L4 :
				    c->v6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4;
	return skb;
}

/* L4 checksum over the segment with its pseudo header: 0 when right. */
static __sum16 scx_lso_l4_check(const struct scx_lso_case *c, const u8 *f, u32 l4_len)
{
	u32 l4 = ETH_HLEN + scx_lso_l3_hlen(c);

	return scx_kt_l4_csum(f, c->udp ? IPPROTO_UDP : IPPROTO_TCP, l4_len,
			      csum_partial(f + l4, l4_len, 0));
}

/* One frame on the receiver: segment k of the send. */
static void scx_lso_rx_hook(struct scx_kt_chan *ch, const u8 *f, u32 len,
			    const struct sk_buff *skb)
{
	struct scx_lso_rx *rx = ch->rx_hook_ctx;
	const struct scx_lso_case *c = rx->c;
	struct kunit *test = rx->test;
	u32 segs = DIV_ROUND_UP(c->payload, c->mss), k = rx->frames++;
	u32 l3 = ETH_HLEN, l4 = l3 + scx_lso_l3_hlen(c), ihs = rx->ihs;
	u32 chunk = min_t(u32, c->mss, c->payload - min_t(u32, c->payload, k * c->mss));
	u32 i, bad = 0;

	rx->bytes += len;
	if (scx_kt_csum_ok(skb))
		rx->csum_ok++;
	/* no ASSERT here: this runs inside a NAPI poll, with BHs off */
	if (k >= segs || len != ihs + chunk) {
		KUNIT_FAIL(test, "frame %u of %u: %u bytes, want %u", k, segs, len, ihs + chunk);
		return;
	}
	KUNIT_EXPECT_EQ_MSG(test, ntohs(skb->protocol), c->v6 ? ETH_P_IPV6 : ETH_P_IP,
			    "segment %u: protocol the stack sees", k);
	KUNIT_EXPECT_EQ(test, memcmp(f, scx_lso_dst, ETH_ALEN), 0);
	KUNIT_EXPECT_EQ(test, memcmp(f + ETH_ALEN, scx_lso_src, ETH_ALEN), 0);

	if (c->v6) {
		const struct ipv6hdr *ip6 = (const struct ipv6hdr *)(f + l3);

		KUNIT_EXPECT_EQ_MSG(test, ntohs(ip6->payload_len), len - l4,
				    "segment %u IPv6 payload length", k);
	} else {
		const struct iphdr *ip = (const struct iphdr *)(f + l3);

		KUNIT_EXPECT_EQ_MSG(test, ntohs(ip->tot_len), len - l3,
				    "segment %u IPv4 total length", k);
		KUNIT_EXPECT_EQ_MSG(test, ntohs(ip->id), (u16)(SCX_LSO_IP_ID + k),
				    "segment %u IPv4 id", k);
		KUNIT_EXPECT_EQ_MSG(test, ip_fast_csum(ip, ip->ihl), 0,
				    "segment %u IPv4 header checksum", k);
	}
	if (c->udp) {
		const struct udphdr *uh = (const struct udphdr *)(f + l4);

		KUNIT_EXPECT_EQ_MSG(test, ntohs(uh->len), len - l4, "segment %u UDP length", k);
		KUNIT_EXPECT_NE_MSG(test, uh->check, 0, "segment %u: UDP checksum missing", k);
	} else {
		const struct tcphdr *th = (const struct tcphdr *)(f + l4);
		u8 flags = tcp_flag_byte(th), want = TCPHDR_ACK;

		if (k == 0)
			want |= TCPHDR_CWR;
		if (k == segs - 1)
			want |= TCPHDR_PSH | TCPHDR_FIN;
		KUNIT_EXPECT_EQ_MSG(test, ntohl(th->seq), (u32)(SCX_LSO_SEQ + k * c->mss),
				    "segment %u TCP sequence", k);
		KUNIT_EXPECT_EQ_MSG(test, ntohl(th->ack_seq), 0x12345678u, "segment %u ack", k);
		KUNIT_EXPECT_EQ_MSG(test, flags, want, "segment %u TCP flags", k);
		KUNIT_EXPECT_EQ_MSG(test, th->doff * 4u, scx_lso_l4_hlen(c),
				    "segment %u TCP header length", k);
	}
	KUNIT_EXPECT_EQ_MSG(test, scx_lso_l4_check(c, f, len - l4), 0,
			    "segment %u L4 checksum", k);

	for (i = 0; i < chunk; i++)
		bad += f[ihs + i] != scx_lso_byte(rx->payload_seen + i);
	KUNIT_EXPECT_EQ_MSG(test, bad, 0u, "segment %u: payload bytes out of place", k);
	rx->payload_seen += chunk;
}

static int scx_lso_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_pair), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_lso_test_exit(struct kunit *test)
{
	scx_pair_destroy(test->priv);
}

static void scx_lso_one_send(struct kunit *test)
{
	const struct scx_lso_case *c = test->param_value;
	u32 segs = DIV_ROUND_UP(c->payload, c->mss), ihs = scx_lso_ihs(c);
	struct scx_pair *p = test->priv;
	struct scx_lso_rx rx = { .test = test, .c = c, .ihs = ihs };
	struct scx_kt_dev_counters dc;
	struct scx_channel *ch;
	struct scx_tx_pkt *pkt;
	struct sk_buff *skb;
	u64 wire_bytes = (u64)c->payload + (u64)segs * ihs;

	KUNIT_ASSERT_LE(test, segs, (u32)SCX_LSO_MAX_SEGS);
	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 7, 7), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 7, 7), 0);
	p->ch[1][0].rx_hook = scx_lso_rx_hook;
	p->ch[1][0].rx_hook_ctx = &rx;
	ch = scx_port_channel(p->port[0], 0);
	KUNIT_ASSERT_NOT_NULL(test, ch);
	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);

	skb = scx_lso_skb(c);
	KUNIT_ASSERT_NOT_NULL(test, skb);
	/* described and mapped by the shim's own TX code (scx_tx_pkt_build) */
	KUNIT_ASSERT_EQ(test, scx_kt_tx_map(&p->ch[0][0], skb, pkt), 0);
	KUNIT_EXPECT_EQ(test, pkt->gso_type,
			(u32)(c->udp ? SCX_TX_GSO_UDP_L4 : c->v6 ? SCX_TX_GSO_TCPV6 :
			      SCX_TX_GSO_TCPV4));
	KUNIT_EXPECT_EQ(test, pkt->gso_size, (u32)c->mss);
	KUNIT_EXPECT_EQ(test, pkt->gso_segs, segs);
	KUNIT_EXPECT_EQ(test, pkt->csum, (u32)(SCX_TX_CSUM_L3 | SCX_TX_CSUM_L4));
	KUNIT_EXPECT_EQ(test, pkt->hbh_off, 0);
	KUNIT_EXPECT_EQ(test, pkt->len, skb->len);
	KUNIT_ASSERT_EQ(test, pkt->ihs, ihs);
	if (scx_channel_xmit(ch, pkt) < 0) {
		scx_kt_tx_abort(p->dev, pkt);
		KUNIT_FAIL(test, "the LSO packet was refused");
		return;
	}
	KUNIT_EXPECT_EQ(test, (u64)pkt->num_bytes, wire_bytes);
	scx_channel_doorbell(ch);
	scx_pair_poll(p, 1);
	scx_pair_poll(p, 0);

	/* the receiver: every segment once, in order, valid, the device agreeing */
	KUNIT_EXPECT_EQ(test, rx.frames, segs);
	KUNIT_EXPECT_EQ(test, rx.payload_seen, c->payload);
	KUNIT_EXPECT_EQ(test, rx.csum_ok, segs);
	KUNIT_EXPECT_EQ(test, rx.bytes, wire_bytes);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_skb_err"), 0ull);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[1], &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.rx_out_of_buffer + dc.rx_oversize_pkts_buffer + dc.rx_malformed,
			0ull);

	/* the sender: one TSO packet, the wire's packets and bytes, the skb freed */
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_tso_packets"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_tso_bytes"), (u64)c->payload);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_packets"), (u64)segs);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_bytes"), wire_bytes);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_csum_partial"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_cqe_err"), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_packets"), (u64)segs);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_bytes"), wire_bytes);
	KUNIT_EXPECT_EQ(test, p->ch[0][0].tx_freed, 1ull);
	/* BQL: one skb completed, the bytes it was charged */
	KUNIT_EXPECT_EQ(test, p->done[0].packets, 1u);
	KUNIT_EXPECT_EQ(test, (u64)p->done[0].bytes, wire_bytes);

	p->ch[1][0].rx_hook = NULL;
	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

static struct kunit_case scx_lso_test_cases[] = {
	KUNIT_CASE_PARAM(scx_lso_one_send, scx_lso_gen_params),
	{}
};

static struct kunit_suite scx_lso_suite = {
	.name = "softcx_lso",
	.init = scx_lso_test_init,
	.exit = scx_lso_test_exit,
	.test_cases = scx_lso_test_cases,
};

kunit_test_suite(scx_lso_suite);
