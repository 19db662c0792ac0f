// SPDX-License-Identifier: GPL-2.0
/*
 * CQ moderation in the device: the count threshold, the period timer (on
 * the host layer's fake clock) from the last event or from the last CQE,
 * MODIFY_CQ on an armed CQ, and the arm handshake under moderation.
 */
#include <atomic>
#include <thread>

#include "frames.h"
#include "hw_harness.h"

using namespace hwt;

namespace {

constexpr uint64_t kUs = 1000;
constexpr uint32_t kAll = prm::kCqModifyPeriod | prm::kCqModifyCount | prm::kCqModifyPeriodMode;

class HwModer : public HwTest {
protected:
	Link l;
	uint8_t seed = 0;

	void SetUp() override
	{
		HwTest::SetUp();
		l.setup(fn0, fn1);	/* RX CQ: fn1, vector 2 */
	}
	void TearDown() override
	{
		l.teardown();
		HwTest::TearDown();
	}
	uint64_t irqs() { return host::irq_count(&irq1, 2); }
	uint64_t bus_interrupts()
	{
		prm::CmdIn in;
		set_op(&in, prm::kCmdQueryBusCounters);
		prm::QueryBusCountersOut out;
		EXPECT_EQ(exec(fn1, in, &out), prm::kStatOk);
		return out.interrupts.get();
	}
	void send(int n = 1)
	{
		for (int i = 0; i < n; i++) {
			frames::Spec s;
			s.payload = frames::payload(20, seed);
			l.send(frames::build(s));
			seed++;
		}
	}
	/* The NAPI cycle: consume everything, post the buffers back, arm. */
	void poll_arm()
	{
		uint32_t n = (uint32_t)l.rxcq.poll_all().size();
		if (n)
			l.rq.post(n);
		l.txcq.poll_all();
		l.rxcq.arm();
	}
	void moder(uint32_t period, uint32_t count, uint8_t mode)
	{
		ASSERT_EQ(l.rxcq.modify(kAll, period, count, mode), prm::kStatOk);
	}
	/* Each test's start: moderation set, the CQ armed, n frames in; the interrupts so far. */
	uint64_t armed_send(uint32_t period, uint32_t count, uint8_t mode, int n)
	{
		moder(period, count, mode);
		poll_arm();
		send(n);
		return irqs();
	}
};

TEST_F(HwModer, CapsAdvertiseModeration)
{
	prm::HcaCaps c = query_caps(fn0);
	EXPECT_EQ(c.cq_moderation, 1);
	EXPECT_EQ(c.cq_period_start_from_cqe, 1);
}

TEST_F(HwModer, CountThreshold)
{
	EXPECT_EQ(armed_send(1000, 4, prm::kCqPeriodFromCqe, 3), 0u) << "3 of 4 CQEs, period not over";
	send(1);
	EXPECT_EQ(irqs(), 1u) << "the 4th CQE signals";
	send(10);
	EXPECT_EQ(irqs(), 1u) << "one event per arm";
	EXPECT_EQ(host::timers_queued(), 1u) << "the timer is left to find nothing to do";
	host::clock_advance(2000 * kUs);
	EXPECT_EQ(irqs(), 1u);
	EXPECT_EQ(bus_interrupts(), 1u);

	/* arming with 10 unseen CQEs (>= count): at once, as without moderation */
	l.rxcq.arm();
	EXPECT_EQ(irqs(), 2u);
}

TEST_F(HwModer, CountZeroIsPeriodOnly)
{
	EXPECT_EQ(armed_send(50, 0, prm::kCqPeriodFromCqe, 50), 0u);
	host::clock_advance(50 * kUs);
	EXPECT_EQ(irqs(), 1u);
}

TEST_F(HwModer, ZeroPeriodOrCountOneIsImmediate)
{
	EXPECT_EQ(armed_send(0, 32, prm::kCqPeriodFromCqe, 1), 1u) << "period 0";
	EXPECT_EQ(armed_send(100, 1, prm::kCqPeriodFromEqe, 1), 2u) << "count 1";
	EXPECT_EQ(host::timers_queued(), 0u);
}

TEST_F(HwModer, PeriodFromCqeRestartsAtEachCqe)
{
	armed_send(10, 0, prm::kCqPeriodFromCqe, 1);
	host::clock_advance(6 * kUs);
	send(1);
	host::clock_advance(6 * kUs);
	EXPECT_EQ(irqs(), 0u) << "12 us after the first CQE, 6 after the last";
	host::clock_advance(3 * kUs);
	EXPECT_EQ(irqs(), 0u);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 1u) << "10 us after the last CQE";

