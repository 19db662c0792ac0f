// SPDX-License-Identifier: GPL-2.0
/*
 * softcx_stats: the ethtool -S table (scx_stats_count/names/values) against
 * itself, against Documentation/counters.rst (compiled in as a list by
 * kunit/kunit.mk) and against the counters the hooks and the device saw.
 */
#include <kunit/test.h>
#include <linux/ctype.h>

#include "hooks.h"
#include "pair.h"

/* Every counter name Documentation/counters.rst lists (generated). */
static const char *const scx_doc_names[] = {
#include "kunit/counters_doc.h"
};

struct scx_stats_ctx {
	struct scx_pair pair;
	u32 count;
	char *names;		/* count * SCX_STAT_NAME_LEN */
	u64 *values;
};

static int scx_stats_init(struct kunit *test)
{
	test->priv = kunit_kzalloc(test, sizeof(struct scx_stats_ctx), GFP_KERNEL);
	return test->priv ? 0 : -ENOMEM;
}

static void scx_stats_exit(struct kunit *test)
{
	struct scx_stats_ctx *ctx = test->priv;

	scx_pair_destroy(&ctx->pair);
}

static const char *scx_name(struct scx_stats_ctx *ctx, u32 i)
{
	return ctx->names + (size_t)i * SCX_STAT_NAME_LEN;
}

static int scx_find(struct scx_stats_ctx *ctx, const char *name)
{
	u32 i;

	for (i = 0; i < ctx->count; i++)
		if (!strcmp(scx_name(ctx, i), name))
			return i;
	return -1;
}

static bool scx_doc_has(const char *name)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(scx_doc_names); i++)
		if (!strcmp(scx_doc_names[i], name))
			return true;
	return false;
}

/* mlx5 names a few per-channel counters differently from their port total. */
static const char *const scx_ch_renames[][2] = {
	{ "rx_xdp_tx_cqe", "rx_xdp_tx_cqes" },	/* total, per-channel suffix */
};

/* The per-channel form of a total name: "rx_packets", 2 -> "rx2_packets". */
static void scx_per_channel(const char *total, u32 ch, char *per)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(scx_ch_renames); i++)
		if (!strcmp(total, scx_ch_renames[i][0]))
			total = scx_ch_renames[i][1];
	snprintf(per, SCX_STAT_NAME_LEN, "%.2s%u%s", total, ch, total + 2);
}

/* "rx3_packets" -> "rx_packets" and 3; false when name is not a per-channel name. */
static bool scx_split_channel(const char *name, char *total, u32 *ch)
{
	static const char *const prefixes[] = { "rx", "tx", "ch" };
	u32 i, n;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t pl = strlen(prefixes[i]);
		const char *d = name + pl;

		if (strncmp(name, prefixes[i], pl) || !isdigit(*d))
			continue;
		for (n = 0; isdigit(*d); d++)
			n = n * 10 + (*d - '0');
		if (*d != '_')
			return false;
		snprintf(total, SCX_STAT_NAME_LEN, "%s%s", prefixes[i], d);
		for (i = 0; i < ARRAY_SIZE(scx_ch_renames); i++)
			if (!strcmp(total, scx_ch_renames[i][1]))
				strscpy(total, scx_ch_renames[i][0], SCX_STAT_NAME_LEN);
		*ch = n;
		return true;
	}
	return false;
}

/* Port with 4 channel slots, 3 of them open, and traffic both ways. */
static void scx_stats_setup(struct kunit *test, struct scx_stats_ctx *ctx, bool traffic)
{
	struct scx_pair *p = &ctx->pair;

	KUNIT_ASSERT_EQ(test, scx_pair_create(test, p, "cx7", 4), 0);
	if (traffic) {
		KUNIT_ASSERT_EQ(test, scx_pair_open(p, 0, 3, 1500, 6, 6), 0);
		KUNIT_ASSERT_EQ(test, scx_pair_open(p, 1, 3, 1500, 6, 6), 0);
		KUNIT_ASSERT_EQ(test, scx_pair_send(p, 0, 2, 0, 200, 16), 200);
		KUNIT_ASSERT_EQ(test, scx_pair_send(p, 1, 0, 200, 50, 16), 50);
	}
	ctx->count = scx_stats_count(p->port[0]);
	KUNIT_ASSERT_GT(test, ctx->count, 0u);
	ctx->names = kunit_kcalloc(test, ctx->count, SCX_STAT_NAME_LEN, GFP_KERNEL);
	ctx->values = kunit_kcalloc(test, ctx->count, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx->names);
	KUNIT_ASSERT_NOT_NULL(test, ctx->values);
	scx_stats_names(p->port[0], ctx->names);
}

