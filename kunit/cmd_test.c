// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_cmd: the device model's command interface. Bad commands must be
 * rejected with the right status and leave nothing behind; good ones set up
 * the objects the bad ones then misuse. Also the adapter-level entry points.
 */
#include <kunit/test.h>

#include "hooks.h"
#include "os_hooks.h"

#define SCX_KT_MAX_CASES 128

struct scx_cmd_ctx {
	struct device *dev;
	struct scx_hw_adapter *hw;
};

static int scx_cmd_init(struct kunit *test)
{
	struct scx_cmd_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return -ENOMEM;
	test->priv = ctx;
	ctx->dev = scx_kt_dev_create(test);
	return ctx->dev ? 0 : -ENODEV;
}

static void scx_cmd_exit(struct kunit *test)
{
	struct scx_cmd_ctx *ctx = test->priv;

	if (ctx->hw)
		scx_hw_adapter_destroy(ctx->hw);
	scx_kt_dev_destroy(ctx->dev);
}

static void scx_cmd_models(struct kunit *test)
{
	static const char *const names[] = { "cx4", "cx5", "cx6dx", "cx7" };
	struct scx_cmd_ctx *ctx = test->priv;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {
		int model = scx_hw_model_parse(names[i]);
		u32 got_model, mtu, inl;

		KUNIT_ASSERT_GE_MSG(test, model, 0, "%s", names[i]);
		KUNIT_EXPECT_STREQ(test, scx_hw_model_name(model), names[i]);
		KUNIT_ASSERT_EQ(test, scx_hw_adapter_create(model, 2, ctx->dev, &ctx->hw), 0);
		KUNIT_ASSERT_EQ(test, scx_kt_query_caps(scx_hw_function(ctx->hw, 1), &got_model,
							&mtu, &inl), 0);
		KUNIT_EXPECT_EQ(test, got_model, (u32)model);
		KUNIT_EXPECT_EQ(test, mtu, 10000u);	/* max_hw_mtu: mlx5's 9978 + 22 */
		/* ConnectX-4 needs the L2 headers inline in every SEND */
		KUNIT_EXPECT_EQ_MSG(test, inl != 0, !strcmp(names[i], "cx4"), "%s", names[i]);
		scx_hw_adapter_destroy(ctx->hw);
		ctx->hw = NULL;
	}
	KUNIT_EXPECT_LT(test, scx_hw_model_parse("cx3"), 0);
	KUNIT_EXPECT_LT(test, scx_hw_model_parse(""), 0);
	KUNIT_EXPECT_LT(test, scx_hw_model_parse(NULL), 0);
}

static void scx_cmd_adapter_args(struct kunit *test)
{
	struct scx_cmd_ctx *ctx = test->priv;
	int cx7 = scx_hw_model_parse("cx7");

	/* functions come in cabled pairs; unknown models are refused */
	KUNIT_EXPECT_NE(test, scx_hw_adapter_create(cx7, 0, ctx->dev, &ctx->hw), 0);
	KUNIT_EXPECT_NE(test, scx_hw_adapter_create(cx7, 3, ctx->dev, &ctx->hw), 0);
	KUNIT_EXPECT_NE(test, scx_hw_adapter_create(3, 2, ctx->dev, &ctx->hw), 0);
	ctx->hw = NULL;
	KUNIT_ASSERT_EQ(test, scx_hw_adapter_create(cx7, 4, ctx->dev, &ctx->hw), 0);
	KUNIT_EXPECT_NOT_NULL(test, scx_hw_function(ctx->hw, 3));
	KUNIT_EXPECT_NULL(test, scx_hw_function(ctx->hw, 4));
}

static void scx_cmd_bad_commands(struct kunit *test)
{
	struct scx_cmd_ctx *ctx = test->priv;
	struct scx_hw_function *fn;
	struct scx_kt_cmd_case *cases;
	u32 n, i;

	KUNIT_ASSERT_EQ(test, scx_hw_adapter_create(scx_hw_model_parse("cx5"), 2, ctx->dev,
						    &ctx->hw), 0);
	fn = scx_hw_function(ctx->hw, 0);
	KUNIT_ASSERT_NOT_NULL(test, fn);
	cases = kunit_kcalloc(test, SCX_KT_MAX_CASES, sizeof(*cases), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cases);

	n = scx_kt_cmd_cases(fn, ctx->dev, cases, SCX_KT_MAX_CASES);
	KUNIT_ASSERT_LE(test, n, (u32)SCX_KT_MAX_CASES);
	KUNIT_EXPECT_GT(test, n, 40u);
	for (i = 0; i < n; i++)
		KUNIT_EXPECT_EQ_MSG(test, cases[i].got, cases[i].want, "%s", cases[i].name);
	KUNIT_EXPECT_EQ_MSG(test, scx_kt_dev_objects(fn), 0u, "objects left in the device");
	/* the peer function saw none of it */
	KUNIT_EXPECT_EQ(test, scx_kt_dev_objects(scx_hw_function(ctx->hw, 1)), 0u);
}

static struct kunit_case scx_cmd_cases[] = {
	KUNIT_CASE(scx_cmd_models),
	KUNIT_CASE(scx_cmd_adapter_args),
	KUNIT_CASE(scx_cmd_bad_commands),
	{}
};

static struct kunit_suite scx_cmd_suite = {
	.name = "softcx_cmd",
	.init = scx_cmd_init,
	.exit = scx_cmd_exit,
	.test_cases = scx_cmd_cases,
};

kunit_test_suite(scx_cmd_suite);
