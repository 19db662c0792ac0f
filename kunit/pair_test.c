// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_pair: a cabled pair of emulated functions, driven through the
 * core's C ABI the way the shim drives it: frames in real skbs, DMA-mapped,
 * posted with scx_channel_xmit/doorbell, carried TX -> wire -> RX by the
 * device model, received into page_pool pages and built into real skbs by
 * the shim's scx_os_rx_deliver (to the fixture netdev's rx_handler),
 * completions and interrupts handled by NAPI rounds.
 */
#include <kunit/test.h>
#include <linux/kmsg_dump.h>

#include "hooks.h"
#include "pair.h"

struct scx_pair_param {
	const char *model;
	u32 nch;
	u32 log_sq;
	u32 log_rq;
};

static const struct scx_pair_param scx_pair_params[] = {
	{ "cx7", 2, 6, 6 },	/* no inline headers */
	{ "cx4", 4, 7, 5 },	/* L2 headers inline in every SEND */
	{ "cx5", 1, 6, 9 },
};

static void scx_pair_param_desc(const struct scx_pair_param *p, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s nch=%u sq=%u rq=%u", p->model, p->nch,
		 p->log_sq, p->log_rq);
}

KUNIT_ARRAY_PARAM(scx_pair, scx_pair_params, scx_pair_param_desc);

static int scx_pair_test_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_pair), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_pair_test_exit(struct kunit *test)
{
	scx_pair_destroy(test->priv);
}

/* Frames seq0..seq0+n-1 arrived on side exactly once, intact. */
static void scx_pair_expect_received(struct kunit *test, struct scx_pair *p, int side,
				     u32 seq0, u32 n)
{
	u32 dups;

	KUNIT_EXPECT_EQ(test, scx_pair_received(p, side, seq0, n, &dups), n);
	KUNIT_EXPECT_EQ(test, dups, 0u);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, side, rx_bad), 0ull);
	/* every frame the shim got became an skb the stack took */
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[side], "rx_skb_err"), 0ull);
}

static void scx_pair_traffic(struct kunit *test)
{
	const struct scx_pair_param *prm = test->param_value;
	struct scx_pair *p = test->priv;
	struct scx_link_stats ls0, ls1;
	struct scx_kt_dev_counters dc;
	const u32 n = 700, back = 300;
	u32 i, irqs = 0;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, prm->model, prm->nch), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, prm->nch, 1500, prm->log_sq, prm->log_rq), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, prm->nch, 1500, prm->log_sq, prm->log_rq), 0);

	/* side 0 -> side 1 from the last channel, many laps of every ring */
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, prm->nch - 1, 0, n, 16), (int)n);
	scx_pair_expect_received(test, p, 1, 0, n);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), (u64)n);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bytes), p->sent_bytes[0]);
	/* UDP over IPv4, RSS on addresses and ports: an L4 hash for every frame */
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_hash_l4), (u64)n);
	/* every skb came back through TX completion, and BQL saw each packet */
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), (u64)n);
	KUNIT_EXPECT_EQ(test, p->done[0].packets, n);

	/* and back, from channel 0 */
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 1, 0, n, back, 7), (int)back);
	scx_pair_expect_received(test, p, 0, n, back);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, tx_freed), (u64)back);

	/* interrupts: the armed RX CQs of the receiving side fired */
	for (i = 0; i < prm->nch; i++)
		irqs += atomic_read(&p->irq[1].count[i]);
	KUNIT_EXPECT_GT(test, irqs, 0u);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->irq[0].bad_vector), 0);
	KUNIT_EXPECT_EQ(test, atomic_read(&p->irq[1].bad_vector), 0);

	/* the core's counters agree with what the hooks saw (device ones refreshed) */
	scx_stats_refresh(p->port[0]);
	scx_stats_refresh(p->port[1]);
	scx_stats_link(p->port[0], &ls0);
	scx_stats_link(p->port[1], &ls1);
	KUNIT_EXPECT_EQ(test, ls0.tx_packets, (u64)n);
	KUNIT_EXPECT_EQ(test, ls0.tx_bytes, p->sent_bytes[0]);
	KUNIT_EXPECT_EQ(test, ls1.rx_packets, (u64)n);
	KUNIT_EXPECT_EQ(test, ls1.rx_bytes, p->sent_bytes[0]);
	KUNIT_EXPECT_EQ(test, ls1.tx_packets, (u64)back);
	KUNIT_EXPECT_EQ(test, ls0.rx_packets, (u64)back);
	KUNIT_EXPECT_EQ(test, ls0.rx_dropped + ls1.rx_dropped + ls0.tx_dropped + ls1.tx_dropped,
			0ull);

	/* nothing dropped inside the device */
	for (i = 0; i < 2; i++) {
		KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[i], &dc), 0);
		KUNIT_EXPECT_EQ(test, dc.rx_out_of_buffer, 0ull);
		KUNIT_EXPECT_EQ(test, dc.rx_if_down_packets, 0ull);
		KUNIT_EXPECT_EQ(test, dc.rx_oversize_pkts_buffer, 0ull);
		KUNIT_EXPECT_EQ(test, dc.rx_malformed, 0ull);
		KUNIT_EXPECT_GT(test, dc.doorbells, 0ull);
	}

	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	KUNIT_EXPECT_EQ(test, scx_kt_dev_objects(p->fn[0]), 0u);
	KUNIT_EXPECT_EQ(test, scx_kt_dev_objects(p->fn[1]), 0u);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

