// SPDX-License-Identifier: GPL-2.0
/*
 * The core's flow rules and RSS contexts (ethtool -N/-n, -X context): a
 * rule's flow lands on its channel, a drop rule's packets are counted, a
 * context rule's flows spread over the context's table as the reference
 * Toeplitz hash predicts (an action adds an offset to its table entries);
 * rules and contexts follow every channel switch,
 * RQ recovery and close/open; ethtool -L below what they need is refused;
 * bad rules are refused with a reason and change nothing.
 */
#include <cstring>

#include "en_pair.h"
#include "softcx/errno.h"

using namespace enpair;

namespace {

constexpr uint32_t kCh = 4;

scx_flow_rule udp4_dport(uint16_t dport, uint32_t action, uint32_t context = 0)
{
	scx_flow_rule r = {};
	r.type = SCX_RSS_UDP4;
	r.dst_port = dport;
	r.dst_port_mask = 0xffff;
	r.action = action;
	r.context = context;
	return r;
}

class EnFlow : public Pair {
protected:
	void SetUp() override
	{
		Pair::SetUp();
		Options o;
		o.nch = kCh;
		build(o);
		scx_port_set_ntuple(port(), 1);
	}
	scx_port *port() { return p[1].port; }

	int add(uint32_t loc, const scx_flow_rule &r, const char **why = nullptr)
	{
		const char *w = nullptr;
		int err = scx_port_flow_set(port(), opt.nch, loc, &r, &w);
		if (why)
			*why = w;
		EXPECT_EQ(err != 0, w != nullptr) << "a refusal says why, a success nothing";
		return err;
	}

	static frames::Bytes udp(uint16_t sport, uint16_t dport, const char *src = "10.0.0.1")
	{
		frames::Spec s;
		s.proto = 17;
		s.src = src;
		s.sport = sport;
		s.dport = dport;
		s.payload = frames::payload(40);
		return frames::build(s);
	}

	/* Send one frame from port 0; the port-1 channel it was delivered on, or -1. */
	int land(const frames::Bytes &f)
	{
		std::vector<size_t> before(opt.nch);
		for (uint32_t i = 0; i < opt.nch; i++)
			before[i] = rx(1, i).size();
		EXPECT_EQ(send(0, f), 0);
		poll(0);
		poll(1);
		int got = -1;
		for (uint32_t i = 0; i < opt.nch; i++)
			if (rx(1, i).size() != before[i]) {
				EXPECT_EQ(got, -1);
				got = (int)i;
			}
		return got;
	}

	/* Channels flows with dport (sports 3000..3000+n) land on, counted. */
	std::vector<int> spread(uint16_t dport, int n = 32)
	{
		std::vector<int> got(opt.nch);
		for (int i = 0; i < n; i++) {
			int c = land(udp((uint16_t)(3000 + i), dport));
			if (c >= 0)
				got[c]++;
		}
		return got;
	}

	/* Rebuild port 1 with nch channels through prepare/commit (the shim's safe switch). */
	int rebuild(uint32_t nch)
	{
		scx_port_params prm = params(1500, 1);
		prm.nch = nch;
		auto chans = p[1].os_channels();
		int err = scx_port_prepare(port(), &prm, chans.data());
		if (err)
			return err;
		scx_port_commit(port());
		opt.nch = nch;
		poll(1);
		arm(1);
		return 0;
	}

	/* A context whose table alternates channels 2 and 0 (read back into *c); its id. */
	uint32_t ctx_2_0(scx_rss *c)
	{
		uint32_t table[SCX_RSS_TABLE_SIZE], ctx = 0;
		const char *why = nullptr;
		for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
			table[i] = i % 2 ? 0 : 2;
		EXPECT_EQ(scx_port_rss_ctx_create(port(), kCh, table, nullptr, &ctx, &why), 0);
		EXPECT_EQ(scx_port_rss_ctx_get(port(), ctx, c), 0);
		return ctx;
	}

