// SPDX-License-Identifier: GPL-2.0
/*
 * SHAMPO (hardware GRO) end to end: frames sent from port 0 to port 1 of
 * a ConnectX-7 pair with rx_hw_gro, port 1 polled once for the whole
 * batch, and what the driver hands the stack judged against the software
 * GRO reference (gro_ref.h):
 *  (a) per flow, the delivered payload is the sent payload, in order;
 *  (b) every delivered skb is one Linux would build of its segments
 *      (gro_could_build: the device may start and end sessions elsewhere
 *      than software GRO of the whole poll, at its limits and with one
 *      open session per RQ, but never merge what Linux would not);
 *  (c) every delivered skb cut back by gso_size gives exactly the sent
 *      frames, per flow in order;
 *  (d) where no device limit is in play, the skbs are the reference's
 *      (bytes, gso size/segs/type; order within a flow aside: Linux hands
 *      a bad checksum's packet up before the skb it holds);
 *  (e) with rx_hw_gro off the same frames arrive one by one, unchanged.
 */
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "gro_cases.h"
#include "gro_ref.h"
#include "en_pair.h"

using namespace enpair;
using frames::Bytes;
using frames::Flow;
using gro::Skb;
using gro_cases::Case;
using namespace gro_cases;

namespace {

/* The bytes a tag the device stripped (rx-vlan-offload, on by default) took on the wire. */
uint32_t stripped(const host::RxRecord &r) { return r.meta.vlan ? 4 : 0; }

/*
 * The record as an skb: gso fields only for a session of several. A tag
 * the device stripped goes back after the MACs, where software GRO of the
 * frames as sent has it.
 */
Skb as_skb(const host::RxRecord &r)
{
	Skb s;
	s.data = r.meta.vlan ? frames::vlan_insert(r.data, r.meta.vlan_tci) : r.data;
	if (r.gso.segs > 1) {
		s.gso_size = r.gso.size;
		s.gso_segs = r.gso.segs;
		s.gso_type = r.gso.type;
	}
	return s;
}

/* A flow's name for messages: its key in hex ("" for every non-TCP frame). */
std::string flow_of(const Bytes &f)
{
	std::string hex;
	char b[3];
	for (char c : gro::parse(f).flow) {
		snprintf(b, sizeof(b), "%02x", (uint8_t)c);
		hex += b;
	}
	return hex;
}

/* "" if equal, else where the lists of byte strings first differ. */
std::string first_diff(const std::vector<Bytes> &a, const std::vector<Bytes> &b)
{
	for (size_t i = 0; i < a.size() || i < b.size(); i++) {
		if (i >= a.size() || i >= b.size())
			return "lengths " + std::to_string(a.size()) + " vs " + std::to_string(b.size());
		if (a[i] == b[i])
			continue;
		size_t j = 0;
		while (j < a[i].size() && j < b[i].size() && a[i][j] == b[i][j])
			j++;
		return "item " + std::to_string(i) + " (" + std::to_string(a[i].size()) + " vs " +
		       std::to_string(b[i].size()) + " bytes) differs at byte " + std::to_string(j);
	}
	return "";
}

/* Sent frames per flow ("" = not TCP), in order. */
std::map<std::string, std::vector<Bytes>> by_flow(const std::vector<Bytes> &fs)
{
	std::map<std::string, std::vector<Bytes>> m;
	for (const Bytes &f : fs)
		m[flow_of(f)].push_back(f);
	return m;
}

Bytes payload_of(const Bytes &f)
{
	gro::Parsed p = gro::parse(f);
	if (!p.tcp)
		return f;
	return Bytes(f.begin() + (long)p.payload, f.begin() + (long)(p.payload + p.payload_len));
}

/* Sorted, for comparing skb lists whose order within a flow may differ (a bad checksum's). */
std::vector<Skb> sorted(std::vector<Skb> v)
{
	std::sort(v.begin(), v.end(), [](const Skb &a, const Skb &b) { return a.data < b.data; });
	return v;
}

class ShampoPair : public Pair {
protected:
	void SetUp() override { host::reset(); }

