// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_ring: work-queue and completion-queue arithmetic of the driver
 * core: free-running counters across their 16-bit wrap, slot indexing,
 * RX buffer geometry, and the CQ ownership protocol across many laps with
 * the device's CQE writer on the other side of the ring.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/log2.h>

#include "hooks.h"
#include "os_hooks.h"

static void scx_ring_sq_room(struct kunit *test)
{
	const u32 log = 6, size = 1u << log;
	static const u16 starts[] = { 0, 1, 0x7fff, 0xffc0, 0xfff0, 0xffff };
	u32 s, used;

	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		u16 cc = starts[s];

		for (used = 0; used <= size; used++) {
			u16 pc = (u16)(cc + used);
			u32 room = size - used;

			KUNIT_EXPECT_TRUE_MSG(test, scx_kt_sq_has_room(pc, cc, log, room),
					      "cc %#x used %u", cc, used);
			KUNIT_EXPECT_FALSE_MSG(test, scx_kt_sq_has_room(pc, cc, log, room + 1),
					       "cc %#x used %u", cc, used);
		}
	}
}

static void scx_ring_sq_slots(struct kunit *test)
{
	u32 log, ctr;

	for (log = 6; log <= 13; log++)
		for (ctr = 0; ctr <= 0x1ffff; ctr += 0x3f1)
			KUNIT_EXPECT_EQ_MSG(test, scx_kt_sq_slot((u16)ctr, log),
					    (u32)(u16)ctr & ((1u << log) - 1), "log %u ctr %#x",
					    log, ctr);
	/* the last and first slots around the counter wrap */
	KUNIT_EXPECT_EQ(test, scx_kt_sq_slot(0xffff, 6), 63u);
	KUNIT_EXPECT_EQ(test, scx_kt_sq_slot((u16)(0xffff + 1), 6), 0u);
}

static void scx_ring_sq_wqe_bound(struct kunit *test)
{
	u32 max = scx_kt_sq_max_wqebbs();

	/* a WQE fits the PRM's 1 KiB, and stop room fits the smallest SQ (64) */
	KUNIT_EXPECT_GE(test, max, 1u);
	KUNIT_EXPECT_LE(test, max, 16u);
	KUNIT_EXPECT_LT(test, 2 * max - 1, 64u);
}

static void scx_ring_rq_missing(struct kunit *test)
{
	const u32 log = 4, size = 1u << log;
	static const u16 starts[] = { 0, 0xfff8, 0xffff };
	u32 s, posted;

	for (s = 0; s < ARRAY_SIZE(starts); s++)
		for (posted = 0; posted <= size; posted++)
			KUNIT_EXPECT_EQ_MSG(test,
					    scx_kt_rq_missing((u16)(starts[s] + posted), starts[s], log),
					    size - posted, "cc %#x posted %u", starts[s], posted);
}