	/* The channel a UDP flow lands on under a context: table[toeplitz(key, 4-tuple) % size]. */
	static uint32_t predict(const scx_rss &ctx, uint16_t sport, uint16_t dport)
	{
		frames::Bytes in = frames::ip_bytes("10.0.0.1"), d = frames::ip_bytes("10.0.0.2");
		in.insert(in.end(), d.begin(), d.end());
		in.insert(in.end(), { (uint8_t)(sport >> 8), (uint8_t)sport, (uint8_t)(dport >> 8),
				      (uint8_t)dport });
		return ctx.table[frames::ref_toeplitz(ctx.key, in) % SCX_RSS_TABLE_SIZE];
	}
};

/* A rule sends its flows to its channel only; deleting it hands them back to RSS. */
TEST_F(EnFlow, RuleSteersItsFlowToItsChannel)
{
	auto before = spread(5001);
	int used = 0;
	for (int n : before)
		used += n > 0;
	ASSERT_GE(used, 3) << "RSS spreads the flows without a rule";

	ASSERT_EQ(add(7, udp4_dport(5001, 2)), 0);
	EXPECT_EQ(spread(5001), (std::vector<int>{ 0, 0, 32, 0 }));
	EXPECT_NE(spread(5002)[0] + spread(5002)[1], 0) << "other flows keep RSS";
	EXPECT_EQ(scx_port_flow_count(port()), 1u);
	uint32_t locs[4] = {};
	EXPECT_EQ(scx_port_flow_locs(port(), locs, 4), 1u);
	EXPECT_EQ(locs[0], 7u);
	scx_flow_rule r;
	ASSERT_EQ(scx_port_flow_get(port(), 7, &r), 0);
	EXPECT_EQ(r.dst_port, 5001);
	EXPECT_EQ(r.action, 2u);
	EXPECT_EQ(scx_port_flow_get(port(), 6, &r), -SCX_ENOENT);

	ASSERT_EQ(scx_port_flow_delete(port(), 7), 0);
	EXPECT_EQ(spread(5001), before);
	EXPECT_EQ(scx_port_flow_delete(port(), 7), -SCX_ENOENT);
	EXPECT_EQ(scx_port_flow_count(port()), 0u);
}

/*
 * L2 matches (ethtool's ether flows, FLOW_EXT VLAN and FLOW_MAC_EXT): an
 * ethertype (ARP, not IP), a source MAC prefix, a UDP rule only for frames
 * tagged with its VLAN ID (stripped or not on the way up), and one only for
 * a destination MAC the address filter would turn away; each read back.
 */
TEST_F(EnFlow, EtherVlanAndDestinationMacRules)
{
	const uint8_t own[6] = { 0x02, 0, 0, 0, 0, 0x02 };	/* frames::build's destination */
	frames::Bytes arp(60, 0);
	memcpy(arp.data(), own, 6);
	arp[6] = 0x02;
	arp[12] = 0x08;
	arp[13] = 0x06;

	scx_flow_rule e = {};
	e.type = SCX_FLOW_ETHER;
	e.ethertype = 0x0806;
	e.ethertype_mask = 0xffff;
	e.action = 3;
	ASSERT_EQ(add(0, e), 0);
	for (int i = 0; i < 4; i++) {
		arp[6 + 5] = (uint8_t)i;
		EXPECT_EQ(land(arp), 3) << "ARP from source " << i;
	}
	EXPECT_LT(spread(5001, 8)[3], 8) << "IP keeps RSS";
	scx_flow_rule got;
	ASSERT_EQ(scx_port_flow_get(port(), 0, &got), 0);
	EXPECT_EQ(got.type, (uint32_t)SCX_FLOW_ETHER);
	EXPECT_EQ(got.ethertype, 0x0806);
	EXPECT_EQ(got.ethertype_mask, 0xffff);

	scx_flow_rule sm = {};
	sm.type = SCX_FLOW_ETHER;
	sm.src_mac[0] = 0x06;
	sm.src_mac_mask[0] = 0xff;
	sm.action = 2;
	ASSERT_EQ(add(1, sm), 0);
	frames::Bytes f = udp(3000, 7000);
	EXPECT_NE(land(f), 2) << "source 02:...";
	f[6] = 0x06;
	EXPECT_EQ(land(f), 2) << "source 06:...";
	ASSERT_EQ(scx_port_flow_delete(port(), 1), 0);

	scx_flow_rule v = udp4_dport(5001, 1);
	v.vlan_id = 100;
	v.vlan_id_mask = 0xfff;
	ASSERT_EQ(add(2, v), 0);
	for (int i = 0; i < 8; i++) {
		frames::Bytes u = udp((uint16_t)(3000 + i), 5001);
		EXPECT_EQ(land(frames::vlan_insert(u, 100)), 1) << i;
		EXPECT_NE(land(frames::vlan_insert(u, 101)), -1) << i;
	}
	EXPECT_LT(spread(5001, 8)[1], 8) << "untagged: RSS";
	ASSERT_EQ(scx_port_flow_get(port(), 2, &got), 0);
	EXPECT_EQ(got.vlan_id, 100);
	EXPECT_EQ(got.vlan_id_mask, 0xfff);

	scx_flow_rule d = udp4_dport(5002, 2);
	const uint8_t other[6] = { 0x02, 0, 0, 0, 0, 0x99 };
	memcpy(d.dst_mac, other, 6);
	memset(d.dst_mac_mask, 0xff, 6);
	ASSERT_EQ(add(3, d), 0);
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, own, 1, nullptr, 0), 0);
	frames::Bytes o = udp(3000, 5002);
	memcpy(o.data(), other, 6);
	EXPECT_EQ(land(o), 2) << "the rule's destination, not the port's";
	EXPECT_LT(spread(5002, 8)[2], 8) << "the port's own destination: RSS";
	ASSERT_EQ(scx_port_flow_get(port(), 3, &got), 0);
	EXPECT_EQ(memcmp(got.dst_mac, other, 6), 0);
	poll(0);
}

