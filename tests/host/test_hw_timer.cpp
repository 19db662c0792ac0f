// SPDX-License-Identifier: GPL-2.0
/*
 * The device's free-running internal timer: its rate against the fake
 * clock (caps.device_frequency_khz, +20 ppm), read through the init
 * segment's registers, and the CQE timestamps that carry it.
 */
#include "frames.h"
#include "hw_harness.h"
#include "hw/adapter.h"

using namespace hwt;

namespace {

uint64_t read_timer(Fn *fn)
{
	uint32_t hi = bus::mmio_read32(fn, prm::kInitSegTimerH);
	uint32_t lo = bus::mmio_read32(fn, prm::kInitSegTimerL);
	EXPECT_EQ(bus::mmio_read32(fn, prm::kInitSegTimerH), hi) << "the fake clock did not move";
	return (uint64_t)hi << 32 | lo;
}

/* The timer after ns: khz * ns / 1e6 ticks, 20 ppm fast; exact, in 128 bits. */
uint64_t expected_ticks(uint64_t ns, uint32_t khz)
{
	return (uint64_t)((unsigned __int128)ns * khz * (1000000000 + 20000) / 1000000000000000ull);
}

/* The device's fixed-point rate may leave it one tick short of the exact value. */
#define EXPECT_TICKS(got, ns, khz)                                                  \
	do {                                                                        \
		uint64_t exact_ = expected_ticks(ns, khz), got_ = (got);            \
		EXPECT_LE(got_, exact_) << "after " << (ns) << " ns";              \
		EXPECT_LE(exact_ - got_, 1u) << "after " << (ns) << " ns";          \
	} while (0)

uint64_t cqe_ts(const prm::Cqe64 &c)
{
	return (uint64_t)c.timestamp_h.get() << 32 | c.timestamp_l.get();
}

class HwTimer : public HwTest {};
class HwTimerCx7 : public HwTest {
protected:
	int model() const override { return prm::kModelCx7; }
};

/* cx5: 156.25 MHz, 20 ppm fast: one second is 156253125 ticks. */
TEST_F(HwTimer, RateAgainstTheClock)
{
	EXPECT_EQ(query_caps(fn0).device_frequency_khz.get(), 156250u);
	uint64_t t0 = read_timer(fn0);
	EXPECT_EQ(t0, 0u) << "counts from adapter creation";
	host::clock_advance(1000000000);
	EXPECT_TICKS(read_timer(fn0), 1000000000, 156250);
	EXPECT_NEAR((double)read_timer(fn0), 156253125.0, 1.0);
	EXPECT_EQ(read_timer(fn1), read_timer(fn0)) << "one oscillator per adapter";
	EXPECT_EQ(bus::mmio_read32(fn0, 0x1008), ~0u) << "no register there";
}

TEST_F(HwTimerCx7, RateAgainstTheClock)
{
	EXPECT_EQ(query_caps(fn0).device_frequency_khz.get(), 1000000u);
	host::clock_advance(1000000000);
	EXPECT_TICKS(read_timer(fn0), 1000000000, 1000000);
	EXPECT_NEAR((double)read_timer(fn0), 1000020000.0, 1.0);
}

/*
 * Monotonic over steps of any size, within a tick of exact 128-bit math,
 * and past 2^32 ticks (the high word moves) and far later (days: no
 * overflow in the integer math).
 */
TEST_F(HwTimer, MonotonicAndExactOverLongRuns)
{
	uint64_t elapsed = 0, last = 0;
	const uint64_t steps[] = { 1, 6, 7, 999, 1000000, 123456789, 30000000000ull,
				   86400000000000ull, 3, 1000000007ull };

	for (int round = 0; round < 3; round++) {
		for (uint64_t s : steps) {
			host::clock_advance(s);
			elapsed += s;
			uint64_t t = read_timer(fn0);
			EXPECT_GE(t, last);
			EXPECT_TICKS(t, elapsed, 156250);
			last = t;
		}
	}
	EXPECT_GT(last >> 32, 0u);
}

/* RX and TX CQEs carry the timer at their completion. */
TEST_F(HwTimer, CqesCarryTheTimer)
{
	Link l;
	l.setup(fn0, fn1);
	frames::Spec s;
	s.payload = frames::payload(100, 1);

	host::clock_advance(5000000);
	uint64_t t1 = read_timer(fn0);
	ASSERT_NE(t1, 0u);
	l.send(frames::build(s));
	host::clock_advance(7000000);
	uint64_t t2 = read_timer(fn0);
	l.send(frames::build(s));

	auto rx = l.rxcq.poll_all();
	auto tx = l.txcq.poll_all();
	ASSERT_EQ(rx.size(), 2u);
	ASSERT_EQ(tx.size(), 2u);
	EXPECT_EQ(cqe_ts(rx[0]), t1);
	EXPECT_EQ(cqe_ts(tx[0]), t1);
	EXPECT_EQ(cqe_ts(rx[1]), t2);
	EXPECT_EQ(cqe_ts(tx[1]), t2);
	EXPECT_NEAR((double)(t2 - t1),
		    (double)(expected_ticks(12000000, 156250) - expected_ticks(5000000, 156250)), 1.0);
}

} /* namespace */
