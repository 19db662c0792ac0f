// SPDX-License-Identifier: GPL-2.0
/*
 * The software GRO reference (gro_ref.h) on cases worked out by hand from
 * Linux's rules, so that the SHAMPO tests judge the device against
 * something that is itself checked.
 */
#include <gtest/gtest.h>

#include <algorithm>

#include "gro_ref.h"

using frames::Bytes;
using frames::Flow;
using frames::get16;
using frames::get32;
using gro::Skb;

namespace {

constexpr uint8_t kAck = frames::kAck, kPsh = frames::kPsh;

Flow v4flow(uint16_t sport = 1000)
{
	Flow f;
	f.tmpl.sport = sport;
	return f;
}

Flow v6flow(uint16_t sport = 1000)
{
	Flow f;
	f.tmpl.v6 = true;
	f.tmpl.src = "fd00::1";
	f.tmpl.dst = "fd00::2";
	f.tmpl.sport = sport;
	return f;
}

/* Every skb cut back into frames gives the frames of `in` that are in it, in order, per flow. */
void expect_resegments_to(const std::vector<Skb> &out, const std::vector<Bytes> &in)
{
	std::vector<Bytes> back;
	for (const Skb &s : out)
		for (Bytes &f : gro::resegment(s))
			back.push_back(std::move(f));
	std::vector<Bytes> a = in, b = back;
	std::sort(a.begin(), a.end());
	std::sort(b.begin(), b.end());
	EXPECT_EQ(a, b);
}

Bytes payload_of(const Bytes &f)
{
	gro::Parsed p = gro::parse(f);
	return Bytes(f.begin() + (long)p.payload, f.begin() + (long)(p.payload + p.payload_len));
}

} /* namespace */

/* Three in-order segments: one skb, headers fixed by hand-computed values. */
TEST(GroRef, ThreeSegmentsMergeWithHandComputedHeaders)
{
	Flow f = v4flow();
	std::vector<Bytes> in = { f.next(100), f.next(100), f.next(100, kAck | kPsh) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 1u);
	const Skb &s = out[0];
	EXPECT_EQ(s.gso_size, 100);
	EXPECT_EQ(s.gso_segs, 3);
	EXPECT_EQ(s.gso_type, SCX_RX_GSO_TCPV4);	/* IDs 0x100, 0x101, 0x102: incrementing */
	ASSERT_EQ(s.data.size(), 14u + 20 + 20 + 300);
	EXPECT_EQ(get16(s.data, 16), 340);		/* tot_len */
	EXPECT_EQ(get16(s.data, 18), 0x100);		/* the first ID */
	/* 4500+0154+0100+4000+4006+0a00+0001+0a00+0002 = db5d */
	EXPECT_EQ(get16(s.data, 24), 0x24a2);
	EXPECT_EQ(get32(s.data, 38), 1000u);		/* first seq */
	EXPECT_EQ(s.data[47], kAck | kPsh);		/* PSH of the last OR'ed in */
	/* pseudo header: 0a00+0001+0a00+0002 + 6 + 0x140 (320 TCP bytes) */
	EXPECT_EQ(get16(s.data, 50), 0x1549);
	EXPECT_EQ(Bytes(s.data.begin() + 54, s.data.end()), f.sent);
	EXPECT_EQ(gro::resegment(s), in);
}

TEST(GroRef, SinglePacketIsUntouched)
{
	Flow f = v4flow();
	Bytes a = f.next(500);
	auto out = gro::receive({ a });

	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0], (Skb{ a, 0, 0, 0 }));
	EXPECT_EQ(gro::resegment(out[0]), std::vector<Bytes>{ a });
}

TEST(GroRef, Ipv6PayloadLengthAndPseudoSum)
{
	Flow f = v6flow();
	std::vector<Bytes> in = { f.next(1000), f.next(1000), f.next(400) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].gso_type, SCX_RX_GSO_TCPV6);
	EXPECT_EQ(out[0].gso_size, 1000);
	EXPECT_EQ(out[0].gso_segs, 3);
	EXPECT_EQ(get16(out[0].data, 18), 20 + 2400);
	/* fd00+1 + fd00+2 = 1fa03; + 6 + 0x974 (2420) = 2037d -> 037f */
	EXPECT_EQ(get16(out[0].data, 54 + 16), 0x037f);
	EXPECT_EQ(gro::resegment(out[0]), in);
}