/* Masks: a /24 source rule; the lower location wins where two rules match. */
TEST_F(EnFlow, MasksAndPriorityByLocation)
{
	scx_flow_rule net = {};
	net.type = SCX_RSS_UDP4;
	memcpy(net.src_ip, frames::ip_bytes("10.0.0.0").data(), 4);
	memcpy(net.src_ip_mask, frames::ip_bytes("255.255.255.0").data(), 4);
	net.action = 3;
	ASSERT_EQ(add(5, udp4_dport(7000, 1)), 0);
	ASSERT_EQ(add(2, net), 0);
	EXPECT_EQ(land(udp(1, 7000, "10.0.0.1")), 3) << "both match: location 2 wins";
	EXPECT_EQ(land(udp(2, 7000, "10.0.1.1")), 1) << "only location 5 matches";
	EXPECT_EQ(land(udp(3, 7001, "10.0.0.77")), 3);
	ASSERT_EQ(scx_port_flow_delete(port(), 2), 0);
	EXPECT_EQ(land(udp(1, 7000, "10.0.0.1")), 1);
	/* replacing a rule in place */
	ASSERT_EQ(add(5, udp4_dport(7000, 0)), 0);
	EXPECT_EQ(land(udp(1, 7000, "10.0.0.1")), 0);
	EXPECT_EQ(scx_port_flow_count(port()), 1u);
}

/* A drop rule: nothing delivered, every packet in rx_steer_drop_packets (and not in rx_dropped). */
TEST_F(EnFlow, DropRuleIsCounted)
{
	ASSERT_EQ(add(0, udp4_dport(9, SCX_FLOW_DROP)), 0);
	EXPECT_EQ(spread(9, 20), (std::vector<int>{ 0, 0, 0, 0 }));
	EXPECT_EQ(stat(1, "rx_steer_drop_packets"), 20u);
	EXPECT_EQ(stat(0, "tx_packets"), 20u);
	EXPECT_EQ(stat(1, "rx_packets"), 0u);
	EXPECT_EQ(spread(10, 4)[0] + spread(10, 4)[1] + spread(10, 4)[2] + spread(10, 4)[3], 4);
}