	static Options opts(bool hw_gro, uint32_t mtu = 1500)
	{
		Options o;
		o.model = 7;
		o.mtu = mtu;
		o.rx_striding = true;
		o.rx_hw_gro = hw_gro;
		o.log_sq = 8;
		o.log_rq = 7;
		return o;
	}

	/*
	 * Send the batch from port 0 (reaping TX completions), then poll port 1
	 * once (a budget below the batch: NAPI polls until it is all in).
	 */
	std::vector<Skb> deliver(const std::vector<Bytes> &fs, int budget = 4096)
	{
		std::vector<Skb> out;
		for (size_t i = 0; i < fs.size(); i++) {
			EXPECT_GE(post(0, fs[i]), 0) << i;
			if (i % 64 == 63 || i + 1 == fs.size()) {
				doorbell(0);
				poll(0, 256);
			}
		}
		poll(1, budget);
		/* channel by channel (a flow stays on one), what came since the last batch */
		seen.resize(opt.nch);
		got_gso.clear();
		for (uint32_t c = 0; c < opt.nch; c++) {
			const std::vector<host::RxRecord> &r = rx(1, c);
			for (; seen[c] < r.size(); seen[c]++) {
				out.push_back(as_skb(r[seen[c]]));
				/* offset and length in the frame as_skb() gives */
				GsoSeen g = { r[seen[c]].gso, r[seen[c]].meta.len + stripped(r[seen[c]]) };
				g.gso.l4_off = (uint16_t)(g.gso.l4_off + stripped(r[seen[c]]));
				got_gso.push_back(g);
			}
		}
		EXPECT_EQ(stat(1, "rx_out_of_buffer"), 0u);
		return out;
	}
	void fresh(const Options &o)
	{
		destroy();
		host::reset();
		seen.clear();
		build(o);
	}

	std::vector<size_t> seen;	/* records of each channel already delivered */
	struct GsoSeen {
		scx_rx_gso gso;
		uint32_t len;
	};
	std::vector<GsoSeen> got_gso;	/* of the last deliver(), in its order */