/* A gap in seq ends the skb; so does a short segment (after merging it). */
TEST(GroRef, SeqGapAndShortSegmentEndSessions)
{
	Flow f = v4flow();
	std::vector<Bytes> in = { f.next(200), f.next(200) };
	f.seq += 50;
	in.push_back(f.next(200));
	in.push_back(f.next(120));	/* short: merged, then flushed */
	in.push_back(f.next(200));
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 3u);
	EXPECT_EQ(out[0].gso_segs, 2);
	EXPECT_EQ(get32(out[0].data, 38), 1000u);
	EXPECT_EQ(out[1].gso_segs, 2);
	EXPECT_EQ(get32(out[1].data, 38), 1450u);
	EXPECT_EQ(out[1].data.size(), 54u + 320);
	EXPECT_EQ(out[2].gso_segs, 0);
	EXPECT_EQ(out[2].data, in[4]);
	expect_resegments_to(out, in);
}

/* A segment larger than the first is not merged: it starts the next skb. */
TEST(GroRef, LargerSegmentStartsNewSkb)
{
	Flow f = v4flow();
	std::vector<Bytes> in = { f.next(100), f.next(200), f.next(200) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].data, in[0]);
	EXPECT_EQ(out[1].gso_segs, 2);
	EXPECT_EQ(out[1].gso_size, 200);
}

/* PSH, FIN, URG, RST, SYN: merged into the held skb and ending it (SYN/RST flags differ: not merged). */
TEST(GroRef, FlagRules)
{
	const struct {
		uint8_t flags;
		size_t first_segs;	/* of the first skb */
	} cases[] = {
		{ kAck | kPsh, 3 }, { kAck | frames::kFin, 3 }, { kAck | frames::kUrg, 0 },
		{ kAck | frames::kRst, 0 }, { kAck | frames::kSyn, 0 },
	};
	for (auto &c : cases) {
		SCOPED_TRACE(c.flags);
		Flow f = v4flow();
		std::vector<Bytes> in = { f.next(100), f.next(100), f.next(100, c.flags), f.next(100),
					  f.next(100) };
		auto out = gro::receive(in);
		if (c.first_segs) {	/* PSH/FIN: merged (OR'ed into the headers) and flushed */
			ASSERT_EQ(out.size(), 2u);
			EXPECT_EQ(out[0].gso_segs, 3);
			EXPECT_EQ(out[0].data[47], c.flags);
			EXPECT_EQ(out[1].gso_segs, 2);
		} else {	/* URG/RST/SYN differ from the held flags: each a skb of its own */
			ASSERT_EQ(out.size(), 3u);
			EXPECT_EQ(out[0].gso_segs, 2);
			EXPECT_EQ(out[1].data, in[2]);
			EXPECT_EQ(out[2].gso_segs, 2);
		}
		expect_resegments_to(out, in);
	}
}

/* CWR may open an skb (gso type ECN) but never joins one. */
TEST(GroRef, CwrOnlyFirst)
{
	Flow f = v4flow();
	std::vector<Bytes> in = { f.next(100), f.next(100, kAck | frames::kCwr), f.next(100), f.next(100) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].data, in[0]);
	EXPECT_EQ(out[1].gso_segs, 3);
	EXPECT_EQ(out[1].gso_type, SCX_RX_GSO_TCPV4 | SCX_RX_GSO_ECN);
	expect_resegments_to(out, in);
}