/* A context rule: its flows land only on the context's channels, each where the hash says. */
TEST_F(EnFlow, ContextRuleSpreadsOverTheContextTable)
{
	uint32_t table[SCX_RSS_TABLE_SIZE];
	uint8_t key[SCX_RSS_KEY_SIZE];
	for (uint32_t i = 0; i < SCX_RSS_TABLE_SIZE; i++)
		table[i] = i % 3 ? 1 : 3;
	for (uint32_t i = 0; i < SCX_RSS_KEY_SIZE; i++)
		key[i] = (uint8_t)(i * 53 + 7);
	uint32_t ctx = 0;
	const char *why = nullptr;
	ASSERT_EQ(scx_port_rss_ctx_create(port(), kCh, table, key, &ctx, &why), 0);
	ASSERT_GE(ctx, 1u);
	scx_rss c;
	ASSERT_EQ(scx_port_rss_ctx_get(port(), ctx, &c), 0);
	EXPECT_EQ(memcmp(c.key, key, sizeof(key)), 0);
	EXPECT_EQ(memcmp(c.table, table, sizeof(table)), 0);

	ASSERT_EQ(add(3, udp4_dport(6000, 0, ctx)), 0);
	int seen[kCh] = {};
	for (uint16_t sport = 4000; sport < 4048; sport++) {
		int got = land(udp(sport, 6000));
		ASSERT_EQ(got, (int)predict(c, sport, 6000)) << "sport " << sport;
		seen[got]++;
	}
	EXPECT_EQ(seen[0] + seen[2], 0);
	EXPECT_GT(seen[1], 0);
	EXPECT_GT(seen[3], 0);

	/* a context in use cannot go; a new table applies at once */
	EXPECT_EQ(scx_port_rss_ctx_delete(port(), ctx, &why), -SCX_EBUSY);
	EXPECT_NE(std::string(why).find("rule"), std::string::npos) << why;
	for (uint32_t &e : table)
		e = 2;
	ASSERT_EQ(scx_port_rss_ctx_set(port(), kCh, ctx, table, nullptr, &why), 0);
	EXPECT_EQ(spread(6000, 8), (std::vector<int>{ 0, 0, 8, 0 }));
	ASSERT_EQ(scx_port_flow_delete(port(), 3), 0);
	ASSERT_EQ(scx_port_rss_ctx_delete(port(), ctx, &why), 0);
	EXPECT_EQ(scx_port_rss_ctx_get(port(), ctx, &c), -SCX_ENOENT);
}

/*
 * A context rule's action is an offset added to the context's table entry
 * (ethtool's FLOW_RSS): two rules of one context, offsets 0 and 1, each
 * land where the hash says, shifted; across a switch; -L and a new table
 * that the offset would push past the channels are refused.
 */
TEST_F(EnFlow, ContextRuleOffsetShiftsTheTable)
{
	uint32_t table[SCX_RSS_TABLE_SIZE];
	const char *why = nullptr;
	scx_rss c;
	uint32_t ctx = ctx_2_0(&c);
	ASSERT_NE(ctx, 0u);
	ASSERT_EQ(add(1, udp4_dport(6000, 0, ctx)), 0);
	ASSERT_EQ(add(2, udp4_dport(6001, 1, ctx)), 0);
	auto check = [&](const char *when) {
		int seen[kCh] = {};
		for (uint16_t sport = 3000; sport < 3016; sport++) {
			EXPECT_EQ(land(udp(sport, 6000)), (int)predict(c, sport, 6000)) << when;
			int got = land(udp(sport, 6001));
			EXPECT_EQ(got, (int)predict(c, sport, 6001) + 1) << when;
			if (got >= 0)
				seen[got]++;
		}
		EXPECT_EQ(seen[0] + seen[2], 0) << when;
		EXPECT_GT(seen[1], 0) << when;
		EXPECT_GT(seen[3], 0) << when;
	};
	check("live");
	ASSERT_EQ(rebuild(kCh), 0);
	check("after a switch");

	EXPECT_EQ(scx_port_channels_check(port(), 3, 0, 0, 0, &why), -SCX_EINVAL) << "2 + 1 needs 4";
	for (uint32_t &e : table)
		e = 3;
	EXPECT_EQ(scx_port_rss_ctx_set(port(), kCh, ctx, table, nullptr, &why), -SCX_EINVAL);
	EXPECT_NE(std::string(why).find("offset"), std::string::npos) << why;
	EXPECT_EQ(add(3, udp4_dport(6002, 2, ctx), &why), -SCX_EINVAL) << "2 + 2 is beyond 3";

	/* the offset rule goes: its object with it; the context can go once both rules are */
	ASSERT_EQ(scx_port_flow_delete(port(), 2), 0);
	EXPECT_EQ(scx_port_channels_check(port(), 3, 0, 0, 0, &why), 0);
	EXPECT_EQ(scx_port_rss_ctx_delete(port(), ctx, &why), -SCX_EBUSY);
	ASSERT_EQ(scx_port_flow_delete(port(), 1), 0);
	ASSERT_EQ(scx_port_rss_ctx_delete(port(), ctx, &why), 0);
	/* all the offsets' objects are gone: as many contexts as before fit */
	uint32_t made = 0, c2;
	while (scx_port_rss_ctx_create(port(), kCh, nullptr, nullptr, &c2, &why) == 0)
		made++;
	EXPECT_EQ(made, (uint32_t)SCX_MAX_RSS_CONTEXTS);
}