/* Down/up cycles with MTU changes: pools come and go, pages all come back, counters stay. */
static void scx_pair_reopen(struct kunit *test)
{
	static const u32 mtus[] = { 1500, 9000, 68, 4000 };
	struct scx_pair *p = test->priv;
	struct scx_link_stats ls;
	u32 cycle, seq = 0;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx6dx", 2), 0);
	for (cycle = 0; cycle < ARRAY_SIZE(mtus); cycle++) {
		KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 2, 1500, 6, 6), 0);
		KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 2, mtus[cycle], 6, 6), 0);
		/* frames up to 1514 bytes; the 68-byte MTU side gets only the short ones */
		if (mtus[cycle] >= 1500) {
			KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 1, seq, 100, 8), 100);
			seq += 100;
		}
		scx_pair_close(p, 1);
		scx_pair_close(p, 0);
		scx_pair_expect_pools_clean(p, 0);
		scx_pair_expect_pools_clean(p, 1);
		/* every MTU takes order-0 pages (9000: 2 KiB fragments of them) */
		KUNIT_EXPECT_EQ(test, p->ch[1][0].order, 0u);
	}
	scx_pair_expect_received(test, p, 1, 0, seq);
	KUNIT_EXPECT_EQ(test, p->ch[1][0].pools_created, (u32)ARRAY_SIZE(mtus));
	/* counters survive every close */
	scx_stats_link(p->port[1], &ls);
	KUNIT_EXPECT_EQ(test, ls.rx_packets, (u64)seq);
	scx_stats_link(p->port[0], &ls);
	KUNIT_EXPECT_EQ(test, ls.tx_packets, (u64)seq);
}

/* Post without doorbells until the SQ asks to stop; then completions make room again. */
static void scx_pair_tx_stop(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct scx_channel *c;
	struct scx_tx_pkt *pkt;
	u32 posted = 0;
	int rc = 0;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 6, 6), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 6, 6), 0);
	c = scx_port_channel(p->port[0], 0);
	KUNIT_ASSERT_NOT_NULL(test, c);
	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);

	KUNIT_EXPECT_TRUE(test, scx_channel_tx_room(c));
	while (posted < 64) {
		KUNIT_ASSERT_EQ(test, scx_kt_tx_build(&p->ch[0][0], posted, 200, posted & 1, pkt), 0);
		rc = scx_channel_xmit(c, pkt);
		if (rc < 0) {
			scx_kt_tx_abort(p->dev, pkt);
			break;
		}
		posted++;
		if (rc == SCX_TX_STOP)
			break;
	}
	/* 64 WQEBBs hold fewer than 64 one- or two-WQEBB packets plus the stop room */
	KUNIT_EXPECT_EQ_MSG(test, rc, SCX_TX_STOP, "no stop after %u packets", posted);
	KUNIT_EXPECT_FALSE(test, scx_channel_tx_room(c));
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), 0ull);

	/* nothing moves before the doorbell; then everything does */
	scx_pair_poll(p, 1);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), 0ull);
	scx_channel_doorbell(c);
	scx_pair_poll(p, 1);
	scx_pair_poll(p, 0);
	KUNIT_EXPECT_TRUE(test, scx_channel_tx_room(c));
	scx_pair_expect_received(test, p, 1, 0, posted);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), (u64)posted);
}

