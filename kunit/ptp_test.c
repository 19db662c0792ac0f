// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_ptp: the shim's PTP clock (shim/ptp.c) on a real port: raw device
 * timestamps converted through its timecounter at the device's rate,
 * adjfine scaling it, adjtime and settime64 moving it, gettimex64 reading
 * it between two system timestamps.
 */
#include <kunit/test.h>
#include <linux/ptp_clock_kernel.h>

#include "pair.h"
#include "../shim/softcx.h"

struct scx_ptp_ctx {
	struct scx_pair pair;
	struct scx_ptp *ptp;
};

static int scx_ptp_test_init(struct kunit *test)
{
	struct scx_ptp_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	KUNIT_ASSERT_EQ(test, scx_pair_create(test, &ctx->pair, "cx7", 1), 0);
	scx_ptp_init(ctx->pair.priv[0]);
	ctx->ptp = &ctx->pair.priv[0]->ptp;
	KUNIT_ASSERT_TRUE(test, ctx->ptp->ready);
	return 0;
}

static void scx_ptp_test_exit(struct kunit *test)
{
	struct scx_ptp_ctx *ctx = test->priv;

	if (ctx->pair.priv[0])
		scx_ptp_fini(ctx->pair.priv[0]);
	scx_pair_destroy(&ctx->pair);
}

static s64 scx_conv(struct scx_ptp *ptp, u64 raw)
{
	return ktime_to_ns(scx_ptp_to_ktime(ptp, raw));
}

/* 1 GHz (cx7): a million ticks are a millisecond; the clock starts at CLOCK_REALTIME. */
static void scx_ptp_rate_and_start(struct kunit *test)
{
	struct scx_ptp_ctx *ctx = test->priv;
	u64 raw = scx_port_read_clock(ctx->pair.port[0]);
	s64 ns = scx_conv(ctx->ptp, raw);
	s64 d = ns - ktime_get_real_ns();

	KUNIT_EXPECT_LT(test, abs(d), (s64)NSEC_PER_SEC);
	KUNIT_EXPECT_EQ(test, scx_conv(ctx->ptp, raw + 1000000) - ns, 1000000LL);
	/* a stamp older than the timecounter's last read converts backwards */
	d = ns - scx_conv(ctx->ptp, raw - 1000000);
	KUNIT_EXPECT_GE(test, d, 1000000LL - 1);
	KUNIT_EXPECT_LE(test, d, 1000000LL + 1);
}

/* adjfine +1% (scaled ppm: 10000 << 16): a millisecond of ticks is 1.01 ms; then back. */
static void scx_ptp_adjfine(struct kunit *test)
{
	struct scx_ptp_ctx *ctx = test->priv;
	struct ptp_clock_info *info = &ctx->ptp->info;
	u64 raw;
	s64 d;

	KUNIT_ASSERT_EQ(test, info->adjfine(info, 10000L << 16), 0);
	raw = scx_port_read_clock(ctx->pair.port[0]) + 10;
	d = scx_conv(ctx->ptp, raw + 1000000) - scx_conv(ctx->ptp, raw);
	KUNIT_EXPECT_GE(test, d, 1010000LL - 2);
	KUNIT_EXPECT_LE(test, d, 1010000LL + 2);
	KUNIT_ASSERT_EQ(test, info->adjfine(info, -(10000L << 16)), 0);
	raw = scx_port_read_clock(ctx->pair.port[0]) + 10;
	d = scx_conv(ctx->ptp, raw + 1000000) - scx_conv(ctx->ptp, raw);
	KUNIT_EXPECT_GE(test, d, 990000LL - 2);
	KUNIT_EXPECT_LE(test, d, 990000LL + 2);
}

/* adjtime moves every later stamp's time; settime64 and gettimex64 agree. */
static void scx_ptp_adjtime_settime(struct kunit *test)
{
	struct scx_ptp_ctx *ctx = test->priv;
	struct ptp_clock_info *info = &ctx->ptp->info;
	struct ptp_system_timestamp sts;
	struct timespec64 ts = { .tv_sec = 1000 };
	u64 raw = scx_port_read_clock(ctx->pair.port[0]) + 1000;
	s64 before = scx_conv(ctx->ptp, raw), t;

	KUNIT_ASSERT_EQ(test, info->adjtime(info, 5 * NSEC_PER_SEC), 0);
	KUNIT_EXPECT_EQ(test, scx_conv(ctx->ptp, raw) - before, 5LL * NSEC_PER_SEC);

	KUNIT_ASSERT_EQ(test, info->settime64(info, &ts), 0);
	KUNIT_ASSERT_EQ(test, info->gettimex64(info, &ts, &sts), 0);
	t = timespec64_to_ns(&ts);
	KUNIT_EXPECT_GE(test, t, 1000LL * NSEC_PER_SEC);
	KUNIT_EXPECT_LT(test, t, 1001LL * NSEC_PER_SEC);
	/* the system time around the register reads */
	KUNIT_EXPECT_LE(test, timespec64_to_ns(&sts.pre_ts), timespec64_to_ns(&sts.post_ts));
	KUNIT_EXPECT_GT(test, timespec64_to_ns(&sts.pre_ts), 0LL);
}

static struct kunit_case scx_ptp_cases[] = {
	KUNIT_CASE(scx_ptp_rate_and_start),
	KUNIT_CASE(scx_ptp_adjfine),
	KUNIT_CASE(scx_ptp_adjtime_settime),
	{}
};

static struct kunit_suite scx_ptp_suite = {
	.name = "softcx_ptp",
	.init = scx_ptp_test_init,
	.exit = scx_ptp_test_exit,
	.test_cases = scx_ptp_cases,
};

kunit_test_suite(scx_ptp_suite);