/*
 * Rules and contexts name channels: every new set (a switch, close/open)
 * gets them with its RQs, an RQ recovery keeps them, and -L below what
 * they need is refused.
 */
TEST_F(EnFlow, RulesAndContextsSurviveSwitchesAndRecovery)
{
	const char *why = nullptr;
	scx_rss c;
	uint32_t ctx = ctx_2_0(&c);
	ASSERT_NE(ctx, 0u);
	ASSERT_EQ(add(1, udp4_dport(5001, 3)), 0);
	ASSERT_EQ(add(2, udp4_dport(6000, 0, ctx)), 0);
	ASSERT_EQ(add(4, udp4_dport(9, SCX_FLOW_DROP)), 0);
	auto check = [&](const char *when) {
		EXPECT_EQ(spread(5001, 8), (std::vector<int>{ 0, 0, 0, 8 })) << when;
		for (uint16_t sport = 3000; sport < 3008; sport++)
			EXPECT_EQ(land(udp(sport, 6000)), (int)predict(c, sport, 6000)) << when;
		uint64_t drops = stat(1, "rx_steer_drop_packets");
		EXPECT_EQ(land(udp(1, 9)), -1) << when;
		EXPECT_EQ(stat(1, "rx_steer_drop_packets"), drops + 1) << when;
	};
	check("before");

	ASSERT_EQ(rebuild(kCh), 0);
	check("after a switch to a new set");

	EXPECT_EQ(scx_port_channels_check(port(), 3, 0, 0, 0, &why), -SCX_EINVAL);
	EXPECT_NE(std::string(why).find("rule"), std::string::npos) << why;
	ASSERT_EQ(scx_port_flow_delete(port(), 1), 0);
	EXPECT_EQ(scx_port_channels_check(port(), 3, 0, 0, 0, &why), 0) << "the context needs 3";
	EXPECT_EQ(scx_port_channels_check(port(), 2, 0, 0, 0, &why), -SCX_EINVAL);
	EXPECT_NE(std::string(why).find("context"), std::string::npos) << why;
	/* the core refuses such a set even if asked; the live one runs on */
	EXPECT_EQ(rebuild(2), -SCX_EINVAL);
	ASSERT_EQ(add(1, udp4_dport(5001, 3)), 0);
	check("after a refused switch");

	ASSERT_EQ(rebuild(3), -SCX_EINVAL) << "rule 1 sends to channel 3";
	ASSERT_EQ(scx_port_flow_delete(port(), 1), 0);
	ASSERT_EQ(rebuild(3), 0);
	ASSERT_EQ(add(1, udp4_dport(5001, 2)), 0);
	EXPECT_EQ(spread(5001, 6), (std::vector<int>{ 0, 0, 6 }));
	for (uint16_t sport = 3000; sport < 3008; sport++)
		EXPECT_EQ(land(udp(sport, 6000)), (int)predict(c, sport, 6000)) << "3 channels";

	/* RQ recovery on the rule's channel: the RQ keeps its number, the rule its RQ */
	scx_channel_inject_rx_error(ch(1, 2));
	EXPECT_EQ(land(udp(1, 5001)), -1) << "the error CQE";
	poll(1);
	EXPECT_EQ(stat(1, "rx_recover"), 1u);
	EXPECT_EQ(spread(5001, 6), (std::vector<int>{ 0, 0, 6 })) << "after recovery";

	/* down and up */
	scx_port_close(port());
	auto chans = p[1].os_channels();
	scx_port_params prm = params(1500, 1);
	prm.nch = 3;
	ASSERT_EQ(scx_port_open(port(), &prm, chans.data()), 0);
	poll(1);
	arm(1);
	EXPECT_EQ(spread(5001, 6), (std::vector<int>{ 0, 0, 6 })) << "after close/open";
	for (uint16_t sport = 3000; sport < 3008; sport++)
		EXPECT_EQ(land(udp(sport, 6000)), (int)predict(c, sport, 6000)) << "after close/open";

	/* while down rules are remembered and installed at open */
	scx_port_close(port());
	ASSERT_EQ(add(8, udp4_dport(7777, 1)), 0);
	ASSERT_EQ(scx_port_open(port(), &prm, chans.data()), 0);
	poll(1);
	arm(1);
	EXPECT_EQ(spread(7777, 6), (std::vector<int>{ 0, 6, 0 }));
}

