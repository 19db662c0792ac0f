// SPDX-License-Identifier: GPL-2.0
/*
 * CQE compression on the driver side: the RQ's poll loop reads titles and
 * mini CQEs (src/en/cqe_decomp.h) on every generation's layout and format
 * and on both RQ types. The same traffic with compression off and on must
 * give the stack the same packets with the same metadata; runs split by
 * the NAPI budget, CQ wrap, an error CQE and a close in the middle of a
 * run lose nothing and leave no page behind (the fixture's TearDown).
 */
#include <gtest/gtest.h>

#include <cstring>

#include "en/channel.h"
#include "en/params.h"
#include "softcx/errno.h"
#include "en_pair.h"

using namespace enpair;
using frames::Bytes;
namespace en = softcx::en;

namespace {

struct CompCase {
	const char *name;
	int model;
	bool striding;
	uint32_t mtu;
	en::RxComp mode;	/* what the device's generation runs */
};

const CompCase kCases[] = {
	{ "cx4_cyclic_basic", 4, false, 1500, en::RxComp::Basic },
	{ "cx5_cyclic_basic", 5, false, 1500, en::RxComp::Basic },
	{ "cx5_striding_basic_derived_stride", 5, true, 1500, en::RxComp::Basic },
	{ "cx7_cyclic_enhanced", 7, false, 1500, en::RxComp::Enhanced },
	{ "cx7_striding_enhanced_stridx", 7, true, 1500, en::RxComp::Enhanced },
	{ "cx7_striding_nonlinear_jumbo", 7, true, 9000, en::RxComp::Enhanced },
	{ "cx6dx_cyclic_enhanced_jumbo", 6, false, 9000, en::RxComp::Enhanced },
	{ "cx5_striding_nonlinear_jumbo", 5, true, 9000, en::RxComp::Basic },
};

/* What the stack sees of a packet, page and buffer placement aside. */
struct Seen {
	Bytes data;
	uint32_t len, hash;
	uint8_t hash_type, csum;

	bool operator==(const Seen &o) const
	{
		return data == o.data && len == o.len && hash == o.hash &&
		       hash_type == o.hash_type && csum == o.csum;
	}
};

class CqeComp : public Pair, public ::testing::WithParamInterface<CompCase> {
protected:
	void SetUp() override { host::reset(); }

	Options opts(bool compress) const
	{
		Options o;

		o.model = GetParam().model;
		o.rx_striding = GetParam().striding;
		o.rx_cqe_compress = compress;
		o.mtu = GetParam().mtu;
		o.log_sq = 9;
		o.log_rq = 7;
		return o;
	}

	/* Frame i of burst b: runs of one flow, then flows taking turns (runs break). */
	Bytes frame(int b, int i) const
	{
		size_t max = GetParam().mtu > 1500 ? 8000 : 1400;
		size_t len = 18 + (size_t)((b * 131 + i * 37) % (int)max);
		uint16_t sport = i < 20 ? 1000 : (uint16_t)(2000 + i % 3);

		return udp_frame(len, sport, (uint8_t)(b * 32 + i));
	}

