// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_napi: the shim's NAPI (shim/napi.c) as the module runs it. The
 * pair's NAPI contexts are enabled, so a CQE the device writes on an armed
 * CQ raises the interrupt, the shim's hook schedules the channel's NAPI and
 * the kernel's NET_RX softirq runs scx_napi_poll: RX delivered to the stack,
 * TX completions freed and reported to BQL, the CQs re-armed. The suite
 * itself never polls.
 */
#include <kunit/test.h>
#include <linux/delay.h>
#include <linux/netdevice.h>

#include "../shim/softcx.h"
#include "hooks.h"
#include "pair.h"

static int scx_napi_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_pair), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_napi_test_exit(struct kunit *test)
{
	scx_pair_destroy(test->priv);
}

/*
 * Post n frames on side 0's channel 0 the way scx_start_xmit does (BQL
 * charged per packet), one doorbell for all. Returns how many were posted.
 */
static u32 scx_napi_send(struct scx_pair *p, u32 seq0, u32 n)
{
	struct netdev_queue *txq = p->priv[0]->ch[0].txq;
	struct scx_channel *c = scx_port_channel(p->port[0], 0);
	struct scx_tx_pkt pkt;
	u32 i;

	for (i = 0; i < n; i++) {
		u32 seq = seq0 + i;

		if (scx_kt_tx_build(&p->ch[0][0], seq, scx_pair_len(seq), false, &pkt))
			break;
		if (scx_channel_xmit(c, &pkt) < 0) {
			scx_kt_tx_abort(p->dev, &pkt);
			break;
		}
		netdev_tx_sent_queue(txq, pkt.num_bytes);
		p->sent_bytes[0] += pkt.num_bytes;
	}
	scx_channel_doorbell(c);
	return i;
}

/* Wait (at most 1 s) until side 1 has seen seq0..seq0+n-1; how many it saw. */
static u32 scx_napi_wait_rx(struct scx_pair *p, u32 seq0, u32 n)
{
	u32 got = 0, dups, ms;

	for (ms = 0; ms < 1000; ms++) {
		got = scx_pair_received(p, 1, seq0, n, &dups);
		if (got == n && scx_pair_sum(p, 0, tx_freed) >= seq0 + n)
			break;
		msleep(1);
	}
	return got;
}

static u32 scx_napi_irqs(struct scx_pair *p, int side)
{
	return atomic_read(&p->irq[side].count[0]);
}

/*
 * Two batches, each only through interrupts and the shim's poll: the second
 * one arriving shows that the first poll completed NAPI and re-armed the CQs.
 */
static void scx_napi_real_poll(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	const u32 n = 24;
	u16 rx_ev[2], tx_ev[2];
	u64 polls, arms;
	u32 irq0, irq1;
	int side, b;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 7, 7), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 7, 7), 0);
	/* the fixture's first round armed the CQs; from here only interrupts poll */
	polls = scx_pair_stat(test, p->port[1], "ch0_poll");
	arms = scx_pair_stat(test, p->port[1], "ch0_arm");
	for (side = 0; side < 2; side++) {
		struct scx_chan *ch = &p->priv[side]->ch[0];

		KUNIT_EXPECT_NE(test, ch->rx_cq_bit, ch->tx_cq_bit);
		rx_ev[side] = ch->rx_events;
		tx_ev[side] = ch->tx_events;
		napi_enable(&ch->napi);
	}

	for (b = 0; b < 2; b++) {
		u32 seq0 = b * n;

		irq0 = scx_napi_irqs(p, 0);
		irq1 = scx_napi_irqs(p, 1);
		KUNIT_EXPECT_EQ(test, scx_napi_send(p, seq0, n), n);
		KUNIT_EXPECT_EQ_MSG(test, scx_napi_wait_rx(p, seq0, n), n, "batch %d", b);
		/* each side's CQ was armed: its CQEs raised an interrupt */
		KUNIT_EXPECT_GT(test, scx_napi_irqs(p, 0), irq0);
		KUNIT_EXPECT_GT(test, scx_napi_irqs(p, 1), irq1);
		KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), (u64)(seq0 + n));
	}
	/* the polls completed NAPI and re-armed, once per poll that found the rings idle */
	KUNIT_EXPECT_GE(test, scx_pair_stat(test, p->port[1], "ch0_poll"), polls + 2);
	KUNIT_EXPECT_GE(test, scx_pair_stat(test, p->port[1], "ch0_arm"), arms + 2);
	for (side = 0; side < 2; side++)
		KUNIT_EXPECT_FALSE(test, test_bit(NAPI_STATE_SCHED,
						  &p->priv[side]->ch[0].napi.state));
	/*
	 * DIM's event counters, per direction as mlx5's per-CQ ones: the
	 * sender's TX CQ raised (one event a batch at least), its RQ's CQ none;
	 * the receiver the other way round.
	 */
	KUNIT_EXPECT_GE(test, (u16)(p->priv[0]->ch[0].tx_events - tx_ev[0]), 2);
	KUNIT_EXPECT_EQ(test, (u16)(p->priv[0]->ch[0].rx_events - rx_ev[0]), 0);
	KUNIT_EXPECT_GE(test, (u16)(p->priv[1]->ch[0].rx_events - rx_ev[1]), 2);
	KUNIT_EXPECT_EQ(test, (u16)(p->priv[1]->ch[0].tx_events - tx_ev[1]), 0);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_packets"), 2ull * n);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "rx_packets"), 2ull * n);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bad), 0ull);
#ifdef CONFIG_BQL
	/* every byte charged at xmit was completed by the shim's poll */
	KUNIT_EXPECT_EQ(test, (u64)p->priv[0]->ch[0].txq->dql.num_completed,
			p->sent_bytes[0]);
#endif

	for (side = 0; side < 2; side++)
		napi_disable(&p->priv[side]->ch[0].napi);
}

static struct kunit_case scx_napi_cases[] = {
	KUNIT_CASE(scx_napi_real_poll),
	{}
};

static struct kunit_suite scx_napi_suite = {
	.name = "softcx_napi",
	.init = scx_napi_test_init,
	.exit = scx_napi_test_exit,
	.test_cases = scx_napi_cases,
};

kunit_test_suite(scx_napi_suite);