/* ntuple off: inserting is refused, and turning it off removes every rule. */
TEST_F(EnFlow, NtupleOffRemovesAndRefuses)
{
	ASSERT_EQ(add(0, udp4_dport(5001, 2)), 0);
	scx_port_set_ntuple(port(), 0);
	EXPECT_EQ(scx_port_flow_count(port()), 0u);
	EXPECT_NE(spread(5001)[0] + spread(5001)[1], 0) << "no rule on the device any more";
	const char *why = nullptr;
	EXPECT_EQ(add(0, udp4_dport(5001, 2), &why), -SCX_EOPNOTSUPP);
	EXPECT_NE(std::string(why).find("ntuple"), std::string::npos);
}

/* Bad rules and contexts: refused with a reason; nothing changes. */
TEST_F(EnFlow, BadInputIsRefused)
{
	uint32_t ctx = 0;
	const char *why = nullptr;
	ASSERT_EQ(scx_port_rss_ctx_create(port(), kCh, nullptr, nullptr, &ctx, &why), 0);
	ASSERT_EQ(add(0, udp4_dport(5001, 2)), 0);

	scx_flow_rule tcp_l4proto = udp4_dport(1, 0);
	tcp_l4proto.type = SCX_RSS_TCP4;
	tcp_l4proto.l4proto = 6;
	tcp_l4proto.l4proto_mask = 0xff;
	scx_flow_rule ip_ports = udp4_dport(1, 0);
	ip_ports.type = SCX_RSS_IP4;
	scx_flow_rule v4_long = udp4_dport(1, 0);
	v4_long.dst_ip_mask[5] = 0xff;
	scx_flow_rule bad_type = udp4_dport(1, 0);
	bad_type.type = SCX_FLOW_ETHER + 1;
	scx_flow_rule ether_ports = udp4_dport(1, 0);
	ether_ports.type = SCX_FLOW_ETHER;
	scx_flow_rule udp_ethertype = udp4_dport(1, 0);
	udp_ethertype.ethertype_mask = 0xffff;
	scx_flow_rule udp_smac = udp4_dport(1, 0);
	udp_smac.src_mac_mask[5] = 0xff;
	scx_flow_rule vlan_prio = udp4_dport(1, 0);
	vlan_prio.vlan_id_mask = 0xffff;
	scx_flow_rule vlan_big = udp4_dport(1, 0);
	vlan_big.vlan_id = 4096;
	vlan_big.vlan_id_mask = 0xfff;
	scx_flow_rule drop_ctx = udp4_dport(1, SCX_FLOW_DROP, ctx);
	struct {
		uint32_t loc;
		scx_flow_rule r;
		const char *why;
	} bad[] = {
		{ scx_port_flow_table_size(port()), udp4_dport(1, 0), "location" },
		{ 0, udp4_dport(1, kCh), "channel" },
		{ 0, udp4_dport(1, 0, ctx + 1), "no such RSS context" },
		{ 0, udp4_dport(1, 0, 99), "no such RSS context" },
		{ 0, udp4_dport(1, 1, ctx), "offset" },	/* the table spreads over 0..3 */
		{ 0, drop_ctx, "drop" },
		{ 0, tcp_l4proto, "l4proto" },
		{ 0, ip_ports, "ports" },
		{ 0, v4_long, "4 bytes" },
		{ 0, bad_type, "flow types" },
		{ 0, ether_ports, "ether flow matches" },
		{ 0, udp_ethertype, "for ether flows" },
		{ 0, udp_smac, "for ether flows" },
		{ 0, vlan_prio, "whole VLAN ID" },
		{ 0, vlan_big, "below 4096" },
	};
	for (auto &b : bad) {
		EXPECT_EQ(add(b.loc, b.r, &why), -SCX_EINVAL) << b.why;
		ASSERT_NE(why, nullptr) << b.why;
		EXPECT_NE(std::string(why).find(b.why), std::string::npos) << why;
		EXPECT_EQ(spread(5001, 4), (std::vector<int>{ 0, 0, 4, 0 })) << b.why << ": rule 0 stays";
	}
	EXPECT_EQ(scx_port_flow_count(port()), 1u);

	uint32_t table[SCX_RSS_TABLE_SIZE] = {};
	table[9] = kCh;
	uint32_t c2 = 0;
	EXPECT_EQ(scx_port_rss_ctx_create(port(), kCh, table, nullptr, &c2, &why), -SCX_EINVAL);
	EXPECT_NE(std::string(why).find("channel"), std::string::npos) << why;
	EXPECT_EQ(scx_port_rss_ctx_set(port(), kCh, ctx, table, nullptr, &why), -SCX_EINVAL);
	EXPECT_EQ(scx_port_rss_ctx_set(port(), kCh, ctx + 1, nullptr, nullptr, &why), -SCX_ENOENT);
	EXPECT_EQ(scx_port_rss_ctx_delete(port(), 0, &why), -SCX_ENOENT);
	/* contexts run out */
	uint32_t made = 1;
	while (scx_port_rss_ctx_create(port(), kCh, nullptr, nullptr, &c2, &why) == 0)
		made++;
	EXPECT_EQ(made, (uint32_t)SCX_MAX_RSS_CONTEXTS);
	EXPECT_EQ(scx_port_rss_ctx_create(port(), kCh, nullptr, nullptr, &c2, &why), -SCX_ENOSPC);

	uint32_t loc = 0;
	EXPECT_EQ(scx_port_flow_free_loc(port(), 0, &loc), 0);
	EXPECT_EQ(loc, 1u);
	EXPECT_EQ(scx_port_flow_free_loc(port(), 1, &loc), 0);
	EXPECT_EQ(loc, scx_port_flow_table_size(port()) - 1);
}

} /* namespace */