	/* bursts of 32 frames behind one doorbell, received in polls of `budget` */
	std::vector<Seen> pump(int bursts, int budget)
	{
		const auto &r = rx(1);
		size_t from = r.size();
		std::vector<Seen> out;

		for (int b = 0; b < bursts; b++) {
			for (int i = 0; i < 32; i++)
				EXPECT_GE(post(0, frame(b, i)), 0);
			doorbell(0);
			poll(1, budget);
			poll(0);
		}
		for (size_t k = from; k < rx(1).size(); k++) {
			const host::RxRecord &x = rx(1)[k];
			out.push_back(Seen{ x.data, x.meta.len, x.meta.hash, x.meta.hash_type, x.meta.csum });
		}
		return out;
	}
};

/* The same traffic with and without compression: the same packets, byte for byte, same metadata. */
TEST_P(CqeComp, SamePacketsAndMetadataAsUncompressed)
{
	const int bursts = 24;

	build(opts(false));
	std::vector<Seen> plain = pump(bursts, 64);
	ASSERT_EQ(plain.size(), (size_t)bursts * 32);
	EXPECT_EQ(stat(1, "rx_cqe_compress_pkts"), 0u);

	build(opts(true));
	EXPECT_EQ(ch(1)->rq.comp, GetParam().mode);
	/* a budget that splits runs and slots across polls */
	std::vector<Seen> comp = pump(bursts, 7);
	ASSERT_EQ(comp.size(), plain.size());
	for (size_t k = 0; k < plain.size(); k++)
		ASSERT_TRUE(comp[k] == plain[k]) << "packet " << k << " len " << comp[k].len << " vs "
						 << plain[k].len;
	uint64_t pkts = stat(1, "rx_cqe_compress_pkts"), blks = stat(1, "rx_cqe_compress_blks");

	EXPECT_EQ(stat(1, "rx_packets"), plain.size());
	/* the first 20 frames of each burst are one flow: most come as mini CQEs */
	EXPECT_GE(pkts, (uint64_t)bursts * 15) << "blks " << blks;
	EXPECT_LE(pkts, (uint64_t)bursts * 32);
	EXPECT_GE(blks, (uint64_t)bursts);
	EXPECT_LT(blks, pkts);
	EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
	EXPECT_EQ(stat(1, "rx_recover"), 0u);
	EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
	scx_stats_refresh(p[1].port);
	EXPECT_GT(stat(1, "bus_wr_cqe_bytes_saved"), 0u);
}

/* Budgets of 1 and of the ring: every split point of a run, and many CQ laps. */
TEST_P(CqeComp, AnyBudgetAcrossCqWrap)
{
	build(opts(true));
	std::vector<Seen> a = pump(12, 1);
	std::vector<Seen> b = pump(12, 256);

	ASSERT_EQ(a.size() + b.size(), 24u * 32);
	EXPECT_EQ(stat(1, "rx_packets"), 24u * 32);
	EXPECT_GT(stat(1, "rx_cqe_compress_pkts"), 0u);
	for (size_t k = 0; k < a.size(); k++)
		EXPECT_EQ(a[k].data, frame((int)k / 32, (int)k % 32)) << k;
	EXPECT_EQ(stat(1, "rx_wqe_err"), 0u);
}

/*
 * An error CQE behind compressed runs: the run before it is delivered,
 * the RQ recovers (its CQ and decompressor start clean) and compression
 * goes on. Every frame is received or counted where it went.
 */
TEST_P(CqeComp, ErrorCqeRecoversAndCompressionGoesOn)
{
	build(opts(true));
	pump(2, 64);
	ASSERT_EQ(rx(1).size(), 64u);

	scx_channel_inject_rx_error(ch(1));
	pump(1, 64);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	uint64_t before = stat(1, "rx_cqe_compress_pkts");

	std::vector<Seen> after = pump(6, 5);
	EXPECT_EQ(after.size(), 6u * 32) << "the RQ works again";
	for (size_t k = 0; k < after.size(); k++)
		EXPECT_EQ(after[k].data, frame((int)k / 32, (int)k % 32)) << k;
	EXPECT_GT(stat(1, "rx_cqe_compress_pkts"), before) << "compression after the recovery";
	EXPECT_EQ(stat(0, "tx_packets"), 9u * 32);
	EXPECT_EQ(stat(1, "rx_packets") + stat(1, "rx_wqe_err") + stat(1, "rx_if_down_packets") +
			  stat(1, "rx_flushed"),
		  9u * 32);
}

/* A close with compressed runs unread counts each packet in them as flushed, not each slot. */
TEST_P(CqeComp, CloseCountsThePacketsOfUnreadRuns)
{
	build(opts(true));
	for (int i = 0; i < 32; i++)
		ASSERT_GE(post(0, frame(0, i)), 0);
	doorbell(0);
	poll(0);
	/* half read: a run may be open in the decompressor */
	scx_tx_done done = {};
	EXPECT_EQ(scx_channel_poll(ch(1), 9, &done), 9);
	ASSERT_EQ(rx(1).size(), 9u);
	scx_port_close(p[1].port);
	EXPECT_EQ(stat(1, "rx_packets"), 9u);
	EXPECT_EQ(stat(1, "rx_flushed"), 23u);
	auto chans = p[1].os_channels();
	scx_port_params prm = params(opts(true).mtu, 1);
	ASSERT_EQ(scx_port_open(p[1].port, &prm, chans.data()), 0);
}

/* XDP on compressed completions: every frame reaches the program once, TX and DROP counted. */
TEST_P(CqeComp, XdpVerdictsOnMiniCqes)
{
	Options o = opts(true);
	o.xdp_ports = 2;
	o.xdp_frags = true;	/* jumbo: a multi-buffer frame on a cyclic RQ, striding or not asked */
	build(o);
	static int seen;
	seen = 0;
	host::set_xdp_prog([](void *, uint8_t *, scx_xdp_buf *) {
		return ++seen % 2 ? SCX_XDP_DROP : SCX_XDP_TX;
	});
	pump(8, 7);
	poll(1, 256);
	poll(0, 256);
	EXPECT_EQ(seen, 8 * 32);
	EXPECT_EQ(stat(1, "rx_xdp_drop"), 8u * 16);
	EXPECT_EQ(stat(1, "rx_xdp_tx_xmit"), 8u * 16);
	EXPECT_EQ(rx(0).size(), 8u * 16) << "XDP_TX frames back at port 0";
	EXPECT_GT(stat(1, "rx_cqe_compress_pkts"), 8u * 10);
	EXPECT_EQ(stat(1, "rx_packets"), 0u);
}

INSTANTIATE_TEST_SUITE_P(Generations, CqeComp, ::testing::ValuesIn(kCases),
			 [](const ::testing::TestParamInfo<CompCase> &i) { return i.param.name; });

/* Refusals and the rule per generation. */
TEST(CqeCompRules, ModePerGenerationAndRqType)
{
	softcx::prm::HcaCaps caps = {};

	const char *why = nullptr;
	EXPECT_FALSE(en::cqe_compress_ok(caps, &why));
	EXPECT_STREQ(why, "no CQE compression on this device");
	EXPECT_EQ(en::rx_comp_mode(caps, false), en::RxComp::Off);
	caps.cqe_compression = 1;
	EXPECT_EQ(en::rx_comp_mode(caps, true), en::RxComp::Basic);
	caps.enhanced_cqe_compression = 1;
	EXPECT_EQ(en::rx_comp_mode(caps, false), en::RxComp::Enhanced);
	EXPECT_EQ(en::rx_comp_mode(caps, true), en::RxComp::Basic) << "no stride index in mini CQEs";
	caps.mini_cqe_resp_stride_index = 1;
	EXPECT_EQ(en::rx_comp_mode(caps, true), en::RxComp::Enhanced);
	EXPECT_EQ(en::rx_comp_format(en::RxComp::Enhanced, true), softcx::prm::kMiniCqeCsumStridx);
	EXPECT_EQ(en::rx_comp_format(en::RxComp::Enhanced, false), softcx::prm::kMiniCqeCsum);
	EXPECT_EQ(en::rx_comp_format(en::RxComp::Basic, true), softcx::prm::kMiniCqeCsum);
}

} /* namespace */