static void scx_ring_rx_layout(struct kunit *test)
{
	const u32 l2 = ETH_HLEN + VLAN_HLEN + ETH_FCS_LEN;
	const u32 headroom = 256, skb_headroom = 64, tailroom = 320;
	u32 mtu, n, bytes, room;

	for (mtu = 68; mtu <= 9978; mtu += 37) {	/* 68 .. the maximum, 9978 */
		u32 frame = mtu + l2, need = skb_headroom + frame + tailroom;

		KUNIT_ASSERT_EQ_MSG(test, scx_kt_rx_layout(mtu, headroom, skb_headroom, tailroom, 0,
							   &n, &bytes, &room),
				    0, "mtu %u", mtu);
		KUNIT_EXPECT_GE_MSG(test, room, frame, "mtu %u", mtu);
		if (need <= 4096) {
			/* linear: the smallest power of two that holds it */
			KUNIT_EXPECT_EQ_MSG(test, n, 1u, "mtu %u", mtu);
			KUNIT_EXPECT_TRUE_MSG(test, is_power_of_2(bytes) && bytes >= need &&
					      bytes / 2 < need, "mtu %u: stride %u", mtu, bytes);
			KUNIT_EXPECT_EQ_MSG(test, room, bytes - skb_headroom - tailroom, "mtu %u", mtu);
		} else {
			/* non-linear: no more page than 2 KiB fragments would take */
			KUNIT_EXPECT_TRUE_MSG(test, n >= 2 && n <= 4, "mtu %u: %u fragments", mtu, n);
			KUNIT_EXPECT_EQ_MSG(test, room, frame, "mtu %u", mtu);
			KUNIT_EXPECT_LE_MSG(test, bytes, ALIGN(frame, 2048), "mtu %u", mtu);
		}
		/* XDP: a whole page, or a page per fragment (multi-buffer frames) */
		KUNIT_ASSERT_EQ(test, scx_kt_rx_layout(mtu, headroom, skb_headroom, tailroom, 1,
						       &n, &bytes, &room), 0);
		if (headroom + frame + tailroom <= 4096) {
			KUNIT_EXPECT_EQ_MSG(test, n, 1u, "mtu %u", mtu);
			KUNIT_EXPECT_EQ_MSG(test, bytes, 4096u, "mtu %u", mtu);
			KUNIT_EXPECT_EQ_MSG(test, room, 4096u - headroom - tailroom, "mtu %u", mtu);
		} else {
			/* the first page keeps the headroom and the tailroom */
			KUNIT_EXPECT_EQ_MSG(test, n, 1 + DIV_ROUND_UP(frame - (4096 - headroom - tailroom),
								 4096u), "mtu %u", mtu);
			KUNIT_EXPECT_EQ_MSG(test, bytes, n * 4096u, "mtu %u", mtu);
			KUNIT_EXPECT_EQ_MSG(test, room, frame, "mtu %u", mtu);
		}
	}
	/* 1500: two frames a page; 9000: three 2 KiB fragments and a page, not 16 KiB */
	KUNIT_EXPECT_EQ(test, scx_kt_rx_layout(1500, headroom, skb_headroom, tailroom, 0, &n, &bytes,
					       &room), 0);
	KUNIT_EXPECT_EQ(test, bytes, 2048u);
	KUNIT_EXPECT_EQ(test, scx_kt_rx_layout(9000, headroom, skb_headroom, tailroom, 0, &n, &bytes,
					       &room), 0);
	KUNIT_EXPECT_EQ(test, n, 4u);
	KUNIT_EXPECT_EQ(test, bytes, 3 * 2048u + 4096u);
	KUNIT_EXPECT_NE(test, scx_kt_rx_layout(64000, headroom, skb_headroom, tailroom, 0, &n,
					       &bytes, &room), 0);
}

/* ---- the CQ protocol, against the device model ---- */

struct scx_ring_ctx {
	struct device *dev;
	struct scx_hw_adapter *hw;
	struct scx_hw_function *fn;
	struct scx_kt_cq *cq;
	struct scx_kt_irq irq;
};

static int scx_ring_cq_init(struct kunit *test)
{
	struct scx_ring_ctx *ctx;
	int err;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	ctx->dev = scx_kt_dev_create(test);
	if (!ctx->dev)
		return -ENODEV;
	err = scx_hw_adapter_create(scx_hw_model_parse("cx7"), 2, ctx->dev, &ctx->hw);
	if (err) {
		ctx->hw = NULL;
		return err;
	}
	ctx->fn = scx_hw_function(ctx->hw, 0);
	if (!ctx->fn)
		return -ENODEV;
	scx_hw_set_irq_ctx(ctx->fn, &ctx->irq);
	return 0;
}

static void scx_ring_cq_exit(struct kunit *test)
{
	struct scx_ring_ctx *ctx = test->priv;

	if (!ctx)
		return;
	scx_kt_cq_destroy(ctx->cq);
	if (ctx->hw) {
		KUNIT_EXPECT_EQ_MSG(test, scx_kt_dev_objects(ctx->fn), 0u,
				    "device objects left behind");
		scx_hw_adapter_destroy(ctx->hw);
	}
	scx_kt_dev_destroy(ctx->dev);
}