static void scx_stats_names_sane(struct kunit *test)
{
	struct scx_stats_ctx *ctx = test->priv;
	u32 i, j;

	scx_stats_setup(test, ctx, false);
	for (i = 0; i < ctx->count; i++) {
		const char *name = scx_name(ctx, i);
		size_t len = strnlen(name, SCX_STAT_NAME_LEN);
		const char *c;

		KUNIT_EXPECT_GT_MSG(test, len, (size_t)0, "entry %u is empty", i);
		KUNIT_EXPECT_LT_MSG(test, len, (size_t)SCX_STAT_NAME_LEN,
				    "entry %u is not NUL-terminated within %d bytes", i,
				    SCX_STAT_NAME_LEN);
		if (len >= SCX_STAT_NAME_LEN)
			continue;
		for (c = name; *c; c++)
			KUNIT_EXPECT_TRUE_MSG(test, islower(*c) || isdigit(*c) || *c == '_',
					      "entry %u '%s': bad character", i, name);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ_MSG(test, scx_name(ctx, j), name,
						"entries %u and %u are both '%s'", j, i, name);
	}
}

static void scx_stats_known_names(struct kunit *test)
{
	static const char *const present[] = {
		"rx_packets", "rx_bytes", "tx_packets", "tx_bytes", "rx_out_of_buffer",
		"rx0_packets", "tx0_packets", "rx3_packets", "tx3_bytes",
	};
	static const char *const absent[] = { "rx4_packets", "tx4_packets", "rx_0_packets" };
	struct scx_stats_ctx *ctx = test->priv;
	u32 i;

	scx_stats_setup(test, ctx, false);
	for (i = 0; i < ARRAY_SIZE(present); i++)
		KUNIT_EXPECT_GE_MSG(test, scx_find(ctx, present[i]), 0, "%s missing", present[i]);
	for (i = 0; i < ARRAY_SIZE(absent); i++)
		KUNIT_EXPECT_LT_MSG(test, scx_find(ctx, absent[i]), 0, "%s unexpected", absent[i]);
}

/* The table and Documentation/counters.rst list the same counters. */
static void scx_stats_documented(struct kunit *test)
{
	struct scx_stats_ctx *ctx = test->priv;
	char total[SCX_STAT_NAME_LEN];
	u32 i, ch, ring = 0;

	scx_stats_setup(test, ctx, false);
	KUNIT_ASSERT_GT_MSG(test, ARRAY_SIZE(scx_doc_names), (size_t)0,
			    "no counter names found in Documentation/counters.rst");
	for (i = 0; i < ARRAY_SIZE(scx_doc_names); i++) {
		const char *doc = scx_doc_names[i];
		char per[SCX_STAT_NAME_LEN];

		KUNIT_EXPECT_GE_MSG(test, scx_find(ctx, doc), 0,
				    "documented '%s' is not in ethtool -S", doc);
		/* ring counters (rx_, tx_, ch_) also exist per channel slot */
		scx_per_channel(doc, 0, per);
		ring += scx_find(ctx, per) >= 0;
	}
	for (i = 0; i < ctx->count; i++) {
		const char *name = scx_name(ctx, i);

		if (scx_split_channel(name, total, &ch)) {
			KUNIT_EXPECT_TRUE_MSG(test, scx_doc_has(total),
					      "'%s': '%s' is not documented", name, total);
			KUNIT_EXPECT_LT_MSG(test, ch, 4u, "'%s': no such channel slot", name);
		} else {
			KUNIT_EXPECT_TRUE_MSG(test, scx_doc_has(name), "'%s' is not documented",
					      name);
		}
	}
	/* totals once, ring counters once more per channel slot */
	KUNIT_EXPECT_EQ(test, ctx->count, (u32)ARRAY_SIZE(scx_doc_names) + 4 * ring);
}

