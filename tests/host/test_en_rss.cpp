// SPDX-License-Identifier: GPL-2.0
/*
 * The core's RSS configuration (scx_port_get_rss / scx_port_set_rss and
 * params.rss_keep_table): the table, key and per-type fields a user sets
 * steer the live set at once, survive a channel switch when kept, and bad
 * values are refused with a reason and change nothing.
 */
#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;

namespace {

class EnRss : public Pair {
protected:
	void SetUp() override
	{
		Pair::SetUp();
		Options o;
		o.nch = 4;
		build(o);
	}
	/* 32 UDP flows from scx0 to port 1; packets per port-1 channel */
	std::vector<size_t> flows()
	{
		std::vector<size_t> before(4), got(4);
		for (uint32_t i = 0; i < 4; i++)
			before[i] = rx(1, i).size();	/* (channels above the set's: none) */
		for (uint16_t sport = 2000; sport < 2032; sport++) {
			EXPECT_EQ(send(0, udp_frame(64, sport)), 0);
			poll(0);
			poll(1);
		}
		for (uint32_t i = 0; i < 4; i++)
			got[i] = rx(1, i).size() - before[i];
		return got;
	}
	int set(const scx_rss &r, const char **why = nullptr)
	{
		const char *w = nullptr;
		int err = scx_port_set_rss(p[1].port, &r, &w);
		if (why)
			*why = w;
		return err;
	}
	scx_rss get(uint32_t spread = 0)
	{
		scx_rss r;
		scx_port_get_rss(p[1].port, spread, &r);
		return r;
	}
	void switch_to(uint32_t nch, bool keep, int want)
	{
		scx_port_params prm = params(1500, 1);
		prm.nch = nch;
		prm.rss_keep_table = keep;
		auto chans = p[1].os_channels();
		ASSERT_EQ(scx_port_prepare(p[1].port, &prm, chans.data()), want);
		if (!want) {
			scx_port_commit(p[1].port);
			opt.nch = nch;	/* poll() walks the live set's channels */
			poll(1);
			arm(1);
		}
	}
};

TEST_F(EnRss, DefaultsSpreadOverTheChannels)
{
	scx_rss r = get();
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		ASSERT_EQ(r.table[i], i % 4) << i;
	EXPECT_EQ(r.fields[SCX_RSS_UDP4], SCX_RSS_SRC_IP | SCX_RSS_DST_IP | SCX_RSS_SRC_PORT |
						 SCX_RSS_DST_PORT);
	EXPECT_EQ(r.fields[SCX_RSS_IP6], SCX_RSS_SRC_IP | SCX_RSS_DST_IP);
	scx_rss s = get(3);
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		ASSERT_EQ(s.table[i], i % 3) << i;
	auto got = flows();
	int used = 0;
	for (size_t n : got)
		used += n > 0;
	EXPECT_GE(used, 3);
}

/*
 * The port's RSS object hashes GRE and IP-in-IP frames by their inner
 * flows (kRssInner, as mlx5's inner TTC): 32 UDP flows inside one GRE
 * tunnel spread over the channels as plain UDP flows do; each frame's
 * hash is its inner flow's.
 */
TEST_F(EnRss, IpTunnelsSpreadByTheirInnerFlows)
{
	std::vector<size_t> before(4), got(4);
	for (uint32_t i = 0; i < 4; i++)
		before[i] = rx(1, i).size();
	for (uint16_t sport = 2000; sport < 2032; sport++) {
		const frames::Bytes inner = udp_frame(64, sport);
		const frames::Bytes f = sport % 2 ? frames::gre(inner, 0x0800) : frames::ipip(inner);
		EXPECT_EQ(send(0, f), 0);
		poll(0);
		poll(1);
	}
	for (uint32_t i = 0; i < 4; i++) {
		got[i] = rx(1, i).size() - before[i];
		EXPECT_GT(got[i], 2u) << "channel " << i << ": the inner flows spread";
	}
	EXPECT_EQ(got[0] + got[1] + got[2] + got[3], 32u);
	for (uint32_t i = 0; i < 4; i++)
		for (size_t k = before[i]; k < rx(1, i).size(); k++)
			EXPECT_EQ(rx(1, i)[k].meta.hash_type, SCX_HASH_L4) << "channel " << i;
}

TEST_F(EnRss, TableKeyAndFieldsSteerTheLiveSet)
{
	scx_rss r = get();
	for (uint32_t &e : r.table)
		e = 2;
	ASSERT_EQ(set(r), 0);
	EXPECT_EQ(flows(), (std::vector<size_t>{ 0, 0, 32, 0 }));

	/* udp4 hashed on the addresses only: every flow one hash, one entry */
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		r.table[i] = i % 4;
	r.fields[SCX_RSS_UDP4] = SCX_RSS_SRC_IP | SCX_RSS_DST_IP;
	ASSERT_EQ(set(r), 0);
	auto got = flows();
	EXPECT_EQ(*std::max_element(got.begin(), got.end()), 32u);
	EXPECT_EQ(get().fields[SCX_RSS_UDP4], SCX_RSS_SRC_IP | SCX_RSS_DST_IP);

	/* nothing hashed: hash 0, entry 0 */
	r.fields[SCX_RSS_UDP4] = 0;
	r.table[0] = 3;
	ASSERT_EQ(set(r), 0);
	EXPECT_EQ(flows(), (std::vector<size_t>{ 0, 0, 0, 32 }));

	/* another key moves the address-only hash (with entries 0..3 in turn, some key does) */
	r.fields[SCX_RSS_UDP4] = SCX_RSS_SRC_IP | SCX_RSS_DST_IP;
	std::vector<size_t> first = flows();
	bool moved = false;
	for (int k = 1; k < 8 && !moved; k++) {
		for (uint32_t i = 0; i < SCX_RSS_KEY_SIZE; i++)
			r.key[i] = (uint8_t)(i * 29 + k * 71);
		ASSERT_EQ(set(r), 0);
		moved = flows() != first;
	}
	EXPECT_TRUE(moved);
	EXPECT_EQ(get().key[5], r.key[5]);
}

TEST_F(EnRss, BadValuesAreRefusedAndChangeNothing)
{
	scx_rss r = get(), before = get();
	const char *why = nullptr;
	r.table[77] = 4;
	EXPECT_EQ(set(r, &why), -SCX_EINVAL);
	ASSERT_NE(why, nullptr);
	EXPECT_NE(std::string(why).find("channel"), std::string::npos) << why;
	r = before;
	r.fields[SCX_RSS_IP4] |= SCX_RSS_SRC_PORT;
	EXPECT_EQ(set(r, &why), -SCX_EINVAL);
	EXPECT_NE(std::string(why).find("TCP and UDP"), std::string::npos) << why;
	r = before;
	r.fields[SCX_RSS_TCP6] = 0x10;
	EXPECT_EQ(set(r, &why), -SCX_EINVAL);
	scx_rss after = get();
	EXPECT_EQ(memcmp(&after, &before, sizeof(after)), 0);
}

TEST_F(EnRss, ChannelSwitchKeepsOrSpreadsTheTable)
{
	scx_rss r = get();
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		r.table[i] = i % 2 ? 3 : 1;
	ASSERT_EQ(set(r), 0);
	/* kept: every entry must name one of the new set's channels */
	switch_to(3, true, -SCX_EINVAL);
	EXPECT_EQ(get().table[1], 3u) << "a refused switch changes nothing";
	switch_to(4, true, 0);
	EXPECT_EQ(get().table[1], 3u);
	auto got = flows();
	EXPECT_EQ(got[0] + got[2], 0u);
	EXPECT_EQ(got[1] + got[3], 32u);

	/* not kept: spread over the new set, and the port's table with it */
	switch_to(2, false, 0);
	scx_rss s = get();
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		ASSERT_EQ(s.table[i], i % 2) << i;
	got = flows();
	EXPECT_EQ(got[0] + got[1], 32u);
	EXPECT_GT(got[0], 0u);
	EXPECT_GT(got[1], 0u);
}

} /* namespace */