static void scx_ring_cq_laps(struct kunit *test)
{
	struct scx_ring_ctx *ctx = test->priv;
	const u32 log = 3, size = 1u << log;
	u32 produced = 0, consumed = 0, lap_batch;
	u32 byte_cnt;
	u16 wc;

	ctx->cq = scx_kt_cq_create(ctx->fn, ctx->dev, log, 0);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cq);

	/* a fresh ring holds nothing for the driver */
	KUNIT_EXPECT_EQ(test, scx_kt_cq_poll(ctx->cq, &wc, &byte_cnt), 0);

	/* 40 laps, in batches of every size from 1 to the whole ring */
	for (lap_batch = 0; produced < 40 * size; lap_batch++) {
		u32 batch = 1 + lap_batch % size, i;

		for (i = 0; i < batch; i++, produced++)
			scx_kt_cq_dev_post(ctx->cq, (u16)produced, 60 + produced);
		KUNIT_EXPECT_EQ(test, scx_kt_cq_dev_pi(ctx->cq), produced);

		for (i = 0; i < batch; i++, consumed++) {
			KUNIT_ASSERT_EQ_MSG(test, scx_kt_cq_poll(ctx->cq, &wc, &byte_cnt), 1,
					    "CQE %u (lap %u) not seen", consumed, consumed >> log);
			KUNIT_EXPECT_EQ(test, wc, (u16)consumed);
			KUNIT_EXPECT_EQ(test, byte_cnt, 60 + consumed);
		}
		/* the previous lap's CQEs in the next slots are stale, not new */
		KUNIT_EXPECT_EQ_MSG(test, scx_kt_cq_poll(ctx->cq, &wc, &byte_cnt), 0,
				    "stale CQE taken at cc %u", consumed);
		KUNIT_EXPECT_EQ(test, scx_kt_cq_cc(ctx->cq), consumed);
		KUNIT_EXPECT_EQ(test, scx_kt_cq_update_ci(ctx->cq), consumed & 0xffffff);
	}
}

static void scx_ring_cq_arm(struct kunit *test)
{
	struct scx_ring_ctx *ctx = test->priv;
	const u32 vector = 5;
	u32 byte_cnt;
	u16 wc;

	ctx->cq = scx_kt_cq_create(ctx->fn, ctx->dev, 4, vector);
	KUNIT_ASSERT_NOT_NULL(test, ctx->cq);

	/* unarmed: CQEs raise nothing */
	scx_kt_cq_dev_post(ctx->cq, 0, 64);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 0);
	KUNIT_EXPECT_EQ(test, scx_kt_cq_poll(ctx->cq, &wc, &byte_cnt), 1);
	scx_kt_cq_update_ci(ctx->cq);

	/* armed with nothing pending: quiet until the next CQE, then one interrupt */
	scx_kt_cq_arm(ctx->cq);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 0);
	scx_kt_cq_dev_post(ctx->cq, 1, 64);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 1);
	scx_kt_cq_dev_post(ctx->cq, 2, 64);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&ctx->irq.count[vector]), 1,
			    "one arm must give one interrupt");

	/* armed while CQEs are pending: the interrupt comes at once */
	scx_kt_cq_arm(ctx->cq);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 2);

	/* consume everything, arm: quiet again */
	while (scx_kt_cq_poll(ctx->cq, &wc, &byte_cnt) == 1)
		;
	scx_kt_cq_update_ci(ctx->cq);
	scx_kt_cq_arm(ctx->cq);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.bad_vector), 0);
	scx_kt_cq_dev_post(ctx->cq, 3, 64);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[vector]), 3);
	KUNIT_EXPECT_EQ(test, atomic_read(&ctx->irq.count[0]), 0);
}

static struct kunit_case scx_ring_cases[] = {
	KUNIT_CASE(scx_ring_sq_room),
	KUNIT_CASE(scx_ring_sq_slots),
	KUNIT_CASE(scx_ring_sq_wqe_bound),
	KUNIT_CASE(scx_ring_rq_missing),
	KUNIT_CASE(scx_ring_rx_layout),
	{}
};

static struct kunit_suite scx_ring_suite = {
	.name = "softcx_ring",
	.test_cases = scx_ring_cases,
};

static struct kunit_case scx_cq_cases[] = {
	KUNIT_CASE(scx_ring_cq_laps),
	KUNIT_CASE(scx_ring_cq_arm),
	{}
};

static struct kunit_suite scx_cq_suite = {
	.name = "softcx_cq",
	.init = scx_ring_cq_init,
	.exit = scx_ring_cq_exit,
	.test_cases = scx_cq_cases,
};

kunit_test_suites(&scx_ring_suite, &scx_cq_suite);