static u64 scx_value(struct kunit *test, struct scx_stats_ctx *ctx, const char *name)
{
	int i = scx_find(ctx, name);

	KUNIT_EXPECT_GE_MSG(test, i, 0, "%s missing", name);
	return i >= 0 ? ctx->values[i] : 0;
}

static void scx_stats_values_agree(struct kunit *test)
{
	struct scx_stats_ctx *ctx = test->priv;
	struct scx_pair *p = &ctx->pair;
	char total[SCX_STAT_NAME_LEN], name[SCX_STAT_NAME_LEN];
	struct scx_kt_dev_counters dc;
	struct scx_link_stats ls;
	u64 *again;
	u32 i, ch;

	scx_stats_setup(test, ctx, true);
	scx_stats_values(p->port[0], ctx->values);
	scx_stats_link(p->port[0], &ls);

	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "tx_packets"), 200ull);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "tx_packets"), ls.tx_packets);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "tx_bytes"), ls.tx_bytes);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "tx_bytes"), p->sent_bytes[0]);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "tx2_packets"), 200ull);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_packets"), 50ull);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_packets"), ls.rx_packets);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_bytes"), ls.rx_bytes);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_bytes"), p->sent_bytes[1]);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_packets"), scx_pair_sum(p, 0, rx_delivered));
	/* ethtool -S queried the device and left its counters for the link stats */
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_out_of_buffer"), ls.rx_missed_errors);

	/* every total is the sum of its per-channel copies; slot 3 never opened */
	for (i = 0; i < ctx->count; i++) {
		u64 sum = 0;
		int j;

		if (scx_split_channel(scx_name(ctx, i), total, &ch))
			continue;
		for (ch = 0; ch < 4; ch++) {
			scx_per_channel(scx_name(ctx, i), ch, name);
			j = scx_find(ctx, name);
			if (j < 0)
				break;
			sum += ctx->values[j];
			if (ch == 3)
				KUNIT_EXPECT_EQ_MSG(test, ctx->values[j], 0ull, "%s", name);
		}
		if (j >= 0)
			KUNIT_EXPECT_EQ_MSG(test, ctx->values[i], sum, "%s", scx_name(ctx, i));
	}

	/* device counters are the device's */
	KUNIT_ASSERT_EQ(test, scx_kt_dev_query(p->fn[0], &dc), 0);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "rx_out_of_buffer"), dc.rx_out_of_buffer);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "bus_doorbells"), dc.doorbells);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "bus_wr_data_bytes"), dc.wr_data_bytes);
	KUNIT_EXPECT_EQ(test, scx_value(test, ctx, "bus_wr_data_bytes"), p->sent_bytes[1]);

	/* a quiet port reads the same twice; counters survive close */
	again = kunit_kcalloc(test, ctx->count, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, again);
	scx_stats_values(p->port[0], again);
	for (i = 0; i < ctx->count; i++)
		KUNIT_EXPECT_EQ_MSG(test, again[i], ctx->values[i], "%s", scx_name(ctx, i));
	scx_pair_close(p, 0);
	scx_pair_close(p, 1);
	scx_stats_values(p->port[0], again);
	for (i = 0; i < ctx->count; i++) {
		/* the poll/arm counters of the final NAPI rounds may move; nothing else */
		if (strstr(scx_name(ctx, i), "_poll") || strstr(scx_name(ctx, i), "_arm"))
			continue;
		/* closing took the link down, once */
		KUNIT_EXPECT_EQ_MSG(test, again[i],
				    ctx->values[i] + !strcmp(scx_name(ctx, i), "link_down_events_phy"),
				    "%s after close", scx_name(ctx, i));
	}
	KUNIT_EXPECT_EQ(test, scx_stats_count(p->port[0]), ctx->count);
}

static struct kunit_case scx_stats_cases[] = {
	KUNIT_CASE(scx_stats_names_sane),
	KUNIT_CASE(scx_stats_known_names),
	KUNIT_CASE(scx_stats_documented),
	KUNIT_CASE(scx_stats_values_agree),
	{}
};

static struct kunit_suite scx_stats_suite = {
	.name = "softcx_stats",
	.init = scx_stats_init,
	.exit = scx_stats_exit,
	.test_cases = scx_stats_cases,
};

kunit_test_suite(scx_stats_suite);