/* IP ID: incrementing or (with DF) fixed, chosen by the second segment; anything else ends the skb. */
TEST(GroRef, IpIdRules)
{
	const struct {
		const char *name;
		uint16_t step;
		bool df;
		size_t skbs;
		uint8_t type;
	} cases[] = {
		{ "inc_df", 1, true, 1, SCX_RX_GSO_TCPV4 },
		{ "inc_nodf", 1, false, 1, SCX_RX_GSO_TCPV4 },
		{ "fixed_df", 0, true, 1, SCX_RX_GSO_TCPV4 | SCX_RX_GSO_FIXEDID },
		{ "fixed_nodf", 0, false, 4, 0 },
		{ "by2_df", 2, true, 4, 0 },
	};
	for (auto &c : cases) {
		SCOPED_TRACE(c.name);
		Flow f = v4flow();
		f.id_step = c.step;
		f.tmpl.df = c.df;
		std::vector<Bytes> in = { f.next(100), f.next(100), f.next(100), f.next(100) };
		auto out = gro::receive(in);
		ASSERT_EQ(out.size(), c.skbs);
		if (c.skbs == 1) {
			EXPECT_EQ(out[0].gso_type, c.type);
			EXPECT_EQ(gro::resegment(out[0]), in);
		}
	}
	/* fixed for the second, then incrementing: the third is not merged */
	Flow f = v4flow();
	f.id_step = 0;
	std::vector<Bytes> in = { f.next(100), f.next(100) };
	f.id += 2;
	in.push_back(f.next(100));
	auto out = gro::receive(in);
	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].gso_type, SCX_RX_GSO_TCPV4 | SCX_RX_GSO_FIXEDID);
	EXPECT_EQ(out[0].gso_segs, 2);
}

/* Header fields that must stay: TTL, TOS/ECN, traffic class, hop limit, window, ack, options. */
TEST(GroRef, ChangedFieldsEndTheSkb)
{
	const struct {
		const char *name;
		bool v6;
		void (*change)(frames::Spec &);
	} cases[] = {
		{ "ttl", false, [](frames::Spec &s) { s.ttl = 63; } },
		{ "ecn_ce", false, [](frames::Spec &s) { s.tos = 3; } },
		{ "window", false, [](frames::Spec &s) { s.tcp_window = 1000; } },
		{ "ack", false, [](frames::Spec &s) { s.tcp_ack = 77; } },
		{ "tsval", false, [](frames::Spec &s) { s.tcp_opts = frames::tcp_ts_option(2, 9); } },
		{ "v6_hop_limit", true, [](frames::Spec &s) { s.ttl = 63; } },
		{ "v6_traffic_class", true, [](frames::Spec &s) { s.tos = 0x23; } },
	};
	for (auto &c : cases) {
		SCOPED_TRACE(c.name);
		Flow f = c.v6 ? v6flow() : v4flow();
		f.tmpl.tcp_opts = frames::tcp_ts_option(1, 9);
		std::vector<Bytes> in = { f.next(100), f.next(100) };
		c.change(f.tmpl);
		in.push_back(f.next(100));
		in.push_back(f.next(100));
		auto out = gro::receive(in);
		ASSERT_EQ(out.size(), 2u);
		EXPECT_EQ(out[0].gso_segs, 2);
		EXPECT_EQ(out[1].gso_segs, 2);
		expect_resegments_to(out, in);
	}
}

/* An IPv6 flow label change is another flow: both stay held, both merge. */
TEST(GroRef, Ipv6FlowLabelIsAnotherFlow)
{
	Flow a = v6flow(), b = v6flow();
	b.tmpl.flow_label = 0x12345;
	b.seq = a.seq + 200;
	std::vector<Bytes> in = { a.next(100), a.next(100), b.next(100), b.next(100) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].gso_segs, 2);
	EXPECT_EQ(out[1].gso_segs, 2);
	EXPECT_EQ(out[1].data[15] & 0xf, 1);	/* flow label 0x12345 */
}

/* A bad TCP checksum: handed up at once, the held skb of its flow stays held (Linux's order). */
TEST(GroRef, BadChecksumHandedUpFirst)
{
	Flow f = v4flow();
	std::vector<Bytes> in = { f.next(100), f.next(100) };
	f.tmpl.bad_l4_csum = true;
	in.push_back(f.next(100));
	f.tmpl.bad_l4_csum = false;
	in.push_back(f.next(100));
	in.push_back(f.next(100));
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 3u);
	EXPECT_EQ(out[0].data, in[2]);
	EXPECT_EQ(out[1].gso_segs, 2);	/* flushed by the seq gap the bad one left */
	EXPECT_EQ(out[2].gso_segs, 2);
	expect_resegments_to(out, in);
}