	/* an unarmed CQ starts no timer */
	send(1);
	host::clock_advance(100 * kUs);
	EXPECT_EQ(irqs(), 1u);
	EXPECT_EQ(host::timers_queued(), 0u);
}

TEST_F(HwModer, PeriodFromEqe)
{
	EXPECT_EQ(armed_send(10, 0, prm::kCqPeriodFromEqe, 1), 1u)
		<< "no event in the last period: at once";
	poll_arm();
	host::clock_advance(2 * kUs);
	send(1);
	EXPECT_EQ(irqs(), 1u) << "2 us after the last event";
	host::clock_advance(4 * kUs);
	send(1);	/* does not move the deadline */
	host::clock_advance(3 * kUs);
	EXPECT_EQ(irqs(), 1u);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 2u) << "10 us after the last event";

	/* idle longer than the period: the next CQE signals at once */
	poll_arm();
	host::clock_advance(50 * kUs);
	send(1);
	EXPECT_EQ(irqs(), 3u);
}

TEST_F(HwModer, ModifyWhileArmed)
{
	EXPECT_EQ(armed_send(1000, 8, prm::kCqPeriodFromCqe, 3), 0u);
	/* the count alone, down to what is pending: due right away */
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyCount, 0, 3, 0), prm::kStatOk);
	EXPECT_EQ(irqs(), 1u);

	poll_arm();
	send(1);
	/* a shorter period takes over the timer started for the long one */
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyPeriod, 20, 0, 0), prm::kStatOk);
	host::clock_advance(19 * kUs);
	EXPECT_EQ(irqs(), 1u);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 2u);

	/* period 0 while CQEs wait: the event comes with the command */
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyPeriod, 1000, 0, 0), prm::kStatOk);
	poll_arm();
	send(2);
	EXPECT_EQ(irqs(), 2u);
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyPeriod, 0, 0, 0), prm::kStatOk);
	EXPECT_EQ(irqs(), 3u);
	host::clock_advance(2000 * kUs);
	EXPECT_EQ(irqs(), 3u);

	/* and the mode: from the last event, the command's 2 ms ago */
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyPeriod | prm::kCqModifyPeriodMode, 10, 0,
				prm::kCqPeriodFromEqe), prm::kStatOk);
	poll_arm();
	send(1);
	EXPECT_EQ(irqs(), 4u) << "no event in the last period: at once";
	poll_arm();
	send(1);
	EXPECT_EQ(irqs(), 4u) << "an event 0 us ago";
	host::clock_advance(10 * kUs);
	EXPECT_EQ(irqs(), 5u);
}

/*
 * From CQE, with frames closer than the period: the timer finds the
 * deadline moved on and re-arms itself for it, without a start call; a
 * MODIFY_CQ then takes the re-armed timer over.
 */
TEST_F(HwModer, TimerReArmsItselfWhenCqesMoveTheDeadline)
{
	EXPECT_EQ(armed_send(20, 64, prm::kCqPeriodFromCqe, 1), 0u);
	uint64_t starts = host::timer_starts();
	host::clock_advance(15 * kUs);
	send(1);	/* due 35 us from the start now */
	EXPECT_EQ(host::timer_starts(), starts) << "the queued timer re-reads the deadline";
	host::clock_advance(5 * kUs);
	EXPECT_EQ(irqs(), 0u);
	EXPECT_EQ(host::timers_queued(), 1u) << "re-armed for the new deadline";
	EXPECT_EQ(host::timer_starts(), starts) << "by the callback, not by a start";
	host::clock_advance(14 * kUs);
	EXPECT_EQ(irqs(), 0u);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 1u) << "20 us after the last CQE";
	EXPECT_EQ(host::timers_queued(), 0u);

	/* a shorter period takes over a timer the callback re-armed */
	poll_arm();
	send(1);
	host::clock_advance(15 * kUs);
	send(1);
	host::clock_advance(5 * kUs);
	ASSERT_EQ(host::timers_queued(), 1u);
	ASSERT_EQ(irqs(), 1u);
	ASSERT_EQ(l.rxcq.modify(prm::kCqModifyPeriod, 2, 0, 0), prm::kStatOk);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 1u);
	host::clock_advance(1 * kUs);
	EXPECT_EQ(irqs(), 2u) << "2 us after the command, not 20 after the CQE";
	EXPECT_EQ(host::timers_queued(), 0u);
	EXPECT_EQ(host::errors(), 0);
}