	/*
	 * (a)-(c) of what port 1 delivered (got) for the frames sent, and (d)
	 * when exact: then also each skb lies within one of software GRO's.
	 */
	void judge(const std::vector<Bytes> &sent, const std::vector<Skb> &got, bool exact)
	{
		const std::vector<Skb> ref = gro::receive(sent);
		std::string all;
		for (const Skb &s : got)
			all += "\n  " + gro::describe(s);
		SCOPED_TRACE("delivered:" + all);

		/* (a) payload per flow, in order */
		std::map<std::string, std::vector<Bytes>> want_pl, got_pl;
		for (const Bytes &f : sent) {
			Bytes p = payload_of(f);
			auto &v = want_pl[flow_of(f)];
			v.resize(1);
			v[0].insert(v[0].end(), p.begin(), p.end());
		}
		for (const Skb &s : got) {
			Bytes p = payload_of(s.data);
			auto &v = got_pl[flow_of(s.data)];
			v.resize(1);
			v[0].insert(v[0].end(), p.begin(), p.end());
		}
		EXPECT_EQ(got_pl.size(), want_pl.size());
		for (auto &w : want_pl)
			EXPECT_EQ(first_diff(got_pl[w.first], w.second), "") << "payload of flow " << w.first;

		/* (c) cut back, the wire frames per flow in order */
		std::vector<Bytes> back;
		for (const Skb &s : got)
			append(back, gro::resegment(s));
		auto back_by = by_flow(back), sent_by = by_flow(sent);
		EXPECT_EQ(back_by.size(), sent_by.size());
		for (auto &w : sent_by)
			EXPECT_EQ(first_diff(back_by[w.first], w.second), "") << "frames of flow " << w.first;

		/* (b) every delivered skb one software GRO could have built of its segments */
		for (const Skb &s : got)
			EXPECT_TRUE(gro::gro_could_build(s)) << "not what software GRO builds: " << gro::describe(s);
		for (size_t i = 0; i < got.size(); i++)
			if (got[i].gso_segs) {
				EXPECT_EQ(got_gso[i].gso.l4_off, gro::parse(got[i].data).l4) << i;
				EXPECT_EQ(got_gso[i].len, got[i].data.size()) << i;
			}

		/* (d) exactly the reference */
		if (exact) {
			std::string want;
			for (const Skb &s : ref)
				want += "\n  " + gro::describe(s);
			EXPECT_TRUE(sorted(got) == sorted(ref)) << "software GRO:" << want;
		}
	}
};

class Shampo : public ShampoPair, public ::testing::WithParamInterface<Case> {};

TEST_P(Shampo, MatchesSoftwareGro)
{
	const std::vector<Bytes> sent = GetParam().frames();

	build(opts(true));
	if (HasFatalFailure())
		return;
	judge(sent, deliver(sent), GetParam().exact);
}

/*
 * MTU 9000, one flow a batch: sessions of 7 jumbo segments (the most under
 * 64 KiB), then the rest, exactly software GRO's skbs.
 */
TEST_F(ShampoPair, JumboSessionsAreSoftwareGros)
{
	for (bool v6 : { false, true }) {
		SCOPED_TRACE(v6 ? "IPv6" : "IPv4");
		Flow f = v6 ? gro_cases::v6() : v4();
		const std::vector<Bytes> sent = n_segs(f, 12, 9000 - (v6 ? 72 : 52), frames::kAck | frames::kPsh);
		fresh(opts(true, 9000));
		ASSERT_FALSE(HasFatalFailure());
		const std::vector<Skb> got = deliver(sent);
		judge(sent, got, true);
		ASSERT_EQ(got.size(), 2u);
		EXPECT_EQ(got[0].gso_segs, 7);
		EXPECT_EQ(got[1].gso_segs, 5);
	}
}

/* Random traffic of three flows, batches of 100 frames: (a)-(c). */
TEST_F(ShampoPair, RandomTrafficWithinSoftwareGro)
{
	for (uint32_t seed = 1; seed <= 40; seed++) {
		SCOPED_TRACE("seed " + std::to_string(seed));
		const std::vector<Bytes> sent = random_traffic(seed);
		fresh(opts(true));
		ASSERT_FALSE(HasFatalFailure());
		judge(sent, deliver(sent), false);
		if (HasFailure())
			return;
	}
}

/*
 * Batch after batch on one pair (WQEs and the header ring wrap many
 * times), two channels (RSS spreads the flows), MTU 1500 and 9000.
 */
TEST_F(ShampoPair, ManyBatchesTwoChannels)
{
	for (uint32_t mtu : { 1500u, 9000u }) {
		SCOPED_TRACE("mtu " + std::to_string(mtu));
		Options o = opts(true, mtu);
		o.nch = 2;
		fresh(o);
		ASSERT_FALSE(HasFatalFailure());
		for (uint32_t seed = 100; seed < 130 && !HasFailure(); seed++) {
			SCOPED_TRACE("seed " + std::to_string(seed));
			const std::vector<Bytes> sent = random_traffic(seed, 100, mtu == 9000 ? 8000 : 1000);
			judge(sent, deliver(sent, seed % 3 ? 64 : 5), false);
		}
		EXPECT_GT(rx(1, 0).size(), 0u);
		EXPECT_GT(rx(1, 1).size(), 0u);
		if (HasFailure())
			return;
	}
}

/*
 * NAPI budgets below the batch: a session open at a poll's end goes up as
 * it stands, its rest as the next skb; nothing lost, nothing merged wrong.
 */
TEST_F(ShampoPair, SmallBudgetsCutSessionsOnly)
{
	const std::vector<Bytes> batches[] = {
		[] { Flow f = v4(); return n_segs(f, 100, 1448); }(),
		[] { Flow f = v4(); return n_segs(f, 120, 64); }(),
		random_traffic(77),
	};
	for (int budget : { 1, 2, 7, 16 }) {
		for (const std::vector<Bytes> &sent : batches) {
			SCOPED_TRACE("budget " + std::to_string(budget));
			fresh(opts(true));
			ASSERT_FALSE(HasFatalFailure());
			judge(sent, deliver(sent, budget), false);
			EXPECT_EQ(stat(1, "rx_packets"), sent.size());
			if (HasFailure())
				return;
		}
	}
}

/* (e) without hardware GRO: the frames one by one, as sent. */
TEST_P(Shampo, WithoutHwGroFramesArriveUnchanged)
{
	const std::vector<Bytes> sent = GetParam().frames();

	build(opts(false));
	if (HasFatalFailure())
		return;
	const std::vector<Skb> got = deliver(sent);
	ASSERT_EQ(got.size(), sent.size());
	for (size_t i = 0; i < sent.size(); i++) {
		EXPECT_EQ(got[i].data, sent[i]) << i;
		EXPECT_EQ(got[i].gso_segs, 0) << i;
	}
}

/*
 * The ethtool counters of SHAMPO (Documentation/counters.rst): rx_packets
 * and rx_bytes per wire packet, rx_gro_* per skb built from several and
 * per matching CQE, rx_gro_large_hds for headers past the 128-byte head,
 * rx_hds_nodata_* for header-only packets, rx_hds_nosplit_* for packets
 * the device did not split.
 */
TEST_F(ShampoPair, Counters)
{
	Flow f = v4();
	std::vector<Bytes> sent = n_segs(f, 5, 1000);
	Bytes pure_ack = f.next(0);
	sent.push_back(pure_ack);
	sent.push_back(udp(300));
	sent.push_back(icmp(64));
	append(sent, n_segs(f, 3, 1000, frames::kAck | frames::kPsh));
	sent.push_back(pure_ack);
	Flow lh = v4_long_headers(1002);
	append(sent, n_segs(lh, 3, 1000));	/* split, headers over 128 bytes, not merged */

	build(opts(true));
	ASSERT_FALSE(HasFatalFailure());
	const std::vector<Skb> got = deliver(sent);
	uint64_t wire_bytes = 0, gro_skbs = 0, gro_packets = 0, gro_bytes = 0;
	for (const Bytes &x : sent)
		wire_bytes += x.size();
	for (const Skb &s : got) {
		if (!s.gso_segs)
			continue;
		gro_skbs++;
		gro_packets += s.gso_segs;
		for (const Bytes &x : gro::resegment(s))
			gro_bytes += x.size();	/* data_len + headlen x count */
	}
	EXPECT_EQ(gro_skbs, 2u) << "5 and 3 segments";
	EXPECT_EQ(stat(1, "rx_packets"), sent.size());
	EXPECT_EQ(stat(1, "rx_bytes"), wire_bytes);
	EXPECT_EQ(stat(1, "rx_gro_skbs"), gro_skbs);
	EXPECT_EQ(stat(1, "rx_gro_packets"), gro_packets);
	EXPECT_EQ(stat(1, "rx_gro_bytes"), gro_bytes);
	EXPECT_EQ(stat(1, "rx_gro_match_packets"), gro_packets - gro_skbs) << "one poll: no session cut";
	EXPECT_EQ(stat(1, "rx_gro_large_hds"), 3u);
	EXPECT_EQ(stat(1, "rx_hds_nodata_packets"), 2u);
	EXPECT_EQ(stat(1, "rx_hds_nodata_bytes"), 2 * pure_ack.size());
	EXPECT_EQ(stat(1, "rx_hds_nosplit_packets"), 2u);
	EXPECT_EQ(stat(1, "rx_hds_nosplit_bytes"), udp(300).size() + icmp(64).size());
}

INSTANTIATE_TEST_SUITE_P(Cases, Shampo, ::testing::ValuesIn(cases()),
			 [](const ::testing::TestParamInfo<Case> &i) { return std::string(i.param.name); });

} /* namespace */