/* Pure ACKs and non-TCP frames: alone; a pure ACK of the flow flushes it, UDP does not. */
TEST(GroRef, PureAckAndUdp)
{
	Flow f = v4flow();
	frames::Spec u;
	u.proto = 17;
	u.payload = frames::payload(300);
	Bytes udp = frames::build(u);
	std::vector<Bytes> in = { f.next(100), f.next(100), udp, f.next(100), f.next(0), f.next(100) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 4u);
	EXPECT_EQ(out[0].data, udp);
	EXPECT_EQ(out[1].gso_segs, 3);
	EXPECT_EQ(out[2].data, in[4]);
	EXPECT_EQ(out[3].data, in[5]);
	expect_resegments_to(out, in);
}

/* Two interleaved flows: each merges on its own, handed up at the end oldest first. */
TEST(GroRef, InterleavedFlows)
{
	Flow a = v4flow(1000), b = v4flow(1001);
	std::vector<Bytes> in;
	for (int i = 0; i < 4; i++) {
		in.push_back(a.next(300));
		in.push_back(b.next(200));
	}
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(get16(out[0].data, 34), 1000);
	EXPECT_EQ(out[0].gso_segs, 4);
	EXPECT_EQ(payload_of(out[0].data), a.sent);
	EXPECT_EQ(out[1].gso_segs, 4);
	EXPECT_EQ(payload_of(out[1].data), b.sent);
	expect_resegments_to(out, in);
}

/* At most 8 skbs held: the ninth flow flushes the oldest. */
TEST(GroRef, NineFlowsFlushTheOldest)
{
	std::vector<Flow> fl;
	std::vector<Bytes> in;
	for (int i = 0; i < 9; i++)
		fl.push_back(v4flow((uint16_t)(2000 + i)));
	for (int r = 0; r < 2; r++)
		for (auto &f : fl)
			in.push_back(f.next(100));
	auto out = gro::receive(in);

	/* round 1: flow 0 flushed by flow 8 (1 segment); then each flow's 2nd flushes ... */
	ASSERT_GE(out.size(), 9u);
	EXPECT_EQ(out[0].data, in[0]);
	expect_resegments_to(out, in);
}

/* The skb stays below 64 KiB from the IP header on: 45 x 1448 + 40 fit, 46 do not. */
TEST(GroRef, SixtyFourKiBLimit)
{
	Flow f = v4flow();
	std::vector<Bytes> in;
	for (int i = 0; i < 50; i++)
		in.push_back(f.next(1448));
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].gso_segs, 45);
	EXPECT_EQ(get16(out[0].data, 16), 40 + 45 * 1448);
	EXPECT_EQ(out[1].gso_segs, 5);
	expect_resegments_to(out, in);
}

/* 64 KiB exactly: an IP length of 65535 is still taken. */
TEST(GroRef, IpLength65535IsTaken)
{
	Flow f = v4flow();
	std::vector<Bytes> in;
	for (int i = 0; i < 45; i++)
		in.push_back(f.next(1448));
	in.push_back(f.next(65535 - 40 - 45 * 1448));
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 1u);
	EXPECT_EQ(out[0].gso_segs, 46);
	EXPECT_EQ(get16(out[0].data, 16), 65535);
	/* one byte more and it is not */
	f = v4flow();
	in.clear();
	for (int i = 0; i < 45; i++)
		in.push_back(f.next(1448));
	in.push_back(f.next(65536 - 40 - 45 * 1448));
	EXPECT_EQ(gro::receive(in).size(), 2u);
}

TEST(GroRef, VlanTaggedFlowsMergeApart)
{
	Flow a = v4flow(), b = v4flow();
	a.tmpl.vlan = 5;
	b.tmpl.vlan = 6;
	std::vector<Bytes> in = { a.next(100), b.next(100), a.next(100), b.next(100) };
	auto out = gro::receive(in);

	ASSERT_EQ(out.size(), 2u);
	EXPECT_EQ(out[0].gso_segs, 2);
	EXPECT_EQ(get16(out[0].data, 20), 40 + 200);	/* tot_len after the tag */
	EXPECT_EQ(out[1].gso_segs, 2);
	expect_resegments_to(out, in);
}
