// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_xdp: the shim's ndo_xdp_xmit (scx_xdp_xmit) on a cabled pair,
 * called as a devmap flush calls it (BHs off, frames it did not take left
 * to the caller). The kernel refuses multi-buffer frames before a driver
 * sees them on 6.1, so this is the only place that hands one to the shim.
 */
#include <kunit/test.h>
#include <linux/bottom_half.h>
#include <linux/mm.h>
#include <net/xdp.h>

#include "../shim/softcx.h"
#include "pair.h"

#define SCX_XDP_HEAD	300	/* bytes in a frame's first buffer */
#define SCX_XDP_FRAG	200	/* bytes in the second buffer of a multi-buffer frame */

/*
 * A redirected frame as another driver hands it over: test frame seq in
 * an order-0 page (MEM_TYPE_PAGE_ORDER0: returning it puts the page).
 * With frags, the frame is SCX_XDP_HEAD + SCX_XDP_FRAG bytes long and its
 * last SCX_XDP_FRAG bytes sit in a second page: the first buffer alone is
 * a truncated frame the receiver would reject.
 */
static struct xdp_frame *scx_xdp_frame(struct kunit *test, struct net_device *dev, u32 seq,
				       bool frags, struct page **head)
{
	struct xdp_rxq_info rxq = { .dev = dev, .mem = { .type = MEM_TYPE_PAGE_ORDER0 } };
	u32 len = SCX_XDP_HEAD + (frags ? SCX_XDP_FRAG : 0);
	struct xdp_frame *xdpf;
	struct xdp_buff xdp;
	struct page *page;
	u8 *frame;

	frame = kunit_kmalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, frame);
	scx_kt_frame_fill(frame, len, seq);
	page = alloc_page(GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, page);
	xdp_init_buff(&xdp, PAGE_SIZE, &rxq);
	xdp_prepare_buff(&xdp, page_address(page), XDP_PACKET_HEADROOM, SCX_XDP_HEAD, false);
	memcpy(xdp.data, frame, SCX_XDP_HEAD);
	if (frags) {
		struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(&xdp);
		struct page *frag = alloc_page(GFP_KERNEL);

		if (!frag)
			__free_page(page);
		KUNIT_ASSERT_NOT_NULL(test, frag);
		memcpy(page_address(frag), frame + SCX_XDP_HEAD, SCX_XDP_FRAG);
		sinfo->nr_frags = 1;
		__skb_frag_set_page(&sinfo->frags[0], frag);
		skb_frag_off_set(&sinfo->frags[0], 0);
		skb_frag_size_set(&sinfo->frags[0], SCX_XDP_FRAG);
		sinfo->xdp_frags_size = SCX_XDP_FRAG;
		xdp_buff_set_frags_flag(&xdp);
	}
	xdpf = xdp_convert_buff_to_frame(&xdp);
	KUNIT_ASSERT_NOT_NULL(test, xdpf);
	KUNIT_ASSERT_EQ(test, xdp_frame_has_frags(xdpf), frags);
	*head = page;
	return xdpf;
}

/* ndo_xdp_xmit as bq_xmit_all() calls it: the frames not taken go back to their owner. */
static int scx_xdp_send(struct scx_pair *p, struct xdp_frame **frames, int n)
{
	int sent, i;

	local_bh_disable();
	sent = scx_xdp_xmit(p->netdev[0], n, frames, XDP_XMIT_FLUSH);
	for (i = max(sent, 0); i < n; i++)
		xdp_return_frame(frames[i]);
	local_bh_enable();
	scx_pair_poll(p, 1);
	scx_pair_poll(p, 0);
	return sent;
}

static int scx_xdp_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_pair), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_xdp_test_exit(struct kunit *test)
{
	scx_pair_destroy(test->priv);
}

/*
 * A multi-buffer frame is refused whole (issue 10): not sent, not cut to
 * its first buffer, counted in tx_xdp_err, left to the caller, which
 * returns it to its owner; the frames behind it in the batch go with it;
 * a following frame goes out intact and comes back on completion.
 */
static void scx_xdp_xmit_multibuf(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct xdp_frame *frames[3];
	struct page *page[3];
	u32 dups;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 6, 6), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 6, 6), 0);

	/* alone in its batch */
	frames[0] = scx_xdp_frame(test, p->netdev[0], 0, true, &page[0]);
	KUNIT_EXPECT_EQ(test, scx_xdp_send(p, frames, 1), 0);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_err"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_full"), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_xmit"), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_packets"), 0ull);

	/* a normal frame after it: sent intact, returned to its owner on completion */
	frames[0] = scx_xdp_frame(test, p->netdev[0], 1, false, &page[0]);
	get_page(page[0]);
	KUNIT_EXPECT_EQ(test, scx_xdp_send(p, frames, 1), 1);
	KUNIT_EXPECT_EQ(test, scx_pair_received(p, 1, 1, 1, &dups), 1u);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bytes), (u64)SCX_XDP_HEAD);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bad), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_xmit"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_err"), 1ull);
	KUNIT_EXPECT_EQ(test, page_ref_count(page[0]), 1);
	put_page(page[0]);

	/* in the middle of a batch: the frame before it goes, it and the rest do not */
	frames[0] = scx_xdp_frame(test, p->netdev[0], 2, false, &page[0]);
	frames[1] = scx_xdp_frame(test, p->netdev[0], 3, true, &page[1]);
	frames[2] = scx_xdp_frame(test, p->netdev[0], 4, false, &page[2]);
	KUNIT_EXPECT_EQ(test, scx_xdp_send(p, frames, 3), 1);
	KUNIT_EXPECT_EQ(test, scx_pair_received(p, 1, 2, 1, &dups), 1u);
	KUNIT_EXPECT_EQ(test, scx_pair_received(p, 1, 3, 2, &dups), 0u);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), 2ull);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bad), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_xmit"), 2ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_err"), 3ull);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_xdp_full"), 0ull);

	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

static struct kunit_case scx_xdp_cases[] = {
	KUNIT_CASE(scx_xdp_xmit_multibuf),
	{}
};

static struct kunit_suite scx_xdp_suite = {
	.name = "softcx_xdp",
	.init = scx_xdp_test_init,
	.exit = scx_xdp_test_exit,
	.test_cases = scx_xdp_cases,
};

kunit_test_suite(scx_xdp_suite);
