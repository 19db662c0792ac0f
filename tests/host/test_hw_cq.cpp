// SPDX-License-Identifier: GPL-2.0
/* CQE ownership by lap parity, and the interrupt-once-per-arm handshake. */
#include <thread>

#include "frames.h"
#include "hw_harness.h"
#include "hw/cq.h"

using namespace hwt;

namespace {

class HwCq : public HwTest {};

frames::Bytes small_frame(uint8_t seed)
{
	frames::Spec s;
	s.payload = frames::payload(10 + seed % 7, seed);
	return frames::build(s);
}

TEST_F(HwCq, OwnershipAcrossLaps)
{
	Link l;
	l.setup(fn0, fn1, 6, /*log_rq=*/2, /*log_cq=*/2);
	const uint32_t size = l.rxcq.size();
	uint8_t seed = 0;
	for (uint32_t n = 0; n < 6 * size;) {
		/* 1, 2 or 3 frames per batch so batches straddle lap boundaries */
		uint32_t batch = 1 + n % 3;
		for (uint32_t i = 0; i < batch; i++)
			l.send(small_frame(seed++), 0, 0, false);
		for (uint32_t i = 0; i < batch; i++, n++) {
			const prm::Cqe64 *c = l.rxcq.peek();
			ASSERT_NE(c, nullptr) << "CQE " << n;
			EXPECT_EQ(c->owner(), (n / size) & 1) << "owner bit is the lap parity";
			EXPECT_EQ(c->opcode(), prm::kCqeRespSend);
			EXPECT_EQ(c->wqe_counter.get(), n & 0xffff);
			prm::Cqe64 out;
			ASSERT_TRUE(l.rxcq.poll(&out));
		}
		EXPECT_EQ(l.rxcq.peek(), nullptr) << "no CQE beyond the producer after " << n;
		l.rq.post(batch);
	}
	/* raw ring view: every slot carries the owner of its last write */
	for (uint32_t i = 0; i < size; i++) {
		uint8_t op_own = l.rxcq.ring.cpu[i * 64 + 63];
		EXPECT_EQ(op_own & 1, ((6 * size - size + i) / size) & 1);
		EXPECT_EQ(op_own >> 4, prm::kCqeRespSend);
	}
}

/*
 * A CQE the device builds in its slot (cq_open_slot: the RX and TX
 * engines' CQEs on a CQ without compression) leaves op_own, the byte the
 * driver checks first, as the previous lap left it until cq_post_open
 * seals it: a half-written slot is never the driver's, at any lap. The
 * slot's other bytes start from zero whatever the last lap left there.
 */
TEST_F(HwCq, SlotBuiltInPlaceIsNotTheDriversUntilPosted)
{
	Link l;
	l.setup(fn0, fn1, 6, /*log_rq=*/2, /*log_cq=*/2);
	int ix = softcx::hw::obj_slot(l.rxcq.cqn, softcx::hw::ObjType::Cq, softcx::hw::kMaxCqs);
	ASSERT_GE(ix, 0);
	softcx::hw::Cq *cq = &fn1->cq[ix];
	ASSERT_TRUE(cq->in_place) << "a CQ without compression takes CQEs in place";
	const uint32_t size = l.rxcq.size();
	for (uint32_t n = 0; n < 3 * size; n++) {
		uint8_t *slot = l.rxcq.ring.cpu + (n & (size - 1)) * prm::kCqeSize;
		uint8_t op_own = slot[prm::kCqeSize - 1];
		memset(slot, 0xa5, prm::kCqeSize - 1);	/* what an earlier CQE may have left */
		prm::Cqe64 *c = softcx::hw::cq_open_slot(cq);
		ASSERT_EQ(reinterpret_cast<uint8_t *>(c), slot) << "CQE " << n;
		EXPECT_EQ(slot[prm::kCqeSize - 1], op_own) << "opening CQE " << n << " touched op_own";
		EXPECT_EQ(l.rxcq.peek(), nullptr) << "CQE " << n << " is the driver's while written";
		c->wqe_counter.set((uint16_t)n);
		c->byte_cnt.set(60 + n);
		EXPECT_EQ(l.rxcq.peek(), nullptr) << "CQE " << n << " is the driver's while written";

		softcx::hw::IrqBatch irqs;
		softcx::hw::irq_batch_init(&irqs);
		softcx::hw::cq_post_open(fn1, cq, prm::kCqeRespSend, &irqs);
		softcx::hw::irq_batch_flush(&irqs);
		prm::Cqe64 out;
		ASSERT_TRUE(l.rxcq.poll(&out)) << "CQE " << n << " posted";
		EXPECT_EQ(out.opcode(), prm::kCqeRespSend);
		EXPECT_EQ(out.owner(), (n / size) & 1);
		EXPECT_EQ(out.wqe_counter.get(), (uint16_t)n);
		EXPECT_EQ(out.byte_cnt.get(), 60 + n);
		EXPECT_EQ(out.rss_hash_result.get(), 0u) << "CQE " << n << " starts from zero";
		EXPECT_EQ(out.check_sum.get(), 0u) << "CQE " << n << " starts from zero";
		EXPECT_EQ(l.rxcq.peek(), nullptr) << "one CQE for one post";
	}
}

TEST_F(HwCq, InterruptOncePerArm)
{
	Link l;
	l.setup(fn0, fn1);	/* RX CQ on fn1 has vector 2, TX CQ on fn0 vector 1 */
	auto rx_irqs = [&] { return host::irq_count(&irq1, 2); };

	l.send(small_frame(1));
	EXPECT_EQ(rx_irqs(), 0u) << "never armed";
	l.rxcq.poll_all();

	l.rxcq.arm();
	EXPECT_EQ(rx_irqs(), 0u) << "armed with nothing new";
	l.rxcq.arm();	/* arming twice is still one arm */
	for (int i = 0; i < 3; i++)
		l.send(small_frame((uint8_t)i));
	EXPECT_EQ(rx_irqs(), 1u);
	l.send(small_frame(9));
	EXPECT_EQ(rx_irqs(), 1u) << "disarmed until the next arm";

	/* arm without polling: CQEs are already there, so the interrupt fires at once */
	l.rxcq.arm();
	EXPECT_EQ(rx_irqs(), 2u);
	l.send(small_frame(10));
	EXPECT_EQ(rx_irqs(), 2u);

	/* the usual NAPI cycle: poll everything, arm, next CQE interrupts */
	EXPECT_EQ(l.rxcq.poll_all().size(), 5u);
	l.rxcq.arm();
	EXPECT_EQ(rx_irqs(), 2u);
	l.send(small_frame(11));
	EXPECT_EQ(rx_irqs(), 3u);

	/* TX CQ: vector 1 on fn0's irq context */
	EXPECT_EQ(host::irq_count(&irq0, 1), 0u);
	l.txcq.poll_all();
	l.txcq.arm();
	l.send(small_frame(12));
	EXPECT_EQ(host::irq_count(&irq0, 1), 1u);
	EXPECT_EQ(host::irq_total(), 4u);
}

TEST_F(HwCq, ArmOfUnknownCqIsIgnored)
{
	Link l;
	l.setup(fn0, fn1);
	l.send(small_frame(1));
	/* the right cqn on the wrong function, and garbage numbers */
	for (uint32_t cqn : { l.rxcq.cqn + 1, 0u, 0xffffffffu }) {
		prm::be32 w[2];
		w[0].set(0);
		w[1].set(cqn);
		uint64_t v;
		memcpy(&v, w, 8);
		bus::mmio_write64(fn1, prm::kUarCqDoorbell, v);
	}
	EXPECT_EQ(host::irq_total(), 0u);
	bus::mmio_write64(fn1, 0x1234, 0);	/* unknown BAR offset */
	bus::mmio_write64(nullptr, prm::kUarCqDoorbell, 0);
	/* a destroyed CQ's number stays dead */
	Cq c;
	ASSERT_EQ(c.create(fn1, 2, 7), prm::kStatOk);
	ASSERT_EQ(c.destroy(), prm::kStatOk);
	c.arm();
	EXPECT_EQ(host::irq_total(), 0u);
	l.rxcq.arm();
	EXPECT_EQ(host::irq_count(&irq1, 2), 1u);
}

TEST_F(HwCq, NoIrqContextNoInterrupt)
{
	Link l;
	l.setup(fn0, fn1);
	scx_hw_set_irq_ctx(fn1, nullptr);
	l.rxcq.arm();
	l.send(small_frame(1));
	EXPECT_EQ(host::irq_total(), 0u);
	EXPECT_EQ(l.rxcq.poll_all().size(), 1u);
}

/*
 * Interrupts are raised with no device lock held: a handler may run the
 * NAPI cycle and transmit on the peer's SQ right away (ping-pong). Raising
 * under the TX engine's SQ lock would nest SQ locks, which the host lock
 * checker reports.
 */
TEST_F(HwCq, IrqHandlerMayCallBackIntoTheDevice)
{
	Link ab, ba;
	ab.setup(fn0, fn1);
	ba.setup(fn1, fn0);
	int pongs = 0, pings = 0;
	host::set_irq_hook([&](void *ctx, uint32_t vec) {
		if (vec != 2)
			return;
		if (ctx == &irq1) {	/* fn1 got a ping: answer */
			pings += (int)ab.rxcq.poll_all().size();
			ab.rxcq.arm();
			if (pings < 20)
				ba.send(small_frame((uint8_t)pings));
		} else if (ctx == &irq0) {	/* fn0 got the pong: ping again */
			pongs += (int)ba.rxcq.poll_all().size();
			ba.rxcq.arm();
			ab.send(small_frame((uint8_t)pongs));
		}
	});
	ab.rxcq.arm();
	ba.rxcq.arm();
	ab.send(small_frame(0));
	EXPECT_EQ(pings, 20);
	EXPECT_EQ(pongs, 19);
	host::set_irq_hook(nullptr);
}

/*
 * The arm / CQE-write race: a producer thread transmits while a NAPI-like
 * thread waits for the interrupt, polls, re-arms. A lost interrupt leaves
 * the consumer waiting with CQEs pending, which the timeout catches.
 */
TEST_F(HwCq, NoInterruptIsLostUnderConcurrency)
{
	const uint32_t kFrames = 4000;
	Cq txcq, rxcq;
	Sq sq;
	Rq rq;
	ASSERT_EQ(txcq.create(fn0, 13, 1), prm::kStatOk);
	ASSERT_EQ(sq.create(fn0, txcq.cqn, 12), prm::kStatOk);
	ASSERT_EQ(sq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	ASSERT_EQ(rxcq.create(fn1, 13, 2), prm::kStatOk);
	ASSERT_EQ(rq.create(fn1, rxcq.cqn, 13, 128), prm::kStatOk);
	ASSERT_EQ(rq.modify(prm::kQueueRst, prm::kQueueRdy), prm::kStatOk);
	rq.post(rq.size());
	uint32_t rss;
	ASSERT_EQ(rss_cmd(fn1, prm::kCmdCreateRss, 0, { rq.rqn }, kFields4, kMsKey, &rss),
		  prm::kStatOk);

	frames::Bytes f = small_frame(3);
	std::thread producer([&] {
		for (uint32_t i = 0; i < kFrames; i++) {
			SendWqe w;
			Seg s;
			s.inl = true;
			s.data = f;
			w.segs.push_back(s);
			w.ce = (i % 64) == 63;
			sq.pad_for(3);
			sq.post(w);
			sq.doorbell();
			if (w.ce)
				txcq.poll_all();	/* the TX CQ has room for all, but keep it tidy */
			if (i % 97 == 0)
				std::this_thread::yield();
		}
	});

	NapiRun r = napi_until(rxcq, &irq1, 2, kFrames);
	producer.join();
	EXPECT_FALSE(r.lost) << "interrupt lost after " << r.got << " CQEs";
	EXPECT_EQ(r.got, kFrames);
	EXPECT_LE(host::irq_count(&irq1, 2), r.arms) << "at most one interrupt per arm";
	EXPECT_EQ(query_q(fn1).rx_out_of_buffer.get(), 0u);
}

} /* namespace */
