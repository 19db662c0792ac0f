// SPDX-License-Identifier: GPL-2.0
/*
 * Commands racing the data path. The ring memory of a destroyed queue is
 * freed right after DESTROY returns: if an engine still touched it, ASan
 * reports a use-after-free.
 */
#include <atomic>
#include <thread>

#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

class HwConcurrency : public HwTest {};

frames::Bytes frame_for(uint16_t sport)
{
	frames::Spec s;
	s.proto = 17;
	s.sport = sport;
	s.payload = frames::payload(40, (uint8_t)sport);
	return frames::build(s);
}

/* A sender thread that rings doorbells until told to stop. */
struct Sender {
	Sq *sq;
	std::atomic<bool> stop{ false };
	std::atomic<uint32_t> sent{ 0 };
	std::thread t;

	void start()
	{
		t = std::thread([this] {
			uint16_t sport = 1;
			while (!stop.load()) {
				SendWqe w;
				Seg s;
				s.inl = true;
				s.data = frame_for(sport++);
				w.segs.push_back(s);
				sq->pad_for(3);
				sq->post(w);
				sq->doorbell();
				sent++;
			}
		});
	}
	void finish()
	{
		stop = true;
		t.join();
	}
};

TEST_F(HwConcurrency, DestroyRqUnderTraffic)
{
	Cq txcq;
	Sq sq;
	ASSERT_EQ(txcq.create(fn0, 10, 0), prm::kStatOk);
	ASSERT_EQ(sq.create(fn0, txcq.cqn, 10), prm::kStatOk);
	ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);

	Sender s{ &sq };
	s.start();
	for (int round = 0; round < 30; round++) {
		auto cq = std::make_unique<Cq>();
		auto rq = std::make_unique<Rq>();
		ASSERT_EQ(cq->create(fn1, 8, 0), prm::kStatOk);
		ASSERT_EQ(rq->create(fn1, cq->cqn, 8, 128), prm::kStatOk);
		ASSERT_EQ(rq->modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		rq->post(rq->size());
		uint32_t rss;
		ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq->rqn }, kFields4, kMsKey, &rss),
			  prm::kStatOk);
		uint32_t before = s.sent.load();
		while (s.sent.load() < before + 20)
			std::this_thread::yield();
		/* RQ first (the table still names it), then free everything at once */
		ASSERT_EQ(rq->destroy(), prm::kStatOk);
		ASSERT_EQ(cq->destroy(), prm::kStatOk);
		rq.reset();	/* ring, dbrec and buffers go back to the OS now */
		cq.reset();
		ASSERT_EQ(destroy(fn1, prm::kCmdDestroyRss, rss), prm::kStatOk);
	}
	s.finish();
	prm::QueryQCounterOut q = query_q(fn1);
	EXPECT_GT(q.rx_if_down_packets.get(), 0u) << "some frames met a destroyed RQ";
}

/*
 * A thread keeps ringing an SQ's doorbell (touching no memory itself) while
 * the SQ is destroyed and its ring and doorbell record are freed at once.
 */
TEST_F(HwConcurrency, DestroySqWhileDoorbellsKeepComing)
{
	Link l;
	l.setup(fn0, fn1, 6, 8, 10);
	for (int round = 0; round < 50; round++) {
		auto cq = std::make_unique<Cq>();
		auto sq = std::make_unique<Sq>();
		ASSERT_EQ(cq->create(fn0, 8, 0), prm::kStatOk);
		ASSERT_EQ(sq->create(fn0, cq->cqn, 8), prm::kStatOk);
		ASSERT_EQ(sq->modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		sq->post_nop(1, true);
		uint64_t ctrl8;
		memcpy(&ctrl8, sq->ring.cpu, 8);

		std::atomic<bool> stop{ false };
		std::atomic<uint32_t> rung{ 0 };
		std::thread bell([&] {
			while (!stop.load()) {
				bus::mmio_write64(fn0, prm::kUarSqDoorbell, ctrl8);
				rung++;
			}
		});
		for (int i = 0; i < 5; i++) {
			sq->post_nop(1, i == 4);
			sq->doorbell();
		}
		while (rung.load() < 10)
			std::this_thread::yield();
		ASSERT_EQ(sq->destroy(), prm::kStatOk);
		sq.reset();	/* ring and dbrec freed while doorbells still arrive */
		uint32_t after = rung.load();
		while (rung.load() < after + 10)
			std::this_thread::yield();
		stop = true;
		bell.join();
		EXPECT_GE(cq->poll_all().size(), 1u);
		ASSERT_EQ(cq->destroy(), prm::kStatOk);
	}
}

/* Flip the RSS table between two RQs under traffic: every frame lands on exactly one. */
TEST_F(HwConcurrency, ModifyRssUnderTraffic)
{
	Cq txcq, cqa, cqb;
	Sq sq;
	Rq a, b;
	ASSERT_EQ(txcq.create(fn0, 10, 0), prm::kStatOk);
	ASSERT_EQ(sq.create(fn0, txcq.cqn, 10), prm::kStatOk);
	ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	Cq *cqs[2] = { &cqa, &cqb };
	Rq *rqs[2] = { &a, &b };
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(cqs[i]->create(fn1, 13, 0), prm::kStatOk);
		ASSERT_EQ(rqs[i]->create(fn1, cqs[i]->cqn, 13, 128), prm::kStatOk);
		ASSERT_EQ(rqs[i]->modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
		rqs[i]->post(rqs[i]->size());
	}
	uint32_t rss;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { a.rqn, b.rqn }, kFields4, kMsKey, &rss),
		  prm::kStatOk);
	Sender s{ &sq };
	s.start();
	uint8_t key[40];
	for (int i = 0; s.sent.load() < 3000; i++) {
		for (int k = 0; k < 40; k++)
			key[k] = (uint8_t)(i * 7 + k);
		std::vector<uint32_t> t = i % 3 ? std::vector<uint32_t>{ b.rqn, a.rqn, a.rqn, b.rqn } :
						  std::vector<uint32_t>{ a.rqn };
		ASSERT_EQ(rss_cmd(fn1, prm::kCmdModifyRss, rss, t, i % 2 ? kFields4 : kFields2, key,
				  nullptr),
			  prm::kStatOk);
	}
	s.finish();
	size_t got = cqa.poll_all().size() + cqb.poll_all().size();
	prm::QueryQCounterOut q = query_q(fn1);
	EXPECT_EQ(got + q.rx_out_of_buffer.get(), s.sent.load());
	EXPECT_EQ(q.rx_if_down_packets.get(), 0u);
}

} /* namespace */
