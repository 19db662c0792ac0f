// SPDX-License-Identifier: GPL-2.0
/*
 * A queue's recovery leaves its CQ consistent with the device (issue 10
 * follow-ups): a forced TX recovery after a CQE the driver cannot see,
 * and CQ overruns (the device detects them, stops writing, reports them;
 * the driver recovers the queue and traffic resumes).
 */
#include <cstring>

#include "en/channel.h"
#include "en_pair.h"

using namespace enpair;

namespace {

/* The driver's next CQE slot loses its owner bit (a lie of the device, a lost DMA write). */
void hide_next_cqe(softcx::en::Cq *cq)
{
	cq->cqes[cq->cc & cq->mask].op_own ^= 1;
}

} /* namespace */

/*
 * The TX watchdog's forced recovery after a CQE the driver never saw: the
 * device wrote the CQE and moved on, the driver's consumer counter stayed
 * at it. Before the fix, the SQ was reset but the CQ was not, so the
 * driver waited at a slot the device had passed: nothing completed again.
 */
TEST_F(Pair, ForcedTxRecoveryAfterAHiddenCqeCompletesAgain)
{
	ASSERT_EQ(send(0, udp_frame(60, 1)), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);
	hide_next_cqe(&ch(0)->sq.cq);
	poll(0);
	EXPECT_EQ(stat(0, "tx_packets"), 0u) << "the completion is hidden";
	for (int i = 0; i < 3; i++)
		ASSERT_EQ(send(0, udp_frame(60, (uint16_t)(2 + i))), 0);
	poll(1);
	poll(0);
	EXPECT_EQ(stat(0, "tx_packets"), 0u) << "stuck behind the hidden CQE";

	EXPECT_EQ(scx_channel_tx_recover(ch(0), 1), 0) << "the watchdog forces it";
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 4u);
	EXPECT_TRUE(scx_channel_tx_room(ch(0)));

	/* more than a CQ's worth, so a wrap would show too */
	uint32_t n = 2u << opt.log_sq;
	for (uint32_t i = 0; i < n; i++) {
		ASSERT_GE(send(0, udp_frame(60, (uint16_t)(10 + i))), 0);
		poll(1);
		poll(0);
	}
	EXPECT_EQ(rx(1).size(), 4u + n);
	EXPECT_EQ(stat(0, "tx_packets") + stat(0, "tx_flushed"), 4u + n);
	EXPECT_GE(stat(0, "tx_packets"), n) << "every packet after the recovery completes";
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), 4u + n);
}

/*
 * An RX CQ overrun (a driver that stopped publishing set_ci): the device
 * drops the frames it cannot complete and counts them, raises one CQ error
 * event; the driver finds the CQ with QUERY_CQ, recovers the RQ (its CQ
 * meets the device's producer counter again) and traffic resumes. Every
 * frame sent is received or in a named drop counter.
 */
TEST_F(Pair, RxCqOverrunRecoversTheRq)
{
	Options o;
	o.log_rq = 4;
	build(o);
	const uint32_t ring = 1u << o.log_rq;

	ASSERT_EQ(send(0, udp_frame(100, 1)), 0);
	poll(1);
	ASSERT_EQ(rx(1).size(), 1u);

	scx_channel_inject_rx_cq_overrun(ch(1));
	/* a ring of frames fits the CQ the device believes unread; the next two do not */
	for (uint32_t i = 0; i < ring + 2; i++) {
		ASSERT_GE(send(0, udp_frame(100, (uint16_t)(10 + i))), 0);
		poll(1);
		poll(0);
	}
	EXPECT_EQ(rx(1).size(), 1u + ring);
	scx_stats_refresh(p[1].port);
	EXPECT_EQ(stat(1, "cq_overrun"), 1u);
	EXPECT_EQ(stat(1, "rx_cq_overrun"), 2u);
	std::vector<host::CqError> ev = host::cq_errors();
	ASSERT_EQ(ev.size(), 1u);
	EXPECT_EQ(ev[0].cqn, ch(1)->rq.cq.cqn);
	EXPECT_EQ(ev[0].vector, 0u);

	/* what the shim's NAPI does on the event: the RQ, not the stack's SQ */
	EXPECT_EQ(scx_channel_cq_error(ch(0)), 0) << "not this channel's";
	EXPECT_EQ(scx_channel_cq_error(ch(1)), 0) << "an RQ's CQ: no TX recovery";
	poll(1);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	EXPECT_EQ(scx_channel_cq_error(ch(1)), 0) << "nothing left in error";

	for (uint32_t i = 0; i < 3 * ring; i++) {
		ASSERT_GE(send(0, udp_frame(100 + i % 7, (uint16_t)(100 + i))), 0);
		poll(1);
		poll(0);
	}
	EXPECT_EQ(rx(1).size(), 1u + ring + 3 * ring) << "the RQ works again, across laps";
	scx_stats_refresh(p[1].port);
	EXPECT_EQ(stat(1, "cq_overrun"), 1u);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	const uint64_t sent = 1 + ring + 2 + 3 * ring;
	EXPECT_EQ(stat(0, "tx_packets"), sent);
	EXPECT_EQ(stat(1, "rx_packets") + stat(1, "rx_cq_overrun") + stat(1, "rx_flushed"), sent);
	scx_link_stats ls;
	scx_stats_link(p[1].port, &ls);
	EXPECT_EQ(ls.rx_dropped, 2u);
}

/*
 * A TX CQ overrun: the device stops the SQ in ERR; the event makes the
 * driver recover it like after an error CQE (stop, scx_channel_tx_recover),
 * and the packets the device sent but could not complete are counted.
 */
TEST_F(Pair, TxCqOverrunRecoversTheSq)
{
	ASSERT_EQ(send(0, udp_frame(60, 1)), 0);
	poll(1);
	poll(0);
	softcx::en::Cq *cq = &ch(0)->sq.cq;
	cq->ci_frozen = true;	/* set_ci stays: the device sees a full CQ a ring later */
	uint32_t n = cq->mask + 2;
	uint32_t posted = 1;
	for (uint32_t i = 0; i < n; i++) {
		if (send(0, udp_frame(60, (uint16_t)(2 + i))) < 0)
			break;
		posted++;
		poll(1);
		poll(0);
	}
	ASSERT_EQ(host::cq_errors().size(), 1u);
	EXPECT_EQ(host::cq_errors()[0].cqn, cq->cqn);
	EXPECT_EQ(scx_channel_cq_error(ch(0)), 1) << "the stack's SQ: stop it, recover it";
	EXPECT_FALSE(scx_channel_tx_room(ch(0)));
	EXPECT_EQ(scx_channel_tx_recover(ch(0), 0), 0);
	EXPECT_TRUE(scx_channel_tx_room(ch(0)));
	EXPECT_EQ(stat(0, "tx_recover"), 1u);
	for (uint32_t i = 0; i < 2 * n; i++) {
		ASSERT_EQ(send(0, udp_frame(60, (uint16_t)(500 + i))), 0);
		posted++;
		poll(1);
		poll(0);
	}
	EXPECT_EQ(stat(0, "tx_packets") + stat(0, "tx_flushed"), posted);
	EXPECT_GE(stat(0, "tx_packets"), 2 * n) << "every packet after the recovery completes";
	EXPECT_EQ(host::tx_freed(&p[0].os_ch[0]).size(), posted);
	EXPECT_EQ(host::dma_tx_mappings(), 0u);
}
