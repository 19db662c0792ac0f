// SPDX-License-Identifier: GPL-2.0
/*
 * CQ overrun: a CQE due while the CQ is full (its producer index a ring
 * ahead of the set_ci the driver published). The device writes nothing,
 * the CQ goes to OVERFLOW, cq_overrun counts it and a CQ error event is
 * raised; RX frames for the RQ behind it are dropped (rx_cq_overrun), an
 * SQ whose completion it cannot write stops in ERR. A reset of the queue
 * clears the CQ's error; its producer counter goes on.
 */
#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

class HwCqOverrun : public HwTest {};

const prm::Cqe64 *slot(const Cq &cq, uint32_t ix)
{
	return reinterpret_cast<const prm::Cqe64 *>(cq.ring.cpu + (ix & (cq.size() - 1)) * 64);
}

} /* namespace */

TEST_F(HwCqOverrun, RxNeverOverwritesAnUnreadCqe)
{
	Link l;
	l.setup(fn0, fn1, 6, /*log_rq=*/3, /*log_cq=*/2);
	const uint32_t size = l.rxcq.size();

	for (uint32_t i = 0; i < size; i++) {
		l.send(frames::small((uint8_t)i));
		l.txcq.poll_all();
	}
	/* the CQ is full: the next frame has no room for its CQE */
	l.send(frames::small(9));
	l.txcq.poll_all();
	for (uint32_t i = 0; i < size; i++) {
		EXPECT_EQ(slot(l.rxcq, i)->owner(), 0) << "slot " << i << " written again";
		EXPECT_EQ(slot(l.rxcq, i)->wqe_counter.get(), i) << "slot " << i << " overwritten";
	}
	prm::QueryQCounterOut q = query_q(fn1);
	EXPECT_EQ(q.rx_cq_overrun.get(), 1u);
	EXPECT_EQ(q.cq_overrun.get(), 1u);
	std::vector<host::CqError> ev = host::cq_errors();
	ASSERT_EQ(ev.size(), 1u);
	EXPECT_EQ(ev[0].cqn, l.rxcq.cqn);
	EXPECT_EQ(ev[0].irq_ctx, &irq1);
	EXPECT_EQ(ev[0].syndrome, prm::kCqErrSyndOverrun);
	prm::QueryCqOut c = query_cq(fn1, l.rxcq.cqn);
	EXPECT_EQ(c.status, prm::kCqStatusOverflow);
	EXPECT_EQ(c.producer_counter.get(), size);

	/* consumed now, but the CQ stays stopped until its RQ is reset: dropped, counted */
	EXPECT_EQ(l.rxcq.poll_all().size(), size);
	l.send(frames::small(10));
	l.txcq.poll_all();
	EXPECT_EQ(l.rxcq.peek(), nullptr);
	q = query_q(fn1);
	EXPECT_EQ(q.rx_cq_overrun.get(), 2u);
	EXPECT_EQ(q.cq_overrun.get(), 1u) << "one overrun, one event";
	EXPECT_EQ(host::cq_errors().size(), 1u);
	EXPECT_EQ(q.rx_out_of_buffer.get(), 0u) << "no WQE was taken for a dropped frame";

	/* the RQ's reset clears the CQ's error; the CQ goes on where it was */
	ASSERT_EQ(l.rq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
	EXPECT_EQ(query_cq(fn1, l.rxcq.cqn).status, prm::kCqStatusOk);
	ASSERT_EQ(l.rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	l.rq.post(l.rq.size());
	l.send(frames::small(11));
	l.txcq.poll_all();
	prm::Cqe64 cqe;
	ASSERT_TRUE(l.rxcq.poll(&cqe));
	EXPECT_EQ(cqe.opcode(), prm::kCqeRespSend);
	EXPECT_EQ(cqe.wqe_counter.get(), 0u) << "the RQ restarted at WQE 0";
	EXPECT_EQ(query_cq(fn1, l.rxcq.cqn).producer_counter.get(), size + 1);
}

TEST_F(HwCqOverrun, TxStopsTheSqInErr)
{
	Link l;
	l.setup(fn0, fn1, 6, 6, /*log_cq=*/2);
	const uint32_t size = l.txcq.size();

	for (uint32_t i = 0; i < size; i++)
		l.send(frames::small((uint8_t)i));
	EXPECT_EQ(l.rxcq.poll_all().size(), size);
	/* sent, but its completion has no room: the SQ stops there */
	l.send(frames::small(9));
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
	l.send(frames::small(10));
	EXPECT_EQ(l.rxcq.poll_all().size(), 0u) << "an SQ in ERR runs no WQE";
	for (uint32_t i = 0; i < size; i++)
		EXPECT_EQ(slot(l.txcq, i)->wqe_counter.get(), i) << "slot " << i << " overwritten";
	EXPECT_EQ(query_q(fn0).cq_overrun.get(), 1u);
	EXPECT_EQ(query_q(fn0).rx_cq_overrun.get(), 0u);
	ASSERT_EQ(host::cq_errors().size(), 1u);
	EXPECT_EQ(host::cq_errors()[0].cqn, l.txcq.cqn);
	EXPECT_EQ(l.sq.modify(prm::kQueueRdy, prm::kQueueErr), prm::kStatBadResState)
		<< "already in ERR";
	ASSERT_EQ(l.sq.modify(prm::kQueueErr, prm::kQueueRst), prm::kStatOk);
	EXPECT_EQ(query_cq(fn0, l.txcq.cqn).status, prm::kCqStatusOk);
}