/* Close with WQEs posted but never rung: the core hands every skb back. */
static void scx_pair_close_pending(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct scx_tx_pkt *pkt;
	struct scx_channel *c;
	u32 i;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx5", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 6, 6), 0);
	c = scx_port_channel(p->port[0], 0);
	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);
	for (i = 0; i < 10; i++) {
		KUNIT_ASSERT_EQ(test, scx_kt_tx_build(&p->ch[0][0], i, 100 + i, i & 1, pkt), 0);
		KUNIT_ASSERT_GE(test, scx_channel_xmit(c, pkt), 0);
	}
	scx_pair_close(p, 0);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), 10ull);
	KUNIT_EXPECT_EQ(test, scx_kt_dev_objects(p->fn[0]), 0u);
	scx_pair_expect_pools_clean(p, 0);
}

/* Frames the receiver cannot take are dropped and counted by the device. */
static void scx_pair_rx_drops(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct scx_kt_dev_counters dc;
	struct scx_tx_pkt *pkt;
	struct scx_channel *c;
	u64 delivered;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 9000, 8, 6), 0);
	c = scx_port_channel(p->port[0], 0);
	pkt = kunit_kzalloc(test, sizeof(*pkt), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pkt);

	/* peer down, so is the link: the sender's MAC discards the frames */
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 0, 0, 5, 5), 5);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[0], &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.tx_discards, 5ull);
	KUNIT_EXPECT_EQ(test, dc.tx_packets, 0ull);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[1], &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.rx_if_down_packets, 0ull);
	KUNIT_EXPECT_EQ(test, dc.rx_packets, 0ull);

	/* peer up with a 1500 MTU: a 4000-byte frame does not fit its 4 KiB buffers */
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 6, 5), 0);
	KUNIT_ASSERT_EQ(test, scx_kt_tx_build(&p->ch[0][0], 100, 4000, true, pkt), 0);
	KUNIT_ASSERT_GE(test, scx_channel_xmit(c, pkt), 0);
	scx_channel_doorbell(c);
	scx_pair_poll(p, 1);
	scx_pair_poll(p, 0);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[1], &dc), 0);
	KUNIT_EXPECT_EQ(test, dc.rx_oversize_pkts_buffer, 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_delivered), 0ull);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), 6ull);

	/* 100 frames behind one doorbell into 32 posted buffers: the rest run out of buffer */
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 0, 200, 100, 100), 100);
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[1], &dc), 0);
	delivered = scx_pair_sum(p, 1, rx_delivered);
	KUNIT_EXPECT_GT(test, dc.rx_out_of_buffer, 0ull);
	KUNIT_EXPECT_LE(test, delivered, 32ull);
	KUNIT_EXPECT_EQ(test, delivered + dc.rx_out_of_buffer, 100ull);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 1, rx_bad), 0ull);
	/* and the RQ recovers: refilled by NAPI, the next frames arrive */
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 0, 400, 20, 10), 20);
	scx_pair_expect_received(test, p, 1, 400, 20);

	scx_pair_close(p, 1);
	scx_pair_close(p, 0);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

/*
 * Enhanced multi-packet WQE sessions inside the kernel build: batches of
 * linear frames share WQEs, split frames fall back to SEND, all arrive;
 * a port without sessions posts none.
 */