/*
 * Who may start the timer, under concurrency: frames arrive on one
 * thread, the clock moves on another (its callbacks re-arm the timer),
 * MODIFY_CQ switches the period on a third, and this one polls and arms
 * as NAPI does. A start while a callback re-arms is a host error; a lost
 * event leaves CQEs pending while the clock runs past every deadline.
 */
TEST_F(HwModer, TimerRightUnderConcurrency)
{
	const uint32_t kFrames = 3000;
	l.teardown();
	l.setup(fn0, fn1, 12, 13, 13, kFields4, 128);	/* room for every frame: no reposting */
	Cq &rxcq = l.rxcq;
	ASSERT_EQ(rxcq.modify(kAll, 4, 64, prm::kCqPeriodFromCqe), prm::kStatOk);

	std::atomic<bool> stop{ false };
	std::thread producer([&] {
		for (uint32_t i = 0; i < kFrames; i++) {
			frames::Spec s;
			s.payload = frames::payload(16, (uint8_t)i);
			bool ce = (i % 64) == 63;
			l.send(frames::build(s), 0, 0, ce);
			if (ce)
				l.txcq.poll_all();
		}
	});
	std::thread clock([&] {
		while (!stop.load()) {
			host::clock_advance(200);
			std::this_thread::yield();
		}
	});
	std::thread commands([&] {
		for (uint32_t i = 0; !stop.load(); i++) {
			EXPECT_EQ(rxcq.modify(prm::kCqModifyPeriod, i % 2 ? 3 : 9, 0, 0), prm::kStatOk);
			std::this_thread::yield();
		}
	});

	NapiRun r = napi_until(rxcq, &irq1, 2, kFrames);
	producer.join();
	stop = true;
	clock.join();
	commands.join();
	EXPECT_FALSE(r.lost) << "event lost after " << r.got << " CQEs";
	EXPECT_EQ(r.got, kFrames);
	EXPECT_LE(host::irq_count(&irq1, 2), r.arms) << "at most one event per arm";
	EXPECT_EQ(host::errors(), 0) << "a timer started while its callback re-armed it";
}

TEST_F(HwModer, OneEventPerArmUnderModeration)
{
	moder(5, 2, prm::kCqPeriodFromCqe);
	for (int round = 1; round <= 5; round++) {
		poll_arm();
		send(7);
		host::clock_advance(100 * kUs);
		EXPECT_EQ(irqs(), (uint64_t)round);
	}
	/* armed with nothing new, nothing happens however long */
	poll_arm();
	host::clock_advance(1000 * kUs);
	EXPECT_EQ(irqs(), 5u);
	EXPECT_EQ(bus_interrupts(), 5u);
}

TEST_F(HwModer, LimitsAndErrors)
{
	EXPECT_EQ(l.rxcq.modify(prm::kCqModifyPeriod, prm::kCqMaxPeriod + 1, 0, 0),
		  prm::kStatBadParam);
	EXPECT_EQ(l.rxcq.modify(prm::kCqModifyPeriodMode, 0, 0, 2), prm::kStatBadParam);
	EXPECT_EQ(l.rxcq.modify(0, 0, 0, 0), prm::kStatBadParam) << "nothing selected";
	EXPECT_EQ(l.rxcq.modify(1u << 2, 0, 0, 0), prm::kStatBadParam) << "unknown field";
	EXPECT_EQ(l.rxcq.modify(kAll, prm::kCqMaxPeriod, prm::kCqMaxCount, 1), prm::kStatOk);

	Cq c;
	c.moder.cq_period.set(prm::kCqMaxPeriod + 1);
	EXPECT_EQ(c.create(fn1, 2, 7), prm::kStatBadParam);
	c.moder.cq_period.set(16);
	c.moder.cq_max_count.set(32);
	c.moder.cq_period_mode = prm::kCqPeriodFromCqe;
	ASSERT_EQ(c.create(fn1, 2, 7), prm::kStatOk);
	ASSERT_EQ(c.destroy(), prm::kStatOk);
	EXPECT_EQ(c.modify(prm::kCqModifyCount, 0, 1, 0), prm::kStatBadResource)
		<< "destroyed CQ";
}

TEST_F(HwModer, DestroyStopsTheTimer)
{
	armed_send(100, 0, prm::kCqPeriodFromCqe, 1);
	EXPECT_EQ(host::timers_queued(), 1u);
	l.teardown();
	EXPECT_EQ(host::timers_queued(), 0u);
	host::clock_advance(1000 * kUs);
	EXPECT_EQ(host::irq_total(), 0u);
}

} /* namespace */