/*
 * The RX address filter through the core (scx_port_set_rx_filter): the
 * frames' destination 02:00:00:00:00:02 taken as the own address, turned
 * away (rx_steer_missed_packets, not rx_dropped) when another is, taken as
 * a secondary one, by the unicast promiscuous mode, and when the list
 * overflows the caps (which turns that mode on); a group address only when
 * listed or with the multicast mode; bad flags refused. An ntuple rule
 * still steers a frame the filter would turn away.
 */
TEST_F(EnFlow, AddressFilter)
{
	const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 }, own[6] = { 0x02, 0, 0, 0, 0, 0x77 };
	const uint8_t group[6] = { 0x01, 0x00, 0x5e, 0, 0, 0x09 };
	scx_port_caps caps;
	scx_port_get_caps(port(), &caps);
	ASSERT_EQ(caps.max_uc_addrs, 32u);
	ASSERT_EQ(caps.max_mc_addrs, 64u);

	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, dst, 1, nullptr, 0), 0);
	EXPECT_GE(land(udp(1, 80)), 0);
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, own, 1, nullptr, 0), 0);
	EXPECT_EQ(land(udp(1, 80)), -1);
	EXPECT_EQ(land(udp(2, 80)), -1);
	EXPECT_EQ(stat(1, "rx_steer_missed_packets"), 2u);
	EXPECT_EQ(stat(1, "rx_packets_phy"), 3u);

	std::vector<uint8_t> uc(own, own + 6);
	uc.insert(uc.end(), dst, dst + 6);
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, uc.data(), 2, nullptr, 0), 0);
	EXPECT_GE(land(udp(3, 80)), 0) << "a secondary address";
	ASSERT_EQ(scx_port_set_rx_filter(port(), SCX_RX_PROMISC_UC, own, 1, nullptr, 0), 0);
	EXPECT_GE(land(udp(4, 80)), 0) << "unicast promiscuous";
	/* 33 addresses, not the frames': more than the device lists, so every unicast */
	std::vector<uint8_t> many;
	for (int i = 0; i < 33; i++) {
		many.insert(many.end(), own, own + 6);
		many.back() = (uint8_t)(0x80 + i);
	}
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, many.data(), 33, nullptr, 0), 0);
	EXPECT_GE(land(udp(5, 80)), 0) << "overflow: unicast promiscuous";
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, many.data(), 32, nullptr, 0), 0);
	EXPECT_EQ(land(udp(6, 80)), -1) << "32 fit: listed only";

	frames::Bytes g = udp(7, 80);
	memcpy(g.data(), group, 6);
	EXPECT_EQ(land(g), -1);
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, own, 1, group, 1), 0);
	EXPECT_GE(land(g), 0) << "a listed group";
	ASSERT_EQ(scx_port_set_rx_filter(port(), SCX_RX_PROMISC_MC, own, 1, nullptr, 0), 0);
	EXPECT_GE(land(g), 0) << "multicast promiscuous";
	EXPECT_EQ(land(udp(8, 80)), -1) << "not unicast";

	EXPECT_EQ(scx_port_set_rx_filter(port(), 8, own, 1, nullptr, 0), -SCX_EINVAL);
	EXPECT_EQ(scx_port_set_rx_filter(port(), 0, group, 1, nullptr, 0), -SCX_EINVAL)
		<< "a group address as unicast: the device refuses it";
	EXPECT_EQ(land(udp(9, 80)), -1) << "refusals kept the filter";

	/* an ntuple rule takes its frames before the filter looks */
	ASSERT_EQ(add(0, udp4_dport(80, 2)), 0);
	EXPECT_EQ(land(udp(10, 80)), 2);
	EXPECT_EQ(stat(1, "rx_steer_missed_packets"), 6u);
	scx_stats_refresh(port());
	scx_link_stats ls;
	scx_stats_link(port(), &ls);
	EXPECT_EQ(ls.rx_dropped, 0u) << "turned away is not dropped";
	EXPECT_EQ(ls.rx_missed_errors, 0u);
}