static void scx_pair_mpwqe(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	const u32 n = 640, back = 100;
	u64 blks, pkts, linear = 0;
	u32 i;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	p->tx_mpwqe[0] = true;
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 8, 9), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 8, 9), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 0, 0, n, 32), (int)n);
	scx_pair_expect_received(test, p, 1, 0, n);
	KUNIT_EXPECT_EQ(test, scx_pair_sum(p, 0, tx_freed), (u64)n);
	blks = scx_pair_stat(test, p->port[0], "tx_mpwqe_blks");
	pkts = scx_pair_stat(test, p->port[0], "tx_mpwqe_pkts");
	/* every linear frame went into a session, every split one (seq % 3 == 1) fell back */
	for (i = 0; i < n; i++)
		linear += i % 3 != 1;
	KUNIT_EXPECT_EQ(test, pkts, linear);
	KUNIT_EXPECT_GT(test, blks, 0ull);
	KUNIT_EXPECT_LT(test, blks, pkts);	/* sessions carried more than one packet */
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_packets"), (u64)n);

	KUNIT_ASSERT_EQ(test, scx_pair_send(p, 1, 0, n, back, 32), (int)back);
	scx_pair_expect_received(test, p, 0, n, back);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[1], "tx_mpwqe_blks"), 0ull);

	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	scx_pair_expect_pools_clean(p, 0);
	scx_pair_expect_pools_clean(p, 1);
}

/* cx4 needs inline headers: it cannot do multi-packet sessions, and says so. */
static void scx_pair_mpwqe_cx4(struct kunit *test)
{
	struct scx_pair *p = test->priv;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx4", 1), 0);
	p->tx_mpwqe[0] = true;
	KUNIT_EXPECT_EQ(test, scx_pair_open(p, 0, 1, 1500, 8, 9), -EOPNOTSUPP);
	p->tx_mpwqe[0] = false;
	KUNIT_EXPECT_EQ(test, scx_pair_open(p, 0, 1, 1500, 8, 9), 0);
	scx_pair_close(p, 0);
}

/* Lines in the kernel log holding both strings. */
static u32 scx_pair_log_count(struct kunit *test, const char *a, const char *b)
{
	struct kmsg_dump_iter iter;
	size_t len;
	char *line;
	u32 n = 0;

	line = kunit_kzalloc(test, 1024, GFP_KERNEL);
	if (!line)
		return 0;
	kmsg_dump_rewind(&iter);
	while (kmsg_dump_get_line(&iter, false, line, 1023, &len)) {
		line[len] = '\0';
		n += strstr(line, a) && strstr(line, b);
	}
	return n;
}

/*
 * The device stopped the stack's SQ without an error CQE; the TX timeout's
 * recovery tries RDY -> ERR first, which the device refuses. That failed
 * command is logged naming the interface, and the SQ recovers anyway.
 */
static void scx_pair_cmd_fail_names_netdev(struct kunit *test)
{
	struct scx_pair *p = test->priv;
	struct scx_channel *c;
	char what[48];
	u32 before;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 1), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 1, 1500, 6, 6), 0);
	KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 1, 1500, 6, 6), 0);
	c = scx_port_channel(p->port[0], 0);
	snprintf(what, sizeof(what), "command 0x%x failed", SCX_KT_CMD_MODIFY_SQ);
	before = scx_pair_log_count(test, p->netdev[0]->name, what);

	KUNIT_ASSERT_EQ(test, scx_kt_chan_sq_stop(p->fn[0], c), SCX_KT_STAT_OK);
	KUNIT_EXPECT_EQ(test, scx_channel_tx_recover(c, 1), 0);
	KUNIT_EXPECT_EQ(test, scx_pair_log_count(test, p->netdev[0]->name, what), before + 1);
	KUNIT_EXPECT_EQ(test, scx_pair_stat(test, p->port[0], "tx_recover"), 1ull);
	KUNIT_EXPECT_EQ(test, scx_pair_send(p, 0, 0, 0, 20, 4), 20);
	scx_pair_expect_received(test, p, 1, 0, 20);
}

static struct kunit_case scx_pair_cases[] = {
	KUNIT_CASE_PARAM(scx_pair_traffic, scx_pair_gen_params),
	KUNIT_CASE(scx_pair_reopen),
	KUNIT_CASE(scx_pair_tx_stop),
	KUNIT_CASE(scx_pair_close_pending),
	KUNIT_CASE(scx_pair_rx_drops),
	KUNIT_CASE(scx_pair_mpwqe),
	KUNIT_CASE(scx_pair_mpwqe_cx4),
	KUNIT_CASE(scx_pair_cmd_fail_names_netdev),
	{}
};

static struct kunit_suite scx_pair_suite = {
	.name = "softcx_pair",
	.init = scx_pair_test_init,
	.exit = scx_pair_test_exit,
	.test_cases = scx_pair_cases,
};

kunit_test_suite(scx_pair_suite);