/*
 * The RX VLAN filter through the core (scx_port_set_rx_vlans): a C-tagged
 * frame only for a VLAN ID of the C map, an S-tagged one by the S map, each
 * kind unfiltered without its flag, untagged frames always, everything
 * while the address filter is promiscuous; turned away frames counted as
 * the address filter's; bad flags refused, the filter kept.
 */
TEST_F(EnFlow, VlanFilter)
{
	const uint8_t dst[6] = { 0x02, 0, 0, 0, 0, 0x02 };
	uint64_t c[SCX_VLAN_MAP_WORDS] = {}, s[SCX_VLAN_MAP_WORDS] = {};
	auto tagged = [&](uint16_t tpid, uint16_t vid, uint8_t seed) {
		frames::Bytes f = frames::vlan_insert(udp(seed, 80), vid);
		f[12] = (uint8_t)(tpid >> 8);
		f[13] = (uint8_t)tpid;
		return land(f);
	};

	c[100 / 64] |= 1ull << (100 % 64);
	s[4000 / 64] |= 1ull << (4000 % 64);
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, dst, 1, nullptr, 0), 0);
	ASSERT_EQ(scx_port_set_rx_vlans(port(), SCX_RX_VLAN_CTAG | SCX_RX_VLAN_STAG, c, s), 0);
	EXPECT_GE(land(udp(1, 80)), 0) << "untagged";
	EXPECT_GE(tagged(0x8100, 100, 2), 0);
	EXPECT_EQ(tagged(0x8100, 101, 3), -1);
	EXPECT_EQ(tagged(0x88a8, 100, 4), -1) << "100 is in the C map";
	EXPECT_GE(tagged(0x88a8, 4000, 5), 0);
	EXPECT_EQ(stat(1, "rx_steer_missed_packets"), 2u);

	ASSERT_EQ(scx_port_set_rx_vlans(port(), SCX_RX_VLAN_STAG, c, s), 0);
	EXPECT_GE(tagged(0x8100, 101, 6), 0) << "C-tags not filtered";
	EXPECT_EQ(tagged(0x88a8, 101, 7), -1);
	ASSERT_EQ(scx_port_set_rx_filter(port(), SCX_RX_PROMISC_ALL, dst, 1, nullptr, 0), 0);
	EXPECT_GE(tagged(0x88a8, 101, 8), 0) << "promiscuous";
	ASSERT_EQ(scx_port_set_rx_filter(port(), 0, dst, 1, nullptr, 0), 0);

	EXPECT_EQ(scx_port_set_rx_vlans(port(), 4, c, s), -SCX_EINVAL);
	EXPECT_EQ(tagged(0x88a8, 101, 9), -1) << "the refusal kept the filter";
	EXPECT_EQ(stat(1, "rx_steer_missed_packets"), 4u);
	scx_stats_refresh(port());
	scx_link_stats ls;
	scx_stats_link(port(), &ls);
	EXPECT_EQ(ls.rx_dropped, 0u);
}
